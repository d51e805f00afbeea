"""Table-dealt matches (``deal: table``): a paper game logged as it is played.

Hidden cards are unknown cards of their owner's deck until the table reveals
them; every reveal is an input bounded by the deck list (100.2). These tests
play whole table-dealt games (the simulated table turns over the true card),
check card conservation with unknown cards after every action, and round-trip
the games through export, import and audit.
"""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest
from click.testing import CliRunner

from events.harem_master.game import CardRevealed, MatchStarted
from projections.harem_master.codec import encode_state
from projections.harem_master.state import HIDDEN_PILES, fold
from referee.cli import cli
from referee.records import add_chain, dump_record, export_record, record_from_dict, replay
from referee.rules.harem_master import is_legal
from referee.rules.harem_master.decks import conservation_errors
from referee.rules.harem_master.hidden import pending
from referee.rules.harem_master.pool import bundled_pool
from referee.simulate import NOT_RANDOM, decks_for, play_game
from referee.store import MatchStore

DECKS = "scenarios/decks"


def _check(state, events, legal) -> None:
    assert not conservation_errors(state)  # 51 cards per player, unknown ones included
    hidden = {c for z in state.zones.values() for pile in HIDDEN_PILES for c in getattr(z, pile)}
    shown = state.unknown - hidden
    if shown:  # card text put an unknown card face up: nothing happens until the table names it (215)
        waiting = pending(state)
        assert waiting is not None and waiting.rule == "215"
        assert [a.do for a in legal if a.do not in NOT_RANDOM] and all(
            a.do == "reveal" for a in legal if a.do not in NOT_RANDOM
        )
    for action in legal:
        assert is_legal(state, action) is None, action


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_table_dealt_game_conserves_cards_and_every_listed_action_is_accepted(seed: int) -> None:
    game = play_game(seed, decks_for(seed, bundled_pool(), None), deal_mode="table", check=_check)
    assert game.state.result is not None
    assert fold(game.events) == game.state
    rules = Counter(e.rule for e in game.events if isinstance(e, CardRevealed))
    assert rules["101.3"] >= 2 and rules["306.5i"] > 0


def test_a_seeded_match_writes_no_deal_and_its_states_no_unknown_cards() -> None:
    game = play_game(4, decks_for(4, bundled_pool(), None))
    first = game.events[0]
    assert isinstance(first, MatchStarted) and first.deal == "seeded"
    assert b'"deal"' not in MatchStarted.__pydantic_serializer__.to_json(first)
    assert not any(isinstance(e, CardRevealed) for e in game.events)
    from projections.harem_master.codec import OPTIONAL

    left_out = {k for k, v in OPTIONAL.items() if game.state.__dict__[k] == v}
    assert {"deal", "unknown", "judge_call"} <= left_out
    assert set(encode_state(game.state)["fields"]) == set(game.state.__dict__) - left_out


