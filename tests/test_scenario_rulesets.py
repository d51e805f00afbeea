"""The scenario runner and match records reach a game only through its ruleset
(docs/rulesets.md, ``referee/scenario.py`` and ``referee/records.py``): the
file's ``game:`` picks the ruleset that reads and runs it, whatever the game,
and the judges' actions and the report are the kernel's."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee import ruleset as registry
from referee.cli import cli
from referee.inputs import Document, InputError
from referee.records import TOP_KEYS, load_record
from referee.rules.harem_master import scenario as harem_master_scenario
from referee.scenario import JUDGE_DOS, Reader, Scenario, ScenarioReport, load_scenario, read_judge_action


class _Toy:
    """A ruleset that answers only what a scenario needs: it reads a file of
    its own shape (``answer:``) and reports the answer as passed or failed."""

    id = "toy"
    name = "Toy"
    seats = ("N", "S")
    record_format = None

    def load_scenario(self, doc: Document) -> Scenario:
        r = Reader(doc, self.seats)
        data = r.mapping(doc.data, (), ("game", "name", "rules", "answer", "winner"), ("name", "rules", "answer"))
        if "winner" in data:
            r.player(data["winner"], ("winner",))
        return Scenario(doc, data["name"], [str(x) for x in data["rules"]], [], None, {}, [], {}, self.id)

    def run_scenario(self, scenario: Any) -> ScenarioReport:
        answer = scenario.doc.data["answer"]
        failures = [] if answer == 42 else [f"expected 42, found {answer}"]
        return ScenarioReport(str(scenario.doc.file), scenario.name, scenario.rules, not failures, failures)


@pytest.fixture()
def toy(monkeypatch: pytest.MonkeyPatch) -> _Toy:
    module = types.ModuleType("toy_ruleset_for_tests")
    module.TOY = _Toy()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry._REGISTERED, "toy", f"{module.__name__}:TOY")
    monkeypatch.delitem(registry._loaded, "toy", raising=False)
    yield module.TOY
    registry._loaded.pop("toy", None)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_scenario_of_any_registered_game_is_read_and_run_by_its_ruleset(tmp_path: Path, toy: _Toy) -> None:
    _write(tmp_path, "right.yaml", "game: toy\nname: Right\nrules: ['1']\nanswer: 42\n")
    _write(tmp_path, "wrong.yaml", "game: toy\nname: Wrong\nrules: ['2']\nanswer: 41\n")
    _write(tmp_path, "seat.yaml", "game: toy\nname: Seat\nrules: ['3']\nanswer: 42\nwinner: A\n")
    result = CliRunner().invoke(cli, ["scenario", "check", "--json", str(tmp_path)])
    assert result.exit_code == 1, result.output
    reports = {Path(r["file"]).name: r for r in json.loads(result.output)["scenarios"]}
    assert reports["right.yaml"]["passed"] is True
    assert reports["wrong.yaml"]["failures"] == ["expected 42, found 41"]
    # The reader's seats are the game's: A is not one of the toy's.
    assert "expected one of N, S, got 'A'" in reports["seat.yaml"]["failures"][0]


def test_a_scenario_naming_no_game_is_harem_masters(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "s.yaml",
        "name: Draw\nrules: ['301']\nsetup: {turn: 1}\n",
    )
    loaded = load_scenario(path)
    assert isinstance(loaded, harem_master_scenario.Scenario) and loaded.game == "harem-master"
    named = load_scenario(_write(tmp_path, "n.yaml", "game: harem-master\nname: Draw\nrules: ['301']\nsetup: {}\n"))
    assert type(named) is type(loaded)


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
    ``auto_pass`` are Harem Master's (``Ruleset.record_keys``), and a mistake
    is told both, in the format's order."""
    assert "rulings" not in TOP_KEYS and "players" in TOP_KEYS
    assert registry.get("harem-master").record_keys == ("rulings", "pool", "cards", "auto_pass")
    path = _write(tmp_path, "r.yaml", "format: harem-master-record/1\nseed: 1\nplayers: {}\nshuffle: yes\n")
    with pytest.raises(InputError) as caught:
        load_record(path)
    assert caught.value.message.endswith(
        "expected one of: format, seed, mode, deal, rulings, pool, cards, auto_pass, players, actions, entries, "
        "chain, head, signature"
    )


def test_harem_masters_rulings_are_what_the_cli_offers() -> None:
    result = CliRunner().invoke(cli, ["new", "--ruling", "A9=x", "--deck", "A=a", "--deck", "B=b"])
    assert result.exit_code == 2
    assert "A1=not_fallen|felled, A4=bottom|top" in result.output
    assert registry.get().rulings == {"A1": ("not_fallen", "felled"), "A4": ("bottom", "top")}
