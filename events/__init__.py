"""Domain events: the append-only facts everything else is built from.

This package holds what every game shares: the kernel's events
(``events.kernel``: the base class, actions, results, judges' corrections)
and the tournament's (``events.tournament``). Each game's own events are in
its package (``events.harem_master``, ``events.scp_tcg``), which the store
reads through the game's ruleset (``referee.ruleset``, ``event_modules``).

Storage names a class by its topic ``module:Class`` and resolves a stored
topic through ``TOPIC_ALIASES`` first (a renamed class: add
``"events.kernel:OldName": "events.kernel:NewName"``), then through
``MOVED_MODULES`` (a module whose classes moved: its old name, and the
modules that hold them now, searched in order), so old logs stay readable.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator, Mapping
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


def _classes(module: types.ModuleType, base: type) -> dict[str, type]:
    """The classes defined in ``module`` (not imported into it) that derive from ``base``."""
    return {
        name: cls
        for name, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, base) and cls is not base and cls.__module__ == module.__name__
    }


KERNEL_TYPES: dict[str, type[Event]] = _classes(_kernel, Event)


class _StoredModules(Mapping[str, dict[str, type]]):
    """Every module of this package whose classes may be stored, with its
    classes by name. A module is imported when its classes are first asked
    for, not with the package: a match command never reads a tournament's
    events, and building their models is a good part of its start-up."""

    def __init__(self, bases: dict[str, str]) -> None:
        self._bases = bases  # module -> the name of the base class its stored classes derive from
        self._loaded: dict[str, dict[str, type]] = {_kernel.__name__: KERNEL_TYPES}

    def __getitem__(self, module: str) -> dict[str, type]:
        found = self._loaded.get(module)
        if found is None:
            base = self._bases[module]  # KeyError: not one of ours
            loaded = importlib.import_module(module)
            found = self._loaded[module] = _classes(loaded, getattr(loaded, base))
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._bases)

    def __len__(self) -> int:
        return len(self._bases)

    def __contains__(self, module: object) -> bool:
        return module in self._bases


STORED_MODULES: Mapping[str, dict[str, type]] = _StoredModules(
    {_kernel.__name__: "Event", "events.tournament": "TournamentEvent"}
)


def __getattr__(name: str) -> Any:
    if name == "TOURNAMENT_TYPES":  # the tournament's classes by name, its module imported on first use
        return STORED_MODULES["events.tournament"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A game's id (None: Harem Master) -> the pydantic model of its cards, which a
# tournament's registrations read their decks as (``events.tournament``). The
# registry (``referee.ruleset``) makes it known, so no module here names a game.
_card_types: list[Callable[[str | None], type]] = []


def use_card_types(resolve: Callable[[str | None], type]) -> None:
    """Where registrations find each game's card model (the registry calls this)."""
    _card_types[:] = [resolve]


def card_type_of(game: str | None) -> type | None:
    """The card model of ``game`` (None until the registry is imported)."""
    return _card_types[0](game) if _card_types else None


# A stored topic whose class was renamed -> its topic now.
TOPIC_ALIASES: dict[str, str] = {}

# A module whose classes moved -> the modules that hold them now, in the order
# a stored ``old:Class`` is looked up. Stores and records name classes: a log
# names its events' classes, and an encoded state (a snapshot, a rewind's
# restored state) the classes of the values it holds, so this table lists
# every moved module whose classes are stored, the projections' included.
# Until issue 17 Harem Master's modules were the top of each layer: its
# events went to ``events.harem_master`` (the kernel's to ``events.kernel``),
# its state to ``projections.harem_master``.
MOVED_MODULES: dict[str, tuple[str, ...]] = {
    "events.game": ("events.kernel", "events.harem_master.game"),
    "events.cards": ("events.harem_master.cards",),
    "events.abilities": ("events.harem_master.abilities",),
    "projections.state": ("projections.harem_master.state",),
    "projections.codec": ("projections.harem_master.codec",),
    "projections.views": ("projections.harem_master.views",),
}


def first_topic(topic: str | type) -> str:
    """The topic a class (or a stored topic's class) was first stored under:
    its old module's name if its module is one that ``MOVED_MODULES`` moved
    classes into. The hash chain covers this name, not the module a class
    lives in now (``referee.chain``), so a stored log and a record keep their
    chains whichever module their classes move to, and a record exported
    from a match ends with the head the store has for it; an encoded state
    names its classes so too (``projections.encoding``), so a state encodes
    to the same JSON before and after a move."""
    if isinstance(topic, type):
        topic = f"{topic.__module__}:{topic.__qualname__}"
    module, _, name = topic.partition(":")
    for old, now in MOVED_MODULES.items():
        if module in now:
            return f"{old}:{name}"
    return topic


__all__ = [
    "Event",
    "KERNEL_TYPES",
    "MOVED_MODULES",
    "STORED_MODULES",
    "TOPIC_ALIASES",
    "TOURNAMENT_TYPES",
    "card_type_of",
    "first_topic",
    "use_card_types",
]
