"""``proxy --record DIR``: every exchange through the proxy becomes a cassette (docs/cassettes.md)
— no secret in it — that ``check DIR`` judges and the mock replays: the client sees
byte-identical streams."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from proxy_support import ROOT, proxy

from mock_server.app import MockSettings
from mock_server.replay import ReplaySettings
from mock_server.testing import LoopbackMock

openai = pytest.importorskip("openai")

KEY = "sk-record-canary-5f4e3d2c1b0a9988"
COOKIE = "record-cookie-canary-77aa66bb"
STREAM = {"model": "mock", "input": "Tell me a story.", "stream": True}


def _session(base_url: str) -> list[bytes]:
    """Raw bodies of a session: a create, a stream, a retrieve of the stream's response."""
    headers = {"Authorization": f"Bearer {KEY}", "Cookie": f"sid={COOKIE}"}
    with httpx2.Client(base_url=base_url, headers=headers, timeout=30) as http:
        created = http.post("/responses", json={"model": "mock", "input": "hello"})
        streamed = http.post("/responses", json=STREAM)
        rid = created.json()["id"]
        retrieved = http.get(f"/responses/{rid}")
    return [created.content, streamed.content, retrieved.content]


def test_record_then_replay_byte_identical(tmp_path: Path) -> None:
    tape = tmp_path / "cassette"
    with (
        LoopbackMock(MockSettings(frozen_time=1_700_000_000)) as mock,
        proxy(mock.base_url, "--record", str(tape), report_dir=tmp_path / "reports") as run,
    ):
        live = _session(run.base_url)
        client = openai.OpenAI(base_url=run.base_url, api_key=KEY, max_retries=0)
        with client.responses.connect() as conn:  # a WebSocket session is recorded too
            conn.response.create(model="mock", input="over the socket")  # type: ignore[arg-type]
            while conn.parse_event(conn.recv_bytes()).type != "response.completed":
                pass
    assert run.code == 0, run.stdout + run.stderr
    files = sorted(tape.iterdir())
    assert len(files) == 4
    for path in files:
        text = path.read_text()
        assert KEY not in text and COOKIE not in text and KEY[:14] not in text
    for path in (tmp_path / "reports").iterdir():
        assert KEY not in path.read_text()
    judged = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "check", "--strict", str(tape)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert judged.returncode == 0, judged.stdout + judged.stderr
    replay = MockSettings(replay=ReplaySettings(str(tape), timing=0.0))
    with LoopbackMock(replay) as replaying:
        assert _session(replaying.base_url) == live


def test_record_into_an_unwritable_place_cannot_start(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "proxy", "--upstream", "http://127.0.0.1:1/v1",
         "--port", "0", "--record", str(blocker / "sub")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        done.stderr.startswith("responses-conformance proxy: --record")
        and done.stderr.count("\n") == 1
    )


LONG = {"model": "mock-max-output-tokens", "input": "Hi", "stream": True,
        "max_output_tokens": 60_000}  # fmt: skip


def test_a_large_stream_is_recorded_byte_exact_and_a_cut_one_leaves_a_loadable_cassette(
    tmp_path: Path,
) -> None:
    """Issue #39 item 3: the recording streams to disk (cassettes/streaming.py); a stream of
    about 1.6 MB reads back byte for byte, and a client that leaves mid-stream leaves a whole
    file saying so."""
    from cassettes import read_cassette
    from mock_server.engine import Chunking, Latency

    tape = tmp_path / "cassette"
    headers = {"Authorization": f"Bearer {KEY}"}
    settings = MockSettings(  # each stream takes 2 s: the client leaves while it flows
        frozen_time=1_700_000_000, chunking=Chunking(400, 400), latency=Latency(duration=2.0)
    )
    with (
        LoopbackMock(settings) as mock,
        proxy(mock.base_url, "--record", str(tape), "-q") as run,
        httpx2.Client(base_url=run.base_url, headers=headers, timeout=60) as http,
    ):
        whole = http.post("/responses", json=LONG).content
        with http.stream("POST", "/responses", json=LONG) as cut:
            taken = 0
            for block in cut.iter_raw(16 * 1024):
                taken += len(block)
                if taken > 200_000:
                    break  # the client leaves mid-stream
    assert run.code == 0, run.stdout + run.stderr
    assert len(whole) > 1_000_000
    assert not [p for p in tape.iterdir() if p.name.startswith(".")]
    full, left = read_cassette(tape)
    assert full.body == whole and full.outcome == "complete"
    assert left.outcome == "disconnected" and 200_000 <= len(left.body) < len(whole)
    assert left.body.startswith(b"event: response.created\n")
    for path in tape.iterdir():
        assert KEY not in path.read_text()
