"""Faults at a venue, as real processes meet them: a stopped PostgreSQL server, connections
cut in the middle of writes, a full disk, a station killed while it writes, and an action
racing a judge's rewind.

What must hold every time: no action half-written (every stored match audits
clean and conserves its cards), no traceback (each command ends with its exit
code: 0 done, 1 refused or stale, 2 one line saying what failed), and no
connection left open once the processes are gone. Each fault is tried a few
times, so the whole file runs in seconds; nothing reads the clock to judge.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from faultkit import command
from test_store_venue import STATION, assert_sound, new_match

from events.kernel import ActionTaken, Rewound
from referee.store import MatchStore

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
FAULTKIT = Path(__file__).resolve().parent / "faultkit.py"


def _admin(url: str, sql: str, *params: object) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        row = cur.fetchone() if cur.description is not None else None
    return int(row[0]) if row else 0


def connections(base: str, app: str) -> int:
    return _admin(base, "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", app)


def cut(base: str, app: str) -> int:
    """The server ends every connection of ``app`` (as a restart would)."""
    return _admin(
        base, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = %s", app
    )


@pytest.fixture
def pg(postgres_url):
    """A fresh schema on the test server, reached under an application name
    of its own (so its connections can be counted and cut); dropped after."""
    base = postgres_url()
    app = f"trust_{uuid.uuid4().hex[:10]}"
    schema = f"t_{uuid.uuid4().hex[:16]}"
    yield base, app, f"{base}?schema={schema}&application_name={app}"
    _admin(base, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


# --- a stopped server ---------------------------------------------------------------------


def test_every_command_on_a_stopped_server_is_one_line_without_the_password() -> None:
    """Nothing listens on the port (a stopped server): each command says so in
    one line, exit 2, and shows no password."""
    url = "postgresql://judge:s3cret-pw@127.0.0.1:1/tournament?connect_timeout=2"
    record = ROOT / "scenarios" / "records" / "complete-legal-game.yaml"
    commands = [
        ["new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}"],
        ["act", "m-00000000", "A", "keep"],
        ["legal", "m-00000000"],
        ["state", "m-00000000"],
        ["log", "m-00000000"],
        ["matches"],
        ["rewind", "m-00000000", "--to", "1", "--rule", "410.1", "--reason", "x"],
        ["note", "m-00000000", "hello"],
        ["export", "m-00000000"],
        ["import", str(record)],
        ["audit", "m-00000000"],
        ["event", "new", "Cup"],
        ["event", "standings", "e-00000000"],
    ]
    for argv in commands:
        done = command(*argv, "--db", url)
        assert "traceback" not in done, done
        assert done["code"] == 2, (argv, done)
        err = str(done["err"])
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
        assert "s3cret-pw" not in err + str(done["out"])


def test_connections_cut_while_a_station_writes_lose_no_action_and_leak_none(pg) -> None:
    """The server ends the station's connections at random moments while it
    plays (a restart, a failover): each command either completes or says in
    one line that the database went away; every stored action is whole."""
    base, app, url = pg
    match = new_match(url)
    with MatchStore(url, read_only=True) as store:
        started = store.load(match)[1]
    rng = random.Random(5)
    cuts = 0
    for _ in range(2):
        proc = subprocess.Popen(
            [sys.executable, str(STATION), url, "play", match],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        for _ in range(rng.randint(1, 3)):
            if proc.stdout.readline() != "acted\n":
                break
        for _ in range(30):  # each command opens its own connections: cut whatever is open, often
            cuts += cut(base, app)
            time.sleep(rng.uniform(0.0, 0.03))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err
        # station.py prints a failing command's exception type: only the store's own.
        for line in err.splitlines():
            assert line.startswith("station:") and ("StoreError" in line or "at postgresql" in line), line
        assert_sound(url)
    assert cuts >= 1
    with MatchStore(url, read_only=True) as store:
        assert store.load(match)[1] > started  # the station did play between the cuts
    assert connections(base, app) == 0


def test_a_store_whose_connections_were_cut_recovers_and_closes_them_all(pg) -> None:
    """In one process (a board, `simulate --event`): after the server ends the
    connections, each write on a connection it ended fails as one StoreError
    line, with nothing written, and the pool replaces it: a few writes later
    the store works again; closing leaves no connection open."""
    from referee.rules.harem_master import legal_actions
    from referee.simulate import random_action
    from referee.store import StoreError

    base, app, url = pg
    match = new_match(url)
    rng = random.Random(3)
    with MatchStore(url) as store:
        for i in range(3):
            state, version = store.load(match)
            # The chain's head known, as after any write (a load from a
            # snapshot has read no event): the write is the next statement.
            store.head(match, version)
            action = random_action(state, legal_actions(state), rng)
            assert cut(base, app) >= 1
            failed = 0
            while True:  # each pooled connection the server ended fails one write, then is replaced
                try:
                    store.act(match, action)
                    break
                except StoreError as exc:
                    failed += 1
                    assert "\n" not in str(exc) and "terminat" in str(exc)
                    with MatchStore(url, read_only=True) as other:
                        assert other.load(match)[1] == version  # nothing of it was written
                assert failed <= 4, "the store never recovered"
            assert failed >= 1
            with MatchStore(url, read_only=True) as other:
                assert other.load(match)[1] > version
    assert connections(base, app) == 0
    assert_sound(url)


# --- a full disk --------------------------------------------------------------------------


def _lines(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    assert proc.returncode == 0, proc.stderr
    reports = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    for report in reports:
        assert "traceback" not in report, report["traceback"]
        assert report["code"] in (0, 1, 2), report
        if report["code"] == 2:
            err = report["err"]
            assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    return reports


def test_a_full_disk_fails_a_write_in_one_line_and_writes_nothing_half(tmp_path: Path) -> None:
    """Acts run with the process's files limited in size (RLIMIT_FSIZE: the
    disk is full past that many bytes), at sizes around what an action
    writes, then an import that cannot fit: each acts, or fails with one
    line; every stored match stays whole."""
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    match = new_match(url)
    # SQLite needs 32 KB for its shared-memory file to open at all; an action
    # writes a few 4 KB pages to the write-ahead log.
    limits = [32768 + 1024 * k for k in range(8)] + [10**6, 40000]
    reports = _lines(
        subprocess.run(
            [sys.executable, str(FAULTKIT), "full", url, match, *map(str, limits)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    )
    assert len(reports) == len(limits)
    codes = [r["code"] for r in reports]
    assert 0 in codes[:-1] and codes[-1] == 2, codes  # some acts fit; the whole imported match does not
    with MatchStore(url, read_only=True) as store:
        assert store.load(match)[1] >= max(r["version"] for r in reports)
    assert assert_sound(url) == 1  # nothing of the import was stored


# --- an action racing a judge's rewind -------------------------------------------------------


def test_an_action_and_a_rewind_started_together_never_store_the_action_after_the_rewind(database) -> None:
    """Two processes, trial after trial at the same instants: a station's `act
    --expect-version V` (the version it read) and a judge's `rewind`. Either
    the action lands first, at V+1 (and the rewind retracts it), or the rewind
    does and the action is refused as stale, exit 1: an action chosen before a
    rewind is never stored after it. Neither shows a traceback."""
    url = database.url
    match = new_match(url)
    for _ in range(4):  # into the game a little, so there is something to rewind
        referee_in_process("act", match, *_first_legal(url, match), "--db", url)
    t0 = time.time() + 3.0  # both interpreters are up by then
    trials = 4
    run = [sys.executable, str(FAULTKIT), "race", url, match]
    actor = subprocess.Popen(
        [*run, "actor", str(t0), "0.6", str(trials)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    judge = subprocess.Popen(
        [*run, "judge", str(t0), "0.6", str(trials)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    acts = _lines(subprocess.CompletedProcess(actor.args, actor.wait(timeout=120), *actor.communicate()))
    rewinds = _lines(subprocess.CompletedProcess(judge.args, judge.wait(timeout=120), *judge.communicate()))
    assert len(acts) == len(rewinds) == trials
    with MatchStore(url, read_only=True) as store:
        log = store.events(match)
    for act in acts:
        if act["code"] == 0:
            stored = log[act["version"]]  # the event just after the version it read
            assert isinstance(stored, ActionTaken), act
            assert [stored.player, stored.do] == act["argv"][:2], act
        else:
            assert act["code"] == 1 and "stale" in json.loads(act["out"]), act
    assert sum(isinstance(e, Rewound) for e in log) == sum(r["code"] == 0 for r in rewinds) >= 1
    assert_sound(url)


def _first_legal(url: str, match: str) -> list[str]:
    from faultkit import random_action

    return random_action(url, match, random.Random(1))[1]


def referee_in_process(*argv: str) -> dict:
    done = command(*argv)
    assert "traceback" not in done and done["code"] == 0, done
    return done


def test_no_connection_is_left_open_by_commands_that_fail(pg) -> None:
    """Refused actions, stale actions, unknown matches, bad input: every
    command closes what it opened; so does a board's store."""
    base, app, url = pg
    match = new_match(url)
    for argv, code in (
        (["act", match, "B", "keep"], 1),  # refused: not B's decision
        (["act", match, "A", "choose_opening", "Little Page", "--expect-version", "0"], 1),  # stale
        (["state", "m-00000000"], 2),  # no such match
        (["log", match, "--from", "x"], 2),
    ):  # bad input
        done = command(*argv, "--db", url)
        assert "traceback" not in done and done["code"] == code, (argv, done)
        assert connections(base, app) == 0, argv
    from starlette.testclient import TestClient

    from referee.web.app import Settings, create_app

    with TestClient(create_app(Settings(url=url))) as http:
        assert http.get(f"/matches/{match}").status_code == 200
        assert http.get("/matches/m-00000000").status_code == 404
    assert connections(base, app) == 0
