"""The proxy itself: an ASGI app that forwards each request to the upstream unchanged and hands
the answer back as it arrives, while :class:`~conformance.proxy.judge.ExchangeJudge` judges it.

- Paths: ``/v1/<path>`` on the proxy is ``UPSTREAM/<path>`` (the upstream URL ends in ``/v1``);
  the query string passes as it is.
- Requests: method, body and headers unchanged, but for the hop-by-hop headers (RFC 9110 §7.6.1)
  and ``Host``; ``Accept-Encoding`` keeps only the codings the judge can decode (gzip, deflate,
  identity), because it must read what it forwards.
- Streams (``200`` ``text/event-stream``): each chunk is sent to the client first, then fed to
  the judge — no buffering. Other bodies are read whole (they are judged whole), within the
  body cap; a larger one fails the exchange and the client gets a ``502`` in OpenAI's error shape.
  No answer from the upstream: ``502`` (``504`` on a timeout), in the same shape.
- WebSocket mode (``GET /v1/responses`` upgraded, docs/websocket.md): the upstream socket is
  opened first; frames pass both ways, each judged by a
  :class:`~conformance.websocket.SessionValidator`.

Secrets in request headers (``Authorization``, ``api-key``, ``Cookie``…) are forwarded and added
to the ledger's redactor; the judge's evidence never holds headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import httpx2

from ..stream import parse_json
from .judge import ExchangeJudge
from .kinds import classify
from .ledger import Ledger
from .record import Recorder
from .websocket import forward_websocket

__all__ = ["ProxyApp", "ProxySettings"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

PREFIX = "/v1"
MAX_REQUEST_BYTES = 64 * 1024 * 1024
_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer",
     b"upgrade", b"proxy-authenticate", b"proxy-authorization", b"host", b"content-length"}
)  # fmt: skip
_SECRET_HEADERS = frozenset(
    {b"authorization", b"api-key", b"x-api-key", b"cookie", b"openai-api-key", b"x-goog-api-key"}
)
_CODINGS = frozenset({"gzip", "deflate", "identity", "x-gzip"})


@dataclass(frozen=True, slots=True)
class ProxySettings:
    upstream: str  # base URL, ending in /v1
    profiles: frozenset[str]
    timeout: float = 300.0  # the longest wait for the upstream's next bytes
    max_events: int = 20_000
    max_body_bytes: int = 16 * 1024 * 1024


class ProxyApp:
    def __init__(
        self, settings: ProxySettings, ledger: Ledger, *, recorder: Recorder | None = None
    ) -> None:
        self.settings = settings
        self.ledger = ledger
        self.recorder = recorder
        if recorder is not None:
            recorder.redactor = ledger.redactor
        self.upstream = settings.upstream.rstrip("/")
        self._client: httpx2.AsyncClient | None = None
        self._open: dict[str, ExchangeJudge] = {}  # response id -> the stream being read
        self._tasks: set[asyncio.Task[Any]] = set()  # open exchanges
        self._closing = False

    def client(self) -> httpx2.AsyncClient:
        if self._client is None:
            t = self.settings.timeout
            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(t, connect=min(t, 10.0)),
                follow_redirects=False,
                trust_env=False,
                limits=httpx2.Limits(max_connections=None, max_keepalive_connections=64),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def close_exchanges(self) -> None:
        """Shutting down (SIGINT / SIGTERM): end every open exchange now, each recorded as cut
        by the proxy (not the upstream's fault), rather than leave them to the server's
        graceful-shutdown timeout, which would cancel them from outside."""
        self._closing = True
        for task in list(self._tasks):
            task.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send, self.aclose)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            if scope["type"] == "websocket":
                await forward_websocket(self, scope, receive, send)
            elif scope["type"] == "http":
                await self._http(scope, receive, send)
        except asyncio.CancelledError:
            if not self._closing:
                raise
            await _end(scope, send)
        except Exception as exc:  # a defect of the proxy: one line, and a clean 502
            self.ledger.console.line(f"proxy error: {_describe(exc)}")
            with contextlib.suppress(Exception):
                await _error(send, 502, "the proxy failed on this exchange", "proxy_error")
        finally:
            if task is not None:
                self._tasks.discard(task)

    # ------------------------------------------------------------------ HTTP

    def relative(self, path: str) -> str | None:
        if path == PREFIX or path.startswith(PREFIX + "/"):
            return path[len(PREFIX) :] or "/"
        return None

    def forwarded_headers(self, raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        headers = []
        for name, value in raw:
            lower = name.lower()
            if lower in _HOP:
                continue
            if lower in _SECRET_HEADERS:
                self._note_secret(lower, value)
            if lower == b"accept-encoding":
                value = _decodable(value)
            headers.append((name, value))
        return headers

    def _note_secret(self, name: bytes, value: bytes) -> None:
        text = value.decode("latin-1").strip()
        if name == b"cookie":
            for part in text.split(";"):
                _, _, cookie = part.partition("=")
                self.ledger.redactor.add(cookie.strip() or None)
            return
        scheme, _, token = text.partition(" ")
        self.ledger.redactor.add(token.strip() if token.strip() else scheme)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.monotonic()
        rel = self.relative(scope["path"])
        if rel is None:
            await _error(send, 404, f"the proxy serves {PREFIX}/… only", "not_found")
            return
        body = await _read_request(receive)
        if body is None:
            await _error(send, 413, f"request body over {MAX_REQUEST_BYTES} bytes", "too_large")
            return
        query = scope.get("query_string", b"").decode("latin-1")
        try:
            parsed = parse_json(body) if body.strip() else None
        except ValueError:
            parsed = None
        info = classify(scope["method"], rel, query, parsed)
        judge = ExchangeJudge(
            info,
            profiles=self.settings.profiles,
            max_events=self.settings.max_events,
            max_body_bytes=self.settings.max_body_bytes,
        )
        if info.kind == "responses.cancel" and info.response_id in self._open:
            self._open[info.response_id].cancelled = True
        headers = self.forwarded_headers(scope["headers"])
        url = self.upstream + rel + (f"?{query}" if query else "")
        tape = None
        if self.recorder is not None:
            target = scope["path"] + (f"?{query}" if query else "")
            tape = self.recorder.begin(info.method, target, scope["headers"], body)
        try:
            await self._exchange(judge, url, headers, body, receive, send, tape)
        except asyncio.CancelledError:
            # the proxy is shutting down under an open exchange: its end is not the upstream's
            judge.client_closed = True
            raise
        finally:
            if tape is not None and self.recorder is not None:
                ex = judge.exchange
                outcome = "disconnected" if judge.client_closed else "complete"
                self.recorder.finish(tape, f"error: {ex.error}" if ex.error else outcome)
            judge.exchange.elapsed = time.monotonic() - started
            rid = judge.response_id
            if rid is not None and self._open.get(rid) is judge:
                del self._open[rid]
            self.ledger.record(judge.finish())

    async def _exchange(
        self,
        judge: ExchangeJudge,
        url: str,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        receive: Receive,
        send: Send,
        tape: Any = None,
    ) -> None:
        client = self.client()
        request = httpx2.Request(judge.info.method, url, headers=headers, content=body)
        try:
            response = await client.send(request, stream=True)
        except httpx2.TimeoutException:
            judge.fail(f"no answer within {self.settings.timeout:g} s", timed_out=True)
            await _error(send, 504, "the upstream did not answer in time", "upstream_timeout")
            return
        except httpx2.HTTPError as exc:
            judge.fail(_describe(exc))
            await _error(send, 502, f"the upstream failed: {_describe(exc)}", "upstream_error")
            return
        try:
            ctype = response.headers.get("content-type", "")
            judge.start(response.status_code, ctype)
            decode = _decoder(response.headers.get("content-encoding", ""))
            out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP]
            if tape is not None:
                tape.response(response.status_code, response.headers.raw)
            if judge.streaming:
                out += _length(response)
                await self._stream(judge, response, out, decode, receive, send, tape)
            else:
                await self._body(judge, response, out, decode, send, tape)
        finally:
            await response.aclose()

    async def _stream(
        self,
        judge: ExchangeJudge,
        response: httpx2.Response,
        headers: list[tuple[bytes, bytes]],
        decode: Callable[[bytes], bytes],
        receive: Receive,
        send: Send,
        tape: Any,
    ) -> None:
        status = response.status_code
        await send({"type": "http.response.start", "status": status, "headers": headers})
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone))
        try:
            async for chunk in response.aiter_raw():
                if gone.is_set():
                    judge.client_closed = True
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if tape is not None:
                    tape.chunk(chunk)
                judge.feed(decode(chunk))
                rid = judge.response_id
                if rid is not None and rid not in self._open:
                    self._open[rid] = judge
        except httpx2.TimeoutException:
            judge.fail(f"the stream stalled for {self.settings.timeout:g} s", timed_out=True)
        except httpx2.HTTPError as exc:
            judge.fail(f"the stream broke: {_describe(exc)}")
        except zlib.error as exc:
            judge.fail(f"the stream's content-encoding does not decode: {exc}")
        finally:
            watcher.cancel()
        if gone.is_set():
            judge.client_closed = True
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _body(
        self,
        judge: ExchangeJudge,
        response: httpx2.Response,
        headers: list[tuple[bytes, bytes]],
        decode: Callable[[bytes], bytes],
        send: Send,
        tape: Any,
    ) -> None:
        limit = self.settings.max_body_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            judge.fail(f"body larger than {limit} bytes (content-length {declared})")
            await _error(
                send, 502, f"the upstream's body is larger than {limit} bytes", "too_large"
            )
            return
        data = bytearray()
        try:
            async for chunk in response.aiter_raw():
                data += chunk
                if len(data) > limit or not judge.feed(decode(chunk)):
                    judge.fail(f"body larger than {limit} bytes")
                    await _error(
                        send, 502, f"the upstream's body is larger than {limit} bytes", "too_large"
                    )
                    return
        except httpx2.TimeoutException:
            judge.fail(
                f"the body did not arrive within {self.settings.timeout:g} s", timed_out=True
            )
            await _error(
                send, 504, "the upstream's body did not arrive in time", "upstream_timeout"
            )
            return
        except (httpx2.HTTPError, zlib.error) as exc:
            judge.fail(f"the body broke: {_describe(exc)}")
            await _error(
                send, 502, f"the upstream's body broke: {_describe(exc)}", "upstream_error"
            )
            return
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(data)).encode()))
        start = {"type": "http.response.start", "status": response.status_code, "headers": headers}
        await send(start)
        await send({"type": "http.response.body", "body": bytes(data), "more_body": False})
        if tape is not None:
            tape.chunk(bytes(data))


# ---------------------------------------------------------------------- helpers


def _length(response: httpx2.Response) -> list[tuple[bytes, bytes]]:
    value = response.headers.get("content-length")
    return [(b"content-length", value.encode())] if value and value.isdigit() else []


def _decodable(value: bytes) -> bytes:
    codings = [c.strip() for c in value.decode("latin-1").split(",") if c.strip()]
    kept = [c for c in codings if c.split(";", 1)[0].strip().lower() in _CODINGS]
    return ", ".join(kept).encode("latin-1") if kept else b"identity"


def _decoder(encoding: str) -> Callable[[bytes], bytes]:
    coding = encoding.strip().lower()
    if coding in ("gzip", "x-gzip", "deflate"):
        wbits = 16 + zlib.MAX_WBITS if coding != "deflate" else zlib.MAX_WBITS
        state = zlib.decompressobj(wbits)

        def decode(chunk: bytes) -> bytes:
            return state.decompress(chunk)

        return decode
    return _identity


def _identity(chunk: bytes) -> bytes:
    return chunk


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _read_request(receive: Receive) -> bytes | None:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        body += message.get("body", b"")
        if len(body) > MAX_REQUEST_BYTES:
            return None
        if not message.get("more_body", False):
            break
    return bytes(body)


async def _watch_disconnect(receive: Receive, gone: asyncio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
            return


async def _error(send: Send, status: int, message: str, code: str) -> None:
    body = json.dumps(
        {"error": {"message": message, "type": "proxy_error", "param": None, "code": code}}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _end(scope: Scope, send: Send) -> None:
    """End a response (or socket) the proxy cut at shutdown: the body's end if it had started,
    else a 503 in OpenAI's error shape."""
    with contextlib.suppress(Exception):
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1001})
            return
        try:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except RuntimeError:  # not started
            await _error(send, 503, "the proxy is shutting down", "proxy_shutdown")


async def _lifespan(receive: Receive, send: Send, shutdown: Callable[[], Awaitable[None]]) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return
