"""Rules 403, 408-408.1 and 409-409.2: situations, the triggers they fire and the replacements that change them.

A triggered ability produces its effect once each time its condition is
met (408, 408.1; the order of simultaneous ones, 408.2, is the agenda's). A
replacement stops what it replaces and does its own instead (409, 409.1;
none for the discards of 214.2e, 409.1a): the replaced situation does not
happen (409.2), which the fold records (``SituationReplaced``); which of
several applies is chosen on the agenda (409.3).

A *situation* is something that happens in the game, named as card text
names it (``captured``, ``enter_field``, ...; docs/abilities.md section 3),
with the card it is about and the player whose action or card it is.

- ``happened`` turns the events of one step into the situations they are
  (a capture is ``captured`` and ``leave_field``; 214.2e discards are none,
  403.2a), for the triggers that fire after them (403.1b);
- ``moved`` names the cards an event moves from one zone to another: every
  such event of a rule step or a card goes through the one pipeline of
  ``agenda.pipeline`` (proposal, 409, 403.1a, the move, 403.1b, checks);
- ``listeners`` says whether anything in play cares about a situation
  before it happens (a ``before`` trigger, 403.1a; a use only usable then,
  214.3c/402.2a; a replacement, 409): only then does the referee stop at
  the moment before it (``moment_before``).
- ``fire`` finds the triggered abilities a situation meets (408.1), reading
  a card that left the field as it last was there (403.2).
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from events.harem_master.abilities import Situation
from events.harem_master.game import (
    AbilityActivated,
    AttackerChosen,
    BattleTypeChanged,
    BattleTypeSet,
    CardMilled,
    CardMoved,
    CardMovedToStack,
    CastleAttacked,
    CharacterCaptured,
    CharacterPlayed,
    CharactersDiscarded,
    CostPaid,
    EventPlayed,
    HandDrawn,
    HandLimitDiscarded,
    InterceptionDeclined,
    InterceptorChosen,
    ItemDiscarded,
    ItemPlayed,
    LastKnown,
    MulliganTaken,
    OpeningChosen,
    RandomNumberApplied,
    StackReturnedToHand,
    TriggerFired,
    TriggerResolving,
    UseResolved,
)
from events.kernel import Event
from projections.harem_master.state import GameState, evolve, other
from referee.rules.harem_master.characteristics import (
    MISSING,
    Reader,
    abilities,
    carried,
    carry,
    chars,
    controller_of,
    field_cards,
    has_text,
    holds,
    match,
    memo,
    on_field,
    picks,
    roster,
    statics_give,
    zone_of,
)

# Situations whose card is leaving where it was: they are read in the state
# just before (403.2).
LEAVING = frozenset({"leave_field", "captured", "discard", "mill"})


class Sit(NamedTuple):
    """One situation: its name, the card it is about, whose it is, and the
    details its filters can ask about (``to``, ``zone``, ``type``, ``from``,
    ``card_type``, ``ability``)."""

    event: str
    card: str | None
    player: str | None
    details: tuple[tuple[str, Any], ...] = ()

    def detail(self, key: str) -> Any:
        for k, v in self.details:
            if k == key:
                return v
        return None

    def key(self) -> str:
        return f"{self.event}:{self.card or ''}"


# --- does an ability's situation match? -------------------------------------------------


def meets(state: GameState, reader: Reader, want: Situation, sit: Sit) -> bool:
    """Does ``sit`` meet the ability's ``on``/``only``/``also``/``instead_of``,
    read from the ability's point of view?"""
    if want.event != sit.event:
        return False
    if want.player != "any":
        mine = reader.controller if want.player == "you" else other(reader.controller)
        if sit.player != mine:
            return False
    if want.card is not None:
        if sit.card is None or not picks(state, reader, want.card, sit.card):
            return False
    details = _DETAILS_OF.get(type(want))
    if details is None:
        details = _DETAILS_OF[type(want)] = tuple((k, f) for k, f in _DETAILS if f in type(want).model_fields)
    for key, field in details:
        value = getattr(want, field)
        if value is not None and sit.detail(key) != value:
            return False
    return True


