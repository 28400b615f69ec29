"""The Ice Breakers team's plan for a turn, one primitive action at a time.

Ice Breakers is co-operative and a turn is an open-ended run of clears, ship moves and
boosts, so a bot does not search over single actions there: it follows a plan that is a pure
function of the public board, recomputed before every action. Because the plan depends only
on the board, every bot seat computes the same plan, so a seat asked to chip in a boost knows
whether the plan wants it to.

The plan, in order of preference:

1. give waiting cards (Power cards to whoever holds the fewest points, others to the active
   player, who may use them at once);
2. deliver the ship that is cheapest to bring home, clearing the ice on its cheapest route
   first (boosting when the Power card alone falls short);
3. with points that cannot deliver anything, clear ice on the ships' routes whose number the
   forecast will not re-freeze (progress that lasts);
4. move each ship as close to home as water allows, onto a cell the forecast will not freeze;
5. end the turn.

"Cheapest to bring home" is a shortest path where entering ice costs its number (a pinned
ship pays for its own cell too). How to open a turn (which Power card to play, if any) is the
one choice the plan makes blindly: its own default (``turn_start``) is the smallest card that
delivers a ship, else the smallest card, and it offers every distinct opening as an
alternative (``RescuePlan.alternatives``), which the ``mcts`` bot compares by sampled
playouts that end in ``RescuePlan.playout_score``.

``RESCUE_PLAN`` is this plan as the generic bots see it: a ``domain.engine.game.Planner``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from domain.engine.rules import Action
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
from domain.games.ice_breakers.cards import Card, boost_value, is_power, kind, power
from domain.games.ice_breakers.geometry import HARBOR_AT, HARBORS, NEIGHBOURS, Cell

INFINITE = 10**9


@dataclass(frozen=True, slots=True)
class Route:
    """A ship's cheapest way home: what it costs and the cells it enters, in order."""

    ship: int
    cost: int
    cells: tuple[Cell, ...]


def route_home(board: IceBreakersBoard, ship: int) -> Route:
    """Dijkstra from the ship's cell; ice costs its number, water and harbors nothing."""
    start = board.ships[ship]
    home = HARBORS[ship]
    pieces, water = board.pieces, board.water
    base = pieces[start] if board.is_ice(start) else 0
    best: dict[Cell, int] = {start: base}
    previous: dict[Cell, Cell] = {}
    queue: list[tuple[int, Cell]] = [(base, start)]
    while queue:
        cost, cell = heapq.heappop(queue)
        if cell == home:
            cells: list[Cell] = []
            while cell != start:
                cells.append(cell)
                cell = previous[cell]
            return Route(ship, cost, tuple(reversed(cells)))
        if cost > best.get(cell, INFINITE):
            continue
        for nb in NEIGHBOURS[cell]:
            step = 0 if nb in HARBOR_AT or nb in water else pieces[nb]
            total = cost + step
            if total < best.get(nb, INFINITE):
                best[nb] = total
                previous[nb] = cell
                heapq.heappush(queue, (total, nb))
    return Route(ship, INFINITE, ())


def routes(board: IceBreakersBoard) -> list[Route]:
    """Every ship's route home, cheapest first (ties: lower ship number)."""
    return sorted((route_home(board, ship) for ship in board.ships), key=lambda r: (r.cost, r.ship))


def remaining_cost(board: IceBreakersBoard) -> int:
    """The sum of every undelivered ship's cost home: the team's distance from success."""
    return sum(route.cost for route in routes(board))


# ----- what the team may spend ---------------------------------------------------------------


def _boosts(board: IceBreakersBoard, seats: frozenset[int]) -> list[tuple[int, Card]]:
    """Boost cards the given seats could add now, biggest first."""
    usable = [
        (seat, card)
        for seat in sorted(seats - board.timed_out)
        for card in board.hands[seat]
        if kind(card) in ("B1", "R3") and board.may_boost_with(card)
    ]
    return sorted(usable, key=lambda sc: (-boost_value(sc[1]), sc[0], sc[1]))


