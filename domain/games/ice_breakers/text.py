"""Ice Breakers as its 13x10 map, then the forecast, the cards and each seat's hand.

Each cell is four characters: `` 3 `` ice of value 3, ``~3~`` open water (the number the
Ice Report re-freezes), ``####`` land, ``H7`` the harbor of destination 7, ``S5`` ship 5
(``S5!`` pinned; ``5+9`` two ships on one cell). Columns are ``x`` and rows ``y``, so a cell
reads ``[x, y]`` as actions name it. Cards read as words, then the id actions and events
name them by: ``Power 7 (c12)``. Seats are named; the last move and the outcome are said in words;
every line fits 80 columns.

Drawn from the scene only (the view, never the board), for ``floe replay show`` and
``step``; the bundle exports it as ``GAME.text``. The words (``describe``, ``card``…) are
shared with ``svg.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.engine.game import Scene
from domain.games.ice_breakers.cards import CARD_SET, card_json
from domain.pictures.text import caption, dim, paint
from domain.pictures.words import (
    humanize,
    listing,
    move_line,
    outcome_line,
    pair,
    pending_line,
    wrap_all,
)

WIDTH, HEIGHT, CELL = 13, 10, 4
PHASES = {
    "pieces": "setting up: dealing the ice pieces",
    "ships": "setting up: placing the ships",
    "reports_upper": "setting up: shuffling the Ice Reports",
    "reports_lower": "setting up: shuffling the Ice Reports",
    "deck": "setting up: dealing the cards",
    "play": "play",
    "over": "game over",
}
#: A card kind in words people read (a Power card adds its value: ``Power 7``).
KINDS = {"R3": "Retrofit +3", "B1": "Bubbler +1", "AB2": "Auto-Ballast"}


def _navigable(x: int, y: int) -> bool:
    return (x % 3 == 0 or y % 3 == 0) and (x, y) not in {(6, 1), (6, 2), (6, 4), (6, 5)}


def kind(c: Mapping[str, Any]) -> str:
    """What a Coast Guard card is, in words: ``Power 7``, ``Retrofit +3``, ``Bubbler +1``,
    ``Auto-Ballast``."""
    if c["kind"] == "power":
        return f"Power {c['value']}"
    return KINDS.get(str(c["kind"]), str(c["kind"]))


def card(c: Mapping[str, Any]) -> str:
    """A card in words, then the id actions and events name it by: ``Power 7 (c12)``."""
    return f"{kind(c)} ({c['id']})" if "id" in c else kind(c)


def cards(items: Iterable[Mapping[str, Any]]) -> str:
    return " ".join(card(c) for c in items) or "none"


def card_id(value: object) -> str:
    """A card id from an action (``"c12"``) in words when it is a known card."""
    return card(card_json(str(value))) if value in CARD_SET else str(value)


def report(values: Iterable[int]) -> str:
    """An Ice Report card: the water numbers it re-freezes, or ``mild``."""
    numbers = sorted(values)
    return "+".join(str(v) for v in numbers) if numbers else "mild"


def describe(scene: Scene, action: Mapping[str, Any]) -> str | None:
    """An Ice Breakers action in words, naming cells and cards as the action does (None for
    a type it has no words for: ``move_line`` says its type)."""
    t = action.get("type")
    if t == "play_power":
        return f"play {card_id(action.get('card'))}"
    if t == "boost":
        return f"boost with {card_id(action.get('card'))}"
    if t == "cash_ab2":
        return f"cash {card_id(action.get('card'))} for two cards"
    if t == "clear":
        return f"clear the ice at {pair(action['cell'])}"
    if t == "move_ship":
        path = [pair(c) for c in action.get("path") or []]
        via = f" via {', '.join(path[:-1])}" if len(path) > 1 else ""
        ship = action.get("ship")
        home = [d["harbor"] for d in scene.view["destinations"] if d["destination"] == ship]
        done = " and deliver it" if home and (action.get("path") or [])[-1:] == home else ""
        return f"sail ship {ship} to {path[-1] if path else '?'}{via}{done}"
    if t == "give":
        return f"give {card_id(action.get('card'))} to {scene.name(action.get('to'))}"
    if t == "end_turn":
        return "end the turn"
    if t == "pass":
        return "pass"
    return None


def moved_cells(scene: Scene) -> list[tuple[int, int]]:
    """The cells the last move names: a cleared cell, or every cell of a ship's path."""
    if scene.move is None:
        return []
    action = scene.move.action
    cells = [action["cell"]] if isinstance(action.get("cell"), list) else action.get("path") or []
    return [(int(c[0]), int(c[1])) for c in cells if isinstance(c, list) and len(c) == 2]


def last_move(scene: Scene) -> str | None:
    return move_line(scene, lambda action: describe(scene, action))


def result(scene: Scene) -> str | None:
    outcome = scene.outcome
    if outcome is None:
        return None
    detail = ""
    if "delivered" in outcome and "in_play" in outcome:
        detail = f"{outcome['delivered']} of {outcome['in_play']} ships delivered"
        detail += f" in {outcome['turns']} turns" if "turns" in outcome else ""
    return outcome_line(scene, team=True, detail=detail)


def pending_words(scene: Scene) -> str | None:
    """What must happen before play goes on, in words, or None."""
    return pending_line(scene, _owed)


