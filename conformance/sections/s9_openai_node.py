"""§9.3 openai-node's stream accumulator (docs/spec.md#s9-3):
``live.client.openai_node.stream_accumulates``.

openai-node's ``responses.stream`` helper (lib/responses/ResponseStream.mjs) feeds every event
to its response accumulator (internal/responses/response-accumulator.mjs,
``accumulateResponseWithContext``), which throws an ``OpenAIError`` on an event it cannot place:
the stream ends there, the caller gets the error (LiteLLM's reasoning events without their index:
"missing content at index undefined"). :func:`openai_node_stream_problem` is that accumulator's
behaviour as a rule over the events of one streamed response: the first event it throws on, with
its message, or None. The conditions it mirrors, with the functions that hold them:

- ``accumulateResponseWithContext`` — the first event is ``response.created``;
  ``cloneValidatedResponse`` — every output item of a lifecycle event's response has its own
  ``type``, a non-empty ``id`` (optional on ``function_call`` / ``custom_tool_call``), a
  ``call_id`` on the routed call types, and no identity twice;
- ``ResponseStream`` ``prepareEvent`` — a lifecycle event carries a ``response`` object whose
  ``id`` does not change; ``prepareOutputEvent`` — an ``output_index`` is a non-negative safe
  integer, an added one not used before, any other one added before ("missing output at index
  N"); ``assertComplete`` — ``response.completed`` leaves no added item unfinished;
- ``validateOutputItemIdentity`` — an item-scoped event (``expectedOutputItemTypes``, the
  content parts) has a non-empty ``item_id`` equal to the addressed item's ``id``, and that item
  is of the event family's type; ``getOutputItemIdentityKeys`` /
  ``validateResponseOutputItemIdentity`` — an added item's identity, a done item's type, ``id``
  and ``call_id`` equal to the added one's;
- ``validateArrayIndex`` / ``validateArrayAppend`` / ``getContent`` — a ``content_index`` or
  ``summary_index`` (appended in order by ``content_part.added`` /
  ``reasoning_summary_part.added``, in range for the rest), an ``annotation_index`` (in range or
  appended), a ``command_index`` of a ``shell_call``; the content part addressed is of the
  event's kind ("expected content to be 'output_text', got …").

Not mirrored: ``sanitizeResponseEvent``'s "Unhandled response stream event: unknown" on a type
outside ``supportedResponseEventTypes`` (7.60 does not know OpenAI's own
``response.apply_patch_call_operation_diff.delta``: a limit of the client, not of the server;
unknown types are §1's), an ``error`` event (the helper raises the server's error: judged by
§1.2 and the flow's checks), events after the terminal one (judged by §2), the interim reordering of a
``response.in_progress`` that carries output, and ``shell_call_output_content`` events (their
item is matched, their command indexes are not).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Level, register
from .accumulators import LIFECYCLE_EVENTS, TERMINAL_EVENTS, stream_accumulator

__all__ = ["OPENAI_NODE_STREAM_ACCUMULATES", "declare_examples", "openai_node_stream_problem"]

_SOURCE = "openai-node 7.60 src/internal/responses/response-accumulator.ts"
OPENAI_NODE_STREAM_ACCUMULATES = register(
    "live.client.openai_node.stream_accumulates",
    Level.MUST,
    f"§9.3 [CLIENT] {_SOURCE} (accumulateResponseWithContext, validateArrayIndex, "
    "validateOutputItemIdentity); src/lib/responses/ResponseStream.ts",
    "every event of a response openai-node's `responses.stream` reads is one its accumulator can "
    "place: after `response.created`, an `output_index` added once, before the events that "
    "address it; an `item_id` equal to that item's `id`, of the event family's type; a "
    "`content_index` / "
    "`summary_index` appended in order, then in range (else it throws: "
    '"missing content at index undefined")',
    profile="client:openai-node",
)

_LIFECYCLE = LIFECYCLE_EVENTS
_TERMINAL = TERMINAL_EVENTS
# response-accumulator.mjs expectedOutputItemTypes: event type → the output item type it addresses
_ITEM_TYPES: dict[str, str] = {
    **dict.fromkeys(
        ("response.output_text.delta", "response.output_text.done",
         "response.output_text.annotation.added", "response.refusal.delta",
         "response.refusal.done"), "message"),
    **dict.fromkeys(
        ("response.function_call_arguments.delta", "response.function_call_arguments.done"),
        "function_call"),
    **dict.fromkeys(
        ("response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"),
        "custom_tool_call"),
    **dict.fromkeys(
        ("response.mcp_call_arguments.delta", "response.mcp_call_arguments.done",
         "response.mcp_call.in_progress", "response.mcp_call.completed",
         "response.mcp_call.failed"), "mcp_call"),
    **dict.fromkeys(
        ("response.shell_call_output_content.delta", "response.shell_call_output_content.done"),
        "shell_call_output"),
    **dict.fromkeys(
        ("response.reasoning_text.delta", "response.reasoning_text.done",
         "response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
         "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done"),
        "reasoning"),
    **dict.fromkeys(
        ("response.code_interpreter_call_code.delta", "response.code_interpreter_call_code.done",
         "response.code_interpreter_call.in_progress",
         "response.code_interpreter_call.interpreting",
         "response.code_interpreter_call.completed"), "code_interpreter_call"),
    **dict.fromkeys(
        ("response.file_search_call.in_progress", "response.file_search_call.searching",
         "response.file_search_call.completed"), "file_search_call"),
    **dict.fromkeys(
        ("response.web_search_call.in_progress", "response.web_search_call.searching",
         "response.web_search_call.completed"), "web_search_call"),
    **dict.fromkeys(
        ("response.image_generation_call.in_progress",
         "response.image_generation_call.generating",
         "response.image_generation_call.completed",
         "response.image_generation_call.partial_image"), "image_generation_call"),
    **dict.fromkeys(
        ("response.mcp_list_tools.in_progress", "response.mcp_list_tools.completed",
         "response.mcp_list_tools.failed"), "mcp_list_tools"),
    "response.compaction.compacting": "compaction",
}  # fmt: skip
_SHELL_COMMAND = frozenset(
    {"response.shell_call_command.added", "response.shell_call_command.delta",
     "response.shell_call_command.done"}
)  # fmt: skip
_PARTS = frozenset({"response.content_part.added", "response.content_part.done"})
# supportedResponseEventTypes
_SUPPORTED = frozenset(
    {*_ITEM_TYPES, *_SHELL_COMMAND, *_PARTS, *_LIFECYCLE, "response.output_item.added",
     "response.output_item.done", "response.audio.delta", "response.audio.done",
     "response.audio.transcript.delta", "response.audio.transcript.done", "keepalive", "error"}
)  # fmt: skip
_ROUTED = frozenset({"function_call", "custom_tool_call", "shell_call", "shell_call_output"})
_MISSING = object()  # a field the event does not have (JavaScript's `undefined`)


class _Throw(Exception):
    """What the accumulator throws (an OpenAIError, or the TypeError of a missing object)."""


def _js(value: Any) -> str:
    """``value`` as a JavaScript template literal shows it."""
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else _js(v) for v in value)
    return str(value)


def _safe_int(value: Any) -> int | None:
    """``value`` when ``Number.isSafeInteger`` holds of it, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    return int(value) if abs(value) <= 2**53 - 1 else None


