"""What the load test sends (sans-I/O): request bodies for ``POST /v1/responses``.

A workload is a source of **sessions**; a session is one or more turns, the later ones sent with
``previous_response_id`` of the answer before (SPEC §4), so multi-turn state is exercised as a chat
client would. Sources:

- **synthetic** prompts of a controlled length (``--input-tokens``: fixed, a range, or a
  distribution): common English words, each a single token in the usual BPE vocabularies (and
  exactly one in the mock's tokenizer), drawn at random so that no two prompts share a prefix a
  server could cache;
- a **file** (``--workload``): JSONL, a JSON array (ShareGPT ``conversations``), CSV or Parquet,
  one session per record (:mod:`benchmarks.responses_bench.datasets.records` lists the fields);
  with ``timestamp`` s it is a trace that ``--shape trace`` replays (:func:`trace_plan`).

On top of either, ``--prefix-count N --prefix-tokens T`` puts one of ``N`` shared prefixes before
each session's first input (prefix-cache tests), and ``--output-tokens`` draws ``max_output_tokens``.
Options fill what a record leaves out: ``model``, ``stream``, ``max_output_tokens``, tools (two
function tools, ``tool_choice: auto``) and reasoning (``{"effort": …, "summary": "auto"}``).

**Deterministic**: session ``i`` is a pure function of ``(--seed, i)`` (its prompt, prefix and
lengths come from an RNG seeded by both), and each load process takes every ``shares``-th index, so
a seed gives the same request sequence on every run.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from .arrivals import ArrivalPlan, Step
from .datasets import Entry, Lengths, WorkloadError, detect, read_entries
from .datasets.lengths import MAX_TOKENS
from .datasets.records import MIN_OUTPUT
from .datasets.words import block, prefix_pool, words

__all__ = [
    "TOOLS",
    "RequestPlan",
    "Session",
    "Workload",
    "WorkloadConfig",
    "WorkloadError",
    "trace_plan",
]

TOOLS: tuple[dict[str, Any], ...] = (
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
        "strict": True,
    },
    {
        "type": "function",
        "name": "lookup_order",
        "description": "Look up an order by its number.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
        "strict": True,
    },
)

DEFAULT_INPUT = Lengths.fixed(128)

MAX_PREFIX_COUNT = 100_000
MAX_PREFIX_POOL_TOKENS = 10_000_000
"""The prefix pool is built whole before the run: its size is bounded (10M tokens is about 50 MB
of text, five times the longest prompt a length option takes), as each length option is."""


@dataclass(frozen=True, slots=True)
class WorkloadConfig:
    model: str
    stream: bool = True
    prompt_tokens: Lengths | tuple[int, int] = DEFAULT_INPUT  # a (LO, HI) range: uniform
    max_output_tokens: int | None = 256
    output_tokens: Lengths | None = None  # drawn per request; wins over max_output_tokens
    tools: bool = False
    reasoning: str | None = None  # effort: minimal / low / medium / high
    turns: int = 1
    path: Path | None = None  # --workload
    format: str = "auto"
    limit: int = 100_000  # sessions kept from the file (every record is still checked)
    trace: bool = False  # every record needs a timestamp (--shape trace)
    trace_block_tokens: int = 512
    prefix_count: int = 0
    prefix_tokens: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.prompt_tokens, tuple):
            low, high = self.prompt_tokens
            if not 1 <= low <= high <= MAX_TOKENS:
                raise WorkloadError(f"prompt tokens need 1 <= LOW <= HIGH <= {MAX_TOKENS:,}")
            lengths = (
                Lengths.fixed(low)
                if low == high
                else Lengths((low + high) / 2, low=low, high=high, uniform=True)
            )
            object.__setattr__(self, "prompt_tokens", lengths)
        if self.max_output_tokens is not None and self.max_output_tokens < MIN_OUTPUT:
            raise WorkloadError("max_output_tokens must be >= 16 (SPEC §3, request)")
        if self.output_tokens is not None and self.output_tokens.low < MIN_OUTPUT:
            raise WorkloadError("output tokens must be >= 16 (SPEC §3, request)")
        if self.turns < 1:
            raise WorkloadError("turns must be >= 1")
        if self.limit < 1:
            raise WorkloadError("the workload limit must be >= 1")
        if self.trace and self.path is None:
            raise WorkloadError(
                "a trace replay needs --workload FILE with a `timestamp` per record"
            )
        if self.trace_block_tokens < 1:
            raise WorkloadError("trace block tokens must be >= 1")
        if self.prefix_count < 0 or self.prefix_tokens < 0:
            raise WorkloadError("prefix count and tokens must be >= 0")
        if self.prefix_tokens > MAX_TOKENS or self.trace_block_tokens > MAX_TOKENS:
            raise WorkloadError(f"--prefix-tokens and --trace-block-tokens: at most {MAX_TOKENS:,}")
        if self.prefix_count > MAX_PREFIX_COUNT:
            raise WorkloadError(f"--prefix-count: at most {MAX_PREFIX_COUNT:,} prefixes")
        if self.prefix_count * self.prefix_tokens > MAX_PREFIX_POOL_TOKENS:
            raise WorkloadError(
                f"--prefix-count x --prefix-tokens: at most {MAX_PREFIX_POOL_TOKENS:,} tokens in "
                f"the pool (it is built before the run; asked: "
                f"{self.prefix_count * self.prefix_tokens:,})"
            )
        if (self.prefix_count > 0) != (self.prefix_tokens > 0):
            raise WorkloadError("a prefix pool needs both --prefix-count N and --prefix-tokens T")

    def describe(self, trace_speedup: float | None = None) -> dict[str, Any]:
        """What the run sent, for summary.json's ``workload`` block."""
        return {
            "source": str(self.path) if self.path is not None else "synthetic",
            "format": detect(self.path, self.format) if self.path is not None else None,
            "input_tokens": self.input_lengths.describe() if self.path is None else None,
            "max_output_tokens": (
                self.output_tokens.describe()
                if self.output_tokens is not None
                else self.max_output_tokens
            ),
            "turns": self.turns,
            "prefix_pool": (
                {"count": self.prefix_count, "tokens": self.prefix_tokens}
                if self.prefix_count
                else None
            ),
            "trace_speedup": trace_speedup,
            "seed": self.seed,
        }

    @property
    def input_lengths(self) -> Lengths:
        assert isinstance(self.prompt_tokens, Lengths)
        return self.prompt_tokens