def _power_points(hand: tuple[Card, ...]) -> int:
    return sum(power(card) for card in hand if is_power(card))


# ----- the plan ------------------------------------------------------------------------------


def next_step(board: IceBreakersBoard, team: frozenset[int]) -> tuple[int, Action] | None:
    """The plan's next (seat, action), or None when the plan wants no seat of ``team`` to act.

    ``team`` are the seats the plan may spend cards of (the bot seats). The active seat or the
    giver must belong to it for the plan to drive; otherwise a person drives and the bots
    keep their cards.
    """
    if board.phase != "play" or board.draws_left:
        return None
    if board.waiting:
        return (board.giver, _give(board)) if board.giver in team else None
    active = board.current
    if active not in team:
        return None
    if board.power is None:
        return active, turn_start(board, active)
    return _spend(board, active, team)


def _give(board: IceBreakersBoard) -> Give:
    card = board.waiting[0]
    if is_power(card):
        # Spread Power cards: a seat with nothing to play would have to pass. A timed-out
        # seat never plays again, so it gets none.
        playing = [s for s in range(board.seats) if s not in board.timed_out]
        seat = min(playing, key=lambda s: (_power_points(board.hands[s]), s))
        if seat == board.current and len(playing) > 1 and board.power is not None:
            # The active player cannot play a second Power card this turn; prefer the next.
            seat = min(
                (s for s in playing if s != board.current),
                key=lambda s: (_power_points(board.hands[s]), s),
            )
        return Give(card, seat)
    return Give(card, board.current)


def turn_start(board: IceBreakersBoard, seat: int) -> Action:
    """The default opening: the smallest Power card that delivers a ship, else the smallest."""
    ab2 = [card for card in board.hands[seat] if kind(card) == "AB2"]
    if ab2 and sum(1 for card in board.discard if is_power(card)) >= 2:
        return CashAb2(ab2[0])
    powers = sorted((card for card in board.hands[seat] if is_power(card)), key=power)
    if not powers:
        return CashAb2(ab2[0]) if ab2 and board.discard else Pass()
    cheapest = routes(board)[0].cost if board.ships else INFINITE
    for card in powers:
        if power(card) >= cheapest:
            return PlayPower(card)
    return PlayPower(powers[0])


def power_options(board: IceBreakersBoard, seat: int) -> list[Action]:
    """Distinct ways to open the turn: each Power value once (lowest id), and passing."""
    seen: dict[int, Card] = {}
    for card in sorted(board.hands[seat]):
        if is_power(card) and power(card) not in seen:
            seen[power(card)] = card
    options: list[Action] = [PlayPower(card) for _, card in sorted(seen.items())]
    options.append(Pass())
    return options


def _spend(board: IceBreakersBoard, active: int, team: frozenset[int]) -> tuple[int, Action]:
    left = board.left
    boosts = _boosts(board, team)
    ordered = routes(board)
    # 2. Deliver the cheapest ship we can afford, boosting if needed.
    for route in ordered:
        if route.cost > left + sum(boost_value(card) for _, card in boosts):
            break
        if route.cost > left:
            seat, card = boosts[0]
            return seat, Boost(card)
        return active, _advance(board, route)
    # 3. Progress: clear ice on the ships' routes, cheapest routes first (tried: furthest
    #    first delivered fewer ships, 69% against 85% of 3-player games).
    for route in ordered:
        cell = _worth_clearing(board, route, left)
        if cell is not None:
            return active, Clear(cell)
    # 4. Move ships as close to home as water allows, onto safe cells.
    for route in ordered:
        move = _best_move(board, route.ship)
        if move is not None:
            return active, move
    return active, EndTurn()


