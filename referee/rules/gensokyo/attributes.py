"""4-2: a character's attributes, and the lines they gate: destination and intervention cards.

A destination card's lines go to the player who moves there (``travel``,
4-2b); an intervention card's to the player who uses it (``intervene``),
who may use it without its attributes: it then goes to 幻想 without effect
(4-2c). Each line is checked on its own, when it resolves (4-2d: 粗茶's
活力1 applies without 人; ``resolution``). A line's attributes are counted
across the player's companions (4-2e): ``人魔`` is met by a 人 companion and
a 魔 companion or by one with both; each companion gives each of its
attributes once, so ``霊霊霊`` needs three companions with 霊 (4-2f, ruling G5).
"""

from __future__ import annotations

from collections import Counter

from events.gensokyo.table import EffectUsed
from events.kernel import Event
from projections.gensokyo.state import SEATS, Entry, Table, kind_of
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo import interrupts
from referee.rules.gensokyo.common import MOVES, Instruction, card_of, outside, refuse

# --- counting ----------------------------------------------------------------------


def attributes(state: Table, seat: str) -> Counter[str]:
    """How many of ``seat``'s companions have each attribute (4-2e: each
    companion counts once for each attribute it has, ruling G5)."""
    count: Counter[str] = Counter()
    for card in state.party(seat):
        count.update(set(state.cards[card].attributes))
    return count


def unmet(state: Table, seat: str, needs: str) -> str | None:
    """Why ``seat``'s companions do not meet ``needs`` (``人魔``, ``霊霊霊``), or None if they do."""
    have = attributes(state, seat)
    short = [(a, n, have[a]) for a, n in Counter(needs).items() if have[a] < n]
    if not short:
        return None
    said = "; ".join(
        f"{h} compan{'ion' if h == 1 else 'ions'} with {a}, not {n}" if n > 1 else f"no companion with {a}"
        for a, n, h in short
    )
    return f"{seat} has {said}"


def attribute_rule(entry: Entry, needs: str) -> tuple[str, str | None]:
    """The rule (and ruling) a line's unmet attributes cite: 4-2c for an
    intervention card, 4-2b for a destination; 4-2f for a repeated attribute (ruling G5)."""
    if max(Counter(needs).values()) > 1:
        return "4-2f", "G5"
    return ("4-2c" if entry.kind == "intervention" else "4-2b"), None


# --- using cards ----------------------------------------------------------------------------


def _journeys(state: Table) -> list[str]:
    return [c for seat in SEATS for c in state.zones[f"{seat}.journey"]]


@MOVES.move(
    "travel",
    "4-2b",
    args=(ArgSpec("card", "card", True, help="the destination card (旅先) the player moves to"),),
    help="the player moves to a destination card and gets its effect",
    candidates=lambda state, seat, ctx: [Instruction(seat, "travel", card=c) for c in _journeys(state)],
)
def travel(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-2b: the lines of a destination go to the player who moves there.
    How and where a player moves is outside §4: any destination on a journey."""
    cd = card_of(state, a.card)
    where = state.where(a.card or "")
    if cd.type != "destination" or where is None or kind_of(where) != "journey":
        raise outside(
            f"a player moves to a destination card on a journey, and {cd.name} is none (how moving works is another chapter's)."
        )
    interrupts.nothing_waits(state, "moving to a destination")
    assert a.player is not None
    return [EffectUsed.trusted(rule="4-2b", player=a.player, kind="travel", card=a.card, lines=list(cd.effects))]


@MOVES.move(
    "intervene",
    "4-2c",
    args=(ArgSpec("card", "card", True, help="the intervention card (介入) used from the hand"),),
    help="the player uses an intervention card from their hand (it may interrupt: 4-5a)",
    candidates=lambda state, seat, ctx: [
        Instruction(seat, "intervene", card=c) for c in state.hand(seat) if state.cards[c].type == "intervention"
    ],
)
def intervene(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-2c: used with or without its attributes (without them it has no
    effect); 4-4b, 4-5a: its timing is 介入, so it may interrupt."""
    cd = card_of(state, a.card)
    assert a.player is not None and a.card is not None
    if cd.type != "intervention":
        raise outside(f"{cd.name} is a {cd.type} card; only an intervention card (介入) is used so.")
    if a.card not in state.hand(a.player):
        raise refuse("4-2c", f"{a.player} uses an intervention card from their own hand, and {cd.name} is not there.")
    return [
        EffectUsed.trusted(
            rule="4-2c", player=a.player, kind="intervention", card=a.card, timing="介入", lines=list(cd.effects)
        )
    ]
