"""The table-summary read model: one row per stored match (where it stands, its last event, open violations, judge calls), kept up to date from the notification log with tracking.

The tables page, the event page and ``referee event matches`` read these
rows instead of every match's events, so they cost the same with 10 tables
or 1,000. The projection is the tournaments projection's sibling (its own
tracking, ``tables`` in PostgreSQL's ``tables_tracking``): it reads the
notification log page by page, and for each match a page touched it
computes the row from the match's state after the page (a snapshot and a
short fold, ``MatchStore.state_at``) and the page's last event of it, then
writes the page's rows and the page's last notification id in ONE
transaction, if the tracked position is still the one the page was read
from (``TournamentsViewMixin.tracked``). A station that loses the race for a
page (another station recorded it, or part of it, first) writes nothing and
reads on from the new position.

Judge calls are counted as the page's notifications pass (rewinds, notes,
accepted violations, skipped steps), so each is counted once: by the
transaction that records its position.

Writers (the commands that write: ``referee event ...``) make the table and
catch it up; a reader that may not write (a read-only role, the spectator
screen) folds the notifications after the tracked position in memory with
the same ``_summarise``, and keeps them for its next read.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from eventsourcing.persistence import OperationalError, ProgrammingError, Tracking

from referee.ruleset import Ruleset, UnknownGame, outcome_json
from referee.store.errors import StoreError
from referee.tournament.projection import tournament_of_match, tracking_key

PAGE = 500
NAME = "tables"
JUDGE_EVENTS = ("Rewound", "NoteAdded", "ViolationsAccepted", "StepSkipped", "JudgeCalled")
COLUMNS = "match_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, tournament TEXT, doc TEXT NOT NULL"


def _summarise(store: Any, notes: list[Any], rows: dict[str, dict[str, Any]], known: Any) -> dict[str, dict[str, Any]]:
    """The rows of the matches ``notes`` touched, after them. ``known(ids)``
    gives the stored rows of matches not in ``rows`` yet.

    Each match is folded, decided and described by its own ruleset (its first
    event's game, ``MatchStore.ruleset``): a store may hold matches of several
    games, and one game's fold knows nothing of another's events."""
    app = store.application
    last: dict[str, Any] = {}
    calls: dict[str, int] = {}
    undos: dict[str, int] = {}  # entries taken back at the board: judges see each on the event page
    first: dict[str, Any] = {}
    for note in notes:
        key = str(note.originator_id)
        topic = note.topic.rsplit(":", 1)[-1]
        if topic.startswith("Tournament") or topic in ("PlayerRegistered",) or key.startswith("e-") and "." not in key:
            continue  # a tournament's own log, not a match
        last[key] = note
        if topic in JUDGE_EVENTS:
            calls[key] = calls.get(key, 0) + 1
        if topic == "EntryUndone":
            undos[key] = undos.get(key, 0) + 1
        if note.originator_version == 1:  # a match's first event, whatever its game
            first[key] = note
    missing = [k for k in last if k not in rows]
    rows.update(known(missing))
    out: dict[str, dict[str, Any]] = {}
    for key, note in last.items():
        row = dict(rows.get(key) or {})
        if not row:
            f = first.get(key)
            if f is None:
                try:
                    records = store.records(key, upto=1)
                except StoreError:
                    continue
                record = records[0]
            else:
                record = app.mapper.to_domain_event(f)
            ev = record.event
            row = {
                "match": key,
                "title": record.name,
                "players": dict(getattr(ev, "names", {})),
                "created": record.timestamp.isoformat(),
                "seq": note.id if f is not None else 0,
                "tournament": tournament_of_match(key),
                "judge_calls": 0,
            }
            if f is None:
                row["seq"] = note.id
        version = note.originator_version
        event = app.mapper.to_domain_event(note).event
        try:
            ruleset = store.ruleset(key)
        except (StoreError, UnknownGame):
            continue  # a game this referee does not know: no summary rather than no tables page
        before = store.state_at(key, version - 1)
        state = ruleset.evolve(before, event)
        violations = list(getattr(state, "violations", ()))
        row.update(
            version=version,
            game=ruleset.id,
            turn=getattr(state, "turn", None),
            step=getattr(state, "step", None),
            result=outcome_json(ruleset.result(state)),
            decision=_decision(ruleset, state),
            violations=len(violations),
            rules=[v.rule for v in violations],
            violations_at=[
                v.position for v in violations
            ],  # the event page links to each (its banner on the match page)
            undos=row.get("undos", 0) + undos.get(key, 0),
            judge_calls=row.get("judge_calls", 0) + calls.get(key, 0),
            judge_call=getattr(state, "judge_call", None),  # an open call (None once a judge answered)
            last={
                "position": version,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": event.ruling,
                "text": ruleset.describe(event, before, "public"),
                "retracted": False,
            },
        )
        out[key] = row
    return out


def _decision(ruleset: Ruleset, state: Any) -> dict[str, Any] | None:
    """Whose decision it is, as the public sees it: who and what, never the
    legal actions (a summary is public, 215)."""
    decision = ruleset.decision(state) if state.position else None
    if decision is None:
        return None
    return {"player": decision.player, "kind": decision.kind, "text": decision.text, "actions": None}


class TablesView:
    """The table and its tracking in the store's database."""

    def __init__(self, store: Any, *, create: bool) -> None:
        from referee.tournament.projection import open_view

        self.store = store
        self.recorder = open_view(store, create=create, name=NAME, tables={"trn_tables": COLUMNS})

    def _x(self, c: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        r = self.recorder
        c.execute(sql.replace("{t}", r.table("trn_tables")).replace("?", r.placeholder), params)
        return c

    def position(self) -> int:
        return self.recorder.max_tracking_id(tracking_key(self.store, NAME)) or 0

    def rows(self, ids: list[str] | None = None) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        with self.recorder._txn(commit=False) as c:
            if ids is None:
                found = self._x(c, "SELECT doc FROM {t}").fetchall()
            else:
                found = []
                for i in range(0, len(ids), 200):
                    chunk = ids[i : i + 200]
                    found += self._x(
                        c, f"SELECT doc FROM {{t}} WHERE match_id IN ({', '.join('?' * len(chunk))})", tuple(chunk)
                    ).fetchall()
        for r in found:
            doc = json.loads(r["doc"])
            out[doc["match"]] = doc
        return out

    def page(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        with self.recorder._txn(commit=False) as c:
            total = self._x(c, "SELECT COUNT(*) AS n FROM {t}").fetchone()["n"]
            found = self._x(c, "SELECT doc FROM {t} ORDER BY seq DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [json.loads(r["doc"]) for r in found], int(total)

    def catch_up(self) -> int:
        """Summarise every notification after the tracked position up to the
        log's last one when this started, a page per transaction (rows and
        position together, and only if the position is still the one the
        page was read from); return how many. Notifications written after
        the start are left to whoever wrote them (each station catches up
        after its own writes): a command never chases the stations that go
        on logging, and a page another station recorded first is not done
        again."""
        app = self.store.application
        key = tracking_key(self.store, NAME)
        head = app.recorder.max_notification_id() or 0
        done = 0
        for _ in range(10_000):
            last = self.position()
            if last >= head:
                return done
            notes = app.recorder.select_notifications(last + 1, PAGE, stop=head)
            if not notes:
                return done
            changed = _summarise(self.store, notes, {}, self.rows)

            def write(c: Any, changed: dict[str, dict[str, Any]] = changed) -> None:
                for match, row in changed.items():
                    self._x(c, "DELETE FROM {t} WHERE match_id=?", (match,))
                    self._x(
                        c,
                        "INSERT INTO {t} VALUES (?, ?, ?, ?)",
                        (match, row["seq"], row["tournament"], json.dumps(row)),
                    )

            if self.recorder.tracked(Tracking(key, notes[-1].id), last, write):
                done += len(notes)
            # else another station recorded (part of) this page first: read on from there
        raise StoreError("the table summaries could not catch up")

    def close(self) -> None:
        from referee.tournament.projection import close_view

        close_view(self.recorder)


class Tables:
    """The table summaries as a command or a page reads them: caught up and
    read from the database by a writer; by a reader that may not write, the
    stored rows and the notifications after them folded in memory."""

    def __init__(self, store: Any, *, writable: bool) -> None:
        self.store = store
        self.writable = writable
        self._view: TablesView | None = None
        self._lock = threading.Lock()
        self._rows: dict[str, dict[str, Any]] | None = None
        self._ordered: list[dict[str, Any]] | None = None  # the rows newest first, until the next change
        self._position = 0

    def _writer(self) -> TablesView:
        if self._view is None:
            self._view = TablesView(self.store, create=True)
        return self._view

    def refresh(self) -> int:
        """Bring the summaries up to the log's last notification; return how
        many notifications this took (a writer: summarised and stored; a
        reader: folded in memory, which is what the commands that write keep
        near zero)."""
        if self.writable:
            return self._writer().catch_up()
        folded = 0
        with self._lock:
            if self._rows is None:
                self._rows, self._position = {}, 0
                try:
                    view = TablesView(self.store, create=False)
                except (OperationalError, ProgrammingError):
                    view = None
                if view is not None:
                    try:
                        self._position = view.position()
                        self._rows = view.rows()
                    except (OperationalError, ProgrammingError):
                        self._rows, self._position = {}, 0
                    finally:
                        view.close()
            app = self.store.application
            while True:
                notes = app.recorder.select_notifications(self._position + 1, PAGE)
                if not notes:
                    return folded
                self._rows.update(_summarise(self.store, notes, self._rows, lambda ids: {}))
                self._ordered = None
                self._position = notes[-1].id
                folded += len(notes)

    def get(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        if self.writable:
            return self._writer().rows(ids)
        assert self._rows is not None
        return {i: self._rows[i] for i in ids if i in self._rows}

    def page(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Stored matches, newest first: ``limit`` of them from ``offset``, and how many there are."""
        if self.writable:
            return self._writer().page(offset, limit)
        with self._lock:
            if self._ordered is None:
                assert self._rows is not None
                self._ordered = sorted(self._rows.values(), key=lambda r: -r["seq"])
            ordered = self._ordered
        return ordered[offset : offset + limit], len(ordered)

    def close(self) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None


def summaries(store: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The summary rows of ``ids`` (caught up first), for a one-off command."""
    tables = Tables(store, writable=not getattr(store, "read_only", False))
    try:
        tables.refresh()
        return tables.get(ids)
    finally:
        tables.close()
