"""One request and its answer through the proxy (:class:`RelayedExchange`): forwarded to the
upstream, its answer relayed to the client as it arrives, judged, recorded.

The client's connection (:class:`~conformance.proxy.transport.ClientConnection`) reads the
request and starts an exchange; the upstream's connection
(:class:`~conformance.proxy.pool.UpstreamConnection`) hands it the answer's head, then every read
of the body (:meth:`RelayedExchange.on_data`: one write to the client, then one feed of the
judge). An answer whose framing breaks RFC 9112 (docs/spec.md §4.8) is the upstream's violation:
a head is answered 502, a body cut where the fault is; never relayed as if it were fine.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from ..sse.framing import parse_json
from ..suite.coding import UndecodableBody
from .app import PREFIX, describe, stream_decoder
from .http1 import (
    BODY_CHUNKED,
    BODY_LENGTH,
    HEAD_SYNTAX,
    BodyReader,
    FramingError,
    RequestHead,
    ResponseHead,
    body_framing,
    error_bytes,
    head_bytes,
)
from .judge import ExchangeJudge
from .kinds import classify
from .pool import UpstreamConnection

if TYPE_CHECKING:
    from .transport import ClientConnection

__all__ = ["RelayedExchange"]

_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer",
     b"upgrade", b"proxy-authenticate", b"proxy-authorization", b"content-length"}
)  # fmt: skip


class RelayedExchange:
    """One request and its answer: forwarded, relayed, judged, recorded."""

    def __init__(self, client: ClientConnection, head: RequestHead) -> None:
        self.client = client
        self.head = head
        self.server = client.server
        self.keep_alive = head.keep_alive
        self.judge: ExchangeJudge | None = None
        self.upstream: UpstreamConnection | None = None
        self.started = False  # the answer's head has been written to the client
        self.raw = True  # the body goes out with the upstream's framing
        self.reader: BodyReader | None = None
        self.answer: ResponseHead | None = None
        self.decode: Any = None
        self.tape: Any = None
        self.streaming = False
        self.known = False  # the stream's response id is in app.open
        self.data = bytearray()  # a non-stream body, read whole
        self.done: asyncio.Future[None] | None = None
        self.loop = asyncio.get_running_loop()
        self.last = 0.0
        self.upstream_broke = False  # the upstream's body broke: the proxy cut the client after

    async def run(self, body: bytes) -> None:
        app = self.server.app
        started = time.monotonic()
        head = self.head
        path, _, query = head.target.partition("?")
        rel = app.relative(path)
        if rel is None:
            self.client.write(error_bytes(404, f"the proxy serves {PREFIX}/… only", "not_found"))
            return
        try:
            parsed = parse_json(body) if body.strip() else None
        except ValueError:
            parsed = None
        info = classify(head.method, rel, query, parsed)
        judge = self.judge = ExchangeJudge(
            info,
            profiles=app.settings.profiles,
            max_events=app.settings.max_events,
            max_body_bytes=app.settings.max_body_bytes,
        )
        if info.kind == "responses.cancel" and info.response_id in app.open:
            app.open[info.response_id].cancelled = True
        headers = app.forwarded_headers(head.headers)
        if app.recorder is not None:
            self.tape = app.recorder.begin(info.method, head.target, head.headers, body)
        try:
            await self._forward(rel, query, headers, body)
        except asyncio.CancelledError:
            # the proxy is shutting down under an open exchange: its end is not the upstream's —
            # unless the upstream's body had already ended (the task had not resumed yet)
            if not self.body_ended:
                judge.client_closed = True
                self._cut()
            raise
        finally:
            self._release()
            if self.tape is not None and app.recorder is not None:
                ex = judge.exchange
                outcome = "disconnected" if judge.client_closed else "complete"
                app.recorder.finish(self.tape, f"error: {ex.error}" if ex.error else outcome)
            judge.exchange.elapsed = time.monotonic() - started
            rid = judge.response_id
            if rid is not None and app.open.get(rid) is judge:
                del app.open[rid]
            app.ledger.record(judge.finish())

    # ---------------------------------------------------------------- forwarding

    def _request_bytes(self, rel: str, query: str, headers: list[tuple[bytes, bytes]],
                       body: bytes) -> bytes:  # fmt: skip
        target = (self.server.base_path + rel + (f"?{query}" if query else "")).encode("latin-1")
        lines = [b"%s %s HTTP/1.1\r\nhost: %s\r\n" % (self.head.method.encode(), target,
                                                        self.server.host_header)]  # fmt: skip
        lines += [b"%s: %s\r\n" % (k, v) for k, v in headers if k.lower() != b"host"]
        if body or self.head.method in ("POST", "PUT", "PATCH"):
            lines.append(b"content-length: %d\r\n" % len(body))
        lines.append(b"\r\n")
        return b"".join(lines) + body

    async def _forward(self, rel: str, query: str, headers: list[tuple[bytes, bytes]],
                       body: bytes) -> None:  # fmt: skip
        judge = self.judge
        assert judge is not None
        timeout = self.server.app.settings.timeout
        request = self._request_bytes(rel, query, headers, body)
        for attempt in (0, 1):
            try:
                conn = await self.server.pool.acquire()
            except TimeoutError:
                judge.fail(f"no connection within {min(timeout, 10.0):g} s", timed_out=True)
                return self._fail(504, "the upstream did not answer in time", "upstream_timeout")
            except OSError as exc:
                judge.fail(f"ConnectError: {describe(exc)}")
                msg = f"the upstream failed: {describe(exc)}"
                return self._fail(502, msg, "upstream_error")
            self.upstream = conn
            try:
                answer = await asyncio.wait_for(conn.send(request), timeout)
                break
            except TimeoutError:
                judge.fail(f"no answer within {timeout:g} s", timed_out=True)
                return self._fail(504, "the upstream did not answer in time", "upstream_timeout")
            except FramingError as exc:
                self._framing(exc)
                judge.fail(f"the upstream's answer is not HTTP/1.1: {exc}")
                msg = f"the upstream's answer is not HTTP/1.1: {exc}"
                return self._fail(502, msg, "upstream_error")
            except OSError as exc:
                conn.abort()
                self.upstream = None
                if attempt == 0 and conn.reused and not conn.answered:
                    continue  # a kept-alive connection the upstream had closed
                judge.fail(f"the upstream closed the connection: {describe(exc)}")
                msg = f"the upstream failed: {describe(exc)}"
                return self._fail(502, msg, "upstream_error")
        await self._answer(answer)

    async def _answer(self, answer: ResponseHead) -> None:
        judge = self.judge
        assert judge is not None and self.upstream is not None
        self.answer = answer
        status = answer.status
        judge.start(status, (answer.get(b"content-type") or b"").decode("latin-1"))
        if self.tape is not None:
            self.tape.response(status, answer.headers)
        try:
            kind, size = body_framing(answer.headers, request=False, status=status,
                                      head=self.head.method == "HEAD")  # fmt: skip
        except FramingError as exc:
            self._framing(exc)
            judge.fail(f"the upstream's answer is not HTTP/1.1: {exc}")
            return self._fail(502, f"the upstream's answer is not HTTP/1.1: {exc}", "upstream_error")  # fmt: skip
        judge.exercise(HEAD_SYNTAX, BODY_LENGTH)
        self.keep_alive = self.keep_alive and answer.keep_alive
        self.upstream.reusable = answer.keep_alive and kind != "close"
        self.reader = BodyReader(kind, size)
        self.decode = stream_decoder((answer.get(b"content-encoding") or b"").decode("latin-1"))
        out = [(k, v) for k, v in answer.headers if k.lower() not in _HOP]
        limit = self.server.app.settings.max_body_bytes
        if judge.streaming:
            self.streaming = True
            http11 = self.head.version == b"HTTP/1.1"
            if kind == "chunked" and http11:
                out.append((b"transfer-encoding", b"chunked"))
            elif kind == "length":
                out.append((b"content-length", str(size).encode()))
            elif kind != "none":
                self.raw = False
                self.keep_alive = False
            if not self.keep_alive:
                out.append((b"connection", b"close"))
            self.client.write(head_bytes(status, out))
            self.started = True
        elif kind == "length" and size > limit:
            judge.fail(f"body larger than {limit} bytes (content-length {size})")
            return self._fail(502, f"the upstream's body is larger than {limit} bytes", "too_large")  # fmt: skip
        loop = self.loop
        self.done = loop.create_future()
        self.last = loop.time()
        if self.reader.done:
            self.done.set_result(None)
        else:
            self.upstream.attach(self)
            if self.client.paused:
                self.pause()
            await self._wait(loop)
        if judge.exchange.error is not None or self.client.gone:
            return
        if not self.streaming:
            self._send_body(status, out)

    async def _wait(self, loop: asyncio.AbstractEventLoop) -> None:
        """Until the body's end; the stall timeout is checked without a timer per chunk."""
        assert self.done is not None and self.judge is not None
        timeout = self.server.app.settings.timeout
        while not self.done.done():
            left = self.last + timeout - loop.time()
            if left <= 0:
                what = "the stream stalled" if self.streaming else "the body did not arrive"
                self.judge.fail(f"{what} for {timeout:g} s" if self.streaming else
                                f"{what} within {timeout:g} s", timed_out=True)  # fmt: skip
                if not self.streaming:
                    msg = "the upstream's body did not arrive in time"
                    self._fail(504, msg, "upstream_timeout")
                self._end_broken()
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.done), left)

    @property
    def body_ended(self) -> bool:
        """The upstream's body has been read to its framed end."""
        return self.reader is not None and self.reader.done

    # ---------------------------------------------------------------- the hot path

    def on_data(self, data: bytes) -> None:
        """Bytes from the upstream: to the client first, then to the judge."""
        reader, judge = self.reader, self.judge
        assert reader is not None and judge is not None and self.done is not None
        if self.done.done():
            return
        try:
            body = reader.feed(data)
        except FramingError as exc:  # what came before the fault still goes on, then the end
            if exc.partial:
                # llhttp gives no offsets: a read that began between two chunks goes on as one
                # chunk of its good bytes; one that began mid-chunk goes to the judge alone
                framed = b"%x\r\n%s\r\n" % (len(exc.partial), exc.partial) if exc.clean else b""
                self._relay(framed, exc.partial)
            self._framing(exc)
            self._broken(f"the upstream's framing is broken: {exc}")
            return
        self._relay(data[: len(data) - len(reader.rest)] if reader.rest else data, body)
        if reader.done and not self.done.done():
            if reader.kind == "chunked":
                judge.exercise(BODY_CHUNKED)
            self.done.set_result(None)

    def _relay(self, data: bytes, body: bytes) -> None:
        """``data`` from the wire, ``body`` its bytes without the chunked framing."""
        judge = self.judge
        assert judge is not None
        if self.streaming:
            self.client.write(data if self.raw else body)
        self.last = self.loop.time()
        if self.tape is not None:
            self.tape.chunk(body)
        if self.decode is None:
            return
        limit = self.server.app.settings.max_body_bytes
        if not self.streaming:
            self.data += body
            if len(self.data) > limit:
                self._too_large(limit)
                return
        try:
            # The judge's copy, decoded a bounded piece at a time (conformance.suite.coding): a
            # compressed chunk never expands whole, and the judge's own caps see every piece.
            for decoded in self.decode.feed(body):
                if not judge.feed(decoded):  # only a non-stream body over the cap
                    self._too_large(limit)
                    return
        except UndecodableBody as exc:
            self._broken(f"the content-encoding does not decode: {exc}")
            return
        if self.streaming and not self.known:  # a cancel through the proxy finds the stream
            rid = judge.response_id
            if rid is not None:
                self.known = True
                self.server.app.open.setdefault(rid, judge)

    def _framing(self, exc: FramingError) -> None:
        """A framing violation of the upstream's (§4.8) is its check's failure; a limit of the
        proxy's is not."""
        if exc.check is not None and self.judge is not None:
            self.judge.framing(exc.check, str(exc))

    def _too_large(self, limit: int) -> None:
        assert self.judge is not None
        self.judge.fail(f"body larger than {limit} bytes")
        self._fail(502, f"the upstream's body is larger than {limit} bytes", "too_large")
        self._end_broken()

    def on_eof(self, exc: Exception | None) -> None:
        """The upstream connection ended."""
        reader = self.reader
        if self.done is None or self.done.done() or reader is None:
            return
        try:
            reader.eof()
        except FramingError:
            why = describe(exc) if exc is not None else "the connection closed before its end"
            self._broken(why)
            return
        self.done.set_result(None)

    def _broken(self, why: str) -> None:
        assert self.judge is not None
        if self.streaming:
            self.judge.fail(f"the stream broke: {why}")
        else:
            self.judge.fail(f"the body broke: {why}")
            self._fail(502, f"the upstream's body broke: {why}", "upstream_error")
        self._end_broken()

    def _end_broken(self) -> None:
        """The upstream's body cannot be finished: drop its connection and end the client's.
        The client's connection closing after that is the proxy's doing, not the client's
        leaving: the exchange stays failed (docs/proxy.md, who cut the stream)."""
        self.upstream_broke = True
        if self.upstream is not None:
            self.upstream.abort()
        if self.streaming:
            self._cut()
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    def _cut(self) -> None:
        """End the client's answer early: a last chunk where the framing allows, else close."""
        reader = self.reader
        if not self.started:
            if not self.client.gone:
                self._fail(503, "the proxy is shutting down", "proxy_shutdown")
            return
        if self.raw and reader is not None and reader.at_boundary:
            self.client.write(b"0\r\n\r\n")
        self.keep_alive = False
        self.client.close()

    def _send_body(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        data = bytes(self.data)
        if self.head.method == "HEAD" and self.answer is not None:
            length = self.answer.get(b"content-length")
            if length is not None:
                headers = [*headers, (b"content-length", length)]
        elif status not in (204, 304) and not 100 <= status < 200:
            headers = [*headers, (b"content-length", b"%d" % len(data))]
        self.client.write(head_bytes(status, headers, close=not self.keep_alive) + data)

    def _fail(self, status: int, message: str, code: str) -> None:
        if not self.started and not self.client.gone:
            self.client.write(error_bytes(status, message, code))
            self.started = True

    def _release(self) -> None:
        conn, self.upstream = self.upstream, None
        if conn is None:
            return
        conn.sink = None
        finished = self.done is not None and self.done.done() and self.reader is not None
        if finished and self.reader is not None and self.reader.done and not self.reader.rest:
            self.server.pool.release(conn)
        else:
            conn.abort()

    # ---------------------------------------------------------------- flow control

    def client_gone(self) -> None:
        """The client's connection closed. Before the upstream's body ended, the stream was cut
        by the client (its end is not judged against the upstream); after it — the client read
        the last byte and left before this exchange's task resumed — the exchange is whole. After
        the upstream's body broke, the proxy closed the client's connection itself: that close
        excuses nothing."""
        if self.body_ended or self.upstream_broke:
            return
        if self.judge is not None:
            self.judge.client_closed = True
        if self.upstream is not None:
            self.upstream.abort()
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    def pause(self) -> None:
        if self.upstream is not None:
            self.upstream.pause_reading()

    def resume(self) -> None:
        if self.upstream is not None:
            self.upstream.resume_reading()
