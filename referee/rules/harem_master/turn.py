"""Rules 214.2-214.2d, 214.2f, 214.4-214.4e, 214.4g, 300-306.4, 307-310 and 506: the turn, but battle.

The turn, from untapping to the end of the turn (300, 300.1: each player
plays their own turns, where most actions happen): 301-304, the main phase
(305, 306: the non-active player's window, then one action of the active
player, again and again), the end declaration and its window (307, 307.1,
307.2), the end of the turn (308, 308.1, 309, 310). Battle (306.5) is in
``battle``.

The active player's plays: a character card (306.1; one a turn, 306.1a;
it enters the field tapped, 306.1b and 214.2f, as the fold keeps it), an
event card (306.2), an item card (306.3) or a [PA] character as an item
(506), an activated ability (306.4). Character cards (214.2): only in your
own turn (214.2a); one stays on the field as a character until removed
(214.2b), untapped or tapped (214.2c), controlled by the player who put it
there (214.2d): facts the fold (``projections.harem_master.state``) keeps. Item cards
(214.4): only in your own turn (214.4a), controlled by their user (214.4b),
attached to a character and equipping it until removed (214.4c, 214.4d),
as many as you like (214.4e); one used on a character it does not suit
enters the field and is discarded at once (214.4g, ruling A14).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import cast

from events.harem_master.cards import CardDef
from events.harem_master.game import (
    CardMovedToStack,
    CharacterPlayed,
    CharactersUntapped,
    EndAccepted,
    EndDeclarationCancelled,
    EndDeclared,
    HandLimitDiscarded,
    ItemDiscarded,
    ItemPlayed,
    StackReturnedToHand,
    StackSizeSet,
    StepPerformed,
    TriggerCarried,
    TriggerFired,
    TurnStarted,
    WindowPassed,
)
from events.kernel import Event
from projections.harem_master.state import GameState, evolve, other
from referee.rules.harem_master.abilities import (
    Moment,
    can_use,
    declare,
    forbidden,
    moment_of,
    use_candidates,
)
from referee.rules.harem_master.actions import Action, Seated
from referee.rules.harem_master.agenda import moment, pipeline, propose
from referee.rules.harem_master.characteristics import equip_fits, girls, hand_maximum
from referee.rules.harem_master.checks import same_name_choices, same_name_discard
from referee.rules.harem_master.common import a_card, in_hand, physical, refuse
from referee.rules.harem_master.effects import ends
from referee.rules.harem_master.hidden import hand_candidates
from referee.rules.harem_master.registry import (
    ABILITY,
    ACTIONS,
    CARD,
    CARDS,
    OPTION,
    TARGET,
    TARGETS,
    Candidates,
    Context,
    Decision,
    Events,
    N,
    decision_kind,
    joined,
    only,
    step,
)
from referee.rules.harem_master.situations import Sit, fire
from referee.rules.harem_master.zones import cost_check, pay

# --- 300-304: the start of the turn ------------------------------------------------


@step("300")
def _next_turn(state: GameState) -> Event:
    nxt = state.first if state.turn == 0 or state.active is None else other(state.active)
    return TurnStarted.trusted(turn=state.turn + 1, active=nxt, step="301")


@step("301")
def _untap(state: GameState) -> Event:
    return CharactersUntapped.trusted(cards=[ch.card for ch in state.field if not ch.ready], step="302")


@step("302")
def _stack_to_hand(state: GameState) -> Event:
    active: str = state.active  # type: ignore[assignment]  # set at 300, for the whole turn
    return StackReturnedToHand.trusted(player=active, cards=list(state.zones[active].action_stack), step="303")


@step("303")
def _fill_stack(state: GameState) -> Event:
    """303 (girls + 2), 101.7 (first player's first turn: girls) and 101.8
    (second player's first turn: girls + 1), girls counted at 303 (ruling A3);
    then one card at a time."""
    active: str = state.active  # type: ignore[assignment]  # set at 300, for the whole turn
    if state.to_move == 0:
        girls_now = girls(state, active)
        rule, ruling, count = "303", None, girls_now + 2
        if state.turn == 1:
            rule, ruling, count = "101.7", "A3", girls_now
        elif state.turn == 2:
            rule, ruling, count = "101.8", "A3", girls_now + 1
        return StackSizeSet.trusted(
            rule=rule, ruling=ruling, player=active, count=count, girls=girls_now, step="303" if count > 0 else "304"
        )
    return CardMovedToStack.trusted(
        player=active, card=state.zones[active].castle[0], step="304" if state.to_move == 1 else "303"
    )


@step("304")
def _start_of_turn(state: GameState) -> list[Event]:
    """304: abilities worded "at the start of the turn" (``turn_start``)."""
    done = StepPerformed.trusted(rule="304", text="Start-of-turn abilities are processed.", step="306")
    out = moment(state, Sit("turn_start", None, state.active), done)
    if len(out) == 1:
        out[0] = StepPerformed.trusted(rule="304", text="No start-of-turn abilities to process.", step="306")
    return out


# --- 305/306: the main phase ----------------------------------------------------------


def _after_use(state: GameState, player: str) -> str | None:
    """306: once an action of the active player in the main phase resolves,
    the non-active player's 305 window comes round again."""
    return "306" if player == state.active and state.step == "306" else None


def _use_candidates(do: str) -> Candidates:
    def candidates(state: GameState, p: str, ctx: Context) -> Iterable[Action]:
        moment = Moment("window") if ctx.kind == OUT_OF_TURN else moment_of(state, p)
        return use_candidates(state, p, moment, do)

    return candidates


@ACTIONS.move(
    "play_event",
    "306.2",
    args=(CARD, TARGETS, N, OPTION),
    card_from="hand",
    missing_rule="306.2",
    candidates=_use_candidates("play_event"),
    help="use an event card from the hand, in any window it may be used in (305, 307, 406.2)",
)
@ACTIONS.move(
    "activate",
    "306.4",
    args=(CARD, ABILITY, TARGETS, N, OPTION),
    card_from="usable",
    candidates=_use_candidates("activate"),
    help="use an activated ability of a card, in any window it may be used in (402)",
)
def _use(state: GameState, a: Seated, ctx: Context) -> Events:
    """306.2 (an event card) or 306.4 (an activated ability), in whichever
    window the player acts in (``moment_of``: 305, 306, 307, 306.5h, 407.3;
    ``declare`` checks that an event card is in the hand). After the end
    declaration acting cancels it (307.1): play goes back to 305, where the
    use is the first of the window."""
    p = a.player
    if ctx.kind == OUT_OF_TURN:  # record mode: a card used in the other player's turn, no window open
        return declare(state, a, Moment("window"), None, ctx.waive)
    step = None if ctx.kind == "respond" else _after_use(state, p)
    events = declare(state, a, moment_of(state, p), step, ctx.waive)
    if ctx.kind == "end_window":
        return joined(lambda: [EndDeclarationCancelled.trusted(player=p, step="306")], events)
    return events


@ACTIONS.move("pass", "305", candidates=only("pass"), help="use nothing more in this window (305, 307.2, 406.2)")
def _pass(state: GameState, a: Action, ctx: Context) -> Events:
    if ctx.kind == "end_window":
        return lambda: [EndAccepted.trusted(player=a.player, step="308")]  # 307.2
    if ctx.kind == "respond":
        return lambda: [WindowPassed.trusted(rule="406.2", player=a.player)]
    return lambda: [WindowPassed.trusted(player=a.player)]


decision_kind("window", "305", "use an [OT] event or ability, or pass (305)", ("play_event", "activate", "pass"))

# What a table can do in the other player's turn although the rules forbid it
# (214.2a, 214.4a, 214.3a): in record mode it is recorded with its violation
# (``engine``), checked as this context.
OUT_OF_TURN = "out_of_turn"


def _character_candidates(state: GameState, p: str, ctx: Context) -> Iterable[Action]:
    if state.characters_played >= 1 and "306.1a" not in ctx.waive:
        return []  # 306.1a refuses every one of them (the check says so when asked)
    cards = state.cards
    return [Action(p, "play_character", card=c) for c in hand_candidates(state, p) if cards[c].type == "character"]


def as_item(cd: CardDef) -> bool:
    """Can this card be used as an item: an item card, or a [PA] character (506)?"""
    return cd.type == "item" or (cd.type == "character" and "PA" in cd.icons)


@ACTIONS.move(
    "play_character",
    "306.1",
    args=(CARD,),
    card_from="hand",
    candidates=_character_candidates,
    side="active",
    side_rule="214.2a",
    side_text="Character cards can only be used during your own turn.",
    help="use a character card from the hand (one a turn, 306.1a)",
)
def _play_character(state: GameState, a: Seated, ctx: Context) -> Events:
    p = a.player
    card = in_hand(state, p, a.card, "306.1", "character card")
    cd = state.cards[card]
    if cd.type != "character":
        raise refuse("306.1", f"{cd.name} is {a_card(cd.type)}, not a character.")
    why = forbidden(state, "play_character", p, card)
    if why:
        raise refuse("103.1", why)
    if state.characters_played >= 1 and "306.1a" not in ctx.waive:
        raise physical(
            "306.1a",
            f"{p} has already used a character card this turn; only one is allowed per turn, "
            f"so {cd.name} cannot be played.",
        )
    cost_check(state, p, card)
    return lambda: _held(
        state, [CharacterPlayed.trusted(player=p, card=card, step="306")], pay(state, p, cd.cost), card, p
    )


def _item_candidates(state: GameState, p: str, ctx: Context) -> Iterable[Action]:
    cards = state.cards
    targets = [ch.card for ch in state.field]
    return [
        Action(p, "play_item", card=c, target=t)
        for c in hand_candidates(state, p)
        if as_item(cards[c])
        for t in targets
    ]


@ACTIONS.move(
    "play_item",
    "306.3",
    args=(CARD, TARGET),
    card_from="hand",
    candidates=_item_candidates,
    side="active",
    side_rule="214.4a",
    side_text="Item cards can only be used during your own turn.",
    help="use an item card, or a [PA] character (506), from the hand on a character",
)
def _play_item(state: GameState, a: Seated, ctx: Context) -> Events:
    p = a.player
    card = in_hand(state, p, a.card, "306.3", "item card")
    cd = state.cards[card]
    if not as_item(cd):
        rule = "506" if cd.type == "character" else "306.3"
        raise refuse(rule, f"{cd.name} is {a_card(cd.type)} without [PA], so it cannot be used as an item.")
    if a.target is None:
        raise refuse("306.3", "An item is attached to a character on the field, and none was named.")
    if state.character(a.target) is None:
        shown = state.cards[a.target].name if a.target in state.cards else a.target
        raise refuse("306.3", f"An item is attached to a character on the field; {shown} is not one.")
    why = forbidden(state, "play_item", p, card)
    if why:
        raise refuse("103.1", why)
    cost_check(state, p, card)
    target = a.target  # not None (checked above): a lambda would not see ``a.target`` narrowed
    return lambda: _item_played(state, p, card, target)


def _item_played(state: GameState, p: str, card: str, target: str) -> list[Event]:
    played: list[Event] = [ItemPlayed.trusted(player=p, card=card, target=target, step="306")]
    then: tuple[tuple[str, list[Event]], ...] = ()
    if not equip_fits(state, card, target):
        # 214.4g (ruling A14): used on a character it does not suit, it is
        # paid for and enters the field, then goes to the discard at once.
        then = (("discard", [ItemDiscarded.trusted(rule="214.4g", ruling="A14", card=card)]),)
    return _held(state, played, pay(state, p, state.cards[card].cost), card, p, then)


@ACTIONS.move(
    "end_turn",
    "307",
    candidates=only("end_turn"),
    side="active",
    side_rule="307",
    side_text="Only the active player declares the end of the turn.",
    help="declare the end of the turn",
)
def _end_turn(state: GameState, a: Action, ctx: Context) -> Events:
    return lambda: [EndDeclared.trusted(player=a.player, step="307")]


def _held(
    state: GameState,
    played: list[Event],
    costs: list[Event],
    card: str,
    player: str,
    then: tuple[tuple[str, list[Event]], ...] = (),
) -> list[Event]:
    """A character or item card used (306.1, 306.3): paid for, then at the
    moment before it enters the field (403.1a, 214.3c, 409) if anything cares;
    ``then``: what happens to it next (214.4g), in its own moment. A character
    card held there is counted for 306.1a by the proposal itself (it is used
    now, whether or not it arrives: 411.1a, ruling A28), so the one held
    carries ``counted``."""
    held = [e.model_copy(update={"counted": True}) if isinstance(e, CharacterPlayed) else e for e in played]
    proposal = propose(state, held, "use", card, player, then=then)
    if proposal is not None:
        return costs + proposal
    if not then:
        return played + costs
    after = state
    for ev in played + costs:
        after = evolve(after, ev)
    (situation, events), *rest = then
    return played + costs + pipeline(after, events, situation, card, player, then=tuple(rest))


decision_kind(
    "main",
    "306",
    "take an action or end the turn (306)",
    ("play_character", "play_event", "play_item", "activate", "attack", "end_turn"),
)


def _main_phase(state: GameState) -> Decision:
    """305 then 306 (ruling A22): the non-active player's window for [OT]
    cards before each action of the active player; a window where the
    non-active player has nothing usable passes by itself unless automatic
    passing is off."""
    nap = other(state.active)  # type: ignore[arg-type]  # set at 300, for the whole turn
    if not state.window_passed and (not state.auto_pass or can_use(state, nap, Moment("window"))):
        return Decision(nap, "window")
    return Decision(state.active, "main")  # type: ignore[arg-type]  # set at 300, for the whole turn


@step("306", decision=_main_phase)
def _main(state: GameState) -> None:
    return None


# --- 307-310: the end of the turn ----------------------------------------------------


decision_kind(
    "end_window",
    "307",
    "use an [OT] event or ability, or pass after the end declaration (307)",
    ("play_event", "activate", "pass"),
)


def _end_window(state: GameState) -> Decision | None:
    nap = other(state.active)  # type: ignore[arg-type]  # set at 300, for the whole turn
    if not state.auto_pass or can_use(state, nap, Moment("end")):
        return Decision(nap, "end_window")
    return None


@step("307", decision=_end_window)
def _end_passes(state: GameState) -> Event:
    return EndAccepted.trusted(player=other(state.active), auto=True, step="308")  # type: ignore[arg-type]  # 300


@step("308")
def _end_of_turn(state: GameState) -> list[Event]:
    """308: abilities worded "at the end of the turn" (``turn_end``), and those
    carried from the turn before (308.1, ruling A12)."""
    carried = [
        TriggerFired.trusted(
            rule="308.1",
            ruling="A12",
            player=c.player,
            card=c.card,
            ability=c.ability,
            definition=c.definition,
            situation="turn_end",
        )
        for c in state.carried
    ]
    done = StepPerformed.trusted(rule="308", text="End-of-turn abilities are processed.", step="308.1")
    out = moment(state, Sit("turn_end", None, state.active), done) + carried
    if len(out) == 1:
        out[0] = StepPerformed.trusted(rule="308", text="No end-of-turn abilities to process.", step="309")
    return out


@step("308.1")
def _carry(state: GameState) -> list[Event]:
    """308.1 (ruling A12): "at the end of the turn" abilities that met their
    condition only while 308 was processed resolve at the end of the next turn."""
    out: list[Event] = []
    # ``fire`` makes only ``TriggerFired`` events.
    for t in cast("list[TriggerFired]", fire([(Sit("turn_end", None, state.active), state)])):
        if f"{t.card}#{t.ability}" not in state.turn_end_fired:
            out.append(TriggerCarried.trusted(player=t.player, card=t.card, ability=t.ability, definition=t.definition))
    return out + [
        StepPerformed.trusted(rule="308.1", text="The end-of-turn abilities have been processed.", step="309")
    ]


def _discard_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    """309: one card at a time, or every set of as many as must go (in hand
    order; the player may name them in any order, 215.5c). 214.2e: every
    set of characters whose discard leaves the field as that rule wants."""
    if ctx.kind == "same_name":
        return [Action(p, "discard", cards=combo) for combo in same_name_choices(state, p)]
    hand = state.zones[p].hand
    excess = len(hand) - hand_maximum(state, p)
    out = [Action(p, "discard", cards=(c,)) for c in hand]
    if excess > 1:
        out += [Action(p, "discard", cards=combo) for combo in itertools.combinations(hand, excess)]
    return out


@ACTIONS.move(
    "discard",
    "309",
    args=(CARDS,),
    cards_from="hand",
    candidates=_discard_candidates,
    help="discard the cards a rule asks for: over the hand maximum (309), characters of one name (214.2e)",
)
def _decide_discard(state: GameState, a: Seated, ctx: Context) -> Events:
    if ctx.kind == "same_name":
        return same_name_discard(state, a)
    p = a.player
    hand = state.zones[p].hand
    cards = list(a.cards or ())
    limit = hand_maximum(state, p)
    excess = len(hand) - limit
    if not cards:
        raise refuse("309", f"{p} must choose {excess} card{'' if excess == 1 else 's'} to discard.")
    for c in cards:
        if c not in hand:
            raise refuse("309", f"{state.cards[c].name if c in state.cards else c} is not in {p}'s hand.")
    if len(set(cards)) != len(cards):
        raise refuse("309", "The same card was named twice.")
    if len(cards) > excess:
        raise refuse(
            "309",
            f"{p} has {len(hand)} cards and the maximum is {limit}: discard {excess}, not {len(cards)}.",
        )
    if 1 < len(cards) < excess:
        raise refuse(
            "309", f"Discard one card at a time, or all {excess} at once (in the order they go to the discard)."
        )
    done = len(hand) - len(cards) <= limit
    # Through the pipeline of every move (409: a replacement of a discard
    # from the hand applies to each card, 403.1a).
    # Made only for the discard chosen (the legal list checks every card).
    return lambda: pipeline(
        state,
        [HandLimitDiscarded.trusted(player=p, cards=cards, step="310" if done else "309")],
        "discard",
        cards[0] if len(cards) == 1 else None,
        p,
    )


decision_kind("hand_limit", "309", "discard down to the hand maximum (309)", ("discard",))


def _over_hand_maximum(state: GameState) -> Decision | None:
    active: str = state.active  # type: ignore[assignment]  # set at 300, for the whole turn
    if len(state.zones[active].hand) > hand_maximum(state, active):
        return Decision(active, "hand_limit")
    return None


@step("309", decision=_over_hand_maximum)
def _hand_maximum(state: GameState) -> Event:
    active: str = state.active  # type: ignore[assignment]  # set at 300, for the whole turn
    hand = len(state.zones[active].hand)
    return StepPerformed.trusted(
        rule="309",
        text=f"{active} has {hand} cards in hand; the maximum is {hand_maximum(state, active)}.",
        step="310",
    )


@step("310")
def _until_end_of_turn(state: GameState) -> list[Event]:
    return ends(state, "end_of_turn", "310") + [
        StepPerformed.trusted(rule="310", text="Effects that last until the end of the turn end.", step="300")
    ]
