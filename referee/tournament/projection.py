"""The tournaments projection: follows the store's notification log and keeps each tournament's game results, standings and penalties in tables.

It is an eventsourcing 9.5 ``Projection`` whose view is a tracking recorder
(``TournamentsSQLiteView`` or ``TournamentsPostgresView``, in the same
database as the matches): every event it processes changes the view and
records the event's notification id in the tracking table in ONE
transaction. So an event is applied exactly once, whichever station catches
up first: a second station processing the same notification fails on the
tracking row, its transaction rolls back, and it reads the new position and
goes on.

What it follows: the tournaments' own events (registrations, pairings,
drops, penalties, the clock) and, from the matches, ``GameEnded`` (a game's
result lands, played or entered by a judge) and ``Rewound`` (a judge's
correction that goes back before the result reopens the game and takes the
result out again). After each one the standings of the tournament concerned
are computed again with ``projections.tournament.state_standings`` and
stored; ``trn_computed`` keeps one row per notification that did so (its
primary key is the notification id: the proof that no event was computed
twice). ``trn_penalties`` keeps every penalty of every event by player, so a
judge entering one sees the player's earlier ones without reading any event.

Who writes it: the commands that write (``referee event ...``) make its
tables and catch it up before they answer. A reader that may not write (a
read-only database role, a read-only SQLite file: the spectator screen)
never runs DDL or writes: ``Reader`` reads the tables as they are and folds
the few notifications after their tracked position in memory, with the same
code (``_apply``), so it answers exactly what a caught-up view would.

Two ways to run it. ``referee event follow`` on PostgreSQL runs the
library's ``ProjectionRunner`` (a subscription to the notification log, as
results land), one notification per transaction. The other commands are
short-lived, and eventsourcing 9.5's SQLite recorder cannot subscribe at
all, so every command that writes catches the projection up itself
(``catch_up``): from its tracked position, page by page, through
``select_notifications`` with the topics filter, a page per transaction
(each tournament's standings computed once per page, not once per event:
128 registrations cost one computation).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import IntegrityError, OperationalError, ProgrammingError, Tracking
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteTrackingRecorder

from events.kernel import GameEnded, Rewound
from events.tournament import (
    PenaltyGiven,
    PenaltyRescinded,
    PlayerCheckedIn,
    PlayerDropped,
    PlayerRegistered,
    PlayerReinstated,
    ResultEntered,
    RoundPaired,
    TableRepaired,
    TimeCalled,
    TimeExtended,
    TournamentCreated,
)
from projections.tournament import Result, TournamentState, state_standings, table_of
from referee import ruleset as registry
from referee.store.errors import StoreError
from referee.store.mapper import MatchEvent, topics_of
from referee.tournament.store import TournamentCache

FOLLOWED = (
    GameEnded,
    Rewound,
    TournamentCreated,
    PlayerRegistered,
    PlayerDropped,
    PlayerReinstated,
    PlayerCheckedIn,
    RoundPaired,
    TableRepaired,
    TimeExtended,
    TimeCalled,
    PenaltyGiven,
    PenaltyRescinded,
    ResultEntered,
)
PAGE = 500
LEGACY = "legacy"  # a ResultEntered of the tournament's own log: the winner by name
MATCH_OF_EVENT = re.compile(r"^(e-[a-z0-9_-]+)\.r[0-9]+\.t[0-9]+")

TABLES = {
    "trn_results": "match_id TEXT PRIMARY KEY, tournament TEXT NOT NULL, position INTEGER NOT NULL, "
    "winner TEXT, draw INTEGER NOT NULL, judge TEXT, rule TEXT",
    "trn_standings": "tournament TEXT NOT NULL, rank INTEGER NOT NULL, player TEXT NOT NULL, doc TEXT NOT NULL, "
    "PRIMARY KEY (tournament, rank)",
    "trn_computed": "notification_id BIGINT PRIMARY KEY, tournament TEXT NOT NULL",
    "trn_penalties": "notification_id BIGINT PRIMARY KEY, tournament TEXT NOT NULL, player TEXT NOT NULL, "
    "doc TEXT NOT NULL",
    "trn_void": "match_id TEXT PRIMARY KEY, tournament TEXT NOT NULL, doc TEXT NOT NULL",
}
INDEXES = {
    "trn_results_tournament": ("trn_results", "tournament"),
    "trn_penalties_player": ("trn_penalties", "player"),
}


def tournament_of_match(match: str) -> str | None:
    """The tournament a table's game belongs to, from its id (``e-1a2b3c4d.r3.t7.g2``)."""
    m = MATCH_OF_EVENT.match(match)
    return m.group(1) if m else None


def game_seats(state: TournamentState) -> tuple[str, str]:
    """The seats of the tournament's game: the first is its pairings' A
    player's, the second its B player's."""
    seats = registry.get(state.game).seats
    return seats[0], seats[1]


