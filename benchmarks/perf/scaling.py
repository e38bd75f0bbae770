"""Linear time in every input dimension: each dimension swept ×1, ×10 and ×100.

For every dimension this builds an input of size n, 10n and 100n, times the judge's work on it
(CPU time of this process, in equal-work samples: see below) and prints the time ratios next to the
size ratios. ``ratio/linear`` is ``(t(kn) / t(n)) / k``: 1.0 is linear, 10 would be quadratic at
×10. Acceptance: every one ≤ 1.3.

Dimensions:
- decoder: comment (keep-alive) lines, blank lines, one long ``data:`` field fed in 1 KiB chunks,
  a stream fed 1 byte per ``feed``;
- live judge (:class:`SSEStreamValidator`): a keep-alive flood between the events of a stream,
  in one chunk and one comment per read;
- validator: output items, content parts in one item, annotations on one part, text deltas;
- offline ``check``: the text report, and ``--format json``, of a JSONL file whose every event
  breaks a rule;
- suite reports: index.json, junit.xml and report.html of a target with many violations.

Every size is timed on the same amount of work: a sample of size n runs it 100 times, of 10n 10
times, of 100n once, and the time per run is the sample's time divided by that. The three sizes'
samples alternate, ``--repeat`` rounds of them, and each size's time is the mean of its samples
(the rounds alternate the sizes, so a slow moment weighs on all alike). Timing one run of each
size, the best of three, instead biased the ratios up by as much as the machine's speed wanders:
on this project's 2-core VM the CPU's speed wanders by up to 1.7× over tenths of a second, so
the best of three 1 ms runs finds a fast moment while a 1 s run of the ×100 size averages over
slow ones (the worst ratio moved between 1.20 and 1.46 between quiet runs of the same code).
A sample also lasts at least ``MIN_SAMPLE_S`` (0.1 CPU-s): where one run of the ×100 size is
quicker, every size's sample repeats its runs by the same factor. A 20 ms sample was still at the
mercy of one slow moment: the 10 MB field read ×100 at 1.36× linear in one quiet run and
0.89-1.15× in the next three; with 0.1 s samples, 0.95-0.98×.

Memory: on glibc the sweep first pins the allocator (``mallopt``: no ``mmap`` for large blocks, no
trimming of the heap), so that every size reuses memory the warm-up runs touched. Otherwise the
sizes straddle glibc's mmap threshold: a 100 KB field's buffers are reused from the heap, a 10 MB
field's are fresh mappings each run, and half of the ×100 run's CPU time was the kernel zeroing
pages (4,852 minor faults; user time alone was linear, 1.0×), which is the allocator's cost, not
the decoder's. ``--fresh-memory`` skips the pinning (the raw numbers); the JSON output records the
minor page faults of each timed run either way.

Run: ``python -m benchmarks.perf.scaling`` (``--base N`` scales every dimension; ``--only NAME``).
Sizes are small enough for a shared 2-core machine (a few minutes in all).
"""

from __future__ import annotations

import argparse
import ctypes
import io
import json
import math
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.perf.cli_args import positive_float, positive_int
from conformance.sse import SSEDecoder
from conformance.sse.framing import SSEStreamValidator

__all__ = ["DIMENSIONS", "main", "sweep"]

Event = dict[str, Any]


# --------------------------------------------------------------------------- stream builders


def _response(status: str, output: list[Any]) -> dict[str, Any]:
    return {
        "id": "resp_scaling",
        "object": "response",
        "created_at": 1_700_000_000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "m",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": None,
        "user": None,
        "metadata": {},
    }


def _stream(items: int, parts: int, annotations: int, deltas: int) -> list[Event]:
    """A well-formed stream: ``items`` messages of ``parts`` output_text parts, each streamed in
    ``deltas`` deltas and carrying ``annotations`` url citations."""
    events: list[Event] = [
        {"type": "response.created", "response": _response("in_progress", [])},
        {"type": "response.in_progress", "response": _response("in_progress", [])},
    ]
    output = []
    for i in range(items):
        item_id = f"msg_{i}"
        events.append(
            {
                "type": "response.output_item.added",
                "output_index": i,
                "item": {
                    "id": item_id,
                    "type": "message",
                    "status": "in_progress",
                    "role": "assistant",
                    "content": [],
                },
            }
        )
        content = []
        for p in range(parts):
            where = {"item_id": item_id, "output_index": i, "content_index": p}
            empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            events.append({"type": "response.content_part.added", **where, "part": empty})
            text = "".join(f"w{d} " for d in range(deltas))
            for d in range(deltas):
                events.append(
                    {
                        "type": "response.output_text.delta",
                        **where,
                        "delta": f"w{d} ",
                        "logprobs": [],
                    }
                )
            notes = []
            for a in range(annotations):
                note = {
                    "type": "url_citation",
                    "start_index": 0,
                    "end_index": 1,
                    "url": f"https://example.com/{a}",
                    "title": "t",
                }
                notes.append(note)
                events.append(
                    {
                        "type": "response.output_text.annotation.added",
                        **where,
                        "annotation_index": a,
                        "annotation": note,
                    }
                )
            events.append(
                {"type": "response.output_text.done", **where, "text": text, "logprobs": []}
            )
            part = {"type": "output_text", "text": text, "annotations": notes, "logprobs": []}
            events.append({"type": "response.content_part.done", **where, "part": part})
            content.append(part)
        item = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": content,
        }
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
        output.append(item)
    done = _response("completed", output)
    done["usage"] = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": max(1, items * parts * deltas),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 1 + max(1, items * parts * deltas),
    }
    events.append({"type": "response.completed", "response": done})
    for seq, event in enumerate(events):
        event["sequence_number"] = seq
    return events


