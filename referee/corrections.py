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
writes anything.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Sequence

from events.game import (
    ActionTaken,
    CardMilled,
    CardMovedToStack,
    CardRevealed,
    CastlesShuffled,
    CharacterPlayed,
    CharactersUntapped,
    Event,
    EventPlayed,
    GameEnded,
    HandDrawn,
    ItemPlayed,
    JudgeCalled,
    MulliganTaken,
    NoteAdded,
    OpeningsRevealed,
    PositionSetUp,
    RandomNumberApplied,
    Rewound,
    StackReturnedToHand,
    StackSizeSet,
    StepSkipped,
    TurnOrderCardsTurned,
    TurnStarted,
    ViolationRecorded,
    ViolationsAccepted,
)
from projections.codec import encode_state
from projections.lineage import live_positions
from projections.state import GameState, evolve, fold
from projections.transcript import describe
from referee.actions import Action, Applied, IllegalAction, Refusal
from referee.rules import advance, apply, current_decision, own_events

REWIND_RULES = ("410.1", "410.2")
SKIPPABLE = ("301", "302", "303", "309", "214.2e")

# Events that showed a player something hidden, and what: a judge weighing a
# rewind must know that the table has already seen these (DESIGN: rule 410).
REVEALS: dict[type[Event], str] = {
    CastlesShuffled: "a shuffle: the castles' order was decided",
    TurnOrderCardsTurned: "cards turned face up for the turn order",
    HandDrawn: "cards moved into a hand",
    MulliganTaken: "cards moved into a hand",
    StackReturnedToHand: "cards moved into a hand",
    OpeningsRevealed: "the opening characters were turned face up",
    RandomNumberApplied: "a card turned face up for its random number",
    CardMilled: "a castle card turned face up into the discard",
    CharacterPlayed: "a card from a hidden hand shown on the field",
    EventPlayed: "a card from a hidden hand shown in the discard",
    ItemPlayed: "a card from a hidden hand shown on the field",
    CardRevealed: "a hidden card named by the table",
}


def _refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


# --- finding positions ------------------------------------------------------------


def position_of_step(log: Sequence[Event], turn: int, step: str, states: Sequence[GameState] | None = None) -> int:
    """The position just before rule step ``step`` of turn ``turn`` began, in
    the current line of play: the first position after which the procedure
    stands at that step of that turn (for a step that waits for a player, such
    as 309, that is before the player's action, so a replay applies it again).
    ``states`` (see ``states_along``) saves folding the log again."""
    states = states if states is not None else states_along(log)
    line = [0, *live_positions(log)]
    if step in ("300", "300.1"):
        for pos in line[1:]:
            event = log[pos - 1]
            if isinstance(event, (TurnStarted, PositionSetUp)) and event.turn == turn:
                return pos - 1
    want = "306" if step == "305" else step  # 305 is the main phase's window
    seen_turn = False
    for pos in line:
        s = states[pos]
        if s.turn == turn and s.step not in ("new", "over"):
            seen_turn = True
            if s.step == want:
                return pos
    if not seen_turn:
        raise _refuse("410", f"Turn {turn} is not in the current line of play.")
    raise _refuse("410", f"Step {step} of turn {turn} is not in the log.")


def position_before_action(log: Sequence[Event], k: int) -> int:
    """The position just before the k-th player action (from 1) of the log."""
    seen = 0
    for pos, event in enumerate(log, start=1):
        if isinstance(event, ActionTaken):
            seen += 1
            if seen == k:
                return pos - 1
    raise _refuse("410", f"The log holds {seen} player actions; there is no action {k}.")


# --- the impact report ------------------------------------------------------------


def impact(log: Sequence[Event], to: int, states: Sequence[GameState] | None = None) -> list[dict[str, Any]]:
    """What a rewind to just after event ``to`` would undo: the events of the
    current line of play that the new line (the line ``to`` is on) leaves out,
    most recent first, each flagged if it revealed hidden information."""
    states = states if states is not None else states_along(log)
    _check_target(log, to, states)
    kept = set(live_positions(log[:to]))
    rows = [_row(log, states, pos) for pos in reversed(live_positions(log)) if pos not in kept]
    for row in rows:
        event = log[row["position"] - 1]
        if isinstance(event, CardRevealed):
            row["revealed"] = _cannot_hide(event, states[to])
    return rows


