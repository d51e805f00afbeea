"""Rules 102.4-102.6, 401.7, 407.4-407.6 and 411.1c-411.2: the effects of card text, what resolving one step of an ability does.

Card text that wins or loses the game ends it at once (102.4; both players
losing at once is a draw, 102.5; a player who wins and loses at once
loses, 102.6). A countered card goes to its owner's discard (411.1c), its
costs stay paid (411.1d); what cannot be countered is not (411.2).

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

from events.harem_master.abilities import (
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
from events.harem_master.game import (
    AbilitiesGained,
    AbilitiesLost,
    BattleTypeChanged,
    CardMoved,
    CharacteristicsCopied,
    CharactersTapped,
    ControlChanged,
    CounterFailed,
    EffectsEnded,
    HandMaximumChanged,
    RandomNumberWaived,
    UseCountered,
    ValuesModified,
)
from events.kernel import Event, GameEnded
from projections.harem_master.state import GameState, Proposal, Use, other
from referee.rules.harem_master.characteristics import Reader, amount, candidates, players, select
from referee.rules.harem_master.common import name_of

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
    """One choice a step needs: "may" (yes/no, 401.7), a target (407.4), or
    the order of cards put into a harem or an execution pile together
    (215.7c, 215.8c, ruling A25), which ``player`` makes."""

    kind: str  # may | target | pile_order
    effect: Any
    filter: Filter | None = None
    candidates: tuple[str, ...] = ()
    player: str | None = None  # who makes a pile_order choice (the use's controller otherwise)


PILES_IN_ORDER = ("harem", "execution")  # 215.7c, 215.8c: several cards at once are put in an order chosen


def pile_groups(state: GameState, reader: Reader, effect: Any, moved: list[str]) -> list[list[str]]:
    """The cards a move puts into each pile, by the player whose pile it is
    (the cards' owners' by default, so one move may fill several piles)."""
    groups: dict[str, list[str]] = {}
    for c in moved:
        groups.setdefault(_whose(state, reader, effect.move.player, c, c[0]), []).append(c)
    return list(groups.values())


def pile_order_slots(
    state: GameState, reader: Reader, effect: Any, moved: list[str], chosen: list[tuple[str, ...]]
) -> list[Slot]:
    """215.7c / 215.8c (ruling A25): cards an effect puts into a harem or an
    execution pile at the same time go in an order their owners choose, each
    their own, and the active player interleaves two owners' cards going
    into one pile. The slots are asked pile by pile, in that order;
    ``chosen`` are the answers so far, so that the interleaving is offered
    with each owner's cards already in their order."""
    slots: list[Slot] = []
    rest = list(chosen)
    for group in pile_groups(state, reader, effect, moved):
        mine = _one_pile_slots(state, effect, group, rest)
        slots += mine
        rest = rest[len(mine) :]
    return slots


def pile_order(
    state: GameState, reader: Reader, effect: Any, moved: list[str], orders: list[tuple[str, ...]]
) -> list[str]:
    """The cards in the order they are put, pile by pile: a pile's last
    answer is its whole order, top first, so the card named first is put
    there last and ends on top."""
    out: list[str] = []
    rest = list(orders)
    for group in pile_groups(state, reader, effect, moved):
        n = len(_one_pile_slots(state, effect, group, []))
        out += list(reversed(rest[n - 1])) if n else group
        rest = rest[n:]
    return out


def _one_pile_slots(state: GameState, effect: Any, moved: list[str], chosen: list[tuple[str, ...]]) -> list[Slot]:
    """The order choices of the cards going into one pile."""
    if len(moved) < 2:
        return []
    active: str = state.active  # type: ignore[assignment]  # effects resolve in a turn: there is an active player
    owners = [o for o in (other(active), active) if any(c[0] == o for c in moved)]
    slots: list[Slot] = []
    answered = iter(chosen)
    ordered: dict[str, tuple[str, ...]] = {}
    for o in owners:
        own = tuple(c for c in moved if c[0] == o)
        if len(own) >= 2:
            slots.append(Slot("pile_order", effect, candidates=own, player=o))
            ordered[o] = next(answered, own)
        else:
            ordered[o] = own
    if len(owners) == 2:
        merged = tuple(c for o in owners for c in ordered[o])
        slots.append(Slot("pile_order", effect, candidates=merged, player=active))
    return slots


