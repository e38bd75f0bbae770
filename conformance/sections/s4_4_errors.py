"""§4.4 Errors (docs/spec.md#s4-4): ``error.shape``, ``error.code.type``.

An error body is ``{"error": {"message", "type", "param", "code"}}`` ([OAPI] ``ErrorResponse``;
``param`` and ``code`` may be null), and ``code`` is a string or null — never the HTTP status
number (KB21): clients read it as a string. The rule, :func:`judge_error_body`, judges one error
body wherever one is answered (the suite, the proxy, ``check``); an answer that is not JSON at all
is its caller's to report under ``error.shape``. It marks the checks it evaluated in ``applied``
where it evaluates them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, Violation, register
from ..catalog.render import short

if TYPE_CHECKING:
    from ..schema import SchemaValidator

__all__ = ["ERROR_CODE_TYPE", "ERROR_SHAPE", "declare_examples", "judge_error_body"]

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
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import error_body
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
