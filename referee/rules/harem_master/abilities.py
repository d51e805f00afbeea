"""Rules 103-103.1, 214.3, 400-401.4a, 401.8, 402, 406, 407-407.3, 411-411.1a and 503-505: using event cards and activated abilities.

Card text is abilities, what following it does is effects (400, 400.1,
401.1); an ability may help or hurt (401.2), and the separable parts of a
text are separate abilities (401.3). Abilities are activated, triggered or
static (401.8: triggers are ``situations``', statics ``characteristics'``);
a character's or an item's abilities work on the field only (401.4a) unless
they say where else (401.4). Card text beats the rules (103, 103.1): a
static that forbids an action refuses it (``forbidden``). Event cards
(214.3): only in your own turn unless [OT] (214.3a), controlled by their
user (214.3b), "only usable when ~" and "also usable when ~" (214.3c,
214.3d), to the discard once used (214.3e). Activated abilities: 402.
Icons of costs: [1], [2] (503), [0] (503.1: declaring is paying), [n]
(503.2, ruling A27), [T] (504), [OT] (505). Counters (411, 411.1) are used
only in response to a card or an ability being used or triggered (411.1a).

Timing (406): a use only when the rules or cards allow it (406.1), each
declared and resolved on its own (406.3), those "in response to ~" first
(406.3a, the agenda's). Where a card or an ability may be used is a *window* (406.2): the main
phase's 305/306, the 307 chance after the end declaration, 306.5h (only
uses that change the battle type), and every response chance (407.3, the
moment before something happens: only uses written "only usable when ~" or
"also usable when ~" for it, and counters of a use or a trigger, 411.1a).
``use_candidates`` lists what a player might use in a window, and each use
is checked by ``check_event`` / ``check_activated``, which raise the
refusal citing the rule that forbids it (402.1a, 402.2, 402.3, 402.3a,
214.3a, 214.3c, 402.2a, 411.1a, 215.4c, 103.1). Using one (407, 407.1):
``declare`` makes the events of a use, the card to the discard or the
ability declared, then its cost (407.2); the response chance that comes
before it resolves (407.3) is the agenda's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from events.harem_master.abilities import BattleTypeEffect, CounterEffect, walk
from events.harem_master.game import AbilityActivated, CardTapped, EventPlayed
from events.kernel import Event
from projections.harem_master.state import GameState, Proposal, Use, Window, other
from referee.actions import IllegalAction
from referee.rules.harem_master.actions import Action, Seated
from referee.rules.harem_master.characteristics import (
    MISSING,
    Reader,
    abilities,
    candidates,
    carried,
    carry,
    controller_of,
    has_text,
    holds,
    match,
    memo,
    on_field,
    players,
    roster,
    select,
    statics,
    statics_give,
    with_given,
    zone_of,
)
from referee.rules.harem_master.common import a_card, in_hand, name_of, physical, refuse
from referee.rules.harem_master.hidden import as_played, hand_candidates
from referee.rules.harem_master.registry import Events
from referee.rules.harem_master.situations import Sit, meets, use_situation
from referee.rules.harem_master.zones import pay, stack_size


class Moment(NamedTuple):
    """Which window a player acts in, and for a response chance what it is about."""

    kind: str  # main | window (305) | end (307) | battle_type (306.5h) | response (407.3)
    sit: Sit | None = None
    about: int | None = None  # the agenda entry responded to


# --- where the player is ------------------------------------------------------------------


def window_sit(state: GameState, w: Window) -> Sit | None:
    """The situation a response window is about."""
    if w.about is None:
        return Sit(w.situation, w.it, w.player) if w.situation else None
    entry = next((f for f in state.agenda if f.id == w.about), None)
    if isinstance(entry, Use):
        return use_situation(state, entry)
    if isinstance(entry, Proposal):
        if entry.situation == "use" and entry.it:
            # A character or item card being used (407.2): what it is, for
            # "in response to ... a character card" (card_type), as when the
            # window was opened for it.
            return Sit("use", entry.it, entry.player, (("card_type", state.cards[entry.it].type), ("ability", False)))
        return Sit(entry.situation, entry.it, entry.player)
    return None


def moment_of(state: GameState, player: str) -> Moment:
    """The window ``player`` acts in now."""
    top = state.agenda[-1] if state.agenda else None
    if isinstance(top, Window):
        if top.kind == "battle_type":
            return Moment("battle_type")
        return Moment("response", window_sit(state, top), top.about)
    if state.step == "307":
        return Moment("end")
    if player == state.active:
        return Moment("main")
    return Moment("window")


# --- timing: 214.3, 402.2, 406, 411.1a ------------------------------------------------------


def _mentions_n(effects: Any) -> bool:
    return '"n"' in str([e.model_dump_json() for e in walk(list(effects))])


def _timing(
    state: GameState, reader: Reader, only: Any, also: Any, effects: list[Any], moment: Moment, what: str
) -> None:
    """214.3c/d, 402.2a, 406.1, 411.1a: may this be used in this window?"""
    counter = any(isinstance(e, CounterEffect) for e in walk(effects))
    if moment.kind == "response":
        sit = moment.sit
        if sit is not None:
            if only is not None and meets(state, reader._replace(it=sit.card), only, sit):
                return
            if also is not None and meets(state, reader._replace(it=sit.card), also, sit):
                return
            if counter and only is None and also is None and sit.event in ("use", "trigger"):
                return
        raise refuse("406.1", f"{what} is not a response to this (only uses written for it can be used now, 407.3).")
    if only is not None:
        rule = "402.2a" if "ability" in what else "214.3c"
        raise refuse(rule, f"{what} can be used only when {only.event.replace('_', ' ')} is about to happen.")
    if counter and also is None:
        raise refuse(
            "411.1a",
            f"{what} counters, so it can be used only in response to a card or ability being used or triggered.",
        )
    if moment.kind == "battle_type" and not any(isinstance(e, BattleTypeEffect) for e in walk(effects)):
        raise refuse("306.5h", f"At 306.5h only what changes the battle type can be used; {what} does not.")


def forbidden(state: GameState, action: str, player: str, card: str | None = None) -> str | None:
    """103.1: a static ability of kind ``forbid`` that stops this action; the
    sentence saying so, or None."""
    if not has_text(state):
        return None
    for st in statics(state):
        for e in st.ability.effects:
            if type(e).__name__ != "ForbidEffect" or e.forbid.action != action:
                continue
            who = e.forbid.who
            source = name_of(state, st.card)
            if isinstance(who, str) and who in ("you", "opponent", "active", "each"):
                if player in players(state, st.reader, who):
                    return f"{source} forbids {player} to {_FORBIDDEN[action]} (103.1)."
            elif card is not None and card in select(state, st.reader, who):
                if action in ("attack", "intercept"):
                    return f"{source} forbids {name_of(state, card)} to {action} (103.1)."
                what = f"{name_of(state, card)}'s abilities" if action == "activate" else name_of(state, card)
                return f"{source} forbids using {what} (103.1)."
    return None


# What a player may be forbidden to do (103.1), in words.
_FORBIDDEN = {
    "attack": "attack",
    "intercept": "intercept",
    "play_character": "use character cards",
    "play_event": "use event cards",
    "play_item": "use item cards",
    "activate": "use abilities",
}


# --- event cards -----------------------------------------------------------------------


def event_uses(state: GameState, card: str) -> list[Any]:
    return [a for a in state.cards[card].abilities if a.kind == "use"]


_takes_n: dict[int, tuple[Any, bool]] = {}


def event_takes_n(state: GameState, card: str) -> bool:
    """503.2: does the event card's text have an [n]? Read from its printed
    text, which never changes, so the answer is kept per card text (the
    search goes through every effect's JSON)."""
    printed = state.cards[card].abilities
    found = _takes_n.get(id(printed))
    if found is not None and found[0] is printed:
        return found[1]
    uses = [a for a in printed if a.kind == "use"]
    value = bool(uses) and _mentions_n(e for u in uses for e in u.effects)
    if len(_takes_n) > 4096:
        _takes_n.clear()
    _takes_n[id(printed)] = (printed, value)
    return value


def check_event(
    state: GameState,
    player: str,
    card: str,
    moment: Moment,
    n: int | None = None,
    waive: frozenset[str] = frozenset(),
    probing: bool = False,
) -> int:
    """The cards an event card costs now (its cost plus n), or the refusal."""
    cd = state.cards[card]
    if cd.type != "event":
        raise refuse("306.2", f"{cd.name} is {a_card(cd.type)}, not an event.")
    why = forbidden(state, "play_event", player, card)
    if why:
        raise refuse("103.1", why)
    if player != state.active and "OT" not in cd.icons and "214.3a" not in waive:
        raise physical("214.3a", f"{cd.name} has no [OT] icon, so it can only be used during your own turn.")
    uses = event_uses(state, card)
    if uses:
        reader = Reader(card, player, moment.sit.card if moment.sit else None)
        only = next((u.only for u in uses if u.only is not None), None)
        also = next((u.also for u in uses if u.also is not None), None)
        _timing(state, reader, only, also, [e for u in uses for e in u.effects], moment, cd.name)
        if not any(holds(state, reader, u.if_) for u in uses):
            raise refuse(
                "206.1",
                f"{cd.name} cannot be used now: the condition its text gives for using it does not hold (206.1).",
            )
    elif moment.kind in ("response", "battle_type"):
        raise refuse("406.1", f"{cd.name} has no text that can be used now.")
    takes_n = event_takes_n(state, card)
    if n is not None and not takes_n:
        raise refuse("503.2", f"{cd.name} has no [n] in its text, so no n is chosen for it.")
    if takes_n and n is None and not probing:
        raise refuse("503.2", f"{cd.name} pays n more; choose n (0 or more, as the action-cost stack allows).")
    return _payable(state, player, card, cd.cost, (n or 0) if takes_n else 0)


def _payable(state: GameState, player: str, card: str, cost: int, n: int) -> int:
    """215.4c, 503.2 (ruling A27): the stack pays the cost, n from 0 to what is left."""
    have = stack_size(state, player)
    total = cost + n
    if n < 0:
        raise refuse("503.2", "The n of [n] is a whole number, 0 or more.")
    if total > have:
        what = f"{cost} + n={n}" if n else str(cost)
        raise refuse(
            "215.4c",
            f"{name_of(state, card)} costs {what} but {player}'s action-cost stack holds only {have} card"
            + ("" if have == 1 else "s")
            + ".",
        )
    return total


# --- activated abilities ----------------------------------------------------------------


_activated: dict[int, tuple[Any, list[tuple[int, Any]]]] = {}


def activated(state: GameState, card: str) -> list[tuple[int, Any]]:
    """The card's activated abilities with their place (from 1) among its abilities."""
    mine = abilities(state, card)
    found = _activated.get(id(mine))
    if found is not None and found[0] is mine:
        return found[1]
    value = [(i, a) for i, a in enumerate(mine, start=1) if a.kind == "activated"]
    if len(_activated) > 4096:
        _activated.clear()
    _activated[id(mine)] = (mine, value)
    return value


def find_ability(state: GameState, card: str, index: int | None) -> tuple[int, Any]:
    mine = activated(state, card)
    if not mine:
        raise refuse("402.1", f"{name_of(state, card)} has no activated ability.")
    if index is None:
        return mine[0]
    for i, a in mine:
        if i == index:
            return i, a
    raise refuse("402.1", f"Ability {index} of {name_of(state, card)} is not an activated ability.")


def check_activated(
    state: GameState,
    player: str,
    card: str,
    ability: Any,
    moment: Moment,
    n: int | None = None,
    probing: bool = False,
    waive: frozenset[str] = frozenset(),
) -> int:
    """The cards the ability costs now, or the refusal (402, 503, 504).
    ``waive``: what record mode records anyway (ruling A8): a [T] paid by
    tapping a character the table had already tapped (402.1a)."""
    cname = name_of(state, card)
    what = f"{cname}'s ability"
    where = zone_of(state, card)
    if ability.zone == "field":
        if where != "field":
            raise refuse("401.4a", f"{what} works only while {cname} is on the field.")
        if controller_of(state, card) != player:
            raise refuse("402.3", f"Only {cname}'s controller can use its abilities; {player} does not control it.")
    else:
        if where != ability.zone:
            raise refuse("401.4", f"{what} can be used only while {cname} is in the {ability.zone.replace('_', ' ')}.")
        if card[0] != player:
            raise refuse("402.3a", f"Only {cname}'s owner can use {what} from the {ability.zone.replace('_', ' ')}.")
    why = forbidden(state, "activate", player, card)
    if why:
        raise refuse("103.1", why)
    if player != state.active and not ability.ot:
        raise refuse("402.2", f"{what} has no [OT], so it can be used only during its controller's own turn.")
    reader = Reader(card, player, moment.sit.card if moment.sit else None, n)
    _timing(state, reader, ability.only, ability.also, list(ability.effects), moment, what)
    if not holds(state, reader, ability.if_):
        raise refuse(
            "206.1", f"{what} cannot be used now: the condition its text gives for using it does not hold (206.1)."
        )
    cost = ability.parsed_cost
    if cost.tap:
        ch = state.character(card)
        if ch is None:
            raise refuse(
                "402.1a", f"{cname} cannot pay [T]: only a character on the field turns from untapped to tapped."
            )
        if not ch.ready and "402.1a" not in waive:
            # The table can do it (turn the card that is already sideways and
            # use the ability): record mode records it with its violation.
            raise physical("402.1a", f"{cname} is already tapped; tapping a tapped card does not pay [T].")
    if n is not None and not cost.n:
        raise refuse("503.2", f"{what} has no [n] in its cost, so no n is chosen for it.")
    if cost.n and n is None and not probing:
        raise refuse("503.2", f"{what} costs [n]: choose n (0 or more, as the action-cost stack allows).")
    return _payable(state, player, card, cost.amount, (n or 0) if cost.n else 0)


# --- declaring a use (407.2) -----------------------------------------------------------


def _responding(moment: Moment) -> tuple[int | None, str | None]:
    if moment.kind != "response" or moment.sit is None:
        return None, None
    return moment.about, moment.sit.card


def _check_targets(state: GameState, player: str, card: str, effects: list[Any], targets: tuple[str, ...]) -> None:
    """407.4: targets are chosen at resolution; one named in advance must at
    least be something the text could target now."""
    from events.harem_master.abilities import Target
    from referee.rules.harem_master.effects import _selectors

    filters = [s.target for e in walk(effects) for s in _selectors(e) if isinstance(s, Target)]
    reader = Reader(card, player)
    for t in targets:
        if not any(t in candidates(state, reader, f) for f in filters):
            raise refuse("407.4", f"{name_of(state, t)} is not something {name_of(state, card)} can target.")


def declare_event(
    state: GameState, a: Seated, moment: Moment, step: str | None, waive: frozenset[str] = frozenset()
) -> Events:
    """306.2, 407.2: the event card goes to the discard, its cost is paid;
    its ``use`` abilities then wait on the agenda to resolve."""
    # 306.2, 407.2: an event card is used from its user's hand, in a response
    # window (407.3) as in the main phase
    p = a.player
    card = in_hand(state, p, a.card, "306.2", "event card")
    total = check_event(state, p, card, moment, a.n, waive)
    uses = event_uses(state, card)
    about, it = _responding(moment)
    if uses and a.targets:
        _check_targets(state, p, card, [e for u in uses for e in u.effects], a.targets)
    takes_n = event_takes_n(state, card)
    return lambda: [
        EventPlayed.trusted(
            player=p,
            card=card,
            resolves=bool(uses),
            n=(a.n or 0) if takes_n else None,
            targets=list(a.targets or ()),
            option=a.option,
            about=about,
            it=it,
            step=step,
        ),
        *pay(state, p, total),
    ]


def declare_activated(
    state: GameState, a: Seated, moment: Moment, step: str | None, waive: frozenset[str] = frozenset()
) -> Events:
    """306.4, 407.2: the ability is declared and its cost paid ([T] first, 504)."""
    p = a.player
    if a.card is None:
        raise refuse("402", "Name the card whose ability to use.")
    index, ability = find_ability(state, a.card, a.ability)
    total = check_activated(state, p, a.card, ability, moment, a.n, waive=waive)
    if a.targets:
        _check_targets(state, p, a.card, list(ability.effects), a.targets)
    about, it = _responding(moment)
    return lambda: _ability_declared(state, a, index, ability, about, it, step, total)


def _ability_declared(
    state: GameState,
    a: Seated,
    index: int,
    ability: Any,
    about: int | None,
    it: str | None,
    step: str | None,
    total: int,
) -> list[Event]:
    cost = ability.parsed_cost
    out: list[Event] = [
        AbilityActivated.trusted(
            player=a.player,
            card=a.card,
            ability=index,
            definition=ability,
            n=(a.n or 0) if cost.n else None,
            targets=list(a.targets or ()),
            option=a.option,
            about=about,
            it=it,
            step=step,
        )
    ]
    if cost.tap:
        out.append(CardTapped.trusted(card=a.card))
    return out + pay(state, a.player, total)


def declare(
    state: GameState, a: Seated, moment: Moment, step: str | None, waive: frozenset[str] = frozenset()
) -> Events:
    if a.do == "activate":
        return declare_activated(state, a, moment, step, waive)
    return declare_event(state, a, moment, step, waive)


# --- what a player may use --------------------------------------------------------------


class Flags(NamedTuple):
    """What an ability's text says about when it can be used, read once."""

    only: bool
    also: bool
    counter: bool
    battle_type: bool


_flags: dict[int, tuple[Any, Flags]] = {}


def flags(abilities: Any) -> Flags:
    """The timing of a card's ``use`` abilities, or of one activated ability."""
    key = id(abilities)
    found = _flags.get(key)
    if found is not None and found[0] is abilities:
        return found[1]
    items = abilities if isinstance(abilities, (list, tuple)) else [abilities]
    effects = [e for a in items for e in walk(list(a.effects))]
    value = Flags(
        any(getattr(a, "only", None) is not None for a in items),
        any(getattr(a, "also", None) is not None for a in items),
        any(isinstance(e, CounterEffect) for e in effects),
        any(isinstance(e, BattleTypeEffect) for e in effects),
    )
    _flags[key] = (abilities, value)
    return value


def _could(moment: Moment, f: Flags) -> bool:
    """A quick look at timing (the full check follows): could this be used in this window at all?"""
    if moment.kind == "response":
        return f.only or f.also or f.counter
    if f.only or (f.counter and not f.also):
        return False
    return moment.kind != "battle_type" or f.battle_type


_answers: dict[int, tuple[Any, tuple[str | None, str | None, bool]]] = {}


def _answers_to(text: Any, event: bool) -> tuple[str | None, str | None, bool]:
    """What ``_timing`` reads of a text in a response chance: the situations
    its "only usable when ~" and "also usable when ~" name, and whether it
    is a counter with neither (which answers any use or trigger, 411.1a).
    ``text``: an event card's abilities (its ``use`` ones count, the first
    only/also of them, as ``check_event`` reads them) or one activated
    ability. Read once per text."""
    found = _answers.get(id(text))
    if found is not None and found[0] is text:
        return found[1]
    if event:
        uses = [a for a in text if a.kind == "use"]
        only = next((u.only for u in uses if u.only is not None), None)
        also = next((u.also for u in uses if u.also is not None), None)
        effects = [e for u in uses for e in u.effects]
    else:
        only, also, effects = text.only, text.also, list(text.effects)
    counter = any(isinstance(e, CounterEffect) for e in walk(effects))
    value = (
        only.event if only is not None else None,
        also.event if also is not None else None,
        counter and only is None and also is None,
    )
    if len(_answers) > 4096:
        _answers.clear()
    _answers[id(text)] = (text, value)
    return value


def _may_answer(moment: Moment, text: Any, event: bool) -> bool:
    """In a response chance, a use whose timing cannot answer this situation
    (``_timing`` would refuse it citing 406.1, whatever else holds) is no
    candidate: a necessary condition, read without the checks before it."""
    if moment.kind != "response":
        return True
    sit = moment.sit
    if sit is None:
        return False
    only, also, counter = _answers_to(text, event)
    return sit.event == only or sit.event == also or (counter and sit.event in ("use", "trigger"))


def _candidates(
    state: GameState, player: str, moment: Moment, cards_: bool = True, activations: bool = True
) -> Iterator[tuple[str, int | None, Any]]:
    """Each event card and activated ability ``player`` might use in this
    window, with its check (``check(n, probing)`` raises IllegalAction)."""
    cards = state.cards
    theirs = player != state.active
    for card in hand_candidates(state, player) if cards_ else ():
        cd = cards[card]
        if cd.type != "event":
            continue
        if theirs and "OT" not in cd.icons:
            continue
        if cd.abilities:
            if not _could(moment, flags(cd.abilities)) or not _may_answer(moment, cd.abilities, True):
                continue
        elif moment.kind in ("response", "battle_type"):
            continue
        # In a table-dealt match an unknown copy stands for the card named as it is played.
        yield (
            card,
            None,
            lambda n, p=False, card=card: check_event(
                as_played(state, player, card, "306.2"), player, card, moment, n, probing=p
            ),
        )
    if activations and has_text(state):
        for card, found in _activations(state, player):
            for index, ability in found:
                if (theirs and not ability.ot) or not _could(moment, flags(ability)):
                    continue
                if not _may_answer(moment, ability, False):
                    continue
                yield (
                    card,
                    index,
                    lambda n, p=False, card=card, ability=ability: check_activated(
                        state, player, card, ability, moment, n, probing=p
                    ),
                )


def use_candidates(state: GameState, player: str, moment: Moment, do: str) -> list[Action]:
    """Every use of kind ``do`` (``play_event``, ``activate``) ``player`` might
    declare in this window, one action each, with each n from 0 to the
    action-cost stack where its text has an [n] (503.2): the candidates the
    legal list filters through the one check of a use (``declare``)."""
    out: list[Action] = []
    stack = stack_size(state, player)
    for card, index, _check in _candidates(
        state, player, moment, cards_=do == "play_event", activations=do == "activate"
    ):
        if index is None:
            takes_n = event_takes_n(state, card)
        else:
            takes_n = find_ability(state, card, index)[1].parsed_cost.n
        if takes_n:
            out += [Action(player, do, card=card, ability=index, n=n) for n in range(stack + 1)]
        else:
            out.append(Action(player, do, card=card, ability=index))
    return out


def can_use(state: GameState, player: str, moment: Moment) -> bool:
    """Has ``player`` any use in this window? (Windows without one pass by
    themselves, so this is asked far more often than the list is wanted: the
    first use that passes its check answers it.)"""
    for _card, _index, check in _candidates(state, player, moment):
        try:
            check(None, True)
        except IllegalAction:
            continue
        return True
    return False


def _ability_cards(state: GameState, player: str) -> list[str]:
    """Cards whose activated abilities ``player`` might use: those they control
    on the field, and their own cards elsewhere whose abilities work there."""
    out = [ch.card for ch in state.field if ch.controller == player and not ch.face_down]
    out += [i for ch in state.field for i in ch.items if i[0] == player]
    for card, found in match(state).off_field.items():
        if card[0] == player and any(a.kind == "activated" for _, a in found):
            out.append(card)
    return out


_activations_kept: dict[str, tuple[Any, Any, Any, list[tuple[str, list[tuple[int, Any]]]]]] = {}


def _activations(state: GameState, player: str) -> list[tuple[str, list[tuple[int, Any]]]]:
    """The cards of ``_ability_cards`` that have activated abilities, each
    with them (``activated``), in that order. They change only with who is
    on the field, the effects and the cards (unless statics give
    abilities), so they are carried while those stay the same: most cards
    have none, and every window asks."""
    given = statics_give(state)
    cards, present, effects = state.cards, roster(state), state.effects
    kept = None if given else _activations_kept.get(player)
    if kept is not None and kept[0] is cards and kept[1] is present and kept[2] is effects:
        return kept[3]
    out = [(card, found) for card in _ability_cards(state, player) if (found := activated(state, card))]
    if not given:
        _activations_kept[player] = (cards, present, effects, out)
    return out


def _responses_exist(state: GameState) -> bool:
    """Is there any card in a hand or ability in play written to respond
    (only/also, or a counter)? If not, no response chance can open. It reads
    the hands, the field and the cards' abilities, so it is carried from
    state to state while those stay the same (unless statics give abilities)."""
    zones = state.zones
    key = (state.cards, zones["A"].hand, zones["B"].hand, roster(state), state.effects)
    # Not carried while statics give abilities: what they give depends on more
    # than the key (a later state with the same hands, field and effects but
    # no such static would read an answer worked out with them).
    given = statics_give(state)
    found: Any = MISSING if given else carried("responses", key)  # a bool, or MISSING
    if found is MISSING:
        found = any(
            state.cards[c].abilities and _could(Moment("response"), flags(state.cards[c].abilities))
            for p in ("A", "B")
            for c in zones[p].hand
            if state.cards[c].type == "event"
        ) or any(
            _could(Moment("response"), flags(a))
            for p in ("A", "B")
            for _, found in _activations(state, p)
            for _, a in found
        )
        if not given:
            carry("responses", key, found)
    return found


def answerable(state: GameState) -> frozenset[str] | None:
    """The situations any use in either hand or in play could answer in a
    response chance (the only/also its text names; use and trigger for a
    pure counter): a superset of what ``_candidates`` lets through to the
    check, so a situation not in it has no response. Kept with the state;
    the hands' part is carried while the hands are the same objects, the
    part in play while the field and the effects are (unless statics give
    abilities). None in a table-dealt match with unknown hand cards (their
    copies are not read here)."""
    if state.unknown:
        return None
    m = memo(state)
    found = m.get("answerable")
    if found is not None:
        return found
    zones = state.zones
    key: tuple[Any, ...] = (state.cards, zones["A"].hand, zones["B"].hand)
    in_hands = carried("answerable:hands", key)
    if in_hands is MISSING:
        texts = [
            (cd.abilities, True)
            for cd in (state.cards[c] for p in ("A", "B") for c in zones[p].hand)
            if cd.type == "event"
        ]
        in_hands = carry("answerable:hands", key, _names_answered(texts))
    given = statics_give(state)
    key = (state.cards, roster(state), state.effects)
    in_play = MISSING if given else carried("answerable:play", key)
    if in_play is MISSING:
        texts = [(a, False) for p in ("A", "B") for _, found in _activations(state, p) for _, a in found]
        in_play = _names_answered(texts)
        if not given:
            carry("answerable:play", key, in_play)
    found = m["answerable"] = in_hands | in_play
    return found


_match_answers_kept: list[Any] = [None, frozenset()]


def _match_answers(state: GameState) -> frozenset[str]:
    """What any text of the match could answer in a response chance: the
    situations ``answerable`` could ever name, whichever cards are in the
    hands or in play (every event card's text, and every activated ability,
    printed or given), worked out once per match."""
    known = match(state)
    kept = _match_answers_kept
    if kept[0] is not known:
        texts: list[tuple[Any, bool]] = []
        for cd in state.cards.values():
            if cd.type == "event":
                texts.append((cd.abilities, True))
            texts += [(a, False) for a in with_given(cd.abilities) if a.kind == "activated"]
        kept[0], kept[1] = known, _names_answered(texts)
    return kept[1]


def _names_answered(texts: list[tuple[Any, bool]]) -> frozenset[str]:
    names: set[str] = set()
    for text, event in texts:
        only, also, counter = _answers_to(text, event)
        names.update(n for n in (only, also) if n is not None)
        if counter:
            names.update(("use", "trigger"))
    return frozenset(names)


def anyone_can_respond(state: GameState, sit: Sit, about: int | None) -> bool:
    """Is there any use either player could make in a response chance about ``sit``?"""
    if not has_text(state):
        return False
    if sit is None:
        return False  # no use answers a chance about nothing (``_may_answer``)
    if not state.unknown and sit.event not in _match_answers(state):
        return False  # no text of the match answers it, wherever its cards are (all are known)
    cared = answerable(state)
    if cared is not None and sit.event not in cared:
        return False
    if not _responses_exist(state):
        return False
    moment = Moment("response", sit, about)
    return any(can_use(state, p, moment) for p in ((other(state.active), state.active) if state.active else ("A", "B")))


def battle_type_usable(state: GameState) -> bool:
    if not has_text(state):
        return False
    return any(can_use(state, p, Moment("battle_type")) for p in ("A", "B"))


__all__ = [
    "Moment",
    "activated",
    "anyone_can_respond",
    "battle_type_usable",
    "check_activated",
    "check_event",
    "declare",
    "event_uses",
    "find_ability",
    "forbidden",
    "moment_of",
    "on_field",
    "use_candidates",
    "window_sit",
]
