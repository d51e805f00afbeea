"""The Harem Master rules, one module per part of the comprehensive rules.

| module | rules |
|---|---|
| ``setup`` | 101: openings, shuffle, turn order, hands, mulligans |
| ``turn`` | 300-310 (but 306.5): the turn, the plays of 306.1-306.3, the windows of 305 and 307 |
| ``battle`` | 306.5: battle |
| ``checks`` | 102-103 (the end), 214.2e (character limits), 214.4f (items without a character) |
| ``hidden`` | 100.2, 215: a table-dealt match's unknown cards and the reveals the table enters |
| ``registry`` | where each module declares its action kinds, decision kinds and steps |
| ``engine`` | who must act, legal actions, applying an action and the steps after it |
"""

from referee.rules.harem_master.engine import (
    ANY_TIME,
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
from referee.rules.harem_master.registry import ACTIONS, KINDS, Decision

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
