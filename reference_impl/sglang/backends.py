"""Where :class:`~reference_impl.sglang.engine.SGLangEngine` sends token ids.

* :class:`InProcessBackend` — an ``sglang.Engine`` in this process (``async_generate`` with
  ``stream=True``; SGLang's scheduler and detokenizer run as its child processes);
* :class:`HTTPBackend` — a running SGLang server's native ``/generate`` (SSE), e.g. SGLang's router
  in front of many GPU workers; ``/abort_request`` stops a request.

Both hand the engine *new* text per output, whichever way SGLang streams it
(``--incremental-streaming-output`` or cumulative text, the default).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx2
import orjson

from ..engine import EngineError

__all__ = ["HTTPBackend", "InProcessBackend", "TextDeltas"]

log = logging.getLogger(__name__)


class TextDeltas:
    """Turns SGLang's per-output ``text`` into new text only."""

    def __init__(self, incremental: bool) -> None:
        self.incremental = incremental
        self._sent = ""

    def __call__(self, out: Mapping[str, Any]) -> dict[str, Any]:
        text = out.get("text") or ""
        if not self.incremental:
            # Cumulative text only ever grows (SGLang holds back an incomplete UTF-8 sequence).
            text, self._sent = text[len(self._sent) :], text
        return {**out, "text": text}


class InProcessBackend:
    """An ``sglang.Engine`` (see :meth:`launch`)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        manager = getattr(engine, "tokenizer_manager", None)
        self.incremental = bool(getattr(manager, "incremental_streaming_output", False))

    @classmethod
    def launch(cls, **server_args: Any) -> InProcessBackend:
        """Start ``sglang.Engine(**server_args)`` (SGLang's ``ServerArgs`` fields, or
        ``server_args=ServerArgs(...)``); this takes a while: the model loads here."""
        import sglang

        return cls(sglang.Engine(**server_args))

    async def stream(
        self,
        input_ids: list[int],
        sampling_params: dict[str, Any],
        rid: str,
        require_reasoning: bool = False,
    ) -> AsyncIterator[dict[str, Any]]:
        deltas = TextDeltas(self.incremental)
        outputs = await self.engine.async_generate(
            input_ids=input_ids,
            sampling_params=sampling_params,
            stream=True,
            rid=rid,
            require_reasoning=require_reasoning,
        )
        try:
            async for out in outputs:
                yield deltas(out)
        except ValueError as exc:  # SGLang reports bad input (e.g. too long) as ValueError
            raise EngineError(str(exc), code="invalid_prompt") from exc
        finally:
            await outputs.aclose()

    async def start(self) -> None:
        """Have SGLang start its request loop now, in the serving loop, not at the first
        request. SGLang's tokenizer manager installs its own SIGTERM handler there
        (``loop.add_signal_handler``, once): at start-up the server takes SIGTERM back before
        it serves any request (reference_impl.server.DrainingServer). At the first request, a
        SIGTERM in the next 0.1 s (up to the server's next tick) went to SGLang, which drained
        without a bound while the server kept accepting."""
        manager = getattr(self.engine, "tokenizer_manager", None)
        create = getattr(manager, "auto_create_handle_loop", None)
        if create is not None:
            create()

    async def abort(self, rid: str) -> None:
        self.engine.tokenizer_manager.abort_request(rid)

    async def close(self) -> None:
        started = time.monotonic()
        self.engine.shutdown()  # kills SGLang's scheduler and detokenizer, waits to reap them
        log.info("SGLang's engine shut down in %.2f s", time.monotonic() - started)


class HTTPBackend:
    """A running SGLang server (``base_url`` without ``/v1``), through its native API."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        incremental: bool | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = base_url.rstrip("/")
        # No read timeout: a long generation streams for as long as it takes.
        self.client = httpx2.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx2.Timeout(None, connect=connect_timeout),
        )
        self._headers = headers
        self._incremental = incremental
        self._connect_timeout = connect_timeout

    def server_info(self) -> dict[str, Any]:
        """SGLang's ``/server_info`` (its resolved server arguments), fetched synchronously."""
        with httpx2.Client(
            base_url=self.base_url, headers=self._headers, timeout=self._connect_timeout
        ) as client:
            for path in ("/server_info", "/get_server_info"):
                try:
                    response = client.get(path)
                except httpx2.HTTPError as exc:
                    raise RuntimeError(f"cannot reach SGLang at {self.base_url}: {exc}") from exc
                if response.status_code == 200:
                    info = response.json()
                    if self._incremental is None:
                        self._incremental = bool(info.get("incremental_streaming_output"))
                    return dict(info)
        raise RuntimeError(f"{self.base_url} answered no /server_info: is it an SGLang server?")

    async def stream(
        self,
        input_ids: list[int],
        sampling_params: dict[str, Any],
        rid: str,
        require_reasoning: bool = False,
    ) -> AsyncIterator[dict[str, Any]]:
        deltas = TextDeltas(bool(self._incremental))
        body = {
            "input_ids": input_ids,
            "sampling_params": sampling_params,
            "stream": True,
            "rid": rid,
            "require_reasoning": require_reasoning,
        }
        try:
            async with self.client.stream("POST", "/generate", json=body) as response:
                if response.status_code != 200:
                    detail = (await response.aread()).decode(errors="replace")[:500]
                    code = "invalid_prompt" if response.status_code == 400 else "server_error"
                    raise EngineError(
                        f"SGLang answered HTTP {response.status_code}: {detail}", code
                    )
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    out = orjson.loads(data)
                    error = out.get("error")
                    if error is not None:
                        message = error.get("message") if isinstance(error, Mapping) else error
                        raise EngineError(str(message), code="server_error")
                    yield deltas(out)
        except httpx2.HTTPError as exc:
            raise EngineError(
                f"SGLang at {self.base_url} failed: {exc}", code="server_error"
            ) from exc

    async def abort(self, rid: str) -> None:
        # Closing the stream makes SGLang abort too; this says so explicitly and at once.
        with contextlib.suppress(httpx2.HTTPError):
            await self.client.post("/abort_request", json={"rid": rid})

    async def close(self) -> None:
        await self.client.aclose()
