"""Self-play, tournaments and their read models through the ruleset: a store
may hold matches of several games, and each is folded, decided and described
by its own (docs/rulesets.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SCP_POSITION = ROOT / "scenarios" / "scp-tcg" / "402.6-a-sandbox-at-zero-protection-is-restored-and-breached.yaml"
DECKS = ROOT / "scenarios" / "decks"


def runner(db: Path) -> Any:
    def run(*args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(cli, [*args, "--db", f"sqlite:///{db}"])
        assert result.exit_code == code, (args, result.output)
        assert "Traceback" not in result.output
        return result

    return run


def test_the_table_summaries_fold_each_match_with_its_own_ruleset(tmp_path: Path) -> None:
    """A store holding a corrected SCP-TCG match (a Rewound among its events)
    next to a Harem Master match: `event new` catches the table summaries up
    without a traceback, and each summary speaks its own game."""
    run = runner(tmp_path / "m.db")
    run("new", "--position", str(SCP_POSITION), "--id", "s1")
    run("act", "s1", "B", "damage", "--arg", "zone=A.safe", "--arg", "n=1")
    run("act", "s1", "A", "move", "Safe object", "--arg", "to=A.decommissioned")
    run("rewind", "s1", "--to", "5", "--rule", "4", "--reason", "not instructed", "--by", "Kim")
    run("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--seed", "3", "--id", "h1")
    tid = run("event", "new", "Mixed Store Cup").output.split()[0]
    assert tid.startswith("e-")

    from referee.store.matches import MatchStore
    from referee.tournament.tables import summaries

    with MatchStore(f"sqlite:///{tmp_path / 'm.db'}") as store:
        rows = summaries(store, ["s1", "h1"])
    scp, hm = rows["s1"], rows["h1"]
    assert scp["version"] == 8 and scp["last"]["type"] == "Rewound" and scp["judge_calls"] == 1
    assert scp["result"] is None and scp["decision"]["player"] is None and scp["decision"]["actions"] is None
    assert "400.1" not in scp["decision"]["text"] and "process" in scp["decision"]["text"]
    assert hm["turn"] == 0 and hm["decision"]["player"] in ("A", "B") and hm["decision"]["actions"] is None
    # Harem Master's summary is what the board's public view says, as before.
    from referee.web.board import decision_of, log_row

    with MatchStore(f"sqlite:///{tmp_path / 'm.db'}") as store:
        version = hm["version"]
        before, after = store.state_at("h1", version - 1), store.state_at("h1", version)
        event = store.events("h1")[-1]
    assert hm["decision"] == decision_of(after, "public")
    assert hm["last"] == log_row(version, event, before, "public", frozenset())
    assert hm["result"] is None


def test_a_read_only_reader_folds_the_same_summaries(tmp_path: Path) -> None:
    """The spectator's path (a reader that may not write) folds the very same rows in memory."""
    run = runner(tmp_path / "m.db")
    run("new", "--position", str(SCP_POSITION), "--id", "s1")
    run("act", "s1", "B", "damage", "--arg", "zone=A.safe", "--arg", "n=1")
    from referee.store.matches import MatchStore
    from referee.tournament.tables import Tables, summaries

    with MatchStore(f"sqlite:///{tmp_path / 'm.db'}") as store:
        tables = Tables(store, writable=False)
        tables.refresh()
        folded = tables.get(["s1"])
        tables.close()
    with MatchStore(f"sqlite:///{tmp_path / 'm.db'}") as store:
        stored = summaries(store, ["s1"])
    assert json.dumps(folded, sort_keys=True) == json.dumps(stored, sort_keys=True)
    assert folded["s1"]["last"]["rule"] == "402.6b"


