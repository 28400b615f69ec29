"""The roster commitment: the function, and the worked example docs/guide/tournaments.md gives
an outside auditor, read from the page itself (a change to either fails here)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from domain.tournament import roster_commitment

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guide" / "tournaments.md"
SECTION = "### The roster commitment"


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


def test_the_guides_worked_example() -> None:
    """The players as created, the exact bytes, their count and the digest the guide gives."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ")]
    [created] = re.findall(r"```json\n(.*?)\n```", section, re.S)
    [written] = re.findall(r"```text\n(.*?)\n```", section, re.S)
    size = re.search(r"commit to these (\d+) bytes", section)
    digest = re.search(r"`roster_commitment`, is\s+`([0-9a-f]{64})`", section)
    assert size is not None and digest is not None
    players = [(p["name"], p.get("bot")) for p in json.loads(created)]
    assert int(size[1]) == len(written.encode("utf-8"))
    assert hashlib.sha256(written.encode("utf-8")).hexdigest() == digest[1]
    assert roster_commitment(players) == digest[1]
    # The hand-written bytes are the canonical JSON of the players' entries.
    entries = [{"name": n, "bot": b, "public_key": None} for n, b in players]
    assert written == json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # Pinned: what the guide said when it was written.
    assert digest[1] == "3edfcfb89791eb94ef30dd2c6e9e8c4921515705f0e8aee78b2281b2df8abf86"
