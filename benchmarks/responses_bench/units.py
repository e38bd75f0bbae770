"""Durations as ``responses-bench`` reads them, one rule for every option (sans-I/O).

**A bare number is seconds**, everywhere: ``-t 3``, ``--read-timeout 120``,
``--slo ttft_p95=0.5`` and ``--late-after 0.05`` all mean seconds (Locust's ``-t`` habit). With a
unit a value reads the same in every option: ``500ms``, ``0.5s``, ``2m``, ``1h``, ``1m30s``,
``1h30m``. Thresholds are kept in milliseconds inside the bench (``threshold_ms`` in summary.json).
"""

from __future__ import annotations

import math
import re

__all__ = ["DURATION_HELP", "parse_seconds"]

DURATION_HELP = "a bare number is seconds; or 500ms, 2.5s, 2m, 1h30m"

_NUMBER = r"(\d+(?:\.\d+)?|\.\d+)"
_PART = re.compile(_NUMBER + r"(h|ms|m|s)")
_SCALE = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_ORDER = ("h", "m", "s", "ms")


def parse_seconds(text: str | float | int, what: str, *, allow_zero: bool = True) -> float:
    """Seconds from ``text``; raises :class:`ValueError` naming ``what`` (the option) otherwise."""
    if isinstance(text, bool):
        raise ValueError(f"{what}: expected a duration ({DURATION_HELP})")
    value = float(text) if isinstance(text, int | float) else _parse(text.strip().lower(), what)
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{what}: must be {bound} ({DURATION_HELP})")
    return value


def _parse(text: str, what: str) -> float:
    error = ValueError(f"{what}: {text!r} is not a duration ({DURATION_HELP})")
    if not text:
        raise error
    if re.fullmatch(_NUMBER, text):
        return float(text)
    total, position, last = 0.0, 0, -1
    for match in _PART.finditer(text):
        unit = match[2]
        rank = _ORDER.index(unit)
        if match.start() != position or rank <= last:
            raise error  # junk between parts, or units out of order / repeated (1s1m, 5s5s)
        total += float(match[1]) * _SCALE[unit]
        position, last = match.end(), rank
    if position != len(text):
        raise error
    return total
