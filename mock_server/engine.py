"""MockEngine: a deterministic :class:`reference_impl.engine.Engine`.

Output is a pure function of (the normalized request, the seed): the scenario's plan is drawn from
an RNG seeded by both (:func:`request_digest`), and streamed token by token with the documented
tokenizer (:mod:`mock_server.tokenizer`), so ``usage`` is exact and a cut-off at
``max_output_tokens`` reports exactly that many output tokens.

**Choosing a scenario** (names in :mod:`mock_server.scenarios`), first match wins:

1. a scripted output queued with :meth:`MockEngine.queue` (FIFO, one per request);
2. the ``x-mock-scenario`` request header (``GenerationRequest.hints.headers``), then the
   ``x-mock-script`` header (an agent script, :mod:`mock_server.agent_script`);
3. ``metadata["mock_scenario"]``, then ``metadata["mock_script"]``;
4. the model name ``mock-<scenario>`` (e.g. ``mock-reasoning``);
5. the engine's agent script (``--script FILE``), if it has one;
6. the engine's default (``auto``: answer the request's own parameters).

**Timing** (:class:`Latency`, all 0 by default): time to first token, a delay before each further
delta, and up to ``jitter`` seconds added to each, drawn from an RNG seeded like the content (but
separately, so timing never changes content). Or, for load tests, a fixed ``duration`` per
response: the gaps are computed from its number of deltas so every stream takes that long
(:meth:`Latency.offsets`). **Chunking** (:class:`Chunking`): tokens per delta, a fixed number or a
seeded range.

**Faults the app layer passes down**: ``hints.error_after = N`` makes the engine raise
:class:`EngineError` once N output tokens have been streamed (see :mod:`mock_server.faults`).
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass

from mock_server.agent_script import AgentScript, ScriptError
from mock_server.agent_script import parse as parse_script
from mock_server.digest import request_digest, rng_of
from mock_server.grammar_gen import GrammarError
from mock_server.jsonschema_check import SchemaError
from mock_server.scenarios import SCENARIOS, Plan, Segment, build_plan
from mock_server.tokenizer import count_request_tokens, count_tokens, tokenize
from reference_impl.engine import (
    Chunk,
    EngineError,
    Final,
    FinishReason,
    GenerationRequest,
    HostedToolCall,
    LogProb,
    ReadyChunks,
    ReasoningDelta,
    ReasoningItem,
    RefusalDelta,
    TextAnnotation,
    TextDelta,
    TextRun,
    ToolCallDelta,
)

__all__ = [
    "REQUEST_LOG",
    "REQUEST_LOG_BYTES",
    "Chunking",
    "Latency",
    "MockEngine",
    "Script",
    "request_digest",
]

REQUEST_LOG = 1_000
"""How many recent requests :attr:`MockEngine.requests` (and the middleware's log) keep."""
REQUEST_LOG_BYTES = 64 * 1024 * 1024
"""Body bytes the two logs keep: the middleware truncates older bodies beyond it, the engine drops
its older requests (each weighed by the size of the body it came in)."""
SCENARIO_HEADER = "x-mock-scenario"
SCENARIO_METADATA = "mock_scenario"
SCRIPT_HEADER = "x-mock-script"
SCRIPT_METADATA = "mock_script"

Script = str | Sequence[Chunk | EngineError]
"""What :meth:`MockEngine.queue` takes: a scenario name, or the exact chunks to stream (an
:class:`EngineError` in the list is raised at its place; a missing :class:`Final` is added with
counted tokens)."""


@dataclass(frozen=True, slots=True)
class Latency:
    ttft: float = 0.0  # seconds before the first chunk
    inter_token: float = 0.0  # seconds before each further chunk
    jitter: float = 0.0  # up to this many seconds added to each delay (seeded)
    # Seconds every response takes, whatever its length (load tests): see `offsets`.
    duration: float | None = None

    def __post_init__(self) -> None:
        delays = (self.ttft, self.inter_token, self.jitter, self.duration or 0.0)
        # `min(...) < 0` let nan through (every comparison with nan is False), and inf too
        if not all(math.isfinite(d) and d >= 0 for d in delays):
            raise ValueError("latencies must be finite and >= 0")
        if self.duration is not None:
            if self.inter_token or self.jitter:
                raise ValueError("a duration sets the inter-token delays: no inter-token or jitter")
            if self.ttft > self.duration:
                raise ValueError("ttft must be <= duration")

    def offsets(self, deltas: int) -> list[float]:
        """With ``duration``: when each of a response's ``deltas`` delta chunks goes out, in
        seconds after generation starts; the final chunk goes out at ``duration``. A ``ttft``
        places the first delta and spreads the rest evenly up to ``duration``; without one every
        gap, the first included, is ``duration / deltas``."""
        total = self.duration or 0.0
        if deltas <= 0:
            return []
        if not self.ttft:
            step = total / deltas
            return [step * (i + 1) for i in range(deltas)]
        if deltas == 1:
            return [self.ttft]
        step = (total - self.ttft) / (deltas - 1)
        return [self.ttft + step * i for i in range(deltas)]


@dataclass(frozen=True, slots=True)
class Chunking:
    """Tokens per delta: ``low`` to ``high`` inclusive, drawn per delta from a seeded RNG."""

    low: int = 1
    high: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.high:
            raise ValueError("chunking needs 1 <= low <= high")

    @classmethod
    def parse(cls, text: str) -> Chunking:
        """``"3"`` → 3 tokens per delta; ``"1-4"`` → 1 to 4."""
        low, _, high = text.partition("-")
        return cls(int(low), int(high or low))


class MockEngine:
    """The deterministic engine. Thread-safe for :meth:`queue` from a test thread while a server
    thread generates."""

    def __init__(
        self,
        *,
        seed: int = 0,
        scenario: str = "auto",
        latency: Latency | None = None,
        chunking: Chunking | None = None,
        request_log: int = REQUEST_LOG,
        script: AgentScript | None = None,
        request_log_bytes: int = REQUEST_LOG_BYTES,
    ) -> None:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; known: {', '.join(SCENARIOS)}")
        self.seed = seed
        self.scenario = scenario
        self.script = script
        self.latency = latency or Latency()
        self.chunking = chunking or Chunking()
        # The most recent requests only, so a long-running server does not grow with its traffic.
        self.requests: deque[GenerationRequest] = deque(maxlen=request_log)
        self._weights: deque[int] = deque(maxlen=request_log)  # body bytes of each, in order
        self._weight = 0
        self._log_bytes = request_log_bytes
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()

    # -- scripting -------------------------------------------------------------------------------

    def queue(self, *scripts: Script) -> None:
        """Answer the next requests, in order, with these scripts (scenario names or chunks)."""
        for script in scripts:
            if isinstance(script, str) and script not in SCENARIOS:
                raise ValueError(f"unknown scenario {script!r}; known: {', '.join(SCENARIOS)}")
        with self._lock:
            self._queue.extend(scripts)

    def queue_text(self, text: str) -> None:
        """Answer the next request with exactly ``text``."""
        self.queue([TextDelta(text)])

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self._weights.clear()
            self._weight = 0

    def _log(self, request: GenerationRequest) -> None:
        """Append to :attr:`requests`, dropping the oldest beyond the byte budget (the newest
        stays); the lock is held."""
        weight = request.hints.body_bytes
        if len(self._weights) == self._weights.maxlen and self._weights:
            self._weight -= self._weights[0]
        self.requests.append(request)
        self._weights.append(weight)
        self._weight += weight
        while self._weight > self._log_bytes and len(self.requests) > 1:
            self.requests.popleft()
            self._weight -= self._weights.popleft()

    def _next_script(self) -> Script | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def scenario_for(self, request: GenerationRequest) -> str:
        """The scenario ``request`` asks for (ignoring the queue and agent scripts)."""
        choice = self.choice_for(request)
        return choice if isinstance(choice, str) else self.scenario

    def choice_for(self, request: GenerationRequest) -> str | AgentScript:
        """The scenario or agent script ``request`` gets (ignoring the queue), in the order of
        the module docstring."""
        headers = request.hints.headers
        for source, name, script in (
            ("header", headers.get(SCENARIO_HEADER), headers.get(SCRIPT_HEADER)),
            (
                "metadata",
                request.metadata.get(SCENARIO_METADATA),
                request.metadata.get(SCRIPT_METADATA),
            ),
        ):
            if name is not None:
                if name not in SCENARIOS:
                    where = (
                        "header x-mock-scenario" if source == "header" else "metadata mock_scenario"
                    )
                    raise EngineError(
                        f"Unknown mock scenario {name!r} in {where}; known: {', '.join(SCENARIOS)}.",
                        code="invalid_request",
                    )
                return name
            if script is not None:
                where = "header x-mock-script" if source == "header" else "metadata mock_script"
                try:
                    return parse_script(script)
                except ScriptError as error:
                    raise EngineError(
                        f"Bad mock agent script in {where}: {error}.", code="invalid_request"
                    ) from None
        if request.model.startswith("mock-") and request.model[5:] in SCENARIOS:
            return request.model[5:]
        return self.script if self.script is not None else self.scenario

    # -- Engine protocol -------------------------------------------------------------------------

    def model_ids(self) -> Sequence[str]:
        return ["mock", *(f"mock-{name}" for name in SCENARIOS)]

    async def count_input_tokens(self, request: GenerationRequest) -> int:
        return count_request_tokens(request)

    def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        latency = self.latency
        if latency.duration is None and not (latency.ttft or latency.inter_token or latency.jitter):
            # The common case, and the hot path of every stream (benchmarks/
            # mock_streaming_throughput.py): nothing to wait for, so the runner may iterate the
            # chunks without an await each.
            return ReadyChunks(self._chunks(request, runs=True))
        return self._timed(request)

    def _chunks(self, request: GenerationRequest, *, runs: bool = False) -> Iterator[Chunk]:
        """The response's chunks, untimed (a generator: nothing happens before the first one is
        asked for, as with an async engine). ``runs``: text may come as :class:`TextRun` chunks
        (when no timing applies per delta)."""
        with self._lock:
            self._log(request)
        script = self._next_script()
        if script is not None and not isinstance(script, str):
            yield from _scripted(script, count_request_tokens(request))
            return
        choice = script if isinstance(script, str) else self.choice_for(request)
        try:
            if isinstance(choice, str):
                rng = rng_of(request_digest(request, self.seed, choice))
                plan = build_plan(choice, request, rng)
            else:
                plan = choice.plan(request, rng_of(request_digest(request, self.seed, "script")))
        except ScriptError as error:
            raise EngineError(f"Mock agent script: {error}.", code="invalid_request") from None
        except SchemaError as error:
            raise EngineError(
                f"The mock cannot generate a value for the JSON schema: {error}",
                code="invalid_request",
            ) from error
        except GrammarError as error:
            raise EngineError(
                f"The mock cannot generate input for the custom tool's grammar: {error}",
                code="invalid_request",
            ) from error
        yield from self._render(plan, request, request.hints.error_after, runs)

    async def _timed(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        """:meth:`_chunks` on the schedule of :attr:`latency`."""
        latency = self.latency
        stream = self._chunks(request)
        if latency.duration is not None:
            async for chunk in _paced(stream, latency):
                yield chunk
            return
        timing = rng_of(request_digest(request, self.seed, "latency"))
        first = True
        for chunk in stream:
            delay = latency.ttft if first else latency.inter_token
            if not isinstance(chunk, Final):
                delay += latency.jitter * timing.random() if latency.jitter else 0.0
                if delay > 0:
                    await _sleep(delay)
                first = False
            yield chunk

    def _render(
        self, plan: Plan, request: GenerationRequest, error_after: int | None, runs: bool = False
    ) -> Iterator[Chunk]:
        """The plan, token by token (synchronous: the engine's timing is applied by the caller)."""
        low, high = self.chunking.low, self.chunking.high
        # Chunk sizes come from their own RNG, so a fixed size may skip it without changing output.
        sizes = rng_of(request_digest(request, self.seed, "chunking")) if low != high else None
        fail_at = _min(plan.fail_after, error_after)
        message = plan.fail_message or "The mock server injected a mid-stream error."
        code = plan.fail_code
        used = reasoning = 0
        budget = plan.budget
        limit = _min(budget, fail_at)  # a chunk never crosses the budget or the failure point
        input_tokens = count_request_tokens(request)
        logprobs = _LogProbs.of(request, self.seed)
        for segment in plan.segments:
            tokens = tokenize(segment.text)
            if segment.kind == "hidden":
                # Reasoning nobody sees: one item, its tokens counted at once, cut at the budget.
                if fail_at is not None and used >= fail_at:
                    raise EngineError(message, code=code)
                counted = len(tokens) if budget is None else min(len(tokens), budget - used)
                yield ReasoningItem(segment.text)
                used += counted
                reasoning += counted
                if counted < len(tokens):
                    yield Final("length", input_tokens, used, reasoning_tokens=reasoning)
                    return
                continue
            if segment.kind == "annotation":
                if segment.annotation is not None:
                    yield TextAnnotation(segment.annotation)
                continue
            if segment.kind in ("hosted", "client_call"):
                # A hosted call is atomic; its query counts as output as a whole.
                if budget is not None and used + len(tokens) > budget:
                    yield Final("length", input_tokens, used, reasoning_tokens=reasoning)
                    return
                yield _chunk(segment, segment.text, first=True)
                used += len(tokens)
                continue
            is_text = segment.kind == "text"
            if not tokens and segment.kind in ("tool_call", "custom_call"):
                yield _chunk(segment, "", first=True)  # a call with empty input still is one
                continue
            if is_text and limit is None and sizes is None and low == 1 and logprobs is None:
                # The common case, token by token with nothing to check: the hot path of every
                # text stream (benchmarks/perf/mock_streaming_throughput.py). Without per-delta timing
                # the tokens go in runs: the same delta events, a chunk for many.
                if runs:
                    for start in range(0, len(tokens), _RUN):
                        yield TextRun(tokens[start : start + _RUN])
                else:
                    yield from map(_text_delta, tokens)
                used += len(tokens)
                continue
            is_reasoning = segment.kind in ("summary", "raw")
            pos, count = 0, len(tokens)
            while pos < count:
                if fail_at is not None and used >= fail_at:
                    raise EngineError(message, code=code)
                if budget is not None and used >= budget:
                    yield Final("length", input_tokens, used, reasoning_tokens=reasoning)
                    return
                size = low if sizes is None else sizes.randint(low, high)
                if limit is not None:
                    size = min(size, limit - used)
                piece = tokens[pos] if size == 1 else "".join(tokens[pos : pos + size])
                if is_text and logprobs is not None:
                    yield TextDelta(piece, logprobs=logprobs.tokens(tokens[pos : pos + size]))
                else:
                    yield _text_delta(piece) if is_text else _chunk(segment, piece, first=pos == 0)
                pos += size
                used += size
                if is_reasoning:
                    reasoning += size
        if fail_at is not None and used >= fail_at:
            raise EngineError(message, code=code)
        yield Final(plan.finish_reason, input_tokens, used, reasoning_tokens=reasoning)


LOGPROBS_INCLUDE = "message.output_text.logprobs"
# Alternatives for top_logprobs (a token is never its own alternative).
_ALTERNATIVES = (
    " the", " a", ",", ".", " and", " of", " to", " in", " is", " it", " that", " for",
    " on", " with", " as", " this", " be", " at", " by", " or", " an", " from", " not", " we",
)  # fmt: skip


class _LogProbs:
    """Deterministic log probabilities for output text tokens, from their own RNG (asking for
    them changes no text): each token's probability is drawn in [0.5, 0.99]; its ``N``
    alternatives (``top_logprobs``) take a third of what is left each, so every value is ≤ 0 and the
    probabilities of a position never add up to more than 1. The token itself comes first among
    its top logprobs, as the most likely."""

    def __init__(self, rng: random.Random, top: int) -> None:
        self.rng = rng
        self.top = top

    @classmethod
    def of(cls, request: GenerationRequest, seed: int) -> _LogProbs | None:
        include = request.body.get("include")
        if not isinstance(include, list) or LOGPROBS_INCLUDE not in include:
            return None
        top = request.body.get("top_logprobs")
        top = top if type(top) is int and top > 0 else 0
        return cls(rng_of(request_digest(request, seed, "logprobs")), top)

    def tokens(self, tokens: Sequence[str]) -> tuple[LogProb, ...]:
        return tuple(self.token(t) for t in tokens)

    def token(self, token: str) -> LogProb:
        rng = self.rng
        p = 0.5 + 0.49 * rng.random()
        value = round(math.log(p), 6)
        top: list[tuple[str, float]] = []
        if self.top:
            top.append((token, value))
            rest = 1.0 - p
            start = rng.randrange(len(_ALTERNATIVES))
            alternatives = [a for a in _ALTERNATIVES[start:] + _ALTERNATIVES[:start] if a != token]
            for i in range(self.top - 1):
                rest /= 3
                top.append((alternatives[i % len(alternatives)] + " " * (i // len(alternatives)),
                            round(math.log(rest), 6)))  # fmt: skip
        return LogProb(token, value, tuple(top))


# asyncio's own sleep and clock: the app is served on asyncio (reference_impl/service/sse.py), and anyio's
# look the backend up on every call (sniffio): ~7 % of a paced stream's server CPU, once per
# delta (benchmarks/perf/mock_capacity.py). Module names, so that tests can fake the time.
_sleep = asyncio.sleep


def _now() -> float:
    return asyncio.get_running_loop().time()


async def _paced(stream: Iterator[Chunk], latency: Latency) -> AsyncIterator[Chunk]:
    """``stream`` on the schedule of :meth:`Latency.offsets`: rendered first (its length sets the
    gaps), then sent against a deadline per chunk, so sleep overshoot does not add up."""
    chunks: list[Chunk] = []
    failure: EngineError | None = None
    try:
        chunks.extend(stream)
    except EngineError as error:  # raised after the deltas before it, on their schedule
        failure = error
    offsets = latency.offsets(sum(1 for c in chunks if not isinstance(c, Final)))
    start = _now()
    sent = 0
    for chunk in chunks:
        due = (latency.duration or 0.0) if isinstance(chunk, Final) else offsets[sent]
        wait = start + due - _now()
        if wait > 0:
            await _sleep(wait)
        if not isinstance(chunk, Final):
            sent += 1
        yield chunk
    if failure is not None:
        raise failure


_RUN = 256  # tokens per TextRun: the events of one run are built before the first is sent

# Text deltas by their text: a chunk is immutable, and prose repeats a small vocabulary, so the
# token-by-token stream reuses them instead of building one per token. Bounded in entries and in
# the length of a cached text.
_TEXT_DELTAS: dict[str, TextDelta] = {}
_TEXT_DELTAS_MAX = 1 << 16
_TEXT_DELTA_LEN_MAX = 64


def _text_delta(text: str) -> TextDelta:
    chunk = _TEXT_DELTAS.get(text)
    if chunk is None:
        chunk = TextDelta(text)
        if len(text) <= _TEXT_DELTA_LEN_MAX and len(_TEXT_DELTAS) < _TEXT_DELTAS_MAX:
            _TEXT_DELTAS[text] = chunk
    return chunk


def _min(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _chunk(segment: Segment, piece: str, *, first: bool) -> Chunk:
    if segment.kind == "summary":
        return ReasoningDelta(piece, kind="summary", summary_index=segment.index)
    if segment.kind == "raw":
        return ReasoningDelta(piece, kind="raw")
    if segment.kind == "text":
        return TextDelta(piece)
    if segment.kind == "refusal":
        return RefusalDelta(piece)
    if segment.kind == "tool_call":
        if not first:
            return ToolCallDelta(segment.index, piece)
        return ToolCallDelta(segment.index, piece, name=segment.name, namespace=segment.namespace)
    if segment.kind == "custom_call":
        if not first:
            return ToolCallDelta(segment.index, piece, kind="custom")
        return ToolCallDelta(
            segment.index, piece, name=segment.name, kind="custom", namespace=segment.namespace
        )
    if segment.call is not None:
        return segment.call
    return HostedToolCall("web_search_call", dict(segment.action))


def _scripted(script: Sequence[Chunk | EngineError], input_tokens: int) -> Iterator[Chunk]:
    for item in script:
        if isinstance(item, EngineError):
            raise item
        yield item
        if isinstance(item, Final):
            return
    chunks = [c for c in script if not isinstance(c, EngineError)]
    output, reasoning = _count_output(chunks)
    reason: FinishReason = "stop"
    if any(isinstance(c, ToolCallDelta) for c in chunks):
        reason = "tool_calls"
    yield Final(reason, input_tokens, output, reasoning_tokens=reasoning)


def _count_output(chunks: Iterable[Chunk]) -> tuple[int, int]:
    """Tokens of scripted output, counting each item's joined text (splits don't change counts)."""
    texts: dict[tuple[str, int], list[str]] = {}
    for c in chunks:
        if isinstance(c, ReasoningDelta):
            texts.setdefault((f"reasoning-{c.kind}", c.summary_index), []).append(c.text)
        elif isinstance(c, TextDelta | RefusalDelta):
            texts.setdefault((type(c).__name__, 0), []).append(c.text)
        elif isinstance(c, TextRun):
            texts.setdefault(("TextDelta", 0), []).extend(c.pieces)
        elif isinstance(c, ToolCallDelta):
            texts.setdefault(("call", c.index), []).append(c.arguments)
        elif isinstance(c, HostedToolCall):
            texts.setdefault(("hosted", len(texts)), []).append(str(c.action.get("query", "")))
    counts = {key: count_tokens("".join(parts)) for key, parts in texts.items()}
    reasoning = sum(n for key, n in counts.items() if key[0].startswith("reasoning"))
    return sum(counts.values()), reasoning
