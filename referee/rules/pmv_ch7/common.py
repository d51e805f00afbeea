"""What every module of the Phantom Magic Vision chapter-7 rules shares: the action, the registry of moves, refusals.

An ``Action`` is what a player does (use an effect, choose an order) or
what the table enters on behalf of a chapter the referee does not have (a
condition comes to hold, a card moves, the turn or priority passes), in the
notation of docs/games/pmv-ch7.md. Each kind is declared once on the
function that checks it (``MOVES.move``), beside the rule that gives it
meaning; the legal list is the candidates that check accepts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from projections.pmv_ch7.state import Table
from referee.actions import IllegalAction, Refusal
from referee.moves import Moves

OUTSIDE = "7"  # cited for what chapter 7 does not decide
OUTSIDE_WORDS = "outside the effect rules of chapter 7"


def refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def outside(what: str) -> IllegalAction:
    """A refusal for a question chapter 7 does not answer."""
    return refuse(OUTSIDE, f"That is {OUTSIDE_WORDS}: {what}")


@dataclass(frozen=True, slots=True)
class Action:
    """One action, as docs/games/pmv-ch7.md writes it; cards by name."""

    player: str | None
    do: str
    card: str | None = None
    effect: int | None = None  # which of the card's effects, from 1
    mode: int | None = None  # 7.3.4.b, 7.1.15
    declare: str | None = None  # 7.3.4.d
    first: str | None = None  # order: the effect that resolves next (7.1.6.a)
    apply: bool | None = None  # choose: whether the optional α applies (7.4.5.f)
    condition: str | None = None  # happen: the named condition
    holds: bool | None = None  # happen: false when it stops holding
    to: str | None = None  # move: field | elsewhere

    def arguments(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in fields(self):
            if f.name in ("player", "do"):
                continue
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value
        return out

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "do": self.do, **self.arguments()}


ARGUMENTS = tuple(f.name for f in fields(Action) if f.name not in ("player", "do"))

# Every move, declared once in the kernel's registry: an argument a move does
# not take, or a required one left out, is refused citing its rule before
# its check runs (``strict_arguments``).
MOVES: Moves[Table, Action] = Moves(seat_rule=OUTSIDE, strict_arguments=True)
