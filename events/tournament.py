"""The domain events of a tournament (an "event" to its players): registrations, check-in, rounds and their clock, drops, penalties, the top cut.

A tournament is an aggregate of its own in the same store as the matches
(its id looks like ``e-1a2b3c4d``); these are its facts. The results of the
matches played at its tables are not repeated here: they are the matches'
own ``GameEnded`` events, which the standings projection follows. Only a
result a judge enters by hand (a paper game logged at its end) is a fact of
the tournament, and it names that judge.

Stored logs name these classes by ``events.tournament:ClassName``: never
rename or move one without registering the old name in
``events.TOPIC_ALIASES``.

A tournament is of one game (``TournamentCreated.game``; none named: Harem
Master, as every tournament before games were named). A registration freezes
the deck as that game's cards, validated through the game's ``card_type``,
which the registry (``referee.ruleset``) makes known here
(``events.use_card_types``), so this module names no game and a stored deck's JSON
is the card model's own, as it always was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, model_serializer, model_validator

from events import card_type_of
from events.names import stored_as

Deal = Literal["seeded", "table"]


def _omit_none(data: Any, key: str) -> Any:
    """A field left out of the stored JSON while it is None, so logs written
    before it existed stay byte for byte what they were."""
    if isinstance(data, dict) and data.get(key, 0) is None:
        del data[key]
    return data


class TournamentEvent(BaseModel):
    """Base of every tournament event (frozen, no unknown fields, like match events)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class TournamentCreated(TournamentEvent):
    """A new tournament: its name, how its matches are dealt (``seeded``: the
    referee shuffles from a seed; ``table``: cards dealt on paper), and the
    organiser's policies (docs/tournament-policy.md): games per match
    (``best_of``, TP4), the round's length in minutes (None: no clock, TP2),
    what time does to an unfinished game (``at_time``: draw, score or
    judge), what a late entrant gets for rounds missed (``late``: loss or
    bye, TP5), and whether players must check in to be paired."""

    name: str
    deal: Deal = "seeded"
    best_of: int = 1
    round_minutes: int | None = None
    at_time: str = "draw"
    late: str = "loss"
    check_in: bool = False
    # Players may log their own decisions at the board from their player link
    # (off: only scorekeepers and judges log).
    players_log: bool = False
    # The game its matches are of (a ruleset's id); None: Harem Master, and left
    # out of the JSON then.
    game: str | None = None
    # The IANA time zone its times are shown in (``Europe/Berlin``); None: UTC,
    # and left out of the JSON then. Events always store UTC.
    tz: str | None = None

    @model_serializer(mode="wrap")
    def _omit_default_game(self, handler: Any) -> Any:
        return _omit_none(_omit_none(handler(self), "game"), "tz")


class PlayerRegistered(TournamentEvent):
    """A player's decklist, checked against the game's deck rules (Harem
    Master's 100.2) and frozen here with every card's definition (deck order,
    top first), each a card of the tournament's game (``game``; None: Harem
    Master, left out of the JSON). A second registration of the same player
    replaces the first and names who changed it (``by``)."""

    player: str
    deck: list[Any]
    by: str | None = None
    replaces: bool = False
    game: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _cards_of_the_game(cls, data: Any) -> Any:
        """A stored deck's cards (mappings) read as the game's card model."""
        if not isinstance(data, Mapping) or not any(isinstance(c, Mapping) for c in data.get("deck") or ()):
            return data
        # the registry resolves a game to its pydantic card model (events.card_type_of says only ``type``)
        card_type = cast("type[BaseModel] | None", card_type_of(data.get("game")))
        if card_type is None:
            raise ValueError("no game's cards are known yet: import referee.ruleset before reading registrations")
        return {**data, "deck": [card_type.model_validate(c) if isinstance(c, Mapping) else c for c in data["deck"]]}

    @model_serializer(mode="wrap")
    def _omit_default_game(self, handler: Any) -> Any:
        return _omit_none(handler(self), "game")


