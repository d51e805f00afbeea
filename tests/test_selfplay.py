"""Random self-play as a consistency test (OpenSpiel-style playouts).

In whole random games: after every event each player's 51 cards are each in
exactly one zone; at every decision the projection of the log equals the live
state, every listed legal action is accepted, and actions that are refused
are never listed. Every game ends with a result.
"""

from __future__ import annotations

import random

import pytest

from events import EVENT_TYPES
from projections.state import evolve, fold, initial_state
from referee.actions import Action, IllegalAction
from referee.pool import bundled_pool
from referee.rules import apply, current_player, is_legal
from referee.simulate import conservation_errors, decks_for, game_seeds, play_game

SEEDS = game_seeds(12, 2026)


def _checker(rng: random.Random):
    # The state after every single event, automatic steps included, is
    # checked for card conservation, not only the states where someone acts.
    seen = {"count": 0, "state": initial_state()}

    def check(state, events, legal):
        for event in events[seen["count"] :]:
            seen["state"] = evolve(seen["state"], event)
            errors = conservation_errors(seen["state"]) if seen["state"].step not in ("new",) else []
            assert not errors, (type(event).__name__, errors)
        seen["count"] = len(events)
        assert seen["state"] == state, "folding the log event by event does not give the live state"
        assert fold(events) == state, "replaying the log does not give the live state"
        if state.result is None:
            assert legal, f"nobody can act at step {state.step}"
            assert all(a.player == current_player(state) for a in legal)
        else:
            assert legal == [] and current_player(state) is None
        for action in legal:
            try:
                apply(state, action)
            except IllegalAction as exc:  # pragma: no cover - the assertion explains
                raise AssertionError(f"listed action {action} was refused: {exc.refusal}") from None
        # Refused actions are never listed: try actions built from the position.
        listed = set(legal)
        for probe in _probes(state, rng):
            if is_legal(state, probe) is not None:
                assert probe not in listed

    return check


def _probes(state, rng: random.Random) -> list[Action]:
    """A few plausible but often illegal actions for either player."""
    cards = list(state.cards)
    out = []
    for _ in range(4):
        player = rng.choice("AB")
        card = rng.choice(cards)
        do = rng.choice(["play_character", "play_event", "play_item", "attack", "intercept", "discard", "end_turn", "pass"])
        if do == "discard":
            out.append(Action(player, do, cards=(card,)))
        elif do == "play_item":
            out.append(Action(player, do, card=card, target=rng.choice(cards)))
        elif do in ("end_turn", "pass"):
            out.append(Action(player, do))
        else:
            out.append(Action(player, do, card=card))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_keep_every_invariant(seed: int) -> None:
    pool = bundled_pool()
    record = play_game(seed, decks_for(seed, pool, None), check=_checker(random.Random(seed)))
    assert record.state.result is not None
    # Folding one event at a time gives the same state as the batch fold.
    state = initial_state()
    for event in record.events:
        state = evolve(state, event)
    assert state == record.state
    assert state.position == len(record.events)


def test_a_game_replays_identically_from_its_seed() -> None:
    pool = bundled_pool()
    seed = SEEDS[0]
    a = play_game(seed, decks_for(seed, pool, None))
    b = play_game(seed, decks_for(seed, pool, None))
    assert a.events == b.events
    assert a.state == b.state


def test_events_survive_a_json_round_trip() -> None:
    pool = bundled_pool()
    record = play_game(SEEDS[1], decks_for(SEEDS[1], pool, None))
    for event in record.events:
        cls = EVENT_TYPES[type(event).__name__]
        assert cls.model_validate_json(event.model_dump_json()) == event


def test_evolve_does_not_change_its_input() -> None:
    pool = bundled_pool()
    record = play_game(SEEDS[2], decks_for(SEEDS[2], pool, None))
    before = fold(record.events[:200])
    snapshot = {k: v for k, v in before.__dict__.items()}
    zones = {p: dict(z.__dict__) for p, z in before.zones.items()}
    fold(record.events[200:], before)
    for event in record.events[200:260]:
        evolve(before, event)
    assert before.__dict__ == snapshot
    assert {p: dict(z.__dict__) for p, z in before.zones.items()} == zones


def test_five_hundred_games_all_end() -> None:
    """The issue's acceptance run: `referee simulate --games 500 --seed 1`."""
    from click.testing import CliRunner

    from referee.cli import cli

    result = CliRunner().invoke(cli, ["simulate", "--games", "500", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    import json

    summary = json.loads(result.output)
    assert summary["games"] == 500
    assert summary["unfinished"] == 0
    assert sum(summary["results"].values()) == 500
