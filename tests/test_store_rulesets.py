"""The store folds any registered game: a match's first event names its
ruleset, which folds it, decides its actions and writes its snapshots; old
Harem Master logs, whose first event names no game, still read as Harem
Master's (docs/rulesets.md, "The kernel, file by file")."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from events.harem_master.game import MatchStarted
from projections.harem_master.state import GameState
from projections.scp_tcg.state import ZoneState
from referee import ruleset as registry
from referee.cli import cli
from referee.rules.harem_master.game import HAREM_MASTER
from referee.rules.harem_master.pool import bundled_pool
from referee.rules.scp_tcg.game import SCP_TCG_ZONES as SCP
from referee.scenario import load_scenario
from referee.simulate import decks_for, play_game, vanilla
from referee.store import MatchStore
from referee.store.mapper import resolve_event_topic, snapshot_ruleset

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "scp-tcg" / "401.5-a-card-stacked-below-a-site-card.yaml"


def scp_match(actions: int = 12, seed: int = 4) -> tuple[list, list]:
    """A chapter-4 position from a scenario of the library and instructions
    the table may enter on it, picked at random among the legal ones."""
    sc = load_scenario(SCENARIO)
    assert sc.game == SCP.id
    rng = random.Random(seed)
    state, chosen = sc.state, []
    for _ in range(actions):
        action = rng.choice(SCP.legal_actions(state))
        chosen.append(action)
        state = SCP.apply(state, action).state
    return list(sc.events), chosen


def test_an_scp_tcg_match_is_stored_folded_snapshotted_and_listed(database) -> None:
    first, actions = scp_match()
    store = database.open(snapshot_interval=5)
    match = store.create(first, name="Zones")
    assert store.ruleset(match) is SCP
    for action in actions:
        store.act(match, action)
    log = store.events(match)
    assert len(log) > 10 and any(type(e).__module__ == "events.scp_tcg.zones" for e in log[len(first) :])
    state, version = store.load(match)
    assert isinstance(state, ZoneState) and version == len(log)
    assert state == SCP.fold(log)
    assert store.snapshots_taken == version // 5 + (len(first) % 5 != 0)  # the start, and every fifth event
    # Another station: the latest snapshot (a ZoneState, written by SCP's
    # ruleset under its own topic) and the events after it.
    fresh = database.open(snapshot_interval=5)
    assert fresh.load(match) == (SCP.fold(log), len(log))
    assert fresh.last_folded == len(log) % 5
    assert fresh.state_at(match, 0) == SCP.initial_state()
    for position in range(1, len(log) + 1):
        assert fresh.state_at(match, position) == SCP.fold(log[:position]), position
    # The latest snapshot names the start's for the cards (which no zone
    # event changes); the start's holds them, a ZoneState.
    [snap] = list(fresh.application.snapshots.get(match, desc=True, limit=1))
    assert snap.state is None and snap.cards_at == len(first)
    [start] = list(fresh.application.snapshots.get(match, gt=len(first) - 1, lte=len(first)))
    assert isinstance(start.state, ZoneState) and start.state == SCP.fold(log[: len(first)])
    [info] = fresh.list_matches()
    assert (info.id, info.name, info.game, info.players) == (match, "Zones", "scp-tcg-s4", dict(state.names))


def test_snapshot_and_event_topics_name_their_game() -> None:
    assert snapshot_ruleset("projections.scp_tcg.state:ZoneState") is SCP
    assert snapshot_ruleset("projections.state:GameState") is HAREM_MASTER  # every snapshot stored so far
    assert snapshot_ruleset("events.kernel:ActionTaken") is None
    assert resolve_event_topic("events.scp_tcg.zones:CardMoved").__name__ == "CardMoved"
    with pytest.raises(LookupError):
        resolve_event_topic("projections.scp_tcg.state:ZoneState")  # a state is not an event


def test_old_harem_master_logs_still_read_beside_another_game(tmp_path: Path) -> None:
    """A log of format 1, whose first event names no game, is Harem Master's:
    stored beside an SCP-TCG match, it folds, snapshots and lists as before."""
    game = play_game(21, decks_for(21, vanilla(bundled_pool()), None))
    old = [
        e.model_copy(update={"log_format": 1}) if isinstance(e, MatchStarted) else e.model_copy(update={"step": None})
        for e in game.events
    ]
    assert "game" not in old[0].model_dump(mode="json") and registry.of_first_event(old[0]) is HAREM_MASTER
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first, actions = scp_match(4)
    with MatchStore(url, snapshot_interval=50) as store:
        legacy = store.create(old)
        zones = store.create(first)
        for action in actions:
            store.act(zones, action)
    with MatchStore(url, snapshot_interval=50) as fresh:
        state, version = fresh.load(legacy)
        assert isinstance(state, GameState) and (state, version) == (HAREM_MASTER.fold(old), len(old))
        assert fresh.last_folded == 0  # stored whole: from the snapshot of its start, which is its end
        assert fresh.state_at(legacy, 60) == HAREM_MASTER.fold(old[:60])
        assert fresh.ruleset(legacy) is HAREM_MASTER and fresh.ruleset(zones) is SCP
        assert [(m.id, m.game) for m in fresh.list_matches()] == [(legacy, "harem-master"), (zones, "scp-tcg-s4")]


def test_a_match_starts_with_a_first_event_of_some_game(tmp_path: Path) -> None:
    first, actions = scp_match(1)
    with MatchStore(f"sqlite:///{tmp_path / 'r.db'}") as store:
        applied = SCP.apply(SCP.fold(first), actions[0])
        with pytest.raises(ValueError, match="MatchStarted or PositionSetUp or ZonesSetUp"):
            store.create(applied.events)


def test_referee_matches_names_each_matchs_game(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first, _ = scp_match(0)
    with MatchStore(url) as store:
        hm = store.create(
            HAREM_MASTER.start(decks_for(3, vanilla(bundled_pool()), None), seed=3).events, name="Table 1"
        )
        zones = store.create(first, name="Zones")
    result = CliRunner().invoke(cli, ["matches", "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    assert [(m["id"], m["game"]) for m in json.loads(result.output)["matches"]] == [
        (hm, "harem-master"),
        (zones, "scp-tcg-s4"),
    ]
    lines = CliRunner().invoke(cli, ["matches", "--db", url]).output.splitlines()
    assert lines[0].startswith(hm) and "scp-tcg" not in lines[0] and lines[0].endswith("strict  Table 1")
    assert lines[1].startswith(zones) and lines[1].endswith("strict  scp-tcg-s4  Zones")
