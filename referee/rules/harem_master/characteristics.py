"""Rules 200-214.1, 214.2g, 215.1a-b, 215.3b, 215.6b, 401.5-401.6, 404, 405, 412 and 500-502: card text read, and a card's characteristics.

What the words of card text point at. Card text is read from the point of
view of its card and its controller: a ``Reader`` holds them (and ``it``,
the card a situation is about, and ``n`` of an [n] cost). Selectors pick
cards (``self`` only on the field, 401.5; ``this`` anywhere, 401.5a; the
implied subject is the card or its controller, 401.5b; text names a
player's zone as ``zone(player)``, 215.1a, and a castle, hand, stack or
discard holds only its owner's cards, 215.1b; a filter's default zone is
the field for characters and items, 214.2g/215.6b), players are relative
to the controller (401.6), amounts count or read values ([P] 501, [M] 502,
n 503.2; 500: the icons of card text), and conditions say whether an
ability works now (404.2).

A card's current characteristics. Every rule that reads a card's name
(202, 202.1, 202.2), type (205, 205.1, 214, 214.1), cost (203, 203.1),
gender (211, 211.1, 211.1a girls, 211.1b males), factions (209, 209.1),
values (207, 207.1, 207.2 physical; 208, 208.1, 208.2 mental; 210, 210.1
random number) or abilities (206, 206.1: the text box) reads them here,
through ``chars``: the printed characteristics (200, 200.1: a Harem Master
card's front and back; the illustration, 204, 204.1, the illustrator, 212,
212.1, and the collector number and versions, 213, 213.1, 213.2, 213.3,
have no effect on play) or those copied (412, 412.1), then the effects of
resolved abilities and the static abilities that apply (404, 404.1,
404.2), abilities given and taken in resolution order (405, 405.1), then
the faction modifier (209.2, ruling A19). Each value comes with the parts
it is made of (``Chars.notes``, filled by ``explained``), so ``referee state`` can say
``physical 4 = 2 printed +2 Fencing Master until end of turn``. The hand
maximum is read here too (215.3b, ruling A11: 7 unless an effect changes it).

Card text can make these reads depend on each other (a static whose
condition counts girls, a copy that changes a gender, an amount that reads a
card's current physical). They are computed in two layers so they never
loop: a card's *identity* (printed or copied characteristics, and the
abilities resolved effects gave or took), which is what filters and
conditions read, and its current characteristics (statics and values on
top). Abilities that statics give are not themselves sources of statics; a
value read inside its own computation is the printed one. Reading text and
reading characteristics call each other, so they are one module.
"""

from __future__ import annotations

import threading
from typing import Any, Iterable, NamedTuple

from events.harem_master.abilities import (
    All,
    AllOf,
    AnyOf,
    BattleCondition,
    Count,
    CountCondition,
    Filter,
    GainEffect,
    LoseAbilitiesEffect,
    MentalOf,
    NameEffect,
    PhysicalOf,
    Target,
    Top,
    TurnCondition,
    walk,
)
from projections.harem_master.state import PILES, PLAYERS, GameState, other
from referee.rules.harem_master.common import name_of

# --- reading card text: what its words point at (401.5-401.6, 214.2g, 215.1a-b, 215.6b, 500-502) ---


class Reader(NamedTuple):
    """Who reads card text: its card and controller, and what its words mean
    now; ``known``: cards that left the field, as they last were there (403.2)."""

    card: str
    controller: str
    it: str | None = None
    n: int | None = None
    known: tuple[tuple[str, Any], ...] = ()


def last_known(state: GameState, reader: Reader, card: str) -> Any:
    """403.2: the card as it last was on the field, if the ability reading it
    was triggered by its leaving and it is not on the field now; else None."""
    if not reader.known:
        return None
    for c, found in reader.known:
        if c == card:
            return None if on_field(state, card) else found
    return None


# --- where cards are ---------------------------------------------------------------


def host_of(state: GameState, item: str) -> str | None:
    """The character an item is attached to (the ``equipped`` character)."""
    for ch in state.field:
        if item in ch.items:
            return ch.card
    return None


def on_field(state: GameState, card: str) -> bool:
    """On the field, as a character or an item; an item whose character has
    left is still there until 214.4f puts it into the discard."""
    for ch in state.field:
        if ch.card == card or card in ch.items:
            return True
    return card in state.orphans


