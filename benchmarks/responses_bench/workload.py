"""What the load test sends (sans-I/O): request bodies for ``POST /v1/responses``.

A workload is a source of **sessions**; a session is one or more turns, the later ones sent with
``previous_response_id`` of the answer before (SPEC §4), so multi-turn state is exercised as a chat
client would. Sources:

- **synthetic** prompts of a controlled length: ``N`` common English words, each a single token in
  the usual BPE vocabularies (and exactly one in the mock's tokenizer), drawn at random so that no
  two prompts share a prefix a server could cache;
- a **JSONL file**, one session per line: a ``CreateResponse`` body fragment (any fields; ``prompt``
  is shorthand for ``input``), optionally ``"followups": [text or fragment, ...]`` for later turns.

Options fill what a line leaves out: ``model``, ``stream``, ``max_output_tokens``, tools (two function
tools, ``tool_choice: auto``) and reasoning (``{"effort": …, "summary": "auto"}``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["TOOLS", "RequestPlan", "Session", "Workload", "WorkloadConfig", "WorkloadError"]

# Words that are one token each in cl100k/o200k (with their leading space) and in the mock.
_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "for",
    "on",
    "are",
    "as",
    "with",
    "his",
    "they",
    "at",
    "be",
    "this",
    "from",
    "have",
    "or",
    "by",
    "one",
    "had",
    "not",
    "but",
    "what",
    "all",
    "were",
    "when",
    "we",
    "there",
    "can",
    "an",
    "your",
    "which",
    "their",
    "said",
    "if",
    "do",
    "will",
    "each",
    "about",
    "how",
    "up",
    "out",
    "them",
    "then",
    "she",
    "many",
    "some",
    "so",
    "these",
    "would",
    "other",
    "into",
    "has",
    "more",
    "her",
    "two",
    "like",
    "him",
    "see",
    "time",
    "could",
    "no",
    "make",
    "than",
    "first",
    "been",
    "its",
    "who",
    "now",
    "people",
    "my",
    "made",
    "over",
    "did",
    "down",
    "only",
    "way",
    "find",
    "use",
    "may",
    "water",
    "long",
    "little",
    "very",
    "after",
    "words",
    "called",
    "just",
    "where",
    "most",
    "know",
    "get",
    "through",
    "back",
    "much",
    "before",
    "go",
    "good",
    "new",
    "write",
    "our",
    "used",
    "me",
    "man",
    "too",
    "any",
    "day",
    "same",
    "right",
    "look",
    "think",
    "also",
    "around",
    "another",
    "came",
    "come",
    "work",
    "three",
    "word",
    "must",
    "because",
    "does",
    "part",
    "even",
    "place",
    "well",
    "such",
    "here",
    "take",
    "why",
    "things",
    "help",
    "put",
    "years",
    "different",
    "away",
    "again",
    "off",
    "went",
    "old",
    "number",
    "great",
    "tell",
    "men",
    "say",
    "small",
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


class WorkloadError(ValueError):
    """A workload that cannot be used (bad JSONL line, impossible lengths)."""


@dataclass(frozen=True, slots=True)
class WorkloadConfig:
    model: str
    stream: bool = True
    prompt_tokens: tuple[int, int] = (128, 128)  # inclusive range, drawn per prompt
    max_output_tokens: int | None = 256
    tools: bool = False
    reasoning: str | None = None  # effort: minimal / low / medium / high
    turns: int = 1
    jsonl: Path | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        low, high = self.prompt_tokens
        if not 1 <= low <= high:
            raise WorkloadError("prompt tokens need 1 <= LOW <= HIGH")
        if self.max_output_tokens is not None and self.max_output_tokens < 16:
            raise WorkloadError("max_output_tokens must be >= 16 (SPEC §3, request)")
        if self.turns < 1:
            raise WorkloadError("turns must be >= 1")


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
    lines: list[dict[str, Any]] = field(default_factory=list)
    _position: int = 0

    @classmethod
    def load(cls, config: WorkloadConfig) -> Workload:
        lines: list[dict[str, Any]] = []
        if config.jsonl is not None:
            lines = _read_jsonl(config.jsonl)
        return cls(config, lines)

    def session(self, rng: random.Random) -> Session:
        """The next session: the JSONL lines in turn (wrapping around), or a synthetic one."""
        if self.lines:
            line = self.lines[self._position % len(self.lines)]
            self._position += 1
            first = dict(line)
            followups = first.pop("followups", [])
            turns = [first, *(_fragment(f) for f in followups)]
        else:
            turns = [{"input": self.prompt(rng)} for _ in range(self.config.turns)]
        multi = len(turns) > 1
        return Session([self._complete(t, multi) for t in turns])

    def prompt(self, rng: random.Random) -> str:
        low, high = self.config.prompt_tokens
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))

    def _complete(self, fragment: Mapping[str, Any], multi: bool) -> dict[str, Any]:
        cfg = self.config
        body = dict(fragment)
        if "prompt" in body:
            body.setdefault("input", body.pop("prompt"))
        body.setdefault("model", cfg.model)
        body.setdefault("stream", cfg.stream)
        if cfg.max_output_tokens is not None:
            body.setdefault("max_output_tokens", cfg.max_output_tokens)
        if cfg.tools:
            body.setdefault("tools", [dict(t) for t in TOOLS])
            body.setdefault("tool_choice", "auto")
        if cfg.reasoning:
            body.setdefault("reasoning", {"effort": cfg.reasoning, "summary": "auto"})
        if multi:
            body.setdefault("store", True)  # a later turn names this response
        return body


def _fragment(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"input": value}
    if isinstance(value, dict):
        return dict(value)
    raise WorkloadError(f"a followup must be a string or an object, got {type(value).__name__}")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every session of the file, each line checked before any request is sent: the first bad
    line is named by its number (and how many more there are), so a run never starts on a file
    that would fail request after request."""
    try:
        text = path.read_bytes()
    except OSError as error:
        raise WorkloadError(f"cannot read workload {path}: {error.strerror or error}") from None
    if text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    lines: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith(b"#"):
            continue
        problem = _line_problem(raw)
        if isinstance(problem, str):
            problems.append(f"{path}:{number}: {problem}")
        else:
            lines.append(problem)
    if problems:
        more = f" (and {len(problems) - 1} more bad line(s))" if len(problems) > 1 else ""
        raise WorkloadError(problems[0] + more)
    if not lines:
        raise WorkloadError(f"{path}: no request in the file")
    return lines


