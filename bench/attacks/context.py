"""What the attacks share: their sizes, the ``floe run`` they take turns on, and a long
game (exported for the upload flood, pictured for the board flood)."""

from __future__ import annotations

import http.client
from dataclasses import dataclass, field
from typing import Any

from bench import policy
from service.api.replays import MAX_REPLAY_BYTES
from service.settings import Settings
from tests.support.floe_run import FloeRun, call

#: Where the long game is made: an address of its own.
LONG_GAME_ADDRESS = "127.0.9.1"
PEOPLE_2 = [{"name": "long-a"}, {"name": "long-b"}]


@dataclass(frozen=True)
class Sizes:
    """How big and how long each attack is. ``--quick`` shortens the phases and shrinks
    the floods of requests, not the connection attacks: below the API's capacity they would
    measure nothing."""

    probes: int = 200  # health and move requests timed per phase
    seconds: float = 60.0  # the most a phase lasts
    hold: float = 30.0  # the least an attacked phase lasts
    bot_replies: int = 40  # random-bot replies timed per phase
    upload_addresses: int = 3  # two junk uploads at once from each
    #: Connections from one address: far past its cap (128 per API process, two processes).
    slowloris: int = 2500
    streams: int = 2100  # idle live streams ...
    stream_addresses: int = 35  # ... from this many addresses
    read_ahead: int = 300  # bodies held short of their declared 2 MiB
    read_ahead_addresses: int = 6
    bot_games: int = 16  # four-seat all-mcts games from one address
    board_addresses: int = 4  # picture requests at the rate limit from each
    long_game: int = 6000  # scripted actions of the game exported and pictured

    @classmethod
    def quick(cls) -> Sizes:
        return cls(
            probes=40,
            seconds=20.0,
            hold=12.0,
            bot_replies=8,
            upload_addresses=1,
            board_addresses=2,
            long_game=2000,
        )


@dataclass
class Context:
    """One ``floe run`` the attacks take turns on, and what several of them share."""

    run: FloeRun
    sizes: Sizes
    organizer: str
    #: The service's settings as ``floe run`` reads them (it inherits our environment).
    settings: Settings = field(default_factory=Settings.from_env)
    #: What each attacker got, a line per attack, for the report.
    notes: list[str] = field(default_factory=list)
    _long: tuple[str, int, bytes] | None = None

    def long_game(self) -> tuple[str, int, bytes]:
        """A long two-person Arktia game, played by script (``bench.policy``) and ended by
        the organizer: its id, its last version and its export (a real, valid file; cut to
        a valid prefix if need be to fit an upload)."""
        if self._long is None:
            self._long = self._play_long_game()
        return self._long

    def _play_long_game(self) -> tuple[str, int, bytes]:
        port, source = self.run.port, LONG_GAME_ADDRESS
        body = {"game": "arktia", "players": PEOPLE_2, "options": policy.OPTIONS}
        status, game, _ = call(port, "POST", "/v1/games", body, source=source)
        assert status == 201, game
        game_id, tokens = game["id"], [seat["token"] for seat in game["seats"]]
        for version, step in enumerate(policy.script(27, self.sizes.long_game), start=1):
            move = {"action": step.action, "expected_version": version, "command_id": f"c{version}"}
            path = f"/v1/games/{game_id}/actions"
            reply = call(port, "POST", path, move, token=tokens[step.seat], source=source)
            assert reply[0] == 201, reply
        decision = {"decision": "result", "winners": [0], "reason": "long enough"}
        end_game(self, game_id, decision)
        view = call(port, "GET", f"/v1/games/{game_id}")[1]
        export = _raw_get(port, f"/v1/games/{game_id}/export")
        while len(export) > MAX_REPLAY_BYTES:  # a valid prefix: the file of a shorter game
            export = export[: export.rindex(b"\n", 0, len(export) - 1) + 1]
        return game_id, int(view["version"]), export


def _raw_get(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (response.status, body[:200])
        return body
    finally:
        connection.close()


def end_game(ctx: Context, game_id: str, decision: dict[str, Any]) -> None:
    """The organizer ends a game (again if a bot's move got in first: 409)."""
    path = f"/v1/games/{game_id}/decisions"
    for _ in range(20):
        if call(ctx.run.port, "POST", path, decision, token=ctx.organizer)[0] != 409:
            return
