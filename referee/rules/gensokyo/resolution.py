"""The effect resolving on top of what waits, one line at a time: 4-1 to 4-4 applied line by line.

``step`` is the automatic step of the effect resolving on top (4-5b): it
walks its lines, each through its attributes (4-2), its hand cost (4-3) and
its effect (4-1: 活力, 疲労, plain draws and discards; a recovery, 4-2d; an
abstract effect, ruling G3), until a player must choose (``ChoiceAsked``:
``pay`` or ``decline``, ``discard``, ``choose``) or the effect has resolved;
a used intervention card then goes to 幻想 (4-2c, 4-7). An ability's 4-5e
check and costs come first (``abilities.begin``); an action's only check is
4-5f (``interrupts``). This module has no rule of its own: each event it
makes cites the rule that decides it.
"""

from __future__ import annotations

from events.gensokyo.cards import Line, parse_line
from events.gensokyo.table import (
    ChoiceAsked,
    DiscardDenied,
    DiscardKind,
    EffectResolved,
    KiRecovered,
    LineApplied,
    LineSkipped,
)
from events.kernel import Event
from projections.gensokyo.state import SEATS, Entry, Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo import abilities, interrupts, piles
from referee.rules.gensokyo.attributes import attribute_rule, unmet
from referee.rules.gensokyo.common import MOVES, Instruction, asked, other, refuse
from referee.rules.gensokyo.hand_limit import draws
from referee.rules.gensokyo.vitality import DISCARD_RULE, denied, discards

EFFECT_RULE = {
    "vitality": "4-1a",
    "fatigue": "4-1b",
    "draw": "4-1d",
    "discard": "4-1d",
    "recover": "4-2d",
    "other": "4-2d",
}


# --- one line at a time ---------------------------------------------------------


def step(state: Table) -> list[Event] | None:
    """The next automatic step of the effect resolving on top (None: nothing
    resolves, or a player must choose)."""
    top = state.top()
    if top is None or not top.resolving or top.question is not None:
        return None
    if top.kind == "action":
        return interrupts.resolve_action(state, top)
    if top.kind == "ability" and top.line == 0 and not top.paid:
        begun = abilities.begin(state, top)  # 4-5e, then its costs (4-4e)
        if begun is not None:
            return begun
    if top.line >= len(top.lines):
        return finish(state, top)
    line = parse_line(top.lines[top.line], ability=top.kind == "ability")
    if top.kind != "ability" and not top.paid:
        if line.attributes:
            why = unmet(state, top.player, line.attributes)
            if why is not None:
                rule, ruling = attribute_rule(top, line.attributes)
                return [LineSkipped.trusted(rule=rule, ruling=ruling, line=top.line, reason=why)]
        if line.hand:
            if len(state.hand(top.player)) < line.hand:
                reason = (
                    f"{top.player} holds {len(state.hand(top.player))} cards and cannot pay a hand cost of {line.hand}"
                )
                return [LineSkipped.trusted(rule="4-3b", ruling="G8", line=top.line, reason=reason)]
            return [ChoiceAsked.trusted(rule="4-3b", player=top.player, question="cost", line=top.line, n=line.hand)]
    return effect(state, top, line)


def effect(state: Table, top: Entry, line: Line) -> list[Event]:
    """A line's effect, its costs paid (4-1, 4-2d); a choice it needs is asked."""
    who = other(top.player) if line.other_player else top.player
    rule = "4-1c" if line.other_player else EFFECT_RULE[line.kind]
    done = LineApplied.trusted(rule=rule, line=top.line)
    if line.kind in ("vitality", "draw"):
        return [*draws(state, who, line.n, "活力" if line.kind == "vitality" else "ドロー"), done]
    if line.kind in ("fatigue", "discard"):
        kind: DiscardKind = "疲労" if line.kind == "fatigue" else "捨て"
        if denied(state, who, kind):
            return [DiscardDenied.trusted(player=who, kind=kind, wanted=line.n), done]
        hand = state.hand(who)
        if len(hand) > line.n:
            return [
                ChoiceAsked.trusted(rule=DISCARD_RULE[kind], player=who, question="discard", line=top.line, n=line.n)
            ]
        return [*discards(state, who, hand, kind, DISCARD_RULE[kind]), done]  # all they hold (ruling G7)
    if line.kind == "recover":
        characters = _characters(state)
        if not characters:
            return [LineSkipped.trusted(rule="4", ruling="G7", line=top.line, reason="no character is in a party")]
        if len(characters) > 1:
            return [ChoiceAsked.trusted(rule="4-2d", player=top.player, question="choose", line=top.line, n=line.n)]
        return [recovered(state, characters[0], line.n), done]
    return [LineApplied.trusted(rule="4-2d", ruling="G3", line=top.line, abstract=True)]


def finish(state: Table, top: Entry) -> list[Event]:
    """Every line walked: a used intervention card goes to 幻想 (4-2c), then the effect has resolved."""
    out: list[Event] = []
    if top.kind == "intervention" and top.card is not None:
        out.append(piles.moved(state, top.card, "fantasy", rule="4-2c"))
    out.append(EffectResolved.trusted(player=top.player))
    return out


def _characters(state: Table) -> list[str]:
    """Every character in a party, A's first ("任意のキャラクター1人")."""
    return [c for seat in SEATS for c in state.party(seat)]


def recovered(state: Table, card: str, n: int) -> KiRecovered:
    """``card`` recovers ``n`` 気力, never above its printed 気力 (ruling G13)."""
    printed = state.cards[card].ki or 0
    amount = max(0, min(n, printed - state.ki.get(card, 0)))
    return KiRecovered.trusted(rule="4-2d", ruling="G13" if amount != n else None, card=card, amount=amount, asked=n)


@MOVES.move(
    "choose",
    "4-2d",
    args=(ArgSpec("card", "card", True, help="the character that recovers 気力"),),
    help="choose the character a recovery goes to",
    candidates=lambda state, seat, ctx: (
        [Instruction(seat, "choose", card=c) for c in _characters(state)] if asked(state, seat, "choose") else []
    ),
)
def choose(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-2d (粗茶): any one character in a party recovers the 気力 the line says."""
    top = asked(state, a.player, "choose")
    if top is None:
        raise refuse("4-2d", "Nothing asks for a character now.")
    if a.card not in _characters(state):
        raise refuse("4-2d", f"Choose a character in a party: {', '.join(state.name(c) for c in _characters(state))}.")
    assert a.card is not None
    return [recovered(state, a.card, top.n), LineApplied.trusted(rule="4-2d", line=top.line)]
