"""Benchmarks of the engine and the match store, each measured as a ratio
against a baseline measured in the same run.

Absolute speeds depend on the machine; a ratio of two figures taken in one
run does not, so every result is reported both ways. Run with
``referee bench`` (the test suite never times anything). A figure and its
baseline run interleaved, ``runs`` times each, and the median of each is
reported; each timed step starts after a full garbage collection, with the
benchmark's own data (the recorded games) frozen out of the collector.

The engine figures: in-memory self-play and replay (a fold of ``evolve``),
each against self-play, once with random decks of vanilla cards and once
with decks of cards with abilities only (``bench_pools``); the second is
what a real event costs, the first the floor, and their quotient is shown.

The store figures (issue 3) and their baselines:

1. **Self-play stored in SQLite / in memory.** The same self-play games
   (``play_game``'s loop: same seeds, decks, random choices among the legal
   actions, hence the same actions, checked) are played twice: in memory
   with ``rules.apply``, and through ``MatchStore.create`` and
   ``MatchStore.act`` on a fresh SQLite file in a temporary directory (one
   transaction per action, snapshots included; the store is checked to hold
   every event afterwards). A second, untargeted ratio replays the recorded
   actions without choosing them, ``rules.apply`` against ``act`` alone:
   the store's cost against the engine's own.
2. **Writing N events through the store / plain sqlite3.** The events of
   those games, as one match of N events, written by the store's write path
   (``MatchStore._write``: the mapper serializes them, the library's recorder
   inserts them in one transaction) against the stdlib ``sqlite3`` inserting
   the very same rows (same bytes, serialized beforehand and not timed) into
   a table made by the library's own CREATE TABLE statement, in a file with
   the same pragmas, in one transaction.
3. **``referee act`` on a 2,000-event match / ``referee --version``.** Each
   in a fresh process (median of several runs); every ``act`` runs on its own
   copy of the same database file. ``--version`` imports click and the
   command registry only (commands are imported when run), so this ratio is
   what acting costs beyond starting the program, imports of the event
   models, the rules and the store included; ``act`` on a 50-event match of
   the same file is a second baseline, which shows whether the length of
   the match matters.

The input figures (issue 8) and their baselines:

4. **``audit`` and ``export`` of a 20,000-event match / of a 5,000-event
   one**, both made by rewinds with replay, in this process: linear work
   gives about the ratio of their lengths (3.9x).
5. **``referee --version`` / ``python -c "import click"``**, fresh processes:
   what the referee adds to the least a click program pays to start.
"""

from __future__ import annotations

import gc
import json
import os
import random
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from referee import ruleset as registry
from referee.simulate import NOT_RANDOM, decks_for, game_seeds, play_game, vanilla
from referee.store.sqlitefactory import DEFAULT_SYNCHRONOUS as SYNCHRONOUS  # given to plain sqlite3 too

SELF_PLAY_TARGET = 0.5  # (1) stored / in memory, at least
WRITE_TARGET = 0.5  # (2) store / plain sqlite3, at least
ACT_TARGET = 1.5  # (3) act on 2,000 events / --version, at most
LONG_MATCH = 2000  # events of the match (3) acts on
SHORT_MATCH = 50  # events of the baseline match of (3)


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None
    section: str = "engine"


@dataclass
class BenchReport:
    games: int
    events: int
    figures: list[Figure] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)  # what was measured, and how

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "events": self.events,
            "figures": [
                {
                    "section": f.section,
                    "name": f.name,
                    "value": round(f.value, 3),
                    "unit": f.unit,
                    "target": f.target,
                    "ok": f.ok,
                }
                for f in self.figures
            ],
            **self.info,
        }


DECK_KINDS = ("vanilla", "ability-heavy")


# The reference game every figure measures, reached as any kernel module
# reaches a game: through its ruleset.
CardDef = Any  # one card of the reference game (its ``card_type``)


def reference_game() -> registry.Ruleset:
    return registry.get(registry.DEFAULT_GAME)


def bundled_pool() -> dict[str, Any]:
    return dict(reference_game().need("decks").bundled_cards())


def bench_pools(pool: dict[str, CardDef]) -> dict[str, dict[str, CardDef]]:
    """The two kinds of random decks the engine is timed with: cards without
    text only, and cards with abilities only (plus the cost-1 characters a deck
    needs for its opening, 100.2, if no such card has text). Abilities cost
    the engine windows, triggers and characteristics at every step, so a speed
    measured on vanilla decks alone says little about a real event."""
    plain = vanilla(pool)
    heavy = {n: c for n, c in pool.items() if c.abilities}
    if heavy and not any(c.type == "character" and c.cost == 1 for c in heavy.values()):
        heavy.update({n: c for n, c in plain.items() if c.type == "character" and c.cost == 1})
    return {"vanilla": plain, "ability-heavy": heavy}


def engine_bench(games: int = 200, seed: int = 1, runs: int = 3) -> BenchReport:
    """Self-play in memory, then the same events folded again with evolve
    alone, once with vanilla decks and once with ability-heavy ones: each timed
    ``runs`` times, interleaved, on a frozen heap (see ``_frozen_heap``),
    reporting the medians. The engine neither waits nor writes, so it is
    timed by this process's CPU time: other work on the machine (a test run,
    a second station) changes wall-clock time several-fold, not this."""
    seeds = game_seeds(games, seed)
    report = BenchReport(games, 0)
    rates: dict[str, float] = {}
    for kind, pool in bench_pools(bundled_pool()).items():
        if not pool:
            report.info[kind] = "the bundled pool has no such cards"
            continue
        decks = [decks_for(s, pool, None) for s in seeds]
        logs = [play_game(s, d).events for s, d in zip(seeds, decks)]
        events = sum(len(log) for log in logs)
        report.events += events
        report.info[kind] = {"events": events, "cards": sorted(pool)}

        def play(_: int) -> float:
            t0 = time.process_time()
            for s, d in zip(seeds, decks):
                play_game(s, d)
            return time.process_time() - t0

        game = reference_game()
        fold, initial_state, evolve = game.fold, game.initial_state, game.evolve

        def replay(_: int) -> float:
            t0 = time.process_time()
            for log in logs:
                fold(log)
            return time.process_time() - t0

        def step_by_step(_: int) -> float:
            t0 = time.process_time()
            for log in logs:
                state = initial_state()
                for event in log:
                    state = evolve(state, event)
            return time.process_time() - t0

        with _frozen_heap():
            play_seconds, fold_seconds, step_seconds = _median_seconds(runs, play, replay, step_by_step)
        play_rate = events / play_seconds
        fold_rate = events / fold_seconds
        step_rate = events / step_seconds
        rates[kind] = play_rate
        report.figures += [
            Figure(
                f"self-play in memory ({events} events)", play_rate, "events/s", ">= 20000", play_rate >= 20000, kind
            ),
            Figure("replay (fold of evolve)", fold_rate, "events/s", section=kind),
            Figure("replay / self-play", fold_rate / play_rate, "x", ">= 10", fold_rate / play_rate >= 10, kind),
            Figure("evolve, one state per event", step_rate, "events/s", section=kind),
            Figure("evolve per event / self-play", step_rate / play_rate, "x", section=kind),
        ]
    if len(rates) == 2:
        report.figures.append(
            Figure(
                "self-play: ability-heavy / vanilla",
                rates["ability-heavy"] / rates["vanilla"],
                "x",
                section="ability-heavy",
            )
        )
    return report


