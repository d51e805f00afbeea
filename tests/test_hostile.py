"""Hostile inputs: card text that never ends, forged records, files that say a thing twice or
carry numbers no card has, damaged or empty databases, odd URLs and long logs on the board.

Each ends quickly with one clear line or a ruling, writes nothing it should
not, and never shows a traceback. Nothing here reads the clock: the bounds
are counts of events, rows and bytes.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from events.kernel import GameEnded, NoteAdded
from referee.cli import main
from referee.store import MatchStore
from referee.web.app import Settings, create_app
from tests.test_hostile_board import in_own_loop

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
LOOPS = sorted((ROOT / "scenarios" / "400-406-abilities").glob("A30-*.yaml"))


def run(*args: str) -> tuple[int, str, str]:
    """``referee ARGS`` as the installed command runs it (``referee.cli.main``,
    which turns bad input and store problems into one line), in this
    process; any other exception fails the test (it would be a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    argv = sys.argv
    sys.argv = ["referee", *args]
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = argv
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def referee(*args: str) -> str:
    code, out, err = run(*args)
    assert code == 0, (args, out, err)
    return out


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'referee.db'}"


# --- card text that never ends (ruling A30) ---------------------------------------------


def test_every_hostile_pool_scenario_ends_with_the_ruling() -> None:
    assert len(LOOPS) == 3
    code, out, _ = run("scenario", "check", *map(str, LOOPS), "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"] == 3, report


@pytest.mark.parametrize("scenario", LOOPS, ids=lambda p: p.stem[:40])
def test_a_stored_match_whose_action_sets_off_a_loop_ends_as_a_draw(db: str, scenario: Path) -> None:
    """`act` on the stored match returns at once: the action, then the draw;
    the loop's repetitions are not written."""
    from referee.scenario import load_scenario

    match = json.loads(referee("new", "--position", str(scenario), "--db", db, "--json"))["match"]
    actions = load_scenario(scenario).actions
    for raw, _expect in actions:
        args = [raw["player"], raw["do"], *([raw["card"]] if "card" in raw else [])]
        doc = json.loads(referee("act", match, *args, "--db", db, "--json"))
    assert doc["result"]["draw"] is True and doc["result"]["ruling"] == "A30"
    assert doc["next"] is None
    with MatchStore(db, read_only=True) as store:
        log = store.events(match)
    assert isinstance(log[-1], GameEnded) and log[-1].ruling == "A30"
    assert len(log) < 60  # the position, the actions and their own steps: no repetition of the loop
    assert "A loop nobody can stop" in referee("log", match, "--db", db)


def test_the_work_of_one_action_is_bounded_and_refused_whole(db: str, monkeypatch) -> None:
    """Past ``ACTION_EVENTS`` automatic events (none, here), the action is
    refused citing ruling A30 and nothing is written."""
    from referee import ruleset

    match = json.loads(
        referee(
            "new",
            "--deck",
            f"A={DECKS / 'alice.yaml'}",
            "--deck",
            f"B={DECKS / 'bob.yaml'}",
            "--seed",
            "1",
            "--db",
            db,
            "--json",
        )
    )["match"]
    referee("act", match, "A", "choose_opening", "Palace Herald", "--db", db)
    with MatchStore(db, read_only=True) as store:
        before = store.load(match)[1]
    monkeypatch.setattr(ruleset, "ACTION_EVENTS", 0)  # any automatic step is past it
    code, out, err = run("act", match, "B", "choose_opening", "Zeth Acolyte", "--db", db)
    assert code == 1 and "refused (ruling:A30)" in err and "Nothing was recorded" in err
    with MatchStore(db, read_only=True) as store:
        assert store.load(match)[1] == before


# --- records checked before import ---------------------------------------------------------


def _exported(db: str, tmp_path: Path) -> tuple[str, str]:
    """A short match exported with its chain: (its id, the record's text)."""
    match = json.loads(
        referee(
            "new",
            "--deck",
            f"A={DECKS / 'alice.yaml'}",
            "--deck",
            f"B={DECKS / 'bob.yaml'}",
            "--seed",
            "3",
            "--name",
            "A=Alice",
            "--db",
            db,
            "--json",
        )
    )["match"]
    for args in (
        ["A", "choose_opening", "Palace Herald"],
        ["B", "choose_opening", "Zeth Acolyte"],
        ["A", "choose_order", "--order", "first"],
        ["A", "keep"],
        ["B", "keep"],
    ):
        code, _, _ = run("act", match, *args, "--db", db)
        if code:  # the flips gave B the choice of order
            referee("act", match, "B", "choose_order", "--order", "first", "--db", db)
    text = referee("export", match, "--db", db)
    assert "\nchain:" in text and "\nhead:" in text
    return match, text


