"""The Engine protocol: what the protocol layer asks of a model backend.

The protocol layer (assembler, store, app) knows no particular engine. It normalizes a
`POST /v1/responses` body into a :class:`GenerationRequest` and asks an :class:`Engine` for a stream
of typed chunks; the :class:`~reference_impl.assembler.stream.ResponseAssembler` alone turns those chunks
into Responses events. The mock engine (``mock_server``) and the SGLang engine plug in here.

Chunk order an engine promises: any mix of reasoning / text / refusal / tool-call / hosted-tool
chunks, then exactly one :class:`Final`. A chunk of one kind after a chunk of another kind starts a
new output item (the assembler closes the open one), except ``ToolCallDelta`` chunks, which are
grouped by ``index``. An engine that fails raises :class:`EngineError` (or yields ``Final`` with
``finish_reason="error"``).

Reasoning comes in two shapes. Reasoning the client sees streams as :class:`ReasoningDelta` chunks
(summary parts, or raw ``reasoning_text``). Reasoning the model did but does not show — what OpenAI
sends when no ``reasoning.summary`` is asked for — is one :class:`ReasoningItem` chunk: a whole
reasoning item with ``summary: []`` and no content, opened and closed at once (the chunk after it
starts a new item). Its tokens are counted only in ``Final.reasoning_tokens`` (and
``output_tokens``). An empty ``ReasoningDelta`` is not that: it is an empty piece of text.

An engine whose chunks need no waiting (a scripted or mock engine without latency) may return
:class:`ReadyChunks` from ``generate``: still an async iterator, but the runner iterates the plain
iterator inside directly, with no await per chunk, and that iterator may hand over many text
deltas as one :class:`TextRun`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "Chunk",
    "CustomTool",
    "Engine",
    "EngineError",
    "EngineHints",
    "Final",
    "FunctionTool",
    "GenerationRequest",
    "HostedToolCall",
    "LogProb",
    "Message",
    "ReadyChunks",
    "ReasoningDelta",
    "ReasoningItem",
    "RefusalDelta",
    "TextAnnotation",
    "TextDelta",
    "TextRun",
    "ToolCallDelta",
]

Role = Literal["system", "developer", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class Message:
    """One normalized conversation turn.

    ``content`` is the text of the turn (parts joined); ``images`` the image URLs / file ids of
    ``input_image`` parts; an assistant turn may carry ``tool_calls`` (each ``{"call_id", "name",
    "arguments"}``) and ``reasoning`` text; a ``tool`` turn carries ``tool_call_id``.
    """

    role: Role
    content: str = ""
    images: tuple[str, ...] = ()
    tool_calls: tuple[Mapping[str, str], ...] = ()
    tool_call_id: str | None = None
    reasoning: str | None = None


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A ``function`` tool; ``namespace``: the ``namespace`` tool it was declared in ([OAPI]
    ``NamespaceToolParam``); ``deferred``: declared with ``defer_loading`` and not yet loaded by a
    ``tool_search_output`` of the conversation — a model must search for it before calling it."""

    name: str
    parameters: Mapping[str, Any] | None = None
    description: str | None = None
    strict: bool | None = None
    namespace: str | None = None
    deferred: bool = False


@dataclass(frozen=True, slots=True)
class CustomTool:
    """A ``custom`` tool ([OAPI] ``CustomToolParam``): its input is free text, or text in the
    language of a grammar (``syntax`` ``"regex"`` or ``"lark"``, ``definition`` the grammar)."""

    name: str
    description: str | None = None
    syntax: Literal["regex", "lark"] | None = None
    definition: str | None = None
    namespace: str | None = None
    deferred: bool = False


@dataclass(frozen=True, slots=True)
class LogProb:
    """One output token's log probability and its ``top`` alternatives (token, logprob), as
    [OAPI] ``ResponseLogProb`` / ``LogProb`` carry them."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class EngineHints:
    """What the transport knows of a request beyond its body, for an engine that wants it: the
    app's ``hints(request)`` (``create_app(hints=...)``) builds one per request. The reference's
    engines read none of it; the mock reads each field (mock_server/middleware.py fills them)."""

    # The request's headers, names lower-cased (the mock picks a scenario by x-mock-scenario).
    headers: Mapping[str, str] = field(default_factory=dict)
    # Which sight of this same request it is, 1 for the first (the mock's fault plans count them).
    attempt: int | None = None
    # The request body's size in bytes (the mock's request log keeps a byte budget).
    body_bytes: int = 0
    # An injected fault: fail with an engine error once this many output tokens have streamed.
    error_after: int | None = None


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """A request as an engine sees it; ``body`` is the validated request body as sent."""

    model: str
    messages: Sequence[Message]
    tools: Sequence[FunctionTool] = ()
    custom_tools: Sequence[CustomTool] = ()
    # "auto" | "none" | "required" | {"type": "function", "name": ...} | {"type": "allowed_tools", ...}
    tool_choice: str | Mapping[str, Any] = "auto"
    parallel_tool_calls: bool = True
    max_output_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    reasoning_effort: str | None = None
    reasoning_summary: str | None = None  # "auto" | "concise" | "detailed" | None
    text_format: Mapping[str, Any] | None = None  # the request's text.format
    metadata: Mapping[str, str] = field(default_factory=dict)
    hints: EngineHints = field(default_factory=EngineHints)  # from the transport
    body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text. ``kind="summary"`` streams into summary part ``summary_index``;
    ``kind="raw"`` into the item's ``reasoning_text`` content part."""

    text: str
    kind: Literal["summary", "raw"] = "summary"
    summary_index: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningItem:
    """A reasoning item that shows no text: ``{"type": "reasoning", "summary": []}``, as OpenAI
    sends when the request sets ``reasoning.effort`` but no ``reasoning.summary`` ([REC]
    ``openai-code-interpreter-tool.1``). Count its tokens in ``Final.reasoning_tokens``.

    ``text`` is the reasoning the model did, unseen: it reaches a client only sealed, as the item's
    ``encrypted_content`` when the request includes ``reasoning.encrypted_content``."""

    text: str = ""


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str
    # The delta's tokens with their log probabilities, when the request asks for them
    # (``include: ["message.output_text.logprobs"]``); ``None``: the engine has none.
    logprobs: tuple[LogProb, ...] | None = None


