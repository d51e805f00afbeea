"""The game state and ``evolve``: the pure fold that rebuilds a match from its events.

``evolve(state, event)`` never validates and never raises: deciding what may
happen is the referee's job, and a projection must be able to fold any log,
including a recorded one that breaks the rules. It is also the inner loop of
every replay, so the state is a plain object whose fields are tuples and small
dicts: a step copies the object (one dict copy) and replaces the few fields
the event changes. States are never mutated after ``evolve`` returns them.

``step`` is the procedure's position, named by the rule being performed:
``101.1`` ... ``101.6`` during setup, ``300`` (the next turn is about to
start), ``301`` ... ``304``, ``306`` (the main phase: the 305 window of the
non-active player, then one action of the active player), ``306.5c`` ...
``306.5o`` in a battle, ``307`` ... ``310`` at the end of the turn, ``over``.
The rules decide it and events record it (``Event.step``); ``evolve`` only
moves there. Logs written before that (``log_format`` 1) are read through
``projections.harem_master.legacy``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

from events.harem_master import game as ev
from events.harem_master.cards import CardDef
from events.kernel import Event
from events.names import stored_as
from projections.by_type import ByType
from projections.encoding import decode_fields
from projections.harem_master.legacy import LEGACY_STEPS
from projections.judging import open_call

_new = object.__new__

PLAYERS = ("A", "B")
PILES = ("castle", "hand", "action_stack", "discard", "harem", "execution", "side")
HIDDEN_PILES = ("castle", "hand", "action_stack")  # face down (215): where unknown cards lie
DEFAULT_RULINGS = {"A1": "not_fallen", "A4": "bottom"}
# Fields added after snapshots and rewinds were first stored: written only when
# they differ from these values, and read as these values when absent
# (``projections.harem_master.codec``), so a seeded match's snapshots and rewinds are what
# they always were.
OPTIONAL: dict[str, Any] = {
    "deal": "seeded",
    "unknown": frozenset(),
    "emptied": None,
    "passed_over": None,
    "judge_call": None,
    "seen": frozenset(),
    "pool": (),
}
HAND_MAXIMUM = 7  # 215.3b, 309


def other(player: str) -> str:
    return "B" if player == "A" else "A"


def owner(card: str) -> str:
    """215.1b: a card's owner is the letter before the colon of its id."""
    return card[0]


class Zones:
    """One player's piles, each a tuple of card ids written top first.

    A plain ``__dict__`` object rather than slots: ``evolve`` copies one with a
    single dict copy, the cheapest copy CPython has.
    """

    castle: tuple[str, ...]
    hand: tuple[str, ...]
    action_stack: tuple[str, ...]
    discard: tuple[str, ...]
    harem: tuple[str, ...]
    execution: tuple[str, ...]
    side: tuple[str, ...]

    def __init__(self, **piles: tuple[str, ...]) -> None:
        for name in PILES:
            setattr(self, name, tuple(piles.get(name, ())))

    def __eq__(self, other_: object) -> bool:
        return isinstance(other_, Zones) and self.__dict__ == other_.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Zones(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in PILES) + ")"

    def count(self) -> int:
        return sum(len(getattr(self, n)) for n in PILES)


class Character(NamedTuple):
    """A character on the field (214.2): its card, controller, state, items."""

    card: str
    controller: str
    ready: bool  # untapped (未行動状態, 214.2c)
    items: tuple[str, ...] = ()
    face_down: bool = False  # an opening character before 101.6
    since: int = 0  # the log position it entered the field at: a new object each time (215.10)


_Character = Character.__new__.__get__(Character)  # positional, skips _replace's overhead


class Battle(NamedTuple):
    """The battle in progress (306.5): who fights, its kind, and its outcome."""

    player: str  # the attacking (active) player
    attacker: str | None = None
    interceptor: str | None = None
    kind: str | None = None  # combat | approach | castle
    numbers: tuple[tuple[str, int], ...] = ()  # (player, random number) applied
    winner: str | None = None  # the winning player, None while undecided or drawn
    loser: str | None = None  # the losing character
    done: tuple[str, ...] = ()  # moments already reached in this battle (attack, intercept, 306.5h)


_Battle = Battle.__new__.__get__(Battle)


def _battle(b: Battle | None, player: str) -> Battle:
    return b if b is not None else _Battle(player, None, None, None, (), None, None, ())


class Result(NamedTuple):
    """How the game ended: a winner, or a draw; the rule; scores when counted."""

    winner: str | None
    draw: bool
    rule: str
    ruling: str | None = None
    scores: dict[str, int] | None = None
    reason: str = ""


class Violation(NamedTuple):
    """A broken rule recorded in record mode, open until a judge rules on it."""

    position: int  # the log position of its ViolationRecorded event
    rule: str
    reason: str
    player: str | None


class Use(NamedTuple):
    """A card or ability waiting on the agenda to resolve (407, 408, 409).

    ``id`` is the log position of the event that put it there. ``effects``
    are the effect models that resolve, in order; ``group`` is the next step
    of them to apply (``then`` starts a new one, 407.5) and ``choices`` the
    choices made for that step so far (407.4)."""

    id: int
    kind: str  # event | activated | triggered | replacement
    player: str  # its controller, who makes its choices (401.6, 401.7)
    card: str
    abilities: tuple[Any, ...]  # the ability models that resolve (an event card's "use" ones)
    effects: tuple[Any, ...] = ()  # fixed when it starts to resolve: those whose condition holds
    n: int | None = None
    targets: tuple[str, ...] = ()
    option: str | None = None
    it: str | None = None  # the card the situation it answers is about
    about: int | None = None  # the agenda entry it responds to or replaces
    stage: str = "new"  # new | ready (what comes before it is under way) | resolving
    group: int = 0
    choices: tuple[tuple[str, Any], ...] = ()
    countered: bool = False
    exempt: tuple[str, ...] = ()  # 409.3: replacements that may not apply to what this one does
    known: tuple[tuple[str, Any], ...] = ()  # 403.2: cards that left the field, as they last were there


