"""Bounded input: every file a user hands the referee is refused cleanly (one
line, exit 2, nothing written) when it is too large, nests too deeply,
expands past its bound through YAML aliases, or asks for counts no real game
approaches; and a well-formed file is still read with its line numbers."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee import records
from referee.inputs import (
    DEFAULT_MAX_FILE_SIZE,
    FILE_SIZE_VARIABLE,
    MAX_CARDS,
    MAX_DEPTH,
    InputError,
    load_document,
)
from referee.records import load_record
from referee.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
ALICE = ROOT / "scenarios" / "decks" / "alice.yaml"
BOB = ROOT / "scenarios" / "decks" / "bob.yaml"
MEMORY_LIMIT = 1024**3  # the process that reads a bomb may not grow past 1 GB


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def alias_bomb(levels: int = 9, width: int = 9, indent: str = "") -> str:
    """About a kilobyte of YAML: each level is a list of ``width`` aliases to
    the level before, so it stands for ``width ** levels`` values."""
    lines = [f"{indent}- &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"{indent}- &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def referee(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real command in a fresh process held to ``MEMORY_LIMIT``, so a
    loader that expanded a bomb would fail here instead of eating the machine."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    full_env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=full_env,
        preexec_fn=limit,
        check=False,
    )


def refused(proc: subprocess.CompletedProcess, *words: str) -> str:
    """Exit 2, one line on standard error, no traceback, nothing on standard output."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# --- the alias bomb, as every kind of file --------------------------------------------


def test_a_nested_alias_bomb_is_refused_as_a_deck_a_pool_a_scenario_and_a_record(tmp_path: Path) -> None:
    bomb = alias_bomb()
    assert len(bomb.encode()) < 1200
    deck = write(tmp_path, "deck.yaml", bomb)
    pool = write(tmp_path, "pool.yaml", bomb)
    scenario = write(tmp_path, "scenario.yaml", "name: bomb\nrules: ['306']\nquestion:\n" + alias_bomb(indent="  "))
    record = write(
        tmp_path,
        "record.yaml",
        f"format: harem-master-record/1\nseed: 1\nplayers: {{A: {{deck: {ALICE}}}, B: {{deck: {BOB}}}}}\n"
        "actions:\n" + alias_bomb(indent="  "),
    )
    db = tmp_path / "matches.db"
    url = f"sqlite:///{db}"
    runs = {
        deck: referee("new", "--deck", f"A={deck}", "--deck", f"B={BOB}", "--db", url, cwd=tmp_path),
        pool: referee(
            "new", "--pool", str(pool), "--deck", f"A={ALICE}", "--deck", f"B={BOB}", "--db", url, cwd=tmp_path
        ),
        scenario: referee("scenario", "check", str(scenario), cwd=tmp_path),
        record: referee("audit", str(record), cwd=tmp_path),
    }
    for file, proc in runs.items():
        line = refused(proc, str(file), "values", "alias", FILE_SIZE_VARIABLE)
        assert line.startswith(f"error: {file}:")
    assert refused(referee("import", str(record), "--db", url, cwd=tmp_path), str(record), "alias")
    assert not db.exists()  # nothing written, not even an empty database


def test_an_alias_that_contains_itself_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "deck.yaml", "- &a [Iron Knight, *a]\n")
    with pytest.raises(InputError) as info:
        load_document(path)
    assert info.value.line == 1
    assert "*a refers to a value that contains it" in info.value.message


def test_aliases_within_the_bound_are_read_as_usual(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pool.yaml",
        """
        - &knight {name: Iron Knight, type: character, cost: 2, gender: male}
        - {<<: *knight, name: Iron Lady, gender: female}
    """,
    )
    doc = load_document(path)
    assert doc.data[1] == {"name": "Iron Lady", "type": "character", "cost": 2, "gender": "female"}
    assert doc.line_of((1, "gender")) == 2


def test_deep_nesting_is_refused_in_yaml_and_json(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000 + "\n"
    for name in ("deep.yaml", "deep.json"):
        path = write(tmp_path, name, deep)
        with pytest.raises(InputError) as info:
            load_document(path)
        assert f"nests more than {MAX_DEPTH} levels deep" in info.value.message
    fine = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_document(write(tmp_path, "fine.json", fine)).data is not None
    assert load_document(write(tmp_path, "fine.yaml", fine)).data is not None


def test_a_number_of_thousands_of_digits_is_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path, "record.yaml", "seed: " + "9" * 5000 + "\n")
    with pytest.raises(InputError) as info:
        load_document(path)
    assert info.value.file == str(path)


def test_yaml_errors_are_placed_and_explained(tmp_path: Path) -> None:
    cases = {
        "a: 1\n---\nb: 2\n": (2, "second YAML document"),
        "a: *nowhere\n": (1, "*nowhere has no anchor"),
        "a: &x 1\nb: &x 2\n": (2, "&x is defined twice (first on line 1)"),
        "a: [1, 2\n": (None, "not valid YAML"),
        "a: !!python/object:os.system x\n": (1, "not valid YAML"),
    }
    for i, (text, (line, words)) in enumerate(cases.items()):
        with pytest.raises(InputError) as info:
            load_document(write(tmp_path, f"f{i}.yaml", text))
        assert words in info.value.message
        if line is not None:
            assert info.value.line == line


