"""Per-process state of a Locust run: the config, the aggregate, open-loop progress, reporting hooks.

One :class:`BenchRuntime` lives on each Locust ``Environment`` (master, worker or local). Users call
:meth:`BenchRuntime.record` for every finished request; that adds it to the process's aggregate and
fires Locust's ``request`` event: one row per request, named by its failure. Latency distributions
(TTFT, ITL, TPOT) are the bench's own (summary.json, the console table): as Locust rows they would
be counted as requests in Locust's "Aggregated" row. Workers ship their aggregate and progress to the master with
every stats report; the master (or the local runner) merges them, prints progress, and at ``quitting``
writes the reports and sets ``process_exit_code``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import IO, Any, TypeVar

import gevent
import orjson
from locust import events
from locust.env import Environment
from locust.event import EventHook
from locust.runners import LocalRunner, MasterRunner, WorkerRunner

from . import report
from .aggregate import Aggregate
from .meter import RequestRecord, warm_up
from .options import BenchConfig, ConfigError, add_arguments, build_config, load_workload
from .progress import Progress
from .workload import Workload

__all__ = ["BenchRuntime", "Progress", "runtime"]

log = logging.getLogger("responses_bench")
_ATTR = "responses_bench"
_REPORT_KEY = "responses_bench"
# Open loop: how far ahead of "now" the master puts the shared schedule start, so every worker has
# its spawn message before the first arrival is due.
_MASTER_LEAD = 2.0


class BenchRuntime:
    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self.config: BenchConfig | None = None
        self.workload: Workload | None = None
        self.config_error: str | None = None
        self.aggregate = Aggregate()  # a worker's: since the last report; otherwise the whole run
        self.progress = Progress()
        self.progress_by_source: dict[str, Progress] = {}
        self.scheduler_claimed = False
        self.sweep_verdicts: dict[int, dict[str, Any]] = {}
        self.sweep_stopped_at: int | None = None
        self.started_wall: float | None = None
        self.schedule_epoch: float | None = None  # open loop: wall-clock start of the schedule
        self.reported: dict[str, float] = {}  # master: when each worker last reported
        self._log_file: IO[bytes] | None = None
        self._lock = threading.Lock()
        self._user_seq = 0
        self._claimed = 0  # requests this process was allowed to send (warm-up too)
        self._measured = 0  # of those, the ones --max-requests counts (not warm-up)

    # ----------------------------------------------------------------- roles

    @property
    def is_worker(self) -> bool:
        return isinstance(self.environment.runner, WorkerRunner)

    @property
    def is_master(self) -> bool:
        return isinstance(self.environment.runner, MasterRunner)

    @property
    def source(self) -> str:
        runner = self.environment.runner
        if isinstance(runner, WorkerRunner):
            return str(runner.client_id)
        return "local"

    def share(self) -> tuple[int, int]:
        """Which slice of the open-loop schedule this process runs: (index, of how many)."""
        options = self.environment.parsed_options
        slots = max(1, int(getattr(options, "bench_slots", 1) or 1))
        runner = self.environment.runner
        index = runner.worker_index if isinstance(runner, WorkerRunner) else 0
        return max(index, 0) % slots, slots

    def claim(self) -> tuple[bool, bool]:
        """Before a request is sent: ``(may it be sent, is it warm-up)``.

        ``--warmup Nreq`` and ``--max-requests N`` are split over the load processes like the
        open-loop schedule (process ``i`` of ``k`` takes ``N // k``, plus one when ``i < N % k``),
        so a distributed run sends N in all. ``--warmup DURATION`` leaves out the requests sent
        before the run's start (the open-loop schedule's start) plus DURATION.
        """
        config = self.config
        assert config is not None
        share, shares = self.share()
        with self._lock:
            if self._claimed < _part(config.warmup_requests, share, shares):
                self._claimed += 1
                return True, True
            origin = self.schedule_epoch or self.started_wall or time.time()
            if config.warmup_s > 0 and time.time() < origin + config.warmup_s:
                self._claimed += 1
                return True, True
            if config.max_requests is not None:
                if self._measured >= _part(config.max_requests, share, shares):
                    return False, False
                self._measured += 1
            self._claimed += 1
            return True, False

    def quota_spent(self) -> bool:
        """``--max-requests``: this process has sent its share (always False without it)."""
        config = self.config
        if config is None or config.max_requests is None:
            return False
        return self._measured >= _part(config.max_requests, *self.share())

    def next_user_number(self) -> int:
        with self._lock:
            self._user_seq += 1
            return self._user_seq

    # ----------------------------------------------------------------- lifecycle

    def configure(self) -> None:
        if self.config is not None:
            return
        options = self.environment.parsed_options
        if options is None:
            self.config_error = "Locust gave no parsed options"
            return
        try:
            # A trace replay's schedule comes from the file: config and workload together.
            self.config, self.workload = load_workload(
                build_config(options, host=self.environment.host)
            )
        except (ConfigError, ValueError) as error:
            self.config_error = str(error)
            log.error("responses-bench: %s", error)
            return
        if self.config.request_log:
            self.config.report_dir.mkdir(parents=True, exist_ok=True)
            name = "requests-" + self.source.replace("/", "_") + ".jsonl"
            self._log_file = (self.config.report_dir / name).open("ab")

    def on_test_start(self) -> None:
        self.started_wall = time.time()
        runner = self.environment.runner
        options = self.environment.parsed_options
        if isinstance(runner, MasterRunner) and options is not None:
            # Forwarded to workers with the spawn message (custom arguments travel with it).
            options.bench_slots = max(1, runner.worker_count)
            options.bench_epoch = time.time() + _MASTER_LEAD
            options.bench_duration = float(options.run_time or 0)
            self.schedule_epoch = options.bench_epoch
        self.configure()

    def record(self, rec: RequestRecord, warmup: bool = False) -> None:
        """A finished request: aggregate it and tell Locust (warm-up: set aside, Locust untold,
        so Locust's counts stay equal to summary.json's)."""
        config = self.config
        assert config is not None
        if warmup:
            self.aggregate.add_warmup(rec)
            if self._log_file is not None:
                self._log_file.write(orjson.dumps({**rec.as_dict(), "warmup": True}) + b"\n")
            return
        good = config.slo.request_is_good(rec)
        self.aggregate.add(rec, good, self.source)
        name = "/v1/responses stream" if rec.stream else "/v1/responses"
        fire = self.environment.events.request.fire
        fire(  # type: ignore[no-untyped-call]  # Locust's EventHook.fire is unannotated
            request_type="POST",
            name=name,
            response_time=(rec.e2e or 0.0) * 1000,
            response_length=rec.size,
            exception=rec.failure,  # the check ID or bench.* name: Locust groups failures by it
            context={},
        )
        if self._log_file is not None:
            self._log_file.write(orjson.dumps(rec.as_dict()) + b"\n")

    # ----------------------------------------------------------------- distribution

    def report_to_master(self, data: dict[str, Any]) -> None:
        data[_REPORT_KEY] = {"agg": self.aggregate.drain(), "progress": self.progress.to_wire()}

    def worker_report(self, client_id: str, data: dict[str, Any]) -> None:
        payload = data.get(_REPORT_KEY)
        if payload is None:
            return
        self.aggregate.merge_wire(payload["agg"], source=client_id)
        self.progress_by_source[client_id] = Progress.from_wire(payload["progress"])
        self.reported[client_id] = time.time()

    def reported_at(self) -> float:
        """Up to when the merged data is complete: the oldest last report (now, when local)."""
        if not self.is_master:
            return time.time()
        if len(self.reported) < _expected_sources(self):
            return 0.0
        return min(self.reported.values())

    def progresses(self) -> list[Progress]:
        if self.is_master:
            return list(self.progress_by_source.values())
        return [self.progress]

    # ----------------------------------------------------------------- console and reports

    def progress_loop(self) -> None:
        config = self.config
        if config is None or config.progress_interval <= 0:
            return
        last = (time.time(), 0)
        while True:
            gevent.sleep(config.progress_interval)
            now = time.time()
            total = self.aggregate.all.requests
            rate = (total - last[1]) / max(now - last[0], 1e-9)
            last = (now, total)
            print(report.progress_line(self, rate, now), flush=True)

    def close_log(self) -> None:
        """Flush and close ``--request-log``'s file (every process keeps its own)."""
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def finish(self) -> int:
        """Write the reports; the process exit code (0 ok, 1 breach/violations, 2 broken)."""
        self.close_log()
        if self.config is None:
            print(f"responses-bench: the run did not start: {self.config_error}", flush=True)
            return 2
        summary = report.build_summary(self)
        code = summary["exit_code"]
        try:
            report.write_reports(self.config.report_dir, summary, self)
        except OSError as error:
            print(f"responses-bench: cannot write the reports: {error}", flush=True)
            return 2
        print(report.render_text(summary), flush=True)
        return int(code)


