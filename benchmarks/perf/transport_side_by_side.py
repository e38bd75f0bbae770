"""SSE vs WebSocket mode on one target, same load, one report: ``responses-bench`` twice.

    python -m benchmarks.perf.transport_side_by_side [--users 8] [--time 20s] [--turns 3]
        [--base-url URL --model M] [--out reports/transports]

Without ``--base-url`` it starts the mock (``responses-mock --ttft 0.05 --inter-token 0.005``) on a
free loopback port. Then it runs ``responses-bench`` with ``--transport sse`` and with
``--transport websocket`` under the same options (closed loop, ``--users`` users, ``--turns``
chained turns per session, every stream judged), one after the other, and writes
``OUT/side-by-side.json`` and ``OUT/side-by-side.md``: per transport, TTFT p50/p99, ITL p50/p99,
e2e p50, requests, and the load generator's CPU (user + system of the ``responses-bench``
process and its children, from ``getrusage(RUSAGE_CHILDREN)``) per response and per event.
Events are counted as output deltas plus the mock's eight other events of a text response (the
same assembler builds both transports' events; the count is exact for the mock's text answers).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.perf.cli_args import positive_int, run_time
from benchmarks.perf.servers import start_mock

_OTHER_EVENTS = 8  # created, in_progress, item added/done, part added/done, text done, completed


def _bench(base: str, model: str, transport: str, args: argparse.Namespace, out: Path) -> Any:
    command = [
        str(Path(sys.executable).parent / "responses-bench"), "--base-url", base, "--model", model,
        "-u", str(args.users), "-t", args.time, "--turns", str(args.turns),
        "--max-output-tokens", str(args.max_output_tokens), "--transport", transport,
        "--report-dir", str(out), "--loglevel", "WARNING", "--only-summary",
        "--progress-interval", "0",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = json.loads((out / "summary.json").read_text())
    requests = summary["requests"]["total"]
    deltas = summary["tokens"]["deltas_total"]
    events = deltas + _OTHER_EVENTS * requests
    lat = summary["latency_ms"]
    return {
        "transport": transport,
        "exit_code": proc.returncode,
        "requests": requests,
        "failed": summary["requests"]["failed"],
        "failures": summary["failures"]["by_name"],
        "ttft_ms": {"p50": lat["ttft"]["p50"], "p99": lat["ttft"]["p99"]},
        "itl_ms": {"p50": lat["itl"]["p50"], "p99": lat["itl"]["p99"]},
        "e2e_ms_p50": lat["e2e"]["p50"],
        "events": events,
        "client_cpu_s": round(cpu, 3),
        "client_cpu_us_per_event": round(cpu / events * 1e6, 2) if events else None,
        "client_cpu_ms_per_response": round(cpu / requests * 1e3, 3) if requests else None,
        "wall_s": round(wall, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=positive_int, default=8)
    parser.add_argument("--time", type=run_time, default="20s")
    parser.add_argument("--turns", type=positive_int, default=3)
    parser.add_argument("--max-output-tokens", type=positive_int, default=64)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="mock")
    parser.add_argument("--out", type=Path, default=Path("reports/transports"))
    args = parser.parse_args(argv)
    mock = None
    if args.base_url:
        base = args.base_url
    else:
        mock = start_mock(["--frozen-time", "--ttft", "0.05", "--inter-token", "0.005"])
        base = mock.origin + "/v1"
    try:
        rows = [
            _bench(base, args.model, transport, args, args.out / transport)
            for transport in ("sse", "websocket")
        ]
    finally:
        if mock is not None:
            mock.stop()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    report = {
        "target": "embedded mock (--ttft 0.05 --inter-token 0.005)" if mock else base,
        "load": {
            "users": args.users,
            "time": args.time,
            "turns": args.turns,
            "max_output_tokens": args.max_output_tokens,
        },
        "machine_loadavg": load,
        "transports": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "side-by-side.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"# SSE vs WebSocket — {report['target']}",
        "",
        f"{args.users} users, {args.time}, {args.turns} turns per session, max_output_tokens "
        f"{args.max_output_tokens}; load average {' '.join(load)}",
        "",
        "| transport | requests | failed | TTFT p50 ms | TTFT p99 ms | ITL p50 ms | ITL p99 ms "
        "| e2e p50 ms | client CPU µs/event | client CPU ms/response |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['transport']} | {r['requests']} | {r['failed']} | {r['ttft_ms']['p50']} | "
            f"{r['ttft_ms']['p99']} | {r['itl_ms']['p50']} | {r['itl_ms']['p99']} | "
            f"{r['e2e_ms_p50']} | {r['client_cpu_us_per_event']} | "
            f"{r['client_cpu_ms_per_response']} |"
        )
    (args.out / "side-by-side.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["exit_code"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
