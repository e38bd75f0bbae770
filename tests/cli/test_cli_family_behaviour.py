"""The behaviour the flag family changed (docs/cli.md): base URLs with or
without /v1 and the URL used said, ``-`` for stdin, a merged report's exit code, the deprecated
names removed before the first release refused in one line (responses-bench's), the servers'
--api-key-env."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.cli_options import BaseURLError, base_url
from conformance.suite.embedded import EmbeddedMock

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ROOT / "tests" / "data" / "openai-recorded" / "streams"


def _cli(
    *args: str, stdin: str | bytes | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", *args], capture_output=True, timeout=timeout,
        cwd=ROOT, env=env, check=False,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
    )  # fmt: skip
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


@pytest.mark.parametrize(
    ("given", "used", "noted"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", False),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1", False),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1", True),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1", True),
        ("http://h/v1/responses", "http://h/v1", True),
        # a server at the root (open-responses-server) is named by its endpoint
        ("http://127.0.0.1:8000/responses", "http://127.0.0.1:8000", True),
        (
            "https://h/openai/v1beta",
            "https://h/openai/v1beta",
            False,
        ),  # a path: as the SDK takes it
    ],
)
def test_base_url_with_or_without_v1(given: str, used: str, noted: bool) -> None:
    url, note = base_url(given)
    assert url == used
    assert (note is not None) == noted
    if note:
        assert used in note


def test_base_url_note_shows_no_password() -> None:
    _, note = base_url("http://user:hunter2@h:1")
    assert note is not None and "hunter2" not in note


@pytest.mark.parametrize("bad", ["h:8000", "ftp://h/v1", "http://h:99999/v1", "http://h/v1?x=1"])
def test_bad_base_url_is_one_line(bad: str) -> None:
    with pytest.raises(BaseURLError, match="--base-url"):
        base_url(bad)


def test_run_with_and_without_v1_against_the_embedded_mock() -> None:
    # e63cc20: without /v1 every request got 404 and the *target* was reported FAILED.
    with EmbeddedMock() as mock:
        origin = mock.base_url.removesuffix("/v1")
        for given in (origin, mock.base_url):
            done = _cli(
                "run", "--base-url", given, "--model", "mock", "-k", "test_create_stream",
                "--format", "json",
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-3000:]
            index = json.loads(done.stdout)  # --format json: the index on stdout
            (target,) = index["targets"].values()
            assert target["status"] == "ran" and target["exit_code"] == 0
            assert target["target"]["base_url"] == mock.base_url
            assert f": {mock.base_url}  model mock" in done.stderr  # the URL used, said
            noted = f"--base-url {origin}: using {mock.base_url}" in done.stderr
            assert noted == (given == origin)


def test_run_targets_from_stdin_normalises_base_url() -> None:
    toml = '[targets.x]\nbase_url = "http://127.0.0.1:9"\nmodel = "m"\n'
    done = _cli("run", "--targets", "-", stdin=toml, timeout=60)
    assert done.returncode == 2  # nothing listens on port 9
    assert "== x: http://127.0.0.1:9/v1  model m" in done.stdout


def test_check_reads_stdin() -> None:
    good = sorted(STREAMS.glob("*.sse"))[0] if list(STREAMS.glob("*.sse")) else None
    sample = good or sorted(STREAMS.iterdir())[0]
    from_file = _cli("check", "--format", "json", str(sample))
    from_stdin = _cli("check", "--format", "json", "-", stdin=sample.read_bytes())
    assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stdout[-2000:]
    (verdict,) = json.loads(from_stdin.stdout)["files"]
    (expected,) = json.loads(from_file.stdout)["files"]
    assert verdict["path"] == "-"
    assert verdict["violations"] == expected["violations"]
    broken = _cli("check", "-", stdin="event: x\ndata: {}\n\n")
    assert broken.returncode == 1 and "FAIL  -" in broken.stdout
    twice = _cli("check", "-", "-", stdin="")
    assert twice.returncode == 2 and twice.stderr.count("\n") == 1


def _index(tmp_path: Path, name: str, *, failing: bool, code: int = 1) -> Path:
    from conformance.suite.reporting import build_index
    from conformance.suite.results import TargetResult
    from conformance.suite.targets import flag_target

    target = flag_target(base_url="http://127.0.0.1:9", model="m", name=name)
    result = TargetResult(target, False)
    doc = build_index([result], strict=False)
    doc["targets"][name]["exit_code"] = code if failing else 0
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def test_merged_report_exits_with_the_worst_target(tmp_path: Path) -> None:
    ok = _index(tmp_path, "ok", failing=False)
    bad = _index(tmp_path, "bad", failing=True)
    assert _cli("report", "--report-dir", str(tmp_path / "a"), str(ok)).returncode == 0
    # e63cc20: 0 for a merged matrix with a FAILED target
    assert _cli("report", "--report-dir", str(tmp_path / "b"), str(ok), str(bad)).returncode == 1
    piped = _cli(
        "report", "--report-dir", str(tmp_path / "c"), "--format", "json", str(ok), "-",
        stdin=bad.read_text(),
    )  # fmt: skip
    assert piped.returncode == 1
    assert set(json.loads(piped.stdout)["targets"]) == {"ok", "bad"}
    assert "reports: " in piped.stderr
    # a target whose run broke is not conformant either: 1; 2 is kept for "no report made"
    broke = _index(tmp_path, "broke", failing=True, code=2)
    assert _cli("report", "--report-dir", str(tmp_path / "d"), str(ok), str(broke)).returncode == 1
    gone = _cli("report", "--report-dir", str(tmp_path / "e"), str(ok), str(tmp_path / "none"))
    assert gone.returncode == 2 and not (tmp_path / "e").exists()


def test_explain_json() -> None:
    from conformance.catalog.registry import REGISTRY

    check_id = sorted(REGISTRY)[0]
    done = _cli("explain", "--format", "json", check_id)
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert doc["id"] == check_id and "failing" in doc["examples"]
    assert _cli("explain", "--format", "json", "no.such.id").returncode == 2


def test_proxy_takes_base_url_and_read_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import _parser
    from conformance.proxy.cli import check_upstream

    with pytest.raises(SystemExit):  # --timeout, an alias removed before the first release
        _parser().parse_args(["proxy", "--base-url", "http://h:1", "--timeout", "5"])
    capsys.readouterr()
    args = _parser().parse_args(["proxy", "--base-url", "http://h:1", "--read-timeout", "5"])
    assert args.upstream == "http://h:1" and args.timeout == 5.0
    args = _parser().parse_args(["proxy", "--upstream", "http://h:1", "--read-timeout", "2m"])
    assert args.timeout == 120.0 and capsys.readouterr().err == ""

    class Err:
        text = ""

        def write(self, s: str) -> None:
            Err.text += s

    assert check_upstream("http://h:1", Err()) == "http://h:1/v1"  # type: ignore[arg-type]
    assert "using http://h:1/v1" in Err.text


def test_bench_refuses_the_old_target_and_timeout_names(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.responses_bench.cli import main

    # -H/--host (Locust's name for the target) and --request-timeout were removed before 0.1.0:
    # each is one line and exit 2, never handed to Locust
    assert main(["-H", "http://127.0.0.1:1", "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give it with --base-url" in err
    assert main(["--host", "http://a:1", "--base-url", "http://b:1", "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give it with --base-url" in err
    assert main(["--base-url", "http://127.0.0.1:1", "--model", "m", "--request-timeout", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--request-timeout is named --read-timeout" in err
    # the near miss: the current names are taken, and the run stops only at the unreachable target
    assert main(["--base-url", "http://127.0.0.1:1", "--model", "m", "--read-timeout", "5"]) == 2
    err = capsys.readouterr().err
    assert "--base-url http://127.0.0.1:1: using http://127.0.0.1:1/v1" in err
    assert "target unreachable" in err


def test_servers_take_the_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from mock_server.cli import build_parser, settings_from

    monkeypatch.setenv("MOCK_KEY", "k-123")
    parser = build_parser()
    assert (
        settings_from(parser, parser.parse_args(["--api-key-env", "MOCK_KEY"])).api_key == "k-123"
    )
    assert settings_from(parser, parser.parse_args(["--api-key", "lit"])).api_key == "lit"
    for argv in (["--api-key-env", "UNSET_VAR_X"], ["--api-key", "a", "--api-key-env", "MOCK_KEY"]):
        with pytest.raises(SystemExit) as exit_:
            settings_from(parser, parser.parse_args(argv))
        assert exit_.value.code == 2


def test_vendors_missing_run_record_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.vendors", "summary", str(tmp_path)],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "run.json" in done.stderr


def test_check_profile_takes_a_comma_list_as_run_does() -> None:
    sample = sorted(STREAMS.iterdir())[0]
    listed = _cli("check", "--format", "json", "--profile", "core,openresponses", str(sample))
    repeated = _cli(
        "check", "--format", "json", "--profile", "openresponses", "--profile", "core", str(sample)
    )
    assert json.loads(listed.stdout)["profiles"] == ["core", "openresponses"]
    assert json.loads(repeated.stdout)["profiles"] == ["openresponses", "core"]
    bad = _cli("check", "--profile", "core,nope", str(sample))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "nope" in bad.stderr


def test_vendors_report_dir(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.vendors.cli import _parser

    assert str(_parser().parse_args(["run", "--report-dir", "r"]).out) == "r"
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit):  # --out, an alias removed before the first release
        _parser().parse_args(["run", "--out", "r"])


def test_side_by_side_report_dir(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.perf.sglang_side_by_side import _parser

    base = ["--sglang-python", "python"]
    assert str(_parser().parse_args([*base, "--report-dir", "r"]).out) == "r"
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit):  # --out, an alias removed before the first release
        _parser().parse_args([*base, "--out", "r"])


def _server_parsers() -> dict[str, Any]:
    from conformance.cli import _parser
    from mock_server.cli import build_parser as mock_parser
    from reference_impl.sglang.cli import build_parser as reference_parser

    return {
        "responses-mock": (mock_parser, []),
        "responses-reference": (reference_parser, []),
        "responses-conformance proxy": (_parser, ["proxy", "--upstream", "http://h:1"]),
    }


@pytest.mark.parametrize("bad", ["70000", "65536", "-1", "x", "²", ""])
@pytest.mark.parametrize(
    "cli", ["responses-mock", "responses-reference", "responses-conformance proxy"]
)
def test_a_port_out_of_range_is_refused(
    cli: str, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The socket layer takes a port modulo 65536: --port 70000 bound 4464 without a word.
    build, head = _server_parsers()[cli]
    with pytest.raises(SystemExit) as exit_:
        build().parse_args([*head, "--port", bad])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--port" in last and "0-65535" in last and "Traceback" not in last


@pytest.mark.parametrize(
    "cli", ["responses-mock", "responses-reference", "responses-conformance proxy"]
)
def test_every_port_in_range_is_taken(cli: str) -> None:
    build, head = _server_parsers()[cli]
    for good in ("0", "1", "8000", "65535"):
        assert build().parse_args([*head, "--port", good]).port == int(good)