# The details a situation of card text may ask for, as ``Sit.detail`` names
# them and as its model's field; each kind of situation has only some, read
# from its class once (asking a pydantic model for a field it lacks is slow).
_DETAILS = (
    ("to", "to"),
    ("zone", "zone"),
    ("type", "type"),
    ("from", "from_"),
    ("card_type", "card_type"),
    ("ability", "ability"),
)
_DETAILS_OF: dict[type, tuple[tuple[str, str], ...]] = {}


# --- what events are as situations ----------------------------------------------------


# ``event`` is an Event, typed Any: mypy cannot narrow the dispatch on ``type(event)`` below.
def happened(before: GameState, after: GameState, event: Any) -> list[tuple[Sit, GameState]]:
    """The situations ``event`` is, each with the state to read it in: the one
    just before for a card leaving where it was (403.2), else the one after."""
    t = type(event)
    if t is CharacterPlayed or t is ItemPlayed:
        card = event.card
        kind = "character" if t is CharacterPlayed else "item"
        return [
            (Sit("use", card, event.player, (("card_type", kind), ("ability", False))), after),
            (Sit("enter_field", card, event.player), after),
        ]
    if t is EventPlayed and not event.resolves:
        # 407.2: an event card with nothing to resolve is still used (a card
        # with abilities is a use once its agenda entry resolves, below).
        return [(Sit("use", event.card, event.player, (("card_type", "event"), ("ability", False))), after)]
    if t is CardMoved:
        out: list[tuple[Sit, GameState]] = []
        src = zone_of(before, event.target)
        owner = event.target[0]
        if src == "field":
            out.append(
                (Sit("leave_field", event.target, controller_of(before, event.target), (("to", event.to),)), before)
            )
        if event.to == "field":
            out.append((Sit("enter_field", event.target, event.player), after))
        if event.to == "discard":
            out.append((Sit("discard", event.target, owner, (("from", src),)), before))
            if src == "castle":
                out.append((Sit("mill", event.target, owner), before))
        return out
    if t is CharacterCaptured:
        ctrl = controller_of(before, event.card)
        return [
            (Sit("captured", event.card, ctrl, (("zone", event.zone),)), before),
            (Sit("leave_field", event.card, ctrl, (("to", event.zone),)), before),
        ]
    if t is CardMilled:
        return [
            (Sit("mill", event.card, event.player), before),
            (Sit("discard", event.card, event.player, (("from", "castle"),)), before),
        ]
    if t is HandLimitDiscarded:
        return [(Sit("discard", c, event.player, (("from", "hand"),)), before) for c in event.cards]
    if t is ItemDiscarded:
        return [
            (Sit("leave_field", event.card, event.card[0], (("to", "discard"),)), before),
            (Sit("discard", event.card, event.card[0], (("from", "field"),)), before),
        ]
    if t is CharactersDiscarded:
        # 403.2a, 409.1a: a 214.2e discard is no leaving of the field for
        # triggers or replacements; it is still a card put into a discard pile.
        return [(Sit("discard", c, c[0], (("from", "field"),)), before) for c in event.cards]
    if t is AttackerChosen:
        return [(Sit("attack", event.card, event.player), after)]
    if t is InterceptorChosen:
        return [(Sit("intercept", event.card, event.player), after)]
    if t is InterceptionDeclined:
        b = after.battle
        return [(Sit("no_intercept", b.attacker if b else None, event.player), after)]
    if t is BattleTypeSet or t is BattleTypeChanged:
        return [(Sit("battle_type", None, after.active, (("type", event.kind),)), after)]
    if t is CastleAttacked:
        b = before.battle
        return [(Sit("castle_attack", b.attacker if b else None, other(event.player)), after)]
    if t is RandomNumberApplied:
        return [(Sit("random_number", event.character, event.player), after)]
    if t is UseResolved:
        entry = next((f for f in before.agenda if getattr(f, "id", None) == event.use), None)
        if entry is None or entry.kind in ("triggered", "replacement"):
            return []
        card_type = before.cards[entry.card].type
        return [
            (
                Sit(
                    "use", entry.card, entry.player, (("card_type", card_type), ("ability", entry.kind == "activated"))
                ),
                after,
            )
        ]
    if t is TriggerResolving:
        return [(Sit("trigger", event.card, event.player), after)]
    return []


