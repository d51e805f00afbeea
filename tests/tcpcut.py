"""A TCP relay to a database server that a test can cut and mend: the store
going down under a running board, and coming back."""

from __future__ import annotations

import asyncio
import threading
from typing import Any


class Relay:
    """Listens on 127.0.0.1:``port`` and relays to ``target``. ``cut()``
    closes every connection and refuses new ones (the server is gone);
    ``hang()`` keeps them open but passes nothing (a network that drops
    packets); ``mend()`` relays again."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.mode = "open"
        self._writers: list[Any] = []
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.port = 0

        def run() -> None:
            asyncio.set_event_loop(self.loop)

            async def start() -> None:
                self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
                self.port = self.server.sockets[0].getsockname()[1]
                ready.set()

            self.loop.run_until_complete(start())
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait(10)

    async def _handle(self, reader: Any, writer: Any) -> None:
        if self.mode == "cut":
            writer.close()
            return
        if self.mode == "hang":
            self._writers.append(writer)
            return
        try:
            upstream_reader, upstream = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers += [writer, upstream]

        async def pipe(source: Any, sink: Any) -> None:
            try:
                while True:
                    data = await source.read(65536)
                    if not data or self.mode == "cut":
                        break
                    while self.mode == "hang":
                        await asyncio.sleep(0.05)
                    sink.write(data)
                    await sink.drain()
            except (OSError, ConnectionError):
                pass
            finally:
                sink.close()

        asyncio.ensure_future(pipe(reader, upstream))
        asyncio.ensure_future(pipe(upstream_reader, writer))

    def _set(self, mode: str) -> None:
        def apply() -> None:
            self.mode = mode
            if mode == "cut":
                for w in self._writers:
                    w.close()
                self._writers = []

        self.loop.call_soon_threadsafe(apply)

    def cut(self) -> None:
        self._set("cut")

    def hang(self) -> None:
        self._set("hang")

    def mend(self) -> None:
        self._set("open")

    def close(self) -> None:
        self._set("cut")
        self.loop.call_soon_threadsafe(self.loop.stop)
