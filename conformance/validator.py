"""The stream validator: a sans-I/O state machine over one Responses event stream.

One :class:`StreamValidator` per stream. ``feed(event)`` takes one decoded event object (a ``dict``
as parsed from an SSE ``data:`` payload or a JSON Lines record) and returns the violations it
reveals at once; ``close()`` returns the end-of-stream violations (no terminal event, items left
open, an ``error`` not followed by ``response.failed``). Everything it enforces is a check of
:mod:`conformance.catalog`, citing SPEC.md §1–§3.

The validator keeps, per output item, only what later events are compared against: its id and
type, its parts and their delta pieces, so memory is linear in the streamed text and the work per
event is constant (deltas are joined once, at their ``.done``). It does no I/O and shares nothing
with the servers it judges (DESIGN.md, the one rule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from . import catalog as C
from .checks import Check, Violation
from .exercised import Coverage
from .objects import ResponseChecker, _short, deep_equal_except_opaque
from .schema import SCHEMAS, SchemaIssue, SchemaValidator

__all__ = ["PROFILES", "StreamValidator"]

PROFILES = frozenset({"core", "stateful", "tools", "reasoning", "structured", "openresponses"})

_LIFECYCLE_INTERIM = ("response.created", "response.queued", "response.in_progress")
_TERMINAL = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}
# vLLM's names for what OpenAI sends as content_part.* with a reasoning_text part (SPEC §1, KB24).
_NONSTANDARD = frozenset({"response.reasoning_part.added", "response.reasoning_part.done"})

_SCHEMA_EVENT_CHECKS: dict[str, Check] = {
    "required": C.EVENT_SCHEMA_REQUIRED,
    "type": C.EVENT_SCHEMA_TYPE,
    "value": C.EVENT_SCHEMA_VALUE,
    "enum": C.EVENT_SCHEMA_ENUM,
}

# Part-framed text kinds: event family -> (delta field, done field, the part type it writes to).
_PART_TEXT = {
    "response.output_text": ("text", "output_text"),
    "response.refusal": ("refusal", "refusal"),
    "response.reasoning_text": ("text", "reasoning_text"),
}
# The text field of each part type, in content_part.done and in the finished item.
_PART_TEXT_FIELD = {"output_text": "text", "refusal": "refusal", "reasoning_text": "text"}
# Part types allowed in each item type (SPEC §2.11; KB04).
_PART_FITS = {
    "message": frozenset({"output_text", "refusal"}),
    "reasoning": frozenset({"reasoning_text"}),
}
# Single-valued streamed fields: family -> (done field, item type, path of the value in the
# finished item; `None` in the path stands for the event's `command_index`).
_VALUE_STREAMS: dict[str, tuple[str, str | None, tuple[str | None, ...] | None]] = {
    "response.function_call_arguments": ("arguments", "function_call", ("arguments",)),
    "response.custom_tool_call_input": ("input", "custom_tool_call", ("input",)),
    "response.mcp_call_arguments": ("arguments", "mcp_call", ("arguments",)),
    "response.code_interpreter_call_code": ("code", "code_interpreter_call", ("code",)),
    "response.apply_patch_call_operation_diff": ("diff", "apply_patch_call", ("operation", "diff")),
    # keyed additionally by command_index
    "response.shell_call_command": ("command", "shell_call", ("action", "commands", None)),
    # deltas are `{stdout?, stderr?}` objects, the `.done` carries `output: [{stdout, stderr, …}]`
    "response.shell_call_output_content": ("output", "shell_call_output", None),
}
# Families whose value is opened by an `.added` event before its deltas ([SDK]).
_ADDED_FIRST = frozenset({"response.shell_call_command"})
# Families whose deltas and `.done` carry separate output channels.
_CHANNELS = {"response.shell_call_output_content": ("stdout", "stderr")}
# Event-name prefix -> the item types such events may name (SPEC §2.6).
_FAMILY_ITEM_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    ("response.output_text.", frozenset({"message"})),
    ("response.refusal.", frozenset({"message"})),
    ("response.reasoning_text.", frozenset({"reasoning"})),
    ("response.reasoning_summary_", frozenset({"reasoning"})),
    ("response.function_call_arguments.", frozenset({"function_call"})),
    ("response.custom_tool_call_input.", frozenset({"custom_tool_call"})),
    ("response.mcp_call_arguments.", frozenset({"mcp_call"})),
    ("response.mcp_call.", frozenset({"mcp_call"})),
    ("response.mcp_list_tools.", frozenset({"mcp_list_tools"})),
    ("response.code_interpreter_call", frozenset({"code_interpreter_call"})),
    ("response.web_search_call.", frozenset({"web_search_call"})),
    ("response.file_search_call.", frozenset({"file_search_call"})),
    ("response.image_generation_call.", frozenset({"image_generation_call"})),
    ("response.apply_patch_call_operation_diff.", frozenset({"apply_patch_call"})),
    ("response.shell_call_command.", frozenset({"shell_call"})),
    ("response.shell_call_output_content.", frozenset({"shell_call_output"})),
)
# Observed id prefixes per item type (SPEC §2 levels: INFO).
_ID_PREFIX = {
    "message": ("msg_",),
    "reasoning": ("rs_",),
    "function_call": ("fc_", "call_"),
    "web_search_call": ("ws_",),
    "file_search_call": ("fs_",),
    "code_interpreter_call": ("ci_",),
    "image_generation_call": ("ig_",),
    "mcp_call": ("mcp_",),
    "mcp_list_tools": ("mcpl_",),
    "mcp_approval_request": ("mcpr_",),
    "shell_call": ("sh_",),
    "shell_call_output": ("sho_",),
    "local_shell_call": ("lsh_",),
    "apply_patch_call": ("apc_",),
    "compaction": ("cmp_",),
    "program": ("cm_",),
    "program_output": ("cmo_",),
    "tool_search_call": ("tsc_",),
    "tool_search_output": ("tso_",),
}


@dataclass(slots=True)
class _Part:
    """A content part (``content_index``) or a reasoning summary part (``summary_index``)."""

    type: str
    deltas: list[str] = field(default_factory=list)
    done_value: str | None = None  # from `<kind>.done`
    closed: bool = False  # `content_part.done` / `reasoning_summary_part.done` seen
    closed_value: str | None = None
    # Opened before a resume point (SPEC §2.12): its earlier deltas were not seen.
    partial: bool = False
    # `output_text.annotation.added` payloads, in arrival order (SPEC §2.8 applies to them too)
    annotations: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class _Item:
    output_index: int
    id: Any
    type: Any
    known: bool = True  # False: first named in a resumed stream, its start not seen
    done: bool = False
    done_item: Mapping[str, Any] | None = None
    parts: list[_Part] = field(default_factory=list)
    summaries: list[_Part] = field(default_factory=list)
    # family (+ sub-index) -> [deltas, done value or None]
    values: dict[tuple[str, int], tuple[list[str], list[str | None]]] = field(default_factory=dict)
    opened: set[tuple[str, int]] = field(default_factory=set)  # by `<family>.added`
    interleave_reported: bool = False


@dataclass(frozen=True, slots=True)
class _Frame:
    """What differs between the two kinds of parts an item holds, content parts (SPEC §2.7) and
    reasoning summary parts (SPEC §2.10): one state machine judges both."""

    key: str  # the event field that names the part
    noun: str
    added: str  # the event that opens one
    done: str  # the event that closes one
    index_check: Check
    added_check: Check
    order_check: Check
    fill: str  # the type of a part opened before a resume point


_CONTENT = _Frame(
    "content_index",
    "part",
    "content_part.added",
    "content_part.done",
    C.PART_INDEX_CONTIGUOUS,
    C.PART_ADDED_BEFORE_USE,
    C.PART_ORDER,
    "?",
)
_SUMMARY = _Frame(
    "summary_index",
    "summary part",
    "reasoning_summary_part.added",
    "reasoning_summary_part.done",
    C.SUMMARY_INDEX,
    C.SUMMARY_PART_ADDED,
    C.SUMMARY_ORDER,
    "summary_text",
)


class StreamValidator:
    """Validates one Responses event stream, event by event.

    ``resume_after``: the stream is ``GET …?stream=true&starting_after=N`` (SPEC §2.12): its first
    event is numbered N+1, it has no ``response.created``, and items opened before N may be named.
    ``profiles``: which profile-specific checks apply (``openresponses`` adds [OR]'s requirements).
    ``max_output_tokens``: the request's limit, when the caller knows it (the echoed
    ``response.max_output_tokens`` is used otherwise).
    """

    def __init__(
        self,
        *,
        resume_after: int | None = None,
        profiles: Iterable[str] = ("core",),
        max_output_tokens: int | None = None,
        schemas: SchemaValidator | None = None,
        coverage: bool = False,
    ) -> None:
        self.profiles = frozenset(profiles)
        unknown = self.profiles - PROFILES
        if unknown:
            raise ValueError(f"unknown profile(s): {', '.join(sorted(unknown))}")
        self.resume_after = resume_after
        self._schemas = schemas if schemas is not None else SCHEMAS
        self._responses = ResponseChecker(
            profiles=self.profiles, max_output_tokens=max_output_tokens
        )
        self.violations: list[Violation] = []
        # What the rules were applied to (`exercised`), when the caller asks: the live suite.
        self.coverage = (
            Coverage(resume_after is not None, self.profiles, max_output_tokens)
            if coverage
            else None
        )
        self.events = 0
        self.terminal: Mapping[str, Any] | None = None  # the terminal event's response
        self.terminal_type: str | None = None
        self.response_id: Any = None
        self._created_at: Any = None
        self._next_seq: int | None = None if resume_after is None else resume_after + 1
        self._seq_started = False
        self._phase = (
            0 if resume_after is None else 3
        )  # 0 start, 1 created, 2 queued, 3 in_progress
        self._seen_lifecycle: set[str] = set()
        self._items: dict[int, _Item] = {}
        self._item_ids: set[Any] = set()
        self._next_output_index: int | None = 0 if resume_after is None else None
        self._last_added = -1
        self._error_at: int | None = None
        self._error_pending = False  # an `error` was the last event: `response.failed` is next
        self._incomplete_item: int | None = None
        self._too_deep_at: int | None = None
        self._closed = False
        known, self._handlers, self._fast = _tables(self._schemas)
        self._known_types = known
        # See `_fast_pick` and `_fast_route`; kept up to date by every event the full path judges,
        # and by close().
        self._fast_item: _Item | None = None
        self._fast_routes: dict[str, Any] = {}

    # ------------------------------------------------------------------ fast path

    def _fast_pick(self) -> _Item | None:
        """The item a fast-path delta may name: the newest one, open and seen from its start, in
        a stream where nothing about a delta's framing can be wrong but what `_fast_delta`
        checks; None when the full path must judge every event."""
        if (
            self._phase != 3
            or self._error_pending
            or self.terminal_type is not None
            or self._closed
            or not self._seq_started
        ):
            return None
        item = self._items.get(self._last_added)
        if item is None or item.done or not item.known or type(item.type) is not str:
            return None
        return item

    def _fast_delta(self, event: dict[str, Any], etype: Any) -> bool:
        """Judge a delta event that names the newest open item and continues its latest part
        with the next sequence number, and passes its schema: record it and return True.
        Anything else returns False having changed nothing, for the full path to judge.

        Equalities come first and the schema predicate last: it checks the type of every field
        compared here (an int compares equal to a float or a bool, which it refuses), and nothing
        is recorded before it has passed."""
        route = self._fast_routes.get(etype)
        if route is None:
            if self._fast_item is None:
                return False
            route = self._fast_route(etype)
        if route is _NO_ROUTE:
            return False
        seq = event.get("sequence_number")
        oi, item_id, key, index, valid, target, _decode, _get = route
        if (
            seq != self._next_seq
            or event.get("output_index") != oi
            or event.get("item_id", _MISSING) != item_id
            or event.get(key, _MISSING) != index
            or not valid(event)
        ):
            return False
        self._next_seq = seq + 1  # type: ignore[operator]  # an int: the predicate passed
        target.append(event["delta"])
        self.events += 1
        return True

    def _fast_route(self, etype: str) -> Any:
        """Where a delta of this type may go on the fast path until the full path next judges
        an event (which forgets every route): the item and slot fields it must carry, as
        ``(output_index, item_id, slot key, slot index, schema predicate, the list its text
        joins, typed decoder or None, getter of the slot key)``; `_NO_ROUTE` when it must take
        the full path."""
        item = self._fast_item
        spec = self._fast.get(etype)
        route: Any = _NO_ROUTE
        if self.coverage is not None:
            self.coverage.see_type(etype)
        if item is not None and spec is not None:
            mode, kind, valid, fits, decode = spec
            key = _ROUTE_KEYS[mode]
            if fits is None or item.type in fits:
                target: list[str] | None = None
                index: Any = _MISSING
                if mode == 2:
                    # A value stream; `command_index` keys another kind of slot.
                    slot = item.values.get((kind, 0))
                    if slot is not None and slot[1][0] is None:
                        target = slot[0]
                else:
                    parts = item.parts if mode == 0 else item.summaries
                    if parts:
                        part = parts[-1]
                        if (
                            not part.closed
                            and part.done_value is None
                            and (mode == 1 or part.type == kind)
                        ):
                            target, index = part.deltas, len(parts) - 1
                if target is not None:
                    route = (
                        item.output_index,
                        item.id,
                        key,
                        index,
                        valid,
                        target,
                        decode,
                        _GETTERS[mode],
                    )
        self._fast_routes[etype] = route
        return route

    # ------------------------------------------------------------------ public API

    def feed(self, event: object) -> list[Violation]:
        """Judge one event; returns the violations it reveals (also kept in ``violations``)."""
        if type(event) is dict:
            etype = event.get("type")
            if type(etype) is str and self._fast_delta(event, etype):
                return []
        return self._feed_full(event)

    def _feed_full(self, event: object) -> list[Violation]:
        """:meth:`feed` without the fast path (for a caller that tried it first)."""
        out = self._feed(event)
        self._fast_item = self._fast_pick()
        if self._fast_routes:
            self._fast_routes.clear()  # the framing layer holds this dict
        return out

    def _feed(self, event: object) -> list[Violation]:
        index = self.events
        self.events += 1
        start = len(self.violations)
        if self._closed:
            raise RuntimeError("feed() after close()")
        if not isinstance(event, dict):
            self._report(C.EVENT_TYPE_PRESENT, index, "a JSON object", type(event).__name__)
            return self.violations[start:]
        etype = event.get("type")
        if not isinstance(etype, str):
            self._report(C.EVENT_TYPE_PRESENT, index, "a string `type`", etype, path="type")
            self._sequence(event, index)
            return self.violations[start:]
        self._sequence(event, index)
        if self._error_pending:
            self._error_pending = False
            if etype != "response.failed":
                # SPEC §1: an `error` is followed by `response.failed`; a second `error`, or more
                # output, leaves the first one unanswered.
                self._report(
                    C.ERROR_FOLLOWED_BY_FAILED,
                    index,
                    "response.failed",
                    etype,
                    message=f"`error` at event #{self._error_at}",
                )
        if self.terminal_type is not None:
            self._report(
                C.LIFECYCLE_AFTER_TERMINAL,
                index,
                "no event",
                etype,
                message=f"the stream already ended with {self.terminal_type}",
            )
        if etype in self._known_types:
            try:
                issues = self._schemas.validate_event(event)
            except RecursionError:
                issues = []
                self._too_deep(index)
            if issues:
                self._schema_issues(issues, index)
        elif etype in _NONSTANDARD:
            self._report(
                C.EVENT_TYPE_NONSTANDARD,
                index,
                "`response.content_part.*` with a `reasoning_text` part",
                etype,
            )
        else:
            self._report(C.EVENT_TYPE_KNOWN, index, "a documented event type", etype)
        handler = self._handlers.get(etype)
        try:
            if handler is not None:
                handler(self, event, index)
            else:
                self._on_other(event, etype, index)
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
            self._report(
                C.SSE_LIMIT_DEPTH,
                index,
                "JSON the judge can follow",
                "a value nested too deeply",
                message="the event was judged only as far as the judge could follow it",
            )

    def close(self, *, cancelled: bool = False) -> list[Violation]:
        """End of stream: report what never finished.

        ``cancelled``: the caller cancelled the (background) response while reading, and SPEC
        §2.13 lets such a stream end without a terminal event; what counts then is the retrieved
        object's ``status: "cancelled"``, which is the caller's to check.
        """
        if self._closed:
            return []
        self._closed = True
        self._fast_item = None
        self._fast_routes.clear()
        start = len(self.violations)
        if self.terminal_type is None and not cancelled:
            if self.events == 0:
                actual = "an empty stream"
            elif self._error_at is not None:
                actual = "the stream ended after an `error` event"
            else:
                actual = "the stream ended without one"
            self._report(
                C.LIFECYCLE_TERMINAL_PRESENT,
                None,
                "`response.completed`, `response.incomplete` or `response.failed`",
                actual,
            )
            if self._error_at is not None:
                self._report(
                    C.ERROR_FOLLOWED_BY_FAILED,
                    None,
                    "`response.failed` after the `error`",
                    "no `response.failed`",
                    message=f"`error` at event #{self._error_at}",
                )
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

    # ------------------------------------------------------------------ helpers

    def _report(
        self,
        check: Check,
        index: int | None,
        expected: Any,
        actual: Any,
        *,
        message: str = "",
        path: str = "",
    ) -> None:
        if check.profile != "core" and check.profile not in self.profiles:
            return
        self.violations.append(
            check.violation(
                expected=expected, actual=actual, event_index=index, message=message, path=path
            )
        )

    def _schema_issues(self, issues: Iterable[SchemaIssue], index: int) -> None:
        for issue in issues:
            self._report(
                _SCHEMA_EVENT_CHECKS[issue.kind],
                index,
                issue.expected,
                issue.actual,
                path=issue.path,
            )

    def _sequence(self, event: Mapping[str, Any], index: int) -> None:
        seq = event.get("sequence_number")
        if type(seq) is not int:
            self._report(
                C.SEQ_PRESENT,
                index,
                "an integer `sequence_number`",
                "missing" if seq is None else repr(seq),
                path="sequence_number",
            )
            if self._next_seq is not None:
                self._next_seq += 1
            return
        if not self._seq_started:
            self._seq_started = True
            first = 0 if self.resume_after is None else self.resume_after + 1
            if seq != first:
                self._report(C.SEQ_START, index, first, seq, path="sequence_number")
        elif seq != self._next_seq:
            self._report(
                C.SEQ_CONTIGUOUS,
                index,
                self._next_seq,
                seq,
                path="sequence_number",
                message="a repeat"
                if self._next_seq is not None and seq < self._next_seq
                else "a gap",
            )
        self._next_seq = seq + 1

    # ------------------------------------------------------------------ lifecycle

    def _identity(self, response: Mapping[str, Any], index: int) -> None:
        rid = response.get("id")
        created_at = response.get("created_at")
        if self.response_id is None:
            self.response_id = rid
            self._created_at = created_at
            return
        if rid != self.response_id:
            self._report(C.RESPONSE_ID_STABLE, index, self.response_id, rid, path="response.id")
        if created_at != self._created_at:
            self._report(
                C.RESPONSE_CREATED_AT_STABLE,
                index,
                self._created_at,
                created_at,
                path="response.created_at",
            )

    def _require_started(self, etype: str, index: int) -> None:
        """Item and terminal events need `response.created` then `response.in_progress`."""
        if self._phase == 0:
            self._phase = -1  # report the missing start once
            self._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
        elif self._phase in (1, 2):
            self._phase = -2
            self._report(
                C.LIFECYCLE_IN_PROGRESS,
                index,
                "response.in_progress",
                etype,
                message="an event arrived before `response.in_progress`",
            )

    def _on_lifecycle(self, event: Mapping[str, Any], index: int) -> None:
        etype: str = event["type"]
        response = event.get("response")
        if etype in self._seen_lifecycle or (
            etype == "response.created" and self.resume_after is not None
        ):
            self._report(
                C.LIFECYCLE_UNIQUE,
                index,
                f"one `{etype}`"
                if self.resume_after is None
                else "no `response.created` in a resumed stream",
                etype,
            )
        self._seen_lifecycle.add(etype)
        if etype == "response.created":
            if self._phase != 0:
                self._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created first", etype)
            elif index != 0 and self.resume_after is None:
                self._report(
                    C.LIFECYCLE_CREATED_FIRST,
                    index,
                    "response.created as event #0",
                    f"event #{index}",
                )
            self._phase = max(self._phase, 1)
        elif etype == "response.queued":
            if self._phase == 0:
                self._phase = -1
                self._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
            elif self._phase >= 3:
                self._report(
                    C.LIFECYCLE_UNIQUE,
                    index,
                    "`response.queued` before `response.in_progress`",
                    etype,
                )
            self._phase = max(self._phase, 2)
        else:  # in_progress
            if self._phase == 0:
                self._phase = -1
                self._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
            self._phase = 3
        if not isinstance(response, dict):
            return  # the schema check reported it
        self._identity(response, index)
        status = response.get("status")
        if status not in ("in_progress", "queued"):
            self._report(
                C.RESPONSE_INTERIM_STATE,
                index,
                "status `in_progress` or `queued`",
                status,
                path="response.status",
            )
        if response.get("output") != []:
            self._report(
                C.RESPONSE_INTERIM_STATE,
                index,
                "output: []",
                _short(response.get("output")),
                path="response.output",
            )
        if response.get("usage") is not None:
            self._report(
                C.RESPONSE_INTERIM_STATE,
                index,
                "usage: null",
                _short(response.get("usage")),
                path="response.usage",
            )

    def _on_terminal(self, event: Mapping[str, Any], index: int) -> None:
        etype: str = event["type"]
        if self.terminal_type is not None:
            return  # after_terminal already reported in feed()
        self._require_started(etype, index)
        self.terminal_type = etype
        response = event.get("response")
        if not isinstance(response, dict):
            return
        self.terminal = response
        self._identity(response, index)
        want = _TERMINAL[etype]
        status = response.get("status")
        if status != want:
            self._report(
                C.RESPONSE_TERMINAL_STATUS,
                index,
                want,
                status,
                path="response.status",
                message=f"`{etype}` carries a response whose status is {status!r}",
            )
        failed = etype == "response.failed"
        if not failed:
            for item in self._items.values():
                if not item.done:
                    self._report(
                        C.ITEM_CLOSED_BEFORE_TERMINAL,
                        index,
                        f"`output_item.done` for output_index {item.output_index}",
                        "the item is still open",
                        path="response.output",
                    )
        self._check_output(response, index, failed=failed)
        for v in self._responses.check(response, event_index=index, path="response"):
            self._report(
                v.check, v.event_index, v.expected, v.actual, message=v.message, path=v.path
            )

    def _check_output(self, response: Mapping[str, Any], index: int, *, failed: bool) -> None:
        """SPEC §2.9: the terminal output equals the done items, in order (KB08)."""
        output = response.get("output")
        if not isinstance(output, list):
            return
        done = [it for _, it in sorted(self._items.items()) if it.done]
        if not failed and any(not it.known for it in self._items.values()):
            # A resumed stream: only items seen finished can be compared, by their index.
            for item in done:
                if item.output_index >= len(output) or not deep_equal_except_opaque(
                    output[item.output_index], item.done_item
                ):
                    self._report(
                        C.OUTPUT_EQUALS_ITEMS,
                        index,
                        _short(item.done_item),
                        _short(output[item.output_index])
                        if item.output_index < len(output)
                        else "missing",
                        path=f"response.output[{item.output_index}]",
                    )
            return
        if failed:
            # Open items may stay unfinished on failure; the finished ones must be there as sent.
            for pos, item in enumerate(done):
                if pos < len(output) and not deep_equal_except_opaque(output[pos], item.done_item):
                    self._report(
                        C.OUTPUT_EQUALS_ITEMS,
                        index,
                        _short(item.done_item),
                        _short(output[pos]),
                        path=f"response.output[{pos}]",
                    )
            return
        if len(output) != len(done):
            self._report(
                C.OUTPUT_EQUALS_ITEMS,
                index,
                f"{len(done)} item(s), as streamed",
                f"{len(output)} item(s)",
                path="response.output",
            )
        for pos, (have, item) in enumerate(zip(output, done, strict=False)):
            if not deep_equal_except_opaque(have, item.done_item):
                self._report(
                    C.OUTPUT_EQUALS_ITEMS,
                    index,
                    _short(item.done_item),
                    _short(have),
                    path=f"response.output[{pos}]",
                    message=_first_difference(item.done_item, have),
                )

    def _on_error(self, event: Mapping[str, Any], index: int) -> None:
        # SPEC §2.2: `response.created` then `response.in_progress` come first, whatever follows.
        self._require_started("error", index)
        self._error_at = index
        self._error_pending = True

    # ------------------------------------------------------------------ items

    def _item_for(
        self, event: Mapping[str, Any], index: int, *, allow_done: bool = False
    ) -> _Item | None:
        """The open item an inner event names, reporting every way the naming is wrong."""
        etype: str = event["type"]
        oi = event.get("output_index")
        if type(oi) is not int:
            return None  # the schema check reports a missing or mistyped output_index
        self._require_started(etype, index)
        item = self._items.get(oi)
        if item is None:
            if (
                self.resume_after is not None
                and oi >= 0
                and (self._next_output_index is None or oi < self._next_output_index)
            ):
                # Opened before the resume point (SPEC §2.12): adopt it without its history.
                item = _Item(oi, event.get("item_id"), None, known=False)
                self._items[oi] = item
            else:
                self._report(
                    C.ITEM_ADDED_BEFORE_USE,
                    index,
                    f"`output_item.added` for output_index {oi} first",
                    etype,
                    path="output_index",
                )
                return None
        if item.done and not allow_done:
            self._report(
                C.ITEM_DONE_ONCE,
                index,
                f"no event for the finished item {oi}",
                etype,
                path="output_index",
            )
            return None
        item_id = event.get("item_id", _MISSING)
        if item_id is not _MISSING and item.known and item_id != item.id:
            self._report(
                C.ITEM_ID_MATCHES,
                index,
                item.id,
                item_id,
                path="item_id",
                message=f"output_index {oi} is item {item.id!r}",
            )
        if oi < self._last_added and not item.interleave_reported and item.known:
            item.interleave_reported = True
            self._report(
                C.ITEM_INTERLEAVE,
                index,
                f"events of item {oi} before item {self._last_added} was added",
                etype,
                path="output_index",
            )
        if item.known and item.type is not None:
            types = _fits_for(etype)
            if types is not None and (not isinstance(item.type, str) or item.type not in types):
                self._report(
                    C.DELTA_TYPE_FITS_ITEM,
                    index,
                    f"an item of type {' or '.join(sorted(types))}",
                    item.type,
                    message=f"`{etype}` names output_index {oi}",
                )
                return None
        return item

    def _on_item_added(self, event: Mapping[str, Any], index: int) -> None:
        self._require_started("response.output_item.added", index)
        oi = event.get("output_index")
        item = event.get("item")
        if type(oi) is not int or not isinstance(item, dict):
            return
        iid, itype = item.get("id"), item.get("type")
        if oi < 0:
            self._report(
                C.OUTPUT_INDEX_CONTIGUOUS, index, "an output_index ≥ 0", oi, path="output_index"
            )
            return
        if oi in self._items:
            self._report(
                C.ITEM_ADDED_ONCE,
                index,
                f"a new output_index (next: {self._next_output_index})",
                oi,
                path="output_index",
                message=f"output_index {oi} was already added as item {self._items[oi].id!r}",
            )
            return
        expected_oi = self._next_output_index
        if expected_oi is not None and oi != expected_oi:
            self._report(C.OUTPUT_INDEX_CONTIGUOUS, index, expected_oi, oi, path="output_index")
        self._next_output_index = oi + 1 if expected_oi is None else max(expected_oi, oi + 1)
        if iid is not None:
            if _hashable(iid) in self._item_ids:
                self._report(
                    C.ITEM_ID_UNIQUE,
                    index,
                    "a new item id",
                    iid,
                    path="item.id",
                    message="another item of this response has this id",
                )
            self._item_ids.add(_hashable(iid))
            prefixes = _ID_PREFIX.get(itype) if isinstance(itype, str) else None
            if prefixes and isinstance(iid, str) and not iid.startswith(prefixes):
                self._report(
                    C.ITEM_ID_PREFIX, index, " or ".join(prefixes) + "…", iid, path="item.id"
                )
        if self._incomplete_item is not None:
            self._report(
                C.ITEM_INCOMPLETE_LAST,
                index,
                "no item after an incomplete one",
                itype,
                message=f"item {self._incomplete_item} ended `incomplete`",
            )
        self._last_added = max(self._last_added, oi)
        self._items[oi] = _Item(oi, iid, itype)
        self._check_added_state(item, index)

    def _check_added_state(self, item: Mapping[str, Any], index: int) -> None:
        """SPEC §2.6: an item opens empty, so accumulating clients do not double its content."""
        itype = item.get("type")
        problems: list[tuple[str, Any, Any]] = []
        if itype == "message":
            if item.get("content") not in ([], None):
                problems.append(("item.content", "[]", _short(item.get("content"))))
            if item.get("status") != "in_progress":
                problems.append(("item.status", "in_progress", item.get("status")))
        elif itype == "reasoning":
            if item.get("summary") not in ([], None):
                problems.append(("item.summary", "[]", _short(item.get("summary"))))
            if item.get("content") not in ([], None):
                problems.append(("item.content", "[] or absent", _short(item.get("content"))))
        elif itype == "function_call":
            if item.get("arguments") != "":
                problems.append(("item.arguments", '""', _short(item.get("arguments"))))
            for key in ("call_id", "name"):
                if not item.get(key):
                    problems.append((f"item.{key}", "a non-empty string", item.get(key)))
            if item.get("status") != "in_progress":
                problems.append(("item.status", "in_progress", item.get("status")))
        for path, expected, actual in problems:
            self._report(C.ITEM_ADDED_STATE, index, expected, actual, path=path)

    def _on_item_done(self, event: Mapping[str, Any], index: int) -> None:
        oi = event.get("output_index")
        done_item = event.get("item")
        if type(oi) is not int:
            return
        existing = self._items.get(oi)
        if existing is not None and existing.done:
            self._report(
                C.ITEM_DONE_ONCE,
                index,
                "one `output_item.done` per item",
                f"a second `output_item.done` for output_index {oi}",
                path="output_index",
            )
            return
        item = self._item_for(event, index)
        if item is None or not isinstance(done_item, dict):
            return
        item.done = True
        item.done_item = done_item
        if not item.known:
            item.id, item.type = done_item.get("id"), done_item.get("type")
            return
        if done_item.get("id") != item.id:
            self._report(
                C.ITEM_DONE_MATCHES_ADDED, index, item.id, done_item.get("id"), path="item.id"
            )
        if done_item.get("type") != item.type:
            self._report(
                C.ITEM_DONE_MATCHES_ADDED,
                index,
                item.type,
                done_item.get("type"),
                path="item.type",
            )
        for ci, part in enumerate(item.parts):
            if not part.closed:
                self._report(
                    C.PART_CLOSED,
                    index,
                    f"`content_part.done` for content_index {ci}",
                    "`output_item.done` while the part is open",
                    path=f"item.content[{ci}]",
                )
        for si, part in enumerate(item.summaries):
            if not part.closed:
                self._report(
                    C.SUMMARY_ORDER,
                    index,
                    f"`reasoning_summary_part.done` for summary_index {si}",
                    "`output_item.done` while the summary part is open",
                    path=f"item.summary[{si}]",
                )
        for (family, sub), (deltas, done) in item.values.items():
            if done[0] is None:
                self._report(
                    C.ARGS_ORDER,
                    index,
                    f"`{family}.done` before `output_item.done`",
                    f"{len(deltas)} delta(s) and no `.done`",
                    message=f"index {sub}" if sub else "",
                )
        self._check_item_content(item, done_item, index)
        if done_item.get("status") == "incomplete":
            self._incomplete_item = oi

    def _check_item_content(self, item: _Item, done_item: Mapping[str, Any], index: int) -> None:
        """SPEC §2.8: the finished item holds what its events streamed."""
        if item.parts:
            content = done_item.get("content")
            if not isinstance(content, list) or len(content) != len(item.parts):
                self._report(
                    C.ITEM_CONTENT_MATCHES,
                    index,
                    f"{len(item.parts)} content part(s)",
                    _short(content),
                    path="item.content",
                )
            else:
                for ci, (part, have) in enumerate(zip(item.parts, content, strict=True)):
                    self._compare_part(part, have, index, f"item.content[{ci}]")
        if item.summaries:
            summary = done_item.get("summary")
            if not isinstance(summary, list) or len(summary) != len(item.summaries):
                self._report(
                    C.ITEM_CONTENT_MATCHES,
                    index,
                    f"{len(item.summaries)} summary part(s)",
                    _short(summary),
                    path="item.summary",
                )
            else:
                for si, (part, have) in enumerate(zip(item.summaries, summary, strict=True)):
                    self._compare_part(part, have, index, f"item.summary[{si}]")
        for (family, sub), (_deltas, done) in item.values.items():
            where = _VALUE_STREAMS[family][2]
            if where is None or done[0] is None:
                continue
            path = tuple(sub if key is None else key for key in where)
            found: Any = done_item
            for key in path:
                if isinstance(key, str) and isinstance(found, dict):
                    found = found.get(key)
                elif isinstance(key, int) and isinstance(found, list) and 0 <= key < len(found):
                    found = found[key]
                else:
                    found = None
            if found != done[0]:
                self._report(
                    C.ITEM_CONTENT_MATCHES,
                    index,
                    _short(done[0]),
                    _short(found),
                    path="item." + ".".join(map(str, path)),
                    message=f"`{family}.done` streamed another value",
                )

    def _compare_part(self, part: _Part, have: Any, index: int, path: str) -> None:
        if not isinstance(have, dict):
            self._report(
                C.ITEM_CONTENT_MATCHES, index, f"a {part.type} part", _short(have), path=path
            )
            return
        if have.get("type") != part.type:
            self._report(
                C.ITEM_CONTENT_MATCHES, index, part.type, have.get("type"), path=path + ".type"
            )
            return
        if part.type == "output_text" and have.get("annotations", []) != part.annotations:
            self._report(
                C.ANNOTATIONS_MATCH,
                index,
                f"{len(part.annotations)} streamed annotation(s)",
                _short(have.get("annotations")),
                path=f"{path}.annotations",
            )
        value = part.closed_value if part.closed_value is not None else part.done_value
        text_field = _PART_TEXT_FIELD.get(part.type, "text")
        if value is not None and have.get(text_field) != value:
            self._report(
                C.ITEM_CONTENT_MATCHES,
                index,
                _short(value),
                _short(have.get(text_field)),
                path=f"{path}.{text_field}",
            )

    # ------------------------------------------------------------------ content parts

    def _on_part_added(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        part = event.get("part")
        ci = event.get("content_index")
        if item is None or type(ci) is not int or not isinstance(part, dict):
            return
        ptype = part.get("type")
        if ci < 0:
            self._report(
                C.PART_INDEX_CONTIGUOUS, index, "a content_index ≥ 0", ci, path="content_index"
            )
            return
        if item.known:
            if ci != len(item.parts):
                self._report(
                    C.PART_INDEX_CONTIGUOUS,
                    index,
                    len(item.parts),
                    ci,
                    path="content_index",
                    message="parts of an item are numbered 0, 1, … in order",
                )
            if item.parts and not item.parts[-1].closed:
                self._report(
                    C.PART_CLOSED,
                    index,
                    f"`content_part.done` for content_index {len(item.parts) - 1} first",
                    "a new part opened",
                    path="content_index",
                )
            fits = _PART_FITS.get(item.type) if isinstance(item.type, str) else None
            if fits is not None and (not isinstance(ptype, str) or ptype not in fits):
                self._report(
                    C.PART_TYPE_FITS_ITEM,
                    index,
                    " or ".join(sorted(fits)),
                    ptype,
                    path="part.type",
                    message=f"a {item.type} item",
                )
            text_field = _PART_TEXT_FIELD.get(ptype) if isinstance(ptype, str) else None
            if text_field is not None and part.get(text_field, "") != "":
                self._report(
                    C.PART_ORDER,
                    index,
                    f'part.{text_field} == ""',
                    _short(part.get(text_field)),
                    path=f"part.{text_field}",
                    message="a part opens empty; clients append the deltas to it",
                )
        if ci - len(item.parts) > _MAX_INDEX_GAP:
            return  # reported above; not padded: an index of 10**30 must not allocate 10**30 parts
        if ci >= len(item.parts):
            item.parts.extend(_Part("?", closed=True) for _ in range(ci - len(item.parts)))
            item.parts.append(_Part(ptype if isinstance(ptype, str) else "?"))
        else:
            item.parts[ci] = _Part(ptype if isinstance(ptype, str) else "?")

    def _open(
        self, item: _Item, frame: _Frame, event: Mapping[str, Any], index: int, kind: str | None
    ) -> _Part | None:
        """The open part (content or summary, by ``frame``) that an event names, or None after
        reporting why it names none. ``kind``: the part type the event writes to, if it does."""
        i = event.get(frame.key)
        if type(i) is not int:
            return None
        etype: str = event["type"]
        parts = item.parts if frame is _CONTENT else item.summaries
        if i < 0:
            self._report(frame.index_check, index, f"a {frame.key} ≥ 0", i, path=frame.key)
            return None
        if i >= len(parts):
            if not item.known:
                # Opened before the resume point (SPEC §2.12): its start was not seen.
                if i - len(parts) > _MAX_INDEX_GAP:
                    self._report(
                        frame.index_check,
                        index,
                        f"a {frame.key} at most {_MAX_INDEX_GAP} past the parts seen",
                        i,
                        path=frame.key,
                    )
                    return None
                parts.extend(_Part(frame.fill, partial=True) for _ in range(i + 1 - len(parts)))
                if kind is not None:
                    parts[i] = _Part(kind, partial=True)
                return parts[i]
            if parts and not parts[-1].closed:
                # A part is open and the event names another, never added: its index is wrong
                # (KB09: a content_index that grows with every delta).
                self._report(
                    frame.index_check,
                    index,
                    len(parts) - 1,
                    i,
                    path=frame.key,
                    message=f"the event names a {frame.noun} other than the open one",
                )
            else:
                self._report(
                    frame.added_check,
                    index,
                    f"`{frame.added}` for {frame.key} {i} first",
                    etype,
                    path=frame.key,
                )
            return None
        part = parts[i]
        if i != len(parts) - 1 and item.known:
            self._report(
                frame.index_check,
                index,
                len(parts) - 1,
                i,
                path=frame.key,
                message=f"the event names a {frame.noun} other than the open one",
            )
        if part.closed:
            self._report(
                frame.order_check,
                index,
                f"no `{etype}` after `{frame.done}`",
                etype,
                path=frame.key,
            )
            return None
        if kind is not None and part.type != "?" and part.type != kind:
            self._report(
                C.PART_KIND_MATCHES,
                index,
                f"a part of type {kind}",
                part.type,
                path=frame.key,
                message=f"`{etype}` writes to a {part.type} part",
            )
            return None
        return part

    def _on_part_delta(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        etype: str = event["type"]
        family = etype[: -len(".delta")]
        part = self._open(item, _CONTENT, event, index, _PART_TEXT[family][1])
        if part is None:
            return
        if part.done_value is not None:
            self._report(
                C.PART_ORDER,
                index,
                f"no delta after `{family}.done`",
                etype,
                path="content_index",
            )
            return
        delta = event.get("delta")
        if isinstance(delta, str):
            part.deltas.append(delta)

    def _on_part_text_done(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        etype: str = event["type"]
        family = etype[: -len(".done")]
        part = self._open(item, _CONTENT, event, index, _PART_TEXT[family][1])
        if part is None:
            return
        if part.done_value is not None:
            self._report(
                C.PART_ORDER, index, f"one `{etype}`", "a second one", path="content_index"
            )
            return
        value = event.get(_PART_TEXT[family][0])
        if not isinstance(value, str):
            return
        part.done_value = value
        streamed = "".join(part.deltas)
        part.deltas = []
        if streamed != value and not part.partial:
            self._report(
                C.DELTAS_EQUAL_DONE,
                index,
                _short(value),
                _short(streamed),
                path=_PART_TEXT[family][0],
                message=_first_difference_text(value, streamed),
            )

    def _on_annotation_added(self, event: Mapping[str, Any], index: int) -> None:
        """An annotation belongs to the open `output_text` part it names (SPEC §2.6) and is the
        next element of that part's `annotations` (SPEC §2.8)."""
        item = self._item_for(event, index)
        if item is None:
            return
        part = self._open(item, _CONTENT, event, index, "output_text")
        if part is None:
            return
        ai = event.get("annotation_index")
        if type(ai) is int and ai != len(part.annotations):
            self._report(
                C.ANNOTATIONS_MATCH,
                index,
                len(part.annotations),
                ai,
                path="annotation_index",
                message="annotations are numbered 0, 1, … in the order they are streamed",
            )
        part.annotations.append(event.get("annotation"))

    def _on_part_done(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        part = self._open(item, _CONTENT, event, index, None)
        ci = event.get("content_index")
        got = event.get("part")
        if part is None or not isinstance(got, dict):
            return
        if part.done_value is None and isinstance(part.type, str) and part.type in _PART_TEXT_FIELD:
            self._report(
                C.PART_ORDER,
                index,
                f"`{_done_event_for(part.type)}` before `content_part.done`",
                "response.content_part.done",
                path="content_index",
            )
        part.closed = True
        if got.get("type") != part.type and part.type != "?":
            self._report(
                C.PART_ORDER,
                index,
                f"part.type {part.type} (as added)",
                got.get("type"),
                path="part.type",
            )
        if part.type == "output_text" and got.get("annotations", []) != part.annotations:
            self._report(
                C.ANNOTATIONS_MATCH,
                index,
                f"{len(part.annotations)} streamed annotation(s)",
                _short(got.get("annotations")),
                path="part.annotations",
                message=f"content_index {ci}",
            )
        text_field = _PART_TEXT_FIELD.get(part.type)
        if text_field is not None:
            value = got.get(text_field)
            part.closed_value = value if isinstance(value, str) else None
            if part.done_value is not None and value != part.done_value:
                self._report(
                    C.DONE_EQUALS_PART,
                    index,
                    _short(part.done_value),
                    _short(value),
                    path=f"part.{text_field}",
                    message=f"content_index {ci}",
                )

    # ------------------------------------------------------------------ reasoning summaries

    def _on_summary_added(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        si = event.get("summary_index")
        if item is None or type(si) is not int:
            return
        if si < 0:
            self._report(C.SUMMARY_INDEX, index, "a summary_index ≥ 0", si, path="summary_index")
            return
        if item.known:
            if si != len(item.summaries):
                self._report(C.SUMMARY_INDEX, index, len(item.summaries), si, path="summary_index")
            if item.summaries and not item.summaries[-1].closed:
                self._report(
                    C.SUMMARY_ORDER,
                    index,
                    f"`reasoning_summary_part.done` for summary_index {len(item.summaries) - 1}",
                    "a new summary part opened",
                    path="summary_index",
                )
            part = event.get("part")
            if isinstance(part, dict) and part.get("text", "") != "":
                self._report(
                    C.SUMMARY_ORDER,
                    index,
                    'part.text == ""',
                    _short(part.get("text")),
                    path="part.text",
                    message="a summary part opens empty",
                )
        while len(item.summaries) < si:
            item.summaries.append(_Part("summary_text", closed=True))
        if si < len(item.summaries):
            item.summaries[si] = _Part("summary_text")
        else:
            item.summaries.append(_Part("summary_text"))

    def _on_summary_delta(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        part = self._open(item, _SUMMARY, event, index, None)
        if part is None:
            return
        if part.done_value is not None:
            self._report(
                C.SUMMARY_ORDER,
                index,
                "no delta after `reasoning_summary_text.done`",
                event["type"],
                path="summary_index",
            )
            return
        delta = event.get("delta")
        if isinstance(delta, str):
            part.deltas.append(delta)

    def _on_summary_text_done(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        part = self._open(item, _SUMMARY, event, index, None)
        if part is None:
            return
        if part.done_value is not None:
            self._report(
                C.SUMMARY_ORDER,
                index,
                "one `reasoning_summary_text.done`",
                "a second one",
                path="summary_index",
            )
            return
        value = event.get("text")
        if not isinstance(value, str):
            return
        part.done_value = value
        streamed = "".join(part.deltas)
        part.deltas = []
        if streamed != value and not part.partial:
            self._report(
                C.DELTAS_EQUAL_DONE,
                index,
                _short(value),
                _short(streamed),
                path="text",
                message=_first_difference_text(value, streamed),
            )

    def _on_summary_done(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        part = self._open(item, _SUMMARY, event, index, None)
        if part is None:
            return
        if part.done_value is None:
            self._report(
                C.SUMMARY_ORDER,
                index,
                "`reasoning_summary_text.done` before `reasoning_summary_part.done`",
                event["type"],
                path="summary_index",
            )
        part.closed = True
        got = event.get("part")
        value = got.get("text") if isinstance(got, dict) else None
        part.closed_value = value if isinstance(value, str) else None
        if part.done_value is not None and value != part.done_value:
            self._report(
                C.DONE_EQUALS_PART,
                index,
                _short(part.done_value),
                _short(value),
                path="part.text",
            )

    # ------------------------------------------------------------------ single-valued streams

    def _value_slot(
        self, event: Mapping[str, Any], index: int
    ) -> tuple[_Item, str, tuple[list[str], list[str | None]]] | None:
        item = self._item_for(event, index)
        if item is None:
            return None
        etype: str = event["type"]
        family = etype.rsplit(".", 1)[0]
        sub = event.get("command_index", 0)
        key = (family, sub if type(sub) is int else 0)
        if family in _ADDED_FIRST and key not in item.opened and item.known:
            item.opened.add(key)  # report the missing `.added` once
            self._report(
                C.ARGS_ADDED_FIRST,
                index,
                f"`{family}.added` first",
                etype,
                path="command_index",
            )
        slot = item.values.get(key)
        if slot is None:
            slot = ([], [None])
            item.values[key] = slot
        return item, family, slot

    def _on_value_added(self, event: Mapping[str, Any], index: int) -> None:
        item = self._item_for(event, index)
        if item is None:
            return
        etype: str = event["type"]
        family = etype.rsplit(".", 1)[0]
        sub = event.get("command_index", 0)
        key = (family, sub if type(sub) is int else 0)
        if key in item.opened or key in item.values:
            self._report(
                C.ARGS_ADDED_FIRST,
                index,
                f"one `{etype}`, before the deltas",
                "a second one" if key in item.opened else "after its deltas",
                path="command_index",
            )
        item.opened.add(key)
        item.values.setdefault(key, ([], [None]))

    def _on_value_delta(self, event: Mapping[str, Any], index: int) -> None:
        found = self._value_slot(event, index)
        if found is None:
            return
        _item, family, (deltas, done) = found
        if done[0] is not None:
            self._report(C.ARGS_ORDER, index, f"no delta after `{family}.done`", event["type"])
            return
        delta = event.get("delta")
        if isinstance(delta, str):
            deltas.append(delta)
        elif isinstance(delta, dict) and family in _CHANNELS:
            for channel in _CHANNELS[family]:
                piece = delta.get(channel)
                if isinstance(piece, str):
                    deltas.append(f"{channel}\x00{piece}")

    def _on_value_done(self, event: Mapping[str, Any], index: int) -> None:
        found = self._value_slot(event, index)
        if found is None:
            return
        item, family, (deltas, done) = found
        if done[0] is not None:
            self._report(C.ARGS_ORDER, index, f"one `{family}.done`", "a second one")
            return
        if family in _CHANNELS:
            self._channels_done(event, index, family, item, deltas, done)
            return
        value = event.get(_VALUE_STREAMS[family][0])
        if not isinstance(value, str):
            done[0] = ""
            return
        done[0] = value
        if not item.known:
            return
        streamed = "".join(deltas)
        deltas.clear()
        if streamed != value:
            self._report(
                C.DELTAS_EQUAL_DONE,
                index,
                _short(value),
                _short(streamed),
                path=_VALUE_STREAMS[family][0],
                message=_first_difference_text(value, streamed),
            )

    def _channels_done(
        self,
        event: Mapping[str, Any],
        index: int,
        family: str,
        item: _Item,
        deltas: list[str],
        done: list[str | None],
    ) -> None:
        """Shell output (SPEC §2.8 by [SDK]'s shapes): each channel's deltas, joined, equal the
        channel's text across the `.done` event's `output` entries."""
        output = event.get(_VALUE_STREAMS[family][0])
        done[0] = ""
        if not isinstance(output, list) or not item.known:
            return
        for channel in _CHANNELS[family]:
            want = "".join(
                o[channel]
                for o in output
                if isinstance(o, dict) and isinstance(o.get(channel), str)
            )
            tag = channel + "\x00"
            streamed = "".join(d[len(tag) :] for d in deltas if d.startswith(tag))
            if streamed != want:
                self._report(
                    C.DELTAS_EQUAL_DONE,
                    index,
                    _short(want),
                    _short(streamed),
                    path=f"output[].{channel}",
                    message=_first_difference_text(want, streamed),
                )
        deltas.clear()

    # ------------------------------------------------------------------ everything else

    def _on_other(self, event: Mapping[str, Any], etype: str, index: int) -> None:
        """Hosted-tool progress, annotations and unknown events: they must name an open item."""
        if "output_index" in event:
            self._item_for(event, index)
        elif etype.startswith("response.") and etype not in _LIFECYCLE_INTERIM:
            self._require_started(etype, index)


_TABLES: dict[int, tuple[SchemaValidator, tuple[frozenset[str], Any, Any]]] = {}


def _tables(
    schemas: SchemaValidator,
) -> tuple[
    frozenset[str],
    dict[str, Callable[[StreamValidator, Mapping[str, Any], int], None]],
    dict[
        str,
        tuple[
            int,
            str,
            Callable[[dict[str, Any]], bool],
            frozenset[str] | None,
            Callable[[bytes], Any] | None,
        ],
    ],
]:
    """Per schema validator, built once and shared by every stream (a stream is often short, so
    its set-up counts): the documented event types, the handler of each event type, and the
    fast-path table of the delta types."""
    cached = _TABLES.get(id(schemas))
    if cached is not None and cached[0] is schemas:
        return cached[1]
    V = StreamValidator
    handlers: dict[str, Callable[[StreamValidator, Mapping[str, Any], int], None]] = {
        "response.created": V._on_lifecycle,
        "response.queued": V._on_lifecycle,
        "response.in_progress": V._on_lifecycle,
        "response.completed": V._on_terminal,
        "response.incomplete": V._on_terminal,
        "response.failed": V._on_terminal,
        "error": V._on_error,
        "response.output_item.added": V._on_item_added,
        "response.output_item.done": V._on_item_done,
        "response.content_part.added": V._on_part_added,
        "response.content_part.done": V._on_part_done,
        "response.reasoning_summary_part.added": V._on_summary_added,
        "response.reasoning_summary_part.done": V._on_summary_done,
        "response.reasoning_summary_text.delta": V._on_summary_delta,
        "response.reasoning_summary_text.done": V._on_summary_text_done,
        "response.output_text.annotation.added": V._on_annotation_added,
    }
    for family in _PART_TEXT:
        handlers[family + ".delta"] = V._on_part_delta
        handlers[family + ".done"] = V._on_part_text_done
    for family in _VALUE_STREAMS:
        handlers[family + ".delta"] = V._on_value_delta
        handlers[family + ".done"] = V._on_value_done
    for family in _ADDED_FIRST:
        handlers[family + ".added"] = V._on_value_added

    # The fast path (delta events, most of any stream): `_fast_delta` either proves the
    # event breaks no rule and records it, or changes nothing and returns False so that the
    # full path judges it. Every rule still runs on every event; only the order differs.
    # Per delta type: (mode, part type or value family, schema predicate, item types it may
    # name or None); mode 0 a content-part text, 1 a reasoning summary text, 2 a value.
    valid = _delta_predicates(schemas)
    fast: dict[str, Any] = {}
    for family, (_field, kind) in _PART_TEXT.items():
        if family + ".delta" in valid:
            fast[family + ".delta"] = (0, kind, valid[family + ".delta"], None)
    summary = "response.reasoning_summary_text.delta"
    if summary in valid:
        fast[summary] = (1, "", valid[summary], None)
    for family in _VALUE_STREAMS:
        if family in _ADDED_FIRST or family in _CHANNELS:
            continue
        if family + ".delta" in valid:
            fast[family + ".delta"] = (2, family, valid[family + ".delta"], None)
    for etype, (mode, kind, predicate, _fits) in fast.items():
        # The typed decoder reads what the route compares (`SSEStreamValidator._judge`).
        decode = schemas.event_decoder(
            etype,
            also=("sequence_number", "output_index", "item_id", _ROUTE_KEYS[mode], "delta"),
            missing=_MISSING,
        )
        fast[etype] = (mode, kind, predicate, _fits_for(etype), decode)
    tables = (schemas.event_types(), handlers, fast)
    _TABLES[id(schemas)] = (schemas, tables)
    return tables


# How far past the parts seen an index may point and still be tracked (its gap padded with
# placeholders). Real items have a handful of parts; a larger jump is reported, not allocated.
_MAX_INDEX_GAP = 1024

_MISSING: Any = object()
_NO_ROUTE: Any = object()
# The event field that names the slot a fast-path delta writes to, by mode (see `_tables`); a
# value stream's deltas name none, and must not carry a `command_index`.
_ROUTE_KEYS = ("content_index", "summary_index", "command_index")
_GETTERS = tuple(attrgetter(key) for key in _ROUTE_KEYS)


_PREDICATES: dict[int, tuple[SchemaValidator, dict[str, Callable[[dict[str, Any]], bool]]]] = {}


def _delta_predicates(
    schemas: SchemaValidator,
) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """The compiled schema predicates of the delta events, once per schema validator."""
    cached = _PREDICATES.get(id(schemas))
    if cached is None or cached[0] is not schemas:
        table = {}
        for etype in schemas.event_types():
            if etype.endswith(".delta"):
                predicate = schemas.event_predicate(etype)
                if predicate is not None:
                    table[etype] = predicate
        cached = _PREDICATES[id(schemas)] = (schemas, table)
    return cached[1]


_FITS: dict[str, frozenset[str] | None] = {}


def _fits_for(etype: str) -> frozenset[str] | None:
    """The item types an event of this name may name (None: any)."""
    try:
        return _FITS[etype]
    except KeyError:
        pass
    fits = next((types for prefix, types in _FAMILY_ITEM_TYPES if etype.startswith(prefix)), None)
    if len(_FITS) < 4096:  # event names come from the stream: remember the documented few
        _FITS[etype] = fits
    return fits


def _hashable(value: Any) -> Any:
    """A value usable as a set member: itself, or its repr when it is a list or an object (a
    malformed id must be judged, not crash the judge)."""
    return repr(value) if isinstance(value, (dict, list)) else value


def _done_event_for(part_type: str) -> str:
    return {
        "output_text": "response.output_text.done",
        "refusal": "response.refusal.done",
        "reasoning_text": "response.reasoning_text.done",
    }.get(part_type, "the part's `.done`")


def _first_difference_text(want: str, got: str) -> str:
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return f"they differ from character {i}: {want[i : i + 20]!r} vs {got[i : i + 20]!r}"
    if len(want) != len(got):
        return f"lengths {len(want)} (done) vs {len(got)} (deltas joined)"
    return ""


def _first_difference(want: Any, got: Any, path: str = "") -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        for key in want.keys() | got.keys():
            if key in ("encrypted_content", "fingerprint"):
                continue
            if want.get(key, _MISSING) != got.get(key, _MISSING):
                return _first_difference(want.get(key), got.get(key), f"{path}.{key}")
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if not deep_equal_except_opaque(a, b):
                return _first_difference(a, b, f"{path}[{i}]")
    return f"first difference at {path.lstrip('.') or 'the item'}"
