"""One run of every attack against one ``floe run``, honest probes idle and attacked, one
table (``python -m bench.attacks --help``).

Per attack: the service is checked healthy, the probes run on the idle service, the attack
ramps up and the same probes run under it (at most ``--seconds``), then it is torn down and
the service must answer health again before the next. The probes of every attack are
``/v1/health`` and a person's Arktia move (its ``POST`` alone), alternating; an attack may
add its own (a random bot's reply, the API's memory), sampled beside them in a thread.

The machine is shared and noisy: the idle figures are measured in the same run, just
before, so the ratio says what the attack costs even when the absolute times drift.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.attacks.catalog import ATTACKS, NAMES, Attack
from bench.attacks.context import Context, Sizes
from bench.attacks.probes import (
    PROBE_TIMEOUT,
    PersonMoves,
    Probe,
    Samples,
    health,
    median,
    p99,
    under,
)
from tests.support.floe_run import FloeRun, floe_run
from tests.support.waiting import AT_LENGTH, wait_until

#: The honest probes' target: p99 under this many seconds under every attack.
P99_TARGET = 0.25
#: The quickest the main probes go round: 4 requests (a move is 3) per 25 ms, 160/s, is
#: well within the honest address's rate limit (30,000 a minute by default).
PROBE_PACE = 0.025


def service_env(organizer: str) -> dict[str, str]:
    """Every limit at its default, so the attacks meet the defences an operator gets:
    ``FLOE_WEB_CONNECTIONS`` too (raising it would let the stream attack hold more, and
    lowering it would hide what the default allows). The organizer token ends the bot
    flood's games at teardown."""
    return {"FLOE_ORGANIZER_TOKEN": organizer}


@dataclass
class Row:
    attack: str
    probe: Probe
    idle: Samples
    attacked: Samples

    def cells(self) -> list[str]:
        show = _mb if self.probe.unit == "MB" else _ms
        calm, hostile = self.idle.values, self.attacked.values
        ratio = p99(hostile) / p99(calm) if calm and hostile and p99(calm) else float("nan")
        verdict = "yes" if self.probe.passes(self.idle, self.attacked) else "**no**"
        if self.attacked.failed:
            verdict += f" ({self.attacked.failed} of {len(hostile)} failed)"
        return [
            self.attack,
            self.probe.name,
            f"{show(median(calm))} / {show(p99(calm))}",
            f"{show(median(hostile))} / {show(p99(hostile))} (n={len(hostile)})",
            f"{ratio:.2f}",
            self.probe.target,
            verdict,
        ]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _mb(size: float) -> str:
    return f"{size / 1e6:.0f} MB"


def phase(
    main: list[Probe], extra: list[Probe], count: int, seconds: float, hold: float = 0.0
) -> list[Samples]:
    """Each main probe in turn, ``count`` times and for at least ``hold`` seconds (an attack
    gets time to bite), at most ``seconds``; each extra one in a thread meanwhile: ``count``
    of its own times, or (background) until the main ones end. One round of the main probes
    every ``PROBE_PACE`` at most: the honest address stays well within its rate limit."""
    started = time.monotonic()
    deadline = started + seconds
    done = threading.Event()
    results = [Samples() for _ in main + extra]
    threads = [
        threading.Thread(target=_sample, args=(probe, samples, done, deadline), daemon=True)
        for probe, samples in zip(extra, results[len(main) :], strict=True)
    ]
    for thread in threads:
        thread.start()
    rounds = 0
    while rounds < count or time.monotonic() < started + hold:
        if time.monotonic() > deadline:
            break
        began = time.monotonic()
        for probe, samples in zip(main, results[: len(main)], strict=True):
            samples.add(probe.sample)
        rounds += 1
        done.wait(max(0.0, PROBE_PACE - (time.monotonic() - began)))
    done.set()
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()) + 2 * PROBE_TIMEOUT)
    return results


def _sample(probe: Probe, samples: Samples, done: threading.Event, deadline: float) -> None:
    while time.monotonic() < deadline:
        enough = done.is_set() if probe.background else len(samples.values) >= probe.count
        if enough and samples.values:
            return
        samples.add(probe.sample)
        if probe.pace:
            done.wait(probe.pace)


