"""The Harem Master rules 100-310: who must act, what is legal, what follows.

The referee is a state machine with decision points (like OpenSpiel's
``current_player`` / ``legal_actions``). ``apply`` checks an action against
the rules and either raises ``IllegalAction`` citing the rule, having
appended nothing, or returns the events the action causes followed by every
automatic rule step up to the next decision (``advance``). Each automatic
step is one event; ``projections.state.evolve`` moves ``state.step`` on.

Randomness is decided here, from the match seed and the position in the
log, and stored in the events: replaying never re-rolls.
"""

from __future__ import annotations

import itertools
import random
from typing import NamedTuple

from events.cards import CardDef
from events.game import (
    ActionTaken,
    AttackDeclared,
    AttackerChosen,
    BattleResolved,
    BattleTypeSet,
    CardMilled,
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
    OpeningChosen,
    OpeningsRevealed,
    RandomNumberApplied,
    StackReturnedToHand,
    StackSizeSet,
    StepPerformed,
    TurnOrderCardsTurned,
    TurnOrderChosen,
    TurnStarted,
    ViolationRecorded,
    WindowPassed,
)
from projections.state import GameState, evolve, initial_state, other
from referee.actions import Action, Applied, IllegalAction, Refusal

HAND_SIZE = 7  # 101.4
TURN_ORDER_LIMIT = 50  # 101.3, ruling A29
CHARACTER_LIMIT = 6  # 214.2e
IMMEDIATE_WIN = 5  # 102.1, 102.2

# Actions either player may take whatever the procedure is waiting for (102.7, 102.8).
ANY_TIME = ("concede", "propose_draw", "accept_draw")


class Decision(NamedTuple):
    """Who must act now, and what kind of choice they face."""

    player: str
    kind: str  # opening | order | mulligan | window | main | intercept | end_window | hand_limit | same_name


KIND_TEXT = {
    "opening": "choose a cost-1 character to start with (101.1)",
    "order": "choose to go first or second (101.3)",
    "mulligan": "decide whether to mulligan (101.5)",
    "window": "use an [OT] event or pass (305)",
    "main": "take an action or end the turn (306)",
    "intercept": "intercept or not (306.5c)",
    "end_window": "use an [OT] event or pass after the end declaration (307)",
    "hand_limit": "discard down to the hand maximum (309)",
    "same_name": "choose which characters to discard (214.2e)",
}

KIND_ACTIONS = {
    "opening": ("choose_opening",),
    "order": ("choose_order",),
    "mulligan": ("mulligan", "keep"),
    "window": ("play_event", "pass"),
    "main": ("play_character", "play_event", "play_item", "attack", "end_turn"),
    "intercept": ("intercept", "no_intercept"),
    "end_window": ("play_event", "pass"),
    "hand_limit": ("discard",),
    "same_name": ("discard",),
}


def rng_for(state: GameState, purpose: str) -> random.Random:
    """A generator fixed by the match seed and the purpose (the rule step), so
    the same match deals identically however its log is annotated, and no two
    random decisions share a stream. A step that can happen more than once in
    a match must put a counter in ``purpose``."""
    return random.Random(f"{state.seed}:{purpose}")


# --- reading the position -----------------------------------------------------


def name_of(state: GameState, card: str) -> str:
    cd = state.cards.get(card)
    return cd.name if cd is not None else card


def stack_size(state: GameState, player: str) -> int:
    return len(state.zones[player].action_stack)


def usable_ot_events(state: GameState, player: str) -> list[str]:
    """Event cards with [OT] in the player's hand whose cost can be paid (214.3a, 505)."""
    cards = state.cards
    n = stack_size(state, player)
    return [
        c
        for c in state.zones[player].hand
        if cards[c].type == "event" and "OT" in cards[c].icons and cards[c].cost <= n
    ]


def same_name_excess(state: GameState, player: str) -> int:
    """214.2e: how many characters the player must discard (0 if none)."""
    mine = [ch.card for ch in state.field if ch.controller == player and not ch.face_down]
    if not mine:
        return 0
    names = {state.cards[c].name for c in mine}
    return len(mine) - min(len(names), CHARACTER_LIMIT)


