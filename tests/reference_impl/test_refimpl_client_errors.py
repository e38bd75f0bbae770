"""500s a client could cause in the reference (``responses-reference``), now OpenAI's 400s: an
``input`` missing, ``null`` or ``[]``; an input at SGLang's context boundary
(reference_impl/sglang/prompt_limits.py); and a WebSocket lane whose task died on an unexpected
exception (the connection's default lane then answered nothing, silently).

SGLangEngine runs here over a fake backend and a fake tokenizer (one token per character): what
SGLang itself does at the boundary is taken from its source (the module docstring of
prompt_limits.py); the figures against a real SGLang come from tox -e sglang."""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import httpx
import pytest
import websockets.sync.client as wsc
from refimpl_support import ScriptedEngine

from reference_impl.engine import EngineError, GenerationRequest, Message
from reference_impl.server import ServerThread
from reference_impl.service.app import create_app
from reference_impl.sglang.engine import SGLangConfig, SGLangEngine
from reference_impl.sglang.prompt_limits import CONTEXT_MESSAGE, INPUT_RESERVE
from reference_impl.stores.memory import MemoryStore

CONTEXT = 200


class CharTokenizer:
    """A chat template that refuses a prompt without a user turn, as many real ones do."""

    def apply_chat_template(self, messages: list[dict[str, Any]], **_: Any) -> str:
        if not any(m["role"] == "user" for m in messages):
            raise ValueError("No user query found in messages.")
        return "".join(f"<{m['role']}>{m.get('content') or ''}" for m in messages) + "<assistant>"

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [ord(c) % 256 for c in text]


class FakeBackend:
    """Answers "ok", or refuses as SGLang's scheduler does past its input limit."""

    def __init__(self, refuse: str | None = None) -> None:
        self.refuse = refuse
        self.seen: list[dict[str, Any]] = []

    async def stream(
        self, input_ids: list[int], sampling_params: dict[str, Any], rid: str, **_: Any
    ) -> AsyncIterator[dict[str, Any]]:
        self.seen.append({"input": len(input_ids), **sampling_params})
        if self.refuse:
            raise EngineError(self.refuse, code="invalid_prompt")
        meta = {"prompt_tokens": len(input_ids), "completion_tokens": 1, "finish_reason": "stop"}
        yield {"text": "ok", "meta_info": meta}

    async def abort(self, rid: str) -> None:
        pass

    async def close(self) -> None:
        pass


def _engine(backend: FakeBackend) -> SGLangEngine:
    config = SGLangConfig(model_path="fake", context_length=CONTEXT)
    return SGLangEngine(backend, config, tokenizer=CharTokenizer())  # type: ignore[arg-type]


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def client(backend: FakeBackend) -> Any:
    with (
        ServerThread(create_app(_engine(backend))) as server,
        httpx.Client(base_url=server.base_url + "/v1", timeout=30) as http,
    ):
        yield http


def _prompt_tokens(text: str) -> int:
    return len(f"<user>{text}<assistant>")


@pytest.mark.parametrize("body", [{}, {"input": None}, {"input": []}])
@pytest.mark.parametrize("path", ["/responses", "/responses/input_tokens"])
def test_no_input_is_a_400(client: httpx.Client, body: dict[str, Any], path: str) -> None:
    got = client.post(path, json={"model": "fake", **body})
    assert got.status_code == 400, got.text
    error = got.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "'input'" in error["message"]


def test_a_template_refusal_is_a_400_with_its_first_line(client: httpx.Client) -> None:
    got = client.post("/responses", json={"model": "fake", "input": [
        {"role": "assistant", "content": "hello"}]})  # fmt: skip
    assert got.status_code == 400, got.text
    assert "No user query found in messages." in got.json()["error"]["message"]


def test_the_context_boundary_is_exact(client: httpx.Client, backend: FakeBackend) -> None:
    at_limit = "x" * (CONTEXT - INPUT_RESERVE - _prompt_tokens(""))
    got = client.post("/responses", json={"model": "fake", "input": at_limit})
    assert got.status_code == 200, got.text
    seen = backend.seen[-1]
    assert seen["input"] == CONTEXT - INPUT_RESERVE
    assert seen["input"] + seen["max_new_tokens"] < CONTEXT  # SGLang's tokenizer manager: >=
    for extra in (1, 6, 200):
        got = client.post("/responses", json={"model": "fake", "input": at_limit + "y" * extra})
        assert got.status_code == 400, got.text
        assert got.json()["error"] == {
            "message": CONTEXT_MESSAGE,
            "type": "invalid_request_error",
            "param": None,
            "code": "context_length_exceeded",
        }


