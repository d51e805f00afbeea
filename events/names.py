"""The names stored classes are kept under: registered, not read from where their code lives.

A log names each event's class, a snapshot its state's class, and an
encoded state (a snapshot, a rewind's restored state) the classes of the
values it holds. Each module whose classes may be stored declares, once,
the **namespace** they are stored under (``stored_as(__name__,
"events.game")``); a class's stored name is ``namespace:Class``. The
namespace is a name, not a path: a module can move to another package and
its classes keep their names, so moving code needs no data migration.

Every class stored so far keeps the name it was first stored under (the
hash chain covers that name, ``referee.chain``): Harem Master's events and
the kernel's are ``events.game:...``, its cards ``events.cards:...``, its
state ``projections.state:...``; SCP-TCG's are ``events.scp_tcg.zones:...``.
A new game takes its id as its namespace (``toy-takeaway:PileSetUp``).

Some rows were written under the module path a class had at the time
(``events.kernel:ActionTaken``, ``events.harem_master.game:MatchStarted``,
snapshots ``projections.harem_master.state:GameState``): ``ONCE`` lists
those old namespaces, and they read as the namespace they stand for, in
any process, before any game is imported (the hash chain of a stored log is
checked from the rows' names alone). A class renamed is read through
``TOPIC_ALIASES`` (``events``).
"""

from __future__ import annotations

import inspect
import sys

# namespace -> the modules whose classes are stored under it, in declaration order
_MODULES: dict[str, list[str]] = {}
# module -> its namespace
_NAMESPACE: dict[str, str] = {}
# An old namespace (a module path rows were written under, from issue 17's move
# of each game's code into packages of its own until names were registered)
# -> the namespace it reads as. History: never add to it; a new class is
# stored under its module's namespace from the start.
ONCE: dict[str, str] = {
    "events.kernel": "events.game",
    "events.harem_master.game": "events.game",
    "events.harem_master.cards": "events.cards",
    "events.harem_master.abilities": "events.abilities",
    "projections.harem_master.state": "projections.state",
    "projections.harem_master.codec": "projections.codec",
    "projections.harem_master.views": "projections.views",
}
# class -> its stored name; stored name -> class
_NAME_OF: dict[type, str] = {}
_CLASS_OF: dict[str, type] = {}


def stored_as(module: str, namespace: str) -> None:
    """Declare that the classes defined in ``module`` are stored as ``namespace:Class``."""
    known = _NAMESPACE.get(module)
    if known is not None and known != namespace:
        raise ValueError(f"{module} is already stored as {known!r}, not {namespace!r}")
    if namespace in ONCE:
        raise ValueError(f"{namespace!r} is an old namespace that reads as {ONCE[namespace]!r}")
    _NAMESPACE[module] = namespace
    modules = _MODULES.setdefault(namespace, [])
    if module not in modules:
        modules.append(module)


def is_stored(cls: type) -> bool:
    """Is ``cls`` a class of a module that declared its namespace?"""
    return cls.__module__ in _NAMESPACE


def stored_name(cls: type) -> str:
    """The name ``cls`` is stored under (``namespace:Class``); ``TypeError``
    for a class whose module declared none (it could never be read back)."""
    name = _NAME_OF.get(cls)
    if name is None:
        namespace = _NAMESPACE.get(cls.__module__)
        if namespace is None:
            raise TypeError(
                f"{cls.__qualname__} ({cls.__module__}) is in no module that declared the name its classes "
                "are stored under (events.names.stored_as): it could be stored but never read back"
            )
        name = _NAME_OF[cls] = f"{namespace}:{cls.__qualname__}"
    return name


def namespace_of(name: str) -> str:
    """The namespace a stored name (or an old one) reads as."""
    namespace = name.partition(":")[0]
    return ONCE.get(namespace, namespace)


def canonical(name: str) -> str:
    """A stored name as its class's own name (``events.kernel:ActionTaken``
    is ``events.game:ActionTaken``): what the hash chain covers."""
    namespace, _, qualname = name.partition(":")
    now = ONCE.get(namespace)
    return f"{now}:{qualname}" if now is not None else name


def known(name: str) -> bool:
    """Is the namespace of ``name`` declared (by a module imported so far)?"""
    return namespace_of(name) in _MODULES


def class_of(name: str) -> type:
    """The class stored as ``name`` (or under an old namespace of it);
    ``LookupError`` if no declared module defines it."""
    found = _CLASS_OF.get(name)
    if found is not None:
        return found
    namespace = namespace_of(name)
    qualname = name.partition(":")[2]
    for module in _MODULES.get(namespace, ()):
        obj: object = sys.modules.get(module)
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if inspect.isclass(obj) and obj.__module__ == module:
            _CLASS_OF[name] = obj
            return obj
    raise LookupError(f"no class is stored as {name!r}")


def names_of(cls: type) -> set[str]:
    """Every name ``cls`` may have been stored under: its own and the old
    namespaces that read as its namespace."""
    name = stored_name(cls)
    namespace, _, qualname = name.partition(":")
    return {name, *(f"{old}:{qualname}" for old, now in ONCE.items() if now == namespace)}


__all__ = [
    "ONCE",
    "canonical",
    "class_of",
    "is_stored",
    "known",
    "namespace_of",
    "names_of",
    "stored_as",
    "stored_name",
]
