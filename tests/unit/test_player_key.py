"""``replay.player_key``, the client helper: a player's key signs exactly the bytes the
service and the audit check (``floe-action-v1``, the game, the expected version, the action's
canonical JSON), and a receipt checks against the service's key and the revealed seed."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from replay import ed25519
from replay.player_key import PlayerKey, receipt_is_valid, receipt_mark

#: RFC 8032, section 7.1, TEST 1: the secret key, its public key, its signature of nothing.
RFC_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
RFC_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
RFC_EMPTY = (
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39"
    "701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
ACTION = {"type": "name", "to": "Zoë", "at": [0, -1]}
#: What a player signs to post ``ACTION`` in game ``g-1`` against version 4, written out.
SIGNED_BYTES = 'floe-action-v1\ng-1\n4\n{"at":[0,-1],"to":"Zoë","type":"name"}'.encode()


def test_a_key_is_rfc_8032s_seed_and_its_public_key() -> None:
    key = PlayerKey.from_hex(RFC_SECRET)
    assert key.public_key == RFC_PUBLIC
    assert ed25519.sign(key.private_key_hex, b"") == RFC_EMPTY
    assert PlayerKey.from_hex(RFC_SECRET.upper()) == key  # hex of either case, kept lower


def test_an_action_is_signed_over_the_exact_bytes_of_the_format() -> None:
    key = PlayerKey.from_hex(RFC_SECRET)
    signature = key.sign_action("g-1", 4, ACTION)
    assert signature == ed25519.sign(RFC_SECRET, SIGNED_BYTES)
    assert len(signature) == 128 and signature == signature.lower()
    assert ed25519.signature_is_valid(RFC_PUBLIC, SIGNED_BYTES, signature)
    for other in ("g-2", 5, {**ACTION, "to": "Zoe"}):
        game, version, action = (
            other if isinstance(other, str) else "g-1",
            other if isinstance(other, int) else 4,
            other if isinstance(other, dict) else ACTION,
        )
        assert key.sign_action(game, version, action) != signature, other


def test_the_signed_body_is_the_post_and_a_retry_sends_the_same() -> None:
    key = PlayerKey.generate()
    body = key.signed_body("g-1", 4, ACTION, "ann-4")
    assert body == {
        "action": ACTION,
        "expected_version": 4,
        "command_id": "ann-4",
        "signature": key.sign_action("g-1", 4, ACTION),
    }
    assert key.signed_body("g-1", 4, ACTION, "ann-4") == body  # Ed25519 is deterministic
    assert ed25519.signature_is_valid(key.public_key, SIGNED_BYTES, body["signature"])


def test_keys_are_fresh_exportable_and_never_shown() -> None:
    one, two = PlayerKey.generate(), PlayerKey.generate()
    assert one.public_key != two.public_key
    again = PlayerKey.from_hex(one.private_key_hex)
    assert again.public_key == one.public_key
    assert one.private_key_hex not in repr(one) and one.private_key_hex not in str(one)


@pytest.mark.parametrize("bad", ["", "ab" * 31, "zz" * 32, "ab" * 33, " " + "ab" * 32, 7, None])
def test_a_private_key_that_is_not_64_hex_digits_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="64 hex digits"):
        PlayerKey.from_hex(bad)


def test_a_receipt_checks_against_the_service_key_and_nothing_else() -> None:
    service = PlayerKey.from_hex("5e" * 32)  # any Ed25519 key signs as the service's does
    mark = "ab" * 32
    message = f"floe-receipt-v1\ng-1\n7\n{mark}\n".encode("ascii")
    signature = ed25519.sign(service.private_key_hex, message)
    assert receipt_is_valid(service.public_key, "g-1", 7, mark, signature)
    assert not receipt_is_valid(RFC_PUBLIC, "g-1", 7, mark, signature)  # another key
    assert not receipt_is_valid(service.public_key, "g-2", 7, mark, signature)
    assert not receipt_is_valid(service.public_key, "g-1", 8, mark, signature)
    assert not receipt_is_valid(service.public_key, "g-1", 7, "cd" * 32, signature)
    hostile: list[tuple[Any, Any, Any]] = [
        ("g-1", "7", mark),
        ("g-1", 7, "ü" * 64),
        ("g-1", True, mark),
        (7, 7, mark),
    ]
    for game, version, marked in hostile:  # never an exception: False
        assert not receipt_is_valid(service.public_key, game, version, marked, signature)
    assert not receipt_is_valid(service.public_key, "g-1", 7, mark, "not a signature")


def test_a_receipts_mark_is_the_seeds_hmac_of_the_event_hash() -> None:
    seed, event_hash = "07" * 32, "3f" * 32
    expected = hmac.new(bytes.fromhex(seed), event_hash.encode(), hashlib.sha256).hexdigest()
    assert receipt_mark(seed, event_hash) == expected
    assert receipt_mark("08" * 32, event_hash) != expected