# --- player decisions against python-chess ------------------------------------------------

DECISIONS_TARGET = 0.5  # self-play player decisions / python-chess random legal moves, at least
CHESS_GAMES = 20  # random playouts of python-chess per run


def chess_available() -> bool:
    """Is python-chess installed (``pip install 'referee[bench]'``)?"""
    import importlib.util

    return importlib.util.find_spec("chess") is not None


def chess_playouts(games: int, seed: int) -> int:
    """python-chess's own random playouts: from the starting position, a
    random legal move (``list(board.legal_moves)``) pushed until the game is
    over (``board.is_game_over()``), as a chess program's random simulation
    does. Returns the moves made."""
    import chess

    rng = random.Random(seed)
    moves = 0
    for _ in range(games):
        board = chess.Board()
        while not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
            moves += 1
    return moves


def decisions_bench(games: int = 200, seed: int = 1, runs: int = 3, chess_games: int = CHESS_GAMES) -> BenchReport:
    """Random self-play as ``referee simulate`` plays it (random decks of the
    bundled pool, whose cards have abilities), in player decisions per
    second (each action a player chose among the legal ones, the listing
    included), against python-chess's random legal moves per second in the
    same run; the same games with vanilla decks too (no card text: the
    engine's procedure alone, shown without a target), interleaved ``runs`` times on a frozen heap, medians of CPU
    time. Without python-chess the ratio is not measured (``info["chess"]``
    says why) and the decisions are reported alone."""
    seeds = game_seeds(games, seed)
    pool = bundled_pool()
    decks = [decks_for(s, pool, None) for s in seeds]
    decisions = sum(len(play_game(s, d).actions) for s, d in zip(seeds, decks))  # also builds the models once
    # The same games with vanilla decks: the engine's own procedure without
    # any card text, what the ability machinery adds on top of it.
    plain_pool = vanilla(pool)
    plain = [decks_for(s, plain_pool, None) for s in seeds]
    plain_decisions = sum(len(play_game(s, d).actions) for s, d in zip(seeds, plain))
    report = BenchReport(games, 0)

    def timed(games_decks: list[tuple[int, Any]]) -> Callable[[int], float]:
        def step(_: int) -> float:
            t0 = time.process_time()
            for s, d in games_decks:
                play_game(s, d)
            return time.process_time() - t0

        return step

    play, play_plain = timed(list(zip(seeds, decks))), timed(list(zip(seeds, plain)))

    chess_moves: list[int] = []

    def playouts(i: int) -> float:
        t0 = time.process_time()
        chess_moves.append(chess_playouts(chess_games, seed + i))
        return time.process_time() - t0

    have_chess = chess_available()
    if have_chess:
        chess_playouts(1, seed)  # imported and warm before it is timed, as the engine is
    steps: list[Callable[[int], float]] = [play, play_plain, playouts] if have_chess else [play, play_plain]
    with _frozen_heap():
        times = _median_seconds(runs, *steps)
    rate, plain_rate = decisions / times[0], plain_decisions / times[1]
    report.figures += [
        Figure(f"random self-play ({decisions} decisions)", rate, "decisions/s", section="decisions"),
        Figure(f"same, vanilla decks ({plain_decisions} decisions)", plain_rate, "decisions/s", section="decisions"),
    ]
    report.info["decisions"] = {
        "games": games,
        "decisions": decisions,
        "decks": "random decks of the bundled pool",
        "vanilla_decisions": plain_decisions,
    }
    if not have_chess:
        report.info["chess"] = "python-chess is not installed (pip install 'referee[bench]'): no ratio measured"
        return report
    moves = statistics.median(chess_moves)
    chess_rate = moves / times[2]
    ratio = rate / chess_rate
    report.figures += [
        Figure(f"python-chess random playouts ({chess_games} games)", chess_rate, "moves/s", section="decisions"),
        Figure("decisions / chess moves", ratio, "x", f">= {DECISIONS_TARGET}", ratio >= DECISIONS_TARGET, "decisions"),
        Figure("vanilla decisions / chess moves", plain_rate / chess_rate, "x", section="decisions"),
    ]
    import chess

    report.info["chess"] = {"version": chess.__version__, "games": chess_games, "moves": moves}
    return report


# --- the store ---------------------------------------------------------------------


@contextmanager
def _scratch(directory: str | None) -> Iterator[Path]:
    """A fresh temporary directory (under ``directory`` if given), removed after."""
    path = Path(tempfile.mkdtemp(prefix="referee-bench-", dir=directory))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass
class _Game:
    seed: int
    decks: dict[str, Any]
    actions: list[Any]
    events: list[Any]


def _recorded_games(games: int, seed: int) -> list[_Game]:
    pool = vanilla(bundled_pool())  # the baselines were measured with vanilla decks
    out = []
    for s in game_seeds(games, seed):
        decks = decks_for(s, pool, None)
        record = play_game(s, decks)
        out.append(_Game(s, decks, record.actions, record.events))
    return out


