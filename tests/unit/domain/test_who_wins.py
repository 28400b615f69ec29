"""``who_wins``: the pictures' outcome and ``floe replay step``'s organizer result share it, so
both wordings are pinned here (the step's only other guard names a single winner)."""

from __future__ import annotations

import pytest

from domain.pictures.words import who_wins


@pytest.mark.parametrize(
    ("names", "said"),
    [
        ([], "Nobody wins"),
        (["Ann"], "Ann wins"),
        (["Ann", "Bo"], "Ann and Bo share the win"),
        (["Ann", "Bo", "Cy"], "Ann, Bo and Cy share the win"),
    ],
)
def test_a_picture_says_who_won(names: list[str], said: str) -> None:
    assert who_wins(names) == said


@pytest.mark.parametrize(
    ("names", "said"),
    [
        ([], "nobody wins"),
        (["seat 1 (bo)"], "seat 1 (bo) wins"),
        (["seat 0 (ann)", "seat 2 (cy)"], "seat 0 (ann) and seat 2 (cy) win"),
        (
            ["seat 0 (ann)", "seat 1 (bo)", "seat 2 (cy)"],
            "seat 0 (ann), seat 1 (bo) and seat 2 (cy) win",
        ),
    ],
)
def test_the_replay_says_who_the_organizer_named(names: list[str], said: str) -> None:
    assert who_wins(names, nobody="nobody wins", shared="win") == said