def same_name_choices(state: GameState, player: str) -> list[tuple[str, ...]]:
    """214.2e (ruling A7): every set of characters, no larger than needed, whose
    discard leaves unique names and at most six characters."""
    excess = same_name_excess(state, player)
    if excess <= 0:
        return []
    mine = [ch.card for ch in state.field if ch.controller == player and not ch.face_down]
    choices = []
    for combo in itertools.combinations(mine, excess):
        rest = [c for c in mine if c not in combo]
        names = [state.cards[c].name for c in rest]
        if len(set(names)) == len(names) and len(rest) <= CHARACTER_LIMIT:
            choices.append(combo)
    return choices


def _same_name_pending(state: GameState) -> str | None:
    if state.step in SETUP_STEPS:
        return None
    order = (state.active, other(state.active)) if state.active else ("A", "B")
    for player in order:
        if same_name_excess(state, player) > 0:
            return player
    return None


SETUP_STEPS = frozenset(
    {"new", "101.1", "101.2", "101.3", "101.3-choose", "101.4", "101.5", "101.6"}
)


def current_decision(state: GameState) -> Decision | None:
    """The player who must act now and the kind of choice, or None when the
    game is over (or, between steps, when the referee must move on itself)."""
    if state.result is not None:
        return None
    pending = _same_name_pending(state)
    if pending is not None:
        return Decision(pending, "same_name")
    step = state.step
    active = state.active
    if step == "306":
        nap = other(active)
        if not state.window_passed and (not state.auto_pass or usable_ot_events(state, nap)):
            return Decision(nap, "window")
        return Decision(active, "main")
    if step == "306.5c":
        nap = other(active)
        if any(ch.ready for ch in state.controlled(nap)):
            return Decision(nap, "intercept")
        return None
    if step == "307":
        nap = other(active)
        if not state.auto_pass or usable_ot_events(state, nap):
            return Decision(nap, "end_window")
        return None
    if step == "309":
        if len(state.zones[active].hand) > state.hand_max[active]:
            return Decision(active, "hand_limit")
        return None
    if step == "101.1":
        return Decision("A" if "A" not in state.progress else "B", "opening")
    if step == "101.3-choose":
        return Decision(state.chooser, "order")
    if step == "101.5":
        first = state.first
        return Decision(first if first not in state.progress else other(first), "mulligan")
    return None


def current_player(state: GameState) -> str | None:
    d = current_decision(state)
    return d.player if d is not None else None


# --- listing legal actions --------------------------------------------------------


def legal_actions(state: GameState) -> list[Action]:
    """Every action the player who must act may take now (the any-time actions
    of 102.7/102.8 included). The engine accepts each of them."""
    d = current_decision(state)
    if d is None:
        return []
    p, kind = d
    cards = state.cards
    out: list[Action] = []
    if kind == "opening":
        for c in state.zones[p].castle:
            cd = cards[c]
            if cd.type == "character" and cd.cost == 1:
                out.append(Action(p, "choose_opening", card=c))
    elif kind == "order":
        out += [Action(p, "choose_order", order="first"), Action(p, "choose_order", order="second")]
    elif kind == "mulligan":
        if p not in state.mulligans:
            out.append(Action(p, "mulligan"))
        out.append(Action(p, "keep"))
    elif kind in ("window", "end_window"):
        out += [Action(p, "play_event", card=c) for c in usable_ot_events(state, p)]
        out.append(Action(p, "pass"))
    elif kind == "main":
        n = stack_size(state, p)
        targets = [ch.card for ch in state.field]
        for c in state.zones[p].hand:
            cd = cards[c]
            if cd.cost > n:
                continue
            if cd.type == "character":
                if state.characters_played < 1:
                    out.append(Action(p, "play_character", card=c))
                if "PA" in cd.icons:
                    out += [Action(p, "play_item", card=c, target=t) for t in targets]
            elif cd.type == "event":
                out.append(Action(p, "play_event", card=c))
            else:
                out += [Action(p, "play_item", card=c, target=t) for t in targets]
        out += [Action(p, "attack", card=ch.card) for ch in state.field if ch.controller == p and ch.ready]
        out.append(Action(p, "end_turn"))
    elif kind == "intercept":
        out += [
            Action(p, "intercept", card=ch.card) for ch in state.field if ch.controller == p and ch.ready
        ]
        out.append(Action(p, "no_intercept"))
    elif kind == "hand_limit":
        out += [Action(p, "discard", cards=(c,)) for c in state.zones[p].hand]
    elif kind == "same_name":
        out += [Action(p, "discard", cards=combo) for combo in same_name_choices(state, p)]
    out.append(Action(p, "concede"))
    if state.draw_offer == other(p):
        out.append(Action(p, "accept_draw"))
    elif state.draw_offer is None:
        out.append(Action(p, "propose_draw"))
    return out


