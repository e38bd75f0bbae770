"""The cassette format (docs/cassettes.md): writer -> file -> reader, redaction on write."""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cassettes import (
    REDACTED,
    CassetteError,
    CassetteWriter,
    decode_exchange,
    read_cassette,
    secret_forms,
)
from cassettes.secrets import splice

CANARY_KEY = "sk-canary-0123456789abcdefXYZ"
CANARY_COOKIE = "cookie-canary-9876543210zyxw"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def _writer(tmp_path: Path, **kw: object) -> CassetteWriter:
    return CassetteWriter(tmp_path / "c", clock=Clock(), wall=lambda: 1_764_600_000.0, **kw)  # type: ignore[arg-type]


def test_round_trip_keeps_bytes_headers_and_times(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    rec = writer.begin(
        "post", "/v1/responses?x=1", [(b"Content-Type", b"application/json")], b'{"a":1}'
    )
    rec.response(200, [("content-type", "text/event-stream"), ("x-a", "1"), ("x-a", "2")])
    rec.chunk(b"event: a\ndata: {}\n\n")
    rec.chunk(b"\xff\xfe not utf-8")
    rec.chunk(b"")
    path = rec.finish()
    assert path.name == "000001-POST-responses.jsonl"
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == [
        "request",
        "response",
        "chunk",
        "chunk",
        "end",
    ]
    assert "data_b64" in json.loads(lines[3])
    (exchange,) = read_cassette(tmp_path / "c")
    assert exchange.method == "POST" and exchange.target == "/v1/responses?x=1"
    assert exchange.path == "/v1/responses" and exchange.query == "x=1"
    assert exchange.request_headers == [("content-type", "application/json")]
    assert exchange.request_body == b'{"a":1}'
    assert exchange.status == 200
    assert exchange.response_headers[1:] == [("x-a", "1"), ("x-a", "2")]
    assert exchange.body == b"event: a\ndata: {}\n\n\xff\xfe not utf-8"
    times = [exchange.response_t, *(c.t for c in exchange.chunks), exchange.end_t]
    assert times == sorted(times) and times[0] > 0
    assert exchange.at == 1_764_600_000.0 and exchange.is_sse and exchange.outcome == "complete"


def test_sequence_numbers_continue_after_the_files_already_there(tmp_path: Path) -> None:
    first = _writer(tmp_path)
    first.begin("GET", "/v1/responses/r1").finish()
    second = _writer(tmp_path)
    second.begin("DELETE", "/v1/responses/r1").finish()
    exchanges = read_cassette(tmp_path / "c")
    assert [(e.seq, e.method) for e in exchanges] == [(1, "GET"), (2, "DELETE")]


def test_websocket_frames_and_outcomes(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    with writer.begin("GET", "/v1/responses", websocket=True) as rec:
        rec.response(101, [])
        rec.frame('{"type":"response.create"}', "client")
        rec.frame(b'{"type":"response.created"}', "server")
        rec.frame("1000", "client", "close")
    (exchange,) = read_cassette(tmp_path / "c")
    assert exchange.websocket and exchange.label == "#1 WS /v1/responses"
    assert [(f.sender, f.opcode) for f in exchange.frames] == [
        ("client", "text"),
        ("server", "text"),
        ("client", "close"),
    ]
    with pytest.raises(RuntimeError), writer.begin("POST", "/v1/responses"):
        raise RuntimeError("upstream broke")
    assert read_cassette(tmp_path / "c")[1].outcome == "error: RuntimeError: upstream broke"


def test_size_cap_truncates_visibly(tmp_path: Path) -> None:
    writer = _writer(tmp_path, max_bytes=10)
    rec = writer.begin("POST", "/v1/responses")
    rec.response(200, [])
    rec.chunk(b"12345678")
    rec.chunk(b"abcdef")
    rec.finish()
    (exchange,) = read_cassette(tmp_path / "c")
    assert exchange.body == b"12345678" and exchange.outcome == "truncated"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty exchange file"),
        ("[1]\n", "a record must be a JSON object"),
        ('{"type":"chunk"}\n', "the first record must be the request"),
        ('{"type":"request","format":"x/9","seq":1}\n', "unknown format"),
        ('{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET"}\n', "target"),
        (
            '{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET",'
            '"target":"/"}\n{"type":"response","t":-1,"status":200}\n',
            "'t' must be >= 0",
        ),
        (
            '{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET",'
            '"target":"/"}\n{"type":"chunk","t":0,"data_b64":"%%%"}\n',
            "not base64",
        ),
        ("{nope\n", "not JSON"),
    ],
)
def test_malformed_files_get_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(CassetteError) as error:
        decode_exchange(text, "f.jsonl")
    assert message in str(error.value) and "\n" not in str(error.value)


