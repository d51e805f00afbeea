"""The state of a 幻想郷夢紀行 §4 match and its fold: where every card is, each companion's 気力, what waits to resolve.

``evolve`` records facts and never validates: deciding what may happen is
the rules' job (``referee.rules.gensokyo``). The state is a
dataclass of tuples and small dicts, so the kernel's generic encoding
(``projections.encoding``) writes its snapshots and a rewind's restored state.

Zones (docs/games/gensokyo-s4.md): the shared piles ``deck`` (山札),
``character_deck`` (人妖の山) and ``fantasy`` (幻想), top first, and per seat
``A.hand``, ``A.party`` (仲間), ``A.journey`` (旅路) and ``A.items`` (呪品).
What waits to resolve is ``stack``, oldest first (4-5b: the newest resolves
first); an intervention card being used is on it, in no zone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from events.gensokyo.cards import GensokyoCard
from events.gensokyo.table import (
    GAME,
    CardDiscarded,
    CardDrawn,
    CardMoved,
    ChoiceAsked,
    CostPaid,
    EffectNotResolved,
    EffectResolved,
    EffectUsed,
    KiPaid,
    KiRecovered,
    LineApplied,
    LineSkipped,
    PlayerEliminated,
    ResolutionBegan,
    TableSetUp,
)
from events.kernel import EntryUndone, Event, JudgeCalled, NoteAdded, Rewound
from events.names import stored_as
from projections.by_type import ByType
from projections.encoding import decode_fields
from projections.judging import open_call

SEATS = ("A", "B")
SHARED = ("deck", "character_deck", "fantasy")  # 4-7: 山札, 人妖の山, 幻想
OWN = ("hand", "party", "journey", "items")
ZONES = (*SHARED, *(f"{seat}.{kind}" for seat in SEATS for kind in OWN))
HAND_MAX = 10  # 4-6a: 通常は10枚


def seat_of(zone: str) -> str | None:
    seat, dot, _ = zone.partition(".")
    return seat if dot else None


def kind_of(zone: str) -> str:
    return zone.partition(".")[2] or zone


class Entry(NamedTuple):
    """One effect waiting to resolve, or resolving (4-5): who uses it, what
    it is, its lines, and how far its resolution has gone."""

    player: str
    kind: str  # travel | intervention | ability | action
    card: str | None
    ability: str | None
    timing: str | None
    text: str
    lines: tuple[str, ...]
    resolving: bool = False
    line: int = 0  # the line being resolved
    question: str | None = None  # what ``chooser`` must answer now (ChoiceAsked)
    chooser: str | None = None  # who answers it (the user, or the other player for 相手は疲労)
    rule: str = ""  # the rule that asks it
    n: int = 0
    paid: bool = False  # the line's costs are paid: its effect comes next


@dataclass
class Table:
    """Everything on the table that §4 speaks of, and the log position.

    The fold never changes a state (``evolve`` makes a new one with
    ``replace``); the class is not frozen because the kernel's audit sets a
    decoded rewind's ``position`` before comparing it (``corrections.rewinds_consistent``)."""

    game: str = GAME
    position: int = 0
    seed: int = 0
    mode: str = "strict"
    names: dict[str, str] = field(default_factory=dict)
    cards: dict[str, GensokyoCard] = field(default_factory=dict)
    zones: dict[str, tuple[str, ...]] = field(default_factory=lambda: {z: () for z in ZONES})
    ki: dict[str, int] = field(default_factory=dict)  # party characters' 気力 now (4-4e)
    hand_max: dict[str, int] = field(default_factory=dict)  # 4-6a
    cannot: dict[str, tuple[str, ...]] = field(default_factory=dict)  # 4-1d: 活力, 疲労, ドロー, 捨て
    stack: tuple[Entry, ...] = ()  # oldest first (4-5b)
    eliminated: tuple[str, ...] = ()  # 4-5f
    violations: tuple[Any, ...] = ()  # always empty: §4 has no record mode
    judge_call: str | None = None  # a judge was called and no judge has answered yet

    # --- reading ---------------------------------------------------------------------

    def where(self, card: str) -> str | None:
        """The zone holding ``card`` (None: on the stack, being used, or no card)."""
        for zone, cards in self.zones.items():
            if card in cards:
                return zone
        return None

    def hand(self, seat: str) -> tuple[str, ...]:
        return self.zones.get(f"{seat}.hand", ())

    def party(self, seat: str) -> tuple[str, ...]:
        return self.zones.get(f"{seat}.party", ())

    def maximum(self, seat: str) -> int:
        return self.hand_max.get(seat, HAND_MAX)

    def top(self) -> Entry | None:
        return self.stack[-1] if self.stack else None

    def on_stack(self, card: str) -> bool:
        return any(e.card == card and e.kind == "intervention" for e in self.stack)

    def name(self, card: str | None) -> str:
        if card is None:
            return "?"
        cd = self.cards.get(card)
        return cd.name if cd is not None else card


_new = object.__new__
MUTATORS: ByType[Callable[[Table, Any], Table]] = ByType("mutator")


def _take(zones: dict[str, tuple[str, ...]], card: str) -> None:
    for zone, cards in zones.items():
        if card in cards:
            zones[zone] = tuple(c for c in cards if c != card)


def _put(zones: dict[str, tuple[str, ...]], card: str, zone: str, at: str = "top") -> None:
    pile = zones.get(zone, ())
    # A pile's top is its first card; a hand, a party, a journey or the items
    # keep the order cards came in.
    zones[zone] = (card, *pile) if at == "top" and zone in SHARED else (*pile, card)