def _median_seconds(runs: int, *steps: Callable[[int], float]) -> list[float]:
    """Run each step ``runs`` times, interleaved (so a busy moment of the
    machine hits all of them alike); the median time of each. Each step
    starts after a full garbage collection, so none pays for the garbage of
    the one before it (its own garbage is collected while it runs, as usual)."""
    times: list[list[float]] = [[] for _ in steps]
    for i in range(runs):
        for k, step in enumerate(steps):
            gc.collect()
            times[k].append(step(i))
    return [statistics.median(t) for t in times]


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """Keep the objects that exist now (the recorded games, the benchmark's
    own data) out of the garbage collector's full passes while timing: a
    referee process does not hold twenty games in memory, and a full pass
    over them (tens of milliseconds here) would land on whichever timed step
    happened to allocate at that moment. New objects are collected as usual."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _self_play(g: _Game, act: Callable[[Any, Any], Any], first: Callable[[list[Any]], None]) -> tuple[int, list[Any]]:
    """``play_game``'s loop (same random choices from the same seed), with
    each action applied by ``act(state, action) -> Applied`` and the first
    events handed to ``first``. Returns (events, actions)."""
    rules = reference_game()

    rng = random.Random(g.seed)
    applied = rules.start(g.decks, seed=g.seed)
    first(applied.events)
    state: Any  # the game's state (``Applied.state`` is declared ``object``)
    state, events, actions = applied.state, len(applied.events), []
    while state.result is None:
        choices = [a for a in rules.legal_actions(state) if a.do not in NOT_RANDOM]
        action = rng.choice(choices)
        applied = act(state, action)
        state = applied.state
        events += len(applied.events)
        actions.append(action)
    return events, actions


def self_play_bench(played: list[_Game], workdir: Path, runs: int = 3) -> tuple[list[Figure], dict[str, Any]]:
    """(1): the same self-play games in memory and through the store on a
    fresh SQLite file; then the same actions replayed without choosing them
    (``rules.apply`` alone against ``MatchStore.act``), for the store's cost
    against the engine's own."""
    rules = reference_game()
    from referee.store import MatchStore

    expected = sum(len(g.events) for g in played)

    def check(events: int, actions: list[Any], g: _Game) -> int:
        assert actions == g.actions, f"game {g.seed} took other actions"
        return events

    def play_in_memory(_: int) -> float:
        t0 = time.perf_counter()
        events = [_self_play(g, rules.apply, lambda first: None) for g in played]
        seconds = time.perf_counter() - t0
        assert sum(check(n, a, g) for (n, a), g in zip(events, played)) == expected
        return seconds

    def play_stored(i: int) -> float:
        with MatchStore(f"sqlite:///{workdir / f'self-play-{i}.db'}") as store:
            results = []
            t0 = time.perf_counter()
            for g in played:
                match: list[str] = []
                # mypy cannot infer a lambda with a default (here binding the loop's list): the ignores
                n, actions = _self_play(
                    g,
                    lambda state, action, match=match: store.act(match[0], action),  # type: ignore[misc]
                    lambda first, match=match: match.append(store.create(first)),  # type: ignore[misc]
                )
                results.append((n, actions, match[0]))
            seconds = time.perf_counter() - t0
            assert sum(check(n, a, g) for (n, a, _), g in zip(results, played)) == expected
            # The store really holds every event of every game.
            assert sum(store.load(m)[1] for _, _, m in results) == expected
        return seconds

    def replay_in_memory(_: int) -> float:
        t0 = time.perf_counter()
        events = 0
        for g in played:
            applied = rules.start(g.decks, seed=g.seed)
            state, events = applied.state, events + len(applied.events)
            for action in g.actions:
                applied = rules.apply(state, action)
                state, events = applied.state, events + len(applied.events)
        seconds = time.perf_counter() - t0
        assert events == expected
        return seconds

    def replay_stored(i: int) -> float:
        with MatchStore(f"sqlite:///{workdir / f'replay-{i}.db'}") as store:
            t0 = time.perf_counter()
            events = 0
            for g in played:
                first = rules.start(g.decks, seed=g.seed).events
                match = store.create(first)
                events += len(first)
                for action in g.actions:
                    events += len(store.act(match, action).events)
            seconds = time.perf_counter() - t0
            assert events == expected
        return seconds

    # The floor under any store of one SQLite transaction per action: the
    # same rows (serialized beforehand, untimed), each action's in its own
    # BEGIN ... COMMIT with plain sqlite3, on a file set up like the store's.
    batches = _action_rows(played)
    create_table, table = _events_table()

    def sqlite_per_action(i: int) -> float:
        conn = _plain_sqlite(workdir / f"per-action-{i}.db", create_table)
        try:
            insert = f"INSERT INTO {table} VALUES (?,?,?,?)"
            t0 = time.perf_counter()
            for rows in batches:
                conn.execute("BEGIN")
                conn.executemany(insert, rows)
                conn.execute("COMMIT")
            seconds = time.perf_counter() - t0
        finally:
            conn.close()
        return seconds

    play_mem, play_db, replay_mem, replay_db, sqlite_s = _median_seconds(
        runs, play_in_memory, play_stored, replay_in_memory, replay_stored, sqlite_per_action
    )
    ratio = play_mem / play_db
    figures = [
        Figure("self-play in memory", expected / play_mem, "events/s", section="self_play"),
        Figure("self-play stored in SQLite", expected / play_db, "events/s", section="self_play"),
        Figure(
            "stored / in memory", ratio, "x", f">= {SELF_PLAY_TARGET}", ratio >= SELF_PLAY_TARGET, section="self_play"
        ),
        Figure("same actions replayed: stored / memory", replay_mem / replay_db, "x", section="self_play"),
        Figure("bound: sqlite3 alone, a txn per action", play_mem / (play_mem + sqlite_s), "x", section="self_play"),
    ]
    info = {
        "games": len(played),
        "events": expected,
        "actions": sum(len(g.actions) for g in played),
        "runs": runs,
        "seconds": {
            "self_play_in_memory": round(play_mem, 4),
            "self_play_stored": round(play_db, 4),
            "replay_in_memory": round(replay_mem, 4),
            "replay_stored": round(replay_db, 4),
            "sqlite3_transactions_alone": round(sqlite_s, 4),
        },
    }
    return figures, info


