"""``GameState`` to JSON and back, exactly: a snapshot's body and a rewind's
restored state.

The walk itself is ``projections.encoding`` (JSON for tuples, NamedTuples,
our plain classes and pydantic models, classes resolved only from the
``events`` and ``projections`` packages); this module binds it to
``GameState``: its fields are those of the empty table, and the fields added
after snapshots were first stored (``OPTIONAL``, declared with the state)
are written only when they differ from their defaults, so a seeded match's
snapshots and rewinds are what they always were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.names import stored_as
from projections.encoding import FORMAT, IncompatibleSnapshot, decode_fields, encode_fields
from projections.harem_master.state import OPTIONAL, GameState, initial_state

__all__ = ["FORMAT", "OPTIONAL", "IncompatibleSnapshot", "decode_state", "encode_snapshot", "encode_state"]


def encode_state(state: GameState, omit: tuple[str, ...] = (), *, snapshot: bool = False) -> dict[str, Any]:
    """A JSON-ready dict holding every field of ``state`` but those in ``omit``
    (a rewind leaves out the card definitions, which never change in a match);
    ``snapshot``: the store's snapshot, read back without validating its models."""
    return encode_fields(state, omit, OPTIONAL, FORMAT, snapshot=snapshot)


def encode_snapshot(state: GameState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    """The store's snapshot: its card definitions read back without building their validator."""
    return encode_fields(state, omit, OPTIONAL, FORMAT, snapshot=True)


def decode_state(data: Mapping[str, Any], base: GameState | None = None) -> GameState:
    """The ``GameState`` that ``encode_state`` was given, equal field for field;
    fields it omitted are taken from ``base``."""
    return decode_fields(data, GameState, initial_state().__dict__.keys(), OPTIONAL, base, FORMAT)


stored_as(__name__, "projections.codec")  # as they were first stored (``events.names``)
