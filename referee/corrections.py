"""Judges' corrections (rule 410) and notes: rewinds, replays, skipped steps.

A correction is never an edit: it is a new event. ``Rewound`` restores the
state just after an earlier event, carrying that state so that folding stays
one pure step; the events it undoes stay in the log, retracted
(``projections.lineage``). Before a rewind, ``impact`` tells the judge what
it would undo, most recent first, and which of those events revealed hidden
information, so they can see whether a clean rewind is possible. After a
410.2 rewind to a forgotten step, the engine performs the step and can
``replay`` the player actions that followed, stopping at the first one the
corrected state no longer allows.

Every function here takes the log and the current state and returns the
events to append (an ``Applied``) or raises ``IllegalAction``; nothing here
writes anything. It knows no game: the match's first event names its
ruleset (``referee.ruleset.of_first_event``), whose ``rewinds`` say which
rules a rewind cites, which steps a table may be recorded as having skipped
and what each event revealed; the fold, the sentences and the automatic
steps are the ruleset's too (Harem Master's: ``referee.rules.harem_master.rewinds``).
"""

from __future__ import annotations

import copy
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Sequence, cast

from events.kernel import (
    ActionTaken,
    EntryUndone,
    Event,
    GameEnded,
    JudgeCalled,
    NoteAdded,
    Rewound,
    ViolationsAccepted,
)
from projections.lineage import live_positions
from referee.actions import Applied, IllegalAction, Refusal
from referee.ruleset import RewindRules, Ruleset, State, get, of_first_event


def _refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


# --- the game a log or a state is of -------------------------------------------------


def ruleset_of(log: Sequence[Event]) -> Ruleset:
    """The ruleset the log is folded and decided with, named by its first event."""
    return of_first_event(log[0] if log else None)


def ruleset_of_state(state: State) -> Ruleset:
    """The ruleset of a state no log comes with: a state that names its game
    (``game``) is that game's, any other Harem Master's (its states were
    written before games had ids)."""
    return get(getattr(state, "game", None) or None)


def rewinds_of(ruleset: Ruleset) -> RewindRules:
    """The game's correction rules; a game without them refuses every correction."""
    rules = ruleset.rewinds
    if rules is None:
        raise _refuse(ruleset.outside, f"{ruleset.name} has no judges' corrections yet.")
    return rules


def _section(rules: RewindRules) -> str:
    """The rule a refusal of a rewind cites: the section of the game's first
    rewind rule (Harem Master's 410)."""
    return rules.rules[0].partition(".")[0]


def rewind_section(log: Sequence[Event]) -> str:
    """The rule a refusal of a judge's correction of this match cites (``_section``)."""
    return _section(rewinds_of(ruleset_of(log)))


# --- finding positions ------------------------------------------------------------


def position_of_step(log: Sequence[Event], turn: int, step: str, states: Sequence[State] | None = None) -> int:
    """The position just before rule step ``step`` of turn ``turn`` began, in
    the current line of play, as the game finds it (``RewindRules.position_of_step``).
    ``states`` (see ``states_along``) saves folding the log again."""
    rules = rewinds_of(ruleset_of(log))
    states = states if states is not None else states_along(log)
    return rules.position_of_step(log, turn, step, states)


def position_before_action(log: Sequence[Event], k: int) -> int:
    """The position just before the k-th player action (from 1) of the log."""
    seen = 0
    for pos, event in enumerate(log, start=1):
        if isinstance(event, ActionTaken):
            seen += 1
            if seen == k:
                return pos - 1
    section = _section(rewinds_of(ruleset_of(log)))
    raise _refuse(section, f"The log holds {seen} player actions; there is no action {k}.")


# --- the impact report ------------------------------------------------------------


def impact(log: Sequence[Event], to: int, states: Sequence[State] | None = None) -> list[dict[str, Any]]:
    """What a rewind to just after event ``to`` would undo: the events of the
    current line of play that the new line (the line ``to`` is on) leaves out,
    most recent first, each flagged if it revealed hidden information, with
    what the rewind cannot hide of it (``RewindRules.revealed``)."""
    ruleset = ruleset_of(log)
    rules = rewinds_of(ruleset)
    states = states if states is not None else states_along(log)
    _check_target(log, to, states, ruleset)
    kept = set(live_positions(log[:to]))
    rows = [_row(log, states, pos, ruleset) for pos in reversed(live_positions(log)) if pos not in kept]
    for row in rows:
        why = rules.revealed(log[row["position"] - 1], states[to])
        row["reveals"], row["revealed"] = why is not None, why
    return rows


