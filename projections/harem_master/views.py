"""What each person at the table may see (rule 215), as plain JSON-ready data.

A judge sees everything; a player sees their own hand but no castle or
action-cost stack faces (215.2, 215.4: nobody may look at those, not even the
owner), and neither player sees the other's hand (215.3) nor the opponent's
face-down opening character before 101.6. Anyone may count any pile, so every
view gives every count. Who may read which place is
``projections.harem_master.visibility`` (the one function every output asks);
``state_view`` returns the shape of ``referee state --json`` (spec/cli.md)
and ``render_state`` prints it for people.
"""

from __future__ import annotations

from typing import Any, Callable

from events.names import stored_as
from projections.harem_master.state import PILES, PLAYERS, Character, GameState
from projections.harem_master.visibility import VIEWERS, check_viewer, sees_character, sees_pile

FACE_DOWN = "face-down"  # shown in place of a card name nobody in this view may read


def result_json(state: GameState) -> dict[str, Any] | None:
    """The result as data (null while the game goes on), as every --json prints it."""
    r = state.result
    if r is None:
        return None
    return {
        "winner": r.winner,
        "draw": r.draw,
        "rule": r.rule,
        "ruling": r.ruling,
        "scores": dict(r.scores) if r.scores is not None else None,
        "reason": r.reason,
    }


Reader = Callable[[GameState, str], dict[str, Any]]


def _character(state: GameState, ch: Character, viewer: str, reader: Reader | None) -> dict[str, Any]:
    cards = state.cards
    if not sees_character(viewer, ch):
        # Even the instance id is withheld: the first event maps ids to names.
        return {
            "card": None,
            "id": None,
            "controller": ch.controller,
            "ready": ch.ready,
            "face_down": True,
            "items": [],
        }
    cd = cards.get(ch.card)
    out: dict[str, Any] = {
        "card": cd.name if cd is not None else ch.card,
        "id": ch.card,
        "controller": ch.controller,
        "ready": ch.ready,
        "physical": cd.physical if cd is not None else None,
        "mental": cd.mental if cd is not None else None,
        "items": [_name(state, i) for i in ch.items],
        "face_down": ch.face_down,
    }
    if reader is not None and cd is not None:
        out.update(reader(state, ch.card))  # the current name and values, and how they were reached
    return out


UNKNOWN = "?"  # a table-dealt match's card nobody has revealed


def _name(state: GameState, card: str) -> str:
    if card in state.unknown:
        return UNKNOWN
    cd = state.cards.get(card)
    return cd.name if cd is not None else card


def state_view(
    state: GameState, viewer: str, reader: Reader | None = None, agenda: Callable[[GameState, str], Any] | None = None
) -> dict[str, Any]:
    """The position as ``viewer`` may see it: the JSON of ``referee state --json``.

    Current values need the rules (card text changes them): ``reader`` gives
    a character's current name and values and how they were reached, and
    ``agenda`` what waits to resolve, as ``viewer`` may know it; the referee
    passes its own (``referee.rules.harem_master.views``). Without them the values are the
    printed ones."""
    check_viewer(viewer)
    waiting = agenda(state, viewer) if agenda is not None else None
    zones: dict[str, dict[str, Any]] = {}
    for player in PLAYERS:
        z = state.zones[player]
        for pile in PILES:
            cards = getattr(z, pile)
            zones[f"{player}.{pile}"] = {
                "count": len(cards),
                "cards": [_name(state, c) for c in cards] if sees_pile(viewer, player, pile) else None,
            }
    for player in PLAYERS:
        mine = [ch for ch in state.field if ch.controller == player]
        zones[f"{player}.field"] = {
            "count": len(mine),
            "cards": [_name(state, ch.card) if sees_character(viewer, ch) else None for ch in mine],
        }
    return {
        "event": state.position,
        "turn": state.turn,
        "active": state.active,
        "step": state.step,
        "result": result_json(state),
        "zones": zones,
        "characters": [_character(state, ch, viewer, reader) for ch in state.field],
        "violations": [
            {"position": v.position, "rule": v.rule, "player": v.player, "reason": v.reason} for v in state.violations
        ],
        "mode": state.mode,
        "draw_offer": state.draw_offer,
        **({"judge_call": state.judge_call} if state.judge_call else {}),
        **(_table(state, viewer) if state.deal == "table" else {}),
        **({"agenda": waiting} if waiting is not None else {}),
    }


def _table(state: GameState, viewer: str) -> dict[str, Any]:
    """A table-dealt match: the deal, and for the judge the names each deck
    list still has unaccounted for (one per unknown card, 100.2; a card the
    table showed that the list lacks leaves the name it stood for here,
    in no zone, ruling A35)."""
    out: dict[str, Any] = {"deal": "table"}
    if viewer == "judge":
        left: dict[str, dict[str, int]] = {}
        for player in PLAYERS:
            counts: dict[str, int] = {}
            for c in state.unknown:
                if c[0] == player:
                    name = state.cards[c].name
                    counts[name] = counts.get(name, 0) + 1
            left[player] = dict(sorted(counts.items()))
        out["unaccounted"] = left
    return out


