"""Bytes to verdicts: the SSE framing layer in front of :class:`StreamValidator`.

:class:`SSEStreamValidator` is fed raw response-body bytes in any chunking. It decodes them
(:mod:`conformance.sse`), checks the framing rules of SPEC §1 (the ``event:`` name equals the
body's ``type``, ``data`` is one JSON object, ``[DONE]`` last and — in the ``openresponses``
profile — present, no ``id:``), parses each payload and hands it to the stream validator. It is
sans-I/O like the validator, so the CLI, the live suite and the load tests all drive it the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from . import catalog as C
from .checks import Check, Violation
from .sse import Record, SSEDecoder, SSELimitError
from .validator import StreamValidator

__all__ = ["DEFAULT_MAX_EVENTS", "DEFAULT_MAX_EVENT_BYTES", "SSEStreamValidator", "parse_json"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_EVENTS = 1_000_000


def parse_json(text: str | bytes) -> Any:
    """orjson, falling back to the standard library for what orjson refuses but JSON allows
    (integers beyond 64 bits); raises ``ValueError`` on text that is not JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class SSEStreamValidator:
    """Framing checks plus the stream validator, over raw SSE bytes.

    ``keep_events``: keep every decoded event object in ``events`` (evidence for reports);
    off by default so a load test's memory stays flat.
    ``on_event``: called with each decoded event object before it is judged (e.g. a load test's
    timing of the first delta), so callers need not decode the stream a second time.
    """

    def __init__(
        self,
        *,
        resume_after: int | None = None,
        profiles: Iterable[str] = ("core",),
        max_output_tokens: int | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_events: int = DEFAULT_MAX_EVENTS,
        keep_events: bool = False,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.validator = StreamValidator(
            resume_after=resume_after, profiles=profiles, max_output_tokens=max_output_tokens
        )
        self.profiles = self.validator.profiles
        self._openresponses = "openresponses" in self.profiles
        self._decoder = SSEDecoder(max_event_bytes=max_event_bytes, max_events=max_events)
        self.keep_events = keep_events
        self.on_event = on_event
        # Decoded event objects, one per event received (a non-JSON payload as its raw text), so
        # that a violation's event_index indexes this list.
        self.events: list[Any] = []
        self.framing: list[Violation] = []
        self.done_seen = False
        self.aborted: str | None = None  # why decoding stopped early (a judge limit)
        self._missing_name = 0
        self._id_reported = False
        self._closed = False
        self._names: dict[bytes, str] = {}

    @property
    def violations(self) -> list[Violation]:
        """Every violation so far, framing and stream, in the order found."""
        return sorted(
            self.framing + self.validator.violations,
            key=lambda v: v.event_index if v.event_index is not None else 1 << 62,
        )

    def feed(self, chunk: bytes) -> list[Violation]:
        """Feed raw body bytes; returns the violations they reveal."""
        if self.aborted is not None or self._closed:
            return []
        try:
            decoded = self._decoder._feed_records(chunk)
        except SSELimitError as exc:
            return self._abort(exc)
        return self._judge(decoded)

    def close(self, *, cancelled: bool = False) -> list[Violation]:
        """End of the body; returns end-of-stream violations.

        ``cancelled``: the response was cancelled while this stream was read, so the stream may
        end without a terminal event (SPEC §2.13); every other rule still holds.
        """
        if self._closed:
            return []
        self._closed = True
        out: list[Violation] = []
        if self.aborted is None:
            try:
                out += self._judge(self._decoder._close_records())
            except SSELimitError as exc:
                out += self._abort(exc)
        if self._missing_name:
            out.append(
                self._framing(
                    C.SSE_EVENT_NAME_PRESENT,
                    None,
                    "an `event:` line on every event",
                    f"{self._missing_name} event(s) without one",
                )
            )
            if self._openresponses:
                out.append(
                    self._framing(
                        C.SSE_EVENT_NAME_REQUIRED,
                        None,
                        "an `event:` line on every event",
                        f"{self._missing_name} event(s) without one",
                    )
                )
        if self._openresponses and not self.done_seen and self.aborted is None and not cancelled:
            out.append(self._framing(C.SSE_DONE_REQUIRED, None, "data: [DONE]", "no [DONE]"))
        out += self.validator.close(cancelled=cancelled)
        return out

    # ------------------------------------------------------------------ internals

    def _framing(
        self, check: Check, index: int | None, expected: Any, actual: Any, message: str = ""
    ) -> Violation:
        v = check.violation(expected=expected, actual=actual, event_index=index, message=message)
        self.framing.append(v)
        return v

    def _abort(self, exc: SSELimitError) -> list[Violation]:
        self.aborted = str(exc)
        check = C.SSE_LIMIT_EVENT_SIZE if exc.kind == "event_size" else C.SSE_LIMIT_EVENT_COUNT
        return [
            self._framing(
                check, self.validator.events, f"≤ {exc.limit}", exc.actual, message=str(exc)
            )
        ]

    def _judge(self, records: list[Record]) -> list[Violation]:
        # The hot loop. The common event — `event: <type>` and `data: <JSON object>` whose type
        # is that name, before any [DONE] — is parsed and judged here; everything else goes
        # through `_judge_one`, which applies every framing rule.
        out: list[Violation] = []
        validator = self.validator
        fast = validator._fast_delta
        full = validator._feed_full
        loads = orjson.loads
        keep = self.keep_events
        on_event = self.on_event
        names = self._names
        for record in records:
            if len(record) == 2 and not self.done_seen:
                raw_name, data = record
                try:
                    event = loads(data)
                except orjson.JSONDecodeError:
                    out += self._judge_one(record)
                    continue
                if type(event) is dict and raw_name is not None:
                    name = names.get(raw_name)
                    if name is None:
                        name = self._name(raw_name)
                    if event.get("type") == name:
                        if keep:
                            self.events.append(event)
                        if on_event is not None:
                            on_event(event)
                        if not fast(event, name):
                            out += full(event)
                        continue
            out += self._judge_one(record)
        return out

    def _name(self, raw: bytes) -> str:
        """An event name as text, remembered for the next events (a stream uses a few dozen;
        a stream of ever new names is decoded each time, not remembered without bound)."""
        name = raw.decode("utf-8", "replace")
        if len(self._names) < 256:
            self._names[raw] = name
        return name

    def _judge_one(self, record: Record) -> list[Violation]:
        out: list[Violation] = []
        validator = self.validator
        if len(record) == 2:
            raw_name, raw_data = record
            name = None if raw_name is None else raw_name.decode("utf-8", "replace")
            data = raw_data.decode("utf-8", "replace")
            sse_id = None
        else:
            name, data, sse_id, _retry = record
        index = validator.events
        is_done = data == "[DONE]"
        if self.done_seen:
            out.append(self._framing(C.SSE_AFTER_DONE, index, "nothing after [DONE]", _head(data)))
            if is_done:
                return out
        elif is_done:
            self.done_seen = True
            return out
        if sse_id is not None and not self._id_reported and self._openresponses:
            self._id_reported = True
            out.append(self._framing(C.SSE_ID_ABSENT, index, "no `id:` field", sse_id))
        try:
            event = parse_json(data)
        except ValueError as exc:
            validator.skip()  # keep indices aligned with the events received
            if self.keep_events:
                self.events.append(data)  # so that events[event_index] is this one
            out.append(
                self._framing(
                    C.SSE_DATA_JSON, index, "a JSON object", _head(data), message=str(exc)
                )
            )
            return out
        if not isinstance(event, dict):
            validator.skip()
            if self.keep_events:
                self.events.append(event)
            out.append(self._framing(C.SSE_DATA_JSON, index, "a JSON object", _head(data)))
            return out
        if name is None:
            self._missing_name += 1
        elif name != event.get("type"):
            out.append(self._framing(C.SSE_EVENT_NAME_MATCHES, index, event.get("type"), name))
        if self.keep_events:
            self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        out += validator.feed(event)
        return out


def _head(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
