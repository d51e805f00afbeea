"""The match log as people read it: one English sentence per event, per viewer.

A judge reading a dispute wants cards by name and every step cited by its
rule; a player reading the same log must not learn what 215 hides from them
(the cards moved face down to an action-cost stack, the opponent's hand, the
shuffled order, a card chosen from a hidden hand). Each sentence is declared
with what its event reveals to whom (``@says(CardMoved, card=SHOWN,
target=WHERE)``: the audiences of ``projections.harem_master.visibility``), and names a
card only through the viewer's ``Sight`` of the event, which applies that
declaration. ``describe`` writes one sentence for one event as seen from the
state just before it; ``transcript`` folds a whole log into the rows of
``referee log --json`` (spec/cli.md), ``rows_for`` and ``log_rows`` some of
it, and ``render_transcript`` prints them.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Iterable, Sequence, cast

from events.harem_master import game as ev
from events.harem_master.abilities import SITUATIONS, Activated
from events.kernel import Event
from projections.by_type import ByType
from projections.harem_master.state import PLAYERS, GameState, initial_state, other, owner
from projections.harem_master.visibility import OUTCOME, REVEALS, SHOWN, WHERE, Audience, Sight, reveals, sight, sights
from projections.judging import accepted_sentence, call_sentence, judge_words, note_sentence, undone_sentence
from projections.lineage import retracted_positions

# --- small wording helpers ----------------------------------------------------------


def _cards(n: int) -> str:
    return "a card" if n == 1 else f"{n} cards"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _number(n: int) -> str:
    return f"{n:+d}"


def _controlled_name(s: GameState, card: str | None, see: Sight) -> str:
    """ "A's Iron Knight", or "A's face-down character" where the viewer may not know it."""
    if card is None:
        return "nobody"
    ch = s.character(card)
    if ch is None:
        return f"{owner(card)}'s {see.name(card)}"
    if not see.sees(card):
        return f"{ch.controller}'s face-down character"
    return f"{ch.controller}'s {see.name(card)}"


Describer = Callable[[Any, GameState, Sight], str]

DESCRIBERS: ByType[Describer] = ByType("sentence")


def declarations() -> dict[type[Event], dict[str, Audience]]:
    """What each event kind reveals to whom, as declared beside its sentence (``says``)."""
    return REVEALS


def says(event_type: type[Event], **fields: Audience) -> Callable[[Describer], Describer]:
    """Declare the sentence of ``event_type`` and, beside it, what the event
    reveals to whom: the audience of each field holding cards
    (``projections.harem_master.visibility.reveals``; an undeclared field is ``WHERE``)."""

    def register(describer: Describer) -> Describer:
        reveals(event_type, **fields)
        return DESCRIBERS.on(event_type)(describer)

    return register


# --- one describer per event type ---------------------------------------------------
# Each takes the event, the state just before it, and the viewer's sight of it.


@says(ev.CardRevealed, card=SHOWN, identity=SHOWN)
def _card_revealed(e: ev.CardRevealed, s: GameState, see: Sight) -> str:
    where = s.where(e.card) or "play"
    place = {"castle": "the castle", "hand": "the hand", "action_stack": "the action-cost stack"}.get(
        where.partition(".")[2], where
    )
    if e.again:  # ruling A36
        return f"{e.player}'s card in {place} stays known after the rewind: {e.name}, as the table saw it."
    text = f"The table reveals {e.player}'s card from {place}: {e.name}"
    if e.identity is None:
        text += " (not a card A's deck list has left: 100.2)".replace("A's", f"{e.player}'s")
    return text + "."


@says(ev.MatchStarted, cards=WHERE, castles=WHERE)
def _match_started(e: ev.MatchStarted, s: GameState, see: Sight) -> str:
    counts = {p: sum(1 for c in e.cards if c.startswith(p + ":")) for p in PLAYERS}
    players = " and ".join(
        f"{p}" + (f" ({e.names[p]})" if e.names.get(p, p) != p else "") + f" with {_cards(counts[p])}" for p in PLAYERS
    )
    text = f"The match starts: {players}; {e.mode} mode"
    if e.rulings:
        text += "; rulings " + ", ".join(f"{k} {v}" for k, v in sorted(e.rulings.items()))
    if see.viewer == "judge":
        text += f"; seed {e.seed}"  # the seed decides every shuffle, so only a judge gets it
    if e.pool:
        text += f"; its card pool has {_cards(len(e.pool))} on neither deck list"
    if e.origin is not None:
        text += f"; a what-if fork of match {e.origin.match}, whose events 1 to {e.origin.at} it repeats"
    return text + "."


@says(ev.PositionSetUp, cards=WHERE, zones=WHERE)
def _position_set_up(e: ev.PositionSetUp, s: GameState, see: Sight) -> str:
    field = {p: sum(1 for f in e.field if f.controller == p) for p in PLAYERS}
    castles = {p: len(e.zones.get(f"{p}.castle", [])) for p in PLAYERS}
    text = (
        f"A position is set up: turn {e.turn}, {e.active} active at step {e.step}; "
        f"A has {_plural(field['A'], 'character')} on the field and {_cards(castles['A'])} in the castle, "
        f"B has {_plural(field['B'], 'character')} and {_cards(castles['B'])}"
    )
    if e.origin is not None:
        text += f"; a what-if fork of match {e.origin.match}, whose events 1 to {e.origin.at} it repeats"
    return text + "."


@says(ev.OpeningChosen, card=WHERE)
def _opening_chosen(e: ev.OpeningChosen, s: GameState, see: Sight) -> str:
    if see.sees(e.card):
        return f"{e.player} chooses {see.name(e.card)} as the opening character; it goes face down on the field."
    return f"{e.player} puts a cost-1 character from the deck face down on the field."


@says(ev.CastlesShuffled, orders=WHERE)
def _castles_shuffled(e: ev.CastlesShuffled, s: GameState, see: Sight) -> str:
    if s.deal == "table":
        sizes = ", ".join(f"{p} {_cards(len(order))}" for p, order in sorted(e.orders.items()))
        return f"Both castles are shuffled at the table ({sizes}); every castle card is unknown until revealed."
    tops = [(p, order[0]) for p, order in sorted(e.orders.items()) if order]
    if tops and all(see.sees(top) for _, top in tops):
        told = "; ".join(f"{p}'s top card is now {see.name(top)}" for p, top in tops)
        return f"Both castles are shuffled; {told}."
    sizes = ", ".join(f"{p} {_cards(len(order))}" for p, order in sorted(e.orders.items()))
    return f"Both castles are shuffled ({sizes})."


@says(ev.TurnOrderCardsTurned, cards=SHOWN)
def _turn_order_cards_turned(e: ev.TurnOrderCardsTurned, s: GameState, see: Sight) -> str:
    turned = ", ".join(
        f"{p} turns {see.name(e.cards[p])} ({_number(e.numbers.get(p, 0))})" for p in PLAYERS if p in e.cards
    )
    a, b = e.numbers.get("A", 0), e.numbers.get("B", 0)
    if a == b:
        outcome = "a tie, so the next cards are turned"
    else:
        outcome = f"{'A' if a > b else 'B'} chooses the turn order"
    return f"Turn order, flip {e.attempt}: {turned}; both go to the bottom of their castles; {outcome}."


@says(ev.TurnOrderChosen)
def _turn_order_chosen(e: ev.TurnOrderChosen, s: GameState, see: Sight) -> str:
    return f"{e.player} chooses to go {e.order}; {e.first} takes the first turn."


@says(ev.HandDrawn, cards=WHERE)
def _hand_drawn(e: ev.HandDrawn, s: GameState, see: Sight) -> str:
    text = f"{e.player} takes the top {_cards(len(e.cards))} of the castle as the opening hand"
    if any(see.sees(c) for c in e.cards):
        text += f": {see.names(e.cards)}"
    return text + "."


@says(ev.MulliganTaken, returned=WHERE, drawn=WHERE)
def _mulligan_taken(e: ev.MulliganTaken, s: GameState, see: Sight) -> str:
    if any(see.sees(c) for c in e.returned + e.drawn):
        return (
            f"{e.player} mulligans: {see.names(e.returned)} go to the bottom of the castle, "
            f"and {see.names(e.drawn)} are drawn."
        )
    return (
        f"{e.player} mulligans: the hand of {_cards(len(e.returned))} goes to the bottom of the castle, "
        f"and {_cards(len(e.drawn))} are drawn."
    )


@says(ev.HandKept)
def _hand_kept(e: ev.HandKept, s: GameState, see: Sight) -> str:
    return f"{e.player} keeps the hand."


@says(ev.OpeningsRevealed, cards=SHOWN)
def _openings_revealed(e: ev.OpeningsRevealed, s: GameState, see: Sight) -> str:
    shown = ", ".join(_controlled_name(s, c, see) for c in e.cards)
    return f"The opening characters are turned face up: {shown or 'none'}."


@says(ev.TurnStarted)
def _turn_started(e: ev.TurnStarted, s: GameState, see: Sight) -> str:
    return f"Turn {e.turn} begins; {e.active} is the active player."


@says(ev.CharactersUntapped, cards=WHERE)
def _characters_untapped(e: ev.CharactersUntapped, s: GameState, see: Sight) -> str:
    if not e.cards:
        return "Untap: every character is already untapped."
    return "Untap: " + ", ".join(_controlled_name(s, c, see) for c in e.cards) + "."


@says(ev.StackReturnedToHand, cards=WHERE)
def _stack_returned(e: ev.StackReturnedToHand, s: GameState, see: Sight) -> str:
    if not e.cards:
        return f"{e.player}'s action-cost stack is empty; nothing goes to the hand."
    n = len(e.cards)
    what = "the one card" if n == 1 else f"the {n} cards"
    text = f"{e.player} puts {what} of the action-cost stack into the hand"
    if any(see.sees(c) for c in e.cards):
        text += f": {see.names(e.cards)}"
    return text + "."


@says(ev.StackSizeSet)
def _stack_size_set(e: ev.StackSizeSet, s: GameState, see: Sight) -> str:
    bonus = {"101.7": "", "101.8": " + 1 on the second player's first turn"}.get(e.rule, " + 2")
    return (
        f"{e.player} will move {_cards(e.count)} from the castle to the action-cost stack "
        f"({_plural(e.girls, 'girl')} controlled{bonus})."
    )


@says(ev.CardMovedToStack, card=WHERE)
def _card_moved_to_stack(e: ev.CardMovedToStack, s: GameState, see: Sight) -> str:
    return f"{e.player} moves {see.name(e.card)} from the top of the castle to the action-cost stack, face down."


@says(ev.StepPerformed)
def _step_performed(e: ev.StepPerformed, s: GameState, see: Sight) -> str:
    return e.text or f"Step {e.rule} is performed."


def _cost(s: GameState, card: str) -> int:
    cd = s.cards.get(card)
    return cd.cost if cd is not None else 0


@says(ev.CharacterPlayed, card=WHERE)
def _character_played(e: ev.CharacterPlayed, s: GameState, see: Sight) -> str:
    return f"{e.player} plays {see.name(e.card)} (cost {_cost(s, e.card)}); it enters tapped."


@says(ev.EventPlayed, card=WHERE, targets=OUTCOME, it=WHERE)
def _event_played(e: ev.EventPlayed, s: GameState, see: Sight) -> str:
    text = f"{e.player} uses the event {see.name(e.card)} (cost {_cost(s, e.card)}"
    if e.n is not None:
        text += f", n={e.n}"
    text += f"); it goes to {owner(e.card)}'s discard"
    if e.about is not None:
        text += f", in response to event {e.about}"
    return text + (", and its text waits to resolve." if e.resolves else ".")


# --- abilities (400-412) --------------------------------------------------------------


def _ability_name(see: Sight, card: str, index: int) -> str:
    return f"{see.name(card)}'s ability {index}"


def _until(until: str | None) -> str:
    return {"end_of_turn": " until end of turn", "end_of_battle": " until end of battle"}.get(until or "", "")


@says(ev.AbilityActivated, card=SHOWN, targets=OUTCOME, it=WHERE)
def _ability_activated(e: ev.AbilityActivated, s: GameState, see: Sight) -> str:
    definition = cast(Activated, e.definition)  # the referee only declares an activated ability (find_ability)
    text = f"{e.player} uses {_ability_name(see, e.card, e.ability)} (cost {definition.cost}"
    if e.n is not None:
        text += f", n={e.n}"
    text += ")"
    if e.about is not None:
        text += f" in response to event {e.about}"
    return text + "; it waits to resolve."


@says(ev.CardTapped, card=WHERE)
def _card_tapped(e: ev.CardTapped, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} becomes tapped to pay [T]."


def _situation(name: str, it: str | None, see: Sight) -> str:
    return SITUATIONS.get(name, name.replace("_", " ")) + (f" ({see.name(it)})" if it else "")


@says(ev.TriggerFired, card=SHOWN, it=WHERE)
def _trigger_fired(e: ev.TriggerFired, s: GameState, see: Sight) -> str:
    if e.rule == "308.1":
        return f"{_ability_name(see, e.card, e.ability)}, carried from the turn before, triggers now (308.1)."
    when = "before" if e.rule == "403.1a" else "on"
    return f"{_ability_name(see, e.card, e.ability)} triggers {when} {_situation(e.situation, e.it, see)}."


@says(ev.TriggersOrdered, cards=SHOWN)
def _triggers_ordered(e: ev.TriggersOrdered, s: GameState, see: Sight) -> str:
    return f"{e.player} orders their simultaneous triggers: {see.names(e.cards)} first."


@says(ev.TriggerResolving, card=SHOWN)
def _trigger_resolving(e: ev.TriggerResolving, s: GameState, see: Sight) -> str:
    return f"{e.player}'s triggered ability of {see.name(e.card)} goes on the agenda to resolve."


@says(ev.TriggerCarried, card=SHOWN)
def _trigger_carried(e: ev.TriggerCarried, s: GameState, see: Sight) -> str:
    return f"{_ability_name(see, e.card, e.ability)} triggered during 308: it resolves at the end of the next turn."


@says(ev.WindowOpened, it=WHERE)
def _window_opened(e: ev.WindowOpened, s: GameState, see: Sight) -> str:
    if e.kind == "battle_type":
        return f"Events and abilities that change the battle type may be used; {e.player} first."
    about = f"event {e.about}" if e.about is not None else _situation(e.situation or "this", e.it, see)
    return f"A chance to respond to {about}; {e.player} first."


@says(ev.WindowPassed)
def _window_passed(e: ev.WindowPassed, s: GameState, see: Sight) -> str:
    if e.rule == "406.2":
        return f"{e.player} has nothing to use and passes." if e.auto else f"{e.player} passes."
    return f"{e.player} passes without using an [OT] card."


@says(ev.WindowClosed)
def _window_closed(e: ev.WindowClosed, s: GameState, see: Sight) -> str:
    return "Both players passed in a row; the game moves on."


@says(ev.SituationProposed, it=WHERE)
def _situation_proposed(e: ev.SituationProposed, s: GameState, see: Sight) -> str:
    return f"Before {_situation(e.situation, e.it, see)}: what comes before it resolves first."


@says(ev.MomentBefore)
def _moment_before(e: ev.MomentBefore, s: GameState, see: Sight) -> str:
    return f"Triggers and responses before event {e.about} come first."


@says(ev.SituationProceeds)
def _situation_proceeds(e: ev.SituationProceeds, s: GameState, see: Sight) -> str:
    return f"What was proposed at event {e.about} happens now."


@says(ev.SituationReplaced, card=SHOWN, it=WHERE)
def _situation_replaced(e: ev.SituationReplaced, s: GameState, see: Sight) -> str:
    return (
        f"{_ability_name(see, e.card, e.ability)} replaces {_situation(e.situation, e.it, see)}: "
        "it does not happen; the replacement's effects happen instead."
    )


@says(ev.Chosen, cards=OUTCOME)
def _chosen(e: ev.Chosen, s: GameState, see: Sight) -> str:
    if e.cards:
        return f"{e.player} chooses {see.names(e.cards)}."
    if e.rule == "409.3" and e.option:
        return f"{e.player} chooses the replacement of {see.name(e.option.partition('#')[0])}."
    return f"{e.player} answers {e.option}."


@says(ev.UseResolving, card=SHOWN)
def _use_resolving(e: ev.UseResolving, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} resolves (event {e.use})."


@says(ev.EffectsApplied, card=SHOWN, targets_left=OUTCOME)
def _effects_applied(e: ev.EffectsApplied, s: GameState, see: Sight) -> str:
    return f"Then {see.name(e.card)} goes on."


@says(ev.UseResolved, card=SHOWN)
def _use_resolved(e: ev.UseResolved, s: GameState, see: Sight) -> str:
    if e.rule == "411.1b":
        return f"{see.name(e.card)} has no effect (event {e.use})."
    return f"{see.name(e.card)} has resolved (event {e.use})."


@says(ev.UseCountered, card=SHOWN, target=SHOWN)
def _use_countered(e: ev.UseCountered, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} counters {see.name(e.target)}: it has no effect; costs stay paid."


@says(ev.CounterFailed, card=SHOWN, target=SHOWN)
def _counter_failed(e: ev.CounterFailed, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} cannot counter {see.name(e.target)}: it cannot be countered."


@says(ev.ValuesModified, card=SHOWN, target=WHERE)
def _values_modified(e: ev.ValuesModified, s: GameState, see: Sight) -> str:
    parts = [
        f"{_number(v)} {k}" for k, v in (("physical", e.physical), ("mental", e.mental), ("random", e.random)) if v
    ]
    return f"{see.name(e.card)}: {see.name(e.target)} gets {', '.join(parts) or 'nothing'}{_until(e.until)}."


@says(ev.CharactersTapped, card=SHOWN, targets=WHERE)
def _characters_tapped(e: ev.CharactersTapped, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} {'untaps' if e.untap else 'taps'} {see.names(e.targets)}."


@says(ev.CardMoved, card=SHOWN, target=WHERE)
def _card_moved(e: ev.CardMoved, s: GameState, see: Sight) -> str:
    where = "the field" if e.to == "field" else f"{e.player}'s {e.to.replace('_', ' ')}"
    if e.to not in ("field", "discard", "harem", "execution", "side") and e.position == "bottom":
        where = "the bottom of " + where
    return f"{see.name(e.card)} moves {see.name(e.target)} to {where}."


@says(ev.BattleTypeChanged, card=SHOWN)
def _battle_type_changed(e: ev.BattleTypeChanged, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} makes the battle {'a combat' if e.kind == 'combat' else 'an approach'}."


@says(ev.RandomNumberWaived, card=SHOWN, target=WHERE)
def _random_number_waived(e: ev.RandomNumberWaived, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)}: no card is turned for {see.name(e.target)}'s random number."


@says(ev.CharacteristicsCopied, card=SHOWN, target=WHERE, source=WHERE)
def _characteristics_copied(e: ev.CharacteristicsCopied, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)}: {see.name(e.target)} becomes a copy of {see.name(e.source)}{_until(e.until)}."


@says(ev.AbilitiesGained, card=SHOWN, target=WHERE)
def _abilities_gained(e: ev.AbilitiesGained, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)}: {see.name(e.target)} gains {_plural(len(e.abilities), 'ability')}{_until(e.until)}."


@says(ev.AbilitiesLost, card=SHOWN, target=WHERE)
def _abilities_lost(e: ev.AbilitiesLost, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)}: {see.name(e.target)} loses its abilities{_until(e.until)}."


@says(ev.ControlChanged, card=SHOWN, target=WHERE)
def _control_changed(e: ev.ControlChanged, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)}: {e.player} controls {see.name(e.target)}{_until(e.until)}."


@says(ev.HandMaximumChanged, card=SHOWN)
def _hand_maximum_changed(e: ev.HandMaximumChanged, s: GameState, see: Sight) -> str:
    change = f"is {e.set}" if e.set is not None else f"changes by {_number(e.by)}"
    return f"{see.name(e.card)}: {e.player}'s hand maximum {change}{_until(e.until)}."


@says(ev.EffectsEnded)
def _effects_ended(e: ev.EffectsEnded, s: GameState, see: Sight) -> str:
    why = {"310": "the turn ends", "306.5o": "the battle ends", "215.10": "the card left the field"}.get(e.rule, "")
    n = len(e.ids)
    return ("An effect ends" if n == 1 else f"{n} effects end") + (f": {why}." if why else ".")


@says(ev.BattleInterrupted, card=WHERE)
def _battle_interrupted(e: ev.BattleInterrupted, s: GameState, see: Sight) -> str:
    who = see.name(e.card)  # "a card" once it is somewhere this viewer cannot see
    return f"{who[:1].upper()}{who[1:]} left the field or changed controller: the battle ends (go to 306.5n)."


@says(ev.ItemPlayed, card=WHERE, target=WHERE)
def _item_played(e: ev.ItemPlayed, s: GameState, see: Sight) -> str:
    text = f"{e.player} uses the item {see.name(e.card)} (cost {_cost(s, e.card)}) on "
    if s.character(e.target) is None:
        return text + f"{see.name(e.target)}, which is not on the field, so it will be discarded."
    return text + _controlled_name(s, e.target, see) + "."


@says(ev.CostPaid, card=WHERE)
def _cost_paid(e: ev.CostPaid, s: GameState, see: Sight) -> str:
    return f"{e.player} pays 1: {see.name(e.card)} goes from the action-cost stack to the top of the castle."


@says(ev.AttackDeclared)
def _attack_declared(e: ev.AttackDeclared, s: GameState, see: Sight) -> str:
    return f"{e.player} declares an attack."


@says(ev.AttackerChosen, card=WHERE)
def _attacker_chosen(e: ev.AttackerChosen, s: GameState, see: Sight) -> str:
    return f"{e.player} attacks with {see.name(e.card)}, which becomes tapped."


@says(ev.InterceptionDeclined)
def _interception_declined(e: ev.InterceptionDeclined, s: GameState, see: Sight) -> str:
    if e.able:
        return f"{e.player} does not intercept."
    return f"{e.player} cannot intercept: no untapped character."


@says(ev.InterceptorChosen, card=WHERE)
def _interceptor_chosen(e: ev.InterceptorChosen, s: GameState, see: Sight) -> str:
    return f"{e.player} intercepts with {see.name(e.card)}, which becomes tapped."


_BATTLE_KINDS = {
    "combat": "The battle is a combat (a male intercepts): physical against physical.",
    "approach": "The battle is an approach (a girl intercepts): mental against mental.",
    "castle": "Nobody intercepts: the attacker attacks the castle.",
}


@says(ev.BattleTypeSet)
def _battle_type_set(e: ev.BattleTypeSet, s: GameState, see: Sight) -> str:
    return _BATTLE_KINDS.get(e.kind, f"The battle is a {e.kind}.")


@says(ev.RandomNumberApplied, card=SHOWN, character=WHERE)
def _random_number_applied(e: ev.RandomNumberApplied, s: GameState, see: Sight) -> str:
    where = f"the bottom of {e.player}'s castle" if e.to == "bottom" else f"back on top of {e.player}'s castle"
    return (
        f"{e.player} turns {see.name(e.card)} for {see.name(e.character)}'s random number "
        f"{_number(e.number)}; it goes to {where}."
    )


@says(ev.BattleResolved)
def _battle_resolved(e: ev.BattleResolved, s: GameState, see: Sight) -> str:
    b = s.battle
    outcome = f"{e.winner} wins" if e.winner is not None else "a draw, nobody is captured"
    if b is None or b.interceptor is None:
        powers = ", ".join(f"{p} {v}" for p, v in sorted(e.powers.items()))
        return f"Battle powers {powers}; {outcome}."
    kind = (b.kind or "battle").capitalize()
    defender = other(b.player)
    attacker = cast(str, b.attacker)  # chosen before any interceptor can be (AttackerChosen)
    return (
        f"{kind}: {b.player}'s {see.name(attacker)} {e.powers.get(b.player, 0)} against "
        f"{defender}'s {see.name(b.interceptor)} {e.powers.get(defender, 0)}; {outcome}."
    )


@says(ev.CharacterCaptured, card=WHERE)
def _character_captured(e: ev.CharacterCaptured, s: GameState, see: Sight) -> str:
    pile = "harem" if e.zone == "harem" else "execution pile"
    return f"{_controlled_name(s, e.card, see)} loses and goes to {e.by}'s {pile}."


@says(ev.CastleAttacked)
def _castle_attacked(e: ev.CastleAttacked, s: GameState, see: Sight) -> str:
    b = s.battle
    attacker = f"{other(e.player)}'s {see.name(b.attacker)}" if b and b.attacker else other(e.player)
    if e.amount <= 0:
        return f"{attacker} attacks {e.player}'s castle with physical {e.amount}: no card is milled."
    return f"{attacker} attacks {e.player}'s castle for {_plural(e.amount, 'card')} (its physical now)."


@says(ev.CardMilled, card=WHERE)
def _card_milled(e: ev.CardMilled, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} goes from the top of {e.player}'s castle to {owner(e.card)}'s discard."


@says(ev.ItemDiscarded, card=WHERE)
def _item_discarded(e: ev.ItemDiscarded, s: GameState, see: Sight) -> str:
    return f"{see.name(e.card)} has no character to hold it and goes to {owner(e.card)}'s discard."


@says(ev.CharactersDiscarded, cards=WHERE)
def _characters_discarded(e: ev.CharactersDiscarded, s: GameState, see: Sight) -> str:
    return f"{e.player} discards {see.names(e.cards)} from the field (no two characters with one name, at most six)."


@says(ev.EndDeclared)
def _end_declared(e: ev.EndDeclared, s: GameState, see: Sight) -> str:
    return f"{e.player} declares the end of the turn."


@says(ev.EndDeclarationCancelled)
def _end_cancelled(e: ev.EndDeclarationCancelled, s: GameState, see: Sight) -> str:
    return f"{e.player} acts, so {other(e.player)}'s end declaration is cancelled."


@says(ev.EndAccepted)
def _end_accepted(e: ev.EndAccepted, s: GameState, see: Sight) -> str:
    if e.auto:
        return f"{e.player} has no [OT] card to use and passes; the turn ends."
    return f"{e.player} passes; the turn ends."


@says(ev.HandLimitDiscarded, cards=WHERE)
def _hand_limit_discarded(e: ev.HandLimitDiscarded, s: GameState, see: Sight) -> str:
    return f"{e.player} discards {see.names(e.cards)} from the hand, over the hand maximum."


@says(ev.Conceded)
def _conceded(e: ev.Conceded, s: GameState, see: Sight) -> str:
    return f"{e.player} concedes."


@says(ev.DrawProposed)
def _draw_proposed(e: ev.DrawProposed, s: GameState, see: Sight) -> str:
    return f"{e.player} proposes a draw."


@says(ev.GameEnded, card=SHOWN)
def _game_ended(e: ev.GameEnded, s: GameState, see: Sight) -> str:
    parts = [e.reason.rstrip(".")] if e.reason else ["The game ends"]
    if e.card:
        parts[0] += f" ({see.name(e.card)})"
    if e.scores:
        scores = ", ".join(f"{p} {e.scores[p]}" for p in PLAYERS if p in e.scores)
        # The +5 is the one part of the score a reader cannot count on the table.
        bonus = [p for p in PLAYERS if e.scores.get(p, 0) - s.score(p) == 5]
        if bonus:
            why = "for felling the castle" if e.rule == "102.3" else "for the castle not fallen"
            who = " and ".join(bonus)
            cite = f", ruling {e.ruling}" if e.ruling else ""
            scores += f" (+5 to {who} {why}{cite})"
        parts.append(f"scores {scores}")
    outcome = "the game is a draw" if e.draw or e.winner is None else f"{e.winner} wins"
    parts.append(f"{outcome} ({e.rule})")
    return "; ".join(parts) + "."


def _action_arguments(e: ev.ActionTaken) -> str | dict[str, str]:
    """What a player's action reveals: the cards it names, to whoever sees
    them before it or where it leaves them (a card played from the hand is
    face up once played; one chosen from a hidden hand stays hidden, 215.3).
    A reveal says aloud what the table turned face up, and a card whose
    ability is activated is shown (402)."""
    if e.do == "reveal":
        return SHOWN
    out = {key: OUTCOME for key in e.args}
    if e.do == "activate":
        out["card"] = SHOWN
    return out


@says(ev.ActionTaken, args=_action_arguments)
def _action_taken(e: ev.ActionTaken, s: GameState, see: Sight) -> str:
    words = [f"{e.player}: {e.do.replace('_', ' ')}"]
    for key, value in e.args.items():
        if key in ("card", "target") and isinstance(value, str):
            hidden = "a face-down card" if key == "card" and e.do == "choose_opening" else "a card"
            shown = see.name(value, hidden)
            words.append(shown if key == "card" else f"on {shown}")
        elif key == "targets" and isinstance(value, list):
            words.append("targeting " + see.names(value))
        elif key == "cards" and isinstance(value, list):
            words.append(see.names(value))
        elif key == "order":
            words.append(str(value))  # "A: choose order first", not "choose order order first"
        else:
            words.append(f"{key} {value}")
    return " ".join(words) + "."


@says(ev.ViolationRecorded)
def _violation_recorded(e: ev.ViolationRecorded, s: GameState, see: Sight) -> str:
    return f"Violation recorded ({e.rule}): {e.reason.rstrip('.')}; open until a judge rules."


@says(ev.StepSkipped, cards=WHERE)
def _step_skipped(e: ev.StepSkipped, s: GameState, see: Sight) -> str:
    text = f"The table skipped step {e.rule}"
    if e.cards:
        text += f"; {_cards(len(e.cards))} go back as they were"
    if e.reason:
        text += f" ({e.reason.rstrip('.')})"
    return text + "."


@says(ev.NoteAdded)
def _note_added(e: ev.NoteAdded, s: GameState, see: Sight) -> str:
    return note_sentence(e)


@says(ev.JudgeCalled)
def _judge_called(e: ev.JudgeCalled, s: GameState, see: Sight) -> str:
    return call_sentence(e)


@says(ev.ViolationsAccepted)
def _violations_accepted(e: ev.ViolationsAccepted, s: GameState, see: Sight) -> str:
    return accepted_sentence(e)


@says(ev.Rewound)
def _rewound(e: ev.Rewound, s: GameState, see: Sight) -> str:
    if e.judge is None and not e.rule.startswith("410"):
        # 306.5c: the referee takes back its own automatic steps (record mode).
        return (
            f"The referee takes back its own steps after event {e.to} ({e.rule}): {e.reason.rstrip('.')}; "
            f"events {e.to + 1} to {s.position} are retracted."
        )
    who = judge_words(e.judge, "The judge")
    return (
        f"{who} rewinds the game to just after event {e.to} ({e.rule}): {e.reason.rstrip('.')}; "
        f"events {e.to + 1} to {s.position} are retracted"
        + ("; the player actions that followed are applied again." if e.replay else ".")
    )


@says(ev.EntryUndone)
def _entry_undone(e: ev.EntryUndone, s: GameState, see: Sight) -> str:
    return undone_sentence(e, s.position + 1)


def describe(event: Event, state_before: GameState, viewer: str = "judge") -> str:
    """One sentence for ``event`` as ``viewer`` may know it (215), without the
    rest of the log (a choice is named as the event alone shows it: see
    ``projections.harem_master.visibility.sight``). An event type without a describer
    still gets a sentence, so a newer log stays readable."""
    return _sentence(sight(event, state_before, viewer))


def _sentence(see: Sight) -> str:
    event = see.event
    describer = DESCRIBERS.get(type(event))
    if describer is None:
        return f"{type(event).__name__} ({event.rule})."
    return describer(event, see.before, see)


def log_rows(
    events: Sequence[Event],
    state: GameState,
    viewer: str = "judge",
    start: int = 0,
    stop: int | None = None,
    retracted: Collection[int] = (),
) -> list[dict[str, Any]]:
    """The rows of ``referee log --json`` for ``events[start:stop]``, folding
    from ``state`` (the state before ``events[start]``); positions continue
    from it. Each action is read to its end, past ``stop`` if need be
    (``projections.harem_master.visibility.sights``)."""
    rows: list[dict[str, Any]] = []
    first = state.position + 1 - start
    for k, event, see in sights(events, state, viewer, start, stop):
        position = first + k
        rows.append(
            {
                "position": position,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": event.ruling,
                "text": _sentence(see),
                "retracted": position in retracted,
            }
        )
    return rows


def transcript(events: Iterable[Event], viewer: str = "judge") -> list[dict[str, Any]]:
    """The rows of ``referee log --json``, folding the log from the empty table."""
    events = list(events)
    return log_rows(events, initial_state(), viewer, retracted=retracted_positions(events))


def rows_for(events: Iterable[Event], state: GameState, viewer: str = "judge") -> list[dict[str, Any]]:
    """Rows for events appended after ``state`` (positions continue from it);
    a command that just appended them need not read the whole log again."""
    return log_rows(list(events), state, viewer)


def render_transcript(rows: Iterable[dict[str, Any]]) -> str:
    """Numbered lines citing the rule, ``ruling:A4`` where an interpretation decided."""
    lines = []
    for row in rows:
        cite = row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
        mark = "x" if row.get("retracted") else " "
        text = row["text"] + (" (retracted)" if row.get("retracted") else "")
        lines.append(f"{mark}{row['position']:>4}  {cite:<18} {text}")
    return "\n".join(lines)