def _moved(s: Table, card: str, zone: str, at: str = "top") -> Table:
    was = s.where(card)
    zones = dict(s.zones)
    _take(zones, card)
    _put(zones, card, zone, at)
    ki = s.ki
    if kind_of(zone) == "party":
        if was is None or kind_of(was) != "party":  # a character joins a party at its printed 気力
            printed = s.cards[card].ki if card in s.cards else None
            ki = {**ki, card: printed or 0}
    elif card in ki:
        ki = {c: n for c, n in ki.items() if c != card}  # 気力 is a companion's: a card leaving the party keeps none
    return replace(s, zones=zones, ki=ki)


def _top(s: Table, **changes: Any) -> Table:
    top = s.stack[-1]
    return replace(s, stack=(*s.stack[:-1], top._replace(**changes)))


@MUTATORS.on(TableSetUp)
def _set_up(s: Table, e: TableSetUp) -> Table:
    return Table(
        position=s.position,
        seed=e.seed,
        mode=e.mode,
        names=dict(e.names),
        cards=dict(e.cards),
        zones={zone: tuple(e.zones.get(zone, ())) for zone in ZONES},
        ki=dict(e.ki),
        hand_max={seat: e.hand_max.get(seat, HAND_MAX) for seat in SEATS},
        cannot={seat: tuple(kinds) for seat, kinds in e.cannot.items() if kinds},
    )


@MUTATORS.on(CardMoved)
def _card_moved(s: Table, e: CardMoved) -> Table:
    return _moved(s, e.card, e.to, e.at)


@MUTATORS.on(CardDrawn)
def _card_drawn(s: Table, e: CardDrawn) -> Table:
    return _moved(s, e.card, f"{e.player}.hand")


@MUTATORS.on(CardDiscarded)
def _card_discarded(s: Table, e: CardDiscarded) -> Table:
    return _moved(s, e.card, e.to, "bottom" if e.to == "character_deck" else "top")


@MUTATORS.on(EffectUsed)
def _effect_used(s: Table, e: EffectUsed) -> Table:
    entry = Entry(e.player, e.kind, e.card, e.ability, e.timing, e.text, tuple(e.lines))
    zones = s.zones
    if e.kind == "intervention" and e.card is not None:
        zones = dict(zones)
        _take(zones, e.card)  # the card is being used: on the stack, in no zone
    return replace(s, zones=zones, stack=(*s.stack, entry))


@MUTATORS.on(ResolutionBegan)
def _resolution_began(s: Table, e: ResolutionBegan) -> Table:
    return _top(s, resolving=True, line=0) if s.stack else s


@MUTATORS.on(ChoiceAsked)
def _choice_asked(s: Table, e: ChoiceAsked) -> Table:
    return _top(s, question=e.question, chooser=e.player, rule=e.rule, n=e.n) if s.stack else s


@MUTATORS.on(CostPaid)
def _cost_paid(s: Table, e: CostPaid) -> Table:
    return _top(s, question=None, chooser=None, rule="", n=0, paid=True) if s.stack else s


@MUTATORS.on(LineSkipped, LineApplied)
def _line_done(s: Table, e: LineSkipped | LineApplied) -> Table:
    if not s.stack:
        return s
    return _top(s, line=s.stack[-1].line + 1, question=None, chooser=None, rule="", n=0, paid=False)


@MUTATORS.on(KiPaid)
def _ki_paid(s: Table, e: KiPaid) -> Table:
    if e.card not in s.ki:
        return s
    return replace(s, ki={**s.ki, e.card: s.ki[e.card] - e.amount})


@MUTATORS.on(KiRecovered)
def _ki_recovered(s: Table, e: KiRecovered) -> Table:
    if e.card not in s.ki:
        return s
    return replace(s, ki={**s.ki, e.card: s.ki[e.card] + e.amount})


@MUTATORS.on(EffectResolved, EffectNotResolved)
def _effect_done(s: Table, e: EffectResolved | EffectNotResolved) -> Table:
    return replace(s, stack=s.stack[:-1])


@MUTATORS.on(PlayerEliminated)
def _eliminated(s: Table, e: PlayerEliminated) -> Table:
    return replace(s, eliminated=(*s.eliminated, e.player))


@MUTATORS.on(Rewound, EntryUndone)
def _rewound(s: Table, e: Rewound | EntryUndone) -> Table:
    """A judge's rewind or an undo: the state it restored (the fields it
    leaves out, the cards, taken from the state it is folded onto); the log
    position goes on counting, and any call is answered."""
    restored = decode_state(e.state, base=s)
    return replace(restored, position=s.position, judge_call=None)


@MUTATORS.on(JudgeCalled)
def _judge_called(s: Table, e: JudgeCalled) -> Table:
    return replace(s, judge_call=open_call(e))


@MUTATORS.on(NoteAdded)
def _note_added(s: Table, e: NoteAdded) -> Table:
    return replace(s, judge_call=None)


def evolve(state: Table, event: Event) -> Table:
    """The state after ``event``: pure and total (an event this fold does not
    know, a player's ``ActionTaken`` among them, only advances the position)."""
    mutator = MUTATORS.get(type(event))
    s = mutator(state, event) if mutator is not None else state
    return replace(s, position=state.position + 1)


def fold(events: Iterable[Event], state: Table | None = None) -> Table:
    s = state if state is not None else Table()
    for event in events:
        s = evolve(s, event)
    return s


def decode_state(data: Any, base: Table | None = None) -> Table:
    """A state the kernel's walk encoded (``projections.encoding``), fields it left out from ``base``."""
    empty = Table()
    return decode_fields(data, Table, vars(empty), base=base)


stored_as(__name__, GAME)  # its state, as its snapshots are stored (``events.names``)
