"""What the rules say about a position for people: current values and how
they were reached, each card's abilities, and what is on the agenda.

``projections.views`` decides what each viewer may see (rule 215); these
functions add what only the rules know (the characteristics function, the
agenda's meaning), for ``referee state``, ``referee legal`` and the board.
"""

from __future__ import annotations

from typing import Any

from events.abilities import SITUATIONS, effect_key, walk
from projections.state import GameState, Proposal, Use, Window, other
from projections.visibility import UNKNOWN, card_name
from referee.rules.harem_master.characteristics import chars, hand_maximum, has_text
from referee.rules.harem_master.common import name_of
from referee.rules.harem_master.effects import groups


def ability_text(ability: Any) -> str:
    """A short line for one ability: its kind, cost or situation, its effects."""
    effects = ", ".join(dict.fromkeys(effect_key(e) for e in walk(list(ability.effects))))
    if ability.kind == "activated":
        head = f"activated {ability.cost}" + (" [OT]" if ability.ot else "")
    elif ability.kind == "triggered":
        head = f"triggered {'before' if ability.timing == 'before' else 'after'} {ability.on.event}"
    elif ability.kind == "replacement":
        head = f"replacement instead of {ability.instead_of.event}"
    else:
        head = ability.kind
    if getattr(ability, "only", None) is not None:
        head += f", only at {ability.only.event}"
    if getattr(ability, "also", None) is not None:
        head += f", also at {ability.also.event}"
    if getattr(ability, "zone", "field") != "field":
        head += f", from the {ability.zone.replace('_', ' ')}"
    return f"{head}: {effects}"


def character(state: GameState, card: str) -> dict[str, Any]:
    """A character's current name and values, how each was reached
    (``physical 4 = 2 printed +2 Fencing Master until end of turn``), and its abilities."""
    c = chars(state, card)
    out: dict[str, Any] = {"card": c.name, "physical": c.physical, "mental": c.mental}
    explain = {}
    for key in ("physical", "mental"):
        parts = list(c.notes.get(key, ()))
        if len(parts) > 1 or (parts and "printed" not in parts[0]):
            explain[key] = f"{getattr(c, key)} = " + " ".join(parts)
    if explain:
        out["explain"] = explain
    if c.abilities:
        out["abilities"] = [ability_text(a) for a in c.abilities]
    if c.name != state.cards[card].name:
        out["printed_name"] = state.cards[card].name
    return out


def _shown(state: GameState, card: str) -> str:
    """A card whose ability was used or triggered: shown to everyone (402, 403;
    see ``projections.visibility``), unless nobody knows it yet."""
    return UNKNOWN if card in state.unknown else name_of(state, card)


def agenda(state: GameState, viewer: str = "judge") -> dict[str, Any] | None:
    """The agenda for people, as ``viewer`` may know it (215): what waits to
    resolve, open windows, fired triggers, continuous effects and carried
    triggers (None when all empty). The cards whose abilities these are were
    shown when used or triggered; any other card is named only where the
    viewer sees it (``projections.visibility.card_name``)."""
    if not (state.agenda or state.triggers or state.effects or state.carried):
        return None
    rows = []
    for entry in reversed(state.agenda):  # the top first
        rows.append({"id": entry.id, "kind": type(entry).__name__.lower(), "text": _entry_text(state, entry, viewer)})
    out: dict[str, Any] = {"agenda": rows}
    out["triggers"] = [
        {"id": t.id, "player": t.player, "card": _shown(state, t.card), "ability": t.ability,
         "situation": t.situation}
        for t in state.triggers
    ]
    out["effects"] = [_effect_text(state, e, viewer) for e in state.effects]
    out["carried"] = [{"player": c.player, "card": _shown(state, c.card), "ability": c.ability} for c in state.carried]
    if has_text(state):
        out["hand_max"] = {p: hand_maximum(state, p) for p in ("A", "B")}
    return out


def _entry_text(state: GameState, entry: Any, viewer: str) -> str:
    if isinstance(entry, Use):
        what = {"event": "event", "activated": "ability", "triggered": "triggered ability",
                "replacement": "replacement"}[entry.kind]
        text = f"{entry.player}'s {what} of {_shown(state, entry.card)} (event {entry.id})"
        if entry.countered:
            text += ", countered"
        elif entry.stage == "resolving":
            steps = len(groups(entry.effects))
            text += f", resolving step {entry.group + 1} of {steps}"
        else:
            text += ", waiting to resolve"
        if entry.about is not None:
            text += f", in response to event {entry.about}"
        return text
    if isinstance(entry, Window):
        about = f"event {entry.about}" if entry.about is not None else SITUATIONS.get(entry.situation or "", "")
        kind = "changes of the battle type (306.5h)" if entry.kind == "battle_type" else f"responses to {about} (407.3)"
        turn = other(entry.first) if entry.passes == 1 and entry.last == entry.first else entry.first
        return f"a window for {kind}: {turn} to act, {entry.passes} pass(es) in a row"
    if isinstance(entry, Proposal):
        it = f" of {card_name(state, entry.it, viewer)}" if entry.it else ""
        return f"the moment before {SITUATIONS.get(entry.situation, entry.situation)}{it} (event {entry.id})"
    return str(entry)


def _effect_text(state: GameState, e: Any, viewer: str) -> dict[str, Any]:
    until = {"end_of_turn": "until end of turn", "end_of_battle": "until end of battle"}.get(e.until or "", "")
    target = card_name(state, e.target, viewer) if e.target else None
    if e.kind == "modify":
        what = ", ".join(f"{v:+d} {k}" for k, v in zip(("physical", "mental", "random"), e.values) if v)
    elif e.kind == "copy":
        what = f"copy of {card_name(state, e.values[0], viewer)}"
    elif e.kind == "gain":
        what = f"gains {len(e.values)} ability(ies)"
    elif e.kind == "lose":
        what = "loses its abilities"
    elif e.kind == "control":
        what = f"controlled by {e.values[0]}"
    elif e.kind == "hand_max":
        what = f"{e.values[0]}'s hand maximum " + (f"is {e.values[1]}" if e.values[1] is not None else f"{e.values[2]:+d}")
    else:
        what = "no random number"
    return {"id": e.id, "source": _shown(state, e.source), "target": target, "effect": what, "until": until}


def cost_of(state: GameState, action: Any) -> str | None:
    """What an action costs, as the card prints it: ``[T][1]``, ``2``, ``1 + n=2``."""
    card = action.card
    if card is None or card not in state.cards:
        return None
    if action.do == "activate":
        from referee.rules.harem_master.abilities import activated

        for i, a in activated(state, card):
            if action.ability in (None, i):
                return a.cost + (f" n={action.n}" if action.n is not None else "")
        return None
    if action.do in ("play_character", "play_event", "play_item"):
        cost = str(state.cards[card].cost)
        return cost + (f" + n={action.n}" if action.n is not None else "")
    return None
