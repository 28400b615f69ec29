"""The request and response bodies, one module per resource (marshmallow)."""
