"""Workload files and synthetic data (docs/bench-datasets.md): ShareGPT JSON, JSONL, CSV, Parquet, trace
replay, shared-prefix pools, length distributions — each format read, and a bad record of each
found before the load starts (``file:line``, one line, exit 2)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.responses_bench.arrivals import ArrivalPlan, Step
from benchmarks.responses_bench.cli import main
from benchmarks.responses_bench.datasets import (
    Lengths,
    WorkloadError,
    parse_lengths,
    read_entries,
    readers,
)
from benchmarks.responses_bench.workload import Workload, WorkloadConfig, trace_plan

TARGET = ("--base-url", "http://127.0.0.1:9/v1", "--model", "m")

SHAREGPT = [
    {
        "id": "a",
        "conversations": [
            {"from": "system", "value": "be brief"},
            {"from": "human", "value": "what is a prefix cache?"},
            {"from": "gpt", "value": "x" * 400},
            {"from": "human", "value": "and why?"},
            {"from": "gpt", "value": "short"},
        ],
    },
    {"id": "empty", "conversations": []},
    {"id": "b", "conversations": [{"from": "human", "value": "hello"}]},
]


def _bodies(workload: Workload, count: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(count):
        session = workload.session()
        while not session.done:
            out.append(json.loads(session.next().body))
            session.answered("resp_1", ok=True)
    return out


def _load(path: Path, **options: Any) -> Workload:
    return Workload.load(WorkloadConfig(model="m", path=path, **options))


def _fails_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> str:
    """The CLI, in-process: exit 2 with exactly one line on stderr, no traceback, no load."""
    try:
        code = main([*TARGET, "--report-dir", str(tmp_path / "r"), *args])
    except SystemExit as done:
        code = done.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in out + err and "unreachable" not in err
    assert not (tmp_path / "r").exists()
    return lines[0]


# ---------------------------------------------------------------------- ShareGPT / JSON


def test_sharegpt_json_array_reads_human_turns_system_and_reply_lengths(tmp_path: Path) -> None:
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps(SHAREGPT, indent=2))
    workload = _load(path)
    assert workload.format == "json" and workload.records == 2 and workload.skipped == 1
    first, second = _bodies(workload, 2)
    # vLLM's habit: the first human turn, the reply's length as max_output_tokens (400 chars / 4).
    assert first["input"] == "what is a prefix cache?" and first["instructions"] == "be brief"
    assert first["max_output_tokens"] == 100 and "id" not in first and "store" not in first
    assert second["input"] == "hello" and second["max_output_tokens"] == 256  # no reply: option
    # --turns 2: the second human turn follows with previous_response_id; "short" → at least 16.
    one, two, _ = _bodies(_load(path, turns=2), 2)
    assert one["store"] is True and two["input"] == "and why?"
    assert two["previous_response_id"] == "resp_1" and two["max_output_tokens"] == 16


def test_sharegpt_lines_in_jsonl_and_vllm_custom_fields(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [
        json.dumps(SHAREGPT[2]),
        json.dumps({"prompt": "custom", "output_tokens": 64}),
        json.dumps({"messages": [{"role": "user", "content": "chat"}]}),
    ]
    path.write_text("\n".join(lines) + "\n")
    bodies = _bodies(_load(path), 3)
    assert [b["input"] for b in bodies] == ["hello", "custom", "chat"]
    assert bodies[1]["max_output_tokens"] == 64 and "output_tokens" not in bodies[1]


@pytest.mark.parametrize(
    ("elements", "needle"),
    [
        (
            '[\n  {"conversations": [{"from": "human"}]}\n]',
            ":2: conversations[0] must be an object",
        ),
        ('[\n {"conversations": "hi"}]', ":2: `conversations` must be a list"),
        ('[{"conversations": [{"from": "robot", "value": "x"}]}]', ":1: conversations[0].from"),
        ('[\n{"prompt": "a"},\n\n{"prompt": "b",,}\n]', ":4: not JSON"),
        ('[{"prompt": "a"} {"prompt": "b"}]', ":1: expected `,` or `]`"),
        ('[{"prompt": "a"}] trailing', ":1: text after the end"),
        ('[{"prompt": "a"},\n{"prompt": "b"', ":2: not JSON"),
        # Python's json raises ValueError / RecursionError here, not JSONDecodeError
        ('[{"prompt": "a"},\n{"prompt": "b", "n": ' + "1" * 5000 + "}]", ":2: not JSON (Exceeds"),
        ('[\n{"prompt": ' + "[" * 100_000 + "]" * 100_000 + "}]", ":2: not JSON (nested too"),
    ],
)
def test_a_bad_json_array_element_is_named_by_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, elements: str, needle: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(elements)
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert line.startswith(f"responses-bench: --workload: {path}") and needle in line, line


def test_near_misses_of_a_huge_number_and_deep_nesting_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    deep = "[" * 200 + "]" * 200
    path.write_text('[{"prompt": "a", "metadata": {"n": "' + "1" * 5000 + '"}, "x": ' + deep + "}]")
    assert _bodies(_load(path), 1)[0]["input"] == "a"


def test_a_folder_as_the_workload_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(tmp_path))
    assert line.endswith(f"--workload {tmp_path}: a folder, not a file"), line


def test_a_json_array_is_streamed_in_chunks_with_exact_line_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 7-byte chunks: every element straddles several reads; line numbers must still be exact.
    monkeypatch.setattr(readers, "_CHUNK", 7)
    records = [{"prompt": f"p{i}", "note": "é" * i} for i in range(30)]
    text = "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path = tmp_path / "big.json"
    path.write_text(text + ',\n{"model": "m"}\n]', encoding="utf-8")
    with pytest.raises(WorkloadError, match=r"big\.json:32: needs `input` or `prompt`$"):
        read_entries(path)
    path.write_text(text + "\n]", encoding="utf-8")
    loaded = read_entries(path, limit=10)
    assert loaded.records == 30 and len(loaded.entries) == 10
    assert loaded.entries[9].turns[0]["prompt"] == "p9"


def test_jsonl_is_read_line_by_line_within_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text("".join(json.dumps({"prompt": f"p{i}"}) + "\n" for i in range(1000)))
    loaded = read_entries(path, limit=5)
    assert loaded.records == 1000 and len(loaded.entries) == 5
    monkeypatch.setattr(readers, "MAX_RECORD_BYTES", 64)
    path.write_text('{"prompt": "ok"}\n{"prompt": "' + "x" * 500 + '"}\n{"prompt": "ok"}\n')
    with pytest.raises(WorkloadError, match=r"w\.jsonl:2: a line over"):
        read_entries(path)


# ---------------------------------------------------------------------- CSV and Parquet


def test_csv_reads_the_documented_columns(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text(
        "id,prompt,output_tokens,system,ignored\n"
        '1,"a prompt, with a comma",40,be kind,x\n'
        '2,"two\nlines",,,\n'
        "\n"
    )
    workload = _load(path)
    assert workload.format == "csv" and workload.records == 2
    one, two = _bodies(workload, 2)
    assert one["input"] == "a prompt, with a comma" and one["max_output_tokens"] == 40
    assert one["instructions"] == "be kind" and "ignored" not in one and "id" not in one
    assert two["input"] == "two\nlines" and two["max_output_tokens"] == 256


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('prompt,output_tokens\nok,20\n"multi\nline",abc\n', ":3: column `output_tokens`"),
        ("prompt,output_tokens\nok,20\n,30\n", ":3: no text in the `prompt`"),
        ("prompt\nok\nok,extra\n", ":3: 2 fields, the header has 1"),
        ("question,answer\nq,a\n", ":1: no `prompt`, `input`, `text` or `input_length` column"),
        ("prompt,timestamp\nok,soon\n", ":2: column `timestamp` must be a number"),
    ],
)
def test_a_bad_csv_row_is_named_by_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, needle: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert line.startswith(f"responses-bench: --workload: {path}") and needle in line, line


def test_a_binary_file_as_csv_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "ls.csv"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64)
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert f"{path}:1: not UTF-8 text" in line


def _parquet(path: Path, columns: dict[str, list[Any]]) -> None:
    pa = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    parquet.write_table(pa.table(columns), path)


def test_parquet_reads_the_documented_columns(tmp_path: Path) -> None:
    path = tmp_path / "w.parquet"
    _parquet(path, {"text": ["one", "two"], "output_length": [32, None], "extra": [1.5, 2.5]})
    workload = _load(path)
    assert workload.format == "parquet" and workload.records == 2
    one, two = _bodies(workload, 2)
    assert (one["input"], one["max_output_tokens"]) == ("one", 32)
    assert (two["input"], two["max_output_tokens"]) == ("two", 256) and "extra" not in two


def test_a_bad_parquet_row_is_named_by_its_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.parquet"
    _parquet(path, {"prompt": ["ok", "ok", "ok"], "output_tokens": [20, 0, -1]})
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert f"{path}:row 2: `output_tokens` must be an integer >= 1 (and 1 more" in line, line
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(broken))
    assert "not a Parquet file" in line


def test_parquet_without_pyarrow_names_the_extra(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow → ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    line = _fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert "reading Parquet needs pyarrow: pip install 'responses-conformance[parquet]'" in line


# ---------------------------------------------------------------------- traces


def _trace(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_trace_gives_the_arrival_schedule_sped_up_and_cut(tmp_path: Path) -> None:
    path = _trace(
        tmp_path / "t.jsonl",
        {"timestamp": 1000, "prompt": "b"},
        {"timestamp": 500, "prompt": "a"},  # out of order: replayed in time order
        {"timestamp": 3500, "prompt": "c", "output_length": 8},
    )
    workload = _load(path, trace=True)
    plan = trace_plan(workload, speedup=1.0, until=None)
    assert plan.kind == "trace" and plan.offsets == (0.0, 0.5, 3.0)
    assert list(plan.arrivals()) == [(0.0, 0), (0.5, 0), (3.0, 0)]
    assert list(plan.arrivals(1, 2)) == [(0.5, 0)]  # every shares-th, as at a constant rate
    assert [workload.session_at(i).turns[0]["input"] for i in range(3)] == ["a", "b", "c"]
    assert workload.session_at(2).turns[0]["max_output_tokens"] == 16  # the API's minimum
    assert trace_plan(workload, speedup=2.0, until=None).offsets == (0.0, 0.25, 1.5)
    cut = trace_plan(workload, speedup=1.0, until=2.0)
    assert cut.offsets == (0.0, 0.5) and cut.duration == 2.0
    assert ArrivalPlan((Step(1, 1),)).kind == "constant"


def test_trace_records_without_text_share_blocks_by_hash_id(tmp_path: Path) -> None:
    path = _trace(
        tmp_path / "mooncake.jsonl",
        {"timestamp": 0, "input_length": 30, "output_length": 20, "hash_ids": [7, 8]},
        {"timestamp": 10, "input_length": 25, "output_length": 20, "hash_ids": [7, 9]},
        {"timestamp": 20, "input_length": 12},
    )
    workload = _load(path, trace=True, trace_block_tokens=10)
    one, two, three = (workload.session_at(i).turns[0]["input"].split(" ") for i in range(3))
    assert (len(one), len(two), len(three)) == (30, 25, 12)  # one token per word
    assert one[:10] == two[:10] and one[10:20] != two[10:20]  # block 7 shared, 8 and 9 not
    assert one == workload.session_at(0).turns[0]["input"].split(" ")  # deterministic


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ({"prompt": "no time"}, ":2: no `timestamp`"),
        ({"timestamp": -1, "prompt": "x"}, ":2: `timestamp` must be a number of milliseconds"),
        ({"timestamp": 1, "input_length": 0}, ":2: `input_length` must be an integer >= 1"),
        ({"timestamp": 1, "hash_ids": [1, "x"]}, ":2: `hash_ids` must be a list"),
    ],
)
def test_a_bad_trace_line_is_named_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: dict[str, Any], needle: str
) -> None:
    path = _trace(tmp_path / "t.jsonl", {"timestamp": 0, "prompt": "ok"}, line)
    found = _fails_in_one_line(capsys, tmp_path, "--shape", "trace", "--workload", str(path))
    assert found.startswith(f"responses-bench: --workload: {path}") and needle in found, found


def test_trace_options_are_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "--shape trace needs --workload" in _fails_in_one_line(
        capsys, tmp_path, "--shape", "trace"
    )
    path = _trace(tmp_path / "t.jsonl", {"timestamp": 0, "prompt": "ok"})
    line = _fails_in_one_line(
        capsys, tmp_path, "--shape", "trace", "--workload", str(path), "--trace-speedup", "0"
    )
    assert "--trace-speedup 0: must be > 0" in line


# ---------------------------------------------------------------------- synthetic data


def test_length_distributions_parse_and_draw_within_bounds() -> None:
    assert parse_lengths("128", "--x") == Lengths.fixed(128)
    uniform = parse_lengths("10-20", "--x")
    assert uniform.uniform and (uniform.low, uniform.high) == (10, 20)
    normal = parse_lengths("mean=200,stddev=50,min=100,max=260", "--x")
    rng = random.Random(3)
    draws = [normal.draw(rng) for _ in range(2000)]
    assert min(draws) == 100 and max(draws) == 260  # clamped into [min, max]
    assert 185 < sum(draws) / len(draws) < 205
    assert parse_lengths("mean=64,stdev=0", "--x").draw(rng) == 64
    for bad, needle in [
        ("abc", "expected N, LO-HI or mean="),
        ("20-10", "need 1 <= LO <= HI"),
        ("mean=5,sigma=2", "unknown field 'sigma'"),
        ("stddev=3", "needs mean=M"),
        ("mean=50,min=60", "the mean must lie in [min, max]"),
        ("mean=10,stddev=-1", "stddev must be >= 0"),
    ]:
        with pytest.raises(ValueError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            parse_lengths(bad, "--x")
    with pytest.raises(ValueError, match="need 16 <= LO"):
        parse_lengths("8", "--output-tokens", floor=16)


def test_input_and_output_distributions_set_prompt_length_and_max_output_tokens() -> None:
    config = WorkloadConfig(
        model="m",
        prompt_tokens=parse_lengths("mean=40,stddev=10,min=20,max=60", "--input-tokens"),
        output_tokens=parse_lengths("mean=100,stddev=30,min=16,max=150", "--output-tokens"),
        seed=5,
    )
    bodies = _bodies(Workload.load(config), 300)
    inputs = [len(b["input"].split(" ")) for b in bodies]
    outputs = [b["max_output_tokens"] for b in bodies]
    assert min(inputs) >= 20 and max(inputs) <= 60 and len(set(inputs)) > 10
    assert min(outputs) >= 16 and max(outputs) <= 150 and len(set(outputs)) > 10
    assert 35 < sum(inputs) / 300 < 45 and 90 < sum(outputs) / 300 < 110


def test_a_prefix_pool_puts_one_of_n_shared_prefixes_first(tmp_path: Path) -> None:
    config = WorkloadConfig(
        model="m", prompt_tokens=(8, 8), prefix_count=3, prefix_tokens=12, turns=2, seed=1
    )
    bodies = _bodies(Workload.load(config), 30)
    firsts = [b["input"].split(" ") for b in bodies if "previous_response_id" not in b]
    assert all(len(words) == 20 for words in firsts)
    prefixes = {tuple(words[:12]) for words in firsts}
    assert len(prefixes) == 3  # 30 sessions drew all three, and only those
    assert len({tuple(words[12:]) for words in firsts}) == 30  # the rest is each its own
    later = [b for b in bodies if "previous_response_id" in b]
    assert all(len(b["input"].split(" ")) == 8 for b in later)  # chained turns: no prefix again
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"input": [{"role": "user", "content": "hi"}]}) + "\n")
    items = _bodies(
        Workload.load(WorkloadConfig(model="m", path=path, prefix_count=1, prefix_tokens=4)), 1
    )
    assert items[0]["input"][0]["role"] == "user" and len(items[0]["input"]) == 2
    with pytest.raises(WorkloadError, match="needs both --prefix-count"):
        WorkloadConfig(model="m", prefix_count=2)


def test_a_seed_gives_the_same_request_sequence(tmp_path: Path) -> None:
    def sequence(seed: int, **extra: Any) -> list[bytes]:
        workload = Workload.load(
            WorkloadConfig(
                model="m",
                prompt_tokens=(4, 40),
                output_tokens=parse_lengths("mean=64,stddev=20,min=16", "--output-tokens"),
                prefix_count=4,
                prefix_tokens=6,
                seed=seed,
                **extra,
            )
        )
        return [workload.session().next().body for _ in range(20)]

    assert sequence(7) == sequence(7) and sequence(7) != sequence(8)
    # Two load processes take alternate indices of the same sequence.
    whole = Workload.load(WorkloadConfig(model="m", seed=3))
    even, odd = (
        Workload.load(WorkloadConfig(model="m", seed=3)),
        Workload.load(WorkloadConfig(model="m", seed=3)),
    )
    expected = [whole.session().next().body for _ in range(6)]
    mixed = [w.session(i % 2, 2).next().body for i, w in enumerate([even, odd] * 3)]
    assert mixed == expected


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ("--output-tokens", "mean=10"),
            "--output-tokens 'mean=10': the mean must lie in [min, max] = [16, ∞]",
        ),
        (("--input-tokens", "mean=x"), "--prompt-tokens"),
        (("--prefix-count", "3"), "needs both --prefix-count N and --prefix-tokens T"),
        (("--workload-limit", "0"), "--workload-limit 0: must be >= 1"),
    ],
)
def test_synthetic_options_are_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], needle: str
) -> None:
    assert needle in _fails_in_one_line(capsys, tmp_path, *args)