def brought_back(log: Sequence[Event], to: int, states: Sequence[State] | None = None) -> list[dict[str, Any]]:
    """For a rewind into a stretch an earlier rewind retracted: the retracted
    events that would be part of the game again, in log order."""
    ruleset = ruleset_of(log)
    states = states if states is not None else states_along(log)
    _check_target(log, to, states, ruleset)
    live = set(live_positions(log))
    return [_row(log, states, pos, ruleset) for pos in live_positions(log[:to]) if pos not in live]


def _row(log: Sequence[Event], states: Sequence[State], pos: int, ruleset: Ruleset) -> dict[str, Any]:
    event = log[pos - 1]
    why = rewinds_of(ruleset).reveals.get(type(event))
    return {
        "position": pos,
        "type": type(event).__name__,
        "rule": event.rule,
        "text": ruleset.describe(event, states[pos - 1]),
        "reveals": why is not None,
        "revealed": why,
    }


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a log is replayed.

    A replay keeps a state per event, all alive until it ends, and creates no
    reference cycles (events and states are plain data), yet the collector
    would walk the growing heap again and again: on a 20,000-event match that
    made replaying grow faster than the match. Reference counting still
    frees everything as usual, and the collector resumes (if it was running)
    when the replay ends, however it ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def states_along(log: Sequence[Event], states: list[State] | None = None, upto: int | None = None) -> list[State]:
    """states[i] is the state after the first i events: what every look back
    at the log (a rewind's target, what it undoes, a step's position) reads.

    Given ``states`` for a prefix of ``log``, it is extended in place to the
    whole log, so a replay that keeps its states as the log grows pays one
    ``evolve`` per event in all, and no rewind ever folds the log from event
    1 again (that made auditing a long match with many rewinds quadratic).
    ``upto`` stops after that many events of ``log``. The log's first event
    names the game whose ``evolve`` folds it."""
    ruleset = ruleset_of(log)
    out = states if states is not None else [ruleset.initial_state()]
    state = out[-1]
    evolve = ruleset.evolve
    end = len(log) if upto is None else upto
    for i in range(len(out) - 1, end):
        state = evolve(state, log[i])
        out.append(state)
    return out


def action_span(log: Sequence[Event], to: int, states: Sequence[State] | None = None) -> tuple[int, int] | None:
    """The first and last positions of the player's action whose own events
    event ``to`` falls strictly inside, or None when ``to`` ends an action
    or lies between actions (a place a rewind may go back to)."""
    start = next((p for p in range(to, 0, -1) if isinstance(log[p - 1], ActionTaken)), None)
    if start is None:
        return None
    ruleset = ruleset_of(log)
    before = states[start - 1] if states is not None else ruleset.fold(log[: start - 1])
    try:
        # log[start - 1] is an ActionTaken (found above); once per rewind, not a hot path
        size = len(ruleset.own_events(before, _action_of(cast(ActionTaken, log[start - 1]), ruleset)))
    except IllegalAction:
        return None  # a recorded log the rules refuse now: nothing to split
    end = start + size - 1
    return (start, end) if to < end else None


def _check_target(
    log: Sequence[Event], to: int, states: Sequence[State] | None = None, ruleset: Ruleset | None = None
) -> None:
    """A rewind goes back to the end of an event that is not inside a player's
    action: an action's own events are one whole (rule 410.1, ruling A8)."""
    section = _section(rewinds_of(ruleset or ruleset_of(log)))
    if not 1 <= to < len(log):
        raise _refuse(
            section,
            f"A rewind goes back to just after an event from 1 to {len(log) - 1}; {to} is not one.",
        )
    span = action_span(log, to, states)
    if span is not None:
        start, end = span
        raise _refuse(
            section,
            f"Event {to} is inside one action (events {start} to {end}): rewind to {start - 1}, "
            f"just before it, or to {end}, just after it.",
        )


# --- corrections --------------------------------------------------------------------


@dataclass
class ReplayReport:
    """How far a replay after a correction got."""

    attempted: int = 0
    replayed: int = 0
    stopped_at: dict[str, Any] | None = None  # the action and its refusal, if one was refused
    # A replay of what came after the undone action: the passes that answered
    # the windows it opened, which the corrected state no longer opens.
    left_out: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attempted": self.attempted, "replayed": self.replayed, "stopped_at": self.stopped_at}
        if self.left_out:
            out["left_out"] = self.left_out
        return out


