"""Talking to Redis: connections, refusals Redis makes, and Lua scripts, each in one place."""
