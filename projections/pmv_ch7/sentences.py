"""One sentence per event of a Phantom Magic Vision chapter-7 match (the same for every viewer: chapter 7 hides nothing, ruling:P1).

Each sentence is registered by its event class beside its function
(``SENTENCES``); ``tests/test_pmv.py`` checks every event class has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.kernel import ActionTaken, EntryUndone, Event, JudgeCalled, NoteAdded, Rewound
from events.pmv_ch7.effects import (
    AsUsedBegan,
    AutoApplied,
    AutoChoiceAsked,
    AutoChoiceMade,
    AutoChoiceReleased,
    AutoLapsed,
    CardsMoved,
    ClauseApplied,
    ClauseFailed,
    ConditionCleared,
    ConditionSet,
    CostPaid,
    DeclarationMade,
    EffectApplied,
    EffectNullified,
    EffectPicked,
    EffectUsed,
    EffectVoided,
    FallbackBegan,
    GammaSkipped,
    GammaTriggered,
    GammaWatched,
    InterferenceBegan,
    InterferenceEnded,
    LastingBegan,
    LastingEnded,
    ModeChosen,
    PointsPaid,
    PositionSetUp,
    PriorityGiven,
    PriorityPassed,
    ResolutionBegan,
    ResolutionEnded,
    TextInvalidated,
    TextRewritten,
    TurnPassed,
    ValueAdded,
    WaitingBegan,
    WaitingTriggered,
)
from projections.by_type import ByType
from projections.judging import call_sentence, note_sentence, rewound_sentence, undone_sentence
from projections.pmv_ch7.state import Table, value
from projections.pmv_ch7.views import _conds, check_viewer, clause_words, text_words

SENTENCES: ByType[Callable[[Any, Table], str]] = ByType("sentence")

KIND_WORDS = {
    "play": "the text of its play",
    "activated": "the activated effect",
    "gamma": "the automatic γ",
    "at_will": "the automatic effect",
    "waiting": "the waiting effect",
    "as_used": "as if used,",
}


def _list(items: list[str]) -> str:
    return ", ".join(items) or "none"


def _named(effect: str, first: bool = True) -> str:
    """An effect as a sentence names it: ``Lamp#1``, or "Waiting effect w1"."""
    if "#" in effect:
        return effect
    return f"{'Waiting' if first else 'waiting'} effect {effect}"


@SENTENCES.on(PositionSetUp)
def _set_up(e: PositionSetUp, s: Table) -> str:
    field = _list(e.field)
    return (
        f"A position is set up by hand: {len(e.cards)} card{'s' if len(e.cards) != 1 else ''}, on the field {field}; "
        f"{e.turn}'s turn, {e.priority} holds priority; conditions: {_list(e.conditions)}."
    )


@SENTENCES.on(ActionTaken)
def _action_taken(e: ActionTaken, s: Table) -> str:
    shown = ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in e.args.items())
    return f"{e.player}: {e.do}" + (f" ({shown})" if shown else "") + "."


@SENTENCES.on(ConditionSet)
def _condition_set(e: ConditionSet, s: Table) -> str:
    return f"The condition {e.condition} holds now."


@SENTENCES.on(ConditionCleared)
def _condition_cleared(e: ConditionCleared, s: Table) -> str:
    return f"The condition {e.condition} no longer holds."


@SENTENCES.on(CardsMoved)
def _cards_moved(e: CardsMoved, s: Table) -> str:
    together = " together (7.1.13)" if len(e.cards) > 1 else ""
    where = "onto the field" if e.to == "field" else "off the field, elsewhere"
    return f"{_list(e.cards)} {'go' if len(e.cards) > 1 else 'goes'} {where}{together}."


@SENTENCES.on(ValueAdded)
def _value_added(e: ValueAdded, s: Table) -> str:
    now = ", ".join(f"{c} {value(s, c, e.value) + e.n}" for c in e.cards)
    return f"{e.n} is added to the {e.value} of {_list(e.cards)} (now {now})."


@SENTENCES.on(PointsPaid)
def _points_paid(e: PointsPaid, s: Table) -> str:
    left = s.points.get(e.player, 0) - e.n
    return f"{e.player} pays {e.n} point{'s' if e.n != 1 else ''} ({left} left)."


@SENTENCES.on(TextInvalidated)
def _text_invalidated(e: TextInvalidated, s: Table) -> str:
    return f"The text of {_list(e.cards)} is invalid from now on."


@SENTENCES.on(TextRewritten)
def _text_rewritten(e: TextRewritten, s: Table) -> str:
    return f"{e.effect} now reads: {text_words(e.text)}."


