"""Helpers every Harem Master rule module shares: refusals, names, costs, seeded chance.

Nothing here decides what happens next; the modules named after rule
numbers (``setup``, ``turn``, ``battle``, ``checks``) do, through the
registries of ``procedure`` and ``decisions``.
"""

from __future__ import annotations

import random

from events.game import CostPaid, Event
from projections.state import GameState
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
    """"a character card", "an event card", "an item card": refusals name a card's type in a sentence."""
    return f"{'an' if card_type[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {card_type} card"


def stack_size(state: GameState, player: str) -> int:
    return len(state.zones[player].action_stack)


def refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def physical(rule: str, reason: str) -> IllegalAction:
    """A refusal for something a table can physically do anyway (a second
    character, a tapped attacker): record mode appends it with its violation."""
    return IllegalAction(Refusal(rule, reason, physical=True))


def pay(state: GameState, player: str, cost: int) -> list[Event]:
    """215.4c (ruling A10): the top ``cost`` cards of the stack, one at a time."""
    stack = state.zones[player].action_stack
    return [CostPaid(player=player, card=c) for c in stack[:cost]]


def cost_check(state: GameState, player: str, card: str, cost: int | None = None) -> None:
    """215.4c: a cost the action-cost stack cannot pay is refused."""
    if cost is None:
        cost = state.cards[card].cost
    n = stack_size(state, player)
    if cost > n:
        raise refuse(
            "215.4c",
            f"{name_of(state, card)} costs {cost} but {player}'s action-cost stack holds only {n} card"
            + ("" if n == 1 else "s")
            + ".",
        )


def in_hand(state: GameState, player: str, card: str | None, rule: str, what: str) -> str:
    if card is None:
        raise refuse(rule, f"Name the {what} to use.")
    if card not in state.zones[player].hand:
        where = state.where(card)
        place = f" (it is in {where})" if where else ""
        raise refuse(rule, f"{name_of(state, card)} is not in {player}'s hand{place}.")
    return card
