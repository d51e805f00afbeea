"""Stored matches: the engine's events in an eventsourcing 9.5 event store.

A match is an event-sourced aggregate whose stored events are its game's
domain events; its state is the fold of them by its game's ruleset, and
``originator_version`` N is the state with ``position == N``. The store
knows no game: a match's first event names its ruleset
(``referee.ruleset.of_first_event``; Harem Master for logs written before
first events named a game), which the store keeps with the cached state and
folds, decides and snapshots with. ``MatchStore``
is the application a judge station talks to:

- **One transaction per action.** ``act`` writes every event an action
  caused (the action's own and all the automatic steps after it) with one
  ``insert_events`` call of the library's recorder, which is one database
  transaction.
- **Optimistic concurrency.** Two stations that decided against the same
  version race for the same (match, version) primary key; the loser gets the
  library's ``IntegrityError``, reloads, and decides again on the new state,
  so its action is applied only if it is still legal. That check is the
  only one: an action on a match whose latest state this process holds is
  decided on that state and written without reading first (a refusal on it
  is confirmed by one read before it is reported: see ``update``).
- **Speed.** The latest state of each match stays in an in-process cache and
  is fast-forwarded with the events other stations wrote since; the state
  ``decide`` returns is kept as it is, not folded again. A snapshot of the
  state is stored after a match's first events and every ``snapshot_interval``
  events, so ``load`` on a fresh process and ``state_at(N)`` fold fewer than
  ``snapshot_interval`` events, and never validate the first event's cards.
  A snapshot whose card definitions a stored snapshot of the match already
  holds names that one instead of repeating them (``StateSnapshot.cards_at``;
  the cards were nine tenths of a snapshot).
  ``last_folded`` says how many the last read folded. Events are serialized
  by pydantic straight to JSON bytes (``mapper``), and SQLite runs with
  ``synchronous=NORMAL`` (``sqlitefactory`` says what that gives up).
  ``referee bench`` measures all of this against baselines of the same run.
- **Opening.** ``create`` (the default, and ``referee new`` and ``import``)
  may make a missing SQLite file and the tables; any other store uses what
  exists, so a mistyped path is "no such database" and not a new empty
  file, and ``read_only`` opens SQLite read-only and never writes (no
  snapshots either), for read-only media and for roles that may only read.
  Tables are made only when missing, under a lock (``sqlitefactory``,
  ``pgfactory``); a store that finds none is empty.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from eventsourcing.application import Application
from eventsourcing.persistence import (
    EventStore,
    InfrastructureFactoryError,
    IntegrityError,
    Mapper,
    MapperDeserialisationError,
    PersistenceError,
    StoredEvent,
    Transcoder,
)
from eventsourcing.utils import Environment, EnvType

from events.kernel import Event, Rewound
from referee import ruleset as registry
from referee.actions import Applied
from referee.chain import Signer
from referee.store.errors import (
    AlreadyEntered,
    MatchExists,
    MatchNotFound,
    PositionError,
    StaleVersion,
    StoreError,
    WriteCancelled,
    one_line,
)
from referee.store.mapper import (
    GENESIS,
    JSONBytes,
    MatchEvent,
    PydanticEventMapper,
    StateSnapshot,
    split_chained,
    topics_of,
)
from referee.store.side import SideTables
from referee.store.sqlitefactory import ACCESS
from referee.store.statecodec import IncompatibleSnapshot, ruleset_of_state
from referee.store.url import DEFAULT_URL, Database, parse_url

# A snapshot is a 30 KB row written on the action that crosses a multiple:
# every 100 events it cost a station a tenth of its store time, every 200 half
# that, while a fresh read folds at most 199 events (well under a millisecond).
DEFAULT_SNAPSHOT_INTERVAL = 200
MAX_ATTEMPTS = 20  # conflicting writes one action survives before giving up
KNOWN_SNAPSHOTS = 64  # decoded snapshot states kept in the process
CARDS_REFERENCES = 8  # snapshots followed to find one holding the cards (usually one)
MATCH_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
ENTRY_WINDOW = 500  # latest events searched for a submission sent again
MAX_POSITION = 2**63 - 1  # the largest position a database integer holds


class WriteGate:
    """Whether a write may still start: the board makes one per request
    (``WRITE_GATE``) and closes it when it can wait no longer for the store,
    so a write either starts before the answer (the answer then says its
    outcome is not known yet, and names its entry) or never starts (the
    answer truthfully says nothing was recorded)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started = False
        self.closed = False
        self.entry: str | None = None

    def start(self, entry: str | None) -> bool:
        """Called by the store just before it writes: may it?"""
        with self._lock:
            if self.closed:
                return False
            self.started = True
            self.entry = entry
            return True

    def close(self) -> bool:
        """No write may start from now on; whether one had started."""
        with self._lock:
            self.closed = True
            return self.started


WRITE_GATE: ContextVar[WriteGate | None] = ContextVar("referee_write_gate", default=None)

State = Any  # a game's state: its ruleset's ``state_type``
Decided = TypeVar("Decided", bound=Applied)  # what ``update``'s ``decide`` returns (a ``Correction``...)
Checkpoints = list[tuple[int, State]]


