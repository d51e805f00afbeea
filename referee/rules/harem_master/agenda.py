"""Rules 215.7c, 215.8c, 408.2, 409.3 and 411.1b: the agenda, where used and triggered abilities wait and resolve.

It owns the choices made there: the order of simultaneous triggers (408.2,
ruling A23), which of several replacements applies (409.3), the order of
cards put into a harem or an execution pile together (215.7c, 215.8c,
ruling A25), and a countered use, which does nothing (411.1b). It runs what
other rules decide: windows (406.2), responses (407.3), resolution (407.4-
407.6, ``effects``), triggers (403, ``situations``) and replacements (409).

The agenda is a stack in the state (``projections.harem_master.state``): uses waiting to
resolve, 406.2 windows, and *proposals* (the moment before something
happens, holding the events of that something back). Before the turn
procedure moves on, the referee works the agenda, one automatic step or one
player's decision at a time:

1. a use that is resolving goes on: its choices (407.4: targets, "may"),
   then the events of its step (407.5), held back as a proposal if anything
   cares about them happening (409, 403.1a);
2. fired triggers go on the agenda, the non-active player's first, each
   player ordering their own (408.2, ruling A23);
3. the top entry: a use or a proposal meets what comes before it
   (replacements 409, ``before`` triggers 403.1a, a response chance 407.3),
   then resolves or happens; a window asks its players in turn (406.2).

``look`` answers "what now?" for a state: a decision, or the automatic
events, or None when the agenda is empty and the procedure goes on.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple, cast

from events.harem_master.game import (
    CastleAttacked,
    Chosen,
    EffectsApplied,
    MomentBefore,
    SituationProceeds,
    SituationProposed,
    SituationReplaced,
    TriggerResolving,
    TriggersOrdered,
    UseResolved,
    UseResolving,
    WindowClosed,
    WindowOpened,
    WindowPassed,
)
from events.kernel import Event
from projections.harem_master.state import GameState, Proposal, Use, Window, evolve, other
from referee.rules.harem_master.abilities import anyone_can_respond, can_use, moment_of
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.characteristics import (
    MISSING,
    Reader,
    carried,
    carry,
    has_text,
    holds,
    memo,
    physical,
    zone_of,
)
from referee.rules.harem_master.common import name_of, refuse
from referee.rules.harem_master.effects import Slot, describe_slot, facts, groups, walk
from referee.rules.harem_master.registry import ACTIONS, OPTION, ArgSpec, Context, Decision, decision_kind
from referee.rules.harem_master.situations import (
    Sit,
    events_of,
    fire,
    happened,
    hold,
    moved,
    one_card_each,
    replacements,
    sources,
    use_situation,
)

# The cards of a choice: a target, simultaneous triggers in order (408.2), a pile's order (215.7c, 215.8c).
CARDS_CHOSEN = ArgSpec("cards", "cards", help="the cards chosen: a target, or an order (408.2, 215.7c, 215.8c)")


class Choice(NamedTuple):
    """A choice the agenda waits for."""

    player: str
    kind: str  # target | may | order | replacement
    entry: int | None  # the agenda entry it is for
    options: tuple[Any, ...]  # target cards, yes/no, trigger cards, replacement sources
    text: str


class Look(NamedTuple):
    decision: Decision | None
    choice: Choice | None
    events: list[Event]


def _entry(state: GameState, entry_id: int | None) -> Any:
    return next((f for f in state.agenda if f.id == entry_id), None)


def look(state: GameState) -> Look | None:
    """What the agenda needs now, or None when it is empty."""
    if not state.agenda and not state.triggers:
        return None
    m = memo(state)
    found = m.get("look")
    if found is None:
        found = _look(state)
        m["look"] = found
    return found


def _look(state: GameState) -> Look:
    # A Use, Window or Proposal; None only with an empty agenda, when the
    # triggers waiting go first (``_trigger_under_way`` is then False).
    top: Any = state.agenda[-1] if state.agenda else None
    if isinstance(top, Use) and top.stage == "resolving":
        return _resolve(state, top)
    if state.triggers and not _trigger_under_way(state):
        return _next_trigger(state)
    if isinstance(top, Use):
        return _before_use(state, top)
    if isinstance(top, Proposal):
        return _before_proposal(state, top)
    return _window(state, top)


def _auto(events: list[Event]) -> Look:
    return Look(None, None, events)


def _ask(choice: Choice) -> Look:
    return Look(Decision(choice.player, "choose"), choice, [])


# --- 407.4-407.6: resolving ------------------------------------------------------------


def reader_of(use: Use) -> Reader:
    return Reader(use.card, use.player, use.it, use.n, use.known)


def _resolve(state: GameState, use: Use) -> Look:
    if use.countered:  # 411.1b, 409.2: it has no effect
        return _auto([UseResolved.trusted(use=use.id, card=use.card, rule="411.1b")])
    steps = groups(use.effects)
    if use.group >= len(steps):
        return _auto([UseResolved.trusted(use=use.id, card=use.card)])
    reader = reader_of(use)
    step = steps[use.group]
    w = walk(state, use, reader, step)
    if w.open is not None:
        return _ask(_slot_choice(state, use, w.open))
    made = facts(state, use, reader, step, w.answers)
    closing: Event = (
        EffectsApplied.trusted(use=use.id, card=use.card, targets_left=list(w.given_left))
        if use.group + 1 < len(steps)
        else UseResolved.trusted(use=use.id, card=use.card)
    )
    if any(e.step == "over" for e in made):
        return _auto(made)
    proposal = propose(state, made + [closing], "effects", use.card, use.player, use.exempt)
    return _auto(proposal if proposal is not None else made + [closing])


def _slot_choice(state: GameState, use: Use, slot: Slot) -> Choice:
    what = f"{name_of(state, use.card)}: {describe_slot(state, slot)}"
    if slot.kind == "may":
        return Choice(use.player, "may", use.id, ("yes", "no"), what)
    if slot.kind == "pile_order":
        return Choice(slot.player or use.player, "pile_order", use.id, slot.candidates, what)
    return Choice(use.player, "target", use.id, slot.candidates, what)


# --- 403.1a, 409: proposals ------------------------------------------------------------------


def _sits(state: GameState, ev: Event) -> list[tuple[Sit, GameState]]:
    return happened(state, evolve(state, ev), ev)


def cares(state: GameState, sit: Sit, about: int | None = None) -> bool:
    """Does anything in play care that ``sit`` is about to happen: a
    replacement (409), a ``before`` trigger (403.1a) or a use only usable
    then (214.3c, 402.2a)? Asked of one state more than once (an attack's
    moment is looked for as its event is recorded, then by 306.5c's decision
    and its step), so the answer is kept with the state."""
    if not sources(state, "replacement") and not sources(state, "triggered") and not _responders(state):
        return False
    m = memo(state)
    key = ("cares", sit, about)
    found = m.get(key)
    if found is None:
        found = m[key] = bool(
            replacements(state, sit) or fire([(sit, state)], "before") or anyone_can_respond(state, sit, about)
        )
    return found


def _responders(state: GameState) -> bool:
    """Could anyone respond to anything (a card or ability with only/also or a
    counter)? Carried while the hands stay the same and the activated
    abilities in play are the same list (``sources``)."""
    zones = state.zones
    activated = sources(state, "activated")
    key = (state.cards, zones["A"].hand, zones["B"].hand, activated)
    found = carried("responders", key)
    if found is MISSING:
        found = any(
            any(a.kind == "use" for a in state.cards[c].abilities) for p in ("A", "B") for c in zones[p].hand
        ) or bool(activated)
        carry("responders", key, found)
    return found


def propose(
    state: GameState,
    pending: list[Event],
    situation: str,
    it: str | None,
    player: str | None,
    exempt: tuple[str, ...] = (),
    then: tuple[tuple[str, list[Event]], ...] = (),
) -> list[Event] | None:
    """The moment before ``pending`` happens: a ``SituationProposed`` holding
    them back if anything cares about their situations, else None (they
    happen at once). ``exempt``: when these are a replacement's own effects,
    that replacement (and those that lost to it, 409.3) may not replace them
    again, or "instead of leaving the field, move it" would never end.
    ``then``: later moments (their situation and events) that follow these
    one after the other, each at its own moment before, held with them."""
    if not _anyone_could_care(state):
        return None
    if not any(cares(state, sit) for ev in pending for sit, _ in _sits(state, ev)):
        return None
    held = [hold(part, _zone_of_event(state, part)) for ev in pending for part in one_card_each(ev)]
    for later, events in then:
        parts = [part for ev in events for part in one_card_each(ev)]
        held += [hold(part, None, later if i == 0 else None) for i, part in enumerate(parts)]
    return [SituationProposed.trusted(situation=situation, it=it, player=player, pending=held, exempt=list(exempt))]


def pipeline(
    state: GameState,
    events: list[Event],
    situation: str,
    it: str | None,
    player: str | None,
    exempt: tuple[str, ...] = (),
    then: tuple[tuple[str, list[Event]], ...] = (),
) -> list[Event]:
    """The one way a rule step or a card moves cards: the proposal, held at
    the moment before it if a replacement (409), a ``before`` trigger
    (403.1a) or a use only usable then cares, else the events themselves;
    once they have happened the engine fires the ``after`` triggers (403.1b)
    and makes its checks. ``then``: later moves that happen after these,
    each through the pipeline in its turn (214.4g: an item enters the field,
    then goes to the discard)."""
    held = propose(state, events, situation, it, player, exempt, then)
    if held is not None:
        return held
    if not then:
        return events
    out = list(events)
    after = state
    for ev in events:
        after = evolve(after, ev)
    (later, more), *rest = then
    return out + pipeline(after, more, later, it, player, exempt, tuple(rest))


def _anyone_could_care(state: GameState) -> bool:
    """Is there anything in play at all that could care about a situation?"""
    return has_text(state) and bool(sources(state, "replacement") or sources(state, "triggered") or _responders(state))


def held_cards(state: GameState) -> frozenset[str]:
    """The cards whose move is under way: held back by a proposal on the
    agenda, or replaced by a replacement that has yet to resolve (409.1).
    The checks that would move them again (214.2e, 214.4f) wait for it."""
    if not state.agenda:
        return frozenset()
    m = memo(state)
    found = m.get("held")
    if found is None:
        held: set[str] = set()
        for f in state.agenda:
            if isinstance(f, Proposal):
                held.update(c for ev in events_of(f.pending) for c in moved(ev))
            elif isinstance(f, Use) and f.kind == "replacement" and f.it:
                held.add(f.it)
        found = frozenset(held)
        m["held"] = found
    return found


def propose_moment(state: GameState, sit: Sit) -> list[Event] | None:
    """The moment before an attack or an interception (306.5b, 306.5d): no
    event is held back; only what comes before it."""
    if not cares(state, sit):
        return None
    return [SituationProposed.trusted(situation=sit.event, it=sit.card, player=sit.player)]


def moment(state: GameState, sit: Sit, event: Event) -> list[Event]:
    """A moment of the procedure that abilities name (304 turn_start, 306.5j
    win/lose_battle, 306.5n battle_end, 308 turn_end): the step's own event,
    then the triggers the moment fires (403.1), unless a replacement takes
    the moment's place (409), and a response chance for uses written to be
    usable only then (214.3c, 402.2a)."""
    if not has_text(state):
        return [event]
    out: list[Event] = [event]
    found = replacements(state, sit)
    if found:
        src = found[0]
        return out + [
            SituationReplaced.trusted(
                player=src.controller,
                card=src.card,
                ability=src.index,
                definition=src.ability,
                situation=sit.event,
                it=sit.card,
                exempt=[f"{src.card}#{src.index}"],
            )
        ]
    out += fire([(sit, state)], "before") + fire([(sit, state)], "after")
    if anyone_can_respond(state, sit, None):
        out.append(
            WindowOpened.trusted(
                rule="407.3",
                kind="response",
                player=other(cast(str, state.active)),  # turns have started (304): there is an active player
                situation=sit.event,
                it=sit.card,
                whose=sit.player,
            )
        )
    return out


# Proposals of a moment that holds no event back (propose_moment).
MOMENTS = ("attack", "intercept")


def _zone_of_event(state: GameState, ev: Event) -> str | None:
    cards = moved(ev)
    return zone_of(state, cards[0]) if len(cards) == 1 else None


def _exempt(state: GameState, entry: Any) -> tuple[str, ...]:
    """409.3: the replacements that may not apply to what ``entry`` does: a
    replacement's own (and those that lost the choice to it). The events a
    replacement's effects cause are held in a proposal of their own, which
    takes the list from the use it belongs to; without this a replacement
    replaced its own effect again and again."""
    if isinstance(entry, Use):
        return entry.exempt
    if isinstance(entry, Proposal) and entry.situation == "effects" and entry.pending:
        uid = entry.pending[0].get("event", {}).get("use")
        use = _entry(state, uid)
        if isinstance(use, Use):
            return use.exempt
    return ()


def _replacement_step(state: GameState, entry: Any, sits: list[tuple[Sit, int | None, str | None]]) -> Look | None:
    """409.1, 409.3: the first situation a replacement applies to is replaced;
    with several replacements the active player chooses which."""
    # Two records of the same fact meet here: a proposal of a replacement's
    # own effects carries its list, and a use's list reaches the proposal of
    # what its effects cause.
    own = entry.exempt if isinstance(entry, (Use, Proposal)) else ()
    exempt = tuple(dict.fromkeys((*own, *_exempt(state, entry))))
    for sit, fact, step in sits:
        found = replacements(state, sit, exempt)
        if not found:
            continue
        # 409.3: one event is several situations at once (a capture is also
        # leaving the field): the replacements of all of them compete for it.
        for other_sit, other_fact, _ in sits:
            if other_fact == fact and other_fact is not None and other_sit is not sit:
                found += [src for src in replacements(state, other_sit, exempt) if src not in found]
        chosen = found[0]
        if len(found) > 1:
            picked = [v for k, v in entry.choices if k == "option"]
            match = [src for src in found if picked and picked[-1] in (src.card, f"{src.card}#{src.index}")]
            if not match:
                return _ask(
                    Choice(
                        cast(str, state.active),  # 409.3 is asked during a turn: there is an active player
                        "replacement",
                        entry.id,
                        tuple(f"{src.card}#{src.index}" for src in found),
                        f"choose which replacement applies to {sit.event.replace('_', ' ')} (409.3)",
                    )
                )
            chosen = match[0]
        losers = [f"{src.card}#{src.index}" for src in found if src is not chosen]
        sit = next((s for s, f, _ in sits if (f == fact or s is sit) and chosen in replacements(state, s, exempt)), sit)
        return _auto(
            [
                SituationReplaced.trusted(
                    player=chosen.controller,
                    card=chosen.card,
                    ability=chosen.index,
                    definition=chosen.ability,
                    situation=sit.event,
                    it=sit.card,
                    about=entry.id,
                    fact=fact,
                    exempt=[*exempt, f"{chosen.card}#{chosen.index}", *losers],
                    step=step,
                )
            ]
        )
    return None


def _what_comes_first(state: GameState, entry: Any, main: Sit, sits: list[Sit]) -> list[Event]:
    """``before`` triggers (403.1a) and a response chance (407.3, 214.3c) for
    the moment before ``main``; a ``MomentBefore`` marks them under way."""
    triggers = fire([(s, state) for s in sits], "before")
    window = anyone_can_respond(state, main, entry.id)
    if not triggers and not window:
        return []
    out: list[Event] = list(triggers)
    if window:
        # a response chance comes during a turn: there is an active player
        out.append(
            WindowOpened.trusted(rule="407.3", kind="response", player=other(cast(str, state.active)), about=entry.id)
        )
    out.append(MomentBefore.trusted(about=entry.id))
    return out


def _active_abilities(state: GameState, use: Use) -> list[int]:
    """404.2 and the "if" of other kinds: checked again at resolution."""
    reader = reader_of(use)
    return [i for i, a in enumerate(use.abilities) if holds(state, reader, a.if_)]


def _before_use(state: GameState, use: Use) -> Look:
    if use.countered:
        return _auto([UseResolved.trusted(use=use.id, card=use.card, rule="411.1b")])
    resolving = UseResolving.trusted(use=use.id, card=use.card, active=_active_abilities(state, use))
    if use.stage == "ready" or use.kind == "replacement":
        return _auto([resolving])
    sit = use_situation(state, use)
    replaced = _replacement_step(state, use, [(sit, None, None)])
    if replaced is not None:
        return replaced
    first = _what_comes_first(state, use, sit, [sit])
    return _auto(first or [resolving])


def _now(pending: tuple[Any, ...]) -> tuple[Any, ...]:
    """The events of a proposal's own moment: those before the first that
    starts a later moment (``then``)."""
    for i, held in enumerate(pending):
        if held.get("then"):
            return pending[:i]
    return pending


def _proposal_sits(state: GameState, prop: Proposal) -> tuple[Sit, list[tuple[Sit, int | None, str | None]]]:
    main = Sit(prop.situation, prop.it, prop.player)
    if prop.situation == "use" and prop.it:
        main = main._replace(details=(("card_type", state.cards[prop.it].type), ("ability", False)))
    out: list[tuple[Sit, int | None, str | None]] = []
    if not prop.pending:
        out.append((main, None, "306.5n"))  # a replaced attack or interception ends the battle
    for i, ev in enumerate(events_of(_now(prop.pending))):
        for sit, _ in _sits(state, ev):
            out.append((sit, i, ev.step))
    return main, out


def _before_proposal(state: GameState, prop: Proposal) -> Look:
    if prop.stage == "ready":
        return _auto(_proceed(state, prop))
    if not _now(prop.pending) and prop.situation not in MOMENTS:
        # 409.2: what it held was replaced; nothing is left to happen now.
        return _auto(_proceed(state, prop))
    main, sits = _proposal_sits(state, prop)
    replaced = _replacement_step(state, prop, sits)
    if replaced is not None:
        return replaced
    first = _what_comes_first(state, prop, main, [s for s, _, _ in sits])
    return _auto(first or _proceed(state, prop))


def _proceed(state: GameState, prop: Proposal) -> list[Event]:
    """The proposal's events happen, those whose card is still where it was;
    a later moment it holds (``then``) comes next, through the pipeline."""
    out: list[Event] = [SituationProceeds.trusted(about=prop.id)]
    now = _now(prop.pending)
    for held, ev in zip(now, events_of(now)):
        zone = held.get("zone")
        cards = moved(ev)
        if zone is not None and cards and zone_of(state, cards[0]) != zone:
            continue  # it is no longer where it was: this part cannot happen
        out.append(_reread(state, ev))
    later = prop.pending[len(now) :]
    if later:
        after = state
        for ev in out:
            after = evolve(after, ev)
        steps: list[tuple[str, list[Event]]] = []
        for held, ev in zip(later, events_of(later)):
            if held.get("then"):
                steps.append((held["then"], []))
            steps[-1][1].append(ev)
        (situation, events), *rest = steps
        out += pipeline(after, events, situation, prop.it, prop.player, prop.exempt, tuple(rest))
    return out


def _reread(state: GameState, ev: Event) -> Event:
    """306.5m (ruling A6): the castle attack mills the attacker's physical as
    it is when the attack happens, so after the "will attack the castle"
    triggers and uses of its moment before (403.1a) changed it."""
    if isinstance(ev, CastleAttacked) and state.battle is not None and state.battle.attacker is not None:
        amount = physical(state, state.battle.attacker)
        return ev.model_copy(update={"amount": amount, "step": "306.5m" if amount > 0 else "306.5n"})
    return ev


# --- 408.2: simultaneous triggers ----------------------------------------------------------


def _trigger_under_way(state: GameState) -> bool:
    """408.2: simultaneous triggers resolve one at a time, so the next one
    waits while one that went to resolve after it fired is still on the
    agenda (with its responses and what it proposes above it). Without this
    each waiting trigger was put on the agenda above the one before it, and
    the last one put there resolved first: the reverse of 408.2's order."""
    first = min(t.id for t in state.triggers)
    return any(isinstance(f, Use) and f.kind == "triggered" and f.id > first for f in state.agenda)


