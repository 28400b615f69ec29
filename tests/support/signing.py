"""Signed games: seats with their own Ed25519 keys (``replay.player_key``) created through
the API, a ``Game`` whose keyed seats sign every post, the export of a game, and a forger's
re-played copy of a finished export (the host's attack: another legal move at some version,
the game played on legally to its end, every draw from the revealed seed, every hash chained).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient

from domain.engine import play, rng
from domain.engine.canonical import canonical_json
from domain.engine.log import event_of, seal
from domain.engine.types import GAME_OVER, SEED_REVEALED, SYSTEM, Event, GameState
from domain.games import GAMES
from replay.player_key import PlayerKey
from tests.support.api import ORGANIZER, Game, bearer
from tests.support.replay_cli import rechain

#: A seat to create: a person with a key (``PlayerKey``), a person without one (None), or a
#: bot of the kind named.
SeatSpec = PlayerKey | str | None
#: What a forger writes as the signature of a keyed seat's new move: ``(version, seat,
#: action)`` to a signature, or None for none at all.
Signer = Callable[[int, int, dict[str, Any]], str | None]
#: The seed every signed test game is made with (the organizer may choose it): the same seed
#: and the same choices make the same game, so a forgery found once is found every time.
SEED_HEX = "5e" * 32


@dataclass
class SignedGame(Game):
    """A ``Game`` whose posts carry the seat's signature when the seat has a key."""

    keys: list[PlayerKey | None] = field(default_factory=list)

    def key(self, seat: int) -> PlayerKey | None:
        return self.keys[seat] if seat < len(self.keys) else None

    def post(
        self,
        seat: int,
        action: dict[str, Any],
        version: int | None = None,
        command_id: str | None = None,
        *,
        wait: int = 30,
    ) -> Any:
        """As ``Game.post``, signed by the seat's key (unsigned for a seat without one)."""
        key = self.key(seat)
        if key is None:
            return super().post(seat, action, version, command_id, wait=wait)
        version = self.view()["version"] if version is None else version
        command_id = command_id or f"{seat}-{version}"
        return self.send(seat, key.signed_body(self.id, version, action, command_id), wait=wait)

    def send(self, seat: int, body: Any, *, wait: int = 30) -> Any:
        """Post ``body`` exactly as given, with the seat's token."""
        return self.client.post(
            f"/v1/games/{self.id}/actions?wait={wait}", json=body, headers=bearer(self.tokens[seat])
        )

    def export(self) -> list[dict[str, Any]]:
        """The game's export file, one stored event a line (the organizer's: any time)."""
        response = self.client.get(f"/v1/games/{self.id}/export", headers=bearer(ORGANIZER))
        assert response.status_code == 200, response.get_json()
        return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def player(number: int, spec: SeatSpec) -> dict[str, Any]:
    """The ``players[i]`` of ``POST /v1/games`` for ``spec``."""
    if isinstance(spec, PlayerKey):
        return {"name": f"p{number}", "public_key": spec.public_key}
    if isinstance(spec, str):
        return {"name": f"bot{number}", "bot": spec}
    return {"name": f"p{number}"}


def create_signed(
    client: FlaskClient,
    seats: Sequence[SeatSpec],
    *,
    game: str = "arktia",
    seed_hex: str = SEED_HEX,
    **extra: Any,
) -> SignedGame:
    """A game whose seats are ``seats`` (a key, None or a bot kind each), made with
    ``seed_hex`` by the organizer (so two games of the same seats and choices are alike)."""
    body = {
        "game": game,
        "players": [player(i, spec) for i, spec in enumerate(seats)],
        "seed": seed_hex,
        **extra,
    }
    response = client.post("/v1/games?wait=30", json=body, headers=bearer(ORGANIZER))
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    tokens = [s["token"] or "" for s in created["seats"]]
    keys = [spec if isinstance(spec, PlayerKey) else None for spec in seats]
    return SignedGame(client, created["id"], tokens, keys)


