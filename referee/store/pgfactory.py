"""The library's PostgreSQL infrastructure, opened without schema races and written in one round trip.

``url.py`` names ``RefereePostgresFactory`` as ``PERSISTENCE_MODULE``. It is
eventsourcing 9.5's ``PostgresFactory`` with three changes:

- **No DDL on open.** The library runs its whole schema setup (CREATE
  TABLE/TYPE/INDEX, CREATE OR REPLACE FUNCTION) every time a store opens.
  Stations starting together then collide on the catalog (``tuple
  concurrently updated``, exit 2), every open writes ``already exists``
  errors to the server log, and a role that does not own the tables cannot
  open the store at all. Here ``prepare`` first looks the objects up (one
  catalog query, no lock); only if one is missing, and only for a store that
  may create (``referee new``, ``import``), does it take a transaction-scoped
  advisory lock, look again, and create what is still missing. A store that
  reads never runs DDL; finding no tables, it is simply empty.
- **One round trip per write.** The library's insert is a transaction of
  BEGIN, SET LOCAL lock_timeout, LOCK TABLE ... IN EXCLUSIVE MODE, NOTIFY,
  INSERT and COMMIT: pipelined, but with a sync before COMMIT, so the
  table lock is held across two round trips to the client. That lock is
  what keeps notification ids in commit order (readers of the notification
  log, such as projections, must never see a gap filled in later), and
  holding it that long is why four stations wrote no faster than one.
  ``referee_insert_events_v1`` takes the same lock, notifies and inserts
  inside the server, called as one autocommitted statement: one round trip,
  and the lock is held only while the rows go in.
- **A role that may only read and write rows works.** Inserting takes the
  next notification id from the table's sequence, which a role granted only
  SELECT, INSERT, UPDATE on the tables may not use. The function is
  therefore ``SECURITY DEFINER`` (it runs as the tables' owner, with a fixed
  ``search_path``), and before anything else it checks that the calling
  role may INSERT into the events table, so it grants nothing the table's
  own privileges do not. (LOCK TABLE ... EXCLUSIVE needs UPDATE: hence the
  UPDATE right.)

And every connection gets the libpq options of the URL (``sslmode``,
``sslrootcert``, ``application_name``...), which the library has no setting for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresFactory
from psycopg.sql import SQL, Composed, Identifier, Literal

from referee.store.url import LIBPQ_ENV

INSERT_FUNCTION = "referee_insert_events_v1"  # a new body gets a new name: old stations keep theirs
INSERT_SIGNATURE = "(text[],bigint[],text[],bytea[])"


class RefereePostgresRecorder(PostgresApplicationRecorder):
    """The library's application recorder, writing through ``INSERT_FUNCTION``
    when the database has it (``prepare`` says so with ``has_function``);
    otherwise through the library's own insert, which is equally correct."""

    def __init__(self, datastore: Any, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        self.has_function = False
        function = Identifier(self.datastore.schema, INSERT_FUNCTION)
        table = Identifier(self.datastore.schema, self.events_table_name)
        self.sql_insert_rows = SQL("SELECT {}(%s::text[], %s::bigint[], %s::text[], %s::bytea[])").format(function)
        qualified = table.as_string()
        self.sql_create_insert_function: Composed = SQL(
            "CREATE OR REPLACE FUNCTION {function}("
            "ids text[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS void LANGUAGE plpgsql SECURITY DEFINER "
            "SET search_path = pg_catalog, pg_temp AS $body$ "
            "BEGIN "
            "  IF NOT has_table_privilege(session_user, {qualified}, 'INSERT') THEN "
            "    RAISE EXCEPTION 'permission denied for table %', {qualified} "
            "      USING ERRCODE = 'insufficient_privilege'; "
            "  END IF; "
            "  LOCK TABLE {table} IN EXCLUSIVE MODE; "
            "  NOTIFY {channel}; "
            "  INSERT INTO {table} (originator_id, originator_version, topic, state) "
            "    SELECT * FROM unnest(ids, versions, topics, states); "
            "END $body$"
        ).format(
            function=function,
            qualified=Literal(qualified),
            table=table,
            channel=Identifier(self.channel_name),
        )
        self.function_signature = Identifier(self.datastore.schema, INSERT_FUNCTION).as_string() + INSERT_SIGNATURE

    def insert_rows(self, rows: list[tuple[Any, ...]]) -> None:
        """``insert_events`` of (originator id, version, topic, state) tuples,
        in one statement: one round trip, one transaction."""
        if not rows:
            return
        if not self.has_function:
            super().insert_events([StoredEvent(*row) for row in rows])
            return
        ids, versions, topics, states = (list(column) for column in zip(*rows))
        with self.datastore.get_connection() as conn:
            conn.execute(self.sql_insert_rows, (ids, versions, topics, states), prepare=True)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if self.has_function and stored_events:
            self.insert_rows([(s.originator_id, s.originator_version, s.topic, s.state) for s in stored_events])
            return None
        return super().insert_events(stored_events, **kwargs)


class RefereePostgresFactory(PostgresFactory):
    """``PostgresFactory`` with ``RefereePostgresRecorder``, the URL's libpq
    options on every connection, and ``prepare`` instead of schema setup on
    every open (the store opens it with ``CREATE_TABLE=no``)."""

    application_recorder_class = RefereePostgresRecorder

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        options = json.loads(self.env.get(LIBPQ_ENV) or "{}")
        kwargs = self.datastore.pool.kwargs
        assert isinstance(kwargs, dict)
        kwargs.update(options)  # the pool has not connected yet: it opens on first use

    def prepare(self, recorders: Sequence[Any], *, create: bool) -> bool:
        """Whether the recorders' tables (and the types and function they use)
        exist; if some are missing and ``create``, make them first, under an
        advisory lock of this schema, checking again once it is held."""
        datastore = self.datastore
        with datastore.get_connection() as conn:
            missing = self._missing(conn, recorders)
            if missing and create:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key(),))
                    if datastore.schema != "public":
                        conn.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(datastore.schema)))
                    if self._missing(conn, recorders):
                        self._create(conn, recorders)
                missing = self._missing(conn, recorders)
        application = [r for r in recorders if isinstance(r, RefereePostgresRecorder)]
        for recorder in application:
            recorder.has_function = "function" not in missing
        if missing - {"function"}:
            return False
        datastore.register_type_adapters()
        return True

    def _missing(self, conn: Any, recorders: Sequence[Any]) -> set[str]:
        """What of the schema is missing, in one catalog query: table and type
        names, and "function" for the insert function."""
        schema = self.datastore.schema
        wanted: dict[str, tuple[str, str]] = {}  # label -> (to_reg function, name)
        for recorder in recorders:
            table = Identifier(schema, recorder.events_table_name).as_string()
            kind = Identifier(schema, recorder.stored_event_type_name).as_string()
            wanted[table] = ("to_regclass", table)
            wanted[kind] = ("to_regtype", kind)
            if isinstance(recorder, RefereePostgresRecorder):
                wanted["function"] = ("to_regprocedure", recorder.function_signature)
        labels = list(wanted)
        query = "SELECT " + ", ".join(f"{wanted[k][0]}(%s) IS NULL AS m{i}" for i, k in enumerate(labels))
        row = conn.execute(query, [wanted[k][1] for k in labels]).fetchone()
        return {k for i, k in enumerate(labels) if row[f"m{i}"]}

    def _create(self, conn: Any, recorders: Sequence[Any]) -> None:
        """The library's statements (CREATE TYPE only if the type is missing:
        it has no IF NOT EXISTS), then our insert function."""
        for recorder in recorders:
            for statement in recorder.sql_create_statements:
                if "CREATE TYPE" in statement.as_string():
                    name = Identifier(self.datastore.schema, recorder.stored_event_type_name).as_string()
                    if conn.execute("SELECT to_regtype(%s) IS NOT NULL AS found", (name,)).fetchone()["found"]:
                        continue
                conn.execute(statement, prepare=False)
            if isinstance(recorder, RefereePostgresRecorder):
                conn.execute(recorder.sql_create_insert_function, prepare=False)

    def _lock_key(self) -> int:
        """The advisory lock of this schema's tables: a signed 64-bit key
        derived from the schema's name, the same on every station."""
        digest = hashlib.sha256(f"referee-schema:{self.datastore.schema}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)
