"""``responses-bench --transport websocket``: a user's turns over one persistent WebSocket.

One :class:`WsConnection` per user (per session in the open loop): the connection to
``ws(s)://…/v1/responses`` opens on the first turn and carries every later one. A turn sends one
``response.create`` per lane (``--lanes``; lane ``l0``, ``l1``, …; one lane sends no
``stream_id``) and reads frames until every lane's response has ended. Each frame is stamped with
``perf_counter`` as it arrives and timed by the same :class:`~benchmarks.responses_bench.meter.StreamMeter` logic as
over SSE (TTFT from send to the first output delta, ITL between deltas, e2e to the terminal
event); every frame also goes through the judge's session validator
(:class:`conformance.websocket.SessionValidator`), whose violations for the response (stream
checks and ``ws.*`` session checks) fail its request under their check IDs.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from conformance.catalog.registry import Violation, failing
from conformance.websocket import SessionValidator

from . import meter as M
from .meter import RequestRecord, StreamMeter
from .workload import RequestPlan
from .ws_socket import WsClosed, WsRejected, WsSocket

__all__ = ["WsConnection", "ws_responses_url"]

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


def ws_responses_url(responses_url: str) -> str:
    """``http://…/v1/responses`` → ``ws://…/v1/responses`` (``https`` → ``wss``)."""
    parts = urlsplit(responses_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, ""))


class _Lane:
    __slots__ = ("done", "meter", "name", "plan", "record", "violations_before")

    def __init__(self, name: str | None, plan: RequestPlan, t0: float, start: float) -> None:
        self.name = name
        self.plan = plan
        # validate=False: the session judge below sees every frame; the meter only times them.
        self.meter = StreamMeter(
            t0=t0, start=start, validate=False, max_output_tokens=plan.max_output_tokens
        )
        self.done = False
        self.record: RequestRecord | None = None
        self.violations_before = 0


class WsConnection:
    """One user's connection; :meth:`turn` never raises for what the server or network does."""

    def __init__(
        self,
        responses_url: str,
        headers: Mapping[str, str],
        *,
        timeout: float,
        validate: bool = True,
        strict: bool = False,
    ) -> None:
        self.url = ws_responses_url(responses_url)
        self.headers = dict(headers)
        self.timeout = timeout
        self.validate = validate
        self.strict = strict
        self._ws: WsSocket | None = None
        self.judge = SessionValidator()
        self.frames = 0

    def close(self) -> None:
        if self._ws is not None:
            with contextlib.suppress(Exception):  # already gone
                self._ws.close()
            self._ws = None

    def turn(self, plans: Sequence[RequestPlan], *, lanes: bool) -> list[RequestRecord]:
        """Send ``plans`` at once (one per lane when ``lanes``, else the default lane, FIFO) and
        measure each answer."""
        start, t0 = time.time(), time.perf_counter()
        if self._ws is None:
            try:
                self._ws = WsSocket(self.url, self.headers, timeout=self.timeout)
            except (OSError, WsRejected, WsClosed, TimeoutError) as error:
                kind = "refused" if isinstance(error, ConnectionRefusedError) else "upgrade"
                now = time.perf_counter()
                return [
                    M.record_transport_error(kind, stream=True, t0=t0, now=now, start=start)
                    for _ in plans
                ]
            self.judge = SessionValidator()
        ws = self._ws
        pending: list[_Lane] = []
        by_name: dict[str | None, list[_Lane]] = {}
        for n, plan in enumerate(plans):
            name = f"l{n}" if lanes and n > 0 else None
            lane = _Lane(name, plan, time.perf_counter(), time.time())
            body = json.loads(plan.body)
            body.pop("stream", None)
            create: dict[str, Any] = {"type": "response.create", **body}
            if name is not None:
                create["stream_id"] = name
            text = json.dumps(create)
            self.judge.client(text)
            lane.violations_before = len(self.judge.violations)
            pending.append(lane)
            by_name.setdefault(name, []).append(lane)
            try:
                ws.send(text)
            except WsClosed:
                return self._cut(pending, "closed")
        waiting = len(pending)
        while waiting:
            try:
                frame = ws.recv(timeout=self.timeout)
            except TimeoutError:
                return self._cut(pending, "timeout")
            except WsClosed:
                return self._cut(pending, "closed")
            now = time.perf_counter()
            self.frames += 1
            try:
                event = orjson.loads(frame) if isinstance(frame, str) else None
            except orjson.JSONDecodeError:
                event = None
            if self.validate:
                # Parsed once: the judge takes the object (and names a frame that is no JSON).
                self.judge.server(event if isinstance(event, dict) else frame)
            if not isinstance(event, dict):
                continue
            queue = [x for x in by_name.get(event.get("stream_id"), []) if not x.done]
            if not queue:
                continue  # routed nowhere: the judge has said so (ws.event.routed)
            lane = queue[0]
            etype = event.get("type")
            if etype == "error" and "sequence_number" not in event:
                lane.done = True
                waiting -= 1
                code = (event.get("error") or {}).get("code")
                rec = M.record_http_error(
                    int(event.get("status") or 400), b"", stream=True, t0=lane.meter.t0,
                    now=now, start=lane.meter.record.start,
                )  # fmt: skip
                rec.names.insert(0, f"bench.ws.error.{code}")
                rec.failure = rec.names[0]
                lane.record = rec
                continue
            lane.meter._see([event], now)  # the SSE path's timing, per event as it arrived
            if etype in _TERMINAL:
                lane.done = True
                waiting -= 1
                lane.record = self._finish(lane, now)
        return [lane.record or self._finish(lane, time.perf_counter()) for lane in pending]

    def _finish(self, lane: _Lane, now: float, cut: str | None = None) -> RequestRecord:
        rec = lane.meter.finish(now, transport_error=cut)
        rec.http_status = 101  # answered over the upgraded connection (101 Switching Protocols)
        if self.validate:
            names = _ids(self._violations_for(lane), self.strict)
            if names:
                M._settle(rec, [*names, *rec.names])
        return rec

    def _violations_for(self, lane: _Lane) -> list[Violation]:
        found = list(self.judge.violations[lane.violations_before :])
        for response in self.judge.responses:
            if response.lane == lane.name and response.response_id == lane.meter.response_id:
                if not lane.done:  # cut: the end-of-stream checks say what is missing
                    response.validator.close()
                found += response.validator.violations
        return found

    def _cut(self, pending: list[_Lane], kind: str) -> list[RequestRecord]:
        self.close()
        now = time.perf_counter()
        out = []
        for lane in pending:
            if lane.record is None:
                lane.record = self._finish(lane, now, cut=f"bench.transport.{kind}")
            out.append(lane.record)
        return out


def _ids(violations: list[Violation], strict: bool) -> list[str]:
    return [v.check_id for v in failing(violations, strict=strict)]
