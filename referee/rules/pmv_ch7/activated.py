"""7.3, activated effects: who may use one and when (7.3.3), the procedure of using it (7.3.4), its resolution (7.3.5), once per interference (7.3.6), prohibitions (7.3.7, 7.1.8.a).

An activated effect (7.3.1) is an effect of a card on the field, used by
exercising priority: its text opens with a timing,
(常時), (自分ターン) or (相手ターン) (7.1.3): "(timing) cost: effect"
(7.3.2). Using one (7.1.8) is the ``use`` move: every condition of 7.3.3
is checked, in the order below, and a refusal cites the first that fails;
then the procedure of 7.3.4 is recorded step by step (declare, mode,
declaration, cost, the interference and priority), nothing applying in
between: what the cost sets off is resolved once the procedure is over
(the rules' checks run after the action). How an interference goes on, and
in which order its effects resolve, is another chapter's: the table enters
``resolve`` for the used effect that resolves next (ruling:P12), and the
referee checks its timing first (7.3.5.a). Targets (目標, 7.3.3.e, 7.3.4.c)
are chapter 8's: the test cards' clauses name their cards.
"""

from __future__ import annotations

from events.kernel import Event
from events.pmv_ch7.cards import PRINTED_AS
from events.pmv_ch7.effects import (
    CostPaid,
    DeclarationMade,
    EffectUsed,
    EffectVoided,
    InterferenceBegan,
    ModeChosen,
    PriorityPassed,
    ResolutionBegan,
    ResolutionEnded,
)
from projections.pmv_ch7.state import (
    Table,
    Used,
    effect_of,
    evolve,
    holds,
    on_field,
    other,
    ref,
)
from referee.moves import ArgSpec, Context
from referee.rules.pmv_ch7.common import MOVES, Action, outside, refuse
from referee.rules.pmv_ch7.resolution import as_used_met, perform


def forbidden(state: Table, player: str | None, what: str) -> None:
    """7.1.8.a: an effect that stops a player using effects is applied: they
    cannot even try. (``cannot-use:A``, docs/games/pmv-ch7.md.)"""
    if player is not None and holds(state, f"cannot-use:{player}"):
        raise refuse(
            "7.1.8.a",
            f"An effect that stops {player} using effects applies (cannot-use:{player}): {player} cannot {what}.",
        )


def named_effect(state: Table, a: Action) -> str:
    """The effect an action names, ``CARD#N``, checked to be a card's effect."""
    if a.card is None or a.card not in state.cards:
        raise outside(f"there is no card {a.card!r} in this position.")
    count = len(state.cards[a.card].effects)
    if a.effect is None or not 1 <= a.effect <= count:
        have = f"effects 1 to {count}" if count > 1 else "one effect, 1" if count else "no effect but its play text"
        raise refuse("7.1.5", f"{a.card} has {have}; not {a.effect}.")
    return ref(a.card, a.effect)


def timing_ok(state: Table, opens: str, player: str) -> bool:
    """7.3.3.f, 7.3.3.g, 7.3.5.a: (自分ターン) in the player's own turn,
    (相手ターン) in the other player's, (常時) at any time."""
    if opens == "own-turn":
        return state.turn == player
    if opens == "opponent-turn":
        return state.turn != player
    return True


def _uses(state: Table, player: str, ctx: Context) -> list[Action]:
    out = []
    for cd in state.cards.values():
        if cd.owner != player or not on_field(state, cd.name):
            continue
        for i, e in enumerate(cd.effects, start=1):
            if e.kind != "activated":
                continue
            modes = range(1, len(e.modes) + 1) if e.modes else (None,)
            words = e.declare or (None,)
            out += [Action(player, "use", cd.name, i, m, w) for m in modes for w in words]
    return out


