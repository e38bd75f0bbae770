"""Offline validation of recorded traffic: one file in, one verdict out.

A file is one of:

- a raw SSE capture (``event:`` / ``data:`` lines, as a server sent them);
- JSON Lines, one event object per line (the corpus format, ``…/streams/*.jsonl``);
- a single non-stream Response body (a JSON object with ``"object": "response"``);
- an error body (OpenAI's error shape, ``{"error": {...}}``);
- a state body (:mod:`conformance.bodies.state`): a compaction result
  (``"object": "response.compaction"``), a conversation (``"conversation"``), a deleted conversation
  (``"conversation.deleted"``) or an item list (``"list"``: input items, conversation items).
- a recorded WebSocket session: JSON Lines of ``{"dir": "client"|"server", "data": …}`` frames
  (:mod:`conformance.websocket.record`, docs/websocket.md).

The kind is detected from the content, not the name. A file that is none of these (binary, empty,
JSON of another shape, a JSON Lines file with a broken line) is *unreadable*: the CLI exits 2 for it,
because no verdict about the server can be drawn from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cassettes.reader import TooLarge, read_at_most

from ..bodies.kinds import judge_body
from ..bodies.state import STATE_OBJECTS
from ..catalog.registry import Violation, failing
from ..errors import ConformanceError
from ..sections.s1_7_custom_input import (
    declares_grammar,
    judge_custom_inputs_of_body,
    judge_custom_inputs_of_stream,
)
from ..sse.framing import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_EVENTS,
    SSEStreamValidator,
    parse_json,
)
from ..validator import StreamValidator
from ..websocket import SessionFormatError, is_session_record, judge_session, parse_session

__all__ = [
    "FileVerdict",
    "UnreadableFile",
    "check_bytes",
    "check_file",
    "detect_kind",
    "read_limited",
]

Kind = Literal[
    "sse",
    "jsonl",
    "response",
    "error",
    "compaction",
    "conversation",
    "conversation_deleted",
    "item_list",
    "session",
]

_MAX_FILE_BYTES = 512 * 1024 * 1024


class UnreadableFile(ConformanceError):
    """The file cannot be read or decoded as any supported format."""


@dataclass(slots=True)
class FileVerdict:
    path: str
    kind: Kind
    events: int
    violations: list[Violation] = field(default_factory=list)

    def failing(self, *, strict: bool) -> list[Violation]:
        return failing(self.violations, strict=strict)

    def as_dict(self, *, strict: bool) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "events": self.events,
            "passed": not self.failing(strict=strict),
            "violations": [v.as_dict() for v in self.violations],
        }


def detect_kind(data: bytes) -> Kind:
    """Tell the file's format from its content; raises :class:`UnreadableFile`."""
    text = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise UnreadableFile("the file is empty")
    if text.startswith((b"{", b"[")):
        try:
            whole = parse_json(text)
        except ValueError:
            # several JSON objects, one per line (checked line by line later)
            return "session" if _first_line_is_frame(text) else "jsonl"
        if is_session_record(whole):
            return "session"
        if not isinstance(whole, dict):
            raise UnreadableFile("the JSON value is not an object")
        obj = whole.get("object")
        if obj == "response":
            return "response"
        if isinstance(obj, str) and obj in STATE_OBJECTS:
            return STATE_OBJECTS[obj]
        if "error" in whole and "type" not in whole:
            return "error"
        if isinstance(whole.get("type"), str):
            return "jsonl"  # a one-event stream
        raise UnreadableFile(
            "a JSON object that is neither a Response (`object: response`), a compaction result, "
            "conversation or item list (`object: response.compaction`, `conversation`, "
            "`conversation.deleted`, `list`), an error body (`error`) nor a stream event (`type`)"
        )
    first = text.split(b"\n", 1)[0].split(b"\r", 1)[0]
    if first.startswith((b"data:", b"event:", b"id:", b"retry:", b":")) or first in (
        b"data",
        b"event",
    ):
        return "sse"
    if b"\x00" in data[:4096]:
        raise UnreadableFile("binary content")
    raise UnreadableFile("neither SSE, JSON Lines nor a JSON object")


def _first_line_is_frame(text: bytes) -> bool:
    try:
        return is_session_record(parse_json(text.split(b"\n", 1)[0]))
    except ValueError:
        return False


def _jsonl_events(data: bytes) -> list[Any]:
    events: list[Any] = []
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            events.append(parse_json(line))
        except ValueError as exc:
            raise UnreadableFile(f"line {lineno} is not JSON: {exc}") from None
    return events


def check_bytes(
    data: bytes,
    *,
    name: str = "<bytes>",
    resume_after: int | None = None,
    profiles: Iterable[str] = ("core",),
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
    request: Any = None,
) -> FileVerdict:
    """``request``: the create request the answer was given to (a cassette's exchange), for the
    rules that judge an answer against its request (a custom tool's grammar)."""
    kind = detect_kind(data)
    profiles = tuple(profiles)
    against = declares_grammar(request)
    if kind == "sse":
        sse = SSEStreamValidator(
            resume_after=resume_after,
            profiles=profiles,
            max_event_bytes=max_event_bytes,
            max_events=max_events,
            keep_events=against,
        )
        sse.feed(data)
        sse.close()
        violations = sse.violations
        if against:
            violations += judge_custom_inputs_of_stream(request, sse.events)[0]
        return FileVerdict(name, kind, sse.validator.events, violations)
    if kind == "jsonl":
        events = _jsonl_events(data)
        if len(events) > max_events:
            raise UnreadableFile(f"{len(events)} events exceed the limit of {max_events}")
        validator = StreamValidator(resume_after=resume_after, profiles=profiles)
        for event in events:
            validator.feed(event)
        validator.close()
        violations = list(validator.violations)
        if against:
            violations += judge_custom_inputs_of_stream(request, events)[0]
        return FileVerdict(name, kind, validator.events, violations)
    if kind == "session":
        try:
            frames = parse_session(data.lstrip(b"\xef\xbb\xbf"))
        except SessionFormatError as exc:
            raise UnreadableFile(str(exc)) from None
        if len(frames) > max_events:
            raise UnreadableFile(f"{len(frames)} frames exceed the limit of {max_events}")
        session, violations = judge_session(frames, profiles=profiles)
        return FileVerdict(name, kind, session.events, violations)
    body = parse_json(data.lstrip(b"\xef\xbb\xbf"))
    violations = judge_body(body, kind, profiles=profiles)
    if against and kind == "response":
        violations += judge_custom_inputs_of_body(request, body)[0]
    return FileVerdict(name, kind, 0, violations)


def check_file(
    path: str | Path,
    *,
    resume_after: int | None = None,
    profiles: Iterable[str] = ("core",),
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
) -> FileVerdict:
    """Validate one recorded file; raises :class:`UnreadableFile` when no verdict is possible."""
    return check_bytes(
        read_limited(path),
        name=str(path),
        resume_after=resume_after,
        profiles=profiles,
        max_event_bytes=max_event_bytes,
        max_events=max_events,
    )


def read_limited(path: str | Path) -> bytes:
    """The bytes of ``path``, at most the file limit: :class:`UnreadableFile` past it (the read
    stops at the limit + 1 byte, so a device or a pipe with no end is refused too)."""
    try:
        return read_at_most(path, _MAX_FILE_BYTES)
    except TooLarge as exc:
        raise UnreadableFile(f"{exc} for a file") from None
    except OSError as exc:
        raise UnreadableFile(exc.strerror or str(exc)) from None
