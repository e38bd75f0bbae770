"""The openai SDK through the proxy in front of the mock: the client sees what it sees direct,
and every exchange is judged, printed and reported."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from proxy_support import proxy

from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock

openai = pytest.importorskip("openai")

CANARY_KEY = "sk-canary-PROXY-0123456789abcdef"
CANARY_COOKIE = "cookie-canary-9f8e7d6c5b4a"


def _session(base_url: str) -> dict[str, Any]:
    """What the client saw of one session over the whole HTTP surface."""
    client = openai.OpenAI(
        base_url=base_url, api_key=CANARY_KEY, max_retries=0,
        default_headers={"Cookie": f"session={CANARY_COOKIE}"},
    )  # fmt: skip
    seen: dict[str, Any] = {}
    first = client.responses.create(model="mock", input="hello")
    seen["create"] = first.output_text
    with client.responses.stream(model="mock", input="tell me more") as stream:
        seen["deltas"] = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    seen["retrieve"] = client.responses.retrieve(final.id).output_text
    seen["input_items"] = [i.id for i in client.responses.input_items.list(final.id)]
    chained = client.responses.create(model="mock", input="again", previous_response_id=first.id)
    seen["chained"] = chained.output_text
    background = client.responses.create(model="mock", input="slowly", background=True)
    events = list(
        client.responses.retrieve(background.id, stream=True, starting_after=2)  # resume
    )
    seen["resumed_from"] = events[0].sequence_number if events else None
    seen["cancel"] = client.responses.cancel(background.id).status
    compacted = client.responses.compact(model="mock", input="a long history to compact")
    seen["compact"] = compacted.object
    conversation = client.conversations.create(items=[{"role": "user", "content": "hi"}])
    seen["items"] = len(client.conversations.items.list(conversation.id).data)
    client.conversations.update(conversation.id, metadata={"k": "v"})
    client.conversations.delete(conversation.id)
    client.responses.delete(final.id)
    with pytest.raises(openai.NotFoundError) as missing:
        client.responses.retrieve("resp_does_not_exist")
    seen["missing"] = missing.value.status_code
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="mock", input=[{"role": "nobody", "content": 1}])  # type: ignore[list-item]
    return seen


def test_openai_sdk_through_the_proxy(mock: Any, tmp_path: Path) -> None:
    with LoopbackMock(MockSettings(frozen_time=1_700_000_000)) as other:
        direct = _session(other.base_url)  # a mock of its own: ids depend on its store
    with proxy(mock.base_url, report_dir=tmp_path) as run:
        proxied = _session(run.base_url)
    assert proxied == direct  # the client is unaffected
    assert run.code == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    lines = run.exchange_lines()
    assert len(lines) == run.index["proxy"]["exchanges"] >= 15
    assert all(ln.startswith("PASS ") for ln in lines), lines
    kinds = {c["id"] for c in run.target["cases"]}
    assert {
        "proxy/responses.create", "proxy/responses.create.stream", "proxy/responses.retrieve",
        "proxy/responses.retrieve.stream", "proxy/responses.input_items",
        "proxy/responses.cancel", "proxy/responses.compact", "proxy/responses.delete",
        "proxy/conversations.create", "proxy/conversations.items.list",
        "proxy/conversations.update", "proxy/conversations.delete",
    } <= kinds  # fmt: skip
    outcomes = run.outcomes()
    # the stream, body, resume, error and state checks were all put to the test
    for check_id in ("stream.sequence.contiguous", "stream.sequence.start", "conversation.schema.required",
                     "error.shape", "live.stream.content_type",
                     "compaction.schema.required"):  # fmt: skip
        if check_id in outcomes:
            assert outcomes[check_id] == "pass", (check_id, outcomes[check_id])
    assert sum(o == "pass" for o in outcomes.values()) >= 60
    for name in ("index.json", "junit.xml", "report.html"):
        text = (tmp_path / name).read_text()
        assert CANARY_KEY not in text and CANARY_COOKIE not in text
        assert CANARY_KEY[:12] not in text
    assert CANARY_KEY not in run.stdout + run.stderr


def test_sigterm_writes_reports_and_exits_0(mock: Any, tmp_path: Path) -> None:
    with proxy(mock.base_url, "--profile", "core,stateful", report_dir=tmp_path,
               stop=signal.SIGTERM) as run:  # fmt: skip
        client = openai.OpenAI(base_url=run.base_url, api_key="unused", max_retries=0)
        client.responses.create(model="mock", input="hello", stream=True).close()
    assert run.code == 0, run.stderr
    assert run.index["proxy"]["exchanges"] == 1
    assert run.target["target"]["profiles"] == ["core", "stateful"]
