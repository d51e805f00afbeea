"""The scenario runner and match records reach a game only through its ruleset
(docs/rulesets.md, ``referee/scenario.py`` and ``referee/records.py``): the
file's ``game:`` picks the ruleset, the kernel reads and runs it whatever
the game (the loop, the judges' actions, the report, the expectations every
game may check), and a game's ``scenarios`` capability adds its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee import ruleset as registry
from referee.cli import cli
from referee.inputs import Document, InputError
from referee.records import TOP_KEYS, load_record
from referee.scenario import JUDGE_DOS, Reader, Scenario, load_scenario, read_judge_action


@pytest.fixture()
def toy() -> Any:
    """The toy take-away game (``tests/toygame``, a core and no capability), registered for one test."""
    registry.register("toy-takeaway", "tests.toygame.game:TOY")
    try:
        yield registry.get("toy-takeaway")
    finally:
        registry._REGISTERED.pop("toy-takeaway", None)
        registry._loaded.pop("toy-takeaway", None)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TOY = "game: toy-takeaway\nname: {name}\nrules: ['1', '2']\nsetup: {{counters: 3, first: North}}\n"


def test_a_scenario_of_any_registered_game_is_read_and_run_by_the_kernel(tmp_path: Path, toy: Any) -> None:
    """A game with no ``scenarios`` capability of its own gets its files read
    and run all the same: its position, its moves' arguments, the kernel's
    expectations (a refusal, the decision, the result, events)."""
    take = "actions: [{{player: {who}, do: take, n: {n}}}]\n"
    _write(
        tmp_path,
        "right.yaml",
        TOY.format(name="Right") + take.format(who="North", n=3) + "expect: {result: {winner: North, rule: '2'}}\n",
    )
    _write(
        tmp_path,
        "wrong.yaml",
        TOY.format(name="Wrong") + take.format(who="North", n=2) + "expect: {decision: {player: North}}\n",
    )
    _write(
        tmp_path,
        "refused.yaml",
        TOY.format(name="Refused") + take.format(who="North", n=4) + "expect: {refused: {rule: '1'}}\n",
    )
    _write(tmp_path, "seat.yaml", TOY.format(name="Seat") + take.format(who="A", n=1))
    _write(tmp_path, "argument.yaml", TOY.format(name="Argument") + "actions: [{player: North, do: take, m: 1}]\n")
    result = CliRunner().invoke(cli, ["scenario", "check", "--json", str(tmp_path)])
    assert result.exit_code == 1, result.output
    reports = {Path(r["file"]).name: r for r in json.loads(result.output)["scenarios"]}
    assert reports["right.yaml"]["passed"] is True and reports["refused.yaml"]["passed"] is True
    assert reports["wrong.yaml"]["failures"] == ["expected the decision's player 'North', got 'South'"]
    # The reader's seats and moves are the game's: A is not one of the toy's seats, m none of take's arguments.
    assert "expected one of North, South, got 'A'" in reports["seat.yaml"]["failures"][0]
    assert "unknown key 'm'" in reports["argument.yaml"]["failures"][0]


def test_a_scenario_naming_no_game_is_harem_masters(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "s.yaml",
        "name: Draw\nrules: ['301']\nsetup: {turn: 1}\n",
    )
    loaded = load_scenario(path)
    assert isinstance(loaded, Scenario) and loaded.game == "harem-master" and loaded.catalog is not None
    named = load_scenario(_write(tmp_path, "n.yaml", "game: harem-master\nname: Draw\nrules: ['301']\nsetup: {}\n"))
    assert named.game == loaded.game


def test_an_unknown_game_is_refused_naming_every_game(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.yaml", "game: chess\nname: Mate\nrules: ['1']\nsetup: {}\n")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert "game" in caught.value.describe()
    assert all(game in caught.value.message for game in registry.games())


def test_judges_actions_are_the_kernels_for_every_game(tmp_path: Path) -> None:
    doc = Document(tmp_path / "x.yaml", {})
    reader = Reader(doc, ("N", "S"))
    read_judge_action(reader, {"do": "result", "winner": "S", "by": "Jo"}, "result", ("actions", 0), (), ("1",))
    with pytest.raises(InputError, match="expected one of N, S, draw"):
        read_judge_action(reader, {"do": "result", "winner": "A", "by": "Jo"}, "result", ("actions", 0), (), ("1",))
    with pytest.raises(InputError, match="belongs to a player's action"):
        read_judge_action(reader, {"do": "note", "text": "hi", "card": "x"}, "note", ("actions", 0), ("card",), ("1",))
    with pytest.raises(InputError, match="expected one of 1, got '410.1'"):
        rewind = {"do": "rewind", "to": {"event": 3}, "rule": "410.1", "reason": "x"}
        read_judge_action(reader, rewind, "rewind", ("actions", 0), (), ("1",))
    assert JUDGE_DOS == ("rewind", "note", "skip_step", "accept", "result", "call", "undo")


def test_a_records_header_keys_are_the_formats_and_its_games(tmp_path: Path) -> None:
    """The format's keys are the kernel's; ``rulings``, ``pool``, ``cards`` and
    ``auto_pass`` are Harem Master's (its ``records`` capability's ``keys``),
    and a mistake is told both, in the format's order."""
    assert "rulings" not in TOP_KEYS and "players" in TOP_KEYS
    assert registry.get("harem-master").records.keys == ("rulings", "pool", "cards", "auto_pass")
    path = _write(tmp_path, "r.yaml", "format: harem-master-record/1\nseed: 1\nplayers: {}\nshuffle: yes\n")
    with pytest.raises(InputError) as caught:
        load_record(path)
    assert caught.value.message.endswith(
        "expected one of: format, title, seed, mode, deal, rulings, pool, cards, auto_pass, players, actions, entries, "
        "chain, head, signature"
    )


def test_harem_masters_rulings_are_what_the_cli_offers() -> None:
    result = CliRunner().invoke(cli, ["new", "--ruling", "A9=x", "--deck", "A=a", "--deck", "B=b"])
    assert result.exit_code == 2
    assert "A1=not_fallen|felled, A4=bottom|top" in result.output
    rulings = next(o for o in registry.get().decks.start_options if o.name == "rulings")
    assert rulings.choices == {"A1": ("not_fallen", "felled"), "A4": ("bottom", "top")}
