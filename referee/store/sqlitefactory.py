"""The library's SQLite infrastructure, with the connection settings we want.

eventsourcing 9.5 opens every SQLite file in WAL mode (``PRAGMA
journal_mode=WAL``) but has no setting for ``synchronous``, which then stays
at SQLite's default, FULL: every commit waits for the write-ahead log to reach
the disk (an fsync per action, which costs more than the action itself).
``PERSISTENCE_MODULE`` may name a factory class instead of a module, so
``url.py`` names ``RefereeSQLiteFactory`` below, whose connections also run
``PRAGMA synchronous=NORMAL``.

What that gives up, precisely (https://sqlite.org/pragma.html#pragma_synchronous
and https://sqlite.org/wal.html): in WAL mode with ``synchronous=NORMAL`` a
committed transaction survives the referee process crashing or being killed
at any point, and the database is never corrupted; only a power cut or an
operating-system crash may lose the last transactions committed before it
(the log is synced at each checkpoint, not at each commit). Each action is
still all or nothing, so what may be lost is whole actions at the end of a
match, never part of one. Tournament stations that must survive power cuts
use PostgreSQL, or ``?synchronous=full`` in the SQLite URL.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteConnection, SQLiteConnectionPool, SQLiteFactory

SYNCHRONOUS = "REFEREE_SQLITE_SYNCHRONOUS"  # environment key: "normal" (default) or "full"
SYNCHRONOUS_MODES = ("normal", "full")


class RefereeSQLitePool(SQLiteConnectionPool):
    """The library's pool; each new connection also gets our pragmas."""

    def __init__(self, *, synchronous: str = "normal", **kwargs: object) -> None:
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
        self.synchronous = synchronous
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def _create_connection(self) -> SQLiteConnection:
        conn = super()._create_connection()  # WAL is set up here, for files
        try:
            conn._sqlite_conn.execute(f"PRAGMA synchronous={self.synchronous.upper()}")
        except sqlite3.Error as e:
            conn._sqlite_conn.close()
            raise InterfaceError(e) from e
        return conn


class RefereeSQLiteFactory(SQLiteFactory):
    """``SQLiteFactory`` whose connection pool is a ``RefereeSQLitePool``."""

    if os.environ.get("XX_LIB_RECORDER") != "1":
        application_recorder_class = None  # set below

    def __init__(self, env: object) -> None:
        super().__init__(env)  # type: ignore[arg-type]
        old = self.datastore.pool  # no connection made yet: the pool connects lazily
        synchronous = (self.env.get(SYNCHRONOUS) or "normal").strip().lower()
        self.datastore.pool = RefereeSQLitePool(
            synchronous=synchronous,
            db_name=old.db_name,
            lock_timeout=old.lock_timeout,
            pool_size=old.pool_size,
            max_overflow=old.max_overflow,
            pool_timeout=old.pool_timeout,
            max_age=old.max_age,
            pre_ping=old.pre_ping,
        )
        old.close()


class RefereeSQLiteRecorder(SQLiteApplicationRecorder):
    """The library's SQLite application recorder, inserting an action's rows
    with one ``executemany`` in its one transaction, instead of one
    ``execute`` per row to collect each row's ``rowid`` as a notification id
    (the referee never uses those: ``list_matches`` reads ``rowid`` itself)."""

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **_: Any) -> Sequence[int] | None:
        c.executemany(
            self.insert_events_statement,
            [(s.originator_id, s.originator_version, s.topic, s.state) for s in stored_events],
        )
        return None


if os.environ.get("XX_LIB_RECORDER") != "1":
    RefereeSQLiteFactory.application_recorder_class = RefereeSQLiteRecorder
