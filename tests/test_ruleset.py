"""The Ruleset interface and its registry: every registered game answers the
whole interface, and Harem Master's adapter agrees with the engine it wraps
on random games, event for event (OpenSpiel's random-simulation test)."""

from __future__ import annotations

import inspect
import random
from pathlib import Path
from typing import Any

import pytest

from projections.harem_master import codec, transcript
from projections.harem_master.state import fold
from referee import ruleset as registry
from referee.actions import IllegalAction
from referee.rules import harem_master as rules
from referee.rules.harem_master import views
from referee.rules.harem_master.pool import bundled_pool
from referee.rules.harem_master.ruleset import HAREM_MASTER
from referee.ruleset import BoardParts, Decision, RewindRules, Ruleset
from referee.simulate import random_action, random_deck, vanilla


@pytest.mark.parametrize("game", registry.games())
def test_every_registered_game_answers_the_whole_interface(game: str) -> None:
    found = registry.get(game)
    assert registry.ruleset_fits(found) == []
    assert isinstance(found, Ruleset)
    assert found.id == game
    assert found.rewinds is None or isinstance(found.rewinds, RewindRules)
    assert found.board is None or isinstance(found.board, BoardParts)


@pytest.mark.parametrize("game", registry.games())
def test_members_take_the_arguments_the_interface_names(game: str) -> None:
    """A method's parameters are the Protocol's, by name and kind, so the
    kernel can call any game the same way."""
    found = registry.get(game)
    for name, member in vars(Ruleset).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        wanted = [(p.name, p.kind) for p in inspect.signature(member).parameters.values()][1:]
        have = [(p.name, p.kind) for p in inspect.signature(getattr(found, name)).parameters.values()]
        assert have == wanted, f"{game}.{name}"


def test_the_registry_finds_a_game_by_its_first_event() -> None:
    applied = HAREM_MASTER.start(_decks(3), seed=3)
    first = applied.events[0]
    assert registry.game_of(first) == "harem-master"  # old logs name no game: Harem Master
    assert registry.of_first_event(first) is HAREM_MASTER
    assert registry.get() is HAREM_MASTER


def test_an_unknown_game_is_refused_by_name() -> None:
    with pytest.raises(registry.UnknownGame, match="no game 'chess'.*'harem-master'"):
        registry.get("chess")
    with pytest.raises(ValueError, match="already registered"):
        registry.register("harem-master", "somewhere:else")


def _decks(seed: int, pool: dict | None = None) -> dict:
    rng = random.Random(seed ^ 0x5EED)
    cards = pool if pool is not None else bundled_pool()
    return {"A": random_deck(rng, cards), "B": random_deck(rng, cards)}


def _engine_decision(state) -> Decision | None:
    """What the engine says, in the interface's shape, built independently of the adapter."""
    found = rules.current_decision(state)
    if found is None:
        return None
    kind = rules.KINDS[found.kind]
    return Decision(found.player, found.kind, kind.rule, kind.text)


@pytest.mark.parametrize(
    ("seed", "pool", "deal"),
    [(11, "abilities", "seeded"), (12, "vanilla", "seeded"), (13, "abilities", "table")],
)
def test_the_adapter_agrees_with_the_engine_on_random_games(seed: int, pool: str, deal: str) -> None:
    cards = bundled_pool() if pool == "abilities" else vanilla(bundled_pool())
    decks = _decks(seed, cards)
    hm = HAREM_MASTER
    from referee.rules.harem_master.decks import deal as deal_ids

    ids, castles = deal_ids(decks)
    direct = rules.start(ids, castles, seed=seed, deal=deal)
    through = hm.start(decks, seed=seed, deal=deal)
    assert through.events == direct.events and through.state == direct.state
    state, log = through.state, list(through.events)
    rng = random.Random(seed)
    chances = 0
    for _ in range(400):
        if state.result is not None:
            break
        legal = hm.legal_actions(state)
        assert legal == rules.legal_actions(state)
        wanted = _engine_decision(state)
        got = hm.decision(state)
        if got is not None and got.chance:
            assert got.kind == "reveal" and state.deal == "table" and got.player == wanted.player
            chances += 1
        else:
            assert got == wanted
        action = random_action(state, legal, rng)
        assert hm.is_legal(state, action) is None
        applied = hm.apply(state, action)
        assert applied.events == rules.apply(state, action).events
        before = state
        for event in applied.events:
            assert hm.describe(event, before, "A") == transcript.describe(event, before, "A")
            before = hm.evolve(before, event)
        assert before == applied.state
        state = applied.state
        log.extend(applied.events)
    assert (chances > 0) == (deal == "table"), "a table-dealt match asks the table for its reveals"
    assert hm.fold(log) == fold(log) == state
    for viewer in hm.viewers:
        assert hm.view(state, viewer) == views.state_view(state, viewer)
    assert hm.decode_state(hm.encode_state(state)) == codec.decode_state(codec.encode_state(state)) == state
    outcome = hm.result(state)
    if state.result is None:
        assert outcome is None
    else:
        assert (outcome.winner, outcome.draw, outcome.rule) == (
            state.result.winner,
            state.result.draw,
            state.result.rule,
        )