def _events_table() -> tuple[list[str], str]:
    """The library's own CREATE TABLE statements and name for stored events."""
    from referee.store import MatchStore

    with MatchStore("sqlite:///:memory:") as probe:
        recorder: Any = probe.application.recorder  # SQLite's: the library's base class declares neither
        return list(recorder.create_table_statements), recorder.events_table_name


def _plain_sqlite(path: Path, create_table: list[str]) -> sqlite3.Connection:
    """A stdlib ``sqlite3`` connection to a new file set up like the store's:
    WAL (the library's) and ``synchronous=NORMAL`` (ours), the same table."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={SYNCHRONOUS.upper()}")
    for statement in create_table:
        conn.execute(statement)
    return conn


def _action_rows(played: list[_Game]) -> list[list[tuple[str, int, str, bytes]]]:
    """Each game's first events, then each action's events, as the store's rows."""
    from datetime import datetime, timezone

    rules = reference_game()
    from referee.store.mapper import JSONBytes, PydanticEventMapper

    mapper = PydanticEventMapper(transcoder=JSONBytes())
    now = datetime.now(timezone.utc)
    batches = []
    for k, g in enumerate(played):
        match = f"m-{k:08x}"
        applied = rules.start(g.decks, seed=g.seed)
        state, version = applied.state, len(applied.events)
        batches.append(mapper.to_rows(match, 0, now, applied.events))
        for action in g.actions:
            applied = rules.apply(state, action)
            batches.append(mapper.to_rows(match, version, now, applied.events))
            state, version = applied.state, version + len(applied.events)
    return batches


def write_bench(events: list[Any], workdir: Path, runs: int = 3) -> tuple[list[Figure], dict[str, Any]]:
    """(2): N events written by the store, against sqlite3 inserting the same rows."""
    from datetime import datetime, timezone

    from referee.store import MatchStore
    from referee.store.mapper import GENESIS

    n = len(events)

    def store_write(i: int) -> float:
        with MatchStore(f"sqlite:///{workdir / f'write-store-{i}.db'}") as store:
            store.application.recorder.max_notification_id()  # connect before timing
            t0 = time.perf_counter()
            store._write("m-bench", 0, events)  # the write path of create, act and update
            seconds = time.perf_counter() - t0
            assert len(store.records("m-bench")) == n
        return seconds

    # The baseline's rows: the same events, serialized by the same mapper.
    with MatchStore("sqlite:///:memory:") as probe:
        mapper = probe.application.mapper
        rows, _ = mapper.chained_rows("m-bench", 0, datetime.now(timezone.utc), events, None, GENESIS)
    create_table, table = _events_table()

    def serialize_only(_: int) -> float:
        t0 = time.perf_counter()
        mapper.chained_rows("m-bench", 0, datetime.now(timezone.utc), events, None, GENESIS)  # what _write makes
        return time.perf_counter() - t0

    def plain_sqlite(i: int) -> float:
        conn = _plain_sqlite(workdir / f"write-sqlite3-{i}.db", create_table)
        try:
            t0 = time.perf_counter()
            conn.execute("BEGIN")
            conn.executemany(f"INSERT INTO {table} VALUES (?,?,?,?)", rows)
            conn.execute("COMMIT")
            seconds = time.perf_counter() - t0
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == n
        finally:
            conn.close()
        return seconds

    store_s, sqlite_s, serialize_s = _median_seconds(runs, store_write, plain_sqlite, serialize_only)
    ratio = sqlite_s / store_s
    figures = [
        Figure(f"store writes {n} events", n / store_s, "events/s", section="write"),
        Figure("sqlite3 inserts the same rows", n / sqlite_s, "events/s", section="write"),
        Figure("store / sqlite3", ratio, "x", f">= {WRITE_TARGET}", ratio >= WRITE_TARGET, section="write"),
        Figure("(serializing alone, in the store)", n / serialize_s, "events/s", section="write"),
    ]
    seconds = {"store": round(store_s, 4), "sqlite3": round(sqlite_s, 4), "serializing": round(serialize_s, 4)}
    return figures, {"events": n, "runs": runs, "synchronous": SYNCHRONOUS, "seconds": seconds}


# --- (3) referee act on a long match ------------------------------------------------


def referee_command() -> list[str]:
    """How to start ``referee`` in a fresh process: the console script next
    to this interpreter, else the interpreter running ``referee.cli``."""
    script = Path(sys.executable).with_name("referee")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]


def _long_games(seed: int) -> Iterator[tuple[int, dict[str, Any], Any]]:
    """(seed, decks, whole game) of the self-play games of ``seed`` long enough
    (300 events) to play part way and rewind in."""
    pool = vanilla(bundled_pool())  # the baselines were measured with vanilla decks
    for game_seed in game_seeds(50, seed):
        decks = decks_for(game_seed, pool, None)
        whole = play_game(game_seed, decks)
        if len(whole.events) >= 300:
            yield game_seed, decks, whole


def _early_boundary(log: list[Any], rng: random.Random) -> int:
    """Just before an early player action of the current line of play (410.1
    rewinds to an action boundary, never into a stretch an earlier rewind
    retracted)."""
    from events.kernel import ActionTaken
    from projections.lineage import live_positions

    live = live_positions(log)
    boundaries = [live[i - 1] for i in range(1, len(live)) if isinstance(log[live[i] - 1], ActionTaken)]
    return boundaries[rng.randrange(3, 12)]


