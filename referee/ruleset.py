"""The seam between the kernel and a game: the ``Ruleset`` interface and the registry of games.

The kernel (the event store, the chain, corrections, the scenario runner,
records, notation, simulate, the CLI, the board and tournaments) is meant to
know a game only through this interface, the way OpenSpiel's ``Game`` /
``State`` pair is all its algorithms see and python-chess's variants are
found by name (``chess.variant.find_variant``). A game is found here by the
id its match's first event records (``game``); a first event without one was
written before games had ids and is Harem Master's, so old logs and records
stay readable.

A ruleset may be a fragment of a game (``complete`` False): it then answers
only what its rules document decides and refuses everything else, saying so,
rather than inventing the rest; the kernel keeps whole-game features (decks,
results, tournaments, self-play) for complete rulesets.

``docs/rulesets.md`` maps each place where the kernel still calls Harem
Master directly to the member below that replaces it.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from events import use_card_types

if TYPE_CHECKING:
    from referee.actions import Applied, Refusal
    from referee.inputs import Document

DEFAULT_GAME = "harem-master"

# State, Event, Card and Action are each ruleset's own types; the kernel only
# relies on what ``StateLike`` and ``ActionLike`` say and on events being
# frozen pydantic models with ``rule``, ``ruling`` and ``step``.
State = Any
Event = Any
Card = Any
Action = Any


# --- what the kernel reads from every game's objects ----------------------------------


@runtime_checkable
class StateLike(Protocol):
    """The fields of any game's state that the kernel reads: where the log is,
    who plays, how the match was set up, what a judge must rule on."""

    position: int  # events folded so far
    names: Mapping[str, str]  # seat -> player's name
    seed: int
    mode: str  # strict | record
    violations: Sequence[Any]  # open violations (record mode), each with ``rule``


@runtime_checkable
class ActionLike(Protocol):
    """A player's action as the kernel passes it around: who, which kind, and
    the arguments (``ActionSpec.args`` declares them per kind)."""

    player: str | None
    do: str

    def arguments(self) -> dict[str, object]: ...

    def to_dict(self) -> dict[str, object]: ...


# --- what a game tells the kernel -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must act now, what kind of choice it is, and the rule that asks for it.

    ``player`` None means any seat may enter the next action (a fragment with no
    turn order, where the table enters what a card's process instructs).
    ``chance`` marks a choice that is the table's, not a strategy: a hidden card
    turned face up at a table-dealt match, which the table reveals (OpenSpiel's
    chance node; seeded matches decide those from the seed and never ask)."""

    player: str | None
    kind: str
    rule: str
    text: str  # completes "A must ..."
    chance: bool = False
    # What `referee legal --json` says of it beside who and what kind (Harem
    # Master's ``reveal`` at a table-dealt match: who turns, which rule, why,
    # at most how many; SCP-TCG's ``rule``).
    extra: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One argument of an action kind: its name in the notation, what it holds
    (``card``, ``cards``, ``zone``, ``count``, ``choice``, ``flag``; ``name``,
    ``names``: what the table saw, not a card of the match, as a reveal names
    it), whether it is required and, for a choice, the values it may take."""

    name: str
    kind: str
    required: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One ``do`` of a game: the rule its record cites and the arguments it
    takes. ``args`` None means the game has not declared them."""

    do: str
    rule: str
    args: tuple[ArgSpec, ...] | None = None
    help: str = ""


@dataclass(frozen=True, slots=True)
class StartOption:
    """One of a game's own match settings (``Ruleset.start``'s ``options``),
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
class Setup:
    """What a match was started with (``Ruleset.start``'s arguments), read
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


@runtime_checkable
class RewindRules(Protocol):
    """What the game tells rule-410-style corrections: the rules a rewind may
    cite, the steps a table may be recorded as having skipped, and the events
    that showed someone something hidden (a judge weighing a rewind must know
    the table has seen them)."""

    rules: tuple[str, ...]
    skippable: tuple[str, ...]
    reveals: Mapping[type, str]

    def revealed(self, event: Event, restored: State) -> str | None:
        """What a rewind to ``restored`` cannot hide again of ``event``, in words."""
        ...

    def skip_step(self, state: State, log: Sequence[Event], rule: str, reason: str) -> Applied:
        """Record mode: the table skipped step ``rule``; the events that make
        the state mirror the table, with the skip as an open violation."""
        ...

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[State] | None = None
    ) -> int:
        """The position just before step ``step`` of turn ``turn`` began."""
        ...


