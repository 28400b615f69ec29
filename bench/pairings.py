"""(j) Pairings: seat balance and repeated tables over simulated events, before and after.

``python -m bench --only j`` (or ``python -m bench.pairings``). In process, no service: each
event is played round after round with random results through ``Plan.next_round``, once at
tournament rules version 1, the pairings as they were before seat balancing
(``domain.tournament.v1``, commit 1b50e23's rules, kept in the domain for the tournaments made
with them: ranked by points then number, seats by the ranking) and once at the current rules
version (ranked by points then the default tie-breaks, seats balanced). Three formats,
``--events`` events each (200; ``--quick`` 40), every size drawn from one seeded generator:

- **swiss, even field**: tables of 2, 6 to 40 players (even), 3 to ``min(15, players - 1)``
  rounds (up to the most a plan allows, ``players - 1``, for the fields of 16 or fewer);
- **swiss, odd field**: tables of 2, 5 to 39 players (odd, one bye a round), 3 to
  ``min(15, players)`` rounds (the most allowed is ``players``);
- **round robin**: 3 to 16 players (before: the circle method, seats by the parity of the
  pair; after: FIDE's Berger tables).

A game's result is drawn from the event's own generator, the same sequence before and after:
the first seat wins 45 %, the second 45 %, both share the win 7 %, nobody wins 3 %.

Reported per format, before and after: the share of players (over every player of every
event) whose first and second seats differ by more than 2 at the end; how many games were a
player's third (or later) first seat in a row, and likewise second seats (a player's games
in order, byes skipped); and how many tables repeated a table of an earlier round of the same
event. Also the mean time to make a round.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.report import Report, Result
from domain.tournament import v1
from domain.tournament.plan import RULES_VERSION, Plan, PlayedRound
from domain.tournament.rounds import Round

GROUP = "(j) pairings"
RESULTS = Path(__file__).resolve().parent / "results"
FORMATS = ("swiss, even field", "swiss, odd field", "round robin")

Log = Callable[[str], None]


@dataclass(frozen=True)
class Config:
    """Every size of (j); ``quick()`` is ``--quick``'s."""

    events: int = 200
    seed: int = 0

    @classmethod
    def quick(cls) -> Config:
        return cls(events=40)


@dataclass(frozen=True)
class Shape:
    format: str
    players: int
    rounds: int
    seed: int


@dataclass
class Tally:
    """What one algorithm did over the events of one format."""

    players: int = 0
    unbalanced: int = 0
    three_firsts: int = 0
    three_seconds: int = 0
    repeated: int = 0
    tables: int = 0
    rounds: int = 0
    seconds: float = 0.0

    def add(self, rounds: Sequence[Round], players: int, elapsed: float) -> None:
        self.players += players
        self.rounds += len(rounds)
        self.seconds += elapsed
        seats: dict[int, list[int]] = {p: [] for p in range(players)}
        seen: set[frozenset[int]] = set()
        for round_ in rounds:
            for t in round_.tables:
                self.tables += 1
                key = frozenset(t.players)
                self.repeated += key in seen
                seen.add(key)
                for seat, player in enumerate(t.players):
                    seats[player].append(seat)
        for history in seats.values():
            firsts = history.count(0)
            self.unbalanced += abs(firsts - (len(history) - firsts)) > 2
            for i in range(2, len(history)):
                run = history[i - 2 : i + 1]
                self.three_firsts += run == [0, 0, 0]
                self.three_seconds += run == [1, 1, 1]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "players_unbalanced": self.unbalanced,
            "share_unbalanced_pct": 100 * self.unbalanced / self.players if self.players else 0,
            "three_firsts_in_a_row": self.three_firsts,
            "three_seconds_in_a_row": self.three_seconds,
            "repeated_tables": self.repeated,
            "tables": self.tables,
            "rounds": self.rounds,
            "ms_per_round": 1000 * self.seconds / self.rounds if self.rounds else 0,
        }