class Window(NamedTuple):
    """A 406.2 window: the non-active player uses any number, then the
    active player one, and again; two passes in a row close it."""

    id: int
    kind: str  # response | battle_type
    about: int | None  # the agenda entry it is the response chance of (407.3)
    first: str  # the non-active player, who acts first
    passes: int = 0  # passes in a row so far
    last: str | None = None  # who passed last
    situation: str | None = None  # a moment of the procedure it is about (turn_end, ...)
    it: str | None = None
    player: str | None = None


class Proposal(NamedTuple):
    """The moment before a situation (403.1a, 214.3c, 409): ``pending`` are
    the events of the situation itself, which happen once everything that
    resolves before it has."""

    id: int
    situation: str
    it: str | None
    player: str | None
    pending: tuple[Any, ...]
    choices: tuple[tuple[str, Any], ...] = ()
    stage: str = "new"  # new | ready (what comes before it is under way)
    exempt: tuple[str, ...] = ()  # 409: the replacements whose own effects these events are


class Fired(NamedTuple):
    """A triggered ability whose condition was met, waiting to resolve (408)."""

    id: int
    player: str
    card: str
    ability: int
    definition: Any
    situation: str
    it: str | None = None
    ordered: bool = False  # its player has put their simultaneous triggers in order (408.2)
    known: tuple[tuple[str, Any], ...] = ()  # 403.2: (card, LastKnown) of cards that left the field


class Effect(NamedTuple):
    """A continuous effect of a resolved ability (or a static's, while it
    applies), in resolution order (405.1). It applies to the object
    (``target``, ``since``): once that card leaves the field it is a new
    object (215.10) and the effect no longer applies to it."""

    id: int
    source: str
    kind: str  # modify | copy | gain | lose | control | hand_max | no_random
    target: str | None
    since: int
    until: str | None  # end_of_turn (310) | end_of_battle (306.5o) | None
    values: tuple[Any, ...] = ()


class Carried(NamedTuple):
    """308.1 (ruling A12): a turn-end ability to resolve at the next turn's end."""

    player: str
    card: str
    ability: int
    definition: Any


class GameState:
    """Everything a judge could see on the table, and where the procedure is."""

    cards: dict[str, CardDef]
    names: dict[str, str]
    seed: int
    mode: str
    rulings: dict[str, str]
    auto_pass: bool
    position: int  # number of events folded so far
    zones: dict[str, Zones]
    field: tuple[Character, ...]
    orphans: tuple[str, ...]  # items whose character has left the field (214.4f)
    turn: int
    active: str | None
    first: str | None
    step: str
    progress: tuple[str, ...]  # players who have done the current setup step
    chooser: str | None  # 101.3: who chooses to go first or second
    attempts: int  # 101.3: repetitions of the turn-order flip so far
    mulligans: tuple[str, ...]  # players who have used their 101.5 mulligan
    characters_played: int  # character cards used this turn through 306.1 (306.1a)
    window_passed: bool  # the non-active player has passed the current 305 window
    to_move: int  # cards still to move in 303 or to mill in 306.5m
    battle: Battle | None
    hand_max: dict[str, int]
    draw_offer: str | None
    result: Result | None
    violations: tuple[Violation, ...]  # open violations (record mode)
    agenda: tuple[Any, ...]  # Use, Window and Proposal entries, the top last
    triggers: tuple[Fired, ...]  # fired, waiting to resolve (408.2)
    effects: tuple[Effect, ...]  # continuous effects in resolution order
    carried: tuple[Carried, ...]  # 308.1
    turn_end_fired: tuple[str, ...]  # turn-end abilities ("card#n") that triggered this turn (308.1)
    log_format: int  # 1: steps derived by projections.harem_master.legacy; 2: recorded in events
    deal: str  # seeded | table (a paper match logged as it is played)
    unknown: frozenset[str]  # table deal: cards whose identity nobody has revealed (their id's name means nothing)
    # The last castle emptied, and the player whose castle attack or card took
    # its last card out (None when its owner did): ruling A1 ``felled``.
    emptied: tuple[str, str | None] | None
    # 306.5c: the table just before the referee found that the defender could
    # not intercept and went on by itself, kept until the next player action
    # (record mode takes those automatic steps back for a late interception).
    passed_over: "GameState | None"
    judge_call: str | None  # a judge was called and no judge has answered yet: who called, and why
    # Table deal (ruling A36): cards known because the table saw them before a
    # rewind took their reveal back; turned face up again, the table says
    # what they are once more, and must agree.
    seen: frozenset[str]
    pool: tuple[CardDef, ...]  # table deal: the pool the match started with (cards on neither deck list, 100.2)

    def copy(self) -> "GameState":
        new = _new(GameState)
        new.__dict__ = self.__dict__.copy()
        return new

    def __eq__(self, other_: object) -> bool:
        return isinstance(other_, GameState) and self.__dict__ == other_.__dict__

    __hash__ = None  # type: ignore[assignment]

    # --- reading the position ------------------------------------------

    def card(self, card: str) -> CardDef:
        return self.cards[card]

    def character(self, card: str) -> Character | None:
        for ch in self.field:
            if ch.card == card:
                return ch
        return None

    def controlled(self, player: str) -> list[Character]:
        return [ch for ch in self.field if ch.controller == player]

    def score(self, player: str) -> int:
        """102.3/103.2 without the castle bonus (ruling A26)."""
        z = self.zones[player]
        return len(self.controlled(player)) + len(z.harem) + len(z.execution)

    def where(self, card: str) -> str | None:
        """The zone a card is in, as "A.hand", or "field" (a character or an item)."""
        for ch in self.field:
            if ch.card == card or card in ch.items:
                return "field"
        if card in self.orphans:
            return "field"
        for player, z in self.zones.items():
            for pile in PILES:
                if card in getattr(z, pile):
                    return f"{player}.{pile}"
        return None


def initial_state() -> GameState:
    """The state before any event: an empty table."""
    s = GameState.__new__(GameState)
    s.__dict__.update(
        cards={},
        names={"A": "A", "B": "B"},
        seed=0,
        mode="strict",
        rulings=dict(DEFAULT_RULINGS),
        auto_pass=True,
        position=0,
        zones={p: Zones() for p in PLAYERS},
        field=(),
        orphans=(),
        turn=0,
        active=None,
        first=None,
        step="new",
        progress=(),
        chooser=None,
        attempts=0,
        mulligans=(),
        characters_played=0,
        window_passed=False,
        to_move=0,
        battle=None,
        hand_max={p: HAND_MAXIMUM for p in PLAYERS},
        draw_offer=None,
        result=None,
        violations=(),
        agenda=(),
        triggers=(),
        effects=(),
        carried=(),
        turn_end_fired=(),
        log_format=2,
        deal="seeded",
        unknown=frozenset(),
        emptied=None,
        passed_over=None,
        judge_call=None,
        seen=frozenset(),
        pool=(),
    )
    return s


