"""``responses-mock``: run the deterministic Responses mock server.

Exit codes: 0 after a clean shutdown (Ctrl-C / SIGTERM), 2 when the arguments are wrong or the
address cannot be bound.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cassettes.reader import TooLarge, read_at_most
from mock_server.agent_script import ScriptError
from mock_server.agent_script import parse as parse_script
from mock_server.app import FROZEN_TIME, MockServer, MockSettings, check_store_spec
from mock_server.engine import Chunking, Latency
from mock_server.faults import FaultPlan, FaultSyntaxError
from mock_server.middleware import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_REQUEST_LOG_BYTES,
    quiet_dropped_connections,
)
from mock_server.replay_match import DEFAULT_IGNORE, KEY_PARTS
from mock_server.scenarios import SCENARIOS
from mock_server.workers import check_workers, serve_workers
from reference_impl.request.prompts import PromptFileError, PromptRegistry
from reference_impl.server import bind, serve_socket
from reference_impl.server_options import (
    OneLineParser,
    add_bind_options,
    add_hardening_options,
    add_log_level,
    required_api_key,
    seconds,
    server_limits,
)
from reference_impl.service.websocket import WebSocketLimits
from reference_impl.stores.base import DEFAULT_MAX_RESPONSES
from reference_impl.stores.options import add_retention_options, limits_from

if TYPE_CHECKING:
    from mock_server.replay import ReplaySettings

__all__ = ["build_parser", "main"]

MAX_SCRIPT_BYTES = 64 * 1024 * 1024  # an agent script is read whole: larger is refused, not read

_DESCRIPTION = """\
A deterministic OpenAI Responses API server (POST /v1/responses, JSON or SSE) for tests and CI.
Its output is a pure function of the request and --seed: same requests, same bytes.

Quick start:
  responses-mock --port 8000 --frozen-time
  OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=unused python your_app.py

Choose what the model does per request, first match wins:
  header   x-mock-scenario: reasoning            (or x-mock-script: an agent script, below)
  metadata {"mock_scenario": "reasoning"}        (or {"mock_script": "<agent script>"})
  model    "mock-reasoning"
  default  --script FILE, else --scenario (auto: answer the request's own parameters -
           tool_choice, reasoning.effort and .summary, text.format, max_output_tokens - as a
           real model would)
Scenarios: {scenarios}.

Agent scripts drive an agent through a task: which tool to call at each step of a turn, then what
to answer. The step is the number of tool-call turns since the last user message, so a script is
stateless and deterministic (store: false clients included). JSON:
  [{"call": ["exec_command", "shell"], "arguments": {"cmd": "ls"}}, {"say": "Listed."}]
  {"rules": [{"when": "COMPACTION", "steps": [{"say": "Summary."}]}, {"steps": [...]}]}
A call without "arguments" gets arguments valid for the tool's schema; {"calls": [...]} issues
several at once; {"scenario": "auto"} answers as the mock would. Details: mock_server/agent_script.py.

Faults (--fault, repeatable, or the x-mock-fault header per request):
  KIND[=ARG][@ATTEMPTS|~PROBABILITY]; KIND is an HTTP status 400-599, error, drop or slow.
  429@1,2     the 1st and 2nd attempt of a request get 429 (the SDK retries, the 3rd succeeds)
  500=2@1     500 with Retry-After 2 s on the 1st attempt
  503~0.1     10% of attempts get 503, chosen from hash(seed, request, attempt)
  error=5     the stream fails after 5 output tokens (error + response.failed)
  drop=10     the connection is cut after 10 SSE events
  slow=1.5@1  the 1st attempt starts 1.5 s late
  An attempt is the n-th time the server sees the same method, path and body.

The server prints "listening on http://HOST:PORT" once it accepts connections (use --port 0 to
let it pick a free port). Clients use http://HOST:PORT/v1 (or http://HOST:PORT: every client CLI of
this family appends /v1; docs/cli.md).