def test_the_adapter_refuses_as_the_engine_does() -> None:
    state = HAREM_MASTER.start(_decks(5), seed=5).state
    wrong = HAREM_MASTER.action_from_mapping({"player": "A", "do": "attack", "card": "A:1"})
    if rules.current_player(state) == "A":
        wrong = HAREM_MASTER.action_from_mapping({"player": "B", "do": "attack", "card": "B:1"})
    refusal = HAREM_MASTER.is_legal(state, wrong)
    assert refusal is not None and refusal == rules.is_legal(state, wrong)
    with pytest.raises(IllegalAction) as caught:
        HAREM_MASTER.decide(state, wrong)
    assert caught.value.refusal == refusal


def test_the_adapter_knows_harem_masters_corrections() -> None:
    from events.harem_master.game import CardRevealed, HandDrawn

    rewinds = HAREM_MASTER.rewinds
    assert rewinds.rules == ("410.1", "410.2") and "303" in rewinds.skippable
    assert rewinds.revealed(HandDrawn(rule="101.4", player="A", cards=["A:1"]), None) == "cards moved into a hand"
    state = HAREM_MASTER.start(_decks(7), seed=7, deal="table").state
    revealed = CardRevealed(rule="101.3", player="A", card=state.zones["A"].castle[0], name="x")
    assert "castle, 1st from the top" in rewinds.revealed(revealed, state)


def test_a_matchs_setup_starts_the_very_same_match() -> None:
    """``setup_of`` reads back what ``start`` was given: a record replays from it."""
    hm = HAREM_MASTER
    started = hm.start(
        _decks(8),
        seed=8,
        deal="table",
        names={"A": "Ann", "B": "Bo"},
        mode="record",
        options={"rulings": {"A1": "felled"}, "auto_pass": False},
    )
    setup = hm.setup_of(started.events[0])
    assert setup is not None and setup.options == {"rulings": {"A1": "felled"}, "auto_pass": False}
    again = hm.start(
        setup.decks, seed=setup.seed, deal=setup.deal, names=setup.names, mode=setup.mode, options=setup.options
    )
    assert again.events == started.events


def test_chance_outcomes_are_the_tables_reveals() -> None:
    """At a table-dealt match's reveal every unknown card of the owner is an
    outcome, equally likely, and each one is accepted; elsewhere there are none."""
    hm = HAREM_MASTER
    state = hm.start(_decks(9), seed=9, deal="table").state
    rng = random.Random(9)
    while not hm.decision(state).chance:  # the openings (101.1) come before the first reveal (101.3)
        assert hm.chance_outcomes(state) == []
        state = hm.apply(state, random_action(state, hm.legal_actions(state), rng)).state
    assert hm.decision(state).rule == "101.3"
    outcomes = hm.chance_outcomes(state)
    assert len(outcomes) > 1 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert all(hm.is_legal(state, a) is None for a, _ in outcomes)
    seeded = hm.start(_decks(9), seed=9).state
    assert hm.chance_outcomes(seeded) == [] and not hm.decision(seeded).chance


def test_described_actions_name_the_cards() -> None:
    hm = HAREM_MASTER
    state = hm.start(_decks(10), seed=10).state
    action = next(a for a in hm.legal_actions(state) if a.card is not None)
    described = hm.describe_action(state, action)
    assert described["card"] == state.cards[action.card].name and described["card_id"] == action.card


def test_random_decks_are_legal_decks() -> None:
    hm = HAREM_MASTER
    deck = hm.random_deck(random.Random(3), hm.bundled_cards())
    assert hm.deck_problems(deck) == []
    assert hm.deck_problems(deck[:-1]) != []


def _without_format(state: Any) -> dict[str, Any]:
    """A state's fields but the log format it was folded from (also in the
    state kept for a late interception, 306.5c)."""
    d = {k: v for k, v in state.__dict__.items() if k != "log_format"}
    if d.get("passed_over") is not None:
        d["passed_over"] = _without_format(d["passed_over"])
    return d


def test_old_logs_and_records_are_read_as_harem_masters() -> None:
    """Nothing written so far names a game: a log of format 1 (steps derived
    by projections.harem_master.legacy) and the kept match records are Harem Master's,
    and its ruleset folds them to the states the referee had."""
    from events.harem_master.game import MatchStarted
    from referee.records import load_record, replay
    from referee.simulate import decks_for, play_game

    game = play_game(21, decks_for(21, vanilla(bundled_pool()), None))
    old = [
        e.model_copy(update={"log_format": 1}) if isinstance(e, MatchStarted) else e.model_copy(update={"step": None})
        for e in game.events
    ]
    assert "game" not in old[0].model_dump(mode="json")
    found = registry.of_first_event(old[0])
    assert found is HAREM_MASTER
    assert _without_format(found.fold(old)) == _without_format(game.state)
    records = sorted((Path(__file__).resolve().parent.parent / "scenarios" / "records").glob("*.yaml"))
    assert records
    for path in records:
        played = replay(load_record(path))
        assert registry.of_first_event(played.events[0]) is HAREM_MASTER
        assert HAREM_MASTER.fold(played.events) == played.state
