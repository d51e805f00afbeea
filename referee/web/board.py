"""What the board pages show, read from the match store: plain data for the templates.

Every hiding decision is the game's (Harem Master's rule 215, SCP-TCG's
402.2): the board, the log and the decision come from the match's ruleset
for the chosen viewer, through the game's own page parts where it has them
(``Ruleset.board``: Harem Master's ``referee.rules.harem_master.board``),
else from the interface alone (``anygame``: ``view``, ``describe``,
``decision``, ``legal_actions``). The legal actions go to the judge and to
whoever must decide, each card named as they may know it. The rewind
preview is the judge's; the tables page uses the public view.

Speed: a match page at event N of a long match costs one snapshot load
(``MatchStore.state_at`` of the first event of the log window, which folds
fewer than the snapshot interval) and a fold of the window; never a replay
from event 1. The log page is paged the same way (``LOG_PAGE`` rows a page,
with links to older and newer pages), so its size and cost do not grow with
the match. The retracted flags of rule 410 depend on the rewinds after a
position, so the reader keeps, for each open match, its length and its
rewinds (``LogCache``): the stored rows are scanned once per match and
server, decoding only the rewinds, then grown by the rows written since;
a page decodes only its own events.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from events.kernel import Event, Rewound, StepSkipped, ViolationRecorded
from events.names import names_of
from projections import entries
from referee.ruleset import Ruleset
from referee.store import MatchStore, PositionError
from referee.store.statecodec import ruleset_of_state
from referee.web import anygame

LOG_BEFORE = 30  # log rows shown up to the position: what happened just before
LOG_AFTER = 10  # and after it, greyed: what comes next on the timeline
LOG_PAGE = 200  # rows of one page of the log page
CACHED_MATCHES = 32  # match logs kept in memory

VIOLATION_EVENTS = frozenset({ViolationRecorded.__name__, StepSkipped.__name__})  # flagged in the log


REWOUND_TOPICS = frozenset(names_of(Rewound))  # every name a rewind's row may carry (``events.names``)

ANY_BOARD = "zones.html"  # the template of a game drawn from its ruleset alone


ZONE_PARTS = "zone_parts.html"  # what a zone of a game drawn from its core shows beyond its cards: nothing


def board_template(game: Ruleset[Any, Any]) -> str:
    """The template that draws a match of ``game``: its own (``board.TEMPLATE``), else ``ANY_BOARD``."""
    return game.board.TEMPLATE if game.board is not None else ANY_BOARD


def zone_parts(game: Ruleset[Any, Any]) -> str:
    """The macros ``ANY_BOARD`` draws a zone's details with: the game's own
    ``zone.html`` (a sandbox's protection, in its words), else ``ZONE_PARTS``."""
    if game.templates is not None and (game.templates / "zone.html").is_file():
        return f"{game.id}/zone.html"
    return ZONE_PARTS


def check_viewer_of(game: Ruleset, viewer: str) -> None:
    """Refuse a viewer the game does not know: showing the judge's view to a typo would leak."""
    if viewer not in game.viewers:
        raise ValueError(f"unknown viewer {viewer!r}: expected one of {', '.join(game.viewers)}")


@dataclass(frozen=True)
class MatchLog:
    """What this server knows of one match's log: its length and its rewinds
    (position -> the event it went back to), from which the retracted flags
    of rule 410 follow. Never changed: a longer log is a new ``MatchLog``, so
    a page rendering from one sees a length and flags that agree (pages run
    in threads). The events themselves are read a page at a time."""

    key: str  # the match id as stored
    name: str | None
    created: datetime
    version: int
    rewinds: tuple[tuple[int, int], ...] = ()
    retracted: frozenset[int] = frozenset()

    def grown(self, rows: Sequence[Any], decode: Any) -> "MatchLog":
        """This log with the stored rows after its end: only the rewinds
        among them are decoded (``decode``: the store's mapper)."""
        rows = [r for r in rows if r.originator_version > self.version]
        if not rows:
            return self
        rewinds = self.rewinds + tuple(
            (r.originator_version, decode(r).event.to) for r in rows if r.topic in REWOUND_TOPICS
        )
        version = rows[-1].originator_version
        return replace(self, version=version, rewinds=rewinds, retracted=_retracted(version, dict(rewinds)))


def _retracted(version: int, rewinds: dict[int, int]) -> frozenset[int]:
    """``projections.lineage.retracted_positions`` from the rewinds alone."""
    if not rewinds:
        return frozenset()
    out: set[int] = set()
    pos = version
    while pos >= 1:
        to = rewinds.get(pos)
        if to is not None and 0 <= to < pos:
            out.update(range(to + 1, pos))
            pos = to
        else:
            pos -= 1
    return frozenset(out)


class LogCache:
    """Each open match's log index, read once and then grown by the rows
    written since, read straight from the library's recorder after the last
    known position (as ``MatchStore.load`` itself does). Only a rewind is
    decoded; a page reads its own events (``events``), so neither the memory
    kept nor the work of a page grows with the match."""

    def __init__(self, store: MatchStore, size: int = CACHED_MATCHES) -> None:
        self.store = store
        self.size = size
        self._logs: OrderedDict[str, MatchLog] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> MatchLog:
        """The log as it is now in the store (``MatchNotFound`` if none)."""
        store = self.store
        with self._lock:
            known = self._logs.get(match_id.strip().lower())
        if known is None:
            first = store.records(match_id, 1)[0]
            known = MatchLog(first.match_id, first.name, first.timestamp, 0)
        with store._db_errors(f"read match {known.key}"):
            rows = store.application.recorder.select_events(known.key, gt=known.version)
            read = known.grown(rows, store.application.mapper.to_domain_event)
        with self._lock:
            current = self._logs.get(read.key)
            if current is None or current.version < read.version:
                current = self._logs[read.key] = read  # another thread may have read further: keep the longer
            self._logs.move_to_end(read.key)
            while len(self._logs) > self.size:
                self._logs.popitem(last=False)
        return current

    def events(self, log: MatchLog, first: int, last: int) -> list[Event]:
        """Events ``first + 1`` to ``last`` of ``log`` (positions from 1)."""
        return [r.event for r in self.records(log, first, last)]

    def records(self, log: MatchLog, first: int, last: int) -> list[Any]:
        """The stored events ``first + 1`` to ``last`` with their envelopes
        (``MatchEvent``: when each was entered, and by whom)."""
        if last <= first:
            return []
        with self.store._db_errors(f"read match {log.key}"):
            records: Iterable[Any] = self.store.application.events.get(log.key, gt=first, lte=last)  # MatchEvents
            return list(records)


def log_row(position: int, event: Event, before: Any, viewer: str, retracted: frozenset[int]) -> dict[str, Any]:
    """One row of the log as ``referee log --json`` has it, in the sentence
    of the game ``before`` is a state of."""
    return {
        "position": position,
        "type": type(event).__name__,
        "rule": event.rule,
        "ruling": getattr(event, "ruling", None),
        "text": ruleset_of_state(before).describe(event, before, viewer),
        "retracted": position in retracted,
    }


def decision_of(state: Any, viewer: str) -> dict[str, Any] | None:
    """Whose decision it is, and the legal actions for those who may read them."""
    game = ruleset_of_state(state)
    if game.board is not None:
        return game.board.decision(state, viewer)
    return anygame.decision(game, state, viewer)


class BoardReader:
    """The pages' reads of one store (thread-safe: pages run in threads)."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.logs = LogCache(store)
        self._games: dict[str, Ruleset] = {}  # a match's game never changes: its first event names it

    def ruleset(self, match_id: str) -> Ruleset:
        """The ruleset of ``match_id`` (``MatchNotFound`` if there is no such match), read once per match."""
        key = match_id.strip().lower()
        found = self._games.get(key)
        if found is None:
            found = self._games[key] = self.store.ruleset(key)
        return found

    def page(self, match_id: str, at: int | None, viewer: str) -> dict[str, Any]:
        """Everything the match page shows at event ``at`` (None: the latest):
        drawn with the game's own page parts (``Ruleset.board``) where it has
        them, else from its ruleset alone (``anygame``)."""
        log = self.logs.get(match_id)
        game = self.ruleset(log.key)
        parts = game.board
        check_viewer_of(game, viewer)
        version = log.version
        position = version if at is None else at
        if not 0 <= position <= version:
            raise PositionError(f"match {log.key} has {version} events: there is no event {position}")
        first = max(0, position - LOG_BEFORE)
        state = self.store.state_at(log.key, first)
        last = min(version, position + LOG_AFTER)
        records = self.logs.records(log, first, min(version, last + (parts.LOOK_AHEAD if parts is not None else 0)))
        events = [r.event for r in records]
        if parts is not None:
            rows = parts.log_rows(events, state, viewer, 0, last - first, log.retracted)
        else:
            rows = anygame.log_rows(game, events, state, viewer, None, log.retracted)
        rows = entries.with_columns(rows, records)  # when each was entered, and by whom
        board = state
        for event in events[: position - first]:
            board = game.evolve(board, event)
        view = parts.view(board, viewer) if parts is not None else game.view(board, viewer)
        view["match"] = log.key
        decision = parts.decision(board, viewer) if parts is not None else anygame.decision(game, board, viewer)
        return {
            "match": log.key,
            "title": log.name,
            "names": dict(board.names),
            "viewer": viewer,
            "at": position,
            "version": version,
            "live": at is None or at == version,
            "view": view,
            "decision": decision,
            "log": rows,
            "log_starts": first + 1,
            "state": board,
            "card_text": parts.page_card_texts(board, view, decision) if parts is not None else {},
            "game": game,
            "board_template": board_template(game),
            "zone_parts": zone_parts(game),
        }

    def full_log(self, match_id: str, viewer: str, start: int | None = None) -> dict[str, Any]:
        """One page of the log for ``viewer``: ``LOG_PAGE`` rows from event
        ``start`` (default: the latest page), with the first event of the
        pages before and after it (None at either end). One snapshot load,
        the page's events read and folded, however long the match."""
        log = self.logs.get(match_id)
        game = self.ruleset(log.key)
        parts = game.board
        check_viewer_of(game, viewer)
        version = log.version
        if start is None:
            start = max(1, version - LOG_PAGE + 1)
        if version and not 1 <= start <= version:
            raise PositionError(f"match {log.key} has {version} events: there is no event {start}")
        first = start - 1
        state = self.store.state_at(log.key, first)
        last = min(version, first + LOG_PAGE)
        records = self.logs.records(log, first, min(version, last + (parts.LOOK_AHEAD if parts is not None else 0)))
        events = [r.event for r in records]
        if parts is not None:
            rows = parts.log_rows(events, state, viewer, 0, last - first, log.retracted)
        else:
            rows = anygame.log_rows(game, events, state, viewer, None, log.retracted)
        rows = entries.with_columns(rows, records)  # when each was entered, and by whom
        return {
            "match": log.key,
            "title": log.name,
            "names": dict(state.names),
            "viewer": viewer,
            "log": rows,
            "version": version,
            "start": start,
            "page": LOG_PAGE,
            "older": max(1, start - LOG_PAGE) if start > 1 else None,
            "newer": start + LOG_PAGE if start + LOG_PAGE <= version else None,
            "latest": max(1, version - LOG_PAGE + 1),
        }

    def rewind_preview(self, match_id: str, to: int) -> dict[str, Any]:
        """The dry run of a rule-410 rewind to just after event ``to``, as
        ``referee rewind --dry-run`` reports it (judge's view): nothing is written."""
        from referee import corrections
        from referee.actions import IllegalAction

        log = self.logs.get(match_id)
        events = self.logs.events(log, 0, log.version)  # the judge's preview walks the whole log
        try:
            undo = corrections.impact(events, to)
            back = corrections.brought_back(events, to)
        except IllegalAction as exc:
            return {"match": log.key, "to": to, "refused": {"rule": exc.refusal.rule, "message": exc.refusal.reason}}
        return {
            "match": log.key,
            "to": to,
            "refused": None,
            "undo": undo,
            "restore": back,
            "reveals": sum(1 for r in undo if r["reveals"]),
        }
