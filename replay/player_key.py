"""A player's Ed25519 key, for people integrating with Floe in Python.

A seat given a ``public_key`` must sign every action it posts (the service answers 401
``bad_signature`` otherwise), and ``floe replay verify`` checks every such signature, so not
even the host, who holds the game's seed, can rewrite that player's moves. The key lives with
the player, never with the service: generate it once, keep ``private_key_hex`` as a secret,
give ``public_key`` when the seat is made (``players[i].public_key`` of ``POST /v1/games``, a
table join, a tournament entry), and post with ``signed_body``.

The service also signs a receipt for each event it stores, and sends it with the answer to an
action (``receipts``) and with every streamed event (``receipt``). A player who keeps them can
prove a rewrite later: ``receipt_is_valid`` checks one with the service's public key (``GET
/v1/keys``), and once the game is over, ``receipt_mark`` recomputes its ``mark`` from the
revealed seed and the export's event hash.

Usage::

    from replay.player_key import PlayerKey

    key = PlayerKey.generate()
    secret = key.private_key_hex            # store it safely; PlayerKey.from_hex(secret) later
    body = {"game": "...", "players": [{"name": "Ann", "public_key": key.public_key}, ...]}
    ...                                     # POST /v1/games, keep the seat's token
    legal = ...                             # GET /v1/games/{id}/legal-actions
    post = key.signed_body(game_id, legal["version"], legal["actions"][0], "ann-1")
    ...                                     # POST /v1/games/{id}/actions with ``post`` as JSON

The bytes signed are ``domain.engine.signing.action_message``: ``floe-action-v1``, the game id
and the expected version, each followed by a newline, then the action's canonical JSON (sorted
keys, no spaces, UTF-8 as is). Sign the action exactly as the service stores it (its rules'
own JSON, as ``legal-actions`` lists it): one the rules would write down differently is
refused rather than stored under a signature that no longer fits it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.engine.signing import action_message, receipt_message
from domain.engine.signing import receipt_mark as _mark_of
from replay import ed25519

_PRIVATE_KEY = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True, slots=True)
class PlayerKey:
    """A player's key pair: sign actions with it, give ``public_key`` to the service.

    ``repr`` never shows the private key (a log line must not leak it).
    """

    private_key_hex: str = field(repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.private_key_hex, str) or not _PRIVATE_KEY.fullmatch(
            self.private_key_hex
        ):
            raise ValueError("a private key is 32 bytes as 64 hex digits")
        object.__setattr__(self, "private_key_hex", self.private_key_hex.lower())

    @classmethod
    def generate(cls) -> PlayerKey:
        """A fresh key from the operating system's randomness."""
        return cls(ed25519.new_private_key())

    @classmethod
    def from_hex(cls, private_key_hex: str) -> PlayerKey:
        """The key whose 32 secret bytes (RFC 8032's seed) are ``private_key_hex``."""
        return cls(private_key_hex)

    @property
    def public_key(self) -> str:
        """What the service and the audit check signatures with: 64 lowercase hex digits."""
        return ed25519.public_key_of(self.private_key_hex)

    def sign_action(self, game_id: str, expected_version: int, action: Mapping[str, Any]) -> str:
        """The signature (128 lowercase hex digits) that posts ``action`` in ``game_id``
        against ``expected_version``; it is valid for that game, version and action only."""
        return ed25519.sign(self.private_key_hex, action_message(game_id, expected_version, action))

    def signed_body(
        self,
        game_id: str,
        expected_version: int,
        action: Mapping[str, Any],
        command_id: str,
    ) -> dict[str, Any]:
        """The JSON body of ``POST /v1/games/{game_id}/actions`` for ``action``, signed.
        Posting it again (a retry) sends the same signature: Ed25519 is deterministic."""
        return {
            "action": dict(action),
            "expected_version": expected_version,
            "command_id": command_id,
            "signature": self.sign_action(game_id, expected_version, action),
        }


def receipt_is_valid(
    service_key: str, game_id: str, version: int, mark: str, signature: str
) -> bool:
    """Whether ``signature`` is the service's (``service_key``, 64 hex, from ``GET
    /v1/keys``) receipt for the event stored at ``version`` of ``game_id`` with ``mark``.
    False, never an exception, for anything malformed."""
    if not isinstance(game_id, str) or type(version) is not int or not isinstance(mark, str):
        return False
    try:
        message = receipt_message(game_id, version, mark)
    except UnicodeEncodeError:  # not ASCII: no receipt the service signs
        return False
    return ed25519.signature_is_valid(service_key, message, signature)


def receipt_mark(seed_hex: str, event_hash: str) -> str:
    """A receipt's ``mark`` for the event with ``event_hash``, from the game's seed as
    ``seed_revealed`` gives it (64 hex): HMAC-SHA256 keyed by the seed's bytes, lowercase
    hex. A receipt whose mark differs from the export's is for another event."""
    return _mark_of(bytes.fromhex(seed_hex), event_hash)
