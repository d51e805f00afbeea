"""What every module of the SCP-TCG zone rules shares: the instruction, its declaration, refusals.

An ``Instruction`` is one thing a process (a card's effect, a rule of
another chapter, a player) tells the table to do with the zones, in the
notation of docs/games/scp-tcg-s4.md. Each kind is declared once with
``instruction(...)``: the rule its record cites, the arguments it takes
(``ArgSpec``, which the scenario reader and the docs follow), the one
function that checks it and returns its events, and the function that
proposes candidates; the legal list is the candidates that check accepts
(python-chess's ``generate_legal_moves`` filtered by ``is_legal``), so
refusing and listing can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields

from events.kernel import Event
from projections.scp_tcg.state import SANDBOXES, SEATS, ZONES, ZoneState, kind_of
from referee.actions import IllegalAction, Refusal
from referee.inputs import close_to
from referee.moves import ArgSpec, Moves

OUTSIDE = "4"  # cited for what chapter 4 does not decide
OUTSIDE_WORDS = "outside the zone rules of chapter 4"
ANY_SANDBOX = "sandbox"  # ``A.sandbox``: "a sandbox", any one of the three (402.1a)


def refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def not_seated(player: object) -> IllegalAction:
    """The refusal of an instruction for a player with no zones (400.1)."""
    return refuse("400.1", f"Zones are each player's (400.1), and the players are A and B, not {player!r}.")


def outside(what: str) -> IllegalAction:
    """A refusal for a question chapter 4 does not answer."""
    return refuse(OUTSIDE, f"That is {OUTSIDE_WORDS}: {what}")


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction, as docs/games/scp-tcg-s4.md writes it; cards by instance id."""

    player: str | None
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    to: str | None = None  # a zone
    at: str | None = None  # top | bottom (a pile), above | below (401.5)
    host: str | None = None  # the site card another is stacked on (401.5)
    zone: str | None = None  # the zone looked at, counted, reordered, damaged, searched
    n: int | None = None
    instructed: bool | None = None  # a process tells the player to (402.2)
    object_class: str | None = None  # the class an effect gives an object (402.1c)

    def arguments(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for name in ARGUMENTS:  # the fields but player and do (below), read once
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "do": self.do, **self.arguments()}


ARGUMENTS = tuple(f.name for f in fields(Instruction) if f.name not in ("player", "do"))

Check = Callable[[ZoneState, Instruction], list[Event]]
Candidates = Callable[[ZoneState, str], Iterable[Instruction]]

# Every instruction, declared once in the kernel's registry of moves: an
# argument an instruction does not take, or a required one left out, is
# refused citing its rule before its check runs (``strict_arguments``).
MOVES: Moves[ZoneState, Instruction] = Moves(seat_rule="400.1", strict_arguments=True)


def instruction(
    do: str, rule: str, args: tuple[ArgSpec, ...], help: str, candidates: Candidates
) -> Callable[[Check], Check]:
    """Declare instruction ``do``, checked by the decorated function (chapter
    4 asks no decision of its own of a check, so neither takes the context)."""

    def register(check: Check) -> Check:
        MOVES.move(
            do,
            rule,
            args=args,
            help=help,
            candidates=lambda state, seat, ctx: candidates(state, seat),
        )(lambda state, a, ctx: check(state, a))
        return check

    return register


def zone_name(state: ZoneState, zone: str | None, rule: str = "400.1") -> str:
    """``zone`` checked to be one of the zones 400.1 gives every player."""
    if zone is not None and kind_of(zone) == ANY_SANDBOX:
        raise refuse("402.1a", f"{zone} means any one of the three sandboxes (402.1a): name which, e.g. A.keter.")
    if zone is None or zone not in ZONES:
        kinds = "site, safe, euclid, keter, tale, personnel, decommissioned, outside"
        close = close_to(zone, ZONES) if zone is not None else []
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise refuse(rule, f"There is no zone {zone!r}{hint}: each player has {kinds} (400.1), written like A.keter.")
    return zone


def sandbox_name(zone: str | None) -> str:
    """``zone`` checked to be one of the three sandboxes (402.1)."""
    if zone is not None and kind_of(zone) == ANY_SANDBOX:
        raise refuse("402.1a", f"{zone} means any one of the three sandboxes (402.1a): name which, e.g. A.keter.")
    if zone is None or zone not in ZONES or kind_of(zone) not in SANDBOXES:
        close = close_to(zone, [z for z in ZONES if kind_of(z) in SANDBOXES]) if zone is not None else []
        hint = f" (did you mean {' or '.join(close)}?)" if close and zone not in ZONES else ""
        raise refuse("402.1", f"{zone!r} is not a sandbox{hint}: each player has A.safe, A.euclid and A.keter (402.1).")
    return zone


def card_name(state: ZoneState, card: str | None) -> str:
    """``card`` checked to be a card of this match, wherever it is."""
    if card is None:
        raise refuse("400.1", "Which card? Name it by name, label or id (A:3).")
    if card not in state.cards:
        raise refuse("400.1", f"There is no card {card!r} in this game.")
    return card


def name(state: ZoneState, card: str) -> str:
    return state.cards[card].name if card in state.cards else card


def seat(player: str | None) -> str:
    if player not in SEATS:
        raise not_seated(player)
    return player
