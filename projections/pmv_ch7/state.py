"""The state of a Phantom Magic Vision chapter-7 match, its fold, and what can be read from it (conditions, values, effects).

``evolve`` records facts and never validates, like every game's fold:
deciding what an effect does is the rules' job (``referee.rules.pmv_ch7``).
The state is a frozen dataclass of tuples, frozensets, small dicts and
named tuples; ``evolve`` returns a new one. Each mutator is registered by
its event class beside its definition (``MUTATORS``).

Besides the cards and where they are (each seat's field, in the order the
cards came onto it, and ``elsewhere``: every other zone, which chapter 7
does not tell apart), the state holds what chapter 7 keeps track of: the
named conditions that hold, the effects being resolved (a stack of frames,
7.1.10), the effects waiting to resolve at the same timing (batches,
7.1.6.a), the interference's used effects (7.3.4.f, 7.3.6), the automatic
α and β effects applying (7.4.5, 7.4.6), the γ conditions last seen holding
(7.4.7), lasting effects (7.1.16) and waiting effects (7.8).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from events.kernel import ActionTaken, EntryUndone, Event, JudgeCalled, NoteAdded, Rewound
from events.names import stored_as
from events.pmv_ch7.cards import Card, Clause, Effect
from events.pmv_ch7.effects import (
    AsUsedBegan,
    AutoApplied,
    AutoChoiceAsked,
    AutoChoiceMade,
    AutoChoiceReleased,
    AutoLapsed,
    CardsMoved,
    ClauseApplied,
    ClauseFailed,
    ConditionCleared,
    ConditionSet,
    CostPaid,
    DeclarationMade,
    EffectApplied,
    EffectNullified,
    EffectPicked,
    EffectUsed,
    EffectVoided,
    FallbackBegan,
    GammaSkipped,
    GammaTriggered,
    GammaWatched,
    InterferenceBegan,
    InterferenceEnded,
    LastingBegan,
    LastingEnded,
    ModeChosen,
    PointsPaid,
    PositionSetUp,
    PriorityGiven,
    PriorityPassed,
    ResolutionBegan,
    ResolutionEnded,
    TextInvalidated,
    TextRewritten,
    TurnPassed,
    ValueAdded,
    WaitingBegan,
    WaitingTriggered,
)
from projections.by_type import ByType
from projections.judging import open_call

SEATS = ("A", "B")
PLACES = ("field", "elsewhere")
ZONES = tuple(f"{seat}.{place}" for seat in SEATS for place in PLACES)


def other(seat: str) -> str:
    """The next player in turn order (there are two)."""
    return SEATS[1 - SEATS.index(seat)] if seat in SEATS else SEATS[0]


# --- what the state keeps ---------------------------------------------------------------


class Used(NamedTuple):
    """An effect used (7.3.4): by whom, its mode and declaration, the points
    its cost took, how many times its card had come onto the field then
    (7.3.1.b), and for each "as if used" clause of its text whether that
    effect's conditions were met when it was used (7.5.1.b)."""

    effect: str
    player: str
    mode: int | None = None
    declared: str | None = None
    paid: int = 0
    entry: int = 0
    met: tuple[bool, ...] = ()


class Interference(NamedTuple):
    """The interference under way (7.3.4.f): every effect used in it (7.3.6)
    and those not yet resolved."""

    used: tuple[str, ...] = ()
    waiting: tuple[Used, ...] = ()


class Item(NamedTuple):
    """An effect waiting to resolve in a batch: ``label`` is ``CARD#N`` (a γ)
    or a waiting effect's id; ``player`` the one who generated it (7.1.6.a)."""

    label: str
    player: str


class Part(NamedTuple):
    """One player's effects in a batch: those in the order chosen so far, and the rest."""

    player: str
    chosen: tuple[Item, ...]
    rest: tuple[Item, ...]


class Batch(NamedTuple):
    """Effects to be resolved at the same timing (7.1.6.a): γ effects whose
    conditions were met together, or waiting effects whose situation came
    together (processed at once, interrupting, 7.1.10). The turn player's
    part comes first."""

    kind: str  # gamma | waiting
    parts: tuple[Part, ...]
    depth: int = 0  # how many effects were being resolved when it came: its effects start when that many are


