"""Ice Breakers as its 13x10 map, then the forecast, the cards and each seat's hand.

Each cell is four characters: `` 3 `` ice of value 3, ``~3~`` open water (the number the
Ice Report re-freezes), ``####`` land, ``H7`` the harbor of destination 7, ``S5`` ship 5
(``S5!`` pinned; ``5+9`` two ships on one cell).

Drawn from the view JSON only (never the board), for ``floe replay show`` and ``step``; the
bundle exports it as ``GAME.text``.
"""

from __future__ import annotations

from typing import Any

from domain.pictures.text import dim, paint

WIDTH, HEIGHT, CELL = 13, 10, 4


def _navigable(x: int, y: int) -> bool:
    return (x % 3 == 0 or y % 3 == 0) and (x, y) not in {(6, 1), (6, 2), (6, 4), (6, 5)}


def card(c: dict[str, Any]) -> str:
    """A Coast Guard card in a few characters: ``P7``, ``R3``, ``B1``, ``AB2``."""
    return f"P{c['value']}" if c["kind"] == "power" else str(c["kind"])


def _cards(cards: list[dict[str, Any]]) -> str:
    return " ".join(card(c) for c in cards) or "-"


def _ships(ships: list[int], pinned: set[int]) -> str:
    if len(ships) == 1:
        return f"S{ships[0]}" + ("!" if ships[0] in pinned else "")
    return "+".join(str(s) for s in ships)


def _map(state: dict[str, Any], colour: bool) -> list[str]:
    channels = {(c["cell"][0], c["cell"][1]): c for c in state["channels"]}
    harbors = {(d["harbor"][0], d["harbor"][1]): d["destination"] for d in state["destinations"]}
    ships: dict[tuple[int, int], list[int]] = {}
    pinned = {s["ship"] for s in state["ships"] if s["pinned"]}
    for s in state["ships"]:
        if s["cell"] is not None:
            ships.setdefault((s["cell"][0], s["cell"][1]), []).append(s["ship"])
    lines = ["   " + "".join(f"{x:^{CELL}}" for x in range(WIDTH))]
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


def _where(ship: dict[str, Any]) -> str:
    if ship["delivered"]:
        return f"{ship['ship']} delivered"
    if ship["cell"] is None:
        return f"{ship['ship']} off the map"
    x, y = ship["cell"]
    return f"{ship['ship']}@{x},{y}" + ("!" if ship["pinned"] else "")


def _destinations(state: dict[str, Any]) -> list[str]:
    parts = []
    for d in state["destinations"]:
        if not d["in_play"]:
            continue
        done = "delivered" if d["delivered"] else _cards(d["cards"])
        parts.append(f"{d['destination']}{'L' if d['size'] == 'large' else 's'}: {done}")
    lines, line = [], "destinations:"
    for part in parts:
        if len(line) + len(part) > 76:
            lines.append(line)
            line = " "
        line += "  " + part
    return [*lines, line]


def render(state: dict[str, Any], colour: bool) -> list[str]:
    """Lines picturing an Ice Breakers board view."""
    current = state.get("current")
    head = f"Ice Breakers  phase {state['phase']}  turns {state['turns']}"
    head += f"  passes in a row {state['passes_in_a_row']}"
    if current is not None:
        head += "  current " + paint(f"seat {current}", current, colour)
    lines = [head, "", *_map(state, colour), ""]
    lines.append(
        "legend: ' n ' ice of value n, ~n~ water, #### land, Hn harbor, Sn ship (! pinned)"
    )
    forecast = state.get("forecast")
    if forecast is not None:
        lines.append(
            f"forecast: re-freeze {forecast or 'none'}  "
            f"({state.get('reports_face_down')} reports face down)"
        )
    if state.get("report_stack") is not None:
        lines.append(f"report stack: {state['report_stack']}")
    lines.append("ships: " + "  ".join(_where(s) for s in state["ships"]))
    lines.extend(_destinations(state))
    lines.append(f"row: {_cards(state['row'])}   discard: {len(state['discard'])} cards")
    for hand in state["hands"]:
        who = paint(f"seat {hand['seat']}", hand["seat"], colour)
        lines.append(f"{who} hand: {_cards(hand['cards'])}")
    turn = state["turn"]
    if turn.get("power") is not None:
        lines.append(
            f"this turn: power {card(turn['power'])} boosts {_cards(turn['boosts'])} "
            f"points {turn['points']} spent {turn['spent']} left {turn['left']}"
        )
    pending = state.get("pending")
    if pending:
        detail = {k: v for k, v in pending.items() if k not in ("type", "seat")}
        lines.append(f"pending: {pending['type']} by seat {pending['seat']} {detail}")
    return lines
