"""A late entry with a public key: the director's request, the record it makes (the key only
when there is one, so a keyless record is what it always was), and the refusals."""

from __future__ import annotations

from typing import Any

import pytest

from domain.tournament.decisions import DecisionError, Enter, parse_decision, parse_request

KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
STAMPS: dict[str, Any] = {"rounds_paired": 1, "seq": 2, "at": "2026-11-27T13:00:00Z"}


def request(**fields: Any) -> Enter:
    body = {"decision": "enter", "name": "Eve", "reason": "late", **fields}
    entered = parse_request(body, next_player=6, games={}, **STAMPS)
    assert isinstance(entered, Enter)
    return entered


def test_an_entry_with_a_key_records_it_and_reads_back() -> None:
    entered = request(public_key=KEY)
    assert entered == Enter(6, "Eve", None, KEY, reason="late", **STAMPS)
    recorded = entered.to_json()
    assert recorded == {
        "decision": "enter",
        "player": 6,
        "name": "Eve",
        "bot": None,
        "public_key": KEY,
        **STAMPS,
        "reason": "late",
    }
    assert parse_decision(recorded) == entered


def test_an_entry_without_a_key_is_recorded_as_it_always_was() -> None:
    for entered in (request(), request(public_key=None)):
        assert entered.public_key is None
        assert "public_key" not in entered.to_json()
        assert set(entered.to_json()) == {
            "decision", "player", "name", "bot", "rounds_paired", "seq", "at", "reason",
        }  # fmt: skip
        assert parse_decision(entered.to_json()) == entered


@pytest.mark.parametrize(
    "fields",
    [
        {"public_key": KEY.upper()},
        {"public_key": KEY[:-1]},
        {"public_key": KEY + "\n"},
        {"public_key": 7},
        {"public_key": [KEY]},
        {"public_key": KEY, "bot": "random"},
    ],
)
def test_a_key_that_is_none_or_a_bots_is_invalid(fields: dict[str, Any]) -> None:
    with pytest.raises(DecisionError) as refused:
        request(**fields)
    assert refused.value.code == "invalid_field"
    recorded = {**Enter(6, "Eve", None, KEY, reason="late", **STAMPS).to_json(), **fields}
    with pytest.raises(DecisionError) as unread:
        parse_decision(recorded)
    assert unread.value.code == "invalid_field"


def test_a_record_never_holds_a_null_key() -> None:
    recorded = {**request().to_json(), "public_key": None}
    with pytest.raises(DecisionError) as refused:
        parse_decision(recorded)
    assert refused.value.code == "invalid_field"
