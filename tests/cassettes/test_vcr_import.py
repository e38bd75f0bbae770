"""Importing vcrpy cassettes (cassettes/vcr.py; the variants of docs/cassettes.md)."""

from __future__ import annotations

import base64
import gzip
import json
from itertools import pairwise
from pathlib import Path

import pytest

from cassettes import REDACTED, CassetteError, read_cassette
from cassettes.vcr import import_vcr

DATA = Path(__file__).resolve().parents[1] / "data" / "cassettes" / "pydantic-ai"
SSE = b'event: response.created\ndata: {"type":"response.created"}\n\ndata: [DONE]\n\n'


def test_every_real_cassette_imports() -> None:
    files = sorted(DATA.glob("*.yaml"))
    assert len(files) == 7
    counts = {f.stem: len(read_cassette(f)) for f in files}
    assert counts["test_background_mode_streaming_continuation_vcr"] == 2
    assert counts["test_openai_conversation_id_tool_call_continuation"] == 4
    assert sum(counts.values()) == 17
    (background, poll) = read_cassette(
        DATA / "test_background_mode_streaming_continuation_vcr.yaml"
    )
    assert background.is_sse and background.body.startswith(b"event: response.created\n")
    assert len(background.chunks) == background.body.count(b"\n\n")
    assert poll.method == "GET" and poll.query == "stream=false"
    assert json.loads(poll.body)["status"] == "completed"  # parsed_body, written compact
    assert ("cookie", f"__cf_bm={REDACTED}") in poll.request_headers
    assert json.loads(background.request_body)["background"] is True


def test_vcrpy_v1_string_bodies_and_binary_gzip() -> None:
    packed = base64.b64encode(gzip.compress(SSE)).decode()
    text = f"""interactions:
- request:
    body: '{{"model":"m","stream":true}}'
    headers:
      Authorization: [Bearer sk-vcr-secret-123456789]
    method: POST
    uri: https://api.openai.com/v1/responses?x=1
  response:
    body:
      string: !!binary |
        {packed}
    headers:
      Content-Type: [text/event-stream; charset=utf-8]
      Content-Encoding: [gzip]
      Content-Length: ['99']
    status: {{code: 200, message: OK}}
- request:
    body: null
    headers: {{}}
    method: GET
    uri: https://api.openai.com/v1/responses/resp_1
  response:
    body: {{string: '{{"id":"resp_1"}}'}}
    headers: {{}}
    status: {{code: 200, message: OK}}
version: 1
"""
    first, second = import_vcr(text, source="t.yaml")
    assert (
        first.target == "/v1/responses?x=1" and first.request_body == b'{"model":"m","stream":true}'
    )
    assert first.body == SSE and [c.data for c in first.chunks][-1] == b"data: [DONE]\n\n"
    assert first.header("content-encoding") is None and first.header("content-length") is None
    assert first.request_headers == [("authorization", f"Bearer {REDACTED}")]
    assert second.body == b'{"id":"resp_1"}' and second.request_body == b""
    assert (first.seq, second.seq, second.source) == (1, 2, "t.yaml#2")


def test_vcrpy_v0_list_and_json_serializer() -> None:
    old = """- request:
    body: !!python/unicode '{"a": 1}'
    headers: {content-type: application/json}
    host: api.openai.com
    method: POST
    path: /v1/responses
    port: 443
    protocol: https
  response:
    body: {string: !!python/unicode '{"id": "resp_9"}'}
    headers: {content-type: application/json}
    status: {code: 201, message: Created}
"""
    (exchange,) = import_vcr(old)
    assert (exchange.target, exchange.status, exchange.body) == (
        "/v1/responses",
        201,
        b'{"id": "resp_9"}',
    )
    as_json = json.dumps(
        {
            "version": 1,
            "interactions": [
                {
                    "request": {"method": "GET", "uri": "http://h/v1/models", "body": None},
                    "response": {"status": {"code": 200}, "body": {"string": "{}"}},
                }
            ],
        }
    )
    (model,) = import_vcr(as_json)
    assert model.path == "/v1/models" and model.body == b"{}"


# Nine levels of ten aliases: 10**9 strings once expanded (as str() of a header value would).
_LEVELS = "".join(f"{b}: &{b} [{','.join([f'*{a}'] * 10)}]\n" for a, b in pairwise("abcdefghi"))
_BOMB = (
    "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
    + _LEVELS
    + "interactions:\n"
    + "- request: {method: GET, uri: 'http://h/v1/responses/r', headers: {h: [*i]}}\n"
    + "  response: {status: {code: 200}, body: {string: '{}'}}\n"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [\n", "not a VCR cassette"),
        ("42\n", "no 'interactions' list"),
        ("interactions: [1]\n", "an interaction must be a mapping"),
        ("interactions: [{request: {}, response: {}}]\n", "no method"),
        ("interactions: [{request: {method: GET}, response: {}}]\n", "no 'uri'"),
        (
            "interactions: [{request: {method: GET, uri: 'http://h/'}, response: {status: 9}}]\n",
            "no status code",
        ),
        ("!!python/object:os.system {}\n", "not a VCR cassette"),
        # constructors that raise ValueError, nesting past the recursion limit, an alias bomb
        ("a: !!timestamp 2001-13-99\n", "not a VCR cassette (month must be in 1..12)"),
        ("a: !!float xyz\n", "not a VCR cassette"),
        ("interactions: " + "[" * 20_000 + "]" * 20_000 + "\n", "nested too deeply"),
        ('{"interactions": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (_BOMB, "its aliases expand past"),  # refused before its headers are read
    ],
)
def test_bad_cassettes_get_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(CassetteError) as error:
        import_vcr(text, source="bad.yaml")
    assert message in str(error.value) and "\n" not in str(error.value)


def test_near_misses_of_the_bad_cassettes_still_import() -> None:
    """A valid timestamp, deep-ish nesting, a header given once and as a list, a number."""
    text = (
        "recorded_at: 2001-12-14\n"
        "deep: " + "[" * 200 + "]" * 200 + "\n"
        "interactions:\n"
        "- request: {method: GET, uri: 'http://h/v1/models', headers: {a: 1, b: [x, y]}}\n"
        "  response: {status: {code: 200}, body: {string: '{}'}}\n"
    )
    (exchange,) = import_vcr(text, source="ok.yaml")
    assert exchange.request_headers == [("a", "1"), ("b", "x"), ("b", "y")]
