"""What a game may have beyond its core: each capability a small Protocol of its own, absent (None) when the game lacks it.

A game's core (``referee.ruleset.Ruleset``) is enough to store, act on, show,
list, rewind by hand and test a match started from a written position. Each
capability here adds one whole feature, and the kernel asks for it by name
(``Ruleset.need``), saying in one line when a game lacks it:

| capability | what it adds | who asks |
|---|---|---|
| ``Decks`` | card pools, deck files and their rules, a match dealt from decks, a random legal deck | ``referee new --deck``, tournaments, self-play |
| ``Records`` | a match record's format: its header, its decks, where its match starts | ``referee export``, ``audit``, ``import`` |
| ``Scenarios`` | the expectations a scenario file may check beyond the kernel's own, its own top keys | ``referee scenario check`` |
| ``ScenarioWriter`` | a stretch of a stored match written as a scenario | ``referee scenario from`` |
| ``RewindRules`` | the rules a judge's rewind cites, the steps a table may skip, what each event revealed | ``referee rewind``, the board's judge |
| ``BoardParts`` | the game's own templates and words on the board's pages | ``referee serve`` |
| ``Tournaments`` | the score of a game cut short | ``referee event`` |
| ``SelfPlay`` | chance outcomes and the moves a random playout never picks | ``referee simulate``, ``bench`` |
| ``Codec`` | the state to JSON and back, where the kernel's generic walk will not do | snapshots, rewinds |
| ``InPlace`` | a fold that copies the state once per replay | the store, replays |

The data the capabilities speak in (``Setup``, ``RecordHeader``...) is here too.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from events.kernel import Event

if TYPE_CHECKING:
    from referee.actions import Refusal
    from referee.inputs import Document

State = Any
Card = Any
Action = Any


# --- the data capabilities speak in ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, as python-chess's ``Outcome``: a winner or a draw, the
    rule (and ruling) that decided it, scores where counted."""

    winner: str | None
    draw: bool
    rule: str
    ruling: str | None = None
    scores: Mapping[str, int] | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """The result as every ``--json`` and read model prints it."""
        return {
            "winner": self.winner,
            "draw": self.draw,
            "rule": self.rule,
            "ruling": self.ruling,
            "scores": dict(self.scores) if self.scores is not None else None,
            "reason": self.reason,
        }


def outcome_json(outcome: Outcome | None) -> dict[str, Any] | None:
    """A game's result as data: null while the game goes on."""
    return None if outcome is None else outcome.to_json()


