"""Schemathesis hooks: the API's rules that JSON Schema cannot state, told to the fuzzer.

The spec states every rule a schema can (seat counts per game, option bounds, names without
control characters, a swiss's ``rounds``, ...). A few rules depend on more than one value or
on the server's state, and no schema says them:

- an array option (Arktia's ``board``) is checked by the game's setup (connected, enough
  tiles for the seats), not by its schema;
- a tournament's plan must be one that can be run (``Plan.of``: table size and players,
  byes, rounds, room for late entries, tie-breaks each once), its players' names must
  differ, and either every player has a rating or none has;
- an action must be one of the game's that ``game_id`` names (or ``resign``, every
  game's): the body alone cannot say which game that is;
- an organizer's decision may name only seats the game has (``unknown_seat``, 422): a
  positive one keeps to seats below the game's fewest (every game of it has those);
- no two seats of a table may have names that read the same (case and Unicode normalisation
  aside: ``service.api.schemas.names.same_names``);
- a bot signs nothing: a player, a table's seat or a late entry (``enter``) with both a
  ``bot`` and a ``public_key`` is 400, and so is a table's open seat with a ``public_key`` (the
  stranger who takes it brings their own);
- an action's ``signature`` must be the seat's key's over the action (401 ``bad_signature``),
  or absent for a seat without a key (400): the fuzzer holds no key, so it cannot make one.

Positive cases (the ones the fuzzer calls valid, and checks are accepted) keep to those
rules: an array option is left out, and a case breaking one of the others is dropped.
Negative cases are left alone.

One finding is by design and dropped: ``DELETE /v1/tables/{table_id}`` cancels a table, and
the table stays readable as ``cancelled`` for a day (the spec says so), so reading it after
is no use after free. Used by tests/e2e/test_fuzz_openapi.py and by the command
line run (tests/support/schemathesis.toml).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import schemathesis
from jsonschema import Draft202012Validator

from domain.engine.departures import RESIGN
from domain.games import GAMES
from domain.tournament.plan import Plan, PlanError
from service.api.schemas.names import same_names

#: ``game_id`` -> game name, for the ids a test already knows (others are asked of the API).
KNOWN_GAMES: dict[str, str] = {}
#: The options whose values the games' setups check beyond their schemas.
CHECKED_BY_SETUP = frozenset(
    option.name for game in GAMES.values() for option in game.info.options if option.type == "array"
)
BODIES_WITH_OPTIONS = frozenset({"/v1/games", "/v1/tables", "/v1/tournaments"})


def _positive(case: Any) -> bool:
    """Whether the fuzzer holds ``case`` valid (an explicit example has no generation mode)."""
    meta = getattr(case, "meta", None)
    return meta is None or bool(meta.generation.mode.is_positive)


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    """A positive body's array options are left out (their rules are the game's setup's)."""
    body = case.body
    if (
        _positive(case)
        and case.operation.path in BODIES_WITH_OPTIONS
        and isinstance(body, dict)
        and isinstance(body.get("options"), dict)
    ):
        body["options"] = {k: v for k, v in body["options"].items() if k not in CHECKED_BY_SETUP}
    return case


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    """Drop a positive case that breaks a rule no schema states (a search's ``cursor`` is
    valid only when a search handed it out)."""
    searching = (case.operation.method.lower(), case.operation.path) == ("get", "/v1/games")
    if _positive(case) and searching:
        return "cursor" not in (case.query or {})
    if not _positive(case) or not isinstance(case.body, dict):
        return True
    path, method = case.operation.path, case.operation.method.lower()
    if (method, path) == ("post", "/v1/tournaments"):
        return _runnable(case.body) and _keys_for_people(case.body.get("players"))
    if (method, path) == ("post", "/v1/games"):
        return _keys_for_people(case.body.get("players"))
    if (method, path) == ("post", "/v1/tables"):
        seats = case.body.get("seats")
        return _keys_for_people(seats, open_seats=True) and _names_differ(seats)
    if (method, path) == ("post", "/v1/tournaments/{tournament_id}/decisions"):
        return _keys_for_people([case.body])
    if (method, path) == ("post", "/v1/games/{game_id}/actions"):
        if case.body.get("signature") is not None:
            return False  # no key here to sign with: a signature made up is refused
        return _of_the_game(case.body.get("action"), _game_of(case))
    if (method, path) == ("post", "/v1/games/{game_id}/decisions"):
        return _seats_of_the_game(case.body, _game_of(case))
    return True


