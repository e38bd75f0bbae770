"""The catalogue of what real clients send (conformance/clients/captured, docs/client-catalogue.md): cheap
checks that need no client installed (the drift check, which runs the clients, is
test_client_capture_drift.py, on demand: ``tox -e clients``).

- every fixture is well formed, names its client's version, and leaks no secret or machine path;
- every request of the catalogue is accepted and served by the mock (the protocol layer of
  reference_impl): each flow is replayed in order against a fresh in-process mock, the ids and
  encrypted blobs each response returned bound to the names the fixture gives them, so a later
  request threads what this server returned (``previous_response_id``, item references,
  reasoning and compaction blobs, conversation ids).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_catalogue import FIXTURES, FORMAT, leaks, load_all, returned_values
from starlette.testclient import TestClient, WebSocketTestSession

from mock_server.app import MockServer, MockSettings

ENTRIES = load_all()
IDS = [f"{e['client']}/{e['flow']}" for _, e in ENTRIES]
TERMINAL = {"response.completed", "response.failed", "response.incomplete", "error"}
_NAME = re.compile(r"<[a-z]+_\d+>")

# The clients and flows the catalogue must hold (docs/client-catalogue.md).
EXPECTED = {
    "codex": {
        "exec",
        "tool-loop",
        "exec-resume",
        "compaction-summary",
        "compaction-remote-v2",
        "websocket",
    },
    "openai-python": {
        "stream",
        "parse",
        "background",
        "connect",
        "compact",
        "conversations",
        "function-tools",
    },
    "agents-sdk": {"runner-tools", "streamed", "conversations-session", "model-settings"},
    "vercel-ai": {"generate-tools", "stream-tools", "reasoning", "images-files", "item-references"},
    "openai-node": {"stream", "parse", "background", "websocket", "function-tools"},
    "langchain": {"invoke-tools", "stream-reasoning"},
}


def test_the_catalogue_holds_every_client_and_flow() -> None:
    found: dict[str, set[str]] = {}
    for _, entry in ENTRIES:
        found.setdefault(entry["client"], set()).add(entry["flow"])
    assert found == EXPECTED


@pytest.mark.parametrize(("path", "entry"), ENTRIES, ids=IDS)
def test_a_fixture_is_well_formed_and_scrubbed(path: Path, entry: dict[str, Any]) -> None:
    assert entry["format"] == FORMAT
    assert path == FIXTURES / entry["client"] / f"{entry['flow']}.json"
    assert re.fullmatch(r"\d+\.\d+\.\d+", entry["version"]), entry["version"]
    assert entry["exchanges"], "a flow with no request captured nothing"
    for exchange in entry["exchanges"]:
        assert exchange["method"] in ("GET", "POST", "DELETE")
        assert exchange["target"].startswith("/v1/")
        assert exchange["headers"].get("authorization", "Bearer [REDACTED]") == "Bearer [REDACTED]"
    assert leaks(path.read_text()) == []


def test_one_client_one_version() -> None:
    versions: dict[str, set[str]] = {}
    for _, entry in ENTRIES:
        versions.setdefault(entry["client"], set()).add(entry["version"])
    assert all(len(v) == 1 for v in versions.values()), versions


# Request fields the Response object gives back as sent (openai-python 3.63's Response and
# /work/shared/spec/openai-openapi.yaml); service_tier echoes the tier that served the request.
ECHOED = (
    "background",
    "instructions",
    "max_output_tokens",
    "metadata",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt_cache_key",
    "prompt_cache_retention",
    "safety_identifier",
    "store",
    "temperature",
    "tool_choice",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
)


def _response_object(text: str) -> dict[str, Any] | None:
    """The Response object of a create's answer: the JSON body, or a stream's last one."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value if value.get("object") == "response" else None
    found = None
    for line in text.splitlines():
        if line.startswith("data: {"):
            event = json.loads(line[6:])
            if isinstance(event.get("response"), dict):
                found = event["response"]
    return found


def _compaction_turn(body: Any) -> bool:
    items = body.get("input") if isinstance(body, dict) else None
    return isinstance(items, list) and any(
        isinstance(i, dict) and i.get("type") == "compaction_trigger" for i in items
    )


def _stateful(frame: Any) -> bool:
    return isinstance(frame, dict) and (
        frame.get("generate") is False
        or (frame.get("store") is False and frame.get("previous_response_id") is not None)
    )


