"""Rules 407.4-407.6 and the effects of card text: what resolving one step of an ability does.

A resolution is split into steps at each ``then`` (407.5: everything in one
step happens at once). ``next_slot`` walks a step's effects for the choices
it needs, in order (a "may" is answered before the targets inside it, 401.7;
targets are chosen at resolution, 407.4); once every choice is made,
``facts`` turns the step's effects into the events that record them, with
the cards they affect fixed now (407.6). Each event names the card whose
ability caused it (``card``) and the agenda entry it belongs to (``use``).
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from events.abilities import (
    BattleTypeEffect,
    ControlEffect,
    CopyEffect,
    CounterEffect,
    Filter,
    GainEffect,
    HandMaxEffect,
    LoseAbilitiesEffect,
    LoseEffect,
    MayEffect,
    ModifyEffect,
    MoveEffect,
    NoRandomNumberEffect,
    TapEffect,
    Target,
    ThenEffect,
    UntapEffect,
    WinEffect,
)
from events.game import (
    AbilitiesGained,
    AbilitiesLost,
    BattleTypeChanged,
    CardMoved,
    CharacteristicsCopied,
    CharactersTapped,
    ControlChanged,
    CounterFailed,
    Event,
    GameEnded,
    HandMaximumChanged,
    RandomNumberWaived,
    UseCountered,
    ValuesModified,
)
from projections.state import GameState, Proposal, Use, other
from referee.rules.harem_master.common import name_of
from referee.rules.harem_master.selectors import Reader, amount, candidates, players, select, side

# --- steps and choices ------------------------------------------------------------------


def groups(effects: Iterable[Any]) -> list[list[Any]]:
    """407.5: the steps of a resolution, split at each ``then``."""
    out: list[list[Any]] = [[]]
    for e in effects:
        if isinstance(e, ThenEffect):
            rest = groups(e.then)
            out[-1:] = [out[-1], *rest] if out[-1] else rest
            out.append([])
        else:
            out[-1].append(e)
    return [g for g in out if g] or [[]]


def _selectors(effect: Any) -> list[Any]:
    """The selectors an effect acts through, in the order it names them."""
    if isinstance(effect, ModifyEffect):
        return [effect.modify.what]
    if isinstance(effect, MoveEffect):
        return [effect.move.what]
    if isinstance(effect, TapEffect):
        return [effect.tap]
    if isinstance(effect, UntapEffect):
        return [effect.untap]
    if isinstance(effect, NoRandomNumberEffect):
        return [effect.no_random_number]
    if isinstance(effect, CopyEffect):
        return [effect.copy_.what, effect.copy_.from_]
    if isinstance(effect, GainEffect):
        return [effect.gain.what]
    if isinstance(effect, LoseAbilitiesEffect):
        return [effect.lose_abilities.what]
    if isinstance(effect, ControlEffect):
        return [effect.control.what]
    return []


class Slot(NamedTuple):
    """One choice a step needs: "may" (yes/no, 401.7) or a target (407.4)."""

    kind: str  # may | target
    effect: Any
    filter: Filter | None = None
    candidates: tuple[str, ...] = ()


class Walk(NamedTuple):
    """A step's choices so far: the answers in order, and the next slot if one is open."""

    answers: tuple[Any, ...]
    open: Slot | None


