"""The match log as people read it: one English sentence per event, per viewer.

A judge reading a dispute wants cards by name and every step cited by its
rule; a player reading the same log must not learn what 215 hides from them
(the cards moved face down to an action-cost stack, the opponent's hand, the
shuffled order). ``describe`` writes one sentence for one event as seen from
the state just before it; ``transcript`` folds a whole log into the rows of
``referee log --json`` (spec/cli.md) and ``render_transcript`` prints them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from events.game import (
    AbilitiesGained,
    AbilitiesLost,
    AbilityActivated,
    BattleInterrupted,
    BattleTypeChanged,
    CardMoved,
    CardTapped,
    CharacteristicsCopied,
    CharactersTapped,
    Chosen,
    ControlChanged,
    CounterFailed,
    EffectsApplied,
    EffectsEnded,
    HandMaximumChanged,
    MomentBefore,
    RandomNumberWaived,
    SituationProceeds,
    SituationProposed,
    SituationReplaced,
    TriggerCarried,
    TriggerFired,
    TriggerResolving,
    TriggersOrdered,
    UseCountered,
    UseResolved,
    UseResolving,
    ValuesModified,
    WindowClosed,
    WindowOpened,
    ActionTaken,
    AttackDeclared,
    AttackerChosen,
    BattleResolved,
    BattleTypeSet,
    CardMilled,
    CardRevealed,
    CardMovedToStack,
    CastleAttacked,
    CastlesShuffled,
    CharacterCaptured,
    CharacterPlayed,
    CharactersDiscarded,
    CharactersUntapped,
    Conceded,
    CostPaid,
    DrawProposed,
    EndAccepted,
    EndDeclarationCancelled,
    EndDeclared,
    Event,
    EventPlayed,
    GameEnded,
    HandDrawn,
    HandKept,
    HandLimitDiscarded,
    InterceptionDeclined,
    InterceptorChosen,
    ItemDiscarded,
    ItemPlayed,
    MatchStarted,
    MulliganTaken,
    NoteAdded,
    JudgeCalled,
    OpeningChosen,
    OpeningsRevealed,
    PositionSetUp,
    RandomNumberApplied,
    Rewound,
    StackReturnedToHand,
    StackSizeSet,
    StepPerformed,
    StepSkipped,
    TurnOrderCardsTurned,
    TurnOrderChosen,
    TurnStarted,
    ViolationRecorded,
    ViolationsAccepted,
    WindowPassed,
)
from events.abilities import SITUATIONS
from projections.lineage import retracted_positions
from projections.state import PLAYERS, GameState, evolve, initial_state, other, owner
from projections.views import check_viewer, sees_character

# --- small wording helpers ----------------------------------------------------------


def _name(s: GameState, card: str) -> str:
    if card in s.unknown:
        return "an unknown card"  # a table-dealt match: nobody has revealed it
    cd = s.cards.get(card)
    return cd.name if cd is not None else card


def _names(s: GameState, cards: Iterable[str]) -> str:
    cards = list(cards)
    if len(cards) > 1 and all(c in s.unknown for c in cards):
        return f"{len(cards)} unknown cards"
    return ", ".join(_name(s, c) for c in cards)


def _cards(n: int) -> str:
    return "a card" if n == 1 else f"{n} cards"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _number(n: int) -> str:
    return f"{n:+d}"


def _sees_hand(viewer: str, player: str) -> bool:
    return viewer == "judge" or viewer == player


def _controlled_name(s: GameState, card: str | None, viewer: str) -> str:
    """"A's Iron Knight", or "A's face-down character" where the viewer may not know it."""
    if card is None:
        return "nobody"
    ch = s.character(card)
    if ch is None:
        return f"{owner(card)}'s {_name(s, card)}"
    if not sees_character(viewer, ch):
        return f"{ch.controller}'s face-down character"
    return f"{ch.controller}'s {_name(s, card)}"


# --- one describer per event type ---------------------------------------------------
# Each takes the event, the state just before it, and the viewer.


def _card_revealed(e: CardRevealed, s: GameState, viewer: str) -> str:
    where = s.where(e.card) or "play"
    place = {"castle": "the castle", "hand": "the hand", "action_stack": "the action-cost stack"}.get(
        where.partition(".")[2], where
    )
    text = f"The table reveals {e.player}'s card from {place}: {e.name}"
    if e.identity is None:
        text += " (not a card A's deck list has left: 100.2)".replace("A's", f"{e.player}'s")
    return text + "."


def _match_started(e: MatchStarted, s: GameState, viewer: str) -> str:
    counts = {p: sum(1 for c in e.cards if c.startswith(p + ":")) for p in PLAYERS}
    players = " and ".join(
        f"{p}" + (f" ({e.names[p]})" if e.names.get(p, p) != p else "") + f" with {_cards(counts[p])}"
        for p in PLAYERS
    )
    text = f"The match starts: {players}; {e.mode} mode"
    if e.rulings:
        text += "; rulings " + ", ".join(f"{k} {v}" for k, v in sorted(e.rulings.items()))
    if viewer == "judge":
        text += f"; seed {e.seed}"  # the seed decides every shuffle, so only a judge gets it
    return text + "."


def _position_set_up(e: PositionSetUp, s: GameState, viewer: str) -> str:
    field = {p: sum(1 for f in e.field if f.controller == p) for p in PLAYERS}
    castles = {p: len(e.zones.get(f"{p}.castle", [])) for p in PLAYERS}
    return (
        f"A position is set up: turn {e.turn}, {e.active} active at step {e.step}; "
        f"A has {_plural(field['A'], 'character')} on the field and {_cards(castles['A'])} in the castle, "
        f"B has {_plural(field['B'], 'character')} and {_cards(castles['B'])}."
    )


def _opening_chosen(e: OpeningChosen, s: GameState, viewer: str) -> str:
    if _sees_hand(viewer, e.player):
        return f"{e.player} chooses {_name(s, e.card)} as the opening character; it goes face down on the field."
    return f"{e.player} puts a cost-1 character from the deck face down on the field."


def _castles_shuffled(e: CastlesShuffled, s: GameState, viewer: str) -> str:
    if s.deal == "table":
        sizes = ", ".join(f"{p} {_cards(len(order))}" for p, order in sorted(e.orders.items()))
        return f"Both castles are shuffled at the table ({sizes}); every castle card is unknown until revealed."
    if viewer == "judge":
        tops = "; ".join(
            f"{p}'s top card is now {_name(s, order[0])}" for p, order in sorted(e.orders.items()) if order
        )
        return "Both castles are shuffled" + (f"; {tops}." if tops else ".")
    sizes = ", ".join(f"{p} {_cards(len(order))}" for p, order in sorted(e.orders.items()))
    return f"Both castles are shuffled ({sizes})."


def _turn_order_cards_turned(e: TurnOrderCardsTurned, s: GameState, viewer: str) -> str:
    turned = ", ".join(
        f"{p} turns {_name(s, e.cards[p])} ({_number(e.numbers.get(p, 0))})" for p in PLAYERS if p in e.cards
    )
    a, b = e.numbers.get("A", 0), e.numbers.get("B", 0)
    if a == b:
        outcome = "a tie, so the next cards are turned"
    else:
        outcome = f"{'A' if a > b else 'B'} chooses the turn order"
    return f"Turn order, flip {e.attempt}: {turned}; both go to the bottom of their castles; {outcome}."


def _turn_order_chosen(e: TurnOrderChosen, s: GameState, viewer: str) -> str:
    return f"{e.player} chooses to go {e.order}; {e.first} takes the first turn."


def _hand_drawn(e: HandDrawn, s: GameState, viewer: str) -> str:
    text = f"{e.player} takes the top {_cards(len(e.cards))} of the castle as the opening hand"
    if _sees_hand(viewer, e.player):
        text += f": {_names(s, e.cards)}"
    return text + "."


def _mulligan_taken(e: MulliganTaken, s: GameState, viewer: str) -> str:
    if _sees_hand(viewer, e.player):
        return (
            f"{e.player} mulligans: {_names(s, e.returned)} go to the bottom of the castle, "
            f"and {_names(s, e.drawn)} are drawn."
        )
    return (
        f"{e.player} mulligans: the hand of {_cards(len(e.returned))} goes to the bottom of the castle, "
        f"and {_cards(len(e.drawn))} are drawn."
    )


def _hand_kept(e: HandKept, s: GameState, viewer: str) -> str:
    return f"{e.player} keeps the hand."


def _openings_revealed(e: OpeningsRevealed, s: GameState, viewer: str) -> str:
    shown = ", ".join(_controlled_name(s, c, "judge") for c in e.cards)
    return f"The opening characters are turned face up: {shown or 'none'}."


def _turn_started(e: TurnStarted, s: GameState, viewer: str) -> str:
    return f"Turn {e.turn} begins; {e.active} is the active player."


def _characters_untapped(e: CharactersUntapped, s: GameState, viewer: str) -> str:
    if not e.cards:
        return "Untap: every character is already untapped."
    return "Untap: " + ", ".join(_controlled_name(s, c, viewer) for c in e.cards) + "."


def _stack_returned(e: StackReturnedToHand, s: GameState, viewer: str) -> str:
    if not e.cards:
        return f"{e.player}'s action-cost stack is empty; nothing goes to the hand."
    n = len(e.cards)
    what = "the one card" if n == 1 else f"the {n} cards"
    text = f"{e.player} puts {what} of the action-cost stack into the hand"
    if _sees_hand(viewer, e.player):
        text += f": {_names(s, e.cards)}"
    return text + "."


def _stack_size_set(e: StackSizeSet, s: GameState, viewer: str) -> str:
    bonus = {"101.7": "", "101.8": " + 1 on the second player's first turn"}.get(e.rule, " + 2")
    return (
        f"{e.player} will move {_cards(e.count)} from the castle to the action-cost stack "
        f"({_plural(e.girls, 'girl')} controlled{bonus})."
    )


def _card_moved_to_stack(e: CardMovedToStack, s: GameState, viewer: str) -> str:
    card = _name(s, e.card) if viewer == "judge" else "a card"
    return f"{e.player} moves {card} from the top of the castle to the action-cost stack, face down."


def _step_performed(e: StepPerformed, s: GameState, viewer: str) -> str:
    return e.text or f"Step {e.rule} is performed."


def _cost(s: GameState, card: str) -> int:
    cd = s.cards.get(card)
    return cd.cost if cd is not None else 0


def _character_played(e: CharacterPlayed, s: GameState, viewer: str) -> str:
    return f"{e.player} plays {_name(s, e.card)} (cost {_cost(s, e.card)}); it enters tapped."


def _event_played(e: EventPlayed, s: GameState, viewer: str) -> str:
    text = f"{e.player} uses the event {_name(s, e.card)} (cost {_cost(s, e.card)}"
    if e.n is not None:
        text += f", n={e.n}"
    text += f"); it goes to {owner(e.card)}'s discard"
    if e.about is not None:
        text += f", in response to event {e.about}"
    return text + (", and its text waits to resolve." if e.resolves else ".")


# --- abilities (400-412) --------------------------------------------------------------


def _ability_name(s: GameState, card: str, index: int) -> str:
    return f"{_name(s, card)}'s ability {index}"


def _until(until: str | None) -> str:
    return {"end_of_turn": " until end of turn", "end_of_battle": " until end of battle"}.get(until or "", "")


def _ability_activated(e: AbilityActivated, s: GameState, viewer: str) -> str:
    text = f"{e.player} uses {_ability_name(s, e.card, e.ability)} (cost {e.definition.cost}"
    if e.n is not None:
        text += f", n={e.n}"
    text += ")"
    if e.about is not None:
        text += f" in response to event {e.about}"
    return text + "; it waits to resolve."


def _card_tapped(e: CardTapped, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} becomes tapped to pay [T]."


def _situation(name: str, it: str | None, s: GameState) -> str:
    return SITUATIONS.get(name, name.replace("_", " ")) + (f" ({_name(s, it)})" if it else "")


def _trigger_fired(e: TriggerFired, s: GameState, viewer: str) -> str:
    if e.rule == "308.1":
        return f"{_ability_name(s, e.card, e.ability)}, carried from the turn before, triggers now (308.1)."
    when = "before" if e.rule == "403.1a" else "on"
    return f"{_ability_name(s, e.card, e.ability)} triggers {when} {_situation(e.situation, e.it, s)}."


def _triggers_ordered(e: TriggersOrdered, s: GameState, viewer: str) -> str:
    return f"{e.player} orders their simultaneous triggers: {_names(s, e.cards)} first."


def _trigger_resolving(e: TriggerResolving, s: GameState, viewer: str) -> str:
    return f"{e.player}'s triggered ability of {_name(s, e.card)} goes on the agenda to resolve."


def _trigger_carried(e: TriggerCarried, s: GameState, viewer: str) -> str:
    return f"{_ability_name(s, e.card, e.ability)} triggered during 308: it resolves at the end of the next turn."


def _window_opened(e: WindowOpened, s: GameState, viewer: str) -> str:
    if e.kind == "battle_type":
        return f"Events and abilities that change the battle type may be used; {e.player} first."
    about = f"event {e.about}" if e.about is not None else _situation(e.situation or "this", e.it, s)
    return f"A chance to respond to {about}; {e.player} first."


def _window_passed(e: WindowPassed, s: GameState, viewer: str) -> str:
    if e.rule == "406.2":
        return f"{e.player} has nothing to use and passes." if e.auto else f"{e.player} passes."
    return f"{e.player} passes without using an [OT] card."


def _window_closed(e: WindowClosed, s: GameState, viewer: str) -> str:
    return "Both players passed in a row; the game moves on."


def _situation_proposed(e: SituationProposed, s: GameState, viewer: str) -> str:
    return f"Before {_situation(e.situation, e.it, s)}: what comes before it resolves first."


def _moment_before(e: MomentBefore, s: GameState, viewer: str) -> str:
    return f"Triggers and responses before event {e.about} come first."


def _situation_proceeds(e: SituationProceeds, s: GameState, viewer: str) -> str:
    return f"What was proposed at event {e.about} happens now."


def _situation_replaced(e: SituationReplaced, s: GameState, viewer: str) -> str:
    return (
        f"{_ability_name(s, e.card, e.ability)} replaces {_situation(e.situation, e.it, s)}: "
        "it does not happen; the replacement's effects happen instead."
    )


def _chosen(e: Chosen, s: GameState, viewer: str) -> str:
    if e.cards:
        return f"{e.player} chooses {_names(s, e.cards)}."
    if e.rule == "409.3" and e.option:
        return f"{e.player} chooses the replacement of {_name(s, e.option.partition('#')[0])}."
    return f"{e.player} answers {e.option}."


def _use_resolving(e: UseResolving, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} resolves (event {e.use})."


def _effects_applied(e: EffectsApplied, s: GameState, viewer: str) -> str:
    return f"Then {_name(s, e.card)} goes on."


def _use_resolved(e: UseResolved, s: GameState, viewer: str) -> str:
    if e.rule == "411.1b":
        return f"{_name(s, e.card)} has no effect (event {e.use})."
    return f"{_name(s, e.card)} has resolved (event {e.use})."


def _use_countered(e: UseCountered, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} counters {_name(s, e.target)}: it has no effect; costs stay paid."


def _counter_failed(e: CounterFailed, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} cannot counter {_name(s, e.target)}: it cannot be countered."


def _values_modified(e: ValuesModified, s: GameState, viewer: str) -> str:
    parts = [f"{_number(v)} {k}" for k, v in (("physical", e.physical), ("mental", e.mental), ("random", e.random)) if v]
    return f"{_name(s, e.card)}: {_name(s, e.target)} gets {', '.join(parts) or 'nothing'}{_until(e.until)}."


def _characters_tapped(e: CharactersTapped, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} {'untaps' if e.untap else 'taps'} {_names(s, e.targets)}."


def _card_moved(e: CardMoved, s: GameState, viewer: str) -> str:
    where = "the field" if e.to == "field" else f"{e.player}'s {e.to.replace('_', ' ')}"
    if e.to not in ("field", "discard", "harem", "execution", "side") and e.position == "bottom":
        where = "the bottom of " + where
    public = e.to in ("field", "discard", "harem", "execution", "side")
    shown = _name(s, e.target) if viewer == "judge" or public or (e.to == "hand" and viewer == e.player) else "a card"
    return f"{_name(s, e.card)} moves {shown} to {where}."


def _battle_type_changed(e: BattleTypeChanged, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} makes the battle {'a combat' if e.kind == 'combat' else 'an approach'}."


def _random_number_waived(e: RandomNumberWaived, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)}: no card is turned for {_name(s, e.target)}'s random number."


def _characteristics_copied(e: CharacteristicsCopied, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)}: {_name(s, e.target)} becomes a copy of {_name(s, e.source)}{_until(e.until)}."


def _abilities_gained(e: AbilitiesGained, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)}: {_name(s, e.target)} gains {_plural(len(e.abilities), 'ability')}{_until(e.until)}."


def _abilities_lost(e: AbilitiesLost, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)}: {_name(s, e.target)} loses its abilities{_until(e.until)}."


def _control_changed(e: ControlChanged, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)}: {e.player} controls {_name(s, e.target)}{_until(e.until)}."


def _hand_maximum_changed(e: HandMaximumChanged, s: GameState, viewer: str) -> str:
    change = f"is {e.set}" if e.set is not None else f"changes by {_number(e.by)}"
    return f"{_name(s, e.card)}: {e.player}'s hand maximum {change}{_until(e.until)}."


def _effects_ended(e: EffectsEnded, s: GameState, viewer: str) -> str:
    why = {"310": "the turn ends", "306.5o": "the battle ends", "215.10": "the card left the field"}.get(e.rule, "")
    n = len(e.ids)
    return ("An effect ends" if n == 1 else f"{n} effects end") + (f": {why}." if why else ".")


def _battle_interrupted(e: BattleInterrupted, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} left the field or changed controller: the battle ends (go to 306.5n)."


def _item_played(e: ItemPlayed, s: GameState, viewer: str) -> str:
    text = f"{e.player} uses the item {_name(s, e.card)} (cost {_cost(s, e.card)}) on "
    if s.character(e.target) is None:
        return text + f"{_name(s, e.target)}, which is not on the field, so it will be discarded."
    return text + _controlled_name(s, e.target, viewer) + "."


def _cost_paid(e: CostPaid, s: GameState, viewer: str) -> str:
    card = _name(s, e.card) if viewer == "judge" else "a card"
    return f"{e.player} pays 1: {card} goes from the action-cost stack to the top of the castle."


def _attack_declared(e: AttackDeclared, s: GameState, viewer: str) -> str:
    return f"{e.player} declares an attack."


def _attacker_chosen(e: AttackerChosen, s: GameState, viewer: str) -> str:
    return f"{e.player} attacks with {_name(s, e.card)}, which becomes tapped."


def _interception_declined(e: InterceptionDeclined, s: GameState, viewer: str) -> str:
    if e.able:
        return f"{e.player} does not intercept."
    return f"{e.player} cannot intercept: no untapped character."


def _interceptor_chosen(e: InterceptorChosen, s: GameState, viewer: str) -> str:
    return f"{e.player} intercepts with {_name(s, e.card)}, which becomes tapped."


_BATTLE_KINDS = {
    "combat": "The battle is a combat (a male intercepts): physical against physical.",
    "approach": "The battle is an approach (a girl intercepts): mental against mental.",
    "castle": "Nobody intercepts: the attacker attacks the castle.",
}


def _battle_type_set(e: BattleTypeSet, s: GameState, viewer: str) -> str:
    return _BATTLE_KINDS.get(e.kind, f"The battle is a {e.kind}.")


def _random_number_applied(e: RandomNumberApplied, s: GameState, viewer: str) -> str:
    where = f"the bottom of {e.player}'s castle" if e.to == "bottom" else f"back on top of {e.player}'s castle"
    return (
        f"{e.player} turns {_name(s, e.card)} for {_name(s, e.character)}'s random number "
        f"{_number(e.number)}; it goes to {where}."
    )


def _battle_resolved(e: BattleResolved, s: GameState, viewer: str) -> str:
    b = s.battle
    outcome = f"{e.winner} wins" if e.winner is not None else "a draw, nobody is captured"
    if b is None or b.interceptor is None:
        powers = ", ".join(f"{p} {v}" for p, v in sorted(e.powers.items()))
        return f"Battle powers {powers}; {outcome}."
    kind = (b.kind or "battle").capitalize()
    defender = other(b.player)
    return (
        f"{kind}: {b.player}'s {_name(s, b.attacker)} {e.powers.get(b.player, 0)} against "
        f"{defender}'s {_name(s, b.interceptor)} {e.powers.get(defender, 0)}; {outcome}."
    )


def _character_captured(e: CharacterCaptured, s: GameState, viewer: str) -> str:
    pile = "harem" if e.zone == "harem" else "execution pile"
    return f"{_controlled_name(s, e.card, viewer)} loses and goes to {e.by}'s {pile}."


def _castle_attacked(e: CastleAttacked, s: GameState, viewer: str) -> str:
    b = s.battle
    attacker = f"{other(e.player)}'s {_name(s, b.attacker)}" if b and b.attacker else other(e.player)
    if e.amount <= 0:
        return f"{attacker} attacks {e.player}'s castle with physical {e.amount}: no card is milled."
    return f"{attacker} attacks {e.player}'s castle for {_plural(e.amount, 'card')} (its physical now)."


def _card_milled(e: CardMilled, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} goes from the top of {e.player}'s castle to {owner(e.card)}'s discard."


def _item_discarded(e: ItemDiscarded, s: GameState, viewer: str) -> str:
    return f"{_name(s, e.card)} has no character to hold it and goes to {owner(e.card)}'s discard."


def _characters_discarded(e: CharactersDiscarded, s: GameState, viewer: str) -> str:
    return (
        f"{e.player} discards {_names(s, e.cards)} from the field "
        "(no two characters with one name, at most six)."
    )


def _end_declared(e: EndDeclared, s: GameState, viewer: str) -> str:
    return f"{e.player} declares the end of the turn."


def _end_cancelled(e: EndDeclarationCancelled, s: GameState, viewer: str) -> str:
    return f"{e.player} acts, so {other(e.player)}'s end declaration is cancelled."


def _end_accepted(e: EndAccepted, s: GameState, viewer: str) -> str:
    if e.auto:
        return f"{e.player} has no [OT] card to use and passes; the turn ends."
    return f"{e.player} passes; the turn ends."


def _hand_limit_discarded(e: HandLimitDiscarded, s: GameState, viewer: str) -> str:
    return f"{e.player} discards {_names(s, e.cards)} from the hand, over the hand maximum."


def _conceded(e: Conceded, s: GameState, viewer: str) -> str:
    return f"{e.player} concedes."


def _draw_proposed(e: DrawProposed, s: GameState, viewer: str) -> str:
    return f"{e.player} proposes a draw."


def _game_ended(e: GameEnded, s: GameState, viewer: str) -> str:
    parts = [e.reason.rstrip(".")] if e.reason else ["The game ends"]
    if e.card:
        parts[0] += f" ({_name(s, e.card)})"
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


def _action_taken(e: ActionTaken, s: GameState, viewer: str) -> str:
    words = [f"{e.player}: {e.do.replace('_', ' ')}"]
    hidden_from_viewer = e.do in ("mulligan",) or (
        e.do == "discard" and viewer not in ("judge", e.player) and s.step == "101.5"
    )
    if s.unknown and e.do in ("play_character", "play_event", "play_item", "discard"):
        # A table-dealt match: the action names the card it takes from the hand.
        s = s.copy()
        s.unknown = s.unknown - {v for k, v in e.args.items() if k == "card" and isinstance(v, str)} - {
            c for k, v in e.args.items() if k == "cards" and isinstance(v, list) for c in v
        }
    for key, value in e.args.items():
        if key in ("card", "target") and isinstance(value, str):
            shown = _name(s, value) if not hidden_from_viewer else "a card"
            if key == "card" and e.do == "choose_opening" and viewer not in ("judge", e.player):
                shown = "a face-down card"
            words.append(shown if key == "card" else f"on {shown}")
        elif key == "targets" and isinstance(value, list):
            words.append("targeting " + _names(s, value))
        elif key in ("cards", "targets") and isinstance(value, list):
            words.append(_names(s, value) if not hidden_from_viewer else _cards(len(value)))
        else:
            words.append(f"{key} {value}")
    return " ".join(words) + "."


def _violation_recorded(e: ViolationRecorded, s: GameState, viewer: str) -> str:
    return f"Violation recorded ({e.rule}): {e.reason.rstrip('.')}; open until a judge rules."


def _step_skipped(e: StepSkipped, s: GameState, viewer: str) -> str:
    text = f"The table skipped step {e.rule}"
    if e.cards:
        text += f"; {_cards(len(e.cards))} go back as they were"
    if e.reason:
        text += f" ({e.reason.rstrip('.')})"
    return text + "."


def _note_added(e: NoteAdded, s: GameState, viewer: str) -> str:
    who = f"Judge {e.judge}" if e.judge else "Judge"
    return f"{who} notes: {e.text.rstrip('.')}."


def _judge_called(e: JudgeCalled, s: GameState, viewer: str) -> str:
    who = e.by or "The table"
    return f"{who[0].upper() + who[1:]} calls a judge" + (f": {e.reason.rstrip('.')}." if e.reason else ".")


def _violations_accepted(e: ViolationsAccepted, s: GameState, viewer: str) -> str:
    who = f"Judge {e.judge}" if e.judge else "The judge"
    rules = ", ".join(e.rules) if e.rules else "the open violations"
    return f"{who} lets {rules} stand: {e.reason.rstrip('.')}."


def _rewound(e: Rewound, s: GameState, viewer: str) -> str:
    who = f"Judge {e.judge}" if e.judge else "The judge"
    return (
        f"{who} rewinds the game to just after event {e.to} ({e.rule}): {e.reason.rstrip('.')}; "
        f"events {e.to + 1} to {s.position} are retracted"
        + ("; the player actions that followed are applied again." if e.replay else ".")
    )


Describer = Callable[[Any, GameState, str], str]

DESCRIBERS: dict[type[Event], Describer] = {
    AbilityActivated: _ability_activated,
    CardTapped: _card_tapped,
    TriggerFired: _trigger_fired,
    TriggersOrdered: _triggers_ordered,
    TriggerResolving: _trigger_resolving,
    TriggerCarried: _trigger_carried,
    WindowOpened: _window_opened,
    WindowClosed: _window_closed,
    SituationProposed: _situation_proposed,
    MomentBefore: _moment_before,
    SituationProceeds: _situation_proceeds,
    SituationReplaced: _situation_replaced,
    Chosen: _chosen,
    UseResolving: _use_resolving,
    EffectsApplied: _effects_applied,
    UseResolved: _use_resolved,
    UseCountered: _use_countered,
    CounterFailed: _counter_failed,
    ValuesModified: _values_modified,
    CharactersTapped: _characters_tapped,
    CardMoved: _card_moved,
    BattleTypeChanged: _battle_type_changed,
    RandomNumberWaived: _random_number_waived,
    CharacteristicsCopied: _characteristics_copied,
    AbilitiesGained: _abilities_gained,
    AbilitiesLost: _abilities_lost,
    ControlChanged: _control_changed,
    HandMaximumChanged: _hand_maximum_changed,
    EffectsEnded: _effects_ended,
    BattleInterrupted: _battle_interrupted,
    ActionTaken: _action_taken,
    ViolationRecorded: _violation_recorded,
    StepSkipped: _step_skipped,
    NoteAdded: _note_added,
    JudgeCalled: _judge_called,
    ViolationsAccepted: _violations_accepted,
    Rewound: _rewound,
    MatchStarted: _match_started,
    PositionSetUp: _position_set_up,
    OpeningChosen: _opening_chosen,
    CastlesShuffled: _castles_shuffled,
    CardRevealed: _card_revealed,
    TurnOrderCardsTurned: _turn_order_cards_turned,
    TurnOrderChosen: _turn_order_chosen,
    HandDrawn: _hand_drawn,
    MulliganTaken: _mulligan_taken,
    HandKept: _hand_kept,
    OpeningsRevealed: _openings_revealed,
    TurnStarted: _turn_started,
    CharactersUntapped: _characters_untapped,
    StackReturnedToHand: _stack_returned,
    StackSizeSet: _stack_size_set,
    CardMovedToStack: _card_moved_to_stack,
    StepPerformed: _step_performed,
    WindowPassed: _window_passed,
    CharacterPlayed: _character_played,
    EventPlayed: _event_played,
    ItemPlayed: _item_played,
    CostPaid: _cost_paid,
    AttackDeclared: _attack_declared,
    AttackerChosen: _attacker_chosen,
    InterceptionDeclined: _interception_declined,
    InterceptorChosen: _interceptor_chosen,
    BattleTypeSet: _battle_type_set,
    RandomNumberApplied: _random_number_applied,
    BattleResolved: _battle_resolved,
    CharacterCaptured: _character_captured,
    CastleAttacked: _castle_attacked,
    CardMilled: _card_milled,
    ItemDiscarded: _item_discarded,
    CharactersDiscarded: _characters_discarded,
    EndDeclared: _end_declared,
    EndDeclarationCancelled: _end_cancelled,
    EndAccepted: _end_accepted,
    HandLimitDiscarded: _hand_limit_discarded,
    Conceded: _conceded,
    DrawProposed: _draw_proposed,
    GameEnded: _game_ended,
}


def describe(event: Event, state_before: GameState, viewer: str = "judge") -> str:
    """One sentence for ``event`` as ``viewer`` may know it (215). An event type
    without a describer still gets a sentence, so a newer log stays readable."""
    check_viewer(viewer)
    return _sentence(event, state_before, viewer)


def _sentence(event: Event, state_before: GameState, viewer: str) -> str:
    describer = DESCRIBERS.get(type(event))
    if describer is None:
        return f"{type(event).__name__} ({event.rule})."
    return describer(event, state_before, viewer)


def transcript(events: Iterable[Event], viewer: str = "judge") -> list[dict[str, Any]]:
    """The rows of ``referee log --json``, folding the log from the empty table."""
    check_viewer(viewer)
    events = list(events)
    retracted = retracted_positions(events)
    rows: list[dict[str, Any]] = []
    state = initial_state()
    for i, event in enumerate(events, start=1):
        rows.append(
            {
                "position": i,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": event.ruling,
                "text": _sentence(event, state, viewer),
                "retracted": i in retracted,
            }
        )
        state = evolve(state, event)
    return rows


def rows_for(events: Iterable[Event], state: GameState, viewer: str = "judge") -> list[dict[str, Any]]:
    """Rows for events appended after ``state`` (positions continue from it);
    a command that just appended them need not read the whole log again."""
    check_viewer(viewer)
    rows: list[dict[str, Any]] = []
    for event in events:
        rows.append(
            {
                "position": state.position + 1,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": event.ruling,
                "text": _sentence(event, state, viewer),
                "retracted": False,
            }
        )
        state = evolve(state, event)
    return rows


def render_transcript(rows: Iterable[dict[str, Any]]) -> str:
    """Numbered lines citing the rule, ``ruling:A4`` where an interpretation decided."""
    lines = []
    for row in rows:
        cite = row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
        mark = "x" if row.get("retracted") else " "
        text = row["text"] + (" (retracted)" if row.get("retracted") else "")
        lines.append(f"{mark}{row['position']:>4}  {cite:<18} {text}")
    return "\n".join(lines)