class Frame(NamedTuple):
    """An effect being resolved: its text as it read when it began (7.1.12.d),
    the next clause to apply (7.1.9), and what the rules need to say how it
    ended (7.1.11, 7.1.12)."""

    kind: str
    effect: str
    source: str
    player: str
    clauses: tuple[Clause, ...]
    pc: int = 0
    mode: int | None = None
    declared: str | None = None
    paid: int = 0
    met: tuple[bool, ...] = ()
    missed: bool = False  # an "all" clause could not apply to some of its cards (7.1.12.e)
    fallback: bool = False  # applying what the text says to do instead (7.1.12.b)
    nullified: bool = False  # 7.1.12.c
    sub: str | None = None  # an effect resolved as if used from here: "waiting", then its outcome (7.5.3)


class Lasting(NamedTuple):
    """What a clause with ``until`` set or added, applying until ``until`` holds (7.1.16)."""

    id: str
    effect: str
    clause: Clause
    cards: tuple[str, ...]
    key: str
    unique: bool


class Waiting(NamedTuple):
    """A waiting effect (7.8.1): ``text``, done by ``player`` when ``when`` holds."""

    id: str
    effect: str
    player: str
    when: tuple[str, ...]
    text: tuple[Clause, ...]


class Result(NamedTuple):
    """How an effect's resolution ended: success, failure, or void (7.3.1.b) or skipped (7.4.7.d)."""

    effect: str
    outcome: str
    rule: str


