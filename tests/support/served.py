"""The API served for real (gunicorn, gevent workers, as `floe run` serves it), clients with
their own connections, games played through it, and the invariants every log must keep."""

from __future__ import annotations

import http.client
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from domain.engine import play
from domain.engine.log import StoredEvent
from domain.engine.types import SYSTEM, GameState
from domain.games import GAMES
from replay.verify import Verdict, verify
from service.store.events import RedisEventStore, events_key
from tests.support.waiting import PROMPTLY

ORGANIZER = "faults-organizer-token"


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def code(self) -> str | None:
        """The stable error code of an error reply."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"]["code"])
        return None


class Http:
    """One keep-alive HTTP/1.1 connection to the served API; give each thread its own."""

    def __init__(self, port: int, *, timeout: float = PROMPTLY) -> None:
        self._port = port
        self._timeout = timeout
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def close(self) -> None:
        self._connection.close()

    def request(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> Reply:
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        # A keep-alive connection the server closed while idle fails before the request is
        # read: reconnect and send it again (every POST here carries a command_id anyway).
        for attempt in range(2):
            try:
                self._connection.request(method, path, payload, headers)
                response = self._connection.getresponse()
                raw = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionError, http.client.BadStatusLine):
                self._connection.close()
                self._connection = http.client.HTTPConnection(
                    "127.0.0.1", self._port, timeout=self._timeout
                )
                if attempt == 1:
                    raise
        kind = response.getheader("Content-Type", "")
        parsed: Any = json.loads(raw) if kind.startswith("application/json") else raw.decode()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, parsed)

    def get(self, path: str, *, token: str | None = None) -> Reply:
        return self.request("GET", path, token=token)

    def post(self, path: str, body: Any, *, token: str | None = None) -> Reply:
        return self.request("POST", path, body, token=token)


@dataclass
class ServedApi:
    """A gunicorn process serving the app, as ``floe run`` starts it."""

    process: subprocess.Popen[bytes]
    port: int

    def http(self) -> Http:
        return Http(self.port)


ServeApi = Callable[..., ServedApi]


@dataclass
class Played:
    """A game created through the served API, with its seat tokens."""

    id: str
    tokens: list[str | None]
    accepted: list[dict[str, Any]] = field(default_factory=list)  # events answered 201


def create_game(
    http: Http,
    game: str = "arktia",
    bots: list[str | None] | None = None,
    options: dict[str, Any] | None = None,
) -> Played:
    bots = bots or [None, None]
    players = [{"name": f"p{i}", **({"bot": b} if b else {})} for i, b in enumerate(bots)]
    body = {"game": game, "players": players, "options": options or {}}
    reply = http.post("/v1/games", body)
    assert reply.status == 201, reply.body
    return Played(reply.body["id"], [seat["token"] for seat in reply.body["seats"]])


def prefer_moves(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Arktia's moves keep a game going for hundreds of versions; places and retires end it."""
    moves = [a for a in actions if a["type"] == "move"]
    return moves or [a for a in actions if a["type"] != "retire"] or actions


def finish(http: Http, game: Played) -> None:
    """End the game: the seat to act retires (or takes its first legal action)."""
    for _ in range(50):
        view = http.get(f"/v1/games/{game.id}").body
        if view["status"] == "over":
            return
        seat = view["to_act"][0]
        legal = http.get(f"/v1/games/{game.id}/legal-actions", token=game.tokens[seat]).body
        retire = [a for a in legal["actions"] if a["type"] == "retire"]
        body = {
            "action": (retire or legal["actions"])[0],
            "expected_version": legal["version"],
            "command_id": f"end-{legal['version']}",
        }
        reply = http.post(f"/v1/games/{game.id}/actions", body, token=game.tokens[seat])
        assert reply.status == 201, reply.body
    raise AssertionError("the game did not end")


def stored_log(client: redis.Redis, game_id: str) -> list[StoredEvent]:
    """The game's stream, checked: entry ids ``0-1, 0-2, …`` match versions with no gaps."""
    entries: Any = client.xrange(events_key(game_id))
    ids = [entry_id.decode() for entry_id, _ in entries]
    assert ids == [f"0-{v}" for v in range(1, len(ids) + 1)], f"gaps or duplicates: {ids}"
    events = RedisEventStore(client).read(game_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    commands = [(e.actor, e.command_id) for e in events if e.actor != SYSTEM]
    assert len(commands) == len(set(commands)), "a command was written twice"
    return events


def audit(events: list[StoredEvent]) -> Verdict:
    """The replay audit (hash chain, versions, seed, legality of every action)."""
    return verify([e.to_json() for e in events])


def refold(game: str, events: list[StoredEvent]) -> list[GameState[Any]]:
    """The state at every version, folded from the stream alone (index 0 is version 1)."""
    rules = GAMES[game].rules
    states = [play.fold(rules, events[0].game_id, [events[0].event])]
    for stored in events[1:]:
        states.append(play.apply(rules, states[-1], stored.event))
    return states


def public_view(game: str, state: GameState[Any]) -> dict[str, Any]:
    """The parts of a spectator's view that come from the folded state."""
    rules = GAMES[game].rules
    return {
        "version": state.version,
        "status": play.status(rules, state),
        "to_act": list(play.to_act(rules, state)),
        "state": rules.view(state.board, None),
        "outcome": None if state.outcome is None else state.outcome.to_json(),
    }


def served_view(reply: Reply) -> dict[str, Any]:
    assert reply.status == 200, reply.body
    return {k: reply.body[k] for k in ("version", "status", "to_act", "state", "outcome")}


def acknowledged(event: dict[str, Any]) -> tuple[Any, ...]:
    """What a 201 answer said about an event, to compare with the stored one."""
    return tuple(event[k] for k in ("version", "type", "actor", "data", "at", "command_id"))


def stored(event: StoredEvent) -> tuple[Any, ...]:
    return acknowledged(event.to_json())
