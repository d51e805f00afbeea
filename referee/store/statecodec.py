"""The snapshot body: any registered game's state to JSON and back, through its ruleset.

The store knows no game: a state is written by the ruleset whose
``state_type`` it is (``Ruleset.encode_state``) and read back by the ruleset
its stored topic names (``Ruleset.decode_state``). Harem Master's own binding
of the generic walk is ``projections.harem_master.codec``: a ``Rewound`` event carries a
restored state that its ``evolve`` must read, so it lives in ``projections``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.names import stored_name
from projections.encoding import FORMAT, IncompatibleSnapshot
from referee import ruleset as registry

__all__ = ["FORMAT", "IncompatibleSnapshot", "decode_state", "encode_state", "ruleset_of_state", "state_topic"]

_by_type: dict[type, registry.Ruleset[Any, Any]] = {}


def state_topic(state_type: type) -> str:
    """A state class as a stored snapshot names it: its stored name (``events.names``)."""
    return stored_name(state_type)


def ruleset_of_state(state: Any) -> registry.Ruleset[Any, Any]:
    """The registered ruleset whose ``state_type`` ``state`` is; ``TypeError``
    if none is (a state no game folds cannot be stored)."""
    cls = type(state)
    found = _by_type.get(cls)
    if found is None:
        for game in registry.games():  # loading no game past the one it is (each costs start-up)
            candidate = registry.get(game)
            _by_type.setdefault(candidate.state_type, candidate)
            if candidate.state_type is cls:
                break
        found = _by_type.get(cls)
        if found is None:
            raise TypeError(f"{cls.__qualname__} is the state of no registered game: it cannot be stored")
    return found


def encode_state(state: Any, omit: tuple[str, ...] = (), *, snapshot: bool = False) -> dict[str, Any]:
    """``state`` as JSON-ready data, written by its game's ruleset; with
    ``snapshot``, as the store's snapshot (``Ruleset.encode_snapshot``)."""
    ruleset = ruleset_of_state(state)
    return ruleset.encode_snapshot(state, omit) if snapshot else ruleset.encode_state(state, omit)


def decode_state(data: Mapping[str, Any], base: Any = None, game: str | None = None) -> Any:
    """``encode_state`` undone by the ruleset of ``game`` (Harem Master when
    None, as snapshots were before games had ids); fields it omitted are
    taken from ``base``."""
    return registry.get(game).decode_state(data, base)