def build_long_match(url: str, min_events: int = LONG_MATCH, seed: int = 1) -> tuple[str, int, int, int]:
    """A stored match of at least ``min_events`` events, still going, made
    the way a long match is made at a table: a random game played part way,
    then a judge rewinding (410.1) to an early event with ``replay``, which
    appends the replayed actions again, until the log is long enough.
    Returns (match id, events, rewinds, actions replayed)."""
    from referee import corrections

    rules = reference_game()
    from referee.store import MatchStore

    with MatchStore(url) as store:
        for game_seed, decks, whole in _long_games(seed):
            match = store.create(rules.start(decks, seed=game_seed).events, name="bench: long match")
            for action in whole.actions[: len(whole.actions) * 2 // 3]:
                store.act(match, action)
            rewinds = replayed = 0
            state, version = store.load(match)
            rng = random.Random(game_seed)
            while version < min_events and state.result is None:
                to = _early_boundary(store.events(match), rng)
                done = store.update(  # as `referee rewind MATCH --to N --rule 410.1 --replay` does
                    match,
                    # mypy cannot infer a lambda with defaults (here binding the loop's match and target)
                    lambda s, match=match, to=to: corrections.rewind(  # type: ignore[misc]
                        s,
                        store.events(match),
                        to,
                        rule="410.1",
                        reason="bench: an impossible action long ago",
                        replay=True,
                    ),
                )
                replayed += done.replay.replayed if done.replay else 0
                rewinds += 1
                state, version = store.load(match)
            if state.result is None and version >= min_events:
                return match, version, rewinds, replayed
    raise RuntimeError(f"no game of seed {seed} made a match of {min_events} events still going")


def build_short_match(url: str, events: int = SHORT_MATCH, seed: int = 2) -> tuple[str, int]:
    """A stored match of about ``events`` events, still going."""
    rules = reference_game()
    from referee.store import MatchStore

    pool = vanilla(bundled_pool())  # the baselines were measured with vanilla decks
    game_seed = game_seeds(1, seed)[0]
    decks = decks_for(game_seed, pool, None)
    whole = play_game(game_seed, decks)
    with MatchStore(url) as store:
        match = store.create(rules.start(decks, seed=game_seed).events, name="bench: short match")
        version = store.load(match)[1]
        for action in whole.actions:
            if version >= events:
                break
            version += len(store.act(match, action).events)
        assert store.load(match)[0].result is None
    return match, version


def _act_arguments(state: Any, legal: list[dict[str, Any]]) -> list[str]:
    """``P DO [CARDS] [--target T] [--order O] [--n N]`` of a legal action
    (from ``referee legal --json``) that does not end the game."""
    from referee.actions import IllegalAction

    rules = reference_game()

    simple = ("card", "cards", "target", "order", "n")
    for a in legal:
        args = {k: v for k, v in a.items() if k not in ("player", "do") and not k.endswith(("_id", "_ids"))}
        if a["do"] in NOT_RANDOM or set(args) - set(simple):
            continue
        card = a.get("card_id")
        cards = tuple(a["cards_ids"]) if "cards_ids" in a else None
        given = {"card": card, "cards": cards, "target": a.get("target_id"), "order": a.get("order"), "n": a.get("n")}
        action = rules.action_from_mapping(
            {"player": a["player"], "do": a["do"], **{k: v for k, v in given.items() if v is not None}}
        )
        try:
            after: Any = rules.apply(state, action).state  # the game's state (``Applied.state`` is ``object``)
            if after.result is not None:
                continue
        except IllegalAction:
            continue
        argv = [a["player"], a["do"]]
        argv += [card] if card else list(cards or ())
        if action.target:
            argv += ["--target", action.target]
        if action.order:
            argv += ["--order", action.order]
        if action.n is not None:
            argv += ["--n", str(action.n)]
        return argv
    raise RuntimeError("no legal action that keeps the game going")


def act_bench(
    workdir: Path, runs: int = 7, min_events: int = LONG_MATCH, short_events: int = SHORT_MATCH, seed: int = 1
) -> tuple[list[Figure], dict[str, Any]]:
    """(3): ``referee act`` on a long match against ``referee --version``."""
    from referee.store import MatchStore

    db = workdir / "matches.db"
    url = f"sqlite:///{db}"
    long_id, long_events, rewinds, replayed = build_long_match(url, min_events, seed)
    short_id, short_events_made = build_short_match(url, short_events, seed + 1)
    with sqlite3.connect(db) as conn:  # everything in the main file: the copies are whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    referee = referee_command()
    env = dict(os.environ)
    env.pop("REFEREE_DB", None)  # every command names its --db

    def run(argv: list[str]) -> float:
        t0 = time.perf_counter()
        done = subprocess.run(referee + argv, capture_output=True, text=True, env=env, check=False)
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(referee + argv)} failed ({done.returncode}): {done.stderr.strip()}")
        return seconds

    plans = {}
    for label, match in (("long", long_id), ("short", short_id)):
        listed = subprocess.run(
            referee + ["legal", match, "--json", "--db", url], capture_output=True, text=True, env=env, check=False
        )
        if listed.returncode != 0:
            raise RuntimeError(f"referee legal failed: {listed.stderr.strip()}")
        with MatchStore(url) as store:
            state = store.load(match)[0]
        plans[label] = (match, _act_arguments(state, json.loads(listed.stdout)["actions"]))

    commands: dict[str, str] = {}

    def act_on(label: str) -> Callable[[int], float]:
        match, argv = plans[label]

        def step(i: int) -> float:
            copy = workdir / f"act-{label}-{i}.db"
            shutil.copyfile(db, copy)  # every run acts on the same match
            full = ["act", match, *argv, "--db", f"sqlite:///{copy}"]
            commands[label] = shlex.join(referee + full)
            seconds = run(full)
            with MatchStore(f"sqlite:///{copy}") as store:  # it really acted
                written = store.load(match)[1]
            assert written > (long_events if label == "long" else short_events_made), (label, written)
            copy.unlink()
            return seconds

        return step

    run(["--version"])  # warm the file cache alike for all
    version_s, long_s, short_s = _median_seconds(runs, lambda i: run(["--version"]), act_on("long"), act_on("short"))
    commands["version"] = shlex.join(referee + ["--version"])
    ratio = long_s / version_s
    figures = [
        Figure("referee --version", version_s * 1000, "ms", section="act"),
        Figure(f"referee act, {long_events}-event match", long_s * 1000, "ms", section="act"),
        Figure(f"referee act, {short_events_made}-event match", short_s * 1000, "ms", section="act"),
        Figure("act (long) / --version", ratio, "x", f"<= {ACT_TARGET}", ratio <= ACT_TARGET, section="act"),
        Figure("act (long) / act (short)", long_s / short_s, "x", section="act"),
    ]
    info = {
        "long_match": {"events": long_events, "rewinds": rewinds, "replayed_actions": replayed},
        "short_match": {"events": short_events_made},
        "runs": runs,
        "commands": commands,
    }
    return figures, info


