"""The sentences of the judges' events every game shares (notes, calls, accepted violations).

Each game's transcript registers these for the kernel's events, so a note or
a judge call reads the same in every game's log and is worded in one place.
"""

from __future__ import annotations

from events.kernel import JudgeCalled, NoteAdded, ViolationsAccepted


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
    return f"{judge_words(e.judge, 'The judge')} lets {rules} stand: {e.reason.rstrip('.')}."
