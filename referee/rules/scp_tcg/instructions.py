"""The instructions a process gives the zones, each declared once: its arguments, its check, its candidates.

This module has no rule of its own: each check asks the modules named
after the rules (``zones`` 400/403/404/406, ``site`` 401, ``sandbox`` 402,
``decommissioned`` 405). Whatever chapter 4 does not decide is refused
citing ``4``, "outside the zone rules of chapter 4".

Candidates are every instruction of a kind a seat could send now, and the
legal list is those its check accepts. Where an argument's values are
unbounded or come from outside chapter 4, candidates are bounded: damage
and protection are proposed from 1 to the sandbox's maximum (a larger
amount acts as the maximum does, 402.6a), a new order of a sandbox (402.2)
for piles of up to ``MAX_ORDERED`` cards, and a move proposes no class an
effect gives (402.1c: effects are other chapters').
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Literal

from events.kernel import Event
from events.scp_tcg.zones import CardMoved, CardStayed, PlacementPending
from projections.scp_tcg.state import SANDBOXES, SEATS, ZONES, ZoneState, evolve, kind_of, owner
from referee.rules.scp_tcg import decommissioned, sandbox, site, zones
from referee.rules.scp_tcg.common import (
    ANY_SANDBOX,
    Candidates,
    Instruction,
    card_name,
    instruction,
    name,
    outside,
    refuse,
    sandbox_name,
    zone_name,
)
from referee.ruleset import ArgSpec

MAX_ORDERED = 4
PILES = ("top", "bottom")
Pile = Literal["top", "bottom"]  # one of PILES

# "A sandbox" (402.1a), a word of the notation beside the zones: where a move
# sends a card it is the sandbox of the card's class (ruling:S9); anything
# else naming it is refused citing 402.1a, by the rules, not as a typo.
ANY_SANDBOXES = tuple(f"{seat}.{ANY_SANDBOX}" for seat in SEATS)

CARD = ArgSpec("card", "card", help="the card, by name, label or id")
CARDS = ArgSpec("cards", "cards", help="several cards at once, instead of card")
TO = ArgSpec("to", "zone", help="a zone, e.g. B.decommissioned; A.sandbox for 'a sandbox' (402.1a)", also=ANY_SANDBOXES)
AT = ArgSpec("at", "choice", choices=PILES, help="top (the default) or bottom, in a sandbox or the Tale zone")
CLASS = ArgSpec("object_class", "choice", choices=sandbox.CLASSES, help="the class an effect gives the object (402.1c)")
ZONE = ArgSpec("zone", "zone", required=True, help="the zone, e.g. A.keter", also=ANY_SANDBOXES)
N = ArgSpec("n", "count", required=True, help="a positive amount")
INSTRUCTED = ArgSpec("instructed", "flag", help="true when a process tells the player to (402.2)")


def _cards_of(state: ZoneState, a: Instruction) -> list[str]:
    if a.card is not None and a.cards is not None:
        raise refuse("400.1", "Give card or cards, not both.")
    chosen = list(a.cards) if a.cards is not None else [card_name(state, a.card)]
    if not chosen:
        raise refuse("400.1", "cards: name at least one card.")
    if len(set(chosen)) != len(chosen):
        raise refuse("400.1", "cards: each card is named once.")
    for card in chosen:
        card_name(state, card)
    return chosen


def _movable(state: ZoneState) -> list[str]:
    arriving = {c for cards in state.arriving.values() for c in cards}
    return [c for c in state.everywhere() if c not in arriving]


# --- moving cards (400.2, 401.2, 402.1, 403, 404, 405.1, 405.2b, 406.1) ---------------


def move_events(state: ZoneState, cards: list[str], asked: str, at: Pile, given: str | None = None) -> list[Event]:
    """Each card sent to ``asked`` at once: where each goes (``zones.route``),
    the cards bound for one owner's Decommissioned together waiting for
    their owner's order (405.4)."""
    out: list[Event] = []
    now = state
    bound: dict[str, list[tuple[str, zones.Route]]] = {}
    for card in cards:
        r = zones.route(now, card, asked, given)
        if r.to is None:
            event: Event = CardStayed(rule=r.rule, card=card, asked=asked, reason=r.reason)
        elif kind_of(r.to) == "decommissioned":
            bound.setdefault(owner(card), []).append((card, r))
            continue
        else:
            pile = kind_of(r.to) in SANDBOXES or kind_of(r.to) == "tale"
            event = CardMoved(
                rule=r.rule,
                card=card,
                to=r.to,
                at=at if pile else "top",
                asked=asked if r.redirected_by else None,
                redirected_by=list(r.redirected_by),
                object_class=given if kind_of(r.to) in SANDBOXES else None,
            )
        out.append(event)
        if len(cards) > 1:
            now = evolve(now, event)
    for seat in SEATS:
        group = bound.get(seat, [])
        if len(group) == 1:
            card, r = group[0]
            redirected = list(r.redirected_by)
            out.append(
                CardMoved(
                    rule=r.rule, card=card, to=r.to or "", asked=asked if redirected else None, redirected_by=redirected
                )
            )
        elif group:
            out.append(PlacementPending(rule=group[0][1].rule, player=seat, cards=[c for c, _ in group]))
    return out


