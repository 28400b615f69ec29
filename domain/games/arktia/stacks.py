"""Moogloo stacks: what a tile holds, who controls it, what may move and where it may land.

A stack holds at most one piece of each size, so it is three optional colours. The rules'
five forms are the sets of sizes present: single, A = {D, G}, B = {T, D}, C = {T, G} (the
Torus encloses the Globus) and D = {T, D, G}. Removing pieces just empties slots, which is
exactly the collapse table (D minus its middle D is C, controlled by the Torus).

>>> Stack.of(t=0, d=1, g=2).controller, Stack.of(t=0, d=1, g=2).without(1).form
(2, 'C')
"""

from __future__ import annotations

from typing import NamedTuple

Colour = int  # a seat number, or NEUTRAL
NEUTRAL: Colour = -1
SIZES = ("G", "D", "T")
Size = str

#: A set of sizes as a bit mask: cheap to hash and compare on the hot paths of a fold.
Sizes = int
G, D, T = 1, 2, 4
SIZE_BITS = {"G": G, "D": D, "T": T}

#: Movable units, by the sizes they take, for each form the controller may split.
_UNITS: dict[Sizes, dict[str, Sizes]] = {
    D | G: {"G": G, "all": D | G},
    T | D: {"D": D, "all": T | D},
    T | G: {"T": T, "all": T | G},
    T | D | G: {"G": G, "DG": D | G, "all": T | D | G},
}
_SINGLE_UNITS = {mask: {"all": mask} for mask in (G, D, T)}

#: The landing table: (sizes that move, sizes already there) pairs that may stack.
_LANDINGS: frozenset[tuple[Sizes, Sizes]] = frozenset(
    {
        (G, D),  # -> A
        (G, T | D),  # -> D
        (D, T),  # -> B
        (D | G, T),  # -> D
        (T, G),  # -> C
    }
)

_FORMS = {D | G: "A", T | D: "B", T | G: "C", T | D | G: "D"}

#: Makes a ``Stack`` from its three slots without the named tuple's own ``__new__``.
_new = tuple.__new__


class Stack(NamedTuple):
    """The pieces on one tile, as the colour in each size's slot (None when absent).

    A named tuple rather than a frozen dataclass: a fold builds several per event, and a
    tuple is the cheapest immutable value Python can make.
    """

    g: Colour | None = None
    d: Colour | None = None
    t: Colour | None = None

    @classmethod
    def of(
        cls, *, g: Colour | None = None, d: Colour | None = None, t: Colour | None = None
    ) -> Stack:
        return cls(g, d, t)

    @classmethod
    def single(cls, size: Size, colour: Colour) -> Stack:
        return cls(**{size.lower(): colour})

    def colour_of(self, size: Size) -> Colour | None:
        return self.g if size == "G" else self.d if size == "D" else self.t

    @property
    def sizes(self) -> Sizes:
        return (
            (G if self.g is not None else 0)
            | (D if self.d is not None else 0)
            | (T if self.t is not None else 0)
        )

    @property
    def pieces(self) -> list[tuple[Size, Colour]]:
        """Bottom to top as the rules draw them (the Globus of C sits inside the Torus)."""
        order = ("G", "T") if self.sizes == T | G else ("T", "D", "G")
        return [(s, c) for s in order if (c := self.colour_of(s)) is not None]

    @property
    def form(self) -> str:
        return _FORMS.get(self.sizes, "single")

    @property
    def colours(self) -> set[Colour]:
        return {c for c in (self.g, self.d, self.t) if c is not None}

    def has(self, colour: Colour) -> bool:
        """Whether a piece of ``colour`` is in the stack (hot loops write ``colour in stack``)."""
        return colour in self

    @property
    def empty(self) -> bool:
        return self.g is None and self.d is None and self.t is None

    @property
    def controller(self) -> Colour:
        """The topmost piece's colour; in C the Torus is on top of the Globus it encloses."""
        if self.sizes == T | G:
            assert self.t is not None
            return self.t
        top = self.g if self.g is not None else self.d if self.d is not None else self.t
        assert top is not None, "an empty tile has no controller"
        return top

    def count(self, colour: Colour) -> int:
        return (self.g == colour) + (self.d == colour) + (self.t == colour)

    def units(self) -> dict[str, Sizes]:
        """What the controller may move from here, by the unit's API name."""
        sizes = self.sizes
        return _UNITS.get(sizes) or _SINGLE_UNITS[sizes]

    def take(self, sizes: Sizes) -> tuple[Stack, Stack]:
        """Split into (the moving unit, what stays behind)."""
        g, d, t = self
        moving = _new(
            Stack, (g if sizes & G else None, d if sizes & D else None, t if sizes & T else None)
        )
        staying = _new(
            Stack, (None if sizes & G else g, None if sizes & D else d, None if sizes & T else t)
        )
        return moving, staying

    def accepts(self, unit: Stack) -> bool:
        """The landing table: may ``unit`` land on this (possibly empty) tile?"""
        return self.empty or (unit.sizes, self.sizes) in _LANDINGS

    def accepts_sizes(self, unit: Sizes) -> bool:
        """``accepts`` for a unit known by its sizes: listing moves never builds the unit."""
        sizes = self.sizes
        return not sizes or (unit, sizes) in _LANDINGS

    def merge(self, unit: Stack) -> Stack:
        return _new(  # no ``Stack.__new__`` in between: every move of a fold merges
            Stack,
            (
                unit.g if unit.g is not None else self.g,
                unit.d if unit.d is not None else self.d,
                unit.t if unit.t is not None else self.t,
            ),
        )

    def without(self, colour: Colour) -> Stack:
        """The collapsed stack once every piece of ``colour`` is removed."""
        return Stack(
            g=None if self.g == colour else self.g,
            d=None if self.d == colour else self.d,
            t=None if self.t == colour else self.t,
        )
