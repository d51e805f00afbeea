"""Phantom Magic Vision, chapter 7 (effects): the facts its matches are built from (``effects``) and its test cards (``cards``)."""

from __future__ import annotations

import inspect

from events.kernel import Event
from events.pmv_ch7 import effects
from events.pmv_ch7.cards import Card, Clause, Effect

EVENT_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(effects, inspect.isclass)
    if issubclass(cls, Event) and cls.__module__ == effects.__name__
}

__all__ = ["EVENT_TYPES", "Card", "Clause", "Effect"]
