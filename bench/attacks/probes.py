"""The honest clients the attacks are measured by: health, a person's Arktia move, a random
bot's reply, and the API's memory.

Each probe is one measurement: a request's seconds, or the API's resident bytes. A request
that fails (no answer within ``PROBE_TIMEOUT``, or the wrong status) still counts its
seconds and is recorded as failed: an attack that makes honest requests fail must not look
fast for it.
"""

from __future__ import annotations

import http.client
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.floe_run import FloeRun, Reply, call, process_tree, rss_bytes

#: Seconds an honest request may take before it counts as failed (and the probe moves on).
PROBE_TIMEOUT = 10.0
#: How often the bot-reply probe looks whether the bot has answered.
POLL_SECONDS = 0.02
HONEST = "127.0.0.1"
#: The random-bot game's address: not the flood's, and not the other probes'.
BOT_PLAYER = "127.0.0.20"
PERSON = {"name": "person"}


class Failed(Exception):
    """An honest request that did not get the answer it should have."""


@dataclass
class Samples:
    """One probe's measurements in one phase, and how many of them failed."""

    values: list[float] = field(default_factory=list)
    failed: int = 0
    #: Why they failed: the error's type and the first words of what it said.
    why: Counter[str] = field(default_factory=Counter)

    def add(self, sample: Callable[[], float]) -> None:
        started = time.perf_counter()
        try:
            self.values.append(sample())
        except (Failed, OSError, http.client.HTTPException, ValueError, KeyError) as error:
            self.values.append(time.perf_counter() - started)
            self.failed += 1
            self.why[f"{type(error).__name__}: {str(error)[:80]}"] += 1


@dataclass(frozen=True)
class Probe:
    """What an attack is judged by: ``sample`` measures once; ``passes`` judges the idle
    and the attacked samples against ``target``. A background probe samples (every
    ``pace`` seconds) for as long as the request probes run; the others ``count`` times."""

    name: str
    sample: Callable[[], float]
    target: str
    passes: Callable[[Samples, Samples], bool]
    unit: str = "ms"
    count: int = 0
    background: bool = False
    pace: float = 0.0


def under(seconds: float) -> Callable[[Samples, Samples], bool]:
    """The attacked p99 under ``seconds``, and no honest request failed."""
    return lambda _idle, attacked: not attacked.failed and p99(attacked.values) < seconds


def growth_under(limit: int) -> Callable[[Samples, Samples], bool]:
    """The most memory measured under attack at most ``limit`` bytes above the idle median."""
    return lambda idle, attacked: max(attacked.values) - median(idle.values) < limit


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.99 * len(ordered)) - 1)] if ordered else float("nan")


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


def _answer(reply: Reply, status: int) -> Reply:
    if reply[0] != status:
        raise Failed(f"{reply[0]} {reply[1]}")
    return reply


def _call(port: int, method: str, path: str, body: object = None, **kw: str) -> Reply:
    return call(port, method, path, body, timeout=PROBE_TIMEOUT, **kw)


def health(port: int) -> float:
    """Seconds for ``GET /v1/health`` to answer 200."""
    started = time.perf_counter()
    _answer(_call(port, "GET", "/v1/health"), 200)
    return time.perf_counter() - started


class Seats:
    """An Arktia game of people and bots from one address, replaced when it ends: the seats
    ``tokens`` names are the people's."""

    def __init__(self, port: int, source: str, players: list[dict[str, str]]) -> None:
        self.port, self.source, self.players = port, source, players
        self.id, self.tokens = self._new()

    def _new(self) -> tuple[str, dict[int, str]]:
        body = {"game": "arktia", "players": self.players}
        _, game, _ = _answer(_call(self.port, "POST", "/v1/games", body, source=self.source), 201)
        seats = enumerate(game["seats"])
        return game["id"], {n: seat["token"] for n, seat in seats if seat["token"]}

    def view(self) -> dict[str, Any]:
        path = f"/v1/games/{self.id}"
        view: dict[str, Any] = _answer(_call(self.port, "GET", path, source=self.source), 200)[1]
        return view

    def person_to_act(self) -> int | None:
        """A person's seat that is to act now; None once the game is over (a new one then)."""
        view = self.view()
        if view["status"] == "over":
            self.id, self.tokens = self._new()
            view = self.view()
        for seat in view["to_act"]:
            if seat in self.tokens:
                return int(seat)
        return None

    def move(self, seat: int) -> tuple[float, int]:
        """Play ``seat``'s first legal action: the ``POST``'s seconds and the new version."""
        token = self.tokens[seat]
        path = f"/v1/games/{self.id}/legal-actions"
        legal = _answer(_call(self.port, "GET", path, token=token, source=self.source), 200)[1]
        body = {
            "action": legal["actions"][0],
            "expected_version": legal["version"],
            "command_id": f"m{legal['version']}",
        }
        started = time.perf_counter()
        path = f"/v1/games/{self.id}/actions"
        reply = _call(self.port, "POST", path, body, token=token, source=self.source)
        _, accepted, _ = _answer(reply, 201)
        return time.perf_counter() - started, int(accepted["version"])


class PersonMoves:
    """A person's move in a two-person game: the ``POST`` alone is timed."""

    def __init__(self, port: int) -> None:
        self.game = Seats(port, HONEST, [{"name": "a"}, {"name": "b"}])

    def __call__(self) -> float:
        seat = self.game.person_to_act()
        if seat is None:
            raise Failed("no person to act in a game of people")
        return self.game.move(seat)[0]


class BotReplies:
    """A person against a random bot: from the person's ``POST`` until the game shows the
    person to act again (the bot has moved), or over."""

    def __init__(self, port: int) -> None:
        players = [PERSON, {"name": "bot", "bot": "random"}]
        self.game = Seats(port, BOT_PLAYER, players)

    def __call__(self) -> float:
        deadline = time.monotonic() + PROBE_TIMEOUT
        while True:
            seat = self.game.person_to_act()
            if seat is None:  # the bot's turn (it moves first, or still thinks)
                if time.monotonic() > deadline:
                    raise Failed("the bot never let the person act")
                time.sleep(POLL_SECONDS)  # a poll's pace: the condition decides
                continue
            started = time.perf_counter()
            _, version = self.game.move(seat)
            view = self.game.view()
            if view["version"] == version and seat in view["to_act"]:
                continue  # the person moves again: no bot turn yet
            break
        while not self._answered(view, version):
            if time.perf_counter() - started > PROBE_TIMEOUT:
                raise Failed("the bot did not reply in time")
            time.sleep(POLL_SECONDS)
            view = self.game.view()
        return time.perf_counter() - started

    def _answered(self, view: dict[str, Any], version: int) -> bool:
        """The bot has moved after ``version`` and a person is to act, or the game is over."""
        people = set(self.game.tokens)
        to_act = people.intersection(view["to_act"])
        return view["status"] == "over" or (view["version"] > version and bool(to_act))


def api_memory(run: FloeRun) -> Callable[[], float]:
    """The API's resident bytes: its gunicorn master and every process under it."""

    def sample() -> float:
        for _ in range(5):  # a process may end between listing and reading it
            try:
                return float(rss_bytes(process_tree(run.api_pid())))
            except FileNotFoundError:
                continue
        raise Failed("the API's processes kept changing")

    return sample
