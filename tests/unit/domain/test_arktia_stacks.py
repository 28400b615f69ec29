"""The stack table, the landing table and collapses (docs/reference/rules/arktia.md, "Stacks")."""

from __future__ import annotations

import pytest

from domain.games.arktia.stacks import Stack

Y, R, G_ = 0, 1, 2  # yellow, red, green seats


@pytest.mark.parametrize(
    ("stack", "form", "controller"),
    [
        (Stack(g=Y), "single", Y),
        (Stack(d=Y, g=R), "A", R),
        (Stack(t=Y, d=R), "B", R),
        (Stack(t=Y, g=R), "C", Y),
        (Stack(t=Y, d=R, g=G_), "D", G_),
    ],
)
def test_forms_and_control(stack: Stack, form: str, controller: int) -> None:
    assert stack.form == form
    assert stack.controller == controller


@pytest.mark.parametrize(
    ("unit", "target", "allowed"),
    [
        (Stack(g=Y), Stack(t=R), False),  # G onto a lone T
        (Stack(t=Y), Stack(g=R), True),  # T onto a lone G makes C
        (Stack(d=Y), Stack(t=R, g=R), False),  # D onto C
        (Stack(g=Y), Stack(t=R, g=G_), False),  # G onto C
        (Stack(d=Y, g=Y), Stack(t=R), True),  # A onto a lone T makes D
        (Stack(t=Y, d=Y), Stack(g=R), False),  # B onto a G
        (Stack(g=Y), Stack(d=R), True),  # G onto a lone D makes A
        (Stack(g=Y), Stack(t=R, d=R), True),  # G onto B makes D
        (Stack(d=Y), Stack(t=R), True),  # D onto a lone T makes B
        (Stack(g=Y), Stack(d=R, g=G_), False),  # nothing lands on A
        (Stack(g=Y), Stack(t=R, d=R, g=G_), False),  # nothing lands on D
        (Stack(t=Y, g=Y), Stack(g=R), False),  # whole C only on empty tiles
        (Stack(t=Y, d=Y, g=Y), Stack(), True),  # anything lands on an empty tile
        (Stack(g=Y), Stack(g=R), False),
        (Stack(d=Y), Stack(d=R), False),
        (Stack(t=Y), Stack(t=R), False),
        (Stack(t=Y), Stack(d=R), False),
    ],
)
def test_landing_table(unit: Stack, target: Stack, allowed: bool) -> None:
    assert target.accepts(unit) is allowed


def test_landings_make_the_named_forms() -> None:
    assert Stack(t=R).merge(Stack(d=Y, g=Y)).form == "D"
    assert Stack(g=R).merge(Stack(t=Y)).form == "C"
    assert Stack(d=R).merge(Stack(g=Y)).form == "A"


@pytest.mark.parametrize(
    ("stack", "removed", "form", "controller"),
    [
        (Stack(d=Y, g=R), R, "single", Y),  # A - G -> D
        (Stack(d=Y, g=R), Y, "single", R),  # A - D -> G
        (Stack(t=Y, d=R), R, "single", Y),  # B - D -> T
        (Stack(t=Y, d=R), Y, "single", R),  # B - T -> D
        (Stack(t=Y, g=R), Y, "single", R),  # C - T -> G
        (Stack(t=Y, g=R), R, "single", Y),  # C - G -> T
        (Stack(t=Y, d=R, g=G_), G_, "B", R),  # D - G -> B
        (Stack(t=Y, d=R, g=G_), R, "C", Y),  # D minus its middle D -> C, Torus controls
        (Stack(t=Y, d=R, g=G_), Y, "A", G_),  # D - T -> A
    ],
)
def test_collapse(stack: Stack, removed: int, form: str, controller: int) -> None:
    rest = stack.without(removed)
    assert (rest.form, rest.controller) == (form, controller)


def test_units_each_form_offers() -> None:
    assert set(Stack(g=Y).units()) == {"all"}
    assert set(Stack(d=Y, g=Y).units()) == {"G", "all"}
    assert set(Stack(t=Y, d=Y).units()) == {"D", "all"}
    assert set(Stack(t=Y, g=Y).units()) == {"T", "all"}
    assert set(Stack(t=Y, d=Y, g=Y).units()) == {"G", "DG", "all"}


def test_pieces_read_bottom_to_top() -> None:
    assert Stack(t=Y, d=R, g=G_).pieces == [("T", Y), ("D", R), ("G", G_)]
    assert Stack(t=Y, g=R).pieces == [("G", R), ("T", Y)]