def actions_of(events: Sequence[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The events of ``seat``'s actions, in order."""
    return [e for e in events if e["actor"] == seat]


def game_over(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``data`` of the log's ``game_over``."""
    data: dict[str, Any] = next(e["data"] for e in events if e["type"] == GAME_OVER)
    return data


def unkeyed(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` with every public key and every signature taken out, re-hashed: what a
    game of unkeyed seats with the same moves would log. A forgery that verifies ``ok`` so
    is perfect in everything but the signatures."""
    plain = []
    for event in events:
        data = dict(event["data"])
        if event["type"] == "game_created":
            data["seats"] = [
                {k: v for k, v in seat.items() if k != "public_key"} for seat in data["seats"]
            ]
        if event["actor"] != SYSTEM:
            data.pop("signature", None)
        plain.append({**event, "data": data})
    return rechain(plain)


def copied_signature(events: Sequence[dict[str, Any]]) -> Signer:
    """The best a forger without the player's key can do: the signature the player gave at
    that version in the real game, or else any other of theirs (None if they never signed)."""
    by_version = {e["version"]: e for e in events}

    def signer(version: int, seat: int, action: dict[str, Any]) -> str | None:
        there = by_version.get(version)
        if there is not None and there["actor"] == seat and "signature" in there["data"]:
            return str(there["data"]["signature"])
        theirs = (e["data"].get("signature") for e in actions_of(events, seat))
        return next((str(s) for s in theirs if s is not None), None)

    return signer


def forge(
    events: Sequence[dict[str, Any]],
    version: int,
    chooser: random.Random,
    *,
    move: dict[str, Any] | None = None,
    signer: Signer | None = None,
    keep: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A forger's copy of a finished export (no clock, no bots): the log before ``version``
    kept, the action at ``version`` replaced by ``move`` (JSON; None: another legal move,
    picked by ``chooser``), then the game played on to its end. ``keep``: a later move of the
    real game is played again where it is still legal (same version, same seat), with its
    real signature; every other move is ``chooser``'s pick. A keyed seat's new moves get
    ``signer``'s signature (default: ``copied_signature``); draws follow from the revealed
    seed, which the forged ``game_over`` reveals again. Returns the log and the move put in.
    """
    first, replaced = events[0], events[version - 1]
    game_id = str(first["game_id"])
    rules = GAMES[first["data"]["game"]].rules
    seed = bytes.fromhex(events[-1]["data"]["seed"])
    keyed = {s["seat"] for s in first["data"]["seats"] if "public_key" in s}
    signer = signer or copied_signature(events)
    real = {e["version"]: e for e in events}
    state = play.fold(rules, game_id, [event_of(e) for e in events[: version - 1]])
    if move is None:
        logged = canonical_json(replaced["data"]["action"])
        choices = [
            a for a in _legal(rules, state, replaced["actor"]) if canonical_json(a) != logged
        ]
        move = chooser.choice(_no_retiring(choices))
    stored = [dict(e) for e in events[: version - 1]]
    put_in = move
    while not state.over:
        number = state.version + 1
        command_id = None
        draw = rules.pending_draw(state.board)
        if draw is not None:
            outcome = rng.draw(seed, game_id, number, draw.label, draw.kind, draw.n)
            new, after = play.resolve_draw_step(rules, state, outcome)
        else:
            was = real.get(number)
            seat, action, kept = _next(rules, state, was, move, chooser, keep)
            move = None
            signature = None
            if kept and was is not None:
                signature = was["data"].get("signature")  # the real move, really signed
            elif seat in keyed:
                signature = signer(number, seat, action)
            parsed = play.parse_action(rules, action)
            new, after = play.step(rules, state, seat, parsed, signature=signature)
            command_id = (
                str(was["command_id"]) if was and was["actor"] == seat else f"{seat}-f{number}"
            )
        if new[-1].type == GAME_OVER:  # the seed is revealed in the same append
            new = [*new, Event(SEED_REVEALED, SYSTEM, {"seed": seed.hex()})]
            after = play.apply(rules, after, new[-1])
        stamp = str(real.get(number, events[-1])["at"])
        sealed = seal(
            game_id,
            new,
            first_version=number,
            prev_hash=stored[-1]["hash"],
            at=stamp,
            command_id=command_id,
        )
        stored += [dict(e.to_json()) for e in sealed]
        state = after
    return stored, put_in


def _next(
    rules: Any,
    state: GameState[Any],
    was: dict[str, Any] | None,
    move: dict[str, Any] | None,
    chooser: random.Random,
    keep: bool,
) -> tuple[int, dict[str, Any], bool]:
    """Who moves, how, and whether it is the real game's move, kept."""
    to_act = play.to_act(rules, state)
    if move is not None:  # the replaced move: the seat that made the real one
        assert was is not None
        return int(was["actor"]), move, False
    if keep and was is not None and was["actor"] in to_act:
        logged = canonical_json(was["data"]["action"])
        if any(canonical_json(a) == logged for a in _legal(rules, state, was["actor"])):
            return int(was["actor"]), dict(was["data"]["action"]), True
    seat = chooser.choice(to_act)
    return seat, chooser.choice(_no_retiring(_legal(rules, state, seat))), False


def _legal(rules: Any, state: GameState[Any], seat: int) -> list[dict[str, Any]]:
    return [dict(a.to_json()) for a in play.legal_actions(rules, state, seat)]


def _no_retiring(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A forger keeps the game going: retiring only when nothing else is legal."""
    return [a for a in actions if a.get("type") != "retire"] or actions
