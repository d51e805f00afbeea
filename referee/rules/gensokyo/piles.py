"""4-7: the two decks and 幻想: which cards each holds, and where a card sent to the wrong one goes.

人妖の山 (``character_deck``) holds characters only; 山札 (``deck``) and 幻想
(``fantasy``) hold everything else (4-7a). A process that sends a card that
is not a character to 人妖の山 sends it to 幻想 (4-7b); one that sends a
character to 山札 or 幻想 sends it to the bottom of 人妖の山 (4-7c). Every
card that goes to a pile, a discard and a used intervention card included,
goes through ``destination``.

The ``move`` instruction is a process of a chapter the referee does not
have sending a card somewhere: §4 decides only where it ends up in the
piles; the rest of the zones take what the position format allows
(characters in a party, destination cards on a journey, items among the
items), and anything else is refused as outside §4.
"""

from __future__ import annotations

from events.gensokyo.table import CardMoved
from events.kernel import Event
from projections.gensokyo.state import SHARED, ZONES, Table, kind_of
from projections.gensokyo.views import zone_words
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo.common import MOVES, Instruction, card_of, outside, refuse

# What each of a player's zones takes (the position format's, ruling G2);
# the piles take what 4-7a says, through ``destination``.
TAKES = {"party": ("character",), "journey": ("destination",), "items": ("item",)}


def destination(state: Table, card: str, to: str, at: str = "top") -> tuple[str, str, list[str]]:
    """Where a card sent to ``to`` (``at`` its top or bottom) ends up, and the rule that sent it elsewhere."""
    cd = state.cards[card]
    if to == "character_deck" and not cd.is_character:
        return "fantasy", "top", ["4-7b"]
    if to in ("deck", "fantasy") and cd.is_character:
        return "character_deck", "bottom", ["4-7c"]
    return to, at, []


def moved(state: Table, card: str, to: str, at: str = "top", rule: str = "4-7a") -> CardMoved:
    """The event of ``card`` sent to ``to``: where it ends up, citing 4-7b or
    4-7c when they send it elsewhere, else ``rule``."""
    zone, where, by = destination(state, card, to, at)
    return CardMoved.trusted(
        rule=by[0] if by else rule, card=card, to=zone, at=where, asked=to if by else None, redirected_by=by
    )


def _moves(state: Table, seat: str) -> list[Instruction]:
    out: list[Instruction] = []
    for card, cd in state.cards.items():
        was = state.where(card)
        if was is None:
            continue  # being used (4-5b)
        for zone in ZONES:
            if zone in SHARED:
                out += [Instruction(seat, "move", card=card, to=zone, at=at) for at in ("top", "bottom")]
            elif zone != was and cd.type in TAKES.get(kind_of(zone), (cd.type,)):
                out.append(Instruction(seat, "move", card=card, to=zone))
    return out


@MOVES.move(
    "move",
    "4-7",
    args=(
        ArgSpec("card", "card", True, help="the card a process sends"),
        ArgSpec("to", "zone", True, help="where it is sent: deck, character_deck, fantasy, A.hand, A.party, ..."),
        ArgSpec("at", "choice", False, ("top", "bottom"), help="top or bottom of a pile (default top)"),
    ),
    help="a process sends a card to a zone (4-7 decides where it ends up)",
    candidates=lambda state, seat, ctx: _moves(state, seat),
)
def move(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-7a-c for the piles; the other zones as the position format has them."""
    cd = card_of(state, a.card)
    assert a.card is not None
    if a.to not in ZONES:
        raise refuse("4-7", f"There is no zone {a.to!r}: the zones are {', '.join(ZONES)}.")
    if a.at is not None and a.at not in ("top", "bottom"):
        raise refuse("4-7", f"A card goes to the top or the bottom of a pile, not {a.at!r}.")
    was = state.where(a.card)
    if was is None:
        raise refuse("4-5b", f"{cd.name} is being used: it waits to resolve, and goes to 幻想 once it has (4-2c).")
    kind = kind_of(a.to)
    if a.to not in SHARED:
        if cd.type not in TAKES.get(kind, (cd.type,)):
            raise outside(
                f"§4 says nothing of a {cd.type} card going to {zone_words(a.to)}, which holds "
                f"{' and '.join(t + ' cards' for t in TAKES[kind])} here."
            )
        if was == a.to:
            raise refuse("4-7", f"{cd.name} is in {zone_words(a.to)} already.")
        return [moved(state, a.card, a.to, "top", rule="4")]
    return [moved(state, a.card, a.to, a.at or "top")]