@SENTENCES.on(LastingBegan)
def _lasting_began(e: LastingBegan, s: Table) -> str:
    return f"A lasting effect {e.id} from {e.effect}: {clause_words(e.clause)} (7.1.16)."


@SENTENCES.on(LastingEnded)
def _lasting_ended(e: LastingEnded, s: Table) -> str:
    return f"The lasting effect {e.id} ends: what it lasted until holds."


@SENTENCES.on(WaitingBegan)
def _waiting_began(e: WaitingBegan, s: Table) -> str:
    return f"A waiting effect {e.id} from {e.effect}: when {_conds(e.when)}, {text_words(e.text)} (7.8.1)."


@SENTENCES.on(EffectNullified)
def _effect_nullified(e: EffectNullified, s: Table) -> str:
    return f"{e.effect} is nullified while it is being applied, and is gone (7.1.12.c)."


@SENTENCES.on(ResolutionBegan)
def _resolution_began(e: ResolutionBegan, s: Table) -> str:
    mode = f", mode {e.mode} (7.1.15: the others are not resolved)" if e.mode is not None else ""
    declared = f", declared {e.declared}" if e.declared else ""
    return f"{_named(e.effect)} ({KIND_WORDS.get(e.kind, e.kind)} of {e.player}) begins to resolve{mode}{declared}."


@SENTENCES.on(ClauseApplied)
def _clause_applied(e: ClauseApplied, s: Table) -> str:
    said = _said(s, e.index)
    missed = f"; it could not apply to {_list(e.missed)}, but it applies to all it can (7.1.12.e)" if e.missed else ""
    return f"{_named(e.effect)}, clause {e.index + 1} ({said}): applied{missed}."


@SENTENCES.on(ClauseFailed)
def _clause_failed(e: ClauseFailed, s: Table) -> str:
    said = _said(s, e.index)
    return f"{_named(e.effect)}, clause {e.index + 1} ({said}) cannot be applied as it says: {e.reason}."


def _said(s: Table, index: int) -> str:
    if s.frames and 0 <= index < len(s.frames[-1].clauses):
        return clause_words(s.frames[-1].clauses[index])
    return "?"


@SENTENCES.on(FallbackBegan)
def _fallback_began(e: FallbackBegan, s: Table) -> str:
    return f"{_named(e.effect)} says what to do when that clause cannot apply: that is applied instead (7.1.12.b)."


OUTCOME_WORDS = {
    "7.1.11": "it applied from the head to the end",
    "7.1.12.a": "a part of it could not be applied (what was applied stays)",
    "7.1.12.b": "what it says to do instead applied to the end",
    "7.1.12.c": "it was nullified while being applied",
    "7.1.12.e": "an 'all' of it did not reach every card, which still counts",
    "7.3.5.a": "it is not the timing it was used for",
}


@SENTENCES.on(ResolutionEnded)
def _resolution_ended(e: ResolutionEnded, s: Table) -> str:
    why = OUTCOME_WORDS.get(e.rule, "")
    return f"{_named(e.effect)} resolves as a {e.outcome}" + (f": {why}" if why else "") + f" ({e.rule})."


@SENTENCES.on(AsUsedBegan)
def _as_used_began(e: AsUsedBegan, s: Table) -> str:
    return f"{e.by} resolves {e.effect} as if it were used: nothing is paid for it (7.5.1, 7.5.1.c)."


@SENTENCES.on(EffectUsed)
def _effect_used(e: EffectUsed, s: Table) -> str:
    return f"{e.player} declares using {e.effect} (7.3.4.a)."


@SENTENCES.on(ModeChosen)
def _mode_chosen(e: ModeChosen, s: Table) -> str:
    return f"Of {e.effect}'s effects, mode {e.mode} will resolve (7.3.4.b)."


@SENTENCES.on(DeclarationMade)
def _declaration_made(e: DeclarationMade, s: Table) -> str:
    return f"The declaration for {e.effect}: {e.word} (7.3.4.d)."


@SENTENCES.on(CostPaid)
def _cost_paid(e: CostPaid, s: Table) -> str:
    return f"The cost of {e.effect} is paid (7.3.4.e)."


@SENTENCES.on(InterferenceBegan)
def _interference_began(e: InterferenceBegan, s: Table) -> str:
    return f"An interference begins with {e.effect} (7.3.4.f)."


@SENTENCES.on(PriorityPassed)
def _priority_passed(e: PriorityPassed, s: Table) -> str:
    return f"Priority passes to {e.to} (7.3.4.f)."


