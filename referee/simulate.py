"""Random self-play: whole games of a complete ruleset played by picking random legal actions.

Self-play is the engine's broadest test (OpenSpiel-style random playouts):
every game must end with a result, every listed action must be accepted, and
the projection of the events must equal the live state. ``play_game`` can
check those invariants after every event; ``referee simulate`` and
``referee bench`` use it without the checks.

Everything here goes through the game's ruleset (``referee.ruleset``): its
random legal decks, its start, its legal actions and result, the ``do``s a
playout never picks (``playout_skips``: Harem Master's concessions and draws
of 102.7/102.8, or most games would end in a concession within a few turns)
and, at a table-dealt match, the table's reveals as chance outcomes. A
fragment of a game (SCP-TCG's chapter 4) ends no game, so it is refused.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from events.kernel import Event
from referee import ruleset as registry
from referee.ruleset import Ruleset

Action = Any  # a game's action (``referee.ruleset.ActionLike``)


class SelfPlayRefused(ValueError):
    """The game is a fragment whose rules end no game: it cannot be played out
    (self-play, tournaments)."""


PLAYED_OUT = ("decks", "selfplay")  # what a game needs to be played out from the shuffle
TOURNAMENT = ("decks", "tournaments")  # what a tournament's game needs


def playable(ruleset: Ruleset, needs: tuple[str, ...] = PLAYED_OUT) -> bool:
    """Has the game every capability in ``needs``?"""
    return all(getattr(ruleset, capability) is not None for capability in needs)


def complete_ruleset(game: str | None = None, needs: tuple[str, ...] = PLAYED_OUT) -> Ruleset:
    """The ruleset of ``game`` (the default game when None), refused with a
    sentence unless it has the capabilities ``needs`` (decks and self-play
    to be played out; a tournament needs its scoring too)."""
    found = registry.get(game)
    lacking = [capability for capability in needs if getattr(found, capability) is None]
    if lacking:
        raise SelfPlayRefused(
            f"{found.name} ({found.id}) is a fragment of a game ({found.rules_document}): it has no "
            f"{' or '.join(_WORDS.get(c, c) for c in lacking)}, so it cannot be played out; self-play and "
            "tournaments need a complete ruleset "
            f"(the referee knows {', '.join(g for g in registry.games() if playable(registry.get(g), needs))})"
        )
    return found


_WORDS = {"decks": "decks", "selfplay": "self-play", "tournaments": "tournament scoring"}


def __getattr__(name: str) -> Any:
    # ``NOT_RANDOM``: the default game's playout_skips (Harem Master's 102.7,
    # 102.8), read when first asked for, so importing this module imports no game.
    if name == "NOT_RANDOM":
        return complete_ruleset().need("selfplay").playout_skips
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class GameRecord:
    seed: int
    events: list[Event]
    actions: list[Action]
    state: Any
    game: str = registry.DEFAULT_GAME

    @property
    def result(self) -> dict[str, object]:
        r = registry.get(self.game).result(self.state)
        assert r is not None
        return {"winner": r.winner, "draw": r.draw, "rule": r.rule, "ruling": r.ruling, "scores": r.scores}


def random_deck(rng: random.Random, pool: Mapping[str, Any], game: str | None = None) -> list[Any]:
    """A legal deck of ``game`` drawn from ``pool`` (its ``random_deck``)."""
    return complete_ruleset(game).need("decks").random_deck(rng, pool)


# Each ruleset's ``do``s that name what the table saw (a reveal): where a
# random playout picks one, the simulated table draws a chance outcome.
_TOLD_BY_TABLE: dict[str, frozenset[str]] = {}


def _told_by_table(rules: Ruleset) -> frozenset[str]:
    found = _TOLD_BY_TABLE.get(rules.id)
    if found is None:
        found = _TOLD_BY_TABLE[rules.id] = frozenset(
            do
            for do, spec in rules.actions.items()
            if spec.args is not None and any(a.kind in ("name", "names") for a in spec.args)
        )
    return found


def _ruleset_of(state: Any) -> Ruleset:
    from referee.store.statecodec import ruleset_of_state

    return ruleset_of_state(state)


def random_action(state: Any, legal: Sequence[Action], rng: random.Random, ruleset: Ruleset | None = None) -> Action:
    """A random legal action, never one of the ruleset's ``playout_skips``
    (conceding, offering a draw). Where a table-dealt match asks what a hidden
    card was, the simulated table draws one of the ruleset's
    ``chance_outcomes`` (the true card of a shuffled paper castle), not the
    copy ``legal`` happens to name."""
    rules = ruleset if ruleset is not None else _ruleset_of(state)
    selfplay = rules.selfplay
    skips = selfplay.playout_skips if selfplay is not None else frozenset()
    action = rng.choice([a for a in legal if a.do not in skips])
    if selfplay is not None and action.do in _told_by_table(rules):
        outcomes = selfplay.chance_outcomes(state)
        if outcomes:
            weights = [w for _, w in outcomes]
            if all(w == weights[0] for w in weights):
                action = rng.choice([a for a, _ in outcomes])
            else:
                action = rng.choices([a for a, _ in outcomes], weights)[0]
    return action


def play_game(
    seed: int,
    decks: Mapping[str, Sequence[Any]],
    *,
    check: Callable[[Any, list[Event], list[Action]], None] | None = None,
    max_actions: int = 100_000,
    rulings: dict[str, str] | None = None,
    deal_mode: str = "seeded",
    game: str | None = None,
) -> GameRecord:
    """One game of random legal actions from ``seed``. ``check`` (for tests)
    is called after every action with the state, the log and the legal list.

    ``deal_mode="table"`` plays a table-dealt match: where the referee asks
    for a reveal, the simulated table draws a chance outcome (the true card
    of a shuffled paper castle). ``rulings`` are Harem Master's match option."""
    rules = complete_ruleset(game)
    rng = random.Random(seed)
    applied = rules.start(decks, seed=seed, deal=deal_mode, options={"rulings": rulings} if rulings else None)
    state, events = applied.state, list(applied.events)
    actions: list[Action] = []
    result, legal_actions, apply = rules.result, rules.legal_actions, rules.apply
    while result(state) is None:
        legal = legal_actions(state)
        if check is not None:
            check(state, events, legal)
        action = random_action(state, legal, rng, rules)
        applied = apply(state, action)
        state = applied.state
        events.extend(applied.events)
        actions.append(action)
        if len(actions) > max_actions:
            at = getattr(state, "step", None)
            raise RuntimeError(f"game {seed} did not end within {max_actions} actions (step {at})")
    if check is not None:
        check(state, events, legal_actions(state))
    return GameRecord(seed, events, actions, state, rules.id)


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


def vanilla(pool: Mapping[str, Any]) -> dict[str, Any]:
    """The cards of ``pool`` without abilities: what the referee played before
    card text was read, so that measures and logs kept from then (the bench's
    baselines, format-1 logs) stay comparable now that the bundled pool also
    holds cards with abilities."""
    return {name: card for name, card in pool.items() if not getattr(card, "abilities", None)}


def decks_for(
    game_seed: int, pool: Mapping[str, Any], fixed: dict[str, list[Any]] | None, game: str | None = None
) -> dict[str, list[Any]]:
    """The decks of game ``game_seed``: ``fixed`` if given, else a random
    legal deck for each seat, in seat order, from a seed of its own."""
    if fixed is not None:
        return fixed
    rules = complete_ruleset(game)
    rng = random.Random(game_seed ^ 0x5EED)
    return {seat: rules.need("decks").random_deck(rng, pool) for seat in rules.seats}


__all__ = [
    "GameRecord",
    "SelfPlayRefused",
    "SimulationSummary",
    "TOURNAMENT",
    "complete_ruleset",
    "decks_for",
    "game_seeds",
    "play_game",
    "random_action",
    "random_deck",
    "vanilla",
]
