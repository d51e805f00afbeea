"""Card pools: loading, errors that point into the file, the bundled pool,
and resolving names through ordered sources."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from events.harem_master.cards import CardDef
from referee.inputs import InputError, load_document
from referee.rules.harem_master.pool import BUNDLED_POOL_PATH, CardCatalog, bundled_pool, load_pool, parse_cards


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


KNIGHT = """
  - name: Iron Knight
    type: character
    cost: 2
    gender: male
    factions: [Kingdom]
    physical: 3
    mental: 1
"""


# --- loading -------------------------------------------------------------------


def test_list_pool(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pool.yaml",
        KNIGHT
        + """
  - {name: Long Sword, type: item, cost: 1, random: -2}
""",
    )
    pool = load_pool(path)
    assert list(pool) == ["Iron Knight", "Long Sword"]
    knight = pool["Iron Knight"]
    assert (knight.type, knight.cost, knight.gender, knight.factions) == ("character", 2, "male", ["Kingdom"])
    assert (knight.physical, knight.mental) == (3, 1)
    assert pool["Long Sword"].random == -2
    assert pool["Long Sword"].gender is None


def test_mapping_pool(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "cards:\n" + KNIGHT)
    assert list(load_pool(path)) == ["Iron Knight"]


def test_json_pool(tmp_path: Path) -> None:
    path = tmp_path / "pool.json"
    path.write_text(
        json.dumps({"cards": [{"name": "Herb", "type": "event", "cost": 1, "icons": ["OT"]}]}),
        encoding="utf-8",
    )
    pool = load_pool(path)
    assert pool["Herb"].icons == ["OT"]


def test_empty_list_pool_is_allowed(tmp_path: Path) -> None:
    assert load_pool(write(tmp_path, "pool.yaml", "[]\n")) == {}


# --- errors ----------------------------------------------------------------------


def test_unknown_key_names_file_path_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pool.yaml",
        """
        cards:
          - name: Iron Knight
            type: character
            cost: 2
            gender: male
          - name: Court Lady
            type: character
            cost: 1
            gender: female
            phisical: 2
        """,
    )
    with pytest.raises(InputError) as err:
        load_pool(path)
    e = err.value
    assert e.file == str(path)
    assert e.place == "cards[1].phisical"
    assert e.line == 10
    assert "unknown key" in e.message
    assert str(e).startswith(f"{path}:10: at cards[1].phisical: unknown key")


def test_negative_cost_error_matches_the_documented_shape(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pool.yaml",
        """
        - {name: A, type: event, cost: 0}
        - {name: B, type: event, cost: 0}
        - {name: C, type: event, cost: 0}
        - name: D
          type: event
          cost: -1
        """,
    )
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert str(err.value) == (f"{path}:6: at [3].cost: Input should be greater than or equal to 0 (got -1)")


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "name: my pool\ncards: []\n")
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert err.value.place == "name"
    assert err.value.line == 1
    assert "only cards:" in err.value.message


def test_mapping_without_cards(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "{}\n")
    with pytest.raises(InputError, match="no cards:"):
        load_pool(path)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "is empty"),
        ("42\n", "a list of card definitions"),
        ("cards: Iron Knight\n", "expected a list of card definitions"),
        ("- Iron Knight\n", "expected a card definition"),
    ],
)
def test_wrong_shapes(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "pool.yaml", text)
    with pytest.raises(InputError, match=expected) as err:
        load_pool(path)
    assert err.value.file == str(path)


def test_duplicate_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pool.yaml",
        """
        cards:
          - {name: Long Sword, type: item, cost: 1}
          - {name: Healing Herb, type: event, cost: 1}
          - {name: Long Sword, type: item, cost: 2}
        """,
    )
    with pytest.raises(InputError) as err:
        load_pool(path)
    e = err.value
    assert e.place == "cards[2].name"
    assert e.line == 4
    assert "duplicate card name 'Long Sword'" in e.message
    assert "cards[0], line 2" in e.message


def test_bad_type(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "- {name: X, type: spell, cost: 1}\n")
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert err.value.place == "[0].type"
    assert "'character', 'event' or 'item'" in err.value.message
    assert "'spell'" in err.value.message


def test_bad_gender(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "- {name: X, type: character, cost: 1, gender: girl}\n")
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert err.value.place == "[0].gender"
    assert "'female' or 'male'" in err.value.message


def test_character_without_gender(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "- {name: X, type: character, cost: 1}\n")
    with pytest.raises(InputError, match=r"needs gender: female or male \(211.1\)") as err:
        load_pool(path)
    assert err.value.place == "[0]"


@pytest.mark.parametrize(
    "extra, word",
    [("gender: female", "gender"), ("physical: 2", "physical"), ("factions: [Zeth]", "factions")],
)
def test_non_character_with_character_fields(tmp_path: Path, extra: str, word: str) -> None:
    path = write(tmp_path, "pool.yaml", f"- {{name: X, type: event, cost: 1, {extra}}}\n")
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert f"{word} " in err.value.message
    assert "character cards only" in err.value.message
    assert err.value.line == 1


def test_pool_cannot_declare_a_filler(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "- {name: X, type: event, cost: 0, filler: true}\n")
    with pytest.raises(InputError) as err:
        load_pool(path)
    assert err.value.place == "[0].filler"
    assert "{random: N}" in err.value.message


def test_name_like_an_instance_id_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "pool.yaml", "- {name: 'A:12', type: event, cost: 0}\n")
    with pytest.raises(InputError, match="looks like an instance id"):
        load_pool(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_pool(tmp_path / "nope.yaml")


def test_parse_cards_inside_a_scenario(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "scenario.yaml",
        """
        name: x
        cards:
          - {name: Odd Card, type: event, cost: 0}
          - {name: Bad Card, type: event, cost: nope}
        """,
    )
    doc = load_document(path)
    with pytest.raises(InputError) as err:
        parse_cards(doc.data["cards"], doc, ("cards",))
    assert err.value.place == "cards[1].cost"
    assert err.value.line == 4


# --- the bundled pool -----------------------------------------------------------


def test_bundled_pool_file_is_next_to_the_module() -> None:
    assert BUNDLED_POOL_PATH.is_file()
    assert BUNDLED_POOL_PATH.read_text(encoding="utf-8").startswith("#")


def test_bundled_pool_is_cached() -> None:
    assert bundled_pool() is bundled_pool()


def test_bundled_pool_covers_what_tests_and_scenarios_need() -> None:
    pool = bundled_pool()
    cards = [c for c in pool.values() if not c.abilities]  # the vanilla cards
    assert 35 <= len(cards) <= 50
    characters = [c for c in cards if c.type == "character"]
    assert {c.gender for c in characters} == {"female", "male"}
    factions = {f for c in characters for f in c.factions}
    assert len(factions) >= 5
    assert any(len(c.factions) >= 2 for c in characters)
    assert any(not c.factions for c in characters)
    assert any(c.physical < 0 for c in characters)
    assert any(c.mental < 0 for c in characters)
    randoms = {c.random for c in cards}
    assert min(randoms) == -4 and max(randoms) == 3
    assert {c.cost for c in cards} == {0, 1, 2, 3, 4}
    cost1 = [c for c in characters if c.cost == 1]
    assert len(cost1) >= 6
    assert {c.gender for c in cost1} == {"female", "male"}
    events = [c for c in cards if c.type == "event"]
    assert any("OT" in c.icons for c in events)
    assert any("OT" not in c.icons for c in events)
    assert any(c.type == "item" for c in cards)
    assert len([c for c in characters if "PA" in c.icons]) == 2
    assert all("PA" not in c.icons for c in cards if c.type != "character")
    assert any(c.type == "event" and c.cost == 0 and c.random == 0 and not c.icons for c in events)
    assert all(c.text for c in cards)
    assert not any(c.filler for c in cards)


def test_bundled_pool_has_the_spec_examples() -> None:
    pool = bundled_pool()
    knight = pool["Iron Knight"]
    assert (knight.type, knight.gender, knight.cost, knight.factions, knight.physical, knight.mental) == (
        "character",
        "male",
        2,
        ["Kingdom"],
        3,
        1,
    )
    for name, gender in (("Bold Squire", "male"), ("Little Page", "male"), ("Court Lady", "female")):
        card = pool[name]
        assert (card.type, card.cost, card.gender) == ("character", 1, gender)
    assert pool["Healing Herb"].type == "event"
    assert pool["Long Sword"].type == "item"


# --- the catalog --------------------------------------------------------------------


def test_catalog_first_match_wins(tmp_path: Path) -> None:
    mine = CardDef(name="Iron Knight", type="character", cost=5, gender="male")
    pool = {"Iron Knight": CardDef(name="Iron Knight", type="character", cost=4, gender="male")}
    other = {"Odd": CardDef(name="Odd", type="event", cost=0)}
    catalog = CardCatalog({"Iron Knight": mine}, pool, other, bundled_pool())
    assert catalog.get("Iron Knight") is mine
    assert catalog.get("Odd") is other["Odd"]
    assert catalog.get("Court Lady") is bundled_pool()["Court Lady"]
    assert catalog.get("Nobody") is None
    assert "Odd" in catalog and "Nobody" not in catalog
    assert CardCatalog.with_bundled(pool).get("Iron Knight") is pool["Iron Knight"]


def test_catalog_require_places_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, "deck.yaml", "- Iron Knight\n- Iron Knigt\n")
    doc = load_document(path)
    catalog = CardCatalog.with_bundled()
    assert catalog.require("Iron Knight", doc, (0,)) is bundled_pool()["Iron Knight"]
    with pytest.raises(InputError) as err:
        catalog.require("Iron Knigt", doc, (1,))
    e = err.value
    assert (e.file, e.place, e.line) == (str(path), "[1]", 2)
    assert e.message.startswith(
        "unknown card 'Iron Knigt' (not in the scenario's cards, the pool, or the bundled rules-test pool)"
    )
    assert "did you mean 'Iron Knight'?" in e.message
