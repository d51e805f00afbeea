"""The position as each viewer may see it, with the values the rules compute.

``projections.views`` hides what rule 215 hides; card text changes names
and values, which only the rules can read, so every command and page that
shows a position asks here: the same view with current values explained
and the agenda.
"""

from __future__ import annotations

from typing import Any

from projections.state import GameState
from projections.views import VIEWERS, check_viewer, render_state, result_json
from projections.views import state_view as _state_view


def state_view(state: GameState, viewer: str) -> dict[str, Any]:
    """The JSON of ``referee state --json`` for ``viewer``."""
    from referee.rules.harem_master.describe import agenda, character

    return _state_view(state, viewer, reader=character, agenda=agenda)


__all__ = ["VIEWERS", "check_viewer", "render_state", "result_json", "state_view"]