class CountingTokenizer(CharTokenizer):
    """Counts the characters it is asked to encode; ``vocab`` is what ``get_vocab`` shows (none:
    the method is absent, as on tokenizers that cannot list theirs)."""

    def __init__(self, vocab: dict[str, int] | None = None, word_tokens: bool = False) -> None:
        self.encoded: list[int] = []
        self.word_tokens = word_tokens
        if vocab is not None:
            self.get_vocab = lambda: vocab

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        self.encoded.append(len(text))
        if self.word_tokens:  # one token a word, however long
            return [len(word) % 256 for word in text.split()]
        return super().encode(text)


def _post_with(tokenizer: CountingTokenizer, text: str) -> tuple[httpx.Response, FakeBackend]:
    backend = FakeBackend()
    config = SGLangConfig(model_path="fake", context_length=CONTEXT)
    engine = SGLangEngine(backend, config, tokenizer=tokenizer)  # type: ignore[arg-type]
    with ServerThread(create_app(engine)) as server:
        got = httpx.post(server.base_url + "/v1/responses", json={"model": "f", "input": text})
    return got, backend


@pytest.mark.parametrize("vocab", [None, {"x": 1, "xx": 2, "<assistant>": 3}])
def test_a_long_input_is_refused_without_tokenizing_it_whole(vocab: dict[str, int] | None) -> None:
    """Issue #39: a 4 MiB input kept the reference's tokenizer busy for seconds and its memory
    for good, only to be refused as too long. Refused now by its length over the longest token
    (a vocabulary to read) or by a prefix's count (none), never tokenized whole."""
    tokenizer = CountingTokenizer(vocab)
    text = "word " * 200_000  # 1 MB
    got, backend = _post_with(tokenizer, text)
    assert got.status_code == 400, got.text
    assert got.json()["error"]["code"] == "context_length_exceeded"
    assert not backend.seen
    assert max(tokenizer.encoded, default=0) < 10 * CONTEXT  # a prefix at most, not the 1 MB


def test_a_refusal_from_a_prompt_thread_carries_none_of_its_frames() -> None:
    """Issue #39: crossing the prompt thread, the refusal and its traceback's frames formed a
    cycle (anyio's frame holds the future that holds the error) that kept each refused request
    and its rendered prompt until the cyclic collector ran. The error is raised again without
    the thread's frames: none of the prompt builder's frames, so none of their locals."""
    engine = _engine(FakeBackend())
    request = GenerationRequest(model="f", messages=[Message(role="user", content="x " * 5_000)])

    async def refused() -> EngineError:
        try:
            async for _ in engine.generate(request):
                pass
        except EngineError as error:
            return error
        raise AssertionError("not refused")

    error = anyio.run(refused)
    assert error.code == "context_length_exceeded"
    names = {frame.name for frame in traceback.extract_tb(error.__traceback__)}
    assert names.isdisjoint({"refuse_before_tokenizing", "input_ids", "build", "run"}), names
    assert "generate" in names  # raised again where the engine awaited the thread


def test_a_long_input_of_few_tokens_is_still_counted_whole_and_served() -> None:
    """The near miss: a text far longer than the probe whose tokens are long (one a word) has
    fewer tokens than the context; neither shortcut may refuse it."""
    word = "w" * 97
    tokenizer = CountingTokenizer({word: 1, "<assistant>": 2}, word_tokens=True)
    text = " ".join([word] * (CONTEXT - INPUT_RESERVE - 10))  # ~18 kB, over 5 probes long
    got, backend = _post_with(tokenizer, text)
    assert got.status_code == 200, got.text
    assert backend.seen[-1]["input"] == CONTEXT - INPUT_RESERVE - 10
    assert max(tokenizer.encoded) > len(text)  # counted whole after the prefix


@pytest.mark.parametrize(
    "sglang_text",
    [
        "Input length (9000 tokens) exceeds the maximum allowed length (8185 tokens). Use a "
        "shorter input or enable --allow-auto-truncate.",
        "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
        "Requested token count exceeds the model's maximum context length of 8192 tokens.",
    ],
)
def test_sglang_refusing_a_long_input_is_openai_s_400_not_its_text(sglang_text: str) -> None:
    backend = FakeBackend(refuse=sglang_text)
    with ServerThread(create_app(_engine(backend))) as server:
        got = httpx.post(server.base_url + "/v1/responses", json={"model": "f", "input": "hi"})
    assert got.status_code == 400, got.text
    assert got.json()["error"]["code"] == "context_length_exceeded"
    assert got.json()["error"]["message"] == CONTEXT_MESSAGE