def results_by_name(state: TournamentState, rows: dict[str, dict[str, Any]]) -> dict[str, Result]:
    """Game results with winners by name (rows hold the seat, ``game_seats``), for
    the games of tables the tournament still has (a re-paired table's old
    match is void)."""
    seats: dict[str, tuple[str, str | None]] = {}
    for r in state.rounds:
        for p in r.pairings:
            if p.match:
                seats[p.match] = (p.A, p.B)
    out: dict[str, Result] = {}
    first, second = game_seats(state) if rows else ("A", "B")
    for mid, row in rows.items():
        table, _ = table_of(mid)
        seat = seats.get(table) or seats.get(mid)
        if seat is None:
            continue
        winner = {first: seat[0], second: seat[1]}.get(row["winner"] or "")
        out[mid] = Result(winner, bool(row["draw"]))
    return out


# --- what each followed event changes (shared by the view and the in-memory reader) -----------


class Rows:
    """What ``_apply`` changes: game results by match id and penalties."""

    def get(self, match: str) -> dict[str, Any] | None: ...
    def put(self, match: str, row: dict[str, Any]) -> None: ...
    def delete(self, match: str) -> None: ...
    def penalty(self, notification: int, tournament: str, player: str, doc: dict[str, Any]) -> None: ...
    def rescind(self, tournament: str, index: int, note: dict[str, Any]) -> None: ...
    def void(self, match: str, tournament: str, doc: dict[str, Any]) -> None: ...


def _apply(event: Any, key: str, position: int, notification: int, rows: Rows) -> str | None:
    """Apply one followed event; return the tournament whose standings it changes (or None)."""
    if isinstance(event, TournamentCreated):
        return None
    if isinstance(event, TableRepaired) and event.void:
        rows.void(event.void, key, {"event": key, **event.model_dump(mode="json")})
        return key
    if isinstance(
        event,
        (
            PlayerRegistered,
            PlayerDropped,
            PlayerReinstated,
            PlayerCheckedIn,
            RoundPaired,
            TableRepaired,
            TimeExtended,
            TimeCalled,
        ),
    ):
        return key
    if isinstance(event, PenaltyGiven):
        rows.penalty(notification, key, event.player, {"event": key, **event.model_dump(mode="json")})
        return key
    if isinstance(event, PenaltyRescinded):
        rows.rescind(key, event.penalty, {"judge": event.judge, "reason": event.reason, "at": event.at})
        return key
    if isinstance(event, ResultEntered):  # logs written before results went into the match itself
        rows.put(
            event.match,
            {
                "tournament": key,
                "position": 0,
                "winner": event.winner,
                "draw": event.draw,
                "judge": event.judge,
                "rule": LEGACY,
            },
        )
        return key
    tournament = tournament_of_match(key)
    if isinstance(event, GameEnded):
        if tournament is None:
            return None
        rows.put(
            key,
            {
                "tournament": tournament,
                "position": position,
                "winner": event.winner,
                "draw": event.draw,
                "judge": event.judge,
                "rule": event.rule,
            },
        )
        return tournament
    if isinstance(event, Rewound):
        row = rows.get(key)
        if row is None or row["position"] == 0 or row["position"] <= event.to:
            return None
        rows.delete(key)  # the result is retracted
        return tournament
    return None


