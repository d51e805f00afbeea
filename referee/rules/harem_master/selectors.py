"""Rules 401.5-401.6, 214.2g, 215.1a-b, 215.6b, 501-503: what the words of card text point at.

Card text is read from the point of view of its card and its controller: a
``Reader`` holds them (and ``it``, the card a situation is about, and ``n``
of an [n] cost). Selectors pick cards (``self`` only on the field, 401.5;
``this`` anywhere, 401.5a; a filter's default zone is the field for
characters and items, 214.2g/215.6b), players are relative to the
controller (401.6), amounts count or read values ([P] 501, [M] 502, n 503.2),
and conditions say whether an ability works now (404.2).

Filters read a card's *identity* (``characteristics.identity``: printed or
copied characteristics and the abilities effects gave it), never the
statics' results, so a static can never depend on itself.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from events.abilities import (
    All,
    AllOf,
    AnyOf,
    BattleCondition,
    Count,
    CountCondition,
    Filter,
    MentalOf,
    PhysicalOf,
    Target,
    Top,
    TurnCondition,
)
from projections.state import PILES, PLAYERS, GameState, other


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
    from referee.rules.harem_master.characteristics import identity

    where = zone if zone is not None else zone_of(state, card)
    want = f.zone or ("field" if f.type != "event" else None)
    if want is not None and where != want:
        return False
    if f.other and card == reader.card:
        return False
    if card in state.unknown and (
        f.type is not None or f.gender is not None or f.faction is not None or f.name is not None
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
        for p in PLAYERS:
            z = state.zones[p]
            for pile in PILES:
                if want is None or pile == want:
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
        from referee.rules.harem_master.characteristics import chars

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
