"""SplitMix64: the search bots' random generator, specified in a few lines of integer maths.

Search needs many more random numbers than a HMAC stream gives cheaply, so a bot seeds this
generator with 64 bits of its ``bot-<seat>`` DrawStream (derived from the game's seed under
the bot's own label). SplitMix64 (Steele, Lea and Flood, 2014) is tiny and fully specified,
so any implementation in any language draws the same numbers from the same seed.
"""

from __future__ import annotations

from typing import TypeVar

from domain.engine import rng
from domain.engine.rng import DrawStream

T = TypeVar("T")

_MASK = (1 << 64) - 1
_SPAN = 1 << 64


class SplitMix64:
    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    @classmethod
    def from_stream(cls, stream: DrawStream) -> SplitMix64:
        """Seeded with 64 bits (two words) of the bot's stream."""
        return cls((stream.uniform(1 << 32) << 32) | stream.uniform(1 << 32))

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randrange(self, n: int) -> int:
        """An integer in [0, n), every value equally likely (``rng.below`` on 64-bit words)."""
        return rng.below(n, self.next64, _SPAN, "randrange")

    def draw(self, kind: str, n: int) -> int | list[int]:
        """A sampled outcome of a game's draw (``uniform``, ``shuffle`` or ``derangement``),
        made exactly as ``rng.draw`` makes real ones, for a search imagining the future;
        never a real draw, which only the seed makes."""
        return rng.outcome(self, kind, n)

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates from the top, in place (``rng.shuffle_in_place``)."""
        rng.shuffle_in_place(self, items)
