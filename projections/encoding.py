"""The JSON a state's fields are kept in, walked generically: a snapshot's body and a rewind's restored state.

JSON knows lists, string-keyed objects and scalars; a state holds tuples,
NamedTuples, plain classes of ours (written attribute by attribute) and
pydantic models. Tuples are the state's ordinary container, so they are
written as plain arrays; everything else that JSON would blur is written as
a one-key object whose key starts with ``$``, naming its kind and, for
classes, the class's stored name (``events.names``: ``events.cards:CardDef``). A pydantic model is written
as pydantic dumps it (``$model``, validated when read), or in a snapshot
field by field (``$fields``, read back without validation).

The walk knows no state's fields, so a field added to a state later is
kept without touching this file; a value of a kind it does not know raises
``TypeError`` when it is written. Classes are only resolved by their
stored names (``events.names``), so the contents of a database can never
make us import or build anything else. ``projections.harem_master.codec`` applies
it to ``GameState``; the fold applies it to a rewind's restored state
(``projections.harem_master.state``), which is why it is a module of its own that
imports neither.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from events.names import class_of, is_stored, stored_name

FORMAT = 1
_classes: dict[str, type] = {}


class IncompatibleSnapshot(ValueError):
    """The snapshot was written for a differently shaped state (an older or
    newer projection), so folding the events is the only safe way back."""


def encode_fields(
    state: Any,
    omit: Iterable[str] = (),
    optional: Mapping[str, Any] | None = None,
    fmt: int = FORMAT,
    *,
    snapshot: bool = False,
) -> dict[str, Any]:
    """A JSON-ready dict holding every field of ``state`` but those in
    ``omit`` and those ``optional`` gives a default they still have, marked
    as written in format ``fmt`` (the state's shape: a reader of another
    refuses it).

    ``snapshot`` writes each pydantic model field by field (``$fields``), so
    that reading it back builds the model without validating it: validating
    builds the model's validator first, and the card definitions' validator
    (every ability's vocabulary) was a fifth of a ``referee act``. A snapshot
    is the store's own cache of a state it folded from validated events; a
    rewind's restored state, which is part of an event, keeps ``$model``."""
    optional = optional or {}
    skip = set(omit)
    enc = _Encoder(type(state), snapshot)
    return {
        "format": fmt,
        "fields": {
            k: enc(v) for k, v in state.__dict__.items() if k not in skip and not (k in optional and v == optional[k])
        },
    }


def decode_fields(
    data: Mapping[str, Any],
    kind: type[Any],
    expected: Iterable[str],
    optional: Mapping[str, Any] | None = None,
    base: Any = None,
    fmt: int = FORMAT,
) -> Any:
    """The state of class ``kind`` that ``encode_fields`` was given: exactly
    the fields ``expected``, those absent taken from ``optional``'s defaults,
    then from ``base``; ``IncompatibleSnapshot`` if they still differ or the
    format is not ``fmt``."""
    if data.get("format") != fmt:
        raise IncompatibleSnapshot(f"snapshot format {data.get('format')!r}, expected {fmt}")
    fields: dict[str, Any] = dict(data["fields"])
    for key, value in (optional or {}).items():
        fields.setdefault(key, _Raw(value))
    wanted = set(expected)
    if base is not None:
        for key in wanted - fields.keys():
            fields[key] = _Raw(base.__dict__[key])
    if fields.keys() != wanted:
        missing = sorted(wanted - fields.keys())
        extra = sorted(fields.keys() - wanted)
        raise IncompatibleSnapshot(f"snapshot fields differ (missing {missing}, unknown {extra})")
    state = kind.__new__(kind)  # type: ignore[call-overload]  # mypy reads type[Any].__new__ as type's own
    state.__dict__.update({k: v.value if isinstance(v, _Raw) else _dec(v, kind) for k, v in fields.items()})
    inner = state.__dict__.get("passed_over")
    if isinstance(inner, kind) and "cards" not in inner.__dict__:
        inner.cards = state.cards  # written without them: a match's cards never change
    return state


class _Raw:
    """A field value taken as it is from the base state, not decoded."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _topic(cls: type) -> str:
    """The class's stored name (``events.names``): a state encodes the same
    whichever module its classes move to."""
    topic = _topics.get(cls)
    if topic is None:
        topic = _topics[cls] = stored_name(cls)
    return topic


_topics: dict[type, str] = {}


def _resolve(topic: str) -> type[Any]:
    """The class stored as ``topic``: only a class of a module that declared
    its stored names (its game's, imported with the game) is ever built."""
    try:
        return _classes[topic]
    except KeyError:
        pass
    try:
        obj = class_of(topic)
    except LookupError:
        raise ValueError(f"snapshot names class {topic!r}, which no module of the referee stores") from None
    _classes[topic] = obj
    return obj


class _Encoder:
    """A value as JSON, for one state class (a state kept inside the state is
    written as ``$state``), models as ``$model`` or, for a snapshot, ``$fields``."""

    __slots__ = ("kind", "snapshot")

    def __init__(self, kind: type, snapshot: bool) -> None:
        self.kind = kind
        self.snapshot = snapshot

    def __call__(self, v: Any) -> Any:
        if type(v) in _SCALARS:
            return v
        enc = self
        if isinstance(v, BaseModel):
            return self._model(v)
        if isinstance(v, self.kind):  # a state kept inside the state: its cards are the outer one's
            return {"$state": {k: enc(x) for k, x in v.__dict__.items() if k != "cards"}}
        if isinstance(v, tuple):
            if hasattr(v, "_fields"):  # a NamedTuple
                return {"$nt": [_topic(type(v)), [enc(x) for x in v]]}
            return [enc(x) for x in v]
        if isinstance(v, dict):
            if all(isinstance(k, str) and not k.startswith("$") for k in v):
                return {k: enc(x) for k, x in v.items()}
            return {"$dict": [[enc(k), enc(x)] for k, x in v.items()]}
        if isinstance(v, list):
            return {"$list": [enc(x) for x in v]}
        if v is None or isinstance(v, (bool, int, float, str)):  # a subclass of one (an enum of str)
            return v
        if isinstance(v, frozenset):
            # Sorted: a set's order changes with every process's hash seed, and a
            # rewind stored by one process must read the same in another (export
            # and audit compare a rewind's restored state with the one they make).
            return {"$frozenset": sorted((enc(x) for x in v), key=lambda e: json.dumps(e, sort_keys=True))}
        if isinstance(v, set):
            return {"$set": [enc(x) for x in v]}
        if is_stored(type(v)):  # a plain class of ours, e.g. Zones
            if hasattr(v, "__dict__"):
                attrs = vars(v)
            else:
                attrs = {s: getattr(v, s) for s in getattr(type(v), "__slots__", ())}
            return {"$obj": [_topic(type(v)), {k: enc(x) for k, x in attrs.items()}]}
        raise TypeError(f"cannot snapshot a {type(v).__qualname__} value: {v!r}")

    def _model(self, v: BaseModel) -> Any:
        cls = type(v)
        if self.snapshot and v.__pydantic_extra__ is None and v.__pydantic_private__ is None:
            kept = _kept.get(id(v))
            if kept is not None and kept[0] is v and kept[1] is self.kind:
                return kept[2]
            shape = _shapes.get(cls)
            if shape is None:
                shape = _shapes[cls] = (_topic(cls), tuple(cls.model_fields), bool(cls.model_config.get("frozen")))
            values = v.__dict__
            try:
                fields = {}
                for k in shape[1]:
                    x = values[k]
                    fields[k] = x if type(x) in _SCALARS else self(x)
            except TypeError:  # a value the walk does not know: pydantic writes it
                pass
            else:
                body: list[Any] = [shape[0], fields]
                given = v.__pydantic_fields_set__
                if len(given) != len(shape[1]):
                    body.append(sorted(given))
                encoded = {"$fields": body}
                if shape[2]:
                    if len(_kept) >= KEPT_MODELS:
                        _kept.clear()
                    _kept[id(v)] = (v, self.kind, encoded)
                return encoded
        return {"$model": [_topic(cls), v.model_dump(mode="json")]}


_SCALARS = frozenset({str, int, bool, float, type(None)})
# A model class: its topic, its field names, and whether it is frozen.
_shapes: dict[type, tuple[str, tuple[str, ...], bool]] = {}
# The snapshot encoding of the latest frozen models written, by identity: a
# match's card definitions are the same objects in every match dealt from
# the same pool (a round of a tournament starts hundreds at once), and the
# field's cards mostly the same from one snapshot to the next. The model is
# kept with its encoding (and the state class it was written for), so an id
# is never mistaken for a later object's.
_kept: dict[int, tuple[BaseModel, type, Any]] = {}
KEPT_MODELS = 8192


def _dec(j: Any, kind: type) -> Any:
    if isinstance(j, list):
        return tuple(_dec(x, kind) for x in j)
    if isinstance(j, dict):
        if len(j) == 1:
            ((key, body),) = j.items()
            if key.startswith("$"):
                return _dec_tagged(key, body, kind)
        return {k: _dec(x, kind) for k, x in j.items()}
    return j


def _dec_tagged(tag: str, body: Any, kind: type[object]) -> Any:
    if tag == "$nt":
        topic, values = body
        return _resolve(topic)(*(_dec(x, kind) for x in values))
    if tag == "$model":
        topic, dump = body
        return _resolve(topic).model_validate(dump)
    if tag == "$fields":
        return _dec_fields(body, kind)
    if tag == "$obj":
        topic, attrs = body
        cls: type[object] = _resolve(topic)
        obj = cls.__new__(cls)
        for name, value in attrs.items():
            object.__setattr__(obj, name, _dec(value, kind))
        return obj
    if tag == "$dict":
        return {_dec(k, kind): _dec(v, kind) for k, v in body}
    if tag == "$list":
        return [_dec(x, kind) for x in body]
    if tag == "$set":
        return {_dec(x, kind) for x in body}
    if tag == "$frozenset":
        return frozenset(_dec(x, kind) for x in body)
    if tag == "$state":
        inner = kind.__new__(kind)
        inner.__dict__.update({k: _dec(x, kind) for k, x in body.items()})
        return inner
    raise ValueError(f"unknown snapshot tag {tag!r}")


def _dec_fields(body: list[Any], kind: type) -> BaseModel:
    """A model written field by field (``$fields``), built without validation
    (``model_construct``), with the fields that were set; a class whose
    fields are no longer those written means the snapshot is outdated."""
    topic, values, *given = body
    cls = _resolve(topic)
    if not issubclass(cls, BaseModel):
        raise ValueError(f"snapshot topic {topic!r} is not a model")
    if values.keys() != cls.model_fields.keys():
        raise IncompatibleSnapshot(f"{topic} no longer has the fields the snapshot wrote")
    fields = {k: _dec(x, kind) for k, x in values.items()}
    return cls.model_construct(set(given[0]) if given else None, **fields)