def walk(state: GameState, use: Use, reader: Reader, effects: list[Any]) -> Walk:
    """Answer the step's choices in order: from the choices recorded for it
    (``Chosen``), from what the player said when using it (``targets``,
    ``option``), or by themselves where there is nothing to choose (no or one
    candidate). The first choice that needs the player stays open."""
    recorded = list(use.choices)
    given = list(use.targets)
    answers: list[Any] = []

    def answer(slot: Slot) -> Any:
        if slot.kind == "may":
            if recorded and recorded[0][0] == "option":
                return recorded.pop(0)[1]
            if use.option in ("yes", "no"):
                return use.option
            return None
        cands = slot.candidates
        if not cands:
            return ()
        if recorded and recorded[0][0] == "cards":
            return tuple(recorded.pop(0)[1])
        for t in given:
            if t in cands:
                given.remove(t)
                return (t,)
        if len(cands) == 1:
            return (cands[0],)
        return None

    def go(effects: list[Any]) -> Slot | None:
        for e in effects:
            if isinstance(e, MayEffect):
                slot = Slot("may", e)
                a = answer(slot)
                if a is None:
                    return slot
                answers.append(a)
                if a == "yes":
                    open_ = go(list(e.may))
                    if open_ is not None:
                        return open_
                continue
            for sel in _selectors(e):
                if isinstance(sel, Target):
                    slot = Slot("target", e, sel.target, tuple(candidates(state, reader, sel.target)))
                    a = answer(slot)
                    if a is None:
                        return slot
                    answers.append(a)
        return None

    open_slot = go(effects)
    return Walk(tuple(answers), open_slot)


# --- facts -------------------------------------------------------------------------


def facts(state: GameState, use: Use, reader: Reader, effects: list[Any], answers: tuple[Any, ...]) -> list[Event]:
    """The events of one step of a resolution (407.5), its choices made."""
    queue = list(answers)
    out: list[Event] = []
    won: list[str] = []
    lost: list[str] = []

    def chosen() -> tuple[str, ...]:
        return tuple(queue.pop(0)) if queue else ()

    def cards(sel: Any) -> list[str]:
        return list(chosen()) if isinstance(sel, Target) else select(state, reader, sel)

    def go(effects: list[Any]) -> None:
        for e in effects:
            if isinstance(e, MayEffect):
                yes = (queue.pop(0) if queue else "no") == "yes"
                if yes:
                    go(list(e.may))
                continue
            if isinstance(e, WinEffect):
                won.extend(players(state, reader, e.win))
            elif isinstance(e, LoseEffect):
                lost.extend(players(state, reader, e.lose))
            else:
                out.extend(_effect(state, use, reader, e, cards))

    go(effects)
    end = _game_end(use, reader, won, lost)
    if end is not None:
        out.append(end)
    return out


