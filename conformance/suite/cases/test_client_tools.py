"""Built-in tools the client runs (``hosted:shell``, ``hosted:apply_patch``,
``hosted:computer_use_preview``; ``hosted:<tool type>``): the call forced by
``tool_choice`` ([OAPI] ``SpecificFunctionShellParam``, ``SpecificApplyPatchParam``, ``ToolChoiceTypes``
``computer_use_preview``), streamed so the judge sees its whole sequence (a shell command's and a
patch diff's deltas = done = item), ending the turn with a ``call_id``; then the round trip —
the client's ``*_call_output`` for that ``call_id`` gets an answer, not the same call again
(docs/spec.md §1.7)."""

from __future__ import annotations

from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..probe import Probe

SCREENSHOT = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"  # fmt: skip
# profile → (tool, tool_choice, call item type, prompt, the client's output for a call_id)
CLIENT_TOOLS: dict[str, tuple[dict[str, Any], dict[str, Any], str, str, Any]] = {
    "hosted:shell": (
        {"type": "shell"}, {"type": "shell"}, "shell_call",
        "List the files in the current directory with a shell command.",
        lambda call_id: {"type": "shell_call_output", "call_id": call_id, "output": [
            {"stdout": "README.md\nsrc\n", "stderr": "",
             "outcome": {"type": "exit", "exit_code": 0}}]},
    ),
    "hosted:apply_patch": (
        {"type": "apply_patch"}, {"type": "apply_patch"}, "apply_patch_call",
        "Create a file notes.md that says hello, by applying a patch.",
        lambda call_id: {"type": "apply_patch_call_output", "call_id": call_id,
                         "status": "completed", "output": "created notes.md"},
    ),
    "hosted:computer_use_preview": (
        {"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
         "environment": "browser"},
        {"type": "computer_use_preview"}, "computer_call",
        "Take a screenshot of the browser.",
        lambda call_id: {"type": "computer_call_output", "call_id": call_id,
                         "output": {"type": "computer_screenshot", "image_url": SCREENSHOT}},
    ),
}  # fmt: skip
_CHECKS = {
    "hosted:shell": L.HOSTED_SHELL,
    "hosted:apply_patch": L.HOSTED_APPLY_PATCH,
    "hosted:computer_use_preview": L.HOSTED_COMPUTER,
}


def _round_trip(probe: Probe, profile: str) -> None:
    tool, choice, kind, prompt, output_for = CLIENT_TOOLS[profile]
    check = _CHECKS[profile]
    first = probe.create_stream(probe.body(input=prompt, tools=[tool], tool_choice=choice))[0]
    calls = A.items_of(first, kind)
    ok = bool(calls) and A.output_types(first)[-1] == kind
    ok = ok and all(isinstance(c.get("call_id"), str) and c.get("call_id") for c in calls)
    probe.check(
        check, ok, probe.last,
        expected=f"a `{kind}` with a `call_id`, last in the output (the client runs it)",
        actual=f"output {A.output_types(first)}, call_ids {[c.get('call_id') for c in calls]}",
    )  # fmt: skip
    if not ok:
        return
    call = calls[-1]
    history = [{"role": "user", "content": prompt}, *first.get("output", []),
               output_for(call["call_id"])]  # fmt: skip
    second = probe.create_stream(probe.body(input=history, tools=[tool]))[0]
    again = [c for c in A.items_of(second, kind) if c.get("call_id") == call["call_id"]]
    answered = "message" in A.output_types(second) and not again
    probe.check(
        check, answered and second.get("status") == "completed", probe.last,
        expected=f"the `{kind}` output answered with a message, the call not repeated",
        actual=f"status {second.get('status')!r}, output {A.output_types(second)}",
    )  # fmt: skip


@pytest.mark.checks(L.HOSTED_SHELL.id, C.DELTAS_EQUAL_DONE.id)
@pytest.mark.profiles("hosted:shell")
def test_shell_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:shell")


@pytest.mark.checks(L.HOSTED_APPLY_PATCH.id, C.DELTAS_EQUAL_DONE.id)
@pytest.mark.profiles("hosted:apply_patch")
def test_apply_patch_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:apply_patch")


@pytest.mark.checks(L.HOSTED_COMPUTER.id)
@pytest.mark.profiles("hosted:computer_use_preview")
def test_computer_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:computer_use_preview")
