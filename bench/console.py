"""Benchmarks of the board's console (``referee bench --console``), each a
ratio against a baseline of the same run, never a timed test.

7. **One logged decision at the board / ``referee act``.** On a match of at
   least 2,000 events (made with rewinds, as figure (3) makes its match):
   the POST of one legal line of the console, over real HTTP to the real
   server (uvicorn in a thread, a keep-alive connection, the session's
   cookie and CSRF token), from the request to the last byte of the answer,
   which is the new board (the decision stored in the same transaction as
   always, the page's next board rendered). Median and 95th percentile of
   ``posts`` decisions, against the median of ``referee act`` on the same
   match in fresh processes (each on its own copy of the file). Target: the
   95th percentile at most a quarter of act's median.
8. **Many tables at once on PostgreSQL.** ``tables`` matches in a fresh
   schema, ``referee serve`` as real processes (one, then two on the same
   store: a client keeps to one of them, as behind a load balancer with
   sticky sessions), a scripted client per table (a thread: its own
   session, one legal line every ``interval`` seconds, the next at once if
   the answer took longer) for ``seconds``: decisions per second held (all
   clients together), the 95th percentile of the answers, and errors (any
   answer but a logged board). Two servers against one: the figure should
   not fall.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import secrets
import shlex
import shutil
import socket
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import urlencode, urlsplit

from bench.figures import (
    LONG_MATCH,
    BenchReport,
    Figure,
    _act_arguments,
    _scratch,
    build_long_match,
    bundled_pool,
    referee_command,
    reference_game,
)

CONSOLE_TARGET = 0.25  # p95 of a logged decision at the board / act's median, at most
TABLES = 50
INTERVAL = 0.2  # seconds between one client's decisions
LOAD_SECONDS = 20.0
NOT_CHOSEN = ("concede", "propose_draw", "accept_draw")
HEADERS = {"X-Requested-With": "referee-console", "Content-Type": "application/x-www-form-urlencoded"}


def percentile(values: list[float], p: float) -> float:
    """The ``p`` percentile (0-100), nearest rank."""
    import math

    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[k]


class Client:
    """One device at a table: a keep-alive connection, the session cookie,
    and the console's fields from the last board it was shown."""

    def __init__(self, host: str, port: int, match: str) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.match = match
        self.cookie = ""
        self.fields: dict[str, str] = {}
        self.lines: list[str] = []
        self.undo: str | None = None  # the entry the board offers to take back

    def _send(
        self, method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        hdrs = dict(headers or {})
        if self.cookie:
            hdrs["Cookie"] = self.cookie
        self.conn.request(method, path, body=body, headers=hdrs)
        response = self.conn.getresponse()
        text = response.read().decode()
        cookie = response.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, text

    def _read_board(self, html: str) -> None:
        form = html[html.index("data-console") :] if "data-console" in html else ""
        found = dict(re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', form))
        found.pop("undo", None)  # the undo control's own field
        self.fields.update({k: unescape(v) for k, v in found.items()})
        self.lines = [unescape(x) for x in re.findall(r'data-action="([^"]*)"', html)]
        undo = re.search(r'action="/matches/[^"]+/undo".*?name="undo" value="([^"]*)"', html, re.S)
        self.undo = unescape(undo.group(1)) if undo else None

    def open(self) -> None:
        status, html = self._send("GET", f"/matches/{self.match}")
        if status != 200:
            raise RuntimeError(f"GET /matches/{self.match} answered {status}")
        self._read_board(html)

    def _timed(self, path: str, fields: dict[str, str]) -> tuple[int, float, str]:
        """POST the board's fields and ``fields`` to ``path``, timed from the request to the last byte."""
        body = urlencode({**self.fields, **fields})
        t0 = time.perf_counter()
        status, html = self._send("POST", f"/matches/{self.match}/{path}", body, HEADERS)
        seconds = time.perf_counter() - t0
        if 'class="position"' in html:
            self._read_board(html)
        return status, seconds, html

    def post(self, line: str) -> tuple[int, float, str]:
        return self._timed("act", {"line": line})

    def take_back(self) -> tuple[int, float, str]:
        """The undo of this device's last entry (spec: console.md, 10), timed as a decision is."""
        if not self.undo:
            raise RuntimeError("the board offered no undo after a logged decision")
        return self._timed("undo", {"undo": self.undo})

    def close(self) -> None:
        self.conn.close()


def _legal_line(url: str, match: str, offered: list[str]) -> str | None:
    """A line the board offers that does not end the game (the engine says
    which: ``_act_arguments`` picks the first such of a shuffled list)."""
    from referee.store import MatchStore

    game = reference_game()
    with MatchStore(url, read_only=True) as store:
        state = store.load(match)[0]
    described = [game.describe_action(state, a) for a in game.legal_actions(state)]
    random.Random(len(offered)).shuffle(described)
    argv = _act_arguments(state, described)
    wanted = [d for d in described if d["do"] == argv[1]]
    for d in wanted:
        line = game.list_actions([d])[0][0]
        if line in offered:
            return line
    return next((x for x in offered if x.split()[1] not in NOT_CHOSEN), None)


def decision_bench(
    directory: str | None = None, *, posts: int = 40, act_runs: int = 7, min_events: int = LONG_MATCH, seed: int = 1
) -> BenchReport:
    """(7): a logged decision at the board against ``referee act``."""
    from referee.web.app import Settings, create_app
    from referee.web.server import running

    report = BenchReport(0, 0)
    with _scratch(directory) as workdir:
        db = workdir / "console.db"
        url = f"sqlite:///{db}"
        match, events, rewinds, _ = build_long_match(url, min_events, seed)
        report.events = events
        referee = referee_command()
        env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}

        # The baseline: `referee act` on the same match, fresh processes, own copies.
        legal = subprocess.run(
            referee + ["legal", match, "--json", "--db", url], capture_output=True, text=True, env=env, check=True
        )
        from referee.store import MatchStore

        with MatchStore(url, read_only=True) as store:
            state = store.load(match)[0]
        argv = _act_arguments(state, json.loads(legal.stdout)["actions"])
        act_times = []
        for i in range(act_runs):
            copy = workdir / f"act-{i}.db"
            shutil.copyfile(db, copy)
            t0 = time.perf_counter()
            done = subprocess.run(
                referee + ["act", match, *argv, "--db", f"sqlite:///{copy}"], capture_output=True, text=True, env=env
            )
            act_times.append(time.perf_counter() - t0)
            if done.returncode != 0:
                raise RuntimeError(f"referee act failed: {done.stderr.strip()}")
            copy.unlink()
        act_s = statistics.median(act_times)

        # The board: one decision after another, each chosen before its POST is
        # timed; every fifth is taken back with the undo (timed too) and
        # logged again. Every answer is the new board with its undo control,
        # and every entry is stored with who made it (the attribution).
        times: list[float] = []
        undos: list[float] = []
        app = create_app(Settings(url))
        with running(app) as base:
            address = urlsplit(base)
            client = Client(address.hostname or "127.0.0.1", address.port or 0, match)
            client.open()
            for _ in range(posts):
                try:
                    line = _legal_line(url, match, client.lines)
                except RuntimeError:
                    break  # every action left would end the game: enough decisions timed
                if line is None:
                    break
                status, seconds, html = client.post(line)
                if status != 200 or "data-logged" not in html:
                    raise RuntimeError(f"POST {line!r} answered {status}")
                times.append(seconds)
                if len(times) % 5 == 0:
                    status, seconds, html = client.take_back()
                    if status != 200 or "data-taken-back" not in html:
                        raise RuntimeError(f"the undo of {line!r} answered {status}")
                    undos.append(seconds)
            client.close()
        with MatchStore(url, read_only=True) as store:
            final = store.load(match)[1]
    if len(times) < 3:
        raise RuntimeError(f"only {len(times)} decisions could be logged on the bench match")
    median, p95 = statistics.median(times), percentile(times, 95)
    ratio = p95 / act_s
    report.figures += [
        Figure(f"referee act, {events}-event match", act_s * 1000, "ms", section="console"),
        Figure("board: a logged decision, median", median * 1000, "ms", section="console"),
        Figure("board: a logged decision, 95th percentile", p95 * 1000, "ms", section="console"),
        Figure(
            "board p95 / act median", ratio, "x", f"<= {CONSOLE_TARGET:g}", ratio <= CONSOLE_TARGET, section="console"
        ),
        Figure("board median / act median", median / act_s, "x", section="console"),
    ]
    if undos:
        report.figures.append(
            Figure("board: an undo, median", statistics.median(undos) * 1000, "ms", section="console")
        )
        report.figures.append(
            Figure(
                "board: an undo, max / act median",
                max(undos) / act_s,
                "x",
                f"<= {CONSOLE_TARGET:g}",
                max(undos) / act_s <= CONSOLE_TARGET,
                section="console",
            )
        )
    report.info["console"] = {
        "match": {"events": events, "rewinds": rewinds, "after": final},
        "posts": len(times),
        "undos": len(undos),
        "act_runs": act_runs,
        "act": shlex.join(["referee", "act", match, *argv]),
    }
    return report


# --- (8) many tables at once -----------------------------------------------------------------


@dataclass
class Load:
    decisions: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    finished: int = 0  # tables whose game ended during the run
    lock: threading.Lock = field(default_factory=threading.Lock)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_servers(url: str, count: int, env: dict[str, str]) -> tuple[list[subprocess.Popen[str]], list[int]]:
    procs, ports = [], []
    for _ in range(count):
        port = _free_port()
        proc = subprocess.Popen(
            [*referee_command(), "serve", "--db", url, "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = proc.stdout.readline() if proc.stdout else ""
        if "is at" not in line:
            proc.kill()
            raise RuntimeError(
                f"referee serve did not start: {line.strip()} {proc.stderr.read() if proc.stderr else ''}"
            )
        procs.append(proc)
        ports.append(port)
    return procs, ports


def _table_client(url: str, port: int, match: str, until: float, load: Load, interval: float, seed: int) -> None:
    rng = random.Random(seed)
    client = Client("127.0.0.1", port, match)
    try:
        try:
            client.open()
        except (OSError, RuntimeError, http.client.HTTPException) as exc:
            with load.lock:
                load.errors.append(f"{match}: opening the page: {type(exc).__name__}: {exc}")
            return
        next_at = time.perf_counter()
        while time.perf_counter() < until:
            wait = next_at - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            next_at += interval
            usable = [x for x in client.lines if x.split()[1] not in NOT_CHOSEN]
            if not usable:
                with load.lock:
                    load.finished += 1
                return  # the game is over
            keen = [x for x in usable if x.split()[1] in ("attack", "play_character")]
            line = rng.choice(keen) if keen and rng.random() < 0.7 else rng.choice(usable)
            try:
                status, seconds, html = client.post(line)
            except (OSError, http.client.HTTPException) as exc:
                with load.lock:
                    load.errors.append(f"{match}: {type(exc).__name__}: {exc}")
                client.close()
                client = Client("127.0.0.1", port, match)
                client.open()
                continue
            with load.lock:
                load.latencies.append(seconds)
                if status == 200 and "data-logged" in html:
                    load.decisions += 1
                else:
                    load.errors.append(f"{match}: {status} for {line!r}")
    finally:
        client.close()


def _tables(url: str, count: int, seed: int) -> list[str]:
    from referee.simulate import decks_for, game_seeds, vanilla
    from referee.store import MatchStore

    game = reference_game()
    pool = vanilla(bundled_pool())
    out = []
    with MatchStore(url) as store:
        for game_seed in game_seeds(count, seed):
            decks = decks_for(game_seed, pool, None)
            out.append(store.create(game.start(decks, seed=game_seed).events, name="bench: a table"))
    return out


def load_bench(
    pg_url: str, *, tables: int = TABLES, interval: float = INTERVAL, seconds: float = LOAD_SECONDS, seed: int = 1
) -> BenchReport:
    """(8): ``tables`` scripted clients through one server, then two, on PostgreSQL."""
    from referee.store import parse_url

    schema = f"referee_bench_{secrets.token_hex(4)}"
    url = f"{pg_url}{'&' if urlsplit(pg_url).query else '?'}schema={schema}"
    parse_url(url)
    report = BenchReport(tables, 0)
    env = {k: v for k, v in os.environ.items() if k not in ("REFEREE_DB", "REFEREE_JUDGE_PASSWORD")}
    env["REFEREE_SESSION_KEY"] = secrets.token_hex(16)  # the servers share sessions, as a venue's would
    results: dict[int, tuple[Load, float]] = {}
    try:
        for servers in (1, 2):
            matches = _tables(url, tables, seed + servers)
            procs, ports = _start_servers(url, servers, env)
            try:
                load = Load()
                start = time.perf_counter()
                until = start + seconds
                threads = [
                    threading.Thread(
                        target=_table_client,
                        daemon=True,
                        args=(url, ports[i % servers], m, until, load, interval, seed + i),
                    )
                    for i, m in enumerate(matches)
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(seconds + 120)
                elapsed = time.perf_counter() - start
                results[servers] = (load, elapsed)
            finally:
                for p in procs:
                    p.terminate()
                for p in procs:
                    try:
                        p.wait(15)
                    except subprocess.TimeoutExpired:
                        p.kill()
    finally:
        import psycopg
        from psycopg import sql

        with psycopg.connect(autocommit=True, **parse_url(pg_url).connect_kwargs()) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    offered = tables / interval
    rates = {}
    for servers, (load, elapsed) in results.items():
        rate = load.decisions / elapsed
        rates[servers] = rate
        p95 = percentile(load.latencies, 95) if load.latencies else float("nan")
        name = "one server" if servers == 1 else "two servers"
        report.figures += [
            Figure(f"{name}: decisions/s held (of {offered:g} offered)", rate, "1/s", section="load"),
            Figure(f"{name}: 95th percentile of the answers", p95 * 1000, "ms", section="load"),
            Figure(f"{name}: errors", len(load.errors), "", "0", not load.errors, section="load"),
        ]
    ratio = rates[2] / rates[1] if rates.get(1) else float("nan")
    report.figures.append(
        Figure("two servers / one", ratio, "x", ">= 1 (should not fall)", ratio >= 0.95, section="load")
    )
    report.info["load"] = {
        "url": parse_url(pg_url).display,
        "tables": tables,
        "interval": interval,
        "seconds": seconds,
        "cpus": os.cpu_count(),
        "runs": {
            str(s): {
                "decisions": load.decisions,
                "elapsed": round(e, 2),
                "finished_games": load.finished,
                "errors": load.errors[:10],
            }
            for s, (load, e) in results.items()
        },
    }
    return report
