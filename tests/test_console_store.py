"""Who entered each event: the store's envelope keys ``_by`` and ``_entry``,
written by the board's console, outside the hash chain."""

from __future__ import annotations

from referee import chain
from referee.rules.harem_master import legal_actions
from referee.rules.harem_master.actions import Action
from referee.store.errors import StaleVersion
from tests.test_store import new_game


def new_match(store) -> str:
    return store.create(new_game(5).events)


def test_each_write_records_who_entered_it_outside_the_chain(database) -> None:
    store = database.open()
    match = new_match(store)
    version = store.load(match)[1]
    legal = legal_actions(store.load(match)[0])
    applied = store.act(match, legal[0], expected_version=version, by="scorekeeper of e-1", entry="s-123")
    records = store.records(match)
    mine = records[version:]
    assert len(mine) == len(applied.events) and mine
    assert {(r.by, r.entry) for r in mine} == {("scorekeeper of e-1", "s-123")}
    assert all(r.by is None and r.entry is None for r in records[:version])
    # Another station reads the same envelope; the chain covers the events only.
    other = database.open(read_only=True)
    assert [r.by for r in other.records(match)][version:] == ["scorekeeper of e-1"] * len(mine)
    assert chain.check_stored(store.application, match).broken_at is None


def test_a_stale_version_records_nothing_and_says_who_moved_on(database) -> None:
    store = database.open()
    match = new_match(store)
    state, version = store.load(match)
    first = legal_actions(state)[0]
    store.act(match, first, expected_version=version, by="judge", entry="s-1")
    try:
        store.act(match, Action(first.player, "concede"), expected_version=version, by="judge", entry="s-2")
    except StaleVersion as exc:
        assert exc.chosen == version and exc.current > version
    else:
        raise AssertionError("a write chosen on an old version was stored")
    assert all(r.entry != "s-2" for r in store.records(match))


def test_a_judge_call_is_shown_until_a_judge_answers_and_survives_export(tmp_path) -> None:
    from referee import corrections
    from referee.records import export_record, record_from_dict, replay
    from referee.rules.harem_master.views import state_view
    from referee.store import MatchStore

    with MatchStore(f"sqlite:///{tmp_path / 'call.db'}") as store:
        match = new_match(store)
        store.update(match, lambda s: corrections.call(s, "B asks about 302", "B"), by="player B")
        state, _ = store.load(match)
        assert state.judge_call == "B: B asks about 302"
        assert all(state_view(state, v)["judge_call"] == "B: B asks about 302" for v in ("judge", "A", "public"))
        store.update(match, lambda s: corrections.note(s, "Explained 302", "Kim"))
        assert store.load(match)[0].judge_call is None
        events = store.events(match)
    record = export_record(events)
    assert {"judge": True, "do": "call", "reason": "B asks about 302", "by": "B"} in record["actions"]
    assert replay(record_from_dict(record)).events == events
