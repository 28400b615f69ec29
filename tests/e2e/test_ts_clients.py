"""TypeScript clients generated from ``openapi.yaml`` play a game of each kind.

The spec serves clients nobody here wrote, so this test does what a TypeScript client author
does with it, with the generators pinned in ``tests/clients/ts/package.json`` (and its
``package-lock.json``): ``npm ci``; ``openapi-typescript`` (types, called through
``openapi-fetch``) and ``@hey-api/openapi-ts`` (types, SDK and fetch client) generate from the
unmodified ``openapi.yaml`` (nothing generated is committed); ``tsc`` checks both clients'
programs in strict mode; then each program plays an Arktia, an Iceberg and an Ice Breakers
game against the API served as ``floe run`` serves it (gunicorn, a real Redis, a real
``floe worker`` for the draws). The programs read the view's ``state`` narrowed on ``game``,
event ``data`` narrowed on ``type``, each game's ``options`` and the ``ErrorCode`` of a
refusal, all through the generated types and with no type assertion (checked here too).

Node and npm are required: without them this fails, it does not skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.run.redis_server import free_tcp_port
from service.run.supervisor import api_command
from service.settings import Settings
from tests.support.waiting import PROMPTLY, wait_until

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "clients" / "ts"
SPEC_PATH = ROOT / "openapi.yaml"
PROGRAMS = ("openapi-fetch", "hey-api")
#: What a program may not do to get past the type checker.
ESCAPES = re.compile(r"\bas\s+(?!const\b)[A-Za-z{(\[]|@ts-(ignore|expect-error|nocheck)|:\s*any\b")


def run(argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    done = subprocess.run(
        argv,
        cwd=PROJECT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{printed[-4000:]}"
    return printed


@pytest.fixture
def built() -> Path:
    """The clients generated from the spec and both programs type-checked (strict)."""
    for tool in ("node", "npm"):
        assert shutil.which(tool), f"{tool} is needed to test the TypeScript clients"
    run(["npm", "ci", "--no-audit", "--no-fund"])
    for stale in ("generated", "dist"):
        shutil.rmtree(PROJECT / stale, ignore_errors=True)
    run(["npm", "run", "generate"], env={"FLOE_SPEC": str(SPEC_PATH)})
    run(["npm", "run", "check"])
    return PROJECT / "dist" / "src"


def test_the_programs_use_no_type_assertion() -> None:
    for program in sorted((PROJECT / "src").glob("*.ts")):
        code = "\n".join(
            line
            for line in program.read_text(encoding="utf-8").splitlines()
            if not line.lstrip().startswith("//")
        )
        assert not ESCAPES.search(code), f"{program.name}: {ESCAPES.search(code)}"


@pytest.fixture
def base_url(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """The API served as ``floe run`` serves it (gunicorn, threaded), on a free port."""
    port = free_tcp_port()
    argv = api_command(Settings(port=port, host="127.0.0.1", web_workers=1))
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv,
            env={**os.environ, "REDIS_URL": redis_url},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert process.poll() is None, f"gunicorn exited:\n{log.read_text()}"
        try:
            return httpx.get(f"{url}/v1/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_until(healthy, PROMPTLY, "gunicorn to answer")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def assert_the_types_narrow_on_game_and_type() -> None:
    """What the spec says in shapes the generators model: the view a union on ``game``, the
    error code an enum, the options per game, NDJSON not typed as JSON."""
    types = (PROJECT / "generated" / "openapi-typescript" / "schema.ts").read_text()
    assert 'GameView: components["schemas"]["ArktiaView"] | ' in types
    assert re.search(r'ErrorCode: "[a-z0-9_]+"( \| "[a-z0-9_]+")+;', types)
    assert not re.search(r"\b(options|data|state|event)\??: Record<string, never>", types)
    assert '"application/x-ndjson": string;' in types
    hey = (PROJECT / "generated" / "hey-api" / "types.gen.ts").read_text()
    assert "export type GameView = ({\n    game: 'arktia';\n} & ArktiaView)" in hey
    assert "export type ErrorCode = 'malformed_json'" in hey


@pytest.mark.processes  # npm, the generators, tsc and node, besides the server
@pytest.mark.slow
def test_generated_typescript_clients_play_a_game_of_each_kind(
    built: Path, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    """One test, not one per client: ``built`` runs ``npm ci`` in the project's folder, which
    two test processes must not do at once (the worker fixture keeps this test in the group
    of tests that run Floe's services, one at a time)."""
    assert_the_types_narrow_on_game_and_type()
    for program in PROGRAMS:
        printed = run(["node", str(built / f"{program}.js")], env={"FLOE_URL": base_url})
        for game in ("arktia", "iceberg", "ice-breakers"):
            assert f"{program}: {game} over after" in printed, printed[-2000:]