class FailingStore(MemoryStore):
    """A store whose ``fail_in``-th next ``put`` fails with an exception nobody expects."""

    fail_in = 0

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        if self.fail_in:
            self.fail_in -= 1
            if not self.fail_in:
                raise TypeError("Recursion limit reached")
        await super().put(response, input_items)


def test_a_failing_response_on_a_websocket_lane_is_an_error_event_and_the_lane_lives(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = FailingStore()
    with ServerThread(create_app(ScriptedEngine(), store=store)) as server:
        url = server.base_url.replace("http://", "ws://") + "/v1/responses"
        with wsc.connect(url) as ws:
            store.fail_in = 2  # the final put, inside the running response (not its first)
            ws.send(json.dumps({"type": "response.create", "model": "m", "input": "hi"}))
            events = []
            while not events or events[-1]["type"] not in ("error", "response.completed"):
                events.append(json.loads(ws.recv(timeout=10)))
            assert events[-1]["type"] == "error"
            assert events[-1]["error"]["code"] == "server_error"
            ws.send(json.dumps({"type": "response.create", "model": "m", "input": "again"}))
            while (event := json.loads(ws.recv(timeout=10)))["type"] != "response.completed":
                assert event["type"] != "error", event
    failed = [r for r in caplog.records if "a response failed" in r.getMessage()]
    assert len(failed) == 1 and failed[0].levelno == logging.ERROR


def test_a_deep_tool_schema_over_websocket_is_an_error_event_and_the_lane_lives(
    backend: FakeBackend,
) -> None:
    schema: Any = {"type": "string"}
    for _ in range(260):
        schema = {"type": "array", "items": schema}
    tool = {"type": "function", "name": "f", "parameters": schema}
    with ServerThread(create_app(_engine(backend))) as server:
        url = server.base_url.replace("http://", "ws://") + "/v1/responses"
        with wsc.connect(url, max_size=None) as ws:
            create = {"type": "response.create", "model": "fake", "input": "hi", "tools": [tool]}
            ws.send(_deep_dumps(create))
            event = json.loads(ws.recv(timeout=10))
            assert event["type"] == "error" and event["error"]["code"] == "json_too_deep"
            ws.send(json.dumps({"type": "response.create", "model": "fake", "input": "hi"}))
            while (event := json.loads(ws.recv(timeout=10)))["type"] != "response.completed":
                assert event["type"] != "error", event


def _deep_dumps(value: Any) -> str:
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        return json.dumps(value)
    finally:
        sys.setrecursionlimit(old)


def _deep_schema(levels: int) -> Any:
    schema: Any = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("where", ["tool", "text.format"])
@pytest.mark.parametrize("levels", [252, 1023])
def test_a_deep_schema_over_http_is_a_400_before_any_stream(
    backend: FakeBackend, stream: bool, where: str, levels: int
) -> None:
    """The reference on its SGLang engine (issue #39: a tool schema or ``text.format.schema``
    252-1023 levels deep was a 500 with a traceback, and streamed a 200 then a stream cut with no
    event): a 400 ``json_too_deep`` naming the limit, streamed or not, and the server serves on."""
    body: dict[str, Any] = {"model": "fake", "input": "hi", "stream": stream}
    if where == "tool":
        body["tools"] = [{"type": "function", "name": "f", "parameters": _deep_schema(levels)}]
    else:
        body["text"] = {"format": {"type": "json_schema", "name": "s",
                                   "schema": _deep_schema(levels)}}  # fmt: skip
    with ServerThread(create_app(_engine(backend))) as server:
        got = httpx.post(
            server.base_url + "/v1/responses",
            content=_deep_dumps(body),
            headers={"content-type": "application/json"},
            timeout=30,
        )
        assert got.status_code == 400, got.text[:300]
        error = got.json()["error"]
        assert (error["type"], error["code"]) == ("invalid_request_error", "json_too_deep")
        assert "64" in error["message"]
        again = httpx.post(server.base_url + "/v1/responses", json={"model": "fake", "input": "hi"})
        assert again.status_code == 200, again.text[:300]