def _seat_rows(state: TournamentState, rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Legacy hand-entered rows name the winner; the others give the seat."""
    out = {}
    for mid, row in rows.items():
        if row.get("rule") == LEGACY and row["winner"] is not None:
            found = state.pairing_of(mid)
            first, second = game_seats(state)
            seat = None if found is None else (first if found[1].A == row["winner"] else second)
            row = {**row, "winner": seat}
        out[mid] = row
    return out


def named_results(state: TournamentState, rows: dict[str, dict[str, Any]]) -> dict[str, Result]:
    """The tournament's game results (stored rows) with winners by name."""
    return results_by_name(state, _seat_rows(state, rows))


def compute_standings(state: TournamentState, rows: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return state_standings(state, named_results(state, rows))


# --- the view: SQL written once for both databases --------------------------------------------


class _SqlRows(Rows):
    def __init__(self, view: "TournamentsViewMixin", c: Any) -> None:
        self.view, self.c = view, c

    def get(self, match: str) -> dict[str, Any] | None:
        r = self.view._x(self.c, "SELECT * FROM {trn_results} WHERE match_id=?", (match,)).fetchone()
        return dict(r) if r is not None else None

    def put(self, match: str, row: dict[str, Any]) -> None:
        self.delete(match)
        self.view._x(
            self.c,
            "INSERT INTO {trn_results} VALUES (?, ?, ?, ?, ?, ?, ?)",
            (match, row["tournament"], row["position"], row["winner"], int(row["draw"]), row["judge"], row["rule"]),
        )

    def delete(self, match: str) -> None:
        self.view._x(self.c, "DELETE FROM {trn_results} WHERE match_id=?", (match,))

    def penalty(self, notification: int, tournament: str, player: str, doc: dict[str, Any]) -> None:
        self.view._x(
            self.c,
            "INSERT INTO {trn_penalties} VALUES (?, ?, ?, ?)",
            (notification, tournament, player, json.dumps(doc)),
        )

    def void(self, match: str, tournament: str, doc: dict[str, Any]) -> None:
        self.view._x(self.c, "DELETE FROM {trn_void} WHERE match_id=?", (match,))
        self.view._x(self.c, "INSERT INTO {trn_void} VALUES (?, ?, ?)", (match, tournament, json.dumps(doc)))

    def rescind(self, tournament: str, index: int, note: dict[str, Any]) -> None:
        found = self.view._x(
            self.c,
            "SELECT notification_id, doc FROM {trn_penalties} WHERE tournament=? ORDER BY notification_id",
            (tournament,),
        ).fetchall()
        if index < len(found):
            doc = {**json.loads(found[index]["doc"]), "rescinded": note}
            self.view._x(
                self.c,
                "UPDATE {trn_penalties} SET doc=? WHERE notification_id=?",
                (json.dumps(doc), found[index]["notification_id"]),
            )


class TournamentsViewMixin:
    """The view's SQL, written once for both databases (``?`` placeholders,
    turned into ``%s`` for psycopg); rows are read by column name."""

    placeholder = "?"
    states: TournamentCache  # set by ``open_view``
    TABLES_OF: dict[str, str] = TABLES
    INDEXES_OF: dict[str, tuple[str, str]] = INDEXES

    def table(self, name: str) -> str:
        return name

    @contextmanager
    def _txn(self, commit: bool) -> Iterator[Any]:
        with self.datastore.transaction(commit=commit) as c:  # type: ignore[attr-defined]
            yield c

    def _x(self, c: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        for name in self.TABLES_OF:
            sql = sql.replace("{" + name + "}", self.table(name))
        c.execute(sql.replace("?", self.placeholder), params)
        return c

    # --- writing, with the tracking record, in one transaction ---------------

    skipped = 0  # notifications another station had processed first

    def apply(self, tracking: Tracking, change: Callable[[Any], str | None]) -> bool:
        """One notification (``ProjectionRunner`` hands them over one by one):
        run ``change(cursor)`` (it returns the tournament whose standings
        changed, or None) and record ``tracking``, all in one transaction.
        False, with nothing changed, when this notification (or a later one)
        is already tracked: another station processed it first."""

        def one(c: Any) -> None:
            tournament = change(c)
            if tournament is not None:
                self._recompute(c, tournament)
                self._x(c, "INSERT INTO {trn_computed} VALUES (?, ?)", (tracking.notification_id, tournament))

        done = self.tracked(tracking, None, one)
        if not done:
            self.skipped += 1
        return done

    def tracked(self, tracking: Tracking, expected: int | None, change: Callable[[Any], None]) -> bool:
        """Run ``change(cursor)`` and record ``tracking`` as the position, in
        ONE transaction; with ``expected``, only if the position is still
        ``expected`` when the transaction starts (a page of notifications from
        ``expected`` on: another station may have processed part of it, which
        the tracking row alone would not tell, since it only refuses a
        position at or below its own). False, with nothing changed, when
        another station got there first; the caller reads the position again."""
        for attempt in range(100):
            try:
                with self._txn(commit=True) as c:
                    if expected is not None and self._position_in(c, tracking.application_name) != expected:
                        return False
                    change(c)
                    self._insert_tracking(c, tracking)  # type: ignore[attr-defined]
            except IntegrityError:
                return False
            except OperationalError as exc:
                # SQLite: a transaction that read first cannot wait for the
                # write lock another station holds ("database is locked");
                # it rolled back whole, so it is simply run again.
                if "locked" not in str(exc) or attempt == 99:
                    raise
                time.sleep(0.01 * (1 + attempt % 10))
                continue
            return True
        return False

    def _position_in(self, c: Any, application_name: str) -> int:
        """The tracked position as this transaction sees it (SQLite: a
        transaction that read it cannot then write if another station wrote
        meanwhile, so the check holds until commit)."""
        return self._max_tracking_id(application_name, c) or 0  # type: ignore[attr-defined]

    def _rows(self, c: Any, tournament: str) -> dict[str, dict[str, Any]]:
        found = self._x(c, "SELECT * FROM {trn_results} WHERE tournament=?", (tournament,)).fetchall()
        return {r["match_id"]: dict(r) for r in found}

    def _recompute(self, c: Any, tournament: str) -> None:
        state = self.states.get(tournament)
        if state is None:
            return
        table = compute_standings(state, self._rows(c, tournament))
        self._x(c, "DELETE FROM {trn_standings} WHERE tournament=?", (tournament,))
        for i, row in enumerate(table, start=1):  # ``rank`` column: the row's place in the list (a DQ has no rank)
            self._x(
                c,
                "INSERT INTO {trn_standings} VALUES (?, ?, ?, ?)",
                (tournament, i, row["player"], json.dumps(row)),
            )

    # --- reading --------------------------------------------------------------

    def standings(self, tournament: str) -> list[dict[str, Any]]:
        with self._txn(commit=False) as c:
            rows = self._x(
                c, "SELECT doc FROM {trn_standings} WHERE tournament=? ORDER BY rank", (tournament,)
            ).fetchall()
        return [json.loads(r["doc"]) for r in rows]

    def result_rows(self, tournament: str) -> dict[str, dict[str, Any]]:
        with self._txn(commit=False) as c:
            return self._rows(c, tournament)

    def results(self, matches: list[str]) -> dict[str, dict[str, Any]]:
        """The finished games among ``matches``: winner seat, draw, judge."""
        out: dict[str, dict[str, Any]] = {}
        with self._txn(commit=False) as c:
            for m in matches:
                r = self._x(
                    c, "SELECT winner, draw, judge, position, rule FROM {trn_results} WHERE match_id=?", (m,)
                ).fetchone()
                if r is not None:
                    out[m] = {
                        "winner": r["winner"],
                        "draw": bool(r["draw"]),
                        "judge": r["judge"],
                        "position": r["position"],
                        "rule": r["rule"],
                    }
        return out

    def penalties_of(self, player: str) -> list[dict[str, Any]]:
        """Every penalty the player was given, in every tournament of the store, oldest first."""
        with self._txn(commit=False) as c:
            rows = self._x(
                c, "SELECT doc FROM {trn_penalties} WHERE player=? ORDER BY notification_id", (player,)
            ).fetchall()
        return [json.loads(r["doc"]) for r in rows]

    def penalties_in(self, tournament: str) -> list[dict[str, Any]]:
        with self._txn(commit=False) as c:
            rows = self._x(
                c, "SELECT doc FROM {trn_penalties} WHERE tournament=? ORDER BY notification_id", (tournament,)
            ).fetchall()
        return [json.loads(r["doc"]) for r in rows]

    def void_of(self, match: str) -> dict[str, Any] | None:
        with self._txn(commit=False) as c:
            row = self._x(c, "SELECT doc FROM {trn_void} WHERE match_id=?", (match,)).fetchone()
        return json.loads(row["doc"]) if row is not None else None

    def computed(self, tournament: str) -> list[int]:
        """The notification ids whose processing computed this tournament's standings."""
        with self._txn(commit=False) as c:
            rows = self._x(
                c,
                "SELECT notification_id FROM {trn_computed} WHERE tournament=? ORDER BY notification_id",
                (tournament,),
            ).fetchall()
        return [int(r["notification_id"]) for r in rows]

    def clear(self, application_name: str) -> None:
        """Empty the view and its tracking position: the next catch-up rebuilds it from zero."""
        with self._txn(commit=True) as c:
            for name in self.TABLES_OF:
                self._x(c, f"DELETE FROM {{{name}}}")
            c.execute(self.clear_tracking_sql(), (application_name,))  # type: ignore[attr-defined]


class TournamentsSQLiteView(TournamentsViewMixin, SQLiteTrackingRecorder):
    """The view in the SQLite file of the matches (the library's ``tracking`` table)."""

    def construct_create_table_statements(self) -> list[str]:
        statements = super().construct_create_table_statements()
        statements += [f"CREATE TABLE IF NOT EXISTS {name} ({cols})" for name, cols in self.TABLES_OF.items()]
        statements += [f"CREATE INDEX IF NOT EXISTS {i} ON {t} ({col})" for i, (t, col) in self.INDEXES_OF.items()]
        return statements

    def clear_tracking_sql(self) -> str:
        return "DELETE FROM tracking WHERE application_name=?"


def _postgres_view_class() -> type:
    """The PostgreSQL view, defined only when PostgreSQL is used (psycopg is
    imported by the library's postgres module)."""
    global _POSTGRES_VIEW
    if _POSTGRES_VIEW is not None:
        return _POSTGRES_VIEW
    from eventsourcing.postgres import PostgresTrackingRecorder
    from psycopg.sql import SQL, Identifier

    class TournamentsPostgresView(TournamentsViewMixin, PostgresTrackingRecorder):
        """The view in the matches' PostgreSQL schema (tracking in ``tournaments_tracking``)."""

        placeholder = "%s"

        def __init__(self, datastore: Any, **kwargs: Any) -> None:
            super().__init__(datastore, **kwargs)
            schema = Identifier(self.datastore.schema)
            for name, cols in self.TABLES_OF.items():
                self.sql_create_statements.append(
                    SQL("CREATE TABLE IF NOT EXISTS {0}.{1} (" + cols + ")").format(schema, Identifier(name))
                )
            for index, (name, col) in self.INDEXES_OF.items():
                self.sql_create_statements.append(
                    SQL("CREATE INDEX IF NOT EXISTS {0} ON {1}.{2} ({3})").format(
                        Identifier(index), schema, Identifier(name), Identifier(col)
                    )
                )

        def table(self, name: str) -> str:
            return f'"{self.datastore.schema}"."{name}"'

        def _position_in(self, c: Any, application_name: str) -> int:
            """PostgreSQL reads committed rows at each statement: the
            transaction first takes this projection's advisory lock (released
            at commit), so no other station's page lands between the check and
            the commit."""
            lock = f"{self.datastore.schema}.{self.tracking_table_name}.{application_name}"
            c.execute(SQL("SELECT pg_advisory_xact_lock(hashtext(%s))"), (lock,))
            c.execute(self.max_tracking_id_statement, (application_name,))
            row = c.fetchone()
            return int(row["max"] or 0) if row is not None else 0

        def clear_tracking_sql(self) -> Any:
            return SQL("DELETE FROM {0}.{1} WHERE application_name=%s").format(
                Identifier(self.datastore.schema), Identifier(self.tracking_table_name)
            )

    _POSTGRES_VIEW = TournamentsPostgresView
    return TournamentsPostgresView


_POSTGRES_VIEW: type | None = None


class TournamentsProjection(Projection[Any]):
    """Game results, standings and penalties of every tournament in the store."""

    name = "tournaments"
    topics: tuple[str, ...] = ()  # set below: the stored topics of FOLLOWED

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Anything else (no topic filter is perfect): only move the position on."""
        self.view.apply(tracking, lambda c: None)

    @process_event.register
    def _(self, record: MatchEvent, tracking: Tracking) -> None:
        view = self.view
        view.apply(
            tracking,
            lambda c: _apply(
                record.event,
                record.originator_id,
                record.originator_version,
                tracking.notification_id,
                _SqlRows(view, c),
            ),
        )


TournamentsProjection.topics = tuple(topics_of(*FOLLOWED))
StandingsProjection = TournamentsProjection  # the name it had before it kept penalties and games


def view_class(database: Any) -> type:
    return _postgres_view_class() if database.kind == "postgresql" else TournamentsSQLiteView


def tracking_key(store: Any, name: str = "tournaments") -> str:
    """The application name a projection's tracking rows carry: PostgreSQL
    gives each projection its own tracking table (``<name>_tracking``, as
    ``ProjectionRunner`` does), SQLite has one ``tracking`` table, so there
    the name tells the projections apart."""
    app = store.application.name
    return app if store.database.kind == "postgresql" else f"{app}/{name}"


def view_env(database: Any, *, create: bool = True, name: str = "tournaments") -> Any:
    """The environment the view is made from: the store's database, under the
    projection's name (so PostgreSQL tracks it in ``tournaments_tracking``,
    the table ``ProjectionRunner`` uses too). ``create=False``: a reader's,
    which never runs DDL and opens SQLite read-only."""
    from eventsourcing.utils import Environment

    from referee.store.sqlitefactory import ACCESS

    env = dict(database.env)
    if not create:
        env["CREATE_TABLE"] = "no"
        if database.kind == "sqlite":
            env[ACCESS] = "ro"
    return Environment(name, env)


def open_view(
    store: Any, *, create: bool = True, name: str = "tournaments", tables: dict[str, str] | None = None
) -> Any:
    """The view in the store's database (tables made if missing, unless
    ``create`` is False). It has its own connection; ``close_view``
    releases it. ``name`` and ``tables``: another projection's view (the
    table summaries), with the same SQL helpers."""
    from eventsourcing.persistence import InfrastructureFactory

    factory = InfrastructureFactory.construct(env=view_env(store.database, create=create, name=name))
    cls = view_class(store.database)
    if tables is not None:
        cls = type(cls.__name__ + "Of" + name.title(), (cls,), {"TABLES_OF": tables, "INDEXES_OF": {}})
    # Several stations starting at once race on making the view: CREATE TABLE
    # IF NOT EXISTS in PostgreSQL ("tuple concurrently updated"), and the
    # library's first tracking row ("Failed to record tracking for
    # __migration__") in both databases. The loser's transaction changed
    # nothing, so trying again is safe.
    for attempt in range(20):
        try:
            view: Any = factory.tracking_recorder(cls)  # given the attributes below, which the library's lacks
            view.factory = factory
            view.states = TournamentCache(store)
            return view
        except IntegrityError:
            if attempt == 19:
                raise
        except (OperationalError, ProgrammingError) as exc:
            text = str(exc)
            if attempt == 19 or not any(w in text for w in ("concurrently", "already exists", "locked")):
                raise
        time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def close_view(view: Any) -> None:
    factory = getattr(view, "factory", None)
    if factory is not None:
        factory.close()


def catch_up(store: Any, view: Any | None = None, *, max_conflicts: int = 1000) -> int:
    """Process every followed notification after the view's tracked position,
    up to the log's last notification when it started (later ones are left
    to whoever wrote them: a command does not chase stations that go on
    logging); return how many this call processed. A page of notifications (``PAGE``)
    is applied in one transaction with its last notification id as the new
    position, and each tournament it touches has its standings computed once
    for the page (``trn_computed`` still gets a row per notification).
    Another station processing the same notifications first is not an error:
    the position is read again."""
    view = view or open_view(store)
    app = store.application
    key = tracking_key(store)
    head = app.recorder.max_notification_id() or 0  # what was written when this started (see below)
    processed = conflicts = 0
    while True:
        last = view.max_tracking_id(key) or 0
        if last >= head:
            return processed
        page = app.recorder.select_notifications(last + 1, PAGE, topics=TournamentsProjection.topics, stop=head)
        if not page:
            return processed
        records = [(note.id, app.mapper.to_domain_event(note)) for note in page]

        def change(c: Any) -> None:
            rows = _SqlRows(view, c)
            touched: dict[str, list[int]] = {}
            for nid, record in records:
                tournament = _apply(record.event, record.originator_id, record.originator_version, nid, rows)
                if tournament is not None:
                    touched.setdefault(tournament, []).append(nid)
            for tournament, ids in touched.items():
                view._recompute(c, tournament)
                for nid in ids:
                    view._x(c, "INSERT INTO {trn_computed} VALUES (?, ?)", (nid, tournament))

        if view.tracked(Tracking(key, page[-1].id), last, change):
            processed += len(page)
            continue
        conflicts += 1
        moved = (view.max_tracking_id(key) or 0) != last
        if conflicts > max_conflicts or not moved:
            # Not another station (the position did not move): the view's
            # rows disagree with its position.
            raise StoreError(
                f"the standings view cannot take notifications {page[0].id}-{page[-1].id}: it is out of step with "
                "its tracking position; rebuild it with `referee event standings EVENT --rebuild`"
            )


# --- reading, with or without the right to write ------------------------------------------------


class _MemoryRows(Rows):
    def __init__(
        self,
        results: dict[str, dict[str, Any]],
        penalties: list[tuple[int, str, dict[str, Any]]],
        voided: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.results, self.penalties = results, penalties
        self.voided = voided if voided is not None else {}

    def void(self, match: str, tournament: str, doc: dict[str, Any]) -> None:
        self.voided[match] = doc

    def get(self, match: str) -> dict[str, Any] | None:
        return self.results.get(match)

    def put(self, match: str, row: dict[str, Any]) -> None:
        self.results[match] = {"match_id": match, **row}

    def delete(self, match: str) -> None:
        self.results.pop(match, None)

    def penalty(self, notification: int, tournament: str, player: str, doc: dict[str, Any]) -> None:
        self.penalties.append((notification, player, doc))

    def rescind(self, tournament: str, index: int, note: dict[str, Any]) -> None:
        mine = [i for i, (_, _, doc) in enumerate(self.penalties) if doc.get("event") == tournament]
        if index < len(mine):
            n, who, doc = self.penalties[mine[index]]
            self.penalties[mine[index]] = (n, who, {**doc, "rescinded": note})


class Reader:
    """The projection as a command or a page reads it. With the right to
    write (``writable``) it is the view itself, caught up first (tables made
    if missing). Without, it never writes: it reads the view's tables as they
    are (none, if no writer made them yet) and folds the notifications after
    their tracked position in memory with ``_apply``, keeping what it folded
    for the next read. Either way the answers are the same."""

    def __init__(self, store: Any, *, writable: bool, states: TournamentCache | None = None) -> None:
        self.store = store
        self.writable = writable
        self._shared = states  # the station's tournaments, folded once for the commands and the view
        self._view: Any = None
        self._lock = threading.Lock()
        self._position: int | None = None
        self._results: dict[str, dict[str, Any]] = {}
        self._penalties: list[tuple[int, str, dict[str, Any]]] = []
        self._voided: dict[str, dict[str, Any]] = {}
        self._states: TournamentCache | None = None
        # What is computed from the rows (standings, results by name), once per
        # change of the tournament: its own events (its state's version) or a
        # folded notification that changed it (``_changes``).
        self._changes: dict[str, int] = {}
        self._derived: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}
        self._named: dict[str, str] | None = None  # tournament -> name, oldest first

    @property
    def view(self) -> Any:
        if self._view is None:
            self._view = open_view(self.store)
            if self._shared is not None:
                self._view.states = self._shared
        return self._view

    @property
    def states(self) -> TournamentCache:
        if self._shared is not None:
            return self._shared
        if self.writable:
            return self.view.states
        if self._states is None:
            self._states = TournamentCache(self.store)
        return self._states

    def catch_up(self) -> int:
        if self.writable:
            return catch_up(self.store, self.view)
        with self._lock:
            return self._fold_tail()

    def _fold_tail(self) -> int:
        app = self.store.application
        if self._position is None:
            self._position = self._load_view()
        rows = _MemoryRows(self._results, self._penalties, self._voided)
        done = 0
        while True:
            page = app.recorder.select_notifications(self._position + 1, PAGE, topics=TournamentsProjection.topics)
            for note in page:
                record = app.mapper.to_domain_event(note)
                if isinstance(record.event, TournamentCreated) and self._named is not None:
                    self._named.setdefault(str(record.originator_id), record.event.name)
                changed = _apply(record.event, record.originator_id, record.originator_version, note.id, rows)
                if changed is not None:
                    self._changes[changed] = self._changes.get(changed, 0) + 1
                self._position = note.id
                done += 1
            if len(page) < PAGE:
                return done

    def _load_view(self) -> int:
        """The view's rows and position as stored (0 and nothing: no view yet)."""
        try:
            view = open_view(self.store, create=False)
        except (OperationalError, ProgrammingError):
            return 0
        try:
            position = view.max_tracking_id(tracking_key(self.store)) or 0
            with view._txn(commit=False) as c:
                for r in view._x(c, "SELECT * FROM {trn_results}").fetchall():
                    self._results[r["match_id"]] = dict(r)
                for r in view._x(c, "SELECT * FROM {trn_penalties} ORDER BY notification_id").fetchall():
                    self._penalties.append((int(r["notification_id"]), r["player"], json.loads(r["doc"])))
            try:
                with view._txn(commit=False) as c:
                    for r in view._x(c, "SELECT * FROM {trn_void}").fetchall():
                        self._voided[r["match_id"]] = json.loads(r["doc"])
            except (OperationalError, ProgrammingError):
                # A view made before it kept void matches: its position would
                # skip their re-pairs, so fold the whole log in memory instead.
                self._results.clear()
                self._penalties.clear()
                self._voided.clear()
                return 0
            return position
        except (OperationalError, ProgrammingError):
            self._results.clear()
            self._penalties.clear()
            self._voided.clear()
            return 0
        finally:
            close_view(view)

    # --- answers ----------------------------------------------------------------

    def _once(self, what: str, state: TournamentState, compute: Callable[[], Any]) -> Any:
        """``compute()``, again only after the tournament changed (a reader's
        page is asked every few seconds; the standings of 250 players over 8
        rounds are not recomputed for each). Writers read the view's tables."""
        key = (state.version, self._changes.get(state.id, 0))
        with self._lock:
            found = self._derived.get((what, state.id))
        if found is not None and found[0] == key:
            return found[1]
        value = compute()
        with self._lock:
            self._derived[(what, state.id)] = (key, value)
        return value

    def tournaments(self) -> list[tuple[str, str]]:
        """(id, name) of every tournament in the store, oldest first. A reader
        scans the log for them once, then learns of new ones as it folds."""
        from referee.tournament.store import Tournaments

        if self.writable:
            return Tournaments(self.store).list()
        with self._lock:
            if self._named is None:
                self._named = dict(Tournaments(self.store).list())
            return list(self._named.items())

    def standings(self, tid: str) -> list[dict[str, Any]]:
        """The standings rows (shared with other readers of this reader: not to be changed)."""
        if self.writable:
            return self.view.standings(tid)
        state = self.states.get(tid)
        if state is None:
            return []
        return self._once("standings", state, lambda: compute_standings(state, self.result_rows(tid)))

    def named_results(self, state: TournamentState) -> dict[str, Result]:
        """The tournament's game results, winners by name (not to be changed)."""
        if self.writable:
            return named_results(state, self.view.result_rows(state.id))
        return self._once("results", state, lambda: named_results(state, self.result_rows(state.id)))

    def result_rows(self, tid: str) -> dict[str, dict[str, Any]]:
        if self.writable:
            return self.view.result_rows(tid)
        with self._lock:
            return {m: dict(r) for m, r in self._results.items() if r["tournament"] == tid}

    def results(self, matches: list[str]) -> dict[str, dict[str, Any]]:
        if self.writable:
            return self.view.results(matches)
        with self._lock:
            return {
                m: {k: self._results[m][k] for k in ("winner", "draw", "judge", "position", "rule")}
                for m in matches
                if m in self._results
            }

    def penalties_of(self, player: str) -> list[dict[str, Any]]:
        if self.writable:
            return self.view.penalties_of(player)
        with self._lock:
            return [doc for _, who, doc in self._penalties if who == player]

    def penalties_in(self, tournament: str) -> list[dict[str, Any]]:
        """Every penalty of one tournament, in the order given (their numbers, from 1)."""
        if self.writable:
            return self.view.penalties_in(tournament)
        with self._lock:
            return [doc for _, _, doc in self._penalties if doc.get("event") == tournament]

    def void_of(self, match: str) -> dict[str, Any] | None:
        """The re-pair (``TableRepaired``'s fields) that voided ``match``, if one did."""
        if self.writable:
            return self.view.void_of(match)
        with self._lock:
            return self._voided.get(match)

    def computed(self, tid: str) -> list[int]:
        return self.view.computed(tid)

    def clear(self, application_name: str) -> None:
        self.view.clear(application_name)

    def close(self) -> None:
        if self._view is not None:
            close_view(self._view)
            self._view = None


