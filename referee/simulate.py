"""Random self-play: whole games played by picking random legal actions.

Self-play is the engine's broadest test (OpenSpiel-style random playouts):
every game must end with a result, every listed action must be accepted, and
the projection of the events must equal the live state. ``play_game`` can
check those invariants after every event; ``referee simulate`` and
``referee bench`` use it without the checks.

The any-time actions of 102.7/102.8 (concede, propose or accept a draw) are
legal at every decision but are not chosen at random, or most games would
end in a concession within a few turns.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from events.harem_master.cards import CardDef
from events.kernel import Event
from projections.harem_master.state import PILES, GameState
from referee.actions import Action
from referee.rules import ACTIONS, ANY_TIME, apply, legal_actions, start
from referee.rules.harem_master.decks import deal

NOT_RANDOM = frozenset(ANY_TIME)  # 102.7, 102.8: conceding and draws are never picked at random
DECK_SIZE = 51


@dataclass
class GameRecord:
    seed: int
    events: list[Event]
    actions: list[Action]
    state: GameState

    @property
    def result(self) -> dict[str, object]:
        r = self.state.result
        assert r is not None
        return {"winner": r.winner, "draw": r.draw, "rule": r.rule, "ruling": r.ruling, "scores": r.scores}


def random_deck(rng: random.Random, pool: dict[str, CardDef]) -> list[CardDef]:
    """A legal deck (100.2): at least one cost-1 character, at most three of a
    name, exactly 51 cards, drawn from ``pool`` with vanilla fillers if the
    pool is too small."""
    from events.harem_master.cards import filler

    cards = sorted(pool.values(), key=lambda c: c.name)
    openers = [c for c in cards if c.type == "character" and c.cost == 1]
    if not openers:
        raise ValueError("the pool has no cost-1 character, so no deck can be legal (100.2)")
    deck = [rng.choice(openers)]
    counts = Counter(c.name for c in deck)
    slots = [c for c in cards for _ in range(3)]
    rng.shuffle(slots)
    for c in slots:
        if len(deck) >= DECK_SIZE:
            break
        if counts[c.name] < 3:
            deck.append(c)
            counts[c.name] += 1
    while len(deck) < DECK_SIZE:
        deck.append(filler(rng.randint(-4, 3)))
    rng.shuffle(deck)
    return deck


def conservation_errors(state: GameState, deck_size: int = DECK_SIZE) -> list[str]:
    """Each player's cards each in exactly one zone (digest 1.10)."""
    seen: Counter[str] = Counter()
    for ch in state.field:
        seen[ch.card] += 1
        seen.update(ch.items)
    seen.update(state.orphans)
    for z in state.zones.values():
        for pile in PILES:
            seen.update(getattr(z, pile))
    errors = [f"{c} is in {n} places" for c, n in seen.items() if n > 1]
    for p in ("A", "B"):
        owned = [c for c in state.cards if c.startswith(p + ":")]
        missing = [c for c in owned if seen[c] == 0]
        if missing:
            errors.append(f"{p}: {len(missing)} cards are nowhere: {missing[:5]}")
        if len(owned) != deck_size:
            errors.append(f"{p} owns {len(owned)} cards, not {deck_size}")
    return errors


def random_action(state: GameState, legal: list[Action], rng: random.Random) -> Action:
    """A random legal action, never conceding or offering a draw. Where a
    table-dealt match asks what a hidden card was, the simulated table turns
    over a card drawn at random from what the deck list has left (the true
    card of a shuffled paper castle), not the copy ``legal`` happens to name."""
    action = rng.choice([a for a in legal if a.do not in NOT_RANDOM])
    if ACTIONS[action.do].names_cards:  # the table says what it saw
        from referee.rules.harem_master.hidden import pending, unknown_of

        owner_ = pending(state).player  # type: ignore[union-attr]
        action = Action(action.player, "reveal", card=rng.choice(sorted(unknown_of(state, owner_))))
    return action


def play_game(
    seed: int,
    decks: dict[str, list[CardDef]],
    *,
    check: Callable[[GameState, list[Event], list[Action]], None] | None = None,
    max_actions: int = 100_000,
    rulings: dict[str, str] | None = None,
    deal_mode: str = "seeded",
) -> GameRecord:
    """One game of random legal actions from ``seed``. ``check`` (for tests)
    is called after every action with the state, the log and the legal list.

    ``deal_mode="table"`` plays a table-dealt match: where the referee asks
    for a reveal, the simulated table turns over a card drawn at random from
    what the deck list has left (the true card of a shuffled paper castle)."""
    rng = random.Random(seed)
    cards, castles = deal(decks)
    applied = start(cards, castles, seed=seed, rulings=rulings, deal=deal_mode)
    state, events = applied.state, list(applied.events)
    actions: list[Action] = []
    while state.result is None:
        legal = legal_actions(state)
        if check is not None:
            check(state, events, legal)
        action = random_action(state, legal, rng)
        applied = apply(state, action)
        state = applied.state
        events.extend(applied.events)
        actions.append(action)
        if len(actions) > max_actions:
            raise RuntimeError(f"game {seed} did not end within {max_actions} actions (step {state.step})")
    if check is not None:
        check(state, events, legal_actions(state))
    return GameRecord(seed, events, actions, state)


@dataclass
class SimulationSummary:
    games: int = 0
    events: int = 0
    actions: int = 0
    seconds: float = 0.0
    results: Counter = field(default_factory=Counter)
    rules: Counter = field(default_factory=Counter)
    unfinished: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "events": self.events,
            "actions": self.actions,
            "seconds": round(self.seconds, 3),
            "events_per_second": round(self.events / self.seconds) if self.seconds else None,
            "unfinished": self.unfinished,
            "results": dict(sorted(self.results.items())),
            "rules": dict(sorted(self.rules.items())),
        }


def game_seeds(games: int, seed: int) -> list[int]:
    """Per-game seeds derived from the run's seed, so game k is reproducible alone."""
    rng = random.Random(seed)
    return [rng.randrange(2**31) for _ in range(games)]


def vanilla(pool: dict[str, CardDef]) -> dict[str, CardDef]:
    """The cards of ``pool`` without abilities: what the referee played before
    card text was read, so that measures and logs kept from then (the bench's
    baselines, format-1 logs) stay comparable now that the bundled pool also
    holds cards with abilities."""
    return {name: card for name, card in pool.items() if not card.abilities}


def decks_for(
    game_seed: int, pool: dict[str, CardDef], fixed: dict[str, list[CardDef]] | None
) -> dict[str, list[CardDef]]:
    if fixed is not None:
        return fixed
    rng = random.Random(game_seed ^ 0x5EED)
    return {"A": random_deck(rng, pool), "B": random_deck(rng, pool)}


__all__ = [
    "GameRecord",
    "SimulationSummary",
    "conservation_errors",
    "decks_for",
    "game_seeds",
    "play_game",
    "random_action",
    "random_deck",
    "vanilla",
]
