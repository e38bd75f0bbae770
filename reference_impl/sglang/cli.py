"""``responses-reference``: the reference Responses server on SGLang.

Exit codes: 0 after a clean shutdown (Ctrl-C / SIGTERM), 2 when the arguments are wrong, SGLang is
missing or unreachable, or the address cannot be bound.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

from ..server_options import (
    OneLineParser,
    add_bind_options,
    add_hardening_options,
    add_log_level,
    required_api_key,
    server_limits,
)
from ..stores.options import (
    DEFAULT_STORE_TTL,
    add_retention_options,
    limits_from,
    make_store,
    replica_for,
    store_ttl,
)

__all__ = ["DEFAULT_STORE_TTL", "build_parser", "main", "make_store", "store_ttl"]

_DESCRIPTION = """\
A spec-correct OpenAI Responses API server (POST /v1/responses, JSON or SSE; retrieve, delete,
cancel, input_items, background, previous_response_id) on SGLang: the same protocol layer as
responses-mock, with SGLang generating.

Two ways to run SGLang:
  in-process   responses-reference --model-path Qwen/Qwen3-8B --reasoning-parser qwen3 \\
                   --tool-call-parser qwen25 [any other SGLang server option, e.g. --tp 2]
               SGLang's engine runs inside this process (its scheduler and detokenizer as
               child processes); every `python -m sglang.launch_server` option is accepted and
               passed through (see `python -m sglang.launch_server --help`); the grammar
               backend defaults to llguidance (OpenAI's: custom tools' grammars need it).
  remote       responses-reference --sglang-url http://127.0.0.1:30000
               a running SGLang server (or SGLang's router before many GPU workers) generates
               through its native /generate; its model, tokenizer and parsers are read from its
               /server_info (override with --model-path, --reasoning-parser, ...). Start it
               with --grammar-backend llguidance for custom tools' grammars.

State (--store): memory (bounded LRU, default), memory:MAX_RESPONSES, sqlite:PATH (durable), or
redis://HOST:PORT/DB (shared by several replicas behind a load balancer).

The server prints "listening on http://HOST:PORT" once it accepts connections.

Exit codes: 0 after a clean shutdown (Ctrl-C / SIGTERM); 2 bad arguments, SGLang missing or
unreachable, or an address that cannot be bound (a server judges nothing: never 1).
"""

# SGLang options this CLI reads itself; in-process they are passed on to SGLang too.
_SHARED = ("model_path", "tokenizer_path", "served_model_name", "reasoning_parser",
           "tool_call_parser", "context_length")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="responses-reference",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    net = parser.add_argument_group("network (this server)")
    add_bind_options(net)
    state = parser.add_argument_group("state")
    state.add_argument(
        "--store",
        default="memory",
        metavar="SPEC",
        help="memory, memory:N, sqlite:PATH or redis://…",
    )
    state.add_argument(
        "--state-secret-env",
        metavar="VAR",
        help="key encrypted reasoning and compaction items with the secret in $VAR, so "
        "replicas behind one store open each other's (default: a random key per process; its "
        "blobs do not survive a restart)",
    )
    state.add_argument(
        "--prompts",
        metavar="FILE",
        help="prompt templates (JSON: prompt id -> version -> {instructions?, input?}) that "
        "`prompt: {id, version, variables}` renders",
    )
    add_retention_options(state)
    state.add_argument(
        "--replica-id",
        metavar="ID",
        help="one per process when several share a --store: it enters every id (default: on "
        "sqlite: or redis:// the store assigns each process that opens it the next number; "
        "none on memory)",
    )
    model = parser.add_argument_group("model (SGLang's option names)")
    model.add_argument("--sglang-url", metavar="URL", help="use a running SGLang server (remote)")
    model.add_argument(
        "--sglang-api-key-env", metavar="VAR", help="$VAR holds the SGLang server's key"
    )
    model.add_argument("--model-path", help="model (and, by default, tokenizer) path or HF id")
    model.add_argument("--tokenizer-path", help="tokenizer path, if not the model's")
    model.add_argument("--served-model-name", help="the model name clients use")
    model.add_argument("--reasoning-parser", help="SGLang reasoning parser, e.g. qwen3, gpt-oss")
    model.add_argument("--tool-call-parser", help="SGLang function-call parser, e.g. qwen25")
    model.add_argument("--context-length", type=int, help="the model's context length")
    model.add_argument(
        "--no-tool-choice-grammar",
        action="store_true",
        help="do not constrain decoding for tool_choice required / named",
    )
    add_hardening_options(parser)
    add_log_level(parser, what="log level of this server")
    return parser


def _engine(args: argparse.Namespace, passthrough: list[str]) -> Any:
    from .backends import HTTPBackend, InProcessBackend
    from .engine import SGLangConfig, SGLangEngine

    shared = {name: getattr(args, name) for name in _SHARED}
    if args.sglang_url:
        key = os.environ.get(args.sglang_api_key_env) if args.sglang_api_key_env else None
        backend: Any = HTTPBackend(args.sglang_url, api_key=key)
        info = backend.server_info()
        for name in _SHARED:
            if shared[name] is None:
                shared[name] = info.get(name)
        if not shared["model_path"]:
            raise RuntimeError("the SGLang server did not say its model path: give --model-path")
        grammar_backend = info.get("grammar_backend")
        served = shared["served_model_name"]
        if isinstance(served, list):  # SGLang accepts several names; clients use the first
            shared["served_model_name"] = served[0] if served else None
    else:
        from sglang.srt.server_args import ServerArgs

        sglang_parser = argparse.ArgumentParser(prog="sglang", add_help=False)
        ServerArgs.add_cli_args(sglang_parser)
        argv = list(passthrough)
        if not any(a == "--grammar-backend" or a.startswith("--grammar-backend=") for a in argv):
            # OpenAI's grammar engine: custom tools' grammars and json_schema go through it
            argv += ["--grammar-backend", "llguidance"]
        for name, value in shared.items():
            if value is not None:
                argv += [f"--{name.replace('_', '-')}", str(value)]
        server_args = ServerArgs.from_cli_args(sglang_parser.parse_args(argv))
        backend = InProcessBackend.launch(server_args=server_args)
        for name in _SHARED:
            shared[name] = getattr(server_args, name, None) or shared[name]
        grammar_backend = getattr(server_args, "grammar_backend", None)
    config = SGLangConfig(
        model_path=str(shared["model_path"]),
        tokenizer_path=shared["tokenizer_path"],
        served_model_name=shared["served_model_name"],
        reasoning_parser=shared["reasoning_parser"],
        tool_call_parser=shared["tool_call_parser"],
        context_length=shared["context_length"],
        constrain_tool_choice=not args.no_tool_choice_grammar,
        grammar_backend=grammar_backend if isinstance(grammar_backend, str) else None,
    )
    return SGLangEngine(backend, config)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, passthrough = parser.parse_known_args(argv)
    try:
        store = make_store(args.store, args.store_ttl, limits_from(args))
    except ValueError as error:
        parser.error(f"--store: {error}")
    try:
        replica = replica_for(store, args.replica_id, first_plain=False)
    except Exception as error:  # the shared store cannot be reached (Redis down, file locked)
        print(f"responses-reference: --store {args.store}: {error}", file=sys.stderr)
        return 2
    api_key = required_api_key(parser, args)
    sealer = None
    if args.state_secret_env:
        secret = os.environ.get(args.state_secret_env)
        if not secret:
            parser.error(f"--state-secret-env: ${args.state_secret_env} is not set")
        from ..sealing import Sealer

        sealer = Sealer(secret.encode())
    prompts = None
    if args.prompts:
        from ..request.prompts import PromptFileError, PromptRegistry

        try:
            prompts = PromptRegistry.from_file(args.prompts)
        except PromptFileError as error:
            parser.error(f"--prompts: {error}")
    # The engine's usage errors (exit 2 with the usage line), after the other options' and
    # before the port is bound.
    if args.sglang_url and passthrough:
        parser.error(f"unknown options in remote mode (--sglang-url): {' '.join(passthrough)}")
    if not args.sglang_url and not args.model_path:
        parser.error("--model-path (or --sglang-url) is required")
    from ..server import bind

    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        print(f"responses-reference: cannot bind {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    try:
        engine = _engine(args, passthrough)
    except ImportError as error:
        sock.close()
        print(
            f"responses-reference: SGLang is not installed ({error}); "
            "pip install 'responses-conformance[sglang]'",
            file=sys.stderr,
        )
        return 2
    except (OSError, RuntimeError) as error:
        sock.close()
        print(f"responses-reference: {error}", file=sys.stderr)
        return 2
    try:
        _serve(engine, store, api_key, sock, args.log_level, sealer, prompts, replica, args)
    finally:
        import asyncio

        asyncio.run(engine.close())
    if not args.sglang_url:
        _exit_now(0)
    return 0


def _exit_now(code: int) -> None:
    """Exit at once after a clean shutdown with SGLang in this process: the exit handlers run and
    the output is flushed, but the interpreter's teardown of torch's and SGLang's objects (2.4 s
    on CPU, measured) is skipped, so the exit fits in ``--drain-timeout`` (docs/limits.md).
    Nothing of ours is left to write: every store write was awaited (SQLite commits each one; a
    left-over WAL file is replayed at the next open)."""
    import atexit
    import contextlib

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _serve(
    engine: Any,
    store: Any,
    api_key: str | None,
    sock: socket.socket,
    level: str,
    sealer: Any = None,
    prompts: Any = None,
    replica: str | None = None,
    args: argparse.Namespace | None = None,
) -> None:
    from ..ids import ReplicaIds
    from ..server import ServerLimits, serve_socket
    from ..service.app import create_app
    from ..service.websocket import WebSocketLimits
    from ..uvicorn_logs import quiet_rejected_input

    ids = None if replica is None else ReplicaIds(replica)
    limits, ws_limits = ServerLimits(), WebSocketLimits()
    if args is not None:
        limits = server_limits(args, limits.max_frame_bytes)  # HTTP's body limit, 8 MiB
        ws_limits = WebSocketLimits(
            connection_bytes=args.ws_connection_bytes, server_bytes=args.ws_server_bytes
        )
    app = create_app(
        engine,
        store=store,
        api_key=api_key,
        sealer=sealer,
        prompts=prompts,
        ids=ids,
        websocket_limits=ws_limits,
    )
    quiet_rejected_input()
    serve_socket(app, sock, level, limits)


if __name__ == "__main__":
    raise SystemExit(main())