def zone_of(state: GameState, card: str) -> str | None:
    """The zone a card is in: ``field`` or a pile name (the owner is its holder's letter)."""
    if on_field(state, card):
        return "field"
    for z in state.zones.values():
        for pile in PILES:
            if card in getattr(z, pile):
                return pile
    return None


def controller_of(state: GameState, card: str) -> str:
    """214.2d: the player who controls a character; an item is its user's
    (214.4b: its owner, who used it from their hand); a card off the field
    is its owner's (401.6)."""
    for ch in state.field:
        if ch.card == card:
            return ch.controller
    return card[0]


def pile_of(state: GameState, player: str, zone: str) -> list[str]:
    """A player's pile, top first; ``field``: the characters they control, in
    field order (how the scenario format reads the top of ``A.field``)."""
    if zone == "field":
        return [ch.card for ch in state.field if ch.controller == player and not ch.face_down]
    return list(getattr(state.zones[player], zone))


def field_cards(state: GameState) -> list[str]:
    """Characters and the items on them, in field order."""
    out: list[str] = []
    for ch in state.field:
        if not ch.face_down:
            out.append(ch.card)
            out.extend(ch.items)
    return out


# --- players -------------------------------------------------------------------


def side(reader: Reader, who: str) -> str:
    """``you`` / ``opponent`` as a player (401.6)."""
    return reader.controller if who == "you" else other(reader.controller)


def players(state: GameState, reader: Reader, who: str) -> list[str]:
    """``you``, ``opponent``, ``active`` or ``each`` (both, A first)."""
    if who == "each":
        return list(PLAYERS)
    if who == "active":
        return [state.active] if state.active else []
    return [side(reader, who)]


# --- filters -------------------------------------------------------------------


def matches(state: GameState, reader: Reader, card: str, f: Filter, zone: str | None = None) -> bool:
    """Does ``card`` pass every key of the filter?"""
    where = zone if zone is not None else zone_of(state, card)
    want = f.zone or ("field" if f.type != "event" else None)
    if want is not None and where != want:
        return False
    if f.other and card == reader.card:
        return False
    if card in state.unknown and (
        f.type is not None
        or f.gender is not None
        or f.faction is not None
        or f.name is not None
        or f.cost_at_most is not None
    ):
        return False  # a table-dealt match: nobody knows what an unknown card is until it is revealed
    ident = identity(state, card)
    if f.type is not None and ident.type != f.type:
        return False
    if f.gender is not None and (ident.gender != f.gender or ident.type != "character"):
        return False
    if f.faction is not None and f.faction not in ident.factions:
        return False
    if f.name is not None and ident.name != f.name:
        return False
    if f.cost_at_most is not None and ident.cost > f.cost_at_most:
        return False
    if f.controller is not None:
        known = last_known(state, reader, card)  # 403.2: as it last was on the field
        controller = known.controller if known is not None else controller_of(state, card)
        if controller not in players(state, reader, f.controller):
            return False
    if f.owner is not None and card[0] not in players(state, reader, f.owner):
        return False
    if f.ready is not None:
        ch = state.character(card)
        if ch is None or ch.ready != f.ready:
            return False
    return True


def candidates(state: GameState, reader: Reader, f: Filter) -> list[str]:
    """Every card the filter picks, in zone order (field first, then the
    piles, A's before B's, top first)."""
    want = f.zone or ("field" if f.type != "event" else None)
    out: list[str] = []
    if want in (None, "field"):
        out += [c for c in field_cards(state) if matches(state, reader, c, f, "field")]
    if want != "field":
        # A filter of the piles by owner alone (a count of the castle, 206.1
        # conditions read it often): ``matches`` reads nothing else of a card.
        simple = (
            f.type is None
            and f.gender is None
            and f.faction is None
            and f.name is None
            and f.cost_at_most is None
            and f.controller is None
            and f.ready is None
        )
        owners = players(state, reader, f.owner) if simple and f.owner is not None else None
        for p in PLAYERS:
            z = state.zones[p]
            for pile in PILES:
                if want is None or pile == want:
                    if simple:
                        out += [
                            c
                            for c in getattr(z, pile)
                            if (owners is None or c[0] in owners) and not (f.other and c == reader.card)
                        ]
                    else:
                        out += [c for c in getattr(z, pile) if matches(state, reader, c, f, pile)]
    return out


# --- selectors -------------------------------------------------------------------


