from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import openai
import pytest
from refimpl_support import ScriptedEngine, ServeFn, sdk_client

from benchmarks.perf.localhost import free_port
from reference_impl.engine import Engine
from reference_impl.server import ServerThread
from reference_impl.service.app import create_app


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine()


@pytest.fixture
def serve() -> Iterator[ServeFn]:
    """``serve(engine, **create_app_options)`` → a running uvicorn on a free loopback port."""
    with ExitStack() as stack:

        def start(engine: Engine, **options: Any) -> ServerThread:
            return stack.enter_context(ServerThread(create_app(engine, **options)))

        yield start


@pytest.fixture
def server(serve: ServeFn, engine: ScriptedEngine) -> ServerThread:
    return serve(engine)


@pytest.fixture
def client(server: ServerThread) -> Iterator[openai.OpenAI]:
    with sdk_client(server) as c:
        yield c


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway redis-server on a free loopback port (skips where none is installed)."""
    import shutil
    import subprocess
    import time

    redis = pytest.importorskip("redis", reason="pip install 'responses-conformance[redis]'")
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis-server")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(workdir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.02)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)