def _destinations() -> list[str]:
    return [*ZONES, *ANY_SANDBOXES]


def is_pile(zone: str) -> bool:
    return kind_of(zone) in SANDBOXES or kind_of(zone) in ("tale", ANY_SANDBOX)


def _move_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for card in _movable(state):
        for to in _destinations():
            for at in PILES if is_pile(to) else (None,):
                yield Instruction(seat, "move", card=card, to=to, at=at)


def _destination(state: ZoneState, to: str | None, at: str | None) -> tuple[str, Pile]:
    if to not in ANY_SANDBOXES:
        to = zone_name(state, to)
    if at is not None and (at not in PILES or not is_pile(to)):
        raise refuse("400.1", f"at: top or bottom places a card in a sandbox or a Tale zone, not {at!r} in {to}.")
    return to, at or "top"  # type: ignore[return-value]  # at is None or one of PILES, checked above


@instruction(
    "move",
    "400.2",
    (CARD, CARDS, ArgSpec("to", "zone", required=True, help=TO.help, also=ANY_SANDBOXES), AT, CLASS),
    "a process moves one card (card) or several at once (cards) to a zone",
    _move_candidates,
)
def _move(state: ZoneState, a: Instruction) -> list[Event]:
    cards = _cards_of(state, a)
    to, at = _destination(state, a.to, a.at)
    return move_events(state, cards, to, at, a.object_class)


def _exile_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for card in _movable(state):
        yield Instruction(seat, "exile", card=card)


@instruction("exile", "406.2", (CARD, CARDS), "a process exiles cards: puts them outside the game", _exile_candidates)
def _exile(state: ZoneState, a: Instruction) -> list[Event]:
    out: list[Event] = []
    for card in _cards_of(state, a):
        r = zones.exile_route(state, card)
        if r.to is None:
            out.append(CardStayed(rule=r.rule, card=card, asked=f"{owner(card)}.outside", reason=r.reason))
        else:
            out.append(CardMoved(rule=r.rule, card=card, to=r.to))
    return out


# --- the site (401) ---------------------------------------------------------------


def _control_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for other in SEATS:
        if other != seat:
            for card in state.zones[f"{other}.site"]:
                yield Instruction(seat, "gain_control", card=card)


@instruction(
    "gain_control",
    "401.2",
    (ArgSpec("card", "card", required=True, help=CARD.help),),
    "the player gains control of an object: it moves onto their site",
    _control_candidates,
)
def _gain_control(state: ZoneState, a: Instruction) -> list[Event]:
    return site.gain_control(state, a, card_name(state, a.card))


def _stack_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    hosts = [c for s in SEATS for c in state.zones[f"{s}.site"]]
    for card in _movable(state):
        for host in hosts:
            for side in ("above", "below"):
                yield Instruction(seat, "stack", card=card, host=host, at=side)


@instruction(
    "stack",
    "401.5",
    (
        ArgSpec("card", "card", required=True, help=CARD.help),
        ArgSpec("host", "card", required=True, help="the card on a site it goes above or below"),
        ArgSpec("at", "choice", required=True, choices=("above", "below")),
    ),
    "a process puts a card above or below a card on a site",
    _stack_candidates,
)
def _stack(state: ZoneState, a: Instruction) -> list[Event]:
    return site.stack(state, card_name(state, a.card), card_name(state, a.host), a.at or "")