def select(state: GameState, reader: Reader, selector: Any, chosen: Iterable[str] = ()) -> list[str]:
    """The cards a selector picks now (407.6); a ``{target: ...}`` picks the
    cards ``chosen`` for it."""
    if isinstance(selector, str):
        if selector == "self":
            return [reader.card] if on_field(state, reader.card) else []
        if selector == "this":
            return [reader.card]
        if selector == "equipped":
            host = host_of(state, reader.card)
            return [host] if host else []
        if selector == "it":
            return [reader.it] if reader.it else []
        b = state.battle
        if b is None:
            return []
        card = b.attacker if selector == "attacker" else b.interceptor
        return [card] if card and state.character(card) is not None else []
    if isinstance(selector, Target):
        return list(chosen)
    if isinstance(selector, All):
        return candidates(state, reader, selector.all)
    if isinstance(selector, Filter):
        return candidates(state, reader, selector)
    if isinstance(selector, Top):
        whose = players(state, reader, selector.player) if selector.player else [reader.card[0]]
        k = max(0, amount(state, reader, selector.top))
        return [c for p in whose for c in pile_of(state, p, selector.of)[:k]]
    raise TypeError(f"not a selector: {selector!r}")


def picks(state: GameState, reader: Reader, selector: Any, card: str) -> bool:
    """Is ``card`` among what the selector means (a situation's ``card:``)?"""
    if isinstance(selector, str):
        if selector == "self":
            return card == reader.card
        return card in select(state, reader, selector)
    if isinstance(selector, (All, Target)):
        return matches(state, reader, card, selector.all if isinstance(selector, All) else selector.target)
    if isinstance(selector, Filter):
        return matches(state, reader, card, selector)
    return card in select(state, reader, selector)


# --- amounts and conditions ------------------------------------------------------------


def amount(state: GameState, reader: Reader, value: Any) -> int:
    """An amount: a number, n (503.2), a count, or a card's [P] / [M] (501, 502)."""
    if isinstance(value, int):
        return value
    if value == "n":
        return reader.n or 0
    if isinstance(value, Count):
        return len(candidates(state, reader, value.count)) * value.times
    if isinstance(value, (PhysicalOf, MentalOf)):
        sel = value.physical if isinstance(value, PhysicalOf) else value.mental
        total = 0
        for card in select(state, reader, sel):
            c = last_known(state, reader, card) or chars(state, card)  # 403.2
            total += c.physical if isinstance(value, PhysicalOf) else c.mental
        return total * value.times
    raise TypeError(f"not an amount: {value!r}")


def holds(state: GameState, reader: Reader, cond: Any) -> bool:
    """Does an ``if:`` condition hold now (404.2)?"""
    if cond is None:
        return True
    if isinstance(cond, CountCondition):
        n = len(candidates(state, reader, cond.count))
        if cond.at_least is not None and n < cond.at_least:
            return False
        return cond.at_most is None or n <= cond.at_most
    if isinstance(cond, TurnCondition):
        return state.active == side(reader, cond.turn)
    if isinstance(cond, BattleCondition):
        return state.battle is not None and state.battle.kind == cond.battle
    if isinstance(cond, AllOf):
        return all(holds(state, reader, c) for c in cond.all)
    if isinstance(cond, AnyOf):
        return any(holds(state, reader, c) for c in cond.any)
    raise TypeError(f"not a condition: {cond!r}")


# --- a card's characteristics (200-213, 404, 405, 412) ----------------------------------------

UNTIL_TEXT = {"end_of_turn": " until end of turn", "end_of_battle": " until end of battle", None: ""}


class Identity(NamedTuple):
    """What filters and conditions read: printed or copied (412.1), with the
    abilities resolved effects gave or took (405.1)."""

    name: str
    type: str
    cost: int
    random: int
    gender: str | None
    factions: tuple[str, ...]
    physical: int
    mental: int
    abilities: tuple[Any, ...]
    copied_from: str | None = None


class Chars(NamedTuple):
    """A card's current characteristics, each value with the parts it is made of."""

    name: str
    type: str
    cost: int
    random: int
    gender: str | None
    factions: tuple[str, ...]
    physical: int
    mental: int
    abilities: tuple[Any, ...]
    # "physical" -> ("2 printed", "+2 Fencing Master until end of turn"); empty but from ``explained``
    notes: dict[str, tuple[str, ...]]