_REQUEST = (
    '{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET","target":"/"}\n'
)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        # Python's json refuses these with a ValueError / RecursionError, not a JSONDecodeError
        ('{"type":"response","t":' + "1" * 5000 + ',"status":200}', ":2: not JSON"),
        ("[" * 100_000 + "]" * 100_000, ":2: not JSON (nested too deeply)"),
        ('{"type":"end","t":1,"outcome":{"a":1}}', ":2: 'outcome' must be a string"),
        ('{"type":"end","t":1,"outcome":null}', ":2: 'outcome' must be a string"),
    ],
)
def test_garbage_records_are_one_line_errors_naming_the_line(record: str, message: str) -> None:
    with pytest.raises(CassetteError) as error:
        decode_exchange(_REQUEST + record + "\n", "f.jsonl")
    assert str(error.value).startswith("f.jsonl:2: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_near_misses_of_the_garbage_records_still_read() -> None:
    text = (
        _REQUEST
        + '{"type":"response","t":' + "1" * 40 + ',"status":200}\n'
        + '{"type":"chunk","t":1,"data":"' + "[" * 500 + '"}\n'
        + '{"type":"end","t":1,"outcome":"error: reset"}\n'
    )  # fmt: skip
    exchange = decode_exchange(text, "f.jsonl")
    assert exchange.status == 200 and exchange.outcome == "error: reset"


def test_missing_folder_is_a_cassette_error(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="no such file"):
        read_cassette(tmp_path / "absent.jsonl")


def test_splice_keeps_pieces_in_place() -> None:
    texts = ["abc", "", "defg", "h"]
    assert splice(texts, []) == texts
    assert splice(texts, [(2, 5, "X")]) == ["abX", "", "fg", "h"]
    assert splice(texts, [(0, 8, "Y")]) == ["Y", "", "", ""]
    assert splice(texts, [(1, 2, "1"), (1, 3, "2"), (7, 8, "Z")]) == ["a1", "", "defg", "Z"]


def _forms(secret: str) -> list[str]:
    fragments = [secret[i : i + 8] for i in range(len(secret) - 7)]
    return [*secret_forms(secret), *fragments]


def _assert_clean(text: str) -> None:
    for secret in (CANARY_KEY, CANARY_COOKIE):
        leaked = [f for f in _forms(secret) if f in text]
        assert leaked == [], leaked


def test_canaries_never_reach_the_file_in_any_form(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    key_b64 = base64.b64encode(f"Bearer {CANARY_KEY}".encode()).decode()
    rec = writer.begin(
        "POST",
        f"/v1/responses?api_key={quote(CANARY_KEY)}",
        [
            ("Authorization", f"Bearer {CANARY_KEY}"),
            ("Cookie", f"session={CANARY_COOKIE}; theme=dark"),
            ("x-echo", CANARY_KEY),
        ],
        json.dumps({"input": f"my key is {CANARY_KEY}", "n": quote(CANARY_COOKIE)}).encode(),
    )
    rec.response(
        200,
        [("set-cookie", f"session={CANARY_COOKIE}; Path=/"), ("content-type", "text/event-stream")],
    )
    half = len(CANARY_KEY) // 2
    escaped = "".join(f"\\u{ord(c):04x}" for c in CANARY_KEY)
    events = [
        {"type": "d", "delta": f"Bearer {CANARY_KEY[:half]}"},
        {"type": "d", "delta": CANARY_KEY[half:]},
        {"type": "d", "delta": CANARY_COOKIE[:3]},
        {"type": "d", "delta": CANARY_COOKIE[3:6]},
        {"type": "d", "delta": CANARY_COOKIE[6:]},
        {"type": "e", "b64": key_b64, "url": quote(CANARY_KEY, safe="")},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    body += f'data: {{"raw":"{escaped}"}}\n\n'
    # chunks cut anywhere, a secret split across chunks too
    cut = body.index(CANARY_KEY[half:]) + 3
    for piece in (body[:cut], body[cut : cut + 5], body[cut + 5 :]):
        rec.chunk(piece.encode())
    rec.frame(json.dumps({"delta": CANARY_KEY[:5]}), "server")
    rec.frame(json.dumps({"delta": CANARY_KEY[5:]}), "server")
    rec.finish(f"error: upstream said {CANARY_KEY}")
    text = next((tmp_path / "c").iterdir()).read_text()
    _assert_clean(text)
    (exchange,) = read_cassette(tmp_path / "c")
    _assert_clean(exchange.body.decode() + exchange.request_body.decode())
    _assert_clean(" ".join(f.data.decode() for f in exchange.frames) + exchange.target)
    assert ("authorization", f"Bearer {REDACTED}") in exchange.request_headers
    assert ("cookie", f"session={REDACTED}; theme={REDACTED}") in exchange.request_headers
    assert exchange.body.count(b"event: ") == 6  # the stream's shape survives redaction
    assert exchange.request_headers[2] == ("x-echo", REDACTED)
    assert REDACTED in exchange.outcome


def test_two_writers_of_one_folder_never_overwrite(tmp_path: Path) -> None:
    a, b = _writer(tmp_path), _writer(tmp_path)  # both start at 0: both hand out seq 1 first
    ra, rb = (
        a.begin("POST", "/v1/responses", body=b"a"),
        b.begin("POST", "/v1/responses", body=b"b"),
    )
    ra.finish()
    rb.finish()
    exchanges = read_cassette(tmp_path / "c")
    assert sorted(e.request_body for e in exchanges) == [b"a", b"b"]
    assert len({e.seq for e in exchanges}) == 2
    assert not [p for p in (tmp_path / "c").iterdir() if p.name.startswith(".")]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chunks=st.lists(st.binary(max_size=40), max_size=8))
def test_any_bytes_round_trip_exactly(tmp_path: Path, chunks: list[bytes]) -> None:
    writer = CassetteWriter(tmp_path / f"h{len(list(tmp_path.iterdir()))}")
    rec = writer.begin("POST", "/v1/responses", body=b"".join(chunks))
    rec.response(200, [])
    for chunk in chunks:
        rec.chunk(chunk)
    (exchange,) = read_cassette(rec.finish().parent)
    assert [c.data for c in exchange.chunks] == [c for c in chunks if c]
    assert exchange.request_body == b"".join(chunks)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6),
    form=st.sampled_from(["plain", "escaped", "url", "b64", "deltas"]),
)
def test_a_secret_cut_anywhere_never_reaches_the_file(
    tmp_path: Path, cuts: list[int], form: str
) -> None:
    encoded = {
        "plain": CANARY_KEY,
        "escaped": "".join(f"\\u{ord(c):04x}" for c in CANARY_KEY),
        "url": quote(CANARY_KEY, safe=""),
        "b64": base64.b64encode(f"Bearer {CANARY_KEY}".encode()).decode(),
    }
    if form == "deltas":
        third = len(CANARY_KEY) // 3
        parts = [CANARY_KEY[:third], CANARY_KEY[third : 2 * third], CANARY_KEY[2 * third :]]
        body = "".join(
            f"data: {json.dumps({'type': 'x.delta', 'delta': p})}\n\n" for p in ["hi ", *parts]
        )
    else:
        body = f'data: {{"type":"x","text":"see {encoded[form]} here"}}\n\n'
    writer = CassetteWriter(tmp_path / f"s{len(list(tmp_path.iterdir()))}", secrets=[CANARY_KEY])
    rec = writer.begin("POST", "/v1/responses")
    rec.response(200, [("content-type", "text/event-stream")])
    raw = body.encode()
    edges = sorted({min(c, len(raw)) for c in cuts} | {0, len(raw)})
    for lo, hi in itertools.pairwise(edges):
        rec.chunk(raw[lo:hi])
    path = rec.finish()
    _assert_clean(path.read_text())
    (exchange,) = read_cassette(path)
    _assert_clean(exchange.body.decode())  # the bytes as read back, not only their JSON text
    assert exchange.body.count(b"data: ") == body.count("data: ")


