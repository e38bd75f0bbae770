"""HTTP to a target: JSON calls and SSE streams, each with a deadline and a cap on what it reads.

:class:`TargetClient` is the suite's only way to talk to a server. Every request has one deadline
(``timeout`` seconds for the whole exchange, stream included), every stream is read through an
:class:`~conformance.sse.framing.SSEStreamValidator` whose event cap ends an endless stream, and a target
that lets several requests in a row time out is declared hung so that the remaining cases fail at
once instead of waiting out their own timeouts. The API key goes into the ``Authorization`` header and nowhere else: an
:class:`HttpExchange` keeps the request's method, path and body, never its headers.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx2

from ..errors import ConformanceError
from ..sse.framing import SSEStreamValidator, parse_json
from .coding import ACCEPT_ENCODING, ContentDecoder, UndecodableBody

__all__ = ["DEFAULT_MAX_BODY_BYTES", "HttpExchange", "TargetClient", "TargetHung", "is_loopback"]

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""The most of one non-stream body (an error's too, a 429's too) the client reads; a stream is capped
by its events instead (``max_events``, and the decoder's bound on one event)."""
_RATE_LIMIT_RETRIES = 2  # 429s are not verdicts: wait (≤ 5 s) and send again, twice at most
_MAX_RETRY_WAIT = 5.0


class TargetHung(ConformanceError):
    """The target timed out on several requests in a row; nothing more is sent to it."""


