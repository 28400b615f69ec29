"""A cheaper ``dataclasses.replace`` for the frozen, slotted value types of a fold.

``dataclasses.replace`` re-reads the class's fields and runs ``__init__`` on every call; a
fold calls it several times per event. This copies the slots directly. Only for frozen
dataclasses with ``slots=True`` and no ``__post_init__``.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")

_NAMES: dict[type, tuple[str, ...]] = {}


def replaced(value: T, **changes: Any) -> T:
    cls = type(value)
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(value))  # type: ignore[arg-type]
    copy = object.__new__(cls)
    for name in names:
        object.__setattr__(copy, name, changes[name] if name in changes else getattr(value, name))
    return copy
