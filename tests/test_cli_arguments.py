"""Every argument is checked before anything is written: text that is not
UTF-8, holds control characters or is too long, malformed match ids and a
player given twice end in one clean exit 2, with no traceback and no
database file created; text that reaches a terminal from elsewhere (a store
written before these checks) is printed escaped, never raw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.inputs import TEXT_LENGTH, InputError, printable, text_problem
from referee.records import load_record

ROOT = Path(__file__).resolve().parent.parent
ALICE = ROOT / "scenarios" / "decks" / "alice.yaml"
BOB = ROOT / "scenarios" / "decks" / "bob.yaml"
DECKS = ["--deck", f"A={ALICE}", "--deck", f"B={BOB}"]
NOT_UTF8 = b"Table \xff\xfe 4"  # what a Latin-1 terminal sends for "Table ÿþ 4"


def referee(argv: list[str | bytes], cwd: Path) -> subprocess.CompletedProcess:
    """The real command with raw bytes in its argv (as a shell passes them)."""
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    env["LC_ALL"] = "C.UTF-8"
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *argv], cwd=cwd, capture_output=True, env=env, check=False
    )


def refused_cleanly(proc: subprocess.CompletedProcess, *words: str) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, proc.stdout, err)
    assert "Traceback" not in err
    assert proc.stdout == b""
    for word in words:
        assert word in err, err
    return err


@pytest.fixture
def stored(tmp_path: Path) -> tuple[str, str]:
    """A database with one match in it: (its URL, the match id)."""
    url = f"sqlite:///{tmp_path / 'matches.db'}"
    result = CliRunner().invoke(cli, ["new", *DECKS, "--seed", "5", "--json", "--db", url])
    assert result.exit_code == 0, result.output
    return url, json.loads(result.stdout)["match"]


def events_in(url: str, match: str) -> int:
    result = CliRunner().invoke(cli, ["log", match, "--json", "--db", url])
    return len(json.loads(result.stdout)["events"])


# --- text that is not UTF-8 ---------------------------------------------------------------


def test_non_utf8_title_and_name_are_refused_before_the_database_is_created(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    for option in (["--title", NOT_UTF8], ["--name", b"A=" + NOT_UTF8]):
        proc = referee(["new", *DECKS, *option, "--db", f"sqlite:///{db}"], tmp_path)
        refused_cleanly(proc, "is not valid UTF-8 text", option[0])
    assert not db.exists()


@pytest.mark.parametrize(
    "argv, option",
    [
        (["note", "{m}", NOT_UTF8], "TEXT"),
        (["note", "{m}", "called a judge", "--by", NOT_UTF8], "--by"),
        (["rewind", "{m}", "--to", "1", "--rule", "410.1", "--reason", NOT_UTF8], "--reason"),
        (["accept", "{m}", "--reason", NOT_UTF8], "--reason"),
        (["skip-step", "{m}", "303", "--reason", NOT_UTF8], "--reason"),
        (["act", "{m}", "A", "choose_opening", NOT_UTF8], "CARD"),
    ],
)
def test_non_utf8_judge_text_is_refused_and_nothing_is_appended(tmp_path: Path, stored, argv, option) -> None:
    url, match = stored
    before = events_in(url, match)
    argv = [match if a == "{m}" else a for a in argv]
    refused_cleanly(referee([*argv, "--db", url], tmp_path), option, "is not valid UTF-8 text")
    assert events_in(url, match) == before


def test_non_utf8_database_url_is_refused_without_echoing_it(tmp_path: Path) -> None:
    proc = referee(["matches", "--db", b"postgresql://judge:s3cret\xff@host/db"], tmp_path)
    err = refused_cleanly(proc, "--db", "not valid UTF-8")
    assert "s3cret" not in err


# --- control characters and length --------------------------------------------------------


@pytest.mark.parametrize("title", ["Round 3\nTable 4", "\x1b[2J\x1b[31mRED", "a\tb", "x\u202eevil", "x" * 201])
def test_titles_with_control_characters_or_too_long_are_refused(tmp_path: Path, title: str) -> None:
    db = tmp_path / "m.db"
    result = CliRunner().invoke(cli, ["new", *DECKS, "--title", title, "--db", f"sqlite:///{db}"])
    assert result.exit_code == 2
    assert "--title" in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert not db.exists()


def test_a_long_reason_is_refused_and_a_long_enough_one_kept(stored) -> None:
    url, match = stored
    runner = CliRunner()
    long = "x" * (TEXT_LENGTH + 1)
    result = runner.invoke(cli, ["note", match, long, "--db", url])
    assert result.exit_code == 2 and f"at most {TEXT_LENGTH:,}" in result.output
    result = runner.invoke(cli, ["note", match, "y" * TEXT_LENGTH, "--db", url])
    assert result.exit_code == 0, result.output


def test_text_problem_and_printable_agree_on_what_is_unsafe() -> None:
    for unsafe in ("a\nb", "\x1b[0m", "\x7f", "\x9b", "\u2066", "\udcff"):
        assert text_problem(unsafe, 100) is not None
        shown = printable(unsafe)
        assert text_problem(shown, 100) is None
        assert shown.isascii() or shown.isprintable()
    for fine in ("Alice", "Ōkami ✓", "Round 3, table 4 — semifinal"):
        assert text_problem(fine, 100) is None
        assert printable(fine) == fine


# --- ids and repeated players ---------------------------------------------------------------


def test_new_with_a_bad_id_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    proc = referee(["new", *DECKS, "--id", "bad id!", "--db", f"sqlite:///{db}"], tmp_path)
    refused_cleanly(proc, "--id", "'bad id!' is not a match id")
    assert not db.exists()


def test_a_chosen_id_is_used(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    result = CliRunner().invoke(cli, ["new", *DECKS, "--id", "Round3-Table4", "--json", "--db", url])
    assert json.loads(result.stdout)["match"] == "round3-table4"


@pytest.mark.parametrize(
    "command",
    [
        ["act", "{}", "A", "pass"],
        ["state", "{}"],
        ["log", "{}"],
        ["legal", "{}"],
        ["export", "{}"],
        ["audit", "{}"],
        ["note", "{}", "hello"],
    ],
)
def test_a_malformed_match_id_is_refused_before_the_store_is_opened(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "m.db"
    argv = [a.format("bad;id") for a in command]
    result = CliRunner().invoke(cli, [*argv, "--db", f"sqlite:///{db}"])
    assert result.exit_code == 2, result.output
    assert "is not a match id" in result.output
    assert not db.exists()


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--deck", f"A={BOB}"], "A is given twice"),
        (["--name", "A=Alice", "--name", "A=Alicia"], "A is given twice ('Alice' and 'Alicia')"),
        (["--ruling", "A1=felled", "--ruling", "A1=not_fallen"], "A1 is given twice"),
        (["--name", "C=Carol"], "'C' is not a seat of harem-master: its seats are A, B"),
        (["--deck", f"C={BOB}"], "'C' is not a seat of harem-master: its seats are A, B"),
        (["--name", "A B=Carol"], "'A B' is not a seat"),
        (["--name", "A="], "expected P=NAME"),
        (["--ruling", "A1=maybe"], "expected one of A1=not_fallen|felled, A4=bottom|top"),
    ],
)
def test_a_player_or_ruling_given_twice_or_wrongly_is_an_error(tmp_path: Path, extra: list[str], words: str) -> None:
    db = tmp_path / "m.db"
    result = CliRunner().invoke(cli, ["new", *DECKS, *extra, "--db", f"sqlite:///{db}"])
    assert result.exit_code == 2
    assert words in result.output
    assert not db.exists()


def test_a_position_with_deck_options_is_an_error(tmp_path: Path) -> None:
    scenario = ROOT / "scenarios"
    position = next(p for p in sorted(scenario.rglob("*.yaml")) if "decks" not in p.parts and "records" not in p.parts)
    result = CliRunner().invoke(
        cli, ["new", "--position", str(position), "--seed", "3", "--db", f"sqlite:///{tmp_path / 'm.db'}"]
    )
    assert result.exit_code == 2 and "not both" in result.output


def test_simulate_refuses_a_deck_given_twice() -> None:
    result = CliRunner().invoke(cli, ["simulate", "--games", "1", "--deck", f"A={ALICE}", "--deck", f"A={BOB}"])
    assert result.exit_code == 2 and "A is given twice" in result.output


# --- text from files, and text printed back ---------------------------------------------------


def test_a_record_with_control_characters_in_stored_text_is_refused(tmp_path: Path) -> None:
    cases = {
        'players: {A: {name: "Al\\x1bice", deck: %s}, B: {deck: %s}}': "players.A.name",
        'players: {A: {deck: %s}, B: {deck: %s}}\nactions:\n  - {judge: true, do: note, text: "a\\nb"}': "actions[0].text",
    }
    for i, (players, place) in enumerate(cases.items()):
        path = tmp_path / f"r{i}.yaml"
        path.write_text("format: harem-master-record/1\nseed: 1\n" + players % (ALICE, BOB) + "\n")
        with pytest.raises(InputError) as info:
            load_record(path)
        assert info.value.place == place
        assert "control character" in info.value.message or "newline" in info.value.message
        assert "\x1b" not in info.value.describe()


def test_text_already_stored_is_printed_escaped(tmp_path: Path) -> None:
    from referee.rules.harem_master import start
    from referee.rules.harem_master.decks import deal, load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.store import MatchStore

    url = f"sqlite:///{tmp_path / 'old.db'}"
    catalog = CardCatalog(bundled_pool())
    cards, castles = deal({"A": load_deck(ALICE, catalog), "B": load_deck(BOB, catalog)})
    with MatchStore(url) as store:  # as an older version, which did not check titles, stored it
        store.create(start(cards, castles, seed=1).events, name="Table 4\n\x1b[31mFAKE LINE")
    result = CliRunner().invoke(cli, ["matches", "--db", url])
    assert result.exit_code == 0
    assert "\x1b" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Table 4\\n\\x1b[31mFAKE LINE" in result.output
