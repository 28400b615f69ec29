"""What one load of (a) observed: the record Floe's loads and the boardgame.io peer share.

It lives apart from ``bench.throughput`` so that ``bench.peer`` (which throughput drives)
can build the very same record from the Node driver's JSON without a circular import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench.report import latency_summary


@dataclass
class LoadResult:
    """What one load observed inside its measurement window(s); rounds pool by ``merge``.

    ``cpu`` holds CPU seconds by process over the window: ``api_master`` and ``worker:<pid>``
    (gunicorn) or ``server`` (a one-process server such as boardgame.io's), ``redis``,
    ``client`` (whatever generated the load) and ``machine`` (all cores).
    """

    name: str
    clients: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    games_created: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    rounds: list[dict[str, float]] = field(default_factory=list)

    @property
    def ok(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds > 0 else 0.0

    def spread(self) -> tuple[float, float]:
        """Lowest and highest per-window rate pooled so far (how much the rounds agree)."""
        rates = [window["rate_per_s"] for window in self.rounds]
        return (min(rates), max(rates)) if rates else (self.rate, self.rate)

    def merge(self, other: LoadResult) -> None:
        """Pool another window of the same load into this one."""
        self.seconds += other.seconds
        self.latencies.extend(other.latencies)
        self.errors += other.errors
        self.games_created += other.games_created
        for status, count in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + count
        for key, value in other.cpu.items():
            self.cpu[key] = self.cpu.get(key, 0.0) + value
        summary = latency_summary(other.latencies)
        self.rounds.append(
            {"rate_per_s": other.rate, "p50_ms": summary["p50_ms"], **other.cpu_json()}
        )

    def cpu_json(self) -> dict[str, float]:
        """CPU per op (ms) by process, cores busy, and the busiest worker's share of the load.

        ``cores_busy_machine`` above ``cores_busy_ours`` means something else was running.
        """
        if not self.cpu or not self.ok or self.seconds <= 0:
            return {}
        workers = [v for k, v in self.cpu.items() if k.startswith("worker:")]
        api = self.cpu.get("api_master", 0.0) + self.cpu.get("server", 0.0) + sum(workers)
        ours = api + self.cpu.get("redis", 0.0) + self.cpu.get("client", 0.0)
        out = {
            "cpu_ms_per_op_api": api / self.ok * 1000,
            "cpu_ms_per_op_redis": self.cpu.get("redis", 0.0) / self.ok * 1000,
            "cpu_ms_per_op_client": self.cpu.get("client", 0.0) / self.ok * 1000,
            "cores_busy_ours": ours / self.seconds,
            "cores_busy_machine": self.cpu.get("machine", 0.0) / self.seconds,
        }
        if sum(workers) > 0:
            out["busiest_worker_share"] = max(workers) / sum(workers)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "seconds": self.seconds,
            "ok": self.ok,
            "rate_per_s": self.rate,
            "rounds": self.rounds,
            "errors": self.errors,
            "games_created": self.games_created,
            "statuses": {str(k): v for k, v in self.statuses.items()},
            **latency_summary(self.latencies),
            **self.cpu_json(),
        }