class Static(NamedTuple):
    """A static ability in play (404): its card, the ability, its controller."""

    card: str
    ability: Any
    controller: str
    reader: Reader


# --- a cache per state -------------------------------------------------------------
# States never change once made, and the engine asks about one state many
# times (legal actions, then the action; a check that looks one event ahead
# and comes back), so the answers for the latest few states asked about are
# kept. A fold changes its private state in place, so the position is part
# of the key. Keys are names, or tuples of a name and what the answer depends on.
#
# The board serves requests from several threads at once: the latest entry
# is ONE tuple in a one-slot list, read and replaced whole (a thread never
# sees one state's key with another's answers), and the table of the last
# few is changed under a lock.

_memo: list[tuple[Any, int, dict[Any, Any]]] = [(None, -1, {})]
_memos: dict[int, tuple[GameState, int, dict[Any, Any]]] = {}
_memos_lock = threading.Lock()
MEMO_STATES = 8


def memo(state: GameState, _memo: list[tuple[Any, int, dict[Any, Any]]] = _memo) -> dict[Any, Any]:
    found = _memo[0]
    if found[0] is state and found[1] == state.position:
        return found[2]
    with _memos_lock:
        found = _memos.get(id(state))  # type: ignore[assignment]
        if found is None or found[0] is not state or found[1] != state.position:
            while len(_memos) >= MEMO_STATES:
                del _memos[next(iter(_memos))]
            found = _memos[id(state)] = (state, state.position, {})
    _memo[0] = found
    return found[2]


# --- values carried from state to state ------------------------------------------------
# What a value is computed from changes far less often than the state: an
# event rebinds only the fields it changes (``projections.harem_master.state``), so while
# the fields a value reads are the very same objects, the value is the same.

_carried: dict[str, tuple[tuple[Any, ...], Any]] = {}
MISSING = object()


def carried(name: str, key: tuple[Any, ...]) -> Any:
    """The value kept as ``name`` if it was computed from exactly these
    objects (``key``: the state's fields it reads), else ``MISSING``."""
    kept = _carried.get(name)
    if kept is not None:
        old = kept[0]
        if len(old) == len(key):
            for a, b in zip(old, key):
                if a is not b:
                    return MISSING
            return kept[1]
    return MISSING


def carry(name: str, key: tuple[Any, ...], value: Any) -> Any:
    """Keep ``value`` as ``name``, computed from ``key``; return it."""
    _carried[name] = (key, value)
    return value


_roster_kept: list[Any] = [(None, None)]  # (the latest field asked about, its roster): one tuple, read whole
_rosters: dict[tuple[Any, ...], tuple[Any, ...]] = {}
ROSTERS = 256


def roster(state: GameState) -> tuple[Any, ...]:
    """Who is on the field, with their items, controllers and sides up, but
    not whether each is ready: the key of the values carried from state to
    state that readiness does not change (the abilities in play, the names
    on the field). Tapping and untapping make a new field (about two field
    changes in three), so the field itself is a poor key: the same roster
    is the very same object, whatever field it was read from."""
    field = state.field
    kept = _roster_kept[0]
    if kept[0] is field:
        return kept[1]
    key = tuple([(ch.card, ch.controller, ch.items, ch.face_down, ch.since) for ch in field])
    found = _rosters.get(key)
    if found is None:
        if len(_rosters) >= ROSTERS:
            _rosters.clear()
        found = _rosters[key] = key
    _roster_kept[0] = (field, found)
    return found


_last_cards: list[Any] = [(None, False)]  # (the card dict of the latest match asked about, its answer)


def _has_text(state: GameState) -> bool:
    """Does any card of the match have abilities (or any effect apply)? If
    not, every characteristic is the printed one plus the faction modifier,
    and the referee skips the ability machinery (it is asked very often, so
    the answer for the latest match's cards is kept)."""
    cards = state.cards
    kept = _last_cards[0]
    if cards is not kept[0]:
        kept = _last_cards[0] = (cards, any(cd.abilities for cd in cards.values()))
    return bool(kept[1]) or bool(state.effects)


has_text = _has_text


# --- identity ------------------------------------------------------------------


