"""The state of an SCP-TCG chapter-4 match and its fold: where every card is, nothing more.

``evolve`` records facts and never validates, like Harem Master's
(``projections.harem_master.state``): deciding where a card may go is the rules' job
(``referee.rules.scp_tcg``). The state is a plain object of tuples,
frozensets and small dicts; ``evolve`` copies it once and its mutators
rebind the fields an event changes. Each mutator is registered by its event
class beside its definition (``MUTATORS``).

Zones are per seat (400.1): ``A.site``, the three sandboxes ``A.safe``,
``A.euclid`` and ``A.keter`` (402.1), ``A.tale``, ``A.personnel``,
``A.decommissioned`` and ``A.outside``. Piles are written top first; a site
keeps the order cards came onto it. Cards stacked on a site card (401.5) are
in no zone: ``above``/``below`` map the host to them, nearest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from events.kernel import ActionTaken, EntryUndone, Event, JudgeCalled, NoteAdded, Rewound
from events.names import stored_as
from events.scp_tcg.cards import ScpCard
from events.scp_tcg.zones import (
    GAME,
    CardMoved,
    CardsPlaced,
    CardStacked,
    CardStayed,
    PersonnelRevealed,
    PlacementPending,
    ProtectionRaised,
    ProtectionRestored,
    SandboxBreached,
    SandboxCounted,
    SandboxDamaged,
    SandboxSearched,
    SandboxShuffled,
    TopCardTurned,
    ZoneLooked,
    ZoneReordered,
    ZonesSetUp,
)
from projections.by_type import ByType
from projections.judging import open_call

SEATS = ("A", "B")
KINDS = ("site", "safe", "euclid", "keter", "tale", "personnel", "decommissioned", "outside")  # 400.1
SANDBOXES = {"safe": "Safe", "euclid": "Euclid", "keter": "Keter"}  # 402.1: one per class
INITIAL_PROTECTION = {"Safe": 4, "Euclid": 8, "Keter": 12}  # 402.4: each also the maximum
ZONES = tuple(f"{seat}.{kind}" for seat in SEATS for kind in KINDS)

_new = object.__new__


def seat_of(zone: str) -> str:
    return zone.partition(".")[0]


def kind_of(zone: str) -> str:
    return zone.partition(".")[2]


def owner(card: str) -> str:
    """A card's owner is the seat before the colon of its id (``A:3``)."""
    return card.partition(":")[0]


def sandbox_class(zone: str) -> str | None:
    """The class of the sandbox ``zone`` (``A.keter`` -> Keter), None for another zone."""
    return SANDBOXES.get(kind_of(zone))


class Place(NamedTuple):
    """Where a card is: in a zone, or stacked on a host, or arriving at its
    owner's Decommissioned zone (405.4)."""

    zone: str | None
    host: str | None = None
    side: str | None = None  # above | below
    arriving: bool = False


