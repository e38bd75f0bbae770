"""Linear work in every input dimension, counted, not timed: the Python lines the judge
executes (``sys.settrace``) on an input of size n and of size 10n, for each dimension of
``benchmarks/perf/scaling.py`` whose work is in Python. Quadratic code — like the text report that
compared every violation with a list of them (20k tiny events: 148 s) — executes ~100× the lines
at 10n; linear code ~10×. The bound, 15×, is generous. The decoder's floods and long lines, whose
work is in C (``bytes.rfind``, regular expressions, buffer copies), are counted in bytes by
test_sse_floods.py."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from benchmarks.perf.scaling import DIMENSIONS

COUNTED = {
    # dimension: base size (small: tracing costs ~30× the work)
    "decoder.one_byte_chunks": 600,
    "judge.keepalive_flood_per_read": 100,
    "validator.items": 5,
    "validator.parts": 5,
    "validator.annotations": 5,
    "validator.deltas": 20,
    "check.text_report": 30,
    "check.json_report": 30,
    "suite.reports": 10,
}


def _lines(work: Any) -> int:
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("name", COUNTED)
def test_ten_times_the_input_is_at_most_fifteen_times_the_work(name: str, tmp_path: Path) -> None:
    _, build = DIMENSIONS[name]
    n = COUNTED[name]
    build(n, tmp_path)()  # warm-up: schemas compiled, modules imported, caches filled
    small = _lines(build(n, tmp_path))
    large = _lines(build(10 * n, tmp_path))
    assert small > 0
    assert large <= 15 * small, f"{name}: {large / small:.1f}× the lines at 10× the input"
