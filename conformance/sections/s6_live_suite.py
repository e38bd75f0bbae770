"""§6 The live suite (docs/spec.md#s6): ``live.transport.deadline``, ``live.case.completed``.

§6.1 Deadlines: every request is answered, and every stream ends, within the suite's per-request
timeout. §6.2 A case runs to its end: a case whose answers it cannot interpret fails instead of
ending silently. They are checks of the run itself, so no case of their own evaluates them:

- ``live.transport.deadline``'s rule is the suite's HTTP client
  (:class:`conformance.suite.http.TargetClient`: one deadline per request, the stream read
  against it), judged for every exchange a case makes by
  :meth:`conformance.suite.probe.Probe._guard` (a timed-out answer fails it, any other marks it
  exercised), for every WebSocket session by :func:`conformance.suite.ws.judged_session`, and for
  every exchange the proxy relays by :mod:`conformance.proxy.judge`;
- ``live.case.completed``'s is the suite's pytest plugin
  (:meth:`conformance.suite.plugin.SuitePlugin._run_once`): a case that ends, with a verdict or
  by the probe's own control flow, exercises it; one that raises anything else fails it, with the
  exception as the finding.

Those modules take the checks from :mod:`conformance.catalog.live`, which re-exports them from
here. Their failing examples are misbehaving servers (tests/suite/broken_servers.py), their near
miss the embedded mock.
"""

from __future__ import annotations

from ..catalog.registry import Level, register

__all__ = ["CASE_COMPLETED", "DEADLINE", "declare_examples"]

DEADLINE = register(
    "live.transport.deadline",
    Level.MUST,
    "§6.1, §2.2",
    "every request is answered, and every stream ends, within the suite's per-request timeout",
)
CASE_COMPLETED = register(
    "live.case.completed",
    Level.MUST,
    "§6.2",
    "the target's answers let a case run to its end (an answer the suite cannot interpret fails here)",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        DEADLINE.id,
        "slow_creates",
        "a server that answers create requests after 3 s (the suite's timeout: 1 s)",
    )
    live(
        CASE_COMPLETED.id,
        "cancel_answers_an_ack",
        "a server whose cancel answers an acknowledgement (`{id, cancelled: true}`) instead of the "
        "Response, so the case cannot read the status it goes on with",
    )