def follow(store: Any, on_change: Callable[[], None], *, timeout: float | None = None, poll: float = 1.0) -> None:
    """Keep the standings up to date as results land, calling ``on_change``
    after each batch of events that changed them, until ``timeout`` seconds
    pass (None: until interrupted).

    On PostgreSQL this is the library's ``ProjectionRunner``: it subscribes
    to the application's notifications (LISTEN/NOTIFY) and feeds them to
    ``TournamentsProjection``, whose view is the same tables and tracking
    table ``catch_up`` uses. eventsourcing 9.5's SQLite recorder cannot
    subscribe, so on SQLite this polls with ``catch_up`` every ``poll`` s."""
    import time as clock

    from eventsourcing.projection import ProjectionRunner

    from referee.store.matches import RefereeApplication

    deadline = None if timeout is None else clock.monotonic() + timeout
    view = open_view(store)
    try:
        catch_up(store, view)
        on_change()
        seen = view.max_tracking_id(tracking_key(store))
        if store.database.kind != "postgresql":
            while deadline is None or clock.monotonic() < deadline:
                clock.sleep(poll)
                catch_up(store, view)
                now = view.max_tracking_id(tracking_key(store))
                if now != seen:  # processed here, or by another station's command
                    seen = now
                    on_change()
            return
        env = dict(view_env(store.database))
        cls = view_class(store.database)

        class _View(cls):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.states = TournamentCache(store)

        with ProjectionRunner(
            application_class=RefereeApplication,
            projection_class=TournamentsProjection,
            view_class=_View,
            env=env,
        ) as runner:
            while deadline is None or clock.monotonic() < deadline:
                runner.run_forever(timeout=poll)  # re-raises the processing thread's error
                now = view.max_tracking_id(tracking_key(store))
                if now != seen:
                    seen = now
                    on_change()
    finally:
        close_view(view)


