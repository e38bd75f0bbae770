"""The proxy's sans-I/O core: what a request is (kinds.classify) and one exchange's bytes to a
verdict (judge.ExchangeJudge), without sockets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.proxy.judge import ExchangeJudge
from conformance.proxy.kinds import classify

CORPUS = Path(__file__).parents[1] / "data" / "openai-recorded" / "streams"
CORE = frozenset({"core"})


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "group"),
    [
        ("POST", "/responses", "", {"stream": True}, "proxy/responses.create.stream"),
        ("POST", "/responses", "", {}, "proxy/responses.create"),
        ("POST", "/responses/compact", "", {}, "proxy/responses.compact"),
        ("GET", "/responses/resp_1", "stream=true&starting_after=4",
         None, "proxy/responses.retrieve.stream"),
        ("GET", "/responses/resp_1", "", None, "proxy/responses.retrieve"),
        ("DELETE", "/responses/resp_1", "", None, "proxy/responses.delete"),
        ("POST", "/responses/resp_1/cancel", "", None, "proxy/responses.cancel"),
        ("GET", "/responses/resp_1/input_items", "limit=2", None, "proxy/responses.input_items"),
        ("POST", "/conversations", "", {}, "proxy/conversations.create"),
        ("POST", "/conversations/conv_1", "", {}, "proxy/conversations.update"),
        ("GET", "/conversations/conv_1/items", "", None, "proxy/conversations.items.list"),
        ("GET", "/conversations/conv_1/items/msg_1", "", None,
         "proxy/conversations.items.retrieve"),
        ("DELETE", "/conversations/conv_1/items/msg_1", "", None,
         "proxy/conversations.items.delete"),
        ("GET", "/models", "", None, "proxy/other"),
    ],
)  # fmt: skip
def test_classify(method: str, path: str, query: str, body: object, group: str) -> None:
    assert classify(method, path, query, body).group == group


def test_resume_context_and_features() -> None:
    info = classify("GET", "/responses/resp_9", "stream=true&starting_after=41", None)
    assert info.resume_after == 41 and info.response_id == "resp_9"
    info = classify(
        "POST", "/responses", "",
        {"max_output_tokens": 16, "tools": [{"type": "custom", "name": "x"},
                                            {"type": "web_search"}]},
    )  # fmt: skip
    assert info.max_output_tokens == 16
    assert info.case_profiles == ("custom-tools", "hosted:web_search")


def _sse(path: Path) -> bytes:
    events = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _judge(data: bytes, chunk: int, **request: object) -> ExchangeJudge:
    judge = ExchangeJudge(
        classify("POST", "/responses", "", {"stream": True, **request}),
        profiles=CORE, max_events=20_000, max_body_bytes=1 << 20,
    )  # fmt: skip
    judge.start(200, "text/event-stream; charset=utf-8")
    for i in range(0, len(data), chunk):
        judge.feed(data[i : i + chunk])
    return judge


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.jsonl"))[:6])
def test_real_streams_pass_in_any_chunking(name: str) -> None:
    data = _sse(CORPUS / name)
    whole = _judge(data, len(data)).finish()
    assert whole.events > 0
    for chunk in (1, 7, 4096):
        verdict = _judge(data, chunk).finish()
        assert [v.check_id for v in verdict.violations] == [v.check_id for v in whole.violations]
        assert verdict.exercised == whole.exercised
    assert not whole.failing(strict=False), [v.format() for v in whole.violations]


def test_a_broken_stream_fails() -> None:
    data = _sse(sorted(CORPUS.glob("*.jsonl"))[0])
    verdict = _judge(data[: len(data) // 2], 13).finish()
    assert "stream.lifecycle.terminal_present" in {
        v.check_id for v in verdict.failing(strict=False)
    }


def _body(
    status: int, body: bytes, ctype: str = "application/json", **info: object
) -> ExchangeJudge:
    judge = ExchangeJudge(
        classify(str(info.get("method", "GET")), str(info.get("path", "/responses/resp_1")),
                 "", info.get("request")),
        profiles=CORE, max_events=20_000, max_body_bytes=64,
    )  # fmt: skip
    judge.start(status, ctype)
    judge.feed(body)
    return judge


def test_bodies() -> None:
    assert {v.check_id for v in _body(404, b"not json").finish().violations} == {"error.shape"}
    assert _body(429, b"slow down").finish().violations == []  # not a verdict
    offered = _body(404, b"{}", method="POST", path="/responses/input_tokens").finish()
    assert not offered.judged
    over = _body(200, b"{" + b" " * 100 + b"}")
    assert over.exchange.error == "body larger than 64 bytes"
    assert {v.check_id for v in over.finish().violations} == {"live.http.status_ok"}
    asked = _body(200, b"{}", method="POST", path="/responses", request={"stream": True})
    assert "live.stream.content_type" in {v.check_id for v in asked.finish().violations}


def test_a_transport_failure() -> None:
    judge = ExchangeJudge(
        classify("POST", "/responses", "", {}), profiles=CORE, max_events=10, max_body_bytes=10
    )
    judge.fail("no answer within 1 s", timed_out=True)
    assert [v.check_id for v in judge.finish().violations] == ["live.transport.deadline"]