@dataclass
class Correction(Applied):
    """The events of a judge's action, the state after them, and for a rewind
    with replay, how far the replay got."""

    replay: ReplayReport | None = None
    undone: list[dict[str, Any]] = field(default_factory=list)


def rewind(
    state: State,
    log: Sequence[Event],
    to: int,
    *,
    rule: str,
    reason: str,
    judge: str | None = None,
    replay: bool = False,
    after: bool = False,
    states: Sequence[State] | None = None,
    describe_undone: bool = True,
) -> Correction:
    """410: go back to just after event ``to``; then, for a 410.2 rewind to a
    forgotten step, the engine performs the step (``advance``) and, with
    ``replay``, applies again the player actions that followed; with
    ``after`` too, all of them but the first (the action the rewind was made
    to undo: rewound to just before action K, the replay starts at K+1).
    The rules a rewind may cite are the game's (``RewindRules.rules``).

    ``states`` (``states_along(log)``, kept by a replay as it goes) saves
    folding the log; without it the log is folded once here. A replay, which
    never shows what a rewind undid, passes ``describe_undone=False``."""
    ruleset = ruleset_of(log)
    rules = rewinds_of(ruleset)
    section = _section(rules)
    if rule not in rules.rules:
        raise _refuse(section, f"A rewind cites {' or '.join(rules.rules)}, not {rule!r}.")
    if not reason.strip():
        raise _refuse(section, "A rewind needs a reason for the log.")
    after = after and replay  # what ``after`` leaves out of the replay; no replay, nothing to leave out
    states = states if states is not None else states_along(log)
    if describe_undone:
        undone = impact(log, to, states)  # checks the target first
    else:
        _check_target(log, to, states, ruleset)
        undone = []
    restored = states[to]
    event = Rewound(
        rule=rule,
        to=to,
        reason=reason,
        judge=judge,
        replay=replay,
        after=after,
        state=ruleset.encode_state(restored, omit=("cards",)),
    )
    skip_first = after  # ``after`` names the state from here on
    events: list[Event] = [event]
    after = ruleset.evolve(state, event)
    later = [log[p - 1] for p in _line_through(log, to) if p > to]
    known = getattr(rules, "still_known", None)  # what the table saw stays known (Harem Master's ruling A36)
    if known is not None:
        for seen in known(later, after, rule):
            events.append(seen)
            after = ruleset.evolve(after, seen)
    events, after = ruleset.advance(after, events)
    report = None
    if replay:
        actions = [_action_of(e, ruleset) for e in later if isinstance(e, ActionTaken)]
        if skip_first:
            actions = actions[1:]  # the action the rewind undoes is not played again
        report = ReplayReport(attempted=len(actions))
        answering = skip_first  # right after the undone action: passes in the windows it opened
        for action in actions:
            try:
                applied = ruleset.apply(after, action, strict=True)  # only what the rules allow
            except IllegalAction as exc:
                if answering and action.do == "pass":
                    report.left_out += 1  # a window the undone action opened: it is not open now
                    continue
                report.stopped_at = {
                    "action": action.to_dict(),
                    "rule": exc.refusal.rule,
                    "message": exc.refusal.reason,
                }
                break
            events.extend(applied.events)
            after = applied.state
            report.replayed += 1
            answering = False
    return Correction(events, after, report, undone)


def _line_through(log: Sequence[Event], to: int) -> list[int]:
    """The most recent line of play that went through event ``to``: the line
    whose actions "followed" it (the current line, unless ``to`` is in a
    stretch that a rewind retracted)."""
    for end in range(len(log), to, -1):
        line = live_positions(log[:end])
        if to in line:
            return line
    return live_positions(log[:to])


def _action_of(event: ActionTaken, ruleset: Ruleset) -> Any:
    """The action a log's ``ActionTaken`` records, as the game reads its notation."""
    return ruleset.action_from_mapping({"player": event.player, "do": event.do, **event.args})


def note(state: State, text: str, judge: str | None = None) -> Correction:
    if not text.strip():
        raise _refuse("judge", "A note needs some text.")
    event = NoteAdded(text=text, judge=judge)
    return Correction([event], ruleset_of_state(state).evolve(state, event))


def call(state: State, reason: str = "", by: str | None = None) -> Correction:
    """Someone at the table calls a judge (a ``JudgeCalled`` event; it changes
    nothing on the table and stays shown until a judge answers)."""
    event = JudgeCalled(reason=reason.strip(), by=by)
    return Correction([event], ruleset_of_state(state).evolve(state, event))


