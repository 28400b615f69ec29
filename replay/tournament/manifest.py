"""Line 1 of a tournament export, read into typed values and trusting nothing.

Every field is checked for its type and shape here, so that the audit's checks work on a
``Manifest`` whose values are what they claim to be (though none of them believed yet).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from domain.games import GAMES
from domain.tournament.plan import Plan, PlanError
from domain.tournament.standings import Standing, as_json_number
from replay.tournament.verdict import Wrong, quote

MANIFEST_FIELDS = frozenset(
    {
        "id",
        "game",
        "format",
        "table_size",
        "planned_rounds",
        "options",
        "created_at",
        "commitment",
        "seed_commitments",
        "players",
        "rounds",
        "standings",
    }
)
#: Fields a manifest holds only when they apply: ``clock``, for a tournament played on one.
OPTIONAL_MANIFEST_FIELDS = frozenset({"clock"})
PLAYER_FIELDS = frozenset({"player", "name", "bot"})
ROUND_FIELDS = frozenset({"round", "byes", "games"})
GAME_FIELDS = frozenset({"game_id", "table", "players", "outcome"})
STANDING_FIELDS = frozenset({"player", "name", "points", "buchholz"})

ID = re.compile(r"[0-9a-f]{16}")
SHA256 = re.compile(r"[0-9a-f]{64}")
#: A number as ``as_json_number`` writes it: an integer, or ``a/b`` (checked in lowest terms).
NUMBER = re.compile(r"(0|[1-9][0-9]{0,30})(?:/([1-9][0-9]{0,30}))?")


@dataclass(frozen=True, slots=True)
class Listed:
    """A game as the manifest lists it."""

    round: int
    table: int
    game_id: str
    players: tuple[int, ...]
    outcome: dict[str, Any] | None

    @property
    def name(self) -> str:
        return f"round {self.round} table {self.table} (game {self.game_id})"


@dataclass(frozen=True, slots=True)
class ListedRound:
    number: int
    byes: tuple[int, ...]
    games: tuple[Listed, ...]


@dataclass(frozen=True, slots=True)
class Manifest:
    """Line 1, read and typed (none of it believed yet). A part that is malformed is None
    where the other checks can go on without it."""

    id: str
    game: str
    plan: Plan
    options: dict[str, Any]
    players: tuple[tuple[str, str | None], ...]  # (name, bot) by player number
    rounds: tuple[ListedRound, ...]
    commitment: str | None
    seed_commitments: tuple[str, ...] | None
    standings: tuple[Standing, ...] | None
    #: The clock every game was to be played with, as created (None: no clock).
    clock: dict[str, Any] | None = None


def read_manifest(value: Any) -> tuple[Manifest | None, list[str]]:
    """Line 1's manifest, or None when what the checks need is malformed; and every problem
    found in it, each ``"line 1: where: why"``."""
    problems: list[str] = []

    def part(read: Callable[[], Any]) -> Any:
        try:
            return read()
        except Wrong as wrong:
            problems.append(f"line 1: {wrong}")
            return None
        except PlanError as error:
            problems.append(f"line 1: {error}")
            return None

    try:
        if not isinstance(value, dict) or set(value) != {"tournament"}:
            raise Wrong("line 1", 'not {"tournament": {...}}')
        raw = value["tournament"]
        optional = set(raw) & OPTIONAL_MANIFEST_FIELDS if isinstance(raw, dict) else set()
        body = _object(raw, MANIFEST_FIELDS | optional, "tournament")
    except Wrong as wrong:
        return None, [str(wrong) if wrong.where == "line 1" else f"line 1: {wrong}"]
    id_ = part(lambda: _matching(body["id"], ID, "id", "16 lowercase hex digits"))
    game = part(lambda: _game(body["game"]))
    options = part(lambda: _object(body["options"], None, "options"))
    clock = part(lambda: _object(body["clock"], None, "clock")) if "clock" in body else None
    part(lambda: _string(body["created_at"], "created_at"))
    commitment = part(
        lambda: _matching(body["commitment"], SHA256, "commitment", "64 lowercase hex digits")
    )
    seeds = part(lambda: _seed_commitments(body["seed_commitments"]))
    players = part(lambda: _players(body["players"]))
    plan = None
    if players is not None:
        plan = part(lambda: _plan(body, len(players)))
    rounds = None if players is None else part(lambda: _rounds(body["rounds"], len(players)))
    published = part(lambda: _standings(body["standings"]))
    if id_ is None or game is None or options is None or players is None:
        return None, problems
    if plan is None or rounds is None:
        return None, problems
    manifest = Manifest(
        id_, game, plan, options, players, rounds, commitment, seeds, published, clock
    )
    return manifest, problems


def _object(value: Any, fields: frozenset[str] | None, where: str) -> dict[str, Any]:
    """A JSON object (with exactly ``fields``, when given)."""
    if not isinstance(value, dict):
        raise Wrong(where, f"not an object but {_kind(value)}")
    if fields is not None and set(value) != fields:
        missing = ", ".join(sorted(fields - set(value))) or "none"
        extra = ", ".join(sorted(quote(str(k), 40) for k in set(value) - fields)) or "none"
        why = f"not exactly the fields of the format (missing: {missing}; extra: {extra})"
        raise Wrong(where, why)
    return value


def _int(value: Any, where: str) -> int:
    if type(value) is not int:
        raise Wrong(where, f"not an integer but {_kind(value)}")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise Wrong(where, f"not a string but {_kind(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise Wrong(where, f"not an array but {_kind(value)}")
    return value


def _matching(value: Any, pattern: re.Pattern[str], where: str, what: str) -> str:
    text = _string(value, where)
    if not pattern.fullmatch(text):
        raise Wrong(where, f"{quote(text)} is not {what}")
    return text


def _game(value: Any) -> str:
    game = _string(value, "game")
    if game not in GAMES:
        raise Wrong("game", f"{quote(game)} is not a game Floe hosts")
    return game


def _seed_commitments(value: Any) -> tuple[str, ...]:
    items = _list(value, "seed_commitments")
    return tuple(
        _matching(c, SHA256, f"seed_commitments[{i}]", "64 lowercase hex digits")
        for i, c in enumerate(items)
    )


def _players(value: Any) -> tuple[tuple[str, str | None], ...]:
    players = []
    for number, item in enumerate(_list(value, "players")):
        where = f"players[{number}]"
        player = _object(item, PLAYER_FIELDS, where)
        if _int(player["player"], f"{where}.player") != number:
            raise Wrong(f"{where}.player", f"{player['player']} where {number} belongs")
        name = _string(player["name"], f"{where}.name")
        bot = player["bot"]
        if bot is not None:
            bot = _string(bot, f"{where}.bot")
        players.append((name, bot))
    return tuple(players)


def _plan(body: dict[str, Any], players: int) -> Plan:
    format_ = _string(body["format"], "format")
    table_size = _int(body["table_size"], "table_size")
    rounds = _int(body["planned_rounds"], "planned_rounds")
    return Plan.of(format_, players, table_size, rounds)


def _player_numbers(value: Any, players: int, where: str) -> tuple[int, ...]:
    numbers = tuple(_int(p, f"{where}[{i}]") for i, p in enumerate(_list(value, where)))
    for i, number in enumerate(numbers):
        if not 0 <= number < players:
            raise Wrong(f"{where}[{i}]", f"no player {number} (players are 0..{players - 1})")
    if len(set(numbers)) != len(numbers):
        raise Wrong(where, "a player is listed twice")
    return numbers


def _rounds(value: Any, players: int) -> tuple[ListedRound, ...]:
    rounds = []
    for index, item in enumerate(_list(value, "rounds")):
        where = f"rounds[{index}]"
        round_ = _object(item, ROUND_FIELDS, where)
        number = _int(round_["round"], f"{where}.round")
        if number != index + 1:
            raise Wrong(f"{where}.round", f"{number} where {index + 1} belongs")
        byes = _player_numbers(round_["byes"], players, f"{where}.byes")
        games = []
        for place, entry in enumerate(_list(round_["games"], f"{where}.games")):
            at = f"{where}.games[{place}]"
            game = _object(entry, GAME_FIELDS, at)
            table = _int(game["table"], f"{at}.table")
            if table != place + 1:
                raise Wrong(f"{at}.table", f"{table} where {place + 1} belongs")
            game_id = _matching(game["game_id"], ID, f"{at}.game_id", "16 lowercase hex digits")
            seated = _player_numbers(game["players"], players, f"{at}.players")
            outcome = game["outcome"]
            if outcome is not None:
                outcome = _object(outcome, None, f"{at}.outcome")
            games.append(Listed(number, table, game_id, seated, outcome))
        rounds.append(ListedRound(number, byes, tuple(games)))
    return tuple(rounds)


def _standings(value: Any) -> tuple[Standing, ...]:
    rows = []
    for index, item in enumerate(_list(value, "standings")):
        where = f"standing {index + 1}"
        row = _object(item, STANDING_FIELDS, where)
        player = _int(row["player"], f"{where}: player")
        name = _string(row["name"], f"{where}: name")
        points = _number(row["points"], f"{where}: points")
        buchholz = _number(row["buchholz"], f"{where}: buchholz")
        rows.append(Standing(player, name, points, buchholz))
    return tuple(rows)


def _number(value: Any, where: str) -> Fraction:
    """A points or Buchholz string, exactly as ``as_json_number`` writes it."""
    text = _string(value, where)
    match = NUMBER.fullmatch(text)
    number = None
    if match is not None:
        number = Fraction(int(match[1]), int(match[2] or 1))
    if number is None or as_json_number(number) != text:
        why = "is not a number as the format writes one (an integer, or a/b in lowest terms)"
        raise Wrong(where, f"{quote(text)} {why}")
    return number


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    if value is None:
        return "null"
    return names.get(type(value), "an array" if isinstance(value, list) else "an object")