def test_one_compose_gives_the_data_and_the_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "scenario.yaml",
        """
        name: lines
        setup:
          players:
            A:
              field: [Iron Knight]
              castle: 3
    """,
    )
    doc = load_document(path)
    assert doc.data["setup"]["players"]["A"]["castle"] == 3
    assert doc.line_of(("setup", "players", "A", "castle")) == 6
    assert doc.line_of(("setup", "players", "A", "field", 0)) == 5
    assert doc.line_of(("setup", "nothing", "here")) == 2


def test_json_errors_get_their_line_when_needed(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.json", json.dumps([{"name": "X", "type": "item", "cost": -1}], indent=2))
    doc = load_document(path)
    assert doc.data[0]["cost"] == -1
    assert doc.line_of((0, "cost")) == 5


# --- the size limit ---------------------------------------------------------------------


def test_a_file_past_the_default_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    with open(path, "wb") as f:
        f.truncate(DEFAULT_MAX_FILE_SIZE + 1)  # sparse: costs no disk
    db = tmp_path / "matches.db"
    proc = referee("new", "--deck", f"A={path}", "--deck", f"B={BOB}", "--db", f"sqlite:///{db}", cwd=tmp_path)
    refused(proc, str(path), "larger than 8 MB", f"{FILE_SIZE_VARIABLE}=64M")
    assert not db.exists()


def test_the_limit_is_raised_or_lowered_by_the_environment(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path, "deck.yaml", "- Iron Knight\n" * 200)  # 2,800 bytes
    monkeypatch.setenv(FILE_SIZE_VARIABLE, "2K")
    with pytest.raises(InputError) as info:
        load_document(path)
    assert "larger than 2 KB" in info.value.message
    monkeypatch.setenv(FILE_SIZE_VARIABLE, "4096")
    assert len(load_document(path).data) == 200
    monkeypatch.setenv(FILE_SIZE_VARIABLE, "lots")
    with pytest.raises(InputError) as info:
        load_document(path)
    assert f"{FILE_SIZE_VARIABLE}='lots' is not a size" in info.value.message


def test_a_small_limit_also_bounds_alias_expansion(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path, "deck.yaml", alias_bomb(levels=3, width=9))  # 729 values
    assert len(load_document(path).data) == 3
    monkeypatch.setenv(FILE_SIZE_VARIABLE, "4K")  # 512 values
    with pytest.raises(InputError) as info:
        load_document(path)
    assert "more than 512 values" in info.value.message


# --- counts no real game approaches ----------------------------------------------------------


SCENARIO = """
name: counts
rules: ["306"]
setup:
  players:
    A: {players_a}
"""


@pytest.mark.parametrize(
    "player_a, place",
    [
        ("{castle: 1000000000}", "setup.players.A.castle"),
        ("{castle: {top: [Iron Knight], count: 1000000000}}", "setup.players.A.castle.count"),
        ("{action_stack: 1000000000}", "setup.players.A.action_stack"),
        ("{castle: 600, discard: {discard}}", "setup.players.A.discard"),
    ],
)
def test_a_scenario_with_more_cards_than_any_game_is_refused(tmp_path: Path, player_a: str, place: str) -> None:
    text = SCENARIO.replace("{players_a}", player_a.replace("{discard}", "[" + ", ".join(["Iron Knight"] * 500) + "]"))
    path = write(tmp_path, "s.yaml", text)
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert info.value.place == place
    assert info.value.line == 5
    assert f"more than {MAX_CARDS:,} cards" in info.value.message


def test_the_castle_of_the_issue_exits_2_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", SCENARIO.replace("{players_a}", "{castle: 1000000000}"))
    refused(referee("scenario", "check", str(path), cwd=tmp_path), f"{path}:5: at setup.players.A.castle")


@pytest.mark.parametrize(
    "deck, place, words",
    [
        ("- {card: Iron Knight, count: 1000000000}\n", "[0].count", "from 1 to 51"),
        ("- {random: 1, count: 1000000000}\n", "[0].count", "from 1 to 51"),
        ("- {random: 1, count: 51}\n" * 30, "[20]", f"more than {MAX_CARDS:,} cards"),
        ("- Iron Knight\n" * 5000, f"[{MAX_CARDS}]", f"more than {MAX_CARDS:,} cards"),
    ],
)
def test_a_deck_with_absurd_counts_is_refused_where_written(tmp_path: Path, deck: str, place: str, words: str) -> None:
    path = write(tmp_path, "deck.yaml", deck)
    db = tmp_path / "matches.db"
    proc = referee("new", "--deck", f"A={path}", "--deck", f"B={BOB}", "--db", f"sqlite:///{db}", cwd=tmp_path)
    refused(proc, f"{path}:", f"at {place}:", words)
    assert not db.exists()


def test_a_record_with_more_actions_than_the_limit_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(records, "MAX_ACTIONS", 3)
    path = write(
        tmp_path,
        "r.yaml",
        f"""
        format: harem-master-record/1
        seed: 1
        players: {{A: {{deck: {ALICE}}}, B: {{deck: {BOB}}}}}
        actions:
          - {{player: A, do: concede}}
          - {{player: A, do: concede}}
          - {{player: A, do: concede}}
          - {{player: A, do: concede}}
    """,
    )
    with pytest.raises(InputError) as info:
        load_record(path)
    assert info.value.place == "actions"
    assert "at most 3 actions, got 4" in info.value.message