# --- small pure helpers on tuples -------------------------------------------


def _without(pile: tuple[str, ...], card: str) -> tuple[str, ...]:
    if pile and pile[0] == card:  # the top card: most moves take it
        return pile[1:]
    try:
        i = pile.index(card)
    except ValueError:
        return pile
    return pile[:i] + pile[i + 1 :]


def _without_all(pile: tuple[str, ...], cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    gone = set(cards)
    return tuple(c for c in pile if c not in gone)


def _set_zones(s: GameState, player: str, **piles: tuple[str, ...]) -> None:
    zones = s.zones.copy()
    z = _new(Zones)
    d = zones[player].__dict__.copy()
    d.update(piles)
    z.__dict__ = d
    zones[player] = z
    s.zones = zones


def _piles(s: GameState, player: str) -> Zones:
    """The player's zones, copied so the mutator may change them in place:
    the hot path of ``evolve``, so no keyword arguments and no loops."""
    zones = s.zones.copy()
    z = _new(Zones)
    z.__dict__ = zones[player].__dict__.copy()
    zones[player] = z
    s.zones = zones
    return z


def _put_on_top(s: GameState, player: str, pile: str, cards: list[str] | tuple[str, ...]) -> None:
    """Cards arrive one after another, so the last one listed ends on top."""
    current = getattr(s.zones[player], pile)
    _set_zones(s, player, **{pile: tuple(reversed(cards)) + current})


def _to_discard(s: GameState, card: str) -> None:
    """215.5a: a card goes to the top of its owner's discard."""
    z = _piles(s, card[0])
    z.discard = (card,) + z.discard


def _onto_discard(s: GameState, z: Zones, holder: str, card: str) -> None:
    """215.5a, from a pile of ``holder`` whose zones ``z`` were just copied:
    the card is usually the holder's own, so no second copy is needed."""
    if card[0] == holder:
        z.discard = (card,) + z.discard
    else:
        _to_discard(s, card)


def _with_ready(ch: Character, ready: bool) -> Character:
    return _Character(ch.card, ch.controller, ready, ch.items, ch.face_down, ch.since)


def _leave_field(s: GameState, cards: list[str] | tuple[str, ...]) -> None:
    """Characters leave the field; their items wait for 214.4f."""
    gone = set(cards)
    orphans = list(s.orphans)
    kept = []
    for ch in s.field:
        if ch.card in gone:
            orphans.extend(ch.items)
        else:
            kept.append(ch)
    s.field = tuple(kept)
    s.orphans = tuple(orphans)


def _remove_anywhere(s: GameState, card: str) -> None:
    """Take a card out of whichever zone holds it (used where an event moves a
    card whose position a hand-written or recorded log may not agree on)."""
    for player, z in s.zones.items():
        for pile in PILES:
            cur = getattr(z, pile)
            if card in cur:
                _set_zones(s, player, **{pile: _without(cur, card)})
                return
    if any(ch.card == card for ch in s.field):
        _leave_field(s, [card])
        return
    if card in s.orphans:
        s.orphans = _without(s.orphans, card)
        return
    s.field = tuple(ch._replace(items=_without(ch.items, card)) if card in ch.items else ch for ch in s.field)


# --- one mutator per event type ---------------------------------------------
# Each receives a fresh copy of the state and changes it in place, and is
# registered by its event's class beside its definition (``@MUTATORS.on``).

Mutator = Callable[[GameState, Any], None]
MUTATORS: ByType[Mutator] = ByType("mutator")

# The events that change nothing on the table but the procedure's step they
# carry (which every event may: ``_enter``), each with why it needs no mutator.
# ``tests/test_sentences.py`` checks every event class has a mutator or is here.
NO_EFFECT: dict[type[Event], str] = {
    ev.EndDeclared: "307: the declaration is the step it moves to (307), where the non-active player may act",
    ev.EndDeclarationCancelled: "307.1: play goes back to 305, which is the step it carries (306)",
    ev.EndAccepted: "307.2: the turn goes on to 308, the step it carries",
    ev.CounterFailed: "411.2: the use it tried to counter resolves as it would have",
    ev.BattleInterrupted: "306.5 (ruling A18): the battle jumps to 306.5n, the step it carries; 306.5o ends it",
    ev.Conceded: "102.7: the GameEnded that follows it carries the result",
}


def _fresh(s: GameState) -> None:
    """Start over from the empty table, keeping the log position."""
    position = s.position
    s.__dict__.update(initial_state().__dict__)
    s.position = position


def _begin(s: GameState, e: ev.MatchStarted | ev.PositionSetUp) -> None:
    """What every match's first event sets: the cards and the match options."""
    _fresh(s)
    s.cards = dict(e.cards)
    s.names = dict(e.names)
    s.seed = e.seed
    s.mode = e.mode
    s.rulings = {**DEFAULT_RULINGS, **e.rulings}
    s.auto_pass = e.auto_pass
    s.log_format = e.log_format
    s.deal = e.deal


@MUTATORS.on(ev.MatchStarted)
def _match_started(s: GameState, e: ev.MatchStarted) -> None:
    _begin(s, e)
    s.zones = {p: Zones(castle=tuple(e.castles.get(p, ()))) for p in PLAYERS}
    if e.pool:
        s.pool = tuple(e.pool)


@MUTATORS.on(ev.PositionSetUp)
def _position_set_up(s: GameState, e: ev.PositionSetUp) -> None:
    _begin(s, e)
    s.zones = {p: Zones(**{pile: tuple(e.zones.get(f"{p}.{pile}", ())) for pile in PILES}) for p in PLAYERS}
    s.field = tuple(Character(f.card, f.controller, f.ready, tuple(f.items)) for f in e.field)
    s.turn = e.turn
    s.active = e.active
    s.first = e.first
    s.characters_played = e.characters_played
    s.mulligans = PLAYERS  # a position set up mid-game is past 101.5
    if e.deal == "table":
        # A table-dealt position: what lies face down is unknown to the referee
        # (but the cards written as known).
        known = set(e.known)
        s.unknown = frozenset(
            c for p in PLAYERS for pile in HIDDEN_PILES for c in getattr(s.zones[p], pile) if c not in known
        )


@MUTATORS.on(ev.OpeningChosen)
def _opening_chosen(s: GameState, e: ev.OpeningChosen) -> None:
    _set_zones(s, e.player, castle=_without(s.zones[e.player].castle, e.card))
    # 214.2f: a character entering the field from another zone is tapped.
    s.field = s.field + (Character(e.card, e.player, False, (), True, s.position),)
    s.progress = s.progress + (e.player,)


@MUTATORS.on(ev.CastlesShuffled)
def _castles_shuffled(s: GameState, e: ev.CastlesShuffled) -> None:
    for p, order in e.orders.items():
        _set_zones(s, p, castle=tuple(order))
    if s.deal == "table":
        # 101.2 at a table: nobody knows the order, so every castle card is unknown.
        s.unknown = s.unknown | {c for order in e.orders.values() for c in order}


@MUTATORS.on(ev.CardRevealed)
def _card_revealed(s: GameState, e: ev.CardRevealed) -> None:
    """The unknown card at ``e.card``'s place is ``e.identity``: the two swap
    places (both unknown until now, so nothing anyone knew moves)."""
    x, y = e.card, e.identity
    if y is None and e.unlisted is not None and e.definition is not None:
        # A card the deck list does not account for (record mode): a new card
        # at x's place; x leaves every zone and stays unknown, so the names
        # the list has left keep one more than the unknown cards in play.
        new = e.unlisted
        cards = dict(s.cards)
        cards[new] = e.definition
        s.cards = cards
        _swap_ids(s, x, new)
        return
    if y is None:
        if e.definition is not None:
            cards = dict(s.cards)
            cards[x] = e.definition
            s.cards = cards
        s.unknown = s.unknown - {x}
        return
    contradicted = x != y and x in s.seen  # record mode: not the card seen before the rewind (ruling A36)
    if x != y:
        _swap_ids(s, x, y)
    s.unknown = s.unknown - {y}
    if contradicted:
        s.unknown = s.unknown | {x}  # the card seen is somewhere nobody knows now
    if s.seen:  # told again what the table saw before a rewind (ruling A36)
        s.seen = s.seen - {x, y}
    if e.again:
        s.seen = s.seen | {y}


def _swap_ids(s: GameState, x: str, y: str) -> None:
    """Cards ``x`` and ``y`` exchange places, wherever they are."""

    def swap(c: str) -> str:
        return y if c == x else x if c == y else c

    zones = dict(s.zones)
    for p, z in s.zones.items():
        changed = {}
        for pile in PILES:
            cur = getattr(z, pile)
            if x in cur or y in cur:
                changed[pile] = tuple(swap(c) for c in cur)
        if changed:
            nz = _new(Zones)
            nz.__dict__ = {**z.__dict__, **changed}
            zones[p] = nz
    s.zones = zones
    # An unknown card an ability put face up somewhere (hidden.face_up).
    if any(ch.card in (x, y) or x in ch.items or y in ch.items for ch in s.field):
        s.field = tuple(ch._replace(card=swap(ch.card), items=tuple(swap(i) for i in ch.items)) for ch in s.field)
    if x in s.orphans or y in s.orphans:
        s.orphans = tuple(swap(c) for c in s.orphans)


@MUTATORS.on(ev.TurnOrderCardsTurned)
def _turn_order_cards_turned(s: GameState, e: ev.TurnOrderCardsTurned) -> None:
    for p, card in e.cards.items():
        castle = s.zones[p].castle
        _set_zones(s, p, castle=_without(castle, card) + (card,))
    s.attempts = e.attempt
    a, b = e.numbers.get("A", 0), e.numbers.get("B", 0)
    if a != b:
        s.chooser = "A" if a > b else "B"


@MUTATORS.on(ev.TurnOrderChosen)
def _turn_order_chosen(s: GameState, e: ev.TurnOrderChosen) -> None:
    s.first = e.first
    s.chooser = None


@MUTATORS.on(ev.HandDrawn)
def _hand_drawn(s: GameState, e: ev.HandDrawn) -> None:
    z = s.zones[e.player]
    _set_zones(s, e.player, castle=_without_all(z.castle, e.cards), hand=z.hand + tuple(e.cards))
    s.progress = s.progress + (e.player,)


def _mulligan_decided(s: GameState, player: str) -> None:
    s.progress = s.progress + (player,)


@MUTATORS.on(ev.MulliganTaken)
def _mulligan_taken(s: GameState, e: ev.MulliganTaken) -> None:
    z = s.zones[e.player]
    castle = _without_all(z.castle, e.returned) + tuple(e.returned)
    castle = _without_all(castle, e.drawn)
    _set_zones(s, e.player, castle=castle, hand=_without_all(z.hand, e.returned) + tuple(e.drawn))
    s.mulligans = s.mulligans + (e.player,)
    _mulligan_decided(s, e.player)


@MUTATORS.on(ev.HandKept)
def _hand_kept(s: GameState, e: ev.HandKept) -> None:
    _mulligan_decided(s, e.player)


@MUTATORS.on(ev.OpeningsRevealed)
def _openings_revealed(s: GameState, e: ev.OpeningsRevealed) -> None:
    s.field = tuple(ch._replace(face_down=False) if ch.face_down else ch for ch in s.field)


@MUTATORS.on(ev.TurnStarted)
def _turn_started(s: GameState, e: ev.TurnStarted) -> None:
    s.turn = e.turn
    s.active = e.active
    s.characters_played = 0
    s.turn_end_fired = ()
    s.window_passed = False
    s.battle = None


@MUTATORS.on(ev.CharactersUntapped)
def _characters_untapped(s: GameState, e: ev.CharactersUntapped) -> None:
    untap = set(e.cards)
    s.field = tuple(_with_ready(ch, True) if not ch.ready and ch.card in untap else ch for ch in s.field)


@MUTATORS.on(ev.StackReturnedToHand)
def _stack_returned(s: GameState, e: ev.StackReturnedToHand) -> None:
    z = _piles(s, e.player)
    z.action_stack = _without_all(z.action_stack, e.cards)
    z.hand = z.hand + tuple(e.cards)


@MUTATORS.on(ev.StackSizeSet)
def _stack_size_set(s: GameState, e: ev.StackSizeSet) -> None:
    s.to_move = e.count


@MUTATORS.on(ev.CardMovedToStack)
def _card_moved_to_stack(s: GameState, e: ev.CardMovedToStack) -> None:
    z = _piles(s, e.player)
    z.castle = _without(z.castle, e.card)
    z.action_stack = (e.card,) + z.action_stack
    s.to_move = max(0, s.to_move - 1)
    if not z.castle:
        s.emptied = (e.player, None)  # 303: its owner emptied it


@MUTATORS.on(ev.StepPerformed)
def _step_performed(s: GameState, e: ev.StepPerformed) -> None:
    if e.rule == "306.5o":
        s.battle = None  # the battle is over


@MUTATORS.on(ev.WindowPassed)
def _window_passed(s: GameState, e: ev.WindowPassed) -> None:
    top = s.agenda[-1] if s.agenda else None
    if isinstance(top, Window):  # 406.2: one more pass in a row
        s.agenda = s.agenda[:-1] + (top._replace(passes=top.passes + 1, last=e.player),)
    else:  # the 305 window of the main phase
        s.window_passed = True


@MUTATORS.on(ev.CharacterPlayed)
def _character_played(s: GameState, e: ev.CharacterPlayed) -> None:
    z = _piles(s, e.player)
    z.hand = _without(z.hand, e.card)
    s.field = s.field + (_Character(e.card, e.player, False, (), False, s.position),)  # 306.1b
    if not e.counted:  # counted already when it was used (``_situation_proposed``)
        s.characters_played += 1


@MUTATORS.on(ev.EventPlayed)
def _event_played(s: GameState, e: ev.EventPlayed) -> None:
    z = _piles(s, e.player)
    z.hand = _without(z.hand, e.card)
    _onto_discard(s, z, e.player, e.card)
    if e.resolves:
        uses = tuple(a for a in s.cards[e.card].abilities if a.kind == "use")
        _push_use(
            s, Use(s.position, "event", e.player, e.card, uses, (), e.n, tuple(e.targets), e.option, e.it, e.about)
        )


@MUTATORS.on(ev.ItemPlayed)
def _item_played(s: GameState, e: ev.ItemPlayed) -> None:
    z = s.zones[e.player]
    _set_zones(s, e.player, hand=_without(z.hand, e.card))
    s.field = tuple(ch._replace(items=ch.items + (e.card,)) if ch.card == e.target else ch for ch in s.field)
    if not any(ch.card == e.target for ch in s.field):
        s.orphans = s.orphans + (e.card,)  # 214.4g: no character to hold it


# --- abilities: the agenda ----------------------------------------------------------


def _replace_entry(s: GameState, entry_id: int, **changes: Any) -> None:
    s.agenda = tuple(f._replace(**changes) if f.id == entry_id else f for f in s.agenda)


def _push_use(s: GameState, use: Use) -> None:
    """A use in a 406.2 window restarts its count of passes in a row."""
    top = s.agenda[-1] if s.agenda else None
    if isinstance(top, Window):
        s.agenda = s.agenda[:-1] + (top._replace(passes=0, last=None),)
    s.agenda = s.agenda + (use,)


@MUTATORS.on(ev.AbilityActivated)
def _ability_activated(s: GameState, e: ev.AbilityActivated) -> None:
    _push_use(
        s,
        Use(
            s.position,
            "activated",
            e.player,
            e.card,
            (e.definition,),
            (),
            e.n,
            tuple(e.targets),
            e.option,
            e.it,
            e.about,
        ),
    )


@MUTATORS.on(ev.CardTapped)
def _card_tapped(s: GameState, e: ev.CardTapped) -> None:
    _set_ready(s, e.card, False)


@MUTATORS.on(ev.TriggerFired)
def _trigger_fired(s: GameState, e: ev.TriggerFired) -> None:
    known = tuple(e.known.items()) if e.known else ()
    s.triggers = s.triggers + (
        Fired(s.position, e.player, e.card, e.ability, e.definition, e.situation, e.it, False, known),
    )
    if e.situation == "turn_end":
        s.turn_end_fired = s.turn_end_fired + (f"{e.card}#{e.ability}",)
        if e.rule == "308.1":  # a trigger carried from the turn before resolves now
            s.carried = tuple(c for c in s.carried if (c.card, c.ability) != (e.card, e.ability))


@MUTATORS.on(ev.TriggersOrdered)
def _triggers_ordered(s: GameState, e: ev.TriggersOrdered) -> None:
    mine = [t._replace(ordered=True) for t in s.triggers if t.player == e.player]
    rank = {card: i for i, card in enumerate(e.cards)}
    ordered = iter(sorted(mine, key=lambda t: rank.get(t.card, len(rank))))
    s.triggers = tuple(next(ordered) if t.player == e.player else t for t in s.triggers)


@MUTATORS.on(ev.TriggerResolving)
def _trigger_resolving(s: GameState, e: ev.TriggerResolving) -> None:
    if not 0 <= e.index < len(s.triggers):
        return  # a log folded onto a state it does not follow (evolve is total)
    fired = s.triggers[e.index]
    s.triggers = s.triggers[: e.index] + s.triggers[e.index + 1 :]
    s.agenda = s.agenda + (
        Use(s.position, "triggered", fired.player, fired.card, (fired.definition,), it=fired.it, known=fired.known),
    )


@MUTATORS.on(ev.TriggerCarried)
def _trigger_carried(s: GameState, e: ev.TriggerCarried) -> None:
    s.carried = s.carried + (Carried(e.player, e.card, e.ability, e.definition),)


@MUTATORS.on(ev.WindowOpened)
def _window_opened(s: GameState, e: ev.WindowOpened) -> None:
    s.agenda = s.agenda + (Window(s.position, e.kind, e.about, e.player, 0, None, e.situation, e.it, e.whose),)
    if e.kind == "battle_type" and s.battle is not None:
        s.battle = s.battle._replace(done=s.battle.done + ("306.5h",))


@MUTATORS.on(ev.WindowClosed)
def _window_closed(s: GameState, e: ev.WindowClosed) -> None:
    for i in range(len(s.agenda) - 1, -1, -1):
        if isinstance(s.agenda[i], Window):
            s.agenda = s.agenda[:i] + s.agenda[i + 1 :]
            return


@MUTATORS.on(ev.SituationProposed)
def _situation_proposed(s: GameState, e: ev.SituationProposed) -> None:
    s.agenda = s.agenda + (Proposal(s.position, e.situation, e.it, e.player, tuple(e.pending), exempt=tuple(e.exempt)),)
    if e.situation == "use":
        # 306.1a (ruling A28): a character card counts when it is used, here,
        # not when it reaches the field: countered (411.1a), it still counts.
        for held in e.pending:
            if held.get("type") == "CharacterPlayed" and held.get("event", {}).get("counted"):
                s.characters_played += 1
    if s.battle is not None and e.situation in ("attack", "intercept"):
        s.battle = s.battle._replace(done=s.battle.done + (e.situation,))


@MUTATORS.on(ev.MomentBefore)
def _moment_before(s: GameState, e: ev.MomentBefore) -> None:
    _replace_entry(s, e.about, stage="ready")


def _drop_entry(s: GameState, entry_id: int) -> None:
    s.agenda = tuple(f for f in s.agenda if f.id != entry_id)


@MUTATORS.on(ev.SituationProceeds)
def _situation_proceeds(s: GameState, e: ev.SituationProceeds) -> None:
    _drop_entry(s, e.about)


@MUTATORS.on(ev.SituationReplaced)
def _situation_replaced(s: GameState, e: ev.SituationReplaced) -> None:
    """409.2: the replaced situation does not happen (a replaced use does not
    resolve); the replacement's effects wait to resolve instead."""
    if e.about is not None:
        target = next((f for f in s.agenda if f.id == e.about), None)
        if isinstance(target, Use):
            _replace_entry(s, e.about, countered=True)
        elif isinstance(target, Proposal) and e.fact is not None:
            _replace_entry(s, e.about, pending=target.pending[: e.fact] + target.pending[e.fact + 1 :])
            if e.fact < len(target.pending) and target.pending[e.fact].get("type") == "CardMilled":
                # 306.5m: the castle attack's card was dealt with all the same
                # (replaced, not milled): the attack goes on to the next one.
                s.to_move = max(0, s.to_move - 1)
        elif target is not None:
            _drop_entry(s, e.about)
    s.agenda = s.agenda + (
        Use(
            s.position, "replacement", e.player, e.card, (e.definition,), it=e.it, about=e.about, exempt=tuple(e.exempt)
        ),
    )


@MUTATORS.on(ev.Chosen)
def _chosen(s: GameState, e: ev.Chosen) -> None:
    for f in s.agenda:
        if f.id == e.use and isinstance(f, (Use, Proposal)):
            made = (("cards", tuple(e.cards)),) if e.cards else (("option", e.option),)
            _replace_entry(s, f.id, choices=f.choices + made)
            return


@MUTATORS.on(ev.UseResolving)
def _use_resolving(s: GameState, e: ev.UseResolving) -> None:
    for f in s.agenda:
        if f.id == e.use and isinstance(f, Use):
            effects = tuple(x for i in e.active if i < len(f.abilities) for x in f.abilities[i].effects)
            _replace_entry(s, f.id, stage="resolving", effects=effects)
            return


@MUTATORS.on(ev.EffectsApplied)
def _effects_applied(s: GameState, e: ev.EffectsApplied) -> None:
    for f in s.agenda:
        if f.id == e.use and isinstance(f, Use):
            left = f.targets if e.targets_left is None else tuple(e.targets_left)
            _replace_entry(s, f.id, group=f.group + 1, choices=(), targets=left)
            return


@MUTATORS.on(ev.UseResolved)
def _use_resolved(s: GameState, e: ev.UseResolved) -> None:
    _drop_entry(s, e.use)


@MUTATORS.on(ev.UseCountered)
def _use_countered(s: GameState, e: ev.UseCountered) -> None:
    """411.1b: a countered use has no effect; a countered character or item
    card (held at the moment before it was used) never reaches the field."""
    target = next((f for f in s.agenda if f.id == e.countered), None)
    if isinstance(target, Proposal):
        _drop_entry(s, e.countered)
    else:
        _replace_entry(s, e.countered, countered=True)


def _since(s: GameState, card: str | None) -> int:
    ch = s.character(card) if card else None
    return ch.since if ch is not None else -1


def _add_effect(
    s: GameState, source: str, kind: str, target: str | None, until: str | None, values: tuple[Any, ...] = ()
) -> None:
    s.effects = s.effects + (Effect(s.position, source, kind, target, _since(s, target), until, values),)


@MUTATORS.on(ev.ValuesModified)
def _values_modified(s: GameState, e: ev.ValuesModified) -> None:
    _add_effect(s, e.card, "modify", e.target, e.until, (e.physical, e.mental, e.random))


@MUTATORS.on(ev.CharactersTapped)
def _characters_tapped(s: GameState, e: ev.CharactersTapped) -> None:
    cards = set(e.targets)
    s.field = tuple(_with_ready(ch, e.untap) if ch.card in cards else ch for ch in s.field)


@MUTATORS.on(ev.CardMoved)
def _card_moved(s: GameState, e: ev.CardMoved) -> None:
    owner_ = e.target[0]
    from_castle = e.target in s.zones[owner_].castle
    _remove_anywhere(s, e.target)
    if from_castle and not s.zones[owner_].castle:
        # The player whose card's ability took the castle's last card out.
        use = next((f for f in s.agenda if f.id == e.use), None) if e.use is not None else None
        mover = use.player if isinstance(use, Use) else e.card[0]
        s.emptied = (owner_, mover if mover != owner_ else None)
    if e.to == "field":
        # 214.2f: a character entering the field from another zone is tapped.
        s.field = s.field + (_Character(e.target, e.player, False, (), False, s.position),)
    else:
        current = getattr(s.zones[e.player], e.to)
        pile = current + (e.target,) if e.position == "bottom" else (e.target,) + current
        _set_zones(s, e.player, **{e.to: pile})


@MUTATORS.on(ev.BattleTypeChanged)
def _battle_type_changed(s: GameState, e: ev.BattleTypeChanged) -> None:
    if s.battle is not None:
        s.battle = s.battle._replace(kind=e.kind)


@MUTATORS.on(ev.RandomNumberWaived)
def _random_number_waived(s: GameState, e: ev.RandomNumberWaived) -> None:
    _add_effect(s, e.card, "no_random", e.target, "end_of_battle")


@MUTATORS.on(ev.CharacteristicsCopied)
def _characteristics_copied(s: GameState, e: ev.CharacteristicsCopied) -> None:
    _add_effect(s, e.card, "copy", e.target, e.until, (e.source,))


@MUTATORS.on(ev.AbilitiesGained)
def _abilities_gained(s: GameState, e: ev.AbilitiesGained) -> None:
    _add_effect(s, e.card, "gain", e.target, e.until, tuple(e.abilities))


@MUTATORS.on(ev.AbilitiesLost)
def _abilities_lost(s: GameState, e: ev.AbilitiesLost) -> None:
    _add_effect(s, e.card, "lose", e.target, e.until)


@MUTATORS.on(ev.ControlChanged)
def _control_changed(s: GameState, e: ev.ControlChanged) -> None:
    ch = s.character(e.target)
    if ch is None:
        return
    if e.until is not None:
        _add_effect(s, e.card, "control", e.target, e.until, (e.player, ch.controller))
    s.field = tuple(c._replace(controller=e.player) if c.card == e.target else c for c in s.field)


@MUTATORS.on(ev.HandMaximumChanged)
def _hand_maximum_changed(s: GameState, e: ev.HandMaximumChanged) -> None:
    _add_effect(s, e.card, "hand_max", None, e.until, (e.player, e.set, e.by))


@MUTATORS.on(ev.EffectsEnded)
def _effects_ended(s: GameState, e: ev.EffectsEnded) -> None:
    gone = set(e.ids)
    s.effects = tuple(x for x in s.effects if x.id not in gone)


@MUTATORS.on(ev.CostPaid)
def _cost_paid(s: GameState, e: ev.CostPaid) -> None:
    z = _piles(s, e.player)
    z.action_stack = _without(z.action_stack, e.card)
    z.castle = (e.card,) + z.castle


def _set_ready(s: GameState, card: str, ready: bool) -> None:
    s.field = tuple(_with_ready(ch, ready) if ch.card == card else ch for ch in s.field)


@MUTATORS.on(ev.AttackDeclared)
def _attack_declared(s: GameState, e: ev.AttackDeclared) -> None:
    s.battle = _Battle(e.player, None, None, None, (), None, None, ())


@MUTATORS.on(ev.AttackerChosen)
def _attacker_chosen(s: GameState, e: ev.AttackerChosen) -> None:
    _set_ready(s, e.card, False)
    b = _battle(s.battle, e.player)
    s.battle = b._replace(attacker=e.card)


@MUTATORS.on(ev.InterceptionDeclined)
def _interception_declined(s: GameState, e: ev.InterceptionDeclined) -> None:
    if not e.able:  # the state just before this event (s is already one further)
        before = s.copy()
        before.position -= 1
        s.passed_over = before


@MUTATORS.on(ev.InterceptorChosen)
def _interceptor_chosen(s: GameState, e: ev.InterceptorChosen) -> None:
    _set_ready(s, e.card, False)
    s.to_move = 0  # an intercepted battle mills nothing (306.5m is a castle attack's)
    if s.battle is not None:
        b = s.battle
        s.battle = b._replace(interceptor=e.card)


@MUTATORS.on(ev.BattleTypeSet)
def _battle_type_set(s: GameState, e: ev.BattleTypeSet) -> None:
    if s.battle is not None:
        b = s.battle
        s.battle = b._replace(kind=e.kind)


@MUTATORS.on(ev.RandomNumberApplied)
def _random_number_applied(s: GameState, e: ev.RandomNumberApplied) -> None:
    if e.to == "bottom":
        z = _piles(s, e.player)
        z.castle = _without(z.castle, e.card) + (e.card,)
    if s.battle is not None:
        b = s.battle
        numbers = b.numbers + ((e.player, e.number),)
        s.battle = b._replace(numbers=numbers)


@MUTATORS.on(ev.BattleResolved)
def _battle_resolved(s: GameState, e: ev.BattleResolved) -> None:
    b = s.battle
    if b is not None:
        loser = None
        if e.winner is not None:
            loser = b.interceptor if e.winner == b.player else b.attacker
        s.battle = b._replace(winner=e.winner, loser=loser)


@MUTATORS.on(ev.CharacterCaptured)
def _character_captured(s: GameState, e: ev.CharacterCaptured) -> None:
    _leave_field(s, [e.card])
    _put_on_top(s, e.by, e.zone, [e.card])


@MUTATORS.on(ev.CastleAttacked)
def _castle_attacked(s: GameState, e: ev.CastleAttacked) -> None:
    s.to_move = max(0, e.amount)


@MUTATORS.on(ev.CardMilled)
def _card_milled(s: GameState, e: ev.CardMilled) -> None:
    z = _piles(s, e.player)
    z.castle = _without(z.castle, e.card)
    if not z.castle:
        attacker = s.battle.player if s.battle is not None else None
        s.emptied = (e.player, attacker if attacker != e.player else None)
    _onto_discard(s, z, e.player, e.card)
    s.to_move = max(0, s.to_move - 1)


@MUTATORS.on(ev.ItemDiscarded)
def _item_discarded(s: GameState, e: ev.ItemDiscarded) -> None:
    if e.card in s.orphans:
        s.orphans = _without(s.orphans, e.card)
    else:
        _remove_anywhere(s, e.card)
    _put_on_top(s, owner(e.card), "discard", [e.card])


@MUTATORS.on(ev.CharactersDiscarded)
def _characters_discarded(s: GameState, e: ev.CharactersDiscarded) -> None:
    _leave_field(s, e.cards)
    for card in e.cards:
        _put_on_top(s, owner(card), "discard", [card])


@MUTATORS.on(ev.HandLimitDiscarded)
def _hand_limit_discarded(s: GameState, e: ev.HandLimitDiscarded) -> None:
    z = s.zones[e.player]
    _set_zones(s, e.player, hand=_without_all(z.hand, e.cards))
    _put_on_top(s, e.player, "discard", e.cards)


@MUTATORS.on(ev.DrawProposed)
def _draw_proposed(s: GameState, e: ev.DrawProposed) -> None:
    s.draw_offer = e.player


@MUTATORS.on(ev.GameEnded)
def _game_ended(s: GameState, e: ev.GameEnded) -> None:
    s.result = Result(e.winner, e.draw, e.rule, e.ruling, dict(e.scores) if e.scores else None, e.reason)


@MUTATORS.on(ev.ActionTaken)
def _action_taken(s: GameState, e: ev.ActionTaken) -> None:
    if s.draw_offer is not None and e.do not in ("propose_draw", "accept_draw"):
        s.draw_offer = None  # 102.8: playing on declines the offer
    if s.passed_over is not None and e.do != "reveal":
        # A player acted: the referee's steps are no longer its own to take
        # back (a reveal only answers what those steps turned face up).
        s.passed_over = None


@MUTATORS.on(ev.ViolationRecorded)
def _violation_recorded(s: GameState, e: ev.ViolationRecorded) -> None:
    s.violations = s.violations + (Violation(s.position, e.rule, e.reason, e.player),)


@MUTATORS.on(ev.ViolationsAccepted)
def _violations_accepted(s: GameState, e: ev.ViolationsAccepted) -> None:
    s.violations = tuple(v for v in s.violations if e.at and v.position not in e.at)
    s.judge_call = None  # a judge has ruled


@MUTATORS.on(ev.JudgeCalled)
def _judge_called(s: GameState, e: ev.JudgeCalled) -> None:
    s.judge_call = open_call(e)


@MUTATORS.on(ev.StepSkipped)
def _step_skipped(s: GameState, e: ev.StepSkipped) -> None:
    """Undo what the engine did for a step the table skipped, so the state
    mirrors the table (record mode)."""
    player = e.player or s.active
    if e.rule == "301":
        tap = set(e.cards)
        s.field = tuple(_with_ready(ch, False) if ch.card in tap else ch for ch in s.field)
    elif e.rule == "302" and player:
        z = _piles(s, player)
        z.hand = _without_all(z.hand, e.cards)
        z.action_stack = z.action_stack + tuple(e.cards)
    elif e.rule == "303" and player:
        z = _piles(s, player)
        z.action_stack = _without_all(z.action_stack, e.cards)
        z.castle = tuple(reversed(e.cards)) + z.castle
    if e.resumes:
        s.result = None


@MUTATORS.on(ev.NoteAdded)
def _note_added(s: GameState, e: ev.NoteAdded) -> None:
    s.judge_call = None  # a judge has come to the table


@MUTATORS.on(ev.Rewound, ev.EntryUndone)
def _rewound(s: GameState, e: ev.Rewound) -> None:
    """410: the state the judge restored (``projections.harem_master.codec``'s JSON, the
    fields a rewind leaves out taken from the state it is folded onto)."""
    position = s.position
    restored = decode_fields(e.state, GameState, initial_state().__dict__.keys(), OPTIONAL, base=s)
    s.__dict__.update(restored.__dict__)
    s.position = position
    s.judge_call = None  # the judge who rewound has answered any call


def _enter(s: GameState, step: str) -> None:
    """The procedure moves to ``step``, as the event says. Entering 306 again
    after an action of the active player is the 305 window coming round
    again (306: "after each one resolves, go back to 305")."""
    if step != s.step:
        s.progress = ()
        s.step = step
    if step == "306":
        s.window_passed = False


def _record(s: GameState, event: Event) -> None:
    """Apply ``event`` to the private copy ``s``: its facts, then its step."""
    mutator = MUTATORS.table.get(type(event))
    if mutator is not None:
        mutator(s, event)
    step = event.step
    if step is not None:
        _enter(s, step)
    elif s.log_format == 1:
        legacy = LEGACY_STEPS.get(type(event))
        if legacy is not None:
            legacy(s, event)


def evolve(state: GameState, event: Event) -> GameState:
    """The state after ``event``: pure (``state`` is not changed) and total (an
    event of a kind this projection does not know only advances the position)."""
    new = _new(GameState)
    d = new.__dict__ = state.__dict__.copy()
    d["position"] += 1
    _record(new, event)
    return new


def record(s: GameState, event: Event) -> None:
    """``event`` recorded on the private copy ``s``, its position included:
    what ``evolve`` does to its new state, done in place."""
    s.__dict__["position"] += 1
    _record(s, event)


class InPlace:
    """The fold in place (``referee.capabilities.InPlace``): a replay copies
    the state once and records every event on that private copy. The
    mutators only ever rebind fields (they never change a tuple, dict or
    zone object they did not create), so the state copied is left untouched."""

    copy = staticmethod(GameState.copy)
    record = staticmethod(record)


IN_PLACE = InPlace()


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Replay events from ``state`` (the empty table by default).

    Equal to applying ``evolve`` event by event, but the intermediate states
    are never seen, so it copies the state once and lets each mutator work on
    that private copy: the mutators only ever rebind fields (they never change
    a tuple, dict or zone object they did not create), so ``state`` itself is
    left untouched. This is what makes a replay several times faster than
    playing the same events."""
    s = (state if state is not None else initial_state()).copy()
    d = s.__dict__
    mutators = MUTATORS.table
    for event in events:
        d["position"] += 1
        mutator = mutators.get(type(event))
        if mutator is not None:
            mutator(s, event)
        step = event.step
        if step is not None:
            if step != d["step"]:
                d["progress"] = ()
                d["step"] = step
            if step == "306":
                d["window_passed"] = False
        elif d["log_format"] == 1:
            legacy = LEGACY_STEPS.get(type(event))
            if legacy is not None:
                legacy(s, event)
    return s


stored_as(__name__, "projections.state")  # as they were first stored (``events.names``)