@dataclass(frozen=True, slots=True)
class Started:
    """A match's first events, the state after them and, for a position written
    by hand, the labels its cards were given (scenario format)."""

    events: list[Any]
    state: Any
    labels: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class StartOption:
    """One of a game's own match settings (``Decks.start``'s ``options``),
    as ``referee new`` takes it. ``kind`` ``pairs``: a repeated
    ``--flag KEY=CHOICE``, each key once, read as a mapping (``choices``:
    each key's values); ``off``: a flag that turns the option (True unless
    given) off."""

    name: str  # the key in ``options``
    flag: str  # the command line's option: ``--ruling``, ``--no-auto-pass``
    kind: str  # pairs | off
    help: str
    choices: Mapping[str, tuple[str, ...]] | None = None
    metavar: str = ""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a match was started with (``Decks.start``'s arguments), read
    back from its first event: a match record writes it, and replaying the
    record starts the very same match from it."""

    decks: Mapping[str, Sequence[Any]]  # seat -> cards, top first
    seed: int
    deal: str
    names: Mapping[str, str]
    mode: str
    options: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RecordHeader:
    """What a match record's header says besides its format, seed, mode and
    deal, as its game reads it: each seat's player and deck (checked against
    the game's deck rules), the game's own settings (``Setup.options``) and
    where the record's card names get their definitions (``get(name)``, for a
    card the table showed that no deck lists), or None."""

    names: Mapping[str, str]
    decks: Mapping[str, Sequence[Any]]  # seat -> cards, top first
    options: Mapping[str, Any]
    catalog: Any = None
    started: Started | None = None  # a record that starts from a position: the match it sets up


@dataclass(frozen=True, slots=True)
class RecordDecks:
    """A match's decks as its record writes them: the card definitions it
    carries (``cards:`` entries), each seat's deck entries in their exact
    order, and the cards shown that no deck lists, by name (a replay finds
    their definitions there)."""

    cards: list[dict[str, Any]]
    decks: Mapping[str, list[Any]]
    unlisted: Mapping[str, Any]
    more: Mapping[str, Any] = field(
        default_factory=dict
    )  # the header's other keys of the game (a position's ``setup``)


# --- the capabilities -------------------------------------------------------------------


@runtime_checkable
class Decks(Protocol):
    """Cards, pools and decks: a match dealt from two checked decks."""

    card_type: type  # the pydantic model of one card's printed characteristics
    start_options: tuple[StartOption, ...]  # the game's own settings ``referee new`` takes

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, Card]:
        """A card pool's entries (a list of mappings) as cards by name;
        ``InputError`` placed in ``doc`` for a bad one."""
        ...

    def bundled_cards(self) -> Mapping[str, Card]:
        """The cards shipped with the referee, searched after a file's own."""
        ...

    def load_pool(self, file: str | Path) -> dict[str, Card]:
        """A card pool file (``--pool``): its cards by name; ``InputError``
        naming the file and the place for a bad one."""
        ...

    def load_deck(self, file: str | Path, pools: Sequence[Mapping[str, Card]]) -> list[Card]:
        """A deck file (``--deck``), its cards looked up in ``pools`` in order,
        checked by the deck rules; ``InputError`` placed in the file otherwise.
        Tournaments freeze what it returns at registration."""
        ...

    def load_decks(self, files: Mapping[str, str], pool: str | None) -> dict[str, list[Card]]:
        """Each seat's deck file, its cards found in the pool file ``pool`` and
        then the bundled cards, checked (``InputError`` placed in the file)."""
        ...

    def deck_problems(self, cards: Sequence[Card]) -> list[str]:
        """Every way ``cards`` break the game's deck rules, one sentence each."""
        ...

    def random_deck(self, rng: random.Random, cards: Mapping[str, Card]) -> list[Card]:
        """A legal deck drawn from ``cards`` (self-play, the bench)."""
        ...

    def start(
        self,
        decks: Mapping[str, Sequence[Card]],
        *,
        seed: int,
        deal: str,
        names: Mapping[str, str] | None,
        mode: str,
        options: Mapping[str, Any],
    ) -> list[Event]:
        """A new match's first events from checked decks (seat -> cards, top
        first); the kernel runs the automatic steps after them. ``deal``
        ``table`` is a paper match whose hidden cards the table reveals;
        ``options`` are the game's own settings (``start_options``)."""
        ...

    def unlisted_cards(self, state: State, pool: str | None) -> Mapping[str, Card]:
        """Cards an action at ``state`` may name that are no card of the match
        (a table-dealt match: the pool file's, then the bundled ones), by
        name; empty where only the match's cards exist."""
        ...

    def with_unlisted(self, state: State, action: Action, lookup: Any) -> Action:
        """``action`` with the definition of a card it shows that no deck
        lists, found with ``lookup(name)`` (record mode); else unchanged."""
        ...


@runtime_checkable
class Records(Protocol):
    """A match record of the game: its format and what of it is the game's."""

    format: str  # a record's ``format`` (``harem-master-record/1``)
    keys: tuple[str, ...]  # the header's keys that are the game's own, in the format's order
    action_args: tuple[str, ...]  # the keys of a player's action beside ``player`` and ``do``

    def setup_of(self, first_event: Event) -> Setup | None:
        """What the match beginning with ``first_event`` was started with, as
        its record writes it; None for a match no record can start."""
        ...

    def read_header(self, reader: Any, data: Mapping[str, Any]) -> RecordHeader:
        """A record's players, decks and the game's own header keys, checked
        with ``reader`` (a ``referee.scenario.Reader``)."""
        ...

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        """The decks of a match that started with ``setup`` as its record
        writes them; ``ValueError`` saying why when a record cannot."""
        ...


@runtime_checkable
class Scenarios(Protocol):
    """What a scenario file of the game may say beyond the kernel's own keys
    and expectations (``referee.scenario``: name, rules, question, setup,
    actions, refused, decision, result, events)."""

    keys: tuple[str, ...]  # its own top keys (Harem Master's ``cards``, ``pool``, ``format``)

    def read(self, reader: Any, data: Mapping[str, Any]) -> tuple[Started, Any]:
        """The position a file sets up, and where its actions' card names get
        their definitions (None if nowhere but the match)."""
        ...

    def check_shape(self, reader: Any, expect: Any, path: tuple[Any, ...]) -> None:
        """``InputError`` for an expectation the game does not know, placed."""
        ...

    def check(
        self, expect: dict[str, Any], state: State, log: list[Event], refusal: Refusal | None, labels: dict[str, str]
    ) -> list[str]:
        """Every way the state, log and last refusal differ from ``expect``."""
        ...


@runtime_checkable
class ScenarioWriter(Protocol):
    """A stretch of a stored match written back as a scenario file."""

    def write(self, log: Sequence[Event], at: int, to: int | None, viewer: str, match: str, title: str | None) -> Any:
        """The scenario (``referee scenario from``); ``ValueError`` when it cannot be written."""
        ...


