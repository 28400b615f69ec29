"""Who is asking, and what they may do: bearer tokens resolved to a viewer.

A viewer is a seat of one game, a tournament player (a seat in each of their tournament's
games), the organizer, or an anonymous spectator. A malformed or unknown token is 401 wherever
it is sent; a seat token used on another game is 403.

Both kinds of seat token read ``<id>.<number>.<secret>``: a game's id and a seat, or a
tournament's id and a player. The id says which: a game's is looked up first, then a
tournament's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from service.errors import Unauthenticated, not_a_seat
from service.games import tokens
from service.games.catalog import Catalog


@dataclass(frozen=True, slots=True)
class Viewer:
    #: ``(game id, seat)`` for every game the token seats its holder at.
    seats: tuple[tuple[str, int], ...] = ()
    organizer: bool = False
    #: ``(tournament id, player)`` for a tournament player's token.
    tournament: tuple[str, int] | None = None

    @classmethod
    def of_seat(cls, game_id: str, seat: int) -> Viewer:
        return cls(seats=((game_id, seat),))

    @property
    def anonymous(self) -> bool:
        return not self.seats and self.tournament is None and not self.organizer

    def seat_in(self, game_id: str) -> int | None:
        """The viewer's seat in ``game_id``; None for a spectator or the organizer."""
        for seated_at, seat in self.seats:
            if seated_at == game_id:
                return seat
        return None

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
        seated = self.seats or self.tournament is not None
        if seated and self.seat_in(game_id) is None:
            raise not_a_seat()
        return self.seat_in(game_id)


SPECTATOR = Viewer()


class TournamentTokens(Protocol):
    def player_seats(self, tournament_id: str, player: int, token: str) -> Viewer | None: ...


def resolve(
    authorization: str | None,
    catalog: Catalog,
    organizer_token: str | None,
    tournaments: TournamentTokens | None = None,
) -> Viewer:
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
    if claim is None:
        raise _unknown()
    meta = catalog.find(claim.game_id)
    if meta is None:
        player = None
        if tournaments is not None:
            player = tournaments.player_seats(claim.game_id, claim.seat, token)
        if player is None:
            raise _unknown()
        return player
    if claim.seat >= len(meta.token_hashes):
        raise _unknown()
    stored = meta.token_hashes[claim.seat]
    if stored is None or not tokens.matches(token, stored):
        raise _unknown()
    return Viewer.of_seat(claim.game_id, claim.seat)


def _unknown() -> Unauthenticated:
    return Unauthenticated("unknown_token", "this token belongs to no seat")
