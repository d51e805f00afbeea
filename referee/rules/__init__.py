"""Game rules behind a small interface (start, legal actions, decide/apply).

Only Harem Master is implemented; the event store, scenario runner and CLI
reach the rules through this package so that another game can plug in later.
``ACTIONS`` and ``KINDS`` declare each action kind and decision kind once
(an action's rule, the arguments it takes, the one check that refuses it
and the candidates the legal list is filtered from; a decision's rule and
sentence).
"""

from referee.rules.harem_master import (
    ACTIONS,
    ANY_TIME,
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
    "ANY_TIME",
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
