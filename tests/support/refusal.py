"""Whether a server has stopped listening: new connections refused after a shutdown signal."""

from __future__ import annotations

import socket
import time


def refused_within(port: int, seconds: float, every: float = 0.02) -> bool:
    """True once a connection to ``127.0.0.1:port`` is refused, trying every ``every`` seconds
    for ``seconds``. Paced, not a tight loop: until the listening socket closes the kernel
    completes each handshake into the backlog, and a tight loop fills it within a fraction of a
    second, after which a connect neither succeeds nor is refused (the SYN is dropped)."""
    until = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=every * 10):
                pass
        except (ConnectionRefusedError, ConnectionResetError):
            return True
        except TimeoutError:  # the backlog is full: still listening
            pass
        if time.monotonic() >= until:
            return False
        time.sleep(every)