def shapes(format: str, config: Config) -> list[Shape]:
    """The events of one format: sizes drawn from a generator seeded by the format."""
    rng = random.Random(f"{config.seed}/{format}")
    drawn = []
    for _ in range(config.events):
        if format == "swiss, even field":
            players = rng.randrange(6, 41, 2)
            rounds = rng.randint(3, min(15, players - 1))
        elif format == "swiss, odd field":
            players = rng.randrange(5, 40, 2)
            rounds = rng.randint(3, min(15, players))
        else:
            players = rng.randint(3, 16)
            rounds = players - 1 + players % 2
        drawn.append(Shape(format, players, rounds, rng.getrandbits(32)))
    return drawn


def winners(rng: random.Random) -> tuple[int, ...]:
    draw = rng.random()
    if draw < 0.45:
        return (0,)
    if draw < 0.90:
        return (1,)
    return (0, 1) if draw < 0.97 else ()


def play(shape: Shape, rules_version: str) -> list[Round]:
    """The event through ``Plan.next_round`` at ``rules_version``."""
    rng = random.Random(shape.seed)
    robin = shape.format == "round robin"
    plan = Plan.of(
        "round_robin" if robin else "swiss",
        shape.players,
        2,
        shape.rounds,
        rules_version=rules_version,
    )
    played: list[PlayedRound] = []
    for _ in range(plan.rounds):
        current = plan.next_round(played)
        played.append(PlayedRound(current, tuple(winners(rng) for _ in current.tables)))
    return [p.round for p in played]


def play_before(shape: Shape) -> list[Round]:
    """The event with the pairings of before: rules version 1 (points, then number; seats by
    the ranking)."""
    return play(shape, v1.VERSION)


def play_after(shape: Shape) -> list[Round]:
    """The event with the pairings of now: the current rules version."""
    return play(shape, RULES_VERSION)


def measure(config: Config, log: Log) -> dict[str, dict[str, Any]]:
    """Every format's events, both ways: per format, ``before`` and ``after`` tallies."""
    found: dict[str, dict[str, Any]] = {}
    for format in FORMATS:
        events = shapes(format, config)
        log(f"(j) {format}: {len(events)} events, before and after")
        tallies = {"before": Tally(), "after": Tally()}
        for shape in events:
            for name, play in (("before", play_before), ("after", play_after)):
                began = time.perf_counter()
                rounds = play(shape)
                tallies[name].add(rounds, shape.players, time.perf_counter() - began)
        found[format] = {
            "events": len(events),
            "players": [min(s.players for s in events), max(s.players for s in events)],
            "rounds": [min(s.rounds for s in events), max(s.rounds for s in events)],
            **{name: tally.to_json() for name, tally in tallies.items()},
        }
    return found


def run(report: Report, *, config: Config, log: Log) -> None:
    """(j)'s figures into ``report``: per format, each count before and after."""
    found = measure(config, log)
    for format, figures in found.items():
        for when in ("before", "after"):
            tally = figures[when]
            note = f"{figures['events']} events, {tally['players']} players"
            report.add(
                Result(
                    GROUP,
                    f"{format}: players |firsts - seconds| > 2, {when}",
                    tally["share_unbalanced_pct"],
                    "%",
                    note=note,
                )
            )
            for key, label in (
                ("three_firsts_in_a_row", "third first seat in a row"),
                ("three_seconds_in_a_row", "third second seat in a row"),
                ("repeated_tables", "repeated tables"),
            ):
                report.add(Result(GROUP, f"{format}: {label}, {when}", tally[key], "games"))
            report.add(
                Result(GROUP, f"{format}: time per round, {when}", tally["ms_per_round"], "ms")
            )
    report.details["pairings"] = {"config": asdict(config), "formats": found}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pairings", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="40 events per format")
    parser.add_argument("--events", type=int, default=None, help="events per format (200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=RESULTS / "pairings.json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    config = Config.quick() if args.quick else Config()
    config = Config(args.events or config.events, args.seed)
    report = Report()
    run(report, config=config, log=lambda message: print(message, file=sys.stderr))
    report.write(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
