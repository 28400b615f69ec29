"""The API's JSON codec reads every body as the standard library does, and its shortcut
around the surrogate/depth walk never skips a body that the walk would refuse."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.engine.canonical import unencodable
from service.api.http import MAX_JSON_DEPTH, _plainly_fine
from service.store.codec import decode, encode

#: Any JSON value, with the awkward parts weighted in: integers past 64 bits, floats at the
#: edges, non-ASCII and surrogate text, deep nesting.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 5, max_value=2**70)
    | st.integers(min_value=-(2**70), max_value=-(2**63) + 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(["\ud800", "é", "\U0001f9ca", "\\u0041"])
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=40,
)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1 == 1.0 == True would hide a drift)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from(["utf-8", "utf-16", "utf-32"]), st.booleans())
def test_decode_reads_every_body_as_the_standard_library(
    value: Any, encoding: str, spaced: bool
) -> None:
    text = json.dumps(value, ensure_ascii=False) if spaced else json.dumps(value)
    try:
        raw = text.encode(encoding, "surrogatepass")
    except UnicodeEncodeError:
        return
    assert same(decode(raw), json.loads(raw))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from(["utf-8", "utf-16-le", "utf-16", "utf-32"]), st.booleans())
def test_the_shortcut_never_skips_a_body_the_walk_refuses(
    value: Any, encoding: str, ascii_only: bool
) -> None:
    try:
        raw = json.dumps(value, ensure_ascii=ascii_only).encode(encoding, "surrogatepass")
    except UnicodeEncodeError:
        return
    if _plainly_fine(raw):
        assert unencodable(json.loads(raw), MAX_JSON_DEPTH) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"123456789012345678901234567890", 123456789012345678901234567890),  # not a float
        (b'{"a": -18446744073709551617}', {"a": -18446744073709551617}),
        ('{"n": "é"}'.encode("utf-16"), {"n": "é"}),
        (b'"\\ud800"', "\ud800"),  # read, for the API to refuse as a lone surrogate
    ],
)
def test_decode_edge_cases(raw: bytes, expected: Any) -> None:
    assert same(decode(raw), expected)


@pytest.mark.parametrize("raw", [b"NaN", b"[Infinity]", b"-Infinity", b"{", b"\xff"])
def test_decode_refuses_what_is_not_json(raw: bytes) -> None:
    with pytest.raises(ValueError):
        decode(raw)


def test_the_shortcut_sees_deep_nesting_and_escapes() -> None:
    assert _plainly_fine(b'{"action": {"type": "move"}, "expected_version": 3}')
    assert not _plainly_fine(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))
    assert not _plainly_fine(b'"\\ud800"')
    assert not _plainly_fine('"é"'.encode())


@given(values)
def test_encode_round_trips(value: Any) -> None:
    try:
        encoded = encode(value)
    except UnicodeEncodeError:  # a lone surrogate is no UTF-8: never in an answer
        return
    assert same(json.loads(encoded), value)
