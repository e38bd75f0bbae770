"""A VCR cassette cannot make its reader expand without bound: YAML aliases ("billion laughs")
are refused past a bound on the expanded size, compressed bodies past 64 MiB of output."""

from __future__ import annotations

import base64
import gzip
import time
import zlib
from pathlib import Path

import pytest

import cassettes.vcr
from cassettes import CassetteError, read_cassette
from cassettes.vcr import import_vcr
from conformance.cli import main

JSON_BODY = b'{"id":"resp_1","object":"response","status":"completed"}'
MIB_64 = 64 * 1024 * 1024


def _cassette(parsed_body: str = "{id: resp_1}", prelude: str = "") -> str:
    return f"""{prelude}interactions:
- request:
    body: null
    headers: {{}}
    method: GET
    uri: https://api.openai.com/v1/responses/resp_1
  response:
    parsed_body: {parsed_body}
    headers: {{Content-Type: [application/json]}}
    status: {{code: 200, message: OK}}
version: 1
"""


def _laughs(levels: int) -> str:
    """``levels`` anchors, each a list of 9 aliases of the one before: 9**levels strings."""
    lines = ['l0: &l0 "lol"']
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _bomb(levels: int) -> str:
    return _cassette(f"*l{levels}", prelude=_laughs(levels))


def test_a_billion_laughs_is_refused_at_once() -> None:
    """9**9 strings (3.9 G characters once a body's JSON is written): refused before it is."""
    start = time.monotonic()
    with pytest.raises(CassetteError, match="aliases expand past"):
        import_vcr(_bomb(9), source="bomb.yaml")
    assert time.monotonic() - start < 5


def test_a_smaller_bomb_past_a_lowered_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cassettes.vcr, "MAX_EXPANDED", 1024 * 1024)
    with pytest.raises(CassetteError, match=r"^bomb\.yaml: not a VCR cassette \(its aliases"):
        import_vcr(_bomb(7), source="bomb.yaml")  # 4.8 M strings


def test_an_alias_of_itself_is_refused() -> None:
    """``&a [*a]`` is a list that holds itself: it expands without end (before: a ValueError
    from json.dumps, a traceback out of ``check``)."""
    with pytest.raises(CassetteError, match="refer to themselves"):
        import_vcr(_cassette("&a [*a]"), source="loop.yaml")


def test_check_refuses_a_bomb_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(9))
    code = main(["check", str(path)])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "aliases expand past" in err, err


def test_a_few_aliases_still_import() -> None:
    """PyYAML's dumper writes an anchor for an object dumped twice: such a cassette reads."""
    text = _cassette("*body", prelude="shared: &body {id: resp_1, object: response}\n")
    text = text.replace("headers: {}", "headers: &h {Accept: [application/json]}", 1)
    text += "other: [*h, *h, *body, *body]\n"
    (exchange,) = import_vcr(text, source="ok.yaml")
    assert exchange.body == b'{"id":"resp_1","object":"response"}'
    assert exchange.request_headers == [("accept", "application/json")]


def test_a_bomb_within_the_bound_still_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is on the expanded size, not on aliases: 9**3 strings fit."""
    (exchange,) = import_vcr(_bomb(3), source="small.yaml")
    assert exchange.body.count(b'"lol"') == 9**3


def _binary(body: bytes, encoding: str) -> str:
    packed = base64.b64encode(body).decode()
    return f"""interactions:
- request:
    body: null
    headers: {{}}
    method: GET
    uri: https://api.openai.com/v1/responses/resp_1
  response:
    body:
      string: !!binary |
        {packed}
    headers:
      Content-Type: [application/json]
      Content-Encoding: [{encoding}]
    status: {{code: 200, message: OK}}
version: 1
"""


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def test_a_gzip_bomb_is_refused_past_64_mib() -> None:
    bomb = gzip.compress(b"\0" * (MIB_64 + 1), 9)
    assert len(bomb) < 200_000
    with pytest.raises(CassetteError, match="decompresses past 67,108,864 bytes"):
        import_vcr(_binary(bomb, "gzip"), source="gz.yaml")
    assert MIB_64 == cassettes.vcr.MAX_DECODED_BYTES


@pytest.mark.parametrize("encoding", ["gzip", "x-gzip", "deflate", "raw-deflate"])
def test_every_coding_is_bounded(monkeypatch: pytest.MonkeyPatch, encoding: str) -> None:
    monkeypatch.setattr(cassettes.vcr, "MAX_DECODED_BYTES", 4096, raising=False)
    data = b"x" * 4097
    packed = (
        gzip.compress(data)
        if "gzip" in encoding
        else zlib.compress(data)
        if encoding == "deflate"
        else _raw_deflate(data)
    )
    coding = "deflate" if encoding == "raw-deflate" else encoding
    with pytest.raises(CassetteError, match="decompresses past 4,096 bytes"):
        import_vcr(_binary(packed, coding), source="c.yaml")


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
def test_a_body_of_exactly_the_bound_decompresses(
    monkeypatch: pytest.MonkeyPatch, encoding: str
) -> None:
    body = JSON_BODY + b" " * (4096 - len(JSON_BODY))
    monkeypatch.setattr(cassettes.vcr, "MAX_DECODED_BYTES", len(body), raising=False)
    packed = (
        gzip.compress(body)
        if encoding == "gzip"
        else zlib.compress(body)
        if encoding == "deflate"
        else _raw_deflate(body)
    )
    coding = "deflate" if encoding == "raw-deflate" else encoding
    (exchange,) = import_vcr(_binary(packed, coding), source="c.yaml")
    assert exchange.body == body


def test_gzip_members_and_padding_read_as_gzip_decompress_reads_them() -> None:
    packed = gzip.compress(JSON_BODY[:20]) + gzip.compress(JSON_BODY[20:]) + b"\0\0\0\0"
    assert gzip.decompress(packed) == JSON_BODY
    (exchange,) = import_vcr(_binary(packed, "gzip"), source="c.yaml")
    assert exchange.body == JSON_BODY


def test_a_truncated_or_plain_body_under_a_gzip_header_is_kept() -> None:
    """vcrpy's decode_compressed_response keeps the header over plain text; a cut gzip stream
    is kept as recorded too (as before)."""
    for body in (JSON_BODY, gzip.compress(JSON_BODY)[:-12]):
        (exchange,) = import_vcr(_binary(body, "gzip"), source="c.yaml")
        assert exchange.body == body


def test_the_real_cassettes_still_read() -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "cassettes" / "pydantic-ai"
    assert sum(len(read_cassette(f)) for f in sorted(data.glob("*.yaml"))) == 17
