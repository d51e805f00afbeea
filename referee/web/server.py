"""Serving the board with uvicorn on a socket bound here, so the URL printed is
the one that answers (``--port 0`` picks a free port and still prints it), and
so the benchmark and the tests can run the very same server in a thread.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def is_loopback(host: str) -> bool:
    """Only this machine can reach ``host`` (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (OSError if it is taken)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto named explicitly: asyncio sets TCP_NODELAY only on sockets whose
    # proto is IPPROTO_TCP, and without it every response on a kept-alive
    # connection waits 40 ms for a delayed ACK (Nagle's algorithm).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    return sock


def url_of(sock: socket.socket, scheme: str = "http") -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}/"


def server_for(app: Any, *, log_level: str = "warning", **options: Any) -> Any:
    """A uvicorn server for ``app`` (uvicorn is imported only when serving)."""
    import uvicorn

    # uvicorn believes X-Forwarded-For from 127.0.0.1 by default, which made
    # any local client whoever it claimed to be: the board reads it itself,
    # and only from the proxies the organiser names (``auth.client_of``).
    config = uvicorn.Config(
        app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=2, proxy_headers=False, **options
    )
    return uvicorn.Server(config)


@contextmanager
def running(app: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """The app served in a background thread while the block runs; yields its URL."""
    sock = bind(host, port)
    server = server_for(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the board server did not start")
            thread.join(0.02)
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
