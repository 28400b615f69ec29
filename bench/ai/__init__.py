"""``make bench-ai``: bot strength (win and success rates) and think time."""
