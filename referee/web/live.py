"""Live updates: one cheap poll of the store for every open page.

Another station's ``referee act`` writes to the same database, not to this
server, so the server polls: every ``interval`` seconds it asks the store's
notification log for its highest id (one indexed query, SQLite or
PostgreSQL). Only when that grew does it read the new notifications, once,
to learn which matches reached which version, and it tells the pages
watching them. A page learns only a match's new version (public: anyone may
count events); it then asks for its own view with its own credentials.

The poll is also the board's pulse: when the store stops answering (a
failed poll, or a poll slower than ``DOWN_AFTER`` while a health check of
its own cannot reach the store either), every open page hears
``{"store": "down"}`` at once, and ``{"store": "ok"}`` when a poll
succeeds again, so a page says so within a few seconds and comes back by
itself. Busy is not down: a poll that is slow because the server is busy
(stations logging on two cores) waits its turn while the health check
(``Probe``: a short connection of its own, ``SELECT 1``, a few seconds at
most, never the page's queries or the store's pool) finds the store
answering. Every server polls the same notification log, so a page hears
of a write whichever server (or station) made it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

POLL_SECONDS = 0.25  # a page hears of a new event within this (plus the page's own fetch)
PAGE = 500  # notifications read at once when catching up
DOWN_AFTER = 3.0  # seconds a poll may take before the health check is asked whether the store answers
PROBE_SECONDS = 2.5  # the health check's own limit: connecting and one query
NOT_ANSWERING = "the match store is not answering"


class Probe:
    """Is the store answering? A connection of its own for each check, with
    a short timeout, and one trivial query: not the store's pool (which a
    busy server has all in use, and which waits a long time for a server
    that is gone) and not a page's queries. ``check()`` blocks for at most
    about ``PROBE_SECONDS``; ``None`` means answering, else why not."""

    def __init__(self, database: Any, seconds: float = PROBE_SECONDS) -> None:
        self.database = database
        self.seconds = seconds

    def check(self) -> str | None:
        try:
            if self.database.kind == "postgresql":
                self._postgres()
            else:
                self._sqlite()
        except Exception:  # noqa: BLE001 - any failure to answer is "not answering"
            return NOT_ANSWERING
        return None

    def _postgres(self) -> None:
        import psycopg

        kwargs = self.database.connect_kwargs()
        given = str(kwargs.get("connect_timeout") or "")
        limit = max(2, int(self.seconds))  # libpq's least is 2 s
        kwargs["connect_timeout"] = min(int(given), limit) if given.isdigit() and int(given) > 0 else limit
        with psycopg.connect(autocommit=True, **kwargs) as conn:
            conn.execute(f"SET statement_timeout = {int(self.seconds * 1000)}")
            conn.execute("SELECT 1")

    def _sqlite(self) -> None:
        import sqlite3

        path = self.database.path
        if path is None:
            return  # in memory: it answers while the process does
        from pathlib import Path

        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=self.seconds)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()

    async def answering(self) -> str | None:
        """``check()`` in a thread, given up after its limit (plus a second): None, or why not."""
        task = asyncio.ensure_future(asyncio.to_thread(self.check))
        done, _ = await asyncio.wait({task}, timeout=self.seconds + 1.0)
        if not done:
            return NOT_ANSWERING
        return task.result()


@dataclass(eq=False)  # each page its own watch, hashed by identity
class Watch:
    """What one open page waits on: a match id, or None for any match."""

    match: str | None
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=lambda: asyncio.Queue(maxsize=64))


class Watcher:
    """Polls the store's notification log and fans changes out to pages."""

    def __init__(self, recorder: Any, interval: float = POLL_SECONDS, probe: Probe | None = None) -> None:
        self.recorder = recorder
        self.interval = interval
        self.probe = probe  # None: a slow poll is waited for, a failed one is "down"
        self.busy = 0  # polls that were slow while the store answered (observability)
        self.last_id: int | None = None
        self.polls = 0  # observability, for the tests
        self.down: str | None = None  # why the store is not answering, while it is not
        self._watches: set[Watch] = set()
        self._lock = threading.Lock()

    def subscribe(self, match: str | None) -> Watch:
        watch = Watch(match)
        with self._lock:
            self._watches.add(watch)
        return watch

    def unsubscribe(self, watch: Watch) -> None:
        with self._lock:
            self._watches.discard(watch)

    def poll(self) -> dict[str, int]:
        """The matches written since the last poll, with their latest version
        (blocking: run it in a thread). The first poll only takes its bearings."""
        self.polls += 1
        top = self.recorder.max_notification_id() or 0
        if self.last_id is None or top <= self.last_id:
            self.last_id = top if self.last_id is None else self.last_id
            return {}
        changed: dict[str, int] = {}
        start = self.last_id + 1
        while start <= top:
            page = self.recorder.select_notifications(start, PAGE, stop=top)
            for note in page:
                key = str(note.originator_id)
                changed[key] = max(changed.get(key, 0), note.originator_version)
            if len(page) < PAGE:
                break
            start = page[-1].id + 1
        self.last_id = top
        return changed

    def publish(self, changed: dict[str, int]) -> None:
        """Tell each page watching a changed match (and the tables pages)."""
        if not changed:
            return
        with self._lock:
            watches = list(self._watches)
        message: dict[str, Any]
        for watch in watches:
            if watch.match is None:
                message = {"matches": changed}
            elif watch.match in changed:
                message = {"match": watch.match, "version": changed[watch.match]}
            else:
                continue
            try:
                watch.queue.put_nowait(message)
            except asyncio.QueueFull:
                pass  # a stalled page: the next message carries the newest version anyway

    def health(self) -> dict[str, str]:
        """``{"store": "ok"}``, or ``{"store": "down", "message": ...}``."""
        return {"store": "down", "message": self.down} if self.down else {"store": "ok"}

    def set_down(self, why: str | None) -> None:
        """Tell every page when the store stops or starts answering again."""
        if (why is None) == (self.down is None):
            self.down = why if why is not None else None
            return
        self.down = why
        with self._lock:
            watches = list(self._watches)
        for watch in watches:
            with contextlib.suppress(asyncio.QueueFull):
                watch.queue.put_nowait(self.health())

    async def run(self, down_after: float = DOWN_AFTER) -> None:
        """Poll until cancelled; a failing poll (database gone) is retried. A
        poll that takes longer than ``down_after`` is waited for (it is never
        started twice at once) while the health check is asked every
        ``down_after`` seconds: the store counts as down only when that check
        cannot reach it either; a busy store is not down."""
        from referee.store import StoreError

        while True:
            poll = asyncio.ensure_future(asyncio.to_thread(self.poll))
            try:
                done, _ = await asyncio.wait({poll}, timeout=down_after)
                slow = False
                while not done:
                    slow = True
                    why = await self.probe.answering() if self.probe is not None else None
                    if why is not None:
                        self.set_down(why)
                    done, _ = await asyncio.wait({poll}, timeout=down_after)
                if slow and self.down is None:
                    self.busy += 1
                changed = poll.result()
            except asyncio.CancelledError:
                # Cancelling does not stop the poll's thread: let it finish
                # (bounded, for a store that hangs) before the server closes
                # the store under it, which crashed SQLite (a segfault in CI).
                await asyncio.wait({poll}, timeout=max(down_after, 1.0))
                raise
            except Exception as exc:  # noqa: BLE001 - the pages keep their last board; try again
                self.set_down(str(exc) if isinstance(exc, StoreError) else "the match store is not answering")
                await asyncio.sleep(max(self.interval, 1.0))
                continue
            self.set_down(None)
            self.publish(changed)
            await asyncio.sleep(self.interval)