class Match(NamedTuple):
    """What never changes in a match, worked out once: each card's printed
    identity, the cards whose text works outside the field (401.4), and what
    the match's text can do at all (name cards, give abilities, wait for
    situations), so that the rules skip what no card of it could do."""

    printed: dict[str, Identity]
    off_field: dict[str, tuple[tuple[int, Any], ...]]  # card -> (index from 1, ability) working from another zone
    pa: frozenset[str]  # [PA] characters, which may be items (214.4, ruling A15)
    names_given: frozenset[str]  # cards whose own text gives them a name (202.2)
    names_gained: bool  # some text gives another card an ability that gives a name
    statics_may_give: bool  # some static (printed or given) gives or takes abilities (405.1)
    # The situations some text of the match waits for, as (timing, event):
    # ("after"/"before", event) for a triggered ability (403.1), ("instead",
    # event) for a replacement (409.1), printed or given. Nothing else can
    # wait for a situation: no card of the match waits for one not here.
    waits: frozenset[tuple[str, str]]
    statics_off_field: bool  # some card has a static ability that works from outside the field (401.4)


_match: list[Any] = [None, None]


def match(state: GameState) -> Match:
    cards = state.cards
    if _match[0] is not cards:
        printed = {
            c: Identity(
                cd.name,
                cd.type,
                cd.cost,
                cd.random,
                cd.gender,
                tuple(cd.factions),
                cd.physical,
                cd.mental,
                tuple(cd.abilities),
            )
            for c, cd in cards.items()
        }
        off = {
            c: tuple((i, a) for i, a in enumerate(cd.abilities, start=1) if getattr(a, "zone", "field") != "field")
            for c, cd in cards.items()
        }
        pa = frozenset(c for c, cd in cards.items() if "PA" in cd.icons)
        given = frozenset(c for c, cd in cards.items() if any(_gives_name([a]) for a in cd.abilities))
        gained = any(
            _gives_name(g.gain.abilities)
            for cd in cards.values()
            for a in cd.abilities
            for g in walk(list(a.effects))
            if isinstance(g, GainEffect)
        )
        may_give = any(_static_with(cd.abilities, (GainEffect, LoseAbilitiesEffect)) for cd in cards.values())
        waits = frozenset(w for cd in cards.values() for w in _waits_for(cd.abilities))
        statics_off = any(a.kind == "static" for found in off.values() for _, a in found)
        _match[0], _match[1] = (
            cards,
            Match(printed, {c: v for c, v in off.items() if v}, pa, given, gained, may_give, waits, statics_off),
        )
    return _match[1]


def with_given(abilities: Any) -> list[Any]:
    """These abilities and every ability they give (``gain``), at any depth:
    what a match's text can ever do, printed or given."""
    out = list(abilities)
    for a in abilities:
        for g in walk(list(a.effects)):
            if isinstance(g, GainEffect):
                out += with_given(g.gain.abilities)
    return out


def _waits_for(abilities: Any) -> set[tuple[str, str]]:
    """The situations these abilities, and those they give, wait for (``Match.waits``)."""
    out: set[tuple[str, str]] = set()
    for a in with_given(abilities):
        if a.kind == "triggered":
            out.add((a.timing, a.on.event))
        elif a.kind == "replacement":
            out.add(("instead", a.instead_of.event))
    return out


def _gives_name(abilities: Any) -> bool:
    return any(a.kind == "static" and any(isinstance(e, NameEffect) for e in a.effects) for a in with_given(abilities))


def _static_with(abilities: Any, kinds: tuple[type, ...]) -> bool:
    """Has any of these abilities, or any ability they give, a static with an
    effect of one of these kinds?"""
    return any(
        a.kind == "static" and any(isinstance(e, kinds) for e in walk(list(a.effects))) for a in with_given(abilities)
    )


def _effects_on(state: GameState, card: str) -> list[Any]:
    ch = state.character(card)
    since = ch.since if ch is not None else -1
    return [e for e in state.effects if e.target == card and e.since == since]


