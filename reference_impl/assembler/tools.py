"""Tool call items in the assembler's stream: function and custom tool calls streamed from
deltas, and the hosted / client-executed built-in calls (web and file search, code interpreter,
image generation, MCP, shell, apply_patch, computer, tool search) the engine hands over whole, in
the event order the recordings show ([REC] openai-*-tool.*); and the compaction item a turn may
end with. :class:`ToolEvents` is a layer of :class:`reference_impl.assembler.stream.ResponseAssembler`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine import HostedToolCall, ToolCallDelta
from ..ids import IdSource
from .items import (
    CALL_KINDS,
    Compaction,
    EngineProtocolError,
    Event,
    ItemEvents,
    ItemKind,
)

if TYPE_CHECKING:
    from ..sealing import Sealer

__all__ = ["HOSTED_KINDS", "ToolEvents"]


@dataclass(frozen=True, slots=True)
class ToolKind:
    """How one tool call item kind streams, as the recordings show ([REC] openai-*-tool.*)."""

    prefix: str  # item id prefix
    # progress event suffixes, in order; "*" marks where the streamed value goes
    stages: tuple[str, ...] = ()
    stream: str = ""  # the family of the streamed value's delta / done events
    value: str = ""  # the field of the `.done` event (and the item) holding the streamed value
    # fields of the added item beyond id / type / status
    added: tuple[tuple[str, Any], ...] = ()
    status: bool = True  # the item has a `status` field
    failed_event: bool = False  # a failed call ends with `response.<kind>.failed`
    whole: bool = False  # the added item already carries every field (no streamed part)


_IN_PROGRESS = ("in_progress",)
# Tool call kinds the assembler can stream: item type → how.
HOSTED_KINDS: dict[str, ToolKind] = {
    "web_search_call": ToolKind("ws", ("in_progress", "searching", "completed")),
    "file_search_call": ToolKind(
        "fs", ("in_progress", "searching", "completed"), added=(("queries", []), ("results", None))
    ),
    "code_interpreter_call": ToolKind(
        "ci",
        ("in_progress", "*", "interpreting", "completed"),
        "response.code_interpreter_call_code",
        "code",
        added=(("code", ""), ("container_id", None), ("outputs", [])),
    ),
    "image_generation_call": ToolKind(
        "ig", ("in_progress", "generating", "*", "completed"), added=()
    ),
    "mcp_list_tools": ToolKind(
        "mcpl", ("in_progress", "completed"), added=(("server_label", ""), ("tools", [])),
        status=False, failed_event=True,
    ),
    "mcp_call": ToolKind(
        "mcp",
        ("in_progress", "*", "completed"),
        "response.mcp_call_arguments",
        "arguments",
        added=(
            ("approval_request_id", None), ("arguments", ""), ("error", None), ("name", ""),
            ("output", None), ("server_label", ""),
        ),
        failed_event=True,
    ),
    "mcp_approval_request": ToolKind(
        "mcpr", added=(("arguments", ""), ("name", ""), ("server_label", "")), status=False,
        whole=True,
    ),
    # client-executed calls: no progress events; shell commands and patch diffs stream
    "shell_call": ToolKind(
        "sh", ("*",), "response.shell_call_command", "command",
        added=(("action", {"commands": []}), ("call_id", "")),
    ),
    "apply_patch_call": ToolKind(
        "apc", ("*",), "response.apply_patch_call_operation_diff", "diff",
        added=(("call_id", ""), ("operation", {"diff": ""})),
    ),
    "local_shell_call": ToolKind("lsh", added=(("action", {}), ("call_id", ""))),
    "computer_call": ToolKind(
        "cu", added=(("call_id", ""), ("action", {}), ("pending_safety_checks", []))
    ),
    "tool_search_call": ToolKind(
        "tsc", added=(("arguments", {}), ("call_id", None), ("execution", "server"))
    ),
    "tool_search_output": ToolKind(
        "tso", added=(("call_id", None), ("execution", "server"), ("tools", []))
    ),
}  # fmt: skip
_IDENTIFYING = frozenset({"call_id", "name", "server_label", "container_id", "approval_request_id"})
_IMAGE_META = ("size", "quality", "background", "output_format")


def _opening(key: str, value: Any, default: Any) -> Any:
    """A field of a tool call item as ``output_item.added`` shows it ([REC]): what identifies the
    call (call_id, name, server label, a patch's path) as it will be, what it produces empty."""
    if key in _IDENTIFYING:
        return value
    if key == "action" and isinstance(value, dict):
        # a shell call's commands / a local shell call's command fill in as they stream
        return {k: [] if k in ("commands", "command") else v for k, v in value.items()}
    if key == "operation" and isinstance(value, dict):
        return {**value, "diff": ""}
    if key == "execution":
        return value
    if isinstance(default, dict):
        return {}
    if isinstance(default, list):
        return []
    return default


class ToolEvents(ItemEvents):
    """The tool call items of one response (see the module docstring)."""

    def __init__(
        self,
        *,
        new_id: IdSource,
        obfuscate: Callable[[int, str], str] | None,
        sealer: Sealer | None,
    ) -> None:
        super().__init__(new_id=new_id, obfuscate=obfuscate, sealer=sealer)
        self._tool_indices: set[int] = set()

    def _tool_call(self, events: list[Event], chunk: ToolCallDelta) -> None:
        item = self._open
        kind: ItemKind = "custom_tool_call" if chunk.kind == "custom" else "function_call"
        if item is None or item.kind != kind or item.tool_index != chunk.index:
            if chunk.index in self._tool_indices:
                raise EngineProtocolError(
                    f"tool call {chunk.index} continued after another item started"
                )
            if not chunk.name:
                raise EngineProtocolError(f"tool call {chunk.index} started without a name")
            call_id = chunk.call_id or self._new_id("call")
            prefix = "ctc" if kind == "custom_tool_call" else "fc"
            item = self._open_item(
                events, kind, prefix, call_id=call_id, name=chunk.name, namespace=chunk.namespace
            )
            item.tool_index, item.call_id, item.name = chunk.index, call_id, chunk.name
            item.namespace = chunk.namespace
            self._tool_indices.add(chunk.index)
        if not chunk.arguments:
            return
        item.arguments.append(chunk.arguments)
        event = self._event(
            f"{CALL_KINDS[kind][1]}.delta",
            item_id=item.id,
            output_index=item.output_index,
            delta=chunk.arguments,
        )
        events.append(self._obfuscated(event, chunk.arguments))

    def _hosted(self, events: list[Event], chunk: HostedToolCall) -> None:
        spec = HOSTED_KINDS.get(chunk.kind)
        if spec is None:
            raise EngineProtocolError(f"hosted tool call kind {chunk.kind!r} is not supported")
        self._close_open(events, "completed")
        item_id = self._new_id(spec.prefix)
        index = len(self._done_items)
        fields = dict(chunk.fields) if chunk.fields is not None else self._hosted_fields(chunk)
        added: dict[str, Any] = {"id": item_id, "type": chunk.kind}
        if spec.status:
            added["status"] = "in_progress"
        for key, default in spec.added:
            value = fields.get(key, default)
            added[key] = value if spec.whole else _opening(key, value, default)
        done: dict[str, Any] = {"id": item_id, "type": chunk.kind}
        if spec.status:
            done["status"] = chunk.status
        done.update(fields)
        failed = chunk.status == "failed"
        events.append(self._event("response.output_item.added", output_index=index, item=added))
        where = {"output_index": index, "item_id": item_id}
        for stage in spec.stages:
            if stage == "*":
                self._hosted_value(events, spec, chunk, where)
                if chunk.kind == "image_generation_call":
                    for i, image in enumerate(chunk.partial_images):
                        events.append(
                            self._event(
                                "response.image_generation_call.partial_image",
                                **where,
                                partial_image_index=i,
                                partial_image_b64=image,
                                **{k: fields[k] for k in _IMAGE_META if k in fields},
                            )
                        )
                continue
            if stage == "completed" and failed:
                if spec.failed_event:
                    events.append(self._event(f"response.{chunk.kind}.failed", **where))
                continue  # a failed call of a kind without `.failed` just ends failed
            events.append(self._event(f"response.{chunk.kind}.{stage}", **where))
        events.append(self._event("response.output_item.done", output_index=index, item=done))
        self._done_items.append(done)

    def _compaction_item(self, events: list[Event], plan: Compaction) -> None:
        """The compaction item after the turn's output (context_management or a
        compaction_trigger input item): its ``encrypted_content`` seals the history the turn saw
        and the turn's output, which it replaces for the next turn (docs/state.md)."""
        index = len(self._done_items)
        item_id = self._new_id("cmp")
        blob = plan.seal([*plan.history, *self._done_items])
        item = {"id": item_id, "type": "compaction", "encrypted_content": blob}
        events.append(self._event("response.output_item.added", output_index=index, item=item))
        if plan.compacting:  # the SDK's event "for a compaction trigger"
            events.append(
                self._event("response.compaction.compacting", item_id=item_id, output_index=index)
            )
        events.append(self._event("response.output_item.done", output_index=index, item=item))
        self._done_items.append(item)

    def _hosted_value(
        self, events: list[Event], spec: ToolKind, chunk: HostedToolCall, where: dict[str, Any]
    ) -> None:
        """The streamed value of a tool call (code, MCP arguments, a shell command, a diff)."""
        if not spec.stream:
            return
        extra: dict[str, Any] = {}
        if spec.stream == "response.shell_call_command":
            # [REC] openai-shell-tool.1: these events carry no item_id
            where = {"output_index": where["output_index"]}
            extra["command_index"] = 0
            events.append(self._event(f"{spec.stream}.added", **where, **extra, command=""))
        for piece in chunk.stream:
            event = self._event(f"{spec.stream}.delta", **where, **extra, delta=piece)
            events.append(self._obfuscated(event, piece))
        events.append(self._event(f"{spec.stream}.done", **where, **extra,
                                  **{spec.value: "".join(chunk.stream)}))  # fmt: skip

    @staticmethod
    def _hosted_fields(chunk: HostedToolCall) -> dict[str, Any]:
        """The finished item's fields when the engine gives only an ``action`` (web / file
        search, as engines did before ``fields``)."""
        if chunk.kind == "web_search_call":
            # [REC]: the added item carries no action; the done item carries it.
            return {"action": dict(chunk.action) or {"type": "search"}}
        if chunk.kind == "file_search_call":
            return {
                "queries": list(chunk.action.get("queries", ())),
                "results": chunk.action.get("results"),
            }
        return dict(chunk.action)
