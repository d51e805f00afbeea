"""Who entered each event of a match's log, and when: the log's columns beside its sentences, and slow decisions.

Every stored event carries the time the store wrote it (one write, one
time: an action and every automatic step it caused) and, when it was
entered at the board, who entered it ("judge Kim", "scorekeeper of
e-1a2b3c4d", "player A"; ``MatchEvent.by``). An event without one came
from a command-line station (``referee act``, ``rewind``...), and the log
says so rather than leaving the column empty. These are facts about the
store, not about the game, so they are never part of a sentence's rule
or of the hash chain; every log (``referee log``, ``log --json``, the
board's log and its full log) shows them the same way, from here.

A player's *decision* is one of their actions (``ActionTaken``): it took
the time from the write before it (when the decision came up) to its own
write. ``slow_decisions`` lists those that took longer than a threshold,
per player, for a judge's slow-play review (IPG 3.3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from events.kernel import ActionTaken, Event

COMMAND_LINE = "command line"  # where an event without ``by`` was entered
AT_THE_BOARD = "board"


class Entry(Protocol):
    """What the log reads of a stored event: the store's envelope (``referee.store.MatchEvent``)."""

    @property
    def position(self) -> int: ...

    timestamp: datetime
    event: Event
    by: str | None
    entry: str | None


def station(record: Entry) -> str:
    """Where the event was entered: the board (with the device, where the
    store knows it) or a command-line station."""
    if record.by is None:
        return COMMAND_LINE
    device = getattr(record, "device", None)  # stored by newer boards, where known
    return f"{AT_THE_BOARD} ({device})" if device else AT_THE_BOARD


def who(record: Entry) -> str:
    """Who entered it, in the log's words: "judge Kim at the board", or "a command-line station"."""
    if record.by is None:
        return "a command-line station"
    return f"{record.by} at the {station(record)}"


def columns(records: Iterable[Entry]) -> dict[int, dict[str, Any]]:
    """For each position, the log's columns: ``time`` (ISO 8601, the store's
    clock), ``by`` (None: a command-line station), ``station`` and
    ``starts``: whether the event opens an entry (the first event of a
    write, where the time or who entered it changes), so a log may name who
    entered it once per entry rather than on every automatic step."""
    out: dict[int, dict[str, Any]] = {}
    last: tuple[Any, ...] | None = None
    for r in records:
        key = (r.timestamp, r.by, r.entry)
        out[r.position] = {
            "time": r.timestamp.isoformat(),
            "by": r.by,
            "station": station(r),
            "starts": key != last,
        }
        last = key
    return out


def with_columns(rows: list[dict[str, Any]], records: Iterable[Entry]) -> list[dict[str, Any]]:
    """``rows`` (log rows with ``position``) with the columns of their events added."""
    found = columns(records)
    for row in rows:
        row.update(found.get(row["position"], {"time": None, "by": None, "station": None, "starts": False}))
    return rows


def decision_seconds(records: Sequence[Entry]) -> list[tuple[Entry, float]]:
    """Each player's action (``ActionTaken``) with the seconds it took: from
    the write before it, when the decision came up, to its own write."""
    out: list[tuple[Entry, float]] = []
    for i, r in enumerate(records):
        if i == 0 or not isinstance(r.event, ActionTaken):
            continue
        out.append((r, max(0.0, (r.timestamp - records[i - 1].timestamp).total_seconds())))
    return out


def slow_decisions(records: Sequence[Entry], threshold: float, seats: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per seat: how many decisions it made, the slow ones (over
    ``threshold`` seconds: position, seconds, the record), the longest one
    and the time all its decisions took."""
    out: dict[str, dict[str, Any]] = {
        s: {"decisions": 0, "slow": [], "longest": 0.0, "total_seconds": 0.0} for s in seats
    }
    for record, seconds in decision_seconds(records):
        player = getattr(record.event, "player", None)
        if player not in out:
            continue
        mine = out[player]
        mine["decisions"] += 1
        mine["total_seconds"] += seconds
        mine["longest"] = max(mine["longest"], seconds)
        if seconds > threshold:
            mine["slow"].append({"position": record.position, "seconds": seconds, "record": record})
    return out


def duration(seconds: float) -> str:
    """Seconds as a judge reads them: ``2:14`` (minutes and seconds), ``1:02:03``."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"
