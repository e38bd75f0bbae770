"""HTTP/1.1 as RFC 9112 says, in the proxy (issue #40 item 2; docs/spec.md §4.8): what llhttp and
h11 refuse, the proxy refuses — a framing violation names its check, a request with one is
answered 400 and never forwarded, an answer with one fails the exchange and is not relayed as if
it were fine. The parser on its own first (sans I/O, both directions), then the proxy in front of
hand-written upstreams."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import httpx2
import pytest
from proxy_support import WAIT, exchange_raw, proxy, raw_upstream, read_request

from conformance.proxy.http1 import (
    BODY_CHUNKED,
    BODY_LENGTH,
    HEAD_SYNTAX,
    BodyReader,
    FramingError,
    body_framing,
    parse_request_head,
    parse_response_head,
)

EVENT = b'event: response.created\ndata: {"type":"response.created"}\n\n'

# chunk lines h11 and llhttp refuse, each where a chunk-size line is due
BAD_CHUNKS = {
    "0x-prefix": b"0x5\r\nhello\r\n0\r\n\r\n",
    "plus-sign": b"+5\r\nhello\r\n0\r\n\r\n",
    "underscore": b"0_5\r\nhello\r\n0\r\n\r\n",
    "leading-space": b" 5\r\nhello\r\n0\r\n\r\n",
    "bare-lf-size-line": b"5\nhello\r\n0\r\n\r\n",
    # held back: the same classes elsewhere in the grammar
    "minus-sign": b"-5\r\nhello\r\n0\r\n\r\n",
    "trailing-space": b"5 \r\nhello\r\n0\r\n\r\n",
    "not-hex": b"zz\r\nhello\r\n0\r\n\r\n",
    "bare-lf-after-data": b"5\r\nhello\n0\r\n\r\n",
    "no-crlf-after-data": b"5\r\nhelloXX0\r\n\r\n",
    "size-overflow": b"fffffffffffffffffff\r\nhello\r\n0\r\n\r\n",
    "bare-lf-last-chunk": b"5\r\nhello\r\n0\n\r\n",
    "empty-size": b"\r\nhello\r\n0\r\n\r\n",
}

# header names and heads the grammar refuses (RFC 9112 §5.1: a name is a token)
BAD_NAMES = {
    "nul": b"x\x00y: 1\r\n",
    "paren": b"x(y: 1\r\n",
    "tab": b"x\ty: 1\r\n",
    # held back
    "space-before-colon": b"x : 1\r\n",
    "space-inside": b"x y: 1\r\n",
    "obs-fold": b"x: 1\r\n folded\r\n",
    "nul-in-value": b"x: a\x00b\r\n",
    "del-in-value": b"x: \x7f\r\n",
    "slash": b"x/y: 1\r\n",
}

# the body's length determined two ways, or not at all (RFC 9112 §6.1, §6.3)
BAD_LENGTHS = {
    "two-lengths": b"content-length: 2\r\ncontent-length: 3\r\n",
    "equal-lengths": b"content-length: 2\r\ncontent-length: 2\r\n",
    "length-and-chunked": b"content-length: 2\r\ntransfer-encoding: chunked\r\n",
    "negative": b"content-length: -2\r\n",
    "overflow": b"content-length: 99999999999999999999999\r\n",
    "plus-sign": b"content-length: +2\r\n",
    "two-values": b"content-length: 2, 2\r\n",
    "hex": b"content-length: 0x2\r\n",
    "chunked-twice": b"transfer-encoding: chunked, chunked\r\n",
    "chunked-in-two-fields": b"transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n",
}


def _read_body(kind: str, size: int, data: bytes, step: int) -> tuple[bytes, BodyReader]:
    reader = BodyReader(kind, size)
    out = b""
    for i in range(0, len(data), step):
        out += reader.feed(data[i : i + step])
    return out, reader


# ---------------------------------------------------------------- the parser alone


@pytest.mark.parametrize("name", sorted(BAD_CHUNKS))
@pytest.mark.parametrize("step", [1, 3, 1000])
def test_a_malformed_chunk_line_is_refused(name: str, step: int) -> None:
    with pytest.raises(FramingError) as caught:
        _read_body("chunked", 0, BAD_CHUNKS[name], step)
    assert caught.value.check == BODY_CHUNKED, caught.value


@pytest.mark.parametrize(
    "body",
    [
        b"5\r\nhello\r\n0\r\n\r\n",
        b"05\r\nhello\r\n0\r\n\r\n",  # leading zeros are hex digits
        b"5;ext=1\r\nhello\r\n0\r\n\r\n",  # a chunk extension
        b"5\r\nhello\r\n0\r\nx-trailer: 1\r\n\r\n",  # a trailer section
        b"A\r\nhelloworld\r\n0\r\n\r\n",  # upper-case hex
    ],
)
@pytest.mark.parametrize("step", [1, 2, 7, 1000])
def test_the_near_misses_are_read_in_any_chunking(body: bytes, step: int) -> None:
    out, reader = _read_body("chunked", 0, body + b"NEXT", step)
    assert reader.done and reader.rest.endswith(b"NEXT") and out.startswith(b"hello")
    assert body.endswith(b"\r\n\r\n")
    assert len(reader.rest) == 4  # the body ended exactly where its framing ends


@pytest.mark.parametrize("name", sorted(BAD_NAMES))
@pytest.mark.parametrize("direction", ["request", "response"])
def test_a_malformed_head_is_refused(name: str, direction: str) -> None:
    line = BAD_NAMES[name]
    if direction == "request":
        data = b"POST /v1/responses HTTP/1.1\r\nhost: a\r\n" + line + b"content-length: 0\r\n\r\n"
        parse = parse_request_head
    else:
        data = b"HTTP/1.1 200 OK\r\n" + line + b"content-length: 0\r\n\r\n"
        parse = parse_response_head  # type: ignore[assignment]
    with pytest.raises(FramingError) as caught:
        parse(data)
    assert caught.value.check == HEAD_SYNTAX, caught.value


@pytest.mark.parametrize(
    "data",
    [
        b"GET  /v1/responses HTTP/1.1\r\n\r\n",  # two spaces (llhttp takes them)
        b"GET /v1/responses HTTP/1.1\nhost: a\n\n",  # bare LF line ends
        b"GET /v1/responses HTTP/1.2\r\n\r\n",
        b"get /v1/responses HTTP/1.1\r\n\r\n",
    ],
)
def test_a_malformed_request_line_is_refused(data: bytes) -> None:
    if b"\r\n\r\n" not in data:  # never a head: the proxy waits for its end, bounded
        assert parse_request_head(data) is None
        return
    with pytest.raises(FramingError) as caught:
        parse_request_head(data)
    assert caught.value.check == HEAD_SYNTAX


def test_status_lines() -> None:
    for bad in (b"HTTP/2.0 200 OK\r\n\r\n", b"HTTP/1.1 2000 OK\r\n\r\n", b"SPDY/9 what\r\n\r\n"):
        with pytest.raises(FramingError) as caught:
            parse_response_head(bad)
        assert caught.value.check == HEAD_SYNTAX, bad
    head, length = parse_response_head(b"HTTP/1.1 200\r\nx: \x80\r\n\r\nrest") or (None, 0)
    assert head is not None and head.status == 200 and length == 22
    assert head.headers == [(b"x", b"\x80")]  # obs-text in a value is allowed


@pytest.mark.parametrize("name", sorted(BAD_LENGTHS))
@pytest.mark.parametrize("direction", ["request", "response"])
def test_a_body_length_determined_two_ways_is_refused(name: str, direction: str) -> None:
    fields = BAD_LENGTHS[name]
    if direction == "request":
        data = b"POST /v1/responses HTTP/1.1\r\nhost: a\r\n" + fields + b"\r\n"
    else:
        data = b"HTTP/1.1 200 OK\r\n" + fields + b"\r\n"
    with pytest.raises(FramingError) as caught:
        found = (parse_request_head if direction == "request" else parse_response_head)(data)
        assert found is not None
        body_framing(found[0].headers, request=direction == "request")
    assert caught.value.check == BODY_LENGTH, caught.value


def test_a_coding_the_proxy_cannot_read_is_no_violation() -> None:
    found = parse_response_head(b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n")
    assert found is not None
    with pytest.raises(FramingError) as caught:
        body_framing(found[0].headers, request=False)
    assert caught.value.check is None


def test_limits_are_kept() -> None:
    with pytest.raises(FramingError, match="over 65536 bytes"):
        parse_request_head(b"GET / HTTP/1.1\r\nx: " + b"a" * 70_000)
    reader = BodyReader("chunked")
    with pytest.raises(FramingError, match="over 4096 bytes") as caught:
        for _ in range(100):
            reader.feed(b"5;" + b"x" * 100)
    assert caught.value.check is None  # the proxy's limit, not a violation
    head = b"HEAD /v1/responses HTTP/1.1\r\n\r\n"
    assert parse_request_head(head) is not None
    found = parse_response_head(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")
    assert found is not None
    assert body_framing(found[0].headers, request=False, head=True) == ("none", 0)
    for status in (204, 304):
        assert body_framing([(b"content-length", b"5")], request=False, status=status)[0] == "none"


# ---------------------------------------------------------------- through the proxy


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


STREAM_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"  # fmt: skip
ANSWERS = {
    # response id -> the upstream's answer to its retrieval, and the check it breaks
    "chunk0x": (STREAM_HEAD + _chunk(EVENT) + b"0x5\r\nhello\r\n0\r\n\r\n", BODY_CHUNKED),
    "name-nul": (b"HTTP/1.1 200 OK\r\nx\x00y: 1\r\ncontent-length: 2\r\n\r\n{}", HEAD_SYNTAX),
    "two-lengths": (b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}", BODY_LENGTH),
    "bare-lf": (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
                b"2\n{}\r\n0\r\n\r\n", BODY_CHUNKED),
}  # fmt: skip


def test_an_upstream_framing_violation_fails_its_check(tmp_path: Path) -> None:
    """Each answer breaks one rule: the client gets a 502 (a head, a whole body) or the stream
    cut after its last good chunk; the exchange fails with the rule's check."""

    def handler(conn: socket.socket) -> None:
        request = read_request(conn)
        path = request.split(b" ")[1].rsplit(b"/resp_", 1)[1].decode()
        conn.sendall(ANSWERS[path][0])

    with raw_upstream(handler) as upstream, proxy(upstream, report_dir=tmp_path) as run:
        # a connection each: the cut stream's is closed by the proxy, after a head that could
        # not say so (a request sent on it meanwhile would be reset)
        got = {p: httpx2.get(run.base_url + f"/responses/resp_{p}", timeout=WAIT) for p in ANSWERS}
    assert got["chunk0x"].status_code == 200 and got["chunk0x"].content == EVENT
    for path in ("name-nul", "two-lengths", "bare-lf"):
        assert got[path].status_code == 502, (path, got[path].content)
        assert set(got[path].json()["error"]) == {"message", "type", "param", "code"}
    assert run.code == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert {check for _, check in ANSWERS.values()} <= run.failing()


