"""``responses-reference`` without SGLang: help, store specs, and clear exits when SGLang is
missing or unreachable (the SGLang paths themselves run in tox -e sglang)."""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from threaded_http import serving

from reference_impl.sglang.cli import build_parser, main, make_store
from reference_impl.stores.memory import MemoryStore
from reference_impl.stores.sqlite import SQLiteStore


def test_help_explains_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for words in ("--model-path", "--sglang-url", "--store", "redis://", "127.0.0.1", "--api-key"):
        assert words in text


def test_store_specs(tmp_path: Path) -> None:
    assert isinstance(make_store("memory"), MemoryStore)
    assert make_store("memory:5").max_responses == 5
    assert isinstance(make_store(f"sqlite:{tmp_path / 'r.db'}"), SQLiteStore)
    for bad in ("memory:0", "sqlite:", "disk"):
        with pytest.raises(ValueError):
            make_store(bad)


def test_bad_store_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--store", "disk", "--sglang-url", "http://127.0.0.1:9"])
    assert exit_info.value.code == 2


def test_unreachable_sglang_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reference_impl.sglang.cli", "--port", "0", "--sglang-url",
         "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "cannot reach SGLang at http://127.0.0.1:9" in done.stderr


@pytest.mark.skipif(find_spec("sglang") is not None, reason="SGLang is installed here")
def test_in_process_without_sglang_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reference_impl.sglang.cli", "--port", "0", "--model-path", "m"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "SGLang is not installed" in done.stderr


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([], "--model-path (or --sglang-url) is required"),
        (["--sglang-url", "http://127.0.0.1:9", "--mem-fraction", "0.5"], "remote mode"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # They were SystemExit("…"): exit status 1, which means violations found.
    with pytest.raises(SystemExit) as exit_info:
        main(["--port", "0", *argv])
    assert exit_info.value.code == 2
    assert needle in capsys.readouterr().err.strip().splitlines()[-1]


def test_an_sglang_server_without_its_model_path_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import http.server

    class Info(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # every path: a server_info that names no model
            body = b'{"tokenizer_path": null}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving(Info) as url:
        assert main(["--port", "0", "--sglang-url", url]) == 2
    err = capsys.readouterr().err
    assert "did not say its model path" in err and err.count("\n") == 1


@pytest.mark.parametrize("module", ["reference_impl.sglang.cli", "mock_server.cli"])
@pytest.mark.parametrize(
    "flag", ["--head-timeout", "--body-timeout", "--keep-alive-timeout", "--drain-timeout",
             "--ws-send-timeout", "--ws-connection-bytes", "--ws-server-bytes"],
)  # fmt: skip
def test_a_bad_bound_is_one_line_and_exit_2(module: str, flag: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "--sglang-url", "http://127.0.0.1:9", flag, "-1"]
        if module.startswith("reference")
        else [sys.executable, "-m", module, flag, "-1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and flag in done.stderr, done.stderr


def test_the_bounds_reach_the_server_limits() -> None:
    from reference_impl.server_options import server_limits

    args, _ = build_parser().parse_known_args(
        [
            "--sglang-url",
            "u",
            "--head-timeout",
            "2",
            "--drain-timeout",
            "7",
            "--ws-send-timeout",
            "3",
        ]
    )
    limits = server_limits(args, 1234)
    assert (limits.head_timeout, limits.body_timeout, limits.drain_timeout) == (2, 30, 7)
    assert (limits.ws_send_timeout, limits.max_frame_bytes) == (3, 1234)
    assert (args.ws_connection_bytes, args.ws_server_bytes) == (64 * 1024 * 1024, 512 * 1024 * 1024)