def _matches(db: str) -> set[str]:
    return {m["id"] for m in json.loads(referee("matches", "--db", db, "--json"))["matches"]}


def test_a_record_changed_after_export_is_refused_naming_the_action(db: str, tmp_path: Path) -> None:
    _, text = _exported(db, tmp_path)
    changed = tmp_path / "changed.yaml"
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.strip() == "- {player: A, do: keep}")
    lines[k] = lines[k].replace("keep", "mulligan")  # as legal as keeping: only the chain tells
    changed.write_text("\n".join(lines) + "\n")
    before = _matches(db)
    code, _, err = run("import", str(changed), "--db", db)
    assert code == 1
    assert f"does not fit at action 4 (A mulligan, line {k + 1})" in err and "Nothing was stored" in err
    assert _matches(db) == before
    code, out, _ = run("import", str(changed), "--db", db, "--json")
    assert code == 1 and json.loads(out)["chain"]["broken_at"]["action"] == 4
    # The names of the players are part of the start: changing one breaks it there.
    renamed = tmp_path / "renamed.yaml"
    renamed.write_text(text.replace("name: Alice", "name: Mallory"))
    code, _, err = run("import", str(renamed), "--db", db)
    assert code == 1 and "at the start (the seed, the decks and the settings)" in err
    assert _matches(db) == before
    # The untouched record imports clean.
    good = tmp_path / "good.yaml"
    good.write_text(text)
    assert run("import", str(good), "--db", db)[0] == 0


def test_a_judge_may_store_a_broken_record_and_the_log_keeps_the_evidence(db: str, tmp_path: Path) -> None:
    _, text = _exported(db, tmp_path)
    changed = tmp_path / "changed.yaml"
    changed.write_text(text.replace("- {player: A, do: keep}", "- {player: A, do: mulligan}", 1))
    code, _, err = run("import", str(changed), "--db", db, "--accept-broken-chain")
    assert code == 2 and "--by JUDGE and --reason TEXT" in err
    code, _, err = run("import", str(changed), "--db", db, "--by", "Kim")
    assert code == 2
    match = json.loads(
        referee(
            "import",
            str(changed),
            "--db",
            db,
            "--accept-broken-chain",
            "--by",
            "Kim",
            "--reason",
            "the table confirms A took a mulligan",
            "--json",
        )
    )["match"]
    with MatchStore(db, read_only=True) as store:
        note = store.events(match)[-1]
    assert isinstance(note, NoteAdded) and note.judge == "Kim"
    assert "does not fit at action 4 (A mulligan" in note.text and "the table confirms" in note.text
    assert re.search(r"the record's chain hash there is [0-9a-f]{16}", note.text)
    doc = json.loads(referee("audit", match, "--db", db, "--json"))
    assert doc["legal"] and doc["chain"]["status"] == "intact"  # the new match's own chain; the note says the rest
    again = tmp_path / "again.yaml"
    again.write_text(referee("export", match, "--db", db))
    assert run("import", str(again), "--db", db)[0] == 0  # the note travels with the match


@pytest.mark.parametrize("kind", ["deck", "pool", "scenario", "record", "json"])
def test_a_key_written_twice_is_refused_with_its_line(tmp_path: Path, db: str, kind: str) -> None:
    files = {
        "deck": ("deck.yaml", "- {card: Little Page, card: Court Lady}\n"),
        "pool": ("pool.yaml", "cards:\n  - name: X\n    type: event\n    cost: 0\n    cost: 1\n"),
        "scenario": ("s.yaml", 'name: twice\nrules: ["306"]\nsetup:\n  turn: 3\n  turn: 4\n'),
        "record": ("r.yaml", "format: harem-master-record/1\nseed: 1\nplayers: {}\nseed: 2\n"),
        "json": ("d.json", '[{"card": "Little Page",\n  "count": 1, "count": 3}]'),
    }
    name, text = files[kind]
    path = tmp_path / name
    path.write_text(text)
    second = {"deck": 1, "pool": 5, "scenario": 5, "record": 4, "json": 2}[kind]
    command = {
        "deck": ["new", "--deck", f"A={path}", "--deck", f"B={path}", "--db", db],
        "json": ["new", "--deck", f"A={path}", "--deck", f"B={path}", "--db", db],
        "pool": [
            "new",
            "--deck",
            f"A={DECKS / 'alice.yaml'}",
            "--deck",
            f"B={DECKS / 'bob.yaml'}",
            "--pool",
            str(path),
            "--db",
            db,
        ],
        "scenario": ["scenario", "check", str(path)],
        "record": ["import", str(path), "--db", db],
    }[kind]
    code, _, err = run(*command)
    assert code == 2
    assert f"{path}:{second}:" in err and "written twice" in err, err
    assert not (tmp_path / "referee.db").exists()


