"""A client generated from ``openapi.yaml`` by openapi-python-client plays every game.

The spec is what client authors feed their generators, so this test does what they do: it runs
``openapi-python-client generate`` on the unmodified ``openapi.yaml`` (in a subprocess, with
proxies pointed at a closed port so it cannot reach the network) and requires a clean run:
no schema dropped, no response left out, nothing but the "Generating" line with the
project's generator config (``tests/support/openapi-python-client.yaml``), and without it
only the documented media-type notices (the board picture and the two export files). It then imports
the generated package and plays a whole Arktia, Iceberg and Ice Breakers game through it
against the API served as ``floe run`` serves it (gunicorn, ``service.api.app:create_app()``,
a real Redis), the draws made by a real ``floe worker``; it creates, plays, reads and
exports a tournament; and it plays against a clock, resigns and has the organizer decide.

Everything goes through the generated models: a game is created from its game's
``<Game>CreateGameRequest`` (with ``<Game>Options``), the loop reads the game's own view
(``<Game>View``: ``GameView`` is a union on ``game``) for ``status``, ``to_act`` and
``state``, picks one of ``LegalActions.actions`` (the game's own action classes), and posts
it back inside a ``PostActionRequest`` with ``expected_version`` and a ``command_id``
(``?wait=10``); events are read as the union's classes (``ActionEvent``, ``RandomEvent``...). Every answer is parsed by the
generated code into its documented class and must survive the round trip: ``to_dict()`` of
the parsed model equals the JSON on the wire, so a union that picked the wrong class or a
field the spec lacks fails here. Waits are on conditions (the health check answering, the
worker's draw with ``?wait``), never on a clock.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from replay.verify import verify
from service.run.redis_server import free_tcp_port
from service.run.supervisor import api_command
from service.settings import Settings
from tests.support.waiting import AT_LENGTH, PROMPTLY, wait_until

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi.yaml"
CONFIG_PATH = ROOT / "tests" / "support" / "openapi-python-client.yaml"
PACKAGE = "floe_api_client"
ORGANIZER = "generated-client-organizer-token"
#: The only notices a plain ``generate`` (no config file) may print: responses whose media
#: type the generator cannot read, which the config file maps to text.
UNREADABLE_MEDIA_TYPES = {
    "GET /v1/games/{game_id}/board.svg": "image/svg+xml",
    "GET /v1/games/{game_id}/export": "application/x-ndjson",
    "GET /v1/tournaments/{tournament_id}/export": "application/x-ndjson",
}
#: The keys of timestamps: the generated models read them as ``datetime`` and write them
#: back in Python's ISO form (``+00:00`` for the wire's ``Z``), so they compare as instants.
TIMESTAMP_KEYS = frozenset({"at", "created_at", "deadline"})


# ----- generating --------------------------------------------------------------------------


def generate(out: Path, *, config: Path | None) -> str:
    """Run the generator on the unmodified spec into ``out``; return what it printed."""
    argv = [sys.executable, "-m", "openapi_python_client", "generate"]
    argv += ["--path", str(SPEC_PATH), "--meta", "none"]
    if config is not None:
        argv += ["--config", str(config)]
    offline = "http://127.0.0.1:9"  # nothing listens there: any download would fail
    env = {
        **os.environ,
        # ruff (the generator's formatting hook) is installed beside this Python
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HTTP_PROXY": offline,
        "HTTPS_PROXY": offline,
        "ALL_PROXY": offline,
        "NO_PROXY": "",
    }
    done = subprocess.run(
        argv, cwd=out, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, f"openapi-python-client failed:\n{printed}"
    assert (out / PACKAGE / "__init__.py").is_file(), f"no package generated:\n{printed}"
    return printed


def assert_nothing_dropped(printed: str) -> None:
    for sign in ("Unable to process schema", "removal of", "Cannot take allOf", "Error(s)"):
        assert sign not in printed, f"the generator dropped something ({sign!r}):\n{printed}"


@pytest.mark.processes  # the client generator
def test_the_spec_generates_a_client_without_a_warning(tmp_path: Path) -> None:
    printed = generate(tmp_path, config=CONFIG_PATH)
    assert_nothing_dropped(printed)
    lines = [line for line in printed.splitlines() if line.strip()]
    assert lines == [f"Generating {tmp_path / PACKAGE}"], printed


@pytest.mark.processes  # the client generator
def test_without_the_config_only_the_unreadable_bodies_are_left_out(tmp_path: Path) -> None:
    """What a user gets from the plain command: every schema, three bodies it cannot read."""
    printed = generate(tmp_path, config=None)
    assert_nothing_dropped(printed)
    blocks = printed.split("WARNING parsing ")[1:]
    notices = {}
    for block in blocks:
        operation = block.split(" within ")[0]
        assert "response will be omitted" in block, block
        notices[operation] = block.split("Unsupported content_type ")[1].split(")")[0]
    assert notices == UNREADABLE_MEDIA_TYPES, printed
    models = tmp_path / PACKAGE / "models"
    for name in ("ice_breakers_state", "ice_breakers_destination", "ice_breakers_pending_give"):
        assert (models / f"{name}.py").is_file(), f"{name} was not generated"


@dataclass(frozen=True)
class Generated:
    """The generated package: its clients, its models and its operations."""

    package: ModuleType
    models: ModuleType
    ops: dict[str, ModuleType]

    def client(self, base_url: str, token: str | None = None) -> Any:
        timeout = httpx.Timeout(30.0)  # ``?wait=10`` may hold an answer for 10 s
        if token is None:
            return self.package.Client(base_url=base_url, timeout=timeout)
        return self.package.AuthenticatedClient(base_url=base_url, token=token, timeout=timeout)


OPERATIONS = {
    "create_game": "games",
    "get_game": "games",
    "get_board_picture": "games",
    "get_legal_actions": "play",
    "post_action": "play",
    "post_decision": "play",
    "get_events": "events",
    "export_game": "events",
    "health": "ops",
    "create_tournament": "tournaments",
    "get_tournament": "tournaments",
    "export_tournament": "tournaments",
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generated]:
    """The client generated from the spec (with the project's config), imported."""
    out = tmp_path_factory.mktemp("generated-client")
    assert_nothing_dropped(generate(out, config=CONFIG_PATH))
    sys.path.insert(0, str(out))
    try:
        package = importlib.import_module(PACKAGE)
        yield Generated(
            package=package,
            models=importlib.import_module(f"{PACKAGE}.models"),
            ops={
                name: importlib.import_module(f"{PACKAGE}.api.{tag}.{name}")
                for name, tag in OPERATIONS.items()
            },
        )
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


# ----- the served API ----------------------------------------------------------------------


@pytest.fixture
def base_url(redis_url: str, tmp_path: Path, generated: Generated) -> Iterator[str]:
    """The API served as ``floe run`` serves it (gunicorn, threaded), on a free port."""
    port = free_tcp_port()
    argv = api_command(Settings(port=port, host="127.0.0.1", web_workers=1))
    env = {**os.environ, "REDIS_URL": redis_url, "FLOE_ORGANIZER_TOKEN": ORGANIZER}
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"
    probe = generated.client(url)

    def healthy() -> bool:
        assert process.poll() is None, f"gunicorn exited:\n{log.read_text()}"
        try:
            return bool(generated.ops["health"].sync_detailed(client=probe).status_code == 200)
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


# ----- typed answers -----------------------------------------------------------------------


def _instants(node: Any, key: str | None = None) -> Any:
    if isinstance(node, dict):
        return {k: _instants(v, k) for k, v in node.items()}
    if isinstance(node, list):
        return [_instants(v) for v in node]
    if key in TIMESTAMP_KEYS and isinstance(node, str):
        return datetime.fromisoformat(node)
    return node


def typed(response: Any, kind: Any, status: int = 200) -> Any:
    """The parsed model of ``response``: of class ``kind``, and lossless."""
    wire = json.loads(response.content) if response.content else None
    assert response.status_code == status, (response.status_code, wire)
    parsed = response.parsed
    assert isinstance(parsed, kind), f"parsed as {type(parsed).__name__}, not {kind.__name__}"
    assert _instants(parsed.to_dict()) == _instants(wire), "the model lost or changed fields"
    return parsed


#: A game's own classes, ``<Game><part>``.
GAME_CLASSES = ("CreateGameRequest", "Options", "View", "State", "Outcome", "GameCreatedData")
#: ``StoredEvent`` is a union on ``type``: the class of each system event's line.
STORED = {
    "game_created": "StoredGameCreatedEvent",
    "random": "StoredRandomEvent",
    "game_over": "StoredGameOverEvent",
    "seed_revealed": "StoredSeedRevealedEvent",
    "timeout": "StoredTimeoutEvent",
    "decision": "StoredDecisionEvent",
}


def stored_class(m: ModuleType, line: dict[str, Any]) -> Any:
    """The generated class of an export line, by its ``type`` (any other: a seat's action)."""
    return getattr(m, STORED.get(line["type"], "StoredActionEvent"))


def roundtrip(model: Any, data: dict[str, Any]) -> Any:
    parsed = model.from_dict(data)
    assert _instants(parsed.to_dict()) == _instants(data), f"{model.__name__} lost fields"
    return parsed


# ----- the games ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One game to play: who sits down, with what options, how actions are chosen."""

    game: str
    prefix: str  # how the game's generated classes are named (``<prefix>State``)
    players: int
    options: dict[str, Any]
    #: relative weight of each action type (absent: 1.0)
    weights: dict[str, float]
    actions: frozenset[str]  # the generated classes of the game's actions
    draws: bool  # whether the game has random draws (made by the worker)


PLANS = {
    "arktia": Plan(
        game="arktia",
        prefix="Arktia",
        players=2,
        options={"turn_limit": 60},
        weights={"retire": 0.05},
        actions=frozenset(
            {"ArktiaPlace", "ArktiaMove", "ArktiaKeepGroup", "ArktiaMelt", "ArktiaRetire"}
        ),
        draws=False,
    ),
    "iceberg": Plan(
        game="iceberg",
        prefix="Iceberg",
        players=2,
        options={},
        weights={"roll": 10.0, "flip": 10.0},
        actions=frozenset(
            {
                "IcebergPlaceStart",
                "IcebergPlay",
                "IcebergMove",
                "IcebergFlip",
                "IcebergRoll",
                "IcebergRemoveTile",
                "IcebergKeepGroup",
            }
        ),
        draws=True,
    ),
    "ice-breakers": Plan(
        game="ice-breakers",
        prefix="IceBreakers",
        players=2,
        options={"intro": True},
        weights={
            "move_ship": 8.0,
            "clear": 5.0,
            "give": 5.0,
            "play_power": 4.0,
            "boost": 2.0,
            "cash_ab2": 2.0,
            "end_turn": 1.0,
            "pass": 1.0,
        },
        actions=frozenset(
            {
                "IceBreakersPlayPower",
                "IceBreakersBoost",
                "IceBreakersCashAb2",
                "IceBreakersClear",
                "IceBreakersMoveShip",
                "IceBreakersGive",
                "IceBreakersEndTurn",
                "IceBreakersPass",
            }
        ),
        draws=True,
    ),
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_a_generated_client_plays_a_whole_game(
    name: str, generated: Generated, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    plan = PLANS[name]
    m, ops = generated.models, generated.ops
    choose = random.Random(f"generated-client-{name}")
    public = generated.client(base_url)
    organizer = generated.client(base_url, ORGANIZER)

    cls = {part: getattr(m, plan.prefix + part) for part in GAME_CLASSES}
    request = cls["CreateGameRequest"](
        game=plan.game,
        players=[m.NewPlayer(name=f"p{i}") for i in range(plan.players)],
        options=cls["Options"].from_dict(plan.options),
    )
    created = typed(
        ops["create_game"].sync_detailed(client=public, body=request, wait=10), m.GameCreated, 201
    )
    assert created.game == m.GameName(plan.game)
    assert created.status == m.GameCreatedStatus.ACTIVE, "with ?wait=10 the setup draws are in"
    game_id = created.id
    seats = [generated.client(base_url, seat.token) for seat in created.seats]
    assert [seat.seat for seat in created.seats] == list(range(plan.players))

    action_classes = tuple(getattr(m, cls) for cls in plan.actions)
    moves = 0
    seen_types: set[str] = set()
    while True:
        view = typed(ops["get_game"].sync_detailed(game_id, client=public), cls["View"])
        assert isinstance(view.state, cls["State"]) and view.game == plan.game
        if view.status == m.Status.OVER:
            break
        assert view.status == m.Status.ACTIVE, "with ?wait=10 no draw is still pending"
        seat = choose.choice(view.to_act)
        legal = typed(
            ops["get_legal_actions"].sync_detailed(game_id, client=seats[seat]), m.LegalActions
        )
        assert legal.version == view.version and legal.actions
        assert all(isinstance(action, action_classes) for action in legal.actions)
        weights = [plan.weights.get(action.type_, 1.0) for action in legal.actions]
        action = choose.choices(legal.actions, weights)[0]
        body = m.PostActionRequest(
            action=action, expected_version=legal.version, command_id=f"{seat}-{legal.version}"
        )
        answer = ops["post_action"].sync_detailed(game_id, client=seats[seat], body=body, wait=10)
        accepted = typed(answer, m.ActionAccepted, 201)
        first = accepted.events[0]
        assert isinstance(first, m.ActionEvent)
        assert (first.version, first.actor, first.type_) == (
            legal.version + 1,
            seat,
            m.ActionEventType(action.type_),
        )
        assert first.data.to_dict() == {"action": action.to_dict()}
        assert [e.version for e in accepted.events] == list(
            range(legal.version + 1, accepted.version + 1)
        )
        for event in accepted.events[1:]:
            assert not isinstance(event, m.ActionEvent)
            assert event.actor == "system" and event.command_id is None
        seen_types.add(action.type_)
        moves += 1
        assert moves < 2000, "the game should have ended"
    assert moves > 5, "a whole game, not a token one"

    # the end: outcome, seed, and the log through the client
    assert isinstance(view.outcome, cls["Outcome"]) and view.to_act == []
    assert view.seed is not None
    assert hashlib.sha256(bytes.fromhex(view.seed)).hexdigest() == view.seed_commitment
    page = typed(ops["get_events"].sync_detailed(game_id, client=public), m.EventsPage)
    events = page.events
    assert [e.version for e in events] == list(range(1, view.version + 1))
    assert isinstance(events[0], m.GameCreatedEvent)
    assert isinstance(events[0].data, cls["GameCreatedData"])
    assert isinstance(events[-2], m.GameOverEvent) and isinstance(events[-1], m.SeedRevealedEvent)
    draws = [e for e in events if isinstance(e, m.RandomEvent)]
    assert bool(draws) == plan.draws
    assert all(e.actor == "system" for e in draws)
    assert all(isinstance(e.actor, int) for e in events if isinstance(e, m.ActionEvent))

    exported = ops["export_game"].sync_detailed(game_id, client=organizer)
    assert exported.status_code == 200 and isinstance(exported.parsed, str)
    lines = [json.loads(line) for line in exported.parsed.splitlines()]
    stored = [roundtrip(stored_class(m, line), line) for line in lines]
    assert [s.to_dict() for s in stored] == [e.to_dict() for e in events]
    verdict = verify(lines)
    assert verdict.status == "ok", str(verdict)

    picture = ops["get_board_picture"].sync_detailed(game_id, client=public)
    assert picture.status_code == 200 and isinstance(picture.parsed, str)
    assert "<svg" in picture.parsed


def test_a_generated_client_creates_plays_reads_and_exports_a_tournament(
    generated: Generated, base_url: str, worker: subprocess.Popen[bytes]
) -> None:
    """A round robin of Ada and a bot, one Arktia game that Ada's first move ends (turn
    limit 1): created by the organizer, played with Ada's one tournament token, read and
    exported by anyone once the worker has finished it."""
    m, ops = generated.models, generated.ops
    public = generated.client(base_url)
    organizer = generated.client(base_url, ORGANIZER)
    request = m.ArktiaCreateTournamentRequest(
        game="arktia",
        format_=m.ArktiaCreateTournamentRequestFormat.ROUND_ROBIN,
        players=[m.NewPlayer(name="Ada"), m.NewPlayer(name="Hal", bot=m.BotStrength.RANDOM)],
        options=m.ArktiaOptions.from_dict({"turn_limit": 1}),
    )
    refused = ops["create_tournament"].sync_detailed(client=public, body=request)
    assert typed(refused, m.Error, 401).error.code == m.ErrorCode.MISSING_TOKEN
    created = typed(
        ops["create_tournament"].sync_detailed(client=organizer, body=request),
        m.ArktiaTournamentCreated,
        201,
    )
    assert created.status == m.ArktiaTournamentCreatedStatus.RUNNING
    assert created.planned_rounds == 1
    assert (
        created.commitment == hashlib.sha256("".join(created.seed_commitments).encode()).hexdigest()
    )
    ada, hal = created.players
    assert ada.token.startswith(f"{created.id}.0.") and hal.token is None
    [game] = created.rounds[0].games
    assert game.players == [0, 1], "0 + 1 is odd: the lower number sits first"

    # Ada's one token is her seat in the tournament's game
    seat = generated.client(base_url, ada.token)
    legal = typed(ops["get_legal_actions"].sync_detailed(game.game_id, client=seat), m.LegalActions)
    body = m.PostActionRequest(
        action=legal.actions[0], expected_version=legal.version, command_id="ada-1"
    )
    answer = ops["post_action"].sync_detailed(game.game_id, client=seat, body=body, wait=10)
    ended = typed(answer, m.ActionAccepted, 201)
    assert isinstance(ended.events[-2], m.GameOverEvent)
    assert isinstance(ended.events[-1], m.SeedRevealedEvent)
    events = typed(ops["get_events"].sync_detailed(game.game_id, client=public), m.EventsPage)
    slot = roundtrip(m.TournamentSlot, events.events[0].data.to_dict()["tournament"])
    assert (slot.id, slot.round_, slot.table) == (created.id, 1, 1)

    def finished() -> bool:
        read = ops["get_tournament"].sync_detailed(created.id, client=public)
        return bool(typed(read, m.ArktiaTournament).status == m.ArktiaTournamentStatus.FINISHED)

    wait_until(finished, AT_LENGTH, "the worker to finish the tournament")
    done = typed(ops["get_tournament"].sync_detailed(created.id, client=public), m.ArktiaTournament)
    assert done.rounds[0].games[0].status == m.TournamentGameStatus.OVER
    assert isinstance(done.rounds[0].games[0].outcome, m.Outcome)
    assert sorted(s.player for s in done.standings) == [0, 1]

    exported = ops["export_tournament"].sync_detailed(created.id, client=public)
    assert exported.status_code == 200 and isinstance(exported.parsed, str)
    header, *lines = [json.loads(line) for line in exported.parsed.splitlines()]
    manifest = roundtrip(m.TournamentExportHeader, header).tournament
    assert manifest.id == created.id and manifest.commitment == created.commitment
    stored = [roundtrip(stored_class(m, line), line) for line in lines]
    assert [s.to_dict() for s in stored] == [e.to_dict() for e in events.events]


@pytest.mark.processes  # the client generator and gunicorn (generated, base_url)
def test_a_generated_client_plays_against_a_clock_resigns_and_decides(
    generated: Generated, base_url: str
) -> None:
    """A clock (``PerMoveClock``) and the view's ``SeatClocks``; the organizer's decisions
    (``ForfeitDecision``, ``ResultDecision``) and ``Resign``, every game's action, through
    the generated models: each answer parsed into its class and lossless."""
    m, ops = generated.models, generated.ops
    public = generated.client(base_url)
    organizer = generated.client(base_url, ORGANIZER)
    request = m.ArktiaCreateGameRequest(
        game="arktia",
        players=[m.NewPlayer(name=f"p{i}") for i in range(3)],
        clock=m.PerMoveClock(kind="per_move", move_s=3600),
    )
    answer = ops["create_game"].sync_detailed(client=public, body=request)
    created = typed(answer, m.GameCreated, 201)
    game_id = created.id
    seats = [generated.client(base_url, seat.token) for seat in created.seats]
    view = typed(ops["get_game"].sync_detailed(game_id, client=public), m.ArktiaView)
    assert isinstance(view.clock, m.SeatClocks)
    assert sorted(view.clock.additional_keys) == ["0", "1", "2"]
    assert view.clock["0"].remaining_s == 3600 and view.clock["0"].deadline is not None
    assert view.clock["1"].deadline is None and view.left == []

    # only the organizer decides; a forfeit is one system event, its data the body as sent
    forfeit = m.ForfeitDecision(decision="forfeit", seat=1, reason="Left the venue.")
    refused = ops["post_decision"].sync_detailed(game_id, client=seats[0], body=forfeit)
    assert typed(refused, m.Error, 403).error.code == m.ErrorCode.ORGANIZER_ONLY
    decided = typed(
        ops["post_decision"].sync_detailed(game_id, client=organizer, body=forfeit),
        m.ActionAccepted,
        201,
    )
    [event] = decided.events
    assert isinstance(event, m.DecisionEvent) and isinstance(event.data, m.ForfeitDecision)
    assert event.data.to_dict() == forfeit.to_dict() and event.command_id is None

    # seat 2 resigns out of turn: seat 0, the last one in, wins
    body = m.PostActionRequest(
        action=m.Resign(type_="resign"), expected_version=decided.version, command_id="bye"
    )
    answer = ops["post_action"].sync_detailed(game_id, client=seats[2], body=body)
    ended = typed(answer, m.ActionAccepted, 201)
    first = ended.events[0]
    assert isinstance(first, m.ActionEvent) and first.type_ == m.ActionEventType("resign")
    assert isinstance(ended.events[-2], m.GameOverEvent)
    assert isinstance(ended.events[-1], m.SeedRevealedEvent)
    view = typed(ops["get_game"].sync_detailed(game_id, client=public), m.ArktiaView)
    assert view.status == m.Status.OVER and view.left == [1, 2]
    assert view.outcome is not None and view.outcome.winners == [0]
    exported = ops["export_game"].sync_detailed(game_id, client=public)
    lines = [json.loads(line) for line in exported.parsed.splitlines()]
    assert [line["type"] for line in lines[1:3]] == ["decision", "resign"]
    for line in lines:
        roundtrip(stored_class(m, line), line)

    # a result without a winner ends another game: the view's outcome is the organizer's
    plain = m.ArktiaCreateGameRequest(
        game="arktia", players=[m.NewPlayer(name="a"), m.NewPlayer(name="b")]
    )
    other = typed(ops["create_game"].sync_detailed(client=public, body=plain), m.GameCreated, 201)
    nobody = m.ResultDecision(decision="result", winners=[], reason="Both disqualified.")
    typed(
        ops["post_decision"].sync_detailed(other.id, client=organizer, body=nobody),
        m.ActionAccepted,
        201,
    )
    view = typed(ops["get_game"].sync_detailed(other.id, client=public), m.ArktiaView)
    assert view.clock is None and view.outcome is not None and view.outcome.winners == []
