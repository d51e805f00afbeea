"""Harem Master's events, cards and ability vocabulary (``game``, ``cards``, ``abilities``).

``EVENT_TYPES`` maps the class name of every event a Harem Master log holds
to its class: the game's own (``events.harem_master.game``) and the kernel's
(``events.kernel``), which every game's log shares.
"""

from __future__ import annotations

import inspect

from events.harem_master import game
from events.kernel import Event

EVENT_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(game, inspect.isclass)
    if issubclass(cls, Event) and cls is not Event and cls.__module__ in (game.__name__, "events.kernel")
}

__all__ = ["EVENT_TYPES"]