def test_numbers_no_card_carries_are_refused(tmp_path: Path, db: str) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text("- Little Page\n- {random: 99999999999999999999, count: 50}\n")
    code, _, err = run("new", "--deck", f"A={deck}", "--deck", f"B={deck}", "--db", db)
    assert code == 2 and "[1].random: is 99999999999999999999; a number on a card is between -999 and 999" in err
    pool = tmp_path / "pool.yaml"
    pool.write_text("- {name: Giant, type: character, cost: 1, gender: male, physical: 1000}\n")
    code, _, err = run(
        "new",
        "--deck",
        f"A={DECKS / 'alice.yaml'}",
        "--deck",
        f"B={DECKS / 'bob.yaml'}",
        "--pool",
        str(pool),
        "--db",
        db,
    )
    assert code == 2 and "[0].physical: is 1000" in err
    pool.write_text(
        "- name: Big Bang\n  type: event\n  cost: 0\n  abilities:\n"
        "    - kind: use\n      effects: [{modify: {what: {all: {type: character}}, physical: -5000}}]\n"
    )
    code, _, err = run(
        "new",
        "--deck",
        f"A={DECKS / 'alice.yaml'}",
        "--deck",
        f"B={DECKS / 'bob.yaml'}",
        "--pool",
        str(pool),
        "--db",
        db,
    )
    assert code == 2 and "physical: is -5000" in err
    scenario = tmp_path / "s.yaml"
    scenario.write_text('name: big\nrules: ["306"]\nsetup:\n  players:\n    A:\n      castle: [{random: 1000}]\n')
    code, _, err = run("scenario", "check", str(scenario))
    assert code == 2 and "random: is 1000" in err
    record = tmp_path / "r.yaml"
    record.write_text(f"format: harem-master-record/1\nseed: {10**30}\nplayers: {{}}\n")
    code, _, err = run("import", str(record), "--db", db)
    assert code == 2 and "seed" in err
    assert not (tmp_path / "referee.db").exists()


# --- the edges ----------------------------------------------------------------------------


