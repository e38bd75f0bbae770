"""A blocking WebSocket client on wsproto (sans-I/O) and a plain socket, for the load generator.

Under Locust the ``socket`` module is gevent's, so a blocking ``recv`` here yields to the other
users; unlike ``websockets.sync`` there is no reader thread (a greenlet under gevent) and no queue
between it and the caller, so one frame costs one ``recv`` and one parse. Frames are what the
server sent: ``str`` for a text message, ``bytes`` for a binary one (fragments joined).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
from urllib.parse import SplitResult, urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)
from wsproto.utilities import RemoteProtocolError

from .errors import WsClosed, WsRejected

__all__ = ["WsClosed", "WsRejected", "WsSocket"]

_RECV = 256 * 1024


class WsSocket:
    def __init__(self, url: str, headers: dict[str, str], *, timeout: float) -> None:
        parts = urlsplit(url)
        secure = parts.scheme == "wss"
        port = parts.port or (443 if secure else 80)
        host = parts.hostname or "127.0.0.1"
        sock = socket.create_connection((host, port), timeout=timeout)
        self._sock = sock
        self._ws = WSConnection(ConnectionType.CLIENT)
        self._frames: list[str | bytes] = []
        self._text: list[str] = []
        self._binary: list[bytes] = []
        self.closed = False
        # A handshake that fails (TLS, a timeout, the server hanging up) closes the socket here:
        # the caller gets no object to close, and the socket would wait for the garbage collector.
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if secure:
                self._sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            self._handshake(parts.netloc.rpartition("@")[2], parts, headers)
        except BaseException:
            self._sock.close()
            sock.close()
            raise

    def _handshake(self, authority: str, parts: SplitResult, headers: dict[str, str]) -> None:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        extra = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        self._sock.sendall(self._ws.send(Request(host=authority, target=target,
                                                 extra_headers=extra)))  # fmt: skip
        while True:
            try:
                events = self._pump()
            except RemoteProtocolError as error:  # no HTTP answer, or not an upgrade's
                self.closed = True
                raise WsClosed(f"the upgrade failed: {error}") from None
            for event in events:
                if isinstance(event, AcceptConnection):
                    return
                if isinstance(event, RejectConnection):
                    self.closed = True
                    raise WsRejected(event.status_code)

    def send(self, text: str) -> None:
        if self.closed:
            raise WsClosed("the connection is closed")
        try:
            self._sock.sendall(self._ws.send(TextMessage(data=text)))
        except OSError as error:
            self.closed = True
            raise WsClosed(str(error)) from None

    def recv(self, timeout: float) -> str | bytes:
        """The next whole message; raises ``TimeoutError`` or :class:`WsClosed`."""
        self._sock.settimeout(timeout)
        while not self._frames:
            if self.closed:
                raise WsClosed("the connection is closed")
            for _ in self._pump():
                pass
        return self._frames.pop(0)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                self._sock.sendall(self._ws.send(CloseConnection(code=1000)))
        self._sock.close()

    def _pump(self) -> list[object]:
        """Read once from the socket; handle control frames; collect whole messages."""
        try:
            data = self._sock.recv(_RECV)
        except TimeoutError:
            raise TimeoutError("no frame within the timeout") from None
        except OSError as error:
            self.closed = True
            raise WsClosed(str(error)) from None
        if not data:
            self.closed = True
            self._ws.receive_data(None)
        else:
            self._ws.receive_data(data)
        out: list[object] = []
        for event in self._ws.events():
            if isinstance(event, TextMessage):
                self._text.append(event.data)
                if event.message_finished:
                    self._frames.append("".join(self._text))
                    self._text.clear()
            elif isinstance(event, BytesMessage):
                self._binary.append(bytes(event.data))
                if event.message_finished:
                    self._frames.append(b"".join(self._binary))
                    self._binary.clear()
            elif isinstance(event, Ping):
                self._sock.sendall(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                self.closed = True
                with contextlib.suppress(Exception):
                    self._sock.sendall(self._ws.send(event.response()))
            elif isinstance(event, RejectData):
                continue
            out.append(event)
        if self.closed and not self._frames and not out:
            raise WsClosed("the server closed the connection")
        return out
