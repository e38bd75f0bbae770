"""Many concurrent WebSocket sessions against one server, every frame judged: nothing lost,
garbled or misrouted across lanes.

    python -m benchmarks.perf.ws_sessions [--sessions 500] [--lanes 2] [--turns 2] [--base-url URL]
        [--json out.json]

Without ``--base-url`` it starts the mock (``responses-mock``) on a free loopback port. Each
session opens its own connection, then sends ``--turns`` rounds of one ``response.create`` per
lane at once (the second round continues each lane's first response by
``previous_response_id``); each create carries ``metadata: {session, lane, turn}``. A session's
frames all go through the judge's :class:`~conformance.websocket.SessionValidator` (stream checks
per response, ``ws.*`` session checks), and every terminal response must echo the metadata of the
request sent on its lane for that turn (misrouting would answer one lane with another's
response). Counted: sessions, responses, events, judge violations, misrouted answers, missing
answers, connection failures, and wall time. Exit 0 when nothing is lost, garbled or misrouted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from benchmarks.perf.cli_args import positive_float, positive_int
from benchmarks.perf.servers import start_mock
from conformance.catalog.registry import Level
from conformance.websocket import SessionValidator

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


@dataclass
class Tally:
    sessions: int = 0
    sessions_ok: int = 0
    responses: int = 0
    events: int = 0
    missing: int = 0
    misrouted: int = 0
    connect_failures: int = 0
    violations: Counter[str] = field(default_factory=Counter)


async def _session(
    url: str, number: int, lanes: int, turns: int, timeout: float, tally: Tally
) -> None:
    judge = SessionValidator()
    names = [f"s{number}-l{k}" for k in range(lanes)]
    last: dict[str, str] = {}
    ok = True
    try:
        async with connect(url, max_size=None, compression=None, open_timeout=timeout) as ws:
            for turn in range(turns):
                want: dict[str, dict[str, str]] = {}
                for lane in names:
                    meta = {"session": str(number), "lane": lane, "turn": str(turn)}
                    event: dict[str, Any] = {
                        "type": "response.create", "stream_id": lane, "model": "mock",
                        "input": f"session {number} lane {lane} turn {turn}",
                        "max_output_tokens": 24, "metadata": meta,
                    }  # fmt: skip
                    if lane in last:
                        event["previous_response_id"] = last[lane]
                    text = json.dumps(event)
                    judge.client(text)
                    want[lane] = meta
                    await ws.send(text)
                waiting = set(names)
                while waiting:
                    frame = await asyncio.wait_for(ws.recv(), timeout)
                    judge.server(frame)
                    tally.events += 1
                    got = json.loads(frame)
                    if got.get("type") not in _TERMINAL:
                        continue
                    lane = got.get("stream_id")
                    response = got.get("response") or {}
                    tally.responses += 1
                    if lane not in waiting or response.get("metadata") != want.get(lane):
                        tally.misrouted += 1
                        ok = False
                    waiting.discard(lane)
                    if isinstance(response.get("id"), str):
                        last[str(lane)] = response["id"]
    except (TimeoutError, OSError) as error:
        if tally.events == 0:
            tally.connect_failures += 1
        tally.missing += 1
        ok = False
        print(f"session {number}: {type(error).__name__}: {error}", file=sys.stderr)
    except Exception as error:  # the connection closed mid-session, say: a lost answer
        tally.missing += 1
        ok = False
        print(f"session {number}: {type(error).__name__}: {error}", file=sys.stderr)
    judge.close()
    bad = [v for v in judge.all_violations() if v.level is not Level.INFO]
    for v in bad:
        tally.violations[v.check_id] += 1
    tally.sessions += 1
    if ok and not bad:
        tally.sessions_ok += 1


async def run(url: str, sessions: int, lanes: int, turns: int, timeout: float) -> Tally:
    tally = Tally()
    await asyncio.gather(*(_session(url, n, lanes, turns, timeout, tally) for n in range(sessions)))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=positive_int, default=500)
    parser.add_argument("--lanes", type=positive_int, default=2)
    parser.add_argument("--turns", type=positive_int, default=2)
    parser.add_argument("--timeout", type=positive_float, default=120.0)
    parser.add_argument("--base-url", help="default: start the mock on loopback")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args(argv)
    mock = None
    if args.base_url:
        base = args.base_url.rstrip("/")
    else:
        mock = start_mock(["--frozen-time", "--inter-token", "0.002"])
        base = mock.origin + "/v1"
    url = base.replace("https://", "wss://").replace("http://", "ws://") + "/responses"
    try:
        started = time.perf_counter()
        tally = asyncio.run(run(url, args.sessions, args.lanes, args.turns, args.timeout))
        wall = time.perf_counter() - started
    finally:
        if mock is not None:
            mock.stop()
    expected = args.sessions * args.lanes * args.turns
    result = {
        "sessions": tally.sessions,
        "sessions_clean": tally.sessions_ok,
        "lanes_per_session": args.lanes,
        "turns": args.turns,
        "responses_expected": expected,
        "responses": tally.responses,
        "events_judged": tally.events,
        "missing_sessions": tally.missing,
        "misrouted": tally.misrouted,
        "connect_failures": tally.connect_failures,
        "violations": dict(tally.violations),
        "wall_s": round(wall, 2),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    clean = (
        tally.responses == expected
        and not tally.misrouted
        and not tally.missing
        and not tally.violations
    )
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