def settle(run: FloeRun) -> float:
    """Seconds until the service answers health (the last attack torn down)."""
    started = time.monotonic()
    wait_until(run.healthy, AT_LENGTH, "floe run to answer /v1/health after an attack")
    return time.monotonic() - started


def run_attack(ctx: Context, attack: Attack, main: list[Probe]) -> list[Row]:
    """One attack: idle probes, the attack on, the same probes, the attack torn down."""
    sizes = ctx.sizes
    attack.prepare(ctx)
    extra = attack.probes(ctx)
    _log(f"{attack.name}: idle probes")
    idle = phase(main, extra, sizes.probes, sizes.seconds)
    _log(f"{attack.name}: attacking ({attack.what})")
    with attack.start(ctx) as summary:
        attacked = phase(main, extra, sizes.probes, sizes.seconds, sizes.hold)
        said = summary()
    healthy_after = settle(ctx.run)
    _log(f"{attack.name}: {said}; healthy again {healthy_after:.1f} s after teardown")
    ctx.notes.append(f"- **{attack.name}** ({attack.what}): {said}")
    rows = [
        Row(attack.name, probe, calm, hostile)
        for probe, calm, hostile in zip(main + extra, idle, attacked, strict=True)
    ]
    for row in rows:
        for samples, when in ((row.idle, "idle"), (row.attacked, "attacked")):
            for why, n in samples.why.most_common(3):
                ctx.notes.append(f"  - {row.probe.name}, {when}, failed x{n}: {why}")
    return rows


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def table(rows: list[Row]) -> str:
    head = ["attack", "probe", "idle p50 / p99", "attacked p50 / p99", "p99 ratio"]
    lines = ["| " + " | ".join([*head, "target", "pass"]) + " |", "|---" * 7 + "|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.attacks", description=__doc__)
    parser.add_argument(
        "--only",
        type=lambda text: [name.strip() for name in text.split(",") if name.strip()],
        default=NAMES,
        help=f"attacks to run, comma-separated, in this order: {','.join(NAMES)}",
    )
    parser.add_argument(
        "--quick", action="store_true", help="short phases, smaller floods of requests"
    )
    parser.add_argument("--probes", type=int, help="health and move requests timed per phase")
    parser.add_argument("--seconds", type=float, help="the most a phase lasts")
    parser.add_argument("--hold", type=float, help="the least an attacked phase lasts")
    parser.add_argument(
        "--size",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other size, e.g. slowloris=200: " + ", ".join(Sizes.__dataclass_fields__),
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only) - set(NAMES))
    if unknown:
        parser.error(f"no attack {', '.join(unknown)}: choose from {', '.join(NAMES)}")
    for assignment in args.size:
        if assignment.partition("=")[0] not in Sizes.__dataclass_fields__:
            parser.error(f"--size {assignment}: no such size")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = Sizes.quick() if args.quick else Sizes()
    if args.probes is not None:
        sizes = replace(sizes, probes=args.probes)
    if args.seconds is not None:
        sizes = replace(sizes, seconds=args.seconds)
    if args.hold is not None:
        sizes = replace(sizes, hold=args.hold)
    for assignment in args.size:
        name, _, value = assignment.partition("=")
        kind = type(getattr(sizes, name))
        sizes = replace(sizes, **{name: kind(value)})
    organizer = secrets.token_urlsafe(24)
    rows: list[Row] = []
    with (
        tempfile.TemporaryDirectory(prefix="floe-attacks-") as tmp,
        floe_run(Path(tmp), service_env(organizer)) as run,
    ):
        ctx = Context(run, sizes, organizer)
        moves = PersonMoves(run.port)
        target = f"p99 < {P99_TARGET * 1000:.0f} ms"
        main_probes = [
            Probe("health", lambda: health(run.port), target, under(P99_TARGET)),
            Probe("a person's move", moves, target, under(P99_TARGET)),
        ]
        for attack in ATTACKS:
            if attack.name in args.only:
                settle(run)
                rows += run_attack(ctx, attack, main_probes)
    print(table(rows))
    print()
    print("\n".join(ctx.notes))
    missed = [row for row in rows if not row.probe.passes(row.idle, row.attacked)]
    return 1 if args.strict and missed else 0
