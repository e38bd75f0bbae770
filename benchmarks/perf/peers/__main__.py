"""python -m benchmarks.perf.peers: run every tool at every concurrency, print and write the table.

Exit codes: 0 the table was made (rows for peers that could not run say why), 2 the run broke
(no wire capture, the mock did not start, bad options).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.perf.errors import ParseError, PeerUnavailable, RunError
from benchmarks.perf.peers import offline, venvs
from benchmarks.perf.peers.table import rows
from benchmarks.perf.peers.tools import TOOLS, Cell, Tool
from benchmarks.perf.peers.truth import Cell as Result
from benchmarks.perf.peers.truth import compare, truth_of
from benchmarks.perf.peers.wire import LoopbackCapture, exchanges
from benchmarks.perf.process_cpu import TreeCPU
from benchmarks.perf.servers import start_server


def _csv_ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N,N,…: {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive N,N,…: {text!r}")
    return values


def _tools(text: str) -> list[str]:
    names = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [n for n in names if n not in TOOLS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown tool(s) {unknown}; choose from {list(TOOLS)}")
    return names


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.perf.peers", description=__doc__)
    p.add_argument("--tools", type=_tools, default=list(TOOLS), help=f"default: {','.join(TOOLS)}")
    p.add_argument("--streams", type=_csv_ints, default=[4, 16, 64], help="default: 4,16,64")
    p.add_argument("--seconds", type=float, default=8.0, help="load per cell (default: 8)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each cell (default: 1)")
    p.add_argument("--ttft", type=float, default=0.1, help="mock --ttft seconds (default: 0.1)")
    p.add_argument(
        "--inter-token", type=float, default=0.01, help="mock --inter-token s (default: 0.01)"
    )
    p.add_argument("--tool-core", default="1", help="taskset CPU list for the tool (default: 1)")
    p.add_argument("--mock-core", default="0", help="taskset CPU list for the mock (default: 0)")
    p.add_argument("--no-pin", action="store_true", help="do not pin with taskset")
    p.add_argument("--venv-root", type=Path, default=venvs.DEFAULT_ROOT)
    p.add_argument("--no-install", action="store_true", help="never install a missing peer")
    p.add_argument(
        "--report-dir",
        "--out",
        dest="out",
        type=Path,
        default=Path("reports/peers"),
        help="cells, table.md and results.json (default: reports/peers)",
    )
    return p


def _cpu_list(text: str) -> set[int]:
    """taskset's CPU list syntax: 0,2-3."""
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _pin(cores: str, no_pin: bool) -> list[str]:
    if no_pin or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", cores]


