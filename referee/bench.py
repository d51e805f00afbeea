"""Benchmarks of the engine, measured as ratios against a baseline in the same run.

Absolute speeds depend on the machine; a ratio of two figures taken in one
run does not, so every result is reported both ways. Run with
``referee bench`` (the test suite never times anything).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from projections.state import evolve, fold, initial_state
from referee.pool import bundled_pool
from referee.simulate import decks_for, game_seeds, play_game


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None


@dataclass
class BenchReport:
    games: int
    events: int
    figures: list[Figure] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "events": self.events,
            "figures": [
                {"name": f.name, "value": round(f.value, 3), "unit": f.unit, "target": f.target, "ok": f.ok}
                for f in self.figures
            ],
        }


def engine_bench(games: int = 200, seed: int = 1) -> BenchReport:
    """Self-play in memory, then the same events folded again with evolve alone."""
    pool = bundled_pool()
    seeds = game_seeds(games, seed)
    decks = [decks_for(s, pool, None) for s in seeds]
    t0 = time.perf_counter()
    records = [play_game(s, d) for s, d in zip(seeds, decks)]
    play_seconds = time.perf_counter() - t0
    logs = [r.events for r in records]
    events = sum(len(log) for log in logs)
    t0 = time.perf_counter()
    for log in logs:
        fold(log)
    fold_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    for log in logs:
        state = initial_state()
        for event in log:
            state = evolve(state, event)
    step_seconds = time.perf_counter() - t0
    play_rate = events / play_seconds
    fold_rate = events / fold_seconds
    step_rate = events / step_seconds
    report = BenchReport(games, events)
    report.figures += [
        Figure("self-play in memory", play_rate, "events/s", ">= 20000", play_rate >= 20000),
        Figure("replay (fold of evolve)", fold_rate, "events/s"),
        Figure("replay / self-play", fold_rate / play_rate, "x", ">= 10", fold_rate / play_rate >= 10),
        Figure("evolve, one state per event", step_rate, "events/s"),
        Figure("evolve per event / self-play", step_rate / play_rate, "x"),
    ]
    return report
