"""SplitMix64 draws the reference numbers, so any implementation can reproduce a bot."""

from __future__ import annotations

from collections import Counter

from domain.ai.generator import SplitMix64


def test_splitmix64_matches_the_reference_outputs() -> None:
    assert SplitMix64(0).next64() == 0xE220A8397B1DCDAF
    generator = SplitMix64(1234567)
    assert [generator.next64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_randrange_and_shuffle_are_uniform_and_repeatable() -> None:
    generator = SplitMix64(5)
    counts = Counter(generator.randrange(3) for _ in range(30_000))
    assert set(counts) == {0, 1, 2} and min(counts.values()) > 9_500
    first, second = list(range(10)), list(range(10))
    SplitMix64(9).shuffle(first)
    SplitMix64(9).shuffle(second)
    assert first == second and sorted(first) == list(range(10)) and first != list(range(10))