def start_mock(args: argparse.Namespace, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    cmd = [
        *_pin(args.mock_core, args.no_pin),
        str(Path(sys.executable).with_name("responses-mock")),
        "--port", "0", "--frozen-time",
        "--ttft", f"{args.ttft:g}", "--inter-token", f"{args.inter_token:g}",
    ]  # fmt: skip
    try:
        mock = start_server("responses-mock", cmd, None, timeout=60, drain=True, log=log)
    except RunError:
        raise SystemExit(f"peers: responses-mock did not start (see {log})") from None
    return mock.process, mock.port


def run_cell(
    tool: Tool, exe: Path | None, cell: Cell, port: int, args: argparse.Namespace, repeat: int
) -> tuple[list[Result], str]:
    """(the results: the tool's headline numbers, then its variants; '') or ([], why not)."""
    cell.out.mkdir(parents=True, exist_ok=True)
    cmd = [*_pin(args.tool_core, args.no_pin), *tool.command(cell, exe)]
    env = {**os.environ, **offline.OFFLINE_ENV, "HF_HOME": str(args.out / "offline" / "hf")}
    if tool.env:
        env.update(tool.env(cell))
    (cell.out / "command.txt").write_text(" ".join(cmd) + "\n")
    capture = LoopbackCapture(port).start()
    log = (cell.out / "tool.log").open("wb")
    started = time.time()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cell.out,
                            start_new_session=True)  # fmt: skip
    cpu = TreeCPU(proc.pid).start()
    limit = cell.seconds + 180
    killer = threading.Timer(limit, lambda: os.killpg(proc.pid, signal.SIGKILL))
    killer.daemon = True
    killer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    killer.cancel()
    # whatever the tool left running in its session (bounded runs leave nothing behind)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu.stop()
    log.close()
    time.sleep(0.3)
    packets = capture.stop()
    wall = time.time() - started
    truth = truth_of(exchanges(packets, port))
    if proc.returncode not in (0, 1):
        return [], f"exited {proc.returncode} after {wall:.0f}s (see {cell.out / 'tool.log'})"
    if truth.requests == 0:
        return [], "no finished stream on the wire"
    try:
        reported = [("", tool.parse(cell.out)), *(tool.variants(cell.out) if tool.variants else [])]
    except ParseError as exc:
        return [], str(exc)
    whole = max(usage.ru_utime + usage.ru_stime, cpu.series[-1][1] if cpu.series else 0.0)
    window = cpu.at(truth.window[1]) - cpu.at(truth.window[0])
    results = [
        compare(
            f"{tool.name}:{suffix}" if suffix else tool.name,
            cell.streams,
            repeat,
            rep,
            truth,
            (window, whole),
        )
        for suffix, rep in reported
    ]
    (cell.out / "result.json").write_text(
        json.dumps([dataclasses.asdict(r) for r in results], indent=1)
    )
    return results, ""


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.repeat < 1 or args.seconds <= 0:
        print("peers: --repeat must be >= 1 and --seconds > 0", file=sys.stderr)
        return 2
    try:
        LoopbackCapture(9).stop()
    except PermissionError:
        print("peers: timing the wire needs CAP_NET_RAW (run as root)", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"peers: cannot capture on lo: {exc}", file=sys.stderr)
        return 2
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        # this process captures the wire: keep it off the tool's core, beside the mock
        try:
            os.sched_setaffinity(0, _cpu_list(args.mock_core))
        except (OSError, ValueError) as exc:
            print(f"peers: --mock-core {args.mock_core!r}: {exc}", file=sys.stderr)
            return 2
    args.out = args.out.resolve()
    off = args.out / "offline"
    datasets = offline.write_datasets(off, 0)
    tokenizer = offline.write_hf_cache(off / "hf")
    exes: dict[str, Path | None] = {}
    skipped: dict[str, str] = {}
    for name in args.tools:
        peer = TOOLS[name].peer
        if peer is None:
            exes[name] = None
            continue
        try:
            exes[name] = venvs.ensure(args.venv_root, peer, install=not args.no_install)
        except PeerUnavailable as exc:
            skipped[name] = str(exc)
    versions = {n: venvs.version(e) for n, e in exes.items() if e is not None}
    mock, port = start_mock(args, args.out / "mock.log")
    results: list[Result] = []
    failures: list[str] = []
    try:
        for repeat in range(args.repeat):
            for streams in args.streams:
                for name in args.tools:
                    if name in skipped:
                        continue
                    tool = TOOLS[name]
                    cell = Cell(
                        url=f"http://127.0.0.1:{port}",
                        streams=streams,
                        seconds=args.seconds,
                        out=args.out / "cells" / f"{name}-{streams}-r{repeat}",
                        datasets=datasets,
                        tokenizer=tokenizer,
                    )
                    got, why = run_cell(tool, exes.get(name), cell, port, args, repeat)
                    if not got:
                        failures.append(f"{tool.label} at {streams} streams (run {repeat}): {why}")
                        print(f"peers: {failures[-1]}", file=sys.stderr)
                    results.extend(got)
                    for result in got:
                        print(
                            f"peers: {result.tool:24s} {streams:3d} streams run {repeat}: "
                            f"TTFT err {result.ttft_err[0]:+.1f}/{result.ttft_err[1]:+.1f} ms, "
                            f"ITL err {result.itl_err[0]:+.2f}/{result.itl_err[1]:+.2f} ms, "
                            f"{result.cpu_ms_per_1k:.0f} CPU ms/1k events",
                            file=sys.stderr,
                        )
    finally:
        mock.terminate()
        mock.wait(10)
    labels = {n: t.label + (f" {versions[n]}" if n in versions else "") for n, t in TOOLS.items()}
    labels.update({f"{r.tool}": f"{labels[r.tool.split(':')[0]]} [{r.tool.split(':')[1]}]"
                   for r in results if ":" in r.tool})  # fmt: skip
    lines = rows(results, labels, list(TOOLS))
    notes = [f"- not run: {TOOLS[n].label}: {why}" for n, why in skipped.items()]
    notes += [f"- failed: {f}" for f in failures]
    load = os.getloadavg()
    text = "\n".join(
        [
            f"mock --ttft {args.ttft:g} --inter-token {args.inter_token:g}; {args.seconds:g} s "
            f"per cell; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
            f"tool on CPU {args.tool_core if not args.no_pin else '(unpinned)'}",
            "",
            *lines,
            "",
            *notes,
        ]
    )
    print(text)
    (args.out / "table.md").write_text(text + "\n")
    (args.out / "results.json").write_text(
        json.dumps(
            {
                "versions": versions,
                "skipped": skipped,
                "failures": failures,
                "cells": [dataclasses.asdict(r) for r in results],
                "rusage_self_s": resource.getrusage(resource.RUSAGE_SELF).ru_utime,
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
