"""The published table: one row per tool and concurrency, medians with the spread over repeats."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from benchmarks.perf.peers.truth import Cell, spread


def fmt(values: Sequence[float], signed: bool = True, digits: int = 1) -> str:
    med, lo, hi = spread(values)
    if math.isnan(med):
        return "n/a"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    if len([v for v in values if not math.isnan(v)]) < 2:
        return f.format(med)
    return f"{f.format(med)} [{f.format(lo)}…{f.format(hi)}]"


HEADER = (
    "| tool | streams | runs | truth TTFT p50 / p99 ms | TTFT err p50 | TTFT err p99 "
    "| ITL def | truth ITL p50 / p99 ms | ITL err p50 | ITL err p99 "
    "| CPU ms / 1k events (load) | CPU ms / 1k events (whole run) |"
)


def rows(cells: Iterable[Cell], labels: dict[str, str], order: Sequence[str]) -> list[str]:
    groups: dict[tuple[str, int], list[Cell]] = {}
    for c in cells:
        groups.setdefault((c.tool, c.streams), []).append(c)
    rank = {name: i for i, name in enumerate(order)}
    out = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
    for (tool, streams), group in sorted(
        groups.items(), key=lambda kv: (kv[0][1], rank.get(kv[0][0].split(":")[0], 99), kv[0][0])
    ):
        truth_ttft = f"{fmt([g.truth_ttft[0] for g in group], False)} / " + fmt(
            [g.truth_ttft[1] for g in group], False
        )
        truth_itl = f"{fmt([g.truth_itl[0] for g in group], False, 2)} / " + fmt(
            [g.truth_itl[1] for g in group], False, 2
        )
        out.append(
            "| "
            + " | ".join(
                [
                    labels.get(tool, tool),
                    str(streams),
                    str(len(group)),
                    truth_ttft,
                    fmt([g.ttft_err[0] for g in group]),
                    fmt([g.ttft_err[1] for g in group]),
                    group[0].itl_kind,
                    truth_itl,
                    fmt([g.itl_err[0] for g in group], digits=2),
                    fmt([g.itl_err[1] for g in group], digits=2),
                    fmt([g.cpu_ms_per_1k for g in group], False, 0),
                    fmt([g.cpu_total_ms_per_1k for g in group], False, 0),
                ]
            )
            + " |"
        )
    return out