@runtime_checkable
class BoardParts(Protocol):
    """A game's own parts of the board's pages, where the board drawn from
    the interface alone (``referee.web.anygame``: zones, sentences, one form
    per action kind) is not enough: its template (in
    ``referee/web/templates/``) and the names it uses, its position, log,
    decision and card texts for a viewer, and its console's controls."""

    TEMPLATE: str  # the template that draws its board
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
class Ruleset(Protocol):
    """Everything the kernel needs from one game.

    Checking an action and listing the legal ones must agree (every listed
    action is accepted; a refused one is never listed), and ``apply`` must be
    ``decide`` followed by ``advance``: OpenSpiel's random-simulation test
    holds every ruleset to that (``tests/test_ruleset.py``)."""

    # --- identity -------------------------------------------------------------
    id: str  # what a first event's ``game`` and a record's format name
    name: str  # for people
    rules_document: str  # the rules it implements, for people
    complete: bool  # False: a fragment, which refuses what its rules do not decide
    seats: tuple[str, ...]  # the players' seats, in order ("A", "B")
    viewers: tuple[str, ...]  # who may look: "judge", each seat, "public"
    record_format: str | None  # a match record's ``format``, None if it has none yet
    rulings: Mapping[str, tuple[str, ...]]  # the rulings a match may select: id -> its choices (``--ruling``)
    first_events: tuple[type, ...]  # the classes a match of this game may start with
    event_modules: tuple[str, ...]  # where its stored event classes live (module names)
    outside: str  # the rule a refusal cites for what its rules do not decide

    # --- cards and decks ------------------------------------------------------
    card_type: type  # the pydantic model of one card's printed characteristics

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, Card]:
        """A card pool's entries (a list of mappings) as cards by name;
        ``InputError`` placed in ``doc`` for a bad one."""
        ...

    def deck_problems(self, cards: Sequence[Card]) -> list[str]:
        """Every way ``cards`` break the game's deck rules, one sentence each."""
        ...

    def bundled_cards(self) -> Mapping[str, Card]:
        """The cards shipped with the referee, searched after a file's own."""
        ...

    def random_deck(self, rng: random.Random, cards: Mapping[str, Card]) -> list[Card]:
        """A legal deck drawn from ``cards`` (self-play, the bench)."""
        ...

    def load_pool(self, file: str | Path) -> dict[str, Card]:
        """A card pool file of this game (``--pool``): its cards by name;
        ``InputError`` naming the file and the place for a bad one."""
        ...

    def load_deck(self, file: str | Path, pools: Sequence[Mapping[str, Card]]) -> list[Card]:
        """A deck file of this game (``--deck``), its cards looked up in
        ``pools`` in order (the caller adds ``bundled_cards()`` where it
        searches them), checked by the deck rules (``deck_problems``);
        ``InputError`` placed in the file otherwise. Tournaments freeze what
        it returns at registration."""
        ...

    # --- starting ---------------------------------------------------------------
    def start(
        self,
        decks: Mapping[str, Sequence[Card]],
        *,
        seed: int,
        deal: str = "seeded",
        names: Mapping[str, str] | None = None,
        mode: str = "strict",
        options: Mapping[str, Any] | None = None,
    ) -> Applied:
        """A new match from checked decks (seat -> cards, top first): its first
        event and every automatic step up to the first decision. ``deal``
        ``table`` is a paper match whose hidden cards the table reveals;
        ``options`` are the game's own match settings (Harem Master's
        ``rulings`` and ``auto_pass``)."""
        ...

    start_options: tuple[StartOption, ...]  # the game's own settings ``referee new`` takes

    def load_decks(self, files: Mapping[str, str], pool: str | None) -> dict[str, list[Card]]:
        """Each seat's deck file, its cards found in the pool file ``pool``
        and then the bundled cards, checked against the deck rules
        (``InputError`` placed in the file); a fragment without decks
        refuses, saying how its matches start."""
        ...

    def start_from_position(self, data: Mapping[str, Any], doc: Document) -> Started:
        """A position written by hand (a scenario's ``setup`` and ``cards``),
        checked, as the events that set it up and the state after them."""
        ...

    def setup_of(self, first_event: Event) -> Setup | None:
        """What the match that begins with ``first_event`` was started with,
        as its record writes it (``start``'s arguments, or for a game whose
        records start from a position, its seed, names and mode); None for a
        match no record of the game can start (Harem Master's scenario positions)."""
        ...

    # --- the state and its fold -----------------------------------------------
    state_type: type[Any]

    def initial_state(self) -> State:
        """The empty table before the first event."""
        ...

    def evolve(self, state: State, event: Event) -> State:
        """The state after ``event``: pure and total (it never validates)."""
        ...

    def fold(self, events: Iterable[Event], state: State | None = None) -> State:
        """``evolve`` over ``events`` from ``state`` (the empty table by default)."""
        ...

    def encode_state(self, state: State, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The state as JSON-ready data (a snapshot, a rewind's restored state).
        A ruleset may also have ``encode_snapshot(state, omit)``, which the
        store then writes its snapshots with (``referee.store.statecodec``):
        a snapshot is the store's cache, never part of an event, so it may
        be written to read back faster; ``decode_state`` reads both."""
        ...

    def decode_state(self, data: Mapping[str, Any], base: State | None = None) -> State:
        """``encode_state`` undone, fields it omitted taken from ``base``."""
        ...

    # --- the procedure ----------------------------------------------------------
    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        """Every ``do`` a player may send."""
        ...

    playout_skips: frozenset[str]  # ``do``s a random playout never picks (conceding would end it early)

    def decision(self, state: State) -> Decision | None:
        """Who must act now and on what (None: the game is over, or nobody)."""
        ...

    def legal_actions(self, state: State) -> list[Action]:
        """Every action the rules accept now."""
        ...

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """At a chance decision, each action the table may take and its
        probability (what a shuffled paper deck would turn up), as OpenSpiel's
        ``chance_outcomes``; empty at a player's decision."""
        ...

    def decide(self, state: State, action: Action) -> list[Event]:
        """The events ``action`` itself causes, or ``IllegalAction`` citing the rule."""
        ...

    def is_legal(self, state: State, action: Action) -> Refusal | None:
        """None if ``decide`` accepts ``action``, else its refusal."""
        ...

    def canonical(self, state: State, action: Action) -> Action:
        """``action`` as ``legal_actions`` writes it (defaults filled in, hints
        for later choices dropped), so an accepted action can be found in the list."""
        ...

    def own_events(self, state: State, action: Action, *, strict: bool = False) -> list[Event]:
        """``decide``'s events after the action's own record (``ActionTaken``)
        and any violations record mode keeps: one indivisible whole."""
        ...

    def advance(self, state: State, out: list[Event] | None = None) -> tuple[list[Event], State]:
        """The automatic rule steps up to the next decision."""
        ...

    def apply(self, state: State, action: Action, *, strict: bool = False) -> Applied:
        """``own_events`` then ``advance``: everything one action causes."""
        ...

    def action_from_mapping(self, data: Mapping[str, Any]) -> Action:
        """An action as the notation writes it (``{player: A, do: ..., ...}``)."""
        ...

    def resolve(self, state: State, action: Action, labels: Mapping[str, str] | None = None) -> Action:
        """The action with every card named by name or label given as an instance id."""
        ...

    def describe_action(self, state: State, action: Action, viewer: str = "judge") -> dict[str, Any]:
        """The action as ``viewer`` may read it (``legal --json``, the board's
        controls): each card argument's name (``card``, ``cards``, ...) beside
        its id (``card_id``, ``cards_ids``; None where hidden), what it costs."""
        ...

    def list_actions(self, described: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
        """Described actions (``describe_action``) as ``referee legal`` and
        the board list them: one line per distinct action, with the ids of
        the copies of a card it stands for (``[""]``: none to show)."""
        ...

    def unlisted_cards(self, state: State, pool: str | None) -> Mapping[str, Card]:
        """Cards an action at ``state`` may name that are no card of the match
        (Harem Master's table-dealt match: the pool file's, then the bundled
        ones), by name; the action carries their definitions
        (``definitions`` in its mapping) so the rules can refuse them or
        record mode record them. Empty where only the match's cards exist."""
        ...

    def result(self, state: State) -> Outcome | None:
        """How the game ended, or None while it goes on (always None for a
        fragment whose rules end no game)."""
        ...

    def scores(self, state: State) -> Mapping[str, int] | None:
        """Each seat's score now, as the game counts it for a game cut short
        (a tournament's time called, scored): None if the game keeps no score."""
        ...

    # --- what people see ------------------------------------------------------
    def view(self, state: State, viewer: str) -> dict[str, Any]:
        """The position as ``viewer`` may see it, as JSON-ready data: what the
        rules hide stays hidden (Harem Master's 215)."""
        ...

    def render_view(self, view: Mapping[str, Any]) -> str:
        """``view`` as text for a terminal."""
        ...

    def describe(self, event: Event, state_before: State, viewer: str = "judge") -> str:
        """One sentence for ``event`` as ``viewer`` may know it."""
        ...

    board: BoardParts | None  # its own parts of the board's pages; None: drawn from this interface alone

    def describe_log(
        self, events: Sequence[Event], state: State, viewer: str = "judge", retracted: Iterable[int] = ()
    ) -> list[dict[str, Any]]:
        """The rows of ``referee log --json`` for ``events`` folded from
        ``state`` (positions continue from it): ``position``, ``type``,
        ``rule``, ``ruling``, ``text`` (as ``viewer`` may know it) and
        ``retracted`` (its position in ``retracted``)."""
        ...

    def card_texts(
        self, state: State, view: Mapping[str, Any] | None = None, actions: Sequence[Mapping[str, Any]] | None = None
    ) -> dict[str, Any] | None:
        """The printed text (and the referee's reading) of each card a view or
        the described actions name, as ``state --json``, ``legal --json`` and
        the board show it; None: the game shows no card text."""

    # --- match records --------------------------------------------------------
    # ``record_format`` names the format; ``referee.records`` reads and writes
    # what every format shares (seed, mode, deal, players, actions, chain).
    record_keys: tuple[str, ...]  # the header's keys that are the game's own, in the format's order
    action_args: tuple[str, ...]  # the keys of a player's action beside ``player`` and ``do``, in the notation's order

    def read_record_header(self, reader: Any, data: Mapping[str, Any]) -> RecordHeader:
        """A record's players, decks and the game's own header keys, checked
        with ``reader`` (a ``referee.scenario.Reader``): ``InputError`` placed
        in the file for a bad one."""
        ...

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        """The decks of a match that started with ``setup`` as its record
        writes them; ``ValueError`` saying why when a record cannot."""
        ...

    def read_action(self, reader: Any, raw: Any, path: tuple[Any, ...]) -> tuple[dict[str, Any], dict | None]:
        """One action of a scenario or record, a player's or a judge's, checked
        (``referee.scenario.read_judge_action`` checks a judge's), with the
        expectation a scenario may attach to it (None if none)."""
        ...

    def with_unlisted(self, state: State, action: Action, lookup: Any) -> Action:
        """``action`` with the definition of a card it shows that no deck
        lists, found with ``lookup(name)`` (record mode); else unchanged."""
        ...

    # --- corrections and scenarios --------------------------------------------
    rewinds: RewindRules | None  # None: the game has no corrections yet

    def load_scenario(self, doc: Document) -> Any:
        """A scenario file of this game, read and checked (``InputError`` if not)."""
        ...

    def run_scenario(self, scenario: Any) -> Any:
        """Run a loaded scenario: a ``referee.scenario.ScenarioReport``."""
        ...


def rows_by_event(
    ruleset: Ruleset, events: Sequence[Event], state: State, viewer: str = "judge", retracted: Iterable[int] = ()
) -> list[dict[str, Any]]:
    """``describe_log`` for a game whose sentences each read one event and the
    state before it (``describe``)."""
    out = set(retracted)
    rows = []
    for event in events:
        pos = state.position + 1
        rows.append(
            {
                "position": pos,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": getattr(event, "ruling", None),
                "text": ruleset.describe(event, state, viewer),
                "retracted": pos in out,
            }
        )
        state = ruleset.evolve(state, event)
    return rows


# --- the registry -----------------------------------------------------------------------


class UnknownGame(LookupError):
    """A game id no ruleset is registered for."""


# Game id -> "module:attribute" of its ruleset object, imported on first use so
# that a command touching one game never imports another. Adding a game is a
# package and one line here.
_REGISTERED: dict[str, str] = {
    "harem-master": "referee.rules.harem_master.ruleset:HAREM_MASTER",
    "scp-tcg-s4": "referee.rules.scp_tcg.ruleset:SCP_TCG_ZONES",
}
_loaded: dict[str, Ruleset] = {}


def register(game: str, where: str) -> None:
    """Register the ruleset at ``where`` ("module:attribute") under ``game``."""
    if game in _REGISTERED and _REGISTERED[game] != where:
        raise ValueError(f"game {game!r} is already registered at {_REGISTERED[game]}")
    _REGISTERED[game] = where


def games() -> list[str]:
    """Every registered game id, in the order they were registered."""
    return list(_REGISTERED)


def get(game: str | None = None) -> Ruleset:
    """The ruleset registered as ``game`` (Harem Master when None)."""
    key = DEFAULT_GAME if game is None else game
    found = _loaded.get(key)
    if found is not None:
        return found
    where = _REGISTERED.get(key)
    if where is None:
        raise UnknownGame(f"no game {key!r}: the referee knows {', '.join(repr(g) for g in _REGISTERED)}")
    module, _, attribute = where.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    _loaded[key] = found
    return found


def _card_type(game: str | None) -> type:
    return get(game).card_type


use_card_types(_card_type)  # a tournament's registrations read their cards as their game's


def game_of(first_event: Any) -> str:
    """The game a match's first event names; Harem Master for logs written
    before first events named one."""
    return getattr(first_event, "game", None) or DEFAULT_GAME


def of_first_event(first_event: Any) -> Ruleset:
    """The ruleset a match's log is folded and decided with."""
    return get(game_of(first_event))


def ruleset_fits(ruleset: object) -> list[str]:
    """The members of ``Ruleset`` that ``ruleset`` lacks (empty: it has them
    all); ``isinstance`` with a Protocol says only yes or no."""
    wanted = [name for name in _protocol_members(Ruleset)]
    missing = [name for name in wanted if not hasattr(ruleset, name)]
    rewinds = getattr(ruleset, "rewinds", None)
    if rewinds is not None:
        missing += [f"rewinds.{name}" for name in _protocol_members(RewindRules) if not hasattr(rewinds, name)]
    board = getattr(ruleset, "board", None)
    if board is not None:
        missing += [f"board.{name}" for name in _protocol_members(BoardParts) if not hasattr(board, name)]
    return missing


def _protocol_members(protocol: type) -> list[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names.update(name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_"))
    return sorted(names)


__all__ = [
    "DEFAULT_GAME",
    "ActionLike",
    "ActionSpec",
    "ArgSpec",
    "BoardParts",
    "Decision",
    "Outcome",
    "outcome_json",
    "RecordDecks",
    "RecordHeader",
    "RewindRules",
    "Ruleset",
    "Setup",
    "StartOption",
    "Started",
    "StateLike",
    "UnknownGame",
    "game_of",
    "games",
    "get",
    "of_first_event",
    "register",
    "rows_by_event",
    "ruleset_fits",
]
