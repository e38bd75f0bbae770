"""The stream core's shape (issue 31): one state with plain event handlers, and the speed work
behind one seam that the framing layer goes through without touching the validator's state.

Each of these failed on the core this replaced: the validator was a chain of seven rule
mixins, and the framing layer held its route table and wrote its counters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import conformance.sse.framing as framing
from conformance import SSEStreamValidator
from conformance.schema import SCHEMAS
from conformance.validator import StreamValidator
from conformance.validator.core import _tables
from conformance.validator.fastpath import FastPath
from conformance.validator.state import StreamState


def test_the_validator_is_one_state_and_a_facade() -> None:
    assert StreamValidator.__mro__ == (StreamValidator, StreamState, object)
    assert FastPath.__mro__ == (FastPath, object)


def test_every_handler_is_a_plain_function_of_state_event_and_index() -> None:
    handlers = _tables(SCHEMAS)[1]
    assert len(handlers) > 30
    for etype, handler in handlers.items():
        assert inspect.isfunction(handler), etype
        assert list(inspect.signature(handler).parameters)[:3] == ["state", "event", "index"], etype
        assert not handler.__qualname__.count("."), (etype, handler.__qualname__)


# What only the validator (and its fast path) may read or write of its state.
_VALIDATOR_STATE = frozenset(
    {"next_seq", "fast_judged", "route", "routes", "fast_types", "feed_fast", "feed_full"}
)


def test_the_framing_layer_does_not_touch_the_validators_state() -> None:
    tree = ast.parse(Path(framing.__file__).read_text())
    touched = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in _VALIDATOR_STATE
    }
    assert not touched


def test_one_switch_selects_the_reference_path() -> None:
    assert StreamValidator(fast=False).fast_path is None
    assert isinstance(StreamValidator().fast_path, FastPath)
    assert SSEStreamValidator(fast=False).validator.fast_path is None
