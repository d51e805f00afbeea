"""`referee bench`: the engine's and the store's speed, as ratios against
baselines measured in the same run."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from referee.bench import Figure


@click.command()
@click.option("--games", "-n", type=click.IntRange(min=1), default=200, show_default=True, help="Self-play games to time (engine).")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of the self-play run.")
@click.option("--engine/--no-engine", default=True, show_default=True, help="Time the engine: self-play and replay in memory.")
@click.option("--store/--no-store", default=True, show_default=True, help="Time the match store: self-play in SQLite, bulk writes, and `referee act` on a 2,000-event match.")
@click.option("--store-games", type=click.IntRange(min=1), default=20, show_default=True, help="Self-play games stored for the store figures.")
@click.option("--runs", type=click.IntRange(min=1), default=5, show_default=True, help="Runs of each store figure and its baseline (the median is reported).")
@click.option("--act-runs", type=click.IntRange(min=1), default=7, show_default=True, help="Fresh processes timed for each of --version, act on the long match and act on the short one.")
@click.option("--act/--no-act", default=True, show_default=True, help="With --store: time `referee act` in fresh processes.")
@click.option("--act-events", type=click.IntRange(min=100), default=2000, show_default=True, help="Events of the long match `referee act` is timed on.")
@click.option("--dir", "directory", type=click.Path(file_okay=False, exists=True), help="Where the temporary SQLite files go (default: the system's temporary directory).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def bench(games: int, seed: int, engine: bool, store: bool, store_games: int, runs: int, act_runs: int,
          act: bool, act_events: int, directory: str | None, as_json: bool) -> None:
    """Measure the engine's and the store's speed (a benchmark, not a test).

    Every figure is a ratio against a baseline measured in the same run,
    shown with its target:

    \b
    engine: in-memory random self-play (events/s), folding the same
            events again with evolve alone, and their ratio;
    store:  (1) the same self-play stored in a fresh SQLite file, against
            it in memory; (2) N events written by the store in one
            transaction, against plain sqlite3 inserting the same rows in
            one transaction; (3) `referee act` on a 2,000-event match,
            against `referee --version` (and against act on a 50-event
            match), each in fresh processes.

    Example: referee bench --games 200 --store-games 20
    """
    from referee.bench import BenchReport, engine_bench, store_bench

    # The command that repeats this run, every setting spelled out.
    words = ["referee", "bench", "--seed", str(seed)]
    words += ["--games", str(games)] if engine else ["--no-engine"]
    if store:
        words += ["--store-games", str(store_games), "--runs", str(runs)]
        words += ["--act-runs", str(act_runs), "--act-events", str(act_events)] if act else ["--no-act"]
        if directory:
            words += ["--dir", directory]
    else:
        words.append("--no-store")
    if as_json:
        words.append("--json")
    command = shlex.join(words)
    reports: list[tuple[str, BenchReport]] = []
    if engine:
        reports.append(("engine", engine_bench(games, seed)))
    if store:
        reports.append(("store", store_bench(store_games, seed, runs=runs, act_runs=act_runs, act=act, min_events=act_events,
                                                directory=directory)))
    if as_json:
        doc: dict[str, object] = {"command": command, "seed": seed}
        for name, report in reports:
            doc[name] = report.to_json()
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"$ {command}")
    for name, report in reports:
        if name == "engine":
            click.echo(f"engine: {report.games} games, {report.events} events (seed {seed})")
            for f in report.figures:
                click.echo(_line(f))
            continue
        play, write = report.info["self_play"], report.info["write"]
        click.echo(f"store (SQLite files, synchronous={write['synchronous']}; medians of {runs} runs):")
        click.echo(f"  (1) {play['games']} self-play games ({play['events']} events, {play['actions']} actions), "
                   "stored in a fresh file against the same in memory:")
        for f in report.figures:
            if f.section == "self_play":
                click.echo(_line(f))
        click.echo(f"  (2) {write['events']} events written in one transaction, against plain sqlite3 "
                   "inserting the same rows in one transaction:")
        for f in report.figures:
            if f.section == "write":
                click.echo(_line(f))
        if "act" in report.info:
            act_info = report.info["act"]
            long_match = act_info["long_match"]
            click.echo(f"  (3) referee act in fresh processes, median of {act_info['runs']} each, every act on its "
                       f"own copy of the database (long match: {long_match['events']} events, made by "
                       f"{long_match['rewinds']} rewinds with replay):")
            for f in report.figures:
                if f.section == "act":
                    click.echo(_line(f))
            for label in ("version", "long", "short"):
                click.echo(f"      $ {act_info['commands'][label]}")
            click.echo("      (--version imports the CLI and its command modules, most of what act imports: "
                       "the ratio is what acting costs beyond starting the program)")


def _line(f: Figure) -> str:
    """One figure with its target and verdict, as the engine figures always were."""
    verdict = "" if f.ok is None else ("  ok" if f.ok else "  BELOW TARGET")
    target = f"  (target {f.target})" if f.target else ""
    value = f"{f.value:>12,.3f}" if f.unit == "x" else f"{f.value:>12,.1f}"
    return f"    {f.name:<40} {value} {f.unit}{target}{verdict}"
