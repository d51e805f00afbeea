"""`referee bench`: the engine's speed, as ratios against baselines of the same run."""

from __future__ import annotations

import json

import click


@click.command()
@click.option("--games", "-n", type=click.IntRange(min=1), default=200, show_default=True, help="Self-play games to time.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of the self-play run.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def bench(games: int, seed: int, as_json: bool) -> None:
    """Measure self-play and replay speed (a benchmark, not a test).

    Prints events per second of in-memory random self-play, events per
    second of folding the same events again with evolve alone, and their
    ratio, each against its target.

    Example: referee bench --games 200
    """
    from referee.bench import engine_bench

    report = engine_bench(games, seed)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    click.echo(f"{report.games} games, {report.events} events (seed {seed})")
    for f in report.figures:
        verdict = "" if f.ok is None else ("  ok" if f.ok else "  BELOW TARGET")
        target = f"  (target {f.target})" if f.target else ""
        click.echo(f"  {f.name:<32} {f.value:>12,.1f} {f.unit}{target}{verdict}")
