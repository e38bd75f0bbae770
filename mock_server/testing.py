"""Handles for tests: the mock served on a loopback port in a thread, or in-process without a
socket. The pytest plugin (:mod:`mock_server.pytest_plugin`) hands these out; they work without
pytest too::

    with LoopbackMock(MockSettings(seed=1)) as mock:
        client = openai.OpenAI(base_url=mock.base_url, api_key="unused")
        mock.queue("refusal")
        ...
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from mock_server.app import MockServer, MockSettings
from mock_server.engine import Script
from mock_server.middleware import RecordedRequest, quiet_dropped_connections
from reference_impl.engine import GenerationRequest
from reference_impl.server import ServerThread

if TYPE_CHECKING:
    import httpx2
    import openai

__all__ = ["InProcessMock", "LoopbackMock", "MockHandle"]

IN_PROCESS_URL = "http://responses-mock.invalid"


class MockHandle:
    """What a test scripts and inspects; ``base_url`` ends in ``/v1``, ready for the SDK."""

    base_url: str

    def __init__(self, server: MockServer) -> None:
        self.server = server

    @property
    def url(self) -> str:
        """The server's root URL (``base_url`` without ``/v1``)."""
        return self.base_url.removesuffix("/v1")

    def queue(self, *scripts: Script) -> None:
        """Answer the next requests with these scenario names or chunk lists, in order."""
        self.server.queue(*scripts)

    def queue_text(self, text: str) -> None:
        self.server.queue_text(text)

    @property
    def requests(self) -> Sequence[RecordedRequest]:
        """HTTP requests seen, in order: ``.method``, ``.path``, ``.headers``, ``.json()``,
        ``.attempt``."""
        return self.server.requests

    @property
    def generations(self) -> Sequence[GenerationRequest]:
        """Normalized requests the engine answered."""
        return self.server.generations

    def reset(self) -> None:
        self.server.reset()

    def _client_options(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "api_key": self.server.settings.api_key or "unused"}

    def client(self, **options: Any) -> openai.OpenAI:
        """An ``openai.OpenAI`` client for this mock (``options`` override, e.g. max_retries)."""
        client: openai.OpenAI = _openai().OpenAI(**{**self._client_options(), **options})
        return client

    def async_client(self, **options: Any) -> openai.AsyncOpenAI:
        client: openai.AsyncOpenAI = _openai().AsyncOpenAI(**{**self._client_options(), **options})
        return client


OPENAI_EXTRA = "pip install 'responses-conformance[pytest]'"


def _openai() -> Any:
    """The ``openai`` SDK, or an error that says which extra brings it."""
    try:
        import openai
    except ImportError as error:
        raise ModuleNotFoundError(
            f".client() / .async_client() need the openai SDK, which is not installed: "
            f"{OPENAI_EXTRA} (or pip install openai); .base_url and .transport work without it",
            name="openai",
        ) from error
    return openai


class LoopbackMock(MockHandle):
    """The mock served by uvicorn on 127.0.0.1, a free port, in a daemon thread."""

    def __init__(self, settings: MockSettings | None = None) -> None:
        super().__init__(MockServer(settings))
        quiet_dropped_connections()
        self._thread = ServerThread(self.server.app, port=0)
        self.base_url = ""

    def start(self) -> LoopbackMock:
        self._thread.start()
        self.base_url = self._thread.base_url + "/v1"
        return self

    def stop(self) -> None:
        self._thread.stop()

    def __enter__(self) -> LoopbackMock:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class InProcessMock(MockHandle):
    """The mock without a socket: ``transport`` / ``async_transport`` for ``httpx2`` clients."""

    def __init__(self, settings: MockSettings | None = None) -> None:
        super().__init__(MockServer(settings))
        self.base_url = IN_PROCESS_URL + "/v1"
        self._transport: Any = None

    @property
    def transport(self) -> httpx2.BaseTransport:
        """A sync transport (one per handle; closed by :meth:`close`)."""
        from mock_server.transport import InProcessTransport

        if self._transport is None:
            self._transport = InProcessTransport(self.server.app)
        transport: httpx2.BaseTransport = self._transport
        return transport

    def async_transport(self) -> httpx2.AsyncBaseTransport:
        """A new async transport; it runs the app on the caller's event loop."""
        from mock_server.transport import AsyncInProcessTransport

        return AsyncInProcessTransport(self.server.app)

    def client(self, **options: Any) -> openai.OpenAI:
        import httpx2

        _openai()  # before a client is made for nothing
        options.setdefault("http_client", httpx2.Client(transport=self.transport))
        return super().client(**options)

    def async_client(self, **options: Any) -> openai.AsyncOpenAI:
        import httpx2

        _openai()
        options.setdefault("http_client", httpx2.AsyncClient(transport=self.async_transport()))
        return super().async_client(**options)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
