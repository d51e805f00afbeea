"""400 (zones in general), 403 (Tale), 404 (personnel), 406 (outside the game): where a card ends up.

- 400.1: every player has a site, three sandboxes, a Tale zone, a personnel
  zone, a Decommissioned zone and a zone outside the game.
- 400.2: a zone other than a site holds only its owner's cards; a card a
  process sends to another player's such zone goes to its owner's.
- 400.3: the Foundation (財団) is every zone of both players but
  Decommissioned and outside the game (``ZoneState.in_foundation``).
- 403.1: the Tale zone holds face-down Tale and Incident cards; 403.2: any
  other card sent there stays where it was.
- 404.1: the personnel zone holds a personnel card; 404.1a: face down at
  the start, it turns face up before the first player's first turn;
  404.1b: it holds one card at most (another sent there stays where it
  was); 404.2: only a personnel card goes there (another stays).
- 406.1: a process may put cards outside the game; 406.2: moving a card
  there from any zone is exiling (除外) it.

``route`` answers "where does this card go?" for every zone, with the
checks of 401 (``site``), 402 (``sandbox``) and 405 (``decommissioned``):
the kind of zone first (a card that may never be in that kind of zone stays
where it was), then its owner (400.2), then whether that zone has room
(404.1b). docs/rulings.md (S10, S11) says why in that order, and S12 where in a pile.
"""

from __future__ import annotations

from typing import NamedTuple

from events.kernel import Event
from events.scp_tcg.zones import PersonnelRevealed
from projections.scp_tcg.state import SANDBOXES, SEATS, ZoneState, kind_of, owner, seat_of
from referee.rules.scp_tcg import decommissioned, sandbox, site
from referee.rules.scp_tcg.common import ANY_SANDBOX, name, refuse

DESTINATION_RULE = {"site": "401.2", "tale": "403.1", "personnel": "404.1", "outside": "406.1"}


class Route(NamedTuple):
    """Where a card a process moves ends up: ``to`` (None: it stays where it
    was, for ``reason``), the rule that decides, and the rules that sent it
    somewhere other than the zone the process named."""

    to: str | None
    rule: str
    redirected_by: tuple[str, ...] = ()
    reason: str = ""


def owners_zone(card: str, asked: str) -> tuple[str, list[str]]:
    """400.2: the owner's zone of ``asked``'s kind (a site is anyone's)."""
    kind = kind_of(asked)
    if kind == "site" or seat_of(asked) == owner(card):
        return asked, []
    return f"{owner(card)}.{kind}", ["400.2"]


def route(state: ZoneState, card: str, asked: str, given: str | None = None) -> Route:
    """Where ``card`` goes when a process sends it to ``asked`` (a zone, or
    ``A.sandbox`` for "a sandbox", 402.1a; ``given`` is the class an effect
    gives an object, 402.1c). Refuses what chapter 4 does not decide
    (another card than an object to a site) and a move to where the card
    already is."""
    stays = site.partner_stays(state, card, asked)
    if stays is not None:
        return Route(None, "401.4a", (), stays)
    kind = kind_of(asked)
    cd = state.cards[card]
    redirected: list[str] = []
    if given is not None and kind not in SANDBOXES and kind != ANY_SANDBOX:
        raise refuse(
            "402.1c",
            f"object_class is the class an effect gives an object going into a sandbox (402.1c), not into {asked}.",
        )
    if kind in SANDBOXES or kind == ANY_SANDBOX:
        zone, redirected, reason = sandbox.route(state, card, asked, given)
        if zone is None:
            return Route(None, "402.1b", (), reason or "")
        rule = "402.1c"
    elif kind == "site":
        site.check_site_card(state, card, asked)
        zone, rule = asked, "401.2"
    elif kind == "tale" and cd.type not in ("tale", "incident"):
        return Route(None, "403.2", (), f"{cd.name} is neither a Tale nor an Incident card (403.2).")
    elif kind == "personnel" and cd.type != "personnel":
        return Route(None, "404.2", (), f"{cd.name} is not a personnel card (404.2).")
    else:
        zone = asked
        rule = decommissioned.arrival_rule(state, card) if kind == "decommissioned" else DESTINATION_RULE[kind]
    zone, by_owner = owners_zone(card, zone)
    redirected = by_owner + redirected
    where = state.place(card)
    here = where.zone if where is not None else None
    if zone == here and kind_of(zone) not in SANDBOXES:
        if redirected:
            return Route(None, redirected[0], (), f"its owner's zone is {zone}, where it is already (400.2).")
        if kind_of(zone) == "decommissioned":
            raise refuse("405.3", f"{name(state, card)} is in {zone} already, whose order nobody changes (405.3).")
        raise refuse("400.1", f"{name(state, card)} is in {zone} already.")
    if kind_of(zone) == "personnel" and state.zones[zone]:
        held = state.zones[zone][0]
        return Route(
            None, "404.1b", (), f"{zone} holds {name(state, held)} already, and holds one card at most (404.1b)."
        )
    return Route(zone, redirected[0] if redirected else rule, tuple(redirected))


def exile_route(state: ZoneState, card: str) -> Route:
    """406.2: exiling puts a card outside the game, its owner's (400.2)."""
    stays = site.partner_stays(state, card, f"{owner(card)}.outside")
    if stays is not None:
        return Route(None, "401.4a", (), stays)
    zone = f"{owner(card)}.outside"
    where = state.place(card)
    if where is not None and where.zone == zone:
        raise refuse("406.2", f"{name(state, card)} is outside the game already.")
    return Route(zone, "406.2")


def reveal_personnel(state: ZoneState) -> list[Event]:
    """404.1a: before the first player's first turn every face-down personnel card turns face up."""
    out: list[Event] = []
    for seat in SEATS:
        for card in state.zones[f"{seat}.personnel"]:
            if card in state.face_down:
                out.append(PersonnelRevealed(player=seat, card=card))
    if not out:
        raise refuse("404.1a", "No personnel card is face down: 404.1a has turned them face up already.")
    return out
