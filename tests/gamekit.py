"""A small card pool and random complete games, shared by the projection tests
(views and transcript), which must see every kind of event a game produces:
vanilla cards, fillers, and the dense ability pool of the self-play fuzz test."""

from __future__ import annotations

from pathlib import Path

from events.harem_master.cards import CardDef
from events.kernel import Event
from projections.harem_master.state import GameState
from referee.rules.harem_master.pool import load_pool
from referee.simulate import play_game

POOL = [
    CardDef(name="Little Page", type="character", cost=1, random=1, gender="male", factions=["Kingdom"], physical=1),
    CardDef(name="Court Lady", type="character", cost=1, random=2, gender="female", factions=["Kingdom"], mental=2),
    CardDef(name="Iron Knight", type="character", cost=2, gender="male", factions=["Kingdom"], physical=3, mental=1),
    CardDef(name="Bold Squire", type="character", cost=1, random=-1, gender="male", physical=2, mental=1),
    CardDef(
        name="Village Girl",
        type="character",
        cost=2,
        random=1,
        gender="female",
        factions=["Town"],
        physical=1,
        mental=3,
    ),
    CardDef(name="Hanny Helper", type="character", cost=1, gender="female", icons=["PA"], physical=1, mental=1),
    CardDef(name="Healing Herb", type="event", cost=1, random=3),
    CardDef(name="Quick Trick", type="event", cost=0, random=-2, icons=["OT"]),
    CardDef(name="Long Sword", type="item", cost=1, random=1),
]
FILLER = "Filler +0"
ABILITY_POOL = list(load_pool(Path(__file__).with_name("data") / "ability-fuzz-pool.yaml").values())


def deck(player: str) -> dict[str, CardDef]:
    """51 cards (100.2): one of each vanilla and each ability card, then fillers
    with mixed random numbers."""
    cards = POOL + ABILITY_POOL
    while len(cards) < 51:
        cards.append(CardDef(name=FILLER, type="event", cost=0, random=len(cards) % 5 - 2, filler=True))
    return {f"{player}:{i}": cd for i, cd in enumerate(cards, start=1)}


def play(seed: int, max_actions: int = 3000, deal_mode: str = "seeded") -> tuple[list[Event], GameState]:
    """A complete game of random legal actions (never conceding or drawing),
    as ``referee simulate`` plays it; ``deal_mode="table"`` deals unknown
    castles and the simulated table reveals cards as the referee asks."""
    decks = {p: list(deck(p).values()) for p in "AB"}
    record = play_game(seed, decks, max_actions=max_actions, deal_mode=deal_mode)
    return record.events, record.state
