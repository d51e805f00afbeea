"""The 幻想郷夢紀行 §4 procedure: the decision in front of the table, the automatic steps, an instruction's normal form.

§4 has no turns (other chapters have them), so the table may always enter
the next thing that happens, for either player, except while a resolving
line asks a player to choose (a hand cost to pay or decline, cards to
discard, a character to recover): then only that player's answer is
taken. While an effect waits to resolve, the table enters an interrupt or
``resolve`` (4-5). After each instruction the automatic steps walk the
resolving effect's lines (``resolution.step``). The kernel
(``referee.ruleset``) lists, decides and applies instructions from these and
the moves' own checks.
"""

from __future__ import annotations

from dataclasses import replace

from events.kernel import Event
from projections.gensokyo.state import SHARED, Table
from referee.moves import Context, Decision, Events
from referee.rules.gensokyo import resolution
from referee.rules.gensokyo.common import MOVES, Instruction, not_seated, outside, refuse

FREE = Decision(
    None,
    "instruction",
    "4",
    "enter the next thing that happens, for either player (docs/games/gensokyo-s4.md lists them)",
    extra={"rule": "4"},
)
WAITING = Decision(
    None,
    "interrupt",
    "4-5",
    "interrupt what waits to resolve (an intervention card, a 介入 or 対応 ability), or let it resolve (resolve)",
    extra={"rule": "4-5"},
)
ANSWERS = {
    "cost": (("pay", "decline"), "pay the hand cost of the line being resolved, or decline it"),
    "ability_cost": (("pay",), "choose the cards that pay the ability's hand cost"),
    "discard": (("discard",), "choose the cards to discard"),
    "choose": (("choose",), "choose the character that recovers 気力"),
}


def decision(state: Table) -> Decision | None:
    """A resolving line's question, else an interrupt or the next instruction."""
    if not state.names:
        return None
    top = state.top()
    if top is not None and top.question is not None:
        moves, text = ANSWERS[top.question]
        if top.n:
            text += f" ({top.n} card{'s' if top.n != 1 else ''})" if top.question != "choose" else ""
        return Decision(top.chooser, top.question, top.rule, text, extra={"rule": top.rule}, moves=moves)
    return WAITING if state.stack else FREE


def elsewhere(state: Table, a: Instruction, d: Decision | None, ctx: Context) -> Events:
    """An instruction while a player must answer a resolving line, or one §4 does not have."""
    if d is not None and d.player is not None:
        raise refuse(d.rule, f"{d.player} must first {d.text} ({d.rule}); nothing else happens until then.")
    known = ", ".join(MOVES)
    raise outside(f"{a.do!r} is not something §4 decides; its instructions are {known}.")


def canonical(state: Table, a: Instruction) -> Instruction:
    """``a`` as the legal list writes it: a pile's ``at`` given (top by
    default) and no ``at`` elsewhere, a card's only ability named, chosen
    cards in the order of the hand."""
    if a.do == "move":
        a = replace(a, at=(a.at or "top") if a.to in SHARED else None)
    if a.do == "ability" and a.skill is None and a.card in state.cards:
        found = state.cards[a.card].ability(None)
        if found is not None:
            a = replace(a, skill=found.name)
    if a.do in ("pay", "discard") and a.cards and a.player is not None:
        hand = state.hand(a.player)
        if all(c in hand for c in a.cards):
            a = replace(a, cards=tuple(sorted(a.cards, key=hand.index)))
    return a


def automatic(state: Table) -> list[Event] | None:
    """The next automatic step: the resolving effect's next line, or its end."""
    return resolution.step(state)


MOVES.seated = not_seated
MOVES.elsewhere = elsewhere
MOVES.canonical = canonical
