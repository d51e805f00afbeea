"""The store at a venue: stations starting together, killed stations, roles that only
read and write rows, read-only media, mistyped paths, TLS options.

Tests that take ``database`` run on SQLite and on PostgreSQL (see conftest).
Stations are real processes (``tests/station.py`` runs the referee's own
commands); nothing here is timed: speed is ``referee bench``'s business.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from referee.commands.records import audit_one
from referee.rules.harem_master.decks import conservation_errors
from referee.store import MatchStore, NoSuchDatabase, StoreError, parse_url

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
RECORD = ROOT / "scenarios" / "records" / "complete-legal-game.yaml"
# The sample is typed by hand (no chain, no signature): a judge brings it in, as `import` asks.
ACCEPT = ("--accept-broken-chain", "--by", "Kim", "--reason", "the sample, typed by hand")
STATION = Path(__file__).resolve().parent / "station.py"


def referee(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"referee {' '.join(args[:2])}: {proc.stderr}"
    return proc


def station(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(STATION), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def new_match(url: str, seed: int = 1) -> str:
    made = referee(
        "new",
        "--deck",
        f"A={DECKS / 'vanilla-a.yaml'}",
        "--deck",
        f"B={DECKS / 'vanilla-b.yaml'}",
        "--seed",
        str(seed),
        "--db",
        url,
    )
    return made.stdout.strip()


def assert_sound(url: str) -> int:
    """Every stored match audits clean and conserves its cards; how many there are."""
    with MatchStore(url, read_only=True) as store:
        matches = [m.id for m in store.list_matches()]
        for match in matches:
            state, _ = store.load(match)
            assert conservation_errors(state) == [], match
    for match in matches:  # `referee audit MATCH`, in this process (the command is tested elsewhere)
        doc, lines = audit_one(match, url)
        assert doc["legal"], lines
    return len(matches)


# --- eight stations at the same instant -------------------------------------------


def test_eight_stations_opening_reading_and_acting_at_once_never_fail(database):
    """On a database with no tables yet: all eight start a match (the tables
    are made once, by whichever gets the lock first), list the matches, read
    theirs and act on it, starting at the same instant."""
    url = database.url
    at = time.time() + 2.0  # every station is started and has imported by then
    stations = [station(url, "station", str(DECKS), "--at", str(at)) for _ in range(8)]
    outcomes = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in stations]  # type: ignore[union-attr]
    failed = [err for code, _, err in outcomes if code != 0]
    assert failed == []
    made = {out.strip() for _, out, _ in outcomes}
    assert len(made) == 8
    with MatchStore(url, read_only=True) as store:
        assert {m.id for m in store.list_matches()} == made
    assert assert_sound(url) == 8


# --- kill -9 -----------------------------------------------------------------------


def test_act_killed_at_random_moments_leaves_a_sound_log(database):
    """A station applying actions through ``act`` is killed with SIGKILL at
    random moments, again and again: every action is all or nothing, so the
    log audits clean and every card is in exactly one place."""
    url = database.url
    match = new_match(url)
    rng = random.Random(7)
    for _ in range(6):
        proc = station(url, "play", match)
        for _ in range(rng.randint(1, 3)):  # let it act a little, then kill it at any moment
            assert proc.stdout is not None and proc.stdout.readline() == "acted\n", proc.stderr
        time.sleep(rng.uniform(0.0, 0.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert_sound(url)
    with MatchStore(url, read_only=True) as store:
        assert store.load(match)[1] > 6  # it did act between the kills


def test_import_killed_at_random_moments_stores_a_whole_match_or_nothing(database):
    url = database.url
    new_match(url)  # the tables exist; each import writes one whole match
    rng = random.Random(11)
    for _ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "import", str(RECORD), "--db", url, *ACCEPT],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.2, 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert assert_sound(url) >= 1


# --- a role that may only read and write rows -------------------------------------


def _make_role(admin_url: str, schema: str, rights: str) -> str:
    """A login role with ``rights`` on the schema's tables and nothing else;
    its URL (the test server's role needs CREATEROLE: .ci/postgres.sh grants it)."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    role = f"station_{uuid.uuid4().hex[:10]}"
    password = uuid.uuid4().hex
    with psycopg.connect(admin_url, autocommit=True) as conn:
        try:
            conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        except psycopg.errors.InsufficientPrivilege:
            pytest.fail("the test role may not create roles: run .ci/postgres.sh (it grants CREATEROLE)", pytrace=False)
        conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {role}')
        conn.execute(f'GRANT {rights} ON ALL TABLES IN SCHEMA "{schema}" TO {role}')
    parts = urlsplit(admin_url)
    netloc = f"{role}:{password}@{parts.hostname}:{parts.port or 5432}"
    return urlunsplit(parts._replace(netloc=netloc)) + f"?schema={schema}"


def _drop_role(admin_url: str, url: str, schema: str) -> None:
    import psycopg

    role = parse_url(url).env["POSTGRES_USER"]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM {role}')
        conn.execute(f'REVOKE ALL ON SCHEMA "{schema}" FROM {role}')
        conn.execute(f"DROP ROLE {role}")


def test_a_role_that_may_only_read_and_write_rows_runs_a_station(postgres_url):
    admin = postgres_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    owner_url = f"{admin}?schema={schema}"
    match = new_match(owner_url)  # the owner makes the tables
    rows = _make_role(admin, schema, "SELECT, INSERT, UPDATE")
    reader = _make_role(admin, schema, "SELECT")
    try:
        listed = referee("matches", "--db", rows, "--json")
        assert match in listed.stdout
        referee("legal", match, "--db", rows)
        referee("act", match, "A", "choose_opening", "Little Page", "--db", rows)
        second = new_match(rows, seed=2)  # a new match is rows too
        referee("state", second, "--db", rows)
        # Stations at once, on the tables they do not own (eight: the test above).
        at = time.time() + 2.0
        stations = [station(rows, "station", str(DECKS), "--at", str(at)) for _ in range(3)]
        outcomes = [(p.wait(timeout=120), p.stderr.read()) for p in stations]  # type: ignore[union-attr]
        assert [err for code, err in outcomes if code != 0] == []
        # A role that may only read reads, and cannot write through the function.
        referee("log", match, "--db", reader)
        refused = referee("note", match, "a note", "--db", reader, check=False)
        assert refused.returncode == 2 and "permission denied" in refused.stderr, refused.stderr
        assert assert_sound(owner_url) == 5
    finally:
        import psycopg

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        for url in (rows, reader):
            role = parse_url(url).env["POSTGRES_USER"]
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f"DROP ROLE IF EXISTS {role}")


