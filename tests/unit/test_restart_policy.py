"""``floe run``'s restart policy: a part that dies is started again after a backoff that
doubles while it keeps dying soon after starting, and is given up on after a few such deaths
in a row; a part that ran a while before dying starts over from the shortest wait."""

from __future__ import annotations

from service.run.supervisor import (
    QUICK_DEATHS_ALLOWED,
    RESTART_MAX_SECONDS,
    RESTART_SECONDS,
    STEADY_SECONDS,
    RestartPolicy,
)


def _deaths(policy: RestartPolicy, lifetimes: list[float]) -> list[float | None]:
    """The waits answered for parts in one place that each died ``lifetime`` s after its
    start, one after another."""
    waits: list[float | None] = []
    now = 0.0
    for lifetime in lifetimes:
        policy, wait = policy.after_death(now, now + lifetime)
        waits.append(wait)
        now += lifetime + (wait or 0.0)
    return waits


def test_a_part_that_ran_a_while_starts_again_after_the_shortest_wait() -> None:
    assert (
        _deaths(RestartPolicy(), [STEADY_SECONDS, 3600.0, STEADY_SECONDS]) == [RESTART_SECONDS] * 3
    )


def test_quick_deaths_double_the_wait_and_the_last_allowed_one_gives_up() -> None:
    waits = _deaths(RestartPolicy(), [0.5] * QUICK_DEATHS_ALLOWED)
    assert waits[:-1] == [2.0, 4.0, 8.0, 16.0]
    assert waits[-1] is None, "it keeps dying as it starts: floe run stops"
    assert all(w is not None and w <= RESTART_MAX_SECONDS for w in waits[:-1])


def test_a_steady_run_between_quick_deaths_forgives_them() -> None:
    almost = [0.5] * (QUICK_DEATHS_ALLOWED - 1)
    waits = _deaths(RestartPolicy(), [*almost, STEADY_SECONDS, *almost])
    assert None not in waits
    assert waits[QUICK_DEATHS_ALLOWED - 1] == RESTART_SECONDS
    assert waits[QUICK_DEATHS_ALLOWED] == 2.0, "counting starts again"