class Walk(NamedTuple):
    """A step's choices so far: the answers in order, the next slot if one is
    open, and the targets named in advance that the step did not take (the
    steps after "then" take theirs from these, 407.4, 407.5)."""

    answers: tuple[Any, ...]
    open: Slot | None
    given_left: tuple[str, ...] = ()


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
            if isinstance(e, MoveEffect) and e.move.to in PILES_IN_ORDER and not isinstance(e.move.what, Target):
                orders: list[tuple[str, ...]] = []
                moving = select(state, reader, e.move.what)
                for k in range(len(pile_order_slots(state, reader, e, moving, []))):
                    slot = pile_order_slots(state, reader, e, moving, orders)[k]
                    if recorded and recorded[0][0] == "cards":
                        a = tuple(recorded.pop(0)[1])
                    else:
                        return slot
                    orders.append(a)
                    answers.append(a)
        return None

    open_slot = go(effects)
    return Walk(tuple(answers), open_slot, tuple(given))


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
            if isinstance(e, MoveEffect) and e.move.to in PILES_IN_ORDER and not isinstance(e.move.what, Target):
                moved = select(state, reader, e.move.what)
                orders = [chosen() for _ in pile_order_slots(state, reader, e, moved, [])]
                if orders:
                    final = pile_order(state, reader, e, moved, orders)
                    out.extend(_effect(state, use, reader, e, lambda sel, final=final: final))
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
            ValuesModified.trusted(card=src, use=uid, target=t, physical=p, mental=mm, random=r, until=m.until)
            for t in targets
        ]
    if isinstance(e, MoveEffect):
        mv = e.move
        out: list[Event] = []
        for t in cards(mv.what):
            if mv.to == "field":
                if state.cards[t].type != "character" or state.character(t) is not None:
                    continue  # only a character can be put onto the field by itself
                dest = _whose(state, reader, mv.player, t, reader.controller)  # 214.2d
            elif mv.to in ("harem", "execution", "side"):
                dest = _whose(state, reader, mv.player, t, t[0])
            else:
                dest = t[0]  # 215.1b: castle, hand, stack and discard hold their owner's cards
            out.append(CardMoved.trusted(card=src, use=uid, target=t, to=mv.to, player=dest, position=mv.position))
        return out
    if isinstance(e, (TapEffect, UntapEffect)):
        untap = isinstance(e, UntapEffect)
        targets = [
            t
            for t in cards(e.untap if untap else e.tap)  # type: ignore[union-attr]  # untap: e is an UntapEffect
            if (ch := state.character(t)) is not None and ch.ready != untap
        ]
        return [CharactersTapped.trusted(card=src, use=uid, targets=targets, untap=untap)] if targets else []
    if isinstance(e, BattleTypeEffect):
        b = state.battle
        if b is None or b.kind in (None, "castle") or b.kind == e.battle_type:
            return []  # 306.5h: never into or out of a castle attack
        return [BattleTypeChanged.trusted(card=src, use=uid, kind=e.battle_type)]
    if isinstance(e, NoRandomNumberEffect):
        b = state.battle
        combatants = {b.attacker, b.interceptor} if b is not None else set()
        return [
            RandomNumberWaived.trusted(card=src, use=uid, target=t)
            for t in cards(e.no_random_number)
            if t in combatants
        ]
    if isinstance(e, CounterEffect):
        found = next((f for f in state.agenda if getattr(f, "id", None) == use.about), None)
        if isinstance(found, Proposal) and found.situation == "use" and found.it is not None:
            # A character or item card being used waits at the moment before it
            # reaches the field: countered, it goes to its owner's discard
            # pile instead (411.1c), and what was paid stays paid (411.1d).
            card = found.it
            if state.cards[card].uncounterable:
                return [CounterFailed.trusted(card=src, use=uid, target=card, countered=found.id)]
            return [
                UseCountered.trusted(card=src, use=uid, target=card, countered=found.id),
                CardMoved.trusted(card=src, use=uid, target=card, to="discard", player=card[0], rule="411.1c"),
            ]
        target = found if isinstance(found, Use) else None
        if target is None or target.countered:
            return []
        # 411.2: "this card cannot be countered" protects the card being
        # used, not the abilities written on it
        if target.kind == "event" and state.cards[target.card].uncounterable:
            return [CounterFailed.trusted(card=src, use=uid, target=target.card, countered=target.id)]
        return [UseCountered.trusted(card=src, use=uid, target=target.card, countered=target.id)]
    if isinstance(e, CopyEffect):
        c = e.copy_
        sources = cards(c.from_)
        if not sources:
            return []
        return [
            CharacteristicsCopied.trusted(card=src, use=uid, target=t, source=sources[0], until=c.until)
            for t in cards(c.what)
            if t != sources[0]
        ]
    if isinstance(e, GainEffect):
        g = e.gain
        return [
            AbilitiesGained.trusted(card=src, use=uid, target=t, abilities=list(g.abilities), until=g.until)
            for t in cards(g.what)
        ]
    if isinstance(e, LoseAbilitiesEffect):
        lo = e.lose_abilities
        return [AbilitiesLost.trusted(card=src, use=uid, target=t, until=lo.until) for t in cards(lo.what)]
    if isinstance(e, ControlEffect):
        ctl = e.control
        out = []
        for t in cards(ctl.what):
            to = _whose(state, reader, ctl.player, t, reader.controller)
            if (ch := state.character(t)) is not None and ch.controller != to:
                out.append(ControlChanged.trusted(card=src, use=uid, target=t, player=to, until=ctl.until))
        return out
    if isinstance(e, HandMaxEffect):
        h = e.hand_max
        out = []
        for who in players(state, reader, h.player):
            if h.set is not None:
                out.append(
                    HandMaximumChanged.trusted(
                        card=src, use=uid, player=who, set=amount(state, reader, h.set), until=h.until
                    )
                )
            else:
                out.append(
                    HandMaximumChanged.trusted(
                        card=src, use=uid, player=who, by=amount(state, reader, h.by), until=h.until
                    )
                )
        return out
    return []  # name and forbid are static only


