"""Errors: bad input gets a 4xx in OpenAI's error shape, never 2xx or 5xx; `code` is a string or
null, never the HTTP status (SPEC §4 Errors; KB21); unknown ids get 404 (SPEC §4)."""

from __future__ import annotations

from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from ..http import HttpExchange
from ..probe import Probe

UNKNOWN_ID = "resp_conformance0000000000000000000000000000unknown"

# name → (body, or raw bytes for a body that is not JSON; the field `error.param` should name)
BAD_REQUESTS: dict[str, tuple[Any, str | None]] = {
    "malformed_json": (b'{"model": "MODEL", "input": "Say hi"', None),
    "input_wrong_type": ({"input": 42}, "input"),
    "max_output_tokens_wrong_type": ({"input": "Say hi", "max_output_tokens": "many"},
                                     "max_output_tokens"),
    "temperature_out_of_range": ({"input": "Say hi", "temperature": 7}, "temperature"),
    "tool_choice_invalid": ({"input": "Say hi", "tool_choice": "sometimes"}, "tool_choice"),
    # [OAPI] ToolChoiceParam: an object whose `type` is none of the union's kinds
    "tool_choice_unknown_type": ({"input": "Say hi", "tool_choice": {"type": "not_a_tool_kind"}},
                                 "tool_choice"),
    "tool_choice_undeclared_function": (
        {"input": "Say hi", "tool_choice": {"type": "function", "name": "not_declared"}},
        "tool_choice",
    ),
}  # fmt: skip


def _is_4xx(probe: Probe, ex: HttpExchange, what: str) -> bool:
    status = ex.status
    return probe.check(
        L.BAD_INPUT_4XX, status is not None and 400 <= status < 500 and status != 429, ex,
        expected="a 4xx error", actual=f"HTTP {status}" if status is not None else ex.error,
        message=what,
    )  # fmt: skip


@pytest.mark.checks(L.BAD_INPUT_4XX.id, L.PARAM_NAMED.id, C.ERROR_SHAPE.id, C.ERROR_CODE_TYPE.id)
@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_bad_input(probe: Probe, name: str) -> None:
    body, param = BAD_REQUESTS[name]
    if isinstance(body, bytes):
        ex = probe.send("POST", "/responses", content=body.replace(b"MODEL", probe.model.encode()))
    else:
        ex = probe.send("POST", "/responses", json_body=probe.body(**body))
    if not _is_4xx(probe, ex, name) or param is None:
        return
    error = ex.json.get("error")
    named = error.get("param") if isinstance(error, dict) else None
    probe.check(
        L.PARAM_NAMED, isinstance(named, str) and named.split(".")[0].split("[")[0] == param,
        ex, expected=f"error.param {param!r}", actual=f"{named!r}",
    )  # fmt: skip


@pytest.mark.checks(L.NOT_FOUND_404.id, C.ERROR_SHAPE.id, C.ERROR_CODE_TYPE.id)
@pytest.mark.profiles("stateful")
@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "/responses/{id}"),
        ("DELETE", "/responses/{id}"),
        ("POST", "/responses/{id}/cancel"),
        ("GET", "/responses/{id}/input_items"),
    ],
    ids=["retrieve", "delete", "cancel", "input_items"],
)
def test_unknown_response_id(probe: Probe, method: str, path: str) -> None:
    ex = probe.send(method, path.format(id=UNKNOWN_ID))
    probe.check(
        L.NOT_FOUND_404, ex.status == 404, ex,
        expected="HTTP 404", actual=f"HTTP {ex.status}" if ex.status else ex.error,
    )  # fmt: skip
