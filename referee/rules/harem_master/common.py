"""Helpers every Harem Master rule module shares: refusals, names, the hand, seeded chance.

It owns no rule: the modules named after rule numbers (``setup``,
``turn``, ``battle``, ``checks``, ...) decide what happens next, through
the registries of ``registry``, and use these.
"""

from __future__ import annotations

import random

from projections.harem_master.state import GameState
from referee.actions import IllegalAction, Refusal

HAND_SIZE = 7  # 101.4
TURN_ORDER_LIMIT = 50  # 101.3, ruling A29
CHARACTER_LIMIT = 6  # 214.2e
IMMEDIATE_WIN = 5  # 102.1, 102.2

SETUP_STEPS = frozenset({"new", "101.1", "101.2", "101.3", "101.3-choose", "101.4", "101.5", "101.6"})


def rng_for(state: GameState, purpose: str) -> random.Random:
    """A generator fixed by the match seed and the purpose (the rule step), so
    the same match deals identically however its log is annotated, and no two
    random decisions share a stream. A step that can happen more than once in
    a match must put a counter in ``purpose``."""
    return random.Random(f"{state.seed}:{purpose}")


def name_of(state: GameState, card: str) -> str:
    cd = state.cards.get(card)
    return cd.name if cd is not None else card


def a_card(card_type: str) -> str:
    """ "a character card", "an event card", "an item card": refusals name a card's type in a sentence."""
    return f"{'an' if card_type[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {card_type} card"


def refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def physical(rule: str, reason: str) -> IllegalAction:
    """A refusal for something a table can physically do anyway (a second
    character, a tapped attacker): record mode appends it with its violation."""
    return IllegalAction(Refusal(rule, reason, physical=True))


def in_hand(state: GameState, player: str, card: str | None, rule: str, what: str) -> str:
    if card is None:
        raise refuse(rule, f"Name the {what} to use.")
    if card not in state.zones[player].hand:
        where = state.where(card)
        place = f" (it is in {where})" if where else ""
        raise refuse(rule, f"{name_of(state, card)} is not in {player}'s hand{place}.")
    return card
