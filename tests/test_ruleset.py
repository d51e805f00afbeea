"""The ``Ruleset`` and its registry: every registered game is one, with a
small core and capabilities of their Protocols; a game lacking one is told
so in one line; the kernel's procedure refuses, lists chance outcomes and
reads a match's setup back as the game says. (That the procedure decides
as each game's engine did is ``tests/test_procedure_golden.py``; that every
game keeps its promises, ``tests/test_conformance.py``.)"""

from __future__ import annotations

import random
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import pytest

from referee import ruleset as registry
from referee.actions import IllegalAction, Refusal
from referee.capabilities import CAPABILITIES
from referee.rules.harem_master.game import HAREM_MASTER
from referee.rules.harem_master.pool import bundled_pool
from referee.ruleset import Lacks, Ruleset
from referee.simulate import random_action, random_deck, vanilla


@pytest.mark.parametrize("game", registry.games())
def test_every_registered_game_is_a_ruleset_with_its_capabilities(game: str) -> None:
    """A game is a ``Ruleset``; each capability it has is its Protocol."""
    found = registry.get(game)
    assert isinstance(found, Ruleset) and found.id == game
    for name, protocol in CAPABILITIES.items():
        capability = getattr(found, name)
        assert capability is None or isinstance(capability, protocol), (game, name)


def test_the_core_a_game_must_write_is_small() -> None:
    """The members without a default are the core: at most about 20."""
    core = [f.name for f in fields(Ruleset) if f.init and f.default is MISSING and f.default_factory is MISSING]
    assert core == [
        "id",
        "name",
        "rules_document",
        "seats",
        "outside",
        "first_events",
        "initial_state",
        "evolve",
        "position",
        "decision",
        "moves",
        "action_from_mapping",
        "view",
        "describe",
    ]


def test_a_game_lacking_a_capability_is_told_so_in_one_line() -> None:
    scp = registry.get("scp-tcg-s4")
    with pytest.raises(Lacks) as lacks:
        scp.need("decks", "start from a position instead")
    assert lacks.value.refusal.rule == "4" and "\n" not in lacks.value.refusal.reason
    assert lacks.value.refusal.reason == (
        "SCP-TCG-JP-J 購買部版, chapter 4 (zones) has no decks or card pools: start from a position instead"
    )
    assert HAREM_MASTER.need("decks") is HAREM_MASTER.decks


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


def test_a_refusal_before_a_check_cites_the_rule_that_forbids_it() -> None:
    """Whose decision it is, the other side of the turn (214, 406.1): the
    kernel asks the game (``Moves.elsewhere``) for an action that answers no
    decision in front of the table, and refuses it citing that rule."""
    state = HAREM_MASTER.start(_decks(5), seed=5).state
    d = HAREM_MASTER.decision(state)
    other = "B" if d.player == "A" else "A"
    wrong = HAREM_MASTER.action_from_mapping({"player": other, "do": "keep"})
    refusal = HAREM_MASTER.is_legal(state, wrong)
    assert refusal is not None and refusal.rule in ("101.1", "406.1") and d.player in refusal.reason
    with pytest.raises(IllegalAction) as caught:
        HAREM_MASTER.decide(state, wrong)
    assert caught.value.refusal == refusal
    nobody = HAREM_MASTER.action_from_mapping({"player": "C", "do": "concede"})
    assert HAREM_MASTER.is_legal(state, nobody) == Refusal(
        "100.1", "Only players A and B take part in a game, not 'C'."
    )


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
    setup = hm.records.setup_of(started.events[0])
    assert setup is not None and setup.options == {"rulings": {"A1": "felled"}, "auto_pass": False}
    again = hm.start(
        setup.decks, seed=setup.seed, deal=setup.deal, names=setup.names, mode=setup.mode, options=setup.options
    )
    assert again.events == started.events


def test_chance_outcomes_are_the_tables_reveals() -> None:
    """At a table-dealt match's reveal every unknown card of the owner is an
    outcome, equally likely, and each one is accepted; elsewhere there are none."""
    hm = HAREM_MASTER
    chance = hm.selfplay.chance_outcomes
    state = hm.start(_decks(9), seed=9, deal="table").state
    rng = random.Random(9)
    while not hm.decision(state).chance:  # the openings (101.1) come before the first reveal (101.3)
        assert chance(state) == []
        state = hm.apply(state, random_action(state, hm.legal_actions(state), rng)).state
    assert hm.decision(state).rule == "101.3"
    outcomes = chance(state)
    assert len(outcomes) > 1 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert all(hm.is_legal(state, a) is None for a, _ in outcomes)
    seeded = hm.start(_decks(9), seed=9).state
    assert chance(seeded) == [] and not hm.decision(seeded).chance


def test_described_actions_name_the_cards() -> None:
    hm = HAREM_MASTER
    state = hm.start(_decks(10), seed=10).state
    action = next(a for a in hm.legal_actions(state) if a.card is not None)
    described = hm.describe_action(state, action)
    assert described["card"] == state.cards[action.card].name and described["card_id"] == action.card


def test_random_decks_are_legal_decks() -> None:
    decks = HAREM_MASTER.decks
    deck = decks.random_deck(random.Random(3), decks.bundled_cards())
    assert decks.deck_problems(deck) == []
    assert decks.deck_problems(deck[:-1]) != []


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


def test_the_default_lines_tell_cards_apart_by_where_they_lie() -> None:
    """``action_lines`` (the kit's default): a card's id in brackets where
    the viewer may know it (None: not at all), where it lies in parentheses
    where the game says so (``card_at``); ``by_kind_and_subject`` groups
    described actions by kind, then by their first argument, each once."""
    described = [
        {"player": "A", "do": "move", "card": "face-down", "card_id": None, "card_at": "A.keter #1", "to": "A.site"},
        {"player": "A", "do": "move", "card": "face-down", "card_id": None, "card_at": "A.keter #2", "to": "A.site"},
        {"player": "B", "do": "move", "card": "face-down", "card_id": "A:6", "card_at": "A.keter #2", "to": "B.site"},
        {"player": "A", "do": "count", "zone": "A.keter"},
        {"player": "B", "do": "order", "cards": ["X", "Y"], "cards_ids": ["A:1", "A:2"], "cards_at": ["#1", "#2"]},
        {"player": "A", "do": "take", "card": "Gem", "card_id": "A:3", "placed_at": "left"},
    ]
    assert [line for line, _ in registry.action_lines(described)] == [
        "A move card=face-down (A.keter #1) to=A.site",
        "A move card=face-down (A.keter #2) to=A.site",
        "B move card=face-down (A.keter #2) [A:6] to=B.site",
        "A count zone=A.keter",
        "B order cards=X (#1),Y (#2) [A:1,A:2]",
        "A take card=Gem [A:3] placed_at=left",  # an argument of its own that ends in _at
    ]
    groups = registry.by_kind_and_subject(described)
    assert [(g.do, g.subject, g.indices) for g in groups] == [
        ("move", "card=face-down (A.keter #1)", (0,)),
        ("move", "card=face-down (A.keter #2)", (1, 2)),
        ("count", "zone=A.keter", (3,)),
        ("order", "cards=X (#1),Y (#2)", (4,)),
        ("take", "card=Gem", (5,)),
    ]
