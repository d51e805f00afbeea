"""Harem Master's procedure as the kernel asks it: who must act, what comes before an action's check, the automatic steps.

Like OpenSpiel's ``current_player``: ``current_decision`` says who must act
and what kind of choice they face (or None when the game is over or the
referee must move on itself). The kernel (``referee.ruleset``) lists,
decides and applies actions the same way for every game; this module gives
it Harem Master's rules for it: the any-time actions (102.7, 102.8), an
action that answers no decision (the other side of the turn, 214, 406.1),
the reveals a table-dealt match's action implies before its check
(``hidden``), the automatic step at each point of the procedure, the
triggers a step's events fire (403.1b), and a loop nobody can stop (ruling
A30). The steps themselves are in the modules named after their rules,
registered in ``registry``.

Randomness is decided from the match seed and stored in the events:
replaying never re-rolls. In a table-dealt match (``deal: table``) the
referee decides no hidden card at all: the table reveals them (``hidden``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from events.harem_master.cards import CardDef
from events.harem_master.game import (
    Conceded,
    DrawProposed,
    MatchStarted,
    SituationProceeds,
    SituationReplaced,
    TriggerFired,
)
from events.kernel import Event, GameEnded
from projections.harem_master.state import GameState, evolve, other
from referee.actions import Applied, IllegalAction, Refusal
from referee.moves import Decision as TableDecision

# Importing the rule modules registers their actions, decisions and steps.
from referee.rules.harem_master import agenda, battle, checks, hidden, setup, turn  # noqa: F401
from referee.rules.harem_master.abilities import activated
from referee.rules.harem_master.actions import Action, Seated
from referee.rules.harem_master.characteristics import has_text, memo
from referee.rules.harem_master.common import SETUP_STEPS, physical, refuse
from referee.rules.harem_master.procedure import game
from referee.rules.harem_master.registry import (
    ACTIONS,
    KINDS,
    STEPS,
    Check,
    Context,
    Decision,
    Events,
    in_rule_order,
    joined,
    made,
    only,
)
from referee.rules.harem_master.situations import fire, happened
from referee.rules.harem_master.zones import cost_check
from referee.ruleset import Loop, Loops

# --- 102.7, 102.8: what either player may do whatever the procedure waits for ---------------

ANY_TIME = ("concede", "propose_draw", "accept_draw")


@ACTIONS.move("concede", "102.7", candidates=only("concede"), help="concede the game", any_time=True)
def _concede(state: GameState, a: Seated, ctx: Context) -> Events:
    p = a.player
    return lambda: [
        Conceded.trusted(player=p),
        GameEnded.trusted(rule="102.7", winner=other(p), reason=f"{p} conceded.", step="over"),
    ]


def _propose_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "propose_draw")] if state.draw_offer is None else []


@ACTIONS.move("propose_draw", "102.8", candidates=_propose_candidates, help="propose a draw", any_time=True)
def _propose_draw(state: GameState, a: Seated, ctx: Context) -> Events:
    if state.draw_offer == other(a.player):
        return lambda: [
            GameEnded.trusted(rule="102.8", draw=True, reason="Both players agreed to a draw.", step="over")
        ]
    return lambda: [DrawProposed.trusted(player=a.player)]


def _accept_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "accept_draw")] if state.draw_offer == other(p) else []


@ACTIONS.move(
    "accept_draw",
    "102.8",
    candidates=_accept_candidates,
    help="accept the draw the other player proposed",
    any_time=True,
)
def _accept_draw(state: GameState, a: Seated, ctx: Context) -> Events:
    p = a.player
    if state.draw_offer != other(p):
        raise refuse("102.8", f"{other(p)} has not proposed a draw, so there is nothing to accept.")
    return lambda: [GameEnded.trusted(rule="102.8", draw=True, reason="Both players agreed to a draw.", step="over")]


in_rule_order()  # every rule module has declared its actions by now


def current_decision(state: GameState) -> Decision | None:
    """The player who must act now and the kind of choice, or None when the
    game is over (or, between steps, when the referee must move on itself)."""
    if state.result is not None:
        return None
    m = memo(state)
    if "decision" in m:
        return m["decision"]
    found = _decision(state)
    m["decision"] = found
    return found


def _decision(state: GameState) -> Decision | None:
    if state.unknown:
        shown = hidden.face_up(state)
        if shown is not None:  # a table-dealt match: card text turned an unknown card face up
            return Decision(shown[0], "reveal")
    pending = checks.same_name_pending(state)
    if pending is not None:
        return pending
    if state.agenda or state.triggers:
        return agenda.agenda_decision(state)
    step = STEPS.get(state.step)
    if step is None or step.decision is None:
        return None
    return step.decision(state)


def decision(state: GameState) -> TableDecision | None:
    """The decision in front of the table as the kernel asks it: who, what
    kind, the rule and sentence (``KINDS``), the actions that answer it;
    at a table-dealt match's reveal the table's choice (OpenSpiel's chance
    node), saying who turns which card and why."""
    m = memo(state)
    if "table_decision" in m:
        return m["table_decision"]
    found = current_decision(state)
    if found is None:
        m["table_decision"] = None
        return None
    kind = KINDS[found.kind]
    if found.kind == "reveal":  # a table-dealt match: the table names a hidden card
        why = hidden.pending(state)
        if why is None:
            out = TableDecision(found.player, found.kind, kind.rule, kind.text, chance=True, moves=kind.actions)
        else:
            reveal = {"player": why.player, "rule": why.rule, "why": why.why, "at_most": why.count}
            text = f"{kind.text}: {why.why}"
            out = TableDecision(
                found.player, found.kind, why.rule, text, chance=True, extra={"reveal": reveal}, moves=kind.actions
            )
    else:
        out = TableDecision(found.player, found.kind, kind.rule, kind.text, moves=kind.actions)
    m["table_decision"] = out
    return out


def canonical(state: GameState, action: Action) -> Action:
    """The action as ``legal_actions`` lists it: the default ability named
    (306.4), a 309 discard of several cards in hand order (their order is
    the owner's free choice, 215.5c), and without the hints for choices made
    at resolution (``targets``, ``option`` of a use: 407.4, 401.7)."""
    if action.do == "activate" and action.card in state.cards:
        found = activated(state, action.card)
        index = action.ability if action.ability is not None else (found[0][0] if found else None)
        return replace(action, ability=index, targets=None, option=None)
    if action.do == "play_event":
        return replace(action, targets=None, option=None)
    if action.do == "discard" and action.cards and len(action.cards) > 1 and action.player in ("A", "B"):
        hand = state.zones[action.player].hand
        if all(c in hand for c in action.cards):
            return replace(action, cards=tuple(c for c in hand if c in action.cards))
    return action


def current_player(state: GameState) -> str | None:
    d = current_decision(state)
    return d.player if d is not None else None


def _turn_refusal(state: GameState, action: Seated) -> IllegalAction | None:
    """The refusal for an action that belongs to the other side of the turn:
    the rule that forbids it is more useful than "not your decision"."""
    p, do = action.player, action.do
    if state.active is None:
        return None
    kind = ACTIONS.get(do)
    side = "active" if p == state.active else "non_active"
    if kind is not None and kind.side is not None and kind.side != side:
        return refuse(kind.side_rule or kind.rule, kind.side_text or "")
    if p != state.active and do == "play_event" and action.card is not None:
        cd = state.cards.get(action.card)
        if cd is not None and "OT" not in cd.icons:
            return refuse("214.3a", f"{cd.name} has no [OT] icon, so it can only be used during your own turn.")
        if cd is not None and action.card in state.zones[p].hand:
            # An [OT] event the player cannot pay for is why no window was
            # offered (ruling A22): say so.
            try:
                cost_check(state, p, action.card)
            except IllegalAction as exc:
                return exc
    return None


def _wrong_player(state: GameState, action: Seated, d: TableDecision) -> IllegalAction:
    """The refusal for an action by a player who is not the one to act now."""
    out_of_turn = _turn_refusal(state, action)
    if out_of_turn is not None:
        return out_of_turn
    kind = KINDS[d.kind]
    if action.do in kind.actions:
        return refuse(kind.rule, f"It is {d.player}, not {action.player}, who must {kind.text}.")
    return refuse("406.1", f"It is not {action.player}'s decision now: {d.player} must {kind.text}.")


# --- what the rules decide before an action's own check --------------------------------


def before(state: GameState, action: Action, waive: frozenset[str]) -> Events | None:
    """What comes before asking whose decision it is: nothing can be done
    before the match has started (101), and an interception the referee
    passed over (306.5c) entered at the table all the same is the table's
    (``battle.late_interception``)."""
    if state.step == "new":
        raise refuse("101", "The match has not started.")
    if action.do != "intercept":
        return None
    seated: Seated = action  # type: ignore[assignment]  # a seat's action: the kernel refused any other (100.1)
    return battle.late_interception(state, seated, waive)


def elsewhere(state: GameState, action: Action, d: TableDecision | None, ctx: Context) -> Events:
    """An action that answers no decision in front of the table: refused
    citing the rule that forbids it (the other side of the turn, 214; whose
    decision it is, 406.1), or in record mode a card the non-active player
    used in the other's turn, as the table played it."""
    seated: Seated = action  # type: ignore[assignment]  # a seat's action: the kernel refused any other (100.1)
    if d is None:
        raise refuse("406.1", "Nobody can act now: the referee is between steps.")
    if action.player != d.player:
        late = _out_of_turn(state, seated, d, ctx.waive)
        if late is not None:
            return late
        raise _wrong_player(state, seated, d)
    turn_refusal = _turn_refusal(state, seated)
    if turn_refusal is not None:
        raise turn_refusal
    kind = KINDS[d.kind]
    raise refuse(
        kind.rule,
        f"{action.player} must {kind.text} now; the possible actions are {', '.join(kind.actions)}, not {action.do}.",
    )


def prepare(state: GameState, ctx: Context, check: Check) -> Check | None:
    """In a table-dealt match with cards still unknown, an action's check
    comes after the reveals it implies (a card used or discarded from the
    hand is named as it leaves it); else the check alone (None)."""
    if not state.unknown:
        return None

    def revealing(st: GameState, action: Action, ctx: Context) -> Events:
        discard = action.do == "discard" and ctx.kind == "hand_limit" and action.cards
        named = list(action.cards) if discard and action.cards else []
        return _revealing(st, action, named, ctx.waive, lambda s, a: check(s, a, ctx))

    return revealing


def retract(state: GameState, action: Action) -> Event | None:
    """306.5c: a late interception first takes back the referee's own steps
    since it passed the interception over; that ``Rewound`` comes before the
    ``ActionTaken``, whose events are then those of the restored state."""
    return battle.retraction(state, action) if state.passed_over is not None else None


def record(state: GameState, action: Action) -> tuple[str, dict[str, Any]] | None:
    """A reveal's record cites the rule that turned the card face up and
    names what the table saw; every other action's is the kernel's."""
    if action.do != "reveal":
        return None
    found = hidden.pending(state)
    return (found.rule if found is not None else ACTIONS["reveal"].rule), hidden.reveal_args(state, action)


def rank(state: GameState, d: TableDecision) -> Any:
    """Cards used from the hand are listed in the hand's order, when more
    than one kind of action of the decision uses them."""
    if not _from_hand(d.kind) or d.player is None:
        return None
    order: dict[str | None, int] = {c: i for i, c in enumerate(hidden.hand_candidates(state, d.player))}
    last = len(order)

    def key(a: Action) -> int:
        return order.get(a.card, last) if ACTIONS[a.do].card_from == "hand" else last

    return key


_hand_kinds: dict[str, bool] = {}


def _from_hand(kind: str) -> bool:
    """Does more than one action of decision ``kind`` use a card from the hand?"""
    found = _hand_kinds.get(kind)
    if found is None:
        found = _hand_kinds[kind] = sum(ACTIONS[do].card_from == "hand" for do in KINDS[kind].actions) > 1
    return found


def _revealing(state: GameState, action: Action, named: list[str], waive: frozenset[str], then: Any) -> Events:
    """``then(state, action)``, after the reveals the action implies in a
    table-dealt match: a card used or discarded from the hand is named as it
    leaves it, which reveals it (``hidden``). A card named that the deck list
    has no copy of left is refused citing 100.2, or recorded in record mode."""
    if state.unknown:
        player: str = action.player  # type: ignore[assignment]  # A or B: _decide refuses any other player (100.1)
        kind = ACTIONS[action.do]
        if kind.card_from == "hand" and action.card is not None:
            if action.card not in state.cards:  # a name no unaccounted copy answers to
                place = next((c for c in state.zones[player].hand if c in state.unknown), None)
                if place is None:
                    raise refuse(kind.refusal_rule, f"There is no {action.card} in {player}'s hand.")
                ev = hidden.reveal_as(state, player, place, action.card, kind.rule, waive, action.definitions)
                action = replace(action, card=ev.unlisted or ev.identity or place)
                return joined([ev], then(evolve(state, ev), action))
            # Not None (checked above; mypy forgets it past the ``action =`` of the branch that returns).
            named = [action.card]  # type: ignore[list-item]
        pre: list[Event] = []
        after = state
        if any(c not in state.cards for c in named):
            # Names no unaccounted copy answers to (a discard at 309): each
            # takes the place of an unknown hand card, refused citing 100.2
            # or, in record mode, recorded with that violation.
            taken: dict[str, str] = {}
            for c in named:
                if c in after.cards:
                    continue
                place = next(
                    (
                        h
                        for h in after.zones[player].hand
                        if h in after.unknown and h not in named and h not in taken.values()
                    ),
                    None,
                )
                if place is None:
                    raise refuse(kind.refusal_rule, f"There is no {c} in {player}'s hand.")
                ev = hidden.reveal_as(after, player, place, c, kind.rule, waive, action.definitions)
                pre.append(ev)
                after = evolve(after, ev)
                taken[c] = ev.unlisted or ev.identity or place
            named = [taken.get(c, c) for c in named]
            action = replace(action, cards=tuple(taken.get(c, c) for c in action.cards or ()))
        more = hidden.hand_reveals(after, player, named, kind.rule) if named else []
        for ev in more:
            after = evolve(after, ev)
        pre += more
        if pre:
            return joined(pre, then(after, action))
    return then(state, action)


# What a table can do in the other player's turn although the rules forbid it
# (214.2a, 214.4a, 214.3a): in record mode it is recorded with its violation.
OUT_OF_TURN = ("play_character", "play_item", "play_event")


def _out_of_turn(state: GameState, action: Seated, d: TableDecision, waive: frozenset[str]) -> list[Event] | None:
    """A card the non-active player used in the active player's turn, when no
    window of theirs is open: refused citing the rule that forbids it (a
    physical violation, so record mode records it), or, once that rule is
    waived, its events as the table played it (its own check, as in a window
    of theirs; a character whatever 306.1a says, it being the other
    player's turn). The procedure stays where it was (the events carry no step).
    None for anything else."""
    p = action.player
    if action.do not in OUT_OF_TURN or state.active is None or p == state.active or state.step in SETUP_STEPS:
        return None
    turn_refusal = _turn_refusal(state, action)
    if turn_refusal is None:
        return None
    rule = turn_refusal.refusal.rule
    if rule not in ("214.2a", "214.4a", "214.3a"):
        return None
    if rule not in waive:
        raise physical(rule, turn_refusal.refusal.reason)
    ctx = Context(turn.OUT_OF_TURN, waive | {"306.1a"})
    check = ACTIONS[action.do].check
    events = made(_revealing(state, action, [], waive, lambda st, a: check(st, a, ctx)))
    return [e.model_copy(update={"step": None}) if e.step is not None else e for e in events]


# --- the automatic steps --------------------------------------------------------------------


def automatic(state: GameState) -> list[Event] | None:
    """The next automatic step: none while the table must act (a same-name
    choice, 214.2e; a card a table-dealt match turned face up, ``hidden``),
    else the agenda's first, then the procedure's at ``state.step``."""
    if checks.same_name_pending(state) is not None:
        return None
    if state.unknown and hidden.face_up(state) is not None:
        return None
    return _automatic(state)


def _automatic(state: GameState) -> list[Event]:
    """The next automatic step: the agenda's first, then the procedure's at
    ``state.step`` (empty at a decision)."""
    if state.agenda or state.triggers:
        return agenda.agenda_events(state) or []
    step = STEPS.get(state.step)
    if step is None:
        return []
    if step.decision is not None and current_decision(state) is not None:
        return []
    out = step.automatic(state)
    if out is None:
        return []
    return out if isinstance(out, list) else [out]


def push(state: GameState, batch: list[Event], out: list[Event]) -> GameState:
    """Record ``batch`` (one step's events, which happen together), then the
    triggers they fire once they have happened (403.1b)."""
    if not has_text(state):
        for ev in batch:
            state = evolve(state, ev)
            out.append(ev)
        return state
    sits = []
    for ev in batch:
        nxt = evolve(state, ev)
        for sit, where in happened(state, nxt, ev):
            # An attack or interception whose moment comes after its event
            # (306.5b, 306.5d) has happened once that moment has passed.
            if sit.event in ("attack", "intercept") and type(ev) is not SituationProceeds and agenda.cares(nxt, sit):
                continue
            sits.append((sit, where))
        state = nxt
        out.append(ev)
    for ev in fire(sits) if sits else ():
        state = evolve(state, ev)
        out.append(ev)
    return state


# Ruling A30: a loop nobody can stop. One ability triggering (or replacing)
# this often in the automatic steps after one action, with no decision in
# between, repeats without end: no finite chain of 102 cards comes near it.
LOOP_REPEATS = 200


class EndlessLoop(Loop):
    """Card text repeats without end after an action (ruling A30): ``card``'s
    ability ``ability`` went round ``LOOP_REPEATS`` times with no decision in
    between, or (``card`` None) the steps passed the kernel's bound on one
    action's events (``referee.ruleset.ACTION_EVENTS``)."""

    def __init__(self, state: GameState, card: str | None = None, ability: int | None = None) -> None:
        from referee.ruleset import ACTION_EVENTS

        self.card = card
        self.ability = ability
        if card is not None:
            name = state.cards[card].name if card in state.cards else card
            self.what = f"{name}'s ability {ability} went round {LOOP_REPEATS} times"
        else:
            self.what = f"the automatic steps after it passed {ACTION_EVENTS} events"
        super().__init__(
            Refusal(
                "ruling:A30",
                f"This action sets off card text that never ends ({self.what}, "
                "with no decision any player could make to stop it).",
            ),
            (card, ability) if card is not None else None,
        )


def _loop_key(event: Event) -> tuple[str, int] | None:
    """What goes round in a loop: an ability triggering or replacing."""
    if isinstance(event, (TriggerFired, SituationReplaced)):
        return (event.card, event.ability)
    return None


def _endless(state: GameState, key: Any) -> EndlessLoop:
    return EndlessLoop(state, *key) if key is not None else EndlessLoop(state)


def _draw(state: GameState, loop: Loop) -> Event | None:
    """Ruling A30: the loop nobody can stop ends the game as a draw, right
    after the action that set it off (its endless steps are not written)."""
    if not isinstance(loop, EndlessLoop) or loop.card is None:
        return None
    return GameEnded.trusted(
        rule="102",
        ruling="A30",
        draw=True,
        card=loop.card,
        step="over",
        reason=f"A loop nobody can stop: {loop.what}, with no decision any player could make to end it",
    )


LOOPS: Loops[GameState] = Loops(_loop_key, _endless, _draw, LOOP_REPEATS)

ACTIONS.before = before
ACTIONS.elsewhere = elsewhere
ACTIONS.prepare = prepare
ACTIONS.retract = retract
ACTIONS.record = record
ACTIONS.rank = rank
ACTIONS.canonical = canonical


def match_started(
    cards: dict[str, CardDef],
    castles: dict[str, list[str]],
    *,
    seed: int,
    names: dict[str, str] | None = None,
    mode: str = "strict",
    rulings: dict[str, str] | None = None,
    auto_pass: bool = True,
    deal: str = "seeded",
    pool: tuple[CardDef, ...] = (),
) -> MatchStarted:
    """A new match's first event from two checked decks' instance ids
    (``decks.deal``), the seed and the match's settings.

    ``deal="table"``: a paper match; the castles are shuffled at the table and
    every hidden card is unknown until the table reveals it (``hidden``);
    ``pool``, the cards of its card pool on neither deck list, is stored
    with it, where a card the table shows that no deck lists is found (100.2)."""
    listed = {cd.name for cd in cards.values()}
    kept = [cd for cd in pool if cd.name not in listed] if deal == "table" else []
    return MatchStarted.trusted(
        pool=kept,
        deal=deal,
        seed=seed,
        names=names or {"A": "A", "B": "B"},
        cards=cards,
        castles=castles,
        mode=mode,
        rulings=rulings or {},
        auto_pass=auto_pass,
        log_format=2,
        step="101.1",
    )


def start(cards: dict[str, CardDef], castles: dict[str, list[str]], **settings: Any) -> Applied:
    """A new match from two checked decks' instance ids: its first event
    (``match_started``) and the automatic steps up to the first decision."""
    return game().begin([match_started(cards, castles, **settings)])
