"""The store's own small tables beside the matches: its signing key, the board's sessions and failed sign-ins.

They live in the same database as the matches, so every station and every
board server of a store shares them (a PostgreSQL store serves several
servers; a key or a session in one process only would be one server's):

- ``referee_keys``: the store's Ed25519 signing key (``referee.chain.Signer``),
  made the first time a writable store needs it. Whoever can read the store
  can sign as it, exactly as whoever can read it reads every hand; a record
  file carries only the public key.
- ``referee_sessions``: one row per signed-in board session; the cookie
  holds only its id, so signing out or a judge password changed on the
  server ends it everywhere, and it ends by itself at its expiry.
- ``referee_attempts``: failed password attempts by client address and
  time, counted by every server alike.

The tables are made only when missing (``CREATE TABLE IF NOT EXISTS``, after
looking), so a store made by an older version opens as before and a role
that may only read and write rows uses tables an owner made. A read-only
store reads the key and never writes: it has no sessions or attempts of its
own (``available`` is False, and the board keeps those in its process).
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from referee.chain import Signer

if TYPE_CHECKING:
    from referee.store.matches import MatchStore

TABLES = {
    "referee_keys": "name TEXT PRIMARY KEY, private BYTEA NOT NULL, created DOUBLE PRECISION NOT NULL",
    "referee_sessions": "id TEXT PRIMARY KEY, kind TEXT NOT NULL, proof TEXT NOT NULL, "
    "expires DOUBLE PRECISION NOT NULL",
    "referee_attempts": "client TEXT NOT NULL, at DOUBLE PRECISION NOT NULL",
}
INDEXES = {"referee_attempts": "CREATE INDEX IF NOT EXISTS {name}_by_client ON {table} (client, at)"}
SIGNING_KEY = "signing"


class SideTables:
    """The side tables of one open store (SQLite or PostgreSQL)."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        recorder: Any = store.application.recorder
        self._datastore = recorder.datastore
        self.postgres = hasattr(self._datastore, "schema")
        self._made: set[str] = set()
        self._lock = threading.Lock()
        self._signer: Signer | None = None

    @property
    def available(self) -> bool:
        """Can sessions and attempts be written here (not a read-only store)?"""
        return not self.store.read_only

    # --- plumbing ----------------------------------------------------------------

    def _name(self, table: str) -> str:
        if self.postgres:
            from psycopg.sql import Identifier

            return Identifier(self._datastore.schema, table).as_string()
        return table

    def _sql(self, text: str) -> str:
        """A statement written with ``?`` marks, in the driver's own."""
        return text.replace("?", "%s") if self.postgres else text

    @contextmanager
    def _conn(self, write: bool) -> Iterator[Any]:
        if self.postgres:
            with self._datastore.get_connection() as conn:
                yield conn
            return
        pool = self._datastore.pool
        if write and hasattr(pool, "writer") and not pool.is_sqlite_memory_mode:
            with pool.writer() as db:
                yield db
            return
        conn = pool.get_connection(is_writer=write)
        try:
            yield conn._sqlite_conn
        finally:
            pool.put_connection(conn)

    def _run(self, table: str, sql: str, params: tuple[Any, ...] = (), *, write: bool = False) -> list[Any]:
        """Run one statement on ``table`` (made first when missing and ``write``);
        the rows it returns. A missing table reads as empty."""
        with self.store._db_errors(f"use the table {table}"):
            if table not in self._made and not self._exists(table):
                if not write or self.store.read_only:
                    return []
                self._create(table)
            with self._conn(write) as db:
                cur = db.execute(self._sql(sql.format(table=self._name(table))), params)
                rows = cur.fetchall() if cur.description is not None else []
            return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows]

    def _exists(self, table: str) -> bool:
        with self._conn(False) as db:
            if self.postgres:
                row = db.execute("SELECT to_regclass(%s) IS NOT NULL AS found", (self._name(table),)).fetchone()
                found = bool(row["found"])
            else:
                try:
                    row = db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", (table,))
                    found = bool(row.fetchone()[0])
                except sqlite3.Error:
                    found = False
        if found:
            with self._lock:
                self._made.add(table)
        return found

    def _create(self, table: str) -> None:
        columns = (
            TABLES[table]
            if self.postgres
            else TABLES[table].replace("BYTEA", "BLOB").replace("DOUBLE PRECISION", "REAL")
        )
        name = self._name(table)
        with self._conn(True) as db:
            if self.postgres:
                # PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against itself:
                # two stations making the table at once, one fails on the type's
                # unique name. The first to take this table's lock makes it; the
                # others wait, then find it made.
                with db.transaction():
                    db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (name,))
                    db.execute(f"CREATE TABLE IF NOT EXISTS {name} ({columns})")
                    if table in INDEXES:
                        db.execute(INDEXES[table].format(name=table, table=name))
            else:
                db.execute(f"CREATE TABLE IF NOT EXISTS {name} ({columns})")
                if table in INDEXES:
                    db.execute(INDEXES[table].format(name=table, table=name))
        with self._lock:
            self._made.add(table)

    # --- the signing key -----------------------------------------------------------

    def signer(self, *, create: bool = True) -> Signer | None:
        """The store's signing key: read, or made now if it has none and
        ``create`` (and the store may write); None if it has none."""
        if self._signer is not None:
            return self._signer
        rows = self._run("referee_keys", "SELECT private FROM {table} WHERE name = ?", (SIGNING_KEY,))
        if not rows and create and not self.store.read_only:
            import time

            private = Signer.new_private()
            insert = "INSERT INTO {table} (name, private, created) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING"
            self._run("referee_keys", insert, (SIGNING_KEY, private, time.time()), write=True)
            rows = self._run("referee_keys", "SELECT private FROM {table} WHERE name = ?", (SIGNING_KEY,))
        if not rows:
            return None
        self._signer = Signer(bytes(rows[0][0]))
        return self._signer

    # --- board sessions ------------------------------------------------------------

    def new_session(self, kind: str, proof: str, expires: float) -> str:
        sid = secrets.token_urlsafe(24)
        self._run(
            "referee_sessions",
            "INSERT INTO {table} (id, kind, proof, expires) VALUES (?, ?, ?, ?)",
            (sid, kind, proof, expires),
            write=True,
        )
        return sid

    def session(self, sid: str, now: float) -> tuple[str, str] | None:
        """(kind, proof) of a live session; None if it ended or never was."""
        rows = self._run("referee_sessions", "SELECT kind, proof, expires FROM {table} WHERE id = ?", (sid,))
        if not rows or float(rows[0][2]) <= now:
            return None
        return str(rows[0][0]), str(rows[0][1])

    def end_session(self, sid: str) -> None:
        self._run("referee_sessions", "DELETE FROM {table} WHERE id = ?", (sid,), write=True)

    def end_sessions(self, kind: str, *, unless_proof: str | None = None) -> None:
        """End every session of ``kind`` (but those holding ``unless_proof``)."""
        if unless_proof is None:
            self._run("referee_sessions", "DELETE FROM {table} WHERE kind = ?", (kind,), write=True)
        else:
            self._run(
                "referee_sessions",
                "DELETE FROM {table} WHERE kind = ? AND proof <> ?",
                (kind, unless_proof),
                write=True,
            )

    def drop_expired_sessions(self, now: float) -> None:
        self._run("referee_sessions", "DELETE FROM {table} WHERE expires <= ?", (now,), write=True)

    # --- failed sign-ins -------------------------------------------------------------

    def failed(self, client: str, now: float, window: float) -> None:
        """Count a failed attempt of ``client`` (and forget those older than the window)."""
        self._run("referee_attempts", "INSERT INTO {table} (client, at) VALUES (?, ?)", (client, now), write=True)
        self._run("referee_attempts", "DELETE FROM {table} WHERE at <= ?", (now - window,), write=True)

    def recent(self, client: str, since: float) -> list[float]:
        """The times of ``client``'s failed attempts after ``since``, oldest first."""
        rows = self._run(
            "referee_attempts", "SELECT at FROM {table} WHERE client = ? AND at > ? ORDER BY at", (client, since)
        )
        return [float(r[0]) for r in rows]
