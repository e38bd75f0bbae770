"""The load shape: one Locust ``LoadTestShape`` that runs whichever ``--shape`` was asked for.

Locust uses the first shape class it finds in a locustfile, so a single class dispatches:

- ``fixed``: ``-u`` users (spawned at ``-r``/s, all at once by default) until ``-t``;
- ``ramp``: from ``--ramp-from`` to ``-u`` users linearly over ``--ramp-time``, then hold until ``-t``;
- ``open-loop`` / ``sweep``: one :class:`~benchmarks.responses_bench.users.ArrivalUser` per load process; the run
  ends when every process has finished its schedule and its requests, or ``--drain-timeout`` after
  the schedule. A sweep judges each step against the SLO once the step's requests are done (or the
  drain timeout passed — unfinished ones count as errors) and stops at the first breach.
"""

from __future__ import annotations

import time

import gevent
from locust import LoadTestShape
from locust.runners import MasterRunner

from . import report
from .aggregate import Stats
from .runtime import BenchRuntime, open_loop_finished, runtime, started_step_counts
from .users import ArrivalUser, ResponsesUser

__all__ = ["BenchShape"]

# Locust workers report every 3 s; the master waits this long past an event for data about it.
_REPORT_SLACK = 3.5
_SPAWN_RATE = 100.0


class BenchShape(LoadTestShape):
    use_common_options = True

    def tick(self) -> tuple[int, float, list[type]] | None:
        runner = self.runner
        assert runner is not None
        environment = runner.environment
        rt = runtime(environment)
        if rt.config is None:
            rt.configure()  # the first tick comes before test_start
        config = rt.config
        if config is None:
            return None
        options = environment.parsed_options
        elapsed: float = self.get_run_time()  # type: ignore[no-untyped-call]  # unannotated
        run_time = float(getattr(options, "run_time", 0) or 0)
        if config.shape in ("fixed", "ramp"):
            if (run_time and elapsed >= run_time) or _max_requests_done(rt, runner.user_count):
                if isinstance(runner, MasterRunner):
                    _stop_and_collect(runner, rt)
                return None
            users = int(getattr(options, "num_users", 0) or 1)
            if config.shape == "fixed":
                rate = float(getattr(options, "spawn_rate", 0) or users)
                return users, rate, [ResponsesUser]
            fraction = min(1.0, elapsed / config.ramp_time) if config.ramp_time > 0 else 1.0
            current = round(config.ramp_from + (users - config.ramp_from) * fraction)
            return max(current, 1), _SPAWN_RATE, [ResponsesUser]
        plan = config.plan
        assert plan is not None
        slots = max(1, runner.worker_count) if isinstance(runner, MasterRunner) else 1
        epoch = rt.schedule_epoch
        if epoch is None:
            return slots, _SPAWN_RATE, [ArrivalUser]
        now = time.time()
        if config.shape == "sweep" and _sweep_breached(rt, now, epoch):
            return None
        schedule_end = epoch + plan.duration
        if now >= schedule_end and open_loop_finished(rt):
            if config.shape == "sweep":
                # Every process finished (its last report carried its last requests): the data
                # is complete, however soon after a step's end its requests finished.
                _sweep_breached(rt, now + config.drain_timeout + _REPORT_SLACK, epoch, final=True)
            return None
        if now >= schedule_end + config.drain_timeout + _REPORT_SLACK:
            return None
        return slots, _SPAWN_RATE, [ArrivalUser]


def _max_requests_done(rt: BenchRuntime, users: int) -> bool:
    """``--max-requests N``: N measured requests finished (merged from every process), or every
    user has stopped after sending this process's share (a request that never recorded)."""
    config = rt.config
    assert config is not None
    if config.max_requests is None:
        return False
    if rt.aggregate.all.requests >= config.max_requests:
        return True
    return not rt.is_master and rt.quota_spent() and users == 0


def _stop_and_collect(runner: MasterRunner, rt: BenchRuntime) -> None:
    """Stop the workers gracefully, then wait for the reports that carry their last requests.

    Returning ``None`` alone would make a headless master *quit* at once: workers then drop the
    requests in flight (``--stop-timeout`` is honoured only by a stop) and their last report may
    come after the master has gone.
    """
    runner.stop()  # waits until every worker has stopped its users (they finish their request)
    stopped = time.time()
    deadline = stopped + _REPORT_SLACK + 1.0
    while time.time() < deadline and rt.reported_at() < stopped:
        gevent.sleep(0.2)


def _sweep_breached(rt: BenchRuntime, now: float, epoch: float, final: bool = False) -> bool:
    """Judge every finished step in order; True once one breached its SLO."""
    config = rt.config
    assert config is not None and config.plan is not None
    plan = config.plan
    started = started_step_counts(rt)
    reported = float("inf") if final else rt.reported_at()
    for number, step in enumerate(plan.steps):
        if number in rt.sweep_verdicts:
            if not rt.sweep_verdicts[number]["ok"]:
                return True
            continue
        end = epoch + plan.step_start(number) + step.duration
        if now < end or reported < end + 0.1:
            return False  # steps are judged in order, on data sent after they ended
        stats = rt.aggregate.steps.get(number) or Stats()
        unfinished = max(started.get(number, 0) - stats.requests, 0)
        if unfinished and now < end + config.drain_timeout:
            return False
        verdict = report.step_verdict(config, number, step, stats, unfinished)
        rt.sweep_verdicts[number] = verdict
        if not verdict["ok"]:
            rt.sweep_stopped_at = number
            return True
    return False