@dataclass(frozen=True, slots=True)
class TextRun:
    """Several text deltas in one chunk, for an engine that has them at once (the mock without
    latency): the assembler emits one ``response.output_text.delta`` per piece — the same events
    as one :class:`TextDelta` per piece, without a chunk and a runner step for each."""

    pieces: Sequence[str]


@dataclass(frozen=True, slots=True)
class RefusalDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of tool call ``index``; the first piece of a call carries ``name`` and
    ``call_id`` (the assembler makes a ``call_…`` id when the engine gives none). ``kind``
    ``"custom"``: a call to a ``custom`` tool, whose ``arguments`` are its free-text input."""

    index: int
    arguments: str = ""
    name: str | None = None
    call_id: str | None = None
    kind: Literal["function", "custom"] = "function"
    namespace: str | None = None  # the call's `namespace` field (first piece only)


@dataclass(frozen=True, slots=True)
class HostedToolCall:
    """A whole tool call item the engine performed (a hosted tool) or asks the client to run
    (shell, apply_patch, computer…), e.g. ``kind="web_search_call"`` with ``action``
    ``{"type": "search", "query": ...}``; the assembler streams its events in OpenAI's order.

    ``fields``: the finished item's fields besides ``id`` / ``type`` / ``status`` (``None``: the
    assembler's defaults for the kind, from ``action``). ``status``: the finished item's status
    (``"failed"``: the call failed; kinds with a ``*.failed`` event send it). ``stream``: the
    pieces of the value the kind streams (code interpreter code, MCP arguments, a shell command,
    an apply_patch diff). ``partial_images``: base64 images sent as ``partial_image`` events."""

    kind: str
    action: Mapping[str, Any] = field(default_factory=dict)
    fields: Mapping[str, Any] | None = None
    status: str = "completed"
    stream: Sequence[str] = ()
    partial_images: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class TextAnnotation:
    """An annotation (``url_citation``, ``file_citation``…) on the open ``output_text`` part,
    sent as ``response.output_text.annotation.added`` and kept in the part."""

    annotation: Mapping[str, Any]


FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "error"]


@dataclass(frozen=True, slots=True)
class Final:
    finish_reason: FinishReason
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    error_code: str | None = None
    error_message: str | None = None


Chunk = (
    ReasoningDelta
    | ReasoningItem
    | TextDelta
    | TextRun
    | RefusalDelta
    | ToolCallDelta
    | HostedToolCall
    | TextAnnotation
    | Final
)


class ReadyChunks:
    """An engine stream over a plain iterator of chunks that are ready when asked for (see the
    module docstring). ``chunks`` may hold :class:`TextRun` chunks, which the runner feeds to the
    assembler as they are; iterated as an async iterator, a run comes out as one
    :class:`TextDelta` per piece, like any engine's stream. ``aclose()`` closes the iterator when
    it has ``close`` (a generator)."""

    __slots__ = ("_pending", "chunks")

    def __init__(self, chunks: Iterator[Chunk]) -> None:
        self.chunks = chunks
        self._pending: Iterator[TextDelta] | None = None

    def __aiter__(self) -> ReadyChunks:
        return self

    async def __anext__(self) -> Chunk:
        while True:
            if self._pending is not None:
                delta = next(self._pending, None)
                if delta is not None:
                    return delta
                self._pending = None
            try:
                chunk = next(self.chunks)
            except StopIteration:
                raise StopAsyncIteration from None
            if not isinstance(chunk, TextRun):
                return chunk
            self._pending = map(TextDelta, chunk.pieces)

    async def aclose(self) -> None:
        close = getattr(self.chunks, "close", None)
        if close is not None:
            close()


class EngineError(Exception):
    """The engine failed; ``code`` is an OpenAI error code such as ``server_error``."""

    def __init__(self, message: str, code: str = "server_error") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Engine(Protocol):
    """A model backend."""

    def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        """Stream chunks for ``request``; cancelling the iteration (``aclose()``) must abort
        generation on the backend."""
        ...

    async def count_input_tokens(self, request: GenerationRequest) -> int:
        """The ``input_tokens`` that ``generate`` would report for ``request``."""
        ...

    def model_ids(self) -> Sequence[str]:
        """Models for ``GET /v1/models``."""
        ...
