"""What every module of the 幻想郷夢紀行 §4 rules shares: the instruction, the registry of moves, refusals.

An ``Instruction`` is one thing the table enters: a player moves to a
destination card, uses an intervention card or an ability, takes an
action, lets what waits resolve, answers what a resolving line asks, or a
process of a chapter the referee does not have moves a card or makes a
player draw (docs/games/gensokyo-s4.md, "Instructions"). Each kind is
declared once in ``MOVES`` by the module of the section that decides it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from events.gensokyo.cards import GensokyoCard
from projections.gensokyo.state import SEATS, Entry, Table
from referee.actions import IllegalAction, Refusal
from referee.moves import Moves

OUTSIDE = "4"  # cited for what §4 does not decide
OUTSIDE_WORDS = "outside §4 (細かいルールについて)"


def refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def outside(what: str) -> IllegalAction:
    """A refusal for a question §4 does not answer."""
    return refuse(OUTSIDE, f"That is {OUTSIDE_WORDS}: {what}")


def not_seated(player: object) -> IllegalAction:
    return refuse(OUTSIDE, f"The players here are A and B (ruling:G1), not {player!r}.")


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction, as docs/games/gensokyo-s4.md writes it; cards by instance id (``c3``)."""

    player: str | None
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    to: str | None = None  # a zone
    at: str | None = None  # top | bottom of a pile
    n: int | None = None
    skill: str | None = None  # an ability's name (``ability``: the move; the command line's --ability is an index)
    text: str | None = None

    def arguments(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in fields(self):
            if f.name in ("player", "do"):
                continue
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "do": self.do, **self.arguments()}


ARGUMENTS = tuple(f.name for f in fields(Instruction) if f.name not in ("player", "do"))

# Every instruction, declared once; an argument an instruction does not take,
# or a required one left out, is refused citing its rule before its check runs.
MOVES: Moves[Table, Instruction] = Moves(seat_rule=OUTSIDE, strict_arguments=True)


def other(seat: str) -> str:
    """The other player (ruling G1: two seats, so "相手" is one player)."""
    return SEATS[1 - SEATS.index(seat)]


def card_of(state: Table, card: str | None) -> GensokyoCard:
    """``card`` checked to be a card of this match."""
    if card is None:
        raise refuse(OUTSIDE, "Which card? Name it by name, label or id (c3).")
    found = state.cards.get(card)
    if found is None:
        raise refuse(OUTSIDE, f"There is no card {card!r} in this game.")
    return found


def words(card: GensokyoCard | None) -> str:
    return card.name if card is not None else "?"


def asked(state: Table, player: str | None, *questions: str) -> Entry | None:
    """The effect resolving on top if it asks ``player`` one of ``questions`` now, else None."""
    top = state.top()
    if top is None or top.question not in questions or top.chooser != player:
        return None
    return top
