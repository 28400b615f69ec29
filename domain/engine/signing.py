"""The exact bytes players and the service sign, and the receipt's mark.

A hash chain proves nothing against the party that can rewrite it, so Floe binds a game to
its people instead: a seat given an Ed25519 public key signs every action it posts, and the
service signs a receipt for every event it stores. Both sides (the service deciding, the audit
checking, a client signing) build their messages here, so they cannot drift apart. Nothing
signed is a bare event hash: a hash shown before the end is an oracle for hidden outcomes, so
a receipt signs a *mark* (an HMAC of the hash keyed by the still-secret seed) instead.

The Ed25519 arithmetic itself is not here (the domain needs only the standard library): the
callers hand in a ``SignatureCheck`` (``replay.ed25519.signature_is_valid``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from typing import Any

from domain.engine.canonical import canonical_json

ACTION_CONTEXT = "floe-action-v1"
RECEIPT_CONTEXT = "floe-receipt-v1"

_PUBLIC_KEY = re.compile(r"[0-9a-f]{64}")
_SIGNATURE = re.compile(r"[0-9a-f]{128}")
_MARK = re.compile(r"[0-9a-f]{64}")

#: ``check(public_key_hex, message, signature_hex)``: whether the signature is the key's over
#: the message (False, never an exception, for anything malformed).
SignatureCheck = Callable[[str, bytes, str], bool]


def is_public_key(value: Any) -> bool:
    """An Ed25519 public key as Floe writes it: 64 lowercase hex digits."""
    return isinstance(value, str) and _PUBLIC_KEY.fullmatch(value) is not None


def is_signature(value: Any) -> bool:
    """An Ed25519 signature as Floe writes it: 128 lowercase hex digits."""
    return isinstance(value, str) and _SIGNATURE.fullmatch(value) is not None


def is_mark(value: Any) -> bool:
    """A receipt's mark: 64 lowercase hex digits."""
    return isinstance(value, str) and _MARK.fullmatch(value) is not None


def action_message(game_id: str, expected_version: int, action: Mapping[str, Any]) -> bytes:
    """What a keyed seat signs to post ``action`` against ``expected_version``: the context,
    the game and the version it was decided against (so a signed move cannot be replayed in
    another game or at another turn), then the action's canonical JSON."""
    head = f"{ACTION_CONTEXT}\n{game_id}\n{expected_version}\n"
    return (head + canonical_json(action)).encode("utf-8")


def receipt_mark(seed: bytes, event_hash: str) -> str:
    """HMAC-SHA256 keyed by the game's seed over the event's hash (ASCII hex), lowercase hex:
    it hides the hash until the seed is revealed, then anyone recomputes it."""
    return hmac.new(seed, event_hash.encode("ascii"), hashlib.sha256).hexdigest()


def receipt_message(game_id: str, version: int, mark: str) -> bytes:
    """What the service signs for the event it stored at ``version``."""
    return f"{RECEIPT_CONTEXT}\n{game_id}\n{version}\n{mark}\n".encode("ascii")