def test_a_clean_answer_exercises_the_checks(tmp_path: Path) -> None:
    def handler(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(STREAM_HEAD + _chunk(EVENT) + b"0\r\n\r\n")

    with (
        raw_upstream(handler) as upstream,
        proxy(upstream, report_dir=tmp_path) as run,
        httpx2.Client(timeout=WAIT) as http,
    ):
        answer = http.post(run.base_url + "/responses", json={"stream": True})
    assert answer.content == EVENT
    outcomes = run.outcomes()
    assert {outcomes.get(c) for c in (HEAD_SYNTAX, BODY_LENGTH, BODY_CHUNKED)} == {"pass"}


REQUESTS = {
    "chunk0x": b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n",
    "chunk-space": b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n 2\r\n{}\r\n0\r\n\r\n",
    "bare-lf": b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n",
    "name-paren": b"POST /v1/responses HTTP/1.1\r\nx(y: 1\r\ncontent-length: 2\r\n\r\n{}",
    "name-tab": b"POST /v1/responses HTTP/1.1\r\nx\ty: 1\r\ncontent-length: 2\r\n\r\n{}",
    "length-and-chunked": b"POST /v1/responses HTTP/1.1\r\ncontent-length: 2\r\n"
                          b"transfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "two-lengths": b"POST /v1/responses HTTP/1.1\r\ncontent-length: 2\r\ncontent-length: 12\r\n\r\n{}",
}  # fmt: skip


def test_a_request_framing_violation_is_refused_and_never_forwarded(tmp_path: Path) -> None:
    forwarded = threading.Event()

    def handler(conn: socket.socket) -> None:
        forwarded.set()
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")

    with raw_upstream(handler) as upstream, proxy(upstream, report_dir=tmp_path) as run:
        for name, raw in REQUESTS.items():
            answer = exchange_raw(run.base_url, raw)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400 "), (name, answer[:200])
            message = json.loads(body)["error"]["message"]
            assert "(http." in message, (name, message)
        assert not forwarded.is_set()
    assert "Traceback" not in run.stderr


def test_the_suites_plain_connection_judges_the_same_framing() -> None:
    """The live suite's ``core/http11_framing`` reads a create's answer with the same parser
    (conformance/suite/raw_http.py): each broken answer fails its check there too, and a clean
    one is judged by all three."""
    from conformance.suite.raw_http import raw_exchange

    answers = {**ANSWERS, "clean": (STREAM_HEAD + _chunk(EVENT) + b"0\r\n\r\n", None)}
    sent: list[bytes] = []

    def handler(conn: socket.socket) -> None:
        request = read_request(conn)
        sent.append(request)
        conn.sendall(answers[request.split(b" ")[1].rsplit(b"/", 1)[1].decode()][0])

    with raw_upstream(handler) as upstream:
        for name, (_, check) in answers.items():
            answer = raw_exchange(upstream, f"/{name}", {"stream": True}, api_key="k", timeout=WAIT)
            assert answer.error is None, (name, answer.error)
            assert [v.check_id for v in answer.violations] == ([check] if check else []), name
            assert check is None or check in answer.applied
        assert answer.applied == {HEAD_SYNTAX, BODY_LENGTH, BODY_CHUNKED}
    assert all(b"\r\nauthorization: Bearer k" in r for r in sent)
