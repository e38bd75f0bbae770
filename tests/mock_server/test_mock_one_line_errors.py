"""One line for every user error (docs/cli.md, "Bad arguments get one line on stderr"): a bad flag or
``--replay`` of ``responses-mock`` and ``responses-reference`` (the whole usage was printed first),
``responses-bench -t -5s`` (argparse's "expected one argument"), a WebSocket text frame that is not
UTF-8 (closed 1007 as before, but uvicorn logged a traceback), and an interrupted suite run (its
reason was ``<ExitCode.INTERRUPTED: 2>``)."""

from __future__ import annotations

import base64
import io
import logging
import os
import socket
import struct
from typing import Any

import pytest

from mock_server.cli import main as mock_main
from mock_server.testing import LoopbackMock


def _one_line(capsys: pytest.CaptureFixture[str], call: Any) -> str:
    with pytest.raises(SystemExit) as exit_info:
        call()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--replay", "/nonexistent/cassette"], "--replay: /nonexistent/cassette"),
        (["--port", "x"], "--port"),
    ],
)
def test_a_bad_mock_argument_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    err = _one_line(capsys, lambda: mock_main(argv))
    assert err.startswith("responses-mock: ") and words in err
    assert "usage:" not in err


def test_a_bad_reference_argument_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from reference_impl.sglang.cli import main as reference_main

    err = _one_line(capsys, lambda: reference_main(["--port", "x"]))
    assert err.startswith("responses-reference: ") and "--port" in err


@pytest.mark.parametrize("argv", [["-t", "-5s"], ["--run-time", "-5s"], ["-t", "-1"]])
def test_a_negative_bench_run_time_names_the_value(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    from benchmarks.responses_bench.cli import main as bench_main

    base = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    try:
        code = bench_main([*base, *argv])
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "-t/--run-time" in err and argv[1] in err
    assert "expected one argument" not in err


def _frame(payload: bytes, opcode: int = 1) -> bytes:
    mask = os.urandom(4)
    head = bytes([0x80 | opcode, 0x80 | len(payload)])
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload))


def test_invalid_utf8_in_a_text_frame_is_closed_1007_with_one_log_line() -> None:
    records: list[logging.LogRecord] = []
    collect = logging.Handler()
    collect.emit = records.append  # type: ignore[method-assign]
    with LoopbackMock() as mock:
        # added once uvicorn has configured its loggers (its dictConfig replaces their handlers)
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.addHandler(collect)
        try:
            _send_invalid_utf8(mock)
        finally:
            uvicorn_log.removeHandler(collect)
    rejected = [r for r in records if "UTF-8" in r.getMessage()]
    assert rejected, "uvicorn logs the rejection (one line)"
    assert all(r.exc_info is None and not r.exc_text for r in rejected)


def _send_invalid_utf8(mock: LoopbackMock) -> None:
    host, _, port = mock.base_url.split("//")[1].split("/")[0].partition(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            f"GET /v1/responses HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 101")
        sock.sendall(_frame(b'{"type": "\xff\xfe"}'))
        got = head.partition(b"\r\n\r\n")[2]
        while len(got) < 4:
            more = sock.recv(4096)
            if not more:
                break
            got += more
        assert got[0] == 0x88  # a close frame
        assert struct.unpack(">H", got[2:4])[0] == 1007


def test_an_interrupted_suite_names_the_reason_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from cassettes.redaction import Redactor
    from conformance.suite import runner
    from conformance.suite.console import Console
    from conformance.suite.results import TargetResult
    from conformance.suite.targets import Target

    monkeypatch.setattr(runner.pytest, "main", lambda *a, **k: pytest.ExitCode.INTERRUPTED)
    result = TargetResult(Target("t", "http://127.0.0.1:9/v1", "m"), strict=False)
    client = runner._client(result.target)
    try:
        runner._run_cases(result, Console(io.StringIO(), Redactor()), None, client, repeat=1)
    finally:
        client.close()
    assert result.status == "broken"
    assert result.reason == "the suite's cases could not run: interrupted"
