"""Per-request measurement and verdict, sans-I/O: bytes and timestamps in, one :class:`RequestRecord` out.

:class:`StreamMeter` is fed the SSE body of one streamed response as it arrives
(``feed(chunk, now)``) and closed (``finish(now)``). It times:

- **TTFT**: send → the first *output delta* event (text, refusal, raw reasoning, reasoning summary,
  function-call / custom-tool arguments). ``response.created``, ``output_item.added`` and comment
  keep-alives are not output, so they do not stop the clock (docs/bench-metrics.md, Definitions);
- **ITL**: the gap between consecutive output deltas, kept per request and summarised by the caller
  (one Locust event per request, not per token);
- **TPOT**: ``(e2e − TTFT) / (output_tokens − 1)`` with ``output_tokens`` from the terminal ``usage``
  (vLLM's definition, so numbers compare);
- **e2e**: send → the terminal event.

Every byte goes through the judge (:class:`conformance.SSEStreamValidator`); its failing violations
become failure names (the check IDs). With ``validate=False`` the same timing runs over the bare SSE
decoder, to measure what validation costs. Names the benchmark itself gives start with ``bench.``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance import SSEStreamValidator, StreamValidator, Violation, failing, validate_error_body
from conformance import validate_response_body as _validate_body
from conformance.sse import SSEDecoder, SSELimitError
from conformance.sse.framing import parse_json

__all__ = [
    "OUTPUT_DELTA_TYPES",
    "RequestRecord",
    "StreamMeter",
    "measure_body",
    "record_http_error",
    "record_transport_error",
    "warm_up",
]

# The deltas that carry model output: text, refusal, reasoning, function-call arguments.
OUTPUT_DELTA_TYPES = frozenset(
    {
        "response.output_text.delta",
        "response.refusal.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
    }
)
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})

FAILED = "bench.response.failed"
TRUNCATED = "bench.transport.truncated"
# A gzip/deflate body whose bytes do not decode, or that ends inside its coded stream.
UNDECODABLE = "bench.transport.undecodable"
# Each non-empty delta carries at least one token, so more deltas than `usage.output_tokens` means
# the usage under-counts (SPEC §3 usage accounting; the judge cannot see it from one stream).
DELTAS_EXCEED_TOKENS = "bench.usage.deltas_exceed_output_tokens"


@dataclass(slots=True)
class RequestRecord:
    """What one request did. Times are seconds; ``start`` is wall-clock (merged across workers)."""

    start: float
    stream: bool
    failure: str | None = None  # the name Locust shows; None = success
    names: list[str] = field(default_factory=list)  # every failure name, the judge's check IDs too
    status: str | None = None  # completed / incomplete / failed (terminal or body status)
    http_status: int | None = None
    ttft: float | None = None
    e2e: float | None = None
    itls: list[float] = field(default_factory=list)
    tpot: float | None = None
    output_tokens: int | None = None
    input_tokens: int | None = None
    deltas: int = 0
    size: int = 0
    response_id: str | None = None
    step: int | None = None  # sweep step (open loop) the request was scheduled in
    lag: float | None = None  # open loop: actual send − scheduled send

    @property
    def ok(self) -> bool:
        return self.failure is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "stream": self.stream,
            "ok": self.ok,
            "failure": self.failure,
            "names": self.names,
            "status": self.status,
            "http_status": self.http_status,
            "ttft": self.ttft,
            "e2e": self.e2e,
            "itls": self.itls,
            "tpot": self.tpot,
            "output_tokens": self.output_tokens,
            "input_tokens": self.input_tokens,
            "deltas": self.deltas,
            "bytes": self.size,
            "response_id": self.response_id,
            "step": self.step,
            "lag": self.lag,
        }


class StreamMeter:
    """Times and judges one SSE response body. ``t0`` is the ``perf_counter`` at send."""

    __slots__ = (
        "_decoder",
        "_first",
        "_judge",
        "_judge_feed",
        "_last",
        "_now",
        "_strict",
        "_t_terminal",
        "_terminal",
        "_terminal_type",
        "deltas",
        "itls",
        "nonempty_deltas",
        "record",
        "response_id",
        "t0",
    )

    def __init__(
        self,
        *,
        t0: float,
        start: float | None = None,
        validate: bool = True,
        strict: bool = False,
        max_output_tokens: int | None = None,
    ) -> None:
        self.t0 = t0
        self.record = RequestRecord(start=time.time() if start is None else start, stream=True)
        self._strict = strict
        # The judge counts the output deltas (`tally`): no dict per event, so its typed path
        # judges the deltas, and no call per delta; after each chunk the meter times the deltas
        # it brought (`_deltas`), and reads the lifecycle off the validator.
        self._judge = (
            SSEStreamValidator(max_output_tokens=max_output_tokens, tally=OUTPUT_DELTA_TYPES)
            if validate
            else None
        )
        self._judge_feed = None if self._judge is None else self._judge.feed
        self._now = 0.0
        self._decoder = None if validate else SSEDecoder()
        self._first: float | None = None
        self._last = 0.0
        self.itls: list[float] = []
        self.deltas = 0
        self.nonempty_deltas = 0
        self._terminal: Mapping[str, Any] | None = None
        self._terminal_type: str | None = None
        self._t_terminal: float | None = None
        self.response_id: str | None = None

    def feed(self, chunk: bytes, now: float) -> None:
        """Body bytes that arrived at ``now`` (``perf_counter``)."""
        self.record.size += len(chunk)
        judge = self._judge
        if judge is not None:
            self._now = now
            self._judge_feed(chunk)  # type: ignore[misc]  # set with `_judge`
            tallied = judge.tallied
            if tallied != self.deltas:
                # The output deltas this chunk brought, all arrived at `now` (`_deltas`, inline:
                # a chunk is often one delta).
                if self._first is None:
                    self._first = now
                else:
                    self.itls.append(now - self._last)
                if tallied - self.deltas > 1:
                    self.itls.extend([0.0] * (tallied - self.deltas - 1))
                self._last = now
                self.deltas = tallied
                self.nonempty_deltas = judge.tallied_nonempty
            validator = judge.validator
            if validator.terminal_type is not None or self.response_id is None:
                self._see_lifecycle(validator, now)
            return
        assert self._decoder is not None
        try:
            decoded = self._decoder.feed(chunk)
        except SSELimitError:
            return
        parsed = []
        for sse in decoded:
            if sse.is_done:
                continue
            try:
                event = parse_json(sse.data)
            except ValueError:
                continue
            if isinstance(event, dict):
                parsed.append(event)
        if parsed:
            self._see(parsed, now)

    def _deltas(self, judge: SSEStreamValidator, now: float) -> None:
        """The output deltas the judge counted since the last call, all arrived at ``now``: what
        ``_on_delta`` would have recorded for each of them (``feed`` has its own copy)."""
        new = judge.tallied - self.deltas
        if self._first is None:
            self._first = now
        else:
            self.itls.append(now - self._last)
        if new > 1:
            self.itls.extend([0.0] * (new - 1))  # `now - now`, for each after the first
        self._last = now
        self.deltas = judge.tallied
        self.nonempty_deltas = judge.tallied_nonempty

    def _on_delta(self, etype: str, delta: Any) -> None:
        if etype in OUTPUT_DELTA_TYPES:
            now = self._now
            if self._first is None:
                self._first = now
            else:
                self.itls.append(now - self._last)
            self._last = now
            self.deltas += 1
            if delta:
                self.nonempty_deltas += 1

    def _see_lifecycle(self, validator: StreamValidator, now: float) -> None:
        """What the judge's validator learnt of the lifecycle from the chunk fed at ``now``."""
        if self.response_id is None and isinstance(validator.response_id, str):
            self.response_id = validator.response_id
        if validator.terminal_type is not None and self._terminal_type is None:
            self._terminal_type = validator.terminal_type
            self._t_terminal = now
            self._terminal = validator.terminal

    def _see(self, events: list[Any], now: float) -> None:
        """The same from events decoded without the judge (``validate=False``)."""
        for event in events:
            etype = event.get("type")
            if etype in OUTPUT_DELTA_TYPES:
                self._now = now
                self._on_delta(etype, event.get("delta"))
            elif etype in _TERMINAL:
                if self._terminal_type is None:
                    self._terminal_type = etype
                    self._t_terminal = now
                    response = event.get("response")
                    self._terminal = response if isinstance(response, Mapping) else None
            elif etype == "response.created" and self.response_id is None:
                response = event.get("response")
                if isinstance(response, Mapping) and isinstance(response.get("id"), str):
                    self.response_id = response["id"]

    def finish(self, now: float, *, transport_error: str | None = None) -> RequestRecord:
        """End of the body at ``now``; ``transport_error`` names a cut (no clean end of body)."""
        rec = self.record
        names: list[str] = []
        if transport_error is not None:
            names.append(transport_error)
        if self._judge is not None:
            self._judge.close()
            if self._judge.tallied != self.deltas:  # a final event without its blank line
                self._deltas(self._judge, self._now)
            names += _check_ids(failing(self._judge.violations, strict=self._strict))
        terminal = self._terminal
        if terminal is not None:
            rec.status = _str(terminal.get("status")) or self._terminal_type
            usage = terminal.get("usage")
            if isinstance(usage, Mapping):
                rec.output_tokens = _int(usage.get("output_tokens"))
                rec.input_tokens = _int(usage.get("input_tokens"))
        if self._terminal_type == "response.failed":
            names.append(FAILED)
        if rec.output_tokens is not None and self.nonempty_deltas > rec.output_tokens:
            names.append(DELTAS_EXCEED_TOKENS)
        rec.response_id = self.response_id
        rec.deltas = self.deltas
        rec.itls = self.itls
        if self._first is not None:
            rec.ttft = self._first - self.t0
        end = self._t_terminal if self._t_terminal is not None else now
        rec.e2e = end - self.t0
        if rec.ttft is not None and rec.output_tokens is not None and rec.output_tokens > 1:
            rec.tpot = (rec.e2e - rec.ttft) / (rec.output_tokens - 1)
        _settle(rec, names)
        return rec


