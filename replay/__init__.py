"""Replay tools: read a game's log (an export file, or Redis by id) and audit it offline."""
