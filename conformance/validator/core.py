"""The façade: :class:`StreamValidator`, one per stream, and the table of its event handlers.

``feed(event)`` takes one decoded event object (a ``dict`` as parsed from an SSE ``data:`` payload
or a JSON Lines record) and returns the violations it reveals at once; ``close()`` returns the
end-of-stream violations. The rules themselves live by concern in the sibling modules; this one
routes each event to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..bodies.objects import ResponseChecker
from ..catalog.registry import Violation
from ..schema import OPENRESPONSES_SCHEMAS, SCHEMAS, SchemaValidator
from ..sections.s1_2_error_event import judge_after_error, judge_error_unanswered
from ..sections.s1_3_unknown_types import judge_nonstandard, judge_not_openresponses, judge_unknown
from ..sections.s1_3_unknown_types import note_typed as note_typed_type
from ..sections.s1_7_hosted_tools import ToolRules
from ..sections.s1_7_hosted_tools import wanted as tool_rules_want
from ..sections.s1_stream_events import judge_not_an_object, judge_untyped
from ..sections.s1_stream_events import note_typed as note_typed_event
from ..sections.s1a_schemas import judge_schema_issues
from ..sections.s1a_schemas import note_typed as note_typed_schema
from ..sections.s2_1_sequence import judge_sequence
from ..sections.s2_2_lifecycle import (
    judge_after_terminal,
    judge_terminal_present,
    resumed_lifecycle,
)
from ..sections.s5_limits import judge_too_deep_to_follow
from . import items, lifecycle, parts, values
from .exercised import Coverage
from .fastpath import FastPath, fast_table
from .model import FastSpec, Item
from .state import Handler, Reporter, StreamState
from .tables import (
    ADDED_FIRST,
    NONSTANDARD,
    OPENRESPONSES_EVENTS,
    PART_TEXT,
    VALUE_STREAMS,
)

__all__ = ["PROFILES", "StreamValidator"]

PROFILES = frozenset(
    {"core", "stateful", "tools", "reasoning", "structured", "openresponses", "custom-tools"}
    | {"conversations", "compaction", "stateless-reasoning"}  # the state profiles (§4.5–§4.7)
    | {"websocket", "websocket:steering"}  # WebSocket mode (conformance.websocket)
    | {
        f"hosted:{t}"
        for t in (
            "web_search",
            "file_search",
            "code_interpreter",
            "image_generation",
            "mcp",
            "tool_search",
            "shell",
            "apply_patch",
            "computer_use_preview",
        )
    }
    # the client profiles (docs/spec.md §9): live only, they add no stream rule
    | {
        f"client:{c}"
        for c in ("codex", "agents-sdk", "vercel-ai", "openai-python", "openai-node", "langchain")
    }
)


class StreamValidator(StreamState):
    """Validates one Responses event stream, event by event.

    ``resume_after``: the stream is ``GET …?stream=true&starting_after=N`` (SPEC §2.12): its first
    event is numbered N+1, it has no ``response.created``, and items opened before N may be named.
    ``profiles``: which profile-specific checks apply (``openresponses`` adds [OR]'s requirements).
    ``max_output_tokens``: the request's limit, when the caller knows it (the echoed
    ``response.max_output_tokens`` is used otherwise).
    ``fast``: the one switch of the judge's speed work. True (the default) puts a
    :class:`~.fastpath.FastPath` in front of the full path (:attr:`fast_path`, also what the
    framing layer hands SSE records to); False is the reference path, every event judged in
    full. Both give the same verdicts (the equivalence tests are the contract).
    """

    __slots__ = ()

    def __init__(
        self,
        *,
        resume_after: int | None = None,
        profiles: Iterable[str] = ("core",),
        max_output_tokens: int | None = None,
        schemas: SchemaValidator | None = None,
        coverage: bool = False,
        fast: bool = True,
    ) -> None:
        self.profiles = frozenset(profiles)
        unknown = self.profiles - PROFILES
        if unknown:
            raise ValueError(f"unknown profile(s): {', '.join(sorted(unknown))}")
        self.resume_after = resume_after
        if schemas is None:
            # [OR]'s own schema where it is looser than [OAPI]'s (docs/spec.md §3.4).
            schemas = OPENRESPONSES_SCHEMAS if "openresponses" in self.profiles else SCHEMAS
        self._schemas = schemas
        # What the rules were applied to (`exercised`), when the caller asks: the live suite.
        self.coverage = Coverage() if coverage else None
        self._responses = ResponseChecker(
            profiles=self.profiles,
            max_output_tokens=max_output_tokens,
            applied=None if self.coverage is None else self.coverage.applied,
        )
        self.violations: list[Violation] = []
        self._report = Reporter(self.violations, self.profiles)
        self._tool_rules = ToolRules(self._report, self.coverage)
        self.events = 0
        self.terminal: Mapping[str, Any] | None = None  # the terminal event's response
        self.terminal_type: str | None = None
        self.response_id: Any = None
        self._created_at: Any = None
        self.next_seq: int | None = None if resume_after is None else resume_after + 1
        self._seq_started = False
        # A resumed stream starts only as far on as its replay proves (docs/spec.md §7.6).
        phase, before_resume = resumed_lifecycle(resume_after)
        self._phase = phase
        self._seen_lifecycle: set[str] = set(before_resume)
        self._items: dict[int, Item] = {}
        self._item_ids: set[Any] = set()
        self._next_output_index: int | None = 0 if resume_after is None else None
        self._last_added = -1
        self._error_at: int | None = None
        self._error_pending = False  # an `error` was the last event: `response.failed` is next
        self._incomplete_item: int | None = None
        self._too_deep_at: int | None = None
        self._top_logprobs: int | None = None
        self._closed = False
        self._openresponses = "openresponses" in self.profiles
        known, self._handlers, specs, raw_types, self._predicates = _tables(self._schemas)
        self._known_types = known
        self.fast = fast
        self.fast_judged = 0  # events the fast path judged (dict or typed)
        self.fast_path = FastPath(specs, raw_types) if fast else None

    def feed(self, event: object) -> list[Violation]:
        """Judge one event; returns the violations it reveals (also kept in ``violations``)."""
        fast = self.fast_path
        if fast is None:
            return self._feed(event)
        if type(event) is dict:
            etype = event.get("type")
            if type(etype) is str and etype in fast.types and fast.feed(self, event, etype):
                return []
        out = self._feed(event)
        fast.forget(self)
        return out

    def _feed(self, event: object) -> list[Violation]:
        index = self.events
        self.events += 1
        start = len(self.violations)
        if self._closed:
            raise RuntimeError("feed() after close()")
        if not isinstance(event, dict):
            judge_not_an_object(self._report, event, index)  # §1 (conformance.sections)
            return self.violations[start:]
        etype = event.get("type")
        if not isinstance(etype, str):
            judge_untyped(self._report, etype, index)  # §1
            judge_sequence(self, event, index)
            return self.violations[start:]
        seq = event.get("sequence_number")
        if type(seq) is int and seq == self.next_seq and self._seq_started:
            self.next_seq = seq + 1  # the next number, as `judge_sequence` would take it
        else:
            judge_sequence(self, event, index)
        if self._error_pending:  # §1.2: the event after an `error` (conformance.sections)
            judge_after_error(self, etype, index)
        if self.terminal_type is not None and (
            etype in self._predicates or etype in self._known_types or etype in NONSTANDARD
        ):
            # §2.2: no protocol event after the terminal one (an undocumented one is
            # `event.type.known`'s, as anywhere else).
            judge_after_terminal(self, etype, index)
        predicate = self._predicates.get(etype)
        if predicate is not None:
            # `SchemaValidator.validate_event`, whose first step is this predicate: only an
            # event it refuses is interpreted for its issues.
            try:
                issues = () if predicate(event) else self._schemas.validate_event(event)
            except RecursionError:
                issues = ()
                self._too_deep(index)
            if issues:
                judge_schema_issues(self._report, issues, index)  # §1a (conformance.sections)
        elif etype in self._known_types:
            pass  # a documented type without a compiled predicate: no issue to report
        elif etype in NONSTANDARD:
            judge_nonstandard(self._report, etype, index)  # §1.3
        else:
            judge_unknown(self._report, etype, index)  # §1.3
        if self._openresponses and etype not in OPENRESPONSES_EVENTS and ":" not in etype:
            judge_not_openresponses(self._report, etype, index)  # §1.3
        coverage = self.coverage
        if coverage is not None:  # §1, §1.3, §1a: the event's type and schema were judged
            note_typed_event(coverage)
            note_typed_type(coverage, self._openresponses)
            note_typed_schema(coverage)
        handler = self._handlers.get(etype)
        try:
            if handler is not None:
                handler(self, event, index)
            else:
                items.on_other(self, event, etype, index)
            if tool_rules_want(etype):
                self._tool_rules.feed(event, etype, index)
            if self.coverage is not None:
                self.coverage.see(event, etype)
        except RecursionError:
            # A value nested ~1,000 deep (orjson parses 1,024 levels) outruns Python's stack
            # in a comparison or a rendering; the event is judged as far as it went.
            self._too_deep(index)
        return self.violations[start:]

    def _too_deep(self, index: int) -> None:
        if self._too_deep_at != index:  # once per event
            self._too_deep_at = index
            judge_too_deep_to_follow(self._report, index)  # §5 (conformance.sections)

    def close(self, *, cancelled: bool = False) -> list[Violation]:
        """End of stream: report what never finished.

        ``cancelled``: the caller cancelled the (background) response while reading, and SPEC
        §2.13 lets such a stream end without a terminal event; what counts then is the retrieved
        object's ``status: "cancelled"``, which is the caller's to check.
        """
        if self._closed:
            return []
        self._closed = True
        if self.fast_path is not None:
            self.fast_path.close()
        start = len(self.violations)
        judge_terminal_present(self, cancelled=cancelled)
        if self.terminal_type is None and not cancelled:
            judge_error_unanswered(self)
        return self.violations[start:]

    def skip(self) -> int:
        """Count an event that could not be decoded (the framing layer reported it); returns
        its index so event indices stay those of the stream as received."""
        self.events += 1
        return self.events - 1

    @property
    def exercised(self) -> set[str]:
        """The checks this stream put to the test (needs ``coverage=True``): those its events
        gave work to, and every one that reported a violation."""
        if self.coverage is None:
            raise RuntimeError("StreamValidator(coverage=True) records what was exercised")
        return self.coverage.exercised() | {v.check_id for v in self.violations}

    @property
    def ok(self) -> bool:
        return not any(v.check.level.value == "MUST" for v in self.violations)

    @property
    def footprint(self) -> int:
        """How many numbered things the validator holds: output items, their content and summary
        parts, and the parts' annotations (:mod:`.slots`). At most one per event plus a bounded
        gap, whatever the indices a stream sends; tests assert it."""
        total = 0
        for item in self._items.values():
            total += 1 + len(item.parts) + len(item.summaries)
            for part in item.parts:
                total += len(part.annotations)
        return total


_Tables = tuple[
    frozenset[str],
    dict[str, Handler],
    dict[str, FastSpec],
    dict[bytes, str],
    dict[str, Callable[[dict[str, Any]], bool]],
]
_TABLES: dict[int, tuple[SchemaValidator, _Tables]] = {}


def _tables(schemas: SchemaValidator) -> _Tables:
    """Per schema validator, built once and shared by every stream (a stream is often short, so
    its set-up counts): the documented event types, the handler of each event type, and the
    fast-path table of the delta types, and the compiled schema predicate of each type."""
    cached = _TABLES.get(id(schemas))
    if cached is not None and cached[0] is schemas:
        return cached[1]
    handlers: dict[str, Handler] = {
        "response.created": lifecycle.on_lifecycle,
        "response.queued": lifecycle.on_lifecycle,
        "response.in_progress": lifecycle.on_lifecycle,
        "response.completed": lifecycle.on_terminal,
        "response.incomplete": lifecycle.on_terminal,
        "response.failed": lifecycle.on_terminal,
        "error": lifecycle.on_error,
        "response.output_item.added": items.on_item_added,
        "response.output_item.done": items.on_item_done,
        "response.content_part.added": parts.on_part_added,
        "response.content_part.done": parts.on_part_done,
        "response.reasoning_summary_part.added": parts.on_summary_added,
        "response.reasoning_summary_part.done": parts.on_summary_done,
        "response.reasoning_summary_text.delta": parts.on_summary_delta,
        "response.reasoning_summary_text.done": parts.on_summary_text_done,
        "response.output_text.annotation.added": parts.on_annotation_added,
    }
    for family in PART_TEXT:
        handlers[family + ".delta"] = parts.on_part_delta
        handlers[family + ".done"] = parts.on_part_text_done
    for family in VALUE_STREAMS:
        handlers[family + ".delta"] = values.on_value_delta
        handlers[family + ".done"] = values.on_value_done
    for family in ADDED_FIRST:
        handlers[family + ".added"] = values.on_value_added
    known = schemas.event_types()
    predicates = {}
    for etype in known:
        predicate = schemas.event_predicate(etype)
        if predicate is not None:
            predicates[etype] = predicate
    specs = fast_table(schemas)
    tables = (known, handlers, specs, {t.encode(): t for t in specs}, predicates)
    _TABLES[id(schemas)] = (schemas, tables)
    return tables