def measure_body(
    body: bytes,
    *,
    t0: float,
    now: float,
    start: float,
    validate: bool = True,
    strict: bool = False,
    max_output_tokens: int | None = None,
) -> RequestRecord:
    """A non-stream 200 response: e2e, usage, and the judge's verdict on the Response object."""
    rec = RequestRecord(start=start, stream=False, e2e=now - t0, size=len(body), http_status=200)
    names: list[str] = []
    try:
        obj = parse_json(body)
    except ValueError:
        obj = None
    if not isinstance(obj, dict):
        _settle(rec, ["bench.body.not_json"])
        return rec
    if validate:
        names += _check_ids(
            failing(_validate_body(obj, max_output_tokens=max_output_tokens), strict=strict)
        )
    rec.status = _str(obj.get("status"))
    rec.response_id = _str(obj.get("id"))
    usage = obj.get("usage")
    if isinstance(usage, Mapping):
        rec.output_tokens = _int(usage.get("output_tokens"))
        rec.input_tokens = _int(usage.get("input_tokens"))
    if rec.status == "failed":
        names.append(FAILED)
    _settle(rec, names)
    return rec


def record_http_error(
    status: int, body: bytes, *, stream: bool, t0: float, now: float, start: float
) -> RequestRecord:
    """A non-2xx answer: named ``bench.http.<status>``; a malformed error body adds its check IDs."""
    rec = RequestRecord(
        start=start, stream=stream, http_status=status, e2e=now - t0, size=len(body)
    )
    names = [f"bench.http.{status}"]
    try:
        obj = parse_json(body) if body else None
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        names += _check_ids(failing(validate_error_body(obj), strict=False))
    _settle(rec, names)
    return rec


