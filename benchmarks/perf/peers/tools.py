"""The tools under test: how each is started for one cell, and how its numbers are read back.

Each parser reads the tool's own output file and returns TTFT / ITL p50 and p99 in ms with the
ITL definition the tool uses (``truth.ITL_GAP`` or ``truth.ITL_REQUEST``), so the table compares
each tool with the same definition taken on the wire.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.perf.errors import ParseError
from benchmarks.perf.peers.truth import ITL_GAP, ITL_REQUEST, ITL_TPOT, Reported

PLAIN_LOCUSTFILE = Path(__file__).with_name("plain_locustfile.py")
MODEL = "mock"


@dataclass
class Cell:
    """What a tool needs to run one cell."""

    url: str  # http://127.0.0.1:PORT (no /v1)
    streams: int
    seconds: float
    out: Path  # the cell's own output directory
    datasets: dict[str, Path]
    tokenizer: str  # a Hub repo id present in the offline HF cache


@dataclass
class Tool:
    name: str
    label: str
    command: Callable[[Cell, Path | None], list[str]]
    parse: Callable[[Path], Reported]
    peer: str | None = None  # the venvs.PINS key when the tool is a peer
    env: Callable[[Cell], dict[str, str]] | None = None
    #: more numbers from the same run under another ITL definition: (suffix, numbers)
    variants: Callable[[Path], list[tuple[str, Reported]]] | None = None


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


# --- responses-bench ---------------------------------------------------------------------------


def _ours(validate: bool) -> Callable[[Cell, Path | None], list[str]]:
    def command(cell: Cell, _exe: Path | None) -> list[str]:
        cmd = [
            _bin("responses-bench"),
            "--base-url", f"{cell.url}/v1", "--model", MODEL,
            "-u", str(cell.streams), "-r", str(cell.streams), "-t", f"{cell.seconds:g}s",
            "--workload", str(cell.datasets["workload"]), "--max-output-tokens", "0",
            "--report-dir", str(cell.out), "--progress-interval", "60s",
        ]  # fmt: skip
        return cmd if validate else [*cmd, "--no-validate"]

    return command


def parse_ours(out: Path) -> Reported:
    """summary.json: latency_ms.ttft / .itl (every gap between output deltas)."""
    try:
        summary = json.loads((out / "summary.json").read_text())
        lat = summary["latency_ms"]
        return Reported(
            ttft_p50=float(lat["ttft"]["p50"]),
            ttft_p99=float(lat["ttft"]["p99"]),
            itl_p50=float(lat["itl"]["p50"]),
            itl_p99=float(lat["itl"]["p99"]),
            itl_kind=ITL_GAP,
            requests=int(summary["requests"]["succeeded"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"responses-bench summary.json: {exc!r}") from exc


def tpot_of_ours(out: Path) -> list[tuple[str, Reported]]:
    """summary.json's TPOT, (e2e - TTFT) / (output tokens - 1): the per-request figure that
    compares with GuideLLM's and AIPerf's ITL."""
    rep = parse_ours(out)
    try:
        tpot = json.loads((out / "summary.json").read_text())["latency_ms"]["tpot"]
        rep.itl_p50, rep.itl_p99 = float(tpot["p50"]), float(tpot["p99"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"responses-bench summary.json tpot: {exc!r}") from exc
    rep.itl_kind = ITL_TPOT
    return [("tpot", rep)]


# --- a plain Locust user -----------------------------------------------------------------------


def _plain_command(cell: Cell, _exe: Path | None) -> list[str]:
    return [
        _bin("locust"), "-f", str(PLAIN_LOCUSTFILE), "--headless", "--host", cell.url,
        "-u", str(cell.streams), "-r", str(cell.streams), "-t", f"{cell.seconds:g}s",
        "--csv", str(cell.out / "plain"), "--only-summary", "--loglevel", "WARNING",
    ]  # fmt: skip


def _plain_env(cell: Cell) -> dict[str, str]:
    return {"PEERS_PROMPTS": str(cell.datasets["workload"]), "PEERS_MODEL": MODEL}


def parse_locust_csv(out: Path) -> Reported:
    """plain_stats.csv: the TTFT and ITL rows' 50% and 99% columns (Locust's rounded buckets)."""
    try:
        with (out / "plain_stats.csv").open(newline="") as fh:
            rows = {row["Name"]: row for row in csv.DictReader(fh)}
        ttft, itl = rows["TTFT"], rows["ITL"]
        requests = rows.get("/v1/responses", {}).get("Request Count")
        return Reported(
            ttft_p50=float(ttft["50%"]),
            ttft_p99=float(ttft["99%"]),
            itl_p50=float(itl["50%"]),
            itl_p99=float(itl["99%"]),
            itl_kind=ITL_GAP,
            requests=int(requests) if requests else int(ttft["Request Count"]),
        )
    except (OSError, ValueError, KeyError) as exc:
        raise ParseError(f"locust plain_stats.csv: {exc!r}") from exc


# --- GuideLLM ----------------------------------------------------------------------------------


def guidellm_scenario(cell: Cell) -> dict[str, Any]:
    return {
        "metadata": {"name": "responses-conformance-peers"},
        "spec": {
            "backend": {
                "kind": "openai_http",
                "target": cell.url,
                "model": MODEL,
                "request_format": "/v1/responses",
                "http2": False,
                # GET /health first, which OpenAI's API (and the mock) answer 404
                "validate_backend": False,
                "stream": True,
            },
            "profile": {"kind": "concurrent", "streams": [cell.streams]},
            "constraints": [{"kind": "max_duration", "seconds": cell.seconds}],
            "tokenizer": {"kind": "huggingface_auto", "model": cell.tokenizer},
            "data": [{"kind": "json_file", "path": str(cell.datasets["guidellm"])}],
            "outputs": [{"kind": "json", "path": str(cell.out / "benchmarks.json")}],
        },
    }


def _guidellm_command(cell: Cell, exe: Path | None) -> list[str]:
    scenario = cell.out / "scenario.json"
    scenario.write_text(json.dumps(guidellm_scenario(cell), indent=1))
    return [str(exe), "run", "--scenario", str(scenario), "--disable-console-interactive"]


def parse_guidellm(out: Path) -> Reported:
    """benchmarks.json: metrics.{time_to_first_token_ms, inter_token_latency_ms}.successful —
    GuideLLM's ITL is per request, (last token - first token) / (output tokens - 1)."""
    try:
        bench = json.loads((out / "benchmarks.json").read_text())["benchmarks"][0]
        metrics = bench["metrics"]
        ttft = metrics["time_to_first_token_ms"]["successful"]["percentiles"]
        itl = metrics["inter_token_latency_ms"]["successful"]["percentiles"]
        made = bench["scheduler_metrics"]["requests_made"]["successful"]
        return Reported(
            ttft_p50=float(ttft["p50"]),
            ttft_p99=float(ttft["p99"]),
            itl_p50=float(itl["p50"]),
            itl_p99=float(itl["p99"]),
            itl_kind=ITL_REQUEST,
            requests=int(made),
        )
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ParseError(f"guidellm benchmarks.json: {exc!r}") from exc