@dataclass(slots=True)
class HttpExchange:
    """One request and what came back. ``path`` is relative to the target's base URL."""

    method: str
    path: str
    request_body: Any = None
    stream: bool = False
    status: int | None = None
    content_type: str = ""
    body: Any = None  # parsed JSON of a non-stream body, or None
    is_json: bool = False  # the body parsed as JSON (``body`` is None for JSON ``null`` too)
    text: str = ""  # the body's first characters when it is not JSON
    events: list[Any] = field(default_factory=list)  # decoded stream events, in order
    validator: SSEStreamValidator | None = None
    error: str | None = None  # a transport failure (timeout, reset, cap)
    timed_out: bool = False
    elapsed: float = 0.0
    rate_limited: int = 0  # how many 429s were waited out before this answer

    @property
    def ok(self) -> bool:
        return self.error is None and self.status == 200

    @property
    def json(self) -> dict[str, Any]:
        """The body when it is a JSON object, else ``{}``."""
        return self.body if isinstance(self.body, dict) else {}

    @property
    def terminal(self) -> dict[str, Any] | None:
        """A stream's terminal response (``response.completed`` / ``.incomplete`` / ``.failed``)."""
        if self.validator is None:
            return None
        terminal = self.validator.validator.terminal
        return dict(terminal) if isinstance(terminal, Mapping) else None

    def describe(self) -> str:
        """One line: what was sent and what came back."""
        what = f"{self.method} {self.path}"
        if self.error:
            return f"{what} → {self.error}"
        kind = f", {len(self.events)} events" if self.stream else ""
        return f"{what} → HTTP {self.status}{kind}"


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class TargetClient:
    """Synchronous HTTP to one target, with the suite's limits."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout: float,
        max_events: int,
        hung_after: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_events = max_events
        self.max_body_bytes = max_body_bytes
        self.hung_after = hung_after
        self._sleep = sleep
        self._timeouts_in_a_row = 0
        headers = {
            "Accept": "application/json",
            # Only the codings the suite decodes itself, in bounded pieces (coding.py); the
            # client's own decoders would expand a compressed read all at once.
            "Accept-Encoding": ACCEPT_ENCODING,
            "User-Agent": "responses-conformance",
        }
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx2.Client(
            headers=headers,
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            # Proxies from the environment apply to remote targets only: loopback stays direct.
            trust_env=not is_loopback(self.base_url),
            follow_redirects=False,
        )

    @property
    def hung(self) -> bool:
        return self._timeouts_in_a_row >= self.hung_after

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ requests

    def call(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> HttpExchange:
        """A non-stream request; the body is parsed as JSON when it is JSON. ``headers``: extra
        request headers (a client profile's replay sends the client's)."""
        ex = HttpExchange(method, _with_query(path, params), _shown_body(json_body, content))
        self._send(ex, json_body, content, params, validator=None, extra=headers)
        return ex

    def stream(
        self,
        method: str,
        path: str,
        *,
        validator: SSEStreamValidator,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> HttpExchange:
        """A request answered with SSE: the bytes go through ``validator`` as they arrive."""
        ex = HttpExchange(
            method, _with_query(path, params), _shown_body(json_body, None), stream=True
        )
        ex.validator = validator
        self._send(ex, json_body, None, params, validator=validator, extra=headers)
        return ex

    # ------------------------------------------------------------------ internals

    def _send(
        self,
        ex: HttpExchange,
        json_body: Any,
        content: bytes | None,
        params: Mapping[str, str] | None,
        *,
        validator: SSEStreamValidator | None,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        if self.hung:
            ex.error = (
                f"not sent: the target did not answer the last {self._timeouts_in_a_row} "
                f"requests within {self.timeout:g} s"
            )
            ex.timed_out = True
            raise TargetHung(ex.error)
        if json_body is not None:
            content = json.dumps(json_body).encode()
        headers = {"Content-Type": "application/json"} if content is not None else {}
        if validator is not None:
            headers["Accept"] = "text/event-stream"
        headers.update(extra or {})
        started = time.monotonic()
        deadline = started + self.timeout
        try:
            for attempt in range(_RATE_LIMIT_RETRIES + 1):
                retry_after = self._exchange(ex, content, params, headers, deadline, validator)
                if retry_after is None or attempt == _RATE_LIMIT_RETRIES:
                    break
                wait = min(retry_after, _MAX_RETRY_WAIT, max(0.0, deadline - time.monotonic()))
                ex.rate_limited += 1
                self._sleep(wait)
        except httpx2.TimeoutException:
            ex.error = f"no answer within {self.timeout:g} s"
            ex.timed_out = True
        except httpx2.HTTPError as exc:
            ex.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        finally:
            ex.elapsed = time.monotonic() - started
            if validator is not None:
                validator.close()
                ex.events = validator.events
        self._timeouts_in_a_row = self._timeouts_in_a_row + 1 if ex.timed_out else 0

    def _exchange(
        self,
        ex: HttpExchange,
        content: bytes | None,
        params: Mapping[str, str] | None,
        headers: dict[str, str],
        deadline: float,
        validator: SSEStreamValidator | None,
    ) -> float | None:
        """One HTTP round trip; returns a wait in seconds when the answer is a 429 to retry."""
        url = self.base_url + ex.path.split("?", 1)[0]
        with self._client.stream(
            ex.method, url, content=content, params=params, headers=headers
        ) as response:
            ex.status = response.status_code
            ex.content_type = response.headers.get("content-type", "")
            if response.status_code == 429:
                # Its body is not a verdict: read (at most the cap of) it, keep none of it.
                self._drain(response, deadline)
                return _retry_after(response.headers.get("retry-after"))
            is_sse = ex.content_type.startswith("text/event-stream")
            if validator is not None and is_sse and response.status_code == 200:
                self._read_stream(ex, response, deadline, validator)
            else:
                self._read_body(ex, response, deadline)
        return None

    def _read_stream(
        self,
        ex: HttpExchange,
        response: httpx2.Response,
        deadline: float,
        validator: SSEStreamValidator,
    ) -> None:
        try:
            for chunk in _decoded(response):
                validator.feed(chunk)
                if validator.aborted is not None:
                    ex.error = f"stream abandoned: {validator.aborted}"
                    return
                if time.monotonic() > deadline:
                    ex.error = f"the stream did not end within {self.timeout:g} s"
                    ex.timed_out = True
                    return
        except UndecodableBody as exc:
            ex.error = f"stream abandoned: {exc}"

    def _drain(self, response: httpx2.Response, deadline: float) -> None:
        """Read and drop a body, no more than the cap and no later than the deadline (the
        connection is then closed with the response, not reused)."""
        seen = 0
        for chunk in response.iter_raw():
            seen += len(chunk)
            if seen > self.max_body_bytes or time.monotonic() > deadline:
                return

    def _read_body(self, ex: HttpExchange, response: httpx2.Response, deadline: float) -> None:
        data = bytearray()
        limit = self.max_body_bytes
        try:
            for chunk in _decoded(response):
                data += chunk
                if len(data) > limit:
                    ex.error = f"body larger than {limit} bytes"
                    return
                if time.monotonic() > deadline:
                    ex.error = f"the body did not arrive within {self.timeout:g} s"
                    ex.timed_out = True
                    return
        except UndecodableBody as exc:
            ex.error = f"body unreadable: {exc}"
            return
        try:
            ex.body = parse_json(bytes(data))
            ex.is_json = True
        except ValueError:
            ex.text = bytes(data[:2000]).decode("utf-8", "replace")


def _decoded(response: httpx2.Response) -> Iterator[bytes]:
    """The body as it arrives, decoded in bounded pieces (never through the client's decoders);
    :class:`UndecodableBody` for a coding not asked for, or bytes that do not decode."""
    decoder = ContentDecoder(response.headers.get("content-encoding"))
    for raw in response.iter_raw():
        yield from decoder.feed(raw)
    yield from decoder.flush()


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value is not None else 1.0
    except ValueError:
        return 1.0


def _with_query(path: str, params: Mapping[str, str] | None) -> str:
    if not params:
        return path
    return path + "?" + "&".join(f"{k}={v}" for k, v in params.items())


def _shown_body(json_body: Any, content: bytes | None) -> Any:
    if json_body is not None:
        return json_body
    if content is not None:
        return content.decode("utf-8", "replace")
    return None
