"""The case's handle on a target: send requests, have the judge look at every answer, record verdicts.

Every answer a case sees goes through the judge — a stream through
:class:`~conformance.sse.framing.SSEStreamValidator`, a Response body through
:func:`~conformance.bodies.objects.validate_response_body`, an error body through
:func:`~conformance.bodies.objects.validate_error_body` — and each violation is recorded under its check
ID with the request and the violating events as evidence. What only a live run can see (state,
cross-request rules) the case checks itself with :meth:`Probe.check` against the ``live.*``
checks of :mod:`conformance.catalog.live`.

Control flow for cases: :meth:`Probe.require` ends the case when a step it needs failed
(:class:`CaseAborted`); :meth:`Probe.nondeterministic` retries the case when a real model missed
what it was asked by chance (:class:`Retry`, at most the case's ``attempts``), then fails the check
or skips (:class:`Skipped`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from .. import catalog as C
from ..bodies.kinds import body_kind, judge_body
from ..catalog import live as L
from ..catalog.registry import REGISTRY, Check, Violation, with_family
from ..errors import CaseControl
from ..sections.against_request import (
    judge_body_against_request,
    judge_stream_against_request,
    judged_against_request,
)
from ..sse.framing import SSEStreamValidator
from .http import HttpExchange, TargetClient, TargetHung
from .judgeable import refusal
from .results import CaseResult, Finding
from .targets import Target

if TYPE_CHECKING:
    from ..clients.captured_flows import Flow
    from .ws import WsSession

__all__ = ["CaseAborted", "NotJudged", "Probe", "Retry", "Skipped", "evidence_for"]

_TRIM = 1500
NOT_OFFERED = (404, 405)  # how a server says it has no such route


class CaseAborted(CaseControl):
    """The case cannot go on; what stopped it is already recorded."""


class Retry(CaseControl):
    """A nondeterministic step missed; run the case again (the reason is reported)."""


class Skipped(CaseControl):
    """The case could not exercise its checks on this target (the reason is reported)."""


class NotJudged(CaseControl):
    """An answer was no verdict — authentication refused, an HTML page (:mod:`.judgeable`):
    nothing is derived from it, and the run says it could not judge the case (exit 2)."""


def _declared(ids: set[str], profiles: frozenset[str]) -> set[str]:
    """The checks of ``ids`` that apply under ``profiles`` (core, or a declared profile)."""
    out = set()
    for check_id in with_family(ids):
        check = REGISTRY.get(check_id)
        if check is not None and (check.profile == "core" or check.profile in profiles):
            out.add(check_id)
    return out


def _outside_open_responses(profile: str) -> bool:
    # A client profile replays what the client sends to OpenAI (compaction triggers, namespace
    # tools): OpenAI's features, judged by OpenAI's events (docs/spec.md §9).
    return profile == "custom-tools" or profile.startswith(("hosted:", "client:"))


def judged_profiles(declared: Iterable[str], case: Iterable[str]) -> frozenset[str]:
    """The profiles a case's traffic is judged under: the target's, less `openresponses` in a case
    that provokes a feature Open Responses does not define (custom tools, hosted tools, a real
    client's requests: their events are OpenAI's alone, docs/spec.md §7.10, §9). A target declaring both could never pass
    such a case, so its streams are judged by every other declared profile's checks only."""
    profiles = frozenset(declared)
    if "openresponses" in profiles and any(_outside_open_responses(p) for p in case):
        return profiles - {"openresponses"}
    return profiles


