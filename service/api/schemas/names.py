"""The names people give themselves (seats, players, joiners, late entries): text others will
read, so nothing in it may hide, reorder or fake what the rest shows.

A bidirectional control (``U+202E``) turns ``Ann\\u202eXOB`` into what reads as ``AnnBOX``;
a zero-width or filler character makes two names that look alike differ; a name of spaces
shows nothing. All are refused at the edge, with the field and the character named.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import ValidationError

from service.api.schemas.words import describe
from service.errors import InvalidRequest
from service.tables.store import name_key

#: Characters that reorder the text around them (the bidirectional controls and marks).
BIDI_CONTROLS = frozenset(
    [
        *map(chr, range(0x202A, 0x202F)),  # embeddings, overrides, pop
        *map(chr, range(0x2066, 0x206A)),  # isolates
        "\u200e",  # left-to-right mark
        "\u200f",  # right-to-left mark
        "\u061c",  # Arabic letter mark
    ]
)
#: Characters that show nothing, or join or vary what is next to them.
INVISIBLE = frozenset(
    [
        *map(chr, range(0x200B, 0x200E)),  # zero width space, non-joiner, joiner
        *map(chr, range(0x2060, 0x2065)),  # word joiner, invisible operators
        "\ufeff",  # zero width no-break space (a BOM)
        "\u00ad",  # soft hyphen
        "\u034f",  # combining grapheme joiner
        "\u180e",  # Mongolian vowel separator
        "\u115f",  # Hangul fillers
        "\u1160",
        "\u3164",
        "\uffa0",
        *map(chr, range(0xFE00, 0xFE10)),  # variation selectors
        *map(chr, range(0xE0000, 0xE0080)),  # tags
    ]
)
#: The longest name, in characters.
MAX_NAME = 64

_RANGES = (
    "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u180e"
    "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u3164"
    "\\ufe00-\\ufe0f\\ufeff\\uffa0"
)
#: ``display_name`` as the spec states it: none of the refused characters, and one that is
#: not white space. (The tags, U+E0000..U+E007F, are left out: no regex syntax names a
#: character past U+FFFF for Python and ECMAScript alike. They are refused all the same.)
#: It ends in ``(?![\\s\\S])``, not ``$``, which Python's ``re`` also matches before a final
#: newline.
NAME_PATTERN = f"^[^{_RANGES}]*[^{_RANGES}\\s][^{_RANGES}]*(?![\\s\\S])"
#: What the spec says of a name, in words.
NAME_RULES = (
    f"1..{MAX_NAME} characters, not all white space; no control characters (NUL, newline, "
    "...), no bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, "
    "U+061C) and no invisible characters (zero-width characters, U+2060..U+2064, U+FEFF, "
    "U+00AD, U+034F, U+180E, the Hangul fillers, variation selectors, tags)."
)


def display_name(name: str) -> None:
    """Refuse a name others could misread (module docstring); marshmallow puts the field's
    path in front of the message."""
    if not name.strip():
        raise ValidationError("a name must show something: it is empty or only white space")
    for char in name:
        why = _refused(char)
        if why is not None:
            raise ValidationError(f"a name may not contain {why} (U+{ord(char):04X})")


def _refused(char: str) -> str | None:
    if char in BIDI_CONTROLS:
        return "a bidirectional control"
    if char in INVISIBLE:
        return "an invisible character"
    category = unicodedata.category(char)
    if category == "Cc":
        return "a control character"
    if category == "Cs":
        return "a lone surrogate"
    return None


def same_names(names: list[str]) -> str | None:
    """The first name of ``names`` that an earlier one equals as people read it
    (``name_key``: case and Unicode normalisation aside), if any."""
    seen: set[str] = set()
    for name in names:
        key = name_key(name)
        if key in seen:
            return name
        seen.add(key)
    return None


def check_entered_name(decision: Any) -> None:
    """A tournament's ``enter`` decision names a person too, but its body is read by the
    domain (``domain.tournament.decisions``), not by a schema: 400 ``invalid_field`` (the
    code the domain gives a bad field) for a name ``display_name`` refuses. Anything else is
    left to the domain."""
    if not isinstance(decision, dict) or decision.get("decision") != "enter":
        return
    name = decision.get("name")
    if not isinstance(name, str):
        return
    try:
        display_name(name)
    except ValidationError as error:
        raise InvalidRequest("invalid_field", describe({"name": error.messages})) from None