def identity(state: GameState, card: str) -> Identity:
    """Printed or copied characteristics (412.1), with the abilities resolved
    effects gave or took (405.1): what filters and conditions read."""
    known = match(state)
    found = known.printed[card]
    if not state.effects and card not in known.pa:
        return found
    m = memo(state)
    key = "i:" + card
    cached = m.get(key)
    if cached is not None:
        return cached
    cd = state.cards[card]
    base, copied = cd, None
    abilities: tuple[Any, ...] = found.abilities
    if state.effects:
        mine = _effects_on(state, card)
        for e in mine:
            if e.kind == "copy":
                copied = e.values[0]
                base = state.cards[copied]
                abilities = tuple(base.abilities)
        for e in mine:
            if e.kind == "gain":
                abilities = abilities + tuple(e.values)
            elif e.kind == "lose":
                abilities = ()
    # 214.4 (ruling A15): a [PA] character attached as an item is an item.
    kind = base.type
    if kind == "character" and "PA" in cd.icons and state.character(card) is None and host_of(state, card):
        kind = "item"
    if base is cd and copied is None and kind == found.type and abilities is found.abilities:
        found_now = found
    else:
        found_now = Identity(
            base.name,
            kind,
            base.cost,
            base.random,
            base.gender if kind == "character" else None,
            tuple(base.factions) if kind == "character" else (),
            base.physical,
            base.mental,
            abilities,
            copied,
        )
    m[key] = found_now
    return found_now


# --- statics in play ------------------------------------------------------------------


def statics(state: GameState) -> list[Static]:
    """Every static ability that applies now (404.1, 404.2: its condition holds),
    in the order its cards entered the field, then those working from other zones."""
    if not _has_text(state):
        return []
    sources = _static_sources(state)
    if not sources:  # none in play (carried): the usual answer, without a cache per state
        return sources
    m = memo(state)
    found = m.get("statics")
    if found is not None:
        return found
    m["statics"] = []  # a condition read while these are gathered sees none (no loops)
    out = [st for st in sources if st.ability.if_ is None or holds(state, st.reader, st.ability.if_)]
    m["statics"] = out
    return out


_sources_kept: list[Any] = [None, None, None, None]


def _static_sources(state: GameState) -> list[Static]:
    """The static abilities of the cards in play, their conditions not yet read.
    They change only with the field and the effects (while no static works
    from outside the field), so they are kept while both stay the same."""
    known = match(state)
    kept = _sources_kept
    stable = not known.statics_off_field
    present = roster(state)
    if stable and kept[0] is present and kept[1] is state.effects and kept[2] is state.cards:
        return kept[3]
    out: list[Static] = []
    for ch in sorted(state.field, key=lambda c: c.since):
        if ch.face_down:
            continue
        for card in (ch.card, *ch.items):
            controller = ch.controller if card == ch.card else card[0]
            for ability in identity(state, card).abilities:
                if ability.kind == "static" and ability.zone == "field":
                    out.append(Static(card, ability, controller, Reader(card, controller)))
    for card, found in known.off_field.items():
        for _, ability in found:
            if ability.kind == "static" and zone_of(state, card) == ability.zone:
                out.append(Static(card, ability, card[0], Reader(card, card[0])))
    if stable:
        kept[:] = [present, state.effects, state.cards, out]
    return out


def statics_give(state: GameState) -> bool:
    """Does any static in play give or take abilities (405.1)? If not, a
    card's abilities are its identity's."""
    if not match(state).statics_may_give:  # cards without text have no statics that give
        return False
    m = memo(state)
    found = m.get("give")
    if found is None:
        found = any(
            type(e).__name__ in ("GainEffect", "LoseAbilitiesEffect")
            for st in statics(state)
            for e in st.ability.effects
        )
        m["give"] = found
    return found


def _static_targets(state: GameState, st: Static, what: Any) -> list[str]:
    m = memo(state)
    key = ("t", st.card, id(what))
    found = m.get(key)
    if found is None:
        found = select(state, st.reader, what)
        m[key] = found
    return found


# --- current characteristics -------------------------------------------------------------


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def current_abilities(state: GameState, card: str) -> tuple[Any, ...]:
    """The card's abilities now: its identity's, then those statics give or
    take (405.1)."""
    ident = identity(state, card)
    if not statics_give(state):
        return ident.abilities
    found_statics = statics(state)
    m = memo(state)
    key = "a:" + card
    cached = m.get(key)
    if cached is not None:
        return cached
    abilities = ident.abilities
    for st in found_statics:
        for effect in st.ability.effects:
            key_ = next(iter(type(effect).model_fields))
            if key_ == "gain" and card in _static_targets(state, st, effect.gain.what):
                abilities = abilities + tuple(effect.gain.abilities)
            elif key_ == "lose_abilities" and card in _static_targets(state, st, effect.lose_abilities.what):
                abilities = ()
    m[key] = abilities
    return abilities


