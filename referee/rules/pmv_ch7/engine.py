"""The chapter-7 procedure: the decision in front of the table, the rules' checks after every step, the automatic steps.

Between two decisions the referee does what chapter 7 does by itself, one
step at a time, so that each interrupts where its rule says:

- **checks**, first at every step (7.1.10: what an application sets off
  is done at once): an effect used whose card left the field is void
  (7.3.1.b); an α or β starts or stops applying (7.4.5, 7.4.6); a lasting
  effect ends; a waiting effect's situation comes (7.8.1); a γ's condition
  is met (7.4.7.c);
- **the procedure's steps**, when no check has anything to do: the next
  waiting effect to process, even within a
  resolution (7.1.10); else the next clause of the effect being resolved
  (7.1.9); else, nothing being resolved, the next γ (7.4.7.c); else, the
  interference has nothing left to resolve, its end (ruling:P12).

The table decides only where a player must: which of their effects resolves
next (7.1.6.a, 7.1.17), whether an optional α applies (7.4.5.f); otherwise
it is free to enter the next thing (a player's use of an effect, or what
another chapter does), for either seat.
"""

from __future__ import annotations

from dataclasses import replace

from events.kernel import Event
from events.pmv_ch7.effects import AutoApplied, InterferenceEnded
from projections.pmv_ch7.state import Table, parse_ref, ready_index
from referee.actions import Refusal
from referee.moves import Context, Decision, Events
from referee.rules.pmv_ch7 import activated, automatic, resolution
from referee.rules.pmv_ch7.common import MOVES, OUTSIDE, OUTSIDE_WORDS, Action, refuse
from referee.ruleset import Loop, Loops

FREE_MOVES = ("use", "resolve", "apply", "play", "happen", "move", "pass_turn", "priority")
FREE = Decision(
    None,
    "next",
    OUTSIDE,
    "enter the next thing: an effect used, applied or resolved, or what another chapter does "
    "(docs/games/pmv-ch7.md lists them)",
    moves=FREE_MOVES,
    extra={"rule": OUTSIDE},
)


def decision(state: Table) -> Decision | None:
    """Who must act now: an optional α's player (7.4.5.f), a player ordering
    their effects (7.1.6.a), else anyone, entering the next thing."""
    if not state.cards:
        return None
    if state.asking is not None:
        owner = state.cards[parse_ref(state.asking)[0]].owner
        return Decision(
            owner,
            "choose",
            "7.4.5.f",
            f"choose whether {state.asking} applies (its condition is met)",
            moves=("choose",),
            extra={"rule": "7.4.5.f"},
        )
    found = resolution.choosing(state)
    if found is not None:
        rule = resolution.order_rule(state)
        return Decision(
            found[0],
            "order",
            rule,
            f"choose which of their effects resolves next: {', '.join(found[1])}",
            moves=("order",),
            extra={"rule": rule},
        )
    return FREE


def checks(state: Table) -> list[Event] | None:
    """What the rules check after every step, one change at a time."""
    if state.asking is not None:
        return None
    return (
        activated.voided(state)
        or automatic.transition(state)
        or resolution.lasting_ends(state)
        or resolution.waiting_come(state)
        or automatic.gamma_check(state)
    )


def automatic_step(state: Table) -> list[Event] | None:
    """The next automatic step, None at a decision or with nothing to do:
    the rules' checks first, then the next step of a resolution. (The checks
    are steps of their own rather than the kernel's ``checks``, whose steps
    the kernel does not count: α and β that switch each other on and off
    without end are a loop it must see, ``LOOPS``.)"""
    checked = checks(state)
    if checked:
        return checked
    if state.asking is not None or resolution.choosing(state) is not None:
        return None
    if ready_index(state) is not None:
        return resolution.begin_next(state)
    if state.frames:
        return resolution.step(state)
    if state.interference is not None and not state.interference.waiting and state.using is None:
        return [InterferenceEnded.trusted(rule="7.3.6", ruling="P12")]
    return None


def elsewhere(state: Table, a: Action, d: Decision | None, ctx: Context) -> Events:
    """An action that answers no decision in front of the table: a choice
    nobody is asked for, or anything while a player must choose."""
    if d is None:
        raise refuse(OUTSIDE, "This position has no cards: nothing chapter 7 decides can happen.")
    if a.do not in MOVES:
        raise refuse(OUTSIDE, f"{a.do!r} is {OUTSIDE_WORDS}; its actions are {', '.join(MOVES)}.")
    if d.kind == "next":
        if a.do == "choose":
            automatic.choice_locked(state, a)
        raise refuse("7.1.6.a", "No effects are waiting for their player to choose their order.")
    if d.player is not None and a.player != d.player:
        raise refuse(d.rule, f"{d.player} must first {d.text} ({d.rule}).")
    raise refuse(d.rule, f"{d.player} must first {d.text} ({d.rule}); {a.do} waits until then.")


def canonical(state: Table, a: Action) -> Action:
    """``a`` as the legal list writes it: a condition coming to hold without ``holds: true``."""
    if a.do == "happen" and a.holds is True:
        return replace(a, holds=None)
    return a


def _loop(state: Table, key: object) -> Loop:
    what = f"{key} starts and stops applying without end" if key is not None else "the automatic steps never end"
    return Loop(
        Refusal(
            OUTSIDE, f"This sets off a loop: {what}. Chapter 7 does not say how such a loop ends ({OUTSIDE_WORDS})."
        ),
        key,
    )


LOOPS: Loops[Table] = Loops(key=lambda e: e.effect if isinstance(e, AutoApplied) else None, refusal=_loop, repeats=50)

MOVES.elsewhere = elsewhere
MOVES.canonical = canonical
