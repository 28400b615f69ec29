"""Randomness from a stored seed, exactly as docs/reference/format.md derives it.

Anyone holding the revealed seed can recompute every draw of a game from
``(seed, game_id, version, label)`` in any language; docs/reference/format.md has test vectors.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterator
from typing import Any, Protocol

_WORD = 4
_SPAN = 2**32


class RandomSource(Protocol):
    """Anything that draws an integer in [0, n) uniformly: a ``DrawStream``, or a bot's
    ``SplitMix64``. Every other kind of draw is built from it, in one way only."""

    def randrange(self, n: int) -> int: ...


def below(n: int, word: Callable[[], int], span: int, name: str) -> int:
    """An integer in [0, n), every value equally likely, by rejection sampling: words
    (``word()``, uniform in [0, ``span``)) are drawn until one falls below the largest
    multiple of ``n``, which is then taken modulo ``n``. ``name`` is the caller, for the
    ``ValueError`` when ``n`` < 1."""
    if n < 1:
        raise ValueError(f"{name} needs n >= 1")
    limit = (span // n) * n
    while True:
        drawn = word()
        if drawn < limit:
            return drawn % n


def shuffle_in_place(source: RandomSource, items: list[Any]) -> None:
    """Fisher–Yates from the top: for i = n−1 … 1 swap items i and ``randrange(i + 1)``."""
    for i in range(len(items) - 1, 0, -1):
        j = source.randrange(i + 1)
        items[i], items[j] = items[j], items[i]


def outcome(source: RandomSource, kind: str, n: int) -> int | list[int]:
    """The outcome of a draw of ``kind`` (``uniform``, ``shuffle`` or ``derangement``) of
    ``n``: an int for ``uniform``, else a permutation of ``range(n)``.

    A derangement is shuffles drawn one after another until one moves every item.
    """
    if kind == "uniform":
        return source.randrange(n)
    if kind not in ("shuffle", "derangement"):
        raise ValueError(f"unknown draw kind {kind!r}")
    if kind == "derangement" and n == 1:
        raise ValueError("no derangement of one item exists")
    while True:
        order = list(range(n))
        shuffle_in_place(source, order)
        if kind == "shuffle" or all(order[i] != i for i in range(n)):
            return order


def seed_commitment(seed: bytes) -> str:
    """SHA-256 hex of the seed bytes, published in ``game_created`` before any draw."""
    return hashlib.sha256(seed).hexdigest()


class DrawStream:
    """The byte stream of one draw: HMAC-SHA256 blocks for counter 0, 1, 2, …"""

    def __init__(self, seed: bytes, game_id: str, version: int, label: str) -> None:
        self._seed = seed
        self._prefix = f"{game_id}/{version}/{label}/"
        self._blocks = self._generate()
        self._buffer = b""

    def _generate(self) -> Iterator[bytes]:
        counter = 0
        while True:
            message = (self._prefix + str(counter)).encode("utf-8")
            yield hmac.new(self._seed, message, hashlib.sha256).digest()
            counter += 1

    def _word(self) -> int:
        while len(self._buffer) < _WORD:
            self._buffer += next(self._blocks)
        word, self._buffer = self._buffer[:_WORD], self._buffer[_WORD:]
        return int.from_bytes(word, "big")

    def uniform(self, n: int) -> int:
        """An integer in [0, n) by rejection sampling (``below``) on 32-bit words."""
        return below(n, self._word, _SPAN, "uniform")

    def randrange(self, n: int) -> int:
        """``uniform``, under the name every ``RandomSource`` shares."""
        return self.uniform(n)

    def shuffle(self, n: int) -> list[int]:
        """A permutation of ``range(n)`` (see ``outcome``)."""
        order = outcome(self, "shuffle", n)
        assert isinstance(order, list)
        return order

    def derangement(self, n: int) -> list[int]:
        """A permutation of ``range(n)`` that moves every item (see ``outcome``)."""
        order = outcome(self, "derangement", n)
        assert isinstance(order, list)
        return order


def draw(seed: bytes, game_id: str, version: int, label: str, kind: str, n: int) -> int | list[int]:
    """The outcome of one ``random`` event: an int for ``uniform``, a list otherwise."""
    return outcome(DrawStream(seed, game_id, version, label), kind, n)
