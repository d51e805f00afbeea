"""`referee simulate`: random legal self-play of whole games."""

from __future__ import annotations

import json
import sys
import time

import click

from referee.commands.params import DECK, FILE, db_option, once_each
from referee.ruleset import DEFAULT_GAME, games


@click.command()
@click.option(
    "--games", "-n", type=click.IntRange(min=1), default=100, show_default=True, help="How many games to play."
)
@click.option(
    "--seed",
    "-s",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the whole run; game k is reproducible from it.",
)
@click.option(
    "--deck",
    "decks",
    type=DECK,
    multiple=True,
    callback=once_each,
    help="Play these decks (A=FILE and B=FILE) instead of random legal decks.",
)
@click.option("--pool", type=FILE, help="Card pool for the decks (default: the bundled rules-test pool).")
@click.option(
    "--deal",
    "deal_mode",
    type=click.Choice(["seeded", "table"]),
    default="seeded",
    show_default=True,
    help="table: play table-dealt games, the simulated table revealing every hidden card the rules turn face up.",
)
@click.option(
    "--event",
    "event_id",
    metavar="EVENT",
    help="Instead: play the open matches of this tournament's current round, stored (several stations may run this at once).",
)
@click.option(
    "--game",
    type=click.Choice(games()),
    default=DEFAULT_GAME,
    show_default=True,
    help="The game to play (a complete ruleset: a fragment such as scp-tcg-s4 ends no game).",
)
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def simulate(
    games: int,
    seed: int,
    decks: dict[str, str],
    pool: str | None,
    deal_mode: str,
    event_id: str | None,
    game: str,
    db: str | None,
    as_json: bool,
) -> None:
    """Play whole games by picking random legal actions.

    Each game uses two random legal decks from the card pool (or the decks
    given) and picks uniformly among the legal actions at every decision,
    except conceding and draws. Every game ends with a result; the summary
    counts results by the rule that ended them.

    With --event, plays the current round's open matches of a tournament
    in the store instead, one stored action at a time (the seed then only
    picks the actions; --games is ignored).

    Example: referee simulate --games 500 --seed 1
    """
    if event_id is not None:
        _simulate_event(event_id, seed, db, as_json)
        return
    from referee.simulate import SelfPlayRefused, SimulationSummary, complete_ruleset, decks_for, game_seeds, play_game

    try:
        rules = complete_ruleset(game)
    except SelfPlayRefused as exc:
        raise click.BadParameter(str(exc), param_hint="--game") from None
    if decks and set(decks) != set(rules.seats):
        seats = " and ".join(f"{seat}=FILE" for seat in rules.seats)
        raise click.BadParameter(f"give both decks ({seats}) or neither", param_hint="--deck")
    cards = rules.need("decks")
    card_pool = cards.load_pool(pool) if pool else cards.bundled_cards()
    fixed = None
    if decks:
        fixed = {p: cards.load_deck(f, [card_pool]) for p, f in decks.items()}
    summary = SimulationSummary()
    seeds = game_seeds(games, seed)
    show_bar = not as_json and sys.stderr.isatty()
    start = time.perf_counter()
    bar = click.progressbar(seeds, label="games", file=sys.stderr) if show_bar else None
    iterator = bar.__enter__() if bar is not None else seeds
    try:
        for game_seed in iterator:
            record = play_game(game_seed, decks_for(game_seed, card_pool, fixed, game), deal_mode=deal_mode, game=game)
            summary.games += 1
            summary.events += len(record.events)
            summary.actions += len(record.actions)
            r = rules.result(record.state)
            assert r is not None
            summary.results["draw" if r.draw else f"{r.winner} wins"] += 1
            summary.rules[r.rule] += 1
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    summary.seconds = time.perf_counter() - start
    if as_json:
        click.echo(json.dumps({**summary.to_json(), "seed": seed}, indent=2))
        return
    click.echo(
        f"{summary.games} games, {summary.events} events, {summary.actions} actions "
        f"in {summary.seconds:.2f}s ({summary.events / summary.seconds:,.0f} events/s); every game ended"
    )
    click.echo("results: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.results.items())))
    click.echo("ended by: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.rules.items(), key=lambda kv: -kv[1])))


def _simulate_event(event_id: str, seed: int, db: str | None, as_json: bool) -> None:
    """``simulate --event``: the current round's open matches, played and stored."""
    import os
    import random

    from referee.commands.event import EVENT, _station
    from referee.tournament.service import play_round

    tid = EVENT.convert(event_id, None, click.get_current_context())
    # Stations running at once with the same --seed still spread over the tables.
    rng = random.Random(f"{seed}:{os.getpid()}")
    start = time.perf_counter()
    shown: set[str] = set()

    def progress(pairing: object, counts: dict[str, int]) -> None:
        match = getattr(pairing, "match", "")
        if not as_json and match not in shown:
            shown.add(match)
            click.echo(f"playing {match} (table {getattr(pairing, 'table', '?')})", err=True)

    with _station(db) as st:
        counts = play_round(st, tid, rng, progress)
    seconds = time.perf_counter() - start
    if as_json:
        click.echo(json.dumps({**counts, "seconds": round(seconds, 3)}, indent=2))
    else:
        click.echo(
            f"{counts['matches']} matches played to their end, {counts['actions']} actions stored in {seconds:.1f}s"
        )