def test_self_play_of_a_fragment_is_refused_in_one_line(tmp_path: Path) -> None:
    """SCP-TCG's chapter 4 ends no game: `referee simulate --game` refuses it (exit 2), and so does the API."""
    import pytest

    from referee.simulate import SelfPlayRefused, complete_ruleset, play_game

    result = CliRunner().invoke(cli, ["simulate", "--game", "scp-tcg-s4", "-n", "1"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        "is a fragment of a game" in result.output
        and "self-play and tournaments need a complete ruleset" in result.output
    )
    with pytest.raises(SelfPlayRefused, match="fragment"):
        play_game(1, {}, game="scp-tcg-s4")
    assert complete_ruleset().id == "harem-master"


def test_self_play_goes_through_the_ruleset_and_plays_as_before() -> None:
    """A table-dealt game through the ruleset: a legal random deck, the
    table's reveals drawn from the ruleset's chance outcomes, the game ended."""
    import random

    from referee import ruleset as registry
    from referee.simulate import decks_for, play_game, random_deck, vanilla

    hm = registry.get("harem-master")
    pool = vanilla(dict(hm.decks.bundled_cards()))
    deck = random_deck(random.Random(5), pool)
    assert hm.decks.deck_problems(deck) == []
    record = play_game(7, decks_for(7, pool, None), deal_mode="table")
    assert record.result["rule"] and hm.result(record.state) is not None
    assert any(a.do == "reveal" for a in record.actions)  # the table's chance outcomes


def _stored(db: Path, key: str) -> list[dict[str, Any]]:
    """The stored JSON bodies of an aggregate's events (what the log keeps)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT topic, state FROM stored_events WHERE originator_id = ? ORDER BY originator_version", (key,)
        ).fetchall()
    return [{"topic": t, **json.loads(bytes(s))} for t, s in rows]


def test_a_tournament_names_its_game_and_harem_master_s_reads_and_writes_as_before(tmp_path: Path) -> None:
    """`event new` names no game for Harem Master (its events' JSON as before);
    a registration's cards are read back as the game's card model and its
    tables are started by the game's ruleset."""
    db = tmp_path / "m.db"
    run = runner(db)
    tid = json.loads(run("event", "new", "Cup", "--json").output)["event"]
    run("event", "register", tid, "--player", "Alice", "--deck", str(DECKS / "alice.yaml"))
    run("event", "register", tid, "--player", "Bob", "--deck", str(DECKS / "bob.yaml"))
    run("event", "round", tid)
    created, alice, _bob, paired = _stored(db, tid)[:4]
    assert created["topic"] == "events.tournament:TournamentCreated" and "game" not in created
    assert "game" not in alice and alice["deck"][0]["name"] and "type" in alice["deck"][0]

    from events.harem_master.cards import CardDef
    from referee import ruleset as registry
    from referee.store.matches import MatchStore
    from referee.tournament.store import Tournaments

    with MatchStore(f"sqlite:///{db}") as store:
        state = Tournaments(store).load(tid)
        pairing = state.rounds[0].pairings[0]
        match = pairing.match
        assert state.game is None and all(isinstance(c, CardDef) for c in state.players["Alice"].deck)
        assert store.ruleset(match) is registry.get("harem-master")
        first = store.events(match)[0]
        dealt = sorted(card.name for cid, card in first.cards.items() if cid.startswith("A:"))
        assert dealt == sorted(c.name for c in state.players[pairing.A].deck)


def test_a_tournament_of_a_fragment_is_refused(tmp_path: Path) -> None:
    """`event new --game scp-tcg-s4` exits 2 and writes nothing; a stored
    tournament naming a fragment refuses registrations in one line (exit 1)."""
    db = tmp_path / "m.db"
    result = CliRunner().invoke(cli, ["event", "new", "Zones Cup", "--game", "scp-tcg-s4", "--db", f"sqlite:///{db}"])
    assert result.exit_code == 2 and "is a fragment of a game" in result.output and "Traceback" not in result.output
    assert not db.exists()

    from referee.store.matches import MatchStore
    from referee.tournament.store import Tournaments

    with MatchStore(f"sqlite:///{db}", create=True) as store:
        tid = Tournaments(store).create("Zones Cup", game="scp-tcg-s4")
    out = runner(db)("event", "register", tid, "--player", "Alice", "--deck", str(DECKS / "alice.yaml"), code=1)
    assert "refused: Zones Cup: SCP-TCG" in out.output and "is a fragment of a game" in out.output
    assert "Nothing was recorded." in out.output


def test_a_registration_naming_its_game_reads_its_cards_through_that_game(tmp_path: Path) -> None:
    """A tournament that names its game (as every new game's will) freezes
    decks with it: the event carries ``game`` and its cards come back as that
    game's ``card_type``."""
    from events.harem_master.cards import CardDef
    from events.tournament import PlayerRegistered
    from referee import ruleset as registry
    from referee.store.matches import MatchStore
    from referee.tournament.service import Station, register
    from referee.tournament.store import Tournaments

    hm = registry.get("harem-master")
    deck = hm.decks.load_deck(DECKS / "alice.yaml", [hm.decks.bundled_cards()])
    db = tmp_path / "m.db"
    with MatchStore(f"sqlite:///{db}", create=True) as store:
        tid = Tournaments(store).create("Named Cup", game="harem-master")
        station = Station(store)
        try:
            register(station, tid, "Alice", deck, None)
        finally:
            station.close()
        log = [r.event for r in store.application.events.get(tid)]
        state = Tournaments(store).load(tid)
    assert state.game == "harem-master"
    reg = next(e for e in log if isinstance(e, PlayerRegistered))
    assert reg.game == "harem-master" and reg.deck == deck and all(isinstance(c, CardDef) for c in reg.deck)
    assert _stored(db, tid)[1]["game"] == "harem-master"


def test_a_match_of_a_game_this_referee_does_not_know_has_no_summary(tmp_path: Path, monkeypatch: Any) -> None:
    """A match whose first event names an unregistered game (a store written
    by a newer referee) is left out of the summaries; the others are made."""
    run = runner(tmp_path / "m.db")
    run("new", "--position", str(SCP_POSITION), "--id", "s1")
    run("new", "--position", str(SCP_POSITION), "--id", "s2")
    from referee.ruleset import UnknownGame
    from referee.store.matches import MatchStore
    from referee.tournament.tables import summaries

    known = MatchStore.ruleset

    def ruleset(self: Any, match_id: str) -> Any:
        if match_id == "s2":
            raise UnknownGame("no game 'later-game'")
        return known(self, match_id)

    monkeypatch.setattr(MatchStore, "ruleset", ruleset)
    with MatchStore(f"sqlite:///{tmp_path / 'm.db'}") as store:
        rows = summaries(store, ["s1", "s2"])
    assert list(rows) == ["s1"]


def test_time_called_scores_the_game_in_progress_by_its_rulesets_count(tmp_path: Path) -> None:
    """--at-time score: the game cut short goes to the higher score as its
    game counts it (its ``tournaments`` capability: Harem Master's 102.3/103.2 without
    the castle bonus), the pairing's A player sitting in the game's first seat."""
    import random

    from referee import ruleset as registry
    from referee.store.matches import MatchStore

    run = runner(tmp_path / "t.db")
    tid = json.loads(run("event", "new", "Cup", "--at-time", "score", "--json").stdout)["event"]
    for name, deck in (("Ann", "alice.yaml"), ("Bo", "bob.yaml")):
        run("event", "register", tid, "--player", name, "--deck", str(DECKS / deck))
    pairing = json.loads(run("event", "round", tid, "--json").stdout)["pairings"][0]
    rules, rng = registry.get(), random.Random(5)
    scores = rules.tournaments.scores
    with MatchStore(f"sqlite:///{tmp_path / 't.db'}") as store:
        state = store.load(pairing["match"])[0]
        while state.result is None and scores(state)["A"] == scores(state)["B"]:
            legal = [a for a in rules.legal_actions(state) if a.do not in ("concede", "offer_draw", "accept_draw")]
            state = store.act(pairing["match"], rng.choice(legal)).state
        assert state.result is None, "the game ended before the scores differed"
        a, b = scores(state)["A"], scores(state)["B"]
    run("event", "time", tid, "--judge", "Kim")
    with MatchStore(f"sqlite:///{tmp_path / 't.db'}", read_only=True) as store:
        ended = store.records(pairing["match"])[-1].event
    assert type(ended).__name__ == "GameEnded"
    assert ended.winner == ("A" if a > b else "B")
    assert f"scores {a}-{b}" in ended.reason