# --- applying an action -------------------------------------------------------------


def _refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def _physical(rule: str, reason: str) -> IllegalAction:
    """A refusal for something a table can physically do anyway (a second
    character, a tapped attacker): record mode appends it with its violation."""
    return IllegalAction(Refusal(rule, reason, physical=True))


def _pay(state: GameState, player: str, cost: int) -> list[Event]:
    """215.4c (ruling A10): the top ``cost`` cards of the stack, one at a time."""
    stack = state.zones[player].action_stack
    return [CostPaid(player=player, card=c) for c in stack[:cost]]


def _cost_check(state: GameState, player: str, card: str) -> None:
    cost = state.cards[card].cost
    n = stack_size(state, player)
    if cost > n:
        raise _refuse(
            "215.4c",
            f"{name_of(state, card)} costs {cost} but {player}'s action-cost stack holds only {n} card"
            + ("" if n == 1 else "s")
            + ".",
        )


def _in_hand(state: GameState, player: str, card: str | None, rule: str, what: str) -> str:
    if card is None:
        raise _refuse(rule, f"Name the {what} to use.")
    if card not in state.zones[player].hand:
        where = state.where(card)
        place = f" (it is in {where})" if where else ""
        raise _refuse(rule, f"{name_of(state, card)} is not in {player}'s hand{place}.")
    return card


TURN_RULES = {
    "play_character": ("214.2a", "Character cards can only be used during your own turn."),
    "play_item": ("214.4a", "Item cards can only be used during your own turn."),
    "attack": ("306.5a", "Only the active player can declare an attack."),
    "end_turn": ("307", "Only the active player declares the end of the turn."),
}
NON_ACTIVE_ONLY = {
    "intercept": ("306.5c", "Only the non-active player can intercept."),
    "no_intercept": ("306.5c", "Only the non-active player decides about intercepting."),
}


def _turn_refusal(state: GameState, action: Action) -> IllegalAction | None:
    """The refusal for an action that belongs to the other side of the turn:
    the rule that forbids it is more useful than "not your decision"."""
    p, do = action.player, action.do
    if state.active is None:
        return None
    if p != state.active:
        if do in TURN_RULES:
            return _refuse(*TURN_RULES[do])
        if do == "play_event" and action.card is not None:
            cd = state.cards.get(action.card)
            if cd is not None and "OT" not in cd.icons:
                return _refuse(
                    "214.3a", f"{cd.name} has no [OT] icon, so it can only be used during your own turn."
                )
            if cd is not None and action.card in state.zones[p].hand:
                # An [OT] event the player cannot pay for is why no window
                # was offered (ruling A22): say so.
                try:
                    _cost_check(state, p, action.card)
                except IllegalAction as exc:
                    return exc
    elif do in NON_ACTIVE_ONLY:
        return _refuse(*NON_ACTIVE_ONLY[do])
    return None


def _wrong_player(state: GameState, action: Action, d: Decision) -> IllegalAction:
    """The refusal for an action by a player who is not the one to act now."""
    turn = _turn_refusal(state, action)
    if turn is not None:
        return turn
    if action.do in KIND_ACTIONS[d.kind]:
        return _refuse(RULE_OF_KIND[d.kind], f"It is {d.player}, not {action.player}, who must {KIND_TEXT[d.kind]}.")
    return _refuse(
        "406.1",
        f"It is not {action.player}'s decision now: {d.player} must {KIND_TEXT[d.kind]}.",
    )


