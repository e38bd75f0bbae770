"""§4.2 Background responses (docs/spec.md#s4-2): ``live.background.*``.

A ``background: true`` response is returned ``queued`` or ``in_progress`` and polling reaches a
terminal status without going back; cancelling a running one returns it and it ends
``cancelled``; cancelling a finished or cancelled one again returns its final object unchanged
with 200 (KB20); cancelling a foreground response is a 4xx; a background stream resumes with
``starting_after`` (§2.12: the same events after N). Each check's rule is the case below that
evaluates it (:mod:`.cases`), run against a target that declares ``stateful``; its failing
example is a misbehaving server (tests/suite/broken_servers.py), its near miss the embedded
mock.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from .case_support import LONG_PROMPT, SHORT_PROMPT, TERMINAL, differing_fields, poll_until_terminal
from .cases import case

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "BACKGROUND_CANCEL",
    "BACKGROUND_LIFECYCLE",
    "CANCEL_FOREGROUND",
    "CANCEL_IDEMPOTENT",
    "RESUME",
    "declare_examples",
]

STATEFUL = ("stateful",)

BACKGROUND_LIFECYCLE = register(
    "live.background.lifecycle",
    Level.MUST,
    "§4.2 [BG]",
    "a `background: true` response is returned `queued` or `in_progress`, and polling reaches a "
    "terminal status without going back",
    profile="stateful",
)
BACKGROUND_CANCEL = register(
    "live.background.cancel",
    Level.MUST,
    "§2.13, §4.2 [BG]",
    "cancelling a running background response returns it, and it ends `cancelled`",
    profile="stateful",
)
CANCEL_IDEMPOTENT = register(
    "live.background.cancel_idempotent",
    Level.MUST,
    "§4.2 [BG]; KB20",
    "cancelling a finished (or already cancelled) background response returns its final object, "
    "unchanged, with 200",
    profile="stateful",
)
CANCEL_FOREGROUND = register(
    "live.background.cancel_foreground_4xx",
    Level.SHOULD,
    "§4.2 [BG]",
    "cancelling a response not created with `background: true` is a 4xx error",
    profile="stateful",
)
RESUME = register(
    "live.background.resume",
    Level.MUST,
    "§2.12, §4.2",
    "GET …?stream=true&starting_after=N replays the stream's events after N, the same events",
    profile="stateful",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        CANCEL_IDEMPOTENT.id,
        "kb20_cancel_not_idempotent",
        "a server that answers 400 to cancelling a finished background response (KB20)",
    )
    live(
        CANCEL_FOREGROUND.id,
        "cancel_foreground_200",
        "a server that answers 200 to cancelling a foreground response",
    )
    live(
        BACKGROUND_LIFECYCLE.id,
        "background_returned_completed",
        "a server that returns a `background: true` response already `completed`",
    )
    live(
        RESUME.id,
        "resume_skips_an_event",
        "a server whose resumed stream leaves out the first event it should replay",
    )
    live(
        BACKGROUND_CANCEL.id,
        "cancel_ends_failed",
        "a server whose cancel aborts a running background response as `failed`, not `cancelled`",
    )


_RANK = {"queued": 0, "in_progress": 1}


def _backwards(statuses: list[str]) -> bool:
    ranks = [_RANK.get(s, 2) for s in statuses]
    return any(b < a for a, b in itertools.pairwise(ranks))


def _start(probe: Probe, prompt: str, **extra: Any) -> dict[str, Any]:
    created = probe.create(probe.body(input=prompt, background=True, **extra))
    # `background` need not be echoed: [OAPI]'s Response does not require it, and a real OpenAI
    # body lacks it (tests/data/openai-recorded/bodies/openai-web-search-tool.1.json). Echoed, it
    # must be true; the `openresponses` profile requires the field through its schema.
    echoed = created.get("background", True)
    probe.check(
        BACKGROUND_LIFECYCLE,
        created.get("status") in ("queued", "in_progress") and echoed is True,
        probe.last, expected="status queued or in_progress, background true (or not echoed)",
        actual=f"status {created.get('status')!r}, background {created.get('background', '(absent)')!r}",
    )  # fmt: skip
    return created


def _settle(probe: Probe, rid: str, check: Check, before: list[str]) -> dict[str, Any]:
    statuses, final = poll_until_terminal(probe, rid)
    probe.require(
        check, final is not None and final.get("status") in TERMINAL, probe.last,
        expected=f"a terminal status within {probe.target.timeout:g} s",
        actual=f"statuses seen {statuses}",
    )  # fmt: skip
    probe.check(
        BACKGROUND_LIFECYCLE, not _backwards(before + statuses), probe.last,
        expected="queued → in_progress → terminal, never back",
        actual=" → ".join(before + statuses),
    )  # fmt: skip
    assert final is not None
    return final


@case("background", BACKGROUND_LIFECYCLE, profiles=STATEFUL)
def test_background_poll(probe: Probe) -> None:
    created = _start(probe, SHORT_PROMPT)
    final = _settle(probe, str(created.get("id")), BACKGROUND_LIFECYCLE, [created["status"]])
    probe.check(
        BACKGROUND_LIFECYCLE, final.get("status") == "completed", probe.last,
        expected="status completed", actual=f"status {final.get('status')!r}",
    )  # fmt: skip


@case(
    "background",
    BACKGROUND_CANCEL,
    CANCEL_IDEMPOTENT,
    BACKGROUND_LIFECYCLE,
    profiles=STATEFUL,
    attempts=3,
)
def test_background_cancel_running(probe: Probe) -> None:
    created = _start(probe, LONG_PROMPT, max_output_tokens=2048)
    rid = str(created.get("id"))
    ex = probe.send("POST", f"/responses/{rid}/cancel")
    probe.require(
        BACKGROUND_CANCEL, ex.status == 200 and ex.json.get("id") == rid, ex,
        expected="HTTP 200 with the response", actual=f"HTTP {ex.status} {ex.body or ex.text!r}",
    )  # fmt: skip
    final = _settle(probe, rid, BACKGROUND_CANCEL, [created["status"], str(ex.json["status"])])
    probe.nondeterministic(
        final.get("status") != "completed", "the response finished before the cancel arrived",
        exhausted="skip",
    )  # fmt: skip
    probe.check(
        BACKGROUND_CANCEL, final.get("status") == "cancelled", probe.last,
        expected="status cancelled", actual=f"status {final.get('status')!r}",
    )  # fmt: skip
    again = probe.send("POST", f"/responses/{rid}/cancel")
    probe.check(
        CANCEL_IDEMPOTENT, again.status == 200 and again.json.get("status") == final["status"],
        again, expected=f"HTTP 200, status {final['status']!r}",
        actual=f"HTTP {again.status}, status {again.json.get('status')!r}",
    )  # fmt: skip


@case("background", CANCEL_IDEMPOTENT, BACKGROUND_LIFECYCLE, profiles=STATEFUL)
def test_background_cancel_finished(probe: Probe) -> None:
    created = _start(probe, SHORT_PROMPT)
    rid = str(created.get("id"))
    final = _settle(probe, rid, BACKGROUND_LIFECYCLE, [created["status"]])
    for attempt in ("first", "second"):
        ex = probe.send("POST", f"/responses/{rid}/cancel")
        diff = differing_fields(final, ex.json) if ex.status == 200 else ["(no body)"]
        probe.check(
            CANCEL_IDEMPOTENT, ex.status == 200 and not diff, ex,
            expected=f"{attempt} cancel of a {final.get('status')} response: HTTP 200, the "
            "final object unchanged",
            actual=f"HTTP {ex.status}" + (f", fields that differ: {diff}" if diff else ""),
        )  # fmt: skip


@case("background", CANCEL_FOREGROUND, profiles=STATEFUL)
def test_cancel_foreground(probe: Probe) -> None:
    created = probe.create(probe.body(input=SHORT_PROMPT))
    ex = probe.send("POST", f"/responses/{created.get('id')}/cancel")
    status = ex.status or 0
    probe.check(
        CANCEL_FOREGROUND, 400 <= status < 500, ex,
        expected="a 4xx error (only background responses can be cancelled)",
        actual=f"HTTP {ex.status}",
    )  # fmt: skip


def _signature(events: list[Any]) -> list[tuple[Any, Any]]:
    return [(e.get("type"), e.get("sequence_number")) for e in events if isinstance(e, dict)]


@case("background", RESUME, BACKGROUND_LIFECYCLE, profiles=STATEFUL)
def test_background_stream_resume(probe: Probe) -> None:
    body = probe.body(input=SHORT_PROMPT, background=True, stream=True)
    ex = probe.stream("POST", "/responses", json_body=body)
    probe.require_ok(ex, RESUME)
    events = [e for e in ex.events if isinstance(e, dict)]
    created = events[0].get("response") if events else None
    rid = created.get("id") if isinstance(created, dict) else None
    probe.require(
        RESUME, isinstance(rid, str) and len(events) >= 4, ex,
        expected="a background stream opened by response.created, with events to resume",
        actual=f"{len(events)} events, response id {rid!r}",
    )  # fmt: skip
    middle = events[len(events) // 2].get("sequence_number")
    if not isinstance(middle, int):
        probe.require(RESUME, False, ex, expected="integer sequence numbers", actual=repr(middle))
        return
    after = middle
    resumed = probe.stream(
        "GET", f"/responses/{rid}", params={"stream": "true", "starting_after": str(after)},
        resume_after=after,
    )  # fmt: skip
    probe.require_ok(resumed, RESUME)
    want = [s for s in _signature(events) if type(s[1]) is int and s[1] > after]
    got = _signature(resumed.events)
    probe.check(
        RESUME, got == want, resumed,
        expected=f"the {len(want)} events after #{after}: {want[:3]}…",
        actual=f"{len(got)} events: {got[:3]}…",
    )  # fmt: skip
    if ex.terminal is not None and resumed.terminal is not None:
        diff = differing_fields(ex.terminal, resumed.terminal)
        probe.check(
            RESUME, not diff, resumed, expected="the same terminal response",
            actual=f"fields that differ: {diff}",
        )  # fmt: skip