# --- for people ------------------------------------------------------------------

_PILE_LABELS = {
    "castle": "castle",
    "hand": "hand",
    "action_stack": "stack",
    "discard": "discard",
    "harem": "harem",
    "execution": "execution",
    "side": "side",
}


def _value(n: int | None) -> str:
    return "?" if n is None else str(n)


SHOWN_PER_PILE = 8  # a 40-card discard pile in full would bury the rest of the table


def _pile_line(label: str, zone: dict[str, Any]) -> str:
    count = zone["count"]
    cards = zone["cards"]
    if cards is None:
        shown = "(hidden)" if count else ""
    else:
        shown = ", ".join(c if c is not None else FACE_DOWN for c in cards[:SHOWN_PER_PILE])
        if len(cards) > SHOWN_PER_PILE:
            shown += f", ... ({len(cards) - SHOWN_PER_PILE} more)"
    return f"    {label:<10}{count:>3}  {shown}".rstrip()


def render_state(view: dict[str, Any]) -> str:
    """A compact table a judge reads at a glance; hidden faces stay hidden."""
    lines: list[str] = []
    lines.append(f"Event {view['event']}  turn {view['turn']}  active {view['active'] or '-'}  step {view['step']}")
    result = view.get("result")
    if result is not None:
        if result["draw"]:
            outcome = "draw"
        else:
            outcome = f"{result['winner']} wins"
        cite = result["rule"] + (f" ruling:{result['ruling']}" if result.get("ruling") else "")
        text = f"Result: {outcome} ({cite})"
        if result.get("scores"):
            text += "; scores " + ", ".join(f"{p} {s}" for p, s in result["scores"].items())
        if result.get("reason"):
            text += f"; {result['reason']}"
        lines.append(text)
    if view.get("draw_offer"):
        lines.append(f"Draw offered by {view['draw_offer']} (102.8)")
    zones = view["zones"]
    characters = view["characters"]
    for player in PLAYERS:
        lines.append(f"  {player}")
        for pile in PILES:
            lines.append(_pile_line(_PILE_LABELS[pile], zones[f"{player}.{pile}"]))
        mine = [ch for ch in characters if ch["controller"] == player]
        lines.append(f"    {'field':<10}{len(mine):>3}")
        for ch in mine:
            state = "ready " if ch["ready"] else "tapped"
            if ch["card"] is None:
                lines.append(f"      {state}  {FACE_DOWN}")
                continue
            name = ch["card"] + (f" [{ch['id']}]" if ch.get("id") else "")
            if ch.get("face_down"):
                name += f" ({FACE_DOWN})"
            values = f"P{_value(ch.get('physical'))} M{_value(ch.get('mental'))}"
            items = f"  items: {', '.join(ch['items'])}" if ch["items"] else ""
            lines.append(f"      {state}  {name:<28} {values}{items}")
            for key, text in (ch.get("explain") or {}).items():
                lines.append(f"          {key} {text}")
            for text in ch.get("abilities") or ():
                lines.append(f"          - {text}")
    agenda = view.get("agenda")
    if agenda:
        for row in agenda.get("agenda", []):
            lines.append(f"Agenda: {row['text']}")
        for t in agenda.get("triggers", []):
            lines.append(f"Triggered, waiting: {t['player']}'s {t['card']} ability {t['ability']} ({t['situation']})")
        for e in agenda.get("effects", []):
            on = f" on {e['target']}" if e.get("target") else ""
            lines.append(f"Effect: {e['source']}{on}: {e['effect']}" + (f" {e['until']}" if e.get("until") else ""))
        for c in agenda.get("carried", []):
            lines.append(f"Carried to the next turn's end (308.1): {c['player']}'s {c['card']} ability {c['ability']}")
    for player, left in (view.get("unaccounted") or {}).items():
        total = sum(left.values())
        names = ", ".join(f"{n} x{k}" if k > 1 else n for n, k in left.items())
        lines.append(f"Unaccounted for in {player}'s deck list ({total} unknown cards, 100.2): {names or 'none'}")
    for v in view.get("violations") or []:
        lines.append(
            f"OPEN VIOLATION ({v['rule']}) at event {v['position']}: {v['reason'].rstrip('.')} (a judge must rule)"
        )
    return "\n".join(lines)


__all__ = [
    "FACE_DOWN",
    "SHOWN_PER_PILE",
    "UNKNOWN",
    "VIEWERS",
    "check_viewer",
    "render_state",
    "result_json",
    "sees_character",
    "sees_pile",
    "state_view",
]


stored_as(__name__, "projections.views")  # as they were first stored (``events.names``)
