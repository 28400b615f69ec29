"""``seal`` encodes each event once: the line it keeps for the store (the hashed canonical JSON
with ``"hash"`` spliced in) is, byte for byte, what encoding the whole stored event makes,
whatever the event holds; and the line changes nothing about what an event is."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.engine.canonical import canonical_json
from domain.engine.log import GENESIS_HASH, StoredEvent, event_hash, seal
from domain.engine.types import SYSTEM, Actor, Event
from tests.support.reference_games import conformance_games

#: Keys that sort next to, or look like, the envelope's: ``"hash"`` goes right before the
#: top-level ``"prev_hash"``, and none of these inside ``data`` may mislead where.
NEIGHBOUR_KEYS = [
    "hash",
    "prev_hash",
    'prev_hash"',
    '"prev_hash":"',
    "hasg",
    "hash_",
    "h",
    "i",
    "game_id",
    "type",
    "version",
    "data",
    "zz",
    "",
    "\\",
    '"',
    "é",
    "\U0001f9ca",
]

#: Text with the awkward parts weighted in: quotes, backslashes, control characters, line
#: separators, non-ASCII (lone surrogates are not text: the API and replay refuse them).
text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12) | st.sampled_from(
    [
        '"',
        "\\",
        '\\"',
        "\x00\x1f\x7f",
        "\u2028\u2029",
        "é\U0001f9ca",
        '","version":1}',
        '"prev_hash":"' + "0" * 64 + '"',
        "}",
    ]
)
keys = st.sampled_from(NEIGHBOUR_KEYS) | text
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 5, max_value=2**70)
    | st.floats(allow_nan=False)
    | text
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=30,
)
actors: st.SearchStrategy[Actor] = st.just(SYSTEM) | st.integers(0, 7)
events = st.builds(
    Event, text | st.sampled_from(["place", "game_over"]), actors, st.dictionaries(keys, values)
)
hashes = st.just(GENESIS_HASH) | st.binary(min_size=32, max_size=32).map(bytes.hex)

CHECKED = settings(derandomize=True, deadline=None, max_examples=400, database=None)


def sealed_from(events: list[Event], **envelope: Any) -> list[StoredEvent]:
    return seal(
        envelope.get("game_id", "g"),
        events,
        first_version=envelope.get("first_version", 2),
        prev_hash=envelope.get("prev_hash", GENESIS_HASH),
        at=envelope.get("at", "2026-11-22T12:00:00Z"),
        command_id=envelope.get("command_id", "c1"),
    )


def assert_lines_are_the_encoding(sealed: list[StoredEvent]) -> None:
    """Each event carries a line, the whole event's canonical JSON, and its hash is the chain's
    (recomputed here from the standard library alone, not through ``log``)."""
    for stored in sealed:
        assert stored._line is not None  # sealed here, not left to be encoded again
        assert stored.line().encode() == canonical_json(stored.to_json()).encode()
        body = {k: v for k, v in json.loads(stored.line()).items() if k != "hash"}
        hashed = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        payload = stored.prev_hash.encode("ascii") + hashed.encode("utf-8")
        assert stored.hash == hashlib.sha256(payload).hexdigest()


@CHECKED
@given(
    st.lists(events, min_size=1, max_size=4),
    text,
    st.integers(1, 2**40) | st.integers(2**63 - 2, 2**70),
    hashes,
    text,
    st.none() | text,
)
def test_every_sealed_line_is_the_canonical_json_of_its_event(
    events: list[Event],
    game_id: str,
    first_version: int,
    prev_hash: str,
    at: str,
    command_id: str | None,
) -> None:
    sealed = sealed_from(
        events,
        game_id=game_id,
        first_version=first_version,
        prev_hash=prev_hash,
        at=at,
        command_id=command_id,
    )
    assert_lines_are_the_encoding(sealed)
    assert [e.prev_hash for e in sealed[1:]] == [e.hash for e in sealed[:-1]]


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"hash": "x", "prev_hash": "y", "type": "z", "version": 9},
        {"prev_hash": {"prev_hash": {"hash": ['"prev_hash":"', "\\"]}}},
        {"a": {"hash": 1}, "zz": [{"prev_hash": None, "version": [1, {"type": "t"}]}]},
        {'"prev_hash":"': '","type":"place","version":2}', "\\": '\\"'},
        {"é": "\U0001f9ca", "\u2028": "\x00", "ß": ["ǅ", "\ufeff"]},
        {"n": 2**70, "f": 1e16, "g": -0.0, "h": 1.5e-7, "b": [True, False, None]},
    ],
    ids=["empty", "envelope-keys", "nested", "around", "quoted", "non-ascii", "numbers"],
)
@pytest.mark.parametrize(
    "type", ["place", 'pl"ace', "\\", "é\U0001f9ca", '","version":1}', "", "prev_hash"]
)
def test_edge_events_seal_to_their_canonical_json(data: dict[str, Any], type: str) -> None:
    sealed = sealed_from(
        [Event(type, 0, data), Event(type, "system", data)], game_id='g"\\é', at="\u2028"
    )
    assert_lines_are_the_encoding(sealed)
    assert sealed[1].command_id is None


@pytest.mark.parametrize("path", conformance_games(), ids=lambda p: p.stem)
def test_sealing_a_reference_game_again_writes_its_lines(path: Path) -> None:
    """The reference exports, sealed event by event from their own envelopes: the same hashes
    and the same bytes, line for line."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert lines
    for line in lines:
        obj = json.loads(line)
        [stored] = seal(
            obj["game_id"],
            [Event(obj["type"], obj["actor"], obj["data"])],
            first_version=obj["version"],
            prev_hash=obj["prev_hash"],
            at=obj["at"],
            command_id=obj["command_id"],
        )
        assert (stored.hash, stored.line()) == (obj["hash"], line)


def test_the_line_changes_no_equality_repr_or_copy() -> None:
    [sealed] = sealed_from([Event("place", 1, {"hash": "é"})])
    read_back = StoredEvent.from_json(json.loads(sealed.line()))
    assert read_back._line is None
    assert read_back == sealed
    assert repr(read_back) == repr(sealed)
    assert "_line" not in repr(sealed)
    assert read_back.line() == sealed.line()
    assert StoredEvent.__match_args__ == (
        "game_id", "version", "type", "data", "actor", "at", "command_id", "prev_hash", "hash"
    )  # fmt: skip
    assert pickle.loads(pickle.dumps(sealed)).line() == sealed.line()


def test_a_changed_event_never_keeps_the_old_line() -> None:
    """``replace`` makes a new event from its fields: a line there would be the old one's."""
    [sealed] = sealed_from([Event("place", 1, {"tile": [0, 1]})])
    forged = dataclasses.replace(sealed, data={"tile": [9, 9]})
    assert forged._line is None
    assert forged.line() == canonical_json(forged.to_json())
    assert forged.line() != sealed.line()
    assert event_hash(forged.to_json()) != forged.hash
