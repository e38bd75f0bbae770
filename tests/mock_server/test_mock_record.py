"""``responses-mock --record DIR``: the mock's own traffic becomes a cassette (docs/cassettes.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cassettes import REDACTED, read_cassette, secret_forms
from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.cli import build_parser, main
from mock_server.testing import LoopbackMock

CANARY_KEY = "sk-canary-record-0123456789abcdef"
CANARY_COOKIE = "canary-cookie-record-5432109876"


def test_a_recorded_session_holds_every_exchange_with_its_stream(tmp_path: Path) -> None:
    folder = tmp_path / "cassette"
    settings = MockSettings(seed=3, frozen_time=FROZEN_TIME, record=str(folder), api_key=CANARY_KEY)
    with (
        LoopbackMock(settings) as mock,
        mock.client(default_headers={"Cookie": f"sid={CANARY_COOKIE}"}, max_retries=0) as client,
    ):
        with client.responses.stream(model="mock", input="hi", store=True) as stream:
            streamed = list(stream)
            final = stream.get_final_response()
        again = client.responses.retrieve(final.id)
        follow = client.responses.create(model="mock", input="more", previous_response_id=final.id)
    exchanges = read_cassette(folder)
    assert [(e.method, e.path, e.status) for e in exchanges] == [
        ("POST", "/v1/responses", 200),
        ("GET", f"/v1/responses/{final.id}", 200),
        ("POST", "/v1/responses", 200),
    ]
    first = exchanges[0]
    assert first.is_sse and first.body.count(b"\nevent: ") + 1 == len(streamed)
    assert len(first.chunks) >= 2  # chunks as they came, not one buffered body
    assert again.id == final.id and follow.previous_response_id == final.id
    assert b'"previous_response_id":"' + final.id.encode() in exchanges[2].request_body
    text = "".join(p.read_text() for p in sorted(folder.iterdir()))
    for secret in (CANARY_KEY, CANARY_COOKIE):
        assert not [f for f in secret_forms(secret) if f in text]
    assert f"Bearer {REDACTED}" in text and f"sid={REDACTED}" in text


def test_record_folder_errors_are_one_line(tmp_path: Path, capsys: object) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    parser = build_parser()
    assert parser.parse_args(["--record", "d"]).record == "d"
    try:
        main(["--record", str(blocker / "sub"), "--port", "0"])
    except SystemExit as exit_:
        assert exit_.code == 2
    else:  # pragma: no cover
        raise AssertionError("expected exit 2")


def test_replay_option_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "000001-GET-x.jsonl").write_text("{nope\n")
    cases = [
        (["--replay", str(tmp_path / "absent")], "no such file"),
        (["--replay", str(bad)], "000001-GET-x.jsonl:1: not JSON"),
        (["--replay", str(bad), "--replay-timing", "fast"], "--replay-timing"),
        (["--replay", str(bad), "--replay-match", "method,colour"], "--replay-match"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--port", "0"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


_HEAD = '{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET","target":"/"}\n'


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("deep.yaml", "interactions: " + "[" * 20_000 + "]" * 20_000, "nested too deeply"),
        ("deep.json", '{"interactions": ' + "[" * 100_000 + "]" * 100_000 + "}", "too deeply"),
        ("date.yaml", "a: !!timestamp 2001-13-99\n", "month must be in 1..12"),
        ("big.jsonl", _HEAD + '{"type":"end","t":' + "9" * 5000 + "}\n", "big.jsonl:2: not JSON"),
    ],
)
def test_a_garbage_replay_cassette_exits_2_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(SystemExit) as exit_:
        main(["--replay", str(tmp_path / name), "--port", "0"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err


def test_a_large_stream_is_recorded_as_it_flows_byte_exact(tmp_path: Path) -> None:
    """Issue #39 item 3: the recorder writes as the stream flows (cassettes/streaming.py); a
    stream of about 1.6 MB reads back byte for byte, its key nowhere in the file."""
    import httpx2

    from mock_server.engine import Chunking

    folder = tmp_path / "cassette"
    settings = MockSettings(
        frozen_time=FROZEN_TIME, record=str(folder), api_key=CANARY_KEY, chunking=Chunking(400, 400)
    )
    body = {"model": "mock-max-output-tokens", "input": "Hi", "stream": True,
            "max_output_tokens": 60_000}  # fmt: skip
    headers = {"Authorization": f"Bearer {CANARY_KEY}"}
    with LoopbackMock(settings) as mock, httpx2.Client(base_url=mock.base_url, timeout=60) as http:
        seen = http.post("/responses", json=body, headers=headers).content
    (exchange,) = read_cassette(folder)
    assert len(seen) > 1_000_000 and exchange.body == seen and exchange.outcome == "complete"
    assert len(exchange.chunks) > 10
    text = "".join(p.read_text() for p in folder.iterdir())
    assert not [f for f in secret_forms(CANARY_KEY) if f in text]