class ZoneState:
    """Everything on the table that chapter 4 speaks of, and the log position."""

    game: str
    cards: dict[str, ScpCard]
    names: dict[str, str]
    seed: int
    mode: str
    position: int
    zones: dict[str, tuple[str, ...]]
    partners: frozenset[str]  # 401.4
    above: dict[str, tuple[str, ...]]  # 401.5: host -> cards above it, nearest first
    below: dict[str, tuple[str, ...]]
    face_up: frozenset[str]  # sandbox cards turned face up (402.3)
    face_down: frozenset[str]  # personnel cards not yet turned face up (404.1a)
    damage: dict[str, int]  # sandbox -> damage taken (402.5)
    terminated: frozenset[str]  # Decommissioned cards that were terminated (405.2a)
    classes: dict[str, str]  # sandbox card -> the class an effect gave it, while it is there (402.1c)
    arriving: dict[str, tuple[str, ...]]  # seat -> cards its owner is putting on Decommissioned (405.4)
    searched: tuple[str, ...]  # sandboxes to shuffle once the process ends (402.7)
    breaches: tuple[str, ...]  # sandboxes breached, in order (402.6b)
    violations: tuple[Any, ...]  # always empty: chapter 4 has no record mode of its own
    result: None  # chapter 4 ends no game
    judge_call: str | None  # a judge was called and no judge has answered yet: who called, and why

    def copy(self) -> ZoneState:
        new = _new(ZoneState)
        new.__dict__ = self.__dict__.copy()
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZoneState) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    # --- reading the position ------------------------------------------

    def place(self, card: str) -> Place | None:
        """Where ``card`` is now, or None if it is not in this match."""
        for zone, cards in self.zones.items():
            if card in cards:
                return Place(zone)
        for side, table in (("above", self.above), ("below", self.below)):
            for host, cards in table.items():
                if card in cards:
                    return Place(None, host, side)
        for cards in self.arriving.values():
            if card in cards:
                return Place(None, arriving=True)
        return None

    def on_site(self, card: str) -> str | None:
        """The site ``card`` is on (``A.site``), if it is on one."""
        for seat in SEATS:
            if card in self.zones[f"{seat}.site"]:
                return f"{seat}.site"
        return None

    def objects(self, seat: str) -> list[str]:
        """401.3: the objects ``seat`` has: object cards on their site, and only those."""
        return [c for c in self.zones[f"{seat}.site"] if self.cards[c].type == "object"]

    def controller(self, card: str) -> str | None:
        """401.2: whoever has the card on their site controls it (401.4b: a
        partner is always on its owner's); None for a card on no site."""
        site = self.on_site(card)
        return seat_of(site) if site is not None else None

    def in_foundation(self, card: str) -> bool:
        """400.3: the Foundation is every zone of both players but
        Decommissioned and outside the game; cards stacked on a site card
        are in it too though on no site (401.5b)."""
        where = self.place(card)
        if where is None or where.arriving:
            return False
        if where.host is not None:
            return True
        return kind_of(where.zone or "") not in ("decommissioned", "outside")

    def object_class(self, card: str) -> str | None:
        """402.1c: the class an effect gave the card, else its printed one."""
        return self.classes.get(card) or self.cards[card].object_class

    def protection(self, sandbox: str) -> int:
        """402.4/402.5: the initial value less the damage taken."""
        return INITIAL_PROTECTION[SANDBOXES[kind_of(sandbox)]] - self.damage.get(sandbox, 0)

    def stacked(self, host: str) -> tuple[str, ...]:
        return self.above.get(host, ()) + self.below.get(host, ())

    def everywhere(self) -> list[str]:
        """Every card of the match in a fixed order: sites (each card, then
        what is stacked on it), then the piles, then arriving cards."""
        out: list[str] = []
        for seat in SEATS:
            for card in self.zones[f"{seat}.site"]:
                out.append(card)
                out.extend(self.stacked(card))
        for zone in ZONES:
            if kind_of(zone) != "site":
                out.extend(self.zones[zone])
        for seat in SEATS:
            out.extend(self.arriving.get(seat, ()))
        # Stacks whose host has just left the site (401.5c, before the rules move them).
        seen = set(out)
        for host in list(self.above) + list(self.below):
            out.extend(c for c in self.stacked(host) if c not in seen)
            seen.update(self.stacked(host))
        return out


def initial_state() -> ZoneState:
    """The empty table before the first event."""
    s = _new(ZoneState)
    s.__dict__.update(
        game=GAME,
        cards={},
        names={seat: seat for seat in SEATS},
        seed=0,
        mode="strict",
        position=0,
        zones={zone: () for zone in ZONES},
        partners=frozenset(),
        above={},
        below={},
        face_up=frozenset(),
        face_down=frozenset(),
        damage={},
        terminated=frozenset(),
        classes={},
        arriving={},
        searched=(),
        breaches=(),
        violations=(),
        result=None,
        judge_call=None,
    )
    return s


# --- mutators -------------------------------------------------------------------------

MUTATORS: ByType[Callable[[ZoneState, Any], None]] = ByType("mutator")
# Events that change nothing on the table: a player's action as asked (its
# effects are the events after it), what a player looked at or counted, a
# card a rule kept where it was.
NO_EFFECT = (ActionTaken, CardStayed, ZoneLooked, SandboxCounted)


def _take(s: ZoneState, card: str) -> None:
    """Lift ``card`` from wherever it is, with what goes with where it was:
    a sandbox card's face (402.3), a personnel card's (404.1a), a
    Decommissioned card's being terminated (405.2a). What is stacked on it
    stays keyed by it: the rules move those (401.5c)."""
    zones = s.zones
    for zone, cards in zones.items():
        if card in cards:
            zones = dict(zones)
            zones[zone] = tuple(c for c in cards if c != card)
            s.zones = zones
            break
    else:
        for side in ("above", "below"):
            table: dict[str, tuple[str, ...]] = getattr(s, side)
            for host, cards in table.items():
                if card in cards:
                    table = dict(table)
                    rest = tuple(c for c in cards if c != card)
                    if rest:
                        table[host] = rest
                    else:
                        del table[host]
                    setattr(s, side, table)
                    return
        for seat, cards in s.arriving.items():
            if card in cards:
                arriving = dict(s.arriving)
                rest = tuple(c for c in cards if c != card)
                if rest:
                    arriving[seat] = rest
                else:
                    del arriving[seat]
                s.arriving = arriving
                return
    if card in s.face_up:
        s.face_up = s.face_up - {card}
    if card in s.face_down:
        s.face_down = s.face_down - {card}
    if card in s.terminated:
        s.terminated = s.terminated - {card}
    if card in s.classes:
        s.classes = {c: k for c, k in s.classes.items() if c != card}


