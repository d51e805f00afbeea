"""The position as each viewer may see it, with the values the rules compute.

``projections.harem_master.views`` hides what rule 215 hides (``projections.harem_master.visibility``
says who may know which card); card text changes names and values, which
only the rules can read, so every command and page that shows a position
asks here: the same view with current values explained and the agenda, and
the decision in front of the table with its legal actions.
"""

from __future__ import annotations

from typing import Any

from projections.harem_master.state import GameState
from projections.harem_master.views import VIEWERS, check_viewer, render_state, result_json, state_view as _state_view


def state_view(state: GameState, viewer: str) -> dict[str, Any]:
    """The JSON of ``referee state --json`` for ``viewer``."""
    from referee.rules.harem_master.describe import agenda, character

    return _state_view(state, viewer, reader=character, agenda=agenda)


def decision_view(state: GameState, viewer: str) -> dict[str, Any] | None:
    """Whose decision it is and what they must do (None: nobody's), with the
    legal actions for those who may read them: the judge and the deciding
    player, each card named as that viewer may know it (215). A table-dealt
    match's reveal says what the table turned and why (``reveal``)."""
    from referee.rules.harem_master.engine import current_decision
    from referee.rules.harem_master.hidden import pending
    from referee.rules.harem_master.notation import describe_action
    from referee.rules.harem_master.procedure import game
    from referee.rules.harem_master.registry import KINDS

    check_viewer(viewer)
    decision = current_decision(state) if state.position else None
    if decision is None:
        return None
    shown = viewer == "judge" or viewer == decision.player
    text = KINDS[decision.kind].text if decision.kind in KINDS else decision.kind
    out: dict[str, Any] = {"player": decision.player, "kind": decision.kind}
    if decision.kind == "reveal":  # a table-dealt match: say what the table turned and why
        found = pending(state)
        if found is not None:
            text += f": {found.why}"
            out["reveal"] = {"player": found.player, "rule": found.rule, "why": found.why, "at_most": found.count}
    out["text"] = text
    out["actions"] = [describe_action(state, a, viewer) for a in game().legal_actions(state)] if shown else None
    return out


def names_in_view(view: dict[str, Any]) -> list[str]:
    """Every card name a view shows (its piles, characters and items): the
    names its viewer may read, so the only ones whose text it may carry."""
    names: list[str] = []
    for ch in view.get("characters", ()):
        for name in (ch.get("card"), ch.get("printed_name"), *(ch.get("items") or ())):
            if name:
                names.append(name)
    for zone in view.get("zones", {}).values():
        names += [c for c in zone.get("cards") or () if c]
    return names


def card_texts(state: GameState, names: Any) -> dict[str, dict[str, Any]]:
    """Printed text and abilities in words of the cards ``names`` names
    (``referee.rules.harem_master.describe.card_text``): what `state --json`,
    `legal --json` and the board show on a tap."""
    from referee.rules.harem_master.describe import cards_named

    return cards_named(state, sorted(set(names)))


def action_names(actions: list[dict[str, Any]]) -> list[str]:
    """The card names of described actions (``notation.describe_action``)."""
    names: list[str] = []
    for a in actions:
        names += [a[k] for k in ("card", "target") if k in a]
        names += [c for k in ("cards", "targets") for c in a.get(k, ())]
    return names


__all__ = [
    "VIEWERS",
    "action_names",
    "card_texts",
    "check_viewer",
    "decision_view",
    "names_in_view",
    "render_state",
    "result_json",
    "state_view",
]
