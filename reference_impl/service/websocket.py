"""WebSocket mode: ``GET /v1/responses`` upgraded, the same responses as over SSE.

The transport is a thin shell around :class:`~reference_impl.service.responses.ResponsesService`: a
``response.create`` event is the ``POST /v1/responses`` body (plus ``type`` and an optional
``stream_id`` lane), prepared, assembled and stored by the very code the SSE route uses; its events
are the SSE events, one JSON text frame each, with the lane's ``stream_id`` added. Facts and sources:
docs/websocket.md.

- Lanes: requests with one ``stream_id`` run FIFO, one at a time; lanes run concurrently, at most
  ``max_active`` responses at once per connection (more wait their turn), at most ``max_lanes``
  named lanes (``websocket_stream_limit_reached``) and ``max_queued`` waiting creates
  (``websocket_queue_limit_reached``).
- Flow control (:mod:`reference_impl.flow`): the creates a connection holds (queued or being
  answered) count against ``connection_bytes`` and the server's ``server_bytes``; at either
  bound no further frame is read from the connection until a response ends (TCP pushes back on
  the client). ``_Connection.budget`` is the connection's account: the connection cache's bytes
  (``ConnectionCache.nbytes``) count there too.
- Refused, each with an ``error`` event (``ResponseWsError``) and the connection kept:
  ``background: true``, a bad ``stream_id`` (``invalid_stream_id``), a frame that is not a JSON
  object (``invalid_json``), an unknown ``type`` (``unknown_event_type``), a binary frame, and
  whatever the create body would be refused for over HTTP (same message and code).
- Response ids are drawn when a create is received, so the same requests sent in the same order
  get the same responses, lanes included, whatever the lanes' timing.
- ``admit`` (the mock's faults): per create, the engine hints of that create, a delay, an error to answer
  instead, or a cut of the connection after N events.
- Steering (``response.steer``, :mod:`reference_impl.service.steering`): input queued into a running
  response of this connection, committed by an automatic successor on the same lane when the
  target ends (or, when it waits for client tool output, ``response.steer.pending`` and the
  client's continuation). Steering events carry their own ``sequence_number`` (0, 1, … per
  connection: no source says which sequence they count; they are outside the responses').
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import orjson
from starlette.responses import Response
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..engine import EngineHints
from ..errors import APIError, internal_error, invalid_request
from ..failures import failures
from ..flow import DEFAULT_CONNECTION_BYTES, DEFAULT_SERVER_BYTES, ConnectionBudget, ServerBudget
from ..json_limits import JSONTooDeep, loads_bounded, too_deep_error
from ..request.field_errors import check_type
from ..request.validation import validate_create_body
from . import steering
from .steering import QueuedSteer
from .ws_state import ConnectionCache

if TYPE_CHECKING:
    from .responses import ResponsesService

__all__ = ["Admission", "Admit", "WebSocketLimits", "serve_websocket"]

log = logging.getLogger(__name__)

STREAM_ID = re.compile(r"[A-Za-z0-9_.-]{1,256}")  # [OAPI] ResponsesClientEventResponseCreate
_WS_ONLY = ("type", "stream_id")


@dataclass(frozen=True, slots=True)
class WebSocketLimits:
    """Per-connection limits. ``max_active`` and ``max_lanes`` are the service's ([SDK] README:
    16 active responses, 32 named lanes); ``max_queued`` is ours (no source states one)."""

    max_lanes: int = 32
    max_active: int = 16
    max_queued: int = 256
    connection_bytes: int = DEFAULT_CONNECTION_BYTES  # flow control (reference_impl/flow.py)
    server_bytes: int = DEFAULT_SERVER_BYTES  # one app's connections together


@dataclass(frozen=True, slots=True)
class Admission:
    """What the transport's ``admit`` hook decides for one ``response.create``."""

    hints: EngineHints | None = None  # None: the app's hints(request)
    delay: float = 0.0
    error: APIError | None = None  # answer this error event instead of a response
    drop_after: int | None = None  # close the connection after this many events of the response


# (the connection, the create event's raw text, its body) -> the admission, or None for defaults
Admit = Callable[[WebSocket, bytes, Mapping[str, Any]], Admission | None]


