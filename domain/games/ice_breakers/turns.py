"""How each stored event changes an Ice Breakers board. Trusts the log: never validates.

``check`` in ``rules.py`` has already refused anything illegal, so these functions only
apply what happened: setup draws, the card plays, clearing, moving, giving and the end of a
turn (the forecast takes effect, the next card is exposed, the season may end), and a seat
leaving the game (``leave``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.engine.departures import LeaveReason
from domain.games.ice_breakers.actions import (
    Boost,
    CashAb2,
    Clear,
    EndTurn,
    Give,
    IceBreakersAction,
    MoveShip,
    Pass,
    PlayPower,
)
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import Card, boost_value, power
from domain.games.ice_breakers.geometry import HARBOR_AT, LARGE
from domain.games.ice_breakers.setup import (
    deal_cards,
    deal_pieces,
    place_ships,
    report_stack,
)

# ----- setup draws ---------------------------------------------------------------------------


def setup_draw(board: IceBreakersBoard, label: str, outcome: Any) -> IceBreakersBoard:
    """Fold one of the five setup draws, in their fixed order; anything else is ignored."""
    if label != board.phase:
        return board
    if label == "pieces":
        return board._replace(phase="ships", pieces=deal_pieces(outcome))
    if label == "ships":
        return board._replace(phase="reports_upper", ships=place_ships(board.in_play, outcome))
    if label == "reports_upper":
        return board._replace(phase="reports_lower", upper=tuple(outcome))
    if label == "reports_lower":
        return board._replace(phase="deck", reports=report_stack(board.upper, outcome), upper=())
    deal = deal_cards(board.seats, board.intro, outcome)
    return board._replace(phase="play", rewards=deal.rewards, row=deal.row, hands=deal.hands)


def ab2_draw(board: IceBreakersBoard, outcome: int) -> IceBreakersBoard:
    """One card taken from the discard pile (oldest first) to wait for the casher to give."""
    if board.draws_left <= 0 or not 0 <= outcome < len(board.discard):
        return board
    card = board.discard[outcome]
    discard = board.discard[:outcome] + board.discard[outcome + 1 :]
    draws_left = board.draws_left - 1 if discard else 0
    return board._replace(discard=discard, waiting=(*board.waiting, card), draws_left=draws_left)


# ----- actions -------------------------------------------------------------------------------


def act(board: IceBreakersBoard, seat: int, action: IceBreakersAction) -> IceBreakersBoard:
    if isinstance(action, PlayPower):
        hands = _without(board.hands, seat, action.card)
        return board._replace(
            hands=hands,
            discard=(*board.discard, action.card),
            power=action.card,
            points=power(action.card),
        )
    if isinstance(action, Boost):
        return board._replace(
            hands=_without(board.hands, seat, action.card),
            discard=(*board.discard, action.card),
            points=board.points + boost_value(action.card),
            boosts=(*board.boosts, action.card),
        )
    if isinstance(action, CashAb2):  # the AB2 leaves the game
        return board._replace(
            hands=_without(board.hands, seat, action.card),
            giver=seat,
            draws_left=min(2, len(board.discard)),
        )
    if isinstance(action, Give):
        waiting = list(board.waiting)
        if action.card in waiting:
            waiting.remove(action.card)
        return board._replace(
            hands=_with(board.hands, action.to, action.card), waiting=tuple(waiting)
        )
    if isinstance(action, Clear):
        value = board.pieces.get(action.cell, 0)
        return board._replace(water=board.water | {action.cell}, spent=board.spent + value)
    if isinstance(action, MoveShip):
        return _move(board, action.ship, action.path[-1])
    if isinstance(action, EndTurn | Pass):
        return end_turn(board, passed=isinstance(action, Pass))
    return board


def _move(board: IceBreakersBoard, ship: int, cell: tuple[int, int]) -> IceBreakersBoard:
    if HARBOR_AT.get(cell) != ship:
        return board._replace(ships={**board.ships, ship: cell})
    ships = {s: c for s, c in board.ships.items() if s != ship}
    delivered = (*board.delivered, ship)
    if not ships:  # every ship in play is in: a complete success, mid-turn
        return board._replace(ships=ships, delivered=delivered, phase="over", success=True)
    reward: tuple[Card, ...] = board.rewards.get(ship, ())
    rewards = {d: cards for d, cards in board.rewards.items() if d != ship}
    row = board.row
    if ship not in LARGE and not reward and row:
        reward, row = row[:1], row[1:]
    return board._replace(
        ships=ships,
        delivered=delivered,
        rewards=rewards,
        row=row,
        waiting=(*board.waiting, *reward),
        giver=board.current,
    )


def end_turn(board: IceBreakersBoard, *, passed: bool) -> IceBreakersBoard:
    """Unused points are lost; the forecast re-freezes its numbers; the next card shows; then
    every turn of a timed-out seat passes at once, each exactly as a ``pass`` would."""
    after = _turn_over(board, passed=passed)
    while after.phase == "play" and after.current in after.timed_out:
        after = _turn_over(after, passed=True)  # ends: passes reach ``seats`` at the latest
    return after


def _turn_over(board: IceBreakersBoard, *, passed: bool) -> IceBreakersBoard:
    """One turn's end-of-turn steps and the end-of-season checks at the next turn's start."""
    forecast = board.forecast
    water = frozenset(c for c in board.water if board.pieces[c] not in forecast)
    after = board._replace(
        water=water,
        report_index=min(board.report_index + 1, len(board.reports) - 1),
        current=(board.current + 1) % board.seats,
        power=None,
        points=0,
        spent=0,
        boosts=(),
        turns=board.turns + 1,
        passes=board.passes + 1 if passed else 0,
    )
    if after.season_over():
        return after._replace(phase="over")
    return after


# ----- leaving -------------------------------------------------------------------------------


def leave(board: IceBreakersBoard, seat: int, reason: LeaveReason) -> IceBreakersBoard:
    """``seat`` leaves the game (never while a draw is pending).

    A resignation (or an organizer's forfeit) ends the game at once as a failure. A timeout
    does not: the seat is out of ``to_act`` for good and its turns pass at once. If cards
    were waiting for it to give, they go to the discard pile; if it was its turn, the turn
    ends there (a pass if no Power card was down). When every seat has timed out, the game
    ends as a failure.
    """
    if board.phase == "over":
        return board
    if reason == "resigned":
        return board._replace(phase="over", success=False)
    after = board._replace(timed_out=board.timed_out | {seat})
    if len(after.timed_out) >= board.seats:
        return after._replace(phase="over", success=False)
    if not after.playing:
        return after
    if after.waiting and after.giver == seat:
        after = after._replace(discard=(*after.discard, *after.waiting), waiting=())
    if seat == after.current:
        return end_turn(after, passed=after.power is None)
    return after


def _without(
    hands: Sequence[tuple[Card, ...]], seat: int, card: Card
) -> tuple[tuple[Card, ...], ...]:
    hand = list(hands[seat])
    if card in hand:
        hand.remove(card)
    return tuple(tuple(hand) if i == seat else h for i, h in enumerate(hands))


def _with(hands: Sequence[tuple[Card, ...]], seat: int, card: Card) -> tuple[tuple[Card, ...], ...]:
    return tuple((*h, card) if i == seat else h for i, h in enumerate(hands))
