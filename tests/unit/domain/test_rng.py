"""The seed derivation of DESIGN.md against published vectors (docs/randomness.md)."""

from __future__ import annotations

import pytest

from domain.engine.rng import DrawStream, draw, seed_commitment

ZERO = bytes(32)


def test_commitment_of_the_zero_seed() -> None:
    assert seed_commitment(ZERO) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


@pytest.mark.parametrize(
    ("seed", "game", "version", "label", "kind", "n", "outcome"),
    [
        (ZERO, "g1", 2, "die", "uniform", 6, 5),
        (ZERO, "g1", 3, "die", "uniform", 6, 2),
        (
            ZERO,
            "g1",
            2,
            "tiles",
            "shuffle",
            24,
            [2, 5, 7, 21, 16, 17, 0, 15, 22, 20, 12, 4, 18, 23, 13, 6, 1, 14, 10, 3, 8, 9, 11, 19],
        ),
        (
            b"\xab" * 32,
            "demo",
            4,
            "ships",
            "derangement",
            12,
            [3, 7, 5, 6, 8, 9, 11, 0, 4, 10, 2, 1],
        ),
    ],
)
def test_published_vectors(
    seed: bytes, game: str, version: int, label: str, kind: str, n: int, outcome: object
) -> None:
    assert draw(seed, game, version, label, kind, n) == outcome


def test_uniform_rejects_words_past_the_last_whole_multiple() -> None:
    # n = 3 * 2**30: the limit is 3 * 2**30, so about a quarter of words are rejected and
    # every outcome must still land in range.
    stream = DrawStream(ZERO, "g", 1, "big")
    values = [stream.uniform(3 * 2**30) for _ in range(200)]
    assert all(0 <= v < 3 * 2**30 for v in values)


def test_a_shuffle_is_a_permutation_and_a_derangement_moves_everything() -> None:
    assert sorted(draw(ZERO, "g", 7, "deck", "shuffle", 30)) == list(range(30))  # type: ignore[arg-type]
    order = draw(ZERO, "g", 7, "deck", "derangement", 30)
    assert isinstance(order, list)
    assert all(order[i] != i for i in range(30))


def test_draws_depend_on_every_input() -> None:
    base = draw(ZERO, "g", 2, "die", "shuffle", 10)
    assert draw(ZERO, "h", 2, "die", "shuffle", 10) != base
    assert draw(ZERO, "g", 3, "die", "shuffle", 10) != base
    assert draw(ZERO, "g", 2, "dice", "shuffle", 10) != base
    assert draw(b"\x01" * 32, "g", 2, "die", "shuffle", 10) != base