@SENTENCES.on(EffectVoided)
def _effect_voided(e: EffectVoided, s: Table) -> str:
    return f"{e.effect} is void and will not resolve: {e.reason} (7.3.1.b)."


@SENTENCES.on(InterferenceEnded)
def _interference_ended(e: InterferenceEnded, s: Table) -> str:
    return "No effect used in the interference is left to resolve: the interference is over (ruling:P12)."


@SENTENCES.on(AutoApplied)
def _auto_applied(e: AutoApplied, s: Table) -> str:
    return f"{e.effect} applies from now on ({e.rule})."


@SENTENCES.on(AutoLapsed)
def _auto_lapsed(e: AutoLapsed, s: Table) -> str:
    return f"{e.effect} no longer applies: {e.reason} ({e.rule})."


@SENTENCES.on(AutoChoiceAsked)
def _auto_choice_asked(e: AutoChoiceAsked, s: Table) -> str:
    return f"{e.effect}'s condition is met: {e.player} chooses whether it applies (7.4.5.f)."


@SENTENCES.on(AutoChoiceMade)
def _auto_choice_made(e: AutoChoiceMade, s: Table) -> str:
    does = "applies" if e.apply else "does not apply"
    return f"{e.player} chooses that {e.effect} {does}, until its condition is met again (7.4.5.f)."


@SENTENCES.on(AutoChoiceReleased)
def _auto_choice_released(e: AutoChoiceReleased, s: Table) -> str:
    return f"{e.effect}'s condition is no longer met: its player will choose again when it is (7.4.5.f)."


@SENTENCES.on(EffectApplied)
def _effect_applied(e: EffectApplied, s: Table) -> str:
    return f"{e.player}, holding priority, applies {e.effect}; priority stays with them (7.4.4)."


@SENTENCES.on(GammaWatched)
def _gamma_watched(e: GammaWatched, s: Table) -> str:
    if not e.held:
        return "No automatic γ's condition holds now (ruling:P9)."
    return f"Automatic γ effects whose conditions hold, none newly met: {_list(e.held)} (ruling:P9)."


@SENTENCES.on(GammaTriggered)
def _gamma_triggered(e: GammaTriggered, s: Table) -> str:
    if len(e.effects) > 1:
        return f"The conditions of {_list(e.effects)} are met at the same time: to be resolved (7.4.7.c)."
    return f"The condition of {_list(e.effects)} is met: to be resolved (7.4.7.c)."


@SENTENCES.on(GammaSkipped)
def _gamma_skipped(e: GammaSkipped, s: Table) -> str:
    return f"{e.effect} is not resolved: {e.reason} (7.4.7.d)."


@SENTENCES.on(WaitingTriggered)
def _waiting_triggered(e: WaitingTriggered, s: Table) -> str:
    return f"What waiting effect {_list(e.ids)} waited for has come: processed at once (7.8.1, 7.1.10)."


@SENTENCES.on(EffectPicked)
def _effect_picked(e: EffectPicked, s: Table) -> str:
    return f"{e.player} chooses {_named(e.effect, False)} to resolve next of their effects ({e.rule})."


@SENTENCES.on(TurnPassed)
def _turn_passed(e: TurnPassed, s: Table) -> str:
    return f"It is {e.to}'s turn now (another chapter's process)."


@SENTENCES.on(PriorityGiven)
def _priority_given(e: PriorityGiven, s: Table) -> str:
    return f"{e.to} holds priority now (another chapter's process)."


@SENTENCES.on(Rewound)
def _rewound(e: Rewound, s: Table) -> str:
    return rewound_sentence(e, s.position)


@SENTENCES.on(EntryUndone)
def _entry_undone(e: EntryUndone, s: Table) -> str:
    return undone_sentence(e, s.position + 1)


@SENTENCES.on(NoteAdded)
def _note_added(e: NoteAdded, s: Table) -> str:
    return note_sentence(e)


@SENTENCES.on(JudgeCalled)
def _judge_called(e: JudgeCalled, s: Table) -> str:
    return call_sentence(e)


def describe(event: Event, state_before: Table, viewer: str = "judge") -> str:
    """One sentence for ``event``, the same for every viewer (ruling:P1); an
    event class without a sentence still gets one, so a newer log stays readable."""
    check_viewer(viewer)
    sentence = SENTENCES.get(type(event))
    if sentence is None:
        return f"{type(event).__name__} ({event.rule})."
    return sentence(event, state_before)