def store_bench(
    games: int = 20,
    seed: int = 1,
    *,
    runs: int = 5,
    act_runs: int = 7,
    act: bool = True,
    min_events: int = LONG_MATCH,
    directory: str | None = None,
) -> BenchReport:
    """The store's figures (1), (2) and, with ``act``, (3)."""
    played = _recorded_games(games, seed)
    report = BenchReport(games, sum(len(g.events) for g in played))
    with _scratch(directory) as workdir, _frozen_heap():
        figures, info = self_play_bench(played, workdir, runs)
        report.figures += figures
        report.info["self_play"] = info
        figures, info = write_bench([e for g in played for e in g.events], workdir, runs)
        report.figures += figures
        report.info["write"] = info
        if act:
            figures, info = act_bench(workdir, act_runs, min_events, seed=seed)
            report.figures += figures
            report.info["act"] = info
    return report


# --- (4) audit and export of long matches ------------------------------------------------

AUDIT_TARGET = 5.0  # audit (and export) of the long match / the short one, at most
AUDIT_SHORT = 5000  # events of the short match of (4)
AUDIT_LONG = 20000  # events of the long match of (4): four times as many


def rewound_log(min_events: int, seed: int = 1) -> tuple[list[Any], int]:
    """In memory, a log of at least ``min_events`` events made the way
    ``build_long_match`` makes one (a random game played two thirds of the
    way, then 410.1 rewinds with replay to an early action until the log is
    long enough), the states kept as it grows so that building it is linear.
    Returns the log and its number of rewinds."""
    from referee import corrections

    rules = reference_game()

    state: Any  # the game's state (``Applied.state`` is declared ``object``)
    for game_seed, decks, whole in _long_games(seed):
        applied = rules.start(decks, seed=game_seed)
        log, state = list(applied.events), applied.state
        for action in whole.actions[: len(whole.actions) * 2 // 3]:
            applied = rules.apply(state, action)
            log += applied.events
            state = applied.state
        states = corrections.states_along(log)
        rng = random.Random(game_seed)
        rewinds = 0
        while len(log) < min_events and state.result is None:
            done = corrections.rewind(
                state,
                log,
                _early_boundary(log, rng),
                rule="410.1",
                reason="bench: an impossible action long ago",
                replay=True,
                states=states,
            )
            log += done.events
            corrections.states_along(log, states)
            state = done.state
            rewinds += 1
        if state.result is None and len(log) >= min_events:
            return log, rewinds
    raise RuntimeError(f"no game of seed {seed} made a match of {min_events} events still going")


def audit_bench(
    workdir: Path, runs: int = 3, short: int = AUDIT_SHORT, long: int = AUDIT_LONG, seed: int = 1
) -> tuple[list[Figure], dict[str, Any]]:
    """(4): ``referee audit MATCH`` and ``referee export MATCH`` (what each
    command runs, ``audit_one`` and ``export_one``, in this process: loading
    the stored log, replaying it, checking every rewind) on a stored match of ``long`` events against one
    of ``short`` events, both made by rewinds with replay. Linear work gives
    a ratio near long/short; refolding the log at every rewind gave 12x."""
    from referee.commands.records import audit_one, export_one
    from referee.store import MatchStore

    url = f"sqlite:///{workdir / 'audit.db'}"
    matches: dict[str, tuple[str, int, int]] = {}
    with MatchStore(url) as store:
        for label, size in (("short", short), ("long", long)):
            log, rewinds = rewound_log(size, seed)
            matches[label] = (store.create(log, name=f"bench: {len(log)} events"), len(log), rewinds)

    def audit(label: str) -> Callable[[int], float]:
        def step(_: int) -> float:
            t0 = time.perf_counter()
            doc, _lines = audit_one(matches[label][0], url)
            seconds = time.perf_counter() - t0
            assert doc["legal"], doc
            return seconds

        return step

    def export(label: str) -> Callable[[int], float]:
        def step(_: int) -> float:
            t0 = time.perf_counter()
            record, _events = export_one(matches[label][0], url)
            seconds = time.perf_counter() - t0
            assert record["actions"]
            return seconds

        return step

    audit_s, audit_l, export_s, export_l = _median_seconds(
        runs, audit("short"), audit("long"), export("short"), export("long")
    )
    n_short, n_long = matches["short"][1], matches["long"][1]
    audit_ratio, export_ratio = audit_l / audit_s, export_l / export_s
    target = f"<= {AUDIT_TARGET:g}"
    figures = [
        Figure(f"audit, {n_short}-event match", audit_s * 1000, "ms", section="audit"),
        Figure(f"audit, {n_long}-event match", audit_l * 1000, "ms", section="audit"),
        Figure("audit (long) / audit (short)", audit_ratio, "x", target, audit_ratio <= AUDIT_TARGET, section="audit"),
        Figure(f"export, {n_short}-event match", export_s * 1000, "ms", section="audit"),
        Figure(f"export, {n_long}-event match", export_l * 1000, "ms", section="audit"),
        Figure(
            "export (long) / export (short)", export_ratio, "x", target, export_ratio <= AUDIT_TARGET, section="audit"
        ),
    ]
    info = {
        "runs": runs,
        "short_match": {"events": n_short, "rewinds": matches["short"][2]},
        "long_match": {"events": n_long, "rewinds": matches["long"][2]},
        "events_ratio": round(n_long / n_short, 3),
    }
    return figures, info


# --- (5) start-up ------------------------------------------------------------------------

VERSION_TARGET = 3.0  # `referee --version` / `python -c "import click"`, at most


def compile_bytecode() -> bool:
    """Compile the referee's modules to bytecode where Python keeps it, as an
    installed package has it (an editable install run with
    PYTHONDONTWRITEBYTECODE would otherwise compile every module at every
    start, and the start-up figures would time the compiler). False if the
    folders are not writable (then nothing changes)."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    try:
        return all(
            compileall.compile_dir(str(root / package), quiet=1, force=False)
            for package in ("events", "projections", "referee")
        )
    except OSError:
        return False


def startup_bench(runs: int = 11) -> tuple[list[Figure], dict[str, Any]]:
    """(5): ``referee --version`` in a fresh process against ``python -c
    "import click"`` with the same interpreter (the least any click program
    pays to start), medians of ``runs`` interleaved runs."""
    referee = referee_command()
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    click_cmd = [sys.executable, "-c", "import click"]
    version_cmd = referee + ["--version"]

    def timed(argv: list[str]) -> Callable[[int], float]:
        def step(_: int) -> float:
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, env=env, check=True)
            return time.perf_counter() - t0

        return step

    compiled = compile_bytecode()
    timed(version_cmd)(0)  # warm the file cache alike for both
    click_s, version_s = _median_seconds(runs, timed(click_cmd), timed(version_cmd))
    ratio = version_s / click_s
    figures = [
        Figure('python -c "import click"', click_s * 1000, "ms", section="startup"),
        Figure("referee --version", version_s * 1000, "ms", section="startup"),
        Figure(
            "--version / import click", ratio, "x", f"<= {VERSION_TARGET:g}", ratio <= VERSION_TARGET, section="startup"
        ),
    ]
    info = {
        "runs": runs,
        "bytecode_compiled": compiled,
        "commands": {"click": shlex.join(click_cmd), "version": shlex.join(version_cmd)},
    }
    return figures, info


def input_bench(
    runs: int = 3,
    short: int = AUDIT_SHORT,
    long: int = AUDIT_LONG,
    startup_runs: int = 11,
    directory: str | None = None,
    seed: int = 1,
    *,
    audit: bool = True,
    startup: bool = True,
) -> BenchReport:
    """The figures of (4) audit and export, and (5) start-up (no self-play:
    ``games`` and ``events`` of the report are 0)."""
    report = BenchReport(0, 0)
    if audit:
        with _scratch(directory) as workdir:
            figures, info = audit_bench(workdir, runs, short, long, seed)
            report.figures += figures
            report.info["audit"] = info
    if startup:
        figures, info = startup_bench(startup_runs)
        report.figures += figures
        report.info["startup"] = info
    return report


# --- the judges' board (referee serve) ----------------------------------------------

BOARD_TARGET = 3.0  # page on the long match / page on the short one, at most
BOARD_MATCH = 5000  # events of the long match the board pages are timed on
LIVE_TARGET = 1.0  # seconds from a station's write to the page hearing of it, at most


def board_bench(
    directory: str | None = None, runs: int = 5, pages: int = 20, min_events: int = BOARD_MATCH, seed: int = 1
) -> BenchReport:
    """The match page of ``referee serve`` at positions spread over a long
    match (at least ``min_events`` events, made with rewinds as ``act_bench``
    makes its match) against the same page on a 50-event match: real HTTP
    requests to the real server (uvicorn in a thread, one keep-alive
    connection), ``pages`` positions per run, the median run reported per page.
    The server reads each match's log once (its first page, timed apart as
    "first page"); every other page is a snapshot load and a short fold.
    Then the live update: from ``MatchStore.act`` on another store to the
    page's event stream announcing the new version (median of ``runs``)."""
    import http.client
    from urllib.parse import urlsplit

    from referee.web.app import Settings, create_app
    from referee.web.server import running

    report = BenchReport(0, 0)
    with _scratch(directory) as workdir:
        url = f"sqlite:///{workdir / 'board.db'}"
        long_id, long_events, rewinds, _ = build_long_match(url, min_events, seed)
        short_id, short_events = build_short_match(url, SHORT_MATCH, seed + 1)
        report.events = long_events + short_events
        app = create_app(Settings(url))
        with running(app) as base:
            address = urlsplit(base)
            # ``running`` serves at an address with a host: never None.
            conn = http.client.HTTPConnection(cast(str, address.hostname), address.port, timeout=30)

            def get(path: str) -> float:
                t0 = time.perf_counter()
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                seconds = time.perf_counter() - t0
                if response.status != 200 or b'class="position"' not in body:
                    raise RuntimeError(f"GET {path} answered {response.status}")
                return seconds

            first_long = get(f"/matches/{long_id}?at=1")
            first_short = get(f"/matches/{short_id}?at=1")
            rng = random.Random(seed)
            long_at = [rng.randrange(1, long_events + 1) for _ in range(pages)]
            short_at = [rng.randrange(1, short_events + 1) for _ in range(pages)]

            def pages_of(match: str, positions: list[int]) -> Callable[[int], float]:
                return lambda _: sum(get(f"/matches/{match}?at={n}&as=judge") for n in positions) / len(positions)

            long_s, short_s = _median_seconds(runs, pages_of(long_id, long_at), pages_of(short_id, short_at))
            live = [
                _live_latency(address.hostname or "127.0.0.1", address.port or 0, url, short_id) for _ in range(runs)
            ]
            conn.close()
    ratio = long_s / short_s
    live_s = statistics.median(live)
    report.figures += [
        Figure(f"match page, {long_events}-event match", long_s * 1000, "ms", section="board"),
        Figure(f"match page, {short_events}-event match", short_s * 1000, "ms", section="board"),
        Figure("long / short", ratio, "x", f"<= {BOARD_TARGET:g}", ratio <= BOARD_TARGET, section="board"),
        Figure("first page of the long match (log read once)", first_long * 1000, "ms", section="board"),
        Figure("first page of the short match", first_short * 1000, "ms", section="board"),
        Figure(
            "live: a station's act to the page's stream",
            live_s * 1000,
            "ms",
            f"<= {LIVE_TARGET * 1000:g}",
            live_s <= LIVE_TARGET,
            section="board",
        ),
    ]
    report.info["board"] = {
        "long_match": {"events": long_events, "rewinds": rewinds},
        "short_match": {"events": short_events},
        "pages": pages,
        "runs": runs,
        "positions": {"long": long_at, "short": short_at},
    }
    return report


