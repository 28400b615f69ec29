"""``GET /v1/keys``: the public keys the service signs receipts with, so that a player can
check a receipt when it arrives and an auditor years later (a rotation keeps old ones listed).
"""

from __future__ import annotations

from flask import Blueprint, Response

from service.api.http import current_floe, only_query, render
from service.api.schemas.keys import SERVICE_KEYS

keys_v1 = Blueprint("keys_v1", __name__, url_prefix="/v1")


@keys_v1.get("/keys")
def list_keys() -> Response:
    """Needs no token: the keys are public, and checking a receipt must not need one."""
    only_query()
    return render(SERVICE_KEYS, {"keys": current_floe().receipts.key.listed()})