@runtime_checkable
class RewindRules(Protocol):
    """What the game tells rule-410-style corrections: the rules a rewind may
    cite, the steps a table may be recorded as having skipped, and the events
    that showed someone something hidden (a judge weighing a rewind must know
    the table has seen them)."""

    rules: tuple[str, ...]
    skippable: tuple[str, ...]
    reveals: Mapping[type, str]
    words: Mapping[str, str]  # each rule's words beside its number on the board's rewind form

    def revealed(self, event: Event, restored: State) -> str | None:
        """What a rewind to ``restored`` cannot hide again of ``event``, in words."""
        ...

    def skip_step(self, state: State, log: Sequence[Event], rule: str, reason: str) -> list[Event]:
        """Record mode: the table skipped step ``rule``; the events that make
        the state mirror the table, with the skip as an open violation (the
        kernel runs the automatic steps after them)."""
        ...

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[State] | None = None
    ) -> int:
        """The position just before step ``step`` of turn ``turn`` began."""
        ...


@runtime_checkable
class BoardParts(Protocol):
    """A game's own parts of the board's pages, where the board drawn from
    the core alone (``referee.web.anygame``: zones, sentences, one form per
    move) is not enough: its template (in the game's package) and the
    names it uses, its position, log, decision and card texts for a viewer,
    and its console's controls."""

    TEMPLATE: str  # the template that draws its board, under its id (its ruleset's ``templates``)
    TEMPLATE_GLOBALS: Mapping[str, Any]  # names its template reads
    LOOK_AHEAD: int  # events read past a page of the log to finish its last action

    def view(self, state: State, viewer: str) -> dict[str, Any]:
        """The position as ``viewer`` may see it, as the board draws it."""
        ...

    def log_rows(
        self, events: Sequence[Event], state: State, viewer: str, start: int, stop: int, retracted: frozenset[int]
    ) -> list[dict[str, Any]]:
        """The log rows of ``events[start:stop]`` from ``state``, as ``viewer`` may read them."""
        ...

    def decision(self, state: State, viewer: str) -> dict[str, Any] | None:
        """Who must act, and the legal actions for those who may read them."""
        ...

    def page_card_texts(
        self, state: State, view: dict[str, Any], decision: dict[str, Any] | None
    ) -> dict[str, dict[str, Any]]:
        """The text of every card the page names, as its viewer may read it."""
        ...

    def controls(
        self, state: State, seat: str | None = None, described: list[dict[str, Any]] | None = None
    ) -> dict[str, Any] | None:
        """The console's controls for the decision in front of the table."""
        ...

    def entry_menus(self, state: State) -> dict[str, Any]:
        """Record mode's menus: whatever the table did may be entered."""
        ...

    def action_of(self, state: State, line: str) -> Action | None:
        """The legal action a control's line names, None if none does."""
        ...


@runtime_checkable
class Tournaments(Protocol):
    """What a tournament needs of a game beyond decks and a result."""

    def scores(self, state: State) -> Mapping[str, int] | None:
        """Each seat's score now, as the game counts a game cut short (time
        called, ``--at-time score``); None if it keeps none (the judge then
        enters the result)."""
        ...


@runtime_checkable
class SelfPlay(Protocol):
    """Random play: what chance decides and what a random player never picks."""

    playout_skips: frozenset[str]  # ``do``s a random playout never picks (conceding would end it early)

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """At a chance decision, each action the table may take and its
        probability (OpenSpiel's ``chance_outcomes``); empty at a player's."""
        ...


@runtime_checkable
class Codec(Protocol):
    """The state to JSON and back, where the kernel's walk of a dataclass
    (``projections.encoding``) will not do."""

    def encode_state(self, state: State, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The state as JSON-ready data (a snapshot, a rewind's restored state)."""
        ...

    def encode_snapshot(self, state: State, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The store's snapshot (never part of an event, so it may be written
        to read back faster); ``decode_state`` reads both."""
        ...

    def decode_state(self, data: Mapping[str, Any], base: State | None = None) -> State:
        """``encode_state`` undone, fields it omitted taken from ``base``."""
        ...


@runtime_checkable
class InPlace(Protocol):
    """A fold that copies the state once and records every event on that
    private copy: a replay never builds the states between."""

    def copy(self, state: State) -> State:
        """A private copy of ``state`` that ``record`` may change."""
        ...

    def record(self, state: State, event: Event) -> None:
        """``event`` recorded on the private copy ``state`` (its position included)."""
        ...


CAPABILITIES: dict[str, type] = {
    "decks": Decks,
    "records": Records,
    "scenarios": Scenarios,
    "scenario_writer": ScenarioWriter,
    "rewinds": RewindRules,
    "board": BoardParts,
    "tournaments": Tournaments,
    "selfplay": SelfPlay,
    "codec": Codec,
    "in_place": InPlace,
}
