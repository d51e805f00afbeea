"""Domain events of a match: the append-only facts everything else is built from.

``EVENT_TYPES`` maps each class name to its class; storage resolves stored
topics through ``TOPIC_ALIASES`` first, so that a renamed class keeps old logs
readable (add ``"events.game:OldName": "events.game:NewName"`` there).
"""

from __future__ import annotations

import inspect

from events import game
from events.cards import CardDef, filler
from events.game import *  # noqa: F401,F403  (the event classes are this package's API)
from events.game import Event

EVENT_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(game, inspect.isclass)
    if issubclass(cls, Event) and cls is not Event and cls.__module__ == game.__name__
}

# The tournament's events (``events.tournament``), stored by the same topics
# rule: ``events.tournament:ClassName``.
from events import tournament as _tournament  # noqa: E402

TOURNAMENT_TYPES: dict[str, type] = {
    name: cls
    for name, cls in inspect.getmembers(_tournament, inspect.isclass)
    if issubclass(cls, _tournament.TournamentEvent)
    and cls is not _tournament.TournamentEvent
    and cls.__module__ == _tournament.__name__
}

# Every module whose classes may be stored, with its classes by name.
STORED_MODULES: dict[str, dict[str, type]] = {game.__name__: EVENT_TYPES, _tournament.__name__: TOURNAMENT_TYPES}

TOPIC_ALIASES: dict[str, str] = {}

__all__ = [
    "CardDef",
    "Event",
    "EVENT_TYPES",
    "STORED_MODULES",
    "TOPIC_ALIASES",
    "TOURNAMENT_TYPES",
    "filler",
    *EVENT_TYPES,
]