def decide(state: GameState, action: Action, waive: frozenset[str] = frozenset()) -> list[Event]:
    """The events ``action`` itself causes, or ``IllegalAction`` citing the rule.

    Nothing automatic is included; ``apply`` adds the steps that follow."""
    p, do = action.player, action.do
    if p not in ("A", "B"):
        raise _refuse("100.1", f"Only players A and B take part in a game, not {p!r}.")
    if state.result is not None:
        r = state.result
        raise _refuse(r.rule, "The game is over" + (f": {r.reason}" if r.reason else "."))
    if state.step == "new":
        raise _refuse("101", "The match has not started.")
    if do == "concede":
        return [
            Conceded(player=p),
            GameEnded(rule="102.7", winner=other(p), reason=f"{p} conceded."),
        ]
    if do == "propose_draw":
        if state.draw_offer == other(p):
            return [GameEnded(rule="102.8", draw=True, reason="Both players agreed to a draw.")]
        return [DrawProposed(player=p)]
    if do == "accept_draw":
        if state.draw_offer != other(p):
            raise _refuse("102.8", f"{other(p)} has not proposed a draw, so there is nothing to accept.")
        return [GameEnded(rule="102.8", draw=True, reason="Both players agreed to a draw.")]

    d = current_decision(state)
    if d is None:
        raise _refuse("406.1", "Nobody can act now: the referee is between steps.")
    if p != d.player:
        raise _wrong_player(state, action, d)
    if do not in KIND_ACTIONS[d.kind]:
        turn = _turn_refusal(state, action)
        if turn is not None:
            raise turn
        allowed = ", ".join(KIND_ACTIONS[d.kind])
        raise _refuse(
            RULE_OF_KIND[d.kind],
            f"{p} must {KIND_TEXT[d.kind]} now; the possible actions are {allowed}, not {do}.",
        )
    return _DECIDERS[d.kind](state, action, waive)


RULE_OF_KIND = {
    "opening": "101.1",
    "order": "101.3",
    "mulligan": "101.5",
    "window": "305",
    "main": "306",
    "intercept": "306.5c",
    "end_window": "307",
    "hand_limit": "309",
    "same_name": "214.2e",
}