# A create to serve: its raw text, body, id source and the steers it commits (a successor's).
_Job = tuple[bytes, dict[str, Any], Callable[[str], str], Sequence[QueuedSteer]]


class _Dropped(Exception):
    """A fault cut the connection."""


class _Sink:
    """An :class:`~reference_impl.service.sse.EventSink` lookalike: each event is one text frame."""

    __slots__ = ("_conn", "_drop_after", "_suffix", "_tracked", "sent")

    def __init__(
        self,
        conn: _Connection,
        sid: str | None,
        drop_after: int | None,
        tracked: steering.Tracked | None = None,
    ) -> None:
        self._conn = conn
        # stream_id is matched by STREAM_ID: it needs no JSON escaping.
        self._suffix = b"}" if sid is None else b',"stream_id":"' + sid.encode() + b'"}'
        self._drop_after = drop_after
        self._tracked = tracked
        self.sent = 0

    async def events(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            await self.event(event)

    async def event(self, event: Mapping[str, Any]) -> None:
        if self._drop_after is not None and self.sent >= self._drop_after:
            raise _Dropped
        self.sent += 1
        if self._tracked is not None:
            self._tracked.observe(event)
        await self._conn.send(orjson.dumps(event)[:-1] + self._suffix)

    async def frame(self, frame: bytes) -> None:
        """SSE-only frames (``[DONE]``) have no WebSocket form."""


@dataclass(slots=True)
class _Lane:
    sid: str | None
    queue: asyncio.Queue[tuple[bytes, dict[str, Any], Callable[[str], str], int]] = field(
        default_factory=asyncio.Queue
    )
    task: asyncio.Task[None] | None = None


class _Connection:
    def __init__(
        self,
        service: ResponsesService,
        ws: WebSocket,
        limits: WebSocketLimits,
        admit: Admit | None,
        budget: ConnectionBudget,
    ) -> None:
        self.service = service
        self.budget = budget  # bytes held for this client (reference_impl/flow.py)
        self.ws = ws
        self.limits = limits
        self.admit = admit
        self.lanes: dict[str | None, _Lane] = {}
        self.active = asyncio.Semaphore(limits.max_active)
        self.queued = 0
        self.responses = steering.Responses()  # by id, for steering
        # Each lane's most recent response, continued without the store (ws_state.py); its
        # bytes count against the connection's flow-control bound (_cache_changed).
        self.cache = ConnectionCache()
        # Accepted steers waiting for the client's continuation: parent id -> (lane, steers)
        self.held: dict[str, tuple[str | None, list[QueuedSteer]]] = {}
        self._steer_seq = 0
        self._send_lock = anyio.Lock()
        self._dropped = asyncio.Event()
        self._gone = asyncio.Event()  # a lane met the client gone (see run)

    async def send(self, data: bytes) -> None:
        async with self._send_lock:
            await self.ws.send({"type": "websocket.send", "text": data.decode()})

    async def send_error(self, error: APIError, sid: str | None) -> None:
        event: dict[str, Any] = {"type": "error", "status": error.status, **error.body()}
        if sid is not None:
            event["stream_id"] = sid
        await self.send(orjson.dumps(event))

    async def run(self) -> None:
        """Serve until the client leaves. A lane that meets the client gone ends it too: the
        receiver, at the connection's bound, waits for room only the lanes' jobs free and never
        sees the disconnect (issue #39: each such client kept its queued creates for good)."""
        receiver = asyncio.ensure_future(self._receive())
        dropped = asyncio.ensure_future(self._dropped.wait())
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            await asyncio.wait({receiver, dropped, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (receiver, dropped, gone, *(lane.task for lane in self.lanes.values())):
                if task is not None:
                    task.cancel()
            tasks = [lane.task for lane in self.lanes.values() if lane.task is not None]
            await asyncio.gather(receiver, dropped, gone, *tasks, return_exceptions=True)
            self.lanes.clear()
            # What the connection held goes now, not when the cyclic collector next runs (the
            # responses and the registry refer to each other).
            self.responses.clear()
            self.held.clear()
            self.budget.close()
        if self._dropped.is_set():
            raise _Dropped

    async def _receive(self) -> None:
        while True:
            await self.budget.room()  # at the bound: the frame waits in the socket (flow.py)
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await self.send_error(
                    invalid_request(
                        "Binary frames are not supported: send each event as a JSON text frame.",
                        None,
                        "invalid_json",
                    ),
                    None,
                )
                continue
            await self._on_text(text)

    async def _on_text(self, text: str) -> None:
        raw = text.encode()
        try:
            event = loads_bounded(raw, "The event")
        except JSONTooDeep as error:  # answered like HTTP's body, the socket kept
            await self.send_error(too_deep_error(error), None)
            return
        except orjson.JSONDecodeError:
            event = None
        if not isinstance(event, dict):
            await self.send_error(
                invalid_request(
                    "We could not parse the event: each frame must be one JSON object.",
                    None,
                    "invalid_json",
                ),
                None,
            )
            return
        etype = event.get("type")
        if etype == "response.steer":
            await self._on_steer(event)
            return
        if etype != "response.create":
            await self.send_error(
                invalid_request(
                    f"Invalid value: {_short(etype)}. Supported values are: 'response.create', "
                    "'response.steer'.",
                    "type",
                    "unknown_event_type",
                ),
                None,
            )
            return
        sid = event.get("stream_id")
        if sid is not None and not (isinstance(sid, str) and STREAM_ID.fullmatch(sid)):
            await self.send_error(
                invalid_request(
                    "Invalid 'stream_id': 1 to 256 characters of letters, digits, '_', '.' or "
                    "'-' expected.",
                    "stream_id",
                    "invalid_stream_id",
                ),
                None,
            )
            return
        refusal = self._refusal(event, sid)
        if refusal is not None:
            await self.send_error(refusal, sid)
            return
        body = {k: v for k, v in event.items() if k not in _WS_ONLY}
        parent = body.get("previous_response_id")
        held = self.held.get(parent) if isinstance(parent, str) else None
        if held is not None and held[0] == sid and isinstance(parent, str):
            # The continuation of a response that waited for tool output: the steering input it
            # held comes first, in submission order ([SDK] response_steer_pending_event).
            del self.held[parent]
            queued = [item for steer in held[1] for item in steer.items]
            body["input"] = queued + steering.as_items(body.get("input"))
        lane = self.lanes.get(sid)
        if lane is None:
            lane = self.lanes[sid] = _Lane(sid)
            lane.task = asyncio.ensure_future(self._lane(lane))
        self.queued += 1
        # Ids drawn in arrival order: the same requests, the same responses (module docstring).
        new_id = self.service.ids.scope(body)
        size = 2 * len(raw)  # the frame's text and its parsed body, until the response ends
        self.budget.charge(size)
        lane.queue.put_nowait((raw, body, new_id, size))

    def _refusal(self, event: Mapping[str, Any], sid: str | None) -> APIError | None:
        if event.get("background") is True:
            return invalid_request(
                "Background mode is not supported over WebSocket: use POST /v1/responses.",
                "background",
                "unsupported_parameter",
            )
        if sid is not None and sid not in self.lanes:
            named = sum(1 for key in self.lanes if key is not None)
            if named >= self.limits.max_lanes:
                return invalid_request(
                    "This WebSocket connection has reached its stream limit.",
                    "stream_id",
                    "websocket_stream_limit_reached",
                )
        if self.queued >= self.limits.max_queued:
            return APIError(
                429,
                f"This WebSocket connection has {self.queued} queued requests, the limit.",
                param=None,
                code="websocket_queue_limit_reached",
            )
        return None

    async def _lane(self, lane: _Lane) -> None:
        while True:
            raw, body, new_id, size = await lane.queue.get()
            async with self.active:
                self.queued -= 1
                job: _Job | None = (raw, body, new_id, ())
                try:
                    while job is not None:  # a steered response's successors follow it
                        job = await self._serve(lane.sid, *job)
                except _Dropped:
                    self._dropped.set()
                    return
                except (WebSocketDisconnect, OSError, RuntimeError):
                    self._gone.set()  # the client went away (starlette: RuntimeError after close)
                    return
                except Exception:  # one response failed: say so, log it once, serve the next
                    failures.exception(log, "WebSocket lane %r: a response failed", lane.sid)
                    try:
                        await self.send_error(internal_error(), lane.sid)
                    except (WebSocketDisconnect, OSError, RuntimeError):
                        self._gone.set()
                        return
                finally:
                    # Nothing of it stays referenced while the lane waits for the next create.
                    job = None
                    del raw, body
                    self.budget.release(size)

    async def _serve(
        self,
        sid: str | None,
        raw: bytes,
        body: dict[str, Any],
        new_id: Callable[[str], str],
        steers: Sequence[QueuedSteer] = (),
    ) -> _Job | None:
        """Answer one create (``steers``: an automatic successor committing them); returns the
        successor that commits the steering input it accepted, if any."""
        admission = (self.admit(self.ws, raw, body) if self.admit else None) or Admission()
        if admission.delay:
            await anyio.sleep(admission.delay)
        if admission.error is not None:
            await self._refuse(admission.error, sid, body, steers)
            return None
        generate = body.pop("generate", None)  # WebSocket-only (ws_state.py); not inherited
        tracked = steering.Tracked(
            sid, dict(body), self.responses.by_id, steering.unsupported(body)
        )
        try:
            check_type({"generate": generate}, "generate", bool)
            body = validate_create_body(body)
            body.pop("stream", None)  # implicit over WebSocket ([OAPI])
            body.pop("stream_options", None)
            producer = await self.service.stream_producer(
                self.ws,
                body,
                new_id=new_id,
                hints=admission.hints,
                local=self.cache.lookup,
                generate=generate is not False,
                keep=lambda response, items: self._cache_ended(sid, response, items),
            )
        except APIError as error:
            await self._refuse(error, sid, body, steers)
            return None
        except Exception:
            failures.exception(log, "unhandled error preparing a WebSocket response")
            await self._refuse(internal_error(), sid, body, steers)
            return None
        sink = _Sink(self, sid, admission.drop_after, tracked)
        try:
            try:
                await producer(sink)  # type: ignore[arg-type]
            finally:
                if tracked.response_id is not None and tracked.status is None:
                    tracked.status = "failed"  # cut short (a dropped connection): steer no more
            return await self._settle(tracked)
        finally:
            self.responses.ended(tracked)

    def _cache_ended(
        self, sid: str | None, response: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> None:
        self.cache.ended(sid, response, items)
        self._cache_changed()

    def _cache_changed(self) -> None:
        """Count the cache's bytes against the connection's bound; past half of it, forget the
        oldest cached responses (the cache is recent state, not a store: ws_state.py)."""
        self.budget.keep(self.cache.nbytes())
        if self.budget.kept_over():
            self.cache.shed(self.budget.kept_over())
            self.budget.keep(self.cache.nbytes())

    async def _refuse(
        self,
        error: APIError,
        sid: str | None,
        body: Mapping[str, Any],
        steers: Sequence[QueuedSteer],
    ) -> None:
        """A create refused: an ``error`` event, or for a successor each steer failed."""
        self.cache.refused(sid, body.get("previous_response_id"))  # a 4xx evicts its parent
        self._cache_changed()
        if not steers:
            await self.send_error(error, sid)
            return
        target = str(body.get("previous_response_id"))
        for steer in steers:
            event = steering.failed_event(
                target,
                steer.input,
                "successor_creation_failed",
                f"The successor response could not be created: {error.message}",
                steer.id,
            )
            await self._steer_event(event, sid)

    # ------------------------------------------------------------------ steering

    async def _steer_event(self, event: dict[str, Any], sid: str | None) -> None:
        event["sequence_number"] = self._steer_seq
        self._steer_seq += 1
        if sid is not None:
            event["stream_id"] = sid
        await self.send(orjson.dumps(event))

    async def _on_steer(self, event: Mapping[str, Any]) -> None:
        target = event.get("previous_response_id")
        if not isinstance(target, str):
            # No target to name in a response.steer.failed (its `steer` requires one).
            await self.send_error(
                invalid_request(
                    "Missing required parameter: 'previous_response_id'.",
                    "previous_response_id",
                    "missing_required_parameter",
                ),
                None,
            )
            return
        value = event.get("input")
        tracked = self.responses.get(target)
        sid = tracked.sid if tracked is not None else None
        problem = steering.steer_problem(event)
        if problem is not None:
            code, message = "invalid_input", problem
        elif tracked is None:
            code, message = "response_not_found", f"No response {target!r} on this connection."
        elif tracked.unsteerable:
            code = "steering_not_supported"
            message = (
                "Responses bound to a conversation or compacted automatically cannot be steered."
            )
        elif tracked.status == "completed":
            code, message = "response_already_completed", f"Response {target!r} has completed."
        elif tracked.status is not None:
            code = "response_not_active"
            message = f"Response {target!r} ended {tracked.status!r}: it accepts no steering input."
        elif len(tracked.steers) >= steering.MAX_PENDING_STEERS:
            code = "too_many_pending_steers"
            message = f"Response {target!r} already has {len(tracked.steers)} pending steers."
        else:
            steer_id = self.service.ids.scope(event)("steer")
            if tracked.successor_ids is None:  # drawn in arrival order: deterministic ids
                tracked.successor_ids = self.service.ids.scope({"successor_of": target})
            tracked.steers.append(QueuedSteer(steer_id, value, steering.as_items(value)))
            accepted = {
                "type": "response.steer.accepted",
                "steer": {"id": steer_id, "previous_response_id": target},
            }
            await self._steer_event(accepted, sid)
            return
        await self._steer_event(steering.failed_event(target, value, code, message), sid)

    async def _settle(self, tracked: steering.Tracked) -> _Job | None:
        """The target has ended: commit its accepted steers (or hold them for the client)."""
        steers, tracked.steers = tracked.steers, []
        if not steers or tracked.response_id is None:
            return None
        target, sid = tracked.response_id, tracked.sid
        stubs = steering.required_input(tracked.output) if tracked.status == "completed" else []
        if stubs:
            self.held[target] = (sid, steers)
            for steer in steers:
                pending = {
                    "type": "response.steer.pending",
                    "reason": "waiting_for_required_input",
                    "required_input": stubs,
                    "steer": {"id": steer.id, "previous_response_id": target},
                }
                await self._steer_event(pending, sid)
            return None
        if tracked.status not in ("completed", "incomplete"):
            for steer in steers:
                failed = steering.failed_event(
                    target,
                    steer.input,
                    "response_not_active",
                    f"Response {target!r} ended {tracked.status!r} before the input was committed.",
                    steer.id,
                )
                await self._steer_event(failed, sid)
            return None
        body = {k: v for k, v in tracked.body.items() if k != "input"}
        body["previous_response_id"] = target
        body["input"] = [item for steer in steers for item in steer.items]
        assert tracked.successor_ids is not None
        return orjson.dumps(body), body, tracked.successor_ids, steers


async def serve_websocket(
    service: ResponsesService,
    ws: WebSocket,
    *,
    limits: WebSocketLimits | None = None,
    admit: Admit | None = None,
    budget: ServerBudget | None = None,
) -> None:
    """Serve one WebSocket connection until the client closes it; ``budget`` is the server's
    (shared by its connections; default: this connection's own)."""
    try:
        service.authorize(ws)
    except APIError as error:
        await _deny(ws, error)
        return
    await ws.accept()
    limits = limits or WebSocketLimits()
    account = ConnectionBudget(budget or ServerBudget(limits.server_bytes), limits.connection_bytes)
    conn = _Connection(service, ws, limits, admit, account)
    try:
        await conn.run()
    except _Dropped:
        # A fault: the connection ends mid-response, with no terminal event (1011: the server
        # hit a condition that kept it from fulfilling the request).
        with anyio.CancelScope(shield=True):
            await ws.close(code=1011)


async def _deny(ws: WebSocket, error: APIError) -> None:
    """Refuse the upgrade with the HTTP error (401 and OpenAI's body) where the server can."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(
            Response(orjson.dumps(error.body()), error.status, media_type="application/json")
        )
    else:
        await ws.close(code=1008, reason=error.message[:120])


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
