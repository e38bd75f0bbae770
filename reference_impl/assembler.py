"""ResponseAssembler: engine chunks in, Responses stream events out (sans-I/O).

The only place on the server side that knows event order. One assembler per response::

    asm = ResponseAssembler(request, response_id="resp_…", created_at=t, new_id=ids)
    events = asm.start() + asm.begin()      # response.created (+ .queued), response.in_progress
    for chunk in engine_chunks:
        events += asm.feed(chunk)           # items, parts, deltas, done events, one terminal event
    asm.response                            # the terminal Response object == the non-stream body

Event order is SPEC §2: sequence numbers 0..n-1 (§2.1); created → [queued] → in_progress (§2.2);
lifecycle events share id and created_at, with ``output: []`` and ``usage: null`` until the terminal
event (§2.3); each item opens empty with ``output_item.added`` (§2.4, §2.6), ``output_index`` 0, 1, …
(§2.5) and items never interleave; parts run ``content_part.added`` → deltas → ``.done`` →
``content_part.done`` (§2.6); the terminal ``output`` is the done items (§2.9); a cut-off closes the
open item ``incomplete`` as the last item (§2.10). Failures emit the nested ``error`` event then
``response.failed`` (SPEC §1 "The error event").
"""

from __future__ import annotations

import hashlib
import string
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .engine import (
    Chunk,
    EngineError,
    Final,
    GenerationRequest,
    HostedToolCall,
    LogProb,
    ReasoningDelta,
    ReasoningItem,
    RefusalDelta,
    TextAnnotation,
    TextDelta,
    TextRun,
    ToolCallDelta,
)
from .ids import IdSource
from .response_object import response_skeleton, usage_object

if TYPE_CHECKING:
    from .sealing import Sealer

__all__ = ["EngineProtocolError", "Event", "ResponseAssembler", "obfuscation"]

Event = dict[str, Any]

_ALNUM = string.ascii_letters + string.digits
_ALNUM_TABLE = bytes(ord(_ALNUM[b % 62]) for b in range(256))  # byte -> [A-Za-z0-9]
_OBFUSCATION_WIDTH = 16