def _falsy(value: Any) -> bool:
    return (
        value is None
        or value is False
        or (isinstance(value, int | float) and value == 0)
        or (value == "")
    )


def _index(collection: Any, index: Any, kind: str, *, append: bool = False) -> int:
    """``validateArrayIndex``: ``index`` of ``collection`` in range, or at its end when
    ``append``."""
    at = _safe_int(index)
    if (
        not isinstance(collection, list)
        or at is None
        or at < 0
        or at > len(collection)
        or (at == len(collection) and not append)
    ):
        raise _Throw(f"missing {kind} at index {_js(index)}")
    return at


def _append(collection: Any, index: Any, kind: str) -> None:
    """``validateArrayAppend``: ``index`` is the end of ``collection``."""
    if collection is _MISSING or collection is None:
        raise _Throw(f"Cannot read properties of {_js(collection)} (reading 'length')")
    if not isinstance(collection, list) or _safe_int(index) != len(collection):
        raise _Throw(f"missing {kind} at index {_js(index)}")
    _index(collection, index, kind, append=True)


def _content(collection: Any, index: Any) -> Any:
    """``getContent``."""
    part = collection[_index(collection, index, "content")]
    if _falsy(part):
        raise _Throw(f"missing content at index {_js(index)}")
    return part


def _field(obj: Any, name: str) -> Any:
    return obj.get(name, _MISSING) if isinstance(obj, dict) else _MISSING