def _station() -> str | None:
    """This machine's name, written with every event as the station that wrote it."""
    import socket

    try:
        return socket.gethostname()[:60] or None
    except OSError:
        return None


def first_event_classes() -> tuple[type, ...]:
    """The classes a match may start with: every registered ruleset's ``first_events``."""
    out: list[type] = []
    for game in registry.games():
        out.extend(c for c in registry.get(game).first_events if c not in out)
    return tuple(out)


def _driver_errors() -> tuple[type[BaseException], ...]:
    """What a database failure can look like. Some driver errors escape the
    library (sqlite3's "file is not a database" while it sets a connection
    up, for one); psycopg's only matter once PostgreSQL is in use, so it is
    not imported for SQLite users."""
    errors: list[type[BaseException]] = [PersistenceError, OSError, sqlite3.Error]
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        errors.append(psycopg.Error)
    return tuple(errors)


if TYPE_CHECKING:  # only for the checker: at run time these are the library's own stores
    from eventsourcing.domain import DomainEventProtocol

    _Item = TypeVar("_Item", bound=DomainEventProtocol[str])

    class _StoreOf(EventStore[str], Generic[_Item]):
        """A store as our mapper reads it: every item is an ``_Item``
        (``MatchEvent`` from the events, ``StateSnapshot`` from the snapshots)."""

        def get(
            self,
            originator_id: str,
            *,
            gt: int | None = None,
            lte: int | None = None,
            desc: bool = False,
            limit: int | None = None,
        ) -> Iterator[_Item]: ...


class RefereeApplication(Application[str]):
    """The library's application, configured for our events.

    Match ids are the originator ids themselves (``ORIGINATOR_ID_TYPE=text``),
    so a row in the database names the match a judge typed. PostgreSQL tables
    are ``referee_events`` and ``referee_snapshots``; SQLite's are
    ``stored_events`` and ``stored_snapshots``."""

    # The library declares these for any mapper; ours (``construct_mapper``)
    # reads every event as a ``MatchEvent`` and every snapshot as a ``StateSnapshot``.
    mapper: PydanticEventMapper
    events: _StoreOf[MatchEvent]
    snapshots: _StoreOf[StateSnapshot] | None

    name = "Referee"
    is_snapshotting_enabled = True

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        # Unlike the base class, ignore os.environ: the URL alone decides where
        # matches go (a stray PERSISTENCE_MODULE must not send them elsewhere).
        merged = dict(type(self).env)
        merged["IS_SNAPSHOTTING_ENABLED"] = "y"
        merged.update(env or {})
        return Environment(name, merged)

    def construct_transcoder(self) -> Transcoder:
        return JSONBytes()

    def construct_mapper(self) -> Mapper[str]:
        return self.factory.mapper(transcoder=self.construct_transcoder(), mapper_class=PydanticEventMapper)


class _DbErrors:
    """``MatchStore._db_errors``: the store's failures as one ``StoreError`` line."""

    __slots__ = ("database", "doing")

    def __init__(self, database: Database, doing: str) -> None:
        self.database = database
        self.doing = doing

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> Literal[False]:
        if exc is None or isinstance(exc, StoreError):
            return False
        if isinstance(exc, MapperDeserialisationError):
            raise StoreError(f"cannot {self.doing}: {one_line(str(exc), self.database.password)}") from None
        if isinstance(exc, _driver_errors()):
            raise StoreError(f"cannot {self.doing} at {self.database.describe(exc)}") from None
        return False


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """A stored match as ``list_matches`` shows it (from its first event)."""

    id: str
    name: str | None
    created: datetime
    players: dict[str, str]
    mode: str
    seed: int
    game: str = registry.DEFAULT_GAME  # the ruleset's id (``referee.ruleset.game_of``)
    origin: tuple[str, int] | None = None  # a what-if fork: the match and event it was forked from


def _origin(first: Any) -> tuple[str, int] | None:
    """Where a what-if fork comes from, as its first event names it (``origin``)."""
    origin = getattr(first, "origin", None)
    return (origin.match, origin.at) if origin is not None else None


@dataclass(frozen=True, slots=True)
class Entry:
    """One write to a match as the board sent it (``MatchStore.last_entry``):
    its stored events in order, who entered them and the submission's id."""

    records: tuple[MatchEvent, ...]

    @classmethod
    def of(cls, records: list[MatchEvent]) -> "Entry":
        return cls(tuple(records))

    @property
    def first(self) -> int:
        """The position of its first event: the state before it is ``first - 1``."""
        return self.records[0].position

    @property
    def last(self) -> int:
        return self.records[-1].position

    @property
    def by(self) -> str | None:
        return self.records[0].by

    @property
    def entry(self) -> str | None:
        return self.records[0].entry

    @property
    def events(self) -> list[Event]:
        return [r.event for r in self.records]


