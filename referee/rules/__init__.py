"""Game rules behind a small interface (start, legal actions, decide/apply).

Only Harem Master is implemented; the event store, scenario runner and CLI
reach the rules through this package so that another game can plug in later.
``ACTIONS`` and ``KINDS`` declare each action kind and decision kind once
(the rule it cites, its sentence, where its card comes from).
"""

from referee.rules.harem_master import (
    ACTIONS,
    KINDS,
    Decision,
    advance,
    apply,
    canonical,
    current_decision,
    current_player,
    decide,
    is_legal,
    legal_actions,
    own_events,
    start,
)

__all__ = [
    "ACTIONS",
    "KINDS",
    "Decision",
    "advance",
    "apply",
    "canonical",
    "current_decision",
    "current_player",
    "decide",
    "is_legal",
    "legal_actions",
    "own_events",
    "start",
]