def _sse(events: list[Event]) -> bytes:
    return b"".join(
        b"event: %s\ndata: %s\n\n" % (e["type"].encode(), json.dumps(e).encode()) for e in events
    )


# --------------------------------------------------------------------------- workloads


def _decode(data: bytes, chunk: int | None = None, limit: int | None = None) -> Callable[[], Any]:
    def run() -> Any:
        decoder = SSEDecoder() if limit is None else SSEDecoder(max_event_bytes=limit)
        if chunk is None:
            decoder.feed(data)
        else:
            view = memoryview(data)
            for start in range(0, len(data), chunk):
                decoder.feed(bytes(view[start : start + chunk]))
        return decoder.close()

    return run


def _judge(data: bytes, chunk: int | None = None) -> Callable[[], Any]:
    def run() -> Any:
        validator = SSEStreamValidator()
        if chunk is None:
            validator.feed(data)
        else:
            for start in range(0, len(data), chunk):
                validator.feed(data[start : start + chunk])
        return validator.close()

    return run


def _keepalive_flood(n: int) -> bytes:
    """A stream whose deltas are separated by ``n`` keep-alive comments in all."""
    events = _stream(1, 1, 0, 20)
    blocks = _sse(events).split(b"\n\n")
    per = n // len(blocks) + 1
    return b"".join(block + b"\n\n" + b": keep-alive\n\n" * per for block in blocks if block)


def _check(path: Path, fmt: str) -> Callable[[], Any]:
    from conformance.cli import main as cli_main

    def run() -> Any:
        saved = sys.stdout
        sys.stdout = io.StringIO()
        try:
            return cli_main(["check", "--format", fmt, str(path)])
        finally:
            sys.stdout = saved

    return run


def _bad_jsonl(n: int, tmp: Path) -> Path:
    """``n`` tiny events, each with MUST violations (a delta without its fields, out of sequence),
    as in the issue's 1M-event file."""
    path = tmp / f"bad-{n}.jsonl"
    lines = [json.dumps({"type": "response.output_text.delta", "sequence_number": 0})] * n
    path.write_text("\n".join(lines) + "\n")
    return path


def _reports(n: int, tmp: Path) -> Callable[[], Any]:
    """index.json, junit.xml and report.html of one target whose ``n`` cases each failed,
    with a secret to redact (the redactor runs over everything written)."""
    from cassettes.redaction import Redactor
    from conformance.catalog.registry import REGISTRY, Violation
    from conformance.suite.reporting import build_index, write_reports
    from conformance.suite.results import CaseResult, Finding, TargetResult
    from conformance.suite.targets import embedded_target

    ids = sorted(REGISTRY)
    result = TargetResult(target=embedded_target(), strict=False)
    for i in range(n):
        check = REGISTRY[ids[i % len(ids)]]
        case_id = f"core/case_{i}"
        violation = Violation(check, i, f"expected {i}", f"actual {i}", path=f"output[{i}].id")
        evidence = {"request": {"input": f"prompt {i}"}, "events": [{"type": "e", "i": i}]}
        finding = Finding(violation, case_id, 1, evidence)
        result.cases.append(
            CaseResult(case_id, ("core",), (check.id,), outcome="failed", findings=[finding])
        )
    redactor = Redactor(["sk-scaling-secret"])
    out = tmp / f"reports-{n}"

    def run() -> Any:
        return write_reports(build_index([result], strict=False), out, redactor)

    return run


Builder = Callable[[int, Path], Callable[[], Any]]

