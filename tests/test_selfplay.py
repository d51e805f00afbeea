"""Random self-play as a consistency test (OpenSpiel-style playouts).

In whole random games: after every event each player's 51 cards are each in
exactly one zone; at every decision the projection of the log equals the live
state, every listed legal action is accepted, and actions that are refused
are never listed. Every game ends with a result.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest

from events.harem_master import EVENT_TYPES
from projections.harem_master.state import evolve, fold, initial_state
from referee.actions import IllegalAction
from referee.rules.harem_master import apply, canonical, current_player, is_legal
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.decks import conservation_errors
from referee.rules.harem_master.pool import bundled_pool, load_pool
from referee.simulate import decks_for, game_seeds, play_game, random_deck

SEEDS = game_seeds(12, 2026)


def _checker(rng: random.Random, probes: bool = True):
    # The state after every single event, automatic steps included, is
    # checked for card conservation, not only the states where someone acts.
    seen = {"count": 0, "state": initial_state()}

    def check(state, events, legal):
        for event in events[seen["count"] :]:
            # The engine builds its events unvalidated (``Event.trusted``): each
            # must be exactly what validation would make of it.
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a serializer warning is a value of the wrong type
                assert type(event).model_validate(event.model_dump()) == event, event
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
        # Refused actions are never listed, and accepted ones always are (up
        # to the hints and defaults ``canonical`` removes): try actions built
        # from the position.
        listed = {canonical(state, a) for a in legal}
        # (In a table-dealt match one unknown copy of each name the deck list
        # has left is listed: naming another copy is the same action.)
        for probe in _probes(state, rng, legal) if probes else ():
            if is_legal(state, probe) is not None:
                assert probe not in listed
            else:
                assert canonical(state, probe) in listed, f"{probe} was accepted but is not listed"

    return check


def _probes(state, rng: random.Random, legal: list[Action]) -> list[Action]:
    """Plausible actions for either player, often illegal, sometimes legal
    in a form the listing does not spell out (several cards discarded at
    once, a default ability, an n)."""
    cards = list(state.cards)
    out = []
    for _ in range(6):
        player = rng.choice("AB")
        card = rng.choice(cards)
        do = rng.choice(
            [
                "play_character",
                "play_event",
                "play_item",
                "attack",
                "intercept",
                "discard",
                "end_turn",
                "pass",
                "activate",
                "choose",
                "no_intercept",
            ]
        )
        if do == "discard":
            hand = list(state.zones[player].hand)
            k = rng.randint(1, 4)
            picked = tuple(rng.sample(hand, k)) if len(hand) >= k else (card,)
            out.append(Action(player, do, cards=picked))
        elif do == "play_item":
            out.append(Action(player, do, card=card, target=rng.choice(cards)))
        elif do in ("end_turn", "pass", "no_intercept"):
            out.append(Action(player, do))
        elif do == "activate":
            field = [ch.card for ch in state.field] or cards
            out.append(
                Action(
                    player, do, card=rng.choice(field), ability=rng.choice([None, 1, 2]), n=rng.choice([None, 0, 1, 2])
                )
            )
        elif do == "choose":
            out.append(
                rng.choice(
                    [
                        Action(player, do, cards=(card,)),
                        Action(player, do, option=rng.choice(["yes", "no"])),
                        Action(player, do, cards=tuple(rng.sample(cards, 2))),
                    ]
                )
            )
        elif do == "play_event":
            out.append(
                Action(player, do, card=rng.choice(list(state.zones[player].hand) or cards), n=rng.choice([None, 0, 1]))
            )
        else:
            out.append(Action(player, do, card=card))
    # Listed actions in another spelling: the order of a multi-card discard.
    for a in legal:
        if a.do == "discard" and a.cards and len(a.cards) > 1:
            out.append(Action(a.player, "discard", cards=tuple(reversed(a.cards))))
            break
    return out


FUZZ_POOL = Path(__file__).with_name("data") / "ability-fuzz-pool.yaml"


@pytest.mark.parametrize("seed", SEEDS[:6])
def test_random_games_full_of_abilities_keep_every_invariant(seed: int) -> None:
    """The same invariants with decks of cards that nearly all have text."""
    pool = load_pool(FUZZ_POOL)
    rng = random.Random(seed)
    decks = {p: random_deck(rng, pool) for p in "AB"}
    record = play_game(seed, decks, check=_checker(random.Random(seed)))
    assert record.state.result is not None
    assert any(type(e).__name__ == "TriggerFired" for e in record.events)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_table_dealt_games_full_of_abilities_keep_every_invariant(seed: int) -> None:
    """A paper match logged as it is played: the table reveals every hidden card."""
    pool = load_pool(FUZZ_POOL)
    rng = random.Random(seed)
    decks = {p: random_deck(rng, pool) for p in "AB"}
    record = play_game(seed, decks, check=_checker(random.Random(seed), probes=False), deal_mode="table")
    assert record.state.result is not None
    assert any(type(e).__name__ == "CardRevealed" for e in record.events)


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


SAMPLE_DECKS = Path(__file__).resolve().parent.parent / "scenarios" / "decks"


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_games_of_the_ability_sample_decks_keep_every_invariant(seed: int) -> None:
    """Alice's and Bob's sample decks are full of the pool's cards with
    abilities: whole games of them keep the same invariants and use them."""
    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog

    catalog = CardCatalog(bundled_pool())
    decks = {"A": load_deck(SAMPLE_DECKS / "alice.yaml", catalog), "B": load_deck(SAMPLE_DECKS / "bob.yaml", catalog)}
    record = play_game(seed, decks, check=_checker(random.Random(seed)))
    assert record.state.result is not None
    kinds = {type(e).__name__ for e in record.events}
    assert {"TriggerFired", "UseResolved"} <= kinds


def _forget() -> None:
    """Drop every value the engine keeps with a state or carries from state
    to state, so what follows is worked out afresh."""
    from referee.rules.harem_master import HAREM_MASTER, characteristics, checks, engine, situations

    characteristics._carried.clear()
    characteristics._memos.clear()
    characteristics._memo[:] = [(None, -1, {})]
    checks._clear_kept[:] = [None, None, False]
    situations._indexed.clear()
    engine._hand_kinds.clear()
    HAREM_MASTER._listed[:] = [None, -1, [], []]


def _derived(state) -> tuple:
    from referee.rules.harem_master import current_decision, legal_actions
    from referee.rules.harem_master.abilities import answerable
    from referee.rules.harem_master.checks import same_name_pending
    from referee.rules.harem_master.situations import sources

    return (
        [sources(state, kind) for kind in ("triggered", "replacement", "activated")],
        answerable(state),
        same_name_pending(state),
        current_decision(state),
        legal_actions(state),
    )


@pytest.mark.parametrize("pool_name", ["fuzz", "bundled"])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_values_carried_from_state_to_state_are_those_worked_out_afresh(pool_name: str, seed: int) -> None:
    """The engine carries what it derives (the abilities working, the
    situations anyone could answer, 214.2e, the decision and the legal list)
    from event to event while what they read stays the same object: after
    every event of whole games, each equals what it is with nothing kept."""
    pool = load_pool(FUZZ_POOL) if pool_name == "fuzz" else bundled_pool()
    rng = random.Random(seed)
    decks = {p: random_deck(rng, pool) for p in "AB"}
    record = play_game(seed, decks)
    state = initial_state()
    checked = 0
    for event in record.events:
        state = evolve(state, event)
        if state.step in ("new", "over"):
            continue
        warm = _derived(state)
        _forget()
        assert _derived(state) == warm, (state.position, type(event).__name__)
        checked += 1
    assert checked > 100


def test_an_unvalidated_event_is_still_refused_a_field_it_lacks_or_needs() -> None:
    """``Event.trusted`` skips validation, not the fields: an unknown name or a
    missing required one is a TypeError naming it, and the defaults fill the rest."""
    from events.harem_master.game import CharacterPlayed

    made = CharacterPlayed.trusted(player="A", card="A:1")
    assert made == CharacterPlayed(player="A", card="A:1") and made.model_fields_set == {"player", "card"}
    with pytest.raises(TypeError, match="CharacterPlayed: no field 'colour'"):
        CharacterPlayed.trusted(player="A", card="A:1", colour="red")
    with pytest.raises(TypeError, match="CharacterPlayed needs 'card'"):
        CharacterPlayed.trusted(player="A")