Exit codes: 0 after a clean shutdown (Ctrl-C / SIGTERM); 2 bad arguments, a file or store that
cannot be read, or an address that cannot be bound (a server judges nothing: never 1).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="responses-mock",
        description=_DESCRIPTION.replace(
            "{scenarios}",
            textwrap.fill(", ".join(SCENARIOS), 96, subsequent_indent="  ", break_on_hyphens=False),
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    net = parser.add_argument_group("network")
    add_bind_options(net)
    net.add_argument(
        "--max-body-bytes",
        type=_size,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="N",
        help="a larger request body gets OpenAI's 413 before more of it is read "
        f"(default: {DEFAULT_MAX_BODY_BYTES:,})",
    )
    net.add_argument(
        "--request-log-bytes",
        type=_size,
        default=DEFAULT_REQUEST_LOG_BYTES,
        metavar="N",
        help="request-body bytes the request log keeps; older bodies beyond it are truncated "
        f"(default: {DEFAULT_REQUEST_LOG_BYTES:,})",
    )
    out = parser.add_argument_group("output")
    out.add_argument("--seed", type=int, default=0, help="seed of all content (default: 0)")
    out.add_argument(
        "--scenario",
        default="auto",
        choices=SCENARIOS,
        metavar="NAME",
        help="scenario when the request names none (default: auto)",
    )
    out.add_argument(
        "--frozen-time",
        type=_instant,
        nargs="?",
        const=FROZEN_TIME,
        metavar="UNIX",
        help=f"every timestamp is this instant (flag alone: {FROZEN_TIME}); with the seed this "
        "makes streams byte-identical across runs",
    )
    out.add_argument(
        "--script",
        type=Path,
        metavar="FILE",
        help="agent script (JSON) for every request that names no scenario or script of its own",
    )
    out.add_argument(
        "--state-secret-env",
        metavar="VAR",
        help="key encrypted reasoning and compaction items with the secret in $VAR (replicas "
        "behind one store share it); default: a key derived from --seed",
    )
    out.add_argument(
        "--prompts",
        metavar="FILE",
        help="prompt templates (JSON: prompt id -> version -> {instructions?, input?}) that "
        "`prompt: {id, version, variables}` renders; see docs/state.md",
    )
    _add_store_options(parser)
    timing = parser.add_argument_group("timing and chunking (seeded; all 0 by default)")
    timing.add_argument("--ttft", type=seconds, default=0.0, help="seconds to the first token")
    timing.add_argument("--inter-token", type=seconds, default=0.0, help="seconds between deltas")
    timing.add_argument(
        "--jitter", type=seconds, default=0.0, help="up to this many seconds added to each delay"
    )
    timing.add_argument(
        "--duration",
        type=seconds,
        metavar="SECONDS",
        help="every response takes this long, however many tokens it has (load tests): the "
        "deltas are spread evenly over it, the first after --ttft if given; excludes "
        "--inter-token and --jitter",
    )
    timing.add_argument(
        "--chunk", default="1", metavar="N|LO-HI", help="tokens per delta (default: 1)"
    )
    faults = parser.add_argument_group("faults")
    faults.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="SPEC",
        help="inject a fault (see above); repeatable",
    )
    _cassette_options(parser)
    add_hardening_options(parser)
    add_log_level(parser, what="uvicorn log level")
    return parser


def _cassette_options(parser: argparse.ArgumentParser) -> None:
    """Cassettes (docs/cassettes.md): --record, --replay and their options."""
    group = parser.add_argument_group("cassettes (docs/cassettes.md)")
    group.add_argument(
        "--record",
        metavar="DIR",
        help="write every exchange (request, response, SSE bytes with arrival times, WebSocket "
        "frames) into DIR, one file each, secrets redacted",
    )
    group.add_argument(
        "--replay",
        metavar="DIR",
        help="answer from the recorded exchanges of DIR (a cassette folder, exchange file or "
        "vcrpy YAML), matched by --replay-match; faults still apply on top",
    )
    group.add_argument(
        "--replay-mode",
        choices=["strict", "fallback"],
        default="strict",
        help="strict: an unmatched request gets 400 naming the closest recording and what "
        "differed; fallback: it goes to the mock engine (default: strict)",
    )
    group.add_argument(
        "--replay-timing",
        default="recorded",
        metavar="recorded|zero|FACTOR",
        help="pace chunks as recorded, not at all, or at recorded times x FACTOR "
        "(default: recorded)",
    )
    group.add_argument(
        "--replay-match",
        default=",".join(KEY_PARTS),
        metavar="PARTS",
        help=f"what identifies a request: some of {','.join(KEY_PARTS)} (default: all)",
    )
    group.add_argument(
        "--replay-ignore",
        action="append",
        metavar="FIELD",
        help="a body field (dotted path, * for any key or index) or query parameter left out of "
        f"the match; repeatable (default: {', '.join(DEFAULT_IGNORE)}; giving one replaces them)",
    )


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    store = parser.add_argument_group(
        "store and retention (defaults: docs/state.md#retention; the reference takes the same)"
    )
    store.add_argument(
        "--store",
        default="memory",
        metavar="SPEC",
        help=f"memory (LRU, at most {DEFAULT_MAX_RESPONSES:,} responses), memory:MAX_RESPONSES, "
        "sqlite:PATH or redis://HOST:PORT/DB (default: memory)",
    )
    add_retention_options(store)
    store.add_argument(
        "--replica-id",
        metavar="ID",
        help="one per process when several mocks share a --store: it enters every id, so their "
        "ids never collide (default: on sqlite: or redis:// the store numbers each process that "
        "opens it, the first keeping the ids a single mock gives; none on memory)",
    )
    store.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="N processes serving the one port, sharing stored responses, conversations, "
        "background runs and fault-attempt counts through the store: needs --store sqlite:PATH "
        "or redis://… when N > 1 (default: 1; mock_server/workers.py)",
    )