@MOVES.move(
    "use",
    "7.3.4",
    args=(
        ArgSpec("card", "card", True, help="the card on your field whose activated effect you use"),
        ArgSpec("effect", "count", True, help="which of its effects, from 1"),
        ArgSpec("mode", "count", help="which of its effects resolves, for an effect that has several (7.3.4.b)"),
        ArgSpec("declare", "choice", help="what you declare, for an effect that asks (7.3.4.d)"),
    ),
    help="use an activated effect (7.3.3, 7.3.4)",
    candidates=_uses,
)
def use(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.1.8, 7.3.3: may the player use the effect? Then 7.3.4, a to f."""
    forbidden(state, a.player, "use an activated effect")
    effect = named_effect(state, a)
    found = effect_of(state, effect)
    assert found is not None and a.card is not None and a.player is not None
    if found.kind != "activated":
        what = (
            "the text applied when its play resolves"
            if found.kind == "play"
            else f"an automatic effect, {PRINTED_AS[found.opens]}"
        )
        hint = " (apply it with apply, 7.4.4)" if found.at_will else ""
        raise refuse(
            "7.1.8",
            f"{effect} is {what}{hint}: only an activated effect, opening with (常時), (自分ターン) or (相手ターン) "
            "(7.1.3), is used.",
        )
    if holds(state, f"cannot-activate:{a.player}"):
        raise refuse(
            "7.3.7",
            f"An effect that stops {a.player} using activated effects applies (cannot-activate:{a.player}): "
            f"{a.player} cannot try to use {effect}.",
        )
    if state.priority != a.player:
        raise refuse(
            "7.3.3.a", f"{a.player} does not hold priority ({state.priority} does): only they may use an effect."
        )
    if not on_field(state, a.card):
        raise refuse("7.3.1.a", f"{a.card} is not on the field: a card elsewhere cannot use its activated effects.")
    if state.cards[a.card].owner != a.player:
        raise refuse("7.3.3.b", f"{a.card} is on {state.cards[a.card].owner}'s field, not {a.player}'s.")
    if a.card in state.invalid:
        raise refuse("7.3.3.b", f"{a.card}'s text is invalid: its effects cannot be used.")
    if not timing_ok(state, found.opens, a.player):
        rule = "7.3.3.f" if found.opens == "own-turn" else "7.3.3.g"
        whose = "the player's own turn" if found.opens == "own-turn" else "the other player's turn"
        raise refuse(
            rule, f"{effect} is {PRINTED_AS[found.opens]}: it is used in {whose}, and it is {state.turn}'s turn."
        )
    if state.interference is not None and effect in state.interference.used:
        raise refuse("7.3.6", f"{effect} has been used in this interference already: once per interference.")
    missing = [c for c in found.needs if not holds(state, c)]
    if missing:
        raise refuse("7.3.3.c", f"{effect} may be used only if {' and '.join(found.needs)}: {', '.join(missing)} not.")
    if found.modes and (a.mode is None or not 1 <= a.mode <= len(found.modes)):
        raise refuse(
            "7.3.4.b", f"{effect} has {len(found.modes)} effects: choose which resolves (mode 1 to {len(found.modes)})."
        )
    if not found.modes and a.mode is not None:
        raise refuse("7.3.4.b", f"{effect} has one effect: there is no mode to choose.")
    if found.declare and a.declare not in found.declare:
        raise refuse("7.3.4.d", f"Using {effect} asks for a declaration: {' or '.join(found.declare)}.")
    if not found.declare and a.declare is not None:
        raise refuse("7.3.4.d", f"Using {effect} asks for no declaration.")
    text = found.modes[a.mode - 1] if found.modes and a.mode else found.text
    met = as_used_met(state, text)
    events: list[Event] = [
        EffectUsed.trusted(rule="7.3.4.a", player=a.player, effect=effect, entry=state.entered.get(a.card, 0))
    ]
    if a.mode is not None:
        events.append(ModeChosen.trusted(rule="7.3.4.b", effect=effect, mode=a.mode))
    if a.declare is not None:
        events.append(DeclarationMade.trusted(rule="7.3.4.d", effect=effect, word=a.declare))
    now = state
    for event in events:
        now = evolve(now, event)
    paid = 0
    for clause in found.cost:
        done = perform(now, clause, a.card, a.player, None, "7.3.4.e")
        if done.reason is not None:
            raise refuse("7.3.3.d", f"The cost of {effect} cannot be paid: {done.reason}.")
        for event in done.events:
            now = evolve(now, event)
        events += done.events
        if clause.does == "pay":
            paid += clause.n or 0
    events.append(CostPaid.trusted(rule="7.3.4.e", effect=effect, paid=paid, met=met))
    if state.interference is None:
        events.append(InterferenceBegan.trusted(rule="7.3.4.f", effect=effect))
    events.append(PriorityPassed.trusted(rule="7.3.4.f", to=other(a.player)))
    return events


def _resolves(state: Table, player: str, ctx: Context) -> list[Action]:
    if state.interference is None:
        return []
    out = []
    for used in state.interference.waiting:
        card, _, index = used.effect.rpartition("#")
        if used.player == player and index.isdigit():
            action = Action(player, "resolve", card, int(index))
            if action not in out:
                out.append(action)
    return out


@MOVES.move(
    "resolve",
    "7.3.5",
    args=(
        ArgSpec("card", "card", True, help="the card whose used effect resolves now"),
        ArgSpec("effect", "count", True, help="which of its effects, from 1"),
    ),
    help="resolve an effect used in the interference, the one the interference resolves next (7.3.5)",
    candidates=_resolves,
)
def resolve(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.3.5: an effect used resolves: its timing is checked first (7.3.5.a),
    then it is resolved (7.3.5.b). 7.3.7.a: a prohibition applied since it
    was used does not stop it."""
    effect = named_effect(state, a)
    waiting = state.interference.waiting if state.interference is not None else ()
    used = next((u for u in waiting if u.effect == effect), None)
    if used is None:
        raise refuse("7.3.5", f"{effect} is not waiting to resolve in an interference: use it first (7.3.4).")
    if used.player != a.player:
        raise refuse("7.3.5", f"{effect} was used by {used.player}: enter its resolution as theirs.")
    found = effect_of(state, effect)
    assert found is not None and a.card is not None
    began = _began(used, a.card)
    if not timing_ok(state, found.opens, used.player):
        return [began, ResolutionEnded.trusted(rule="7.3.5.a", effect=effect, outcome="failure")]
    return [began]


def _began(used: Used, card: str) -> ResolutionBegan:
    return ResolutionBegan.trusted(
        rule="7.3.5.b",
        kind="activated",
        effect=used.effect,
        source=card,
        player=used.player,
        mode=used.mode,
        declared=used.declared,
        paid=used.paid,
        met=list(used.met),
    )


def voided(state: Table) -> list[Event] | None:
    """7.3.1.b: an effect used whose card left the field, or whose text
    became invalid, before it resolved is void (at once, a rules check)."""
    if state.interference is None:
        return None
    for used in state.interference.waiting:
        card = used.effect.rpartition("#")[0]
        if not on_field(state, card) or state.entered.get(card) != used.entry:
            return [EffectVoided.trusted(rule="7.3.1.b", effect=used.effect, reason=f"{card} left the field")]
        if card in state.invalid:
            return [EffectVoided.trusted(rule="7.3.1.b", effect=used.effect, reason=f"{card}'s text became invalid")]
    return None