def test_a_key_seen_once_is_hunted_in_later_exchanges(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    writer.begin("GET", "/v1/models", [("authorization", f"Bearer {CANARY_KEY}")]).finish()
    later = writer.begin("POST", "/v1/responses", body=f'{{"input":"{CANARY_KEY}"}}'.encode())
    later.finish()
    _assert_clean("".join(p.read_text() for p in (tmp_path / "c").iterdir()))


def test_a_hand_written_credential_is_redacted_on_reading(tmp_path: Path) -> None:
    from cassettes import encode_exchange
    from cassettes.model import Exchange

    raw = Exchange(1, "POST", "/v1/responses", [("authorization", f"Bearer {CANARY_KEY}")])
    raw.request_body = f'{{"echo":"{CANARY_KEY}"}}'.encode()
    folder = tmp_path / "hand"
    folder.mkdir()
    (folder / "000001-POST-responses.jsonl").write_text(encode_exchange(raw))
    (exchange,) = read_cassette(folder)
    _assert_clean(repr(exchange))


def test_secrets_added_after_the_writer_was_made_are_hunted(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    rec = writer.begin("POST", "/v1/responses", body=f"a {CANARY_KEY} b".encode())
    writer.add_secret(CANARY_KEY)  # learnt while the exchange was in flight (a proxy's ledger)
    rec.finish()
    other = writer.begin("POST", "/v1/responses", body=f"c {CANARY_COOKIE} d".encode())
    writer.secrets.append(CANARY_COOKIE)  # the list itself may be extended too
    other.finish()
    _assert_clean("".join(p.read_text() for p in (tmp_path / "c").iterdir()))
