"""``responses-bench``: load-test any Responses API server with Locust, judging every stream.

A thin front to Locust: it checks the options, makes sure the target answers on TCP, then runs
Locust's own ``main`` on :mod:`benchmarks.responses_bench.locustfile` with sensible defaults (headless, reports in
``--report-dir``). Every option it does not know goes to Locust unchanged, so ``--processes``,
``--master`` / ``--worker``, ``--csv-full-history``, ``--loglevel``… work as documented by Locust.
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from cassettes.redaction import Redactor
from conformance.cli_options import base_url as normalized_base_url

from . import multirun
from .datasets import WorkloadError
from .options import (
    BenchConfig,
    ConfigError,
    add_arguments,
    build_config,
    load_workload,
    responses_url,
)
from .units import DURATION_HELP, parse_seconds

__all__ = ["build_parser", "main"]

LOCUSTFILE = Path(__file__).with_name("locustfile.py")

_DESCRIPTION = """\
Load-test a Responses API server (POST /v1/responses) with Locust. Every streamed response goes
through the conformance judge: a stream that breaks a check fails its request under the check's ID.
Measures TTFT, inter-token latency, time per output token, end-to-end latency, output tokens,
requests/s, output tokens/s and goodput, and checks them against --slo.

Examples:
  # 8 concurrent users for 1 minute, streaming
  responses-bench --base-url http://127.0.0.1:8000/v1 --model my-model -u 8 -t 60s
  # open loop: 20 requests/s started on schedule for 2 minutes, with objectives
  responses-bench --base-url $URL --model m --shape open-loop --rate 20 -t 2m \\
      --slo ttft_p95=500ms,itl_p99=50ms,error_rate=1%
  # find the highest rate that meets the SLO
  responses-bench --base-url $URL --model m --shape sweep --rates 5:50:5 --step-time 30s \\
      --slo ttft_p95=1s,itl_p99=80ms
  # concurrency sweep, 3 runs per step (95% t-intervals), warm-up left out, two targets
  responses-bench --base-url $URL --base-url $URL2 --model m -u 1,4,16,64 -t 60s \
      --warmup 10s --repeat 3 --slo ttft_p95=1s
  # 4 load processes on this machine; or a master plus workers elsewhere
  responses-bench --base-url $URL --model m -u 64 -t 5m --processes 4
  responses-bench --base-url $URL --model m -u 64 -t 5m --master --expect-workers 2
  responses-bench --worker --master-host 10.0.0.5        (on each worker machine)

Reports in --report-dir: summary.json (percentiles, rates, goodput, failures by check ID, SLO
verdict), stats.csv (exact histogram numbers), report.html (one self-contained page),
timeline.png (and sweep.png), Locust's locust_*.csv and locust.html. A multi-run (-u list,
--repeat, several --base-url) puts each run's reports in DIR/<target>/u<N>/run<k>/.

Exit codes: 0 ok; 1 an SLO breached or a stream broke a judge check; 2 the run broke (bad options,
target unreachable, nothing answered) or could not judge: one create sent before the load was
refused (401/403), answered by something that is not a Responses server, or told the model is
not served — one line says which.
"""


_NEGATIVE = re.compile(r"-\.?\d")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line (not the whole usage) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # argparse takes "-5s" after "-t" for an option of its own ("expected one argument"):
        # a value option followed by a negative-looking token gets it as "-t=-5s", so the
        # option's own check names what is wrong with the value.
        argv = list(sys.argv[1:] if args is None else args)
        joined: list[str] = []
        for arg in argv:
            action = self._option_string_actions.get(joined[-1]) if joined else None
            if action is not None and action.nargs is None and _NEGATIVE.match(arg):
                joined[-1] = f"{joined[-1]}={arg}"
            else:
                joined.append(arg)
        return super().parse_known_args(joined, namespace)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="responses-bench",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    add_arguments(parser)
    locust = parser.add_argument_group(
        "Locust options (passed through unchanged; these and every other `locust --help` option)"
    )
    locust.add_argument(
        "-u",
        "--users",
        type=_users,
        metavar="N|N1,N2,…",
        help="fixed/ramp: concurrent users, >= 1 (1); a list (1,4,16,64) is a concurrency sweep: "
        "a whole fixed run per value, stopping at the first that breaches --slo",
    )
    locust.add_argument(
        "-r", "--spawn-rate", type=_number(float), help="users started per second, > 0 (all)"
    )
    locust.add_argument(
        "-t",
        "--run-time",
        metavar="DURATION",
        help=f"fixed/ramp: run time; open-loop: arrival window (60s; {DURATION_HELP}; "
        "whole seconds)",
    )
    locust.add_argument(
        "--processes", type=_number(int), help="fork N worker processes here (-1: one per core)"
    )
    locust.add_argument("--master", action="store_true", help="distributed: be the master")
    locust.add_argument("--worker", action="store_true", help="distributed: be a worker")
    locust.add_argument("--master-host", help="worker: the master's address")
    locust.add_argument(
        "--expect-workers", type=_number(int), help="master: workers to wait for, >= 1"
    )
    # Locust's name for the target, refused in one line rather than handed to Locust: in every CLI
    # of this family --host is the address a server binds; the target is --base-url (docs/cli.md).
    locust.add_argument("-H", "--host", help=argparse.SUPPRESS)
    return parser


def _number(kind: type[int] | type[float]) -> Any:
    """An argparse ``type`` that reports a bad number in one line (argparse: exit 2)."""

    def convert(text: str) -> int | float:
        try:
            return kind(text)
        except ValueError:
            noun = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None

    convert.__name__ = kind.__name__
    return convert


def _users(text: str) -> list[int]:
    """``-u 8`` or a concurrency sweep ``-u 1,4,16,64`` (strictly increasing, each >= 1)."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer (nor a list of them: 1,4,16,64)"
        ) from None
    if any(b <= a for a, b in itertools.pairwise(values)):
        raise argparse.ArgumentTypeError(f"{text!r}: a sweep's users must increase (1,4,16,64)")
    return values


