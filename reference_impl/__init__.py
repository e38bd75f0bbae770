"""The protocol layer of a Responses API server (issue 3): engine contract, assembler, input
handling, stores and the ASGI app. Engines (the mock, SGLang) plug in through
:class:`~reference_impl.engine.Engine`; nothing here imports ``conformance`` (DESIGN.md).
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