def _next_trigger(state: GameState) -> Look:
    nap = other(state.active) if state.active else "B"
    player = nap if any(t.player == nap for t in state.triggers) else other(nap)
    mine = [i for i, t in enumerate(state.triggers) if t.player == player]
    if len(mine) >= 2 and not all(state.triggers[i].ordered for i in mine):
        cards = tuple(dict.fromkeys(state.triggers[i].card for i in mine))
        if len(cards) >= 2:
            return _ask(Choice(player, "order", None, cards, "order your simultaneous triggers (408.2)"))
    i = mine[0]
    t = state.triggers[i]
    return _auto([TriggerResolving.trusted(player=player, card=t.card, index=i)])


# --- 406.2: windows --------------------------------------------------------------------------


def _window(state: GameState, w: Window) -> Look:
    nap = w.first
    if w.passes >= 2:
        return _auto([WindowClosed.trusted(rule="406.2")])
    turn = other(nap) if (w.passes == 1 and w.last == nap) else nap
    if can_use(state, turn, moment_of(state, turn)):
        return Look(Decision(turn, "respond"), None, [])
    if w.passes == 1:
        return _auto([WindowClosed.trusted(rule="406.2")])
    return _auto([WindowPassed.trusted(rule="406.2", player=turn, auto=True)])


