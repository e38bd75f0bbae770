"""The protocol layer served as the CLIs serve it (``ServerLimits``: reference_impl/guard.py,
reference_impl/flow.py), under the probes of issue #39 at CI sizes: stalled request heads and
bodies, a WebSocket client that never reads (a ping flood, queued creates), frames past the body
limit, and a large prompt rendered off the event loop. The full sizes, with memory figures, are
``tox -e hardening`` (benchmarks/perf/hardening.py)."""

from __future__ import annotations

import base64
import os
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
import websockets.sync.client as wsc
from refimpl_support import ScriptedEngine, WaitFor, text_script
from websockets.exceptions import ConnectionClosed

from reference_impl.flow import ConnectionBudget, ServerBudget
from reference_impl.server import ServerLimits, ServerThread
from reference_impl.service.app import create_app
from reference_impl.service.websocket import WebSocketLimits
from reference_impl.sglang.engine import SGLangConfig, SGLangEngine

SHORT = ServerLimits(head_timeout=0.5, body_timeout=0.5, keep_alive_timeout=1.0,
                     drain_timeout=2.0, ws_send_timeout=1.0, max_frame_bytes=1024 * 1024)  # fmt: skip


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine()


@pytest.fixture
def server(engine: ScriptedEngine) -> Iterator[ServerThread]:
    app = create_app(engine, websocket_limits=WebSocketLimits(connection_bytes=1024 * 1024))
    with ServerThread(app, limits=SHORT) as running:
        yield running


@pytest.fixture(params=["httptools", "h11"])
def http_server(request: pytest.FixtureRequest, engine: ScriptedEngine) -> Iterator[ServerThread]:
    """The server over each guarded HTTP protocol: llhttp's (the default) and h11's (the
    fallback without httptools)."""
    from reference_impl.guard import GuardedH11Protocol, GuardedHttpToolsProtocol

    protocol = GuardedHttpToolsProtocol if request.param == "httptools" else GuardedH11Protocol
    app = create_app(engine, websocket_limits=WebSocketLimits(connection_bytes=1024 * 1024))
    with ServerThread(app, limits=SHORT, http=protocol) as running:
        yield running


