"""Card pools with abilities (docs/abilities.md): the vocabulary is read into
typed models, and every mistake in it is an error naming the file, the place
in it and what was expected (exit 2 from the command line)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from events.harem_master.abilities import Activated, Static, Triggered
from referee.inputs import InputError
from referee.rules.harem_master.pool import load_pool

FENCING_MASTER = """\
cards:
  - name: Fencing Master
    type: character
    cost: 2
    gender: male
    physical: 2
    text: "[T][1]: target character gets +2 physical until end of turn."
    abilities:
      - kind: activated
        cost: "[T][1]"
        effects:
          - modify: {what: {target: {type: character}}, physical: 2, until: end_of_turn}
      - kind: triggered
        on: {event: enter_field, card: self}
        effects: [{untap: self}]
      - kind: static
        if: {count: {gender: female, controller: you}, at_least: 2}
        effects: [{modify: {what: self, mental: 1}}]
"""


def write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "pool.yaml"
    f.write_text(text, encoding="utf-8")
    return f


def test_abilities_are_read_into_their_kinds(tmp_path: Path) -> None:
    card = load_pool(write(tmp_path, FENCING_MASTER))["Fencing Master"]
    activated, triggered, static = card.abilities
    assert isinstance(activated, Activated) and activated.parsed_cost.tap and activated.parsed_cost.amount == 1
    assert isinstance(triggered, Triggered) and triggered.on.event == "enter_field" and triggered.timing == "after"
    assert isinstance(static, Static) and static.if_ is not None


@pytest.mark.parametrize(
    "change, line, place, words",
    [
        ("- modify: {what:", 12, "cards[0].abilities[0].effects[0]", "'modfy' is not a known effect"),
        ("on: {event: enter_field", 14, "cards[0].abilities[1].on", "unknown event 'enter_feild'"),
        ("effects: [{modify: {what: self, mental: 1}}]", 18, "cards[0].abilities[2].effects", "remove until:"),
        ('cost: "[T][1]"', 10, "cards[0].abilities[0].cost", "a cost is written in icons"),
        ("kind: triggered", 13, "cards[0].abilities[1]", "unknown kind 'trigered'"),
    ],
)
def test_a_mistake_names_the_file_and_the_place(tmp_path: Path, change: str, line: int, place: str, words: str) -> None:
    broken = {
        "- modify: {what:": "- modfy: {what:",
        "on: {event: enter_field": "on: {event: enter_feild",
        "effects: [{modify: {what: self, mental: 1}}]": "effects: [{modify: {what: self, mental: 1, until: end_of_turn}}]",
        'cost: "[T][1]"': 'cost: "T1"',
        "kind: triggered": "kind: trigered",
    }[change]
    f = write(tmp_path, FENCING_MASTER.replace(change, broken))
    with pytest.raises(InputError) as info:
        load_pool(f)
    err = info.value
    assert err.file == str(f) and err.place == place and err.line == line
    assert words in err.message


def test_the_command_line_exits_2_naming_the_place(tmp_path: Path) -> None:
    f = write(tmp_path, FENCING_MASTER.replace("- modify: {what:", "- modfy: {what:"))
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: x\nrules: ['402']\npool: {f.name}\nsetup: {{}}\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", str(scenario)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "cards[0].abilities[0].effects[0]" in result.stderr and "Traceback" not in result.stderr


def test_on_and_yes_are_words_not_booleans(tmp_path: Path) -> None:
    """YAML 1.1 reads on/yes/no as booleans; the formats mean the words."""
    card = load_pool(write(tmp_path, FENCING_MASTER))["Fencing Master"]
    assert card.abilities[1].on.card == "self"


def test_use_is_for_event_cards_and_equip_for_items(tmp_path: Path) -> None:
    text = FENCING_MASTER.replace("kind: triggered", "kind: use").replace(
        "        on: {event: enter_field, card: self}\n", ""
    )
    with pytest.raises(InputError, match="kind: use is what an event card does"):
        load_pool(write(tmp_path, text))
    with pytest.raises(InputError, match="equip: is for item cards"):
        load_pool(
            write(tmp_path, FENCING_MASTER.replace("    physical: 2\n", "    physical: 2\n    equip: {gender: male}\n"))
        )
