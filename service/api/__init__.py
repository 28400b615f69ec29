"""The HTTP API: the only layer that knows Flask, marshmallow and status codes."""