def _cannot_hide(event: CardRevealed, restored: GameState) -> str:
    """A table-dealt match: a rewind gives the card back its place, unknown to
    the referee, but nobody at the table forgets what was shown."""
    where = restored.where(event.card)
    text = f"{event.player}'s {event.name} was shown face up ({event.rule}); the rewind cannot hide it again"
    if where == f"{event.player}.castle":
        pos = restored.zones[event.player].castle.index(event.card) + 1
        return text + f": it returns to {event.player}'s castle, {_nth(pos)} from the top, a position both players know"
    if where == f"{event.player}.hand":
        return text + f": it goes back into {event.player}'s hand as an unknown card, but both players have seen it"
    if where == f"{event.player}.action_stack":
        return (
            text
            + f": it goes back to {event.player}'s action-cost stack as an unknown card, but both players have seen it"
        )
    return text


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def brought_back(log: Sequence[Event], to: int, states: Sequence[GameState] | None = None) -> list[dict[str, Any]]:
    """For a rewind into a stretch an earlier rewind retracted: the retracted
    events that would be part of the game again, in log order."""
    states = states if states is not None else states_along(log)
    _check_target(log, to, states)
    live = set(live_positions(log))
    return [_row(log, states, pos) for pos in live_positions(log[:to]) if pos not in live]


