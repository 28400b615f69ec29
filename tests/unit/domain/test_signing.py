"""The bytes players and the service sign (``domain.engine.signing``), byte for byte.

The messages are what every signer and checker must agree on, in any language, so these
tests spell them out by hand; the Ed25519 arithmetic is not the domain's (see
tests/unit/test_signing_vectors.py for signatures over these bytes).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

import pytest

from domain.engine.signing import (
    ACTION_CONTEXT,
    RECEIPT_CONTEXT,
    action_message,
    is_mark,
    is_public_key,
    is_signature,
    receipt_mark,
    receipt_message,
)

PLACE = {"type": "place", "size": "G", "tile": [1, 0]}
SEED = bytes(range(32))
HASH = "3e00e5aa8d5f60cb712a3d3d5d1d12cbce4d511a798860c35941fbcfe7a920c4"


def test_the_action_message_is_context_game_version_then_canonical_json() -> None:
    assert action_message("g-1", 7, PLACE) == (
        b'floe-action-v1\ng-1\n7\n{"size":"G","tile":[1,0],"type":"place"}'
    )
    assert ACTION_CONTEXT == "floe-action-v1"


def test_the_action_is_sorted_at_every_depth_without_spaces() -> None:
    action = {"type": "x", "b": {"z": [1, {"y": 2, "x": 3}], "a": None}, "a": True}
    body = action_message("g", 1, action).split(b"\n", 3)[3]
    assert body == b'{"a":true,"b":{"a":null,"z":[1,{"x":3,"y":2}]},"type":"x"}'


def test_the_message_does_not_depend_on_the_order_keys_were_given_in() -> None:
    shuffled = {"tile": [1, 0], "type": "place", "size": "G"}
    assert action_message("g", 3, shuffled) == action_message("g", 3, PLACE)


def test_text_is_utf8_as_is_never_escaped_and_controls_are_escaped() -> None:
    message = action_message("démo", 2, {"type": "note", "text": 'Åsa "Ø"\n🐧'})
    assert message.startswith("floe-action-v1\ndémo\n2\n".encode())
    assert b"d\xc3\xa9mo" in message  # é in the game id as UTF-8
    assert b"\xc3\x85sa" in message and b"\xf0\x9f\x90\xa7" in message  # Å, and 🐧 in 4 bytes
    assert b"\\u" not in message
    assert b'\\"\xc3\x98\\"\\n' in message  # the quotes and the newline escaped


@pytest.mark.parametrize(
    ("game_id", "version", "action"),
    [
        ("g-2", 7, PLACE),  # another game
        ("g-1", 8, PLACE),  # another turn
        ("g-1", 7, {**PLACE, "size": "D"}),  # another move
        ("g-1", 7, {**PLACE, "tile": [0, 1]}),
    ],
)
def test_every_part_of_the_move_changes_the_message(
    game_id: str, version: int, action: dict[str, Any]
) -> None:
    assert action_message(game_id, version, action) != action_message("g-1", 7, PLACE)


def test_the_mark_is_hmac_sha256_of_the_hash_keyed_by_the_seed() -> None:
    mark = receipt_mark(SEED, HASH)
    assert mark == hmac.new(SEED, HASH.encode("ascii"), hashlib.sha256).hexdigest()
    assert is_mark(mark) and mark != HASH
    assert receipt_mark(bytes(32), HASH) != mark  # another seed, another mark
    assert receipt_mark(SEED, HASH[::-1]) != mark  # another event, another mark


def test_the_receipt_message_is_four_lines_each_ended_by_a_newline() -> None:
    mark = receipt_mark(SEED, HASH)
    message = receipt_message("0123456789abcdef", 12, mark)
    assert message == f"floe-receipt-v1\n0123456789abcdef\n12\n{mark}\n".encode("ascii")
    assert RECEIPT_CONTEXT == "floe-receipt-v1"
    assert message.count(b"\n") == 4 and message.endswith(b"\n")
    assert receipt_message("0123456789abcdef", 13, mark) != message


def test_a_receipt_is_never_an_action_message() -> None:
    """Each signature says what it signs in its first line, so one key's signature over a
    receipt can never be presented as a move, or the other way round."""
    mark = receipt_mark(SEED, HASH)
    receipt = receipt_message("g", 2, mark)
    action = action_message("g", 2, {"type": "mark", "mark": mark})
    assert receipt.split(b"\n")[0] != action.split(b"\n")[0]
    assert ACTION_CONTEXT != RECEIPT_CONTEXT


def test_a_receipt_message_is_ascii_only() -> None:
    with pytest.raises(UnicodeEncodeError):
        receipt_message("démo", 1, receipt_mark(SEED, HASH))


@pytest.mark.parametrize(
    ("check", "size"), [(is_public_key, 64), (is_signature, 128), (is_mark, 64)]
)
def test_keys_signatures_and_marks_are_lowercase_hex_of_their_size(
    check: Callable[[Any], bool], size: int
) -> None:
    assert check("0" * size) and check("a1" * (size // 2))
    refused = ["A" * size, "0" * (size - 1), "0" * (size + 1), "g" * size, " " + "0" * size]
    assert not any(check(value) for value in refused)
    assert not check(None) and not check(123) and not check(b"0" * size)
