"""§2.14 Levels not stated above — item id prefixes (docs/spec.md#s2-14): ``stream.item.id_prefix``.

Item id prefixes are INFO: OpenAI uses ``msg_``, ``rs_``, ``fc_`` or ``call_``, ``ws_``, ``fs_``,
``ci_``, ``ig_``, ``mcp_``, ``mcpl_``, ``mcpr_``, ``sh_``, ``sho_``, ``lsh_``, ``apc_``, ``cmp_``,
``cm_``, ``cmo_``, ``tsc_``, ``tso_`` (:data:`ID_PREFIX`). The rule judges the id of each item an
``output_item.added`` opens (:func:`judge_id_prefix`) and marks the check applied at every
``output_item.added`` (:func:`note_item_added`).
"""

from __future__ import annotations

from typing import Any

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = ["ID_PREFIX", "ITEM_ID_PREFIX", "declare_examples", "judge_id_prefix", "note_item_added"]

ITEM_ID_PREFIX = register(
    "stream.item.id_prefix",
    Level.INFO,
    "§2.14",
    "item ids carry OpenAI's prefix for their type (`msg_`, `rs_`, `fc_`, …)",
)
# Observed id prefixes per item type (SPEC §2 levels: INFO).
ID_PREFIX = {
    "message": ("msg_",),
    "reasoning": ("rs_",),
    "function_call": ("fc_", "call_"),
    "web_search_call": ("ws_",),
    "file_search_call": ("fs_",),
    "code_interpreter_call": ("ci_",),
    "image_generation_call": ("ig_",),
    "mcp_call": ("mcp_",),
    "mcp_list_tools": ("mcpl_",),
    "mcp_approval_request": ("mcpr_",),
    "shell_call": ("sh_",),
    "shell_call_output": ("sho_",),
    "local_shell_call": ("lsh_",),
    "apply_patch_call": ("apc_",),
    "compaction": ("cmp_",),
    "program": ("cm_",),
    "program_output": ("cmo_",),
    "tool_search_call": ("tsc_",),
    "tool_search_output": ("tso_",),
}


def note_item_added(coverage: _Coverage) -> None:
    """An `output_item.added` event, whatever it holds: its item's id is judged (the validator
    calls this where it records coverage)."""
    coverage.applied.add(ITEM_ID_PREFIX.id)


def judge_id_prefix(report: _Report, itype: Any, iid: Any, index: int) -> None:
    """The id ``iid`` of an added item of type ``itype`` against OpenAI's prefix for the type (an
    unknown type, or an id that is not a string, has none to miss)."""
    prefixes = ID_PREFIX.get(itype) if isinstance(itype, str) else None
    if prefixes and isinstance(iid, str) and not iid.startswith(prefixes):
        report(ITEM_ID_PREFIX, index, " or ".join(prefixes) + "…", iid, path="item.id")


def declare_examples() -> None:
    """The failing example and the passing near miss of the check (conformance.examples)."""
    from ..examples.build import retext, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        ITEM_ID_PREFIX.id,
        S(lambda: retext(text_stream(), "msg_example", "item_example")),
        S(text_stream),
    )
