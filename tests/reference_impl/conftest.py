from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from refimpl_support import ScriptedEngine

from reference_impl.app import create_app
from reference_impl.server import ServerThread


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine()


@pytest.fixture
def server(engine: ScriptedEngine) -> Iterator[ServerThread]:
    with ServerThread(create_app(engine)) as running:
        yield running


@pytest.fixture
def client(server: ServerThread) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url + "/v1", api_key="test", max_retries=0) as c:
        yield c
