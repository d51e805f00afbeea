"""Rules 102-102.3, 103.2, 214.2e and 214.4f: the checks the referee makes after every event.

The end of the game (102, 102.1, 102.2 immediate wins; 102.3, 103.2 the
castle falls, ruling A1), the character limits (214.2e, ruling A7: one
character of a name, at most six) and items left without a character or
unsuited to it (214.4f, ruling A14); ``state_check`` also runs the checks of
other rules that happen at the same moments: a combatant gone (306.5,
``battle``) and effects on a card that left the field (215.10, ``zones``)."""

from __future__ import annotations

import itertools
from typing import Any

from events.harem_master.game import CharactersDiscarded, ItemDiscarded
from events.kernel import Event, GameEnded
from projections.harem_master.state import GameState, other
from referee.rules.harem_master.actions import Seated
from referee.rules.harem_master.agenda import held_cards, pipeline
from referee.rules.harem_master.battle import combatant_gone
from referee.rules.harem_master.characteristics import (
    MISSING,
    carried,
    carry,
    equip_fits,
    field_names,
    has_text,
    match,
    memo,
    name as name_now,
    roster,
)
from referee.rules.harem_master.common import CHARACTER_LIMIT, IMMEDIATE_WIN, SETUP_STEPS, refuse
from referee.rules.harem_master.registry import Decision, Events, decision_kind
from referee.rules.harem_master.zones import gone_objects

# --- 102 and 103: the end of the game --------------------------------------------------


_quiet: list[Any] = [None]


def end_check(state: GameState) -> Event | None:
    """102.1/102.2 before castle-fall scoring (ruling A13); a castle falls at the
    moment its last card leaves (ruling A2)."""
    if state.step in ("new", "over"):
        return None
    zones = state.zones
    if zones is _quiet[0]:  # the very piles that last won nobody the game and left both castles standing
        return None
    wins = []
    for p in ("A", "B"):
        z = state.zones[p]
        if len(z.harem) >= IMMEDIATE_WIN:
            wins.append((p, "102.1"))
        elif len(z.execution) >= IMMEDIATE_WIN:
            wins.append((p, "102.2"))
    if len(wins) == 2:
        return GameEnded.trusted(
            rule=wins[0][1], ruling="A13", draw=True, reason="Both players won at once.", step="over"
        )
    if wins:
        p, rule = wins[0]
        where = "harem" if rule == "102.1" else "execution pile"
        return GameEnded.trusted(
            rule=rule, winner=p, reason=f"{p} has {IMMEDIATE_WIN} or more cards in their {where}.", step="over"
        )
    fallen = [p for p in ("A", "B") if not state.zones[p].castle]
    if not fallen:
        _quiet[0] = zones  # nothing here reads more than the piles: asked after every step, it is kept
        return None
    if state.step in SETUP_STEPS:
        return None
    scores = {p: state.score(p) for p in ("A", "B")}
    if state.rulings.get("A1", "not_fallen") == "felled":
        rule = "102.3"
        # The player who made the opponent's castle fall: whose castle attack
        # milled its last card, or whose card's ability (an event, an
        # activated, triggered or replacement ability they control) moved it
        # out (ruling A1). Nobody when its owner emptied it (303, own text).
        if len(fallen) == 1 and state.emptied is not None and state.emptied[0] == fallen[0]:
            by = state.emptied[1]
            if by is not None and by == other(fallen[0]):
                scores[by] += 5
    else:
        rule = "103.2"
        for p in ("A", "B"):
            if p not in fallen:
                scores[p] += 5
    if scores["A"] == scores["B"]:
        winner, draw = None, True
    else:
        winner, draw = ("A" if scores["A"] > scores["B"] else "B"), False
    fell = " and ".join(f"{p}'s castle" for p in fallen)
    return GameEnded.trusted(
        rule=rule, ruling="A1", winner=winner, draw=draw, scores=scores, reason=f"{fell} fell.", step="over"
    )


# --- 214.2e: one character of a name, at most six --------------------------------------


def same_name_excess(state: GameState, player: str) -> int:
    """214.2e: how many characters the player must discard (0 if none)."""
    mine = [ch.card for ch in state.field if ch.controller == player and not ch.face_down]
    if len(mine) < 2:
        return 0
    if state.agenda:  # those whose discard is under way are gone already
        waiting = held_cards(state)
        mine = [c for c in mine if c not in waiting]
    known = field_names(state)
    names = {known[c] for c in mine}  # names given by card text count (202.2, ruling A7)
    return len(mine) - min(len(names), CHARACTER_LIMIT)


def same_name_choices(state: GameState, player: str) -> list[tuple[str, ...]]:
    """214.2e (ruling A7): every set of characters, no larger than needed, whose
    discard leaves unique names and at most six characters."""
    excess = same_name_excess(state, player)
    if excess <= 0:
        return []
    waiting = held_cards(state) if state.agenda else frozenset()
    mine = [ch.card for ch in state.field if ch.controller == player and not ch.face_down and ch.card not in waiting]
    choices = []
    for combo in itertools.combinations(mine, excess):
        rest = [c for c in mine if c not in combo]
        names = [name_now(state, c) for c in rest]
        if len(set(names)) == len(names) and len(rest) <= CHARACTER_LIMIT:
            choices.append(combo)
    return choices


