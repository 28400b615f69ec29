"""The guide's socket client (docs/examples/socket_client.py) against a real ``floe run``:
it plays a whole game against a bot over the live socket, seeing every event once, in
order, and a spectator's socket opened afterwards shows what ``GET .../events`` shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.examples import load_example
from tests.support.floe_run import FloeRun, call, floe_run
from tests.support.waiting import PROMPTLY

pytestmark = pytest.mark.processes


@pytest.fixture(scope="module")
def floe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FloeRun]:
    with floe_run(tmp_path_factory.mktemp("floe"), {}) as run:
        yield run


def shown(events: list[dict[str, object]]) -> list[str]:
    """The lines the example prints for these events."""
    return [f"{e['version']:>4} {e['type']} by {e['actor']}" for e in events]


def test_the_example_plays_a_game_against_a_bot_to_its_end(floe: FloeRun) -> None:
    example = load_example()
    players = [{"name": "Ann"}, {"name": "Hal", "bot": "random"}]
    body = {"game": "arktia", "players": players, "options": {"turn_limit": 4}}
    status, created, _ = call(floe.port, "POST", "/v1/games", body)
    assert status == 201, created
    game_id, token = created["id"], created["seats"][0]["token"]
    base = f"http://127.0.0.1:{floe.port}"

    printed: list[str] = []
    last = example.play(base, game_id, token, wait=PROMPTLY, show=printed.append)

    status, page, _ = call(floe.port, "GET", f"/v1/games/{game_id}/events", token=token)
    assert status == 200
    events = page["events"]
    over = next(e["version"] for e in events if e["type"] == "game_over")
    assert last == over
    assert printed == shown(events[:over]), "every event once, in order, up to game_over"
    assert {e["actor"] for e in events if e["command_id"] is not None} == {0, 1}
    assert all(e["command_id"].startswith("move-") for e in events if e["actor"] == 0)

    watched: list[str] = []
    assert example.play(base, game_id, None, wait=PROMPTLY, show=watched.append) == over
    status, public, _ = call(floe.port, "GET", f"/v1/games/{game_id}/events")
    assert status == 200 and watched == shown(public["events"][:over])