@dataclass(slots=True)
class RequestPlan:
    body: bytes
    stream: bool
    max_output_tokens: int | None
    turn: int


@dataclass(slots=True)
class Session:
    """Turns of one conversation; :meth:`next` gives the next request, :meth:`answered` chains it."""

    turns: list[dict[str, Any]]
    index: int = 0
    previous_response_id: str | None = None
    broken: bool = False

    @property
    def done(self) -> bool:
        return self.broken or self.index >= len(self.turns)

    def next(self) -> RequestPlan:
        body = dict(self.turns[self.index])
        if self.index > 0 and self.previous_response_id is not None:
            body["previous_response_id"] = self.previous_response_id
        plan = RequestPlan(
            body=orjson.dumps(body),
            stream=bool(body.get("stream", False)),
            max_output_tokens=_int(body.get("max_output_tokens")),
            turn=self.index,
        )
        self.index += 1
        return plan

    def answered(self, response_id: str | None, ok: bool) -> None:
        """A later turn needs the id of this answer; without one the conversation cannot go on."""
        if ok and response_id:
            self.previous_response_id = response_id
        else:
            self.broken = True


@dataclass(slots=True)
class Workload:
    config: WorkloadConfig
    entries: list[Entry] = field(default_factory=list)
    records: int = 0  # good records in the file (may exceed len(entries): --workload-limit)
    skipped: int = 0  # conversations without a human turn
    format: str | None = None
    prefixes: tuple[str, ...] = ()
    _count: int = 0

    @classmethod
    def load(cls, config: WorkloadConfig) -> Workload:
        """Read and check the whole file (if any) now, before a request is sent."""
        workload = cls(
            config, prefixes=prefix_pool(config.seed, config.prefix_count, config.prefix_tokens)
        )
        if config.path is not None:
            loaded = read_entries(
                config.path,
                config.format,
                max_turns=config.turns,
                limit=config.limit,
                require_timestamp=config.trace,
            )
            entries = loaded.entries
            if config.trace:
                entries = sorted(entries, key=lambda e: e.timestamp or 0.0)  # stable
            workload.entries = entries
            workload.records, workload.skipped, workload.format = (
                loaded.records,
                loaded.skipped,
                loaded.format,
            )
        return workload

    def session(self, share: int = 0, shares: int = 1) -> Session:
        """This process's next session: indices ``share``, ``share + shares``, … in turn."""
        index = self._count * shares + share
        self._count += 1
        return self.session_at(index)

    def session_at(self, index: int) -> Session:
        """Session ``index``: the file's records in turn (wrapping around), or a synthetic one."""
        cfg = self.config
        rng = random.Random(f"{cfg.seed}/session/{index}")
        if self.entries:
            entry = self.entries[index % len(self.entries)]
            turns = [dict(t) for t in entry.turns]
            if entry.input_length is not None:
                turns[0]["input"] = self._trace_prompt(entry, rng)
        else:
            turns = [{"input": self.prompt(rng)} for _ in range(cfg.turns)]
        multi = len(turns) > 1
        bodies = [self._complete(t, multi, rng) for t in turns]
        if self.prefixes:
            first = bodies[0]
            first["input"] = _prefixed(rng.choice(self.prefixes), first["input"])
        return Session(bodies)

    def prompt(self, rng: random.Random) -> str:
        return words(rng, self.config.input_lengths.draw(rng))

    def _trace_prompt(self, entry: Entry, rng: random.Random) -> str:
        """``input_length`` tokens: the blocks of the record's hash ids (cut or padded to it)."""
        size = self.config.trace_block_tokens
        tokens: list[str] = []
        for hash_id in entry.hash_ids:
            tokens += _block(self.config.seed, hash_id, size)
        length = entry.input_length or len(tokens)
        if len(tokens) < length:
            tokens += words(rng, length - len(tokens)).split(" ")
        return " ".join(tokens[:length])

    def _complete(
        self, fragment: Mapping[str, Any], multi: bool, rng: random.Random
    ) -> dict[str, Any]:
        cfg = self.config
        body = dict(fragment)
        if "prompt" in body:
            body.setdefault("input", body.pop("prompt"))
        body.setdefault("model", cfg.model)
        body.setdefault("stream", cfg.stream)
        if "max_output_tokens" not in body:
            if cfg.output_tokens is not None:
                body["max_output_tokens"] = cfg.output_tokens.draw(rng)
            elif cfg.max_output_tokens is not None:
                body["max_output_tokens"] = cfg.max_output_tokens
        if cfg.tools:
            body.setdefault("tools", [dict(t) for t in TOOLS])
            body.setdefault("tool_choice", "auto")
        if cfg.reasoning:
            body.setdefault("reasoning", {"effort": cfg.reasoning, "summary": "auto"})
        if multi:
            body.setdefault("store", True)  # a later turn names this response
        return body

    def trace_offsets(self, speedup: float = 1.0, until: float | None = None) -> tuple[float, ...]:
        """Each session's arrival, in seconds from the trace's first, divided by ``speedup``;
        those at or after ``until`` (``-t``) are cut."""
        if not self.entries:
            return ()
        origin = self.entries[0].timestamp or 0.0
        offsets = tuple(((e.timestamp or 0.0) - origin) / speedup for e in self.entries)
        if until is not None:
            offsets = tuple(o for o in offsets if o < until)
        return offsets


def trace_plan(workload: Workload, speedup: float, until: float | None) -> ArrivalPlan:
    """The open-loop schedule of a trace: arrival ``i`` at session ``i``'s (sped-up) offset."""
    offsets = workload.trace_offsets(speedup, until)
    if not offsets:
        raise WorkloadError("the trace has no arrival before -t/--run-time")
    duration = until if until is not None else offsets[-1] + 0.001
    return ArrivalPlan((Step(len(offsets) / duration, duration),), offsets=offsets)


@lru_cache(maxsize=1024)
def _block(seed: int, hash_id: int, tokens: int) -> tuple[str, ...]:
    return tuple(block(seed, hash_id, tokens).split(" "))


def _prefixed(prefix: str, value: Any) -> Any:
    """The shared prefix before the first input: text first, or a leading user message."""
    if isinstance(value, str):
        return f"{prefix} {value}"
    return [{"type": "message", "role": "user", "content": prefix}, *value]


def _int(value: Any) -> int | None:
    return value if type(value) is int else None
