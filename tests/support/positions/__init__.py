"""Hand-built positions of each game, for the rules and bot tests."""
