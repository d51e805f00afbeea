"""The standings projection: follows the store's notification log and keeps each tournament's results and standings in tables.

It is an eventsourcing 9.5 ``Projection`` whose view is a tracking recorder
(``StandingsSQLiteView`` or ``StandingsPostgresView``, in the same database
as the matches): every event it processes changes the view and records the
event's notification id in the tracking table in ONE transaction. So an
event is applied exactly once, whichever station catches up first: a second
station processing the same notification fails on the tracking row, its
transaction rolls back, and it reads the new position and goes on.

What it follows: the tournaments' own events (registrations, pairings,
drops, hand-entered results) and, from the matches, ``GameEnded`` (a
result lands) and ``Rewound`` (a judge's correction that goes back before
the result reopens the match and takes the result out again). After each
one the standings of the tournament concerned are computed again with
``projections.tournament.standings`` and stored; ``tour_computed`` keeps
one row per notification that did so (its primary key is the notification
id: the proof that no event was computed twice).

Two ways to run it. ``referee event follow`` on PostgreSQL runs the
library's ``ProjectionRunner`` (a subscription to the notification log, as
results land). The other commands are short-lived, and eventsourcing 9.5's
SQLite recorder cannot subscribe at all, so every command that shows
standings or pairs a round first catches the projection up itself
(``catch_up``): from its tracked position, page by page, through
``select_notifications`` with the topics filter, the same projection and
view the runner drives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import IntegrityError, OperationalError, ProgrammingError, Tracking
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteTrackingRecorder

from events.game import GameEnded, Rewound
from events.tournament import PlayerDropped, PlayerRegistered, ResultEntered, RoundPaired, TournamentCreated
from projections.tournament import Result, standings
from referee.store.errors import StoreError
from referee.store.mapper import MatchEvent, topics_of

FOLLOWED = (GameEnded, Rewound, TournamentCreated, PlayerRegistered, PlayerDropped, RoundPaired, ResultEntered)
PAGE = 500

TABLES = {
    "tour_players": "tournament TEXT NOT NULL, player TEXT NOT NULL, dropped INTEGER NOT NULL DEFAULT 0, "
    "seq INTEGER NOT NULL, PRIMARY KEY (tournament, player)",
    "tour_tables": "tournament TEXT NOT NULL, round INTEGER NOT NULL, tbl INTEGER NOT NULL, a TEXT NOT NULL, "
    "b TEXT, match_id TEXT, PRIMARY KEY (tournament, round, tbl)",
    "tour_results": "match_id TEXT PRIMARY KEY, position INTEGER NOT NULL, winner TEXT, draw INTEGER NOT NULL, "
    "judge TEXT",
    "tour_standings": "tournament TEXT NOT NULL, rank INTEGER NOT NULL, player TEXT NOT NULL, "
    "points INTEGER NOT NULL, omw DOUBLE PRECISION NOT NULL, oomw DOUBLE PRECISION NOT NULL, "
    "played INTEGER NOT NULL, PRIMARY KEY (tournament, rank)",
    "tour_computed": "notification_id BIGINT PRIMARY KEY, tournament TEXT NOT NULL",
}


class StandingsViewMixin:
    """The view's SQL, written once for both databases (``?`` placeholders,
    turned into ``%s`` for psycopg); rows are read by column name."""

    placeholder = "?"

    def table(self, name: str) -> str:
        return name

    @contextmanager
    def _txn(self, commit: bool) -> Iterator[Any]:
        with self.datastore.transaction(commit=commit) as c:  # type: ignore[attr-defined]
            yield c

    def _x(self, c: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        for name in TABLES:
            sql = sql.replace("{" + name + "}", self.table(name))
        c.execute(sql.replace("?", self.placeholder), params)
        return c

    # --- writing, with the tracking record, in one transaction ---------------

    skipped = 0  # notifications another station had processed first

    def apply(self, tracking: Tracking, change: Callable[[Any], str | None]) -> bool:
        """Run ``change(cursor)`` (it returns the tournament whose standings
        changed, or None) and record ``tracking``, all in one transaction.
        False, with nothing changed, when this notification (or a later one)
        is already tracked: another station processed it first."""
        for attempt in range(100):
            try:
                with self._txn(commit=True) as c:
                    tournament = change(c)
                    if tournament is not None:
                        self._recompute(c, tournament)
                        self._x(c, "INSERT INTO {tour_computed} VALUES (?, ?)", (tracking.notification_id, tournament))
                    self._insert_tracking(c, tracking)  # type: ignore[attr-defined]
            except IntegrityError:
                self.skipped += 1
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

    def _recompute(self, c: Any, tournament: str) -> None:
        players = [r["player"] for r in self._x(c, "SELECT player FROM {tour_players} WHERE tournament=? ORDER BY seq", (tournament,)).fetchall()]
        rows = self._x(
            c,
            "SELECT t.round, t.tbl, t.a, t.b, t.match_id, r.winner, r.draw FROM {tour_tables} t "
            "LEFT JOIN {tour_results} r ON r.match_id = t.match_id WHERE t.tournament=? ORDER BY t.round, t.tbl",
            (tournament,),
        ).fetchall()
        from events.tournament import Pairing

        rounds: dict[int, list[Pairing]] = {}
        results: dict[str, Result] = {}
        for r in rows:
            rounds.setdefault(r["round"], []).append(Pairing(table=r["tbl"], A=r["a"], B=r["b"], match=r["match_id"]))
            if r["match_id"] is not None and r["draw"] is not None:
                winner = {"A": r["a"], "B": r["b"]}.get(r["winner"]) if r["winner"] else None
                results[r["match_id"]] = Result(winner, bool(r["draw"]))
        table = standings(players, sorted(rounds.items()), results)
        self._x(c, "DELETE FROM {tour_standings} WHERE tournament=?", (tournament,))
        for row in table:
            self._x(
                c,
                "INSERT INTO {tour_standings} VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tournament, row["rank"], row["player"], row["points"], row["omw"], row["oomw"], row["played"]),
            )

    def tournament_of(self, c: Any, match: str) -> tuple[str, Any] | None:
        row = self._x(c, "SELECT tournament, a, b FROM {tour_tables} WHERE match_id=?", (match,)).fetchone()
        return (row["tournament"], row) if row is not None else None

    # --- reading --------------------------------------------------------------

    def standings(self, tournament: str) -> list[dict[str, Any]]:
        with self._txn(commit=False) as c:
            rows = self._x(
                c, "SELECT rank, player, points, omw, oomw, played FROM {tour_standings} WHERE tournament=? ORDER BY rank",
                (tournament,),
            ).fetchall()
        return [
            {"rank": r["rank"], "player": r["player"], "points": r["points"], "omw": round(float(r["omw"]), 4),
             "oomw": round(float(r["oomw"]), 4), "played": r["played"]}
            for r in rows
        ]

    def results(self, matches: list[str]) -> dict[str, dict[str, Any]]:
        """The finished matches among ``matches``: winner slot, draw, judge."""
        out: dict[str, dict[str, Any]] = {}
        with self._txn(commit=False) as c:
            for m in matches:
                r = self._x(c, "SELECT winner, draw, judge, position FROM {tour_results} WHERE match_id=?", (m,)).fetchone()
                if r is not None:
                    out[m] = {"winner": r["winner"], "draw": bool(r["draw"]), "judge": r["judge"], "position": r["position"]}
        return out

    def computed(self, tournament: str) -> list[int]:
        """The notification ids whose processing computed this tournament's standings."""
        with self._txn(commit=False) as c:
            rows = self._x(c, "SELECT notification_id FROM {tour_computed} WHERE tournament=? ORDER BY notification_id", (tournament,)).fetchall()
        return [int(r["notification_id"]) for r in rows]

    def clear(self, application_name: str) -> None:
        """Empty the view and its tracking position: the next catch-up rebuilds it from zero."""
        with self._txn(commit=True) as c:
            for name in TABLES:
                self._x(c, f"DELETE FROM {{{name}}}")
            c.execute(self.clear_tracking_sql(), (application_name,))  # type: ignore[attr-defined]
            self._after_clear(c, application_name)

    def _after_clear(self, c: Any, application_name: str) -> None:
        """Single-row tracking: a row at 0 keeps the library's upsert working."""


