"""The game-independent engine: value types, errors, the Rules protocol and the fold."""
