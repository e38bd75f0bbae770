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

The events of items and parts live in :mod:`reference_impl.assembler.items`, those of tool calls
in :mod:`reference_impl.assembler.tools`; :class:`ResponseAssembler` layers the lifecycle, the
chunk dispatch, text, reasoning and the terminal events on them. This module's names are the
public ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..engine import (
    Chunk,
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
from ..ids import IdSource
from .items import (
    LOGPROBS_INCLUDE,
    Compaction,
    EngineProtocolError,
    Event,
    OpenItem,
    OpenPart,
    PartKind,
    delta_logprob,
    logprob_object,
    obfuscation,
    obfuscator,
    run_obfuscator,
)
from .response_object import response_skeleton, usage_object
from .tools import ToolEvents

if TYPE_CHECKING:
    from ..sealing import Sealer

__all__ = ["Compaction", "EngineProtocolError", "Event", "ResponseAssembler", "obfuscation"]


class ResponseAssembler(ToolEvents):
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
        include = body.get("include")
        if include_obfuscation is None:
            stream_options = body.get("stream_options") or {}
            include_obfuscation = bool(stream_options.get("include_obfuscation", True))
        super().__init__(
            new_id=new_id,
            obfuscate=obfuscator(response_id) if include_obfuscation else None,
            # Reasoning items carry a sealed copy of themselves when the request asks.
            sealer=sealer if "reasoning.encrypted_content" in (include or ()) else None,
        )
        self._obfuscate_run = run_obfuscator(response_id) if include_obfuscation else None
        self._compaction = compaction
        self._clock = clock
        self._response = response_skeleton(body, response_id=response_id, created_at=created_at)
        self._response_id = response_id
        self._background = bool(body.get("background"))
        self._logprobs = isinstance(include, list) and LOGPROBS_INCLUDE in include
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

    def _lifecycle(self, type_: str) -> Event:
        # A copy: later mutation of the live object must not reach events already emitted.
        return self._event(type_, response=dict(self._response))

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
        self, item: OpenItem, part: OpenPart, delta: str, logprobs: Sequence[LogProb] | None = None
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
            pieces = [logprob_object(lp) for lp in logprobs or ()]
            if part.logprobs is None:
                part.logprobs = []
            part.logprobs.extend(pieces)
            shown = [delta_logprob(lp) for lp in pieces]
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
        # text stream without logprobs: benchmarks/perf/mock_streaming_throughput.py): same events.
        pieces_before = len(part.pieces)
        part.pieces.extend(rest)
        more = part.pieces[pieces_before:]
        seq = self._seq
        self._seq = seq + len(more)
        item_id, output_index, content_index = item.id, item.output_index, part.index
        obfuscate_run = self._obfuscate_run
        if obfuscate_run is None:
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
        # The padding in the literal: the dict is built at its final size, in the same key order.
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
                    "obfuscation": padding,
                }
                for n, delta, padding in zip(
                    range(seq, seq + len(more)), more, obfuscate_run(seq, more), strict=True
                )
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