DIMENSIONS: dict[str, tuple[int, Builder]] = {
    # name: (base size n, builder(size, tmp) -> the work to time)
    "decoder.comment_lines": (2_000, lambda n, _: _decode(b": keep-alive\n" * n)),
    "decoder.blank_lines": (4_000, lambda n, _: _decode(b"\n" * n)),
    "decoder.comments_between_events": (
        1_000,
        lambda n, _: _decode(b'event: e\ndata: {"a":1}\n\n: ka\n' * n),
    ),
    "decoder.long_field_1k_chunks": (
        # 100 KB to 10 MB (the limit raised past 16 MiB for larger --base)
        10_000,
        lambda n, _: _decode(b"data: " + b"x" * (n * 10) + b"\n\n", chunk=1024, limit=1 << 30),
    ),
    "decoder.one_byte_chunks": (
        600,
        lambda n, _: _decode(b'event: e\ndata: {"a":1}\n\n' * (n // 24 + 1), chunk=1),
    ),
    "judge.keepalive_flood_one_chunk": (2_000, lambda n, _: _judge(_keepalive_flood(n))),
    "judge.keepalive_flood_per_read": (
        2_000,
        lambda n, _: _judge(_keepalive_flood(n), chunk=14),
    ),
    "validator.items": (20, lambda n, _: _judge(_sse(_stream(n, 1, 0, 2)))),
    "validator.parts": (20, lambda n, _: _judge(_sse(_stream(1, n, 0, 2)))),
    "validator.annotations": (20, lambda n, _: _judge(_sse(_stream(1, 1, n, 2)))),
    "validator.deltas": (100, lambda n, _: _judge(_sse(_stream(1, 1, 0, n)))),
    "check.text_report": (200, lambda n, tmp: _check(_bad_jsonl(n, tmp), "text")),
    "check.json_report": (200, lambda n, tmp: _check(_bad_jsonl(n, tmp), "json")),
    "suite.reports": (50, _reports),
}


def keep_heap() -> bool:
    """Pin glibc's allocator (see the module docstring): large blocks from the heap, never
    returned to the kernel. False where there is no glibc ``mallopt`` (nothing changed)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    return bool(mallopt(m_mmap_threshold, 1 << 30)) and bool(mallopt(m_trim_threshold, 1 << 30))


FAULTS: list[int] = []  # minor page faults per run, the most of any sample, in the order timed


SCALES = (1, 10, 100)


def _sample(run: Callable[[], Any], times: int) -> tuple[float, int]:
    """CPU seconds per run over ``times`` runs in a row, and the minor page faults per run."""
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.process_time()
    for _ in range(times):
        run()
    elapsed = time.process_time() - t0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    return elapsed / times, faults // times


MIN_SAMPLE_S = 0.1  # CPU seconds one sample takes at least (see the module docstring)


def _timed(works: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The mean time per run of each work (sizes ``SCALES``) over ``repeat`` rounds in which
    each takes one sample of equal work, the sizes alternating (see the module docstring)."""
    total = [0.0] * len(works)
    faults = [0] * len(works)
    largest, _ = _sample(works[-1], 1)  # also its warm-up
    times = max(1, math.ceil(MIN_SAMPLE_S / max(largest, 1e-6)))
    for _ in range(repeat):
        for i, (work, k) in enumerate(zip(works, SCALES, strict=True)):
            elapsed, minor = _sample(work, SCALES[-1] // k * times)
            total[i] += elapsed
            faults[i] = max(faults[i], minor)
    FAULTS.extend(faults)
    return [max(t / repeat, 1e-9) for t in total]


def sweep(
    names: list[str] | None = None, *, base: float = 1.0, repeat: int = 5, fresh: bool = False
) -> Iterator[tuple[str, int, list[float]]]:
    """``(dimension, n, [t(n), t(10n), t(100n)])`` per dimension, each the mean of ``repeat``
    equal-work samples; ``fresh``: leave the allocator as it is (see the module docstring)."""
    if not fresh:
        keep_heap()
    with tempfile.TemporaryDirectory(prefix="scaling-") as tmp_dir:
        tmp = Path(tmp_dir)
        for name, (size, build) in DIMENSIONS.items():
            if names and name not in names:
                continue
            n = max(1, int(size * base))
            build(n, tmp)()  # warm-up: schemas compiled, caches filled, modules imported
            works = [build(n * k, tmp) for k in SCALES]
            yield name, n, _timed(works, max(1, repeat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.perf.scaling", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--only", action="append", choices=list(DIMENSIONS), metavar="NAME", help="one dimension"
    )
    parser.add_argument("--base", type=positive_float, default=1.0, help="scale every base size")
    parser.add_argument(
        "--repeat", type=positive_int, default=5, help="rounds of equal-work samples"
    )
    parser.add_argument(
        "--fresh-memory",
        action="store_true",
        help="do not pin glibc's allocator (large sizes then also time the kernel's page faults)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'dimension':<36} {'n':>7} {'t(n) ms':>9} {'×10/lin':>8} {'×100/lin':>9}")
    worst = 0.0
    timed = sweep(args.only, base=args.base, repeat=args.repeat, fresh=args.fresh_memory)
    for name, n, (t1, t10, t100) in timed:
        r10, r100 = t10 / t1 / 10, t100 / t1 / 100
        worst = max(worst, r10, r100)
        rows.append(
            {
                "dimension": name,
                "n": n,
                "seconds": [t1, t10, t100],
                "ratio": [r10, r100],
                "minor_faults": FAULTS[-3:],
            }
        )
        print(f"{name:<36} {n:>7} {t1 * 1000:>9.2f} {r10:>8.2f} {r100:>9.2f}", flush=True)
    print(f"worst ratio/linear: {worst:.2f} (acceptance ≤ 1.3)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if worst <= 1.3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
