"""The Locust users: a closed-loop user and the open-loop arrival scheduler.

:class:`ResponsesUser` is the classic closed loop: send, wait for the whole answer, think, repeat —
for the fixed and ramp shapes. :class:`ArrivalUser` is not a user but a clock: one per load process,
it starts each request of its slice of the arrival schedule (:mod:`benchmarks.responses_bench.arrivals`) at its
time in a greenlet of its own, whether or not earlier requests have finished. That is the open loop
Locust lacks (its ``wait_time`` runs after a response, so a slow server slows the load).
"""

from __future__ import annotations

import time
from typing import Any

import gevent
from gevent.pool import Pool
from locust import task
from locust.contrib.fasthttp import FastHttpUser
from locust.env import Environment
from locust.exception import StopUser

from .exchange import send
from .runtime import BenchRuntime, runtime
from .workload import Session
from .ws_exchange import WsConnection

__all__ = ["ArrivalUser", "ResponsesUser"]


class _BenchUser(FastHttpUser):
    abstract = True

    def __init__(self, environment: Environment) -> None:
        self.rt: BenchRuntime = runtime(environment)
        config = self.rt.config
        if config is None:
            raise StopUser()
        # FastHttpUser reads these in __init__ (per-instance overrides are honoured).
        self.network_timeout = config.request_timeout
        self.connection_timeout = config.request_timeout
        self.host = environment.host or config.responses_url
        self.prepare(config.max_in_flight)
        super().__init__(environment)

    def prepare(self, max_in_flight: int) -> None:
        """Hook for settings read by ``FastHttpUser.__init__``."""

    def ws_connection(self) -> WsConnection:
        config = self.rt.config
        assert config is not None
        return WsConnection(
            config.responses_url,
            config.headers,
            timeout=config.request_timeout,
            validate=config.validate,
            strict=config.strict,
        )

    def run_ws_turns(self, conn: WsConnection, sessions: list[Session]) -> list[Any]:
        """One turn of each session at once over ``conn`` (a lane each when there are several)."""
        plans = [s.next() for s in sessions]
        recs = conn.turn(plans, lanes=len(sessions) > 1)
        for session, rec in zip(sessions, recs, strict=True):
            session.answered(rec.response_id, rec.ok)
        return recs

    def run_session_turn(
        self, session: Session, conn: WsConnection | None = None
    ) -> tuple[Any, bool]:
        config = self.rt.config
        assert config is not None
        if conn is not None:
            (rec,) = self.run_ws_turns(conn, [session])
            return rec, rec.ok
        plan = session.next()
        rec = send(
            self.client,
            config.responses_url,
            plan,
            config.headers,
            validate=config.validate,
            strict=config.strict,
            max_body_bytes=config.max_body_bytes,
        )
        session.answered(rec.response_id, rec.ok)
        return rec, rec.ok


class ResponsesUser(_BenchUser):
    """Closed loop: one request at a time, ``--think-time`` between them; sessions chain turns."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.session: Session | None = None
        self.sessions: list[Session] = []
        self.conn: WsConnection | None = None

    def wait_time(self) -> float:
        config = self.rt.config
        return config.think_time if config is not None else 0.0

    @task
    def respond(self) -> None:
        workload = self.rt.workload
        assert workload is not None
        config = self.rt.config
        assert config is not None
        if config.transport == "websocket" and config.lanes > 1:
            # One connection, `--lanes` sessions side by side, a turn of each at once.
            if not self.sessions or all(s.done for s in self.sessions):
                self.sessions = [workload.session(*self.rt.share()) for _ in range(config.lanes)]
            live = [s for s in self.sessions if not s.done]
            claimed = [(s, self.rt.claim()) for s in live]
            warms = [warm for _, (allowed, warm) in claimed if allowed]
            live = [s for s, (allowed, _) in claimed if allowed]
            if not live:
                raise StopUser()  # --max-requests: this process has sent its share
            if self.conn is None:
                self.conn = self.ws_connection()
            for rec, warm in zip(self.run_ws_turns(self.conn, live), warms, strict=True):
                self.rt.record(rec, warmup=warm)
            return
        allowed, warm = self.rt.claim()
        if not allowed:
            raise StopUser()  # --max-requests: this process has sent its share
        if self.session is None or self.session.done:
            self.session = workload.session(*self.rt.share())
        if config.transport == "websocket" and self.conn is None:
            self.conn = self.ws_connection()
        rec, _ = self.run_session_turn(self.session, self.conn)
        self.rt.record(rec, warmup=warm)

    def on_stop(self) -> None:
        if self.conn is not None:
            self.conn.close()


class ArrivalUser(_BenchUser):
    """Open loop: starts its share of the schedule on time; one per process."""

    def prepare(self, max_in_flight: int) -> None:
        # One connection per request in flight: the pool must not make arrivals queue.
        self.concurrency = max_in_flight

    @task
    def schedule(self) -> None:
        rt = self.rt
        config = rt.config
        assert config is not None and config.plan is not None
        if rt.scheduler_claimed:
            # The dispatcher gave this process a second scheduler; one is the whole share.
            raise StopUser()
        rt.scheduler_claimed = True
        share, shares = rt.share()
        plan = config.plan
        progress = rt.progress
        progress.scheduled = plan.scheduled(share, shares)
        options = self.environment.parsed_options
        epoch = float(getattr(options, "bench_epoch", 0.0) or 0.0) or time.time()
        rt.schedule_epoch = epoch
        # Schedule on the monotonic clock, anchored to the shared wall-clock start.
        origin = time.perf_counter() + (epoch - time.time())
        pool = self._pool = Pool(config.max_in_flight)
        for number, (offset, step) in enumerate(plan.arrivals(share, shares)):
            due = origin + offset
            delay = due - time.perf_counter()
            if delay > 0:
                gevent.sleep(delay)
            if pool.full():
                progress.skipped += 1
                continue
            allowed, warm = rt.claim()
            if not allowed:
                # --max-requests: the rest of the schedule is not sent (nor counted scheduled).
                progress.scheduled = progress.started + progress.skipped
                break
            progress.started += 1
            if not warm:  # a step's verdict counts its started requests that did not finish
                progress.started_by_step[step] += 1
            # Arrival `number` of this share is the schedule's `number * shares + share`-th: a
            # trace's record of that index, and the same session on every run of a seed.
            pool.spawn(self._arrival, due, step, number * shares + share, warm)
        progress.schedule_done = True
        if not pool.join(timeout=config.drain_timeout):
            pool.kill(block=False)
        raise StopUser()

    def on_stop(self) -> None:
        # Stopped early (a sweep breached, or Ctrl-C): requests in flight go with the user.
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.kill(block=False)

    def _arrival(self, due: float, step: int, index: int, warm: bool = False) -> None:
        rt = self.rt
        config = rt.config
        workload = rt.workload
        assert config is not None and workload is not None
        session = workload.session_at(index)
        first = True
        # Over WebSocket each arriving session has a connection of its own for its turns.
        conn = self.ws_connection() if config.transport == "websocket" else None
        try:
            while not session.done:
                lag = time.perf_counter() - due if first else None
                if lag is not None and lag > config.late_after:
                    rt.progress.late += 1
                rec, _ = self.run_session_turn(session, conn)
                rec.step = step
                rec.lag = lag
                first = False
                rt.record(rec, warmup=warm)
        finally:
            rt.progress.completed += 1
            if conn is not None:
                conn.close()