# --- the decisions -------------------------------------------------------------------------


def agenda_decision(state: GameState) -> Decision | None:
    found = look(state)
    return found.decision if found is not None else None


def agenda_events(state: GameState) -> list[Event] | None:
    """The automatic events the agenda takes now; None when it is empty (the
    procedure goes on), [] when a player must decide."""
    found = look(state)
    return found.events if found is not None else None


def _choice(state: GameState) -> Choice:
    found = look(state)
    assert found is not None and found.choice is not None
    return found.choice


def _choose_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    """Each option of the choice: a "may" or a replacement by its option, a
    target by its card, each order of simultaneous triggers (one to resolve
    next, or all of them while they are few), each order of a pile (408.2,
    215.7c, 215.8c), the permutations bounded."""
    c = _choice(state)
    if c.kind in ("may", "replacement"):
        return [Action(p, "choose", option=o) for o in c.options]
    if c.kind == "pile_order":
        return [Action(p, "choose", cards=perm) for perm in itertools.islice(itertools.permutations(c.options), 120)]
    if c.kind == "order":
        out = [Action(p, "choose", cards=(o,)) for o in c.options]
        if len(c.options) <= 5:
            out += [Action(p, "choose", cards=perm) for perm in itertools.permutations(c.options)]
        return out
    return [Action(p, "choose", cards=(o,)) for o in c.options]


