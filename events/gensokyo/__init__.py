"""幻想郷夢紀行 §4 (細かいルールについて): the facts its matches are built from, and its cards as data.

``EVENT_TYPES`` maps each class name of ``events.gensokyo.table`` to its
class; ``cards`` holds a card's printed data and the notation of its effect
lines (docs/games/gensokyo-s4.md, rulings G3).
"""

from __future__ import annotations

import inspect

from events.gensokyo import table
from events.gensokyo.cards import Ability, GensokyoCard, Line, parse_line
from events.kernel import Event

EVENT_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(table, inspect.isclass)
    if issubclass(cls, Event) and cls.__module__ == table.__name__
}

__all__ = ["EVENT_TYPES", "Ability", "GensokyoCard", "Line", "parse_line"]
