"""`referee bench`: the engine's and the store's speed, as ratios against
baselines measured in the same run."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from bench.figures import BenchReport, Figure


@click.command()
@click.option(
    "--games",
    "-n",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Self-play games to time (engine).",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of the self-play run.")
@click.option(
    "--engine/--no-engine",
    default=True,
    show_default=True,
    help="Time the engine: self-play and replay in memory, and player decisions against python-chess's random playouts.",
)
@click.option(
    "--chess-games",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="python-chess random playouts per run (the baseline of the decisions figure).",
)
@click.option(
    "--store/--no-store",
    default=True,
    show_default=True,
    help="Time the match store: self-play in SQLite, bulk writes, and `referee act` on a 2,000-event match.",
)
@click.option(
    "--store-games",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Self-play games stored for the store figures.",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Runs of each store figure and its baseline (the median is reported).",
)
@click.option(
    "--act-runs",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    help="Fresh processes timed for each of --version, act on the long match and act on the short one.",
)
@click.option(
    "--act/--no-act", default=True, show_default=True, help="With --store: time `referee act` in fresh processes."
)
@click.option(
    "--act-events",
    type=click.IntRange(min=100),
    default=2000,
    show_default=True,
    help="Events of the long match `referee act` is timed on.",
)
@click.option(
    "--audit/--no-audit",
    default=True,
    show_default=True,
    help="Time `audit` and `export` of a long stored match against a match a quarter as long.",
)
@click.option(
    "--audit-events",
    type=click.IntRange(min=400),
    default=20000,
    show_default=True,
    help="Events of the long match audited (the short one has a quarter as many).",
)
@click.option(
    "--startup/--no-startup",
    default=True,
    show_default=True,
    help='Time `referee --version` against `python -c "import click"` in fresh processes.',
)
@click.option(
    "--board/--no-board",
    default=True,
    show_default=True,
    help="Time the judges' board: the match page on a 5,000-event match against a 50-event one, and a live update.",
)
@click.option(
    "--event/--no-event",
    "event",
    default=True,
    show_default=True,
    help="Time a tournament: the event page and the first page with 1,000 stored tables against 10, and registering 128 players from a CSV against 8.",
)
@click.option(
    "--event-tables",
    type=click.IntRange(min=128),
    default=1000,
    show_default=True,
    help="Stored tables of the large event (a multiple of 8).",
)
@click.option(
    "--event-load/--no-event-load",
    "event_load",
    default=True,
    show_default=True,
    help="With --event and --postgres: organiser commands (event result, time, standings) while two stations log "
    "and `simulate --event` plays, against the same on an idle store, and failed polls of the event page and clock.",
)
@click.option(
    "--event-load-samples",
    type=click.IntRange(min=2),
    default=10,
    show_default=True,
    help="Each organiser command's runs per phase (idle, loaded) for --event-load.",
)
@click.option(
    "--console/--no-console",
    default=True,
    show_default=True,
    help="Time the console: a logged decision at the board on a 2,000-event match, against `referee act`.",
)
@click.option(
    "--console-posts",
    type=click.IntRange(min=5),
    default=40,
    show_default=True,
    help="Decisions logged at the board for the console figure.",
)
@click.option(
    "--tables",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="With --postgres: tables logged at once through the board (one scripted client each).",
)
@click.option(
    "--load-seconds",
    type=click.FloatRange(min=1),
    default=20.0,
    show_default=True,
    help="With --postgres: how long the tables are logged, once through one server and once through two.",
)
@click.option(
    "--postgres",
    "postgres",
    metavar="URL",
    help="Also time PostgreSQL at URL: one station writing, against four stations on four matches at once (each its own process, in a fresh schema dropped afterwards).",
)
@click.option(
    "--postgres-games",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Self-play games whose writes each PostgreSQL station repeats.",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, exists=True),
    help="Where the temporary SQLite files go (default: the system's temporary directory).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def bench(
    games: int,
    seed: int,
    engine: bool,
    chess_games: int,
    store: bool,
    store_games: int,
    runs: int,
    act_runs: int,
    act: bool,
    act_events: int,
    audit: bool,
    audit_events: int,
    startup: bool,
    board: bool,
    event: bool,
    event_tables: int,
    event_load: bool,
    event_load_samples: int,
    console: bool,
    console_posts: int,
    tables: int,
    load_seconds: float,
    postgres: str | None,
    postgres_games: int,
    directory: str | None,
    as_json: bool,
) -> None:
    """Measure the engine's and the store's speed (a benchmark, not a test).

    Every figure is a ratio against a baseline measured in the same run,
    shown with its target:

    \b
    engine: in-memory random self-play (events/s), folding the same
            events again with evolve alone, and their ratio;
    decisions: random self-play as `referee simulate` plays it, in player
            decisions/s, against python-chess's random legal moves/s from
            the starting position (random playouts), and their ratio; the
            same games with vanilla decks (no card text) for comparison
            (python-chess comes with `pip install 'referee[bench]'`; without
            it the ratios are left out and said so);
    store:  (1) the same self-play stored in a fresh SQLite file, against
            it in memory; (2) N events written by the store in one
            transaction, against plain sqlite3 inserting the same rows in
            one transaction; (3) `referee act` on a 2,000-event match,
            against `referee --version` (and against act on a 50-event
            match), each in fresh processes.
    audit:  (4) `audit` and `export` of a stored 20,000-event match made by
            rewinds with replay, against a 5,000-event one (linear: about 4x).
    startup: (5) `referee --version` against `python -c "import click"`.
    board:  the match page of `referee serve` at positions spread over a
            5,000-event match, against the same page on a 50-event match
            (real HTTP to the real server); a station's act to the page's
            live stream.
    event:  the board's event page and first page with 1,000 stored tables
            (250 players, 8 Swiss rounds) against the same pages with 10;
            `referee event register --csv` of 128 players against 8, in
            fresh processes; with --postgres URL (--event-load), `event
            result`, `event time` and `event standings` (fresh processes)
            while two stations log without pause through the board's
            console and `simulate --event` plays, 95th percentile against the same on an idle store, and
            the failed polls of the event page and the clock meanwhile.
    postgres: (6) with --postgres URL, four station processes writing the
            actions of self-play games to four matches at once, against one
            station alone (events/s of all together), and the same with
            the library's own insert.
    console: (7) one decision logged at the board (the POST of a legal
            line to the new board, real HTTP) on a 2,000-event match:
            median and 95th percentile, against `referee act`'s median on
            the same match; (8) with --postgres URL, --tables scripted
            clients logging a table each (a decision every 0.2 s) through
            one `referee serve` process, then two: decisions/s held, 95th
            percentile, errors.

    Example: referee bench --games 200 --store-games 20
    """
    from bench.figures import DECK_KINDS, board_bench, engine_bench, store_bench

    # The command that repeats this run, every setting spelled out.
    words = ["referee", "bench", "--seed", str(seed)]
    words += ["--games", str(games), "--chess-games", str(chess_games)] if engine else ["--no-engine"]
    if store:
        words += ["--store-games", str(store_games), "--runs", str(runs)]
        words += ["--act-runs", str(act_runs), "--act-events", str(act_events)] if act else ["--no-act"]
    else:
        words.append("--no-store")
    words += ["--audit-events", str(audit_events)] if audit else ["--no-audit"]
    if not startup:
        words.append("--no-startup")
    if not board:
        words.append("--no-board")
    elif not store:
        words += ["--runs", str(runs)]
    if not event:
        words.append("--no-event")
    else:
        words += ["--event-tables", str(event_tables)]
        if not store and not board:
            words += ["--runs", str(runs)]
    words += ["--console-posts", str(console_posts)] if console else ["--no-console"]
    if console and not (store and act):
        words += ["--act-runs", str(act_runs)]
    if postgres and console:
        words += ["--tables", str(tables), "--load-seconds", f"{load_seconds:g}"]
    if postgres and event:
        words += ["--event-load-samples", str(event_load_samples)] if event_load else ["--no-event-load"]
    if postgres:
        from referee.store import parse_url

        words += ["--postgres", parse_url(postgres).display, "--postgres-games", str(postgres_games)]
        if not store and not board and not event:
            words += ["--runs", str(runs)]
    if directory and (store or board or audit or event or console):
        words += ["--dir", directory]
    if as_json:
        words.append("--json")
    command = shlex.join(words)
    reports: list[tuple[str, BenchReport]] = []
    if (store and act) or startup or console:  # fresh processes are timed: give them the bytecode an install has
        from bench.figures import compile_bytecode

        compile_bytecode()
    if engine:
        from bench.figures import decisions_bench

        reports.append(("engine", engine_bench(games, seed)))
        reports.append(("decisions", decisions_bench(games, seed, chess_games=chess_games)))
    if store:
        reports.append(
            (
                "store",
                store_bench(
                    store_games, seed, runs=runs, act_runs=act_runs, act=act, min_events=act_events, directory=directory
                ),
            )
        )
    if audit or startup:
        from bench.figures import AUDIT_LONG, AUDIT_SHORT, input_bench

        short = max(100, audit_events * AUDIT_SHORT // AUDIT_LONG)
        reports.append(
            (
                "input",
                input_bench(
                    short=short, long=audit_events, directory=directory, seed=seed, audit=audit, startup=startup
                ),
            )
        )
    if board:
        reports.append(("board", board_bench(directory, runs=runs)))
    if event:
        from bench.tournament import event_bench

        reports.append(("event", event_bench(directory, runs, tables=event_tables, seed=seed)))
    if postgres and event and event_load:
        from bench.tournament import load_bench as event_load_bench

        reports.append(("event_load", event_load_bench(postgres, samples=event_load_samples, seed=seed)))
    if postgres:
        from bench.figures import postgres_bench

        reports.append(("postgres", postgres_bench(postgres, postgres_games, seed, runs=runs, directory=directory)))
    if console:
        from bench.console import decision_bench

        reports.append(("console", decision_bench(directory, posts=console_posts, act_runs=act_runs, seed=seed)))
        if postgres:
            from bench.console import load_bench

            reports.append(("load", load_bench(postgres, tables=tables, seconds=load_seconds, seed=seed)))
    if as_json:
        doc: dict[str, object] = {"command": command, "seed": seed}
        for name, report in reports:
            doc[name] = report.to_json()
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"$ {command}")
    for name, report in reports:
        if name == "input":
            _echo_input(report)
            continue
        if name == "engine":
            click.echo(
                f"engine: {report.games} self-play games per kind of deck (seed {seed}), in memory; "
                "medians of 3 runs, CPU time of this process:"
            )
            for kind in DECK_KINDS:
                if isinstance(report.info.get(kind), str):
                    click.echo(f"  {kind} decks: none ({report.info[kind]})")
                    continue
                click.echo(f"  {kind} decks:")
                _echo_section(report, kind)
            continue
        if name == "decisions":
            info = report.info["decisions"]
            click.echo(
                f"decisions: {info['games']} self-play games ({info['decks']}, as `referee simulate` plays "
                "them, and the same games with vanilla decks) against python-chess's random playouts from the "
                "starting position; medians of 3 runs, interleaved, CPU time of this process:"
            )
            for f in report.figures:
                click.echo(_line(f))
            if isinstance(report.info.get("chess"), str):
                click.echo(f"    ({report.info['chess']})")
            continue
        if name == "postgres":
            info = report.info["postgres"]
            click.echo(
                f"postgres ({info['url']}; each station writes {info['events_per_station']} events in "
                f"{info['actions_per_station']} transactions, one per action; median of {info['runs']} runs; "
                f"{info['cpus']} CPUs here, server included):"
            )
            for f in report.figures:
                click.echo(_line(f))
            continue
        if name == "event":
            _echo_event(report)
            continue
        if name == "event_load":
            info = report.info["load"]
            click.echo(
                f"event load ({info['url']}; {info['samples']} runs of each organiser command per phase, fresh "
                f"processes; loaded: two stations logging without pause through the board's console and "
                f"`simulate --event`, on "
                f"{info['events']['played']['tables']} tables; the board's event page and clock polled every "
                f"second; {info['cpus']} CPUs here, server included):"
            )
            for f in report.figures:
                click.echo(_line(f))
            for label, command in info["commands"].items():
                click.echo(f"      $ {command}")
            continue
        if name == "console":
            info = report.info["console"]
            click.echo(
                f"console (referee serve, real HTTP; {info['posts']} decisions logged on a "
                f"{info['match']['events']}-event match; act: median of {info['act_runs']} fresh processes):"
            )
            for f in report.figures:
                click.echo(_line(f))
            click.echo(f"      $ {info['act']}")
            continue
        if name == "load":
            info = report.info["load"]
            click.echo(
                f"load ({info['url']}; {info['tables']} tables, a decision every {info['interval']:g} s each, "
                f"{info['seconds']:g} s per run; {info['cpus']} CPUs here, server and clients included):"
            )
            for f in report.figures:
                click.echo(_line(f))
            continue
        if name == "board":
            info = report.info["board"]
            click.echo(
                f"board (referee serve, real HTTP; {info['pages']} positions per run, median of {info['runs']} runs; "
                f"long match made by {info['long_match']['rewinds']} rewinds):"
            )
            for f in report.figures:
                click.echo(_line(f))
            continue
        play, write = report.info["self_play"], report.info["write"]
        click.echo(f"store (SQLite files, synchronous={write['synchronous']}; medians of {runs} runs):")
        click.echo(
            f"  (1) {play['games']} self-play games ({play['events']} events, {play['actions']} actions), "
            "stored in a fresh file against the same in memory:"
        )
        _echo_section(report, "self_play")
        click.echo(
            f"  (2) {write['events']} events written in one transaction, against plain sqlite3 "
            "inserting the same rows in one transaction:"
        )
        _echo_section(report, "write")
        if "act" in report.info:
            act_info = report.info["act"]
            long_match = act_info["long_match"]
            click.echo(
                f"  (3) referee act in fresh processes, median of {act_info['runs']} each, every act on its "
                f"own copy of the database (long match: {long_match['events']} events, made by "
                f"{long_match['rewinds']} rewinds with replay):"
            )
            _echo_section(report, "act")
            for label in ("version", "long", "short"):
                click.echo(f"      $ {act_info['commands'][label]}")
            click.echo(
                "      (--version imports click and the command registry only: the ratio is what acting "
                "costs beyond starting the program, the imports act needs included)"
            )


def _echo_input(report: BenchReport) -> None:
    """The figures of (4) audit and export and (5) start-up."""
    if "audit" in report.info:
        audit = report.info["audit"]
        click.echo(
            f"audit and export (in this process, median of {audit['runs']} runs; matches made by rewinds "
            f"with replay: {audit['long_match']['rewinds']} and {audit['short_match']['rewinds']} rewinds; "
            f"{audit['events_ratio']}x the events):"
        )
        _echo_section(report, "audit")
    if "startup" in report.info:
        startup = report.info["startup"]
        compiled = "bytecode compiled first" if startup["bytecode_compiled"] else "bytecode NOT compiled"
        click.echo(f"start-up (fresh processes, median of {startup['runs']} each; {compiled}):")
        _echo_section(report, "startup")
        for label in ("click", "version"):
            click.echo(f"      $ {startup['commands'][label]}")
        click.echo("      (`referee act` against `referee --version` is figure (3) of the store section)")


def _echo_event(report: BenchReport) -> None:
    """The tournament's figures: its pages at 1,000 tables, registration from a CSV."""
    pages, register = report.info["pages"], report.info["register"]
    large, small = pages["events"]["large"], pages["events"]["small"]
    click.echo(
        f"event (referee serve, real HTTP; {large['tables']} tables: {large['players']} players, "
        f"{large['rounds']} rounds; {small['tables']} tables: {small['players']} players, {small['rounds']} "
        f"rounds; read models current; {pages['requests']} requests per run, median of {pages['runs']} runs):"
    )
    _echo_section(report, "pages")
    click.echo(
        f"  registration from a CSV (fresh processes, median of {register['runs']} each, each on its own copy "
        "of a new event):"
    )
    _echo_section(report, "register")
    for label in ("many", "few"):
        click.echo(f"      $ {register['commands'][label]}")


def _echo_section(report: BenchReport, section: str) -> None:
    for f in report.figures:
        if f.section == section:
            click.echo(_line(f))


def _line(f: Figure) -> str:
    """One figure with its target and verdict, as the engine figures always were."""
    verdict = "" if f.ok is None else ("  ok" if f.ok else "  BELOW TARGET")
    target = f"  (target {f.target})" if f.target else ""
    value = f"{f.value:>12,.3f}" if f.unit == "x" else f"{f.value:>12,.1f}"
    return f"    {f.name:<40} {value} {f.unit}{target}{verdict}"