def accept(state: State, reason: str, judge: str | None = None, at: int | None = None) -> Correction:
    """Leave open violations standing: the game is too far along to rewind.
    ``at``: only the violation recorded at that event (the board rules on
    one violation at a time); None: every open one."""
    ruleset = ruleset_of_state(state)
    section = _section(rewinds_of(ruleset))
    if not state.violations:
        raise _refuse(section, "There are no open violations to accept.")
    if not reason.strip():
        raise _refuse(section, "Accepting a violation needs a reason for the log.")
    chosen = list(state.violations)
    if at is not None:
        chosen = [v for v in state.violations if v.position == at]
        if not chosen:
            opened = ", ".join(str(v.position) for v in state.violations)
            raise _refuse(section, f"No open violation was recorded at event {at} (open: event {opened}).")
    event = ViolationsAccepted(
        reason=reason,
        judge=judge,
        rules=[v.rule for v in chosen],
        at=[v.position for v in chosen] if at is not None else [],
    )
    return Correction([event], ruleset.evolve(state, event))


def undo(state: State, to: int, restored: State | None, by: str, reason: str = "") -> Correction:
    """Whoever logged the last entry takes it back (the board's undo, spec:
    console.md 10): the state just after event ``to``, ``restored`` (None
    where there is no such event), comes back as a rewind would bring it back, with
    an ``EntryUndone`` naming who. Which entry may be taken
    back, and by whom, is the console's to check (it reads who entered what
    from the store); no rule is cited, since none was broken."""
    ruleset = ruleset_of_state(state)
    if restored is None or not 0 < to < state.position:
        raise _refuse("undo", f"There is no entry after event {to} to take back.")
    fields: dict[str, Any] = {"to": to, "by": by, "state": ruleset.encode_state(restored, omit=("cards",))}
    if reason.strip():
        fields["reason"] = reason.strip()
    event = EntryUndone(**fields)
    events: list[Event] = [event]
    after = ruleset.evolve(state, event)
    events, after = ruleset.advance(after, events)
    return Correction(events, after)


def skip_step(state: State, log: Sequence[Event], rule: str, reason: str = "") -> Correction:
    """Record mode: the table skipped a mandatory step; the game's
    ``RewindRules.skip_step`` says which steps it has and what mirrors the
    table, with the skip as an open violation for a judge; then the
    automatic steps that follow."""
    ruleset = ruleset_of(log)
    skipped = rewinds_of(ruleset).skip_step(state, log, rule, reason)
    events, after = ruleset.advance(ruleset.fold(skipped, state), list(skipped))
    return Correction(events, after)


def rewinds_consistent(log: Sequence[Event], states: Sequence[State] | None = None) -> list[str]:
    """Audit: every ``Rewound`` must restore exactly the state that the events
    up to its target produce. One sentence per rewind that does not.
    ``states`` are the states along ``log`` if the caller has them."""
    ruleset = ruleset_of(log)
    problems = []
    if states is None:
        with collector_paused():
            states = states_along(log)
    for pos, event in enumerate(log, start=1):
        if not isinstance(event, Rewound):
            continue
        if not 1 <= event.to < pos:
            problems.append(f"event {pos}: rewind to {event.to}, which is not an earlier event")
            continue
        expected = states[event.to]
        restored = ruleset.decode_state(event.state, base=expected)
        if restored.position != expected.position:
            # The one field a rewind's state does not carry; set on a copy, as
            # a frozen state allows (a game's state need not be mutable).
            restored = copy.copy(restored)
            object.__setattr__(restored, "position", expected.position)
        if restored != expected:
            differs = sorted(k for k in expected.__dict__ if expected.__dict__[k] != restored.__dict__.get(k))
            problems.append(
                f"event {pos}: the rewind to event {event.to} restores a different state ({', '.join(differs)} differ)"
            )
    return problems


# --- results entered by hand (tournament policy TP1) -----------------------------------