def _decide_opening(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    card = a.card
    if card is None or card not in state.zones[a.player].castle:
        shown = name_of(state, card) if card else "nothing"
        raise _refuse("101.1", f"The opening character must come from {a.player}'s own deck, not {shown}.")
    cd = state.cards[card]
    if (cd.type != "character" or cd.cost != 1) and "101.1" not in waive:
        raise _physical(
            "101.1",
            f"The opening character must be a cost-1 character; {cd.name} is a cost-{cd.cost} {cd.type}.",
        )
    return [OpeningChosen(player=a.player, card=card)]


def _decide_order(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    if a.order not in ("first", "second"):
        raise _refuse("101.3", "Choose order: first or second.")
    first = a.player if a.order == "first" else other(a.player)
    return [TurnOrderChosen(player=a.player, order=a.order, first=first)]


def _decide_mulligan(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p = a.player
    if a.do == "keep":
        return [HandKept(player=p)]
    if p in state.mulligans:
        raise _refuse("101.5", f"{p} has already taken the one mulligan allowed in a game.")
    z = state.zones[p]
    returned = list(a.cards) if a.cards else list(z.hand)
    if sorted(returned) != sorted(z.hand):
        raise _refuse("101.5", "A mulligan puts the whole hand on the bottom of the castle.")
    castle_after = [c for c in z.castle] + returned
    return [MulliganTaken(player=p, returned=returned, drawn=castle_after[:HAND_SIZE])]


def _play_event(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p = a.player
    card = _in_hand(state, p, a.card, "306.2", "event card")
    cd = state.cards[card]
    if cd.type != "event":
        raise _refuse("306.2", f"{cd.name} is a {cd.type} card, not an event.")
    if p != state.active and "OT" not in cd.icons and "214.3a" not in waive:
        raise _physical("214.3a", f"{cd.name} has no [OT] icon, so it can only be used during your own turn.")
    _cost_check(state, p, card)
    return [EventPlayed(player=p, card=card), *_pay(state, p, cd.cost)]


def _decide_window(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    if a.do == "pass":
        return [WindowPassed(player=a.player)]
    return _play_event(state, a, waive)


def _decide_end_window(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    if a.do == "pass":
        return [EndAccepted(player=a.player)]
    events = _play_event(state, a, waive)
    # 307.1: acting cancels the end declaration; play goes back to 305, where
    # the event is the first use of the window.
    return [EndDeclarationCancelled(player=a.player), *events]


def _decide_main(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p, do = a.player, a.do
    if do == "play_character":
        card = _in_hand(state, p, a.card, "306.1", "character card")
        cd = state.cards[card]
        if cd.type != "character":
            raise _refuse("306.1", f"{cd.name} is a {cd.type} card, not a character.")
        if state.characters_played >= 1 and "306.1a" not in waive:
            raise _physical(
                "306.1a",
                f"{p} has already used a character card this turn; only one is allowed per turn, "
                f"so {cd.name} cannot be played.",
            )
        _cost_check(state, p, card)
        return [CharacterPlayed(player=p, card=card), *_pay(state, p, cd.cost)]
    if do == "play_event":
        return _play_event(state, a, waive)
    if do == "play_item":
        card = _in_hand(state, p, a.card, "306.3", "item card")
        cd = state.cards[card]
        if cd.type != "item" and not (cd.type == "character" and "PA" in cd.icons):
            rule = "506" if cd.type == "character" else "306.3"
            raise _refuse(rule, f"{cd.name} is a {cd.type} card without [PA], so it cannot be used as an item.")
        if a.target is None or state.character(a.target) is None:
            shown = name_of(state, a.target) if a.target else "no character"
            raise _refuse("306.3", f"An item is attached to a character on the field; {shown} is not one.")
        _cost_check(state, p, card)
        return [ItemPlayed(player=p, card=card, target=a.target), *_pay(state, p, cd.cost)]
    if do == "attack":
        ch = state.character(a.card) if a.card else None
        if ch is None or ch.controller != p:
            shown = name_of(state, a.card) if a.card else "no character"
            raise _refuse("306.5b", f"The attacker must be a character {p} controls on the field; {shown} is not.")
        if not ch.ready and "306.5b" not in waive:
            raise _physical(
                "306.5b", f"{name_of(state, ch.card)} is tapped; only an untapped character can attack."
            )
        return [AttackDeclared(player=p), AttackerChosen(player=p, card=ch.card)]
    # end_turn
    return [EndDeclared(player=p)]


def _decide_intercept(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p = a.player
    if a.do == "no_intercept":
        return [InterceptionDeclined(player=p, able=True)]
    ch = state.character(a.card) if a.card else None
    if ch is None or ch.controller != p:
        shown = name_of(state, a.card) if a.card else "no character"
        raise _refuse("306.5d", f"The interceptor must be a character {p} controls on the field; {shown} is not.")
    if not ch.ready and "306.5d" not in waive:
        raise _physical("306.5d", f"{name_of(state, ch.card)} is tapped; only an untapped character can intercept.")
    return [InterceptorChosen(player=p, card=ch.card)]


def _decide_hand_limit(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p = a.player
    hand = state.zones[p].hand
    cards = list(a.cards or ())
    excess = len(hand) - state.hand_max[p]
    if not cards:
        raise _refuse("309", f"{p} must choose {excess} card(s) to discard.")
    for c in cards:
        if c not in hand:
            raise _refuse("309", f"{name_of(state, c)} is not in {p}'s hand.")
    if len(set(cards)) != len(cards):
        raise _refuse("309", "The same card was named twice.")
    if len(cards) > excess:
        raise _refuse(
            "309",
            f"{p} has {len(hand)} cards and the maximum is {state.hand_max[p]}: "
            f"discard {excess}, not {len(cards)}.",
        )
    return [HandLimitDiscarded(player=p, cards=cards)]


def _decide_same_name(state: GameState, a: Action, waive: frozenset[str]) -> list[Event]:
    p = a.player
    chosen = tuple(a.cards or ())
    choices = same_name_choices(state, p)
    if not any(sorted(chosen) == sorted(c) for c in choices):
        excess = same_name_excess(state, p)
        raise _refuse(
            "214.2e",
            f"{p} must discard exactly {excess} of their characters so that no two share a name "
            f"and at most {CHARACTER_LIMIT} remain.",
        )
    return [CharactersDiscarded(player=p, cards=list(chosen))]


_DECIDERS = {
    "opening": _decide_opening,
    "order": _decide_order,
    "mulligan": _decide_mulligan,
    "window": _decide_window,
    "main": _decide_main,
    "intercept": _decide_intercept,
    "end_window": _decide_end_window,
    "hand_limit": _decide_hand_limit,
    "same_name": _decide_same_name,
}


# --- automatic steps --------------------------------------------------------------


def _end_check(state: GameState) -> Event | None:
    """102.1/102.2 before castle-fall scoring (ruling A13); a castle falls at the
    moment its last card leaves (ruling A2)."""
    if state.step in ("new", "over"):
        return None
    wins = []
    for p in ("A", "B"):
        z = state.zones[p]
        if len(z.harem) >= IMMEDIATE_WIN:
            wins.append((p, "102.1"))
        elif len(z.execution) >= IMMEDIATE_WIN:
            wins.append((p, "102.2"))
    if len(wins) == 2:
        return GameEnded(rule=wins[0][1], ruling="A13", draw=True, reason="Both players won at once.")
    if wins:
        p, rule = wins[0]
        where = "harem" if rule == "102.1" else "execution pile"
        return GameEnded(rule=rule, winner=p, reason=f"{p} has {IMMEDIATE_WIN} or more cards in their {where}.")
    fallen = [p for p in ("A", "B") if not state.zones[p].castle]
    if state.step in SETUP_STEPS or not fallen:
        return None
    scores = {p: state.score(p) for p in ("A", "B")}
    if state.rulings.get("A1", "not_fallen") == "felled":
        rule = "102.3"
        b = state.battle
        # Milling is the only way one player empties the other's castle; the
        # step has moved on to 306.5n when the last planned card was the last.
        milled = state.step in ("306.5m", "306.5n") and b is not None and b.kind == "castle"
        if milled and fallen == [other(b.player)]:
            scores[b.player] += 5
    else:
        rule = "103.2"
        for p in ("A", "B"):
            if p not in fallen:
                scores[p] += 5
    if scores["A"] == scores["B"]:
        winner, draw = None, True
    else:
        winner, draw = ("A" if scores["A"] > scores["B"] else "B"), False
    fell = " and ".join(f"{p}'s castle" for p in fallen)
    return GameEnded(
        rule=rule, ruling="A1", winner=winner, draw=draw, scores=scores, reason=f"{fell} fell."
    )


def _battle_number(state: GameState, player: str, character: str) -> Event:
    top = state.zones[player].castle[0]
    to = "top" if state.rulings.get("A4") == "top" else "bottom"
    return RandomNumberApplied(
        ruling="A4",
        player=player,
        character=character,
        card=top,
        number=state.cards[top].random,
        to=to,
    )


def _battle_stat(state: GameState, card: str, kind: str) -> int:
    return state.physical(card) if kind == "combat" else state.mental(card)


def _automatic(state: GameState) -> Event | None:
    """The next automatic rule step at ``state.step``, or None at a decision."""
    step = state.step
    active = state.active
    if step == "306.5m":
        b = state.battle
        target = other(b.player)
        if state.to_move == 0:
            return CastleAttacked(player=target, amount=state.physical(b.attacker))
        return CardMilled(player=target, card=state.zones[target].castle[0])
    if step == "303":
        if state.to_move == 0:
            girls = state.girls(active)
            if state.turn == 1:
                return StackSizeSet(rule="101.7", ruling="A3", player=active, count=girls, girls=girls)
            if state.turn == 2:
                return StackSizeSet(rule="101.8", ruling="A3", player=active, count=girls + 1, girls=girls)
            return StackSizeSet(player=active, count=girls + 2, girls=girls)
        return CardMovedToStack(player=active, card=state.zones[active].castle[0])
    if step == "300":
        nxt = state.first if state.turn == 0 or state.active is None else other(state.active)
        return TurnStarted(turn=state.turn + 1, active=nxt)
    if step == "301":
        return CharactersUntapped(cards=[ch.card for ch in state.field if not ch.ready])
    if step == "302":
        return StackReturnedToHand(player=active, cards=list(state.zones[active].action_stack))
    if step == "304":
        return StepPerformed(rule="304", text="No start-of-turn abilities to process.")
    if step == "306.5c":
        if current_decision(state) is None:
            return InterceptionDeclined(player=other(active), able=False)
        return None
    if step == "306.5e":
        b = state.battle
        if b.interceptor is None:
            return BattleTypeSet(rule="306.5g", kind="castle")
        if state.cards[b.interceptor].gender == "male":
            return BattleTypeSet(rule="306.5e", kind="combat")
        return BattleTypeSet(rule="306.5f", kind="approach")
    if step == "306.5h":
        return StepPerformed(rule="306.5h", text="Nobody can change the battle type.")
    if step == "306.5i":
        b = state.battle
        applied = {pl for pl, _ in b.numbers}
        defender = other(b.player)
        if b.player not in applied:
            return _battle_number(state, b.player, b.attacker)
        if defender not in applied:
            return _battle_number(state, defender, b.interceptor)
        numbers = dict(b.numbers)
        powers = {
            b.player: _battle_stat(state, b.attacker, b.kind) + numbers[b.player],
            defender: _battle_stat(state, b.interceptor, b.kind) + numbers[defender],
        }
        if powers[b.player] == powers[defender]:
            winner = None
        else:
            winner = b.player if powers[b.player] > powers[defender] else defender
        return BattleResolved(powers=powers, winner=winner)
    if step == "306.5j":
        return StepPerformed(rule="306.5j", text="No abilities trigger on winning or losing.")
    if step == "306.5k":
        b = state.battle
        male = state.cards[b.loser].gender == "male"
        return CharacterCaptured(
            rule="306.5k" if male else "306.5l",
            card=b.loser,
            by=b.winner,
            zone="execution" if male else "harem",
        )
    if step == "306.5n":
        return StepPerformed(rule="306.5n", text="No end-of-battle abilities.")
    if step == "306.5o":
        return StepPerformed(rule="306.5o", text="The battle ends.")
    if step == "307":
        if current_decision(state) is None:
            return EndAccepted(player=other(active), auto=True)
        return None
    if step == "308":
        return StepPerformed(rule="308", text="No end-of-turn abilities to process.")
    if step == "309":
        if current_decision(state) is None:
            hand = len(state.zones[active].hand)
            return StepPerformed(
                rule="309", text=f"{active} has {hand} cards in hand; the maximum is {state.hand_max[active]}."
            )
        return None
    if step == "310":
        return StepPerformed(rule="310", text="Effects that last until the end of the turn end.")
    if step == "101.2":
        rng = rng_for(state, "101.2")
        orders = {}
        for p in ("A", "B"):
            castle = list(state.zones[p].castle)
            rng.shuffle(castle)
            orders[p] = castle
        return CastlesShuffled(orders=orders)
    if step == "101.3":
        if state.attempts >= TURN_ORDER_LIMIT:
            return GameEnded(
                rule="101.3",
                ruling="A29",
                draw=True,
                reason=f"The turn-order flips tied {TURN_ORDER_LIMIT} times.",
            )
        cards = {p: state.zones[p].castle[0] for p in ("A", "B")}
        return TurnOrderCardsTurned(
            attempt=state.attempts + 1,
            cards=cards,
            numbers={p: state.cards[c].random for p, c in cards.items()},
        )
    if step == "101.4":
        p = state.first if state.first not in state.progress else other(state.first)
        return HandDrawn(player=p, cards=list(state.zones[p].castle[:HAND_SIZE]))
    if step == "101.6":
        return OpeningsRevealed(cards=[ch.card for ch in state.field if ch.face_down])
    return None


def _state_check(state: GameState) -> Event | None:
    end = _end_check(state)
    if end is not None:
        return end
    if state.orphans:
        return ItemDiscarded(card=state.orphans[0])
    return None


def advance(state: GameState, out: list[Event] | None = None) -> tuple[list[Event], GameState]:
    """Run the automatic rule steps up to the next decision (or the end)."""
    events: list[Event] = [] if out is None else out
    while state.result is None:
        ev = _state_check(state)
        if ev is None:
            if _same_name_pending(state) is not None:
                break
            ev = _automatic(state)
            if ev is None:
                break
        state = evolve(state, ev)
        events.append(ev)
    return events, state


def own_events(state: GameState, action: Action, *, strict: bool = False) -> list[Event]:
    """The events the action itself causes, first its ``ActionTaken`` (and any
    violations recorded in record mode), without the automatic steps after it.
    These are one indivisible whole: a rewind can go back to before them or
    after them, never into them. ``strict`` refuses physical violations even
    in record mode (a replay after a correction applies only legal actions)."""
    try:
        events = decide(state, action)
        violations: list[Event] = []
    except IllegalAction as exc:
        exc.action = action
        if strict or state.mode != "record" or not exc.refusal.physical:
            raise
        events, violations = _record_anyway(state, action, exc.refusal)
    taken = ActionTaken(rule=ACTION_RULES.get(action.do, "406.1"), player=action.player, do=action.do, args=action.arguments())
    return [taken, *violations, *events]


def apply(state: GameState, action: Action, *, strict: bool = False) -> Applied:
    """The events of ``action`` and every automatic step after it, and the state
    they lead to; raises ``IllegalAction`` (nothing applied) if it is refused.

    Rule 410.1 (ruling A8): every check is made and every event computed
    before anything is returned, so an action that turns out impossible part
    way through its resolution is refused whole, leaving nothing of itself in
    the log. Rewinding after the fact is kept for what only a judge can see.

    In record mode an action the table can physically take despite a rule
    (``Refusal.physical``) is applied anyway, each broken rule recorded as a
    ``ViolationRecorded`` event that stays open until a judge rules on it."""
    events = own_events(state, action, strict=strict)
    for ev in events:
        state = evolve(state, ev)
    events, state = advance(state, events)
    return Applied(events, state)


def _record_anyway(state: GameState, action: Action, first: Refusal) -> tuple[list[Event], list[Event]]:
    """The events of a physically possible illegal action, with its violations."""
    waive: set[str] = set()
    refusal: Refusal | None = first
    broken: list[Refusal] = []
    while refusal is not None:
        broken.append(refusal)
        waive.add(refusal.rule)
        try:
            events = decide(state, action, frozenset(waive))
            refusal = None
        except IllegalAction as exc:
            if not exc.refusal.physical:
                exc.action = action
                raise
            refusal = exc.refusal
    return events, [ViolationRecorded(rule=r.rule, player=action.player, reason=r.reason) for r in broken]


# The rule each kind of action is taken under, cited by its ActionTaken event.
ACTION_RULES = {
    "choose_opening": "101.1",
    "choose_order": "101.3",
    "mulligan": "101.5",
    "keep": "101.5",
    "play_character": "306.1",
    "play_event": "306.2",
    "play_item": "306.3",
    "activate": "306.4",
    "attack": "306.5a",
    "intercept": "306.5c",
    "no_intercept": "306.5c",
    "pass": "305",
    "end_turn": "307",
    "discard": "309",
    "choose": "406.1",
    "concede": "102.7",
    "propose_draw": "102.8",
    "accept_draw": "102.8",
}


def is_legal(state: GameState, action: Action) -> Refusal | None:
    """None if ``action`` would be accepted, else its refusal."""
    try:
        decide(state, action)
    except IllegalAction as exc:
        return exc.refusal
    return None


def start(
    cards: dict[str, CardDef],
    castles: dict[str, list[str]],
    *,
    seed: int,
    names: dict[str, str] | None = None,
    mode: str = "strict",
    rulings: dict[str, str] | None = None,
    auto_pass: bool = True,
) -> Applied:
    """A new match from two checked decks: the first event and the steps after it."""
    first = MatchStarted(
        seed=seed,
        names=names or {"A": "A", "B": "B"},
        cards=cards,
        castles=castles,
        mode=mode,
        rulings=rulings or {},
        auto_pass=auto_pass,
    )
    state = evolve(initial_state(), first)
    events, state = advance(state, [first])
    return Applied(events, state)
