"""The engine's shared helpers: one way to draw, to find groups, to parse a pair or an
action, to load a contract, to read a stored event, whichever game or tool asks."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from domain.ai.generator import SplitMix64
from domain.engine import graphs, rng
from domain.engine.errors import MalformedAction
from domain.engine.game import Contract
from domain.engine.log import event_of, seal
from domain.engine.parsing import ActionTable, Field, int_pair
from domain.engine.rng import DrawStream
from domain.engine.types import Event
from domain.games import GAMES

ZERO = bytes(32)


def _square_neighbours(cell: tuple[int, int]) -> list[tuple[int, int]]:
    x, y = cell
    return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]


def test_components_are_sorted_groups_in_order_of_their_smallest_cell() -> None:
    cells = [(5, 5), (0, 1), (4, 5), (0, 0), (9, 9), (2, 2), (1, 1)]
    assert graphs.components(cells, _square_neighbours) == [
        [(0, 0), (0, 1), (1, 1)],
        [(2, 2)],
        [(4, 5), (5, 5)],
        [(9, 9)],
    ]
    assert graphs.components([], _square_neighbours) == []


def test_is_connected_agrees_with_components() -> None:
    for cells in ({(0, 0), (0, 1), (1, 1)}, {(0, 0), (2, 2)}, set(), {(3, 3)}):
        expected = len(graphs.components(cells, _square_neighbours)) <= 1
        assert graphs.is_connected(cells, _square_neighbours) == expected


@pytest.mark.parametrize(("kind", "n"), [("uniform", 6), ("shuffle", 24), ("derangement", 12)])
def test_the_bots_generator_and_the_draw_stream_draw_alike(kind: str, n: int) -> None:
    """Both sources go through ``rng.outcome``: the same integers give the same outcome."""

    class Replay:
        def __init__(self, values: list[int]) -> None:
            self.values = values

        def randrange(self, n: int) -> int:
            return self.values.pop(0) % n

    generator = SplitMix64(42)
    recorded: list[int] = []

    class Recorder:
        def randrange(self, n: int) -> int:
            value = generator.randrange(n)
            recorded.append(value)
            return value

    ours = rng.outcome(Recorder(), kind, n)
    assert ours == SplitMix64(42).draw(kind, n)
    assert rng.outcome(Replay(list(recorded)), kind, n) == ours


def test_draw_stream_shuffles_are_the_shared_outcome() -> None:
    stream, again = DrawStream(ZERO, "g1", 2, "tiles"), DrawStream(ZERO, "g1", 2, "tiles")
    assert stream.shuffle(24) == rng.outcome(again, "shuffle", 24)
    assert rng.draw(ZERO, "g1", 2, "tiles", "shuffle", 24) == DrawStream(
        ZERO, "g1", 2, "tiles"
    ).shuffle(24)


def test_impossible_draws_are_refused_by_every_source() -> None:
    for source in (DrawStream(ZERO, "g", 1, "x"), SplitMix64(1)):
        with pytest.raises(ValueError, match="unknown draw kind"):
            rng.outcome(source, "dice", 6)
        with pytest.raises(ValueError, match="no derangement"):
            rng.outcome(source, "derangement", 1)


@pytest.mark.parametrize(
    "value", [[1, 2, 3], [1], "12", [1.0, 2], [True, 0], [0, 1001], [-1001, 0], None, (1, 2)]
)
def test_int_pair_refuses_anything_but_two_small_integers(value: Any) -> None:
    with pytest.raises(MalformedAction) as refused:
        int_pair(value, "tile", "q, r")
    assert refused.value.code == "invalid_field"
    assert refused.value.message == "tile must be a pair of integers [q, r]"


def test_int_pair_reads_a_pair() -> None:
    assert int_pair([-1000, 1000], "cell") == (-1000, 1000)
    with pytest.raises(MalformedAction, match=r"\[x, y\]"):
        int_pair([0], "cell")


def test_both_sources_refuse_an_empty_range_by_their_own_name() -> None:
    with pytest.raises(ValueError, match=r"^uniform needs n >= 1$"):
        DrawStream(ZERO, "g", 1, "x").uniform(0)
    with pytest.raises(ValueError, match=r"^randrange needs n >= 1$"):
        SplitMix64(1).randrange(0)


@dataclass(frozen=True, slots=True)
class Jump:
    to: tuple[int, int]
    height: int
    type: ClassVar[str] = "jump"


@dataclass(frozen=True, slots=True)
class Rest:
    type: ClassVar[str] = "rest"


def _height(value: Any, name: str) -> int:
    if type(value) is int:
        return value
    raise MalformedAction("invalid_field", f"{name} must be an integer")


JUMPS: ActionTable[Jump | Rest] = ActionTable(
    (Jump, [Field("height", _height), Field("where", int_pair, "to")]), (Rest, [])
)


def test_an_action_table_states_each_type_and_its_fields_once() -> None:
    assert JUMPS.types == {"jump", "rest"}
    assert JUMPS.fields == {"jump": {"height", "where"}, "rest": frozenset()}
    assert JUMPS.parse({"type": "jump", "where": [1, 2], "height": 3}) == Jump((1, 2), 3)
    assert JUMPS.parse({"type": "rest"}) == Rest()


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        (
            {"type": "fly"},
            "unknown_action_type",
            "action type must be one of ['jump', 'rest'], not 'fly'",
        ),
        ({"type": "rest", "height": 1}, "unexpected_field", "rest takes no field 'height'"),
        ({"type": "jump", "height": 1}, "missing_field", "jump needs the field 'where'"),
        # read in the table's order: the first field that is off is the one named
        (
            {"type": "jump", "where": [0], "height": "x"},
            "invalid_field",
            "height must be an integer",
        ),
        (
            {"type": "jump", "where": [0], "height": 1},
            "invalid_field",
            "where must be a pair of integers [x, y]",
        ),
    ],
)
def test_an_action_table_refuses_with_the_standard_codes(
    data: dict[str, Any], code: str, message: str
) -> None:
    with pytest.raises(MalformedAction) as refused:
        JUMPS.parse(data)
    assert (refused.value.code, refused.value.message) == (code, message)


def test_every_games_contract_is_its_packages_json() -> None:
    for game in GAMES.values():
        package = type(game.rules).__module__.rsplit(".", 1)[0]
        assert Contract.load(package) == game.contract
        assert game.contract.actions and game.contract.errors


def test_a_contract_with_a_member_it_does_not_know_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    package = tmp_path / "contract_sketch"
    package.mkdir()
    (package / "__init__.py").write_text("")
    contract = {
        "$comment": "for readers",
        "actions": {},
        "state": {},
        "pending": {},
        "outcome": {},
        "errors": {},
    }
    (package / "contract.json").write_text(json.dumps(contract))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert Contract.load("contract_sketch") == Contract(
        actions={}, state={}, pending={}, outcome={}, errors={}
    )
    (package / "contract.json").write_text(json.dumps({**contract, "error": {}}))
    with pytest.raises(ValueError, match="a contract has no 'error'"):
        Contract.load("contract_sketch")


def test_event_of_reads_the_event_inside_a_stored_one() -> None:
    event = Event("move", 1, {"action": {"type": "move"}})
    [stored] = seal("g", [event], first_version=2, prev_hash="0" * 64, at="t", command_id="c")
    assert event_of(stored.to_json()) == event == stored.event
