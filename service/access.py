"""Who is asking, and what they may do: bearer tokens resolved to a viewer.

A viewer is a seat of one game, the organizer, or an anonymous spectator. A malformed or
unknown token is 401 wherever it is sent; a seat token used on another game is 403.
"""

from __future__ import annotations

from dataclasses import dataclass

from service import tokens
from service.catalog import Catalog
from service.errors import Unauthenticated, not_a_seat


@dataclass(frozen=True, slots=True)
class Viewer:
    seat: int | None = None
    game_id: str | None = None
    organizer: bool = False

    @property
    def anonymous(self) -> bool:
        return self.game_id is None and not self.organizer

    def seat_in(self, game_id: str) -> int | None:
        """The viewer's seat in ``game_id``; None for a spectator or the organizer."""
        return self.seat if self.game_id == game_id else None

    def require_token(self) -> None:
        """401 for an anonymous caller where a token is needed."""
        if self.anonymous:
            raise Unauthenticated("missing_token", "this route needs a token")

    def require_seat(self, game_id: str) -> int:
        self.require_token()
        seat = self.seat_in(game_id)
        if seat is None:
            raise not_a_seat()
        return seat

    def reader_seat(self, game_id: str) -> int | None:
        """The seat whose view a reader gets (None: spectator); another game's seat is 403."""
        if self.game_id is not None and self.game_id != game_id:
            raise not_a_seat()
        return self.seat_in(game_id)


SPECTATOR = Viewer()


def resolve(authorization: str | None, catalog: Catalog, organizer_token: str | None) -> Viewer:
    """The viewer an ``Authorization`` header names: none is a spectator, a bad one is 401."""
    if authorization is None:
        return SPECTATOR
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated("invalid_authorization", "use 'Authorization: Bearer <token>'")
    if tokens.is_organizer(token, organizer_token):
        return Viewer(organizer=True)
    claim = tokens.parse_claim(token)
    meta = catalog.find(claim.game_id) if claim else None
    if claim is None or meta is None or claim.seat >= len(meta.token_hashes):
        raise Unauthenticated("unknown_token", "this token belongs to no seat")
    stored = meta.token_hashes[claim.seat]
    if stored is None or not tokens.matches(token, stored):
        raise Unauthenticated("unknown_token", "this token belongs to no seat")
    return Viewer(seat=claim.seat, game_id=claim.game_id)