class Probe:
    def __init__(
        self,
        target: Target,
        client: TargetClient,
        record: CaseResult,
        *,
        replay: Callable[[Probe, Flow], None] | None = None,
        websocket: Callable[[Probe], AbstractContextManager[WsSession]] | None = None,
    ) -> None:
        self.target = target
        self.client = client
        self.record = record
        self._replay = replay
        self._websocket = websocket
        self.profiles = judged_profiles(target.profiles, record.profiles)
        self.attempt = 1
        self.max_attempts = 1
        self.run = 1  # the run of a chain case repeated by --repeat
        self.runs = 1  # how many runs it gets
        self.last: HttpExchange | None = None  # the latest exchange, for evidence

    @property
    def retrying(self) -> bool:
        """The case may run again: more than one attempt, or runs repeated by --repeat."""
        return self.max_attempts > 1 or self.runs > 1

    @property
    def model(self) -> str:
        return self.target.model

    def body(self, **fields: Any) -> dict[str, Any]:
        """A create request for the target's model."""
        return {"model": self.model, **fields}

    def websocket(self) -> AbstractContextManager[WsSession]:
        """A judged WebSocket session to the target, for a ``with`` block: the upgrade is
        ``live.ws.upgrade``, every frame is judged (:func:`conformance.suite.ws.judged_session`).
        The plugin hands the probe that client: it imports this module, and the cases that use
        it are declared in section modules, which may not import it."""
        if self._websocket is None:
            raise RuntimeError("this probe was given no WebSocket client (SuitePlugin gives one)")
        return self._websocket(self)

    # ------------------------------------------------------------------ requests

    def send(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        content: bytes | None = None,
        params: Mapping[str, str] | None = None,
        max_output_tokens: int | None = None,
        optional: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> HttpExchange:
        """A non-stream request; the judge looks at the answer, whatever its status.

        ``optional``: an endpoint a target need not offer (``POST /v1/responses/input_tokens``).
        A 404 or 405 from it means "not offered": that answer is the web framework's, not the
        Responses layer's, and is not judged (found by the vendor matrix: SGLang's and vLLM's
        FastAPI answer `{"detail": "Method Not Allowed"}` there)."""
        ex = self._guard(
            lambda: self.client.call(
                method,
                path,
                json_body=json_body,
                content=content,
                params=params,
                **_extra(headers),
            )
        )
        if optional and ex.status in NOT_OFFERED:
            return ex
        if max_output_tokens is None and isinstance(json_body, dict):
            limit = json_body.get("max_output_tokens")
            max_output_tokens = limit if type(limit) is int else None
        self._judge_body(ex, max_output_tokens)
        if method == "POST" and path == "/responses" and ex.status == 200:
            self._against_request(json_body, ex)
        return ex

    def stream(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
        resume_after: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> HttpExchange:
        """A request answered with SSE, judged event by event as it arrives."""
        limit = json_body.get("max_output_tokens") if isinstance(json_body, dict) else None
        validator = SSEStreamValidator(
            resume_after=resume_after,
            profiles=self.profiles,
            max_output_tokens=limit if type(limit) is int else None,
            max_events=self.target.max_events,
            keep_events=True,
            coverage=True,
        )
        ex = self._guard(
            lambda: self.client.stream(
                method,
                path,
                validator=validator,
                json_body=json_body,
                params=params,
                **_extra(headers),
            )
        )
        if ex.status == 200 and ex.content_type.startswith("text/event-stream"):
            # Only what the stream gave the rules to judge counts as exercised.
            self.record.exercised |= _declared(validator.exercised, self.profiles)
            for v in validator.violations:
                self._find(v, ex)
            if method == "POST" and path == "/responses":
                self._against_request(json_body, ex)
        else:
            self._judge_body(ex, None)
        return ex

    def create(self, body: dict[str, Any], *, check: Check = L.HTTP_OK) -> dict[str, Any]:
        """POST /responses, not streamed; a 200 with a Response is required (else ``check`` fails)."""
        ex = self.send("POST", "/responses", json_body=body)
        self.require_ok(ex, check)
        self.require(
            check, ex.json.get("object") == "response", ex,
            expected="a Response object (`object: \"response\"`)", actual=_head(ex.body or ex.text),
        )  # fmt: skip
        return ex.json

    def create_stream(
        self, body: dict[str, Any], *, check: Check = L.HTTP_OK
    ) -> tuple[dict[str, Any], HttpExchange]:
        """POST /responses with ``stream: true``; returns the terminal response and the exchange."""
        ex = self.stream("POST", "/responses", json_body={**body, "stream": True})
        self.require_ok(ex, check)
        self.check(
            L.STREAM_CONTENT_TYPE, ex.content_type.startswith("text/event-stream"), ex,
            expected="text/event-stream", actual=ex.content_type or "(none)",
        )  # fmt: skip
        terminal = ex.terminal
        if terminal is None:
            # The judge has reported it (stream.lifecycle.terminal_present); nothing to compare.
            raise CaseAborted("the stream has no terminal event")
        return terminal, ex

    # ------------------------------------------------------------------ verdicts

    def check(
        self,
        check: Check,
        ok: bool,
        exchange: HttpExchange | None = None,
        *,
        expected: Any = "",
        actual: Any = "",
        message: str = "",
    ) -> bool:
        """Evaluate ``check``: record it as exercised, and as violated when not ``ok``."""
        self.record.exercised.add(check.id)
        if not ok:
            self._find(check.violation(expected=expected, actual=actual, message=message), exchange)
        return ok

    def require(
        self,
        check: Check,
        ok: bool,
        exchange: HttpExchange | None = None,
        *,
        expected: Any = "",
        actual: Any = "",
        message: str = "",
    ) -> None:
        """Like :meth:`check`, but the case ends when it fails."""
        if not self.check(check, ok, exchange, expected=expected, actual=actual, message=message):
            raise CaseAborted(check.id)

    def require_ok(self, ex: HttpExchange, check: Check = L.HTTP_OK) -> None:
        """The request must have been answered 200 (transport failures are already recorded)."""
        if ex.error is not None:
            raise CaseAborted(ex.error)
        if check is L.HTTP_OK and ex.status is not None and ex.status >= 500 and self.retrying:
            raise CaseAborted(f"HTTP {ex.status}")  # already recorded by _guard
        self.require(
            check, ex.status == 200, ex, expected="HTTP 200",
            actual=f"HTTP {ex.status}: {_head(ex.body or ex.text)}",
        )  # fmt: skip

    def nondeterministic(
        self,
        ok: bool,
        reason: str,
        *,
        check: Check | None = None,
        exchange: HttpExchange | None = None,
        expected: Any = "",
        actual: Any = "",
        exhausted: Literal["fail", "skip"] = "fail",
    ) -> None:
        """A step a real model may miss by chance: retry the case; once attempts run out, fail
        ``check`` (``exhausted="fail"``) or skip the case. When ``ok``, ``check`` is recorded as
        exercised (a case whose only evaluation of a check is this one still reports it)."""
        if ok:
            if check is not None:
                self.check(check, True, exchange)
            return
        if self.attempt < self.max_attempts:
            raise Retry(reason)
        if exhausted == "skip" or check is None:
            self.skip(f"{reason} (in {self.attempt} attempt{'s' * (self.attempt > 1)})")
        self.require(
            check, False, exchange, expected=expected, actual=actual,
            message=f"{reason}; {self.attempt} attempt(s)",
        )  # fmt: skip

    def skip(self, reason: str) -> NoReturn:
        raise Skipped(reason)

    def replay(self, flow: Flow) -> None:
        """Send a client's captured flow to the target as the client sent it, every answer
        judged (the client profiles, docs/spec.md §9). The replay
        (:class:`~conformance.suite.replay.FlowReplay`) imports this module, so the plugin that
        makes the probe hands it in."""
        if self._replay is None:
            raise RuntimeError("this probe was made without a flow replay")
        self._replay(self, flow)

    # ------------------------------------------------------------------ internals

    def _guard(self, send: Any) -> HttpExchange:
        try:
            ex: HttpExchange = send()
        except TargetHung as exc:
            self.check(L.DEADLINE, False, expected="an answer", actual=str(exc))
            raise CaseAborted(str(exc)) from None
        self.last = ex
        refused = refusal(ex.status, ex.content_type, ex.body, ex.text)
        if refused is not None:
            raise NotJudged(f"{refused} on {ex.method} {ex.path}")
        if ex.status is not None and ex.status >= 500 and self.retrying:
            # A server error is never the model's doing: in a case that may run again (a retry
            # for the model's content, a --repeat run) it fails in whichever attempt it comes —
            # a later attempt that works does not excuse it (docs/cli.md, retries). A case that
            # runs once judges its answers' statuses with its own checks.
            self.check(
                L.HTTP_OK, False, ex, expected="no server error",
                actual=f"HTTP {ex.status}: {_head(ex.body or ex.text)}",
            )  # fmt: skip
        if ex.timed_out:
            self.check(
                L.DEADLINE, False, ex, expected=f"≤ {self.client.timeout:g} s", actual=ex.error
            )
        elif ex.error is not None and not (ex.stream and ex.status == 200):
            # A broken stream that had started is the judge's to report (terminal_present).
            self.check(L.HTTP_OK, False, ex, expected="an HTTP answer", actual=ex.error)
        else:
            self.record.exercised.add(L.DEADLINE.id)
        return ex

    def _judge_body(self, ex: HttpExchange, max_output_tokens: int | None) -> None:
        if ex.status is None:
            return
        body = ex.body
        if ex.status >= 400:
            if isinstance(body, dict):
                applied: set[str] = set()  # what the rule evaluated (conformance.sections)
                violations = judge_body(body, "error", applied=applied)
                self.record.exercised |= applied
            else:  # error.shape's finding without a body to judge
                violations = [C.ERROR_SHAPE.violation(
                    expected="a JSON error body", actual=_head(ex.text) or "(empty)",
                )]  # fmt: skip
            for v in violations:
                self._find(v, ex)
        elif (kind := body_kind(body)) is not None:
            # Every body's rules (a Response's, compaction results', conversations', deleted
            # conversations', item lists') are section modules', which mark what they evaluated.
            applied = set()  # what the section rules marked (conformance.sections)
            for v in judge_body(
                body,
                kind,
                profiles=self.profiles,
                max_output_tokens=max_output_tokens,
                applied=applied,
            ):
                self._find(v, ex)
            self.record.exercised |= _declared(applied, self.profiles)

    def _against_request(self, request: Any, ex: HttpExchange) -> None:
        """The answer to a create judged against the request itself: a custom tool's input
        against the grammar the request declared (``response.custom_tool_call.grammar``), the
        reasoning state its ``include`` asked for (``response.reasoning.encrypted_content_included``)."""
        if not judged_against_request(request):
            return
        if ex.stream:
            violations, applied = judge_stream_against_request(request, ex.events)
        else:
            violations, applied = judge_body_against_request(request, ex.body)
        self.record.exercised |= applied
        for v in violations:
            self._find(v, ex)

    def _find(self, violation: Violation, exchange: HttpExchange | None) -> None:
        self.record.exercised.add(violation.check_id)
        self.record.findings.append(
            Finding(violation, self.record.id, self.attempt, evidence_for(exchange, violation))
        )


def _extra(headers: Mapping[str, str] | None) -> dict[str, Any]:
    """Extra request headers as keyword arguments, none when there are none (a test's stand-in
    client need not take them)."""
    return {"headers": headers} if headers else {}


def evidence_for(ex: HttpExchange | None, violation: Violation) -> dict[str, Any]:
    """The request, what came back, and the violating events (trimmed) — never headers."""
    if ex is None:
        return {}
    response: dict[str, Any] = {"status": ex.status, "content_type": ex.content_type}
    if ex.error:
        response["error"] = ex.error
    out: dict[str, Any] = {
        "request": {"method": ex.method, "path": ex.path, "body": _trim(ex.request_body)},
        "response": response,
    }
    if not ex.stream or ex.status != 200:
        response["body"] = _trim(ex.body) if ex.body is not None else _trim(ex.text)
        return out
    response["events"] = len(ex.events)
    index = violation.event_index
    if index is not None and 0 <= index < len(ex.events):
        picked = [i for i in (index - 1, index) if i >= 0]
    else:  # an end-of-stream violation: the last events show how the stream ended
        picked = list(range(max(0, len(ex.events) - 2), len(ex.events)))
    out["events"] = [{"index": i, "event": _trim(ex.events[i])} for i in picked]
    return out


def _trim(value: Any, limit: int = _TRIM) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return text


def _head(value: Any, limit: int = 200) -> str:
    return _trim(value, limit)
