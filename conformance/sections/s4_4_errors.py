"""§4.4 Errors (docs/spec.md#s4-4): ``error.shape``, ``error.code.type``, ``live.errors.*``.

An error body is ``{"error": {"message", "type", "param", "code"}}`` ([OAPI] ``ErrorResponse``;
``param`` and ``code`` may be null), and ``code`` is a string or null — never the HTTP status
number (KB21): clients read it as a string. The rule, :func:`judge_error_body`, judges one error
body wherever one is answered (the suite, the proxy, ``check``); an answer that is not JSON at all
is its caller's to report under ``error.shape``. It marks the checks it evaluated in ``applied``
where it evaluates them.

Bad input gets a 4xx in that shape, never 2xx or 5xx, and a 400 for one bad field names it in
``error.param`` (``live.errors.bad_input_4xx``, ``live.errors.param_named``); an unknown response
id gets 404 on every endpoint that takes one (``live.errors.not_found_404``, a clause of §4.1
whose case is here, with the other errors). Their rules are the cases below (:mod:`.cases`), run
by the suite; each failing example is a misbehaving server (tests/suite/broken_servers.py), its
near miss the embedded mock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, Violation, register
from ..catalog.render import short
from .cases import case, params

if TYPE_CHECKING:
    from ..schema import SchemaValidator
    from ..suite.http import HttpExchange
    from ..suite.probe import Probe

__all__ = [
    "BAD_INPUT_4XX",
    "ERROR_CODE_TYPE",
    "ERROR_SHAPE",
    "NOT_FOUND_404",
    "PARAM_NAMED",
    "declare_examples",
    "judge_error_body",
]

ERROR_SHAPE = register(
    "error.shape",
    Level.MUST,
    "§4.4 [OAPI] ErrorResponse",
    'an error body is `{"error": {"message", "type", "param", "code"}}` (`param`, `code` may be null)',
)
ERROR_CODE_TYPE = register(
    "error.code.type",
    Level.MUST,
    "§4.4; KB21",
    "`error.code` is a string or null, never the HTTP status number",
)
BAD_INPUT_4XX = register(
    "live.errors.bad_input_4xx",
    Level.MUST,
    "§4.4",
    "bad input (malformed JSON, wrong types, an invalid `tool_choice`) gets a 4xx in OpenAI's "
    "error shape, never 2xx or 5xx",
)
PARAM_NAMED = register(
    "live.errors.param_named",
    Level.SHOULD,
    "§4.4",
    "a 400 for one bad field names that field in `error.param`",
)
NOT_FOUND_404 = register(
    "live.errors.not_found_404",
    Level.MUST,
    "§4.1",
    "an unknown response id gets 404 on GET, DELETE, cancel and input_items",
)


def judge_error_body(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """One error body against ``ErrorResponse`` (through ``schemas``) and the code's type; the
    checks evaluated go into ``applied`` when given. Open enums (SPEC §1a) are not findings."""
    if applied is not None:
        applied.add(ERROR_SHAPE.id)
    out: list[Violation] = []
    error = body.get("error")
    if not isinstance(error, dict):
        return [
            ERROR_SHAPE.violation(expected="an `error` object", actual=short(error), path="error")
        ]
    if applied is not None and "code" in error:
        applied.add(ERROR_CODE_TYPE.id)
    code = error.get("code", None)
    if code is not None and not isinstance(code, str):
        out.append(
            ERROR_CODE_TYPE.violation(
                expected="a string or null",
                actual=repr(code),
                path="error.code",
                message="the HTTP status belongs in the status line, not in `code`"
                if isinstance(code, int)
                else "",
            )
        )
    for issue in schemas.validate_error_body(dict(body)):
        if issue.path == "error.code" and issue.kind == "type":
            continue  # reported above under its own ID
        if issue.kind == "enum":
            continue  # open enums (SPEC §1a)
        out.append(
            ERROR_SHAPE.violation(expected=issue.expected, actual=issue.actual, path=issue.path)
        )
    return out


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples); a
    live check's failing example is a misbehaving server, its near miss the mock."""
    from ..examples.build import error_body
    from ..examples.live import live
    from ..examples.registry import Sample, example

    example(
        ERROR_SHAPE.id,
        Sample("error", lambda: {"detail": "Method Not Allowed"}, "FastAPI's own error body"),
        Sample("error", error_body),
    )
    example(
        ERROR_CODE_TYPE.id,
        Sample("error", lambda: error_body(code=400), "the HTTP status as `code` (KB21)"),
        Sample("error", lambda: error_body(code=None)),
    )
    live(NOT_FOUND_404.id, "unknown_id_400", "a server that answers 400 for an unknown response id")
    live(BAD_INPUT_4XX.id, "bad_input_500", "a server that answers bad input with 500")
    live(
        PARAM_NAMED.id,
        "param_not_named",
        "a server whose 400 errors name no field (`param: null`)",
    )


# --- the cases (the rules of live.errors.*) ----------------------------------------------------

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
        BAD_INPUT_4XX, status is not None and 400 <= status < 500 and status != 429, ex,
        expected="a 4xx error", actual=f"HTTP {status}" if status is not None else ex.error,
        message=what,
    )  # fmt: skip


@case("errors", BAD_INPUT_4XX, PARAM_NAMED, ERROR_SHAPE, ERROR_CODE_TYPE)
@params("name", list(BAD_REQUESTS))
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
        PARAM_NAMED, isinstance(named, str) and named.split(".")[0].split("[")[0] == param,
        ex, expected=f"error.param {param!r}", actual=f"{named!r}",
    )  # fmt: skip


@case("errors", NOT_FOUND_404, ERROR_SHAPE, ERROR_CODE_TYPE, profiles=("stateful",))
@params(
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
        NOT_FOUND_404, ex.status == 404, ex,
        expected="HTTP 404", actual=f"HTTP {ex.status}" if ex.status else ex.error,
    )  # fmt: skip
