"""Card text in words: every ability of the bundled pool written back in
words from the data the engine runs, the same describer for `referee state`,
`referee legal` and the board."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from referee.cli import cli
from referee.rules.harem_master.describe import ability_text, card_line, card_text
from referee.rules.harem_master.pool import bundled_pool
from tests.test_web import ROOT

DECKS = ["--deck", f"A={ROOT / 'scenarios/decks/alice.yaml'}", "--deck", f"B={ROOT / 'scenarios/decks/bob.yaml'}"]


def test_every_ability_of_the_pool_reads_as_a_sentence() -> None:
    pool = bundled_pool()
    seen = 0
    for cd in pool.values():
        for ability in cd.abilities:
            words = ability_text(ability, cd.name)
            seen += 1
            assert (words[0].isupper() or words[0] == "[") and words.rstrip(")").endswith("."), words
            # No Python or YAML leaks through: reprs, None, snake_case keys.
            assert not re.search(r"None|<|\{|_[a-z]|\b[a-z]+_[a-z]+\b", words), (cd.name, words)
    assert seen >= 50


def test_the_words_say_what_the_data_says() -> None:
    pool = bundled_pool()
    said = {
        name: card_text(pool[name]).get("abilities")
        for name in (
            "Fencing Master",
            "Palace Herald",
            "Lucky Maid",
            "Standard Bearer",
            "Shadow Kunoichi",
            "Royal Tax Collector",
            "Lonely Heart",
            "Zeth Tutor",
            "Poisoned Chalice",
        )
    }
    assert said["Fencing Master"] == ["[T][1]: target character gets +2 physical until end of turn."]
    assert said["Palace Herald"] == ["When Palace Herald enters the field, you may untap Palace Herald."]
    assert said["Lucky Maid"] == [
        "Instead of this: Lucky Maid is captured (409), put Lucky Maid into its owner's hand."
    ]
    assert said["Standard Bearer"] == ["Every other character you control gets +1 physical."]
    assert said["Shadow Kunoichi"][0].startswith("Just before an opponent's character attacks, you may tap target")
    assert said["Royal Tax Collector"] == [
        "[n]: put the top n cards of an opponent's castle into its owner's discard pile."
    ]
    assert said["Lonely Heart"] == [
        "As long as the battle is an approach or there are no male characters you control, Lonely Heart gets +2 mental."
    ]
    assert said["Zeth Tutor"] == [
        '[T]: target character you control gains "This character gets +2 physical." until end of turn.'
    ]
    assert said["Poisoned Chalice"] == ["If there are at most 5 cards in a castle you own, each player loses the game."]
    vanilla = card_text(pool["Bold Squire"])
    assert "abilities" not in vanilla and vanilla["text"] and vanilla["type"] == "character"
    assert card_line(pool["Fencing Master"]).startswith("Fencing Master: character, cost 2")


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_legal_and_state_carry_the_text_of_the_cards_they_name(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'text.db'}"
    match = json.loads(run("new", *DECKS, "--seed", "3", "--json", "--db", db))["match"]
    legal = json.loads(run("legal", match, "--json", "--db", db))
    named = {a["card"] for a in legal["actions"] if "card" in a}
    assert set(legal["cards"]) == named
    assert legal["cards"]["Palace Herald"]["abilities"] == [
        "When Palace Herald enters the field, you may untap Palace Herald."
    ]
    text = run("legal", match, "--db", db)
    assert "Card text:" in text and "referee reads: When Palace Herald enters the field" in text
    # state: only the names the viewer may read (A sees no castle, so no names at all yet).
    judge = json.loads(run("state", match, "--json", "--db", db))
    assert "Palace Herald" in judge["cards"]
    a_view = json.loads(run("state", match, "--json", "--as", "A", "--db", db))
    assert a_view["cards"] == {}
