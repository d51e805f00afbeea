"""The tournament aggregate in the match store: its events stored like a match's, with the same optimistic concurrency.

A tournament's id looks like ``e-1a2b3c4d``; its events (``events.tournament``)
are rows of the same event table as the matches, chained the same way, so
``audit`` and the notification log treat them alike. Every change is
"decide on the current state, append at the next version": two stations that
decide at once race for the same (id, version) row, and the loser reads the
winner's events and decides again on them (so a second station pairing the
same round finds it already paired).
"""

from __future__ import annotations

import builtins
import secrets
import threading
from collections.abc import Callable
from typing import Any

from events.tournament import TournamentCreated, TournamentEvent
from projections.tournament import TournamentState
from referee.store.errors import StoreError

MAX_ATTEMPTS = 50


class TournamentNotFound(StoreError, LookupError):
    """No tournament has this id (a bad argument: exit 2)."""


class Refused(Exception):
    """The tournament's rules refuse the request (exit 1): a round still being
    played, a player not registered, and the like. Nothing is written."""


def tournament_key(tid: str) -> str:
    key = str(tid).strip().lower()
    if not (key.startswith("e-") and 3 <= len(key) <= 64):
        raise TournamentNotFound(f"no tournament {tid!r}: tournament ids look like e-1a2b3c4d")
    return key


class TournamentCache:
    """Tournaments folded from the store, kept per process and grown by the
    events written since (a tournament's registrations carry whole decks:
    read once, never again)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._known: dict[str, tuple[int, TournamentState]] = {}
        self._lock = threading.Lock()

    def get(self, tid: str) -> TournamentState | None:
        from projections.tournament import evolve, fold

        with self._lock:
            known = self._known.get(tid)
        with self.store._db_errors(f"load tournament {tid}"):
            if known is None:
                records = list(self.store.application.events.get(tid))
                if not records or not isinstance(records[0].event, TournamentCreated):
                    return None
                state = fold((r.event for r in records), tid)
            else:
                records = list(self.store.application.events.get(tid, gt=known[0]))
                if not records:
                    return known[1]
                state = known[1].copy()
                for r in records:
                    evolve(state, r.event)
        with self._lock:
            self._known[tid] = (state.version, state)
        return state


class Tournaments:
    """Tournaments in a ``MatchStore``'s database. Loads are incremental:
    the tournament folded once (its registrations carry whole decks), then
    only the events written since (``cache``, which a station shares with
    its read models)."""

    def __init__(self, store: Any, cache: TournamentCache | None = None) -> None:
        self.store = store
        self.cache = cache if cache is not None else TournamentCache(store)

    def create(self, name: str, deal: str = "seeded", **policies: Any) -> str:
        """A new tournament; ``policies`` are ``TournamentCreated``'s (best_of, round_minutes, at_time, late, check_in)."""
        first = [TournamentCreated(name=name, deal=deal, **policies)]  # type: ignore[arg-type]
        for _ in range(8):
            key = f"e-{secrets.token_hex(4)}"
            if self.store.append(key, 0, first, name=name):
                return key
        raise StoreError("no free tournament id found")

    def list(self) -> list[tuple[str, str]]:
        """(id, name) of every tournament in the store, oldest first: the
        notification log's first events of that kind, as matches are listed."""
        from referee.store.mapper import topics_of

        out: list[tuple[str, str]] = []
        start: int | None = None
        with self.store._db_errors("list the tournaments"):
            while True:
                page = self.store.application.recorder.select_notifications(
                    start,
                    500,
                    topics=topics_of(TournamentCreated),
                )
                for note in page:
                    record = self.store.application.mapper.to_domain_event(note)
                    out.append((str(note.originator_id), record.event.name))
                if len(page) < 500:
                    return out
                start = page[-1].id + 1

    def load(self, tid: str) -> TournamentState:
        """The tournament now (a copy the caller may change)."""
        key = tournament_key(tid)
        state = self.cache.get(key)
        if state is None:
            raise TournamentNotFound(f"no tournament {key!r} in {self.store.url}")
        return state.copy()

    def update(
        self, tid: str, decide: Callable[[TournamentState], builtins.list[TournamentEvent]]
    ) -> tuple[TournamentState, builtins.list[TournamentEvent]]:
        """Decide on the current state and append; on a conflicting write,
        reload and decide again. ``decide`` may raise ``Refused``."""
        key = tournament_key(tid)
        for _ in range(MAX_ATTEMPTS):
            state = self.load(key)
            new = decide(state)
            if not new:
                return state, []
            if self.store.append(key, state.version, list(new)):
                for e in new:
                    from projections.tournament import evolve

                    evolve(state, e)
                return state, new
        raise StoreError(f"gave up on tournament {key}: {MAX_ATTEMPTS} writes in a row lost to other stations")


def only_reads(exc: BaseException) -> bool:
    """Is this a write refused to a database role (or file) that may only read?"""
    text = str(exc).lower()
    return any(
        words in text
        for words in ("permission denied", "readonly database", "read-only transaction", "must be owner of")
    )


def may_write(store: Any) -> bool:
    """May this store's role write to the event store? (PostgreSQL: INSERT on
    its events table; an SQLite file that may not be written is refused when
    it is opened.) A role that may only read is told so in one line before a
    command that writes tries anything."""
    if store.database.kind != "postgresql":
        return True
    recorder = store.application.recorder
    with store._db_errors("check the role's rights"):
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT has_table_privilege(format('%%I.%%I', %s::text, %s::text), 'INSERT') AS ok",
                (recorder.datastore.schema or "public", recorder.events_table_name),
            )
            row = c.fetchone()
    return bool(row and (row["ok"] if isinstance(row, dict) else row[0]))
