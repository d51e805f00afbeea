"""``GameState`` to JSON and back, exactly: a snapshot's body and a rewind's
restored state.

JSON knows lists, string-keyed objects and scalars; a ``GameState`` holds
tuples, NamedTuples (``Character``, ``Battle``, ``Result``, ``Violation``),
the ``Zones`` class (written attribute by attribute) and pydantic ``CardDef``
models. Tuples are the state's ordinary container, so they are written as plain arrays; everything else
that JSON would blur is written as a one-key object whose key starts with
``$``, naming its kind and, for classes, the class's topic (``module:Class``).

The codec walks values generically instead of listing ``GameState``'s fields,
so a field added to the state later is snapshotted without touching this
file; a value of a kind it does not know raises ``TypeError`` when the
snapshot is taken (the store tests catch that at once). Classes are only
resolved from the ``events`` and ``projections`` packages, so the contents of
a database can never make us import or build anything else.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from pydantic import BaseModel

from projections.state import GameState, initial_state

FORMAT = 1
_TRUSTED = ("events.", "projections.")
_classes: dict[str, type] = {}


class IncompatibleSnapshot(ValueError):
    """The snapshot was written for a differently shaped ``GameState`` (an older
    or newer projection), so folding the events is the only safe way back."""


# Fields added after snapshots and rewinds were first stored: written only when
# they differ from these values, and read as these values when absent, so a
# seeded match's snapshots and rewinds are what they always were.
OPTIONAL: dict[str, Any] = {"deal": "seeded", "unknown": frozenset(), "emptied": None, "passed_over": None,
                            "judge_call": None}


def encode_state(state: GameState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON-ready dict holding every field of ``state`` but those in ``omit``
    (a rewind leaves out the card definitions, which never change in a match)."""
    return {
        "format": FORMAT,
        "fields": {
            k: _enc(v)
            for k, v in state.__dict__.items()
            if k not in omit and not (k in OPTIONAL and v == OPTIONAL[k])
        },
    }


def decode_state(data: dict[str, Any], base: GameState | None = None) -> GameState:
    """The ``GameState`` that ``encode_state`` was given, equal field for field;
    fields it omitted are taken from ``base``."""
    if data.get("format") != FORMAT:
        raise IncompatibleSnapshot(f"snapshot format {data.get('format')!r}, expected {FORMAT}")
    fields = dict(data["fields"])
    for key, value in OPTIONAL.items():
        fields.setdefault(key, _Raw(value))
    expected = initial_state().__dict__.keys()
    if base is not None:
        for key in expected - fields.keys():
            fields[key] = _Raw(base.__dict__[key])
    if fields.keys() != expected:
        missing = sorted(expected - fields.keys())
        extra = sorted(fields.keys() - expected)
        raise IncompatibleSnapshot(f"snapshot fields differ (missing {missing}, unknown {extra})")
    state = GameState.__new__(GameState)
    state.__dict__.update({k: v.value if isinstance(v, _Raw) else _dec(v) for k, v in fields.items()})
    inner = state.__dict__.get("passed_over")
    if isinstance(inner, GameState) and "cards" not in inner.__dict__:
        inner.cards = state.cards  # written without them: a match's cards never change
    return state


class _Raw:
    """A field value taken as it is from the base state, not decoded."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolve(topic: str) -> type:
    try:
        return _classes[topic]
    except KeyError:
        pass
    module, _, name = topic.partition(":")
    if not module.startswith(_TRUSTED):
        raise ValueError(f"snapshot names class {topic!r} outside the events and projections packages")
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"snapshot topic {topic!r} is not a class")
    _classes[topic] = obj
    return obj


def _enc(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, GameState):  # a state kept inside the state: its cards are the outer one's
        return {"$state": {k: _enc(x) for k, x in v.__dict__.items() if k != "cards"}}
    if isinstance(v, tuple):
        if hasattr(v, "_fields"):  # a NamedTuple
            return {"$nt": [_topic(type(v)), [_enc(x) for x in v]]}
        return [_enc(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in v):
            return {k: _enc(x) for k, x in v.items()}
        return {"$dict": [[_enc(k), _enc(x)] for k, x in v.items()]}
    if isinstance(v, BaseModel):
        return {"$model": [_topic(type(v)), v.model_dump(mode="json")]}
    if isinstance(v, list):
        return {"$list": [_enc(x) for x in v]}
    if isinstance(v, frozenset):
        # Sorted: a set's order changes with every process's hash seed, and a
        # rewind stored by one process must read the same in another (export
        # and audit compare a rewind's restored state with the one they make).
        return {"$frozenset": sorted((_enc(x) for x in v), key=lambda e: json.dumps(e, sort_keys=True))}
    if isinstance(v, set):
        return {"$set": [_enc(x) for x in v]}
    if type(v).__module__.startswith(_TRUSTED):  # a plain class of ours, e.g. Zones
        if hasattr(v, "__dict__"):
            attrs = vars(v)
        else:
            attrs = {s: getattr(v, s) for s in getattr(type(v), "__slots__", ())}
        return {"$obj": [_topic(type(v)), {k: _enc(x) for k, x in attrs.items()}]}
    raise TypeError(f"cannot snapshot a {type(v).__qualname__} value: {v!r}")


def _dec(j: Any) -> Any:
    if isinstance(j, list):
        return tuple(_dec(x) for x in j)
    if isinstance(j, dict):
        if len(j) == 1:
            (key, body), = j.items()
            if key.startswith("$"):
                return _dec_tagged(key, body)
        return {k: _dec(x) for k, x in j.items()}
    return j


def _dec_tagged(tag: str, body: Any) -> Any:
    if tag == "$nt":
        topic, values = body
        return _resolve(topic)(*(_dec(x) for x in values))
    if tag == "$model":
        topic, dump = body
        return _resolve(topic).model_validate(dump)
    if tag == "$obj":
        topic, attrs = body
        cls = _resolve(topic)
        obj = cls.__new__(cls)
        for name, value in attrs.items():
            object.__setattr__(obj, name, _dec(value))
        return obj
    if tag == "$dict":
        return {_dec(k): _dec(v) for k, v in body}
    if tag == "$list":
        return [_dec(x) for x in body]
    if tag == "$set":
        return {_dec(x) for x in body}
    if tag == "$frozenset":
        return frozenset(_dec(x) for x in body)
    if tag == "$state":
        inner = GameState.__new__(GameState)
        inner.__dict__.update({k: _dec(x) for k, x in body.items()})
        return inner
    raise ValueError(f"unknown snapshot tag {tag!r}")
