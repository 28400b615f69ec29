"""Seat tokens: long, random, self-locating, stored only as SHA-256 hashes.

A token reads ``<game_id>.<seat>.<secret>`` so the service finds the one hash to compare
against without a global index; the secret is 32 random bytes. Comparison is constant-time.

Whatever a client sends is only a claim if it has exactly that shape in ASCII: a game id and a
secret of URL-safe characters, a seat of one or two ASCII digits without a leading zero, and
at most ``MAX_TOKEN_LENGTH`` characters. Anything else (``'³'``, which ``str.isdigit`` accepts
and ``int`` refuses; other scripts' digits, which ``int`` reads; NUL, whitespace, empty parts,
huge numbers, non-ASCII ids) is no claim, so the caller answers 401, never 500.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

#: Far above a real token (16 + 1 + 2 + 1 + 43 characters); longer input is not looked at.
MAX_TOKEN_LENGTH = 256

# Explicit ASCII classes (``\d`` and ``\w`` would take other scripts' digits and letters).
_CLAIM = re.compile(
    r"(?P<game_id>[A-Za-z0-9_-]{1,64})\.(?P<seat>0|[1-9][0-9]?)\.[A-Za-z0-9_-]{1,128}"
)


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
    """The game and seat a well-formed token names, or None for anything else."""
    if len(token) > MAX_TOKEN_LENGTH:
        return None
    match = _CLAIM.fullmatch(token)
    if match is None:
        return None
    return TokenClaim(game_id=match["game_id"], seat=int(match["seat"]), token=token)


def matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(token_hash(token), stored_hash)


def is_organizer(token: str, organizer_token: str | None) -> bool:
    # surrogatepass: a lone surrogate (which no HTTP header carries, but a str may) compares
    # unequal instead of raising.
    return organizer_token is not None and hmac.compare_digest(
        token.encode("utf-8", "surrogatepass"), organizer_token.encode("utf-8", "surrogatepass")
    )