def test_audit_of_a_damaged_sqlite_file_is_one_line(db: str, tmp_path: Path) -> None:
    match, _ = _exported(db, tmp_path)
    path = tmp_path / "referee.db"
    with MatchStore(db) as store:
        store.load(match)  # closed cleanly: the WAL is checkpointed into the file
    size = path.stat().st_size
    with open(path, "r+b") as f:  # every page after the first two, overwritten
        f.seek(8192)
        f.write(bytes(range(256)) * ((size - 8192) // 256 + 1))
    for command in (["audit", match], ["state", match], ["log", match], ["export", match], ["act", match, "A", "pass"]):
        code, out, err = run(*command, "--db", db)
        assert code == 2, (command, out, err)
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err


def test_a_write_command_leaves_an_empty_file_as_it_found_it(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    url = f"sqlite:///{path}"
    for command in (
        ["act", "m-00000000", "A", "keep"],
        ["note", "m-00000000", "hello"],
        ["rewind", "m-00000000", "--to", "1", "--rule", "410.1", "--reason", "x"],
    ):
        code, _, err = run(*command, "--db", url)
        assert code == 2 and "is an empty file, not a referee database" in err
        assert path.stat().st_size == 0 and sorted(os.listdir(tmp_path)) == ["empty.db"]
    assert run("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--db", url)[0] == 0


def test_board_positions_are_ascii_digits(db: str) -> None:
    match = json.loads(
        referee("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--db", db, "--json")
    )["match"]
    with TestClient(create_app(Settings(url=db))) as http:
        for bad in ("²", "١", "1e3", "-1", "9" * 5000):
            for path, name in (
                (f"/matches/{match}", "at"),
                (f"/matches/{match}/board", "at"),
                (f"/matches/{match}/log", "from"),
                (f"/matches/{match}/rewind", "to"),
            ):
                page = http.get(path, params={name: bad})
                assert page.status_code == 400, (path, bad, page.status_code)
        assert http.get(f"/matches/{match}", params={"at": "1"}).status_code == 200


def test_a_protected_boards_errors_never_name_the_store(db: str, tmp_path: Path) -> None:
    referee("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--db", db)
    settings = Settings(url=db, protect=True, judge_password="pw-123")
    with TestClient(create_app(settings)) as http:
        for path in (
            "/matches/m-00000000",
            "/matches/m-00000000/board",
            "/matches/m-00000000/log",
            "/matches/m-00000000/live",
            "/events/e-00000000",
        ):
            page = http.get(path)
            assert page.status_code == 404, path
            assert str(tmp_path) not in page.text and "sqlite" not in page.text and "referee.db" not in page.text
    with TestClient(create_app(Settings(url=db))) as http:  # a judge's own machine may say where it reads
        assert "referee.db" in http.get("/matches/m-00000000").text


def test_a_log_of_many_notes_is_read_a_page_at_a_time(tmp_path: Path) -> None:
    """A legal record of thousands of notes: the log page holds 200 rows
    whatever the length, with links to older and newer pages; the server
    keeps the match's length and rewinds, not its events."""
    from referee.rules.harem_master import start
    from referee.rules.harem_master.decks import deal, load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.web.board import LOG_PAGE

    catalog = CardCatalog(bundled_pool())
    decks = {p: load_deck(DECKS / f, catalog) for p, f in (("A", "alice.yaml"), ("B", "bob.yaml"))}
    cards, castles = deal(decks)
    sizes = {}
    for notes in (1000, 5000):
        url = f"sqlite:///{tmp_path / f'notes{notes}.db'}"
        first = list(start(cards, castles, seed=1).events)
        with MatchStore(url, create=True) as store:
            match = store.create(first + [NoteAdded(judge="Kim", text=f"note {i}") for i in range(notes)])
        version = len(first) + notes
        with TestClient(create_app(Settings(url=url))) as http:
            page = http.get(f"/matches/{match}/log", params={"as": "public"})
            rows = re.findall(r'<a class="pos" href="[^"]*">(\d+)</a>', page.text)
            assert [int(r) for r in rows] == list(range(version - LOG_PAGE + 1, version + 1))
            assert 'data-page="older"' in page.text and 'data-page="newer"' not in page.text
            sizes[notes] = len(page.content)
            older = http.get(f"/matches/{match}/log", params={"as": "public", "from": "1"})
            assert re.findall(r'<a class="pos" href="[^"]*">(\d+)</a>', older.text)[0] == "1"
            assert 'data-page="newer"' in older.text
            log = http.app.state.board.reader.logs.get(match)
            assert log.version == version and not hasattr(log, "events")
    assert abs(sizes[5000] - sizes[1000]) < 2000  # the page does not grow with the match


# --- the version a judge decided on ---------------------------------------------------------


def test_judge_commands_decided_on_an_old_version_record_nothing(db: str) -> None:
    """`rewind`, `note`, `accept` and `skip-step` take `--expect-version` as
    `act` does: decided on version N while the match moved on, they record
    nothing and exit 1 saying so; on the current version they are recorded."""
    match = json.loads(
        referee(
            "new",
            "--deck",
            f"A={DECKS / 'vanilla-a.yaml'}",
            "--deck",
            f"B={DECKS / 'vanilla-b.yaml'}",
            "--mode",
            "record",
            "--seed",
            "2",
            "--db",
            db,
            "--json",
        )
    )["match"]
    referee("act", match, "A", "choose_opening", "Little Page", "--db", db)
    version = json.loads(referee("legal", match, "--db", db, "--json"))["version"]
    referee("act", match, "B", "choose_opening", "Stable Boy", "--db", db)  # another station, meanwhile
    with MatchStore(db, read_only=True) as store:
        now = store.load(match)[1]
    for argv in (
        ["note", match, "a judge's note"],
        ["accept", match, "--reason", "stands"],
        ["skip-step", match, "303", "--reason", "forgot"],
        ["rewind", match, "--to", "2", "--rule", "410.1", "--reason", "wrong opening"],
    ):
        code, out, err = run(*argv, "--expect-version", str(version), "--db", db, "--json")
        assert code == 1 and json.loads(out)["stale"] == {
            "chosen": version,
            "current": now,
            "rewound": False,
            "message": json.loads(out)["stale"]["message"],
        }
        with MatchStore(db, read_only=True) as store:
            assert store.load(match)[1] == now
    referee("note", match, "now it is current", "--expect-version", str(now), "--db", db)
    with MatchStore(db, read_only=True) as store:
        assert isinstance(store.events(match)[-1], NoteAdded)


# --- the edges of issue 29 ---------------------------------------------------------------------


def test_a_position_past_any_database_integer_is_one_line(db: str, tmp_path: Path) -> None:
    match, _ = _exported(db, tmp_path)
    for argv in (["state", match, "--at", str(2**63)], ["state", match, "--at", str(10**40)]):
        code, _, err = run(*argv, "--db", db)
        assert code == 2 and err.startswith("error: ") and "no match is that long" in err, err
    code, out, _ = run("log", match, "--from", str(2**63), "--db", db)
    assert code == 0


def test_audit_of_a_match_whose_snapshots_are_damaged_says_so_as_state_does(db: str, tmp_path: Path) -> None:
    """The events are sound but the snapshot `state` and `act` start from is
    not: the audit fails in one line as they do (it used to say legal)."""
    import sqlite3

    match, _ = _exported(db, tmp_path)
    con = sqlite3.connect(tmp_path / "referee.db")
    assert con.execute("SELECT count(*) FROM stored_snapshots").fetchone()[0] >= 1
    con.execute("UPDATE stored_snapshots SET state = ?", (b"\x00\x01garbage",))
    con.commit()
    con.close()
    for command in (["state", match], ["audit", match]):
        code, out, err = run(*command, "--db", db)
        assert code == 2, (command, out, err)
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err


def test_a_match_started_from_a_position_can_be_audited(db: str) -> None:
    from referee.scenario import load_scenario

    scenario = LOOPS[0]
    match = json.loads(referee("new", "--position", str(scenario), "--db", db, "--json"))["match"]
    doc = json.loads(referee("audit", match, "--db", db, "--json"))
    assert doc["legal"] is True and doc["actions"] == 0 and doc["chain"]["status"] == "intact"
    for raw, _expect in load_scenario(scenario).actions:
        referee("act", match, raw["player"], raw["do"], *([raw["card"]] if "card" in raw else []), "--db", db)
    referee("note", match, "checked", "--db", db)
    doc = json.loads(referee("audit", match, "--db", db, "--json"))
    assert doc["legal"] is True and doc["actions"] == len(load_scenario(scenario).actions) + 1
    assert doc["result"]["ruling"] == "A30" and doc["signature"]["status"] == "verified"


def test_a_number_of_thousands_of_digits_is_refused_with_its_line(tmp_path: Path, db: str) -> None:
    record = tmp_path / "r.yaml"
    record.write_text(f"format: harem-master-record/1\nplayers: {{}}\nseed: {'9' * 5000}\n")
    code, _, err = run("audit", str(record))
    assert code == 2 and f"{record}:3: holds a number of 5000 digits" in err
    deck = tmp_path / "deck.json"
    deck.write_text('[\n  {"random": ' + "7" * 5000 + ', "count": 50}]')
    code, _, err = run("new", "--deck", f"A={deck}", "--deck", f"B={deck}", "--db", db)
    assert code == 2 and f"{deck}:2: holds a number of 5000 digits" in err


def test_a_client_that_leaves_in_the_middle_of_its_form_raises_nothing(db: str) -> None:
    """No "Task exception was never retrieved ... ClientDisconnect" in the
    server's log: the body is read before anything parses it, and a client
    that leaves is simply not answered."""

    referee("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--db", db)
    app = create_app(Settings(url=db))
    sent: list[dict] = []
    parts = [
        {"type": "http.request", "body": b"csrf=x&text=", "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict:
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/matches/m-00000000/note",
        "raw_path": b"/matches/m-00000000/note",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/x-www-form-urlencoded")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }
    in_own_loop(lambda: app(scope, receive, send))
    assert sent == []