def _live_latency(host: str, port: int, url: str, match: str) -> float:
    """Seconds from another station's act to the match page's event stream
    announcing the new version (the stream's first message is the version
    before the act)."""
    import http.client

    rules = reference_game()
    from referee.store import MatchStore

    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("GET", f"/matches/{match}/live", headers={"Accept": "text/event-stream"})
    stream = conn.getresponse()

    def next_version() -> int:
        while True:
            line = stream.fp.readline().decode()
            if not line:
                raise RuntimeError("the live stream ended")
            if line.startswith("data:") and "version" in line:
                return int(json.loads(line[5:])["version"])

    before = next_version()
    with MatchStore(url) as station:
        state, version = station.load(match)
        assert version == before, (version, before)
        action = next(a for a in rules.legal_actions(state) if a.do not in NOT_RANDOM)
        t0 = time.perf_counter()
        station.act(match, action)
    while next_version() <= before:
        pass
    seconds = time.perf_counter() - t0
    conn.close()
    return seconds


# --- (6) PostgreSQL: stations writing at once ----------------------------------------------

PG_STATIONS = 4  # stations of the figure, against one
PG_SCALING_TARGET = 2.0  # (6) four stations on four matches / one station, at least


def pg_station(url: str, rows_file: str, match: str, start_at: float, library_insert: bool) -> None:
    """One station of (6), in its own process: waits for the common start,
    then writes each action's rows of the recorded games as the store writes
    an action (``MatchStore._write``'s recorder call: one transaction per
    action), and prints how many events it wrote and when it finished."""
    import pickle

    from referee.store import MatchStore

    with open(rows_file, "rb") as f:
        batches: list[list[tuple[str, int, str, bytes]]] = pickle.load(f)
    with MatchStore(url, create=False) as store:
        recorder: Any = store.application.recorder
        if library_insert:
            recorder.has_function = False  # the library's own insert: lock held over two round trips
        store.list_matches()  # connected before the start
        time.sleep(max(0.0, start_at - time.time()))
        events = 0
        for rows in batches:
            recorder.insert_rows([(match, v, t, s) for (_, v, t, s) in rows])
            events += len(rows)
        print(json.dumps({"events": events, "end": time.time()}))


