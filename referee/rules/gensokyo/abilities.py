"""4-4: abilities, their timings and their costs; 4-5e: an ability that can no longer be paid for.

A character's or an item's ability has one of four timings (4-4a-d). §4
decides of them what concerns interrupts, and that is what the referee
checks: 自T never interrupts (4-4a), 介入 may (4-4b), 常時 is never declared
(4-4c: it is in effect at all times), 対応 is used only to interrupt
(4-4d). Whose turn and which phase it is are other chapters' (turns are not
here), and so is which action a 対応 ability may answer: the table enters
a use when the rest of the rules allow it (ruling G10).

An ability's costs (4-4e) are its attributes (the player's companions,
4-2e), a hand cost (4-3a) and, for a character's, 気力: the companion with
the ability pays it, down to exactly 0 but never more than it has (4-4f);
a character left at 0 goes to the bottom of 人妖の山, as one defeated by
damage does (4-4g). The costs are checked when the ability is used and
paid as it resolves: if by then its user has left the field or the costs
can no longer be paid, it is not resolved (4-5e, ruling G9).
"""

from __future__ import annotations

from events.gensokyo.cards import GensokyoCard, Line, parse_line
from events.gensokyo.table import ChoiceAsked, CostPaid, EffectNotResolved, EffectUsed, KiPaid
from events.kernel import Event
from projections.gensokyo.state import Entry, Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo import piles
from referee.rules.gensokyo.attributes import unmet
from referee.rules.gensokyo.common import MOVES, Instruction, card_of, outside, refuse
from referee.rules.gensokyo.vitality import discards


def on_field(state: Table, seat: str, card: str) -> bool:
    """Is ``card`` on the field as ``seat``'s: a companion in their party, or one of their items?"""
    return state.where(card) in (f"{seat}.party", f"{seat}.items")


def cost_problem(state: Table, seat: str, card: str, line: Line) -> tuple[str, str] | None:
    """The rule and the reason ``seat`` cannot pay ``line``'s costs now, or None if it can."""
    name = state.name(card)
    if line.ki and state.ki.get(card, 0) < line.ki:
        return "4-4f", (
            f"{name} has {state.ki.get(card, 0)} 気力 and cannot pay {line.ki}: "
            "it may pay down to exactly 0, never more than it has"
        )
    if line.hand and len(state.hand(seat)) < line.hand:
        return "4-3a", f"{seat} holds {len(state.hand(seat))} cards and cannot pay a hand cost of {line.hand}"
    if line.attributes:
        why = unmet(state, seat, line.attributes)
        if why is not None:
            return "4-4e", f"the ability needs {line.attributes}, and {why}"
    return None


def _abilities(state: Table, seat: str) -> list[Instruction]:
    out = []
    for card in (*state.party(seat), *state.zones[f"{seat}.items"]):
        for ability in state.cards[card].abilities:
            out.append(Instruction(seat, "ability", card=card, skill=ability.name))
    return out


def _line_of(cd: GensokyoCard, name: str) -> Line:
    ability = cd.ability(name)
    assert ability is not None
    return parse_line(ability.line, ability=cd.is_character)


@MOVES.move(
    "ability",
    "4-4",
    args=(
        ArgSpec("card", "card", True, help="the companion or item with the ability"),
        ArgSpec("skill", "choice", False, help="the ability's name (default: its only one)"),
    ),
    help="a companion or an item uses an ability (介入 and 対応 may interrupt: 4-5a)",
    candidates=lambda state, seat, ctx: _abilities(state, seat),
)
def ability(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-4a-d (timings, as far as interrupts go), 4-4e-f (its costs can be paid now)."""
    cd = card_of(state, a.card)
    assert a.player is not None and a.card is not None
    if cd.type not in ("character", "item"):
        raise outside(f"{cd.name} is a {cd.type} card: characters and items have abilities (4-4).")
    if not on_field(state, a.player, a.card):
        raise refuse(
            "4-4e", f"An ability is used by {a.player}'s own companion or item on the field, and {cd.name} is not one."
        )
    found = cd.ability(a.skill)
    if found is None:
        names = ", ".join(x.name for x in cd.abilities) or "none"
        said = f"no ability {a.skill!r}" if a.skill is not None else "more than one ability: name it"
        raise refuse("4-4", f"{cd.name} has {said} (its abilities: {names}).")
    if found.timing == "常時":
        raise refuse("4-4c", f"{found.name} is 常時: it is never declared, it is in effect at all times (4-4c).")
    if found.timing == "対応" and not state.stack:
        raise refuse(
            "4-4d", f"{found.name} is 対応: it is used only to interrupt, and nothing waits to resolve (4-4d)."
        )
    if found.timing == "自T" and state.stack:
        raise refuse("4-4a", f"{found.name} is 自T: it never interrupts (4-4a); let what waits resolve first.")
    problem = cost_problem(state, a.player, a.card, _line_of(cd, found.name))
    if problem is not None:
        raise refuse(problem[0], f"{found.name} cannot be used: {problem[1]}.")
    return [
        EffectUsed.trusted(
            rule="4-4",
            player=a.player,
            kind="ability",
            card=a.card,
            ability=found.name,
            timing=found.timing,
            lines=[found.line],
        )
    ]


def begin(state: Table, top: Entry) -> list[Event] | None:
    """An ability about to resolve: 4-5e, then its costs paid (4-4e-g); None
    when it has nothing to pay and its effect comes next."""
    assert top.card is not None
    cd = state.cards[top.card]
    if not on_field(state, top.player, top.card):
        reason = f"{cd.name}, which used it, has left the field"
        return [EffectNotResolved.trusted(rule="4-5e", player=top.player, reason=reason)]
    line = parse_line(top.lines[0], ability=cd.is_character)
    problem = cost_problem(state, top.player, top.card, line)
    if problem is not None:
        return [
            EffectNotResolved.trusted(
                rule="4-5e", player=top.player, reason=f"its costs can no longer be paid: {problem[1]}"
            )
        ]
    out: list[Event] = []
    if line.ki:
        out.append(KiPaid.trusted(card=top.card, amount=line.ki))
        if state.ki.get(top.card, 0) == line.ki:  # paid down to exactly 0 (4-4f)
            out.append(piles.moved(state, top.card, "character_deck", "bottom", rule="4-4g"))
    if line.hand:
        hand = state.hand(top.player)
        if len(hand) > line.hand:
            return [
                *out,
                ChoiceAsked.trusted(rule="4-4e", player=top.player, question="ability_cost", line=0, n=line.hand),
            ]
        out += discards(state, top.player, hand, "cost", "4-4e")
    if out:
        out.append(CostPaid.trusted(rule="4-4e", player=top.player, line=0))
    return out or None