def same_name_pending(state: GameState) -> Decision | None:
    """The player who must make a 214.2e choice now (the active player first,
    ruling A7), checked before anything else happens."""
    if state.step in SETUP_STEPS or len(state.field) < 2:
        return None
    if _names_clear(state):
        return None
    # It reads the field, the names (the effects, and the text of the few
    # cards that name themselves, read anew each time), the agenda (moves
    # under way), whose turn it is and the open violations: carried from
    # state to state while those stay the same.
    known = match(state)
    if known.names_gained or (known.names_given and any(ch.card in known.names_given for ch in state.field)):
        m = memo(state)
        if "same_name" not in m:
            m["same_name"] = _same_name_pending(state)
        return m["same_name"]
    key = (state.cards, roster(state), state.effects, state.agenda, state.active, state.violations)
    found = carried("same_name", key)
    if found is MISSING:
        found = carry("same_name", key, _same_name_pending(state))
    return found


_clear_kept: list[Any] = [None, None, None, False]


def _names_clear(state: GameState) -> bool:
    """Has each player at most six characters, no two of a name? Then no
    214.2e choice is pending, whatever the agenda holds back (it only takes
    characters away) or whoever is active: the question most steps ask,
    answered from the names alone and carried while who is on the field,
    the effects and the cards are the very same objects (unless a card whose
    own text gives it a name is there: its name is read in each state)."""
    present = roster(state)
    kept = _clear_kept
    if kept[0] is present and kept[1] is state.effects and kept[2] is state.cards:
        return kept[3]
    names = field_names(state)
    clear = True
    for player in ("A", "B"):
        mine = [names[ch.card] for ch in state.field if ch.controller == player and not ch.face_down]
        if len(mine) > CHARACTER_LIMIT or len(set(mine)) != len(mine):
            clear = False
            break
    known = match(state)
    if not known.names_gained and not any(c[0] in known.names_given for c in present):
        # Every name was the carried one (``field_names``): the answer holds
        # while who is on the field, the effects and the cards stay the same.
        kept[:] = [present, state.effects, state.cards, clear]
    return clear


def _same_name_pending(state: GameState) -> Decision | None:
    found = None
    order = (state.active, other(state.active)) if state.active else ("A", "B")
    # Record mode: a player whose 214.2e discard the table skipped is not
    # asked again while that violation is open (a judge rules on it, 410).
    skipped = {v.player for v in state.violations if v.rule == "214.2e"}
    for player in order:
        if player not in skipped and same_name_excess(state, player) > 0:
            found = Decision(player, "same_name")
            break
    return found


def same_name_discard(state: GameState, a: Seated) -> Events:
    """214.2e: the characters the player discards (``discard`` at a
    ``same_name`` decision), checked to be one of ``same_name_choices``."""
    p = a.player
    chosen = tuple(a.cards or ())
    choices = same_name_choices(state, p)
    if not any(sorted(chosen) == sorted(c) for c in choices):
        excess = same_name_excess(state, p)
        raise refuse(
            "214.2e",
            f"{p} must discard exactly {excess} of their characters so that no two share a name "
            f"and at most {CHARACTER_LIMIT} remain.",
        )
    # 214.2e through the pipeline of every move: 403.2a and 409.1a take away
    # only its leaving of the field (situations.happened), not its discard.
    return lambda: pipeline(state, [CharactersDiscarded.trusted(player=p, cards=list(chosen))], "discard", None, p)


decision_kind("same_name", "214.2e", "choose which characters to discard (214.2e)", ("discard",))


# --- all checks in order -----------------------------------------------------------


def unsuited_item(state: GameState, waiting: frozenset[str] = frozenset()) -> list[Event] | None:
    """214.4f (ruling A14): an item whose character no longer meets its
    restriction goes to its owner's discard."""
    for ch in state.field:
        for item in ch.items:
            if item not in waiting and state.cards[item].equip is not None and not equip_fits(state, item, ch.card):
                return _discard_item(state, ItemDiscarded.trusted(rule="214.4f", ruling="A14", card=item))
    return None


def _discard_item(state: GameState, ev: ItemDiscarded) -> list[Event]:
    """214.4f: the item goes to its owner's discard through the pipeline of
    every move (409 replacements and 403.1a triggers see it; 409.1a exempts
    only the characters of 214.2e, not their items: ruling A7)."""
    return pipeline(state, [ev], "discard", ev.card, ev.card[0])


def state_check(state: GameState) -> list[Event] | None:
    """The first check that has something to do: the game's end, a combatant
    gone (A18), an item left without its character or unsuited to it (214.4f),
    effects on cards that left (215.10). An item whose discard a proposal
    already holds back (its moment before is under way) is not moved again."""
    end = end_check(state)
    if end is not None:
        return [end]
    waiting = held_cards(state) if state.agenda else frozenset()
    for item in state.orphans:
        if item not in waiting:
            return _discard_item(state, ItemDiscarded.trusted(card=item))
    if state.battle is not None:
        gone = combatant_gone(state)
        if gone is not None:
            return [gone]
    if has_text(state):
        unsuited = unsuited_item(state, waiting)
        if unsuited is not None:
            return unsuited
        ended = gone_objects(state) if state.effects else None
        return [ended] if ended is not None else None
    return None
