"""4-3: hand costs (@, A: one card, two cards), which need not be paid.

A line with a hand cost asks its player whether to pay it (4-3b): paying
(``pay``) discards that many cards of their choice and the line's effect
follows; declining (``decline``) leaves the line without effect, as the
player who moves to 紅魔館正門 and wants no damage dealt ends the move with
no effect. A hand cost the hand cannot pay has no effect, and nobody is
asked (ruling G8, ``resolution``). An ability's hand cost is paid with
``pay`` too, when the ability resolves, and is not declined then (4-4e,
ruling G9).
"""

from __future__ import annotations

from itertools import combinations

from events.gensokyo.table import CostPaid, LineSkipped
from events.kernel import Event
from projections.gensokyo.state import Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo.common import MOVES, Instruction, asked, refuse
from referee.rules.gensokyo.vitality import check_cards, discards


def _pays(state: Table, seat: str, ctx: Context) -> list[Instruction]:
    top = asked(state, seat, "cost", "ability_cost")
    if top is None:
        return []
    return [Instruction(seat, "pay", cards=c) for c in combinations(state.hand(seat), top.n)]


@MOVES.move(
    "pay",
    "4-3a",
    args=(ArgSpec("cards", "cards", True, help="the cards discarded to pay the hand cost"),),
    help="pay the hand cost of the line being resolved",
    candidates=_pays,
)
def pay(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-3a: the hand cost's cards are discarded (to 幻想, ruling G7); the
    line's effect follows. An ability's hand cost is paid so too (4-4e)."""
    top = asked(state, a.player, "cost", "ability_cost")
    if top is None:
        raise refuse("4-3a", "Nothing asks for a hand cost now.")
    assert a.player is not None
    rule = "4-3a" if top.question == "cost" else "4-4e"
    chosen = check_cards(state, a.player, a.cards, top.n, rule, f"pays a hand cost of {top.n}")
    return [
        *discards(state, a.player, chosen, "cost", rule),
        CostPaid.trusted(rule=rule, player=a.player, line=top.line),
    ]


@MOVES.move(
    "decline",
    "4-3b",
    help="do not pay the hand cost: the line has no effect",
    candidates=lambda state, seat, ctx: [Instruction(seat, "decline")] if asked(state, seat, "cost") else [],
)
def decline(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-3b: a hand cost need not be paid; declined, the line has no effect.
    An ability's costs are not declined once it resolves (ruling G9)."""
    top = asked(state, a.player, "cost")
    if top is None:
        if asked(state, a.player, "ability_cost") is not None:
            raise refuse(
                "4-4e",
                "An ability's costs are paid as it resolves: choosing to use it was choosing to pay (ruling:G9).",
            )
        raise refuse("4-3b", "Nothing asks for a hand cost now.")
    reason = f"{a.player} declines to pay its hand cost"
    return [LineSkipped.trusted(rule="4-3b", line=top.line, reason=reason)]