def _part(total: int, share: int, shares: int) -> int:
    """Process ``share``'s part of ``total`` when ``shares`` processes split it."""
    return total // shares + (1 if share < total % shares else 0)


def runtime(environment: Environment) -> BenchRuntime:
    rt = getattr(environment, _ATTR, None)
    if rt is None:
        rt = BenchRuntime(environment)
        setattr(environment, _ATTR, rt)
    return rt


# ---------------------------------------------------------------------- Locust hooks

_Handler = TypeVar("_Handler", bound=Callable[..., None])


def _listen(hook: EventHook, handler: _Handler) -> _Handler:
    """``hook.add_listener(handler)``, typed (Locust's EventHook is unannotated)."""
    hook.add_listener(handler)  # type: ignore[no-untyped-call]
    return handler


def _listener(hook: EventHook) -> Callable[[_Handler], _Handler]:
    """``@hook.add_listener`` as a typed decorator."""

    def add(handler: _Handler) -> _Handler:
        return _listen(hook, handler)

    return add


@_listener(events.init_command_line_parser)
def _options(parser: Any) -> None:
    add_arguments(parser)


@_listener(events.init)
def _init(environment: Environment, **_: Any) -> None:
    rt = runtime(environment)
    runner = environment.runner
    if not isinstance(runner, MasterRunner):
        # Now, long before the first arrival is due, rather than inside the open loop's schedule.
        warm_up()
    if isinstance(runner, WorkerRunner):
        _listen(
            environment.events.report_to_master, lambda client_id, data: rt.report_to_master(data)
        )
    elif isinstance(runner, MasterRunner):
        _listen(
            environment.events.worker_report,
            lambda client_id, data: rt.worker_report(client_id, data),
        )


