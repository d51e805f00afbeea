"""405: the Decommissioned zone: what goes there, terminating, its public fixed order.

- 405.1: terminated objects and personnel, used Tale and Incident cards and
  the like go there; a process may send any card there.
- 405.2: putting an object on a site or the personnel card of a personnel
  zone into Decommissioned is "terminating" it; 405.2a: a card that goes
  there so is terminated; 405.2b: any other way there (a result, a cost,
  a plain move) is not terminating, unless the word says so.
- 405.3: anyone may look at any Decommissioned zone at any time; nobody may
  change its order.
- 405.4: two or more cards put there at once are put in the order their
  owner chooses. Each card goes to its owner's zone (400.2), so each owner
  orders only their own; the referee asks A first, then B, though the two
  piles do not affect each other (docs/rulings.md, S7). A card on its own
  needs no order, and a card put there goes on top (S6). Nothing else
  happens meanwhile (S7), but what the text allows "at any time" still is:
  anyone counts a sandbox (402.2) and looks at a Decommissioned zone
  (405.3), without a process telling them to (``AT_ANY_TIME``).
"""

from __future__ import annotations

from events.kernel import Event
from events.scp_tcg.zones import CardMoved, CardsPlaced, PlacementPending, ZoneLooked
from projections.scp_tcg.state import SEATS, ZoneState, kind_of, owner
from referee.actions import IllegalAction
from referee.rules.scp_tcg.common import Instruction, name, refuse
from referee.ruleset import Decision

# What players may do "at any time" (いつでも), so also while an owner orders
# arriving cards (405.4): count a sandbox (402.2), look at a Decommissioned
# zone (405.3). The text is explicit here; ruling S7 covers only where it is silent.
AT_ANY_TIME = ("count", "look")


def zone_of(card: str) -> str:
    """400.2: the Decommissioned zone a card goes to is its owner's."""
    return f"{owner(card)}.decommissioned"


def terminable(state: ZoneState, card: str) -> bool:
    """405.2: only an object on a site, or the personnel card in a personnel zone, is terminated."""
    where = state.place(card)
    if where is None or where.zone is None:
        return False
    kind = kind_of(where.zone)
    cd = state.cards[card]
    return (kind == "site" and cd.type == "object") or (kind == "personnel" and cd.type == "personnel")


def check_terminable(state: ZoneState, card: str) -> None:
    if not terminable(state, card):
        where = state.place(card)
        at = (
            "is stacked on a site card" if where is not None and where.host else f"is in {where.zone if where else '?'}"
        )
        raise refuse(
            "405.2",
            f"{name(state, card)} {at}: only an object on a site or the personnel card in a personnel zone "
            "can be terminated (405.2).",
        )


def arrival_rule(state: ZoneState, card: str) -> str:
    """The rule a move into Decommissioned cites: 405.2b for a card that could
    have been terminated but was only moved, else 405.1."""
    return "405.2b" if terminable(state, card) else "405.1"


def arrivals(cards: list[str], rule: str, terminated: bool = False) -> list[Event]:
    """The events of ``cards`` going to Decommissioned at once (each to its
    owner's zone): a single card of an owner goes on top at once; two or more
    wait for their owner to order them (405.4)."""
    by_owner: dict[str, list[str]] = {}
    for card in cards:
        by_owner.setdefault(owner(card), []).append(card)
    out: list[Event] = []
    for seat in SEATS:
        mine = by_owner.get(seat, [])
        if len(mine) == 1:
            out.append(CardMoved(rule=rule, card=mine[0], to=zone_of(mine[0]), terminated=terminated))
        elif mine:
            out.append(PlacementPending(rule=rule, player=seat, cards=mine, terminated=terminated))
    return out


def ordering(state: ZoneState) -> Decision | None:
    """405.4: the owner whose cards are arriving puts them in order (A first)."""
    for seat in SEATS:
        if state.arriving.get(seat):
            n = len(state.arriving[seat])
            return Decision(
                seat,
                "order_decommissioned",
                "405.4",
                f"put the {n} cards arriving at their Decommissioned zone in the order they choose (405.4)",
            )
    return None


def waiting(state: ZoneState) -> IllegalAction:
    """The refusal of anything but the order, a count or a look while an
    owner orders the cards arriving at their Decommissioned zone (405.4, S7)."""
    seat = next(s for s in SEATS if state.arriving.get(s))
    cards = ", ".join(name(state, c) for c in state.arriving[seat])
    return refuse(
        "405.4",
        f"{seat} is putting {cards} onto their Decommissioned zone (405.4): {seat} orders them (order) "
        "before any process goes on; meanwhile anyone may count a sandbox (402.2) or look at a "
        "Decommissioned zone (405.3).",
    )


def place_in_order(state: ZoneState, a: Instruction) -> list[Event]:
    """405.4: ``a.cards`` (or ``a.card``) go on next, in that order; the owner
    may give some now and the rest later."""
    player = a.player or ""
    waiting = state.arriving.get(player, ())
    if not waiting:
        others = [s for s in SEATS if state.arriving.get(s)]
        if others:
            raise refuse("405.4", f"The cards arriving at Decommissioned are {others[0]}'s: their owner orders them.")
        raise refuse("405.4", "No cards are arriving at a Decommissioned zone together: there is nothing to order.")
    chosen = list(a.cards or ()) or ([a.card] if a.card else [])
    if not chosen:
        raise refuse("405.4", "Name the next card (card) or the next cards in order (cards).")
    if len(set(chosen)) != len(chosen):
        raise refuse("405.4", "Each arriving card is put there once.")
    for card in chosen:
        if card not in waiting:
            raise refuse("405.4", f"{name(state, card)} is not one of {player}'s cards arriving at Decommissioned.")
    return [CardsPlaced(player=player, cards=chosen)]


def look(state: ZoneState, a: Instruction, zone: str) -> list[Event]:
    """405.3: anyone may look at any Decommissioned zone at any time, so also
    while cards are being ordered (405.4); a process telling them to waits
    until the order is done (S7)."""
    if state.arriving and a.instructed:
        raise waiting(state)
    return [ZoneLooked(rule="405.3", player=a.player or "", zone=zone, instructed=bool(a.instructed))]


def reorder(state: ZoneState, zone: str) -> list[Event]:
    raise refuse("405.3", f"Nobody may change the order of {zone} (405.3), though anyone may look at it.")