# --- what moves where ---------------------------------------------------------------

# The events that move cards from one zone to another, each with the cards it
# moves. Card text and rule steps make every one of them through
# ``agenda.pipeline``; ``tests/test_card_moves.py`` checks that each one
# happened through it (or that nothing could have cared), scenario by scenario.
MOVES: dict[type, Any] = {
    OpeningChosen: lambda e: (e.card,),  # 101.1
    HandDrawn: lambda e: tuple(e.cards),  # 101.4
    MulliganTaken: lambda e: (*e.returned, *e.drawn),  # 101.5
    StackReturnedToHand: lambda e: tuple(e.cards),  # 302
    CardMovedToStack: lambda e: (e.card,),  # 303
    CharacterPlayed: lambda e: (e.card,),  # 306.1
    EventPlayed: lambda e: (e.card,),  # 306.2, 214.3e
    ItemPlayed: lambda e: (e.card,),  # 306.3
    CostPaid: lambda e: (e.card,),  # 215.4c
    CharacterCaptured: lambda e: (e.card,),  # 306.5k, 306.5l
    CardMilled: lambda e: (e.card,),  # 306.5m
    HandLimitDiscarded: lambda e: tuple(e.cards),  # 309
    CharactersDiscarded: lambda e: tuple(e.cards),  # 214.2e
    ItemDiscarded: lambda e: (e.card,),  # 214.4f, 214.4g
    CardMoved: lambda e: (e.target,),  # card text (407.5), 411.1c
}


def moved(ev: Event) -> tuple[str, ...]:
    """The cards ``ev`` moves from one zone to another (none for other events)."""
    found = MOVES.get(type(ev))
    return found(ev) if found is not None else ()


# ``ev`` is an Event, typed Any: mypy cannot narrow the test of ``type(ev)`` below.
def one_card_each(ev: Any) -> list[Event]:
    """A move of several cards at once as one event per card, so that a
    replacement (409.1) replaces the move of the card it is about and the
    others still happen; the step, if any, goes with the last."""
    t = type(ev)
    if t is not HandLimitDiscarded and t is not CharactersDiscarded:
        return [ev]
    cards = list(ev.cards)
    if len(cards) < 2:
        return [ev]
    last = len(cards) - 1
    return [ev.model_copy(update={"cards": [c], "step": ev.step if i == last else None}) for i, c in enumerate(cards)]


def use_situation(state: GameState, entry: Any) -> Sit:
    """The situation of a card or ability on the agenda: ``use`` (407.2) or ``trigger``."""
    if entry.kind == "triggered":
        return Sit("trigger", entry.card, entry.player)
    card_type = state.cards[entry.card].type
    return Sit("use", entry.card, entry.player, (("card_type", card_type), ("ability", entry.kind == "activated")))


# --- triggered abilities in play -----------------------------------------------------------


class Source(NamedTuple):
    """A triggered, replacement or usable ability working where its card is (401.4)."""

    card: str
    # among the card's current abilities, from 1; the field hides tuple.index
    index: int  # type: ignore[assignment]
    ability: Any
    controller: str


