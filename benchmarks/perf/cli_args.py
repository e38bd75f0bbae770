"""argparse ``type=`` helpers shared by the performance benchmarks (``benchmarks/perf``).

A count, duration, port or CPU that makes no sense (no rounds, no streams, a negative time, a
port out of range, a CPU this process may not run on) is refused while the command line is
parsed: each helper raises :class:`argparse.ArgumentTypeError`, so argparse prints the usage and
one line naming the flag (``error: argument --rounds: expected an integer >= 1, got '0'``) and
exits 2, before any server starts or any corpus is read. The same way in every benchmark.
:func:`add_code_and_json` and :func:`emit` are the ``--code`` / ``--json`` pair of the
before-and-after memory benchmarks (run on another checkout; the figures printed and written).
A port is ``conformance.cli_options.port_number``, the type every CLI of the project takes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from benchmarks.responses_bench.units import parse_seconds

__all__ = [
    "add_code_and_json",
    "allowed_cpu",
    "emit",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "positive_ints",
    "run_time",
]


def _integer(text: str, bound: str, ok: Callable[[int], bool]) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"expected an integer {bound}, got {text!r}")
    return value


def _number(text: str, bound: str, ok: Callable[[float], bool]) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not ok(value):
        raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A count of things that must happen at least once: rounds, streams, connections, …"""
    return _integer(text, ">= 1", lambda v: v >= 1)


def non_negative_int(text: str) -> int:
    """A count that may be zero (a warm-up that can be skipped)."""
    return _integer(text, ">= 0", lambda v: v >= 0)


def positive_float(text: str) -> float:
    """A finite number > 0: seconds of a run, a timeout, a scale factor, a ratio."""
    return _number(text, "> 0", lambda v: v > 0)


def non_negative_float(text: str) -> float:
    """A finite number >= 0: a delay that may be none."""
    return _number(text, ">= 0", lambda v: v >= 0)


def positive_ints(text: str) -> list[int]:
    """``1,8,64``: a comma-separated list of distinct integers, each >= 1 (a level or a count
    given twice would be run twice under one key)."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1 or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(
            f"expected distinct integers >= 1, comma-separated (e.g. 1,8,64), got {text!r}"
        )
    return values


def run_time(text: str) -> str:
    """A ``responses-bench -t``: a positive whole number of seconds (``20s``, ``2m``, ``90``),
    returned as written (it is passed on and reported as given)."""
    try:
        seconds = parse_seconds(text, "")
    except ValueError:
        seconds = math.nan
    if not seconds > 0 or seconds != int(seconds):
        raise argparse.ArgumentTypeError(
            f"expected a whole number of seconds > 0 (e.g. 20s, 90, 2m), got {text!r}"
        )
    return text


def _ranges(cpus: Iterable[int]) -> str:
    """``0-3,8``: a CPU set the way ``taskset -c`` writes it."""
    spans: list[list[int]] = []
    for cpu in sorted(cpus):
        if spans and cpu == spans[-1][1] + 1:
            spans[-1][1] = cpu
        else:
            spans.append([cpu, cpu])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def allowed_cpu(text: str) -> int:
    """A CPU to pin a process to: one this process may run on (``os.sched_getaffinity``), where
    the OS tells; otherwise any CPU number >= 0."""
    cpu = non_negative_int(text)
    if hasattr(os, "sched_getaffinity"):
        allowed = os.sched_getaffinity(0)
        if cpu not in allowed:
            raise argparse.ArgumentTypeError(
                f"CPU {text!r} is not one this process may run on (allowed: {_ranges(allowed)})"
            )
    return cpu


def add_code_and_json(parser: argparse.ArgumentParser) -> None:
    """``--code DIR`` (the checkout whose servers run: main's code exported for the "before") and
    ``--json FILE`` (the figures written there too)."""
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the checkout whose proxy and mock run (default: this one)")  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="write the figures here too")


def emit(result: Any, path: Path | None) -> int:
    """Print ``result`` as indented JSON, write it to ``path`` too when given; exit code 0."""
    text = json.dumps(result, indent=2)
    print(text)
    if path is not None:
        path.write_text(text + "\n")
    return 0