def _owed(who: str, pending: Mapping[str, Any]) -> str | None:
    if pending["type"] == "give":
        waiting = listing(card(c) for c in pending.get("cards", []))
        return f"{who} gives out {waiting}, one card at a time, to any seat"
    if pending["type"] == "ab2_draw":
        return f"{who} draws {pending.get('draws_left')} more card(s) for the Auto-Ballast"
    return None


def _ships(ships: list[int], pinned: set[int]) -> str:
    if len(ships) == 1:
        return f"S{ships[0]}" + ("!" if ships[0] in pinned else "")
    joined = "+".join(str(s) for s in ships)
    return joined if len(joined) <= CELL else f"{ships[0]}+"


def _map(state: Mapping[str, Any], colour: bool) -> list[str]:
    channels = {(c["cell"][0], c["cell"][1]): c for c in state["channels"]}
    harbors = {(d["harbor"][0], d["harbor"][1]): d["destination"] for d in state["destinations"]}
    ships: dict[tuple[int, int], list[int]] = {}
    pinned = {s["ship"] for s in state["ships"] if s["pinned"]}
    for s in state["ships"]:
        if s["cell"] is not None:
            ships.setdefault((s["cell"][0], s["cell"][1]), []).append(s["ship"])
    lines = ["y\\x" + "".join(f"{x:^{CELL}}" for x in range(WIDTH))]
    for y in range(HEIGHT):
        row = ""
        for x in range(WIDTH):
            if (x, y) in ships:
                cell = dim(_ships(ships[(x, y)], pinned).ljust(CELL)[:CELL], "1;7", colour)
            elif (x, y) in harbors:
                cell = dim(f"H{harbors[(x, y)]}".ljust(CELL), "1", colour)
            elif not _navigable(x, y):
                cell = dim("#" * CELL, "2", colour)
            elif (x, y) in channels:
                c = channels[(x, y)]
                if c["side"] == "water":
                    cell = dim(f"~{c['value']}~ ", "36", colour)
                else:
                    cell = f" {c['value']}  "
            else:
                cell = " .  "
            row += cell
        lines.append(f"{y:>2} {row}")
    return lines


def where(ship: Mapping[str, Any], pinned: str) -> str:
    """Where a ship is, in words: delivered, off the map, or at a cell (then ``pinned``
    when it is pinned in ice)."""
    if ship["delivered"]:
        return f"{ship['ship']} delivered"
    if ship["cell"] is None:
        return f"{ship['ship']} off the map"
    return f"{ship['ship']} at {pair(ship['cell'])}" + (pinned if ship["pinned"] else "")


def _destinations(state: Mapping[str, Any]) -> list[str]:
    parts = []
    for d in state["destinations"]:
        if not d["in_play"] or d["delivered"] or not d["cards"]:
            continue
        parts.append(f"H{d['destination']} {cards(d['cards'])}")
    return ["rewards waiting at harbors: " + ("; ".join(parts) or "none")]


def render(scene: Scene, colour: bool) -> list[str]:
    """Lines picturing an Ice Breakers scene."""
    state = scene.view
    current = state.get("current")
    phase = PHASES.get(state["phase"], humanize(state["phase"]))
    head = f"Ice Breakers{' (intro)' if state.get('intro') else ''}: {phase}"
    head += f", turn {state['turns'] + 1}" if state["phase"] == "play" else ""
    if current is not None:
        head += ", to move: " + paint(scene.name(current), current, colour)
    if state.get("passes_in_a_row"):
        head += f", passes in a row {state['passes_in_a_row']}"
    lines = [head, *caption(result(scene), last_move(scene), pending_words(scene))]
    lines += ["", *_map(state, colour), ""]
    lines.append(
        "key: ' n ' ice of value n, ~n~ water, #### land, Hn harbor of ship n, Sn ship n"
        " (! pinned in ice), 5+9 ships on one cell; a cell is [x, y]"
    )
    forecast = state.get("forecast")
    if forecast is not None:
        freeze = f"water of {report(forecast)} re-freezes" if forecast else "mild: nothing freezes"
        when = " at the end of this turn" if state["phase"] == "play" else ""
        lines.append(f"forecast: {freeze}{when} ({state.get('reports_face_down')} face down)")
    if state.get("report_stack") is not None:
        stack = " ".join(report(r) for r in state["report_stack"])
        lines.append(f"ice reports, in order: {stack}")
    lines.append("ships: " + ", ".join(where(s, " pinned") for s in state["ships"]))
    lines.extend(_destinations(state))
    lines.append(f"row: {cards(state['row'])}; discard pile: {len(state['discard'])} cards")
    winners = (scene.outcome or {}).get("winners", [])
    for hand in state["hands"]:
        seat = hand["seat"]
        mark = ">" if seat == current else "*" if seat in winners else " "
        who = paint(scene.name(seat), seat, colour)
        lines.append(f"{mark} {who} holds {cards(hand['cards'])}")
    turn = state["turn"]
    if turn.get("power") is not None:
        lines.append(
            f"this turn: Power {card(turn['power'])}, boosts {cards(turn['boosts'])}:"
            f" {turn['points']} points, {turn['spent']} spent, {turn['left']} left"
        )
    return wrap_all(lines)