def sources(state: GameState, kind: str) -> list[Source]:
    """Every ability of ``kind`` that works now: on the field by default
    (401.4a), or from the zone its ``zone:`` names (401.4). Unless statics
    give abilities, they change only with the field, the effects and (for
    the few cards whose text works from another zone) the zones, so they are
    carried from state to state while those stay the same. A state is asked
    several times (``cares`` alone asks for three kinds, then again), so the
    answer is also kept with the state."""
    if not has_text(state):
        return []
    m = memo(state)
    name = _SOURCES_KEY.get(kind) or "src:" + kind
    found = m.get(name)
    if found is not None:
        return found
    if statics_give(state):
        found = m[name] = _sources(state, kind)
        return found
    where = _off_field_zones(state, kind)
    present = roster(state)
    key = (state.cards, present, state.effects, *where) if where else (state.cards, present, state.effects)
    found = carried(name, key)
    if found is MISSING:
        found = carry(name, key, _sources(state, kind))
    m[name] = found
    return found


_SOURCES_KEY = {kind: "src:" + kind for kind in ("triggered", "replacement", "activated", "static", "use")}


_working_off_field: list[Any] = [None, {}, {}]


def _off_field_zones(state: GameState, kind: str) -> tuple[str | None, ...]:
    """The zones of the cards with an ability of ``kind`` that works off the
    field (401.4), each card's in turn: all ``_sources`` reads of the zones.
    Finding a card's zone searches the piles, so the answer is kept while
    the piles, who is on the field and the items left without a character
    are the same objects (the piles change with about one event in four)."""
    known = match(state)
    kept = _working_off_field
    if kept[0] is not known:
        kept[0], kept[1], kept[2] = known, {}, {}
    cards = kept[1].get(kind)
    if cards is None:
        cards = kept[1][kind] = tuple(
            card for card, found in known.off_field.items() if any(ab.kind == kind for _, ab in found)
        )
    if not cards:
        return ()
    zones, present, orphans = state.zones, roster(state), state.orphans
    last = kept[2].get(kind)
    if last is not None and last[0] is zones and last[1] is present and last[2] is orphans:
        return last[3]
    found = tuple(zone_of(state, card) for card in cards)
    kept[2][kind] = (zones, present, orphans, found)
    return found


def _sources(state: GameState, kind: str) -> list[Source]:
    out = []
    for card in field_cards(state):
        ctrl = controller_of(state, card)
        for i, ab in enumerate(abilities(state, card), start=1):
            if ab.kind == kind and getattr(ab, "zone", "field") == "field":
                out.append(Source(card, i, ab, ctrl))
    for card, found in match(state).off_field.items():
        where = None
        for i, ab in found:
            if ab.kind == kind:
                where = where or zone_of(state, card)
                if ab.zone == where:
                    out.append(Source(card, i, ab, card[0]))
    return out


def fire(sits: Iterable[tuple[Sit, GameState]], timing: str = "after") -> list[Event]:
    """403.1, 408.1: a ``TriggerFired`` for every triggered ability each
    situation meets, once per ability and situation. A trigger on a card that
    left the field reads it as it last was there (403.2)."""
    out: list[Event] = []
    seen: set[tuple[str, int, str]] = set()
    for sit, state in sits:
        if (timing, sit.event) not in match(state).waits:
            continue  # no text of the match waits for it: the triggers in play need not be gathered
        for src in _on_event(sources(state, "triggered"), timing).get(sit.event, ()):
            ab = src.ability
            reader = Reader(src.card, src.controller, sit.card)
            if not meets(state, reader, ab.on, sit) or not holds(state, reader, ab.if_):
                continue
            mark = (src.card, src.index, sit.key())
            if mark in seen:
                continue
            seen.add(mark)
            out.append(
                TriggerFired.trusted(
                    rule="403.1a" if timing == "before" else "403.1b",
                    player=src.controller,
                    card=src.card,
                    ability=src.index,
                    definition=ab,
                    situation=sit.event,
                    it=sit.card,
                    known=_last_known(state, sit),
                )
            )
    return out


_indexed: dict[tuple[int, str], tuple[list[Source], dict[str, list[Source]]]] = {}