@ACTIONS.move(
    "choose",
    "407.4",
    args=(CARDS_CHOSEN, OPTION),
    candidates=_choose_candidates,
    help="make the choice a resolution asks for: cards (targets, an order) or --option",
)
def _decide_choose(state: GameState, a: Action, ctx: Context) -> list[Event]:
    c = _choice(state)
    if c.kind == "may":
        if a.option not in ("yes", "no"):
            raise refuse("401.7", f'{c.text.split(":")[0]}: answer the "may" with option yes or no (401.7).')
        return [Chosen.trusted(rule="401.7", player=a.player, use=c.entry, option=a.option)]
    if c.kind == "replacement":
        picked = [o for o in c.options if a.option in (o, o.partition("#")[0], name_of(state, o.partition("#")[0]))]
        if not picked:
            shown = ", ".join(name_of(state, o.partition("#")[0]) for o in c.options)
            raise refuse("409.3", f"Choose which replacement applies, by its card: one of {shown}.")
        return [Chosen.trusted(rule="409.3", player=a.player, use=c.entry, option=picked[0])]
    cards = tuple(a.cards or ())
    if c.kind == "pile_order":
        return [_pile_order(state, a, c, cards)]
    if c.kind == "order":
        if (
            not cards
            or len(set(cards)) != len(cards)
            or any(x not in c.options for x in cards)
            or 1 < len(cards) < len(c.options)
        ):
            shown = ", ".join(name_of(state, o) for o in c.options)
            raise refuse(
                "408.2", f"Name the trigger to resolve next, or all of them in order, by their cards: {shown}."
            )
        return [TriggersOrdered.trusted(player=a.player, cards=list(cards))]
    if len(cards) != 1 or cards[0] not in c.options:
        shown = ", ".join(name_of(state, o) for o in c.options)
        raise refuse("407.4", f"{c.text.split(':')[0]}: choose one target among {shown}.")
    return [Chosen.trusted(rule="407.4", player=a.player, use=c.entry, cards=list(cards))]