def _base_urls(argv: Sequence[str]) -> list[str]:
    """Every ``--base-url`` given (repeated, or comma-separated), in order."""
    urls: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--base-url" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--base-url="):
            value = arg.split("=", 1)[1]
        else:
            continue
        urls += [u.strip() for u in value.split(",") if u.strip()]
    return urls


def _check_locust_options(args: argparse.Namespace) -> None:
    """The Locust options the bench reads or relies on, checked before Locust starts."""
    given = args.users if isinstance(args.users, list) else [args.users]
    for users in (u for u in given if u is not None):
        if users < 1:
            raise ConfigError(f"-u/--users {users}: need at least 1 user")
    rate = args.spawn_rate
    if rate is not None and not (math.isfinite(rate) and rate > 0):  # inf: `inf > 0`
        raise ConfigError(f"-r/--spawn-rate {rate:g}: must be a finite number > 0 users per second")
    if args.processes is not None and args.processes != -1 and args.processes < 1:
        raise ConfigError(f"--processes {args.processes}: must be >= 1 (or -1: one per core)")
    if args.expect_workers is not None and args.expect_workers < 1:
        raise ConfigError(f"--expect-workers {args.expect_workers}: must be >= 1")


def _run_time_seconds(text: str) -> int:
    """``-t`` in whole seconds, which is all Locust's ``--run-time`` takes."""
    seconds = parse_seconds(text, "-t/--run-time", allow_zero=False)
    if seconds != int(seconds):
        raise ConfigError(f"-t/--run-time {text!r}: Locust runs whole seconds (e.g. 2s, 90s, 2m)")
    return int(seconds)


def _without(argv: list[str], *flags: str) -> list[str]:
    """``argv`` without the given value options (``-t 5``, ``-t5``, ``--run-time=5``)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in flags:
            skip = True
            continue
        if any(arg.startswith(f + "=") for f in flags if f.startswith("--")):
            continue
        if any(len(f) == 2 and arg.startswith(f) and not arg.startswith("--") for f in flags):
            continue
        out.append(arg)
    return out


def _load_workload(config: BenchConfig) -> None:
    """Every record of ``--workload`` read and checked now, not by each user under load."""
    try:
        config, workload = load_workload(config)
    except WorkloadError as error:
        raise ConfigError(f"--workload: {error}") from None
    path = config.workload.path
    if path is None:
        return
    notes = [f"{workload.records} session(s) ({workload.format})"]
    if workload.records > len(workload.entries):
        notes.append(f"the first {len(workload.entries)} kept (--workload-limit)")
    if workload.skipped:
        notes.append(f"{workload.skipped} conversation(s) without a human turn skipped")
    if config.plan is not None and config.shape == "trace":
        notes.append(
            f"trace: {len(config.plan.offsets)} arrival(s) over {config.plan.duration:.3f}s"
        )
    print(f"responses-bench: --workload {path}: " + "; ".join(notes), file=sys.stderr)


def _refuse_old_names(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """``-H/--host URL`` (Locust's target flag) and ``--request-timeout`` (this command's name for
    ``--read-timeout`` before 0.1.0) are refused in one line, not handed to Locust."""
    if args.host is not None:
        raise ConfigError(
            "-H/--host is Locust's name for the target: give it with --base-url (in every CLI "
            "of this family --host is the address a server binds)"
        )
    if _given(argv, "--request-timeout"):
        raise ConfigError("--request-timeout is named --read-timeout (the same meaning)")


def _given(argv: Sequence[str], *flags: str) -> bool:
    return any(arg in flags or arg.split("=", 1)[0] in flags for arg in argv)


def _reachable(url: str, timeout: float = 3.0) -> str | None:
    """None when a TCP connection to the URL's host opens; else why not."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as error:
        return f"cannot connect to {host}:{port}: {error}"


