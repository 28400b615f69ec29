"""(a) over WebSockets: Floe's socket path and its bare ceiling, one window each, from Python.

The driver is Node (``bench/peer/sockets.js``, the ``ws`` client pinned in bench/peer's lock):
a Python client would share the GIL of the threads it measures against, and boardgame.io's
driver is Node too, so every socket row is loaded the same way. Three loads, each 16 matches
with one move in flight:

- ``bare_socket``: ``GET /bench/socket`` (``service.api.bench_routes``), one socket a match,
  each message answered after one XADD: the socket path's ceiling, as ``bare_xadd`` is HTTP's.
- ``socket``: Floe's ``GET /v1/games/{id}/socket``, a socket per seat; the next move once the
  mover has ``accepted`` and the other seat has the event.
- ``socket_bot``: as ``socket``, and the next mover also waits for the ``legal_actions`` pushed
  to it and finds its move among them: a bot's loop with no polling.

Floe's socket route is probed on the running stack first (``floe_route``): where it does not
upgrade, ``socket`` and ``socket_bot`` are reported "not measured", saying why.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench import peer, pinning, policy
from bench.loads import LoadResult
from bench.stack import HOST, BenchError, Stack, create_game, proc_cpu
from service.run.redis_server import parent_death_signal

DRIVER = "sockets.js"
#: Load name -> the driver's ``--mode``.
LOADS = {"bare_socket": "bare", "socket": "floe", "socket_bot": "bot"}
#: The loads that need Floe's own socket route (the bare one is the bench's).
FLOE_SOCKET = ("socket", "socket_bot")


def create_payload(players: int = 2) -> dict[str, Any]:
    """The ``POST /v1/games`` body the driver sends: ``bench.stack.create_game``'s."""
    return {
        "game": policy.GAME,
        "players": [{"name": f"bench-{i}"} for i in range(players)],
        "options": policy.OPTIONS,
    }


def floe_route(stack: Stack) -> str:
    """ "" when ``GET /v1/games/{id}/socket`` upgrades to a WebSocket, else why not.

    Probed on a real game with a raw handshake (no token: it comes in the first message).
    """
    client = stack.client()
    try:
        game_id, _ = create_game(client, 2, policy.OPTIONS)
    finally:
        client.close()
    key = base64.b64encode(os.urandom(16)).decode()
    handshake = (
        f"GET /v1/games/{game_id}/socket HTTP/1.1\r\nHost: {HOST}:{stack.port}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    )
    with socket.create_connection((HOST, stack.port), timeout=10) as conn:
        conn.sendall(handshake.encode())
        line = conn.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    if " 101 " in f"{line} ":
        return ""
    return f"GET /v1/games/{{id}}/socket answered {line!r}, not 101: Floe's socket not measured"


def _cpu(stack: Stack, driver: int) -> dict[str, float]:
    """The stack's CPU seconds with the Node driver as the load side ("client")."""
    return {**stack.cpu_seconds(), "client": proc_cpu(driver)}


def drive(
    node: peer.Node,
    stack: Stack,
    load: str,
    scripts: Sequence[Sequence[policy.Step]],
    *,
    tag: str,
    seconds: float,
    warmup: float,
    cpus: Iterable[int] | None = None,
    stall: float = 10.0,
) -> tuple[dict[str, Any], dict[str, float]]:
    """Run ``sockets.js`` for one window: its JSON result and the CPU used inside the window."""
    with tempfile.TemporaryDirectory(prefix="floe-bench-sockets-") as tmp:
        given = Path(tmp) / "input.json"
        payload = {
            "tag": tag,
            "create": create_payload(),
            "scripts": [[asdict(step) for step in script] for script in scripts],
        }
        given.write_text(json.dumps(payload))
        command = [node.node, DRIVER, "--port", str(stack.port), "--mode", LOADS[load]]
        command += ["--input", str(given), "--matches", str(len(scripts))]
        command += ["--warmup", str(warmup), "--seconds", str(seconds), "--stall", str(stall)]
        errors_path = Path(tmp) / "driver.err"
        with errors_path.open("wb") as errors:
            process = subprocess.Popen(
                command,
                cwd=peer.PEER_DIR,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                preexec_fn=pinning.preexec_on(cpus, parent_death_signal()),
            )
        assert process.stdout is not None
        lines = peer.Lines(process.stdout)
        deadline = time.monotonic() + warmup + seconds + stall + peer.DRIVER_SLACK
        before: dict[str, float] = {}
        after: dict[str, float] = {}
        result: dict[str, Any] | None = None
        try:
            while (line := lines.next(deadline)) is not None:
                if not line.startswith("@@ "):
                    continue
                message = json.loads(line[3:])
                if message.get("event") == "measuring":
                    before = _cpu(stack, process.pid)
                elif message.get("event") == "measured":
                    after = _cpu(stack, process.pid)
                else:
                    result = message
            code = process.wait(10)
        except TimeoutError:
            process.kill()
            process.wait()
            raise BenchError(
                f"{load}: socket driver timed out:\n{peer._tail(errors_path)}"
            ) from None
        if code != 0 or result is None:
            raise BenchError(f"{load}: socket driver failed ({code}):\n{peer._tail(errors_path)}")
    if not before or not after:
        raise BenchError(f"{load}: socket driver ended without reporting both ends of its window")
    return result, {key: after[key] - before.get(key, 0.0) for key in after}


def to_load(name: str, result: dict[str, Any], cpu: dict[str, float]) -> LoadResult:
    """The driver's JSON as the record the HTTP loads produce (latencies in seconds)."""
    load = LoadResult(
        name=name,
        clients=int(result["matches"]),
        seconds=float(result["seconds"]),
        latencies=[float(ms) / 1000 for ms in result["latencies_ms"]],
        errors=int(result["errors"]),
        games_created=int(result["games_created"]),
        statuses={int(k): int(v) for k, v in result["statuses"].items()},
        cpu=cpu,
    )
    return load


def window(
    node: peer.Node,
    stack: Stack,
    load: str,
    scripts: Sequence[Sequence[policy.Step]],
    *,
    tag: str,
    seconds: float,
    warmup: float,
    pin: tuple[set[int], set[int]] | None = None,
    log: Callable[[str], None] | None = None,
) -> LoadResult:
    """One measured window of a socket load; pinned, the driver runs on ``pin[1]`` (the
    server was pinned by the caller)."""
    cpus = None if pin is None else pin[1]
    result, cpu = drive(
        node, stack, load, scripts, tag=tag, seconds=seconds, warmup=warmup, cpus=cpus
    )
    if result.get("first_errors") and log is not None:
        first = result["first_errors"][:2]
        log(f"(a) {load}: {result['errors']} error(s) in the window; first of any: {first}")
    return to_load(load, result, cpu)