# --- AIPerf ------------------------------------------------------------------------------------


def _aiperf_command(cell: Cell, exe: Path | None) -> list[str]:
    return [
        str(exe), "profile", "--model", MODEL, "--url", cell.url,
        "--endpoint-type", "responses", "--streaming",
        "--concurrency", str(cell.streams),
        "--benchmark-duration", f"{cell.seconds:g}", "--benchmark-grace-period", "30",
        "--input-file", str(cell.datasets["aiperf"]), "--custom-dataset-type", "single_turn",
        "--tokenizer", cell.tokenizer, "--use-server-token-count",
        "--output-artifact-dir", str(cell.out),
        "--ui-type", "none", "--no-server-metrics", "--no-gpu-telemetry",
        "--workers-max", "1", "--random-seed", "0",
    ]  # fmt: skip


def icl_of_aiperf(out: Path) -> list[tuple[str, Reported]]:
    """AIPerf's inter_chunk_latency: every gap between content chunks, as ours and Locust's."""
    rep = parse_aiperf(out)
    try:
        icl = json.loads((out / "profile_export_aiperf.json").read_text())["inter_chunk_latency"]
        if icl.get("unit") != "ms":
            raise ValueError(f"unit {icl.get('unit')!r}")
        rep.itl_p50, rep.itl_p99 = float(icl["p50"]), float(icl["p99"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"aiperf inter_chunk_latency: {exc!r}") from exc
    rep.itl_kind = ITL_GAP
    return [("inter-chunk", rep)]


def parse_aiperf(out: Path) -> Reported:
    """profile_export_aiperf.json: time_to_first_token and inter_token_latency — AIPerf's ITL is
    per request, (request latency - TTFT) / (output tokens - 1), request latency ending at the
    last content chunk."""
    try:
        data = json.loads((out / "profile_export_aiperf.json").read_text())
        ttft, itl = data["time_to_first_token"], data["inter_token_latency"]
        if ttft.get("unit") != "ms" or itl.get("unit") != "ms":
            raise ValueError(f"units {ttft.get('unit')!r}, {itl.get('unit')!r}")
        count = data.get("request_count", {}).get("avg")
        return Reported(
            ttft_p50=float(ttft["p50"]),
            ttft_p99=float(ttft["p99"]),
            itl_p50=float(itl["p50"]),
            itl_p99=float(itl["p99"]),
            itl_kind=ITL_REQUEST,
            requests=int(count) if count is not None else None,
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"aiperf profile_export_aiperf.json: {exc!r}") from exc


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("ours", "responses-bench", _ours(True), parse_ours, variants=tpot_of_ours),
        Tool("ours-novalidate", "responses-bench --no-validate", _ours(False), parse_ours,
             variants=tpot_of_ours),
        Tool("locust-plain", "plain Locust HttpUser", _plain_command, parse_locust_csv,
             env=_plain_env),
        Tool("guidellm", "GuideLLM", _guidellm_command, parse_guidellm, peer="guidellm"),
        Tool("aiperf", "AIPerf", _aiperf_command, parse_aiperf, peer="aiperf",
             variants=icl_of_aiperf),
    )
}  # fmt: skip