def _judgeable(config: BenchConfig) -> str | None:
    """One plain create before the load, with the run's headers and model: ``None`` when its
    answer is one to measure (a 5xx too: the run measures it), else why the target cannot be
    judged — a refused key, not a Responses server, a model it does not serve
    (conformance/suite/judgeable.py) — so that a run against it says so in one line (exit 2)
    instead of measuring refusals as failures."""
    import json
    import urllib.error
    import urllib.request

    from conformance.suite.judgeable import unjudgeable_create

    model = config.workload.model
    data = json.dumps({"model": model, "input": "Reply with the word OK.",
                       "max_output_tokens": 16}).encode()  # fmt: skip
    headers = {**config.headers, "Content-Type": "application/json", "Accept": "application/json"}
    request = urllib.request.Request(config.responses_url, data=data, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=min(config.request_timeout, 30.0)) as answer:
            status, ctype, raw = (
                answer.status,
                answer.headers.get("content-type", ""),
                answer.read(65536),
            )
    except urllib.error.HTTPError as error:
        status, ctype = error.code, error.headers.get("content-type", "") if error.headers else ""
        raw = error.read(65536) if error.fp is not None else b""
    except (OSError, ValueError):
        return None  # no answer: the run measures it as such
    text = raw.decode("utf-8", "replace")
    try:
        body, is_json = (json.loads(text), True) if text.strip() else (None, False)
    except ValueError:
        body, is_json = None, False
    return unjudgeable_create(
        status, ctype or "", body, text[:2000], model=model, what="POST /responses",
        is_json=is_json,
    )  # fmt: skip


def _multi_plan(args: argparse.Namespace, argv: list[str], urls: list[str]) -> multirun.Plan:
    """Check a multi-run's options (every target's config, its reachability) before any load."""
    users: list[int] = args.users or []
    if args.worker or args.master or args.ui:
        raise ConfigError(
            "a concurrency sweep, --repeat or several --base-url run Locust once per run: "
            "not with --master/--worker/--ui"
        )
    if len(users) > 1 and args.shape != "fixed":
        raise ConfigError(
            f"-u {','.join(map(str, users))} is a concurrency sweep of fixed runs: "
            f"not with --shape {args.shape} (a rate sweep is --shape sweep --rates)"
        )
    if args.search and (len(users) < 2 or not args.slo):
        raise ConfigError(
            "--search N refines a concurrency sweep's SLO breach: it needs -u N1,N2,… and --slo"
        )
    if _given(argv, "--csv", "--html"):
        raise ConfigError("--csv/--html name one Locust run's files: each run writes its own")
    _check_locust_options(args)
    _refuse_old_names(args, argv)
    urls = urls or ([args.base_url] if args.base_url else [])
    if not urls:
        raise ConfigError("--base-url is required")
    if args.run_time is not None:
        _run_time_seconds(args.run_time)
    first = args.users
    configs: dict[str, BenchConfig] = {}
    for url in urls:
        args.base_url = url
        args.users = users[0] if users else None
        config = configs[url] = build_config(args)
        _check_run_bounds(args, config)
        _load_workload(config)
    args.users = first
    for url in urls:
        problem = _reachable(responses_url(url))
        if problem is not None:
            raise ConfigError(f"target unreachable: {url}: {problem}")
        reason = _judgeable(configs[url])
        if reason is not None:
            raise ConfigError(f"could not judge {url}: {reason}")
    child = _without(argv, "-u", "--users", "--base-url", "--repeat", "--report-dir", "--search")
    return multirun.Plan(
        targets=tuple(urls),
        users=tuple(users) or (None,),
        repeat=args.repeat,
        search=args.search,
        report_dir=Path(args.report_dir),
        slo=config.slo,
        child_argv=tuple(child),
    )