def _identity_keys(item: Any, event_type: str) -> list[str]:
    """``getOutputItemIdentityKeys``."""
    kind = _field(item, "type")
    if not isinstance(kind, str):
        raise _Throw(f"expected an own output item type for {event_type}")
    keys = []
    ident = _field(item, "id")
    if ident is not _MISSING:
        if not isinstance(ident, str) or (ident == "" and kind != "computer_call"):
            raise _Throw(f"expected a non-empty output item id for {event_type}")
        keys.append(f"id:{ident}")
    elif kind not in ("function_call", "custom_tool_call"):
        raise _Throw(f"expected a non-empty output item id for {event_type}")
    if kind in _ROUTED:
        call = _field(item, "call_id")
        if not isinstance(call, str) or (call == "" and kind != "function_call"):
            raise _Throw(f"expected a non-empty output item call_id for {event_type}")
        keys.append(f"call:{kind}:{call}")
    return keys


def _validate_output(output: Any, where: str) -> list[dict[str, Any]]:
    """``cloneValidatedResponse``: the response's output items, their identities unique."""
    if not isinstance(output, list):
        return []
    seen: set[str] = set()
    for i, item in enumerate(output):
        if _falsy(item):
            raise _Throw(f"missing output at index {i}")
        for key in _identity_keys(item, where):
            if key in seen:
                raise _Throw(f"duplicate output item identity '{key}'")
            seen.add(key)
    return [_copy(i) for i in output]


def _same_item(output: Mapping[str, Any], replacement: Any, event_type: str) -> None:
    """``validateResponseOutputItemIdentity``."""
    _identity_keys(output, event_type)
    _identity_keys(replacement, event_type)
    if replacement.get("type") != output["type"]:
        raise _Throw(
            f"expected output item type '{output['type']}', got '{_js(replacement.get('type'))}'"
        )
    before, after = output.get("id", _MISSING), replacement.get("id", _MISSING)
    adds_id = before is _MISSING and output["type"] in ("function_call", "custom_tool_call")
    if before != after and not adds_id:
        raise _Throw(f"expected output item id '{_js(before)}', got '{_js(after)}'")
    if (
        output["type"] in _ROUTED
        and replacement["type"] in _ROUTED
        and output.get("call_id") != replacement.get("call_id")
    ):
        raise _Throw(
            f"expected output item call_id '{_js(output.get('call_id'))}', got "
            f"'{_js(replacement.get('call_id'))}'"
        )


def _identity(item: Mapping[str, Any]) -> str:
    """ResponseStream.mjs ``outputIdentity`` (a JSON text, as there)."""
    kind = item.get("type")
    ident = None if isinstance(kind, str) and kind in _ROUTED else item.get("id")
    return json.dumps([kind, ident, item.get("call_id")], sort_keys=True, default=str)


def _copy(item: Any) -> Any:
    """An output item as the accumulator keeps it: its lists of parts its own."""
    if not isinstance(item, dict):
        return item
    kept = dict(item)
    for name in ("content", "summary"):
        if isinstance(kept.get(name), list):
            kept[name] = list(kept[name])
    return kept