def _instant(text: str) -> float:
    """``--frozen-time``: a finite Unix time (nan or inf would be every response's timestamp)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a Unix time, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite Unix time, got {text!r}")
    return value


def _size(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of bytes, got {text!r}")
    return int(text)


def settings_from(parser: argparse.ArgumentParser, args: argparse.Namespace) -> MockSettings:
    """The settings parsed ``args`` describe (``parser.error``, exit 2, on a bad value), parsed
    once: ``--workers`` processes get them pickled (mock_server/workers.py), not the argv."""
    try:
        latency = Latency(args.ttft, args.inter_token, args.jitter, args.duration)
    except ValueError as error:
        parser.error(str(error))
    try:
        chunking = Chunking.parse(args.chunk)
    except ValueError:
        parser.error(f"--chunk: expected N or LO-HI with 1 <= LO <= HI, got {args.chunk!r}")
    try:
        plan = FaultPlan.combine(args.fault)
    except FaultSyntaxError as error:
        parser.error(f"--fault: {error}")
    try:
        check_store_spec(args.store)
    except ValueError as error:
        parser.error(f"--store: {error}")
    script = None
    if args.script is not None:
        try:
            script = parse_script(read_at_most(args.script, MAX_SCRIPT_BYTES))
        except TooLarge as error:
            parser.error(f"--script: {args.script}: {error} for a script")
        except OSError as error:
            parser.error(f"--script: {args.script}: {error.strerror or error}")
        except ScriptError as error:
            parser.error(f"--script: {args.script}: {error}")
    if args.record is not None:
        try:
            Path(args.record).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            parser.error(f"--record: {args.record}: {error.strerror or error}")
    replay = _replay_settings(parser, args)
    secret = None
    if args.state_secret_env:
        secret = os.environ.get(args.state_secret_env)
        if not secret:
            parser.error(f"--state-secret-env: ${args.state_secret_env} is not set")
    if args.prompts:
        try:
            PromptRegistry.from_file(args.prompts)
        except PromptFileError as error:
            parser.error(f"--prompts: {error}")
    return MockSettings(
        prompts=args.prompts,
        state_secret=secret,
        seed=args.seed,
        scenario=args.scenario,
        latency=latency,
        chunking=chunking,
        faults=plan,
        frozen_time=args.frozen_time,
        store=args.store,
        store_ttl=args.store_ttl,
        api_key=required_api_key(parser, args),
        script=script,
        max_body_bytes=args.max_body_bytes,
        request_log_bytes=args.request_log_bytes,
        record=args.record,
        replay=replay,
        replica_id=args.replica_id,
        store_limits=limits_from(args),
        # A WebSocket message is held to the HTTP body limit (issue #39)
        server_limits=server_limits(args, args.max_body_bytes),
        websocket_limits=WebSocketLimits(
            connection_bytes=args.ws_connection_bytes, server_bytes=args.ws_server_bytes
        ),
    )


def _replay_settings(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> ReplaySettings | None:
    if args.replay is None:
        return None
    from cassettes import CassetteError
    from mock_server.replay import ReplaySettings, parse_timing, replay_exchanges

    try:
        timing = parse_timing(args.replay_timing)
    except ValueError as error:
        parser.error(f"--replay-timing: {error}")
    parts = tuple(p.strip() for p in args.replay_match.split(",") if p.strip())
    if not parts or any(p not in KEY_PARTS for p in parts):
        parser.error(
            f"--replay-match: use some of {','.join(KEY_PARTS)}, got {args.replay_match!r}"
        )
    settings = ReplaySettings(
        cassette=args.replay,
        mode=args.replay_mode,
        timing=timing,
        match=parts,
        ignore=tuple(args.replay_ignore) if args.replay_ignore is not None else DEFAULT_IGNORE,
    )
    try:
        replay_exchanges(settings)
    except CassetteError as error:
        parser.error(f"--replay: {error}")
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    settings = settings_from(parser, args)
    problem = check_workers(args.workers, args.store)
    if problem is not None:
        parser.error(problem)
    if args.workers > 1:
        return serve_workers(settings, args.host, args.port, args.workers, args.log_level)
    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        print(f"responses-mock: cannot bind {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    try:
        server = MockServer(settings)
    except Exception as error:  # a shared --store that cannot be opened (Redis down, bad file)
        sock.close()
        print(f"responses-mock: --store {settings.store}: {error}", file=sys.stderr)
        return 2
    quiet_dropped_connections()
    serve_socket(server.app, sock, args.log_level, settings.server_limits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
