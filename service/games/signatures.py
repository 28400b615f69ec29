"""The signature a keyed seat's action must carry, checked before anything else of the body.

A seat given a public key (``SeatInfo.public_key``) proves each of its actions with its own
Ed25519 key, so neither the host nor anyone holding the seat's token can move for it. The
check comes right after the token (401 outranks every other refusal) and reads the body as
posted: the message is ``domain.engine.signing.action_message`` over its ``expected_version``
and ``action``, whatever else is wrong with them (a malformed body cannot carry a valid
signature, so it is refused as unsigned first). A repeat of an accepted command carries the
same signature (Ed25519 is deterministic) and passes the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine.canonical import canonical_json
from domain.engine.errors import MalformedAction
from domain.engine.signing import SignatureCheck, action_message, is_signature
from service.errors import InvalidRequest, Unauthenticated
from service.games.catalog import GameMeta


def bad_signature(message: str) -> Unauthenticated:
    return Unauthenticated("bad_signature", message)


def require_signature(
    meta: GameMeta, seat: int | None, body: Any, check: SignatureCheck
) -> str | None:
    """The signature the post of ``seat`` carries when the seat has a key (401
    ``bad_signature`` when it is missing or wrong); None for a seat without one, which may
    send none (400 ``invalid_body`` if it does: a signature nobody can check is refused
    rather than dropped)."""
    posted = body.get("signature") if isinstance(body, dict) else None
    key = None if seat is None else meta.seats[seat].public_key
    if key is None:
        if posted is not None:
            raise InvalidRequest(
                "invalid_body", "signature: this seat has no public key, so it signs nothing"
            )
        return None
    if posted is None:
        raise bad_signature(f"seat {seat} signs its actions: the post carries no signature")
    if not is_signature(posted):
        raise bad_signature("signature: 128 lowercase hex digits (an Ed25519 signature)")
    action, version = body.get("action"), body.get("expected_version")
    if not isinstance(action, dict) or type(version) is not int:
        raise bad_signature(
            "a signature covers the action (an object) and expected_version (an integer): "
            "this body has no such pair to check it against"
        )
    if not check(key, action_message(meta.game_id, version, action), posted):
        raise bad_signature(
            f"the signature is not seat {seat}'s key's over floe-action-v1, game "
            f"{meta.game_id}, expected_version {version} and this action's canonical JSON"
        )
    return str(posted)


def signed_as_stored(posted: Mapping[str, Any], stored: Mapping[str, Any]) -> None:
    """A signed action is stored exactly as it was signed, so the audit can check it: one
    the rules would write down differently (a field they drop or rewrite) is 400
    ``invalid_field`` rather than stored under a signature that no longer fits it."""
    if canonical_json(posted) != canonical_json(stored):
        raise MalformedAction(
            "invalid_field",
            f"a signed action is stored as signed: post it as {canonical_json(stored)}",
        )
