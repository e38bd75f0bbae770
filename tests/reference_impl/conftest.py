from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import openai
import pytest
from refimpl_support import ScriptedEngine, ServeFn, sdk_client

from reference_impl.app import create_app
from reference_impl.engine import Engine
from reference_impl.server import ServerThread


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
