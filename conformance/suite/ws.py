"""The suite's WebSocket client: one connection to a target's ``/responses``, every frame judged.

The URL is the target's base URL with ``http`` → ``ws`` and ``https`` → ``wss`` and
``/responses`` appended, as the openai SDK builds it (docs/websocket.md). Every frame sent and
received goes through a :class:`~conformance.websocket.SessionValidator`; the case reads the
parsed events. Each receive has the target's deadline, and a session its event cap, so a silent
or endless target ends the case instead of hanging the run.

A case opens its session with :meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`
(the plugin hands the probe :func:`judged_session`: the cases are declared in section modules,
which may not import this one); what ends a read (:data:`TERMINAL`, :class:`WsTimeout`,
:class:`WsClosed`) is defined in :mod:`.ws_ends`, which they import.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import ClientConnection, connect

from .. import warm_up
from ..catalog import live as L
from ..catalog.registry import Check, Violation
from ..websocket import SessionValidator
from .probe import CaseAborted, Probe, _declared
from .results import Finding
from .ws_ends import TERMINAL, WsClosed, WsTimeout

__all__ = ["TERMINAL", "WsClosed", "WsSession", "WsTimeout", "judged_session", "ws_url"]

_MAX_FRAME = 64 * 1024 * 1024


def ws_url(base_url: str) -> str:
    parts = urlsplit(base_url.rstrip("/"))
    scheme = "ws" if parts.scheme == "http" else "wss"
    return urlunsplit((scheme, parts.netloc, parts.path + "/responses", parts.query, ""))


class WsSession:
    """One judged connection. Raises ``OSError`` / ``InvalidHandshake`` from the constructor when
    the target does not upgrade."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout: float,
        max_events: int,
        profiles: Iterable[str] = ("core",),
        coverage: bool = False,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        headers = {"User-Agent": "responses-conformance"}
        for name, value in (extra_headers or {}).items():  # a client's own replace the suite's
            headers = {k: v for k, v in headers.items() if k.lower() != name.lower()}
            headers[name] = value
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.url = ws_url(base_url)
        self.timeout = timeout
        self.max_events = max_events
        self.judge = SessionValidator(profiles=profiles, coverage=coverage)
        self.frames: list[tuple[str, Any]] = []  # what crossed the wire, for evidence
        self.closed: WsClosed | None = None
        try:
            self._ws: ClientConnection = connect(
                self.url,
                additional_headers=headers,
                open_timeout=timeout,
                max_size=_MAX_FRAME,
                proxy=None,
            )
        except InvalidURI as exc:
            raise InvalidHandshake(str(exc)) from None

    def send(self, event: dict[str, Any] | str) -> None:
        text = event if isinstance(event, str) else json.dumps(event)
        self.judge.client(text)
        self._record("client", text)
        try:
            self._ws.send(text)
        except ConnectionClosed as exc:
            self.closed = WsClosed(exc.rcvd.code if exc.rcvd else None)
            raise self.closed from None

    def create(self, body: dict[str, Any], lane: str | None = None) -> None:
        event = {"type": "response.create", **body}
        if lane is not None:
            event["stream_id"] = lane
        self.send(event)

    def recv(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next server event (``None`` for a frame that is not a JSON object: the judge has
        it); raises :class:`WsTimeout` or :class:`WsClosed`."""
        if self.judge.events >= self.max_events:
            raise WsTimeout(f"more than {self.max_events} events")
        try:
            frame = self._ws.recv(timeout=self.timeout if timeout is None else timeout)
        except TimeoutError:
            raise WsTimeout(f"no frame within {self.timeout:g} s") from None
        except ConnectionClosed as exc:
            self.closed = WsClosed(exc.rcvd.code if exc.rcvd else None)
            raise self.closed from None
        self.judge.server(frame)
        self._record("server", frame)
        if isinstance(frame, bytes):
            return None  # a binary frame: the judge's finding (ws.frame.text)
        try:
            event = json.loads(frame)
        except (ValueError, TypeError):
            return None
        return event if isinstance(event, dict) else None

    def until(self, answers: int) -> list[dict[str, Any]]:
        """Receive until ``answers`` requests have been answered: a terminal event, or an
        ``error`` with no ``sequence_number`` (a refused request)."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + self.timeout * max(1, answers)
        while answers > 0:
            if time.monotonic() > deadline:
                raise WsTimeout(f"the answers did not come within {self.timeout:g} s each")
            event = self.recv()
            if event is None:
                continue
            got.append(event)
            etype = event.get("type")
            if etype in TERMINAL or (etype == "error" and "sequence_number" not in event):
                answers -= 1
        return got

    def finish(self) -> list[Violation]:
        """Close the connection; every violation of the session (ws.* and per response)."""
        with contextlib.suppress(Exception):  # already gone: nothing to close
            self._ws.close()
        self.judge.close()
        return self.judge.all_violations()

    def evidence(self, limit: int = 6) -> list[dict[str, Any]]:
        return [{"dir": d, "frame": f} for d, f in self.frames[-limit:]]

    def _record(self, direction: str, frame: Any) -> None:
        if len(self.frames) < 10_000:
            text = frame if isinstance(frame, str) else repr(frame)
            self.frames.append((direction, text[:600]))


@contextlib.contextmanager
def judged_session(
    probe: Probe,
    extra_headers: Mapping[str, str] | None = None,
    *,
    upgrade_is: Check | None = None,
) -> Iterator[WsSession]:
    """A :class:`WsSession` to the probe's target for one case: the upgrade is ``live.ws.upgrade``;
    on exit every violation the judge found is recorded under its check ID, with the last frames
    as evidence, and every check the session put to the test is recorded as exercised.
    ``upgrade_is``: a check a refused upgrade fails too (a client's flow: the upgrade is a
    request that client sends, ``live.client.<client>.requests``)."""
    target = probe.target
    assert target.base_url is not None
    # The client judges each frame as it reads it: schemas compiled on the first one would put it
    # ≈0.3 s behind the server (a steer sent after the response it targets has ended).
    warm_up()
    try:
        session = WsSession(
            target.base_url,
            api_key=target.api_key(),
            timeout=target.timeout,
            max_events=target.max_events,
            profiles=probe.profiles,
            coverage=True,
            extra_headers=extra_headers,
        )
    except (OSError, InvalidHandshake, TimeoutError) as exc:
        if upgrade_is is not None:
            probe.check(upgrade_is, False, expected="a WebSocket upgrade", actual=_reason(exc))
        probe.require(L.WS_UPGRADE, False, expected="a WebSocket upgrade", actual=_reason(exc))
        raise AssertionError("unreachable") from None  # probe.require raised
    probe.check(L.WS_UPGRADE, True)
    try:
        yield session
    except WsTimeout as exc:
        probe.check(L.DEADLINE, False, expected=f"≤ {target.timeout:g} s", actual=str(exc))
        raise CaseAborted(str(exc)) from None
    finally:
        violations = session.finish()
        probe.record.exercised |= _declared(
            session.judge.exercised | session.judge.stream_exercised(), probe.profiles
        )
        for violation in violations:
            probe.record.exercised.add(violation.check_id)
            probe.record.findings.append(
                Finding(
                    violation,
                    probe.record.id,
                    probe.attempt,
                    {"url": session.url, "frames": session.evidence()},
                )
            )


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:200]