def _put(s: ZoneState, card: str, zone: str, at: str = "top") -> None:
    zones = dict(s.zones)
    pile = zones[zone]
    if kind_of(zone) == "site" or at == "bottom":
        zones[zone] = pile + (card,)
    else:
        zones[zone] = (card,) + pile
    s.zones = zones


@MUTATORS.on(ZonesSetUp)
def _zones_set_up(s: ZoneState, e: ZonesSetUp) -> None:
    position = s.position
    s.__dict__.update(initial_state().__dict__)
    s.position = position
    s.cards = dict(e.cards)
    s.names = dict(e.names)
    s.seed = e.seed
    s.mode = e.mode
    s.zones = {zone: tuple(e.zones.get(zone, ())) for zone in ZONES}
    s.partners = frozenset(e.partners)
    s.above = {host: tuple(cards) for host, cards in e.above.items() if cards}
    s.below = {host: tuple(cards) for host, cards in e.below.items() if cards}
    s.face_up = frozenset(e.face_up)
    s.face_down = frozenset(e.face_down)
    s.damage = {zone: n for zone, n in e.damage.items() if n}
    s.terminated = frozenset(e.terminated)
    s.classes = dict(e.classes)


@MUTATORS.on(CardMoved)
def _card_moved(s: ZoneState, e: CardMoved) -> None:
    _take(s, e.card)
    _put(s, e.card, e.to, e.at)
    if e.object_class is not None:
        s.classes = {**s.classes, e.card: e.object_class}
    if e.terminated:
        s.terminated = s.terminated | {e.card}


@MUTATORS.on(CardStacked)
def _card_stacked(s: ZoneState, e: CardStacked) -> None:
    _take(s, e.card)
    table = dict(getattr(s, e.side))
    table[e.host] = (e.card,) + table.get(e.host, ())
    setattr(s, e.side, table)


@MUTATORS.on(PlacementPending)
def _placement_pending(s: ZoneState, e: PlacementPending) -> None:
    for card in e.cards:
        _take(s, card)
    arriving = dict(s.arriving)
    arriving[e.player] = arriving.get(e.player, ()) + tuple(e.cards)
    s.arriving = arriving
    if e.terminated:
        s.terminated = s.terminated | set(e.cards)


@MUTATORS.on(CardsPlaced)
def _cards_placed(s: ZoneState, e: CardsPlaced) -> None:
    for card in e.cards:
        _take(s, card)  # from the arriving cards, keeping a terminated mark (405.2a)
        _put(s, card, f"{e.player}.decommissioned")


@MUTATORS.on(SandboxDamaged)
def _sandbox_damaged(s: ZoneState, e: SandboxDamaged) -> None:
    s.damage = {**s.damage, e.sandbox: s.damage.get(e.sandbox, 0) + e.amount}


@MUTATORS.on(ProtectionRaised)
def _protection_raised(s: ZoneState, e: ProtectionRaised) -> None:
    left = s.damage.get(e.sandbox, 0) - e.amount
    damage = {k: v for k, v in s.damage.items() if k != e.sandbox}
    if left:
        damage[e.sandbox] = left
    s.damage = damage


@MUTATORS.on(ProtectionRestored)
def _protection_restored(s: ZoneState, e: ProtectionRestored) -> None:
    s.damage = {k: v for k, v in s.damage.items() if k != e.sandbox}


@MUTATORS.on(SandboxBreached)
def _sandbox_breached(s: ZoneState, e: SandboxBreached) -> None:
    s.breaches = s.breaches + (e.sandbox,)


@MUTATORS.on(SandboxSearched)
def _sandbox_searched(s: ZoneState, e: SandboxSearched) -> None:
    if e.sandbox not in s.searched:
        s.searched = s.searched + (e.sandbox,)


@MUTATORS.on(SandboxShuffled, ZoneReordered)
def _reordered(s: ZoneState, e: SandboxShuffled | ZoneReordered) -> None:
    zone = e.sandbox if isinstance(e, SandboxShuffled) else e.zone
    s.zones = {**s.zones, zone: tuple(e.order)}
    if isinstance(e, SandboxShuffled):
        s.searched = tuple(z for z in s.searched if z != zone)
        # A shuffled pile is a face-down pile again (402.1; docs/rulings.md, S4).
        s.face_up = s.face_up - set(e.order)


