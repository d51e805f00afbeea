"""The toy game's own events: the pile set up, and counters taken from it."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from events.kernel import Event
from events.names import stored_as

GAME = "toy-takeaway"


class PileSetUp(Event):
    """A match's first event: how many counters, who moves first, the players' names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: Literal["toy-takeaway"] = GAME
    counters: int
    first: str
    names: dict[str, str]


class CountersTaken(Event):
    """A player took ``n`` counters from the pile."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    player: str
    n: int


stored_as(__name__, GAME)  # a new game's classes are stored under its id (``events.names``)