class Pairing(BaseModel):
    """One table of a round: ``B`` is None for a bye (then ``match`` is None too).
    ``match`` is the table's first game; game K of a best-of-N match is
    stored as ``<match>.gK`` (``projections.tournament.game_id``)."""

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
    source: str = "swiss"  # swiss, imported, or playoff (the top cut)
    seed: int = 0  # the matches' seeds derive from it (and the table number)
    started: str | None = None  # when the round's clock started (ISO 8601, UTC)
    minutes: int | None = None  # the round's length (None: no clock)


class PlayerDropped(TournamentEvent):
    """The player leaves the tournament: never paired again; their results stay."""

    player: str
    by: str | None = None
    reason: str | None = None


class PlayerReinstated(TournamentEvent):
    """A drop undone (a mistake, a player who came back): paired again from the next round."""

    player: str
    by: str
    reason: str


class PlayerCheckedIn(TournamentEvent):
    """The player is at the venue: with check-in in use, only players checked in are paired."""

    player: str
    by: str | None = None


class TableRepaired(TournamentEvent):
    """A judge re-pairs one table of the current round: ``A`` and ``B`` play
    there now, in the new match ``match``; the table's old match is void.
    ``B`` None: ``A`` has a bye there; ``A`` None too: the table is taken out
    of the round (its players sit elsewhere now). One re-pair may move
    players between tables: it is then one of these per table it changed,
    written together, so the round is whole after each write. ``at``: when
    (ISO 8601, UTC; None in logs written before it was kept, and left out of
    the JSON then). ``void``: the table's match before, which this voids
    (None in older logs, and for a table that had no match)."""

    round: int
    table: int
    A: str | None
    B: str | None = None
    match: str | None = None
    judge: str
    reason: str
    at: str | None = None
    void: str | None = None

    @model_serializer(mode="wrap")
    def _omit_unknown_time(self, handler: Any) -> Any:
        return _omit_none(_omit_none(handler(self), "at"), "void")


class TimeExtended(TournamentEvent):
    """Extra minutes for one table of a round (a deck check, a long ruling)."""

    round: int
    table: int
    minutes: int
    reason: str
    judge: str


class TimeCalled(TournamentEvent):
    """Time is called on a round (``table`` None: every table without an
    extension still running) or on one table; ``at`` is when (ISO 8601, UTC)."""

    round: int
    table: int | None = None
    judge: str
    at: str


class PenaltyGiven(TournamentEvent):
    """A judge's penalty (TP3): the infraction (one of
    ``referee.tournament.policy.INFRACTIONS``), the penalty, where it
    happened (round, table) and the game it applies to (the game in
    progress, or the next game of the match between games). A game or match
    loss is also entered as the game's result (the same ``GameEnded`` as any
    result); a disqualification also drops the player. A game or match loss
    given when the player has no game to lose (their match is over, or they
    are not paired yet) has ``game`` None: it applies to their next match
    (``PenaltyApplied``)."""

    player: str
    infraction: str
    penalty: str
    judge: str
    round: int | None = None
    table: int | None = None
    game: int | None = None
    note: str = ""


class PenaltyRescinded(TournamentEvent):
    """A penalty taken back by a judge, with the reason (TP3): ``penalty``
    counts the tournament's penalties from 0, in the order they were given.
    It stays in the player's history, marked rescinded; a loss it had not
    applied yet no longer applies, and a rescinded disqualification no
    longer keeps the player out of the placings."""

    penalty: int
    judge: str
    reason: str
    at: str


class PenaltyApplied(TournamentEvent):
    """A game or match loss given between matches (``PenaltyGiven`` with no
    game) applied to the player's next match (TP3): ``penalty`` counts the
    tournament's penalties from 0, in the order they were given."""

    player: str
    penalty: int
    round: int
    table: int
    game: int


class ResultEntered(TournamentEvent):
    """A result entered by hand by a judge (a game logged only at its end):
    ``winner`` is a player's name, or None with ``draw``."""

    match: str
    winner: str | None = None
    draw: bool = False
    judge: str


stored_as(__name__, "events.tournament")  # as they were first stored (``events.names``)
