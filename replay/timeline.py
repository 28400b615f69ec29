"""A game's stored events, audited and folded once, so the state at any version is a lookup.

States are immutable and share structure, so the timeline keeps every one: stepping back
and forth, or jumping anywhere, never folds again. Each event is folded with the time it was
stored at (its ``at``), so a game played against a clock has every seat's clock right at
every version (``GameState.clocks``), as the service and the audit compute it.

A timeline holds only what the audit (``replay.verify``) passed: every version of an ``ok`` or
``incomplete`` log, and of a ``failed`` one the versions before the first failure. The
``banner`` says, in a few lines for a person, why any were left out, that a log is
incomplete, or that its seed does not open its commitment (then nothing random in it is
proven). A log with nothing to show (empty, unreadable first event) raises ``TimelineError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine import play
from domain.engine.departures import DECISION, RESIGN, TIMEOUT
from domain.engine.game import Scene
from domain.engine.log import event_of
from domain.engine.rules import Rules
from domain.engine.types import GameCreated, GameState, SeatInfo
from domain.games import GAMES
from replay import source
from replay.tournament.audit import is_manifest_line
from replay.tournament.pick import Choice, NoGameChosen, game_lines
from replay.verify import Verdict, audit_lines, seed_problem, verify


class TimelineError(ValueError):
    """Nothing of the log can be shown: empty, or its first event fails the audit."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """Versions 1 to ``last`` of one game: its stored event and the state after it.

    ``size`` is how many events the log holds (more than ``last`` when the audit failed);
    ``verdict`` is the audit's; ``banner`` is what a person must read before trusting what is
    shown (empty for an ``ok`` log).
    """

    game_id: str
    game: str
    rules: Rules[Any]
    events: tuple[Mapping[str, Any], ...]
    states: tuple[GameState[Any], ...]
    verdict: Verdict | None = None
    size: int = 0
    banner: tuple[str, ...] = ()

    @property
    def last(self) -> int:
        return len(self.states)

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self.states[0].created.seats

    def clamp(self, version: int) -> int:
        """``version`` pulled into 1..last."""
        return max(1, min(self.last, version))

    def refusal(self, version: int) -> str:
        """Why ``version`` cannot be shown (it is outside 1..last)."""
        if 1 <= version <= self.size and self.banner:
            return f"version {version} cannot be shown: {self.banner[0]}"
        shown = "" if self.last == self.size else f" (1..{self.last} can be shown)"
        return f"no version {version}: the log has 1..{self.size}{shown}"

    def _index(self, version: int) -> int:
        if not 1 <= version <= self.last:
            raise IndexError(f"version {version} is not in 1..{self.last}")
        return version - 1

    def state(self, version: int) -> GameState[Any]:
        """The state right after event ``version``."""
        return self.states[self._index(version)]

    def event(self, version: int) -> Mapping[str, Any]:
        """The stored event (with its envelope: ``at``, ``actor``…) that made ``version``."""
        return self.events[self._index(version)]

    def view(self, version: int) -> dict[str, Any]:
        """The board at ``version`` as JSON, as a spectator sees it."""
        return dict(self.rules.view(self.state(version).board, None))

    def status(self, version: int) -> str:
        return play.status(self.rules, self.state(version))

    def scene(self, version: int, title: str = "") -> Scene:
        """What the game's pictures draw at ``version``: the spectator's view, the seat names,
        the action that made this version (if a seat's) and the outcome once over."""
        outcome = self.state(version).outcome
        return Scene.of(
            self.view(version),
            names=[seat.name for seat in self.seats],
            event=self.event(version),
            outcome=None if outcome is None else outcome.to_json(),
            title=title,
        )

    def to_act(self, version: int) -> tuple[int, ...]:
        return play.to_act(self.rules, self.state(version))

    def departures(self, version: int) -> dict[int, str]:
        """The seats that have left by ``version``, in the order they left, each with how:
        ``resigned``, ``timed out`` or ``forfeited`` (an organizer's decision)."""
        how: dict[int, str] = {}
        for stored in self.events[: self._index(version) + 1]:
            gone = departure(stored)
            if gone is not None:
                how[gone[0]] = gone[1]
        return {seat: how.get(seat, "left") for seat in self.state(version).left}

    def seat_name(self, actor: object) -> str:
        """``seat 1 (alice)`` for a seat number, the actor itself otherwise (``system``)."""
        if isinstance(actor, int) and 0 <= actor < len(self.seats):
            return f"seat {actor} ({self.seats[actor].name})"
        return str(actor)


def departure(stored: Mapping[str, Any]) -> tuple[int, str] | None:
    """The seat a stored ``resign``, ``timeout`` or ``forfeit`` decision takes out of the
    game, and how (``resigned``, ``timed out``, ``forfeited``); None for any other event."""
    kind, data = stored.get("type"), stored.get("data")
    data = data if isinstance(data, Mapping) else {}
    if kind == RESIGN:
        seat, how = stored.get("actor"), "resigned"
    elif kind == TIMEOUT:
        seat, how = data.get("seat"), "timed out"
    elif kind == DECISION and data.get("decision") == "forfeit":
        seat, how = data.get("seat"), "forfeited"
    else:
        return None
    if not isinstance(seat, int) or isinstance(seat, bool):
        return None
    return seat, how


def from_events(
    events: Sequence[Any],
    verdict: Verdict | None = None,
    *,
    size: int | None = None,
    bot_replay: bool = True,
) -> Timeline:
    """Audit stored events (JSON, in log order; ``verdict`` if already audited, else with
    ``bot_replay`` or not) and fold every version the audit passed into a timeline."""
    events = list(events)
    verdict = verify(events, bot_replay=bot_replay) if verdict is None else verdict
    size = len(events) if size is None else size
    usable = len(events)
    if verdict.status == "failed":
        usable = min(usable, (verdict.version or 1) - 1)
    if usable < 1:
        raise TimelineError(_nothing(verdict))
    first = events[0]
    rules = GAMES[first["data"]["game"]].rules  # the audit passed event 1: all of this holds
    game_id = str(first["game_id"])
    states: list[GameState[Any]] = []
    folded = ""
    for stored in events[:usable]:
        at = stored.get("at")  # a clocked game's clocks run on the events' times
        at = at if isinstance(at, str) else None
        try:
            if states:
                states.append(play.apply(rules, states[-1], event_of(stored), at))
            else:
                created = GameCreated.from_json(stored["data"])  # the audit passed event 1
                states.append(play.new_game(rules, game_id, created, at))
        except Exception as error:  # the audit passed it, so this is a bug, not tampering
            folded = f"event {len(states) + 1} cannot be folded ({type(error).__name__})"
            break
    if not states:
        raise TimelineError(f"{folded}; nothing can be shown")
    kept = tuple(events[: len(states)])
    lines = banner(verdict, size, seed_problem(events), folded, len(states))
    return Timeline(
        game_id, first["data"]["game"], rules, kept, tuple(states), verdict, size, lines
    )


def load(
    name: str,
    open_store: source.OpenStore | None = None,
    *,
    bot_replay: bool = True,
    choice: Choice | None = None,
) -> Timeline:
    """The timeline of a game named by export file, or by id with ``REDIS_URL`` (audited with
    ``bot_replay`` or not); of a tournament export, the game ``choice`` names.

    ``OSError`` if the file cannot be read, ``source.StoreError`` if the store has no such
    game, ``TimelineError`` if nothing of it can be shown, ``NoGameChosen`` (a
    ``ValueError``) for a tournament export when ``choice`` names none of its games.
    """
    lines = source.read(name, open_store)
    if lines and is_manifest_line(lines[0]):
        lines = game_lines(lines, choice or Choice())
    elif choice is not None and choice.made:
        raise NoGameChosen("--game, --round and --table choose a game of a tournament export")
    verdict, events = audit_lines(lines, bot_replay=bot_replay)
    return from_events(events, verdict, size=sum(1 for line in lines if line.strip()))


def banner(
    verdict: Verdict, size: int, wrong_seed: str | None, folded: str = "", shown: int = 0
) -> tuple[str, ...]:
    """What a person must know about a log before reading any version of it."""
    lines = []
    if verdict.status == "failed" and verdict.version is not None:
        stop = verdict.version
        later = (
            f"version {stop} cannot be shown"
            if stop >= size
            else f"versions {stop} and later cannot be shown"
        )
        lines.append(f"verification failed at version {stop}: {verdict.reason}; {later}")
    elif verdict.status == "incomplete":
        lines.append(
            f"incomplete: the log ends at version {size} before its seed is revealed; every "
            "version verifies so far, but the random draws cannot be checked and there is no "
            "final result"
        )
    if folded:
        lines.append(f"{folded}; versions {shown + 1} and later cannot be shown")
    if verdict.bots is not None and verdict.bots.status == "skipped":
        lines.append(
            "bot replay skipped: the bots' moves are legal, but not proven to be the moves "
            "their bots make (floe replay verify without --no-bot-replay proves it)"
        )
    if wrong_seed is not None:
        lines.append(
            f"this file is not trustworthy: {wrong_seed}, so none of its random outcomes is proven"
        )
    return tuple(lines)


def printable(line: str) -> str:
    """``line`` safe to print on a terminal: colour codes (``ESC [ … m``) are kept, any other
    control character a log smuggled into a name, a type or a time (a cursor move, an OSC
    title, a bell) is shown as ``?``."""
    return _UNSAFE.sub(lambda match: match.group(1) or "?", line)


_UNSAFE = re.compile(r"(\x1b\[[0-9;]*m)|[\x00-\x1f\x7f-\x9f]")


def _nothing(verdict: Verdict) -> str:
    if verdict.version is None:
        return f"{verdict.reason or 'the log is empty'}; nothing can be shown"
    return (
        f"verification failed at version {verdict.version}: {verdict.reason}; nothing can be shown"
    )