def test_opening_a_postgres_store_runs_no_ddl_once_the_tables_exist(database):
    """Stations open the store all day: once the tables exist, reading runs
    in sessions where any DDL would fail (``default_transaction_read_only``),
    and acting or starting a match replaces no function or type (their
    catalog rows keep the transaction id that made them)."""
    if database.kind != "postgresql":
        pytest.skip("PostgreSQL only (SQLite: see the read-only media test)")
    import psycopg

    url = database.url
    match = new_match(url)
    catalog = (
        "SELECT xmin::text FROM pg_proc WHERE pronamespace = %(ns)s::regnamespace "
        "UNION ALL SELECT xmin::text FROM pg_type WHERE typnamespace = %(ns)s::regnamespace "
        "UNION ALL SELECT xmin::text FROM pg_class WHERE relnamespace = %(ns)s::regnamespace ORDER BY 1"
    )
    with psycopg.connect(os.environ["REFEREE_TEST_POSTGRES"]) as conn:
        before = conn.execute(catalog, {"ns": f'"{database.schema}"'}).fetchall()
    read_only = url + "&options=-c%20default_transaction_read_only%3Don"
    for args in (["matches"], ["legal", match], ["state", match], ["log", match]):
        referee(*args, "--db", read_only)
    referee("act", match, "A", "choose_opening", "Little Page", "--db", url)
    new_match(url, seed=3)
    with psycopg.connect(os.environ["REFEREE_TEST_POSTGRES"]) as conn:
        after = conn.execute(catalog, {"ns": f'"{database.schema}"'}).fetchall()
    assert after == before


# --- files: mistyped, read-only --------------------------------------------------


