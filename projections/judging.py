"""The sentences of the judges' events every game shares (notes, calls, accepted violations, undone entries).

Each game's transcript registers these for the kernel's events, so a note or
a judge call reads the same in every game's log and is worded in one place.
"""

from __future__ import annotations

from events.kernel import EntryUndone, JudgeCalled, NoteAdded, Rewound, ViolationsAccepted


def judge_words(name: str | None, nobody: str) -> str:
    """ "Judge Kim" for ``--by Kim``; a name that already says it is a judge
    ("Judge Kim", "Head Judge Kim") is written as given, capitalised since it
    starts the sentence."""
    if not name:
        return nobody
    if "judge" in name.lower().split():
        return name[:1].upper() + name[1:]
    return f"Judge {name}"


def note_sentence(e: NoteAdded) -> str:
    return f"{judge_words(e.judge, 'Judge')} notes: {e.text.rstrip('.')}."


def call_sentence(e: JudgeCalled) -> str:
    who = e.by or "The table"
    return f"{who[0].upper() + who[1:]} calls a judge" + (f": {e.reason.rstrip('.')}." if e.reason else ".")


def open_call(e: JudgeCalled) -> str:
    """What a state keeps of a call no judge has answered yet (a board's
    banner): who called, and why."""
    return (e.by or "the table") + (f": {e.reason}" if e.reason else "")


def accepted_sentence(e: ViolationsAccepted) -> str:
    rules = ", ".join(e.rules) if e.rules else "the open violations"
    if e.at:
        rules += " (recorded at event " + ", ".join(str(p) for p in e.at) + ")"
    return f"{judge_words(e.judge, 'The judge')} lets {rules} stand: {e.reason.rstrip('.')}."


def rewound_sentence(e: Rewound, position: int, replayed: str = "actions") -> str:
    """A judge's rewind at ``position`` + 1, for a game whose log reads it
    plainly: the rule, the reason, what it retracts and, with replay, that
    what followed (``replayed``: the game's word for its players' entries) is
    entered again."""
    who = judge_words(e.judge, "The judge")
    return (
        f"{who} rewinds to just after event {e.to} ({e.rule}): {e.reason.rstrip('.')}; "
        f"events {e.to + 1} to {position} are retracted"
        + (f"; the {replayed} that followed are entered again." if e.replay else ".")
    )


def undone_sentence(e: EntryUndone, position: int) -> str:
    """An undo at ``position``: who took back their entry, and what it retracts
    (the events after ``to`` and before the undo itself)."""
    who = e.by[0].upper() + e.by[1:]
    return (
        f"{who} takes back their last entry ({e.reason.rstrip('.')}): the game goes back to just after "
        f"event {e.to}; events {e.to + 1} to {position - 1} are retracted (an undo, not a rewind: no rule was broken)."
    )