def _check_run_bounds(args: argparse.Namespace, config: BenchConfig) -> None:
    """A warm-up that leaves nothing to measure fails now, not after the run."""
    if config.warmup_s and args.run_time is not None:
        seconds = parse_seconds(args.run_time, "-t/--run-time")
        if config.warmup_s >= seconds:
            raise ConfigError(
                f"--warmup {args.warmup} is not shorter than -t {args.run_time}: nothing would "
                "be measured"
            )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, _unknown = parser.parse_known_args(argv)
    urls = _base_urls(argv)
    if len(urls) > 1 or len(args.users or []) > 1 or (args.repeat or 1) > 1 or args.search:
        try:
            plan = _multi_plan(args, argv, urls)
        except (ConfigError, ValueError) as error:
            print(f"responses-bench: {error}", file=sys.stderr)
            return 2
        return multirun.run_all(plan)
    if urls:
        args.base_url = urls[0]
    args.users = args.users[0] if args.users else None
    extra: list[str] = []
    notes: list[str] = []
    if not args.worker:
        bounded = args.max_requests is not None  # --max-requests alone: no time bound
        if args.run_time is None and args.shape not in ("sweep", "trace") and not bounded:
            args.run_time = "60s"
        try:
            _check_locust_options(args)
            _refuse_old_names(args, argv)
            if args.run_time is not None:
                # Locust's own -t parser takes fewer forms (and fails with exit 1): ours is the one.
                args.run_time = f"{_run_time_seconds(args.run_time)}s"
                argv = _without(argv, "-t", "--run-time")
                extra += ["--run-time", args.run_time]
            config = build_config(args)
            _check_run_bounds(args, config)
            _load_workload(config)
        except (ConfigError, ValueError) as error:
            print(f"responses-bench: {error}", file=sys.stderr)
            return 2
        note = normalized_base_url(args.base_url, flag="--base-url")[1]
        if note:  # the URL used, when it is not the one given (docs/cli.md#base-url)
            notes.append(f"{note} (requests go to {config.responses_url})")
        for line in notes:
            print(f"responses-bench: {line}", file=sys.stderr)
        problem = _reachable(config.responses_url)
        if problem is not None:
            print(f"responses-bench: target unreachable: {problem}", file=sys.stderr)
            return 2
        reason = _judgeable(config)
        if reason is not None:
            print(f"responses-bench: could not judge: {reason}", file=sys.stderr)
            return 2
        if not _given(argv, "--base-url"):
            extra += ["--base-url", args.base_url]  # it came from -H/--host
        extra += ["--host", args.base_url]
        if not args.ui and not _given(argv, "--headless", "--autostart"):
            extra.append("--headless")
        if config.progress_interval > 0 and not _given(argv, "--only-summary", "--print-stats"):
            # One progress line: ours. Locust's own table comes back with --progress-interval 0.
            extra.append("--only-summary")
        prefix = config.report_dir / "locust"
        if not _given(argv, "--csv"):
            extra += ["--csv", str(prefix), "--csv-full-history"]
        if not _given(argv, "--html"):
            extra += ["--html", str(config.report_dir / "locust.html")]
        if not _given(argv, "-r", "--spawn-rate"):
            # Locust's headless default is 1 user/s: a short run would be mostly ramp-up.
            extra += ["--spawn-rate", str(max(args.users or 1, 1))]
        if not _given(argv, "-s", "--stop-timeout"):
            extra += ["--stop-timeout", "10"]  # let streams in flight finish when time is up
    from locust.main import main as locust_main  # imported late: it monkey-patches with gevent

    saved = sys.argv
    sys.argv = ["responses-bench", "-f", str(LOCUSTFILE), *extra, *argv]
    code: object = 0
    try:
        locust_main()  # type: ignore[no-untyped-call]  # Locust's main() is unannotated
    except SystemExit as done:
        code = done.code
    finally:
        sys.argv = saved
        if not args.worker:
            _redact_reports(config.report_dir, _secrets(config.headers))
    return code if isinstance(code, int) else (0 if code is None else 2)


_CREDENTIAL_HEADERS = ("authorization", "api-key", "x-api-key", "proxy-authorization")
_TEXT_REPORTS = (".json", ".jsonl", ".csv", ".html", ".txt", ".log")


def _secrets(headers: dict[str, str]) -> list[str]:
    """The key and every credential header value (a bearer token without its scheme too)."""
    found = []
    for name, value in headers.items():
        if name.lower() in _CREDENTIAL_HEADERS:
            found += [value, value.partition(" ")[2]]
    return [s for s in found if s]


def _redact_reports(report_dir: Path, secrets: list[str]) -> None:
    """Every text the run wrote (ours and Locust's) without any form of a secret in it
    (cassettes.redaction: encoded forms and pieces too)."""
    redactor = Redactor(secrets)
    if not redactor.secrets or not report_dir.is_dir():
        return
    for path in report_dir.rglob("*"):
        if path.is_file() and path.suffix in _TEXT_REPORTS:
            text = path.read_text(encoding="utf-8", errors="replace")
            clean = redactor.text(text)
            if clean != text:
                path.write_text(clean, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
