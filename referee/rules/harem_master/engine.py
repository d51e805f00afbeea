"""The referee's state machine: who must act, what is legal, and what follows an action.

Like OpenSpiel's ``current_player`` / ``legal_actions``: ``current_decision``
says who must act and what kind of choice they face (or None when the game
is over or the referee must move on itself); ``apply`` checks an action and
either raises ``IllegalAction`` citing the rule, having appended nothing, or
returns the events the action causes followed by every automatic rule step
up to the next decision (``advance``). The steps themselves are in the
modules named after their rules, registered in ``registry``.

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
from events.kernel import ActionTaken, Event, GameEnded, ViolationRecorded
from projections.harem_master.state import GameState, evolve, initial_state, other
from referee.actions import Action, Applied, IllegalAction, Refusal, Seated

# Importing the rule modules registers their actions, decisions and steps.
from referee.rules.harem_master import agenda, battle, checks, hidden, setup, turn  # noqa: F401
from referee.rules.harem_master.abilities import activated
from referee.rules.harem_master.characteristics import has_text, memo
from referee.rules.harem_master.common import SETUP_STEPS, physical, refuse
from referee.rules.harem_master.registry import (
    ACTIONS,
    KINDS,
    STEPS,
    Context,
    Decision,
    Events,
    action,
    in_rule_order,
    joined,
    made,
    only,
)
from referee.rules.harem_master.situations import fire, happened
from referee.rules.harem_master.zones import cost_check

# --- 102.7, 102.8: what either player may do whatever the procedure waits for ---------------

ANY_TIME = ("concede", "propose_draw", "accept_draw")
_ANY = Context("any")


@action("concede", "102.7", candidates=only("concede"), help="concede the game")
def _concede(state: GameState, a: Seated, ctx: Context) -> Events:
    p = a.player
    return lambda: [
        Conceded.trusted(player=p),
        GameEnded.trusted(rule="102.7", winner=other(p), reason=f"{p} conceded.", step="over"),
    ]


def _propose_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "propose_draw")] if state.draw_offer is None else []


@action("propose_draw", "102.8", candidates=_propose_candidates, help="propose a draw")
def _propose_draw(state: GameState, a: Seated, ctx: Context) -> Events:
    if state.draw_offer == other(a.player):
        return lambda: [
            GameEnded.trusted(rule="102.8", draw=True, reason="Both players agreed to a draw.", step="over")
        ]
    return lambda: [DrawProposed.trusted(player=a.player)]


def _accept_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "accept_draw")] if state.draw_offer == other(p) else []


@action("accept_draw", "102.8", candidates=_accept_candidates, help="accept the draw the other player proposed")
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


def legal_actions(state: GameState) -> list[Action]:
    """Every action the player who must act may take now (the any-time actions
    of 102.7/102.8 included): each action kind's candidates that its check
    accepts, so every action listed is accepted and none refused is listed.
    Cards used from the hand are listed in the hand's order."""
    d = current_decision(state)
    if d is None:
        return []
    if _listed[0] is state and _listed[1] == state.position:
        return list(_listed[2])
    p = d.player
    ctx = Context(d.kind)
    out: list[Action] = []
    found: list[Events] = []
    hand_kinds = 0
    listing = state.step != "new" and p in ("A", "B")
    for do in KINDS[d.kind].actions:
        kind = ACTIONS[do]
        hand_kinds += kind.card_from == "hand"
        check = _in_context(kind.check, ctx)
        for candidate in kind.candidates(state, p, ctx):
            if listing and candidate.player == p and candidate.do == do and do != "intercept":
                _accept_listed(state, candidate, d, check, out, found)
            else:
                _accept(state, candidate, out, found)
    if hand_kinds > 1 and out:
        order: dict[str | None, int] = {c: i for i, c in enumerate(hidden.hand_candidates(state, p))}
        last = len(order)
        ranked = sorted(
            range(len(out)),
            key=lambda i: order.get(out[i].card, last) if ACTIONS[out[i].do].card_from == "hand" else last,
        )
        out, found = [out[i] for i in ranked], [found[i] for i in ranked]
    for do in ANY_TIME:
        kind = ACTIONS[do]
        check = _in_context(kind.check, _ANY)
        for candidate in kind.candidates(state, p, ctx):
            if listing and candidate.player == p and candidate.do == do:
                _accept_listed(state, candidate, d, check, out, found)
            else:
                _accept(state, candidate, out, found)
    _listed[:] = [state, state.position, out, found]
    return list(out)


def _accept(state: GameState, action: Action, out: list[Action], found: list[Events]) -> None:
    """``action`` listed if ``decide`` accepts it; what it accepted it with is
    kept for the ``decide`` that usually follows a listing (self-play, the board)."""
    try:
        events = _decide(state, action, frozenset())
    except IllegalAction:
        return
    out.append(action)
    found.append(events)


