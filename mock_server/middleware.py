"""The ASGI layer the mock puts around the reference app: records requests, counts attempts,
injects faults (:mod:`mock_server.faults`) and hands headers and fault hints down to the engine.

HTTP-level faults (status, slow start, dropped connection) live here because only the transport
can do them; a mid-stream ``error`` is passed to the engine through ``GenerationRequest.hints``
so the reference assembler emits the real ``error`` + ``response.failed`` sequence.

A dropped connection raises :class:`DroppedConnection` out of the app once the cut is sent: an
ASGI server (uvicorn) then closes the socket without ending the chunked body, which is what a
client sees when a real connection breaks.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mock_server.agent_script import ScriptError
from mock_server.agent_script import parse as parse_script
from mock_server.engine import (
    REQUEST_LOG,
    REQUEST_LOG_BYTES,
    SCENARIO_HEADER,
    SCRIPT_HEADER,
)
from mock_server.faults import (
    AttemptCounter,
    Fault,
    FaultPlan,
    FaultSyntaxError,
    Injection,
    error_body,
)
from mock_server.scenarios import SCENARIOS
from reference_impl.engine import EngineHints
from reference_impl.uvicorn_logs import quiet_rejected_input

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_REQUEST_LOG_BYTES",
    "FAULT_HEADER",
    "DroppedConnection",
    "MockMiddleware",
    "RecordedRequest",
    "RequestLog",
    "TruncatedBody",
    "quiet_dropped_connections",
    "replayed",
    "request_hints",
]


FAULT_HEADER = "x-mock-fault"
_SCOPE_KEY = "mock_server"


class DroppedConnection(Exception):
    """Raised out of the ASGI app to make the server cut the connection mid-response."""


DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""The largest request body the mock reads (the reference app's default too); a larger one gets
OpenAI's 413 before more than this many bytes are buffered."""
DEFAULT_REQUEST_LOG_BYTES = REQUEST_LOG_BYTES
"""Bytes of request bodies the request log keeps; beyond it the oldest bodies are truncated."""


class TruncatedBody(ValueError):
    """:meth:`RecordedRequest.json` of a body the request log truncated."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes
    """The body as received, or its first bytes when :attr:`truncated` (see ``body_size``)."""
    attempt: int
    injection: Injection = field(default_factory=Injection)
    body_size: int = -1
    """The body's size as received (-1: ``len(body)``)."""

    def __post_init__(self) -> None:
        if self.body_size < 0:
            object.__setattr__(self, "body_size", len(self.body))

    @property
    def truncated(self) -> bool:
        """The log kept only ``body`` of the ``body_size`` bytes received (its byte budget, or
        a body over the server's limit, which was not read further)."""
        return len(self.body) < self.body_size

    def json(self) -> Any:
        if self.truncated:
            raise TruncatedBody(
                f"request body truncated by the mock's request log: {len(self.body)} of "
                f"{self.body_size} bytes kept (raise MockSettings.request_log_bytes)"
            )
        return orjson.loads(self.body) if self.body else None

    def _truncate(self, keep: int) -> int:
        """Keep the first ``keep`` bytes of the body; return the bytes freed."""
        freed = len(self.body) - keep
        if freed > 0:
            object.__setattr__(self, "body", self.body[:keep])
        return max(freed, 0)


class RequestLog:
    """The most recent ``maxlen`` requests, their bodies within ``budget`` bytes in total: when
    a new body would exceed it, the oldest bodies are cut to their first ``KEEP`` bytes (visibly:
    :attr:`RecordedRequest.truncated`), oldest first, so the latest requests stay whole; when the
    cut ones stand in the way, the oldest of them lose those bytes first. Not
    thread-safe on its own (the middleware holds its lock)."""

    KEEP = 256

    def __init__(self, maxlen: int, budget: int) -> None:
        if budget < 0:
            raise ValueError("request log budget must be >= 0")
        self.records: deque[RecordedRequest] = deque(maxlen=maxlen)
        self.budget = budget
        self.kept = 0
        """Body bytes held."""
        # records[:_cut] were cut to KEEP bytes, records[:_emptied] to none: oldest first.
        self._cut = 0
        self._emptied = 0

    def append(self, record: RecordedRequest) -> None:
        if self.records.maxlen == 0:
            return
        if len(self.records) == self.records.maxlen:
            self.kept -= len(self.records[0].body)
            self._cut = max(self._cut - 1, 0)
            self._emptied = max(self._emptied - 1, 0)
        record._truncate(self.budget)  # one body alone larger than the budget
        self.records.append(record)
        self.kept += len(record.body)
        newest = len(self.records) - 1
        while self.kept > self.budget:
            if self._emptied < self._cut:  # the first bytes of cut bodies go before whole ones
                self.kept -= self.records[self._emptied]._truncate(0)
                self._emptied += 1
            elif self._cut < newest:
                self.kept -= self.records[self._cut]._truncate(self.KEEP)
                self._cut += 1
            else:
                break

    def clear(self) -> None:
        self.records.clear()
        self.kept = 0
        self._cut = 0
        self._emptied = 0

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)


class MockMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        plan: FaultPlan | None = None,
        seed: int = 0,
        request_log: int = REQUEST_LOG,
        request_log_bytes: int = DEFAULT_REQUEST_LOG_BYTES,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        step_faults: Callable[[Mapping[str, str], bytes], Sequence[Fault]] | None = None,
    ) -> None:
        """``step_faults(headers, body)``: faults the request's agent-script step adds to the plan
        (:func:`mock_server.agent_script.step_faults`)."""
        if max_body_bytes < 0:
            raise ValueError("max_body_bytes must be >= 0")
        self.app = app
        self.plan = plan or FaultPlan()
        self.seed = seed
        self.max_body_bytes = max_body_bytes
        self.step_faults = step_faults
        self.attempts = AttemptCounter()
        self.requests = RequestLog(request_log, request_log_bytes)  # the most recent
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        body, size = await _read_body(receive, headers.get("content-length"), self.max_body_bytes)
        if size > self.max_body_bytes:
            # OpenAI's 413, as the reference app words it; the rest of the body is never read.
            self._log(scope, headers, body, 0, body_size=size)
            message = f"Request body too large: the limit is {self.max_body_bytes} bytes."
            error = {"message": message, "type": "invalid_request_error", "param": None}
            await _send_json(send, 413, {"error": {**error, "code": "request_too_large"}})
            return
        try:
            plan = self._plan_for(headers)
        except FaultSyntaxError as error:
            await _send_json(send, 400, _invalid(str(error), FAULT_HEADER))
            return
        scenario = headers.get(SCENARIO_HEADER)
        if scenario is not None and scenario not in SCENARIOS:
            message = f"Unknown mock scenario {scenario!r}; known: {', '.join(SCENARIOS)}."
            await _send_json(send, 400, _invalid(message, SCENARIO_HEADER))
            return
        script = headers.get(SCRIPT_HEADER)
        if script is not None:
            try:
                parse_script(script)
            except ScriptError as error:
                message = f"Bad mock agent script in header {SCRIPT_HEADER}: {error}."
                await _send_json(send, 400, _invalid(message, SCRIPT_HEADER))
                return
        if self.step_faults is not None:
            extra = self.step_faults(headers, body)
            if extra:
                plan = FaultPlan((*plan.faults, *extra))
        fingerprint = hashlib.sha256(
            b"\0".join([scope["method"].encode(), scope["path"].encode(), body])
        ).digest()
        with self._lock:
            attempt = self.attempts.next(fingerprint)
        injection = plan.injection(attempt, self.seed.to_bytes(8, "big", signed=True) + fingerprint)
        self._log(scope, headers, body, attempt, injection)
        if injection.slow:
            await anyio.sleep(injection.slow)
        if injection.status is not None:
            await _send_status_fault(send, injection, attempt)
            return
        scope = dict(scope)
        scope[_SCOPE_KEY] = {
            "headers": headers,
            "attempt": attempt,
            "injection": injection,
            "body_bytes": size,
        }
        replay = replayed(body, receive)
        if injection.drop_after is None:
            await self.app(scope, replay, send)
            return
        cutter = _Cutter(send, injection.drop_after, at_call=injection.drop_at_call)
        try:
            await self.app(scope, replay, cutter)
        except DroppedConnection:
            raise
        except Exception as error:
            if cutter.cut:
                raise DroppedConnection("connection dropped by mock fault") from error
            raise
        if cutter.cut:
            raise DroppedConnection("connection dropped by mock fault")

    def _log(
        self,
        scope: Scope,
        headers: Mapping[str, str],
        body: bytes,
        attempt: int,
        injection: Injection | None = None,
        *,
        body_size: int = -1,
    ) -> None:
        """Add the request to :attr:`requests` (its log)."""
        query = scope.get("query_string", b"").decode("latin-1")
        recorded = RecordedRequest(
            scope["method"],
            scope["path"],
            query,
            headers,
            body,
            attempt,
            injection if injection is not None else Injection(),
            body_size=body_size,
        )
        with self._lock:
            self.requests.append(recorded)

    def _plan_for(self, headers: Mapping[str, str]) -> FaultPlan:
        text = headers.get(FAULT_HEADER)
        return self.plan if text is None else FaultPlan.parse(text)

    def reset(self) -> None:
        with self._lock:
            self.attempts.reset()
            self.requests.clear()