class _Stream:
    """One ``responses.stream``: the snapshot's output and the wire indexes placed in it."""

    def __init__(self) -> None:
        self.started = False
        self.response_id: Any = None
        self.output: list[Any] = []
        self.positions: dict[int, int] = {}  # wire output_index → position in the output
        self.unfinished: dict[int, str] = {}
        self.done: dict[int, Any] = {}

    def feed(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if not isinstance(kind, str) or kind not in _SUPPORTED:
            return  # "Unhandled response stream event": not judged here (the module's docstring)
        if kind in _LIFECYCLE:
            self.lifecycle(kind, event)
            return
        if not self.started:
            raise _Throw(
                f"When snapshot hasn't been set yet, expected 'response.created' event, got {kind}"
            )
        if kind == "keepalive" or kind.startswith("response.audio"):
            return
        position: Any = _MISSING
        if "output_index" in event:
            position = self.place(kind, event)
            if position is None:
                return  # an added event without an item: ignored
        self.accumulate(kind, event, position)

    def lifecycle(self, kind: str, event: Mapping[str, Any]) -> None:
        if "response" not in event:
            raise _Throw("Lifecycle events require their own response field.")
        response = event["response"]
        if not isinstance(response, dict):
            raise _Throw("Lifecycle events require a response object.")
        if self.started and response.get("id") != self.response_id:
            raise _Throw("Lifecycle response identity changed.")
        output = response.get("output")
        if kind == "response.completed":
            final = output if isinstance(output, list) else list(self.done.values())
            identities = {_identity(i) for i in final if isinstance(i, dict)}
            if any(identity not in identities for identity in self.unfinished.values()):
                raise _Throw("Cannot complete response with unfinished output items.")
        if not self.started:
            if kind != "response.created":
                raise _Throw(
                    "When snapshot hasn't been set yet, expected 'response.created' event, got "
                    f"{kind}"
                )
            self.started = True
            self.response_id = response.get("id")
            self.output = _validate_output(output, "response snapshot")
            self.positions = {i: i for i in range(len(self.output))}
            self.unfinished = {i: _identity(item) for i, item in enumerate(self.output)}
            return
        _validate_output(output, "response snapshot")

    def place(self, kind: str, event: Mapping[str, Any]) -> int | None:
        """ResponseStream ``prepareOutputEvent``: the wire ``output_index`` to a position."""
        index = _safe_int(event["output_index"])
        if index is None or index < 0:
            raise _Throw("Invalid response output index.")
        if kind == "response.output_item.added":
            if event.get("item") is None:
                return None
            if index in self.done or index in self.unfinished:
                raise _Throw(f"Duplicate response output index {index}.")
            return len(self.output)
        if index not in self.positions:
            raise _Throw(f"missing output at index {index}")
        return self.positions[index]

    def item(self, position: Any) -> Any:
        """``getOutput``."""
        at = _index(self.output, position, "output")
        if _falsy(self.output[at]):
            raise _Throw(f"missing output at index {_js(position)}")
        return self.output[at]

    def accumulate(self, kind: str, event: Mapping[str, Any], position: Any) -> None:
        if kind in _SHELL_COMMAND:
            output = self.item(position)
            if output.get("type") != "shell_call":
                raise _Throw(
                    f"expected output item type 'shell_call', got '{_js(output.get('type'))}'"
                )
        elif kind in _PARTS or kind in _ITEM_TYPES:
            self.identity(kind, event, position)
        if kind == "response.output_item.added":
            self.added(event, position)
        elif kind == "response.output_item.done":
            output = self.item(position)
            _same_item(output, event.get("item"), kind)
            self.output[position] = _copy(event["item"])
            wire = int(event["output_index"])  # placed: a safe integer
            self.done[wire] = self.output[position]
            self.unfinished.pop(wire, None)
        elif kind in _PARTS:
            self.part(kind, event, self.item(position))
        elif kind in _SHELL_COMMAND:
            action = self.item(position).get("action", _MISSING)
            if action is _MISSING or action is None:
                raise _Throw(f"Cannot read properties of {_js(action)} (reading 'commands')")
            commands = _field(action, "commands")
            at = _index(
                commands, event.get("command_index", _MISSING), "command",
                append=kind == "response.shell_call_command.added",
            )  # fmt: skip
            if at == len(commands):
                commands.append(event.get("command"))
        elif kind in _ITEM_TYPES:
            self.indexed(kind, event, self.item(position))

    def identity(self, kind: str, event: Mapping[str, Any], position: Any) -> None:
        """``validateOutputItemIdentity``."""
        ident = event.get("item_id")
        if not isinstance(ident, str) or not ident:
            raise _Throw(f"expected a non-empty item_id for {kind}")
        output = self.item(position)
        if output.get("id", _MISSING) != ident:
            raise _Throw(f"expected item_id '{_js(output.get('id', _MISSING))}', got '{ident}'")
        if kind in _PARTS:
            part = event.get("part", _MISSING)
            if part is _MISSING or part is None:
                raise _Throw(f"Cannot read properties of {_js(part)} (reading 'type')")
            expected = "reasoning" if _field(part, "type") == "reasoning_text" else "message"
        else:
            expected = _ITEM_TYPES[kind]
        if output.get("type") != expected:
            raise _Throw(f"expected output item type '{expected}', got '{_js(output.get('type'))}'")

    def added(self, event: Mapping[str, Any], position: Any) -> None:
        _append(self.output, position, "output")
        item = event["item"]
        keys = _identity_keys(item, "response.output_item.added")
        known = {
            k
            for i in self.output
            if isinstance(i, dict)
            for k in _identity_keys(i, "response snapshot")
        }
        for key in keys:
            if key in known:
                raise _Throw(f"duplicate output item identity '{key}'")
        self.output.append(_copy(item))
        wire = int(event["output_index"])  # placed: a safe integer
        self.positions[wire] = position
        self.unfinished[wire] = _identity(item)

    def part(self, kind: str, event: Mapping[str, Any], output: dict[str, Any]) -> None:
        part = event["part"]
        index = event.get("content_index", _MISSING)
        reasoning_part = _field(part, "type") == "reasoning_text"
        if output.get("type") == "message" and not reasoning_part:
            content = output.get("content", _MISSING)
            if kind == "response.content_part.added":
                _append(content, index, "content")
                content.append(part)
            else:
                _content(content, index)
                content[_index(content, index, "content")] = part
        elif output.get("type") == "reasoning" and reasoning_part:
            content = output.get("content")
            if kind == "response.content_part.added":
                content = content if content is not None else []
                _append(content, index, "content")
                content.append(part)
                output["content"] = content
            else:
                if not content:
                    raise _Throw(f"missing content at index {_js(index)}")
                _content(content, index)
                content[_index(content, index, "content")] = part

    def indexed(self, kind: str, event: Mapping[str, Any], output: dict[str, Any]) -> None:
        """The events that address a part of their item: its content, summary, annotations."""
        family = output.get("type")
        index = event.get("content_index", _MISSING)
        if family == "message" and kind.startswith(("response.output_text.", "response.refusal.")):
            part = _content(output.get("content", _MISSING), index)
            wanted = "refusal" if kind.startswith("response.refusal.") else "output_text"
            if _field(part, "type") != wanted:
                raise _Throw(f"expected content to be '{wanted}', got {_js(_field(part, 'type'))}")
            if kind == "response.output_text.annotation.added":
                annotations = _field(part, "annotations")
                at = _index(
                    annotations, event.get("annotation_index", _MISSING), "annotation",
                    append=True,
                )  # fmt: skip
                if at == len(annotations):
                    annotations.append(event.get("annotation"))
        elif family == "reasoning" and kind.startswith("response.reasoning_text."):
            if not output.get("content"):
                raise _Throw(f"missing content at index {_js(index)}")
            part = _content(output["content"], index)
            if _field(part, "type") != "reasoning_text":
                raise _Throw(
                    f"expected content to be 'reasoning_text', got {_js(_field(part, 'type'))}"
                )
        elif family == "reasoning" and kind.startswith("response.reasoning_summary_"):
            summary = output.get("summary", _MISSING)
            at = event.get("summary_index", _MISSING)
            if kind == "response.reasoning_summary_part.added":
                _append(summary, at, "content")
                summary.append(event.get("part"))
            else:
                _content(summary, at)


def openai_node_stream_problem(events: Iterable[Any]) -> tuple[int, str] | None:
    """The first of ``events`` (one streamed response, in order) openai-node's
    ``responses.stream`` accumulator throws on, as (its index, the accumulator's message); None
    when it places them all (up to an ``error`` event or the terminal one)."""
    stream = _Stream()
    for n, event in enumerate(events):
        if not isinstance(event, dict):
            continue  # not JSON: judged by §1
        if event.get("type") == "error":
            return None  # the helper raises the server's error: not the accumulator's
        try:
            stream.feed(event)
        except _Throw as exc:
            return n, str(exc)
        if isinstance(event.get("type"), str) and event["type"] in _TERMINAL:
            return None
    return None


stream_accumulator(
    "openai-node", OPENAI_NODE_STREAM_ACCUMULATES, openai_node_stream_problem,
    "every event placed by openai-node's response accumulator",
)  # fmt: skip


def declare_examples() -> None:
    """The failing example is a gateway that drops ``content_index`` from the text deltas
    (tests/suite/broken_client_servers.py), the near miss the mock itself."""
    from ..examples.live import live

    live(
        OPENAI_NODE_STREAM_ACCUMULATES.id,
        "text_delta_without_content_index",
        "a server whose streamed `response.output_text.delta` events carry no `content_index` "
        '(LiteLLM\'s reasoning events carry none: "missing content at index undefined")',
    )