def record_transport_error(
    kind: str, *, stream: bool, t0: float, now: float, start: float
) -> RequestRecord:
    """No HTTP answer at all (refused, reset, timed out): ``bench.transport.<kind>``."""
    rec = RequestRecord(start=start, stream=stream, e2e=now - t0)
    _settle(rec, [f"bench.transport.{kind}"])
    return rec


def warm_up() -> None:
    """Compile the judge's schemas now (about 0.3 s of CPU on first use): during an open-loop run
    that pause would block the event loop and make the first arrivals start late."""
    created = (
        b'{"type":"response.created","sequence_number":0,"response":{"id":"resp_warm",'
        b'"object":"response","created_at":0,"status":"in_progress","output":[],"usage":null}}'
    )
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(b"event: response.created\ndata: " + created + b"\n\n", 0.0)
    meter.finish(0.0)


def _settle(rec: RequestRecord, names: list[str]) -> None:
    # The first name is the cause Locust shows; order: transport/HTTP, then the judge's check IDs
    # (a broken stream matters more than its being a failure), then failed responses and usage.
    unique = list(dict.fromkeys(names))
    rec.names = unique
    rec.failure = unique[0] if unique else None


def _check_ids(violations: list[Violation]) -> list[str]:
    return [v.check_id for v in violations]


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