def _line_problem(raw: bytes) -> dict[str, Any] | str:
    """The line's session, or what is wrong with it."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return f"not JSON ({error})"
    if not isinstance(obj, dict):
        return f"expected a JSON object, got {_kind(obj)}"
    problem = _fragment_problem(obj)
    if problem is not None:
        return problem
    followups = obj.get("followups", [])
    if not isinstance(followups, list):
        return f"`followups` must be a list, got {_kind(followups)}"
    for index, followup in enumerate(followups):
        if isinstance(followup, str):
            continue
        if not isinstance(followup, dict):
            return f"followups[{index}] must be a string or an object, got {_kind(followup)}"
        problem = _fragment_problem(followup)
        if problem is not None:
            return f"followups[{index}]: {problem}"
    return obj


def _fragment_problem(obj: Mapping[str, Any]) -> str | None:
    """Fields the bench itself reads must have the type the request needs."""
    if "input" not in obj and "prompt" not in obj:
        return "needs `input` or `prompt`"
    for key in ("input", "prompt"):
        if key in obj and not isinstance(obj[key], str | list):
            return f"`{key}` must be a string or a list of input items, got {_kind(obj[key])}"
    if "model" in obj and not isinstance(obj["model"], str):
        return f"`model` must be a string, got {_kind(obj['model'])}"
    if "stream" in obj and not isinstance(obj["stream"], bool):
        return f"`stream` must be true or false, got {_kind(obj['stream'])}"
    limit = obj.get("max_output_tokens")
    if limit is not None and (type(limit) is not int or limit < 16):
        return "`max_output_tokens` must be an integer >= 16 (SPEC §3) or null"
    return None


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None
