"""What the board pages show, read from the match store: plain data for the templates.

Every hiding decision is made by the projections (rule 215): the board is
``projections.views.state_view`` for the chosen viewer and the log is
``projections.transcript.describe`` for that viewer. This module only picks
the viewer and, where the projections have no viewer at all, withholds:
the legal actions go to the judge and to the player whose decision it is
(they name that player's hand), the rewind preview to the judge (it is the
judge's view of the log), and the tables page uses the public view.

Speed: a match page at event N of a long match costs one snapshot load
(``MatchStore.state_at`` of the first event of the log window, which folds
fewer than the snapshot interval) and a fold of the window; never a replay
from event 1. For that the reader keeps each open match's log in memory and
only reads the events written since (``LogCache``): the retracted flags of
rule 410 depend on the rewinds after a position, so they come from the whole
log, which is read once per match and server, then grown.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from events.game import Event, Rewound, StepSkipped, ViolationRecorded
from projections.lineage import retracted_positions
from projections.state import GameState, evolve
from projections.views import check_viewer
from referee.notation import describe_action
from referee.rules import current_decision, legal_actions
from referee.rules import KINDS
from referee.store import MatchStore, PositionError
from referee.store.mapper import MatchEvent
from referee.web.seen import board_view, card_texts_of, sentence

LOG_BEFORE = 30  # log rows shown up to the position: what happened just before
LOG_AFTER = 10  # and after it, greyed: what comes next on the timeline
CACHED_MATCHES = 32  # match logs kept in memory
ANCHOR_REACH = 60  # events folded from the last window's start, at most, before asking the store

# The keys of ``state_view`` the board draws in its own place; any other key
# (value explanations, an agenda, open windows: whatever the view grows) is
# shown as it comes, never dropped.
VIEW_KEYS = frozenset({"match", "event", "turn", "active", "step", "result", "zones", "characters", "violations",
                       "mode", "draw_offer", "judge_call", "deal", "unaccounted"})
CHARACTER_KEYS = frozenset({"card", "id", "controller", "ready", "face_down", "items", "physical", "mental"})
VIOLATION_EVENTS = frozenset({ViolationRecorded.__name__, StepSkipped.__name__})  # flagged in the log


@dataclass(frozen=True)
class MatchLog:
    """One match's whole log as this server last read it. Never changed: a
    longer log is a new ``MatchLog``, so a page rendering from one sees its
    events and their retracted flags agree (pages run in threads)."""

    key: str  # the match id as stored
    name: str | None
    created: datetime
    events: tuple[Event, ...]
    retracted: frozenset[int]

    def grown(self, records: list[MatchEvent]) -> "MatchLog":
        """This log with the records after its end (any it already has are skipped)."""
        new = [r.event for r in records if r.originator_version > len(self.events)]
        if not new:
            return self
        events = self.events + tuple(new)
        if not any(isinstance(e, Rewound) for e in new):
            # Only a rewind retracts anything, and only what came before it.
            return replace(self, events=events)
        return replace(self, events=events, retracted=frozenset(retracted_positions(events)))


class LogCache:
    """Each open match's log, read once and then grown by the events written
    since. The store answers ``records`` from the start only; the growth reads
    the library's event store directly, after the last known position, as
    ``MatchStore.load`` itself does."""

    def __init__(self, store: MatchStore, size: int = CACHED_MATCHES) -> None:
        self.store = store
        self.size = size
        self._logs: OrderedDict[str, MatchLog] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> MatchLog:
        """The log as it is now in the store (``MatchNotFound`` if none)."""
        with self._lock:
            known = self._logs.get(match_id.strip().lower())
        if known is None:
            records = self.store.records(match_id)
            first = records[0]
            read = MatchLog(first.match_id, first.name, first.timestamp, (), frozenset()).grown(records)
        else:
            read = known.grown(list(self.store.application.events.get(known.key, gt=len(known.events))))
        with self._lock:
            current = self._logs.get(read.key)
            if current is None or len(current.events) < len(read.events):
                current = self._logs[read.key] = read  # another thread may have read further: keep the longer
            self._logs.move_to_end(read.key)
            while len(self._logs) > self.size:
                self._logs.popitem(last=False)
        return current


def log_row(position: int, event: Event, before: GameState, viewer: str, retracted: frozenset[int]) -> dict[str, Any]:
    """One row of the log as ``referee log --json`` has it."""
    return {
        "position": position,
        "type": type(event).__name__,
        "rule": event.rule,
        "ruling": event.ruling,
        "text": sentence(event, before, viewer),
        "retracted": position in retracted,
    }


def decision_of(state: GameState, viewer: str) -> dict[str, Any] | None:
    """Whose decision it is, and the legal actions for those who may read them."""
    decision = current_decision(state) if state.position else None
    if decision is None:
        return None
    shown = viewer == "judge" or viewer == decision.player
    text = KINDS[decision.kind].text if decision.kind in KINDS else decision.kind
    if decision.kind == "reveal":  # a table-dealt match: say what the table turned and why
        from referee.rules.harem_master.hidden import pending

        found = pending(state)
        text += f": {found.why}" if found is not None else ""
    return {
        "player": decision.player,
        "kind": decision.kind,
        "text": text,
        "actions": [describe_action(state, a) for a in legal_actions(state)] if shown else None,
    }


class BoardReader:
    """The pages' reads of one store (thread-safe: pages run in threads)."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.logs = LogCache(store)
        # Per match, the state at the start of the last log window shown: a
        # console logging a match moves its window a few events at a time,
        # so the next window's start is that state and the few events since
        # (not a snapshot and up to 199 events folded on every board).
        self._anchors: OrderedDict[str, tuple[int, GameState]] = OrderedDict()
        self._anchor_lock = threading.Lock()

    def state_at(self, log: MatchLog, position: int) -> GameState:
        """The state after event ``position`` of ``log``, from this reader's
        anchor when it is just before, else from the store (a snapshot)."""
        with self._anchor_lock:
            anchor = self._anchors.get(log.key)
        if anchor is not None and anchor[0] <= position < anchor[0] + ANCHOR_REACH:
            state = anchor[1]
            for event in log.events[anchor[0]:position]:
                state = evolve(state, event)
        else:
            state = self.store.state_at(log.key, position)
        with self._anchor_lock:
            self._anchors[log.key] = (position, state)
            self._anchors.move_to_end(log.key)
            while len(self._anchors) > CACHED_MATCHES:
                self._anchors.popitem(last=False)
        return state

    def page(self, match_id: str, at: int | None, viewer: str) -> dict[str, Any]:
        """Everything the match page shows at event ``at`` (None: the latest)."""
        check_viewer(viewer)
        log = self.logs.get(match_id)
        events = log.events
        version = len(events)
        position = version if at is None else at
        if not 0 <= position <= version:
            raise PositionError(f"match {log.key} has {version} events: there is no event {position}")
        first = max(0, position - LOG_BEFORE)
        state = self.state_at(log, first)
        rows: list[dict[str, Any]] = []
        board = state
        for pos in range(first + 1, min(version, position + LOG_AFTER) + 1):
            event = events[pos - 1]
            rows.append(log_row(pos, event, state, viewer, log.retracted))
            state = evolve(state, event)
            if pos == position:
                board = state
        view = board_view(board, viewer)
        view["match"] = log.key
        decision = decision_of(board, viewer)
        reveal_names = []
        if decision is not None and decision["kind"] == "reveal" and decision["actions"]:
            reveal_names = [a["card"] for a in decision["actions"] if a["do"] == "reveal"]
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
            "card_text": card_texts_of(board, view, decision["actions"] if decision else None, reveal_names),
        }

    def full_log(self, match_id: str, viewer: str) -> dict[str, Any]:
        """The whole log for ``viewer`` (the log page: one fold of every event)."""
        check_viewer(viewer)
        log = self.logs.get(match_id)
        state = self.store.state_at(log.key, 0)
        rows = []
        for pos, event in enumerate(log.events, start=1):
            rows.append(log_row(pos, event, state, viewer, log.retracted))
            state = evolve(state, event)
        return {"match": log.key, "title": log.name, "names": dict(state.names), "viewer": viewer, "log": rows,
                "version": len(log.events)}

    def events(self) -> list[dict[str, str]]:
        """Every tournament in the store, for the first page's list."""
        from referee.tournament.store import Tournaments

        return [{"event": key, "name": name} for key, name in Tournaments(self.store).list()]

    def event_page(self, event_id: str) -> dict[str, Any]:
        """A tournament's page: its standings (the projection, caught up
        first, exactly as ``referee event standings`` shows them) and every
        table of every round with its match's status and result."""
        from referee.tournament.service import Station, matches

        station = Station(self.store)
        try:
            state = station.tournaments.load(event_id)
            rows = matches(station, event_id)
            standings = station.view.standings(state.id)
        finally:
            station.close()
        rounds: dict[int, list[dict[str, Any]]] = {}
        for row in rows:
            if row["match"] and row["status"] in ("playing", "finished"):
                # Where the table's game stands, as the tables page shows it.
                game, version = self.store.load(row["match"])
                seen = self.table_row(row["match"], None, dict(game.names), game, version)
                row.update(last=seen["last"], turn=seen["turn"], step=seen["step"], decision=seen["decision"])
                # A judge is wanted at the table: called from the board, or a
                # violation recorded that a judge must rule on.
                row["judge_called"] = bool(game.judge_call or game.violations)
            rounds.setdefault(row["round"], []).append(row)
        return {
            "event": state.id,
            "name": state.name,
            "deal": state.deal,
            "players": len(state.players),
            "dropped": sorted(name for name, p in state.players.items() if getattr(p, "dropped", False)),
            "current_round": state.current_round,
            "standings": standings,
            "rounds": sorted(rounds.items(), reverse=True),
        }

    def rewind_preview(self, match_id: str, to: int) -> dict[str, Any]:
        """The dry run of a rule-410 rewind to just after event ``to``, as
        ``referee rewind --dry-run`` reports it (judge's view): nothing is written."""
        from referee import corrections
        from referee.actions import IllegalAction

        log = self.logs.get(match_id)
        try:
            undo = corrections.impact(log.events, to)
            back = corrections.brought_back(log.events, to)
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

    def tables(self) -> list[dict[str, Any]]:
        """Every stored match as a row of the tables page (public view):
        players, status, open violations and the last event."""
        rows = []
        for info in self.store.list_matches():
            state, version = self.store.load(info.id)
            rows.append(self.table_row(info.id, info.name, info.players, state, version))
        return rows

    def table_row(self, key: str, name: str | None, players: dict[str, str], state: GameState, version: int) -> dict[str, Any]:
        """One table: an event page lists its round's matches with the same rows."""
        last = None
        if version:
            before = self.store.state_at(key, version - 1)
            event = list(self.store.application.events.get(key, gt=version - 1, lte=version))[0].event
            last = log_row(version, event, before, "public", frozenset())
        view = board_view(state, "public")
        decision = decision_of(state, "public")
        return {
            "match": key,
            "title": name,
            "players": players,
            "version": version,
            "turn": view["turn"],
            "step": view["step"],
            "result": view["result"],
            "decision": decision,
            "violations": view["violations"],
            "last": last,
        }

