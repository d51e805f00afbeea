"""One sentence per event of a 幻想郷夢紀行 §4 match, as each viewer may know it.

A card is named to a viewer who may read its face before or after the event
(``views.sees``); otherwise it is "a card", so nobody learns another
player's hand or a face-down pile from the log. Each sentence is registered
by its event class beside its function (``SENTENCES``), and the tests check
every event class has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.gensokyo.table import (
    CardDiscarded,
    CardDrawn,
    CardMoved,
    ChoiceAsked,
    CostPaid,
    DiscardDenied,
    DrawStopped,
    EffectNotResolved,
    EffectResolved,
    EffectUsed,
    KiPaid,
    KiRecovered,
    LineApplied,
    LineSkipped,
    PlayerEliminated,
    ResolutionBegan,
    TableSetUp,
)
from events.kernel import ActionTaken, EntryUndone, Event, JudgeCalled, NoteAdded, Rewound, ViolationRecorded
from projections.by_type import ByType
from projections.gensokyo.state import SHARED, Entry, Table, evolve
from projections.gensokyo.views import check_viewer, sees, zone_words
from projections.judging import call_sentence, note_sentence, rewound_sentence, undone_sentence

SENTENCES: ByType[Callable[[Any, Table, Table, str], str]] = ByType("sentence")

QUESTIONS = {
    "cost": "whether to pay the hand cost",
    "ability_cost": "which cards pay the hand cost",
    "discard": "which cards to discard",
    "choose": "which character recovers",
}


def _card(before: Table, after: Table, card: str | None, viewer: str) -> str:
    if card is None:
        return "?"
    if (sees(before, card, viewer) or sees(after, card, viewer)) and card in before.cards:
        return before.cards[card].name
    return "a card"


def _plural(n: int, word: str = "card") -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _source(state: Table, e: Entry) -> str:
    """What an effect on the stack is, in words everyone may read (it is face up)."""
    if e.kind == "ability":
        return f"{e.ability} of {state.name(e.card)}"
    if e.kind == "action":
        return f"{e.player}'s action ({e.text or 'an action'})"
    return state.name(e.card)


def _line(state: Table, n: int) -> str:
    top = state.top()
    if top is None or not 0 <= n < len(top.lines):
        return f"line {n + 1}"
    return f"line {n + 1} of {_source(state, top)} ({top.lines[n]})"


@SENTENCES.on(TableSetUp)
def _set_up(e: TableSetUp, before: Table, after: Table, viewer: str) -> str:
    piles = ", ".join(f"{zone_words(z)} {len(e.zones.get(z, []))}" for z in SHARED)
    hands = "; ".join(
        f"{seat}: hand {len(e.zones.get(f'{seat}.hand', []))}, party {len(e.zones.get(f'{seat}.party', []))}"
        for seat in ("A", "B")
    )
    return f"A position is set up by hand ({piles}; {hands})."


@SENTENCES.on(ActionTaken)
def _action_taken(e: ActionTaken, before: Table, after: Table, viewer: str) -> str:
    shown: list[str] = []
    for key, value in e.args.items():
        if key == "card" and isinstance(value, str) and value in before.cards:
            value = _card(before, after, value, viewer)
        elif key == "cards" and isinstance(value, list):
            value = "[" + ", ".join(_card(before, after, c, viewer) for c in value) + "]"
        shown.append(f"{key}: {value}")
    return f"{e.player}: {e.do}" + (f" ({', '.join(shown)})" if shown else "") + "."


@SENTENCES.on(CardMoved)
def _card_moved(e: CardMoved, before: Table, after: Table, viewer: str) -> str:
    was = before.where(e.card)
    source = zone_words(was) if was is not None else "the effects waiting to resolve"
    text = f"{_card(before, after, e.card, viewer)} goes from {source} to {zone_words(e.to)}"
    if e.to in SHARED:
        text += f", at the {e.at}"
    if e.asked is not None and e.asked != e.to:
        why = {
            "4-7b": "人妖の山 holds characters only: a card that is not one goes to 幻想",
            "4-7c": "山札 and 幻想 hold no character: a character goes to the bottom of 人妖の山",
        }
        reasons = "; ".join(f"{why.get(r, r)} ({r})" for r in e.redirected_by)
        text += f"; it was sent to {zone_words(e.asked)}, but {reasons}"
    return text + "."


@SENTENCES.on(CardDrawn)
def _card_drawn(e: CardDrawn, before: Table, after: Table, viewer: str) -> str:
    how = {"活力": "as 活力", "ドロー": "(a plain draw, not 活力)", "ドローフェイズ": "in the draw phase"}[e.kind]
    return f"{e.player} draws {_card(before, after, e.card, viewer)} {how} ({e.rule})."


@SENTENCES.on(DrawStopped)
def _draw_stopped(e: DrawStopped, before: Table, after: Table, viewer: str) -> str:
    why = {
        "4-6a": f"{e.player}'s hand is at its maximum ({before.maximum(e.player)}), and nobody draws at or above it, "
        "活力 and the draw phase included",
        "4-6c": "山札 is empty, and it is never rebuilt (4-6b): nobody can draw",
        "4-1d": f"an effect in force denies {e.player} this kind of draw ({e.kind}); "
        "活力 and plain draws are told apart",
    }.get(e.rule, e.rule)
    return f"{e.player} was to draw {_plural(e.wanted)} ({e.kind}) and draws {e.drawn}: {why} ({e.rule})."


@SENTENCES.on(CardDiscarded)
def _card_discarded(e: CardDiscarded, before: Table, after: Table, viewer: str) -> str:
    how = {"疲労": "as 疲労", "捨て": "(a plain discard, not 疲労)", "cost": "to pay a hand cost"}[e.kind]
    to = f"to {zone_words(e.to)}"
    if e.redirected_by:
        to += ", at the bottom: a character never goes to 幻想 (4-7c)"
    return f"{e.player} discards {_card(before, after, e.card, viewer)} {how}, {to} ({e.rule})."


@SENTENCES.on(DiscardDenied)
def _discard_denied(e: DiscardDenied, before: Table, after: Table, viewer: str) -> str:
    return (
        f"{e.player} was to discard {_plural(e.wanted)} ({e.kind}) and discards none: an effect in force denies it "
        "this kind of discard; 疲労 and plain discards are told apart (4-1d)."
    )


@SENTENCES.on(EffectUsed)
def _effect_used(e: EffectUsed, before: Table, after: Table, viewer: str) -> str:
    lines = " / ".join(e.lines)
    waiting = " It interrupts what waits to resolve (4-5a)." if before.stack else ""
    if e.kind == "travel":
        text = f"{e.player} moves to {_card(before, after, e.card, viewer)} and gets its effect: {lines}."
    elif e.kind == "intervention":
        text = f"{e.player} uses {_card(before, after, e.card, viewer)} (介入): {lines}."
    elif e.kind == "ability":
        text = f"{_card(before, after, e.card, viewer)} ({e.player}) uses {e.ability} [{e.timing}]: {lines}."
    else:
        text = f"{e.player} takes an action: {e.text or 'an action outside §4'}."
    return text + waiting


@SENTENCES.on(ResolutionBegan)
def _resolution_began(e: ResolutionBegan, before: Table, after: Table, viewer: str) -> str:
    top = before.top()
    if top is None:
        return "Nothing waits to resolve."
    below = before.stack[-2] if len(before.stack) > 1 else None
    first = f", before {_source(before, below)}, which it interrupted" if below is not None else ""
    return f"Nobody interrupts: {_source(before, top)} resolves now{first} (4-5b)."


@SENTENCES.on(ChoiceAsked)
def _choice_asked(e: ChoiceAsked, before: Table, after: Table, viewer: str) -> str:
    many = f" ({_plural(e.n)})" if e.n else ""
    return f"Resolving {_line(before, e.line)}, {e.player} chooses {QUESTIONS[e.question]}{many} ({e.rule})."


@SENTENCES.on(CostPaid)
def _cost_paid(e: CostPaid, before: Table, after: Table, viewer: str) -> str:
    return f"{e.player} has paid the costs of {_line(before, e.line)} ({e.rule})."


@SENTENCES.on(LineSkipped)
def _line_skipped(e: LineSkipped, before: Table, after: Table, viewer: str) -> str:
    return f"{_line(before, e.line)[0].upper()}{_line(before, e.line)[1:]} has no effect: {e.reason} ({e.rule})."


@SENTENCES.on(LineApplied)
def _line_applied(e: LineApplied, before: Table, after: Table, viewer: str) -> str:
    text = _line(before, e.line)
    if e.abstract:
        return f"{text[0].upper()}{text[1:]} takes effect; what it does is outside §4 ({e.rule})."
    return f"{text[0].upper()}{text[1:]} has taken effect ({e.rule})."


@SENTENCES.on(KiPaid)
def _ki_paid(e: KiPaid, before: Table, after: Table, viewer: str) -> str:
    left = after.ki.get(e.card, 0)
    zero = ": it goes to the bottom of 人妖の山 (4-4g)" if left == 0 else ""
    return f"{before.name(e.card)} pays {e.amount} 気力 ({before.ki.get(e.card, 0)} to {left}){zero} ({e.rule})."


@SENTENCES.on(KiRecovered)
def _ki_recovered(e: KiRecovered, before: Table, after: Table, viewer: str) -> str:
    cap = f", not {e.asked}: never above its printed 気力 (ruling:G13)" if e.amount != e.asked else ""
    return f"{before.name(e.card)} recovers {e.amount} 気力, to {after.ki.get(e.card, 0)}{cap} ({e.rule})."


@SENTENCES.on(EffectResolved)
def _effect_resolved(e: EffectResolved, before: Table, after: Table, viewer: str) -> str:
    top = before.top()
    done = _source(before, top) if top is not None else "The effect"
    below = after.top()
    then = f"; {_source(after, below)} waits again, and may be interrupted anew (4-5d)" if below is not None else ""
    return f"{done} has resolved{then}."


@SENTENCES.on(EffectNotResolved)
def _effect_not_resolved(e: EffectNotResolved, before: Table, after: Table, viewer: str) -> str:
    top = before.top()
    done = _source(before, top) if top is not None else "The effect"
    return f"{done} is not resolved: {e.reason} ({e.rule})."


@SENTENCES.on(PlayerEliminated)
def _eliminated(e: PlayerEliminated, before: Table, after: Table, viewer: str) -> str:
    return f"{e.player} drops out (脱落), as a rule outside §4 decides; an action of theirs waiting to resolve will not (4-5f)."


@SENTENCES.on(Rewound)
def _rewound(e: Rewound, before: Table, after: Table, viewer: str) -> str:
    return rewound_sentence(e, before.position, "instructions")


@SENTENCES.on(EntryUndone)
def _entry_undone(e: EntryUndone, before: Table, after: Table, viewer: str) -> str:
    return undone_sentence(e, before.position + 1)


@SENTENCES.on(NoteAdded)
def _note_added(e: NoteAdded, before: Table, after: Table, viewer: str) -> str:
    return note_sentence(e)


@SENTENCES.on(JudgeCalled)
def _judge_called(e: JudgeCalled, before: Table, after: Table, viewer: str) -> str:
    return call_sentence(e)


@SENTENCES.on(ViolationRecorded)
def _violation(e: ViolationRecorded, before: Table, after: Table, viewer: str) -> str:
    return f"Violation of {e.rule} recorded: {e.reason}"


def describe(event: Event, state_before: Table, viewer: str = "judge") -> str:
    """One sentence for ``event`` as ``viewer`` may know it; an event class
    without a sentence still gets one, so a newer log stays readable."""
    check_viewer(viewer)
    sentence = SENTENCES.get(type(event))
    if sentence is None:
        return f"{type(event).__name__} ({event.rule})."
    return sentence(event, state_before, evolve(state_before, event), viewer)