def request_hints(request: Any) -> EngineHints:
    """``create_app(hints=...)``: the request's headers, attempt number and engine-level faults,
    as the middleware left them in the ASGI scope."""
    data = request.scope.get(_SCOPE_KEY)
    if data is None:  # the app used without the middleware
        return EngineHints(headers={k.lower(): v for k, v in request.headers.items()})
    injection: Injection = data["injection"]
    return EngineHints(
        headers=data["headers"],
        attempt=data["attempt"],
        body_bytes=data["body_bytes"],
        error_after=injection.error_after,
    )


class _Cutter:
    """An ASGI ``send`` that passes through ``limit`` SSE events, then raises
    :class:`DroppedConnection`. ``drop=N`` counts events, so it shapes streams only: a response
    that is not ``text/event-stream`` (a JSON body, an error) goes out whole."""

    def __init__(self, send: Send, limit: int, *, at_call: bool = False) -> None:
        self.send = send
        self.limit = limit
        self.at_call = at_call  # cut after the first call's first arguments delta instead
        self.events = 0
        self.sse = False
        self.cut = False

    async def __call__(self, message: Message) -> None:
        if self.cut:
            raise DroppedConnection("connection dropped by mock fault")
        if message["type"] == "http.response.start":
            content_type = dict(message.get("headers", [])).get(b"content-type", b"")
            self.sse = content_type.startswith(b"text/event-stream")
            await self.send(message)
            return
        if message["type"] != "http.response.body":
            await self.send(message)
            return
        body: bytes = message.get("body", b"")
        if not self.sse:
            await self.send(message)
            return
        end = 0
        cut = False
        while not cut:
            if not self.at_call and self.events >= self.limit:
                cut = True
                break
            boundary = body.find(b"\n\n", end)
            if boundary < 0:
                break
            event = body[end:boundary]
            end = boundary + 2
            self.events += 1
            cut = self.at_call and any(kind in event for kind in _CALL_DELTAS)
        if not cut:
            await self.send(message)
            return
        self.cut = True
        await self.send({"type": "http.response.body", "body": body[:end], "more_body": True})
        raise DroppedConnection("connection dropped by mock fault")


async def _read_body(receive: Receive, declared: str | None, limit: int) -> tuple[bytes, int]:
    """The body and its size, read no further than ``limit`` bytes: past it, what was read
    (nothing when Content-Length already says too much) and a size over ``limit`` (the declared
    one, or the bytes seen so far)."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return b"", int(declared)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"".join(chunks), size
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), size


def replayed(body: bytes, receive: Receive) -> Receive:
    """The body once, then the real ``receive`` (so the app still sees ``http.disconnect``)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _invalid(message: str, param: str) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    }


async def _send_json(
    send: Send, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> None:
    data = orjson.dumps(body)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


async def _send_status_fault(send: Send, injection: Injection, attempt: int) -> None:
    assert injection.status is not None
    delay = injection.retry_after
    headers = {
        "retry-after": str(max(0, math.ceil(delay))),
        "retry-after-ms": str(max(0, math.ceil(delay * 1000))),
        "x-mock-fault-attempt": str(attempt),
    }
    await _send_json(send, injection.status, error_body(injection.status, attempt, delay), headers)


class _DroppedConnectionFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, DroppedConnection)


def quiet_dropped_connections() -> None:
    """Keep uvicorn from logging a traceback for every injected dropped connection (and for
    input the app already rejects: :mod:`reference_impl.uvicorn_logs`)."""
    quiet_rejected_input()
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _DroppedConnectionFilter) for f in logger.filters):
        logger.addFilter(_DroppedConnectionFilter())


# The first delta of a tool call's arguments (drop=call cuts right after it).
_CALL_DELTAS = (b"response.function_call_arguments.delta", b"response.custom_tool_call_input.delta")
