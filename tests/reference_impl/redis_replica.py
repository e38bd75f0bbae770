"""One replica for the Redis cross-replica test: the reference app on the deterministic mock engine
(slow tokens, so a background response is still running when another replica cancels it), with
its state in Redis.

    python redis_replica.py --redis redis://127.0.0.1:PORT/0 --port 0

prints ``listening on http://127.0.0.1:PORT`` once it accepts connections.
"""

from __future__ import annotations

import argparse
import socket
import sys

import uvicorn

from mock_server.engine import Latency, MockEngine
from reference_impl.service.app import create_app
from reference_impl.stores.redis import RedisStore


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--inter-token", type=float, default=0.02)
    args = parser.parse_args()
    engine = MockEngine(seed=1, latency=Latency(inter_token=args.inter_token))
    app = create_app(engine, store=RedisStore.from_url(args.redis))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
