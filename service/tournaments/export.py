"""Line 1 of a tournament's export: what of its document the audit reads, and nothing else.

The manifest keeps to the fields ``replay.tournament.manifest`` reads
(``domain.tournament.export``); ``clock``, ``rules_version``, ``max_players``, ``tiebreaks``,
``ratings``, ``round_start``, ``decisions`` and ``roster_commitment`` only when the tournament
has them (a clock, rules recorded at creation, ratings given, a start other than "auto", a
decision, a roster committed at creation), so the manifests of older tournaments read as they
always did. It lists the players of the creation (one entered later is its ``enter``
decision's) and each game as its log ended it (a correction is its ``correct`` decision's):
the audit applies the decisions itself. A player's ``public_key`` is there only when they have
one (the roster commitment covers it, null where absent), so a keyless manifest reads as it
always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.engine.types import JSON
from domain.tournament.export import MANIFEST_FIELDS
from domain.tournament.v1 import VERSION as FIRST_RULES

#: What line 1 keeps of a player, of a game, and of a standing at rules version 1.
PLAYER_FIELDS = ("player", "name", "bot")
GAME_FIELDS = ("game_id", "table", "players", "outcome")
FIRST_STANDING_FIELDS = ("player", "name", "points", "buchholz")


def manifest(document: Mapping[str, Any], spec: Mapping[str, Any]) -> JSON:
    """Line 1's ``"tournament"`` object, from the tournament's document and its record's
    fixed part (``spec``)."""
    line: JSON = {name: document[name] for name in MANIFEST_FIELDS}
    if document["clock"] is not None:
        line["clock"] = document["clock"]
    for name in ("rules_version", "max_players", "tiebreaks"):
        if name in spec:
            line[name] = spec[name]
    if spec.get("ratings") is not None:
        line["ratings"] = spec["ratings"]
    if document["round_start"] != "auto":
        line["round_start"] = document["round_start"]
    if document["decisions"]:
        line["decisions"] = document["decisions"]
    if document["roster_commitment"] is not None:
        line["roster_commitment"] = document["roster_commitment"]
    listed = len(spec["players"])
    line["players"] = [_player(p) for p in document["players"][:listed]]
    line["rounds"] = [
        {**r, "games": [_kept(g, GAME_FIELDS) for g in r["games"]]} for r in document["rounds"]
    ]
    if spec.get("rules_version", FIRST_RULES) == FIRST_RULES:
        line["standings"] = [_kept(s, FIRST_STANDING_FIELDS) for s in document["standings"]]
    return line


def _player(player: Mapping[str, Any]) -> JSON:
    kept = _kept(player, PLAYER_FIELDS)
    if player["public_key"] is not None:
        kept["public_key"] = player["public_key"]
    return kept


def _kept(item: Mapping[str, Any], names: tuple[str, ...]) -> JSON:
    return {name: item[name] for name in names}
