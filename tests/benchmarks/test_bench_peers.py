"""benchmarks/perf/peers: the wire parser, the truth arithmetic, the tools' output parsers and the
table — no peer installed, no capture, no network (the live run is `tox -e peers`)."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest

from benchmarks.perf.errors import ParseError
from benchmarks.perf.peers import offline, table, tools, truth, wire
from benchmarks.perf.peers.__main__ import parser
from benchmarks.perf.process_cpu import cpu_at

PORT = 8000


def frame(sport: int, dport: int, seq: int, payload: bytes = b"", flags: int = 0x18) -> bytes:
    """An Ethernet + IPv4 + TCP frame as lo delivers it (zero MACs)."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 1, 0x4000, 64, 6, 0,
        bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]),
    )  # fmt: skip
    return b"\x00" * 12 + b"\x08\x00" + ip + tcp + payload


def sse(kind: str, **data: object) -> bytes:
    body = json.dumps({"type": kind, **data}).encode()
    return b"event: " + kind.encode() + b"\ndata: " + body + b"\n\n"


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


REQUEST_BODY = b'{"model":"m","input":"hi","stream":true}'
REQUEST = (
    b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: " + str(len(REQUEST_BODY)).encode() + b"\r\n\r\n" + REQUEST_BODY
)
RESPONSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def one_exchange(client: int, t0: float, cseq: int = 1000, sseq: int = 5000) -> list[wire.Packet]:
    """A request in two segments; a response whose second delta is split over two packets and
    whose first delta packet is retransmitted."""
    created = chunk(sse("response.created"))
    d1 = chunk(sse("response.output_text.delta", delta="a"))
    d2 = chunk(sse("response.output_text.delta", delta="b"))
    done = chunk(sse("response.completed")) + b"0\r\n\r\n"
    down = [RESPONSE_HEAD + created, d1, d2[:10], d2[10:], done]
    times = [t0 + 0.050, t0 + 0.100, t0 + 0.115, t0 + 0.120, t0 + 0.130]
    packets: list[wire.Packet] = [
        (t0 - 0.001, frame(client, PORT, cseq - 1, flags=0x02)),  # SYN
        (t0, frame(client, PORT, cseq, REQUEST[:30])),
        (t0 + 0.002, frame(client, PORT, cseq + 30, REQUEST[30:])),
    ]
    seq = sseq
    for when, data in zip(times, down, strict=True):
        packets.append((when, frame(PORT, client, seq, data)))
        seq += len(data)
    retransmit = sseq + len(down[0])
    packets.append((t0 + 0.2, frame(PORT, client, retransmit, down[1])))
    return packets


def test_exchanges_times_request_and_events_from_reassembled_tcp() -> None:
    (ex,) = wire.exchanges(one_exchange(40000, 10.0), PORT)
    assert ex.status == 200 and ex.finished
    assert ex.request_at == 10.0 and ex.request_sent == pytest.approx(10.002)
    assert [k for _, k in ex.events] == [
        b"response.created",
        b"response.output_text.delta",
        b"response.output_text.delta",
        b"response.completed",
    ]
    # the split delta is complete when its second packet arrives; the retransmission is ignored
    assert ex.deltas == pytest.approx([10.100, 10.120])


def test_keep_alive_and_a_reused_client_port_are_separate_exchanges() -> None:
    first = one_exchange(40001, 1.0)
    # the same port opens a new connection (SYN) with an unrelated sequence space
    second = one_exchange(40001, 2.0, cseq=9_000_000, sseq=77)
    exs = wire.exchanges(first + second, PORT)
    assert [round(e.request_at, 3) for e in exs] == [1.0, 2.0]
    assert all(e.finished and len(e.deltas) == 2 for e in exs)