def _in_context(check: Any, ctx: Context) -> Any:
    return lambda st, a: check(st, a, ctx)


def _accept_listed(
    state: GameState, action: Action, d: Decision, check: Any, out: list[Action], found: list[Events]
) -> None:
    """``_accept`` for a candidate of the decision in front of the table, by
    the player who makes it, of one of its actions or an any-time one: what
    ``_decide`` checks before an action's own check (the player, the game
    not over, whose decision it is, a late interception) holds for every
    such candidate, so only the rest of ``_decide`` is done, as it does it."""
    try:
        if not state.unknown:  # nothing to reveal: the check alone (``_revealing``)
            events = check(state, action)
        else:
            named = list(action.cards) if action.do == "discard" and d.kind == "hand_limit" and action.cards else []
            events = _revealing(state, action, named, frozenset(), check)
    except IllegalAction:
        return
    out.append(action)
    found.append(events)


# The actions ``legal_actions`` listed in the latest state it listed, and the
# events each was accepted with: deciding one of them again (the action
# chosen from the list) reads them instead of checking the same thing twice.
_listed: list[Any] = [None, -1, [], []]


def _listed_events(state: GameState, action: Action) -> list[Event] | None:
    if _listed[0] is not state or _listed[1] != state.position:
        return None
    actions, found = _listed[2], _listed[3]
    for i, listed in enumerate(actions):
        if listed is action:
            break
    else:
        for i, listed in enumerate(actions):
            if listed == action:
                break
        else:
            return None
    events = found[i] = made(found[i])
    return events


# --- checking an action ----------------------------------------------------------------


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


def _wrong_player(state: GameState, action: Seated, d: Decision) -> IllegalAction:
    """The refusal for an action by a player who is not the one to act now."""
    out_of_turn = _turn_refusal(state, action)
    if out_of_turn is not None:
        return out_of_turn
    kind = KINDS[d.kind]
    if action.do in kind.actions:
        return refuse(kind.rule, f"It is {d.player}, not {action.player}, who must {kind.text}.")
    return refuse("406.1", f"It is not {action.player}'s decision now: {d.player} must {kind.text}.")


def decide(state: GameState, action: Action, waive: frozenset[str] = frozenset()) -> list[Event]:
    """The events ``action`` itself causes, or ``IllegalAction`` citing the rule.

    Nothing automatic is included; ``apply`` adds the steps that follow."""
    if not waive and not action.definitions:
        found = _listed_events(state, action)
        if found is not None:
            return list(found)
    return made(_decide(state, action, waive))


def _decide(state: GameState, action: Action, waive: frozenset[str]) -> Events:
    p, do = action.player, action.do
    if p not in ("A", "B"):
        raise refuse("100.1", f"Only players A and B take part in a game, not {p!r}.")
    seated: Seated = action  # type: ignore[assignment]  # a seat's action (checked just above): what the checks take
    if state.result is not None:
        r = state.result
        raise refuse(r.rule, "The game is over" + (f": {r.reason}" if r.reason else "."))
    if state.step == "new":
        raise refuse("101", "The match has not started.")
    if do in ANY_TIME:
        return ACTIONS[do].check(state, seated, Context("any", waive) if waive else _ANY)

    late = battle.late_interception(state, seated, waive)
    if late is not None:
        return late
    d = current_decision(state)
    if d is None:
        raise refuse("406.1", "Nobody can act now: the referee is between steps.")
    if p != d.player:
        late = _out_of_turn(state, seated, d, waive)
        if late is not None:
            return late
        raise _wrong_player(state, seated, d)
    kind = KINDS[d.kind]
    if do not in kind.actions:
        turn_refusal = _turn_refusal(state, seated)
        if turn_refusal is not None:
            raise turn_refusal
        raise refuse(
            kind.rule,
            f"{p} must {kind.text} now; the possible actions are {', '.join(kind.actions)}, not {do}.",
        )
    named: list[str] = []
    if state.unknown and do == "discard" and d.kind == "hand_limit" and seated.cards:
        named = list(seated.cards)
    ctx = Context(d.kind, waive)
    check = ACTIONS[do].check
    return _revealing(state, seated, named, waive, lambda st, a: check(st, a, ctx))


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


def _out_of_turn(state: GameState, action: Seated, d: Decision, waive: frozenset[str]) -> list[Event] | None:
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


def is_legal(state: GameState, action: Action) -> Refusal | None:
    """None if ``action`` would be accepted, else its refusal (its events
    are not made: every refusal comes before them)."""
    try:
        _decide(state, action, frozenset())
    except IllegalAction as exc:
        return exc.refusal
    return None