def _none(state: ZoneState, seat: str) -> Iterable[Instruction]:
    return ()


@instruction(
    "cross_test",
    "401.5a",
    (ArgSpec("card", "card", required=True, help=CARD.help),),
    "asks whether a card may be cross tested; chapter 4 only says which may not",
    _none,
)
def _cross_test(state: ZoneState, a: Instruction) -> list[Event]:
    return site.cross_test(state, card_name(state, a.card))


# --- sandboxes (402) ---------------------------------------------------------------


def _sandboxes() -> list[str]:
    return [z for z in ZONES if kind_of(z) in SANDBOXES]


def _amount_candidates(do: str) -> Candidates:
    def candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
        for zone in _sandboxes():
            for n in range(1, sandbox.maximum(zone) + 1):
                yield Instruction(seat, do, zone=zone, n=n)

    return candidates


@instruction(
    "damage",
    "402.5",
    (ZONE, N),
    "a process deals damage to a sandbox; its protection falls by that much",
    _amount_candidates("damage"),
)
def _damage(state: ZoneState, a: Instruction) -> list[Event]:
    return sandbox.damage(state, sandbox_name(a.zone), a.n if a.n is not None else 0)


@instruction(
    "raise_protection",
    "402.4",
    (ZONE, N),
    "a process raises a sandbox's protection, never above its maximum",
    _amount_candidates("raise_protection"),
)
def _raise_protection(state: ZoneState, a: Instruction) -> list[Event]:
    return sandbox.raise_protection(state, sandbox_name(a.zone), a.n if a.n is not None else 0)


def _search_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for zone in _sandboxes():
        yield Instruction(seat, "search", zone=zone)
        for card in state.zones[zone]:
            for to in _destinations():
                for at in PILES if is_pile(to) else (None,):
                    yield Instruction(seat, "search", zone=zone, card=card, to=to, at=at)


@instruction(
    "search",
    "402.7",
    (
        ZONE,
        ArgSpec("card", "card", help="the card found, if any"),
        ArgSpec("to", "zone", help="where it goes", also=ANY_SANDBOXES),
        AT,
        CLASS,
    ),
    "a process searches a sandbox, and the card found (if any) goes to a zone; then the sandbox is shuffled",
    _search_candidates,
)
def _search(state: ZoneState, a: Instruction) -> list[Event]:
    zone = sandbox_name(a.zone)
    found = card_name(state, a.card) if a.card is not None else None
    if (found is None) != (a.to is None):
        raise refuse(
            "402.7", "A search that finds a card says where it goes (card and to); one that finds none has neither."
        )
    events = sandbox.search(state, a, zone, found)
    if found is None:
        return events
    to, at = _destination(state, a.to, a.at)
    now = state
    for event in events:
        now = evolve(now, event)
    return events + move_events(now, [found], to, at, a.object_class)


def _top_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for zone in _sandboxes():
        yield Instruction(seat, "reveal_top", zone=zone)


@instruction("reveal_top", "402.3", (ZONE,), "a process turns the top card of a sandbox face up", _top_candidates)
def _reveal_top(state: ZoneState, a: Instruction) -> list[Event]:
    return sandbox.turn_top(state, sandbox_name(a.zone))


def _any_time_seats(state: ZoneState, seat: str) -> tuple[str, ...]:
    """Who counts or looks now: ``seat``; while an owner orders arriving cards
    (405.4), only the owner is asked, yet either seat may count (402.2) or
    look (405.3) at any time, so both are proposed."""
    return SEATS if state.arriving else (seat,)


def _look_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for who in _any_time_seats(state, seat):
        for zone in ZONES:
            if kind_of(zone) in SANDBOXES:
                yield Instruction(who, "look", zone=zone, instructed=True)
            elif kind_of(zone) == "decommissioned":
                yield Instruction(who, "look", zone=zone)
                yield Instruction(who, "look", zone=zone, instructed=True)


