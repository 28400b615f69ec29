"""JSON in and out of the API and the store: orjson where it agrees with the standard
library, which decides everything else.

orjson encodes and decodes several times faster than ``json``, and a move's request and
answer are both JSON, as is every event read back from the store (a cache miss decodes a
whole game). The two are not the same parser:
orjson refuses what ``json`` accepts (UTF-16 bodies, say), reads an integer past 64 bits as
a float where ``json`` keeps it exact, and writes no spaces. So a body that holds a run of 19
digits (the only way to write such an integer) or that orjson refuses goes to ``json``,
exactly as before: a body gets the same value, and the same 400, whichever parser read it
(``tests/unit/test_json_codec.py`` checks that on generated JSON).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

#: Where orjson and ``json`` may read a number differently: 2**64 has 20 digits. A body is
#: searched for a run of 19 digits with every digit made ``0`` first: a C-speed translate
#: and substring search, where a regular expression took several times as long.
_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19


def decode(raw: bytes) -> Any:
    """The JSON value of ``raw``; ``ValueError`` (or ``RecursionError``) when it is not JSON.

    ``NaN`` and ``Infinity`` are not JSON here, whichever parser reads them.
    """
    if _LONG_DIGITS not in raw.translate(_DIGITS_AS_ZEROS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw, parse_constant=_refuse_constant)


def encode(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON (non-ASCII as is, not escaped)."""
    try:
        return orjson.dumps(value)
    except TypeError:  # an integer past 64 bits, say: the standard library writes it
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def canonical_bytes(value: Any) -> bytes:
    """``value``'s canonical JSON (sorted keys, compact, non-ASCII as is) as UTF-8: the bytes
    ``domain.engine.play.canonical_bytes`` writes, about ten times faster. The two agree on
    what actions hold (integers, strings, lists, objects); they differ on floats (``1e+16``
    against ``1e16``), which no action holds. An integer past 64 bits, which orjson refuses,
    goes to the standard library."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