def test_a_capture_hole_stops_the_stream_at_what_is_contiguous() -> None:
    packets = one_exchange(40002, 0.0)
    # the first delta lost, and its retransmission too: nothing after the hole is trusted
    (ex,) = wire.exchanges([p for i, p in enumerate(packets) if i not in (4, 8)], PORT)
    assert not ex.finished and ex.deltas == []
    # lost once, then retransmitted: the delta arrived when the retransmission did
    (ex,) = wire.exchanges([p for i, p in enumerate(packets) if i != 4], PORT)
    assert ex.finished and ex.deltas == pytest.approx([0.2, 0.2])


def test_bpf_program_jumps_stay_inside_it() -> None:
    prog = wire.bpf_tcp_port(1234)
    jumps = [(i, jt, jf) for i, (code, jt, jf, _k) in enumerate(prog) if code & 0x07 == 0x05]
    assert len(jumps) == 5
    for i, jt, jf in jumps:
        assert i + 1 + jt < len(prog) and i + 1 + jf < len(prog)
    assert prog[-2][0] == prog[-1][0] == 0x06  # accept, drop
    assert [k for code, _, _, k in prog if code == 0x15][-2:] == [1234, 1234]


def test_percentile_is_linear_between_closest_ranks() -> None:
    assert truth.percentile([1, 2, 3, 4], 50) == 2.5
    assert truth.percentile([10, 0, 20], 99) == pytest.approx(19.8)
    assert truth.percentile([5], 99) == 5
    assert math.isnan(truth.percentile([], 50))


def _ex(at: float, deltas: list[float], end: float, status: int = 200) -> wire.WireExchange:
    ex = wire.WireExchange(at, at, status)
    ex.events = [(at + 0.01, b"response.created")]
    ex.events += [(d, b"response.output_text.delta") for d in deltas]
    ex.events.append((end, b"response.completed"))
    return ex


def test_truth_of_definitions() -> None:
    exs = [
        _ex(0.0, [0.100, 0.110, 0.130], 0.150),
        _ex(1.0, [1.200, 1.240], 1.240),
        _ex(2.0, [2.5], 2.6, status=500),  # not a success: events counted, no latency
        wire.WireExchange(3.0, 3.0, 200),  # no response at all
    ]
    t = truth.truth_of(exs)
    assert t.requests == 2
    assert t.events == 5 + 4 + 3
    assert t.ttft == pytest.approx([100.0, 200.0])
    assert t.itl[truth.ITL_GAP] == pytest.approx([10.0, 20.0, 40.0])
    assert t.itl[truth.ITL_REQUEST] == pytest.approx([15.0, 40.0])
    assert t.itl[truth.ITL_TPOT] == pytest.approx([25.0, 40.0])
    assert t.window == (0.0, 2.6)


def test_compare_is_tool_minus_truth_with_the_tools_itl_definition() -> None:
    t = truth.truth_of([_ex(0.0, [0.100, 0.110, 0.130], 0.150)])
    rep = truth.Reported(101.0, 99.0, 16.0, 14.0, truth.ITL_REQUEST, requests=1)
    cell = truth.compare("x", 4, 0, rep, t, (0.5, 2.0))
    assert cell.ttft_err == pytest.approx((1.0, -1.0))
    assert cell.itl_err == pytest.approx((1.0, -1.0))
    assert cell.cpu_ms_per_1k == pytest.approx(0.5 * 1000 / 5 * 1000)
    assert cell.cpu_total_ms_per_1k == pytest.approx(400_000.0)
    assert math.isnan(truth.cpu_per_1k(1.0, 0))


def test_cpu_at_interpolates_and_clamps() -> None:
    series = [(10.0, 1.0), (11.0, 2.0), (13.0, 2.0)]
    assert cpu_at(series, 10.5) == pytest.approx(1.5)
    assert cpu_at(series, 9.0) == 1.0 and cpu_at(series, 20.0) == 2.0
    assert cpu_at([], 1.0) == 0.0


