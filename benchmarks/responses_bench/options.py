"""The options of ``responses-bench``, declared once for two parsers, and the config built from them.

The same declarations go into the CLI's own parser (to check them and print ``--help`` before Locust
starts) and into Locust's parser (``init_command_line_parser``), which makes them Locust *custom
arguments*: the master forwards them to every worker when the run starts, so a worker needs no
option but ``--worker --master-host``.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance.cli_options import API_KEY_ENV_HELP, BASE_URL_HELP, READ_TIMEOUT_HELP, base_url

from .arrivals import ArrivalPlan, Step, parse_rates
from .datasets import FORMATS, Lengths, parse_lengths
from .errors import ConfigError
from .slo import SLO
from .units import DURATION_HELP, parse_seconds
from .workload import Workload, WorkloadConfig, trace_plan

__all__ = [
    "SHAPES",
    "BenchConfig",
    "ConfigError",
    "add_arguments",
    "build_config",
    "load_workload",
]

SHAPES = ("fixed", "ramp", "open-loop", "sweep", "trace")


def add_arguments(parser: Any) -> None:
    """Declare the options on an argparse-compatible parser (argparse's or Locust's)."""
    target = parser.add_argument_group("target")
    target.add_argument(
        "--base-url", metavar="URL", help=f"{BASE_URL_HELP}; requests go to URL/responses"
    )
    target.add_argument("--model", metavar="NAME", help="the `model` of every request (required)")
    target.add_argument(
        "--api-key-env", default="OPENAI_API_KEY", metavar="VAR", help=API_KEY_ENV_HELP
    )
    target.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an extra request header; repeatable (e.g. 'x-mock-scenario: reasoning')",
    )
    target.add_argument(
        "--read-timeout",
        dest="request_timeout",
        default="120s",
        metavar="DURATION",
        help=f"{READ_TIMEOUT_HELP} (default: 120s; {DURATION_HELP})",
    )
    target.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="N",
        help="the most of a non-stream body, an error's too, read from the server; a larger one "
        "fails as bench.transport.too_large, unread past N (default: 16 MiB)",
    )

    work = parser.add_argument_group("workload")
    work.add_argument(
        "--workload",
        metavar="FILE",
        help="sessions from a file: JSONL (one request body fragment per line: 'prompt' or "
        "'input', any other field, optionally 'followups': [...] sent with "
        "previous_response_id), a ShareGPT JSON array ('conversations'), CSV or Parquet "
        "(docs/bench.md lists the fields read). Default: synthetic prompts",
    )
    work.add_argument(
        "--prompt-tokens",
        "--input-tokens",
        dest="prompt_tokens",
        default="128",
        metavar="N|LO-HI|mean=M,stddev=S,min=LO,max=HI",
        help="synthetic prompt length in tokens: fixed, uniform over a range, or a normal "
        "distribution clamped to [min, max] (default: 128)",
    )
    work.add_argument(
        "--max-output-tokens",
        type=int,
        default=256,
        metavar="N",
        help="max_output_tokens of each request, >= 16; 0 sends none (default: 256)",
    )
    work.add_argument(
        "--no-stream", action="store_true", help="non-streaming requests (TTFT and ITL unmeasured)"
    )
    work.add_argument(
        "--tools", action="store_true", help="declare two function tools, tool_choice auto"
    )
    work.add_argument(
        "--reasoning",
        choices=["minimal", "low", "medium", "high"],
        help="send reasoning {effort, summary: auto} (default: none)",
    )
    work.add_argument(
        "--turns",
        type=int,
        default=1,
        metavar="N",
        help="synthetic sessions of N turns chained by previous_response_id (default: 1)",
    )
    work.add_argument(
        "--transport",
        choices=["sse", "websocket"],
        default="sse",
        help="sse: one POST per request; websocket: each user keeps one WebSocket to "
        "/v1/responses and sends every turn over it (docs/websocket.md) (default: sse)",
    )
    work.add_argument(
        "--lanes",
        type=int,
        default=1,
        metavar="N",
        help="websocket: each user runs N sessions at once on its connection, one per lane "
        "(stream_id) (default: 1)",
    )
    work.add_argument("--seed", type=int, default=0, help="seed of prompts and arrivals")
    work.add_argument(
        "--think-time",
        default="0s",
        metavar="DURATION",
        help="closed-loop shapes: how long a user waits between requests (default: 0s)",
    )

    _add_dataset_arguments(parser)

    shape = parser.add_argument_group("load shape")
    shape.add_argument(
        "--shape",
        choices=SHAPES,
        default="fixed",
        help="fixed: -u users for -t; ramp: --ramp-from to -u users over --ramp-time, then hold; "
        "open-loop: --rate requests/s started on schedule for -t; sweep: each of --rates for "
        "--step-time until the SLO breaks; trace: each --workload record sent at its "
        "`timestamp` (default: fixed)",
    )
    shape.add_argument("--ramp-from", type=int, default=1, metavar="N", help="ramp: first users")
    shape.add_argument(
        "--ramp-time", default="30s", metavar="DURATION", help="ramp: time to reach -u (30s)"
    )
    shape.add_argument("--rate", type=float, metavar="R", help="open-loop: requests per second")
    shape.add_argument(
        "--arrivals",
        choices=["constant", "poisson"],
        default="constant",
        help="open-loop/sweep: evenly spaced or Poisson arrivals (default: constant)",
    )
    shape.add_argument(
        "--rates", metavar="R1,R2,…|START:STOP:STEP", help="sweep: the rates to step through"
    )
    shape.add_argument(
        "--step-time", default="30s", metavar="DURATION", help="sweep: time per rate (30s)"
    )
    shape.add_argument(
        "--max-in-flight",
        type=int,
        default=1000,
        metavar="N",
        help="open-loop/sweep: concurrent requests per load process; an arrival beyond it is "
        "skipped and counted, never delayed (default: 1000)",
    )
    shape.add_argument(
        "--drain-timeout",
        default="30s",
        metavar="DURATION",
        help="open-loop/sweep: how long to wait for requests in flight after the schedule (30s)",
    )
    shape.add_argument(
        "--late-after",
        default="50ms",
        metavar="DURATION",
        help="open-loop: a request sent more than DURATION after its scheduled time counts as "
        "late (default: 50ms; a bare number is seconds)",
    )

    verdict = parser.add_argument_group("verdict")
    verdict.add_argument(
        "--slo",
        metavar="SPEC",
        help="objectives, e.g. ttft_p95=500ms,itl_p99=50ms,e2e_p99=10s,error_rate=1%%; a breach "
        "exits 1. A bare threshold is seconds, as everywhere (ttft_p95=0.5 is 500ms); "
        "error_rate is a fraction or a percent and defaults to 0",
    )
    verdict.add_argument(
        "--strict", action="store_true", help="SHOULD violations fail requests too (MUST always)"
    )
    verdict.add_argument(
        "--no-validate",
        action="store_true",
        help="do not judge streams (measures the judge's cost; violations go unseen)",
    )

    output = parser.add_argument_group("output")
    output.add_argument(
        "--report-dir",
        default="bench-report",
        metavar="DIR",
        help="summary.json, plots, Locust CSV and HTML (default: bench-report)",
    )
    output.add_argument(
        "--request-log",
        action="store_true",
        help="also write every request to DIR/requests-<process>.jsonl",
    )
    output.add_argument(
        "--progress-interval",
        default="5s",
        metavar="DURATION",
        help="time between progress lines (default: 5s; 0 = none)",
    )
    output.add_argument(
        "--ui", action="store_true", help="open Locust's web UI instead of running headless"
    )
    _add_run_shape(parser)
    # Set by the master at test start and forwarded to workers: the open-loop schedule's start
    # (wall clock) and how many processes share it.
    parser.add_argument("--bench-epoch", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--bench-slots", type=int, default=1, help=argparse.SUPPRESS)
    # -t is not forwarded to workers (a Locust default argument); this copy is.
    parser.add_argument("--bench-duration", type=float, default=0.0, help=argparse.SUPPRESS)


# ---------------------------------------------------------------------- datasets (bench-data)


def _add_dataset_arguments(parser: Any) -> None:
    """Workload files, length distributions, shared prefixes and trace replay."""
    data = parser.add_argument_group("datasets and traces")
    data.add_argument(
        "--workload-format",
        choices=FORMATS,
        default="auto",
        help="how to read --workload: by extension (.jsonl, .json = a ShareGPT-style array, "
        ".csv, .parquet: needs the [parquet] extra) (default: auto)",
    )
    data.add_argument(
        "--workload-limit",
        type=int,
        default=100_000,
        metavar="N",
        help="keep the first N sessions of --workload (memory bound; every record is still "
        "checked before the run) (default: 100000)",
    )
    data.add_argument(
        "--output-tokens",
        metavar="N|LO-HI|mean=M,stddev=S,min=LO,max=HI",
        help="draw each request's max_output_tokens (>= 16) from this distribution instead of "
        "--max-output-tokens; a record's own length (ShareGPT reply, output_tokens) wins",
    )
    data.add_argument(
        "--prefix-count",
        type=int,
        default=0,
        metavar="N",
        help="a pool of N shared prefixes, one put before each session's first input (seeded "
        "choice), for prefix-cache tests; needs --prefix-tokens (default: 0, none)",
    )
    data.add_argument(
        "--prefix-tokens",
        type=int,
        default=0,
        metavar="T",
        help="the length of each shared prefix in tokens (default: 0)",
    )
    data.add_argument(
        "--trace-speedup",
        type=float,
        default=1.0,
        metavar="F",
        help="--shape trace: replay F times faster (2 halves every gap) (default: 1)",
    )
    data.add_argument(
        "--trace-block-tokens",
        type=int,
        default=512,
        metavar="N",
        help="trace records without text: tokens per `hash_ids` block (mooncake: 512)",
    )


def _dataset_config(ns: argparse.Namespace) -> WorkloadConfig:
    """The workload half of the options (ValueError with the flag's name when wrong)."""
    tokens = parse_lengths(ns.prompt_tokens, "--prompt-tokens")
    outputs: Lengths | None = None
    if getattr(ns, "output_tokens", None):
        outputs = parse_lengths(ns.output_tokens, "--output-tokens", floor=16)
    speedup = getattr(ns, "trace_speedup", 1.0)
    if not (math.isfinite(speedup) and speedup > 0):
        raise ValueError(f"--trace-speedup {speedup:g}: must be > 0 and finite")
    if ns.shape == "trace" and not ns.workload:
        raise ValueError("--shape trace needs --workload FILE with a `timestamp` per record")
    limit = getattr(ns, "workload_limit", 100_000)
    if limit < 1:
        raise ValueError(f"--workload-limit {limit}: must be >= 1")
    return WorkloadConfig(
        model=ns.model,
        stream=not ns.no_stream,
        prompt_tokens=tokens,
        max_output_tokens=ns.max_output_tokens or None,
        output_tokens=outputs,
        tools=ns.tools,
        reasoning=ns.reasoning,
        turns=ns.turns,
        path=Path(ns.workload) if ns.workload else None,
        format=getattr(ns, "workload_format", "auto"),
        limit=limit,
        trace=ns.shape == "trace",
        trace_block_tokens=getattr(ns, "trace_block_tokens", 512),
        prefix_count=getattr(ns, "prefix_count", 0),
        prefix_tokens=getattr(ns, "prefix_tokens", 0),
        seed=ns.seed,
    )


def load_workload(config: BenchConfig) -> tuple[BenchConfig, Workload]:
    """Read and check the workload file now; a trace replay's schedule comes from it.

    Raises :class:`~benchmarks.responses_bench.datasets.WorkloadError` (one line) when the file
    cannot be used.
    """
    workload = Workload.load(config.workload)
    if config.shape == "trace":
        plan = trace_plan(workload, config.trace_speedup, config.run_time)
        config = replace(config, plan=plan)
    return config, workload


# ---------------------------------------------------------------------- run shapes (bench-load)


def _add_run_shape(parser: Any) -> None:
    """bench-load's block: warm-up, a request-count bound, repeats (``-u 1,4,16`` and several
    ``--base-url`` are read by the CLI: :mod:`benchmarks.responses_bench.multirun`)."""
    runs = parser.add_argument_group(
        "run shape (-u 1,4,16,64 sweeps concurrency; --base-url A --base-url B compares targets)"
    )
    runs.add_argument(
        "--warmup",
        metavar="DURATION|Nreq",
        help="leave the start out of every statistic: the requests sent in the first DURATION "
        f"({DURATION_HELP}), or the first N requests sent (e.g. 20req); counted apart in "
        "summary.json's warmup block (default: none)",
    )
    runs.add_argument(
        "--max-requests",
        type=int,
        metavar="N",
        help="stop after N measured requests (warm-up not counted), or at -t if sooner; "
        "without -t no time bound (fixed, ramp, open-loop; per step of a -u sweep)",
    )
    runs.add_argument(
        "--search",
        type=int,
        default=0,
        metavar="N",
        help="concurrency sweep: after the first step that breaches --slo, up to N more steps "
        "bisecting (geometrically) between the last users count that met it and that one "
        "(default: 0)",
    )
    runs.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run everything N times; summary.json and the console give each run and a 95%% "
        "Student-t confidence interval over the runs' values (default: 1)",
    )


