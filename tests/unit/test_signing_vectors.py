"""The signature and receipt test vectors docs/reference/format.md publishes, derived again.

The vectors are read from the page's ```` ```json vectors ```` block: every public key,
canonical JSON, message, mark and signature is recomputed from the private keys and inputs
with ``domain.engine.signing`` and ``replay.ed25519`` (and the player's helper,
``replay.player_key``), so a vector edited on the page, or a change to the bytes signed, fails
here. Ed25519 is deterministic, so a signature is a value to compare like any other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from domain.engine.canonical import canonical_json
from domain.engine.log import event_hash
from domain.engine.signing import (
    action_message,
    is_mark,
    is_public_key,
    is_signature,
    receipt_mark,
    receipt_message,
)
from replay import ed25519
from replay.player_key import PlayerKey, receipt_is_valid

FORMAT = Path(__file__).resolve().parents[2] / "docs" / "reference" / "format.md"
SECTION = "## Signatures and receipts"
#: RFC 8032, section 7.1, test 1: the first player key's public key and its signature over
#: the empty message, so the library is pinned to the standard, not only to this page.
RFC_TEST_1_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
RFC_TEST_1_EMPTY_SIGNATURE = (
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
    "1cf9b46bd25bf5f0595bbe24655141438e7a100b"
)


def page() -> str:
    return FORMAT.read_text(encoding="utf-8")


def section() -> str:
    text = page()
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + len(SECTION))]


def documented() -> dict[str, list[dict[str, Any]]]:
    [block] = re.findall(r"^```json vectors\n(.*?)\n```$", section(), re.S | re.M)
    vectors: dict[str, list[dict[str, Any]]] = json.loads(block)
    return vectors


VECTORS = documented()
ACTIONS = VECTORS["actions"]
RECEIPTS = VECTORS["receipts"]


def test_the_page_states_its_vectors() -> None:
    assert len(ACTIONS) >= 2 and len(RECEIPTS) >= 2
    # At least one vector pins UTF-8: a game id or an action that is not ASCII.
    assert any(not v["message"].isascii() for v in ACTIONS)
    assert len({v["private_key"] for v in ACTIONS}) == len(ACTIONS)


@pytest.mark.parametrize("vector", ACTIONS, ids=[v["game_id"] for v in ACTIONS])
def test_an_action_vector_derives_again(vector: dict[str, Any]) -> None:
    private, public = vector["private_key"], vector["public_key"]
    game_id, version, action = vector["game_id"], vector["expected_version"], vector["action"]
    assert ed25519.public_key_of(private) == public and is_public_key(public)
    assert canonical_json(action) == vector["canonical_action"]
    message = action_message(game_id, version, action)
    assert message == vector["message"].encode("utf-8") == bytes.fromhex(vector["message_hex"])
    expected = f"floe-action-v1\n{game_id}\n{version}\n{vector['canonical_action']}"
    assert message == expected.encode("utf-8")
    signature = ed25519.sign(private, message)
    assert signature == vector["signature"] and is_signature(signature)
    assert ed25519.signature_is_valid(public, message, signature)
    key = PlayerKey.from_hex(private)
    assert key.public_key == public
    assert key.sign_action(game_id, version, action) == signature


@pytest.mark.parametrize("vector", ACTIONS, ids=[v["game_id"] for v in ACTIONS])
def test_an_action_signature_holds_for_that_move_only(vector: dict[str, Any]) -> None:
    """The signature does not fit the same move at another version or in another game, another
    move, or another key: a forger cannot reuse it."""
    public, signature = vector["public_key"], vector["signature"]
    game_id, version, action = vector["game_id"], vector["expected_version"], vector["action"]
    elsewhere = [
        action_message(game_id, version + 1, action),
        action_message(game_id + "0", version, action),
        action_message(game_id, version, {**action, "type": "resign"}),
    ]
    for message in elsewhere:
        assert not ed25519.signature_is_valid(public, message, signature)
    others = [v["public_key"] for v in ACTIONS if v["public_key"] != public]
    message = bytes.fromhex(vector["message_hex"])
    assert others and not any(ed25519.signature_is_valid(k, message, signature) for k in others)


@pytest.mark.parametrize("vector", RECEIPTS, ids=[f"v{v['version']}" for v in RECEIPTS])
def test_a_receipt_vector_derives_again(vector: dict[str, Any]) -> None:
    seed = bytes.fromhex(vector["seed"])
    game_id, version, mark = vector["game_id"], vector["version"], vector["mark"]
    by_hand = hmac.new(seed, vector["event_hash"].encode("ascii"), hashlib.sha256).hexdigest()
    assert receipt_mark(seed, vector["event_hash"]) == by_hand == mark and is_mark(mark)
    message = receipt_message(game_id, version, mark)
    assert message == vector["message"].encode("ascii") == bytes.fromhex(vector["message_hex"])
    assert message == f"floe-receipt-v1\n{game_id}\n{version}\n{mark}\n".encode("ascii")
    service = vector["service_public_key"]
    assert ed25519.public_key_of(vector["service_private_key"]) == service
    signature = ed25519.sign(vector["service_private_key"], message)
    assert signature == vector["signature"]
    assert receipt_is_valid(service, game_id, version, mark, signature)
    # The receipt is for this event at this version, and a mark under another seed is another.
    assert not receipt_is_valid(service, game_id, version + 1, mark, signature)
    assert receipt_mark(bytes(31) + b"\x01", vector["event_hash"]) != mark


def test_the_receipts_are_those_of_the_hash_chain_example() -> None:
    """The page says its receipt vectors are for the lines of its hash chain example, with
    that example's seed of 32 zero bytes: each event hash is that line's, recomputed."""
    [export] = re.findall(r"```jsonl\n(.*?)```", page(), re.S)
    lines = [json.loads(line) for line in export.splitlines()]
    for vector in RECEIPTS:
        line = lines[vector["version"] - 1]
        assert line["game_id"] == vector["game_id"] and vector["seed"] == "00" * 32
        without = {k: v for k, v in line.items() if k != "hash"}
        assert event_hash(without) == line["hash"] == vector["event_hash"]


def test_the_first_action_message_is_shown_as_the_bytes_it_is() -> None:
    """The text block the page shows for action 1, its size, and the parts it names."""
    text = section()
    [shown] = re.findall(r"^  ```text\n(.*?)\n  ```$", text, re.S | re.M)
    first = ACTIONS[0]
    assert textwrap.dedent(shown) == first["message"]
    size = re.search(r"message is these (\d+) bytes", text)
    assert size is not None and int(size[1]) == len(first["message"].encode("utf-8"))


def test_the_library_is_rfc_8032() -> None:
    private = ACTIONS[0]["private_key"]
    assert ed25519.public_key_of(private) == RFC_TEST_1_PUBLIC == ACTIONS[0]["public_key"]
    assert ed25519.sign(private, b"") == RFC_TEST_1_EMPTY_SIGNATURE
    assert ed25519.signature_is_valid(RFC_TEST_1_PUBLIC, b"", RFC_TEST_1_EMPTY_SIGNATURE)
