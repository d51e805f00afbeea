"""4-1: 活力 and 疲労, kinds of draw and discard of their own.

活力X: the player who gets the card's effect draws X cards (4-1a); 疲労X:
they discard X cards from their hand (4-1b). An effect giving 活力 or 疲労
to another player names them (4-1c: ``相手は活力N``). 活力 and 疲労 are told
apart from plain draws and discards (4-1d): an effect in force that denies
a player 活力 does not stop their draw phase or a plain draw, and one that
denies plain draws does not stop 活力. A position states such effects
(``cannot: [活力]``, ruling G11); the draw phase is a plain draw.

A discarded card goes to 幻想, a character to the bottom of 人妖の山 (ruling
G7, 4-7c). A player asked to discard N cards who holds no more than N
discards them all; otherwise they choose (``discard``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from events.gensokyo.cards import parse_line
from events.gensokyo.table import CardDiscarded, DiscardKind, DrawKind, LineApplied
from events.kernel import Event
from projections.gensokyo.state import Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo import piles
from referee.rules.gensokyo.common import MOVES, Instruction, refuse

DRAW_RULE: dict[str, str] = {"活力": "4-1a", "ドロー": "4-1d", "ドローフェイズ": "4-1d"}
# The word an effect in force uses to deny a kind of draw or discard (ruling G11).
DENIED_BY: dict[str, str] = {
    "活力": "活力",
    "ドロー": "ドロー",
    "ドローフェイズ": "ドロー",
    "疲労": "疲労",
    "捨て": "捨て",
}
CANNOT = ("活力", "疲労", "ドロー", "捨て")
DISCARD_RULE: dict[str, str] = {"疲労": "4-1b", "捨て": "4-1d"}


def denied(state: Table, player: str, kind: DrawKind | DiscardKind) -> bool:
    """Does an effect in force deny ``player`` this kind of draw or discard (4-1d)?"""
    word = DENIED_BY.get(kind)
    return word is not None and word in state.cannot.get(player, ())


def discards(state: Table, player: str, cards: Sequence[str], kind: DiscardKind, rule: str) -> list[Event]:
    """``player`` discards ``cards`` from their hand to 幻想 (ruling G7), a
    character to the bottom of 人妖の山 (4-7c)."""
    out: list[Event] = []
    for card in cards:
        zone, _, by = piles.destination(state, card, "fantasy")
        out.append(
            CardDiscarded.trusted(
                rule=by[0] if by else rule, player=player, card=card, kind=kind, to=zone, redirected_by=by
            )
        )
    return out


def check_cards(state: Table, player: str, cards: Sequence[str] | None, n: int, rule: str, what: str) -> list[str]:
    """``cards`` checked to be ``n`` different cards of ``player``'s hand."""
    hand = state.hand(player)
    given = list(cards or ())
    if len(given) != n or len(set(given)) != n or any(c not in hand for c in given):
        raise refuse(rule, f"{player} {what}: name {n} different card{'s' if n != 1 else ''} of their hand.")
    return sorted(given, key=hand.index)


def _discards(state: Table, seat: str, ctx: Context) -> list[Instruction]:
    top = state.top()
    if top is None or top.question != "discard" or top.chooser != seat:
        return []
    return [Instruction(seat, "discard", cards=c) for c in combinations(state.hand(seat), top.n)]


@MOVES.move(
    "discard",
    "4-1b",
    args=(ArgSpec("cards", "cards", True, help="the cards discarded, as many as the line says"),),
    help="choose the cards 疲労 (or a plain discard) discards",
    candidates=_discards,
)
def discard(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-1b (疲労) or 4-1d (a plain discard): the player chooses which cards."""
    top = state.top()
    if top is None or top.question != "discard" or top.chooser != a.player:
        raise refuse("4-1b", "Nothing asks for cards to discard now.")
    line = parse_line(top.lines[top.line], ability=top.kind == "ability")
    kind: DiscardKind = "疲労" if line.kind == "fatigue" else "捨て"
    rule = DISCARD_RULE[kind]
    assert a.player is not None
    chosen = check_cards(state, a.player, a.cards, top.n, rule, f"discards {top.n} ({kind})")
    return [*discards(state, a.player, chosen, kind, rule), LineApplied.trusted(rule=rule, line=top.line)]
