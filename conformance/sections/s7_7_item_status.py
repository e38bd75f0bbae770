"""§7.7 Item statuses in a completed response (docs/spec.md#s7-7):
``response.item.status_completed``.

In a ``completed`` response every ``message``, ``function_call`` and ``custom_tool_call`` is
``completed`` (or ``incomplete``, which ``stream.item.incomplete_last`` judges): the Vercel AI
SDK's chunk schema dropped a function call with any other status and still requires
``completed`` of a custom tool call. Real exceptions, allowed: a call issued by a program
(``caller.type: "program"``) stays ``in_progress`` ([REC] ``programmatic-tool-calling.{1,2}``);
hosted-tool items keep statuses of their own (Azure: ``web_search_call`` "searching",
``image_generation_call`` "generating"; OpenAI: ``shell_call_output`` "in_progress"), so they are
not judged.

The rule, :func:`judge_item_status`, judges one output item of a Response the judge sees whole (a
streamed terminal, through the stream validator's ``ResponseChecker``, and a non-stream body);
it marks the check applied where it judges an item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..catalog.registry import Level, register
from ..catalog.render import short

__all__ = [
    "FINISHED_WITH_RESPONSE",
    "ITEM_STATUS_COMPLETED",
    "declare_examples",
    "judge_item_status",
]

ITEM_STATUS_COMPLETED = register(
    "response.item.status_completed",
    Level.MUST,
    "§3.1, §7.7 [OR][SDK]",
    "in a `completed` response every message, function call and custom tool call is `completed` "
    "(a call a program issued may stay `in_progress`; hosted-tool items may keep their own status)",
)
FINISHED_WITH_RESPONSE = frozenset({"message", "function_call", "custom_tool_call"})
"""The items a client acts on once the response is ``completed``: OpenAI sends them ``completed``
there."""

Report = Callable[..., None]
"""``report(check, expected, actual, path, message="")``: the caller's sink for one finding."""


def judge_item_status(
    status: Any,
    pos: int,
    item: Mapping[str, Any],
    report: Report,
    applied: set[str] | None = None,
) -> None:
    """The item at ``output[pos]`` of a Response whose status is ``status``."""
    itype = item.get("type")
    if status != "completed" or not isinstance(itype, str) or itype not in FINISHED_WITH_RESPONSE:
        return
    if applied is not None:
        applied.add(ITEM_STATUS_COMPLETED.id)
    istatus = item.get("status", "completed")
    caller = item.get("caller")
    by_program = isinstance(caller, dict) and caller.get("type") == "program"
    if istatus not in ("completed", "incomplete") and not by_program:
        report(
            ITEM_STATUS_COMPLETED,
            "completed",
            short(istatus),
            f"output[{pos}].status",
            f"a {itype} item in a completed response",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples): a completed
    Response holding one function call."""
    from ..examples.body_samples import B
    from ..examples.build import Event, _call, response, usage
    from ..examples.registry import example

    def call_done(status: str, **call: Any) -> Callable[[], Event]:
        def build() -> Event:
            item = {**_call('{"city":"Paris"}', status), **call}
            return response("completed", [item], usage=usage(5, 7))

        return build

    example(
        ITEM_STATUS_COMPLETED.id,
        B(call_done("in_progress"), "a function call left `in_progress` in a completed response"),
        B(
            call_done("in_progress", caller={"type": "program", "caller_id": "cm_example"}),
            "a program issued the call",
        ),
    )
