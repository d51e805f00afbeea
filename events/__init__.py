"""Domain events: the append-only facts everything else is built from.

This package holds what every game shares: the kernel's events
(``events.kernel``: the base class, actions, results, judges' corrections)
and the tournament's (``events.tournament``). Each game's own events are in
its package (``events.harem_master``, ``events.scp_tcg``), imported with
the game (``referee.ruleset``).

Storage names a class by its registered name ``namespace:Class``
(``events.names``: each module declares its namespace once), never by the
module it lives in, so code moves without a data migration. A stored name
is read through ``TOPIC_ALIASES`` first (a renamed class: add
``"events.game:OldName": "events.game:NewName"``), then through the old
namespaces rows were once written under (``events.names.ONCE``).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any


def _without_pydantic_plugins() -> None:
    """pydantic looks for plugins when it builds its first validator: it
    imports ``importlib.metadata`` and reads the entry points of every
    installed package: 5% of the instructions of a `referee act`, more of its
    time (it reads every package's metadata files). The referee uses no
    pydantic plugin, so the module that does it is given its answer, no
    plugins, before anything imports it (``tests/test_startup.py`` checks
    that validation still works and ``importlib.metadata`` stays unloaded).
    If a later pydantic looks for plugins elsewhere, this changes nothing."""
    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        loader = types.ModuleType(
            name, "No pydantic plugins: the referee uses none (events._without_pydantic_plugins)."
        )
        loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
        sys.modules[name] = loader


_without_pydantic_plugins()

from events import kernel as _kernel  # noqa: E402 - after the plugins are settled
from events.kernel import Event  # noqa: E402
from events.names import ONCE, canonical, class_of, known, stored_as, stored_name  # noqa: E402

KERNEL_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(_kernel, inspect.isclass)
    if issubclass(cls, Event) and cls is not Event and cls.__module__ == _kernel.__name__
}

# The kernel's own stored modules that are imported only when a stored name
# of theirs is first read (namespace -> module): a match command never reads
# a tournament's events, and building their models is a good part of its start-up.
LAZY: dict[str, str] = {"events.tournament": "events.tournament"}


def load_namespace(name: str) -> bool:
    """Import the kernel's module that stores classes under the namespace of
    ``name`` if it is one of ``LAZY``; True if the namespace is known now.
    (A game's modules declare theirs when the game is imported: the store
    loads games in registry order for the rest, ``referee.store.mapper``.)"""
    if known(name):
        return True
    module = LAZY.get(name.partition(":")[0])
    if module is not None:
        importlib.import_module(module)
    return known(name)


def is_event_class(cls: type) -> bool:
    """Is ``cls`` a class of stored facts: a match's (``Event``) or a
    tournament's (``events.tournament.TournamentEvent``)? A card or a state
    has a stored name too, but is never a row of its own."""
    if issubclass(cls, Event):
        return True
    tournament = sys.modules.get("events.tournament")
    return tournament is not None and issubclass(cls, tournament.TournamentEvent)


def __getattr__(name: str) -> Any:
    if name == "TOURNAMENT_TYPES":  # the tournament's classes by name, its module imported on first use
        module = importlib.import_module("events.tournament")
        return {
            n: cls
            for n, cls in inspect.getmembers(module, inspect.isclass)
            if cls.__module__ == module.__name__ and issubclass(cls, module.TournamentEvent)
        }
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A game's id (None: Harem Master) -> the pydantic model of its cards, which a
# tournament's registrations read their decks as (``events.tournament``). The
# registry (``referee.ruleset``) makes it known, so no module here names a game.
_card_types: list[Callable[[str | None], type | None]] = []


def use_card_types(resolve: Callable[[str | None], type | None]) -> None:
    """Where registrations find each game's card model (the registry calls this)."""
    _card_types[:] = [resolve]


def card_type_of(game: str | None) -> type | None:
    """The card model of ``game`` (None until the registry is imported, or for a game without cards)."""
    return _card_types[0](game) if _card_types else None


# A stored name whose class was renamed -> its name now.
TOPIC_ALIASES: dict[str, str] = {}


__all__ = [
    "Event",
    "KERNEL_TYPES",
    "LAZY",
    "ONCE",
    "TOPIC_ALIASES",
    "TOURNAMENT_TYPES",
    "canonical",
    "card_type_of",
    "class_of",
    "is_event_class",
    "load_namespace",
    "stored_as",
    "stored_name",
    "use_card_types",
]
