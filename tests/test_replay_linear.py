"""Replaying, exporting and auditing a match keep the state after every
event as they go, so a rewind never folds the log from event 1 again: the
work of looking back is one ``evolve`` per event in all, however many rewinds
the match holds. Counted here (never timed); `referee bench` times it.

Export verifies the record in the same pass that writes it, and still
refuses a log that its record would not replay to."""

from __future__ import annotations

import pytest

from bench.figures import rewound_log
from events.harem_master.game import TurnStarted
from events.kernel import Rewound
from projections.harem_master import state as state_module
from referee import corrections
from referee.commands.records import audit_one
from referee.records import ExportError, export_record, record_from_dict, replay
from referee.rules.harem_master.game import HAREM_MASTER
from referee.store import MatchStore


@pytest.fixture(scope="module")
def long_log() -> list:
    log, rewinds = rewound_log(1500, seed=1)
    assert rewinds >= 3
    return log


class Counter:
    """Events ``corrections`` evolves or folds while looking back at a log."""

    def __init__(self, monkeypatch) -> None:
        self.evolved = 0
        self.folded = 0
        evolve, fold = state_module.evolve, state_module.fold

        def counting_evolve(state, event):
            self.evolved += 1
            return evolve(state, event)

        def counting_fold(events, state=None):
            events = list(events)
            self.folded += len(events)
            return fold(events, state)

        # What ``corrections`` folds with (a game's declaration is frozen: its fields are swapped in place).
        monkeypatch.setitem(vars(HAREM_MASTER), "evolve", counting_evolve)
        monkeypatch.setitem(vars(HAREM_MASTER), "fold", counting_fold)

    @property
    def total(self) -> int:
        return self.evolved + self.folded


def test_replaying_a_record_with_many_rewinds_evolves_each_event_once(long_log, monkeypatch) -> None:
    rewinds = sum(isinstance(e, Rewound) for e in long_log)
    record = record_from_dict(export_record(long_log))
    counter = Counter(monkeypatch)
    played = replay(record)
    assert played.violation is None and len(played.events) == len(long_log)
    assert counter.folded == 0
    # One evolve per event for the states kept, one per rewind for its own
    # event, and the first event's as the match starts (``Ruleset.begin``).
    assert counter.evolved <= len(long_log) + rewinds + 1
    assert played.states[-1] == played.state and len(played.states) == len(long_log) + 1


def test_export_verifies_in_one_pass(long_log, monkeypatch) -> None:
    rewinds = sum(isinstance(e, Rewound) for e in long_log)
    counter = Counter(monkeypatch)
    record = export_record(long_log)
    assert any(a.get("replay") for a in record["actions"])
    assert counter.folded == 0
    assert counter.evolved <= len(long_log) + rewinds + 1  # the first event also as the match starts


def test_auditing_a_stored_match_looks_back_in_linear_work(long_log, tmp_path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with MatchStore(url) as store:
        match = store.create(long_log)
    counter = Counter(monkeypatch)
    doc, lines = audit_one(match, url)
    assert doc["legal"] and not doc.get("rewinds"), lines
    assert counter.total <= 3 * len(long_log)


def test_export_refuses_a_log_its_record_would_not_replay_to(long_log) -> None:
    forged = list(long_log)
    k = next(i for i, e in enumerate(forged) if isinstance(e, TurnStarted) and i > 100)
    forged[k] = forged[k].model_copy(update={"turn": forged[k].turn + 7})
    with pytest.raises(ExportError, match=f"differ at event {k + 1}$"):
        export_record(forged)
    with pytest.raises(ExportError, match=f"differ at event {len(long_log) + 1}$"):
        export_record([*long_log, long_log[-1]])  # an event no action makes


def test_a_rewind_given_the_states_restores_the_same_as_one_that_folds(long_log) -> None:
    k = max(i for i, e in enumerate(long_log) if isinstance(e, Rewound))
    log, event = long_log[:k], long_log[k]
    states = corrections.states_along(log)
    args = dict(rule=event.rule, reason=event.reason, replay=True)
    with_states = corrections.rewind(states[-1], log, event.to, states=states, **args)
    folding = corrections.rewind(states[-1], log, event.to, **args)
    assert with_states.events == folding.events and with_states.state == folding.state
    assert folding.undone and with_states.undone == folding.undone


def test_the_collector_is_paused_during_a_replay_and_restored_after(long_log, monkeypatch) -> None:
    import gc

    seen: list[bool] = []
    evolve = state_module.evolve

    def watching_evolve(state, event):
        seen.append(gc.isenabled())
        return evolve(state, event)

    monkeypatch.setitem(vars(HAREM_MASTER), "evolve", watching_evolve)
    assert gc.isenabled()
    replay(record_from_dict(export_record(long_log)))
    assert seen and not any(seen)
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        with corrections.collector_paused():
            1 / 0
    assert gc.isenabled()
    gc.disable()
    try:
        with corrections.collector_paused():
            pass
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
