"""What each person may see of an SCP-TCG chapter-4 match, as JSON-ready data.

Chapter 4 says who may see a zone in a few places, and the view follows
exactly those: nobody looks into a sandbox but anyone counts it (402.2), a
sandbox card turned face up shows (402.3), the Tale zone is face down
(403.1), a personnel card is face down until 404.1a turns it, anyone looks
at any Decommissioned zone (405.3). Where chapter 4 is silent the referee
takes the readings of docs/rulings.md (S1, S3, S5) and says so in the view:
each zone carries the rule its visibility rests on. No zone is known to its
owner alone, so the two seats and the public see the same; the judge sees
everything. Counts are always shown.
"""

from __future__ import annotations

from typing import Any

from projections.scp_tcg.state import (
    INITIAL_PROTECTION,
    SANDBOXES,
    SEATS,
    ZONES,
    ZoneState,
    kind_of,
)

VIEWERS = ("judge", "A", "B", "public")

VISIBILITY = {
    "site": "face up (ruling:S1)",
    "sandbox": "402.2: face down, nobody looks, anyone counts; 402.3: a card turned face up shows",
    "tale": "403.1: face down",
    "personnel": "404.1a: face down at the start, face up from before the first player's first turn",
    "decommissioned": "405.3: anyone may look, nobody may reorder",
    "outside": "406: chapter 4 does not say who may see it; counted, not shown (ruling:S5)",
}


def check_viewer(viewer: str) -> None:
    """Refuse a typo early: silently showing the judge view to "a" would leak."""
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}: expected one of {', '.join(VIEWERS)}")


def sees(state: ZoneState, card: str, viewer: str) -> bool:
    """May ``viewer`` read ``card``'s face where it is now?"""
    if viewer == "judge":
        return True
    where = state.place(card)
    if where is None:
        return False
    if where.arriving or where.host is not None:
        return True  # on its way to a public zone (405.3); stacked face up (ruling:S3)
    kind = kind_of(where.zone or "")
    if kind in SANDBOXES:
        return card in state.face_up
    if kind == "personnel":
        return card not in state.face_down
    return kind in ("site", "decommissioned")


def place_words(state: ZoneState, card: str) -> str | None:
    """Where ``card`` lies, in words anyone may read (the order of a face-down
    pile is no secret, its faces are): ``A.keter #2`` (a pile counts from
    its top, a site from its first card), ``#1 above A.site #1`` (401.5,
    nearest first), ``#2 arriving at A.decommissioned`` (405.4). Two cards
    nobody may read are told apart so, and their ids are not needed."""
    where = state.place(card)
    if where is None:
        return None
    if where.zone is not None:
        return f"{where.zone} #{state.zones[where.zone].index(card) + 1}"
    if where.host is not None:
        host = place_words(state, where.host)
        side = state.above if where.side == "above" else state.below
        return f"#{side[where.host].index(card) + 1} {where.side} {host or where.host}"
    for seat, cards in state.arriving.items():
        if card in cards:
            return f"#{cards.index(card) + 1} arriving at {seat}.decommissioned"
    return None


def _visibility(kind: str) -> str:
    return VISIBILITY["sandbox" if kind in SANDBOXES else kind]


def name_for(state: ZoneState, card: str, viewer: str) -> str | None:
    """The card's name if ``viewer`` may read it, else None."""
    return state.cards[card].name if sees(state, card, viewer) and card in state.cards else None


def state_view(state: ZoneState, viewer: str) -> dict[str, Any]:
    """The position as ``viewer`` may see it."""
    check_viewer(viewer)
    zones: dict[str, dict[str, Any]] = {}
    for zone in ZONES:
        cards = state.zones[zone]
        entry: dict[str, Any] = {
            "count": len(cards),
            "cards": [name_for(state, c, viewer) for c in cards],
            "visibility": _visibility(kind_of(zone)),
        }
        if viewer == "judge":
            entry["ids"] = list(cards)
        if kind_of(zone) in SANDBOXES:
            cls = SANDBOXES[kind_of(zone)]
            entry["protection"] = state.protection(zone)
            entry["maximum"] = INITIAL_PROTECTION[cls]
        if kind_of(zone) == "decommissioned":
            entry["terminated"] = [c in state.terminated for c in cards]
        zones[zone] = entry
    stacks = []
    for seat in SEATS:
        for host in state.zones[f"{seat}.site"]:
            if state.stacked(host):
                stacks.append(
                    {
                        "host": name_for(state, host, viewer),
                        "above": [name_for(state, c, viewer) for c in state.above.get(host, ())],
                        "below": [name_for(state, c, viewer) for c in state.below.get(host, ())],
                    }
                )
    return {
        "game": state.game,
        "event": state.position,
        "result": None,
        "zones": zones,
        "objects": {seat: [name_for(state, c, viewer) for c in state.objects(seat)] for seat in SEATS},
        "partners": sorted(name_for(state, c, viewer) or "?" for c in state.partners),
        "stacked": stacks,
        "arriving": {seat: [name_for(state, c, viewer) for c in cards] for seat, cards in state.arriving.items()},
        "breaches": list(state.breaches),
        "violations": [],
        "mode": state.mode,
        **({"judge_call": state.judge_call} if state.judge_call else {}),
    }


def render_state(view: dict[str, Any]) -> str:
    """The view as text, one line per zone."""
    lines = [f"SCP-TCG chapter 4 (zones), event {view['event']}"]
    for zone, entry in view["zones"].items():
        shown = ", ".join(c if c is not None else "face-down" for c in entry["cards"]) or "-"
        extra = f"  protection {entry['protection']}/{entry['maximum']}" if "protection" in entry else ""
        lines.append(f"  {zone:<18} {entry['count']:>2}  {shown}{extra}")
    for stack in view["stacked"]:
        lines.append(f"  on {stack['host']}: above {stack['above'] or '-'}, below {stack['below'] or '-'}")
    for seat, cards in view["arriving"].items():
        lines.append(f"  arriving at {seat}.decommissioned (405.4): {', '.join(c or '?' for c in cards)}")
    if view["breaches"]:
        lines.append(f"  breached (402.6b): {', '.join(view['breaches'])}")
    return "\n".join(lines)