@MUTATORS.on(TopCardTurned)
def _top_card_turned(s: ZoneState, e: TopCardTurned) -> None:
    s.face_up = s.face_up | {e.card}


@MUTATORS.on(PersonnelRevealed)
def _personnel_revealed(s: ZoneState, e: PersonnelRevealed) -> None:
    s.face_down = s.face_down - {e.card}


@MUTATORS.on(Rewound, EntryUndone)
def _rewound(s: ZoneState, e: Rewound) -> None:
    """A judge's rewind (``referee.corrections``): the state it restored
    (``encode_state``'s JSON, the fields it leaves out, the cards, taken from
    the state it is folded onto); the log position goes on counting."""
    position = s.position
    s.__dict__.update(decode_state(e.state, base=s).__dict__)
    s.position = position
    s.judge_call = None  # the judge who rewound has answered any call


@MUTATORS.on(JudgeCalled)
def _judge_called(s: ZoneState, e: JudgeCalled) -> None:
    s.judge_call = open_call(e)


@MUTATORS.on(NoteAdded)
def _note_added(s: ZoneState, e: NoteAdded) -> None:
    s.judge_call = None  # a judge has come to the table


def _nothing(s: ZoneState, e: Event) -> None:
    return None


MUTATORS.on(*NO_EFFECT)(_nothing)


def evolve(state: ZoneState, event: Event) -> ZoneState:
    """The state after ``event``: pure (``state`` is not changed) and total (an
    event of a kind this fold does not know only advances the position)."""
    new = _new(ZoneState)
    new.__dict__ = state.__dict__.copy()
    new.position += 1
    mutator = MUTATORS.get(type(event))
    if mutator is not None:
        mutator(new, event)
    return new


def fold(events: Iterable[Event], state: ZoneState | None = None) -> ZoneState:
    """Replay ``events`` from ``state`` (the empty table by default)."""
    s = state if state is not None else initial_state()
    for event in events:
        s = evolve(s, event)
    return s


# --- to JSON and back (snapshots, rewinds) ----------------------------------------------

FORMAT = 1
# Fields added after the format was first written, left out while they hold
# this default (and read as it when absent), so a state encodes to the same
# JSON as before they existed: a rewind stored then still audits intact.
OPTIONAL: dict[str, Any] = {"judge_call": None}


def encode_state(state: ZoneState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    """The state as JSON-ready data: tuples as lists, sets sorted, cards as their JSON."""
    fields: dict[str, Any] = {}
    for key, value in state.__dict__.items():
        if key in omit or (key in OPTIONAL and value == OPTIONAL[key]):
            continue
        if key == "cards":
            fields[key] = {c: cd.model_dump(mode="json") for c, cd in value.items()}
        elif isinstance(value, frozenset):
            fields[key] = sorted(value)
        elif isinstance(value, dict):
            fields[key] = {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}
        elif isinstance(value, tuple):
            fields[key] = list(value)
        else:
            fields[key] = value
    return {"format": FORMAT, "fields": fields}


encode_snapshot = encode_state  # a snapshot is the state's own JSON


def decode_state(data: Mapping[str, Any], base: ZoneState | None = None) -> ZoneState:
    """``encode_state`` undone, equal field for field; omitted fields from ``base``."""
    if data.get("format") != FORMAT:
        raise ValueError(f"state format {data.get('format')!r}, expected {FORMAT}")
    template = initial_state()
    fields = dict(data["fields"])
    out = _new(ZoneState)
    for key, empty in template.__dict__.items():
        if key not in fields and key in OPTIONAL:
            out.__dict__[key] = OPTIONAL[key]
            continue
        if key not in fields:
            if base is None:
                raise ValueError(f"the encoded state has no {key!r}")
            out.__dict__[key] = base.__dict__[key]
            continue
        value = fields[key]
        if key == "cards":
            value = {c: ScpCard.model_validate(cd) for c, cd in value.items()}
        elif isinstance(empty, frozenset):
            value = frozenset(value)
        elif isinstance(empty, tuple):
            value = tuple(value)
        elif isinstance(empty, dict):
            value = {k: tuple(v) if isinstance(v, list) else v for k, v in value.items()}
        out.__dict__[key] = value
    return out


stored_as(__name__, "projections.scp_tcg.state")  # as its snapshots were first stored (``events.names``)
