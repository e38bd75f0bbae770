"""Stateless reasoning: `include: ["reasoning.encrypted_content"]` gives reasoning items a sealed
`encrypted_content` (AES-GCM-SIV, reference_impl/sealing.py); sent back with `store: false` it
gives the engine the reasoning it carried; a tampered blob, or one sealed under another key, is
OpenAI's 400 `invalid_encrypted_content`; without the include it is absent (docs/state.md)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from typing import Any

import httpx2
import orjson
import pytest
from openai.types.responses import Response

from mock_server.app import MockSettings
from mock_server.cli import main as mock_main
from mock_server.testing import IN_PROCESS_URL, InProcessMock
from reference_impl.sealing import Sealer
from reference_impl.sglang.cli import main as reference_main

ASK = {
    "model": "mock-auto",
    "input": "Why is the sky blue?",
    "reasoning": {"effort": "high"},  # no summary: the reasoning is unseen
    "include": ["reasoning.encrypted_content"],
    "store": False,
}


def sse_events(raw: bytes) -> list[dict[str, Any]]:
    return [
        orjson.loads(line[6:])
        for line in raw.split(b"\n")
        if line.startswith(b"data: ") and line != b"data: [DONE]"
    ]


class Mock:
    def __init__(self, **settings: Any) -> None:
        self.handle = InProcessMock(MockSettings(frozen_time=1_700_000_000, **settings))
        self.http = httpx2.Client(transport=self.handle.transport, base_url=IN_PROCESS_URL)

    def post(self, body: dict[str, Any]) -> httpx2.Response:
        return self.http.post("/v1/responses", json=body)

    def close(self) -> None:
        self.http.close()
        self.handle.close()


@pytest.fixture
def mock() -> Iterator[Mock]:
    m = Mock(seed=7)
    yield m
    m.close()


def reasoning_items(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in response["output"] if i["type"] == "reasoning"]


def test_asked_for_it_reasoning_items_carry_a_sealed_blob_in_stream_and_body(mock: Mock) -> None:
    body = mock.post(ASK).json()
    Response.model_validate(body)
    items = reasoning_items(body)
    assert items and all(isinstance(i["encrypted_content"], str) for i in items)
    blob = items[0]["encrypted_content"]
    assert len(blob) > 40 and base64.urlsafe_b64decode(blob + "==")[:1] == b"\x01"
    events = sse_events(mock.post({**ASK, "stream": True}).content)
    done = [
        e["item"]
        for e in events
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning"
    ]
    assert [i["encrypted_content"] for i in done] == [i["encrypted_content"] for i in items]
    final = events[-1]["response"]
    assert [i["encrypted_content"] for i in reasoning_items(final)] == [blob]


def test_not_asked_for_it_there_is_none(mock: Mock) -> None:
    body = mock.post({k: v for k, v in ASK.items() if k != "include"}).json()
    assert reasoning_items(body) and all(
        "encrypted_content" not in i for i in reasoning_items(body)
    )
    raw = mock.post({**{k: v for k, v in ASK.items() if k != "include"}, "stream": True}).content
    assert b"encrypted_content" not in raw


def test_the_blob_is_a_pure_function_of_request_and_seed() -> None:
    one, two, other = Mock(seed=7), Mock(seed=7), Mock(seed=8)
    try:
        blob = reasoning_items(one.post(ASK).json())[0]["encrypted_content"]
        assert reasoning_items(two.post(ASK).json())[0]["encrypted_content"] == blob
        assert reasoning_items(other.post(ASK).json())[0]["encrypted_content"] != blob
    finally:
        for m in (one, two, other):
            m.close()


def test_the_mocks_blob_stays_the_bytes_it_always_was(mock: Mock) -> None:
    # The mock's key (mock_server.app.seed_sealer) is derived from its seed by the mock, not by
    # the protocol layer; these are the bytes it sealed before the key moved out of sealing.py.
    blob = reasoning_items(mock.post(ASK).json())[0]["encrypted_content"]
    digest = hashlib.sha256(blob.encode()).hexdigest()
    assert digest == "06ced0349d0c0600c4fc3321ef51eda97805f9278512e40f3c6496d5dc399533"


def test_sent_back_with_store_false_the_engine_sees_the_reasoning_it_carried(mock: Mock) -> None:
    first = mock.post(ASK).json()
    item = reasoning_items(first)[0]
    assert item["summary"] == [] and "content" not in item  # the client sees no reasoning text
    answer = [i for i in first["output"] if i["type"] == "message"]
    history = [{"role": "user", "content": ASK["input"]}, item, *answer]
    second = mock.post({**ASK, "input": [*history, {"role": "user", "content": "And at dusk?"}]})
    assert second.status_code == 200, second.text
    turns = mock.handle.generations[-1].messages
    carried = [m.reasoning for m in turns if m.role == "assistant" and m.reasoning]
    assert carried and all(len(text) > 20 for text in carried)
    # without the blob, the engine would have had no reasoning at all for that turn
    bare = dict(item)
    del bare["encrypted_content"]
    mock.post({**ASK, "input": [*history[:1], bare, *answer, {"role": "user", "content": "x"}]})
    assert not [m for m in mock.handle.generations[-1].messages if m.reasoning]


def tampered(blob: str) -> list[str]:
    raw = bytearray(base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4)))
    flipped = []
    for index in (0, 5, len(raw) // 2, len(raw) - 1):
        copy = bytearray(raw)
        copy[index] ^= 0x01
        flipped.append(base64.urlsafe_b64encode(bytes(copy)).rstrip(b"=").decode())
    return [
        *flipped,
        blob[:-4],
        blob + "AAAA",
        "",
        "not base64 !!",
        "gAAAAABpwskLQ5hCAVgTAcrxW8SMk",
    ]


def test_a_tampered_blob_is_openais_400(mock: Mock) -> None:
    item = reasoning_items(mock.post(ASK).json())[0]
    for blob in tampered(item["encrypted_content"]):
        response = mock.post({**ASK, "input": [{**item, "encrypted_content": blob}]})
        assert response.status_code == 400, blob
        assert response.json()["error"] == {
            "message": f"The encrypted content for item {item['id']} could not be verified. "
            "Reason: Encrypted content could not be decrypted or parsed.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_encrypted_content",
        }


def test_another_key_cannot_open_it_a_shared_secret_can() -> None:
    a, b = Mock(seed=1), Mock(seed=2)
    c, d = Mock(seed=1, state_secret="shared"), Mock(seed=2, state_secret="shared")
    try:
        item = reasoning_items(a.post(ASK).json())[0]
        refused = b.post({**ASK, "input": [item]})
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "invalid_encrypted_content"
        shared = reasoning_items(c.post(ASK).json())[0]
        assert d.post({**ASK, "input": [shared]}).status_code == 200
        assert a.post({**ASK, "input": [shared]}).status_code == 400
    finally:
        for m in (a, b, c, d):
            m.close()


def test_a_seal_is_bound_to_its_kind() -> None:
    sealer = Sealer(b"k")
    blob = sealer.seal("compaction", {"items": []})
    assert sealer.open("compaction", blob) == {"items": []}
    with pytest.raises(Exception, match="could not be verified"):
        sealer.open("reasoning", blob)


def test_a_chain_through_the_store_keeps_working(mock: Mock) -> None:
    first = mock.post({**ASK, "store": True}).json()
    second = mock.post(
        {**ASK, "store": True, "previous_response_id": first["id"], "input": "More?"}
    )
    assert second.status_code == 200, second.text
    assert any(m.reasoning for m in mock.handle.generations[-1].messages)


@pytest.mark.parametrize("main", [mock_main, reference_main])
def test_the_secret_option_refuses_an_unset_variable(
    main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_SUCH_SECRET_VAR", raising=False)
    with pytest.raises(SystemExit) as info:
        main(["--port", "0", "--state-secret-env", "NO_SUCH_SECRET_VAR"])
    assert info.value.code == 2
    assert "NO_SUCH_SECRET_VAR is not set" in capsys.readouterr().err