def _keys_for_people(players: Any, *, open_seats: bool = False) -> bool:
    """Whether no bot (nor, with ``open_seats``, an open seat) among ``players`` has a
    ``public_key``: only a person signs, and a stranger brings their key when joining."""
    if not isinstance(players, list):
        return True
    for player in players:
        if not isinstance(player, dict) or player.get("public_key") is None:
            continue
        if player.get("bot") is not None or (open_seats and player.get("open") is True):
            return False
    return True


def _names_differ(seats: Any) -> bool:
    """Whether no two of ``seats``' names read the same."""
    if not isinstance(seats, list):
        return True
    names = [s["name"] for s in seats if isinstance(s, dict) and isinstance(s.get("name"), str)]
    return same_names(names) is None


def _of_the_game(action: Any, game: str | None) -> bool:
    """Whether ``action`` fits one of ``game``'s actions, by the game's own contract."""
    if game not in GAMES or not isinstance(action, dict):
        return False
    if action.get("type") == RESIGN:
        return set(action) == {"type"}
    contract = GAMES[game].contract
    schema = contract.actions.get(str(action.get("type")))
    if schema is None:
        return False
    validator = Draft202012Validator({"$defs": dict(contract.definitions), **schema})
    return bool(validator.is_valid(action))


def _seats_of_the_game(decision: dict[str, Any], game: str | None) -> bool:
    """Whether every seat ``decision`` names is one any game of ``game`` has."""
    if game not in GAMES:
        return False
    named = decision.get("winners") if "winners" in decision else [decision.get("seat")]
    fewest = GAMES[game].info.min_seats
    return isinstance(named, list) and all(
        isinstance(seat, int) and 0 <= seat < fewest for seat in named
    )


def _runnable(body: dict[str, Any]) -> bool:
    players = body.get("players")
    if not isinstance(players, list):
        return True
    names = [p.get("name") for p in players if isinstance(p, dict)]
    if len(set(names)) != len(names):
        return False
    given = [p.get("rating") for p in players if isinstance(p, dict)]
    ratings = [int(r) for r in given if r is not None]
    if ratings and len(ratings) != len(given):
        return False  # every player rated, or none
    try:
        Plan.of(
            str(body.get("format")),
            len(players),
            body.get("table_size", 2),
            body.get("rounds"),
            max_players=body.get("max_players"),
            ratings=ratings or None,
            tiebreaks=body.get("tiebreaks"),
        )
    except (PlanError, TypeError, ValueError):
        return False
    return True


def _game_of(case: Any) -> str | None:
    game_id = (case.path_parameters or {}).get("game_id")
    if not isinstance(game_id, str):
        return None
    if game_id not in KNOWN_GAMES:
        base = (case.operation.base_url or "").rstrip("/")
        try:
            with urllib.request.urlopen(f"{base}/v1/games/{game_id}", timeout=10) as answer:
                KNOWN_GAMES[game_id] = str(json.load(answer)["game"])
        except (OSError, ValueError, KeyError):
            return None
    return KNOWN_GAMES[game_id]


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a read of a cancelled table (a cancelled table stays)."""
    return not (
        getattr(failure, "code", None) == "ST301"
        and case.operation.path == "/v1/tables/{table_id}"
        and response.status_code == 200
    )
