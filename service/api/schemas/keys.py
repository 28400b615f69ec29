"""``GET /v1/keys``'s answer (``make spec`` writes ``openapi.yaml`` from it)."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.api.schemas.games import ref


class ServiceKeySchema(Schema):
    """One public key the service signs (or signed) receipts with."""

    public_key = fields.String(required=True, metadata=ref("PublicKey"))
    current = fields.Boolean(
        required=True,
        metadata={
            "description": "true for the key new receipts are signed with; false for one "
            "retired by a rotation, still listed so the receipts it signed stay checkable."
        },
    )


class ServiceKeysSchema(Schema):
    """The service's Ed25519 public keys, the current one first, then those it retired,
    newest first. Save this answer: `floe replay verify --receipts FILE --keys` checks kept
    receipts against it."""

    keys = fields.List(fields.Nested(ServiceKeySchema), required=True)


SERVICE_KEYS = ServiceKeysSchema()
