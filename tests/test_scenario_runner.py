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


BAD_CASTLE = "name: Bad castle\nrules: ['306']\nsetup:\n  players:\n    A:\n      castle: many\n"


def test_a_bad_file_in_a_folder_is_that_files_failure_and_the_rest_run(tmp_path: Path) -> None:
    """One unreadable question must not hide what the other questions answer:
    it is a failed entry of its own, in the contract's shape, naming the file,
    the line, the place and what was expected; the exit code is 1."""
    import subprocess
    import sys

    good = write(tmp_path, ONE_CHARACTER % ("306.1", 22), "a-good.yaml")
    bad = write(tmp_path, BAD_CASTLE, "b-bad.yaml")
    broken = write(tmp_path, "name: [unclosed\n", "c-broken.yaml")
    wrong = write(tmp_path, ONE_CHARACTER % ("306.1", 30), "d-wrong.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["passed"], doc["failed"]) == (1, 3)
    by_file = {s["file"]: s for s in doc["scenarios"]}
    assert [s["file"] for s in doc["scenarios"]] == [str(good), str(bad), str(broken), str(wrong)]
    assert set(by_file[str(bad)]) == {"file", "name", "rules", "passed", "failures"}
    assert by_file[str(bad)]["name"] == "Bad castle" and by_file[str(bad)]["rules"] == ["306"]
    assert by_file[str(bad)]["passed"] is False
    assert by_file[str(bad)]["failures"] == [
        f"not read: {bad}:6: at setup.players.A.castle: expected a whole number, got text ('many')"
    ]
    assert by_file[str(broken)]["name"] == "c-broken.yaml" and by_file[str(broken)]["rules"] == []
    assert (
        by_file[str(broken)]["failures"][0].startswith(f"not read: {broken}:")
        and "YAML" in by_file[str(broken)]["failures"][0]
    )
    assert by_file[str(good)]["passed"] is True
    assert by_file[str(wrong)]["failures"][0].startswith("A.castle: expected 30 cards")
    text = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", str(tmp_path)], capture_output=True, text=True
    )
    assert text.returncode == 1
    assert f"FAIL {bad}: Bad castle [306]" in text.stdout
    assert f"     - not read: {bad}:6: at setup.players.A.castle" in text.stdout
    assert "1 passed, 3 failed" in text.stdout


def test_a_bad_pool_named_by_one_scenario_fails_only_that_scenario(tmp_path: Path) -> None:
    runner = CliRunner()
    write(tmp_path, "- {name: Broken, type: charcter, cost: 1}\n", "pool.yml")
    write(tmp_path, "name: Uses the pool\nrules: ['100.2']\npool: pool.yml\nsetup: {}\n", "a.yaml")
    write(tmp_path, ONE_CHARACTER % ("306.1", 22), "b.yaml")
    result = runner.invoke(cli, ["scenario", "check", str(tmp_path), "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert (doc["passed"], doc["failed"]) == (1, 1)
    (failure,) = doc["scenarios"][0]["failures"]
    assert failure.startswith(f"not read: {tmp_path / 'pool.yml'}:1: at [0].type")


@pytest.mark.parametrize("several", [False, True])
def test_nothing_readable_is_exit_2_with_one_line_per_file(tmp_path: Path, several: bool) -> None:
    """With no file that could be read nothing ran: exit 2, each file's error
    on a line of its own, nothing on standard output (a single bad file named
    on its own keeps the usual one-line error)."""
    import subprocess
    import sys

    bad = write(tmp_path, BAD_CASTLE, "bad.yaml")
    paths = [str(bad)]
    if several:
        paths.append(str(write(tmp_path, "name: [unclosed\n", "broken.yaml")))
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", *paths, "--json"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == len(paths)
    assert lines[0] == f"error: {bad}:6: at setup.players.A.castle: expected a whole number, got text ('many')"


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    runner = CliRunner()
    write(tmp_path, ONE_CHARACTER % ("306.1", 22), "good.yaml")
    result = runner.invoke(cli, ["scenario", "check", str(tmp_path), str(tmp_path / "nope.yaml")])
    assert isinstance(result.exception, InputError) and "no such file or folder" in str(result.exception)


# --- where a position stands (`setup.step`) -------------------------------------------

OT_IN_HAND = """
name: step
rules: ["305", "306"]
setup:
  turn: 3
  active: A
  %s
  players:
    A: {hand: [Court Lady], action_stack: 2, castle: 10}
    B: {hand: [Smoke Bomb], action_stack: 1, castle: 10}
actions:
  - {player: %s, do: %s%s}
expect:
  player: %s
"""


@pytest.mark.parametrize(
    "step, first, do, then",
    [
        # The contract: `main` has 301-305 behind it, so the active player acts
        # first even though B holds a usable [OT] card (written with no step,
        # and with the harmless format markers).
        ("", "A", "play_character", "B"),
        ("step: main", "A", "play_character", "B"),
        ("step: main\nformat: 1", "A", "play_character", "B"),
        ("step: main\nformat: 2", "A", "play_character", "B"),
        # `"305"`: the 305 window is open, so B is asked first.
        ('step: "305"', "B", "pass", "A"),
        ("step: 305", "B", "pass", "A"),
    ],
)
def test_step_main_is_after_305_and_step_305_is_before_it(
    tmp_path: Path, step: str, first: str, do: str, then: str
) -> None:
    fmt = ""
    if "format" in step:
        step, fmt = step.split("\n")
    card = ", card: Court Lady" if do == "play_character" else ""
    text = fmt + "\n" + OT_IN_HAND % (step, first, do, card, then)
    report = run_scenario(write(tmp_path, text))
    assert report.passed, report.failures


def test_step_main_without_auto_pass_still_starts_with_the_active_player(tmp_path: Path) -> None:
    text = OT_IN_HAND % ("auto_pass: false", "A", "play_character", ", card: Court Lady", "B")
    assert run_scenario(write(tmp_path, text)).passed
    text = OT_IN_HAND % ('auto_pass: false\n  step: "305"', "A", "play_character", ", card: Court Lady", "B")
    report = run_scenario(write(tmp_path, text))
    assert not report.passed
    assert report.failures[0].startswith("action 1 (A play_character) was refused: refused (")


def test_step_main_where_305_passes_by_itself_adds_no_event(tmp_path: Path) -> None:
    """A position whose 305 window would pass by itself is logged as it
    always was, so `{event: N}` rewinds written against it keep their meaning."""
    from referee.scenario import load_scenario

    text = OT_IN_HAND.replace("B: {hand: [Smoke Bomb], action_stack: 1, castle: 10}", "B: {castle: 10}")
    sc = load_scenario(write(tmp_path, text % ("step: main", "A", "play_character", ", card: Court Lady", "B")))
    assert [type(e).__name__ for e in sc.events] == ["PositionSetUp"]
    sc = load_scenario(write(tmp_path, OT_IN_HAND % ("step: main", "A", "play_character", ", card: Court Lady", "B")))
    assert [type(e).__name__ for e in sc.events] == ["PositionSetUp", "WindowPassed"]


def test_an_unknown_step_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        run_scenario(write(tmp_path, OT_IN_HAND % ("step: middle", "A", "pass", "", "A")))
    assert info.value.place == "setup.step" and "main, 305, start" in info.value.message
