"""Examples of the Response body checks (``response.*``; ``usage.*``'s and ``error.*``'s are in
their section modules, conformance/sections/s3_2_usage.py and s4_4_errors.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .build import Event, _call, _message, response, set_in, usage
from .registry import Sample, example

OR = ("core", "openresponses")


def B(build: Callable[[], Any], note: str = "", **opts: Any) -> Sample:
    return Sample("response", build, note, **opts)


def done(**fields: Any) -> Event:
    """A completed non-stream Response holding one message."""
    return response("completed", [_message("Hello")], **fields)


def edit(path: str, value: Any, **fields: Any) -> Callable[[], Event]:
    def build() -> Event:
        body = done(**fields)
        set_in(body, path, value)
        return body

    return build


def drop_key(path: str) -> Callable[[], Event]:
    def build() -> Event:
        body = done()
        *head, last = path.split(".")
        obj: Any = body
        for key in head:
            obj = obj[key]
        del obj[last]
        return body

    return build


def _incomplete(**fields: Any) -> Event:
    body = response("incomplete", [_message("Hel", "incomplete")], **fields)
    body["incomplete_details"] = {"reason": "max_output_tokens"}
    return body


# --- response.* ----------------------------------------------------------------------------------
example("response.schema.required", B(drop_key("tools")), B(done))
example("response.schema.type", B(edit("parallel_tool_calls", "yes")), B(done))
example("response.schema.value", B(edit("object", "chat.completion")), B(done))
example("response.schema.enum", B(edit("service_tier", "turbo")), B(done))
example(
    "response.incomplete_details",
    B(lambda: {**_incomplete(), "incomplete_details": None}, "`incomplete` without a reason"),
    B(_incomplete),
)
example(
    "response.failed.error",
    B(lambda: response("failed", usage=None), "`failed` with `error: null`"),
    B(lambda: response("failed", usage=None, error={"code": "server_error", "message": "x"})),
)
example(
    "response.openresponses.required_fields",
    B(drop_key("safety_identifier"), "no `safety_identifier`", profiles=OR),
    B(done, profiles=OR),
)

# usage.* (docs/spec.md §3.2): conformance/sections/s3_2_usage.py, beside their rule.

# error.* (docs/spec.md §4.4): conformance/sections/s4_4_errors.py.


# --- judge-truth: rules clients enforce (docs/spec.md §7.7, §7.8) --------------------------------


def _call_done(status: str, **call: Any) -> Callable[[], Event]:
    def build() -> Event:
        item = {**_call('{"city":"Paris"}', status), **call}
        return response("completed", [item], usage=usage(5, 7))

    return build


def _logprobs(logprob: float, alternatives: int, top: int) -> Callable[[], Event]:
    def build() -> Event:
        body = done(top_logprobs=top)
        alts = [{"token": "Hi", "logprob": -1.0, "bytes": [72, 105]}] * alternatives
        entry = {"token": "Hello", "logprob": logprob, "bytes": [72], "top_logprobs": alts}
        body["output"][0]["content"][0]["logprobs"] = [entry]
        return body

    return build


example(
    "response.item.status_completed",
    B(_call_done("in_progress"), "a function call left `in_progress` in a completed response"),
    B(
        _call_done("in_progress", caller={"type": "program", "caller_id": "cm_example"}),
        "a program issued the call",
    ),
)
example(
    "response.logprobs.nonpositive",
    B(_logprobs(0.5, 0, 0), "a token with `logprob: 0.5`"),
    B(_logprobs(0.0, 0, 0), "`logprob: 0.0` (OpenAI sends it)"),
)
example(
    "response.logprobs.top_count",
    B(_logprobs(-0.1, 3, 2), "three alternatives, `top_logprobs: 2`"),
    B(_logprobs(-0.1, 2, 2)),
)