def chars(state: GameState, card: str) -> Chars:
    """The card's current characteristics: every rule reads them here."""
    m = memo(state)
    key = "c:" + card
    found = m.get(key)
    if found is not None:
        return found
    if key in m.setdefault("computing", set()):
        ident = identity(state, card)
        return Chars(
            ident.name,
            ident.type,
            ident.cost,
            ident.random,
            ident.gender,
            ident.factions,
            ident.physical,
            ident.mental,
            ident.abilities,
            {},
        )
    m["computing"].add(key)
    try:
        found = _chars(state, card)
    finally:
        m["computing"].discard(key)
    m[key] = found
    return found


def explained(state: GameState, card: str) -> Chars:
    """``chars`` with the parts each value is made of (``Chars.notes``), for
    ``referee state``: the rules read only the values, so ``chars`` leaves
    the sentences out."""
    return _chars(state, card, explain=True)


def _chars(state: GameState, card: str, explain: bool = False) -> Chars:
    ident = identity(state, card)
    name = ident.name
    abilities = ident.abilities
    values = {"physical": ident.physical, "mental": ident.mental, "random": ident.random}
    notes: dict[str, list[str]] = {}
    if explain:
        origin = f" copied from {name_of(state, ident.copied_from)}" if ident.copied_from else " printed"
        notes = {k: [f"{v}{origin}"] for k, v in values.items()}
    if _has_text(state):
        for e in _effects_on(state, card) if state.effects else ():
            if e.kind == "modify":
                for k, v in zip(("physical", "mental", "random"), e.values):
                    if v:
                        values[k] += v
                        if explain:
                            notes[k].append(f"{_signed(v)} {name_of(state, e.source)}{UNTIL_TEXT[e.until]}")
        for st in statics(state):
            for effect in st.ability.effects:
                key = next(iter(type(effect).model_fields))
                if key == "modify" and card in _static_targets(state, st, effect.modify.what):
                    body = effect.modify
                    for k in ("physical", "mental", "random"):
                        amt = getattr(body, k)
                        if amt is not None:
                            v = amount(state, st.reader, amt)
                            values[k] += v
                            if explain:
                                notes[k].append(f"{_signed(v)} {name_of(state, st.card)} (static)")
        abilities = current_abilities(state, card)
        name = _given_name(state, card, abilities) or name
    ch = state.character(card)
    if ch is not None and not ch.face_down and ident.type == "character":
        bonus, allies = _faction_bonus(state, card, ident.factions, explain)
        if bonus:
            for k in ("physical", "mental"):
                values[k] += bonus
                if explain:
                    notes[k].append(f"+{bonus} faction ({', '.join(allies)})")
    return Chars(
        name,
        ident.type,
        ident.cost,
        values["random"],
        ident.gender,
        ident.factions,
        values["physical"],
        values["mental"],
        abilities,
        {k: tuple(v) for k, v in notes.items()},
    )


def _faction_bonus(
    state: GameState, card: str, factions: tuple[str, ...], named: bool = False
) -> tuple[int, list[str]]:
    """209.2 (ruling A19): +1 per other untapped character on the field,
    either side, sharing a faction with this one (a shared faction counts
    once); ``named``: with the allies' names, for an explanation."""
    if not factions:
        return 0, []
    count = 0
    allies = []
    text = _has_text(state)
    for ch in state.field:
        if ch.card != card and ch.ready and not ch.face_down:
            theirs = identity(state, ch.card).factions if text else state.cards[ch.card].factions
            if any(f in factions for f in theirs):
                count += 1
                if named:
                    allies.append(name_of(state, ch.card))
    return count, allies


# --- the reads every rule makes --------------------------------------------------------


def physical(state: GameState, card: str) -> int:
    if not _has_text(state):
        return state.cards[card].physical + _faction_bonus(state, card, tuple(state.cards[card].factions))[0]
    return chars(state, card).physical


def mental(state: GameState, card: str) -> int:
    if not _has_text(state):
        return state.cards[card].mental + _faction_bonus(state, card, tuple(state.cards[card].factions))[0]
    return chars(state, card).mental


def _given_name(state: GameState, card: str, abilities: tuple[Any, ...]) -> str | None:
    """202.2: a name the card's own static ability gives it, if one applies."""
    given = None
    for ability in abilities:
        if ability.kind == "static":
            for effect in ability.effects:
                if type(effect).__name__ == "NameEffect" and holds(
                    state, Reader(card, controller_of(state, card)), ability.if_
                ):
                    given = effect.name
    return given


