"""Moogloo stacks: what a tile holds, who controls it, what may move and where it may land.

A stack holds at most one piece of each size, so it is three optional colours. The rules'
five forms are the sets of sizes present: single, A = {D, G}, B = {T, D}, C = {T, G} (the
Torus encloses the Globus) and D = {T, D, G}. Removing pieces just empties slots, which is
exactly the collapse table (D minus its middle D is C, controlled by the Torus).

>>> Stack.of(t=0, d=1, g=2).controller, Stack.of(t=0, d=1, g=2).without(1).form
(2, 'C')
"""

from __future__ import annotations

from dataclasses import dataclass

Colour = int  # a seat number, or NEUTRAL
NEUTRAL: Colour = -1
SIZES = ("G", "D", "T")
Size = str

#: Movable units, by the sizes they take, for each form the controller may split.
_UNITS: dict[frozenset[Size], dict[str, frozenset[Size]]] = {
    frozenset("DG"): {"G": frozenset("G"), "all": frozenset("DG")},
    frozenset("TD"): {"D": frozenset("D"), "all": frozenset("TD")},
    frozenset("TG"): {"T": frozenset("T"), "all": frozenset("TG")},
    frozenset("TDG"): {"G": frozenset("G"), "DG": frozenset("DG"), "all": frozenset("TDG")},
}

#: The landing table: (sizes that move, sizes already there) pairs that may stack.
_LANDINGS: frozenset[tuple[frozenset[Size], frozenset[Size]]] = frozenset(
    {
        (frozenset("G"), frozenset("D")),  # -> A
        (frozenset("G"), frozenset("TD")),  # -> D
        (frozenset("D"), frozenset("T")),  # -> B
        (frozenset("DG"), frozenset("T")),  # -> D
        (frozenset("T"), frozenset("G")),  # -> C
    }
)

_SIZE_SETS: dict[tuple[bool, bool, bool], frozenset[Size]] = {
    (g, d, t): frozenset(s for s, present in zip("GDT", (g, d, t), strict=True) if present)
    for g in (False, True)
    for d in (False, True)
    for t in (False, True)
}

_FORMS = {
    frozenset("DG"): "A",
    frozenset("TD"): "B",
    frozenset("TG"): "C",
    frozenset("TDG"): "D",
}


@dataclass(frozen=True, slots=True)
class Stack:
    """The pieces on one tile, as the colour in each size's slot (None when absent)."""

    g: Colour | None = None
    d: Colour | None = None
    t: Colour | None = None

    @classmethod
    def of(
        cls, *, g: Colour | None = None, d: Colour | None = None, t: Colour | None = None
    ) -> Stack:
        return cls(g=g, d=d, t=t)

    @classmethod
    def single(cls, size: Size, colour: Colour) -> Stack:
        return cls(**{size.lower(): colour})

    def colour_of(self, size: Size) -> Colour | None:
        return self.g if size == "G" else self.d if size == "D" else self.t

    @property
    def sizes(self) -> frozenset[Size]:
        return _SIZE_SETS[(self.g is not None, self.d is not None, self.t is not None)]

    @property
    def pieces(self) -> list[tuple[Size, Colour]]:
        """Bottom to top as the rules draw them (the Globus of C sits inside the Torus)."""
        order = ("G", "T") if self.sizes == frozenset("TG") else ("T", "D", "G")
        return [(s, c) for s in order if (c := self.colour_of(s)) is not None]

    @property
    def form(self) -> str:
        return _FORMS.get(self.sizes, "single")

    @property
    def colours(self) -> set[Colour]:
        return {c for c in (self.g, self.d, self.t) if c is not None}

    def has(self, colour: Colour) -> bool:
        return self.g == colour or self.d == colour or self.t == colour

    @property
    def empty(self) -> bool:
        return self.g is None and self.d is None and self.t is None

    @property
    def controller(self) -> Colour:
        """The topmost piece's colour; in C the Torus is on top of the Globus it encloses."""
        if self.sizes == frozenset("TG"):
            assert self.t is not None
            return self.t
        top = self.g if self.g is not None else self.d if self.d is not None else self.t
        assert top is not None, "an empty tile has no controller"
        return top

    def count(self, colour: Colour) -> int:
        return (self.g == colour) + (self.d == colour) + (self.t == colour)

    def units(self) -> dict[str, frozenset[Size]]:
        """What the controller may move from here, by the unit's API name."""
        return _UNITS.get(self.sizes, {"all": self.sizes})

    def take(self, sizes: frozenset[Size]) -> tuple[Stack, Stack]:
        """Split into (the moving unit, what stays behind)."""
        moving = Stack(**{s.lower(): self.colour_of(s) for s in sizes})
        staying = Stack(**{s.lower(): self.colour_of(s) for s in SIZES if s not in sizes})
        return moving, staying

    def accepts(self, unit: Stack) -> bool:
        """The landing table: may ``unit`` land on this (possibly empty) tile?"""
        return self.empty or (unit.sizes, self.sizes) in _LANDINGS

    def merge(self, unit: Stack) -> Stack:
        return Stack(
            g=unit.g if unit.g is not None else self.g,
            d=unit.d if unit.d is not None else self.d,
            t=unit.t if unit.t is not None else self.t,
        )

    def without(self, colour: Colour) -> Stack:
        """The collapsed stack once every piece of ``colour`` is removed."""
        return Stack(
            g=None if self.g == colour else self.g,
            d=None if self.d == colour else self.d,
            t=None if self.t == colour else self.t,
        )
