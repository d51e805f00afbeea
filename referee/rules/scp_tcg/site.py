"""401: the site, control, the partner object, and cards stacked on site cards.

- 401.1: a player's objects are on their site; the mat shows six slots, but
  seven or more objects are allowed (no limit is checked).
- 401.2: a player controls the objects on their site; gaining control of an
  object is moving it onto your own site.
- 401.3: "an object" in card text means an object card on a site only.
- 401.4: the partner object is on its owner's site like any other; 401.4a:
  it never leaves that site (a process that would move it leaves it there);
  401.4b: its controller is always its owner.
- 401.5: a process may put a card above or below a card on a site;
  401.5a: such a card is on that card, not on the site, so even an object
  card there is not an object and cannot be cross tested; 401.5b: it is
  still in the Foundation and processes may affect it; 401.5c: when the
  card it is on leaves the site, it goes to Decommissioned at once, off the
  chain. A card moved from one site to the other has not left "the site", so
  what is on it stays on it (docs/rulings.md, S2).

A card that is not an object card has no place on a site in chapter 4
(401.1 speaks of objects only): a process sending one there is outside what
chapter 4 decides.
"""

from __future__ import annotations

from events.kernel import Event
from events.scp_tcg.zones import CardMoved, CardStacked, CardStayed
from projections.scp_tcg.state import ZoneState, kind_of, owner, seat_of
from referee.rules.scp_tcg import decommissioned
from referee.rules.scp_tcg.common import Instruction, name, outside, refuse


def own_site(card: str) -> str:
    return f"{owner(card)}.site"


def partner_stays(state: ZoneState, card: str, asked: str) -> str | None:
    """401.4a: the reason a partner object stays where it is, if ``asked`` is not its own site."""
    if card in state.partners and asked != own_site(card):
        return f"{name(state, card)} is {owner(card)}'s partner object, which never leaves its own site (401.4a)."
    return None


def check_site_card(state: ZoneState, card: str, asked: str) -> None:
    """A card that is not an object card sent to a site: chapter 4 does not say (401.1)."""
    if state.cards[card].type != "object":
        raise outside(
            f"{name(state, card)} is a {state.cards[card].type} card; a site holds objects (401.1), and "
            "chapter 4 does not say what becomes of another card sent there."
        )


def gain_control(state: ZoneState, a: Instruction, card: str) -> list[Event]:
    """401.2: ``a.player`` gains control of an object: it moves onto their site.
    401.4b: a partner stays its owner's, and on its owner's site (401.4a)."""
    player = a.player or ""
    where = state.on_site(card)
    if where is None:
        place = state.place(card)
        at = f"stacked on {name(state, place.host)}" if place is not None and place.host else "on no site"
        raise refuse("401.3", f"{name(state, card)} is {at}, so it is not an object (401.3): nobody controls it.")
    if state.cards[card].type != "object":
        raise refuse("401.3", f"{name(state, card)} is not an object card (401.3).")
    if seat_of(where) == player:
        raise refuse("401.2", f"{player} already controls {name(state, card)}: it is on their site (401.2).")
    mine = f"{player}.site"
    if card in state.partners:
        reason = f"{name(state, card)} is {owner(card)}'s partner object: its controller is always its owner (401.4b)."
        return [CardStayed(rule="401.4b", card=card, asked=mine, reason=reason)]
    return [CardMoved(rule="401.2", card=card, to=mine)]


def stack(state: ZoneState, card: str, host: str, side: str) -> list[Event]:
    """401.5: ``card`` goes above or below ``host``, a card on a site."""
    if state.on_site(host) is None:
        place = state.place(host)
        at = f"stacked on {name(state, place.host)}" if place is not None and place.host else "not on a site"
        raise refuse("401.5", f"Cards are stacked on a card on a site (401.5); {name(state, host)} is {at}.")
    if card == host:
        raise refuse("401.5", f"{name(state, card)} cannot be stacked on itself.")
    if side not in ("above", "below"):
        raise refuse("401.5", f"A card goes above or below a site card (401.5), not {side!r}.")
    site = state.on_site(host) or ""
    if card in state.partners:
        reason = f"{name(state, card)} is {owner(card)}'s partner object, which never leaves its own site (401.4a)."
        return [CardStayed(rule="401.4a", card=card, asked=site, reason=reason)]
    if host in state.stacked(card) and state.on_site(card) is not None:
        raise refuse("401.5", f"{name(state, host)} lies on {name(state, card)}: it cannot carry it.")
    return [CardStacked(card=card, host=host, side=side)]  # type: ignore[arg-type]  # side checked above


def cross_test(state: ZoneState, card: str) -> list[Event]:
    """401.5a: a card stacked on a site card is no object and cannot be cross
    tested; 401.3: neither can any card off the sites. What a cross test of
    an object does is not chapter 4's."""
    place = state.place(card)
    if place is not None and place.host is not None:
        raise refuse(
            "401.5a",
            f"{name(state, card)} is {place.side} {name(state, place.host)}, not on the site: "
            "it is not an object and cannot be cross tested (401.5a).",
        )
    if place is None or place.zone is None or kind_of(place.zone) != "site":
        where = place.zone if place is not None and place.zone else "no zone"
        raise refuse("401.3", f"{name(state, card)} is in {where}: only object cards on a site are objects (401.3).")
    raise outside("what a cross test is and does (chapter 4 only says who cannot be cross tested, 401.5a).")


def freed_stacks(state: ZoneState) -> list[Event] | None:
    """401.5c: the cards on a card that has left the site go to
    Decommissioned at once; None when no host has left."""
    for table in (state.above, state.below):
        for host in table:
            if state.on_site(host) is None:
                cards = list(state.above.get(host, ())) + list(state.below.get(host, ()))
                return decommissioned.arrivals(cards, "401.5c")
    return None
