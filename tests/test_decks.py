"""Decklists: parsing entries, the 100.2 checks, dealing ids, and the sample
decks actually playing a game to its end."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from events.harem_master.cards import CardDef, filler
from referee.inputs import InputError, load_document
from referee.rules import harem_master as rules
from referee.rules.harem_master.decks import DECK_SIZE, check_deck, deal, deck_problems, load_deck, parse_deck
from referee.rules.harem_master.pool import CardCatalog, bundled_pool

DECKS = Path(__file__).resolve().parent.parent / "scenarios" / "decks"
NOT_PLAYABLE = ("concede", "propose_draw", "accept_draw")


@pytest.fixture
def catalog() -> CardCatalog:
    return CardCatalog.with_bundled()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def legal_deck() -> list[CardDef]:
    pool = bundled_pool()
    return [pool["Little Page"]] + [pool["Iron Knight"]] * 3 + [filler(0)] * 47


# --- parsing -----------------------------------------------------------------------


def test_entries_expand_in_order(tmp_path: Path, catalog: CardCatalog) -> None:
    path = write(
        tmp_path,
        "deck.yaml",
        """
        - Little Page
        - {card: Iron Knight, count: 3}
        - {random: 2, count: 46}
        - {random: -4}
        """,
    )
    cards = load_deck(path, catalog)
    assert len(cards) == DECK_SIZE
    pool = bundled_pool()
    assert cards[0] is pool["Little Page"]
    assert cards[1:4] == [pool["Iron Knight"]] * 3
    assert all(c.filler and c.random == 2 and c.type == "event" and c.cost == 0 for c in cards[4:50])
    assert cards[50] == filler(-4)


def test_inline_deck_errors_point_into_the_containing_file(tmp_path: Path, catalog: CardCatalog) -> None:
    path = write(
        tmp_path,
        "match.yaml",
        """
        players:
          A:
            name: Alice
            deck:
              - Little Page
              - {card: Iron Knigt, count: 3}
        """,
    )
    doc = load_document(path)
    with pytest.raises(InputError) as err:
        parse_deck(doc.data["players"]["A"]["deck"], catalog, doc, ("players", "A", "deck"))
    e = err.value
    assert (e.file, e.place, e.line) == (str(path), "players.A.deck[1].card", 6)
    assert "unknown card 'Iron Knigt'" in e.message


def test_deck_uses_the_first_source(tmp_path: Path) -> None:
    mine = CardDef(name="Iron Knight", type="character", cost=1, gender="male", physical=9)
    catalog = CardCatalog({"Iron Knight": mine}, bundled_pool())
    path = write(tmp_path, "deck.yaml", "- Iron Knight\n")
    assert load_deck(path, catalog, check=False) == [mine]


@pytest.mark.parametrize(
    "text, place, expected",
    [
        ("Iron Knight\n", "", "expected a deck: a list of entries"),
        ("- 42\n", "[0]", "expected a card name, {card: NAME, count: N} or {random: N, count: M}"),
        ("- {count: 3}\n", "[0]", "neither card: nor random:"),
        ("- {card: Iron Knight, random: 2}\n", "[0]", "not both"),
        ("- {card: Iron Knight, cnt: 3}\n", "[0].cnt", "unknown key"),
        ("- {card: Iron Knight, label: x}\n", "[0].label", "labels belong in a scenario setup"),
        ("- {card: Iron Knight, count: 0}\n", "[0].count", "from 1 to 51"),
        ("- {card: Iron Knight, count: 1000000}\n", "[0].count", "from 1 to 51"),
        ("- {card: Iron Knight, count: yes}\n", "[0].count", "from 1 to 51"),
        ("- {card: [Iron Knight]}\n", "[0].card", "expected a card name"),
        ("- {random: high, count: 3}\n", "[0].random", "expected a whole number"),
    ],
)
def test_bad_entries(tmp_path: Path, catalog: CardCatalog, text: str, place: str, expected: str) -> None:
    path = write(tmp_path, "deck.yaml", text)
    with pytest.raises(InputError) as err:
        load_deck(path, catalog, check=False)
    assert err.value.file == str(path)
    assert err.value.place == place
    assert expected in err.value.message
    assert err.value.line == 1


# --- 100.2 -------------------------------------------------------------------------


def test_legal_deck_passes() -> None:
    assert deck_problems(legal_deck()) == []
    check_deck(legal_deck(), "deck.yaml")


def test_wrong_size(tmp_path: Path, catalog: CardCatalog) -> None:
    path = write(tmp_path, "deck.yaml", "- Little Page\n- {random: 0, count: 48}\n")
    with pytest.raises(InputError) as err:
        load_deck(path, catalog)
    assert err.value.file == str(path)
    assert err.value.message == "100.2: a deck has exactly 51 cards; this one has 49"
    # The flag lets a deck under construction be read anyway.
    assert len(load_deck(path, catalog, check=False)) == 49


def test_too_big() -> None:
    with pytest.raises(InputError, match="exactly 51 cards; this one has 52"):
        check_deck(legal_deck() + [filler(1)], None)


def test_more_than_three_of_a_name() -> None:
    pool = bundled_pool()
    deck = legal_deck()
    deck[-1] = pool["Iron Knight"]
    with pytest.raises(InputError) as err:
        check_deck(deck, "alice.yaml", ("players", "A", "deck"))
    e = err.value
    assert e.message == "100.2: a deck has at most 3 cards of one name; this one has 4 of 'Iron Knight'"
    assert (e.file, e.place) == ("alice.yaml", "players.A.deck")


def test_fillers_are_exempt_from_the_name_limit() -> None:
    deck = legal_deck()
    assert sum(1 for c in deck if c.name == filler(0).name) == 47
    check_deck(deck, None)


def test_no_cost_one_character() -> None:
    pool = bundled_pool()
    deck = [pool["Iron Knight"]] * 3 + [pool["Long Sword"]] * 3 + [filler(1)] * 45
    with pytest.raises(InputError) as err:
        check_deck(deck, None)
    assert err.value.message.startswith("100.2: a deck has at least one cost-1 character")
    assert err.value.message.endswith("this one has none")


def test_cost_one_non_character_does_not_count() -> None:
    pool = bundled_pool()
    deck = [pool["Healing Herb"], pool["Long Sword"]] + [filler(0)] * 49
    problems = deck_problems(deck)
    assert len(problems) == 1 and "cost-1 character" in problems[0]


def test_every_failure_is_reported_at_once(tmp_path: Path, catalog: CardCatalog) -> None:
    path = write(tmp_path, "deck.yaml", "# a bad deck\n- {card: Long Sword, count: 4}\n")
    with pytest.raises(InputError) as err:
        load_deck(path, catalog)
    message = err.value.message
    assert "exactly 51 cards; this one has 4" in message
    assert "4 of 'Long Sword'" in message
    assert "at least one cost-1 character" in message
    assert err.value.line == 2


# --- dealing -----------------------------------------------------------------------


def test_deal_ids_follow_deck_order() -> None:
    pool = bundled_pool()
    a = legal_deck()
    b = [pool["Court Lady"]] * 3 + [filler(2)] * 48
    cards, castles = deal({"B": b, "A": a})
    assert list(castles) == ["A", "B"]
    assert castles["A"] == [f"A:{i}" for i in range(1, 52)]
    assert castles["B"] == [f"B:{i}" for i in range(1, 52)]
    assert len(cards) == 102
    assert cards["A:1"] is pool["Little Page"]
    assert [cards[f"A:{i}"] for i in range(1, 52)] == a
    assert [cards[f"B:{i}"] for i in range(1, 52)] == b
    assert cards["B:3"] is pool["Court Lady"] and cards["B:4"].filler


# --- the sample decks ------------------------------------------------------------


@pytest.mark.parametrize("name", ["alice", "bob"])
def test_sample_decks_are_legal(catalog: CardCatalog, name: str) -> None:
    cards = load_deck(DECKS / f"{name}.yaml", catalog)
    assert len(cards) == DECK_SIZE
    assert not any(c.filler for c in cards)
    assert len({c.type for c in cards}) == 3
    assert {c.gender for c in cards if c.type == "character"} == {"female", "male"}
    assert max(sum(1 for c in cards if c.name == n) for n in {c.name for c in cards}) <= 3


@pytest.mark.parametrize("seed", range(8))
def test_sample_decks_play_a_game_to_the_end(catalog: CardCatalog, seed: int) -> None:
    decks = {p: load_deck(DECKS / f"{n}.yaml", catalog) for p, n in (("A", "alice"), ("B", "bob"))}
    cards, castles = deal(decks)
    state = rules.start(cards, castles, seed=seed).state
    pick = random.Random(seed)
    for _ in range(5000):
        if state.result is not None:
            break
        actions = [a for a in rules.legal_actions(state) if a.do not in NOT_PLAYABLE]
        assert actions, f"no playable action at step {state.step}"
        state = rules.apply(state, pick.choice(actions)).state
    assert state.result is not None, "the game did not end within 5000 actions"
    assert state.result.rule not in ("102.7", "102.8")
