"""What each person may see of a 幻想郷夢紀行 §4 match, as JSON-ready data.

§4 says nothing of who may see which zone, so the referee takes the
readings of ruling G2 and says so in the view: 山札 and 人妖の山 are face-down
piles everyone counts; 幻想, the parties, the journeys, the items and what
waits to resolve are face up; a hand is its player's. The judge sees
everything. Counts are always shown.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from projections.gensokyo.state import SEATS, ZONES, Entry, Table, kind_of, seat_of

VIEWERS = ("judge", *SEATS, "public")
ZONE_WORDS = {
    "deck": "山札",
    "character_deck": "人妖の山",
    "fantasy": "幻想",
    "hand": "hand",
    "party": "party (仲間)",
    "journey": "journey (旅路)",
    "items": "items (呪品)",
}
VISIBILITY = {
    "deck": "face down: counted, looked at by nobody (ruling:G2)",
    "character_deck": "face down: counted, looked at by nobody (ruling:G2)",
    "fantasy": "face up (ruling:G2)",
    "hand": "its player's alone; counted by everyone (ruling:G2)",
    "party": "face up, with each companion's attributes and 気力 (ruling:G2)",
    "journey": "face up (ruling:G2)",
    "items": "face up (ruling:G2)",
}
PUBLIC = ("fantasy", "party", "journey", "items")


def check_viewer(viewer: str) -> None:
    """Refuse a typo early: silently showing the judge view to "a" would leak."""
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}: expected one of {', '.join(VIEWERS)}")


def sees(state: Table, card: str, viewer: str) -> bool:
    """May ``viewer`` read ``card``'s face where it is now?"""
    if viewer == "judge":
        return True
    zone = state.where(card)
    if zone is None:
        return state.on_stack(card)  # an intervention card being used is face up
    if kind_of(zone) == "hand":
        return seat_of(zone) == viewer
    return kind_of(zone) in PUBLIC


def name_for(state: Table, card: str, viewer: str) -> str | None:
    return state.cards[card].name if card in state.cards and sees(state, card, viewer) else None


def zone_words(zone: str) -> str:
    """``A.party`` -> "A's party (仲間)"; ``deck`` -> "山札"."""
    seat = seat_of(zone)
    words = ZONE_WORDS.get(kind_of(zone), zone)
    return f"{seat}'s {words}" if seat else words


def entry_view(state: Table, e: Entry) -> dict[str, Any]:
    """One effect waiting to resolve, as everyone sees it (it is face up)."""
    out: dict[str, Any] = {
        "player": e.player,
        "kind": e.kind,
        "card": state.name(e.card) if e.card is not None else None,
        "lines": list(e.lines),
        "resolving": e.resolving,
    }
    if e.ability is not None:
        out["ability"] = e.ability
        out["timing"] = e.timing
    if e.text:
        out["text"] = e.text
    if e.resolving:
        out["line"] = e.line + 1
    if e.question is not None:
        out["question"] = {"player": e.chooser, "what": e.question, "rule": e.rule, "n": e.n}
    return out


def state_view(state: Table, viewer: str) -> dict[str, Any]:
    """The position as ``viewer`` may see it."""
    check_viewer(viewer)
    zones: dict[str, dict[str, Any]] = {}
    for zone in ZONES:
        cards = state.zones.get(zone, ())
        entry: dict[str, Any] = {
            "count": len(cards),
            "cards": [name_for(state, c, viewer) for c in cards],
            "visibility": VISIBILITY[kind_of(zone)],
        }
        if viewer == "judge":
            entry["ids"] = list(cards)
        if kind_of(zone) == "party":
            entry["attributes"] = [state.cards[c].attributes for c in cards]
            entry["ki"] = [state.ki.get(c, 0) for c in cards]
            entry["printed_ki"] = [state.cards[c].ki for c in cards]
        zones[zone] = entry
    return {
        "game": state.game,
        "event": state.position,
        "result": None,
        "zones": zones,
        "stack": [entry_view(state, e) for e in state.stack],
        "hand_max": {seat: state.maximum(seat) for seat in SEATS},
        "cannot": {seat: list(kinds) for seat, kinds in state.cannot.items()},
        "eliminated": list(state.eliminated),
        "violations": [],
        "mode": state.mode,
        **({"judge_call": state.judge_call} if state.judge_call else {}),
    }


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns as a terminal shows it (a kanji takes two)."""
    wide = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - wide)


def render_state(view: dict[str, Any]) -> str:
    """The view as text, one line per zone, then what waits to resolve."""
    lines = [f"幻想郷夢紀行 §4, event {view['event']}"]
    for zone, entry in view["zones"].items():
        names = [c if c is not None else "face-down" for c in entry["cards"]]
        if "ki" in entry:
            names = [
                f"{n} ({a or '-'}, 気力 {k}/{p})"
                for n, a, k, p in zip(names, entry["attributes"], entry["ki"], entry["printed_ki"])
            ]
        label = f"{zone} ({ZONE_WORDS[zone]})" if zone in ZONE_WORDS else zone
        lines.append(f"  {_pad(label, 26)} {entry['count']:>2}  {', '.join(names) or '-'}")
    for seat, kinds in view["cannot"].items():
        lines.append(f"  {seat} cannot: {', '.join(kinds)} (4-1d)")
    for seat, n in view["hand_max"].items():
        if n != 10:
            lines.append(f"  {seat}'s hand maximum: {n} (4-6a)")
    if view["eliminated"]:
        lines.append(f"  dropped out (4-5f): {', '.join(view['eliminated'])}")
    if view["stack"]:
        lines.append("  waiting to resolve (4-5b: the last one first):")
        for i, e in enumerate(view["stack"], start=1):
            what = e.get("ability") or e.get("card") or e.get("text") or e["kind"]
            source = f" of {e['card']}" if e.get("ability") else ""
            state = f", resolving line {e['line']}" if e["resolving"] else ""
            lines.append(f"    {i}. {e['player']}: {e['kind']} {what}{source}{state}")
    return "\n".join(lines)
