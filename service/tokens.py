"""Seat tokens: long, random, self-locating, stored only as SHA-256 hashes.

A token reads ``<game_id>.<seat>.<secret>`` so the service finds the one hash to compare
against without a global index; the secret is 32 random bytes. Comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenClaim:
    """What a token says about itself, before it is checked against the stored hash."""

    game_id: str
    seat: int
    token: str


def new_token(game_id: str, seat: int) -> str:
    return f"{game_id}.{seat}.{secrets.token_urlsafe(32)}"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def parse_claim(token: str) -> TokenClaim | None:
    parts = token.split(".")
    if len(parts) != 3 or not parts[1].isdigit() or len(parts[1]) > 2:
        return None
    return TokenClaim(game_id=parts[0], seat=int(parts[1]), token=token)


def matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(token_hash(token), stored_hash)


def is_organizer(token: str, organizer_token: str | None) -> bool:
    return organizer_token is not None and hmac.compare_digest(
        token.encode("utf-8"), organizer_token.encode("utf-8")
    )
