"""Rule 215: the zones, and costs paid from the action-cost stack (215.4c).

Eight kinds of zone (215, 215.1): the castle, the hand, the action-cost
stack, the discard, the field, the harem, the execution pile and the side.
Where each card is, and in which order, is kept by the fold
(``projections.harem_master.state``); who may look at which faces by
``projections.harem_master.visibility``; this module holds what the rules decide with them:

- 215.2, 215.2a, 215.2b, 215.2c: the castle is the deck, one face-down pile
  in a fixed order nobody may look at or reorder; anyone may count it;
- 215.3, 215.3a, 215.3c: the hand, its owner's to arrange and look at; the
  hand maximum (215.3b) is a characteristic (``characteristics``);
- 215.4, 215.4a, 215.4b, 215.4d, 215.4e: the action-cost stack, face down, in
  a fixed order, counted by anyone; its cards go to the hand at 302 and it is
  filled at 303 (``turn``); 215.4c: a cost is paid from its top, one card at
  a time, to the top of the castle (``pay``, ruling A10), and a cost it
  cannot pay is refused (``cost_check``);
- 215.5, 215.5a, 215.5b: the discard, face up, a card on top of its owner's;
  215.5c: cards discarded together are in the order their owner chooses (a
  309 discard of several cards is listed in hand order, ``engine.canonical``);
- 215.6, 215.6a: the field, shared (what card text on it reads is 215.6b,
  ``characteristics``);
- 215.7, 215.7a, 215.7b, 215.7d and 215.8, 215.8a, 215.8b, 215.8d: the harem
  and the execution pile, face up, the winner's of a battle (306.5k, 306.5l);
  the order of cards put there together is chosen (215.7c, 215.8c, ``agenda``);
- 215.9, 215.9a, 215.9b, 215.9c: the side, outside the game, face up;
- 215.10: a card that changes zones forgets its past: effects on it end
  (``gone_objects``, one of the checks after every event).
"""

from __future__ import annotations

from events.harem_master.game import CostPaid, EffectsEnded
from events.kernel import Event
from projections.harem_master.state import GameState
from referee.rules.harem_master.common import name_of, refuse


def stack_size(state: GameState, player: str) -> int:
    return len(state.zones[player].action_stack)


def pay(state: GameState, player: str, cost: int) -> list[Event]:
    """215.4c (ruling A10): the top ``cost`` cards of the stack, one at a time."""
    stack = state.zones[player].action_stack
    return [CostPaid.trusted(player=player, card=c) for c in stack[:cost]]


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


def gone_objects(state: GameState) -> Event | None:
    """215.10: effects on a card that has left the field end (it is a new object)."""
    gone = []
    for e in state.effects:
        if e.target is None or e.since < 0:
            continue
        ch = state.character(e.target)
        if ch is None or ch.since != e.since:
            gone.append(e.id)
    return EffectsEnded.trusted(rule="215.10", ids=gone) if gone else None