@dataclass
class Table:
    """Everything chapter 7 keeps track of, and the log position. ``evolve``
    never changes one: it makes the next (the kernel's corrections set a
    restored state's position, so the class is not frozen)."""

    game: str = "pmv-ch7"  # the kernel's corrections find a state's ruleset by it
    position: int = 0
    seed: int = 0
    mode: str = "strict"
    violations: tuple[Any, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    judge_call: str | None = None
    cards: dict[str, Card] = field(default_factory=dict)
    zones: dict[str, tuple[str, ...]] = field(default_factory=lambda: {zone: () for zone in ZONES})
    entered: dict[str, int] = field(default_factory=dict)  # card -> the number of its latest entry onto the field
    entries: int = 0
    turn: str = SEATS[0]
    priority: str = SEATS[0]
    conditions: frozenset[str] = frozenset()
    points: dict[str, int] = field(default_factory=dict)
    added: dict[str, dict[str, int]] = field(default_factory=dict)  # card -> value -> what clauses added
    invalid: frozenset[str] = frozenset()
    texts: dict[str, tuple[Clause, ...]] = field(default_factory=dict)  # rewritten effects (7.1.12.d)
    applying: tuple[str, ...] = ()  # α and β effects applying, in the order they began to
    chosen: dict[str, bool] = field(default_factory=dict)  # 7.4.5.f: an optional α's choice, until met again
    asking: str | None = None  # 7.4.5.f: the optional α whose player is choosing now
    held: frozenset[str] | None = None  # γ effects whose conditions held when last checked (None: not yet)
    lasting: tuple[Lasting, ...] = ()
    waiting: tuple[Waiting, ...] = ()
    pending: tuple[Batch, ...] = ()  # the newest first
    frames: tuple[Frame, ...] = ()  # the innermost last
    using: Used | None = None  # the 7.3.4 procedure under way
    interference: Interference | None = None
    results: tuple[Result, ...] = ()
    ids: int = 0  # ids given to lasting and waiting effects so far
    result: None = None  # chapter 7 ends no game


def initial_state() -> Table:
    """The empty table before the first event."""
    return Table()


# --- reading the state ----------------------------------------------------------------


def ref(card: str, index: int | str) -> str:
    """``Lamp#2``: a card's second effect; ``Lamp#play``: the text applied when its play resolves."""
    return f"{card}#{index}"


def parse_ref(effect: str) -> tuple[str, str]:
    """``Lamp#2`` -> ("Lamp", "2")."""
    card, _, index = effect.rpartition("#")
    return card, index


def zone_of(state: Table, card: str) -> str | None:
    for zone, cards in state.zones.items():
        if card in cards:
            return zone
    return None


def on_field(state: Table, card: str) -> bool:
    zone = zone_of(state, card)
    return zone is not None and zone.endswith(".field")


def field_order(state: Table) -> list[str]:
    """The cards on the field, the first to come onto it first (7.4.5.e)."""
    cards = [c for seat in SEATS for c in state.zones.get(f"{seat}.field", ())]
    return sorted(cards, key=lambda c: state.entered.get(c, 0))


def effect_of(state: Table, effect: str) -> Effect | None:
    """The effect named ``CARD#N`` as it reads now (its text rewritten, 7.1.12.d), or None."""
    card, index = parse_ref(effect)
    cd = state.cards.get(card)
    if cd is None:
        return None
    if index == "play":
        found = cd.play
    elif index.isdigit() and 1 <= int(index) <= len(cd.effects):
        found = cd.effects[int(index) - 1]
    else:
        return None
    if found is not None and effect in state.texts:
        found = found.model_copy(update={"text": state.texts[effect], "modes": ()})
    return found


def effects_of(card: Card) -> list[tuple[str, Effect]]:
    """Every effect of the card with its name, the play text first."""
    out = [(ref(card.name, "play"), card.play)] if card.play is not None else []
    return out + [(ref(card.name, i), e) for i, e in enumerate(card.effects, start=1)]


def text_key(effect: Effect) -> str:
    """The text of an effect, for "exactly the same text" (7.1.14)."""
    return json.dumps(effect.model_dump(mode="json", exclude={"unique"}), sort_keys=True, ensure_ascii=False)


def targets(clause: Clause, source: str) -> list[str]:
    """The cards a clause names, ``self`` being ``source``."""
    return [source if c == "self" else c for c in clause.cards]


class Contribution(NamedTuple):
    """What an applying α or β, or a lasting effect, does while it applies: a
    condition it makes hold, or an amount it adds to a value of cards."""

    key: str
    unique: bool
    clause: Clause
    cards: tuple[str, ...]


def contributions(state: Table) -> list[Contribution]:
    """Everything continuous that applies now: the α and β effects applying
    (their text, 7.4.5, 7.4.6) and the lasting effects (7.1.16)."""
    out: list[Contribution] = []
    for effect in state.applying:
        found = effect_of(state, effect)
        if found is None:
            continue
        source = parse_ref(effect)[0]
        key = text_key(found)
        out += [Contribution(key, found.unique, c, tuple(targets(c, source))) for c in found.text]
    out += [Contribution(x.key, x.unique, x.clause, x.cards) for x in state.lasting]
    return out


def _stacking(found: Iterable[Contribution]) -> list[Contribution]:
    """7.1.7: effects overlap; 7.1.14: of effects that do not stack and read
    exactly the same, only one applies."""
    seen: set[str] = set()
    out = []
    for c in found:
        if c.unique:
            if c.key in seen:
                continue
            seen.add(c.key)
        out.append(c)
    return out


def holds(state: Table, condition: str, frame: Frame | None = None) -> bool:
    """Does the named condition hold? ``not X``: X does not; ``field:CARD``:
    the card is on the field; ``declared:WORD``: the effect being resolved
    was declared so (7.3.4.d); else the condition holds if the position or a
    clause set it, or an applying α, β or lasting effect makes it hold."""
    if condition.startswith("not "):
        return not holds(state, condition[4:], frame)
    if condition.startswith("field:"):
        return on_field(state, condition[6:])
    if condition.startswith("declared:"):
        return frame is not None and frame.declared == condition[9:]
    if condition in state.conditions:
        return True
    return any(c.clause.does == "set" and c.clause.word == condition for c in contributions(state))


def holds_all(state: Table, conditions: Iterable[str], frame: Frame | None = None) -> bool:
    return all(holds(state, c, frame) for c in conditions)


def value(state: Table, card: str, name: str) -> int:
    """A card's value: as printed, plus what clauses added, plus what
    applying α, β and lasting effects add to it (7.1.7, 7.1.14)."""
    cd = state.cards.get(card)
    base = cd.values.get(name, 0) if cd is not None else 0
    base += state.added.get(card, {}).get(name, 0)
    for c in _stacking(contributions(state)):
        if c.clause.does == "add" and c.clause.word == name and card in c.cards:
            base += c.clause.n if c.clause.n is not None else 1
    return base


def value_names(state: Table) -> list[str]:
    """Every value any card has or any clause adds to, sorted."""
    names: set[str] = set()
    for cd in state.cards.values():
        names |= set(cd.values)
        for _, e in effects_of(cd):
            for clauses in (e.text, e.cost, *e.modes):
                names |= {c.word for c in walk(clauses) if c.does == "add" and c.word}
    return sorted(names)


def walk(clauses: Iterable[Clause]) -> Iterable[Clause]:
    """Every clause, and the clauses within them (``else``, ``then``, a rewrite's text)."""
    for c in clauses:
        yield c
        yield from walk(c.text)
        if c.otherwise:
            yield from walk(c.otherwise)


def ready_index(state: Table) -> int | None:
    """The batch whose next effect may begin now: the newest of those whose
    effects being resolved when it came are all that are (a waiting effect is
    processed at once, even within a resolution, 7.1.10, but one at a time,
    7.1.6; a γ only when nothing is being resolved, 7.4.7.c)."""
    for i, batch in enumerate(state.pending):
        if batch.depth == len(state.frames):
            return i
    return None


def unordered(batch: Batch) -> Part | None:
    """The first part of ``batch`` whose player has still to choose an order (the turn player's first, 7.1.6.a)."""
    return next((p for p in batch.parts if p.rest), None)


# --- mutators -------------------------------------------------------------------------

Change = dict[str, Any]
MUTATORS: ByType[Callable[[Table, Any], Change]] = ByType("mutator")


@MUTATORS.on(PositionSetUp)
def _set_up(s: Table, e: PositionSetUp) -> Change:
    zones: dict[str, tuple[str, ...]] = {zone: () for zone in ZONES}
    on = set(e.field)
    entered: dict[str, int] = {}
    for card in e.cards.values():
        place = "field" if card.name in on else "elsewhere"
        zones[f"{card.owner}.{place}"] += (card.name,)
        if place == "field":
            entered[card.name] = len(entered) + 1
    return {
        **initial_state().__dict__,
        "position": s.position,
        "seed": e.seed,
        "mode": e.mode,
        "names": dict(e.names),
        "cards": dict(e.cards),
        "zones": zones,
        "entered": entered,
        "entries": len(entered),
        "turn": e.turn,
        "priority": e.priority,
        "conditions": frozenset(e.conditions),
        "points": {seat: e.points.get(seat, 0) for seat in SEATS},
        "invalid": frozenset(e.invalid),
    }


@MUTATORS.on(ConditionSet)
def _condition_set(s: Table, e: ConditionSet) -> Change:
    return {"conditions": s.conditions | {e.condition}}


@MUTATORS.on(ConditionCleared)
def _condition_cleared(s: Table, e: ConditionCleared) -> Change:
    return {"conditions": s.conditions - {e.condition}}


@MUTATORS.on(CardsMoved)
def _cards_moved(s: Table, e: CardsMoved) -> Change:
    zones = {zone: tuple(c for c in cards if c not in e.cards) for zone, cards in s.zones.items()}
    entered, entries = dict(s.entered), s.entries
    for card in e.cards:
        owner = s.cards[card].owner if card in s.cards else SEATS[0]
        zones[f"{owner}.{e.to}"] += (card,)
        if e.to == "field":
            entries += 1
            entered[card] = entries
        else:
            entered.pop(card, None)
    return {"zones": zones, "entered": entered, "entries": entries}


@MUTATORS.on(ValueAdded)
def _value_added(s: Table, e: ValueAdded) -> Change:
    added = {card: dict(values) for card, values in s.added.items()}
    for card in e.cards:
        mine = added.setdefault(card, {})
        mine[e.value] = mine.get(e.value, 0) + e.n
    return {"added": added}


@MUTATORS.on(PointsPaid)
def _points_paid(s: Table, e: PointsPaid) -> Change:
    return {"points": {**s.points, e.player: s.points.get(e.player, 0) - e.n}}


@MUTATORS.on(TextInvalidated)
def _text_invalidated(s: Table, e: TextInvalidated) -> Change:
    return {"invalid": s.invalid | set(e.cards)}


@MUTATORS.on(TextRewritten)
def _text_rewritten(s: Table, e: TextRewritten) -> Change:
    return {"texts": {**s.texts, e.effect: tuple(e.text)}}


@MUTATORS.on(LastingBegan)
def _lasting_began(s: Table, e: LastingBegan) -> Change:
    kept = Lasting(e.id, e.effect, e.clause, tuple(e.cards), e.key, e.unique)
    return {"lasting": s.lasting + (kept,), "ids": s.ids + 1}


@MUTATORS.on(LastingEnded)
def _lasting_ended(s: Table, e: LastingEnded) -> Change:
    return {"lasting": tuple(x for x in s.lasting if x.id != e.id)}


@MUTATORS.on(WaitingBegan)
def _waiting_began(s: Table, e: WaitingBegan) -> Change:
    kept = Waiting(e.id, e.effect, e.player, tuple(e.when), tuple(e.text))
    return {"waiting": s.waiting + (kept,), "ids": s.ids + 1}


@MUTATORS.on(EffectNullified)
def _effect_nullified(s: Table, e: EffectNullified) -> Change:
    frames = list(s.frames)
    if 0 <= e.depth < len(frames):
        frames[e.depth] = frames[e.depth]._replace(nullified=True)
    return {"frames": tuple(frames)}


def _take_item(s: Table, label: str) -> tuple[Batch, ...]:
    """The pending batches without ``label``, the next item of the ready batch."""
    i = ready_index(s)
    if i is None:
        return s.pending
    batch = s.pending[i]
    parts = []
    for part in batch.parts:
        chosen = tuple(x for x in part.chosen if x.label != label)
        if chosen or part.rest:
            parts.append(part._replace(chosen=chosen))
    pending = list(s.pending)
    if parts:
        pending[i] = batch._replace(parts=tuple(parts))
    else:
        del pending[i]
    return tuple(pending)


@MUTATORS.on(ResolutionBegan)
def _resolution_began(s: Table, e: ResolutionBegan) -> Change:
    change: Change = {}
    if e.kind == "waiting":
        found = next((w for w in s.waiting if w.id == e.effect), None)
        clauses = found.text if found is not None else ()
        change["waiting"] = tuple(w for w in s.waiting if w.id != e.effect)
        change["pending"] = _take_item(s, e.effect)
    else:
        effect = effect_of(s, e.effect)
        if effect is None:
            clauses = ()
        elif e.mode is not None and effect.modes:
            clauses = effect.modes[e.mode - 1] if 0 < e.mode <= len(effect.modes) else ()
        else:
            clauses = effect.text
        if e.kind == "gamma":
            change["pending"] = _take_item(s, e.effect)
        if e.kind == "activated" and s.interference is not None:
            waiting = list(s.interference.waiting)
            for i, used in enumerate(waiting):
                if used.effect == e.effect:
                    del waiting[i]
                    break
            change["interference"] = s.interference._replace(waiting=tuple(waiting))
    frame = Frame(e.kind, e.effect, e.source, e.player, tuple(clauses), 0, e.mode, e.declared, e.paid, tuple(e.met))
    change["frames"] = s.frames + (frame,)
    return change


@MUTATORS.on(ClauseApplied)
def _clause_applied(s: Table, e: ClauseApplied) -> Change:
    if not s.frames:
        return {}
    top = s.frames[-1]
    top = top._replace(pc=top.pc + 1, missed=top.missed or bool(e.missed), sub=None)
    return {"frames": s.frames[:-1] + (top,)}


@MUTATORS.on(ClauseFailed)
def _clause_failed(s: Table, e: ClauseFailed) -> Change:
    if not s.frames:
        return {}
    top = s.frames[-1]
    return {"frames": s.frames[:-1] + (top._replace(pc=top.pc + 1, sub=None),)}


@MUTATORS.on(FallbackBegan)
def _fallback_began(s: Table, e: FallbackBegan) -> Change:
    if not s.frames:
        return {}
    top = s.frames[-1]
    failed = top.clauses[top.pc - 1] if 0 < top.pc <= len(top.clauses) else None
    clauses = failed.otherwise if failed is not None and failed.otherwise else ()
    return {"frames": s.frames[:-1] + (top._replace(clauses=clauses, pc=0, fallback=True),)}


@MUTATORS.on(ResolutionEnded)
def _resolution_ended(s: Table, e: ResolutionEnded) -> Change:
    frames = s.frames[:-1]
    if frames and frames[-1].sub == "waiting":
        frames = frames[:-1] + (frames[-1]._replace(sub=e.outcome),)
    return {"frames": frames, "results": s.results + (Result(e.effect, e.outcome, e.rule),)}


@MUTATORS.on(AsUsedBegan)
def _as_used_began(s: Table, e: AsUsedBegan) -> Change:
    change: Change = {}
    if s.frames:
        change["frames"] = s.frames[:-1] + (s.frames[-1]._replace(sub="waiting"),)
    if s.interference is not None:  # 7.5.1: treated as an effect used (7.3.6)
        change["interference"] = s.interference._replace(used=s.interference.used + (e.effect,))
    return change


@MUTATORS.on(EffectUsed)
def _effect_used(s: Table, e: EffectUsed) -> Change:
    return {"using": Used(e.effect, e.player, entry=e.entry)}


@MUTATORS.on(ModeChosen)
def _mode_chosen(s: Table, e: ModeChosen) -> Change:
    return {"using": s.using._replace(mode=e.mode)} if s.using is not None else {}


@MUTATORS.on(DeclarationMade)
def _declaration_made(s: Table, e: DeclarationMade) -> Change:
    return {"using": s.using._replace(declared=e.word)} if s.using is not None else {}


@MUTATORS.on(CostPaid)
def _cost_paid(s: Table, e: CostPaid) -> Change:
    return {"using": s.using._replace(paid=e.paid, met=tuple(e.met))} if s.using is not None else {}


@MUTATORS.on(InterferenceBegan)
def _interference_began(s: Table, e: InterferenceBegan) -> Change:
    return {"interference": s.interference or Interference()}


@MUTATORS.on(PriorityPassed)
def _priority_passed(s: Table, e: PriorityPassed) -> Change:
    change: Change = {"priority": e.to, "using": None}
    if s.using is not None:
        now = s.interference or Interference()
        change["interference"] = Interference(now.used + (s.using.effect,), now.waiting + (s.using,))
    return change


@MUTATORS.on(EffectVoided)
def _effect_voided(s: Table, e: EffectVoided) -> Change:
    change: Change = {"results": s.results + (Result(e.effect, "void", e.rule),)}
    if s.interference is not None:
        waiting = tuple(u for u in s.interference.waiting if u.effect != e.effect)
        change["interference"] = s.interference._replace(waiting=waiting)
    return change


@MUTATORS.on(InterferenceEnded)
def _interference_ended(s: Table, e: InterferenceEnded) -> Change:
    return {"interference": None}


@MUTATORS.on(AutoApplied)
def _auto_applied(s: Table, e: AutoApplied) -> Change:
    return {"applying": s.applying + (e.effect,)}


@MUTATORS.on(AutoLapsed)
def _auto_lapsed(s: Table, e: AutoLapsed) -> Change:
    return {"applying": tuple(x for x in s.applying if x != e.effect)}


@MUTATORS.on(AutoChoiceAsked)
def _auto_choice_asked(s: Table, e: AutoChoiceAsked) -> Change:
    return {"asking": e.effect}


@MUTATORS.on(AutoChoiceMade)
def _auto_choice_made(s: Table, e: AutoChoiceMade) -> Change:
    return {"asking": None, "chosen": {**s.chosen, e.effect: e.apply}}


@MUTATORS.on(AutoChoiceReleased)
def _auto_choice_released(s: Table, e: AutoChoiceReleased) -> Change:
    return {"chosen": {k: v for k, v in s.chosen.items() if k != e.effect}}


@MUTATORS.on(GammaWatched)
def _gamma_watched(s: Table, e: GammaWatched) -> Change:
    return {"held": frozenset(e.held)}


def _parts(s: Table, items: list[Item]) -> tuple[Part, ...]:
    """A batch's parts, the turn player's first (7.1.6.a); a player with one
    effect has no order to choose."""
    parts = []
    for seat in (s.turn, other(s.turn)):
        mine = tuple(x for x in items if x.player == seat)
        if len(mine) == 1:
            parts.append(Part(seat, mine, ()))
        elif mine:
            parts.append(Part(seat, (), mine))
    return tuple(parts)


@MUTATORS.on(GammaTriggered)
def _gamma_triggered(s: Table, e: GammaTriggered) -> Change:
    """The new batch goes before the γ already waiting (met during an effect,
    they resolve as soon as it ends, 7.4.7.c), after waiting effects still to
    be processed (those are processed at once, 7.8.1; ruling:P9)."""
    items = [Item(x, s.cards[parse_ref(x)[0]].owner) for x in e.effects if parse_ref(x)[0] in s.cards]
    at = next((i for i, b in enumerate(s.pending) if b.kind == "gamma"), len(s.pending))
    batch = Batch("gamma", _parts(s, items))
    return {"held": frozenset(e.held), "pending": s.pending[:at] + (batch,) + s.pending[at:]}


@MUTATORS.on(WaitingTriggered)
def _waiting_triggered(s: Table, e: WaitingTriggered) -> Change:
    by_id = {w.id: w for w in s.waiting}
    items = [Item(x, by_id[x].player) for x in e.ids if x in by_id]
    return {"pending": (Batch("waiting", _parts(s, items), len(s.frames)),) + s.pending}


@MUTATORS.on(GammaSkipped)
def _gamma_skipped(s: Table, e: GammaSkipped) -> Change:
    return {"pending": _take_item(s, e.effect), "results": s.results + (Result(e.effect, "skipped", e.rule),)}


@MUTATORS.on(EffectPicked)
def _effect_picked(s: Table, e: EffectPicked) -> Change:
    i = ready_index(s)
    if i is None:
        return {}
    batch = s.pending[i]
    parts = []
    for part in batch.parts:
        if part.player == e.player and part.rest:
            picked = tuple(x for x in part.rest if x.label == e.effect)
            rest = tuple(x for x in part.rest if x.label != e.effect)
            chosen = part.chosen + picked
            if len(rest) == 1:  # the last one left resolves last: nothing more to choose
                chosen, rest = chosen + rest, ()
            part = Part(part.player, chosen, rest)
        parts.append(part)
    pending = list(s.pending)
    pending[i] = batch._replace(parts=tuple(parts))
    return {"pending": tuple(pending)}


@MUTATORS.on(TurnPassed)
def _turn_passed(s: Table, e: TurnPassed) -> Change:
    return {"turn": e.to}


@MUTATORS.on(PriorityGiven)
def _priority_given(s: Table, e: PriorityGiven) -> Change:
    return {"priority": e.to}


@MUTATORS.on(Rewound, EntryUndone)
def _rewound(s: Table, e: Rewound) -> Change:
    """A judge's rewind: the state it restored; the log position goes on counting."""
    restored = decode_state(e.state, base=s)
    return {**restored.__dict__, "position": s.position, "judge_call": None}


@MUTATORS.on(JudgeCalled)
def _judge_called(s: Table, e: JudgeCalled) -> Change:
    return {"judge_call": open_call(e)}


@MUTATORS.on(NoteAdded)
def _note_added(s: Table, e: NoteAdded) -> Change:
    return {"judge_call": None}  # a judge has come to the table


@MUTATORS.on(ActionTaken, EffectApplied)
def _nothing(s: Table, e: Event) -> Change:
    """A player's action as asked (its effects are the events after it), and
    an effect applied at will (its resolution is the next event)."""
    return {}


def evolve(state: Table, event: Event) -> Table:
    """The state after ``event``: pure and total (an event this fold does not
    know, a player's action as asked among them, only advances the position)."""
    mutator = MUTATORS.get(type(event))
    change = mutator(state, event) if mutator is not None else {}
    change["position"] = state.position + 1
    return replace(state, **change)


def fold(events: Iterable[Event], state: Table | None = None) -> Table:
    s = state if state is not None else initial_state()
    for event in events:
        s = evolve(s, event)
    return s


# --- to JSON and back (snapshots, rewinds): the kernel's walk of the fields -------------


def encode_state(state: Table, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    from projections.encoding import encode_fields

    return encode_fields(state, omit)


def decode_state(data: Mapping[str, Any], base: Table | None = None) -> Table:
    from projections.encoding import decode_fields

    empty = initial_state()
    found: Table = decode_fields(data, Table, vars(empty), base=base)
    return found


stored_as(__name__, "pmv-ch7")  # its named tuples, as encoded states name them (``events.names``)