class StandingsSQLiteView(StandingsViewMixin, SQLiteTrackingRecorder):
    """The view in the SQLite file of the matches (the library's ``tracking`` table)."""

    def construct_create_table_statements(self) -> list[str]:
        statements = super().construct_create_table_statements()
        statements += [f"CREATE TABLE IF NOT EXISTS {name} ({cols})" for name, cols in TABLES.items()]
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

    class StandingsPostgresView(StandingsViewMixin, PostgresTrackingRecorder):
        """The view in the matches' PostgreSQL schema (tracking in ``referee_tracking``)."""

        placeholder = "%s"

        def __init__(self, datastore: Any, **kwargs: Any) -> None:
            super().__init__(datastore, **kwargs)
            for name, cols in TABLES.items():
                self.sql_create_statements.append(
                    SQL("CREATE TABLE IF NOT EXISTS {0}.{1} (" + cols + ")").format(
                        Identifier(self.datastore.schema), Identifier(name)
                    )
                )

        def table(self, name: str) -> str:
            return f'"{self.datastore.schema}"."{name}"'

        def clear_tracking_sql(self) -> Any:
            return SQL("DELETE FROM {0}.{1} WHERE application_name=%s").format(
                Identifier(self.datastore.schema), Identifier(self.tracking_table_name)
            )

    _POSTGRES_VIEW = StandingsPostgresView
    return StandingsPostgresView