@_listener(events.test_start)
def _test_start(environment: Environment, **_: Any) -> None:
    rt = runtime(environment)
    rt.on_test_start()
    if isinstance(environment.runner, MasterRunner | LocalRunner):
        gevent.spawn(rt.progress_loop)
    if rt.config is None and not rt.is_worker and environment.runner is not None:
        environment.process_exit_code = 2
        gevent.spawn_later(0.1, environment.runner.quit)


@_listener(events.quitting)
def _quitting(environment: Environment, **_: Any) -> None:
    rt = runtime(environment)
    if rt.is_worker:
        rt.close_log()  # a worker writes no report, but its request log must reach the disk
        return
    code = rt.finish()
    from locust import log as locust_log

    if locust_log.unhandled_greenlet_exception:
        code = 2  # a crash inside the load generator: the numbers cannot be trusted
    environment.process_exit_code = code


def _final_csv_pass(writer: Any) -> None:
    """One last write of Locust's CSV files before they close.

    Locust's writer rewrites them every second and closes them without a last pass, so requests
    finished in the final second were missing from locust_stats.csv (156 there, 160 in
    summary.json on 9f25f79). Best effort: a Locust without these attributes keeps its behaviour.
    """
    try:
        for handle, csv_writer, columns, rows in (
            (
                writer.requests_csv_filehandle,
                writer.requests_csv_writer,
                writer.requests_csv_columns,
                writer._requests_data_rows,
            ),
            (
                writer.failures_csv_filehandle,
                writer.failures_csv_writer,
                writer.failures_columns,
                writer._failures_data_rows,
            ),
            (
                writer.exceptions_csv_filehandle,
                writer.exceptions_csv_writer,
                writer.exceptions_columns,
                writer._exceptions_data_rows,
            ),
        ):
            if handle.closed:
                continue
            handle.seek(0)
            handle.truncate()
            csv_writer.writerow(columns)
            rows(csv_writer)
        if not writer.stats_history_csv_filehandle.closed:
            writer._stats_history_data_rows(writer.stats_history_csv_writer, time.time())
    except (AttributeError, ValueError, OSError) as error:  # pragma: no cover - other Locusts
        log.debug("final CSV pass skipped: %s", error)


def _patch_csv_writer() -> None:
    from locust.stats import StatsCSVFileWriter

    close = StatsCSVFileWriter.close_files
    if getattr(close, "_responses_bench", False):
        return

    def close_files(self: Any) -> None:
        _final_csv_pass(self)
        close(self)

    close_files._responses_bench = True  # type: ignore[attr-defined]
    StatsCSVFileWriter.close_files = close_files  # type: ignore[method-assign]


_patch_csv_writer()


def started_step_counts(rt: BenchRuntime) -> Counter[int]:
    counts: Counter[int] = Counter()
    for progress in rt.progresses():
        counts.update(progress.started_by_step)
    return counts


def open_loop_finished(rt: BenchRuntime) -> bool:
    """Every process has finished its schedule and has nothing in flight."""
    progresses = rt.progresses()
    slots = rt.share()[1] if not rt.is_master else None
    expected = 1 if slots is not None else _expected_sources(rt)
    if len(progresses) < expected:
        return False
    return all(p.schedule_done and p.in_flight == 0 for p in progresses)


def _expected_sources(rt: BenchRuntime) -> int:
    options = rt.environment.parsed_options
    return max(1, int(getattr(options, "bench_slots", 1) or 1))
