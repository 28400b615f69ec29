"""Why an Ice Breakers action is refused: every ``IllegalAction`` (HTTP 422) code lives here.

The engine has already refused a seat outside ``to_act`` (403). Codes:

=========================  ===============================================================
``give_pending``           cards wait to be given: only ``give`` is allowed now
``nothing_to_give``        ``give`` when no card waits
``card_not_waiting``       ``give`` of a card that is not waiting to be given
``no_such_seat``           ``give`` to a seat that is not in the game
``not_active_player``      ``play_power``, ``clear``, ``move_ship``, ``end_turn`` or ``pass``
                           by a seat whose turn it is not; ``cash_ab2`` by another seat
                           before the Power card is down
``power_already_played``   a second ``play_power`` this turn, or ``pass`` after one
``no_power_played``        ``boost``, ``clear``, ``move_ship`` or ``end_turn`` before a Power
                           card is down
``not_in_hand``            the card is not in the acting seat's hand
``not_a_power_card``       ``play_power`` of a card that is not a Power card
``not_a_boost_card``       ``boost`` with a card that is not an R3 or a B1
``retrofit_needs_5_or_7``  an R3 on a Power 10
``not_an_ab2``             ``cash_ab2`` of a card that is not an AB2
``not_a_channel``          ``clear`` of a cell that is no channel space (land, harbor, off map)
``already_water``          ``clear`` of a piece already showing water
``not_enough_points``      ``clear`` of ice stronger than the points left this turn
``unknown_ship``           ``move_ship`` of a ship that is not in play
``ship_delivered``         ``move_ship`` of a ship already at its destination
``ship_pinned``            ``move_ship`` of a ship on ice
``not_adjacent``           a path cell not orthogonally next to the one before
``not_navigable``          a path cell that is land or off the map
``blocked_by_ice``         a path cell showing ice
``past_destination``       a path going on after the ship's own harbor
``no_move``                a path ending where the ship started
=========================  ===============================================================
"""

from __future__ import annotations

from typing import Any

from domain.engine.errors import IllegalAction
from domain.games.ice_breakers.actions import (
    Boost,
    CashAb2,
    Clear,
    EndTurn,
    Give,
    MoveShip,
    Pass,
    PlayPower,
)
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import CARD_SET, is_power, kind, power
from domain.games.ice_breakers.geometry import (
    CHANNEL_SET,
    HARBORS,
    NAVIGABLE,
    is_adjacent,
)


def check_action(board: IceBreakersBoard, seat: int, action: Any) -> None:
    """Raise ``IllegalAction`` unless ``seat`` (already in ``to_act``) may take ``action``."""
    if board.waiting:
        if not isinstance(action, Give):
            raise IllegalAction("give_pending", "give out the waiting cards first")
        return _check_give(board, action)
    if isinstance(action, Give):
        raise IllegalAction("nothing_to_give", "no card waits to be given")
    if isinstance(action, Boost):
        return _check_boost(board, seat, action)
    if isinstance(action, CashAb2):
        if seat != board.current and board.power is None:
            raise IllegalAction(
                "not_active_player", "others may cash an AB2 only once the Power card is down"
            )
        _check_in_hand(board, seat, action.card)
        if kind(action.card) != "AB2":
            raise IllegalAction("not_an_ab2", f"{action.card} is not an Auto-Ballast card")
        return None
    if seat != board.current:
        raise IllegalAction("not_active_player", f"only seat {board.current} may {action.type}")
    if isinstance(action, PlayPower | Pass):
        if board.power is not None:
            raise IllegalAction("power_already_played", "a Power card is already down this turn")
        if isinstance(action, PlayPower):
            _check_in_hand(board, seat, action.card)
            if not is_power(action.card):
                raise IllegalAction("not_a_power_card", f"{action.card} is not a Power card")
        return None
    if board.power is None:
        raise IllegalAction("no_power_played", "play a Power card (or pass) first")
    if isinstance(action, Clear):
        return _check_clear(board, action)
    if isinstance(action, MoveShip):
        return _check_move(board, action)
    if isinstance(action, EndTurn):
        return None
    raise IllegalAction("unknown_action", f"ice-breakers has no action {action!r}")


def _check_in_hand(board: IceBreakersBoard, seat: int, card: str) -> None:
    if card not in CARD_SET or not board.holds(seat, card):
        raise IllegalAction("not_in_hand", f"{card} is not in seat {seat}'s hand")


def _check_give(board: IceBreakersBoard, action: Give) -> None:
    if action.card not in board.waiting:
        raise IllegalAction("card_not_waiting", f"{action.card} is not waiting to be given")
    if not 0 <= action.to < board.seats:
        raise IllegalAction("no_such_seat", f"there is no seat {action.to}")


def _check_boost(board: IceBreakersBoard, seat: int, action: Boost) -> None:
    if board.power is None:
        raise IllegalAction("no_power_played", "cards are added only once a Power card is down")
    _check_in_hand(board, seat, action.card)
    k = kind(action.card)
    if k not in ("R3", "B1"):
        raise IllegalAction("not_a_boost_card", f"{action.card} is not a Retrofit or Bubbler")
    if k == "R3" and power(board.power) not in (5, 7):
        raise IllegalAction("retrofit_needs_5_or_7", "an R3 goes only on a Power 5 or 7")


def _check_clear(board: IceBreakersBoard, action: Clear) -> None:
    cell = action.cell
    if cell not in CHANNEL_SET:
        raise IllegalAction("not_a_channel", f"{list(cell)} holds no ice/water piece")
    if cell in board.water:
        raise IllegalAction("already_water", f"{list(cell)} already shows water")
    value = board.pieces[cell]
    if value > board.left:
        raise IllegalAction(
            "not_enough_points", f"ice {value} needs {value} points; {board.left} are left"
        )


def _check_move(board: IceBreakersBoard, action: MoveShip) -> None:
    ship = action.ship
    if ship not in HARBORS or ship not in board.in_play:
        raise IllegalAction("unknown_ship", f"ship {ship} is not in play")
    if ship not in board.ships:
        raise IllegalAction("ship_delivered", f"ship {ship} is already delivered")
    start = board.ships[ship]
    if board.is_ice(start):
        raise IllegalAction("ship_pinned", f"ship {ship} is pinned in ice at {list(start)}")
    home = HARBORS[ship]
    here = start
    for i, cell in enumerate(action.path):
        if here == home:
            raise IllegalAction("past_destination", f"ship {ship} is delivered at {list(home)}")
        if not is_adjacent(here, cell):
            raise IllegalAction("not_adjacent", f"{list(cell)} is not next to {list(here)}")
        if cell not in NAVIGABLE:
            raise IllegalAction("not_navigable", f"{list(cell)} is land or off the map")
        if not board.passable(cell):
            raise IllegalAction("blocked_by_ice", f"{list(cell)} (step {i + 1}) shows ice")
        here = cell
    if here == start:
        raise IllegalAction("no_move", f"the path ends where ship {ship} started")