def enter_result(
    state: State, winner: str | None, draw: bool, judge: str, reason: str, *, rule: str | None = None
) -> Correction:
    """A result a judge enters by hand: one ``GameEnded`` naming the judge,
    citing the tournament policy (``TP1`` unless ``rule`` names another:
    a penalty, time called). ``reason`` is the sentence every later refusal
    quotes ("... entered by Judge Kim at 14:03 UTC"), so a player told "the
    game is over" learns who ended it and when. A match already over keeps
    its result: replacing one is ``replace_result``."""
    from referee.tournament.policy import RESULT_ENTERED

    if not judge.strip():
        raise _refuse(RESULT_ENTERED, "A result entered by hand names the judge who entered it.")
    from referee.tournament.policy import POLICIES

    if rule is not None and rule not in POLICIES:
        raise _refuse(
            RESULT_ENTERED, f"A result entered by hand cites a tournament policy ({', '.join(POLICIES)}), not {rule!r}."
        )
    seats = ruleset_of_state(state).seats
    if (winner is None) != draw or (winner is not None and winner not in seats):
        raise _refuse(RESULT_ENTERED, f"A result is a winner ({' or '.join(seats)}) or a draw.")
    if state.result is not None:
        r = state.result
        raise _refuse(
            r.rule,
            "The game is over"
            + (f": {r.reason.rstrip('.')}" if r.reason else "")
            + ". Replacing a result is a judge's command with a reason: event result with --replace REASON.",
        )
    event = GameEnded(rule=rule or RESULT_ENTERED, winner=winner, draw=draw, reason=reason, judge=judge, step="over")
    return Correction([event], ruleset_of_state(state).evolve(state, event))


def replace_result(
    state: State,
    log: Sequence[Event],
    winner: str | None,
    draw: bool,
    judge: str,
    why: str,
    reason: str,
    states: Sequence[State] | None = None,
) -> Correction:
    """Replace a finished game's result (entered by hand or played): a judge's
    rewind (the game's first rewind rule, Harem Master's 410.1) to just before its ``GameEnded``, with ``why`` in the log,
    then the new result entered by hand. Both in one write."""
    from referee.tournament.policy import RESULT_ENTERED

    if state.result is None:
        raise _refuse(RESULT_ENTERED, "The game has no result to replace: enter one without --replace.")
    if not why.strip():
        raise _refuse(RESULT_ENTERED, "Replacing a result needs a reason for the log.")
    live = live_positions(log)
    ended = next((p for p in reversed(live) if isinstance(log[p - 1], GameEnded)), None)
    if ended is None or ended < 2:
        raise _refuse(RESULT_ENTERED, "The game's result is not one a rewind can take back.")
    states = states if states is not None else states_along(log)
    to = ended - 1
    if getattr(log[ended - 1], "judge", None) is None:
        # A game the rules ended: back to just before the player's action that
        # ended it (a rewind to the automatic step itself would end it again).
        last = next((p for p in reversed(live) if p < ended and isinstance(log[p - 1], ActionTaken)), None)
        if last is None or last < 2:
            raise _refuse(RESULT_ENTERED, "The game's result is not one a rewind can take back.")
        to = last - 1
    back = rewind(
        state,
        log,
        to,
        rule=rewinds_of(ruleset_of(log)).rules[0],
        reason=f"Result replaced: {why}",
        judge=judge,
        states=states,
        describe_undone=False,
    )
    entered = enter_result(back.state, winner, draw, judge, reason)
    return Correction(back.events + entered.events, entered.state)


# --- what-if forks ----------------------------------------------------------------------


def fork(log: Sequence[Event], at: int, origin: str, by: str | None = None) -> list[Event]:
    """The first events of a what-if fork of the match whose log is ``log``,
    at event ``at``: its events 1 to ``at`` as they are (rewinds, retracted
    stretches and hidden cards included, so the fork stands exactly where the
    match stood, hidden cards still hidden, and a rewind in the fork can go
    back before ``at``), the first one naming where the fork comes from
    (``origin``: the match and the event; ``by``: who forked it). Nothing of
    the origin changes. Refused, citing the game's rewind rule, at an event
    inside one action (its events are one whole, as for a rewind);
    ``ValueError`` for a game whose first events cannot name an origin."""
    ruleset = ruleset_of(log)
    section = _section(rewinds_of(ruleset))
    if not 1 <= at <= len(log):
        raise _refuse(section, f"A fork starts just after an event from 1 to {len(log)}; {at} is not one.")
    first = log[0]
    fields = getattr(type(first), "model_fields", {})
    if "origin" not in fields:  # not a question of the rules: the game's log cannot say it
        raise ValueError(f"{ruleset.name} matches cannot be forked yet: their first event names no origin")
    if at < len(log):
        span = action_span(log, at)
        if span is not None:
            start, end = span
            raise _refuse(
                section,
                f"Event {at} is inside one action (events {start} to {end}): fork at {start - 1}, "
                f"just before it, or at {end}, just after it.",
            )
    named = {"match": origin, "at": at, "by": by}
    head = type(first).model_validate({**first.model_dump(mode="json"), "origin": named})
    return [head, *log[1:at]]