@instruction(
    "look",
    "402.2",
    (ZONE, INSTRUCTED),
    "a player looks at a zone's cards: any Decommissioned zone (405.3), a sandbox only if told to (402.2)",
    _look_candidates,
)
def _look(state: ZoneState, a: Instruction) -> list[Event]:
    zone = zone_name(state, a.zone)
    if kind_of(zone) in SANDBOXES:
        events = sandbox.look(state, a, zone)
        if state.arriving:  # a process telling a player to look waits for the order (405.4, S7)
            raise decommissioned.waiting(state)
        return events
    if kind_of(zone) == "decommissioned":
        return decommissioned.look(state, a, zone)
    raise outside(f"who may look at {zone}: chapter 4 says so only of sandboxes (402.2) and Decommissioned (405.3).")


def _count_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for who in _any_time_seats(state, seat):
        for zone in _sandboxes():
            yield Instruction(who, "count", zone=zone)


@instruction("count", "402.2", (ZONE,), "a player counts the cards left in a sandbox", _count_candidates)
def _count(state: ZoneState, a: Instruction) -> list[Event]:
    zone = zone_name(state, a.zone)
    if kind_of(zone) not in SANDBOXES:
        raise outside(f"counting {zone}: chapter 4 speaks of counting sandboxes only (402.2).")
    return sandbox.count(state, a, zone)


def _reorder_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for zone in _sandboxes():
        pile = state.zones[zone]
        if 1 < len(pile) <= MAX_ORDERED:
            for order in itertools.permutations(pile):
                yield Instruction(seat, "reorder", zone=zone, cards=order, instructed=True)


@instruction(
    "reorder",
    "402.2",
    (ZONE, ArgSpec("cards", "cards", required=True, help="the new order, top first"), INSTRUCTED),
    "a player puts a zone's cards in a new order",
    _reorder_candidates,
)
def _reorder(state: ZoneState, a: Instruction) -> list[Event]:
    zone = zone_name(state, a.zone)
    if kind_of(zone) in SANDBOXES:
        return sandbox.reorder(state, a, zone)
    if kind_of(zone) == "decommissioned":
        return decommissioned.reorder(state, zone)
    raise outside(f"reordering {zone}: chapter 4 speaks of the order of sandboxes (402.2) and Decommissioned (405.3).")


# --- personnel (404) ----------------------------------------------------------------


def _personnel_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    yield Instruction(seat, "reveal_personnel")


@instruction(
    "reveal_personnel",
    "404.1a",
    (),
    "the first player's first turn is about to begin: every personnel card turns face up",
    _personnel_candidates,
)
def _reveal_personnel(state: ZoneState, a: Instruction) -> list[Event]:
    return zones.reveal_personnel(state)


# --- Decommissioned (405) -----------------------------------------------------------


def _terminate_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for card in _movable(state):
        yield Instruction(seat, "terminate", card=card)


@instruction(
    "terminate",
    "405.2",
    (CARD, CARDS),
    "a process terminates objects on sites or personnel cards: they go to Decommissioned, terminated",
    _terminate_candidates,
)
def _terminate(state: ZoneState, a: Instruction) -> list[Event]:
    cards = _cards_of(state, a)
    for card in cards:
        decommissioned.check_terminable(state, card)
    out: list[Event] = []
    going: list[str] = []
    for card in cards:
        stays = site.partner_stays(state, card, decommissioned.zone_of(card))
        if stays is not None:
            out.append(CardStayed(rule="401.4a", card=card, asked=decommissioned.zone_of(card), reason=stays))
        else:
            going.append(card)
    return out + decommissioned.arrivals(going, "405.2a", terminated=True)


def _order_candidates(state: ZoneState, seat: str) -> Iterable[Instruction]:
    for card in state.arriving.get(seat, ()):
        yield Instruction(seat, "order", card=card)


@instruction(
    "order",
    "405.4",
    (CARD, CARDS),
    "the owner puts the next of the cards arriving at their Decommissioned zone together (405.4)",
    _order_candidates,
)
def _order(state: ZoneState, a: Instruction) -> list[Event]:
    return decommissioned.place_in_order(state, a)


__all__ = ["MAX_ORDERED", "move_events", "name"]