def parse_warmup(text: str | None) -> tuple[float, int]:
    """``--warmup``: ``(seconds, 0)`` for a duration, ``(0.0, N)`` for ``Nreq``; ``(0, 0)``: none."""
    if text is None or str(text).strip() == "":
        return 0.0, 0
    value = str(text).strip().lower()
    for suffix in ("requests", "request", "reqs", "req"):
        if value.endswith(suffix):
            number = value[: -len(suffix)].strip()
            if not number.isdigit() or int(number) < 1:
                raise ConfigError(
                    f"--warmup {text!r}: N requests needs a whole N >= 1 (e.g. 20req)"
                )
            return 0.0, int(number)
    try:
        seconds = parse_seconds(value, "--warmup", allow_zero=False)
    except ValueError as error:
        raise ConfigError(f"{error}; or Nreq for the first N requests") from None
    return seconds, 0


@dataclass(frozen=True, slots=True)
class BenchConfig:
    responses_url: str
    workload: WorkloadConfig
    shape: str
    slo: SLO
    strict: bool
    validate: bool
    headers: dict[str, str]
    request_timeout: float
    think_time: float
    ramp_from: int
    ramp_time: float
    plan: ArrivalPlan | None
    max_in_flight: int
    drain_timeout: float
    late_after: float  # seconds
    report_dir: Path
    request_log: bool
    progress_interval: float
    transport: str = "sse"
    lanes: int = 1
    max_body_bytes: int = 16 * 1024 * 1024
    trace_speedup: float = 1.0  # --shape trace
    run_time: float | None = None  # -t, in seconds (a trace replay stops its schedule there)
    warmup_s: float = 0.0  # --warmup DURATION: requests sent before start + this are left out
    warmup_requests: int = 0  # --warmup Nreq: the first N requests sent are left out
    max_requests: int | None = None  # --max-requests: measured requests, then the run stops
    users: int | None = None  # -u (fixed / ramp), for the reports


DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""``--max-body-bytes``: the suite's cap on a non-stream body too."""


def responses_url(url: str) -> str:
    """``…/v1`` → ``…/v1/responses``; a bare origin gets ``/v1`` first, as in every CLI of the
    family (conformance.cli_options.base_url, docs/cli.md)."""
    try:
        used, _ = base_url(url)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return used + "/responses"


def build_config(ns: argparse.Namespace, *, host: str | None = None) -> BenchConfig:
    """Check the options; raises :class:`ConfigError` with a message for the user."""
    base = ns.base_url or host
    if not base:
        raise ConfigError("--base-url is required")
    if not ns.model:
        raise ConfigError("--model is required")
    try:
        run_time = _run_time(ns)
        workload = _dataset_config(ns)
        slo = SLO.parse(ns.slo)
        ramp_time = parse_seconds(ns.ramp_time, "--ramp-time")
        step_time = parse_seconds(ns.step_time, "--step-time", allow_zero=False)
        drain = parse_seconds(ns.drain_timeout, "--drain-timeout")
        request_timeout = parse_seconds(ns.request_timeout, "--read-timeout", allow_zero=False)
        think_time = parse_seconds(ns.think_time, "--think-time")
        late_after = parse_seconds(ns.late_after, "--late-after")
        progress_interval = parse_seconds(ns.progress_interval, "--progress-interval")
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if workload.path is not None and not workload.path.is_file():
        what = "a folder, not a file" if workload.path.is_dir() else "no such file"
        raise ConfigError(f"--workload {workload.path}: {what}")
    headers: dict[str, str] = {}
    for item in ns.header:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise ConfigError(f"--header {item!r}: expected 'Name: value'")
        headers[name.strip()] = value.strip()
    key = os.environ.get(ns.api_key_env) if ns.api_key_env else None
    if key and not any(h.lower() == "authorization" for h in headers):
        headers["Authorization"] = f"Bearer {key}"
    plan: ArrivalPlan | None = None
    if ns.shape == "open-loop":
        if ns.rate is None:
            raise ConfigError("--shape open-loop needs --rate R (requests per second)")
        # `not nan` and `nan <= 0` are both False: nan (and inf) passed the old test
        if not (math.isfinite(ns.rate) and ns.rate > 0):
            raise ConfigError(
                f"--rate {ns.rate:g}: must be a finite number > 0 (requests per second)"
            )
        if run_time is None:
            raise ConfigError("--shape open-loop needs -t/--run-time (how long to keep arriving)")
        plan = ArrivalPlan((Step(ns.rate, run_time),), ns.arrivals == "poisson", ns.seed)
    elif ns.shape == "sweep":
        if not ns.rates:
            raise ConfigError("--shape sweep needs --rates, e.g. 2,4,8 or 5:40:5")
        try:
            rates = parse_rates(ns.rates)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        plan = ArrivalPlan(
            tuple(Step(r, step_time) for r in rates), ns.arrivals == "poisson", ns.seed
        )
    if ns.max_in_flight < 1:
        raise ConfigError("--max-in-flight must be >= 1")
    transport = getattr(ns, "transport", "sse")
    lanes = getattr(ns, "lanes", 1)
    if lanes < 1 or (lanes > 1 and transport != "websocket"):
        raise ConfigError("--lanes N needs N >= 1, and N > 1 needs --transport websocket")
    if transport == "websocket" and ns.no_stream:
        raise ConfigError("--transport websocket always streams: drop --no-stream")
    if ns.max_body_bytes < 1:
        raise ConfigError("--max-body-bytes must be >= 1")
    warmup_s, warmup_requests = parse_warmup(getattr(ns, "warmup", None))
    max_requests = getattr(ns, "max_requests", None)
    if max_requests is not None:
        if max_requests < 1:
            raise ConfigError(f"--max-requests {max_requests}: must be >= 1")
        if ns.shape == "sweep":
            raise ConfigError(
                "--max-requests bounds a run; a rate sweep's steps are bounded by --step-time"
            )
    if ns.ramp_from < 0:
        raise ConfigError(f"--ramp-from {ns.ramp_from}: must be >= 0 users")
    if getattr(ns, "search", 0) < 0:
        raise ConfigError(f"--search {ns.search}: must be >= 0")
    if getattr(ns, "repeat", 1) < 1:
        raise ConfigError(f"--repeat {ns.repeat}: must be >= 1")
    return BenchConfig(
        responses_url=responses_url(base),
        workload=workload,
        shape=ns.shape,
        slo=slo,
        strict=ns.strict,
        validate=not ns.no_validate,
        headers=headers,
        request_timeout=request_timeout,
        think_time=think_time,
        ramp_from=ns.ramp_from,
        ramp_time=ramp_time,
        plan=plan,
        max_in_flight=ns.max_in_flight,
        drain_timeout=drain,
        late_after=late_after,
        report_dir=Path(ns.report_dir),
        request_log=ns.request_log,
        progress_interval=progress_interval,
        transport=transport,
        lanes=lanes,
        max_body_bytes=ns.max_body_bytes,
        trace_speedup=getattr(ns, "trace_speedup", 1.0),
        run_time=run_time,
        warmup_s=warmup_s,
        warmup_requests=warmup_requests,
        max_requests=max_requests,
        users=_users_given(ns),
    )


def _users_given(ns: argparse.Namespace) -> int | None:
    """``-u`` as Locust parsed it (``num_users``), or as the CLI did (``users``)."""
    for name in ("num_users", "users"):
        value = getattr(ns, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _run_time(ns: argparse.Namespace) -> float | None:
    if getattr(ns, "bench_duration", 0.0):
        return float(ns.bench_duration)
    value = getattr(ns, "run_time", None)
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        return float(value)
    return parse_seconds(str(value), "-t/--run-time", allow_zero=False)