_POSTGRES_VIEW: type | None = None


class StandingsProjection(Projection[Any]):
    """Results and standings of every tournament in the store."""

    name = "standings"
    topics = ()  # set below: the stored topics of FOLLOWED

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Anything else (no topic filter is perfect): only move the position on."""
        self.view.apply(tracking, lambda c: None)

    @process_event.register
    def _(self, record: MatchEvent, tracking: Tracking) -> None:
        event, key, position = record.event, record.originator_id, record.originator_version
        view = self.view

        def change(c: Any) -> str | None:
            if isinstance(event, TournamentCreated):
                return None
            if isinstance(event, PlayerRegistered):
                seq = view._x(c, "SELECT COUNT(*) AS n FROM {tour_players} WHERE tournament=?", (key,)).fetchone()["n"]
                exists = view._x(c, "SELECT 1 AS x FROM {tour_players} WHERE tournament=? AND player=?", (key, event.player)).fetchone()
                if exists is None:
                    view._x(c, "INSERT INTO {tour_players} VALUES (?, ?, 0, ?)", (key, event.player, seq + 1))
                return key
            if isinstance(event, PlayerDropped):
                view._x(c, "UPDATE {tour_players} SET dropped=1 WHERE tournament=? AND player=?", (key, event.player))
                return key
            if isinstance(event, RoundPaired):
                for p in event.pairings:
                    view._x(c, "INSERT INTO {tour_tables} VALUES (?, ?, ?, ?, ?, ?)", (key, event.round, p.table, p.A, p.B, p.match))
                return key
            if isinstance(event, ResultEntered):
                found = view.tournament_of(c, event.match)
                slot = None
                if found is not None and event.winner is not None:
                    slot = "A" if found[1]["a"] == event.winner else "B"
                view._x(c, "DELETE FROM {tour_results} WHERE match_id=?", (event.match,))
                view._x(c, "INSERT INTO {tour_results} VALUES (?, ?, ?, ?, ?)", (event.match, 0, slot, int(event.draw), event.judge))
                return found[0] if found else key
            if isinstance(event, GameEnded):
                view._x(c, "DELETE FROM {tour_results} WHERE match_id=?", (key,))
                view._x(c, "INSERT INTO {tour_results} VALUES (?, ?, ?, ?, ?)", (key, position, event.winner, int(event.draw), None))
                found = view.tournament_of(c, key)
                return found[0] if found else None
            if isinstance(event, Rewound):
                row = view._x(c, "SELECT position, judge FROM {tour_results} WHERE match_id=?", (key,)).fetchone()
                if row is None or row["judge"] is not None or row["position"] <= event.to:
                    return None
                view._x(c, "DELETE FROM {tour_results} WHERE match_id=?", (key,))  # the result is retracted
                found = view.tournament_of(c, key)
                return found[0] if found else None
            return None

        view.apply(tracking, change)


StandingsProjection.topics = tuple(topics_of(*FOLLOWED))  # type: ignore[arg-type]


def view_class(database: Any) -> type:
    return _postgres_view_class() if database.kind == "postgresql" else StandingsSQLiteView


def view_env(database: Any) -> Any:
    """The environment the view is made from: the store's database, under the
    projection's name (so PostgreSQL tracks it in ``standings_tracking``,
    the table ``ProjectionRunner`` uses too)."""
    from eventsourcing.utils import Environment

    return Environment(StandingsProjection.name, dict(database.env))


def open_view(store: Any) -> Any:
    """The standings view in the store's database (tables made if missing).
    It has its own connection; ``close_view`` releases it."""
    from eventsourcing.persistence import InfrastructureFactory

    factory = InfrastructureFactory.construct(env=view_env(store.database))
    cls = view_class(store.database)
    # Several stations starting at once race on making the view: CREATE TABLE
    # IF NOT EXISTS in PostgreSQL ("tuple concurrently updated"), and the
    # library's first tracking row ("Failed to record tracking for
    # __migration__") in both databases. The loser's transaction changed
    # nothing, so trying again is safe. TODO(store DDL race): drop the DDL
    # part of this retry once referee/store fixes the race for every table.
    for attempt in range(20):
        try:
            view = factory.tracking_recorder(cls)
            view.factory = factory
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
    """Process every followed notification after the view's tracked position;
    return how many this call processed. Another station processing the same
    notification first is not an error: the position is read again."""
    view = view or open_view(store)
    projection = StandingsProjection(view)
    app = store.application
    processed = conflicts = 0
    while True:
        last = view.max_tracking_id(app.name) or 0
        page = app.recorder.select_notifications(last + 1, PAGE, topics=StandingsProjection.topics)
        if not page:
            return processed
        for note in page:
            record = app.mapper.to_domain_event(note)
            skipped = view.skipped
            projection.process_event(record, Tracking(app.name, note.id))
            if view.skipped != skipped:
                conflicts += 1
                moved = (view.max_tracking_id(app.name) or 0) >= note.id
                if conflicts > max_conflicts or not moved:
                    # Not another station (the position did not move past this
                    # notification): the view's rows disagree with its position.
                    raise StoreError(
                        f"the standings view cannot take notification {note.id}: it is out of step with "
                        "its tracking position; rebuild it with `referee event standings EVENT --rebuild`"
                    )
                break  # another station got there first: read the position again
            processed += 1


def follow(store: Any, on_change: Callable[[], None], *, timeout: float | None = None, poll: float = 1.0) -> None:
    """Keep the standings up to date as results land, calling ``on_change``
    after each batch of events that changed them, until ``timeout`` seconds
    pass (None: until interrupted).

    On PostgreSQL this is the library's ``ProjectionRunner``: it subscribes
    to the application's notifications (LISTEN/NOTIFY) and feeds them to
    ``StandingsProjection``, whose view is the same tables and tracking
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
        seen = view.max_tracking_id(store.application.name)
        if store.database.kind != "postgresql":
            while deadline is None or clock.monotonic() < deadline:
                clock.sleep(poll)
                catch_up(store, view)
                now = view.max_tracking_id(store.application.name)
                if now != seen:  # processed here, or by another station's command
                    seen = now
                    on_change()
            return
        env = dict(view_env(store.database))
        with ProjectionRunner(
            application_class=RefereeApplication,
            projection_class=StandingsProjection,
            view_class=view_class(store.database),
            env=env,
        ) as runner:
            while deadline is None or clock.monotonic() < deadline:
                runner.run_forever(timeout=poll)  # re-raises the processing thread's error
                now = view.max_tracking_id(store.application.name)
                if now != seen:
                    seen = now
                    on_change()
    finally:
        close_view(view)


def rebuild(store: Any) -> int:
    """Empty the view and process the whole notification log again."""
    view = open_view(store)
    try:
        view.clear(store.application.name)
        return catch_up(store, view)
    finally:
        close_view(view)
