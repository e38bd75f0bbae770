"""The proxy's judge of one exchange, sans I/O: the answer's bytes in, a :class:`Verdict` out.

The rules are the live suite's (:mod:`conformance.suite.probe`), applied to traffic the proxy did
not choose: a ``200`` ``text/event-stream`` answer goes through
:class:`~conformance.sse.framing.SSEStreamValidator` chunk by chunk as it arrives (the typed path, with
the resume context of ``GET …?stream=true&starting_after=N``); any other answer is read whole,
within the body cap, and judged as the suite judges a body — an error body (``status >= 400``,
429s excepted: they are not verdicts) by the error checks, a Response by the Response checks, a
compaction result, conversation or item list by the state checks. A request that asked for a
stream and got ``200`` is held to ``live.stream.content_type``. What went wrong on the way — no
answer, a reset, a body over the cap — is ``live.http.status_ok`` ("an HTTP answer") or
``live.transport.deadline``, as in the suite. Nothing here judges the request: a client may send a
bad request on purpose, and its ``400`` is judged as an error body. The answer to a create is
judged against its request where a rule needs both (``response.custom_tool_call.grammar``: a
custom tool's input against the grammar the request declared), as in the suite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import catalog as C
from ..bodies.kinds import body_kind, judge_body
from ..catalog import live as L
from ..catalog.registry import REGISTRY, Violation
from ..sections.against_request import (
    judge_body_against_request,
    judge_stream_against_request,
    judged_against_request,
)
from ..sse.framing import SSEStreamValidator, parse_json
from ..suite.http import HttpExchange
from ..suite.judgeable import model_unknown, refusal
from ..suite.probe import _declared, judged_profiles
from .kinds import RequestInfo

__all__ = ["ExchangeJudge", "Verdict"]

_NOT_OFFERED = (404, 405)


@dataclass(slots=True)
class Verdict:
    """One exchange, judged: what the reports and the console line show."""

    info: RequestInfo
    exchange: HttpExchange  # the evidence (request body, status, events; never headers)
    violations: list[Violation] = field(default_factory=list)
    exercised: set[str] = field(default_factory=set)
    judged: bool = True  # False: outside the Responses surface, or an endpoint not offered
    session_events: int | None = None  # a WebSocket session's server events
    stream_events: int | None = None  # a stream's events, when they were not kept as evidence
    evidence: dict[str, Any] | None = None  # a WebSocket session's: its last frames
    not_judged: str = ""  # the answer was no verdict (authentication refused, …): why
    omitted: dict[str, int] = field(default_factory=dict)  # check ID -> violations not kept

    @property
    def events(self) -> int:
        if self.session_events is not None:
            return self.session_events
        if self.stream_events is not None:
            return self.stream_events
        return len(self.exchange.events)

    def failing(self, *, strict: bool) -> list[Violation]:
        return [v for v in self.violations if v.level.fails(strict=strict)]


class ExchangeJudge:
    """Judges one exchange: :meth:`start` with the status line, :meth:`feed` the decoded body in
    any chunking, :meth:`fail` on a transport failure, then :meth:`finish`."""

    def __init__(
        self,
        info: RequestInfo,
        *,
        profiles: frozenset[str],
        max_events: int,
        max_body_bytes: int,
    ) -> None:
        self.info = info
        self.profiles = judged_profiles(profiles, info.case_profiles)
        self.max_events = max_events
        self.max_body_bytes = max_body_bytes
        self.exchange = HttpExchange(info.method, info.shown, info.body, stream=False)
        self.sse: SSEStreamValidator | None = None
        self.cancelled = False  # the response was cancelled while its stream was read
        self.client_closed = False  # the client went away before the stream ended
        self._body = bytearray()
        self._violations: list[Violation] = []
        self._exercised: set[str] = set()
        self._finished: Verdict | None = None
        self._refused = ""  # why the answer is no verdict (suite/judgeable.py), if it is none

    @property
    def streaming(self) -> bool:
        return self.sse is not None

    @property
    def response_id(self) -> str | None:
        if self.sse is None:
            return None
        rid = self.sse.validator.response_id
        return rid if isinstance(rid, str) else None

    def start(self, status: int, content_type: str) -> None:
        ex = self.exchange
        ex.status = status
        ex.content_type = content_type
        if status == 200 and content_type.startswith("text/event-stream"):
            ex.stream = True
            self.sse = SSEStreamValidator(
                resume_after=self.info.resume_after,
                profiles=self.profiles,
                max_output_tokens=self.info.max_output_tokens,
                max_events=self.max_events,
                keep_events=True,
                coverage=True,
            )

    def feed(self, chunk: bytes) -> bool:
        """Body bytes (decoded: no content-encoding); False once a non-stream body is over the
        cap (the caller stops reading and the exchange fails)."""
        if self.sse is not None:
            self.sse.feed(chunk)
            return True
        self._body += chunk
        if len(self._body) > self.max_body_bytes:
            self.fail(f"body larger than {self.max_body_bytes} bytes")
            return False
        return True

    def exercise(self, *check_ids: str) -> None:
        """Rules the transport applied to the answer's bytes (its HTTP/1.1 framing, §4.8)."""
        self._exercised.update(check_ids)

    def framing(self, check_id: str, reason: str) -> None:
        """The answer's bytes broke a framing rule (§4.8): the upstream's violation, reported
        beside the exchange's failure (the proxy refused to relay them as if fine)."""
        check = REGISTRY[check_id]
        self._exercised.add(check.id)
        self._violations.append(check.violation(expected=check.requirement, actual=reason))

    def fail(self, error: str, *, timed_out: bool = False) -> None:
        """The exchange broke: no answer, a reset, a cap."""
        if self.exchange.error is None:
            self.exchange.error = error
            self.exchange.timed_out = timed_out

    def finish(self) -> Verdict:
        if self._finished is not None:
            return self._finished
        ex = self.exchange
        info = self.info
        verdict = Verdict(info, ex, self._violations, self._exercised)
        self._finished = verdict
        if info.kind == "other" or (info.optional and ex.status in _NOT_OFFERED):
            verdict.judged = False
            if self.sse is not None:
                self.sse.close(cancelled=True)
            return verdict
        if ex.timed_out:
            self._check(L.DEADLINE, False, expected="an answer in time", actual=ex.error)
        elif ex.error is not None and not (ex.stream and ex.status == 200):
            # a broken stream that had started is the stream validator's to report
            self._check(L.HTTP_OK, False, expected="an HTTP answer", actual=ex.error)
        else:
            self._exercised.add(L.DEADLINE.id)
        if info.stream_asked and ex.status == 200:
            self._check(
                L.STREAM_CONTENT_TYPE, ex.content_type.startswith("text/event-stream"),
                expected="text/event-stream", actual=ex.content_type or "(none)",
            )  # fmt: skip
        if self.sse is not None:
            self.sse.close(cancelled=self.cancelled or self.client_closed)
            self._exercised |= _declared(self.sse.exercised, self.profiles)
            self._violations += self.sse.violations
            if self._against_request():
                self._against(*judge_stream_against_request(info.body, self.sse.events))
            if self._violations:  # the evidence: the violating events (decoded now, lazily)
                ex.events = self.sse.events
            else:  # nothing to show: a clean stream's events are counted, not decoded again
                verdict.stream_events = self.sse.event_count
        elif ex.status is not None and (ex.error is None or ex.status >= 400):
            self._judge_body(bytes(self._body))
            if self._refused:
                # no outcome from a refusal: the exchange is counted, never judged
                verdict.judged, verdict.not_judged = False, self._refused
                self._violations.clear()
                self._exercised.clear()
        self._exercised |= {v.check_id for v in self._violations}
        self._body = bytearray()
        return verdict

    # ------------------------------------------------------------------ internals

    def _against_request(self) -> bool:
        """Whether the answer is judged against its request (a create that declared a custom
        tool's grammar or asked for reasoning state with ``include``: decoding a stream's
        events again is paid only then)."""
        return self.info.kind == "responses.create" and judged_against_request(self.info.body)

    def _against(self, violations: list[Violation], applied: set[str]) -> None:
        self._exercised |= applied
        self._violations += violations

    def _check(self, check: Any, ok: bool, *, expected: Any, actual: Any) -> None:
        self._exercised.add(check.id)
        if not ok:
            self._violations.append(check.violation(expected=expected, actual=actual))

    def _judge_body(self, data: bytes) -> None:
        ex = self.exchange
        status = ex.status or 0
        try:
            ex.body = parse_json(data) if data.strip() else None
        except ValueError:
            ex.text = data[:2000].decode("utf-8", "replace")
        body = ex.body
        if status == 429:
            return  # rate limiting is not a verdict (the suite waits it out)
        refused = refusal(status, ex.content_type, body, ex.text)
        if refused is None and self.info.kind == "responses.create":
            said = model_unknown(status, body)
            if said is not None:
                refused = f"the upstream does not serve the model: HTTP {status} ({said[:160]})"
        if refused is not None:
            self._refused = refused
            return
        if status >= 400:
            if isinstance(body, dict):
                applied: set[str] = set()  # what the rule evaluated (conformance.sections)
                self._violations += judge_body(body, "error", applied=applied)
                self._exercised |= applied
            else:  # error.shape's finding without a body to judge
                self._violations.append(
                    C.ERROR_SHAPE.violation(
                        expected="a JSON error body", actual=ex.text[:200] or "(empty)"
                    )
                )
            return
        if not 200 <= status < 300:
            return
        if body is None:
            self._check(
                L.HTTP_OK, False, expected="a JSON body", actual=ex.text[:200] or "(empty body)"
            )
            return
        kind = body_kind(body)
        if kind is None:
            return
        limit = self.info.max_output_tokens
        applied = set()  # what the section rules marked (conformance.sections)
        self._violations += judge_body(
            body, kind, profiles=self.profiles, max_output_tokens=limit, applied=applied
        )
        self._exercised |= _declared(applied, self.profiles)
        if kind == "response" and self._against_request():
            self._against(*judge_body_against_request(self.info.body, body))