def _on_event(found: list[Source], timing: str) -> dict[str, list[Source]]:
    """``found`` (a list ``sources`` returned) by the situation each waits
    for: the triggers of this ``timing`` by their ``on`` event, or (timing
    ``instead``) the replacements by their ``instead_of`` event, each in the
    order of ``found``. ``meets`` refuses any other situation first thing,
    so only these are read. Kept per list (``sources`` carries its lists)."""
    key = (id(found), timing)
    kept = _indexed.get(key)
    if kept is not None and kept[0] is found:
        return kept[1]
    index: dict[str, list[Source]] = {}
    for src in found:
        ab = src.ability
        if timing == "instead":
            index.setdefault(ab.instead_of.event, []).append(src)
        elif ab.timing == timing:
            index.setdefault(ab.on.event, []).append(src)
    if len(_indexed) > 256:
        _indexed.clear()
    _indexed[key] = (found, index)
    return index


def _last_known(state: GameState, sit: Sit) -> dict[str, LastKnown]:
    """403.2: the card leaving the field in ``sit`` (read in the state just
    before it leaves), as it is there, for the abilities its leaving
    triggers: its own ("this") and others' ("it")."""
    if sit.event not in ("leave_field", "captured") and not (sit.event == "discard" and sit.detail("from") == "field"):
        return {}
    card = sit.card
    if card is None or not on_field(state, card):
        return {}
    c = chars(state, card)
    return {
        # controller_of returns a player id as str ("A" or "B"); pydantic checks the Literal
        card: LastKnown(
            controller=controller_of(state, card),  # type: ignore[arg-type]
            physical=c.physical,
            mental=c.mental,
            random=c.random,
        )
    }


def fire_after(before: GameState, after: GameState, events: list[Event]) -> list[Event]:
    """The triggers that the events of one step fire once they have happened (403.1b)."""
    if not has_text(before) and not has_text(after):
        return []
    sits: list[tuple[Sit, GameState]] = []
    state = before

    for ev in events:
        nxt = evolve(state, ev)
        sits += happened(state, nxt, ev)
        state = nxt
    return fire(sits)


# --- the moment before a situation ---------------------------------------------------------


def replacements(state: GameState, sit: Sit, exempt: Iterable[str] = ()) -> list[Source]:
    """409.1: the replacement abilities that would apply to ``sit``."""
    if ("instead", sit.event) not in match(state).waits:
        return []
    skip = set(exempt)
    out = []
    for src in _on_event(sources(state, "replacement"), "instead").get(sit.event, ()):
        if f"{src.card}#{src.index}" in skip:
            continue
        reader = Reader(src.card, src.controller, sit.card)
        if meets(state, reader, src.ability.instead_of, sit) and holds(state, reader, src.ability.if_):
            out.append(src)
    return out


def before_triggers(state: GameState, sit: Sit) -> list[Event]:
    return fire([(sit, state)], "before")


def events_of(pending: Iterable[dict[str, Any]]) -> list[Event]:
    """The events a proposal holds back (``SituationProposed.pending``)."""
    from events.harem_master import EVENT_TYPES

    return [EVENT_TYPES[p["type"]].model_validate(p["event"]) for p in pending]


def hold(ev: Event, zone: str | None, then: str | None = None) -> dict[str, Any]:
    """One event a proposal holds back, with the zone its card must still be
    in; ``then``: the situation of a later moment that starts with it (it is
    proposed in its turn, once what comes before it has happened)."""
    held = {"type": type(ev).__name__, "event": ev.model_dump(mode="json"), "zone": zone}
    if then is not None:
        held["then"] = then
    return held


# keep the event classes importable from here for the modules that propose
__all__ = [
    "LEAVING",
    "MOVES",
    "Sit",
    "Source",
    "before_triggers",
    "events_of",
    "fire",
    "fire_after",
    "happened",
    "hold",
    "moved",
    "one_card_each",
    "meets",
    "replacements",
    "sources",
    "use_situation",
    "AbilityActivated",
    "EventPlayed",
    "TriggerFired",
]
