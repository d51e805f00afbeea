"""What a viewer may see, in one place for every page of the board (rule 215).

Every board, log line, notice ("X was logged meanwhile"), card text and
list of controls a page shows goes through these few functions, which ask
the projections' views (``referee.rules.harem_master.views.state_view``, built on
``projections.harem_master.views``) and the transcript (``projections.harem_master.transcript``) for
the viewer. When the project has one visibility function of (event, viewer),
these are the only calls to switch.
"""

from __future__ import annotations

from typing import Any

from events.kernel import Event
from projections.harem_master.state import GameState
from projections.harem_master.transcript import describe
from referee.rules.harem_master.views import action_names, card_texts, names_in_view, state_view


def board_view(state: GameState, viewer: str) -> dict[str, Any]:
    """The position as ``viewer`` may see it (``referee state --json``)."""
    return state_view(state, viewer)


def sentence(event: Event, before: GameState, viewer: str) -> str:
    """One event in words as ``viewer`` may read it (``referee log --as``)."""
    return describe(event, before, viewer)


def card_texts_of(
    state: GameState, view: dict[str, Any], actions: list[dict[str, Any]] | None, extra: list[str] = ()
) -> dict[str, dict[str, Any]]:
    """The printed text and abilities in words of every card the page names:
    those the view shows, those its legal actions name (shown only to whoever
    may see them) and ``extra`` names the page offers (a reveal's choices)."""
    return card_texts(state, [*names_in_view(view), *action_names(actions or []), *extra])
