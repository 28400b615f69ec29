"""The roster commitment: the function, and the worked examples docs/guide/tournaments.md gives
an outside auditor (without keys, and with one), read from the page itself (a change to either
fails here)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from domain.tournament import roster_commitment
from domain.tournament.commitments import RosterEntry
from replay.ed25519 import public_key_of

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guide" / "tournaments.md"
SECTION = "### The roster commitment"
#: RFC 8032's first test vector: the private key, and the public key the guide gives Ada.
RFC8032_PRIVATE = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
RFC8032_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"


def test_it_is_the_sha256_of_the_canonical_players_with_a_null_key_each() -> None:
    players = [("Ada", None), ("R1", "random")]
    written = (
        '[{"bot":null,"name":"Ada","public_key":null},'
        '{"bot":"random","name":"R1","public_key":null}]'
    )
    assert roster_commitment(players) == hashlib.sha256(written.encode()).hexdigest()


def test_a_rename_a_swap_a_bot_or_a_player_more_or_less_changes_it() -> None:
    players: list[tuple[str, str | None]] = [("Ada", None), ("Bo", None), ("R1", "random")]
    committed = roster_commitment(players)
    others: list[list[tuple[str, str | None]]] = [
        [("Ada", None), ("Bob", None), ("R1", "random")],
        [("Bo", None), ("Ada", None), ("R1", "random")],
        [("Ada", None), ("Bo", None), ("R1", "greedy")],
        [("Ada", None), ("Bo", None), ("R1", None)],
        [("Ada", None), ("Bo", None)],
        [*players, ("Cy", None)],
    ]
    assert all(roster_commitment(other) != committed for other in others)
    assert roster_commitment(list(players)) == committed


def test_a_name_is_hashed_as_its_utf8_never_escaped() -> None:
    written = '[{"bot":null,"name":"Zoë","public_key":null}]'
    assert roster_commitment([("Zoë", None)]) == hashlib.sha256(written.encode()).hexdigest()
    escaped = written.replace("ë", "\\u00eb").encode("ascii")
    assert roster_commitment([("Zoë", None)]) != hashlib.sha256(escaped).hexdigest()


def test_a_players_key_is_hashed_and_a_pair_is_a_player_without_one() -> None:
    key = "ab" * 32
    written = (
        f'[{{"bot":null,"name":"Ada","public_key":"{key}"}},'
        '{"bot":"random","name":"R1","public_key":null}]'
    )
    keyed = roster_commitment([("Ada", None, key), ("R1", "random")])
    assert keyed == hashlib.sha256(written.encode()).hexdigest()
    assert roster_commitment([("Ada", None, None)]) == roster_commitment([("Ada", None)])
    # Another key, a key dropped, or a key moved to another player: another commitment.
    others: list[list[RosterEntry]] = [
        [("Ada", None, "cd" * 32), ("R1", "random")],
        [("Ada", None), ("R1", "random")],
        [("Ada", None), ("R1", "random", key)],
    ]
    assert all(roster_commitment(other) != keyed for other in others)


def worked_examples() -> list[tuple[str, str, int, str]]:
    """Each of the guide's examples: the players as created (JSON), the bytes they commit
    to, their count as the guide says it, and the digest it gives."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ")]
    created = re.findall(r"```json\n(.*?)\n```", section, re.S)
    written = re.findall(r"```text\n(.*?)\n```", section, re.S)
    sizes = re.findall(r"commit to these (\d+) bytes", section)
    digests = re.findall(r"`roster_commitment`, is\s+`([0-9a-f]{64})`", section)
    assert len(created) == len(written) == len(sizes) == len(digests) == 2
    return list(zip(created, written, (int(n) for n in sizes), digests, strict=True))


def test_the_guides_worked_example() -> None:
    """The players as created, the exact bytes, their count and the digest the guide gives,
    for the roster without keys and the one where Ada has a key."""
    examples = worked_examples()
    for created, written, size, digest in examples:
        players = [(p["name"], p.get("bot"), p.get("public_key")) for p in json.loads(created)]
        assert size == len(written.encode("utf-8"))
        assert hashlib.sha256(written.encode("utf-8")).hexdigest() == digest
        assert roster_commitment(players) == digest
        # The hand-written bytes are the canonical JSON of the players' entries.
        entries = [{"name": n, "bot": b, "public_key": k} for n, b, k in players]
        canonical = json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert written == canonical
    [(plain, _, _, before), (keyed, _, _, after)] = examples
    assert all("public_key" not in p for p in json.loads(plain))
    assert json.loads(keyed)[0]["public_key"] == RFC8032_PUBLIC == public_key_of(RFC8032_PRIVATE)
    # Pinned: what the guide said when each was written (the first before players had keys).
    assert before == "3edfcfb89791eb94ef30dd2c6e9e8c4921515705f0e8aee78b2281b2df8abf86"
    assert after == "4bcd8597c18a3af61e8e2723ceb7cafb34cec3ccce31905404cb7b60af182789"
