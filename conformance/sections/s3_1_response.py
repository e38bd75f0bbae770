"""§3.1 Fields and statuses (docs/spec.md#s3-1): ``response.schema.*``,
``response.incomplete_details``, ``response.failed.error``.

A Response object carries the fields [OAPI] ``Response`` requires, with the types and constants it
gives (the schema, with §1a's relaxations; its enumerations are open, so ``response.schema.enum``
is INFO). Its ``status`` comes with its companions: ``incomplete`` with
``incomplete_details.reason``, ``failed`` with ``error: {code, message}``, and any other status
with both null.

Two rules: :func:`judge_response_schema` on a non-stream body (a streamed terminal response is
judged by its event's schema, ``event.schema.*``) and :func:`judge_status` on every Response
object the judge sees whole (a streamed terminal, through the stream validator's
``ResponseChecker``, and a non-stream body). Each marks the checks it evaluated in ``applied``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short

if TYPE_CHECKING:
    from ..schema import SchemaValidator

__all__ = [
    "RESPONSE_FAILED_ERROR",
    "RESPONSE_INCOMPLETE_DETAILS",
    "RESPONSE_SCHEMA_ENUM",
    "RESPONSE_SCHEMA_REQUIRED",
    "RESPONSE_SCHEMA_TYPE",
    "RESPONSE_SCHEMA_VALUE",
    "declare_examples",
    "judge_response_schema",
    "judge_status",
]

RESPONSE_SCHEMA_REQUIRED = register(
    "response.schema.required",
    Level.MUST,
    "§3.1 [OAPI] Response",
    "a Response object carries every field OpenAI's schema requires (with §1a's relaxations)",
)
RESPONSE_SCHEMA_TYPE = register(
    "response.schema.type",
    Level.MUST,
    "§3.1 [OAPI] Response",
    "every field of a Response object has the type OpenAI's schema gives it",
)
RESPONSE_SCHEMA_VALUE = register(
    "response.schema.value",
    Level.MUST,
    "§3.1, §7.5 [OAPI] Response",
    "constant and discriminator fields of a Response object have the values OpenAI's schema gives",
)
RESPONSE_SCHEMA_ENUM = register(
    "response.schema.enum",
    Level.INFO,
    "§1a (enumerations are open)",
    "enumerated fields of a Response object use a value OpenAI's schema lists",
)
RESPONSE_INCOMPLETE_DETAILS = register(
    "response.incomplete_details",
    Level.MUST,
    "§3.1",
    "`status: incomplete` comes with `incomplete_details.reason`; other statuses have `incomplete_details: null`",
)
RESPONSE_FAILED_ERROR = register(
    "response.failed.error",
    Level.MUST,
    "§1.2, §3.1",
    "`status: failed` comes with `error: {code, message}`; other statuses have `error: null`",
)
_SCHEMA_CHECKS: dict[str, Check] = {
    "required": RESPONSE_SCHEMA_REQUIRED,
    "type": RESPONSE_SCHEMA_TYPE,
    "value": RESPONSE_SCHEMA_VALUE,
    "enum": RESPONSE_SCHEMA_ENUM,
}
_STATUS = (RESPONSE_INCOMPLETE_DETAILS.id, RESPONSE_FAILED_ERROR.id)

Report = Callable[..., None]
"""``report(check, expected, actual, path, message="")``: the caller's sink for one finding."""


def judge_response_schema(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """A non-stream Response body against [OAPI] ``Response`` (through ``schemas``)."""
    if applied is not None:
        applied.update(c.id for c in _SCHEMA_CHECKS.values())
    return [
        _SCHEMA_CHECKS[issue.kind].violation(
            expected=issue.expected, actual=issue.actual, path=issue.path
        )
        for issue in schemas.validate_response(dict(body))
    ]


def judge_status(
    response: Mapping[str, Any], report: Report, applied: set[str] | None = None
) -> None:
    """A Response's ``status`` against its companions, ``incomplete_details`` and ``error``."""
    if applied is not None:
        applied.update(_STATUS)
    status = response.get("status")
    details = response.get("incomplete_details")
    if status == "incomplete":
        reason = details.get("reason") if isinstance(details, dict) else None
        if not isinstance(reason, str) or not reason:
            report(
                RESPONSE_INCOMPLETE_DETAILS,
                "incomplete_details.reason set",
                short(details),
                "incomplete_details",
            )
    elif details is not None and status is not None:
        report(
            RESPONSE_INCOMPLETE_DETAILS,
            "incomplete_details: null",
            short(details),
            "incomplete_details",
            message=f"status is {status!r}",
        )
    error = response.get("error")
    if status == "failed":
        if not (
            isinstance(error, dict) and isinstance(error.get("message"), str) and "code" in error
        ):
            report(RESPONSE_FAILED_ERROR, "error: {code, message}", short(error), "error")
    elif error is not None and status is not None:
        report(
            RESPONSE_FAILED_ERROR,
            "error: null",
            short(error),
            "error",
            message=f"status is {status!r}",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.body_samples import B, done, drop_key, edit, incomplete
    from ..examples.build import response
    from ..examples.registry import example

    example(RESPONSE_SCHEMA_REQUIRED.id, B(drop_key("tools")), B(done))
    example(RESPONSE_SCHEMA_TYPE.id, B(edit("parallel_tool_calls", "yes")), B(done))
    example(RESPONSE_SCHEMA_VALUE.id, B(edit("object", "chat.completion")), B(done))
    example(RESPONSE_SCHEMA_ENUM.id, B(edit("service_tier", "turbo")), B(done))
    example(
        RESPONSE_INCOMPLETE_DETAILS.id,
        B(lambda: {**incomplete(), "incomplete_details": None}, "`incomplete` without a reason"),
        B(incomplete),
    )
    example(
        RESPONSE_FAILED_ERROR.id,
        B(lambda: response("failed", usage=None), "`failed` with `error: null`"),
        B(lambda: response("failed", usage=None, error={"code": "server_error", "message": "x"})),
    )
