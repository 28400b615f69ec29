"""What a tournament's document is read into: its crosstable, one player's own view (``me``)
and its standings as CSV. Pure functions of the document ``Tournaments`` builds (and of the
standings it computed), so every reader sees one set of facts.

Results use one vocabulary: ``won`` (the sole winner), ``shared`` (one of several winners),
``lost`` (another seat won, or nobody did), ``bye`` (sat the round out: 1 point), ``playing``
(the game is not over yet) and ``absent`` (neither seated nor given a bye in the round).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from domain.engine.types import JSON
from domain.tournament.standings import Standing, as_json_number

#: Characters a spreadsheet reads as the start of a formula: a name starting with one is
#: written after a ``'`` in the CSV, so opening the file runs nothing.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def result_of(game: Mapping[str, Any], seat: int) -> tuple[str, str | None]:
    """A seat's result in a tournament game, and its points (None while it is played): as a
    director's correction counts it, when one does."""
    outcome = game["outcome"]
    if outcome is None:
        return "playing", None
    counted = game.get("correction") or outcome
    winners = list(counted["winners"])
    if seat not in winners:
        return "lost", "0"
    share = Fraction(1, len(winners))
    return ("won" if len(winners) == 1 else "shared"), as_json_number(share)


def _entries(document: Mapping[str, Any], player: int) -> list[JSON]:
    """One entry per round for ``player``: where they sat and how it went."""
    entries: list[JSON] = []
    for round_ in document["rounds"]:
        number = round_["round"]
        entry: JSON = {
            "round": number,
            "game_id": None,
            "table": None,
            "seat": None,
            "opponents": [],
            "result": "absent",
            "points": None,
        }
        if player in round_["byes"]:
            entry.update(result="bye", points="1")
        for game in round_["games"]:
            if player in game["players"]:
                seat = game["players"].index(player)
                result, points = result_of(game, seat)
                entry.update(
                    game_id=game["game_id"],
                    table=game["table"],
                    seat=seat,
                    opponents=[p for p in game["players"] if p != player],
                    result=result,
                    points=points,
                )
        entries.append(entry)
    return entries


def crosstable(document: Mapping[str, Any], points: Mapping[int, str]) -> list[JSON]:
    """Every player (by number), their points, and per round: their opponents, their seat,
    their result and its points."""
    return [
        {
            "player": info["player"],
            "name": info["name"],
            "points": points[info["player"]],
            "rounds": _entries(document, info["player"]),
        }
        for info in document["players"]
    ]


def _place(game: Mapping[str, Any], round_number: int, player: int) -> JSON:
    return {
        "game_id": game["game_id"],
        "round": round_number,
        "table": game["table"],
        "seat": game["players"].index(player),
        "status": game["status"],
        "opponents": [p for p in game["players"] if p != player],
    }


def me(document: Mapping[str, Any], player: int) -> JSON:
    """What ``GET /v1/tournaments/{id}/me`` answers a player.

    ``current``: their game in the latest round while it is not over (the game to play now).
    ``next``: their part in the latest round once it is paired after their last result: that
    game while it is played (so the same as ``current``), or a bye while the round's games
    are played; null while they wait for a round not paired yet, and once the tournament is
    over. ``results``: every game of theirs that is over, and every bye, round by round.
    """
    info = document["players"][player]
    rounds: Sequence[Mapping[str, Any]] = document["rounds"]
    current: JSON | None = None
    following: JSON | None = None
    if rounds:
        latest = rounds[-1]
        mine = [g for g in latest["games"] if player in g["players"]]
        if mine and mine[0]["outcome"] is None:
            current = _place(mine[0], latest["round"], player)
            following = {**current, "bye": False}
        elif player in latest["byes"] and any(g["outcome"] is None for g in latest["games"]):
            following = {
                "game_id": None,
                "round": latest["round"],
                "table": None,
                "seat": None,
                "status": None,
                "opponents": [],
                "bye": True,
            }
    results = [
        {k: entry[k] for k in ("round", "table", "game_id", "seat", "opponents", "result")}
        | {"points": entry["points"]}
        for entry in _entries(document, player)
        if entry["result"] not in ("playing", "absent")
    ]
    total = sum((Fraction(r["points"]) for r in results), start=Fraction(0))
    return {
        "tournament_id": document["id"],
        "player": player,
        "name": info["name"],
        "bot": info["bot"],
        "status": document["status"],
        "paused": document["paused"],
        "points": as_json_number(total),
        "current": current,
        "next": following,
        "next_round_at": document["next_round_at"],
        "results": results,
    }


def standings_csv(rows: Sequence[Standing], tiebreaks: Sequence[str]) -> str:
    """The standings as CSV (RFC 4180: comma-separated, CRLF, quoted where needed): a header
    ``place,player,name,points,<one column per tie-break>``, then one row per player, best
    first. ``place`` is the standing's own (``"3-4"`` for a shared one) or its rank; numbers
    are written as the API writes them (``"3/2"``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    # The tie-breaks the standings were made with; none (rules version 1): the Buchholz
    # score, which decided then.
    columns = list(tiebreaks) if tiebreaks else ["buchholz"]
    writer.writerow(["place", "player", "name", "points", *columns])
    for rank, standing in enumerate(rows, start=1):
        place = standing.place or str(rank)
        values = standing.tiebreaks if tiebreaks else (standing.buchholz,)
        name = standing.name
        if name.startswith(FORMULA_STARTS):
            name = "'" + name
        writer.writerow(
            [place, standing.player, name, as_json_number(standing.points)]
            + [as_json_number(Fraction(v)) for v in values]
        )
    return out.getvalue()