def test_a_table_dealt_game_exports_imports_and_audits_to_the_same_events(tmp_path) -> None:
    game = play_game(5, decks_for(5, bundled_pool(), None), deal_mode="table")
    record = export_record(game.events)
    assert record["deal"] == "table"
    reveals = [a for a in record["actions"] if a["do"] == "reveal"]
    assert reveals and all(not str(a["card"]).startswith(("A:", "B:")) for a in reveals)
    replayed = replay(record_from_dict(record))
    assert replayed.violation is None and replayed.events == game.events
    path = tmp_path / "table.yaml"
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:  # signed by the store it goes into, as its own export would be
        path.write_text(dump_record(add_chain(record, game.events, (), store.signer())))
    runner = CliRunner()
    result = runner.invoke(cli, ["import", str(path), "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    mid = json.loads(result.output)["match"]
    with MatchStore(url) as store:
        assert store.events(mid) == game.events
    result = runner.invoke(cli, ["audit", mid, "--db", url, "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["legal"] is True


def test_the_cli_logs_a_table_dealt_match_and_refuses_an_impossible_reveal(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    runner = CliRunner()

    def run(*args: str) -> object:
        return runner.invoke(cli, [*args, "--db", url])

    result = run(
        "new",
        "--deck",
        f"A={DECKS}/vanilla-a.yaml",
        "--deck",
        f"B={DECKS}/vanilla-b.yaml",
        "--deal",
        "table",
        "--id",
        "m-table",
    )
    assert result.exit_code == 0, result.output
    assert run("act", "m-table", "A", "choose_opening", "Little Page").exit_code == 0
    assert run("act", "m-table", "B", "choose_opening", "Stable Boy").exit_code == 0
    legal = json.loads(run("legal", "m-table", "--json").output)
    assert legal["kind"] == "reveal" and legal["reveal"]["rule"] == "101.3"
    state = json.loads(run("state", "m-table", "--json").output)
    assert state["deal"] == "table" and set(state["zones"]["A.castle"]["cards"]) == {"?"}
    assert state["unaccounted"]["A"]["Iron Knight"] == 3
    refused = run("act", "m-table", "A", "reveal", "Zeth Acolyte", "--json")  # a card of B's deck only
    assert refused.exit_code == 1 and json.loads(refused.output)["refused"]["rule"] == "100.2"
    assert run("act", "m-table", "A", "reveal", "Iron Knight").exit_code == 0
    state = json.loads(run("state", "m-table", "--json").output)
    assert state["unaccounted"]["A"]["Iron Knight"] == 2


def test_a_rewind_dry_run_says_which_revealed_cards_it_cannot_hide_again(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    runner = CliRunner()

    def run(*args: str) -> object:
        return runner.invoke(cli, [*args, "--db", url])

    position = "scenarios/table/306.5i-table-random-numbers-revealed.yaml"
    assert run("new", "--position", position, "--id", "m-rewind").exit_code == 0
    assert run("act", "m-rewind", "A", "attack", "Iron Knight").exit_code == 0
    assert run("act", "m-rewind", "B", "intercept", "Border Guard").exit_code == 0
    assert run("act", "m-rewind", "A", "reveal", "Little Page").exit_code == 0
    result = run("rewind", "m-rewind", "--to", "1", "--rule", "410.1", "--reason", "check", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.output)["undo"] if r["type"] == "CardRevealed"]
    assert len(rows) == 1 and rows[0]["reveals"]
    assert "cannot hide it again" in rows[0]["revealed"] and "1st from the top" in rows[0]["revealed"]
    assert run("rewind", "m-rewind", "--to", "1", "--rule", "410.1", "--reason", "check").exit_code == 0
    state = json.loads(run("state", "m-rewind", "--json").output)
    assert state["zones"]["A.castle"]["cards"][0] == "Little Page"  # still known: the table saw it (ruling A36)
    assert state["unaccounted"]["A"]["Little Page"] == 1


def test_card_text_that_turns_a_decks_last_unknown_cards_face_up_lists_their_names() -> None:
    """When card text puts the last unknown cards of a deck face up (a mill of
    the castle's top cards), the table must still be able to name them: the
    names left are those very cards'. (A game from a random run once stopped
    here with no legal action but conceding; the position is now written as
    a scenario, so that it does not depend on which decks a seed draws.)"""
    from referee.rules.harem_master import apply, legal_actions
    from referee.rules.harem_master.notation import action_from_mapping, resolve
    from referee.scenario import load_scenario

    sc = load_scenario("scenarios/table/215-table-card-text-mills-the-last-unknown-cards.yaml")
    state = sc.state
    reached = 0
    for raw, _ in sc.actions:
        waiting = pending(state)
        if waiting is not None and waiting.rule == "215":
            hidden = {c for z in state.zones.values() for pile in HIDDEN_PILES for c in getattr(z, pile)}
            assert not any(c in hidden for c in state.unknown if c[0] == waiting.player)
            named = sorted(state.cards[a.card].name for a in legal_actions(state) if a.do == "reveal" and a.card)
            left = sorted(set(state.cards[c].name for c in state.unknown if c[0] == waiting.player))
            assert named == left
            reached += 1
        state = apply(state, resolve(state, action_from_mapping(raw), sc.labels)).state
    assert reached == 2


@pytest.mark.parametrize("mode", ["strict", "record"])
def test_a_card_on_neither_deck_list_at_a_paper_table(tmp_path, mode: str) -> None:
    """100.2: a card the table reveals that is in the pool but on neither deck
    list: strict mode refuses it naming the deck list that lacks it (exit 1,
    nothing recorded); record mode records it with its 100.2 violation
    (exit 0) and the list's own names stay unaccounted for (ruling A35). A
    name in no pool at all is a typo: exit 2 with a suggestion."""
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    runner = CliRunner()

    def run(*args: str) -> object:
        return runner.invoke(cli, [*args, "--db", url])

    deal = ("--deck", f"A={DECKS}/vanilla-a.yaml", "--deck", f"B={DECKS}/vanilla-b.yaml", "--deal", "table")
    assert run("new", *deal, "--mode", mode, "--id", "m-list").exit_code == 0
    assert run("act", "m-list", "A", "choose_opening", "Little Page").exit_code == 0
    assert run("act", "m-list", "B", "choose_opening", "Stable Boy").exit_code == 0
    before = json.loads(run("state", "m-list", "--json").output)["unaccounted"]["A"]
    typo = run("act", "m-list", "A", "reveal", "Zeth Archmagee")
    assert typo.exit_code == 2 and "did you mean 'Zeth Archmage'" in typo.output and "Traceback" not in typo.output
    pool = tmp_path / "pool.yaml"
    pool.write_text(
        "cards:\n  - {name: Dragon Hatchling, type: character, cost: 2, gender: male, factions: [], physical: 4, mental: 0}\n"
    )
    log = json.loads(run("log", "m-list", "--json").output)["events"]
    result = run("act", "m-list", "A", "reveal", "Dragon Hatchling", "--pool", str(pool), "--json")
    if mode == "strict":
        assert result.exit_code == 1, result.output
        refused = json.loads(result.output)["refused"]
        assert refused["rule"] == "100.2" and "A's deck list has no Dragon Hatchling" in refused["message"]
        assert json.loads(run("log", "m-list", "--json").output)["events"] == log
        # without the pool that has it, the name is no card at all
        assert run("act", "m-list", "A", "reveal", "Dragon Hatchling").exit_code == 2
        return
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["violations"] == ["100.2"]
    state = json.loads(run("state", "m-list", "--json").output)
    assert state["unaccounted"]["A"] == before
    assert state["zones"]["A.castle"]["cards"][0] == "Dragon Hatchling"  # turned for 101.3, face up for now
    rows = json.loads(run("log", "m-list", "--json").output)["events"]
    assert any(r["type"] == "ViolationRecorded" and "A's deck list has no Dragon Hatchling" in r["text"] for r in rows)
    # The record carries the card's definition, so that it replays to the same log.
    with MatchStore(url) as store:
        events = store.events("m-list")
    record = export_record(events)
    assert any(c["name"] == "Dragon Hatchling" for c in record["cards"])
    again = replay(record_from_dict(record))
    assert again.events == events


def test_a_state_is_encoded_the_same_in_every_process() -> None:
    """A rewind stored by one process (the board) is compared by another
    (export, audit) with the state it makes itself: the sets in it (the
    cards nobody knows yet) must be written in one order, not in the order
    of each process's string hashing."""
    import subprocess
    import sys

    program = (
        "import json; from projections.harem_master.state import initial_state; from projections.harem_master.codec import encode_state; "
        "s = initial_state(); s.unknown = frozenset(f'A:{i}' for i in range(1, 40)); "
        "print(json.dumps(encode_state(s)))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(outputs) == 1