def _pg_rows(played: list[_Game], workdir: Path) -> tuple[str, int]:
    """The recorded games as one long match's action batches (positions
    numbered on across games), pickled for the station processes."""
    import pickle

    batches = []
    version = 0
    for rows in _action_rows(played):
        batch = []
        for _, _, topic, state in rows:
            version += 1
            batch.append(("", version, topic, state))
        batches.append(batch)
    path = workdir / "pg-rows.pickle"
    with open(path, "wb") as f:
        pickle.dump(batches, f)
    return str(path), version


def postgres_bench(
    url: str, games: int = 10, seed: int = 1, *, runs: int = 3, directory: str | None = None
) -> BenchReport:
    """(6): the same writes (each action's events of recorded self-play
    games, one transaction per action) by one station process, and by four
    at once on four matches; events per second of all of them together,
    from the common start to the last one done. The library's own insert is
    measured the same way beside it. Runs in a fresh schema of ``url``,
    dropped afterwards."""
    import secrets
    from urllib.parse import urlsplit

    from referee.store import MatchStore, parse_url

    schema = f"referee_bench_{secrets.token_hex(4)}"
    joined = f"{url}{'&' if urlsplit(url).query else '?'}schema={schema}"
    parse_url(joined)  # a bad URL fails here, in one line
    played = _recorded_games(games, seed)
    report = BenchReport(games, sum(len(g.events) for g in played))
    report.info["schema"] = schema  # dropped at the end: a test checks it is gone
    with _scratch(directory) as workdir:
        rows_file, per_station = _pg_rows(played, workdir)
        with MatchStore(joined) as store:  # makes the schema and the tables
            store.list_matches()
        counter = iter(range(1_000_000))

        def stations(n: int, library: bool) -> Callable[[int], float]:
            def step(_: int) -> float:
                start_at = time.time() + 1.5  # every process started and connected by then
                procs = [
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-c",
                            "import sys, bench.figures as b; "
                            "b.pg_station(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5] == '1')",
                            joined,
                            rows_file,
                            f"m-bench-{next(counter)}",
                            repr(start_at),
                            "1" if library else "0",
                        ],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    for _ in range(n)
                ]
                ends = []
                for p in procs:
                    out, err = p.communicate()
                    if p.returncode != 0:
                        raise RuntimeError(f"a bench station failed: {err.strip().splitlines()[-1:]}")
                    doc = json.loads(out)
                    assert doc["events"] == per_station
                    ends.append(doc["end"])
                return max(ends) - start_at

            return step

        try:
            one, four, one_lib, four_lib = _median_seconds(
                runs, stations(1, False), stations(PG_STATIONS, False), stations(1, True), stations(PG_STATIONS, True)
            )
        finally:
            import psycopg
            from psycopg import sql

            with psycopg.connect(autocommit=True, **parse_url(url).connect_kwargs()) as conn:
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    rate = {
        k: n * per_station / s
        for k, n, s in (
            ("one", 1, one),
            ("four", PG_STATIONS, four),
            ("one_lib", 1, one_lib),
            ("four_lib", PG_STATIONS, four_lib),
        )
    }
    ratio = rate["four"] / rate["one"]
    report.figures += [
        Figure("one station writes", rate["one"], "events/s", section="postgres"),
        Figure(f"{PG_STATIONS} stations on {PG_STATIONS} matches write", rate["four"], "events/s", section="postgres"),
        Figure(
            f"{PG_STATIONS} stations / one",
            ratio,
            "x",
            f">= {PG_SCALING_TARGET}",
            ratio >= PG_SCALING_TARGET,
            section="postgres",
        ),
        Figure("library's insert: one station", rate["one_lib"], "events/s", section="postgres"),
        Figure(
            f"library's insert: {PG_STATIONS} stations / one",
            rate["four_lib"] / rate["one_lib"],
            "x",
            section="postgres",
        ),
        Figure("one station: ours / library's insert", rate["one"] / rate["one_lib"], "x", section="postgres"),
    ]
    report.info["postgres"] = {
        "url": parse_url(url).display,
        "stations": PG_STATIONS,
        "events_per_station": per_station,
        "actions_per_station": sum(len(g.actions) + 1 for g in played),
        "runs": runs,
        "seconds": {
            k: round(v, 4) for k, v in (("one", one), ("four", four), ("one_lib", one_lib), ("four_lib", four_lib))
        },
        "cpus": os.cpu_count(),
    }
    return report