def _row(log: Sequence[Event], states: Sequence[GameState], pos: int) -> dict[str, Any]:
    event = log[pos - 1]
    why = REVEALS.get(type(event))
    return {
        "position": pos,
        "type": type(event).__name__,
        "rule": event.rule,
        "text": describe(event, states[pos - 1]),
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


def states_along(
    log: Sequence[Event], states: list[GameState] | None = None, upto: int | None = None
) -> list[GameState]:
    """states[i] is the state after the first i events: what every look back
    at the log (a rewind's target, what it undoes, a step's position) reads.

    Given ``states`` for a prefix of ``log``, it is extended in place to the
    whole log, so a replay that keeps its states as the log grows pays one
    ``evolve`` per event in all, and no rewind ever folds the log from event
    1 again (that made auditing a long match with many rewinds quadratic).
    ``upto`` stops after that many events of ``log``."""
    out = states if states is not None else [fold([])]
    state = out[-1]
    end = len(log) if upto is None else upto
    for i in range(len(out) - 1, end):
        state = evolve(state, log[i])
        out.append(state)
    return out


def action_span(log: Sequence[Event], to: int, states: Sequence[GameState] | None = None) -> tuple[int, int] | None:
    """The first and last positions of the player's action whose own events
    event ``to`` falls strictly inside, or None when ``to`` ends an action
    or lies between actions (a place a rewind may go back to)."""
    start = next((p for p in range(to, 0, -1) if isinstance(log[p - 1], ActionTaken)), None)
    if start is None:
        return None
    before = states[start - 1] if states is not None else fold(log[: start - 1])
    try:
        size = len(own_events(before, _action_of(log[start - 1])))
    except IllegalAction:
        return None  # a recorded log the rules refuse now: nothing to split
    end = start + size - 1
    return (start, end) if to < end else None


def _check_target(log: Sequence[Event], to: int, states: Sequence[GameState] | None = None) -> None:
    """A rewind goes back to the end of an event that is not inside a player's
    action: an action's own events are one whole (rule 410.1, ruling A8)."""
    if not 1 <= to < len(log):
        raise _refuse(
            "410",
            f"A rewind goes back to just after an event from 1 to {len(log) - 1}; {to} is not one.",
        )
    span = action_span(log, to, states)
    if span is not None:
        start, end = span
        raise _refuse(
            "410",
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

    def to_json(self) -> dict[str, Any]:
        return {"attempted": self.attempted, "replayed": self.replayed, "stopped_at": self.stopped_at}


@dataclass
class Correction(Applied):
    """The events of a judge's action, the state after them, and for a rewind
    with replay, how far the replay got."""

    replay: ReplayReport | None = None
    undone: list[dict[str, Any]] = field(default_factory=list)


def rewind(
    state: GameState,
    log: Sequence[Event],
    to: int,
    *,
    rule: str,
    reason: str,
    judge: str | None = None,
    replay: bool = False,
    states: Sequence[GameState] | None = None,
    describe_undone: bool = True,
) -> Correction:
    """410: go back to just after event ``to``; then, for a 410.2 rewind to a
    forgotten step, the engine performs the step (``advance``) and, with
    ``replay``, applies again the player actions that followed.

    ``states`` (``states_along(log)``, kept by a replay as it goes) saves
    folding the log; without it the log is folded once here. A replay, which
    never shows what a rewind undid, passes ``describe_undone=False``."""
    if rule not in REWIND_RULES:
        raise _refuse("410", f"A rewind cites 410.1 or 410.2, not {rule!r}.")
    if not reason.strip():
        raise _refuse("410", "A rewind needs a reason for the log.")
    states = states if states is not None else states_along(log)
    if describe_undone:
        undone = impact(log, to, states)  # checks the target first
    else:
        _check_target(log, to, states)
        undone = []
    restored = states[to]
    event = Rewound(
        rule=rule,
        to=to,
        reason=reason,
        judge=judge,
        replay=replay,
        state=encode_state(restored, omit=("cards",)),
    )
    events: list[Event] = [event]
    after = evolve(state, event)
    events, after = advance(after, events)
    report = None
    if replay:
        later = [log[p - 1] for p in _line_through(log, to) if p > to]
        actions = [_action_of(e) for e in later if isinstance(e, ActionTaken)]
        report = ReplayReport(attempted=len(actions))
        for action in actions:
            try:
                applied = apply(after, action, strict=True)  # only what the rules allow
            except IllegalAction as exc:
                report.stopped_at = {
                    "action": action.to_dict(),
                    "rule": exc.refusal.rule,
                    "message": exc.refusal.reason,
                }
                break
            events.extend(applied.events)
            after = applied.state
            report.replayed += 1
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


def _action_of(event: ActionTaken) -> Action:
    args = dict(event.args)
    for key in ("cards", "targets"):
        if key in args and args[key] is not None:
            args[key] = tuple(args[key])
    return Action(player=event.player, do=event.do, **args)


def note(state: GameState, text: str, judge: str | None = None) -> Correction:
    if not text.strip():
        raise _refuse("judge", "A note needs some text.")
    event = NoteAdded(text=text, judge=judge)
    return Correction([event], evolve(state, event))


def call(state: GameState, reason: str = "", by: str | None = None) -> Correction:
    """Someone at the table calls a judge (a ``JudgeCalled`` event; it changes
    nothing on the table and stays shown until a judge answers)."""
    event = JudgeCalled(reason=reason.strip(), by=by)
    return Correction([event], evolve(state, event))


def accept(state: GameState, reason: str, judge: str | None = None) -> Correction:
    """Leave the open violations standing: the game is too far along to rewind."""
    if not state.violations:
        raise _refuse("410", "There are no open violations to accept.")
    if not reason.strip():
        raise _refuse("410", "Accepting a violation needs a reason for the log.")
    event = ViolationsAccepted(reason=reason, judge=judge, rules=[v.rule for v in state.violations])
    return Correction([event], evolve(state, event))


def skip_step(state: GameState, log: Sequence[Event], rule: str, reason: str = "") -> Correction:
    """Record mode: the table skipped a mandatory step. The state then mirrors
    the table, with the skip as an open violation (410.2) for a judge."""
    if state.mode != "record":
        raise _refuse(
            "410.2", "Skipped steps are recorded only in record mode; in strict mode the referee performs every step."
        )
    if rule not in SKIPPABLE:
        raise _refuse("410.2", f"Only steps {', '.join(SKIPPABLE)} can be recorded as skipped, not {rule}.")
    player = state.active
    cards: list[str] = []
    if rule == "309":
        d = current_decision(state)
        if d is None or d.kind != "hand_limit":
            raise _refuse("309", "Step 309 is not waiting for discards now.")
    elif rule == "214.2e":
        # The table kept characters over the limit (two of one name, or more
        # than six): no discard is asked of that player while it stays open.
        d = current_decision(state)
        if d is None or d.kind != "same_name":
            raise _refuse("214.2e", "Nobody has characters over the 214.2e limits to discard now.")
        player = d.player
    else:
        cards = _cards_of_this_turn(log, rule)
    text = f"The table skipped step {rule}" + (f": {reason.rstrip('.')}" if reason else "") + "."
    step = "310" if rule == "309" else None
    # A castle that fell during the skipped 303 did not fall at the table: the
    # game goes on from 304 (a 410.2 rewind to the step ends it again).
    resumes = rule == "303" and state.result is not None and state.result.rule in ("102.3", "103.2")
    if resumes:
        step = "304"
    events: list[Event] = [
        StepSkipped(rule=rule, player=player, cards=cards, reason=reason, step=step, resumes=resumes),
        ViolationRecorded(rule=rule, player=player, reason=text),
    ]
    after = state
    for event in events:
        after = evolve(after, event)
    events, after = advance(after, events)
    return Correction(events, after)


def _cards_of_this_turn(log: Sequence[Event], rule: str) -> list[str]:
    """The cards the engine moved for ``rule`` in the current turn, provided no
    player has acted since (a skip is recorded when it happens)."""
    live = live_positions(log)
    moved: list[str] = []
    found = False
    for pos in reversed(live):
        event = log[pos - 1]
        if isinstance(event, (TurnStarted, PositionSetUp)):
            break
        if isinstance(event, StepSkipped) and event.rule == rule:  # twice would put the cards back twice
            raise _refuse("410.2", f"Step {rule} is already recorded as skipped this turn.")
        if isinstance(event, ActionTaken):
            raise _refuse(
                "410.2",
                f"Record a skipped {rule} before the next action; "
                "once play has gone on, a judge rewinds to the step instead (410.2).",
            )
        if rule == "301" and isinstance(event, CharactersUntapped):
            moved, found = list(event.cards), True
        elif rule == "302" and isinstance(event, StackReturnedToHand):
            moved, found = list(event.cards), True
        elif rule == "303" and isinstance(event, (CardMovedToStack, StackSizeSet)):
            found = True
            if isinstance(event, CardMovedToStack):
                moved.append(event.card)  # walking backwards: the stack's top first
    if not found:
        raise _refuse("410.2", f"Step {rule} of this turn is not in the log, so there is nothing to record as skipped.")
    return moved


def rewinds_consistent(log: Sequence[Event], states: Sequence[GameState] | None = None) -> list[str]:
    """Audit: every ``Rewound`` must restore exactly the state that the events
    up to its target produce. One sentence per rewind that does not.
    ``states`` are the states along ``log`` if the caller has them."""
    from projections.codec import decode_state

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
        restored = decode_state(event.state, base=expected)
        restored.position = expected.position
        if restored != expected:
            differs = sorted(k for k in expected.__dict__ if expected.__dict__[k] != restored.__dict__.get(k))
            problems.append(
                f"event {pos}: the rewind to event {event.to} restores a different state ({', '.join(differs)} differ)"
            )
    return problems


# --- results entered by hand (tournament policy TP1) -----------------------------------


def enter_result(
    state: GameState, winner: str | None, draw: bool, judge: str, reason: str, *, rule: str | None = None
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
    if (winner is None) != draw or winner not in (None, "A", "B"):
        raise _refuse(RESULT_ENTERED, "A result is a winner (A or B) or a draw.")
    if state.result is not None:
        r = state.result
        raise _refuse(
            r.rule,
            "The game is over"
            + (f": {r.reason.rstrip('.')}" if r.reason else "")
            + ". Replacing a result is a judge's command with a reason (event result --replace --reason).",
        )
    event = GameEnded(rule=rule or RESULT_ENTERED, winner=winner, draw=draw, reason=reason, judge=judge, step="over")
    return Correction([event], evolve(state, event))


def replace_result(
    state: GameState,
    log: Sequence[Event],
    winner: str | None,
    draw: bool,
    judge: str,
    why: str,
    reason: str,
    states: Sequence[GameState] | None = None,
) -> Correction:
    """Replace a finished game's result (entered by hand or played): a judge's
    410.1 rewind to just before its ``GameEnded``, with ``why`` in the log,
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
        rule="410.1",
        reason=f"Result replaced: {why}",
        judge=judge,
        states=states,
        describe_undone=False,
    )
    entered = enter_result(back.state, winner, draw, judge, reason)  # type: ignore[arg-type]
    return Correction(back.events + entered.events, entered.state)