def _worth_clearing(board: IceBreakersBoard, route: Route, left: int) -> Cell | None:
    """The route's next ice cell, if clearing it is progress that outlasts the turn.

    Clearing a cell the forecast will re-freeze only helps when the ship sails past it this
    turn: when the points left also clear the way on to a cell that stays water.
    """
    forecast = board.forecast
    ice = list(_ice_on(board, route))
    if not ice or board.pieces[ice[0]] > left:
        return None
    first = ice[0]
    if board.pieces[first] not in forecast:
        return first
    start = board.ships[route.ship]
    cells = (start, *route.cells) if first == start else route.cells
    budget = left
    passed = False
    for cell in cells:
        if cell == first:
            passed = True
        if not passed:
            continue
        if cell in HARBOR_AT:
            return first
        value = board.pieces[cell]
        if board.is_ice(cell):
            budget -= value
            if budget < 0:
                return None
        if cell != first and value not in forecast:
            return first
    return None


def _ice_on(board: IceBreakersBoard, route: Route) -> Iterator[Cell]:
    """The ice cells on a route, nearest first (the ship's own cell when pinned)."""
    start = board.ships[route.ship]
    if board.is_ice(start):
        yield start
    for cell in route.cells:
        if board.is_ice(cell):
            yield cell


def _advance(board: IceBreakersBoard, route: Route) -> Action:
    """Clear the route's first ice, or sail home when the route is open."""
    for cell in _ice_on(board, route):
        return Clear(cell)
    return MoveShip(route.ship, route.cells)


def _best_move(board: IceBreakersBoard, ship: int) -> MoveShip | None:
    """A move that lowers the ship's cost home, or saves it from freezing; None if none."""
    start = board.ships[ship]
    stops = board.stops(ship)
    if not stops:
        return None
    forecast = board.forecast

    def safe(cell: Cell) -> bool:
        return cell in HARBOR_AT or board.pieces[cell] not in forecast

    # Judge stops on the board as the forecast will leave it: water of its numbers re-freezes.
    frozen = board._replace(
        water=frozenset(c for c in board.water if board.pieces[c] not in forecast)
    )

    def cost_from(cell: Cell) -> int:
        return route_home(frozen._replace(ships={**board.ships, ship: cell}), ship).cost

    here_cost = cost_from(start)
    here_safe = safe(start)
    best: tuple[int, int, Cell] | None = None
    for cell in stops:
        if not safe(cell):
            continue
        key = (cost_from(cell), len(stops[cell]), cell)
        if best is None or key < best:
            best = key
    if best is None:
        return None
    cost, _, cell = best
    if cost < here_cost or (not here_safe and cost <= here_cost + 2):
        return MoveShip(ship, stops[cell])
    return None


# ----- the plan as the generic bots see it ---------------------------------------------------

#: Action types that open a turn: where the plan's choice is worth comparing by playouts.
OPENINGS = frozenset({PlayPower.type, Pass.type})


class RescuePlan:
    """The team plan behind the ``Planner`` protocol of ``domain.engine.game``."""

    def driver(self, board: IceBreakersBoard) -> int:
        """The giver while cards wait to be given, else the active player."""
        return board.giver if board.waiting else board.current

    def next_step(self, board: IceBreakersBoard, team: frozenset[int]) -> tuple[int, Action] | None:
        return next_step(board, team)

    def alternatives(self, board: IceBreakersBoard, seat: int, planned: Action) -> Sequence[Action]:
        """Every distinct opening, when ``planned`` opens the turn and there is a choice."""
        if planned.type not in OPENINGS:
            return ()
        options = power_options(board, seat)
        if planned not in options or len(options) == 1:
            return ()  # an Auto-Ballast first, or nothing to choose
        return options

    def playout_score(self, board: IceBreakersBoard) -> float:
        """Ships home count most, a full rescue a bonus, then how close the rest are."""
        cost = remaining_cost(board) if board.ships else 0
        return 10.0 * len(board.delivered) + (50.0 if board.success else 0.0) - 0.01 * cost


RESCUE_PLAN = RescuePlan()
