"""SGLang's output text → engine chunks: :class:`OutputParser`, sans-I/O.

SGLang's own reasoning parser (``--reasoning-parser``) splits reasoning from the answer and its
function-call parser (``--tool-call-parser``) extracts calls with streamed arguments: reused, not
rewritten. A forced custom tool's whole answer is that tool's input. ``sglang`` is imported only
when a parser is asked for (docs/sglang.md); :class:`~reference_impl.sglang.engine.SGLangEngine`
feeds one parser per response.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import Chunk, CustomTool, ReasoningDelta, TextDelta, ToolCallDelta

__all__ = ["OutputParser", "sglang_tools"]


def sglang_tools(tools: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Chat tools as SGLang's own ``Tool`` models (what its parsers take)."""
    from sglang.srt.entrypoints.openai.protocol import Tool

    return [Tool.model_validate(t) for t in tools]


class OutputParser:
    """Sans-I/O: SGLang text deltas → engine chunks, through SGLang's reasoning and function-call
    parsers. ``reasoning_active`` tells whether the last delta went (at least partly) to
    reasoning, for counting reasoning tokens when SGLang did not."""

    def __init__(
        self,
        reasoning_parser: str | None,
        tool_call_parser: str | None,
        tools: Sequence[Mapping[str, Any]],
        custom: CustomTool | None = None,
    ) -> None:
        """``custom``: a forced custom tool — the answer's text is its input."""
        self._reasoning: Any = None
        self._tools: Any = None
        self._custom = custom
        if reasoning_parser:
            from sglang.srt.parser.reasoning_parser import ReasoningParser

            self._reasoning = ReasoningParser(reasoning_parser, stream_reasoning=True)
        if tool_call_parser and tools:
            from sglang.srt.function_call.function_call_parser import FunctionCallParser

            self._tools = FunctionCallParser(sglang_tools(tools), tool_call_parser)
        self.calls: dict[int, dict[str, str]] = {}  # index → {"name", "arguments"} so far
        self.reasoning_active = False

    def feed(self, text: str) -> list[Chunk]:
        reasoning, normal = (None, text)
        if self._reasoning is not None:
            reasoning, normal = self._reasoning.parse_stream_chunk(text)
        return self._chunks(reasoning, normal, final=False)

    def finish(self) -> list[Chunk]:
        reasoning, normal = None, ""
        if self._reasoning is not None:
            reasoning, normal = self._reasoning.parse_stream_end()
        chunks = self._chunks(reasoning, normal or "", final=True)
        return chunks + self._unstreamed_arguments()

    def _chunks(self, reasoning: str | None, normal: str, *, final: bool) -> list[Chunk]:
        out: list[Chunk] = []
        self.reasoning_active = bool(reasoning)
        if reasoning:
            out.append(ReasoningDelta(reasoning, kind="raw"))
        calls: list[Any] = []
        if self._tools is not None:
            if normal:
                normal, calls = self._tools.parse_stream_chunk(normal)
                calls = list(calls)
                # SGLang's detectors take one step per call: a delta that holds a whole call
                # (SGLang's detokenizer merges tokens when its reader falls behind) gives the
                # call's name now and its arguments only at the next call. Drain what they hold.
                for _ in range(_MAX_DRAIN):
                    if not calls:
                        break
                    more_text, more = self._tools.parse_stream_chunk("")
                    if not more and not more_text:
                        break
                    normal = (normal or "") + (more_text or "")
                    calls += more
            if final:
                rest, more = self._tools.parse_stream_end()
                normal = (normal or "") + (rest or "")
                calls = [*calls, *more]
        if normal and self._custom is not None:
            out.extend(self._custom_input(normal))
        elif normal:
            out.append(TextDelta(normal))
        for call in calls:
            out.extend(self._call(call.tool_index, call.name, call.parameters or ""))
        return out

    def _call(self, index: int, name: str | None, arguments: str) -> list[Chunk]:
        known = self.calls.get(index)
        if known is None:
            if not name:  # arguments before a name: SGLang's detectors never do this
                return []
            self.calls[index] = {"name": name, "arguments": arguments}
            return [ToolCallDelta(index, arguments, name=name, call_id=_call_id())]
        if not arguments:
            return []
        known["arguments"] += arguments
        return [ToolCallDelta(index, arguments)]

    def _custom_input(self, text: str) -> list[Chunk]:
        if 0 in self.calls:
            self.calls[0]["arguments"] += text
            return [ToolCallDelta(0, text, kind="custom")]
        tool = self._custom
        assert tool is not None
        self.calls[0] = {"name": tool.name, "arguments": text}
        first = ToolCallDelta(
            0, text, name=tool.name, call_id=_call_id(), kind="custom", namespace=tool.namespace
        )
        return [first]

    def _unstreamed_arguments(self) -> list[Chunk]:
        """Arguments the detector parsed but held back (it streams JSON conservatively); SGLang's
        chat endpoint sends the same remainder at the end (``_check_for_unstreamed_tool_args``)."""
        detector = getattr(self._tools, "detector", None)
        parsed = getattr(detector, "prev_tool_call_arr", None) or []
        out: list[Chunk] = []
        for index, call in enumerate(parsed):
            if index not in self.calls or not isinstance(call, Mapping):
                continue
            expected = call.get("arguments", {})
            full = (
                expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
            )
            sent = self.calls[index]["arguments"]
            if full.startswith(sent) and len(full) > len(sent):
                out.extend(self._call(index, None, full[len(sent) :]))
        return out


# How many steps a detector may take on text it already holds: a step per call name and per
# arguments piece, so a bound far above the calls one delta can carry.
_MAX_DRAIN = 256


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"
