"""The shortcuts for the plainest create body (model, input, stream, ...): validation and the
Response skeleton give exactly what the general code gives, errors included."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.assembler import response_object
from reference_impl.errors import APIError
from reference_impl.request import validation

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_PLAIN_BODIES = st.dictionaries(st.sampled_from(sorted(validation._PLAIN_KEYS)), _VALUES)


def _outcome(body: dict[str, Any], require_model: bool) -> Any:
    try:
        return validation.validate_create_body(dict(body), require_model=require_model)
    except APIError as error:
        return ("error", error.status, str(error), orjson.dumps(error.body()))


def test_the_plain_keys_are_known_create_params() -> None:
    assert validation._PLAIN_KEYS <= validation.KNOWN_CREATE_PARAMS


@settings(deadline=None)  # a loaded machine must not fail it
@given(_PLAIN_BODIES, st.booleans())
def test_plain_validation_is_the_general_validation(
    body: dict[str, Any], require_model: bool
) -> None:
    fast = _outcome(body, require_model)
    plain_keys = validation._PLAIN_KEYS
    try:
        validation._PLAIN_KEYS = frozenset()  # type: ignore[misc]
        general = _outcome(body, require_model)
    finally:
        validation._PLAIN_KEYS = plain_keys  # type: ignore[misc]
    assert fast == general


class _Recording(dict[str, Any]):
    """A body that records which fields the skeleton reads."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)


def test_the_skeleton_shortcut_knows_every_field_the_skeleton_reads() -> None:
    body = _Recording()
    response_object._skeleton(body, response_id="resp_1", created_at=1)
    assert body.read - {"model"} == response_object._READ


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"model": "m"},
        {"model": "m", "input": "hi", "stream": True},
        {"model": None, "input": [], "stream_options": {}, "include": []},
    ],
)
def test_the_plain_skeleton_is_the_general_one(body: dict[str, Any]) -> None:
    fast = response_object.response_skeleton(body, response_id="resp_1", created_at=5)
    general = response_object._skeleton(body, response_id="resp_1", created_at=5)
    assert orjson.dumps(fast) == orjson.dumps(general)  # same keys, same order, same values
    other = response_object.response_skeleton(body, response_id="resp_2", created_at=5)
    for key, value in fast.items():  # nothing mutable shared between responses
        if isinstance(value, dict | list):
            assert value is not other[key]
            assert value is not response_object._DEFAULTS[key]
    fast["text"]["format"]["type"] = "changed"
    assert other["text"]["format"] == {"type": "text"}