def _effect(state: GameState, use: Use, reader: Reader, e: Any, cards: Any) -> list[Event]:
    src, uid = reader.card, use.id
    if isinstance(e, ModifyEffect):
        m = e.modify
        targets = cards(m.what)
        p = amount(state, reader, m.physical) if m.physical is not None else 0
        mm = amount(state, reader, m.mental) if m.mental is not None else 0
        r = amount(state, reader, m.random) if m.random is not None else 0
        return [
            ValuesModified(card=src, use=uid, target=t, physical=p, mental=mm, random=r, until=m.until)
            for t in targets
        ]
    if isinstance(e, MoveEffect):
        mv = e.move
        out: list[Event] = []
        for t in cards(mv.what):
            if mv.to == "field":
                if state.cards[t].type != "character" or state.character(t) is not None:
                    continue  # only a character can be put onto the field by itself
                dest = side(reader, mv.player) if mv.player else reader.controller  # 214.2d
            elif mv.to in ("harem", "execution", "side"):
                dest = side(reader, mv.player) if mv.player else t[0]
            else:
                dest = t[0]  # 215.1b: castle, hand, stack and discard hold their owner's cards
            out.append(CardMoved(card=src, use=uid, target=t, to=mv.to, player=dest, position=mv.position))
        return out
    if isinstance(e, (TapEffect, UntapEffect)):
        untap = isinstance(e, UntapEffect)
        targets = [t for t in cards(e.untap if untap else e.tap)
                   if (ch := state.character(t)) is not None and ch.ready != untap]
        return [CharactersTapped(card=src, use=uid, targets=targets, untap=untap)] if targets else []
    if isinstance(e, BattleTypeEffect):
        b = state.battle
        if b is None or b.kind in (None, "castle") or b.kind == e.battle_type:
            return []  # 306.5h: never into or out of a castle attack
        return [BattleTypeChanged(card=src, use=uid, kind=e.battle_type)]
    if isinstance(e, NoRandomNumberEffect):
        b = state.battle
        combatants = {b.attacker, b.interceptor} if b is not None else set()
        return [RandomNumberWaived(card=src, use=uid, target=t) for t in cards(e.no_random_number) if t in combatants]
    if isinstance(e, CounterEffect):
        held = next((f for f in state.agenda if getattr(f, "id", None) == use.about and isinstance(f, Proposal)), None)
        if held is not None and held.situation == "use" and held.it:
            # A character or item card being used (407.2), held at the moment
            # before it enters the field: countered, it never gets there and
            # goes to its owner's discard instead (411.1b, 411.1c).
            if state.cards[held.it].uncounterable:
                return [CounterFailed(card=src, use=uid, target=held.it, countered=held.id)]
            return [
                UseCountered(card=src, use=uid, target=held.it, countered=held.id),
                CardMoved(rule="411.1c", card=src, use=uid, target=held.it, to="discard", player=held.it[0]),
            ]
        target = next((f for f in state.agenda if getattr(f, "id", None) == use.about and isinstance(f, Use)), None)
        if target is None or target.countered:
            return []
        if state.cards[target.card].uncounterable:
            return [CounterFailed(card=src, use=uid, target=target.card, countered=target.id)]
        return [UseCountered(card=src, use=uid, target=target.card, countered=target.id)]
    if isinstance(e, CopyEffect):
        c = e.copy_
        sources = cards(c.from_)
        if not sources:
            return []
        return [
            CharacteristicsCopied(card=src, use=uid, target=t, source=sources[0], until=c.until)
            for t in cards(c.what) if t != sources[0]
        ]
    if isinstance(e, GainEffect):
        g = e.gain
        return [AbilitiesGained(card=src, use=uid, target=t, abilities=list(g.abilities), until=g.until) for t in cards(g.what)]
    if isinstance(e, LoseAbilitiesEffect):
        lo = e.lose_abilities
        return [AbilitiesLost(card=src, use=uid, target=t, until=lo.until) for t in cards(lo.what)]
    if isinstance(e, ControlEffect):
        c = e.control
        to = side(reader, c.player)
        return [
            ControlChanged(card=src, use=uid, target=t, player=to, until=c.until)
            for t in cards(c.what) if (ch := state.character(t)) is not None and ch.controller != to
        ]
    if isinstance(e, HandMaxEffect):
        h = e.hand_max
        out = []
        for p in players(state, reader, h.player):
            if h.set is not None:
                out.append(HandMaximumChanged(card=src, use=uid, player=p, set=amount(state, reader, h.set), until=h.until))
            else:
                out.append(HandMaximumChanged(card=src, use=uid, player=p, by=amount(state, reader, h.by), until=h.until))
        return out
    return []  # name and forbid are static only


def _game_end(use: Use, reader: Reader, won: list[str], lost: list[str]) -> GameEnded | None:
    """102.4-102.6 (ruling A13): card-made wins and losses, all at once."""
    if not won and not lost:
        return None
    winners = {p for p in won if p not in lost}  # 102.6: a win and a loss at once is a loss
    losers = set(lost)
    card = reader.card
    if len(losers) == 2:
        return GameEnded(rule="102.5", draw=True, reason="Both players lost at once.", card=card, step="over")
    if losers:
        (loser,) = losers
        rule = "102.6" if loser in won else "102.4"
        return GameEnded(rule=rule, winner=other(loser), reason=f"{loser} loses by card text.", card=card, step="over")
    if len(winners) == 2:
        return GameEnded(rule="102.4", ruling="A13", draw=True, reason="Both players won at once.", card=card, step="over")
    (winner,) = winners
    return GameEnded(rule="102.4", winner=winner, reason=f"{winner} wins by card text.", card=card, step="over")


def describe_slot(state: GameState, slot: Slot) -> str:
    """What the player is asked, in a sentence."""
    if slot.kind == "may":
        return "answer yes or no to a \"may\" (401.7)"
    names = ", ".join(name_of(state, c) for c in slot.candidates)
    return f"choose a target (407.4): one of {names}"