# --- applying -----------------------------------------------------------------------


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
# And whatever card text does, one action's automatic steps stop here: the
# action is refused and nothing is written (a station never hangs).
ACTION_EVENTS = 50_000


class EndlessLoop(IllegalAction):
    """Card text repeats without end after an action (ruling A30): ``card``'s
    ability ``ability`` went round ``LOOP_REPEATS`` times with no decision in
    between, or (``card`` None) the steps passed ``ACTION_EVENTS`` events."""

    def __init__(self, state: GameState, card: str | None = None, ability: int | None = None) -> None:
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
            )
        )


def _loop_check(
    state: GameState, events: list[Event], seen: int, start: int, repeats: dict[tuple[str, int], int]
) -> None:
    """Ruling A30, counted over ``events[seen:]`` (the steps just pushed)."""
    if len(events) - start > ACTION_EVENTS:
        raise EndlessLoop(state)
    for ev in events[seen:]:
        if isinstance(ev, (TriggerFired, SituationReplaced)):
            key = (ev.card, ev.ability)
            repeats[key] = repeats.get(key, 0) + 1
            if repeats[key] > LOOP_REPEATS:
                raise EndlessLoop(state, ev.card, ev.ability)


def advance(state: GameState, out: list[Event] | None = None) -> tuple[list[Event], GameState]:
    """Run the automatic rule steps up to the next decision (or the end);
    ``EndlessLoop`` if card text makes them endless (ruling A30)."""
    events: list[Event] = [] if out is None else out
    start = len(events)
    repeats: dict[tuple[str, int], int] = {}
    while state.result is None:
        seen = len(events)
        checked = checks.state_check(state)
        if checked is not None:
            state = push(state, checked, events)
            continue
        if checks.same_name_pending(state) is not None:
            break
        if state.unknown and hidden.face_up(state) is not None:
            break
        steps = _automatic(state)
        if not steps:
            break
        state = push(state, steps, events)
        _loop_check(state, events, seen, start, repeats)
    return events, state


def own_events(state: GameState, action: Action, *, strict: bool = False) -> list[Event]:
    """The events the action itself causes, first its ``ActionTaken`` (and any
    violations recorded in record mode), without the automatic steps after it.
    These are one indivisible whole: a rewind can go back to before them or
    after them, never into them. ``strict`` refuses physical violations even
    in record mode (a replay after a correction applies only legal actions).

    A late interception (306.5c) first takes back the referee's own steps
    since it passed the interception over: that ``Rewound`` comes before the
    ``ActionTaken``, whose events are then those of the restored state."""
    back = battle.retraction(state, action) if state.passed_over is not None else None
    if back is not None:
        return [back, *own_events(evolve(state, back), action, strict=strict)]
    try:
        events = decide(state, action)
        violations: list[Event] = []
    except IllegalAction as exc:
        exc.action = action
        if strict or state.mode != "record" or not exc.refusal.physical:
            raise
        events, violations = _record_anyway(state, action, exc.refusal)
    kind = ACTIONS.get(action.do)
    rule = kind.rule if kind else "406.1"
    args = action.arguments()
    if action.do == "reveal":  # cites the rule that turned the card face up
        args = hidden.reveal_args(state, action)
        found = hidden.pending(state)
        rule = found.rule if found is not None else rule
    taken = ActionTaken.trusted(rule=rule, player=action.player, do=action.do, args=args)
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
    own = own_events(state, action, strict=strict)
    events: list[Event] = []
    state = push(state, own, events)
    done = len(events)
    try:
        events, state = advance(state, events)
    except EndlessLoop as loop:
        if loop.card is None:
            raise
        # Ruling A30: the loop nobody can stop ends the game as a draw, right
        # after the action that set it off (its endless steps are not written).
        del events[done:]
        ended = GameEnded.trusted(
            rule="102",
            ruling="A30",
            draw=True,
            card=loop.card,
            step="over",
            reason=f"A loop nobody can stop: {loop.what}, with no decision any player could make to end it",
        )
        state = evolve(state, ended)
        events.append(ended)
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
    return events, [ViolationRecorded.trusted(rule=r.rule, player=action.player, reason=r.reason) for r in broken]


def start(
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
) -> Applied:
    """A new match from two checked decks: the first event and the steps after it.

    ``deal="table"``: a paper match; the castles are shuffled at the table and
    every hidden card is unknown until the table reveals it (``hidden``);
    ``pool``, the cards of its card pool on neither deck list, is stored
    with it, where a card the table shows that no deck lists is found (100.2)."""
    listed = {cd.name for cd in cards.values()}
    kept = [cd for cd in pool if cd.name not in listed] if deal == "table" else []
    first = MatchStarted.trusted(
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
    state = evolve(initial_state(), first)
    events, state = advance(state, [first])
    return Applied(events, state)
