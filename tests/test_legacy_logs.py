"""Logs written before events recorded the procedure's step (log format 1)
must still fold to the very states the referee had: the projection derives
their steps with ``projections.harem_master.legacy``."""

from __future__ import annotations

import pytest

from events.harem_master.game import MatchStarted, PositionSetUp
from events.kernel import Event
from projections.harem_master.state import evolve, initial_state
from referee.rules.harem_master.pool import bundled_pool
from referee.simulate import decks_for, play_game, vanilla


def as_format_1(events: list[Event]) -> list[Event]:
    """The same log as the referee of format 1 wrote it: no step on any event."""
    out = []
    for e in events:
        if isinstance(e, (MatchStarted, PositionSetUp)):
            out.append(e.model_copy(update={"log_format": 1}))
        else:
            out.append(e.model_copy(update={"step": None}))
    return out


def states(events: list[Event]) -> list[dict]:
    s = initial_state()
    out = []
    for e in events:
        s = evolve(s, e)
        d = dict(s.__dict__)
        d.pop("log_format")
        if d.get("passed_over") is not None:  # the state kept for a late interception (306.5c)
            d["passed_over"] = {k: v for k, v in d["passed_over"].__dict__.items() if k != "log_format"}
        out.append(d)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_format_1_log_folds_to_the_same_states(seed: int) -> None:
    # Format 1 was written before card text was read: its games had no abilities.
    game = play_game(seed, decks_for(seed, vanilla(bundled_pool()), None))
    new, old = states(game.events), states(as_format_1(game.events))
    assert len(new) == len(old)
    for position, (a, b) in enumerate(zip(new, old), start=1):
        assert a == b, f"game {seed}: the states differ after event {position}"


def test_new_logs_record_every_step() -> None:
    """A format-2 log never needs the legacy derivations: folding it without
    them (as evolve does) leaves no event's step change unrecorded."""
    game = play_game(4, decks_for(4, bundled_pool(), None))
    assert isinstance(game.events[0], MatchStarted) and game.events[0].log_format == 2
    steps = [s["step"] for s in states(game.events)]
    recorded = [e.step for e in game.events]
    before = "new"
    for position, (step, said) in enumerate(zip(steps, recorded), start=1):
        if step != before:
            assert said == step, f"event {position} moved the procedure to {step} without recording it"
        before = step