def test_a_missing_sqlite_file_is_made_only_by_commands_that_create(tmp_path):
    url = f"sqlite:///{tmp_path / 'typo.db'}"
    for args in (
        ["matches"],
        ["state", "m-12345678"],
        ["legal", "m-12345678"],
        ["log", "m-12345678"],
        ["act", "m-12345678", "A", "pass"],
        ["export", "m-12345678"],
        ["audit", "m-12345678"],
    ):
        proc = referee(*args, "--db", url, check=False)
        assert proc.returncode == 2, args
        assert "no such database" in proc.stderr and "Traceback" not in proc.stderr, args
        assert list(tmp_path.iterdir()) == [], args
    with pytest.raises(NoSuchDatabase):
        MatchStore(url, create=False)
    referee("import", str(RECORD), "--db", url, *ACCEPT)
    assert (tmp_path / "typo.db").exists()


def _read_only_folder(path: Path) -> bool:
    """Make ``path`` unwritable even for root: a read-only bind mount over
    it (root), else file modes. False if neither is possible here."""
    if os.geteuid() != 0:
        for f in path.iterdir():
            f.chmod(0o444)
        path.chmod(0o555)
        return True
    done = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True)
    if done.returncode != 0:
        return False
    done = subprocess.run(["mount", "-o", "remount,bind,ro", str(path), str(path)], capture_output=True)
    if done.returncode != 0:
        subprocess.run(["umount", str(path)], capture_output=True)
        return False
    return True


def _writable_again(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["umount", str(path)], capture_output=True)
    else:
        path.chmod(0o755)


@pytest.mark.parametrize("leftovers", [False, True], ids=["closed-cleanly", "with-wal-files"])
def test_reads_work_on_read_only_media(tmp_path, leftovers):
    folder = tmp_path / "media"
    folder.mkdir()
    url = f"sqlite:///{folder / 'venue.db'}"
    match = new_match(url)
    referee("act", match, "A", "choose_opening", "Little Page", "--db", url)
    if not leftovers:
        for suffix in ("-wal", "-shm"):
            (folder / f"venue.db{suffix}").unlink(missing_ok=True)
    if not _read_only_folder(folder):
        pytest.skip("cannot make a read-only folder here (not root, or no mount)")
    try:
        for args in (
            ["state", match],
            ["legal", match],
            ["export", match],
            ["rewind", match, "--to", "1", "--rule", "410.1", "--reason", "x", "--dry-run"],
        ):
            proc = referee(*args, "--db", url, check=False)
            assert proc.returncode == 0, f"{args}: {proc.stderr}"
        refused = referee("note", match, "a note", "--db", url, check=False)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert "read-only" in refused.stderr, refused.stderr
    finally:
        _writable_again(folder)


# --- PostgreSQL URLs ---------------------------------------------------------------


def test_postgres_urls_take_libpq_options():
    db = parse_url(
        "postgresql://judge:pw@db.venue:5432/tourney?sslmode=verify-full&sslrootcert=/etc/referee/ca.pem"
        "&connect_timeout=3&application_name=table-4"
    )
    assert db.options == {
        "sslmode": "verify-full",
        "sslrootcert": "/etc/referee/ca.pem",
        "connect_timeout": "3",
        "application_name": "table-4",
    }
    assert parse_url("postgresql://judge:pw@db/tourney").options["application_name"] == "referee"
    with pytest.raises(StoreError, match="sslmode must be one of"):
        parse_url("postgresql://judge:pw@db/tourney?sslmode=yes")
    with pytest.raises(StoreError, match="unknown option 'sslmod'"):
        parse_url("postgresql://judge:pw@db/tourney?sslmod=require")


def test_the_options_reach_the_server(database):
    if database.kind != "postgresql":
        pytest.skip("PostgreSQL only")
    url = database.url + "&sslmode=prefer&application_name=table-4&connect_timeout=4"
    with MatchStore(url) as store:
        conn_pool = store.application.factory.datastore.pool  # type: ignore[attr-defined]
        with conn_pool.connection() as conn:
            name = conn.execute("SELECT current_setting('application_name')").fetchone()
        assert name is not None and name["current_setting"] == "table-4"
    required = referee("matches", "--db", database.url + "&sslmode=require", check=False)
    # The test server may or may not offer TLS: either it works, or libpq says why in one line.
    assert required.returncode in (0, 2) and "Traceback" not in required.stderr