def _connect(server: ServerThread, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf is not None:  # a client that reads nothing: keep what the kernel takes for it small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", server.port))
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closed ``sock`` within ``seconds``, and what it sent before."""
    sock.settimeout(seconds)
    received = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                return True, received
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        return True, received
    return False, received


# ---------------------------------------------------------------------------- stalled requests


def test_half_heads_trickled_are_closed_with_408(http_server: ServerThread) -> None:
    socks = [_connect(http_server) for _ in range(40)]
    try:
        for sock in socks:
            sock.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\n")
        started = time.monotonic()
        for _ in range(3):  # a byte now and then does not move the deadline
            time.sleep(0.1)
            for sock in socks:
                sock.sendall(b"x")
        results = [_closed_within(sock, 3.0) for sock in socks]
        elapsed = time.monotonic() - started
    finally:
        for sock in socks:
            sock.close()
    assert sum(closed for closed, _ in results) == 40
    assert elapsed < 3.0
    head, _, body = results[0][1].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    error = orjson.loads(body)["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "request_timeout"


@pytest.mark.parametrize(
    "head",
    [
        b"content-length: 100\r\n\r\n{",
        b"transfer-encoding: chunked\r\n\r\n1\r\n{\r\n",  # a chunked body that never ends
    ],
)
def test_a_stalled_body_is_closed_with_408(http_server: ServerThread, head: bytes) -> None:
    with _connect(http_server) as sock:
        sock.sendall(
            b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" + head
        )
        for _ in range(3):
            time.sleep(0.1)
            sock.sendall(b" " if b"content-length" in head else b"1\r\n \r\n")
        closed, received = _closed_within(sock, 3.0)
    assert closed
    assert received.startswith(b"HTTP/1.1 408 ")


def test_an_idle_connection_is_closed_after_the_keep_alive_timeout(
    http_server: ServerThread,
) -> None:
    with _connect(http_server) as sock:  # sends nothing at all
        closed, received = _closed_within(sock, 4.0)
    assert closed and received == b""


def test_requests_within_the_bounds_are_served(
    http_server: ServerThread, engine: ScriptedEngine
) -> None:
    server = http_server
    gate = threading.Event()
    engine.push([WaitFor(gate), *text_script("slow ", "answer")])
    threading.Timer(1.5, gate.set).start()  # a stream longer than every timeout
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        got = http.post("/v1/responses", json={"model": "m", "input": "hi", "stream": True})
        assert got.status_code == 200
        assert b"response.completed" in got.content
        again = http.post("/v1/responses", json={"model": "m", "input": "hi"})  # kept alive
        assert again.status_code == 200


def test_pipelined_requests_are_each_answered(http_server: ServerThread) -> None:
    """Two requests in one write, the second's head read while the first is answered: both
    answered on the kept connection, neither timed out."""
    body = b'{"model": "m", "input": "hi"}'
    one = (b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
           b"content-length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
    with _connect(http_server) as sock:
        sock.sendall(one + one)
        sock.settimeout(5.0)
        received = b""
        while received.count(b"HTTP/1.1 200 ") < 2:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
    assert b" 408 " not in received


# ---------------------------------------------------------------------------- WebSocket flow


def _ws_handshake(sock: socket.socket) -> None:
    key = base64.b64encode(os.urandom(16))
    sock.sendall(
        b"GET /v1/responses HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
        b"sec-websocket-key: " + key + b"\r\nsec-websocket-version: 13\r\n\r\n"
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head


def _frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    masked = (
        bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        if size < 4096
        else _mask(payload, mask)
    )
    return header + mask + masked


def _mask(payload: bytes, mask: bytes) -> bytes:
    whole = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(whole, "big")).to_bytes(
        len(payload), "big"
    )


def _flood_until_closed(
    sock: socket.socket, frame: bytes, seconds: float, cap: int, pause: float = 0.0
) -> bool:
    """Send ``frame`` again and again (a batch of 64 KiB, or one every ``pause`` seconds),
    reading nothing; True once the server drops the socket."""
    sock.settimeout(0.2)
    batch = frame if pause else frame * max(1, 65536 // len(frame))
    sent = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and sent < cap:
        time.sleep(pause)
        try:
            sent += sock.send(batch)
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def test_a_ping_flood_that_reads_nothing_is_pushed_back_then_closed(server: ServerThread) -> None:
    with _connect(server, rcvbuf=4096) as sock:
        _ws_handshake(sock)
        ping = _frame(0x9, b"p" * 125)
        # Before: every pong waited in the server's memory, and the flood went on (64 MB sent).
        assert _flood_until_closed(sock, ping, seconds=15.0, cap=64 * 1024 * 1024)


def test_queued_creates_stop_being_read_at_the_connection_bound(
    server: ServerThread, engine: ScriptedEngine
) -> None:
    gate = threading.Event()
    for _ in range(8):
        engine.push([WaitFor(gate), *text_script("ok")])
    padding = "x" * (256 * 1024)  # each create counts 512 KiB: two fill the 1 MiB bound
    with wsc.connect(f"ws://127.0.0.1:{server.port}/v1/responses", max_size=None) as ws:
        for i in range(8):
            ws.send(orjson.dumps({"type": "response.create", "model": "m", "stream_id": f"l{i}",
                                  "input": padding}).decode())  # fmt: skip
        time.sleep(1.0)
        # Before: all 8 were read and queued (16 may run at once).
        assert len(engine.requests) == 2
        gate.set()
        done = 0
        while done < 8:  # then every create is answered: pushed back, not refused
            event = orjson.loads(ws.recv(timeout=10))
            assert event["type"] != "error", event
            done += event["type"] == "response.completed"
    assert len(engine.requests) == 8


def test_a_client_that_reads_no_events_is_closed_and_its_bytes_released(
    engine: ScriptedEngine,
) -> None:
    big = "y" * (512 * 1024)
    for _ in range(8):
        engine.push(text_script(*([big] * 8)))
    app = create_app(engine, websocket_limits=WebSocketLimits(connection_bytes=1024 * 1024))
    with ServerThread(app, limits=SHORT) as server, _connect(server, rcvbuf=4096) as sock:
        _ws_handshake(sock)
        for i in range(8):
            create = {"type": "response.create", "model": "m", "input": "hi", "stream_id": f"s{i}"}
            sock.sendall(_frame(0x1, orjson.dumps(create)))
        started = time.monotonic()
        # Alive (a ping now and then) but reading nothing: closed after --ws-send-timeout.
        closed = _flood_until_closed(sock, _frame(0x9, b"p"), 15.0, 1024 * 1024, pause=0.05)
        assert closed and time.monotonic() - started < 5
        budget: ServerBudget = app.state.websocket_budget
        deadline = time.monotonic() + 5
        while budget.used and time.monotonic() < deadline:
            time.sleep(0.05)
        assert budget.used == 0


def test_a_client_that_leaves_with_creates_queued_on_one_lane_releases_them(
    engine: ScriptedEngine,
) -> None:
    """Issue #39: a never-reading client that left with creates queued behind a stalled one on
    its default lane kept them, ~80 MiB a client at the default bounds, for good: the lane ended
    on the client's absence, nothing else released the queue, and the receiver, at the
    connection's bound, waited for room forever instead of seeing the disconnect."""
    big = "y" * (512 * 1024)
    for _ in range(8):
        engine.push(text_script(*([big] * 8)))
    app = create_app(engine, websocket_limits=WebSocketLimits(connection_bytes=1024 * 1024))
    padding = "x" * (128 * 1024)
    budget: ServerBudget = app.state.websocket_budget
    with ServerThread(app, limits=SHORT) as server:
        with _connect(server, rcvbuf=4096) as sock:
            _ws_handshake(sock)
            for _ in range(8):  # one lane: each waits behind the first, whose events go unread
                create = {"type": "response.create", "model": "m", "input": padding}
                sock.sendall(_frame(0x1, orjson.dumps(create)))
            deadline = time.monotonic() + 5
            while budget.used < 1024 * 1024 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert budget.used >= 1024 * 1024  # at the bound, reading no further
        # the client left (its unread events reset the socket)
        deadline = time.monotonic() + 5
        while budget.used and time.monotonic() < deadline:
            time.sleep(0.05)
        assert budget.used == 0


def test_a_frame_past_the_body_limit_closes_with_1009(server: ServerThread) -> None:
    with wsc.connect(f"ws://127.0.0.1:{server.port}/v1/responses", max_size=None) as ws:
        ws.send("x" * (SHORT.max_frame_bytes + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_the_budgets_count_per_connection_and_for_the_server() -> None:
    server = ServerBudget(limit=100)
    one, two = ConnectionBudget(server, limit=60), ConnectionBudget(server, limit=60)
    one.charge(60)
    assert one.full() and not two.full()
    two.charge(40)
    assert two.full()  # the server's bound, though the connection's is not reached
    one.close()
    assert server.used == 40 and not two.full()


# ---------------------------------------------------------------------------- prompts off the loop


class SlowTokenizer:
    """A chat template that takes a second for a large input (blocking, as Jinja does)."""

    def apply_chat_template(self, messages: list[dict[str, Any]], **_: Any) -> str:
        text = "".join(str(m.get("content") or "") for m in messages)
        if len(text) > 100_000:
            time.sleep(1.5)
        return text

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [1] * min(len(text), 10)


class OkBackend:
    async def stream(self, input_ids: list[int], params: dict[str, Any], rid: str, **_: Any) -> Any:
        meta = {"prompt_tokens": len(input_ids), "completion_tokens": 1, "finish_reason": "stop"}
        yield {"text": "ok", "meta_info": meta}

    async def abort(self, rid: str) -> None:
        pass

    async def close(self) -> None:
        pass


def test_a_large_prompt_does_not_stop_the_others() -> None:
    config = SGLangConfig(model_path="fake", context_length=1000)
    engine = SGLangEngine(OkBackend(), config, tokenizer=SlowTokenizer())  # type: ignore[arg-type]
    with ServerThread(create_app(engine)) as server:
        url = server.base_url + "/v1/responses"
        large = threading.Thread(
            target=httpx.post,
            args=(url,),
            kwargs={"json": {"model": "fake", "input": "z" * 200_000}, "timeout": 10},
        )
        large.start()
        time.sleep(0.3)  # the large one is rendering now
        started = time.monotonic()
        small = httpx.post(url, json={"model": "fake", "input": "hi"}, timeout=10)
        took = time.monotonic() - started
        large.join()
    assert small.status_code == 200
    assert took < 0.8, f"a small request waited {took:.2f}s behind a large prompt"


def test_kept_state_counts_against_the_connection_only_and_is_shed_oldest_first() -> None:
    from reference_impl.service.ws_state import ConnectionCache

    server = ServerBudget(limit=100)
    budget = ConnectionBudget(server, limit=60)
    budget.keep(50)
    assert budget.used == 50 and server.used == 0  # an idle cache stops no other connection
    assert budget.kept_over() == 20  # past half the bound: 20 bytes to shed
    budget.charge(20)
    assert budget.full() and server.used == 20
    budget.release(20)
    assert budget.used == 50 and server.used == 0
    cache = ConnectionCache()
    for lane in ("a", "b", "a"):  # "a" again: now the most recent
        cache.ended(lane, {"id": f"r-{lane}", "status": "completed", "output": []}, [])
    cache.shed(1)
    assert cache.lookup("r-b") is None and cache.lookup("r-a") is not None


def test_the_response_cache_is_held_to_the_connection_bound(engine: ScriptedEngine) -> None:
    app = create_app(engine, websocket_limits=WebSocketLimits(connection_bytes=250_000))
    with (
        ServerThread(app, limits=SHORT) as server,
        wsc.connect(f"ws://127.0.0.1:{server.port}/v1/responses", max_size=None) as ws,
    ):

        def answer(lane: str, **body: Any) -> dict[str, Any]:
            ws.send(orjson.dumps({"type": "response.create", "model": "m", "stream_id": lane,
                                  "store": False, **body}).decode())  # fmt: skip
            while True:
                event = orjson.loads(ws.recv(timeout=10))
                if event["type"] in ("error", "response.completed", "response.failed"):
                    return event  # type: ignore[no-any-return]

        ids = [answer(lane, input=lane * 100_000)["response"]["id"] for lane in "abc"]
        budget: ServerBudget = app.state.websocket_budget
        assert budget.used == 0  # kept state is the connection's, not the server's
        # The cache may take half of the 250,000 bytes: one response of 100 KB, the newest.
        oldest = answer("a", input="again", previous_response_id=ids[0])
        assert oldest["type"] == "error", oldest
        assert oldest["error"]["code"] == "previous_response_not_found"
        newest = answer("c", input="again", previous_response_id=ids[2])
        assert newest["type"] == "response.completed", newest


class BorrowCheckedTokenizer:
    """As a Hugging Face fast tokenizer: used by two threads at once, it raises."""

    def __init__(self) -> None:
        self.busy = False

    def apply_chat_template(self, messages: list[dict[str, Any]], **_: Any) -> str:
        return "".join(str(m.get("content") or "") for m in messages)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        if self.busy:
            raise RuntimeError("Already borrowed")
        self.busy = True
        try:
            time.sleep(0.2)
            return [1] * min(len(text), 10)
        finally:
            self.busy = False


def test_concurrent_prompts_never_share_a_tokenizer() -> None:
    config = SGLangConfig(model_path="fake", context_length=1000)
    tokenizer = BorrowCheckedTokenizer()
    engine = SGLangEngine(OkBackend(), config, tokenizer=tokenizer)  # type: ignore[arg-type]
    with ServerThread(create_app(engine)) as server:
        url = server.base_url + "/v1/responses"
        codes: list[int] = []

        def post() -> None:
            codes.append(
                httpx.post(url, json={"model": "fake", "input": "hi"}, timeout=10).status_code
            )

        threads = [threading.Thread(target=post) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert codes == [200] * 6