class Replay:
    """One flow replayed against a fresh mock, names bound to what it returned."""

    def __init__(self) -> None:
        self.client = TestClient(MockServer(MockSettings(frozen_time=1_700_000_000)).app)
        self.bound: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    def fill(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, str):
            return _NAME.sub(lambda m: self.bound.get(m.group(0), m.group(0)), value)
        return value

    def bind(self, names: list[str], text: str) -> None:
        """Bind each unbound name to the value of its kind at the same place in ``text``."""
        actual: dict[str, list[str]] = {}
        for kind, value in returned_values(text):
            if value not in actual.setdefault(kind, []) and value not in self.bound.values():
                actual[kind].append(value)
        for name in names:
            kind = name[1:].rsplit("_", 1)[0]
            if name not in self.bound and actual.get(kind):
                self.bound[name] = actual[kind].pop(0)

    def http(self, exchange: dict[str, Any]) -> tuple[int, str]:
        headers = {"content-type": "application/json", **exchange.get("mock_headers", {})}
        body = exchange.get("body")
        content = None if body is None else json.dumps(self.fill(body))
        answer = self.client.request(
            exchange["method"], self.fill(exchange["target"]), content=content, headers=headers
        )
        self.bind(exchange["returned_ids"], answer.text)
        if exchange["method"] == "POST" and exchange["target"] == "/v1/responses":
            response = _response_object(answer.text)
            self.echoed(self.fill(body), response)
            if _compaction_turn(body):
                # codex-rs compact_remote_v2.rs (collect_compaction_output): "remote compaction
                # v2 expected exactly one compaction output item", else Codex stops.
                kinds = [item.get("type") for item in (response or {}).get("output", [])]
                assert kinds.count("compaction") == 1, kinds
        return answer.status_code, answer.text[:400]

    def echoed(self, body: dict[str, Any], response: dict[str, Any] | None) -> None:
        """What the request set that the Response object echoes is echoed as sent
        (openai-python 3.63's Response; the mock's golden snapshots are unchanged)."""
        if response is None:
            return
        for key in ECHOED:
            if body.get(key) is not None:
                assert response.get(key) == body[key], (key, body[key], response.get(key))
        for outer, inner in (
            ("text", "verbosity"),
            ("reasoning", "effort"),
            ("reasoning", "summary"),
        ):
            sent = (body.get(outer) or {}).get(inner)
            if sent is not None:
                assert (response.get(outer) or {}).get(inner) == sent, (outer, inner, sent)
        if body.get("service_tier") is not None:
            assert isinstance(response.get("service_tier"), str)

    def websocket(self, exchange: dict[str, Any], *, connection_state: bool = False) -> list[str]:
        """The error events the mock sent for the client's frames. Unless ``connection_state``,
        frames that need a WebSocket connection's own state are left out (docs/client-catalogue.md
        "Not yet served"): Codex's prewarm (``generate: false``) and a ``store: false`` chain on
        a response of the same connection."""
        errors: list[str] = []
        headers = exchange.get("mock_headers", {})
        frames = [f for f in exchange["client_frames"] if connection_state or not _stateful(f)]
        if not frames:
            return errors
        session = self.client.websocket_connect(self.fill(exchange["target"]), headers=headers)
        with _closing(session) as ws:
            for frame in frames:
                ws.send_text(json.dumps(self.fill(frame)))
                texts: list[str] = []
                while True:
                    text = ws.receive_text()
                    texts.append(text)
                    kind = json.loads(text).get("type")
                    if kind == "error":
                        errors.append(text[:400])
                    if kind in TERMINAL:
                        break
                self.bind(exchange["returned_ids"], "\n".join(texts))
        return errors


@contextlib.contextmanager
def _closing(session: WebSocketTestSession) -> Iterator[WebSocketTestSession]:
    """The session, closed on exit. Starlette's test session cancels the app's task on exit and
    then waits for it: an app still tidying up after the client's close (the connection's lane
    tasks) ends cancelled, which the exit raises as ``CancelledError`` — an artefact of the test
    client (a real server lets the handler finish), so it is not an answer of the mock's."""
    ws = session.__enter__()
    try:
        yield ws
    finally:
        with contextlib.suppress(concurrent.futures.CancelledError):
            session.__exit__(None, None, None)


@pytest.mark.parametrize(("path", "entry"), ENTRIES, ids=IDS)
def test_the_mock_accepts_and_serves_every_captured_request(
    path: Path, entry: dict[str, Any]
) -> None:
    replay = Replay()
    try:
        for n, exchange in enumerate(entry["exchanges"]):
            where = (
                f"{entry['client']}/{entry['flow']} #{n} {exchange['method']} {exchange['target']}"
            )
            if exchange.get("websocket"):
                assert replay.websocket(exchange) == [], where
            else:
                status, text = replay.http(exchange)
                assert 200 <= status < 300, (where, status, text)
    finally:
        replay.close()


def test_codex_websocket_frames_that_need_connection_state() -> None:
    """Codex's whole WebSocket flow, its prewarm (``generate: false``) and its ``store: false``
    chains on responses of the same connection included (docs/websocket.md "Connection state");
    an HTTP turn between (a capture where Codex fell back) is replayed in its place."""
    entry = json.loads((FIXTURES / "codex" / "websocket.json").read_text())
    replay = Replay()
    errors: list[str] = []
    try:
        for exchange in entry["exchanges"]:
            if exchange.get("websocket"):
                errors += replay.websocket(exchange, connection_state=True)
            else:
                status, text = replay.http(exchange)
                assert 200 <= status < 300, (exchange["target"], status, text)
    finally:
        replay.close()
    assert errors == []
