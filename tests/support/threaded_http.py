"""A stdlib HTTP handler served on loopback from a thread, for tests that need a small fake
upstream (a target that refuses, a static file server, a server that sends given bytes)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["serving"]


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler], *, backlog: int | None = None) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 and a free port; yields ``http://127.0.0.1:PORT``. The
    server and its request threads end with the block (``backlog``: the listen queue, for tests
    that open many connections at once)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler, bind_and_activate=False)
    server.daemon_threads = True
    if backlog is not None:
        server.request_queue_size = backlog
    try:
        server.server_bind()
        server.server_activate()
    except OSError:
        server.server_close()
        raise
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