@dataclass(frozen=True, slots=True)
class _ToolKind:
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
_HOSTED: dict[str, _ToolKind] = {
    "web_search_call": _ToolKind("ws", ("in_progress", "searching", "completed")),
    "file_search_call": _ToolKind(
        "fs", ("in_progress", "searching", "completed"), added=(("queries", []), ("results", None))
    ),
    "code_interpreter_call": _ToolKind(
        "ci",
        ("in_progress", "*", "interpreting", "completed"),
        "response.code_interpreter_call_code",
        "code",
        added=(("code", ""), ("container_id", None), ("outputs", [])),
    ),
    "image_generation_call": _ToolKind(
        "ig", ("in_progress", "generating", "*", "completed"), added=()
    ),
    "mcp_list_tools": _ToolKind(
        "mcpl", ("in_progress", "completed"), added=(("server_label", ""), ("tools", [])),
        status=False, failed_event=True,
    ),
    "mcp_call": _ToolKind(
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
    "mcp_approval_request": _ToolKind(
        "mcpr", added=(("arguments", ""), ("name", ""), ("server_label", "")), status=False,
        whole=True,
    ),
    # client-executed calls: no progress events; shell commands and patch diffs stream
    "shell_call": _ToolKind(
        "sh", ("*",), "response.shell_call_command", "command",
        added=(("action", {"commands": []}), ("call_id", "")),
    ),
    "apply_patch_call": _ToolKind(
        "apc", ("*",), "response.apply_patch_call_operation_diff", "diff",
        added=(("call_id", ""), ("operation", {"diff": ""})),
    ),
    "local_shell_call": _ToolKind("lsh", added=(("action", {}), ("call_id", ""))),
    "computer_call": _ToolKind(
        "cu", added=(("call_id", ""), ("action", {}), ("pending_safety_checks", []))
    ),
    "tool_search_call": _ToolKind(
        "tsc", added=(("arguments", {}), ("call_id", None), ("execution", "server"))
    ),
    "tool_search_output": _ToolKind(
        "tso", added=(("call_id", None), ("execution", "server"), ("tools", []))
    ),
}  # fmt: skip


class EngineProtocolError(EngineError):
    """The engine broke the chunk contract of ``reference_impl.engine`` (the response fails)."""


def obfuscation(response_id: str, sequence_number: int, delta: str) -> str:
    """The ``obfuscation`` padding of a delta event (SPEC §1 "obfuscation").

    In the recordings ``len(delta) + len(obfuscation) == 16`` for every delta shorter than 16
    characters (5,436 of 5,436) and longer deltas carry 0–15 characters; this reproduces that shape
    deterministically from a hash, so identical requests give identical bytes.
    """
    return _obfuscator(response_id)(sequence_number, delta)


def _obfuscator(response_id: str) -> Callable[[int, str], str]:
    """:func:`obfuscation` for one response: the hash of the response id is computed once and
    copied per delta (the text-delta hot path; same digests as hashing the whole input). A
    closure, not an object with ``__call__``: calling it is cheaper."""
    copy = hashlib.blake2b(f"{response_id}\x00".encode(), digest_size=17).copy
    table = _ALNUM_TABLE

    def obfuscate(sequence_number: int, delta: str) -> str:
        h = copy()
        h.update(f"{sequence_number}\x00{delta}".encode())
        digest = h.digest()
        n = len(delta)
        end = _OBFUSCATION_WIDTH + 1 - n if n < _OBFUSCATION_WIDTH else 1 + digest[0] % 16
        return digest[1:end].translate(table).decode("ascii")

    return obfuscate


PartKind = Literal["output_text", "refusal", "reasoning_text", "summary_text"]
ItemKind = Literal["message", "reasoning", "function_call", "custom_tool_call"]

LOGPROBS_INCLUDE = "message.output_text.logprobs"


@dataclass(slots=True)
class _Part:
    kind: PartKind
    index: int  # content_index, or summary_index for summary parts
    pieces: list[str] = field(default_factory=list)
    logprobs: list[dict[str, Any]] | None = None  # output_text with logprobs asked for
    annotations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(slots=True)
class _OpenItem:
    kind: ItemKind
    id: str
    output_index: int
    part: _Part | None = None
    content: list[dict[str, Any]] = field(default_factory=list)  # closed content parts
    summary: list[dict[str, Any]] = field(default_factory=list)  # closed summary parts
    # function_call / custom_tool_call only
    tool_index: int = -1
    call_id: str = ""
    name: str = ""
    namespace: str | None = None  # the namespace tool the called tool belongs to
    arguments: list[str] = field(default_factory=list)
    # reasoning only: what the model reasoned unseen (engine.ReasoningItem.text)
    hidden: str = ""


@dataclass(frozen=True, slots=True)
class Compaction:
    """A compaction the response ends with: ``seal(items)`` gives the opaque blob for the items
    it replaces (``history`` + the turn's output); ``compacting`` emits the SDK's
    ``response.compaction.compacting`` event (a compaction_trigger asked for it)."""

    history: Sequence[Mapping[str, Any]]
    seal: Callable[[list[Mapping[str, Any]]], str]
    compacting: bool = False


class ResponseAssembler:
    """Turns one engine stream into one Responses event stream (see the module docstring)."""

    def __init__(
        self,
        request: GenerationRequest,
        *,
        response_id: str,
        created_at: int,
        new_id: IdSource,
        clock: Callable[[], float] = time.time,
        include_obfuscation: bool | None = None,
        sealer: Sealer | None = None,
        compaction: Compaction | None = None,
    ) -> None:
        body = request.body
        self._compaction = compaction
        # Reasoning items carry a sealed copy of themselves when the request asks (sealing.py).
        include = body.get("include") or ()
        self._sealer = sealer if "reasoning.encrypted_content" in include else None
        self._new_id = new_id
        self._clock = clock
        self._response = response_skeleton(body, response_id=response_id, created_at=created_at)
        self._response_id = response_id
        self._background = bool(body.get("background"))
        if include_obfuscation is None:
            stream_options = body.get("stream_options") or {}
            include_obfuscation = bool(stream_options.get("include_obfuscation", True))
        self._obfuscation = _obfuscator(response_id) if include_obfuscation else None
        include = body.get("include")
        self._logprobs = isinstance(include, list) and LOGPROBS_INCLUDE in include
        self._seq = 0
        self._done_items: list[dict[str, Any]] = []
        self._open: _OpenItem | None = None
        self._tool_indices: set[int] = set()
        self._started = False
        self._in_progress = False
        self._finished = False
        if self._background:
            self._response["status"] = "queued"

    # --- state ------------------------------------------------------------------------------
    @property
    def response_id(self) -> str:
        return self._response_id

    @property
    def response(self) -> dict[str, Any]:
        """The Response object as it stands; after the terminal event, exactly its ``response``."""
        return self._response

    @property
    def finished(self) -> bool:
        """True once a terminal event was emitted (or the response was cancelled)."""
        return self._finished

    @property
    def next_sequence_number(self) -> int:
        return self._seq

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> list[Event]:
        """``response.created``, plus ``response.queued`` for a background response (SPEC §2.2)."""
        if self._started:
            return []
        self._started = True
        events = [self._lifecycle("response.created")]
        if self._background:
            events.append(self._lifecycle("response.queued"))
        return events

    def begin(self) -> list[Event]:
        """``response.in_progress``: generation starts (SPEC §2.2)."""
        events = self.start()
        if self._in_progress or self._finished:
            return events
        self._in_progress = True
        self._response["status"] = "in_progress"
        events.append(self._lifecycle("response.in_progress"))
        return events

    def feed(self, chunk: Chunk) -> list[Event]:
        """The events for one engine chunk; :class:`Final` ends the stream with its terminal event."""
        if type(chunk) is TextDelta:
            # The hot path of every text stream: more text for the open output_text part, exactly
            # one delta event. An open item implies a started, unfinished response.
            item = self._open
            if item is not None:
                part = item.part
                if part is not None and part.kind == "output_text":
                    return [self._output_text_delta(item, part, chunk.text, chunk.logprobs)]
        if self._finished:
            raise EngineProtocolError("the engine sent a chunk after its final chunk")
        events = self.begin()
        try:
            if isinstance(chunk, TextDelta):
                self._text(events, chunk.text, "output_text", chunk.logprobs)
            elif isinstance(chunk, TextRun):
                self._text_run(events, chunk.pieces)
            elif isinstance(chunk, RefusalDelta):
                self._text(events, chunk.text, "refusal")
            elif isinstance(chunk, ReasoningDelta):
                self._reasoning(events, chunk)
            elif isinstance(chunk, ReasoningItem):
                self._hidden_reasoning(events, chunk.text)
            elif isinstance(chunk, ToolCallDelta):
                self._tool_call(events, chunk)
            elif isinstance(chunk, HostedToolCall):
                self._hosted(events, chunk)
            elif isinstance(chunk, TextAnnotation):
                self._annotation(events, chunk)
            elif isinstance(chunk, Final):
                self._final(events, chunk)
            else:
                raise EngineProtocolError(f"unknown engine chunk {type(chunk).__name__}")
        except EngineProtocolError as exc:
            # Every handler checks before it emits, so the stream so far is consistent.
            events.extend(self.fail(exc.message, exc.code))
        return events

    def fail(
        self, message: str, code: str = "server_error", *, usage: dict[str, Any] | None = None
    ) -> list[Event]:
        """The nested ``error`` event and ``response.failed`` (SPEC §1 "The error event").

        Open items stay unfinished; ``output`` holds the items that were done (SPEC §2.9).
        """
        if self._finished:
            return []
        events = self.begin()
        events.append(
            self._event(
                "error",
                error={"type": code, "code": code, "message": message, "param": None},
            )
        )
        self._open = None
        resp = self._response
        resp["status"] = "failed"
        resp["error"] = {"code": code, "message": message}
        resp["output"] = list(self._done_items)
        resp["usage"] = usage
        events.append(self._event("response.failed", response=resp))
        self._finished = True
        return events

    def cancel(self) -> dict[str, Any]:
        """Mark the response ``cancelled``; no event is emitted (SPEC §2.13) and open items are
        dropped. Returns the Response object."""
        if not self._finished:
            self._open = None
            self._response["status"] = "cancelled"
            self._response["output"] = list(self._done_items)
            self._finished = True
        return self._response

    # --- events -----------------------------------------------------------------------------
    def _event(self, type_: str, **fields: Any) -> Event:
        event: Event = {"type": type_, "sequence_number": self._seq}
        event.update(fields)
        self._seq += 1
        return event

    def _lifecycle(self, type_: str) -> Event:
        # A copy: later mutation of the live object must not reach events already emitted.
        return self._event(type_, response=dict(self._response))

    def _obfuscated(self, event: Event, delta: str) -> Event:
        if self._obfuscation is not None:
            event["obfuscation"] = self._obfuscation(event["sequence_number"], delta)
        return event

    # --- items ------------------------------------------------------------------------------
    def _open_item(
        self, events: list[Event], kind: ItemKind, prefix: str, **extra: Any
    ) -> _OpenItem:
        self._close_open(events, "completed")
        item = _OpenItem(kind=kind, id=self._new_id(prefix), output_index=len(self._done_items))
        self._open = item
        if kind == "message":
            added: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            }
        elif kind == "reasoning":
            added = {"id": item.id, "type": "reasoning", "summary": []}
            if extra.get("raw"):
                added["content"] = []
        elif kind == "custom_tool_call":
            added = {
                "id": item.id,
                "type": "custom_tool_call",
                "status": "in_progress",
                "call_id": extra["call_id"],
                "input": "",
                "name": extra["name"],
            }
            if extra.get("namespace") is not None:
                added["namespace"] = extra["namespace"]
        else:
            added = {
                "id": item.id,
                "type": "function_call",
                "status": "in_progress",
                "arguments": "",
                "call_id": extra["call_id"],
                "name": extra["name"],
            }
            if extra.get("namespace") is not None:  # [REC] openai-tool-search.1
                added["namespace"] = extra["namespace"]
        events.append(
            self._event("response.output_item.added", output_index=item.output_index, item=added)
        )
        return item

    def _close_open(self, events: list[Event], status: str) -> None:
        item = self._open
        if item is None:
            return
        self._close_part(events, item)
        if item.kind == "message":
            done: dict[str, Any] = {
                "id": item.id,
                "type": "message",
                "status": status,
                "content": item.content,
                "role": "assistant",
            }
        elif item.kind == "reasoning":
            done = {"id": item.id, "type": "reasoning", "summary": item.summary}
            if item.content:
                done["content"] = item.content
            if self._sealer is not None:
                done["encrypted_content"] = self._sealer.seal(
                    "reasoning",
                    {
                        "summary": [p["text"] for p in item.summary],
                        "content": [p["text"] for p in item.content],
                        "hidden": item.hidden,
                    },
                )
            if status != "completed":
                done["status"] = status
        elif item.kind == "custom_tool_call":
            text = "".join(item.arguments)
            events.append(
                self._event(
                    "response.custom_tool_call_input.done",
                    item_id=item.id,
                    output_index=item.output_index,
                    input=text,
                )
            )
            done = {
                "id": item.id,
                "type": "custom_tool_call",
                "status": status,
                "call_id": item.call_id,
                "input": text,
                "name": item.name,
            }
            if item.namespace is not None:
                done["namespace"] = item.namespace
        else:
            arguments = "".join(item.arguments)
            events.append(
                self._event(
                    "response.function_call_arguments.done",
                    item_id=item.id,
                    output_index=item.output_index,
                    arguments=arguments,
                )
            )
            done = {
                "id": item.id,
                "type": "function_call",
                "status": status,
                "arguments": arguments,
                "call_id": item.call_id,
                "name": item.name,
            }
            if item.namespace is not None:
                done["namespace"] = item.namespace
        events.append(
            self._event("response.output_item.done", output_index=item.output_index, item=done)
        )
        self._done_items.append(done)
        self._open = None

    # --- parts ------------------------------------------------------------------------------
    def _open_part(self, events: list[Event], item: _OpenItem, kind: PartKind) -> _Part:
        self._close_part(events, item)
        if kind == "summary_text":
            part = _Part(kind, len(item.summary))
            events.append(
                self._event(
                    "response.reasoning_summary_part.added",
                    item_id=item.id,
                    output_index=item.output_index,
                    summary_index=part.index,
                    part={"type": "summary_text", "text": ""},
                )
            )
        else:
            part = _Part(kind, len(item.content))
            events.append(
                self._event(
                    "response.content_part.added",
                    item_id=item.id,
                    output_index=item.output_index,
                    content_index=part.index,
                    part=_part_object(kind, ""),
                )
            )
        item.part = part
        return part

    def _close_part(self, events: list[Event], item: _OpenItem) -> None:
        part = item.part
        if part is None:
            return
        text = part.text
        where = {"item_id": item.id, "output_index": item.output_index}
        if part.kind == "summary_text":
            where["summary_index"] = part.index
            events.append(self._event("response.reasoning_summary_text.done", **where, text=text))
            done_part = {"type": "summary_text", "text": text}
            events.append(
                self._event("response.reasoning_summary_part.done", **where, part=done_part)
            )
            item.summary.append({"type": "summary_text", "text": text})
        else:
            where["content_index"] = part.index
            if part.kind == "output_text":
                events.append(
                    self._event(
                        "response.output_text.done",
                        **where,
                        text=text,
                        logprobs=[_delta_logprob(lp) for lp in part.logprobs or ()],
                    )
                )
            elif part.kind == "refusal":
                events.append(self._event("response.refusal.done", **where, refusal=text))
            else:
                events.append(self._event("response.reasoning_text.done", **where, text=text))
            events.append(
                self._event(
                    "response.content_part.done",
                    **where,
                    part=_part_object(part.kind, text, part.logprobs, part.annotations),
                )
            )
            item.content.append(_part_object(part.kind, text, part.logprobs, part.annotations))
        item.part = None

    # --- chunk kinds --------------------------------------------------------------------------
    def _text(
        self,
        events: list[Event],
        delta: str,
        kind: PartKind,
        logprobs: Sequence[LogProb] | None = None,
    ) -> None:
        # engine.py: a chunk of another kind starts a new item, so text after a refusal (or a
        # refusal after text) is a new message.
        item = self._open
        if item is None or item.kind != "message" or item.part is None or item.part.kind != kind:
            item = self._open_item(events, "message", "msg")
            self._open_part(events, item, kind)
        part = item.part
        assert part is not None
        if kind == "output_text":
            events.append(self._output_text_delta(item, part, delta, logprobs))
            return
        part.pieces.append(delta)
        seq = self._seq
        self._seq += 1
        events.append(
            {
                "type": "response.refusal.delta",
                "sequence_number": seq,
                "item_id": item.id,
                "output_index": item.output_index,
                "content_index": part.index,
                "delta": delta,
            }
        )

    def _output_text_delta(
        self, item: _OpenItem, part: _Part, delta: str, logprobs: Sequence[LogProb] | None = None
    ) -> Event:
        """More text for the open output_text ``part`` of ``item``: its delta event (the hot path
        of every text stream). ``logprobs`` (the engine's, for this delta) go out only when the
        request includes ``message.output_text.logprobs``; the part keeps them for its done
        events and the finished item."""
        part.pieces.append(delta)
        seq = self._seq
        self._seq = seq + 1
        shown: list[dict[str, Any]] = []
        if self._logprobs:
            pieces = [_logprob_object(lp) for lp in logprobs or ()]
            if part.logprobs is None:
                part.logprobs = []
            part.logprobs.extend(pieces)
            shown = [_delta_logprob(lp) for lp in pieces]
        event: Event = {
            "type": "response.output_text.delta",
            "sequence_number": seq,
            "item_id": item.id,
            "output_index": item.output_index,
            "content_index": part.index,
            "delta": delta,
            "logprobs": shown,
        }
        obfuscate = self._obfuscation
        if obfuscate is not None:
            event["obfuscation"] = obfuscate(seq, delta)
        return event

    def _text_run(self, events: list[Event], pieces: Sequence[str]) -> None:
        rest = iter(pieces)
        first = next(rest, None)
        if first is None:
            return
        self._text(events, first, "output_text")  # opens the message and its part if needed
        item = self._open
        assert item is not None and item.part is not None
        part = item.part
        if self._logprobs:
            events.extend([self._output_text_delta(item, part, delta) for delta in rest])
            return
        # _output_text_delta for each further piece, inlined (the per-event hot path of every
        # text stream without logprobs: benchmarks/mock_streaming_throughput.py): same events.
        pieces_before = len(part.pieces)
        part.pieces.extend(rest)
        more = part.pieces[pieces_before:]
        seq = self._seq
        self._seq = seq + len(more)
        item_id, output_index, content_index = item.id, item.output_index, part.index
        obfuscate = self._obfuscation
        if obfuscate is None:
            events.extend(
                [
                    {
                        "type": "response.output_text.delta",
                        "sequence_number": n,
                        "item_id": item_id,
                        "output_index": output_index,
                        "content_index": content_index,
                        "delta": delta,
                        "logprobs": [],
                    }
                    for n, delta in enumerate(more, seq)
                ]
            )
            return
        events.extend(
            [
                {
                    "type": "response.output_text.delta",
                    "sequence_number": n,
                    "item_id": item_id,
                    "output_index": output_index,
                    "content_index": content_index,
                    "delta": delta,
                    "logprobs": [],
                    "obfuscation": obfuscate(n, delta),
                }
                for n, delta in enumerate(more, seq)
            ]
        )

    def _reasoning(self, events: list[Event], chunk: ReasoningDelta) -> None:
        item = self._open
        raw = chunk.kind == "raw"
        if item is None or item.kind != "reasoning":
            item = self._open_item(events, "reasoning", "rs", raw=raw)
        part = item.part
        if raw:
            if part is None or part.kind != "reasoning_text":
                part = self._open_part(events, item, "reasoning_text")
        elif (
            part is None
            or part.kind != "summary_text"
            # a new summary_index opens the next summary part; indices stay 0, 1, … (SPEC §2.6)
            or chunk.summary_index > part.index
        ):
            part = self._open_part(events, item, "summary_text")
        part.pieces.append(chunk.text)
        if raw:
            events.append(
                self._event(
                    "response.reasoning_text.delta",
                    item_id=item.id,
                    output_index=item.output_index,
                    content_index=part.index,
                    delta=chunk.text,
                )
            )
        else:
            event = self._event(
                "response.reasoning_summary_text.delta",
                item_id=item.id,
                output_index=item.output_index,
                summary_index=part.index,
                delta=chunk.text,
            )
            events.append(self._obfuscated(event, chunk.text))

    def _annotation(self, events: list[Event], chunk: TextAnnotation) -> None:
        item = self._open
        part = item.part if item is not None else None
        if item is None or part is None or part.kind != "output_text":
            raise EngineProtocolError("an annotation needs an open output_text part")
        annotation = dict(chunk.annotation)
        events.append(
            self._event(
                "response.output_text.annotation.added",
                item_id=item.id,
                output_index=item.output_index,
                content_index=part.index,
                annotation_index=len(part.annotations),
                annotation=annotation,
            )
        )
        part.annotations.append(annotation)

    def _hidden_reasoning(self, events: list[Event], text: str) -> None:
        # engine.ReasoningItem: a whole item, `summary: []` in added and done, as in [REC].
        item = self._open_item(events, "reasoning", "rs")
        item.hidden = text
        self._close_open(events, "completed")

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
            "response.custom_tool_call_input.delta"
            if kind == "custom_tool_call"
            else "response.function_call_arguments.delta",
            item_id=item.id,
            output_index=item.output_index,
            delta=chunk.arguments,
        )
        events.append(self._obfuscated(event, chunk.arguments))

    def _hosted(self, events: list[Event], chunk: HostedToolCall) -> None:
        spec = _HOSTED.get(chunk.kind)
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
        self, events: list[Event], spec: _ToolKind, chunk: HostedToolCall, where: dict[str, Any]
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

    def _final(self, events: list[Event], final: Final) -> None:
        usage = usage_object(
            input_tokens=final.input_tokens,
            output_tokens=final.output_tokens,
            cached_tokens=final.cached_tokens,
            reasoning_tokens=final.reasoning_tokens,
        )
        if final.finish_reason == "error":
            events.extend(
                self.fail(
                    final.error_message or "The model failed to generate a response.",
                    final.error_code or "server_error",
                    usage=usage,
                )
            )
            return
        resp = self._response
        if final.finish_reason in ("length", "content_filter"):
            # SPEC §2.10, §4: the open item ends `incomplete` as the last item.
            self._close_open(events, "incomplete")
            reason = "max_output_tokens" if final.finish_reason == "length" else "content_filter"
            resp["status"] = "incomplete"
            resp["incomplete_details"] = {"reason": reason}
            terminal = "response.incomplete"
        else:
            self._close_open(events, "completed")
            if self._compaction is not None:
                self._compaction_item(events, self._compaction)
            resp["status"] = "completed"
            resp["completed_at"] = int(self._clock())
            terminal = "response.completed"
        resp["output"] = list(self._done_items)
        resp["usage"] = usage
        events.append(self._event(terminal, response=resp))
        self._finished = True


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


def _logprob_object(lp: LogProb) -> dict[str, Any]:
    """[OAPI] ``LogProb``: what an output_text part holds per token (UTF-8 ``bytes`` included)."""
    return {
        "token": lp.token,
        "logprob": lp.logprob,
        "bytes": list(lp.token.encode()),
        "top_logprobs": [{"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in lp.top],
    }


def _delta_logprob(lp: dict[str, Any]) -> dict[str, Any]:
    """[OAPI] ``ResponseLogProb``: the same token as delta and text-done events carry it."""
    return {
        "token": lp["token"],
        "logprob": lp["logprob"],
        "top_logprobs": [
            {"token": t["token"], "logprob": t["logprob"]} for t in lp["top_logprobs"]
        ],
    }


def _part_object(
    kind: PartKind,
    text: str,
    logprobs: list[dict[str, Any]] | None = None,
    annotations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    if kind == "output_text":
        # KB28: output_text parts always carry annotations (and logprobs, as in [REC]).
        return {
            "type": "output_text",
            "annotations": list(annotations or ()),
            "logprobs": list(logprobs or ()),
            "text": text,
        }
    if kind == "refusal":
        return {"type": "refusal", "refusal": text}
    return {"type": kind, "text": text}
