"""Functions registered by event class, beside their definitions: one mutator, one sentence.

A game's fold and its transcript each need one function per event class.
Registering each with a decorator next to the function (as eventsourcing's
"aggregate 7" example registers mutators with ``singledispatch``) keeps an
event's handling declared once, and ``missing`` lets a test say which event
classes have none, so a new event cannot be forgotten silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class ByType(Generic[F]):
    """A table from event classes to functions, filled by ``@table.on(Cls)``."""

    def __init__(self, what: str) -> None:
        self.what = what  # "mutator", "sentence": for messages
        self.table: dict[type, F] = {}

    def on(self, *classes: type) -> Callable[[F], F]:
        """Register the decorated function for each of ``classes``; a class
        registered twice is a mistake and raises at import."""

        def register(fn: F) -> F:
            for cls in classes:
                if cls in self.table:
                    raise TypeError(f"{cls.__qualname__} already has a {self.what}: {self.table[cls].__qualname__}")
                self.table[cls] = fn
            return fn

        return register

    def get(self, cls: type) -> F | None:
        return self.table.get(cls)

    def __contains__(self, cls: object) -> bool:
        return cls in self.table

    def __iter__(self) -> Iterator[type]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def missing(self, classes: Iterable[type], exempt: Iterable[type] = ()) -> list[str]:
        """The names of ``classes`` with no function here, ``exempt`` aside."""
        skip = set(exempt)
        return sorted(c.__qualname__ for c in classes if c not in self.table and c not in skip)
