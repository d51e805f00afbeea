"""The domain events of a tournament (an "event" to its players): registrations, rounds, drops, hand-entered results.

A tournament is an aggregate of its own in the same store as the matches
(its id looks like ``e-1a2b3c4d``); these are its facts. The results of the
matches played at its tables are not repeated here: they are the matches'
own ``GameEnded`` events, which the standings projection follows. Only a
result a judge enters by hand (a paper game logged at its end) is a fact of
the tournament, and it names that judge.

Stored logs name these classes by ``events.tournament:ClassName``: never
rename or move one without registering the old name in
``events.TOPIC_ALIASES``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from events.cards import CardDef

Deal = Literal["seeded", "table"]


class TournamentEvent(BaseModel):
    """Base of every tournament event (frozen, no unknown fields, like match events)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class TournamentCreated(TournamentEvent):
    """A new tournament: its name, and how its matches are dealt (``seeded``: the
    referee shuffles from a seed; ``table``: cards dealt on paper)."""

    name: str
    deal: Deal = "seeded"
    # Players may log their own decisions at the board from their player link
    # (off: only scorekeepers and judges log).
    players_log: bool = False


class PlayerRegistered(TournamentEvent):
    """A player's decklist, checked against 100.2 and frozen here with every
    card's definition (deck order, top first). A second registration of the
    same player replaces the first and names who changed it (``by``)."""

    player: str
    deck: list[CardDef]
    by: str | None = None
    replaces: bool = False


class Pairing(BaseModel):
    """One table of a round: ``B`` is None for a bye (then ``match`` is None too)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: int
    A: str
    B: str | None = None
    match: str | None = None


class RoundPaired(TournamentEvent):
    """The pairings of round ``round``; each match id is decided here, and the
    match itself is created with the registered decks right after (by
    whichever station gets there first: creation is idempotent).
    ``source`` is ``swiss`` or ``imported`` (a CSV made elsewhere)."""

    round: int
    pairings: list[Pairing]
    source: str = "swiss"
    seed: int = 0  # the matches' seeds derive from it (and the table number)


class PlayerDropped(TournamentEvent):
    """The player leaves the tournament: never paired again; their results stay."""

    player: str
    by: str | None = None


class ResultEntered(TournamentEvent):
    """A result entered by hand by a judge (a game logged only at its end):
    ``winner`` is a player's name, or None with ``draw``."""

    match: str
    winner: str | None = None
    draw: bool = False
    judge: str