def follow_reading(
    station: Any, on_change: Callable[[], None], *, timeout: float | None = None, poll: float = 1.0
) -> None:
    """``follow`` for a role that may only read: the station's reader folds
    what the read models have not seen, in memory, every ``poll`` seconds,
    and ``on_change`` is called after a fold that took anything in (it
    prints only when the standings changed)."""
    import time as clock

    deadline = None if timeout is None else clock.monotonic() + timeout
    station.catch_up()
    on_change()
    while deadline is None or clock.monotonic() < deadline:
        clock.sleep(poll if deadline is None else max(0.0, min(poll, deadline - clock.monotonic())))
        if station.catch_up():
            on_change()


def rebuild(store: Any) -> int:
    """Empty the view and process the whole notification log again."""
    view = open_view(store)
    try:
        view.clear(tracking_key(store))
        return catch_up(store, view)
    finally:
        close_view(view)


def voided(store: Any, match: str) -> dict[str, Any] | None:
    """The re-pair that voided ``match`` (``TableRepaired``'s fields), if one
    did: the view's row, or a re-pair written after its tracked position.
    Reads only (no view is made, nothing written), so any station may ask
    before acting on a table of an event."""
    position = 0
    try:
        view = open_view(store, create=False)
    except (OperationalError, ProgrammingError):
        view = None
    if view is not None:
        try:
            position = view.max_tracking_id(tracking_key(store)) or 0
            found = view.void_of(match)
            if found is not None:
                return found
        except (OperationalError, ProgrammingError):
            position = 0
        finally:
            close_view(view)
    app = store.application
    topics = topics_of(TableRepaired)
    while True:
        page = app.recorder.select_notifications(position + 1, PAGE, topics=topics)
        for note in page:
            event = app.mapper.to_domain_event(note).event
            if isinstance(event, TableRepaired) and event.void == match:
                return {"event": str(note.originator_id), **event.model_dump(mode="json")}
        if len(page) < PAGE:
            return None
        position = page[-1].id
