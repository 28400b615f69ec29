"""An Ice Breakers turn whose ``boosts`` list one card twice fits openapi.yaml.

The rules let a B1 be played, drawn back from the discard pile by an AB2, given back and
played again in the same turn, so the turn's ``boosts`` holds it twice. A random game reaches
that seldom (the whole-games spec test once met it in CI, and the spec then refused it), so
here the turn is played move by move, every move checked by the rules, from a deal whose
shuffles are the identity: seat 0 then holds a Power 5 (c01), a B1 (c27) and an AB2 (c31).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from domain.engine.types import GameState
from domain.games.ice_breakers import ICE_BREAKERS
from service.games.views import game_view
from tests.support.openapi import OpenApi
from tests.support.positions.ice_breakers import act, board_of, draw, new_game

SPEC = OpenApi.load()
GAME_VIEW = "/v1/games/{game_id}"
#: The game's own view (the route's schema is a ``oneOf`` of every game's) and, inside it,
#: where the turn's boosts are described.
ICE_BREAKERS_VIEW = "/components/schemas/IceBreakersView"
BOOSTS = ("components", "schemas", "IceBreakersTurn", "properties", "boosts")
A = 0
B1, AB2, POWER_5 = "c27", "c31", "c01"


def b1_boosted_twice() -> GameState[Any]:
    """Seat 0's turn: the Power 5, the B1, the AB2 drawing the B1 (then the Power card) back
    from the discard pile, the B1 given to seat 0 and played again."""
    state = new_game(2)
    assert {POWER_5, B1, AB2} <= set(board_of(state).hands[A]), "the identity deal moved"
    state = act(state, A, {"type": "play_power", "card": POWER_5})
    state = act(state, A, {"type": "boost", "card": B1})
    assert board_of(state).discard == (POWER_5, B1)
    state = act(state, A, {"type": "cash_ab2", "card": AB2})
    state = draw(state, 1)  # the discard pile's second card: the B1
    state = draw(state, 0)  # then the only one left: the Power card
    assert board_of(state).waiting == (B1, POWER_5)
    state = act(state, A, {"type": "give", "card": B1, "to": A})
    state = act(state, A, {"type": "give", "card": POWER_5, "to": A})
    return act(state, A, {"type": "boost", "card": B1})


def view_of(state: GameState[Any]) -> dict[str, Any]:
    """The game as ``GET /v1/games/{game_id}`` shows a spectator, through JSON as sent."""
    seats = [seat.to_json() for seat in state.created.seats]
    shown: dict[str, Any] = json.loads(
        json.dumps(game_view(ICE_BREAKERS, state, None, seats=seats))
    )
    return shown


def view_errors(spec: OpenApi, view: dict[str, Any]) -> list[str]:
    """What ``spec`` finds wrong with ``view`` as the 200 answer of the game's route."""
    operation, pointer = spec.operation("get", GAME_VIEW)
    _, answer = spec.deref(operation["responses"]["200"], f"{pointer}/responses/200")
    return spec.errors(f"{answer}/content/application~1json/schema", view)


def test_a_turn_boosted_twice_by_one_card_fits_the_game_view() -> None:
    view = view_of(b1_boosted_twice())
    turn = view["state"]["turn"]
    b1 = {"id": B1, "kind": "B1", "value": 1}
    assert turn["boosts"] == [b1, b1]
    assert (turn["power"]["id"], turn["points"], turn["left"]) == (POWER_5, 7, 7)
    assert view_errors(SPEC, view) == []


def test_the_check_refuses_the_turn_if_boosts_had_to_be_unique() -> None:
    """The test above has teeth: with ``uniqueItems`` back on ``boosts`` (the bug fixed), the
    same view is refused, at the turn's boosts and for that reason alone."""
    strict = copy.deepcopy(SPEC.doc)
    boosts = strict
    for key in BOOSTS:
        boosts = boosts[key]
    assert "uniqueItems" not in boosts
    boosts["uniqueItems"] = True
    view = view_of(b1_boosted_twice())
    assert view_errors(OpenApi(strict), view), "a spec demanding unique boosts took the turn"
    errors = OpenApi(strict).errors(ICE_BREAKERS_VIEW, view)  # the game's own view says why
    assert len(errors) == 1 and errors[0].startswith("at state/turn/boosts: "), errors
    assert errors[0].endswith("has non-unique elements"), errors