def test_parse_ours(tmp_path: Path) -> None:
    lat = {k: {"p50": 1.5, "p99": 9.0} for k in ("ttft", "itl")}
    lat["tpot"] = {"p50": 11.0, "p99": 12.0}
    summary = {"latency_ms": lat, "requests": {"succeeded": 7}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    rep = tools.parse_ours(tmp_path)
    assert (rep.ttft_p50, rep.itl_p99, rep.itl_kind, rep.requests) == (1.5, 9.0, "gap", 7)
    ((suffix, tpot),) = tools.tpot_of_ours(tmp_path)
    assert (suffix, tpot.itl_p50, tpot.itl_p99, tpot.itl_kind) == ("tpot", 11.0, 12.0, "tpot")
    assert tpot.ttft_p50 == 1.5
    (tmp_path / "summary.json").write_text("{}")
    with pytest.raises(ParseError):
        tools.parse_ours(tmp_path)


def test_parse_locust_csv(tmp_path: Path) -> None:
    head = "Type,Name,Request Count,Failure Count,50%,66%,99%\n"
    rows = (
        "SSE,TTFT,12,0,110,120,180\nSSE,ITL,500,0,10,11,16\nPOST,/v1/responses,12,0,900,950,990\n"
    )
    (tmp_path / "plain_stats.csv").write_text(head + rows)
    rep = tools.parse_locust_csv(tmp_path)
    assert (rep.ttft_p50, rep.ttft_p99, rep.itl_p50, rep.itl_p99) == (110, 180, 10, 16)
    assert rep.requests == 12 and rep.itl_kind == truth.ITL_GAP
    (tmp_path / "plain_stats.csv").write_text(head)
    with pytest.raises(ParseError):
        tools.parse_locust_csv(tmp_path)


def test_parse_guidellm(tmp_path: Path) -> None:
    def dist(p50: float, p99: float) -> dict[str, object]:
        return {"successful": {"percentiles": {"p50": p50, "p99": p99}}}

    bench = {
        "metrics": {
            "time_to_first_token_ms": dist(100.0, 130.0),
            "inter_token_latency_ms": dist(10.5, 11.0),
        },
        "scheduler_metrics": {"requests_made": {"successful": 19}},
    }
    (tmp_path / "benchmarks.json").write_text(json.dumps({"benchmarks": [bench]}))
    rep = tools.parse_guidellm(tmp_path)
    assert (rep.ttft_p99, rep.itl_p50, rep.itl_kind, rep.requests) == (
        130.0,
        10.5,
        "request-mean",
        19,
    )
    (tmp_path / "benchmarks.json").write_text(json.dumps({"benchmarks": []}))
    with pytest.raises(ParseError):
        tools.parse_guidellm(tmp_path)


def test_parse_aiperf(tmp_path: Path) -> None:
    data = {
        "time_to_first_token": {"unit": "ms", "p50": 102.0, "p99": 140.0},
        "inter_token_latency": {"unit": "ms", "p50": 10.1, "p99": 10.9},
        "request_count": {"unit": "requests", "avg": 32.0},
    }
    (tmp_path / "profile_export_aiperf.json").write_text(json.dumps(data))
    rep = tools.parse_aiperf(tmp_path)
    assert (rep.ttft_p50, rep.itl_p99, rep.itl_kind, rep.requests) == (
        102.0,
        10.9,
        "request-mean",
        32,
    )
    # AIPerf leaves inter_token_latency out when it has no output token counts
    del data["inter_token_latency"]
    (tmp_path / "profile_export_aiperf.json").write_text(json.dumps(data))
    with pytest.raises(ParseError, match="inter_token_latency"):
        tools.parse_aiperf(tmp_path)
    data["inter_token_latency"] = {"unit": "ns", "p50": 1, "p99": 2}
    (tmp_path / "profile_export_aiperf.json").write_text(json.dumps(data))
    with pytest.raises(ParseError, match="units"):
        tools.parse_aiperf(tmp_path)


def _cell(tmp_path: Path) -> tools.Cell:
    datasets = offline.write_datasets(tmp_path / "data", 0, n=3)
    return tools.Cell("http://127.0.0.1:9", 16, 8.0, tmp_path, datasets, offline.TOKENIZER_REPO)


def test_peer_commands_are_offline_and_bounded(tmp_path: Path) -> None:
    cell = _cell(tmp_path)
    aiperf = tools.TOOLS["aiperf"].command(cell, Path("/venv/bin/aiperf"))
    for flag in ("--no-server-metrics", "--no-gpu-telemetry", "--use-server-token-count"):
        assert flag in aiperf
    assert aiperf[aiperf.index("--tokenizer") + 1] == offline.TOKENIZER_REPO
    assert aiperf[aiperf.index("--concurrency") + 1] == "16"
    assert aiperf[aiperf.index("--benchmark-duration") + 1] == "8"
    guidellm = tools.TOOLS["guidellm"].command(cell, Path("/venv/bin/guidellm"))
    spec = json.loads(Path(guidellm[guidellm.index("--scenario") + 1]).read_text())["spec"]
    assert spec["backend"]["request_format"] == "/v1/responses"
    assert spec["backend"]["validate_backend"] is False
    assert spec["profile"]["streams"] == [16]
    assert spec["constraints"] == [{"kind": "max_duration", "seconds": 8.0}]
    assert spec["data"][0]["kind"] == "json_file"
    ours = tools.TOOLS["ours-novalidate"].command(cell, None)
    assert ours[-1] == "--no-validate" and "--no-validate" not in tools.TOOLS["ours"].command(
        cell, None
    )
    assert ours[ours.index("--base-url") + 1] == "http://127.0.0.1:9/v1"


def test_offline_files(tmp_path: Path) -> None:
    name = offline.write_hf_cache(tmp_path / "hf")
    repo = tmp_path / "hf" / "hub" / "models--peers-local--wordlevel"
    rev = (repo / "refs" / "main").read_text()
    tok = json.loads((repo / "snapshots" / rev / "tokenizer.json").read_text())
    assert name == offline.TOKENIZER_REPO and tok["model"]["type"] == "WordLevel"
    assert set(offline.WORDS) <= set(tok["model"]["vocab"])
    files = offline.write_datasets(tmp_path / "d", 0, n=5)
    texts = {k: [json.loads(ln) for ln in p.read_text().splitlines()] for k, p in files.items()}
    assert [r["prompt"] for r in texts["workload"]] == [r["text"] for r in texts["aiperf"]]
    assert [r["prompt"] for r in texts["guidellm"]] == [r["prompt"] for r in texts["workload"]]
    assert offline.OFFLINE_ENV["HF_HUB_OFFLINE"] == "1"


def test_table_rows_show_median_and_spread() -> None:
    t = truth.truth_of([_ex(0.0, [0.100, 0.110, 0.130], 0.150)])
    cells = [
        truth.compare("ours", 4, r, truth.Reported(100 + d, 100, 10, 20, "gap"), t, (0.1, 1.0))
        for r, d in enumerate([1.0, 3.0, 2.0])
    ]
    lines = table.rows(cells, {"ours": "responses-bench"}, ["ours"])
    assert lines[0] == table.HEADER and lines[1].count("|") == lines[0].count("|")
    assert "| responses-bench | 4 | 3 |" in lines[2]
    assert "+2.0 [+1.0…+3.0]" in lines[2]
    variant = truth.compare("ours:tpot", 4, 0, truth.Reported(1, 1, 1, 1, "tpot"), t, (0.1, 1.0))
    lines = table.rows([*cells, variant], {"ours:tpot": "responses-bench [tpot]"}, ["ours"])
    assert "| responses-bench [tpot] | 4 | 1 |" in lines[3] and "| tpot |" in lines[3]
    assert table.fmt([math.nan]) == "n/a"


@pytest.mark.parametrize("argv", [["--streams", "0"], ["--streams", "x"], ["--tools", "wrk"]])
def test_bad_options_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(argv)
    assert exc.value.code == 2


def test_report_dir_is_the_family_flag_and_out_an_alias() -> None:
    assert str(parser().parse_args(["--report-dir", "r"]).out) == "r"
    assert str(parser().parse_args(["--out", "o"]).out) == "o"