def _whose(state: GameState, reader: Reader, who: str | None, card: str, default: str) -> str:
    """The one player a ``move`` or ``control`` gives ``card`` to: ``you``,
    ``opponent``, ``active``; ``each``: the card's own owner (each player
    takes their own cards); unwritten: ``default``."""
    if who is None:
        return default
    if who == "each":
        return card[0]
    found = players(state, reader, who)
    return found[0] if found else default


def _game_end(use: Use, reader: Reader, won: list[str], lost: list[str]) -> GameEnded | None:
    """102.4-102.6 (ruling A13): card-made wins and losses, all at once."""
    if not won and not lost:
        return None
    winners = {p for p in won if p not in lost}  # 102.6: a win and a loss at once is a loss
    losers = set(lost)
    card = reader.card
    if len(losers) == 2:
        return GameEnded.trusted(rule="102.5", draw=True, reason="Both players lost at once.", card=card, step="over")
    if losers:
        (loser,) = losers
        rule = "102.6" if loser in won else "102.4"
        return GameEnded.trusted(
            rule=rule, winner=other(loser), reason=f"{loser} loses by card text.", card=card, step="over"
        )
    if len(winners) == 2:
        return GameEnded.trusted(
            rule="102.4", ruling="A13", draw=True, reason="Both players won at once.", card=card, step="over"
        )
    (winner,) = winners
    return GameEnded.trusted(rule="102.4", winner=winner, reason=f"{winner} wins by card text.", card=card, step="over")


# --- 310, 306.5o: effects that last until the end of the turn or of the battle ------------------


def ends(state: GameState, until: str, rule: str) -> list[Event]:
    """310 / 306.5o: effects lasting until the end of the turn / battle end
    (a control change given back to the player who had the character)."""
    gone = [e for e in state.effects if e.until == until]
    if not gone:
        return []
    out: list[Event] = []
    for e in gone:
        if e.kind == "control":
            ch = state.character(e.target)  # type: ignore[arg-type]  # a control effect has a target
            if ch is not None and ch.since == e.since and ch.controller != e.values[1]:
                out.append(ControlChanged.trusted(rule=rule, card=e.source, target=e.target, player=e.values[1]))
    return out + [EffectsEnded.trusted(rule=rule, ids=[e.id for e in gone])]


def describe_slot(state: GameState, slot: Slot) -> str:
    """What the player is asked, in a sentence."""
    if slot.kind == "may":
        return 'answer yes or no to a "may" (401.7)'
    if slot.kind == "pile_order":
        names = ", ".join(name_of(state, c) for c in slot.candidates)
        pile, rule = ("harem", "215.7c") if slot.effect.move.to == "harem" else ("execution pile", "215.8c")
        return f"name the order, top first, in which {names} go into the {pile} ({rule}, ruling A25)"
    names = ", ".join(name_of(state, c) for c in slot.candidates)
    return f"choose a target (407.4): one of {names}"
