"""The writer streams (issue #39 item 3): an exchange's body goes to disk as it passes, through a
bounded redaction window (cassettes/streaming.py), never held whole; a cut exchange is a whole
file, one that never ended leaves only a hidden file aside that readers skip."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cassettes.streaming as streaming
from cassettes import REDACTED, CassetteWriter, read_cassette, read_exchange, secret_forms
from cassettes.model import Frame

KEY = "sk-stream-canary-0123456789abcdef"


def _sse(count: int, rng: random.Random, size: int = 200) -> bytes:
    """``count`` SSE delta events of up to ``size`` characters of text each (some not ASCII)."""
    events = []
    for n in range(count):
        text = "".join(rng.choice("abc dé\n€") for _ in range(rng.randint(0, size)))
        event = {"type": "response.output_text.delta", "sequence_number": n, "delta": text}
        events.append(f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n")
    return "".join(events).encode()


def _pieces(data: bytes, rng: random.Random, most: int = 70_000) -> list[bytes]:
    """``data`` cut at random places (a UTF-8 character split across pieces too)."""
    out, pos = [], 0
    while pos < len(data):
        step = rng.randint(1, most)
        out.append(data[pos : pos + step])
        pos += step
    return out


def _leaks(text: str) -> list[str]:
    pieces = [KEY[i : i + 8] for i in range(len(KEY) - 7)]
    return [f for f in (*secret_forms(KEY), *pieces) if f in text]


def test_a_large_exchange_goes_to_disk_as_it_passes_and_reads_back_byte_exact(
    tmp_path: Path,
) -> None:
    rng = random.Random(7)
    body = _sse(3_000, rng, 1_200)  # about 2.5 MB
    chunks = _pieces(body, rng)
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])  # redaction on, nothing to find
    rec = writer.begin("POST", "/v1/responses", [("authorization", f"Bearer {KEY}")], b"{}")
    rec.response(200, [("content-type", "text/event-stream")])
    held = []
    for chunk in chunks:
        rec.chunk(chunk)
        assert rec._body is not None
        held.append(rec._body.pending_bytes)
    aside = [p for p in (tmp_path / "c").iterdir() if p.name.startswith(".")]
    assert len(aside) == 1 and aside[0].stat().st_size > len(body) // 2  # written already
    # what the recorder holds is the window, not the body
    bound = 2 * streaming.lookahead(writer._redactor) + streaming.STEP + max(map(len, chunks))
    assert max(held) <= bound < len(body) // 4
    path = rec.finish()
    assert [p.name for p in (tmp_path / "c").iterdir()] == [path.name]  # the aside file is gone
    (exchange,) = read_cassette(tmp_path / "c")
    assert exchange.body == body
    assert [c.data for c in exchange.chunks] == chunks  # each chunk kept whole, as it came
    assert exchange.outcome == "complete" and not _leaks(path.read_text())


def test_a_cut_exchange_is_a_whole_file_with_its_outcome(tmp_path: Path) -> None:
    rng = random.Random(3)
    body = _sse(4_000, rng)
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])
    rec = writer.begin("POST", "/v1/responses")
    rec.response(200, [("content-type", "text/event-stream")])
    half = body[: len(body) // 2 + 11]  # cut inside an event
    for chunk in _pieces(half, rng):
        rec.chunk(chunk)
    rec.finish("disconnected")
    broken = writer.begin("POST", "/v1/responses")
    broken.response(200, [("content-type", "text/event-stream")])
    broken.chunk(body[:1000])
    broken.finish(f"error: the upstream closed with {KEY}")
    first, second = read_cassette(tmp_path / "c")
    assert first.body == half and first.outcome == "disconnected"
    assert second.body == body[:1000] and second.outcome.startswith("error: ")
    assert REDACTED in second.outcome and KEY not in second.outcome


def test_an_exchange_that_never_ended_leaves_a_loadable_folder(tmp_path: Path) -> None:
    """A process killed mid-exchange: the finished exchanges load; the unfinished one is only a
    hidden file aside, which readers skip."""
    rng = random.Random(5)
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])
    done = writer.begin("GET", "/v1/models")
    done.response(200, [("content-type", "application/json")])
    done.chunk(b'{"data":[]}')
    done.finish()
    dying = writer.begin("POST", "/v1/responses")
    dying.response(200, [("content-type", "text/event-stream")])
    for chunk in _pieces(_sse(3_000, rng), rng):
        dying.chunk(chunk)  # never finished
    names = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len(names) == 2 and names[0].startswith(".") and names[0].endswith(".tmp")
    (exchange,) = read_cassette(tmp_path / "c")
    assert exchange.path == "/v1/models" and exchange.body == b'{"data":[]}'
    # a later writer of the same folder numbers after what is in place (2 was never placed)
    assert CassetteWriter(tmp_path / "c").begin("GET", "/v1/models").exchange.seq == 2
    assert dying._file is not None
    dying._file.close()  # as the process's death would


def test_two_writers_renumber_a_streamed_file(tmp_path: Path) -> None:
    rng = random.Random(11)
    body = _sse(2_000, rng)
    a, b = CassetteWriter(tmp_path / "c"), CassetteWriter(tmp_path / "c")
    ra, rb = a.begin("POST", "/v1/responses"), b.begin("POST", "/v1/responses")
    for rec in (ra, rb):
        rec.response(200, [("content-type", "text/event-stream")])
        for chunk in _pieces(body, rng):
            rec.chunk(chunk)
    pa, pb = ra.finish(), rb.finish()
    assert pa != pb
    exchanges = read_cassette(tmp_path / "c")
    assert sorted(e.seq for e in exchanges) == [1, 2] and all(e.body == body for e in exchanges)
    assert read_exchange(pb).seq == int(pb.name[:6])  # the first line says the new number
    assert not [p for p in (tmp_path / "c").iterdir() if p.name.startswith(".")]


def test_a_json_body_is_redacted_as_one_document(tmp_path: Path) -> None:
    """A secret split across the strings of a JSON body (not SSE) is found, as before."""
    half = len(KEY) // 2
    doc = {"output": [{"text": "x" * 300_000 + KEY[:half]}, {"text": KEY[half:] + "y"}]}
    body = json.dumps(doc).encode()
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])
    rec = writer.begin("GET", "/v1/responses/resp_1")
    rec.response(200, [("content-type", "application/json")])
    for chunk in _pieces(body, random.Random(1), 50_000):
        rec.chunk(chunk)
    path = rec.finish()
    (exchange,) = read_cassette(path)
    redacted = json.loads(exchange.body)
    assert KEY[:5] not in redacted["output"][0]["text"][-20:]
    assert not redacted["output"][1]["text"].startswith(KEY[half : half + 3])


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a few hundred characters: many cuts in a short stream."""
    monkeypatch.setattr(streaming, "WINDOW", 1024)
    monkeypatch.setattr(streaming, "STEP", 256)
    monkeypatch.setattr(streaming, "HOLD", 8 * 1024)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_secret_split_anywhere_in_a_long_stream_never_reaches_the_file(
    tmp_path: Path, small_window: None, seed: int
) -> None:
    rng = random.Random(seed)
    events, secret = [], False
    for n in range(rng.randint(1, 150)):
        if rng.random() < 0.06:  # the key in pieces, in consecutive deltas
            secret = True
            cuts = sorted({rng.randint(1, len(KEY) - 1) for _ in range(rng.randint(1, 6))})
            for lo, hi in itertools.pairwise([0, *cuts, len(KEY)]):
                events.append({"type": "d", "sequence_number": n, "delta": KEY[lo:hi]})
        elif rng.random() < 0.03:
            secret = True
            events.append({"type": "t", "text": f"the key {KEY} é"})
        else:
            text = "".join(rng.choice("ab é\n") for _ in range(rng.randint(0, 60)))
            events.append({"type": "d", "sequence_number": n, "delta": text})
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    chunks = _pieces(body, rng, 300)
    writer = CassetteWriter(tmp_path / f"s{seed}", secrets=[KEY])
    rec = writer.begin("POST", "/v1/responses")
    rec.response(200, [("content-type", "text/event-stream")])
    for chunk in chunks:
        rec.chunk(chunk)
    path = rec.finish()
    (exchange,) = read_cassette(path)
    text = exchange.body.decode("utf-8", "replace")
    assert not _leaks(path.read_text()) and not _leaks(text)
    parsed = [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: ")]
    assert len(parsed) == len(events)  # every event still one event of JSON
    deltas = "".join(str(e.get("delta", "")) for e in parsed)
    assert KEY[:4] not in deltas and KEY[-4:] not in deltas  # the short pieces too
    assert len(exchange.chunks) == len(chunks)
    if not secret:
        assert exchange.body == body


def test_frames_stream_and_a_key_split_across_frames_is_found(
    tmp_path: Path, small_window: None
) -> None:
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])
    rec = writer.begin("GET", "/v1/responses", websocket=True)
    rec.response(101, [])
    sent = []
    for n in range(400):
        delta = KEY[:6] if n == 200 else KEY[6:] if n == 201 else f"word {n} "
        frame = json.dumps({"type": "response.output_text.delta", "delta": delta})
        sent.append(frame)
        rec.frame(frame, "server")
    assert rec._frames is not None and rec._frames.pending_bytes < len("".join(sent)) // 4
    path = rec.finish()
    (exchange,) = read_cassette(path)
    assert len(exchange.frames) == 400 and all(isinstance(f, Frame) for f in exchange.frames)
    assert [f.data.decode() for f in exchange.frames[:200]] == sent[:200]
    assert KEY[:6] not in exchange.frames[200].data.decode() and not _leaks(path.read_text())


def test_json_nested_past_the_recursion_limit_ends_the_recording_not_the_recorder(
    tmp_path: Path,
) -> None:
    """A hostile body the redactor cannot walk: nothing of it is written unredacted; the file
    is whole and says what was not kept (before: the error escaped ``finish``)."""
    deep = b"[" * 100_000 + b"]" * 100_000
    writer = CassetteWriter(tmp_path / "c", secrets=[KEY])
    rec = writer.begin("POST", "/v1/responses", body=deep)
    rec.response(200, [("content-type", "text/event-stream")])
    rec.chunk(b"event: x\ndata: " + deep + b"\n\n")
    rec.chunk(b'event: y\ndata: {"b":1}\n\n')
    path = rec.finish()
    (exchange,) = read_cassette(path)
    assert exchange.request_body == b"" and exchange.body == b""
    assert exchange.outcome == "error: not recorded past here: RecursionError"
