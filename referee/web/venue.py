"""Reaching the board from the venue's phones: this machine's addresses, the Host names it answers, QR codes.

A board started with ``--host 0.0.0.0`` listens on every address of the
machine, so it answers a Host header that is any IP address (a page
elsewhere can rebind a *name* of its own to this machine, never an address
literal, so answering addresses gives nothing away) and the names it was
given: localhost, the machine's own name and every ``--allowed-host``. The
start-up banner prints the address a phone on the same network opens, with
its QR code in the terminal; scorekeepers' links print with theirs, and
``/events/EVENT/print/links`` puts one per table on paper (``segno`` draws
them: a well-kept QR library with no dependencies).
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Iterable
from typing import Any

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

ANY_ADDRESS = ("0.0.0.0", "::", "")


def is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def machine_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, the one its
    default route leaves by first: what a phone on the same network opens.
    Read from the interfaces (Linux), else from the route a datagram would
    take (no packet is sent), else from the machine's name."""
    found: list[str] = []
    primary = _routed_address()
    if primary:
        found.append(primary)
    for address in (*_interface_addresses(), *_named_addresses()):
        if address not in found:
            found.append(address)
    return [a for a in found if not ipaddress.ip_address(a).is_loopback]


def _routed_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: connecting a datagram socket sends nothing
            return str(probe.getsockname()[0])
        except OSError:
            return None


def _interface_addresses() -> list[str]:
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return []
    out: list[str] = []
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                raw = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
            except OSError:
                continue  # no IPv4 address on it
            out.append(socket.inet_ntoa(raw[20:24]))
    return out


def _named_addresses() -> list[str]:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def default_names(host: str) -> tuple[str, ...]:
    """The names a board bound to ``host`` answers besides ``--allowed-host``'s."""
    names = {"localhost", "127.0.0.1", "::1"}
    if host in ANY_ADDRESS:
        names.add(socket.gethostname())
        names.update(machine_addresses())
    else:
        names.add(host.strip("[]"))
    return tuple(sorted(names))


class HostCheck:
    """Answers only the Host names given (``*.domain`` for a whole domain),
    and any address literal when ``any_address`` (a board on every address);
    anything else gets a 400 that says which names it answers and how to
    add one. Plain ASGI, so the live streams pass untouched."""

    def __init__(self, app: ASGIApp, names: Iterable[str], any_address: bool = False) -> None:
        self.app = app
        self.names = tuple(n.lower() for n in names)
        self.any_address = any_address

    def allowed(self, host: str) -> bool:
        host = host.lower()
        if self.any_address and is_address(host):
            return True
        for name in self.names:
            if name == host or (name.startswith("*.") and host.endswith(name[1:])):
                return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        raw = headers.get("host", "")
        if raw.startswith("["):  # [v6 address]:port
            host = raw[1 : raw.index("]")] if "]" in raw else raw
        else:
            host = raw.rsplit(":", 1)[0] if raw.count(":") == 1 else raw
        if self.allowed(host):
            await self.app(scope, receive, send)
            return
        shown = ", ".join(self.names) + (", and any of this machine's addresses" if self.any_address else "")
        response = PlainTextResponse(
            f"This board does not answer to the host name {host[:80]!r}: it answers to {shown}. "
            "Open it by one of those, or start it with --allowed-host NAME to add this one.",
            status_code=400,
        )
        await response(scope, receive, send)


def qr_for_terminal(url: str) -> str:
    """``url`` as a QR code a phone's camera reads off a terminal (two rows of
    modules a character, dark on light as a terminal shows text)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def qr_svg(url: str, scale: int = 4) -> str:
    """``url`` as an inline SVG QR code for a printed page."""
    import segno

    # No size of its own (a viewBox only): the page sizes it, and it scales rather than being cut.
    svg: Any = segno.make(url, error="m").svg_inline(scale=scale, border=4, omitsize=True)
    return str(svg)