def name(state: GameState, card: str) -> str:
    """The card's name now (202.2: card text may give it another)."""
    if not _has_text(state):
        return state.cards[card].name
    ident = identity(state, card)
    known = match(state)
    if not known.names_gained and card not in known.names_given and not ident.copied_from:
        return ident.name
    return _given_name(state, card, current_abilities(state, card)) or ident.name


_names_memo: list[Any] = [(None, None, None, None)]  # (roster, effects, cards, names): one tuple, read whole


def field_names(state: GameState) -> dict[str, str]:
    """The name of every character on the field now (214.2e reads them after
    every event). A name changes with the field or the effects, or, for the
    few cards whose own text gives them a name (202.2), with anything their
    text's condition reads: the others are kept while field and effects stay
    the same, those few are asked anew in each state (and kept with it, so a
    state asked twice answers with the same object)."""
    known = match(state)
    if known.names_gained:
        return _names_now(state, None)
    present = roster(state)
    last = _names_memo[0]
    if last[0] is present and last[1] is state.effects and last[2] is state.cards:
        kept = last[3]
    else:
        kept = {ch.card: name(state, ch.card) for ch in state.field if ch.card not in known.names_given}
        _names_memo[0] = (present, state.effects, state.cards, kept)
    if len(kept) == len(state.field):
        return kept
    return _names_now(state, kept)


def _names_now(state: GameState, kept: dict[str, str] | None) -> dict[str, str]:
    """The names on the field, those not in ``kept`` read in this state."""
    m = memo(state)
    found = m.get("names")
    if found is None:
        found = m["names"] = {
            ch.card: kept[ch.card] if kept is not None and ch.card in kept else name(state, ch.card)
            for ch in state.field
        }
    return found


def gender(state: GameState, card: str) -> str | None:
    if not _has_text(state):
        return state.cards[card].gender
    return identity(state, card).gender


def abilities(state: GameState, card: str) -> tuple[Any, ...]:
    """The card's abilities now (printed, copied, given or taken: 405.1, 412.1)."""
    if not state.effects:
        known = match(state)
        if not known.statics_may_give or not statics_give(state):  # no static can give: asked first, it is the rule
            return known.printed[card].abilities
    return current_abilities(state, card)


def girls(state: GameState, player: str) -> int:
    """Girl characters the player controls (303, 101.7, 101.8)."""
    return sum(
        1 for ch in state.field if ch.controller == player and not ch.face_down and gender(state, ch.card) == "female"
    ) + sum(1 for ch in state.field if ch.controller == player and ch.face_down and state.cards[ch.card].is_girl)


def hand_maximum(state: GameState, player: str) -> int:
    """215.3b (ruling A11): 7 unless an effect changes it, in resolution order."""
    limit = state.hand_max.get(player, 7)
    if not _has_text(state):
        return limit
    for e in state.effects:
        if e.kind == "hand_max" and e.values[0] == player:
            limit = e.values[1] if e.values[1] is not None else limit + e.values[2]
    for st in statics(state):
        for effect in st.ability.effects:
            if type(effect).__name__ == "HandMaxEffect":
                body = effect.hand_max
                if player in players(state, st.reader, body.player):
                    limit = (
                        amount(state, st.reader, body.set)
                        if body.set is not None
                        else limit + amount(state, st.reader, body.by)
                    )
    return max(0, limit)


def equip_fits(state: GameState, item: str, host: str) -> bool:
    """214.4f/g (ruling A14): does the character meet the item's restriction?"""
    restriction: Filter | None = state.cards[item].equip
    if restriction is None:
        return True
    return matches(state, Reader(item, item[0]), host, _anywhere(restriction), zone_of(state, host))


_anywhere_kept: dict[int, tuple[Filter, Filter]] = {}


def _anywhere(restriction: Filter) -> Filter:
    """The restriction without its zone, made once per restriction (214.4f
    asks after every event)."""
    kept = _anywhere_kept.get(id(restriction))
    if kept is not None and kept[0] is restriction:
        return kept[1]
    if len(_anywhere_kept) > 1024:
        _anywhere_kept.clear()
    found = restriction.model_copy(update={"zone": None})
    _anywhere_kept[id(restriction)] = (restriction, found)
    return found
