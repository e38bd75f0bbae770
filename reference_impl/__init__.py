"""The protocol layer of a Responses API server, and the reference server on SGLang.

Engines (the mock, SGLang) plug in through :class:`~reference_impl.engine.Engine`; the layer knows
no particular engine, and nothing here imports ``conformance`` (the judge and the judged share no
code: tests/conformance/test_import_contract.py). The package, by part, in the order a request
meets them:

- :mod:`.engine` — the Engine protocol: :class:`GenerationRequest` (with its
  :class:`EngineHints`) in, typed chunks out;
- :mod:`.request` — a create body checked with OpenAI's 400s and normalized into a
  ``GenerationRequest`` (validation, tools, input items, prompt templates);
- :mod:`.assembler` — chunks in, stream events and the Response object out (sans-I/O);
- :mod:`.stores` — the store interface and its memory, SQLite and Redis backends;
- :mod:`.service` — :class:`ResponsesService` and :func:`create_app`: the HTTP routes, SSE,
  WebSocket mode and steering, background runs, conversations, compaction;
- :mod:`.sglang` — ``responses-reference``: the :class:`~reference_impl.sglang.engine.SGLangEngine`
  and its backends (SGLang is an optional extra, imported lazily);
- shared by every part: :mod:`.errors` (OpenAI-shaped errors), :mod:`.ids` (id sources),
  :mod:`.sealing` (``encrypted_content``; the key comes from the caller), :mod:`.server`
  (uvicorn in the foreground or a thread) and :mod:`.server_options` (the flags both servers take).
"""

from __future__ import annotations

from .assembler.stream import EngineProtocolError, ResponseAssembler, obfuscation
from .engine import (
    Chunk,
    CustomTool,
    Engine,
    EngineError,
    EngineHints,
    Final,
    FunctionTool,
    GenerationRequest,
    HostedToolCall,
    LogProb,
    Message,
    ReadyChunks,
    ReasoningDelta,
    ReasoningItem,
    RefusalDelta,
    TextDelta,
    TextRun,
    ToolCallDelta,
)
from .errors import APIError
from .ids import IdFactory, IdSource, RandomIds, random_id
from .server import ServerThread, serve
from .service.app import create_app
from .service.responses import ResponsesService
from .stores.base import DEFAULT_MAX_RESPONSES, ResponseStore
from .stores.memory import MemoryStore
from .stores.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_MAX_RESPONSES",
    "APIError",
    "Chunk",
    "CustomTool",
    "Engine",
    "EngineError",
    "EngineHints",
    "EngineProtocolError",
    "Final",
    "FunctionTool",
    "GenerationRequest",
    "HostedToolCall",
    "IdFactory",
    "IdSource",
    "LogProb",
    "MemoryStore",
    "Message",
    "RandomIds",
    "ReadyChunks",
    "ReasoningDelta",
    "ReasoningItem",
    "RefusalDelta",
    "ResponseAssembler",
    "ResponseStore",
    "ResponsesService",
    "SQLiteStore",
    "ServerThread",
    "TextDelta",
    "TextRun",
    "ToolCallDelta",
    "create_app",
    "obfuscation",
    "random_id",
    "serve",
]