class MatchStore:
    """Matches in a database: create, read at any position, act, list."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        snapshot_interval: int = DEFAULT_SNAPSHOT_INTERVAL,
        cache_size: int = 256,
        read_only: bool = False,
        create: bool | None = None,
        station: str | None = None,
    ) -> None:
        if snapshot_interval < 1:
            raise ValueError("snapshot_interval must be at least 1")
        if create is None:
            create = not read_only
        if create and read_only:
            raise ValueError("a read-only store cannot create a database")
        self.database: Database = parse_url(url)
        self.url = self.database.display  # the URL with the password hidden
        self.snapshot_interval = snapshot_interval
        self.read_only = read_only
        self.database.check(create=create, read_only=read_only)
        env = dict(self.database.env)
        env["CREATE_TABLE"] = "no"  # ``prepare`` below, only when missing
        env[ACCESS] = "ro" if read_only else "rwc" if create else "rw"
        with self._db_errors("open the match store"):
            try:
                self.application = RefereeApplication(env=env)
            except InfrastructureFactoryError as exc:
                # e.g. PostgreSQL without psycopg_pool: name the missing piece.
                reason = exc.__cause__ or exc
                raise StoreError(f"cannot open {self.database.describe(reason)}") from None
            try:
                # The backend's recorders: SQLite's or PostgreSQL's, which both name their
                # table (``events_table_name``), though the library's base classes do not.
                recorders: list[Any] = [self.application.recorder]
                if self.application.snapshots is not None:
                    recorders.append(self.application.snapshots.recorder)
                factory: Any = self.application.factory
                self._has_tables: bool = factory.prepare(recorders, create=create)
                # Whether the recorder writes snapshots in an action's own transaction.
                self._joint_snapshots = bool(
                    getattr(self.application.recorder, "joint_snapshots", False)
                    and self.application.snapshots is not None
                    and not read_only
                )
                self._snapshot_table = recorders[-1].events_table_name
            except BaseException:
                self.application.close()
                raise
        # match -> (version, state, the ruleset that folds it)
        self._cache: OrderedDict[str, tuple[int, State, registry.Ruleset]] = OrderedDict()
        self._known_snapshots: OrderedDict[tuple[str, int], State] = OrderedDict()
        # match -> (version of a stored snapshot that holds its card definitions
        # itself, those very cards): later snapshots with the same cards name it
        # instead of repeating them (``StateSnapshot.cards_at``).
        self._cards_homes: OrderedDict[str, tuple[int, Any]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        # Chain heads: match -> (version, hash of event ``version``; None for a
        # row stored before chains), so a write rarely reads its predecessor.
        self._heads: dict[str, tuple[int, str | None]] = {}
        # Observability, for judges' tooling and for the tests.
        self.last_folded = 0  # events folded by the latest load/state_at
        self.conflicts = 0  # writes lost to another station and retried
        self.snapshots_taken = 0
        self.snapshot_failures = 0  # states the codec could not write (a bug: see the warning)
        # Test seam: called just before each write attempt with (match id, attempt).
        self.before_write: Callable[[str, int], None] | None = None
        # The key, the sessions and the sign-ins beside the matches (``side``).
        self.side = SideTables(self)
        self._signer: Signer | None | Literal[False] = None  # False: this store cannot sign (see ``signer``)
        self.application.mapper.station = station if station is not None else _station()

    # --- lifecycle ------------------------------------------------------

    def close(self) -> None:
        """Release the database connections."""
        app = getattr(self, "application", None)
        if app is not None:
            app.close()

    def __enter__(self) -> "MatchStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MatchStore({self.url!r})"

    # --- writing --------------------------------------------------------

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.url} was opened read-only: nothing can be written")
        if not self._has_tables:
            raise StoreError(f"{self.url} holds no matches yet: `referee new` or `referee import` starts one")

    def create(
        self,
        first_events: Iterable[Event],
        *,
        name: str | None = None,
        match_id: str | None = None,
        envelopes: list[dict[str, str]] | None = None,
    ) -> str:
        """Store a new match from its first events (``ruleset.start(...).events``,
        or a scenario's position) in one transaction; return its id, ``m-``
        and 8 hex digits unless ``match_id`` chooses one. The first event
        names the game (``of_first_event``) and must be one its ruleset
        starts a match with."""
        events = list(first_events)
        starts = first_event_classes()
        if not events or not isinstance(events[0], starts):
            first = type(events[0]).__name__ if events else "nothing"
            names = " or ".join(c.__name__ for c in starts)
            raise ValueError(f"a match starts with {names}, not {first}")
        ruleset = registry.of_first_event(events[0])
        if not isinstance(events[0], ruleset.first_events):
            raise ValueError(f"{type(events[0]).__name__} does not start a match of {ruleset.id}")
        chosen = None
        if match_id is not None:
            chosen = match_id.strip().lower()
            if not MATCH_ID.match(chosen):
                raise ValueError(f"match id {match_id!r}: use up to 64 letters, digits, '.', '_' or '-'")
        self._writable()
        state, version, marks = self._fold(ruleset, ruleset.initial_state(), 0, events)
        with self._db_errors("store the new match"):
            for _ in range(8):
                key = chosen or f"m-{secrets.token_hex(4)}"
                try:
                    self._write(key, 0, events, name=name, envelopes=envelopes)
                except IntegrityError:
                    if chosen is not None:
                        raise MatchExists(f"a match with id {key!r} already exists in {self.url}") from None
                    continue  # that id is taken: draw another
                break
            else:
                raise StoreError(f"no free match id found in {self.url}")
            self._remember(key, version, state, ruleset)
            if not marks or marks[-1][0] != version:
                # The start too: a load of a match younger than the interval
                # then reads its card definitions from a snapshot, which builds
                # no validator (``projections.encoding``), instead of
                # validating the first event's cards (a fifth of `referee act`).
                marks = [*marks, (version, state)]
            self._take_snapshots(key, marks)
        return key

    def act(
        self,
        match_id: str,
        action: Any,
        *,
        expected_version: int | None = None,
        by: str | None = None,
        entry: str | None = None,
    ) -> Applied:
        """Apply a player's action to the stored match and store every event it
        causes in one transaction. ``IllegalAction`` if the rules refuse it,
        also when another station's write made it illegal meanwhile;
        ``StaleVersion`` if the match is no longer at ``expected_version``."""
        return self.update(  # (see ``update`` for ``entry``)
            match_id,
            lambda state: ruleset_of_state(state).apply(state, action),
            expected_version=expected_version,
            by=by,
            entry=entry,
        )

    def update(
        self,
        match_id: str,
        decide: Callable[[State], Decided],
        *,
        expected_version: int | None = None,
        by: str | None = None,
        entry: str | None = None,
        check_entry: bool = False,
    ) -> Decided:
        """Run ``decide`` on the current state and store the events it returns,
        all in one transaction; on a conflicting write by another station,
        reload and decide again (so ``decide`` must be pure). Corrections and
        recorded violations come through here as well as ``act``.

        ``decide`` returns the events and the state after them, as
        ``ruleset.apply`` and ``corrections`` do (the state is the fold of the
        events, computed with ``evolve``): that state is what the store keeps,
        so nothing is folded twice. A returned state that is not of the
        match's state type at the new position is ignored and the events folded.

        When this process already holds the match's latest state, no read
        precedes the write: the (match, position) primary key is the check.
        If another station wrote meanwhile, the write fails with the library's
        ``IntegrityError`` and nothing of it is stored; the store then reads
        what the other station wrote and decides again. A refusal (any
        exception from ``decide``) or an empty decision on such an unread
        state is only reported after one cheap read confirms that the state
        was current.

        Another station's write is not always harmless: with
        ``expected_version`` (the version the action was chosen on, as the
        board and ``act --expect-version`` send) any other write refuses the
        action with ``StaleVersion``; without it, a rewind written meanwhile
        still does (the action was chosen from the legal list of a position
        the rewind took back), while ordinary writes are decided again.

        ``entry`` (a submission's id, stored with its events) makes a
        submission sent twice a repeat: a write that lost a race is not
        decided again if the winner was this very entry (``AlreadyEntered``),
        and with ``check_entry`` (an id typed again, `act --entry`) neither
        is one whose entry is among the latest events already. Under a
        ``WRITE_GATE`` that has closed, nothing is written (``WriteCancelled``)."""
        key = self._key(match_id)
        self._writable()
        gate = WRITE_GATE.get()
        with self._db_errors(f"write to match {key}"):
            if entry is not None and check_entry:
                # A submission id given again by hand (`act --entry`): the same
                # submission stored already is a repeat, never a second entry.
                self._refuse_if_entered(key, entry, None)
            cached = self._cached(key)
            first: int | None = expected_version  # the version the action was chosen on
            for attempt in range(1, MAX_ATTEMPTS + 1):
                if cached is not None:
                    # Optimistic: trust the process cache; the write checks it.
                    version, state, ruleset = cached
                    cached = None
                    if expected_version is not None and version != expected_version:
                        continue  # read before refusing: this process may be behind
                    if first is None:
                        first = version
                    self.last_folded = 0
                    try:
                        applied = decide(state)
                    except Exception:
                        if self._stored_version(key) != version:
                            continue  # decided on a stale state: read and decide again
                        raise
                    events = list(applied.events)
                    if not events and self._stored_version(key) != version:
                        continue
                else:
                    state, version, ruleset = self._load(key)
                    if first is None:
                        first = version
                    elif version != first:
                        self._refuse_if_stale(key, first, version, strict=expected_version is not None)
                    applied = decide(state)
                    events = list(applied.events)
                if not events:
                    return applied
                if self.before_write is not None:
                    self.before_write(key, attempt)
                if gate is not None and not gate.start(entry):
                    raise WriteCancelled(
                        f"the write to match {key} was given up before it started: nothing was recorded"
                    )
                new_version = version + len(events)
                after: Any = applied.state
                folded = isinstance(after, ruleset.state_type) and after.position == new_version
                # Snapshots due in this action go in its own transaction where
                # the recorder can (SQLite): one commit instead of two.
                marks = self._marks(ruleset, state, version, events) if folded else []
                joint = self._snapshot_rows(key, marks) if marks and self._joint_snapshots else []
                try:
                    self._write(key, version, events, snapshots=[row for _, _, _, row in joint], by=by, entry=entry)
                except IntegrityError as exc:
                    if self._stored_version(key) == version:
                        # Nobody else wrote: the database refused these rows.
                        raise StoreError(
                            f"the database refused the write to match {key}: {self.database.describe(exc)}"
                        ) from None
                    self.conflicts += 1
                    if entry is not None:
                        self._refuse_if_entered(key, entry, version)
                    continue
                if not folded:
                    after, _, marks = self._fold(ruleset, state, version, events)
                self._remember(key, new_version, after, ruleset)
                for at, snapshot, holds_cards, _ in joint:
                    self.snapshots_taken += 1
                    self._know_snapshot(key, at, snapshot, holds_cards)
                if self._joint_snapshots and folded:
                    marks = []  # written above, or not writable (and warned about)
                if marks:
                    self._take_snapshots(key, marks)
                return applied
        raise StoreError(f"gave up on match {key}: {MAX_ATTEMPTS} writes in a row lost to other stations")

    def _refuse_if_entered(self, key: str, entry: str, after: int | None) -> None:
        """``AlreadyEntered`` if submission ``entry`` is stored (after event
        ``after``, or among the latest events when None)."""
        if after is not None:
            rows = self.application.recorder.select_events(key, gt=after)
        else:
            rows = self.application.recorder.select_events(key, desc=True, limit=ENTRY_WINDOW)
        needle = b'"_entry":' + json.dumps(entry, ensure_ascii=False).encode()
        mapper: PydanticEventMapper = self.application.mapper
        found = [r.originator_version for r in rows if needle in mapper.unseal(r.state)]
        if found:
            raise AlreadyEntered(key, min(found) - 1, self._stored_version(key), entry)

    def _refuse_if_stale(self, key: str, chosen: int, current: int, *, strict: bool) -> None:
        """``StaleVersion`` if the match moved from ``chosen`` to ``current``
        in a way the action may not be decided again on: any way when
        ``strict``, else by a rewind (410) among the events written since."""
        rewound = (
            any(isinstance(r.event, Rewound) for r in self.application.events.get(key, gt=chosen, lte=current))
            if current > chosen
            else False
        )
        if strict or rewound:
            raise StaleVersion(key, chosen, current, rewound)

    def append(self, key: str, version: int, events: list[Any], name: str | None = None) -> bool:
        """Store ``events`` after ``version`` of any aggregate in this store
        (a tournament: ``referee.tournament``), chained and in one transaction.
        False, with nothing written, if another station wrote ``version + 1``
        first: the caller reloads and decides again."""
        with self._db_errors(f"write to {key}"):
            try:
                self._write(key, version, events, name=name)
            except IntegrityError:
                return False
        return True

    # --- reading --------------------------------------------------------

    def load(self, match_id: str) -> tuple[State, int]:
        """The current state of the match and its version (number of events)."""
        state, version, _ = self._load(self._key(match_id))
        return state, version

    def ruleset(self, match_id: str) -> registry.Ruleset:
        """The ruleset the match is folded and decided with (its first event's game)."""
        key = self._key(match_id)
        with self._db_errors(f"read match {key}"):
            return self._ruleset_of(key)

    def _load(self, key: str) -> tuple[State, int, registry.Ruleset]:
        with self._db_errors(f"load match {key}"):
            cached = self._cached(key)
            if cached is not None:
                version, state, ruleset = cached
                records = list(self.application.events.get(key, gt=version))
                state, version, _ = self._fold_records(key, ruleset, state, version, records)
                folded = len(records)
            else:
                state, version, folded, ruleset = self._reconstruct(key, None)
            self._remember(key, version, state, ruleset)
        self.last_folded = folded
        return state, version, ruleset

    def state_at(self, match_id: str, position: int) -> State:
        """The state after event ``position`` (0: the empty table before the
        first event), folded from the nearest snapshot at or below it."""
        key = self._key(match_id)
        if position < 0:
            raise PositionError(f"there is no event {position}: positions start at 0")
        if position > MAX_POSITION:  # a database integer holds no more: no match is that long
            raise PositionError(f"match {key} has no event {position}: no match is that long")
        with self._db_errors(f"load match {key}"):
            cached = self._cached(key)
            if cached is not None and cached[0] == position:
                self.last_folded = 0
                return cached[1]
            if position == 0:
                self.last_folded = 0
                return (cached[2] if cached is not None else self._ruleset_of(key)).initial_state()
            state, version, folded, _ = self._reconstruct(key, position)
        self.last_folded = folded
        if version < position:
            raise PositionError(f"match {key} has {version} events: there is no event {position}")
        return state

    def events(self, match_id: str, upto: int | None = None) -> list[Event]:
        """The match's domain events, the first ``upto`` of them if given."""
        return [r.event for r in self.records(match_id, upto)]

    def records(self, match_id: str, upto: int | None = None) -> list[MatchEvent]:
        """The match's events with their envelopes (position, time, name)."""
        key = self._key(match_id)
        if upto is not None and upto < 0:
            raise PositionError(f"there is no event {upto}: positions start at 0")
        if upto is not None and upto > MAX_POSITION:
            upto = MAX_POSITION  # every event there is (a database integer holds no more)
        with self._db_errors(f"read match {key}"):
            if upto == 0:
                self._require(key)
                return []
            found = list(self.application.events.get(key, lte=upto))
            if not found:
                raise MatchNotFound(f"no match {key!r} in {self.url}")
        if upto is not None and len(found) < upto:
            raise PositionError(f"match {key} has {len(found)} events: there is no event {upto}")
        return found

    def records_after(self, match_id: str, position: int) -> list[MatchEvent]:
        """The match's events after ``position`` with their envelopes: what was
        logged since a page showed ``position`` (read from there, not from event 1)."""
        key = self._key(match_id)
        with self._db_errors(f"read match {key}"):
            return list(self.application.events.get(key, gt=position))

    def last_entry(self, match_id: str) -> Entry | None:
        """The match's last write, as the board made it: its events (one
        submission's, which share its entry id), who entered it and its
        entry id; None for a match without events. A write with no entry id
        (a command-line station's) comes back as its last event alone, since
        nothing marks where such a write began. Read backwards from the end
        a few rows at a time, so its cost does not grow with the match."""
        key = self._key(match_id)
        found: list[MatchEvent] = []
        with self._db_errors(f"read match {key}"):
            below: int | None = None
            while True:
                rows = list(self.application.events.get(key, desc=True, limit=32, lte=below))
                for row in rows:
                    if found and (row.entry is None or row.entry != found[0].entry):
                        return Entry.of(list(reversed(found)))
                    found.append(row)
                    if row.entry is None:
                        return Entry.of(found)
                if len(rows) < 32:
                    return Entry.of(list(reversed(found))) if found else None
                below = rows[-1].position - 1

    def exists(self, match_id: str) -> bool:
        try:
            key = self._key(match_id)
        except MatchNotFound:
            return False
        with self._db_errors(f"read match {key}"):
            return bool(list(self.application.events.get(key, limit=1)))

    __contains__ = exists

    def list_matches(self) -> list[MatchInfo]:
        """Every stored match, oldest first."""
        if not self._has_tables:
            return []
        topics = topics_of(*first_event_classes())
        out: list[MatchInfo] = []
        start: int | None = None
        page_size = 500
        with self._db_errors("list the matches"):
            while True:
                page = self.application.recorder.select_notifications(start, page_size, topics=topics)
                for note in page:
                    if note.originator_version != 1:
                        continue
                    record: MatchEvent = self.application.mapper.to_domain_event(note)
                    first: Any = record.event
                    out.append(
                        MatchInfo(
                            record.match_id,
                            record.name,
                            record.timestamp,
                            dict(first.names),
                            first.mode,
                            first.seed,
                            registry.game_of(first),
                            _origin(first),
                        )
                    )
                if len(page) < page_size:
                    return out
                start = page[-1].id + 1

    # --- internals ------------------------------------------------------

    def _db_errors(self, doing: str) -> "_DbErrors":
        """Turn the library's and the drivers' failures into one ``StoreError``
        line naming the database (password hidden); let ours and the rules'
        exceptions through untouched. (A class, not a generator: every
        action passes through it.)"""
        return _DbErrors(self.database, doing)

    def _key(self, match_id: str) -> str:
        key = str(match_id).strip().lower()
        if not MATCH_ID.match(key):
            raise MatchNotFound(f"no match {match_id!r}: match ids look like m-1a2b3c4d")
        if not self._has_tables:
            raise MatchNotFound(f"no match {key!r} in {self.url}: it holds no matches yet")
        return key

    def _require(self, key: str) -> None:
        if not list(self.application.events.get(key, limit=1)):
            raise MatchNotFound(f"no match {key!r} in {self.url}")

    def _ruleset_of(self, key: str) -> registry.Ruleset:
        """The match's ruleset: kept with its cached state, else read from its first event."""
        cached = self._cached(key)
        if cached is not None:
            return cached[2]
        # The first row's "game" read from its JSON, not the event built: that
        # would build its class's validator (and its cards'), which a command
        # such as `act` on a snapshotted match never needs otherwise.
        first = list(self.application.recorder.select_events(key, limit=1))
        if not first:
            raise MatchNotFound(f"no match {key!r} in {self.url}")
        mapper: PydanticEventMapper = self.application.mapper
        return registry.get(mapper.first_game(first[0]))

    def _stored_version(self, key: str) -> int:
        last = list(self.application.events.get(key, desc=True, limit=1))
        return last[0].originator_version if last else 0

    def _write(
        self,
        key: str,
        version: int,
        events: list[Event],
        name: str | None = None,
        snapshots: list[tuple[Any, ...]] | None = None,
        by: str | None = None,
        entry: str | None = None,
        envelopes: list[dict[str, str]] | None = None,
    ) -> None:
        """All of ``events`` after ``version``, in one transaction: the mapper
        makes the rows in one go and the library's recorder inserts them with
        one ``insert_events`` call, which is one database transaction (the
        call ``Application.save`` ends in, without its per-event envelopes,
        protocol checks and notification records, which nothing here uses).
        On SQLite the rows stay plain tuples (``RefereeSQLiteRecorder``)."""
        mapper: PydanticEventMapper = self.application.mapper
        prev = self.head(key, version)
        signer = self.signer()
        sign = (lambda at, head: signer.sign_head(key, at, head)) if signer is not None else None
        rows, head = mapper.chained_rows(
            key, version, datetime.now(timezone.utc), events, name, prev, by, entry, sign, envelopes
        )
        recorder: Any = self.application.recorder
        if snapshots:
            recorder.insert_rows(rows, snapshots=(self._snapshot_table, snapshots))
        elif hasattr(recorder, "insert_rows"):  # ours: RefereeSQLiteRecorder, RefereePostgresRecorder
            recorder.insert_rows(rows)
        else:
            recorder.insert_events([StoredEvent(*row) for row in rows])
        self._set_head(key, version + len(rows), head)

    def signer(self) -> Signer | None:
        """The store's signing key, which signs the head of every write (made
        on the first write of a store that has none); None for a read-only
        store without one. ``StoreError`` if it cannot be read or made (a
        role that may not create tables needs the owner to run `referee key`
        once)."""
        if self._signer is None:
            # A store that cannot read its key now (a cut connection) writes
            # nothing now: the write fails in one line, as any store failure.
            self._signer = self.side.signer(create=not self.read_only) or False
        return self._signer or None

    def head_of(self, match_id: str) -> MatchEvent:
        """The last stored event of a match, with its hash and signature (``MatchEvent.hash``, ``.sig``)."""
        key = self._key(match_id)
        with self._db_errors(f"read match {key}"):
            last = list(self.application.events.get(key, desc=True, limit=1))
        if not last:
            raise MatchNotFound(f"no match {key!r} in {self.url}")
        return last[0]

    def entered(self, match_id: str, entry: str) -> int | None:
        """The position of the first event submission ``entry`` wrote, among
        the match's latest ``ENTRY_WINDOW`` events; None if it wrote none
        there (a repeat is only ever sent soon after the first)."""
        key = self._key(match_id)
        with self._db_errors(f"read match {key}"):
            try:
                self._refuse_if_entered(key, entry, None)
            except AlreadyEntered as exc:
                return exc.chosen + 1
        return None

    def head(self, key: str, version: int) -> str:
        """The chain hash the event after ``version`` follows: the stored hash
        of event ``version`` (remembered from the last read or write, else read),
        ``GENESIS`` at 0 and after a row stored before chains (the chain then
        starts again there: ``referee.chain`` reports where)."""
        if version == 0:
            return GENESIS
        with self._lock:
            known = self._heads.get(key)
        if known is None or known[0] != version:
            rows = list(self.application.recorder.select_events(key, gt=version - 1, lte=version))
            found = None
            if rows:
                mapper: PydanticEventMapper = self.application.mapper
                split = split_chained(mapper.unseal(rows[0].state))
                found = split[1] if split else None
            known = (version, found)
            self._set_head(key, version, found)
        return known[1] or GENESIS

    def _set_head(self, key: str, version: int, head: str | None) -> None:
        with self._lock:
            current = self._heads.get(key)
            if current is None or current[0] <= version:
                self._heads[key] = (version, head)
            while len(self._heads) > self._cache_size:
                self._heads.pop(next(iter(self._heads)))

    def _reconstruct(self, key: str, upto: int | None) -> tuple[State, int, int, registry.Ruleset]:
        """Fold from the latest usable snapshot at or below ``upto`` (its
        state's ruleset), else from the empty table of the ruleset the first
        event names."""
        state: State = None
        version = 0
        outdated = False  # the latest snapshot is of a differently shaped state
        snapshots = self.application.snapshots
        interval = self.snapshot_interval
        if snapshots is not None and (upto is None or upto >= interval):
            # Any snapshot at or below ``upto`` is a correct start; the one at
            # the last multiple is usually already decoded here (a judge
            # stepping back and forth), which saves fetching it again.
            guess = 0 if upto is None else upto // interval * interval
            known = self._known_snapshots.get((key, guess)) if guess else None
            if known is not None:
                state, version = known, guess
            else:
                found = list(snapshots.get(key, desc=True, limit=1, lte=upto))
                if found:
                    state = self._snapshot_state(key, found[0])
                    version = found[0].originator_version if state is not None else 0
                outdated = bool(found) and state is None
        records = list(self.application.events.get(key, gt=version, lte=upto))
        if state is not None:
            ruleset = ruleset_of_state(state)
        elif records:
            ruleset = registry.of_first_event(records[0].event)
            state = ruleset.initial_state()
        else:
            raise MatchNotFound(f"no match {key!r} in {self.url}")
        state, version, marks = self._fold_records(key, ruleset, state, version, records)
        # Every multiple of the interval folded past here had no snapshot
        # (a station stopped between writing events and their snapshot, or
        # the log was written by older code): take them now. Not over outdated
        # ones, though: their rows hold those positions, so it would only fail.
        if not outdated:
            self._take_snapshots(key, marks)
        return state, version, len(records), ruleset

    def _fold(
        self, ruleset: registry.Ruleset, state: State, version: int, events: Iterable[Event]
    ) -> tuple[State, int, Checkpoints]:
        """Fold with the match's ruleset, keeping the states at multiples of the snapshot interval."""
        interval = self.snapshot_interval
        marks: Checkpoints = []
        evolve = ruleset.evolve
        for event in events:
            state = evolve(state, event)
            version += 1
            if version % interval == 0:
                marks.append((version, state))
        return state, version, marks

    def _marks(self, ruleset: registry.Ruleset, state: State, version: int, events: list[Event]) -> Checkpoints:
        """The states at multiples of the snapshot interval among ``events``
        (folding only up to the last such multiple, usually none)."""
        last = (version + len(events)) // self.snapshot_interval * self.snapshot_interval
        if last <= version:
            return []
        return self._fold(ruleset, state, version, events[: last - version])[2]

    def _fold_records(
        self, key: str, ruleset: registry.Ruleset, state: State, version: int, records: list[MatchEvent]
    ) -> tuple[State, int, Checkpoints]:
        for expected, record in enumerate(records, version + 1):
            if record.originator_version != expected:
                raise StoreError(
                    f"match {key} is damaged: event {expected} is missing from the log "
                    f"(the next stored one is {record.originator_version})"
                )
        if records:
            self._set_head(key, records[-1].originator_version, records[-1].hash)
        return self._fold(ruleset, state, version, (r.event for r in records))

    def _snapshot_rows(self, key: str, marks: Checkpoints) -> list[tuple[int, State, bool, tuple[Any, ...]]]:
        """The stored rows of the snapshots at ``marks``, for ``_write`` to put
        in the action's transaction, each with its version, state and whether
        it holds its cards itself. A state the codec cannot write is left
        out with a warning, as ``_take_snapshots`` does."""
        now = datetime.now(timezone.utc)
        mapper = self.application.mapper
        out = []
        for version, state in marks:
            snapshot = self._snapshot_of(key, version, now, state)
            try:
                stored = mapper.to_stored_event(snapshot)
            except Exception as exc:  # noqa: BLE001 - the events must still be stored
                self.snapshot_failures += 1
                warnings.warn(
                    f"snapshot of match {key} at event {version} not taken: {exc}", RuntimeWarning, stacklevel=3
                )
                continue
            row = (stored.originator_id, stored.originator_version, stored.topic, stored.state)
            out.append((version, state, snapshot.cards_at is None, row))
        return out

    def _take_snapshots(self, key: str, marks: Checkpoints) -> None:
        """Store the given states; a snapshot is only a shortcut, so one that
        another station stored first, or a write that fails, loses nothing."""
        snapshots = self.application.snapshots
        if snapshots is None or self.read_only:
            return
        now = datetime.now(timezone.utc)
        for version, state in marks:
            snapshot = self._snapshot_of(key, version, now, state)
            try:
                snapshots.put([snapshot])
            except _driver_errors():
                continue
            except Exception as exc:  # noqa: BLE001 - the events are stored: say so, don't fail
                # A state the codec cannot write (a new kind of value in
                # the state) must not turn a stored action into an error.
                self.snapshot_failures += 1
                warnings.warn(
                    f"snapshot of match {key} at event {version} not taken: {exc}", RuntimeWarning, stacklevel=2
                )
                continue
            self.snapshots_taken += 1
            self._know_snapshot(key, version, state, snapshot.cards_at is None)

    def _snapshot_of(self, key: str, version: int, now: datetime, state: State) -> StateSnapshot:
        """The envelope of a snapshot to store: its cards named by reference
        when a stored snapshot of the match holds these very cards."""
        with self._lock:
            home = self._cards_homes.get(key)
        cards = getattr(state, "cards", None)
        if home is not None and home[0] != version and cards is not None and cards is home[1]:
            return StateSnapshot(key, version, now, state, home[0])
        return StateSnapshot(key, version, now, state)

    def _know_snapshot(self, key: str, version: int, state: State, holds_cards: bool = False) -> None:
        """Remember a stored snapshot's state: stored snapshots never change.
        ``holds_cards``: it holds its cards itself (not by reference)."""
        with self._lock:
            self._known_snapshots[(key, version)] = state
            self._known_snapshots.move_to_end((key, version))
            while len(self._known_snapshots) > KNOWN_SNAPSHOTS:
                self._known_snapshots.popitem(last=False)
            cards = getattr(state, "cards", None)
            if holds_cards and isinstance(cards, dict):
                self._cards_homes[key] = (version, cards)
                self._cards_homes.move_to_end(key)
                while len(self._cards_homes) > self._cache_size:
                    self._cards_homes.popitem(last=False)

    def _snapshot_state(self, key: str, found: StateSnapshot, depth: int = 0) -> State:
        """The state a stored snapshot holds; None if it cannot be read (of
        another shape, or naming a snapshot of its cards that is not there or
        cannot be read either): the store then folds the events instead."""
        if found.state is not None:
            self._know_snapshot(key, found.originator_version, found.state, True)
            return found.state
        if found.cards_at is None or found.partial is None or depth >= CARDS_REFERENCES:
            return None
        at = found.cards_at
        with self._lock:
            base = self._known_snapshots.get((key, at))
        if base is None:
            snapshots = self.application.snapshots
            rows = list(snapshots.get(key, gt=at - 1, lte=at)) if snapshots is not None and at > 0 else []
            if not rows or rows[0].originator_version != at:
                return None
            base = self._snapshot_state(key, rows[0], depth + 1)
            if base is None:
                return None
        try:
            state = ruleset_of_state(base).decode_state(found.partial, base)
        except (IncompatibleSnapshot, ValueError, TypeError, KeyError):
            return None
        self._know_snapshot(key, found.originator_version, state)
        return state

    def _cached(self, key: str) -> tuple[int, State, registry.Ruleset] | None:
        with self._lock:
            item = self._cache.get(key)
            if item is not None:
                self._cache.move_to_end(key)
            return item

    def _remember(self, key: str, version: int, state: State, ruleset: registry.Ruleset) -> None:
        with self._lock:
            current = self._cache.get(key)
            if current is None or current[0] <= version:
                self._cache[key] = (version, state, ruleset)
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