def _pile_order(state: GameState, a: Action, c: Choice, cards: tuple[str, ...]) -> Chosen:
    """215.7c, 215.8c (ruling A25): the order of cards put into a harem or an
    execution pile together, top first: all of them, each once; when the
    active player interleaves two owners' cards, each owner's own order stays."""
    owners = dict.fromkeys(o[0] for o in c.options)
    keeps = all([x for x in cards if x[0] == o] == [x for x in c.options if x[0] == o] for o in owners)
    if sorted(cards) != sorted(c.options) or (len(owners) == 2 and not keeps):
        shown = ", ".join(name_of(state, o) for o in c.options)
        what = "interleave, keeping each owner's order," if len(owners) == 2 else "order, top first,"
        raise refuse("215.8c" if "215.8c" in c.text else "215.7c", f"Name every card to {what} once: {shown}.")
    pile = "215.8c" if "215.8c" in c.text else "215.7c"
    return Chosen.trusted(rule=pile, ruling="A25", player=a.player, use=c.entry, cards=list(cards))


decision_kind("choose", "407.4", "make the choice the resolution asks for (407.4)", ("choose",))
decision_kind(
    "respond", "406.2", "use an event or ability in this window, or pass (406.2)", ("play_event", "activate", "pass")
)


def choice_text(state: GameState) -> str | None:
    found = look(state)
    return found.choice.text if found is not None and found.choice is not None else None


__all__ = [
    "Choice",
    "agenda_decision",
    "agenda_events",
    "cares",
    "choice_text",
    "held_cards",
    "look",
    "pipeline",
    "propose",
    "propose_moment",
]
