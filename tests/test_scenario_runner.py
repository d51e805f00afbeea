"""The scenario runner's own behaviour: what it reports for wrong answers and
for files that do not follow the format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.inputs import InputError
from referee.scenario import run_scenario

ONE_CHARACTER = """
name: One character per turn
rules: ["306.1a"]
setup:
  turn: 3
  active: A
  players:
    A:
      hand: [Iron Knight, Bold Squire]
      action_stack: 5
      castle: 20
actions:
  - {player: A, do: play_character, card: Iron Knight}
  - {player: A, do: play_character, card: Bold Squire}
expect:
  refused: {rule: "%s"}
  zones:
    A.hand: {cards: [Bold Squire]}
    A.field: {cards: [Iron Knight]}
    A.castle: {count: %d}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_correct_scenario_passes(tmp_path: Path) -> None:
    report = run_scenario(write(tmp_path, ONE_CHARACTER % ("306.1", 22)))
    assert report.passed, report.failures


def test_a_refusal_citing_a_parent_rule_matches_but_not_the_reverse(tmp_path: Path) -> None:
    assert run_scenario(write(tmp_path, ONE_CHARACTER % ("306.1a", 22))).passed
    report = run_scenario(write(tmp_path, ONE_CHARACTER % ("306.1b", 22)))
    assert not report.passed
    assert "306.1b" in report.failures[0] and "306.1a" in report.failures[0]


def test_a_wrong_expectation_fails_with_a_readable_reason(tmp_path: Path) -> None:
    report = run_scenario(write(tmp_path, ONE_CHARACTER % ("306.1", 30)))
    assert not report.passed
    assert report.failures == ["A.castle: expected 30 cards, found 22 " + report.failures[0].split("found 22 ")[1]]


def test_an_unexpected_refusal_fails_the_scenario(tmp_path: Path) -> None:
    text = ONE_CHARACTER.replace('  refused: {rule: "%s"}\n', "") % 22
    report = run_scenario(write(tmp_path, text))
    assert not report.passed
    assert "action 2 (A play_character) was refused: refused (306.1a)" in report.failures[0]


@pytest.mark.parametrize(
    "broken, place, words",
    [
        ("feild: []", "setup.players.A.feild", "unknown key"),
        ("hand: [No Such Card]", "setup.players.A.hand[0]", "unknown card"),
        ("castle: many", "setup.players.A.castle", "expected"),
        ("action_stack: -1", "setup.players.A.action_stack", ">= 0"),
    ],
)
def test_bad_files_name_the_place_and_what_was_expected(tmp_path: Path, broken: str, place: str, words: str) -> None:
    castle = "action_stack: 0" if broken.startswith("castle:") else "castle: 3"  # a key written once
    text = f"""name: broken
rules: ["306"]
setup:
  players:
    A:
      {castle}
      {broken}
"""
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        run_scenario(path)
    err = info.value
    assert err.file == str(path)
    assert err.place == place
    assert err.line == 7
    assert words in err.message


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    runner = CliRunner()
    good = write(tmp_path, ONE_CHARACTER % ("306.1", 22), "good.yaml")
    write(tmp_path, ONE_CHARACTER % ("306.1", 30), "bad.yaml")  # a failing one beside it
    result = runner.invoke(cli, ["scenario", "check", str(good), "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["passed"] == 1 and doc["failed"] == 0
    assert doc["scenarios"][0] == {
        "file": str(good),
        "name": "One character per turn",
        "rules": ["306.1a"],
        "passed": True,
        "failures": [],
    }
    result = runner.invoke(cli, ["scenario", "check", str(tmp_path), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["failed"] == 1


def test_cli_bad_file_exits_2_without_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = write(tmp_path, "name: x\nrules: [1]\nsetup: {turn: zero}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{path}:3: at setup.turn: expected a whole number" in proc.stderr
    assert proc.stdout == ""
