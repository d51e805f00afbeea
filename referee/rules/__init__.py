"""Game rules behind a small interface (start, legal actions, decide/apply).

Only Harem Master is implemented; the event store, scenario runner and CLI
reach the rules through this package so that another game can plug in later.
"""

from referee.rules.harem_master import (
    ACTION_RULES,
    Decision,
    advance,
    apply,
    current_decision,
    current_player,
    decide,
    is_legal,
    legal_actions,
    own_events,
    start,
)

__all__ = [
    "ACTION_RULES",
    "Decision",
    "advance",
    "apply",
    "current_decision",
    "current_player",
    "decide",
    "is_legal",
    "legal_actions",
    "own_events",
    "start",
]
