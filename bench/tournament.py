"""Benchmarks of a tournament (issue 16), each a ratio against a baseline measured in the same run: the board's event page and first page with 1,000 stored tables against 10, and registering 128 players from a CSV against 8.

Run by ``referee bench`` (its ``event`` section); the tests only run it on
tiny sizes, never timing anything.

Pages. Two stores are built the way an event day builds them, through the
same service code the ``referee event`` commands run: an event of 250
players whose 8 Swiss rounds make 1,000 tables (125 a round, as a
256-player day does; every round but the last finished by results a judge
entered, the last one being played), and an event of 10 players whose 2
rounds make 10 tables. Each ends as every command that writes ends: its
read models caught up (``Station.keep_current``). Then ``referee serve``'s
application runs on each (uvicorn in a thread, real HTTP on one kept-alive
connection) and the event page and the first page (the tables page) are
asked for, runs interleaved, the median of each reported. The first request
of each page on a fresh server (it reads the read models' tables once) is
reported apart, untargeted, as the board figures report a match's first
page.

Registration. ``referee event register EVENT --csv FILE`` in fresh
processes, each on its own copy of a database holding the new event (made
by ``referee event new``): 128 players with a deck file each (random legal
decks of the bundled pool, 100.2), against 8. Both include starting the
program, reading and checking every deck, the one write, and catching the
read models up; the per-player cost is shown too.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, cast

from bench.figures import BenchReport, Figure, _median_seconds, _scratch, referee_command

PAGE_TARGET = 3.0  # a page with 1,000 tables / the same page with 10, at most
REGISTER_TARGET = 4.0  # registering 128 players from a CSV / registering 8, at most
TABLES = 1000  # stored tables of the large event
SMALL_TABLES = 10  # ... and of the small one
REGISTER_MANY = 128
REGISTER_FEW = 8


def event_shape(tables: int) -> tuple[int, int]:
    """(players, Swiss rounds) of an event with ``tables`` stored tables: 8
    rounds when there are players enough for them (1,000 tables: 250
    players, 125 tables a round), else 2 (10 tables: 10 players, 5 a round)."""
    if tables % 8 == 0 and tables >= 8 * 16:
        rounds = 8
    elif tables % 2 == 0:
        rounds = 2
    else:
        raise ValueError(f"an event of {tables} tables: use an even number (a multiple of 8 from 128)")
    return 2 * tables // rounds, rounds


def build_event(url: str, tables: int, seed: int = 1) -> dict[str, Any]:
    """A stored event of ``tables`` tables (``event_shape``): registered
    from one list, each round paired by ``pair_round`` (Swiss) with its
    matches created, every round but the last ended by results a judge
    entered (``corrections.enter_result``, as ``event result`` writes them),
    and the read models left current as every command leaves them."""
    from referee import corrections
    from referee.simulate import complete_ruleset
    from referee.store import MatchStore
    from referee.tournament.service import Station, pair_round, register_many

    players, rounds = event_shape(tables)
    rng = random.Random(seed)
    rules = complete_ruleset()  # Harem Master, the reference game
    pool = rules.need("decks").bundled_cards()
    decks = [
        rules.need("decks").random_deck(rng, pool) for _ in range(min(players, 16))
    ]  # legal (100.2) decks of the bundled pool
    with MatchStore(url, create=True) as store:
        station = Station(store)
        try:
            tid = station.tournaments.create(f"bench: {tables} tables", best_of=1, round_minutes=50)
            register_many(station, tid, [(f"Player {i:04d}", decks[i % len(decks)]) for i in range(players)], None)
            stored = 0
            for r in range(1, rounds + 1):
                paired, _ = pair_round(station, tid)
                stored += sum(1 for p in paired.pairings if p.match)
                if r == rounds:
                    break  # the last round is being played
                for p in paired.pairings:
                    if p.match is None:
                        continue
                    seat = rng.choice(list(store.ruleset(p.match).seats))
                    store.update(
                        p.match,
                        lambda s, seat=seat: corrections.enter_result(  # type: ignore[misc]  # default argument
                            s, seat, False, "Bench Judge", "Result entered by Bench Judge."
                        ),
                    )
            station.keep_current()
        finally:
            station.close()
    if stored != tables:
        raise RuntimeError(f"the bench event stored {stored} tables, not {tables}")
    return {"event": tid, "players": players, "rounds": rounds, "tables": stored}


def pages_bench(
    directory: str | None = None,
    runs: int = 5,
    tables: int = TABLES,
    small: int = SMALL_TABLES,
    seed: int = 1,
    requests: int = 5,
) -> tuple[list[Figure], dict[str, Any]]:
    """The event page and the first page with ``tables`` stored tables
    against ``small``: ``requests`` requests of each per run, median run."""
    import http.client
    from urllib.parse import urlsplit

    from referee.web.app import Settings, create_app
    from referee.web.server import running

    with _scratch(directory) as workdir:
        built = {}
        for label, n in (("large", tables), ("small", small)):
            url = f"sqlite:///{workdir / f'{label}.db'}"
            built[label] = {**build_event(url, n, seed), "url": url}
        apps = {label: create_app(Settings(b["url"])) for label, b in built.items()}
        with running(apps["large"]) as large_base, running(apps["small"]) as small_base:
            conns = {}
            for label, base in (("large", large_base), ("small", small_base)):
                address = urlsplit(base)
                host = cast(str, address.hostname)  # running() gives http://host:port
                conns[label] = http.client.HTTPConnection(host, address.port, timeout=60)

            def get(label: str, path: str, must: str) -> float:
                conn = conns[label]
                t0 = time.perf_counter()
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                seconds = time.perf_counter() - t0
                if response.status != 200 or must.encode() not in body:
                    raise RuntimeError(f"GET {path} answered {response.status} without {must!r}")
                return seconds

            pages = {
                "event": lambda b: (f"/events/{b['event']}", 'class="standings"'),
                "first": lambda b: ("/", 'class="tables"'),
            }
            first = {(page, label): get(label, *how(built[label])) for page, how in pages.items() for label in built}

            def timed(page: str, label: str) -> Callable[[int], float]:
                path, must = pages[page](built[label])
                return lambda _: sum(get(label, path, must) for _ in range(requests)) / requests

            steps = [timed(page, label) for page in pages for label in ("large", "small")]
            medians = _median_seconds(runs, *steps)
            for conn in conns.values():
                conn.close()
    seconds = dict(zip([(page, label) for page in pages for label in ("large", "small")], medians))
    figures: list[Figure] = []
    names = {"event": "event page", "first": "first page"}
    for page in pages:
        large_s, small_s = seconds[(page, "large")], seconds[(page, "small")]
        ratio = large_s / small_s
        figures += [
            Figure(f"{names[page]}, {tables} tables", large_s * 1000, "ms", section="pages"),
            Figure(f"{names[page]}, {small} tables", small_s * 1000, "ms", section="pages"),
            Figure(
                f"{names[page]}: {tables} / {small}",
                ratio,
                "x",
                f"<= {PAGE_TARGET:g}",
                ratio <= PAGE_TARGET,
                section="pages",
            ),
        ]
    for page in pages:
        for label, n in (("large", tables), ("small", small)):
            figures.append(
                Figure(f"{names[page]} at server start, {n} tables", first[(page, label)] * 1000, "ms", section="pages")
            )
    info = {
        "events": {label: {k: v for k, v in b.items() if k != "url"} for label, b in built.items()},
        "runs": runs,
        "requests": requests,
    }
    return figures, info


def _deck_file(path: Path, deck: list[Any]) -> None:
    """A deck file (the format ``referee.rules.harem_master.decks`` reads): one line per name and count."""
    counts: dict[str, int] = {}
    for card in deck:
        counts[card.name] = counts.get(card.name, 0) + 1
    path.write_text("".join(f"- {{card: {json.dumps(name)}, count: {n}}}\n" for name, n in counts.items()))


def register_bench(
    directory: str | None = None, runs: int = 5, many: int = REGISTER_MANY, few: int = REGISTER_FEW, seed: int = 1
) -> tuple[list[Figure], dict[str, Any]]:
    """``referee event register EVENT --csv FILE``: ``many`` players against ``few``, fresh processes."""
    from referee.simulate import complete_ruleset

    referee = referee_command()
    env = dict(os.environ)
    env.pop("REFEREE_DB", None)  # every command names its --db
    commands: dict[str, str] = {}
    with _scratch(directory) as workdir:
        template = workdir / "event.db"
        made = subprocess.run(
            referee + ["event", "new", "bench: registration", "--json", "--db", f"sqlite:///{template}"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if made.returncode != 0:
            raise RuntimeError(f"referee event new failed: {made.stderr.strip()}")
        event = json.loads(made.stdout)["event"]
        with sqlite3.connect(template) as conn:  # everything in the main file: the copies are whole
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rng = random.Random(seed)
        rules = complete_ruleset()  # Harem Master, the reference game
        pool = rules.need("decks").bundled_cards()
        (workdir / "decks").mkdir()
        for i in range(many):
            _deck_file(workdir / "decks" / f"player{i:03d}.yaml", rules.need("decks").random_deck(rng, pool))
        lists = {}
        for label, n in (("many", many), ("few", few)):
            lists[label] = workdir / f"players-{n}.csv"
            lists[label].write_text(
                "name,deck\n" + "".join(f"Player {i:03d},decks/player{i:03d}.yaml\n" for i in range(n))
            )

        def register(label: str, n: int) -> Callable[[int], float]:
            def step(i: int) -> float:
                copy = workdir / f"register-{label}-{i}.db"
                shutil.copyfile(template, copy)
                argv = referee + [
                    "event",
                    "register",
                    event,
                    "--csv",
                    str(lists[label]),
                    "--json",
                    "--db",
                    f"sqlite:///{copy}",
                ]
                commands[label] = shlex.join(argv)
                t0 = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
                seconds = time.perf_counter() - t0
                if done.returncode != 0:
                    raise RuntimeError(f"{commands[label]} failed ({done.returncode}): {done.stderr.strip()}")
                if json.loads(done.stdout)["players"] != n:  # it really registered them all
                    raise RuntimeError(f"{commands[label]} did not register {n} players: {done.stdout}")
                copy.unlink()
                return seconds

            return step

        subprocess.run(referee + ["--version"], capture_output=True, env=env, check=False)  # warm the file cache
        many_s, few_s = _median_seconds(runs, register("many", many), register("few", few))
    ratio = many_s / few_s
    figures = [
        Figure(f"register {many} players from a CSV", many_s * 1000, "ms", section="register"),
        Figure(f"register {few} players from a CSV", few_s * 1000, "ms", section="register"),
        Figure(
            f"{many} / {few} players",
            ratio,
            "x",
            f"<= {REGISTER_TARGET:g}",
            ratio <= REGISTER_TARGET,
            section="register",
        ),
        Figure(f"each player beyond {few}", (many_s - few_s) / (many - few) * 1000, "ms", section="register"),
    ]
    return figures, {"runs": runs, "players": {"many": many, "few": few}, "commands": commands}


def event_bench(
    directory: str | None = None,
    runs: int = 5,
    *,
    tables: int = TABLES,
    small: int = SMALL_TABLES,
    many: int = REGISTER_MANY,
    few: int = REGISTER_FEW,
    seed: int = 1,
) -> BenchReport:
    """Both tournament figures: the pages, then registration."""
    report = BenchReport(0, 0)
    figures, info = pages_bench(directory, runs, tables, small, seed)
    report.figures += figures
    report.info["pages"] = info
    figures, info = register_bench(directory, runs, many, few, seed)
    report.figures += figures
    report.info["register"] = info
    return report


# --- an event day under load (issue 28) ------------------------------------------------------------

LOAD_TARGET = 3.0  # an organiser command's 95th percentile under load / on an idle store, at most
LOAD_PLAYERS = 80  # the organiser's event: 40 tables (a result and a time call each, idle and loaded)
LOAD_PLAYED = 32  # the event the stations and `simulate --event` play: 16 tables, best of three
LOAD_SAMPLES = 10  # each organiser command, per phase
POLL_EVERY = 1.0  # seconds between two polls of the event page's fragment and of the clock


def _nearest_rank(values: list[float], p: float) -> float:
    import math

    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _load_events(url: str, organised: int, played: int, seed: int) -> dict[str, Any]:
    """Two events in one fresh PostgreSQL schema, made through the service
    code the commands run: the organiser's (``organised`` players, best of
    three, round 1 paired, 50-minute rounds: nobody plays it, its tables are
    for the organiser's commands) and the one the stations and `simulate
    --event` play (``played`` players, best of three, round 1 paired)."""
    from referee.simulate import complete_ruleset
    from referee.store import MatchStore
    from referee.tournament.service import Station, pair_round, register_many

    rng = random.Random(seed)
    rules = complete_ruleset()
    pool = rules.need("decks").bundled_cards()
    decks = [rules.need("decks").random_deck(rng, pool) for _ in range(8)]
    out: dict[str, Any] = {}
    with MatchStore(url, create=True) as store:
        station = Station(store)
        try:
            for label, n in (("organised", organised), ("played", played)):
                tid = station.tournaments.create(f"bench: {label}", best_of=3, round_minutes=50)
                register_many(station, tid, [(f"{label} {i:03d}", decks[i % len(decks)]) for i in range(n)], None)
                paired, _ = pair_round(station, tid)
                out[label] = {"event": tid, "tables": [p.table for p in paired.pairings if p.B is not None]}
                out[label]["pairings"] = {p.table: (p.A, p.B) for p in paired.pairings if p.B is not None}
            station.keep_current()
        finally:
            station.close()
    return out


def console_station(
    url: str, port: int, tid: str, tables: list[int], stop: Any, tally: dict[str, int], seed: int
) -> None:
    """A judge station logging without pause through the board's console
    (``load_bench`` runs two, each a thread with a connection of its own):
    it opens the game being played at one of its tables, posts one of the
    decisions the board offers after another (never a concession or a
    draw), moves to another table's game now and then and when a game ends
    (creating the next game of the match, as a station does with `event
    next`), and pairs the next round when the round is over, until
    ``stop`` is set. The server does the work, as at a venue where the
    stations are the judges' phones."""
    from bench.console import NOT_CHOSEN, Client
    from referee.store import MatchStore
    from referee.tournament.service import Station, current_game, pair_round
    from referee.tournament.store import Refused

    rng = random.Random(seed)
    with MatchStore(url) as store:
        station = Station(store)
        try:
            while not stop.is_set():
                state = station.tournaments.load(tid)
                station.catch_up()
                r = state.rounds[-1]
                due = [current_game(station, state, p, r.round) for p in r.pairings if p.table in tables]
                games = [g for g in due if g is not None]
                if not games:
                    try:
                        pair_round(station, tid, expected=r.round + 1)
                    except Refused:
                        stop.wait(0.2)  # the other station's tables are still being played
                    continue
                client = Client("127.0.0.1", port, rng.choice(games))
                try:
                    client.open()
                    for _ in range(25):
                        usable = [x for x in client.lines if x.split()[1] not in NOT_CHOSEN]
                        if stop.is_set() or not usable:
                            break
                        status, _, _ = client.post(rng.choice(usable))
                        tally["posts"] = tally.get("posts", 0) + 1
                        if status != 200:
                            tally["not logged"] = tally.get("not logged", 0) + 1  # stale: the other logger moved
                            client.open()
                except (OSError, RuntimeError) as exc:
                    tally["errors"] = tally.get("errors", 0) + 1
                    tally.setdefault("error", str(exc)[:200])  # type: ignore[arg-type]
                finally:
                    client.close()
        finally:
            station.close()


def load_bench(
    pg_url: str, *, samples: int = LOAD_SAMPLES, organised: int = LOAD_PLAYERS, played: int = LOAD_PLAYED, seed: int = 1
) -> BenchReport:
    """Organiser commands on an idle store, then while two stations log
    without pause through the board's console (``console_station``) and
    one `simulate --event` plays (on PostgreSQL, a fresh schema dropped
    afterwards), with the same board server's event page and clock polled
    every second throughout: each command's 95th percentile under load
    against idle, and the failed polls (the pages a busy server must not
    call "store not answering")."""
    import http.client
    import secrets
    import threading
    from urllib.parse import urlsplit

    from referee.store import parse_url

    schema = f"referee_bench_{secrets.token_hex(4)}"
    url = f"{pg_url}{'&' if urlsplit(pg_url).query else '?'}schema={schema}"
    parse_url(url)
    referee = referee_command()
    env = {k: v for k, v in os.environ.items() if k not in ("REFEREE_DB", "REFEREE_JUDGE_PASSWORD")}
    timings: dict[str, dict[str, list[float]]] = {"idle": {}, "loaded": {}}
    polls: dict[str, dict[str, int]] = {phase: {"ok": 0, "failed": 0} for phase in ("idle", "loaded")}
    failures: list[str] = []
    commands: dict[str, str] = {}
    report = BenchReport(0, 0)
    procs: list[subprocess.Popen[str]] = []
    try:
        built = _load_events(url, organised, played, seed)
        organiser = built["organised"]
        tid = organiser["event"]
        free = list(organiser["tables"])
        port = _free_port()
        server = subprocess.Popen(
            [*referee, "serve", "--db", url, "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(server)
        line = server.stdout.readline() if server.stdout else ""
        if "is at" not in line:
            raise RuntimeError(f"referee serve did not start: {line.strip()}")
        phase = ["idle"]
        stop = threading.Event()
        stop_load = threading.Event()

        def poller() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            paths = [f"/events/{tid}/tables", f"/events/{tid}/clock"]
            while not stop.is_set():
                for path in paths:
                    try:
                        conn.request("GET", path, headers={"X-Requested-With": "referee-console"})
                        response = conn.getresponse()
                        response.read()
                        ok = response.status == 200
                        if not ok:
                            failures.append(f"{phase[0]}: GET {path}: {response.status}")
                    except (OSError, http.client.HTTPException) as exc:
                        ok = False
                        failures.append(f"{phase[0]}: GET {path}: {type(exc).__name__}")
                        conn.close()
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    polls[phase[0]]["ok" if ok else "failed"] += 1
                stop.wait(POLL_EVERY)
            conn.close()

        polling = threading.Thread(target=poller, daemon=True)
        polling.start()

        def organise(label: str) -> None:
            """``samples`` of each organiser command, interleaved, each a fresh process on a table of its own."""
            for i in range(samples):
                result_table = free.pop(0)
                time_table = free.pop(0)
                a, _ = organiser["pairings"][result_table]
                steps = {
                    "event result": [
                        "event", "result", tid, str(result_table), "--game", "1", "--winner", a, "--judge", "Bench Judge",
                    ],
                    "event time": ["event", "time", tid, "--table", str(time_table), "--judge", "Bench Judge"],
                    "event standings": ["event", "standings", tid],
                }  # fmt: skip
                for name, args in steps.items():
                    argv = [*referee, *args, "--db", url]
                    commands[name] = shlex.join([*referee, *args, "--db", parse_url(url).display])
                    t0 = time.perf_counter()
                    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
                    seconds = time.perf_counter() - t0
                    if done.returncode != 0:
                        raise RuntimeError(f"{commands[name]} failed ({done.returncode}): {done.stderr.strip()}")
                    timings[label].setdefault(name, []).append(seconds)

        subprocess.run(referee + ["--version"], capture_output=True, env=env, check=False)  # warm the file cache
        time.sleep(2 * POLL_EVERY)
        organise("idle")
        # The load: two stations logging without pause, and `simulate --event` playing the other event.
        phase[0] = "loaded"
        played_event = built["played"]
        tables = played_event["tables"]
        halves = [tables[: len(tables) // 2], tables[len(tables) // 2 :]]
        tally: dict[str, int] = {}
        stations = [
            threading.Thread(
                target=console_station,
                args=(url, port, played_event["event"], mine, stop_load, tally, seed + i),
                daemon=True,
            )
            for i, mine in enumerate(halves)
        ]
        for t in stations:
            t.start()
        simulations = [0]

        def simulate() -> None:
            """`simulate --event` playing the round, started again whenever it has played it out."""
            while not stop_load.is_set():
                proc = subprocess.Popen(
                    [*referee, "simulate", "--event", played_event["event"], "--seed", str(seed), "--db", url],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                simulations[0] += 1
                while proc.poll() is None and not stop_load.is_set():
                    stop_load.wait(0.5)
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(15)
                stop_load.wait(0.5)

        simulating = threading.Thread(target=simulate, daemon=True)
        simulating.start()
        time.sleep(3)  # the load under way
        organise("loaded")
        stations_alive = sum(1 for t in stations if t.is_alive())
        stop.set()
        polling.join(120)
        stop_load.set()
        for t in stations:
            t.join(120)
        simulating.join(120)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        import psycopg
        from psycopg import sql

        with psycopg.connect(autocommit=True, **parse_url(pg_url).connect_kwargs()) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    for name in ("event result", "event time", "event standings"):
        idle, loaded = timings["idle"][name], timings["loaded"][name]
        idle95, loaded95 = _nearest_rank(idle, 95), _nearest_rank(loaded, 95)
        ratio = loaded95 / idle95
        report.figures += [
            Figure(f"{name}: idle, p95", idle95 * 1000, "ms", section="load"),
            Figure(f"{name}: loaded, p95", loaded95 * 1000, "ms", section="load"),
            Figure(
                f"{name}: loaded / idle p95", ratio, "x", f"<= {LOAD_TARGET:g}", ratio <= LOAD_TARGET, section="load"
            ),
        ]
    failed = polls["idle"]["failed"] + polls["loaded"]["failed"]
    report.figures.append(
        Figure("failed polls of the event page and the clock", failed, "", "0", failed == 0, section="load")
    )
    report.info["load"] = {
        "url": parse_url(pg_url).display,
        "samples": samples,
        "events": {k: {"event": v["event"], "tables": len(v["tables"])} for k, v in built.items()},
        "polls": polls,
        "failures": failures[:20],
        "schema": schema,  # dropped at the end
        "stations_logging_at_the_end": stations_alive,
        "station_posts": tally,
        "simulate_runs": simulations[0],
        "medians_ms": {
            phase: {name: round(statistics.median(v) * 1000, 1) for name, v in timings[phase].items()}
            for phase in timings
        },
        "commands": commands,
        "cpus": os.cpu_count(),
    }
    return report
