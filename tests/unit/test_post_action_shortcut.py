"""The move body's shortcut (``schemas.load_post_action``) answers exactly as the schema."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.api.schemas import games as schemas
from service.errors import InvalidRequest

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
actions = (
    st.dictionaries(st.sampled_from(["type", "to", "from"]), json_values, max_size=3) | json_values
)
versions = (
    st.integers(min_value=-2, max_value=3)
    | st.sampled_from([2**53, 2**53 + 1, True, False, 1.0, "1"])
    | json_values
)
command_ids = st.text(max_size=3) | st.text(min_size=126, max_size=130) | json_values
signatures = (
    st.none()
    | st.text(alphabet="0123456789abcdefA\n", min_size=127, max_size=129)
    | st.sampled_from(["ab" * 64, "ab" * 64 + "\n", "AB" * 64])
    | json_values
)
bodies = (
    st.fixed_dictionaries(
        {}, optional={"action": actions, "expected_version": versions, "command_id": command_ids}
    )
    | st.builds(
        lambda body, extra: {**body, **extra},
        st.fixed_dictionaries(
            {"action": actions, "expected_version": versions, "command_id": command_ids}
        ),
        st.dictionaries(st.sampled_from(["extra", "command_id"]), json_values, max_size=1)
        | st.fixed_dictionaries({"signature": signatures}),
    )
    | json_values
)


def answer(load: Any, body: Any) -> tuple[str, Any]:
    try:
        return "ok", load(body)
    except InvalidRequest as error:
        return "refused", (error.code, str(error))


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(bodies)
def test_the_shortcut_answers_as_the_schema(body: Any) -> None:
    assert answer(schemas.load_post_action, body) == answer(
        lambda b: schemas.load(schemas.POST_ACTION, b), body
    )


@pytest.mark.parametrize(
    "body",
    [
        {"action": {"type": "melt", "tile": [0, 0]}, "expected_version": 3, "command_id": "c-3"},
        {"action": {"type": "retire"}, "expected_version": 2**53, "command_id": "x" * 128},
    ],
)
def test_well_formed_bodies_take_the_shortcut_and_load_as_the_schema(body: dict[str, Any]) -> None:
    assert schemas.load_post_action(body) == schemas.load(schemas.POST_ACTION, body)
