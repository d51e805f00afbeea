"""A whole tournament day, on SQLite and PostgreSQL, from several stations: 32 players (31 from a CSV and a late entrant, seated by a re-pair with the bye player), 5 Swiss rounds of best-of-three matches with a round clock, the same slip keyed from two stations at once, time extensions and time called, a drop and an undrop, penalties (a game loss, a rescinded one, a disqualification), then a top 8. Every round seats each active player once, the standings and placings equal a recomputation from the games' own stored results (0.33 floors), no hand-entered result is ever overwritten by play, and a role that may only read runs every event command without a traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path

from test_tournament import DECKS, at_once, ok, recompute, referee, without_dropped

from referee.tournament.policy import PENALTY, RESULT_ENTERED, TIME

NAMES = [f"P{i:02d}" for i in range(1, 32)]
JUDGES = ["Judge Kim", "Judge Ann", "Judge Raj"]


def _stations(database, n: int = 3) -> list:
    from referee.tournament.service import Station

    return [Station(database.open()) for _ in range(n)]


def _game_results(url: str, state) -> dict[str, str | None]:
    """Every game's result read from the game's own log (its state), by player name."""
    from projections.tournament import game_id
    from referee.store import MatchStore

    out: dict[str, str | None] = {}
    with MatchStore(url, read_only=True) as store:
        for r in state.rounds:
            for p in r.pairings:
                if p.B is None or p.match is None:
                    continue
                k = 1
                while store.exists(game_id(p.match, k)):
                    g, _ = store.load(game_id(p.match, k))
                    if g.result is not None:
                        out[game_id(p.match, k)] = None if g.result.draw else (p.A if g.result.winner == "A" else p.B)
                    k += 1
    return out


def _finish(
    station, tid: str, p, round_no: int, rng: random.Random, judge: str, *, stop_after: int | None = None
) -> None:
    """Enter each game of a table by hand until its match is over (or ``stop_after`` games)."""
    from projections.tournament import table_of
    from referee.tournament.service import current_game, enter_result

    done = 0
    while stop_after is None or done < stop_after:
        state = station.tournaments.load(tid)
        station.catch_up()
        game = current_game(station, state, p, round_no)
        if game is None:
            return
        roll = rng.random()
        winner = None if roll < 0.1 else (p.A if roll < 0.55 else p.B)
        enter_result(station, tid, game, winner, winner is None, judge, game=table_of(game)[1])
        done += 1


def _whole(state, round_no: int) -> None:
    """Every player who has not dropped and was in the round sits at exactly one of its tables (or has the bye)."""
    seats = state.seats(round_no)
    assert all(len(t) == 1 for t in seats.values()), {n: t for n, t in seats.items() if len(t) > 1}
    for n in state.originally.get(round_no, set()):
        assert n in seats or state.players[n].dropped, (round_no, n)


def test_a_whole_day(database, tmp_path: Path) -> None:
    from referee.store import MatchStore
    from referee.tournament.service import (
        call_time,
        current_game,
        drop,
        extend_time,
        final_placings,
        give_penalty,
        matches,
        pair_round,
        playoff,
        register,
        undrop,
    )

    db = database.url
    rng = random.Random(16)
    tid = json.loads(
        ok(
            referee(
                "event",
                "new",
                "Summer Open",
                "--best-of",
                "3",
                "--round-minutes",
                "50",
                "--at-time",
                "draw",
                "--json",
                db=db,
            )
        )
    )["event"]
    csv = tmp_path / "players.csv"
    csv.write_text(
        "name,deck\n" + "".join(f"{n},{DECKS / ('alice.yaml' if i % 2 else 'bob.yaml')}\n" for i, n in enumerate(NAMES))
    )
    registered = json.loads(ok(referee("event", "register", tid, "--csv", str(csv), "--json", db=db)))
    assert registered["players"] == 31 and registered["late"] == []
    stations = _stations(database)
    desk, scorer, floor = stations

    # Round 1, asked for by two stations at once: one pairing. Then a late entrant.
    paired = [json.loads(ok(d)) for d in at_once([["event", "round", tid, "--round", "1", "--json"]] * 2, db)]
    assert paired[0] == paired[1] and paired[0]["clock"]["minutes"] == 50
    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool

    deck = load_deck(DECKS / "alice.yaml", CardCatalog(bundled_pool()))
    register(desk, tid, "Zed", deck, None)
    state = desk.tournaments.load(tid)
    assert state.players["Zed"].joined == 1 and state.missed() == {"Zed": ["loss"]}
    # Zed arrived as round 1 began: a re-pair seats him with the bye player, and he plays round 1.
    from referee.tournament.service import repair_table

    bye = next(p for p in state.rounds[0].pairings if p.B is None)
    repair_table(desk, tid, bye.table, bye.A, "Zed", "Judge Kim", "late entrant, seated with the bye player")
    state = desk.tournaments.load(tid)
    assert state.missed() == {} and not any(p.B is None for p in state.rounds[0].pairings)
    _whole(state, 1)

    # The same slip keyed from two stations at once: one game 1, recognised by the other.
    first = state.rounds[0].pairings[0]
    keyed = at_once(
        [["event", "result", tid, first.match, "--game", "1", "--winner", first.B, "--judge", j] for j in JUDGES[:2]],
        db,
    )
    said = [ok(k) for k in keyed]
    first_in = next(x for x in said if "already" not in x)
    judge = next(j for j in JUDGES[:2] if f"entered by {j}" in first_in)
    again = next(x for x in said if "already" in x)
    assert f"already entered by {judge} at" in again and "nothing recorded" in again
    entered = first.match
    for done in at_once([["simulate", "--event", tid, "--seed", str(s), "--json"] for s in range(3)], db):
        ok(done)
    with MatchStore(db, read_only=True) as store:
        g, _ = store.load(entered)
        assert g.result.rule == RESULT_ENTERED and g.result.winner == "B" and judge in g.result.reason
        assert len([e for e in store.events(entered) if type(e).__name__ == "GameEnded"]) == 1  # keyed once
        refused = referee("act", entered, "A", "concede", db=db)
        assert refused.returncode == 1 and f"({RESULT_ENTERED})" in refused.stderr and judge in refused.stderr

    # Round 2: time extended on table 2, time called on the round, then on table 2.
    r2, _ = pair_round(scorer, tid, expected=2)
    assert "Zed" in {n for p in r2.pairings for n in (p.A, p.B)}
    tables = [p for p in r2.pairings if p.B is not None]
    for i, p in enumerate(tables):
        if i in (1, 2):
            _finish(stations[i % 3], tid, p, 2, rng, JUDGES[i % 3], stop_after=1)
            current_game(floor, floor.tournaments.load(tid), p, 2)  # game 2 starts: it is in progress at time
        else:
            _finish(stations[i % 3], tid, p, 2, rng, JUDGES[i % 3])
    extend_time(floor, tid, tables[1].table, 5, "deck check", "Judge Ann")
    settled = call_time(desk, tid, "Judge Kim")
    assert [g.rsplit(".", 1)[0] for g in settled] == [tables[2].match]  # table 2 has its extension
    settled += call_time(desk, tid, "Judge Kim", table=tables[1].table)
    with MatchStore(db, read_only=True) as store:
        for g in settled:
            game, _ = store.load(g)
            assert game.result.rule == TIME and game.result.draw
    listed = {m["table"]: m for m in matches(floor, tid) if m["round"] == 2}
    assert listed[tables[1].table]["extension"] == 5 and all(
        m["status"] in ("finished", "bye") for m in listed.values()
    )

    _whole(desk.tournaments.load(tid), 2)

    # Round 3: a game loss, a warning rescinded, and a disqualification.
    r3, _ = pair_round(floor, tid)
    tables = [p for p in r3.pairings if p.B is not None]
    loser_table, dq_table = tables[0], tables[1]
    given, earlier = give_penalty(scorer, tid, loser_table.A, "drawing-extra-cards", "game-loss", "Judge Raj", "drew 2")
    assert earlier == [] and given.game == 1
    given, earlier = give_penalty(scorer, tid, loser_table.A, "slow-play", "warning", "Judge Raj")
    assert [e["penalty"] for e in earlier] == ["game-loss"]  # the earlier one, for an upgrade
    rescinded = json.loads(
        ok(referee("event", "rescind", tid, "2", "--judge", "Judge Kim", "--reason", "wrong player", "--json", db=db))
    )
    assert rescinded["penalty"]["penalty"] == "warning"
    shown_history = json.loads(ok(referee("event", "penalties", loser_table.A, "--json", db=db)))["penalties"]
    assert [(e["penalty"], bool(e.get("rescinded"))) for e in shown_history] == [
        ("game-loss", False),
        ("warning", True),
    ]
    dq = dq_table.B
    give_penalty(desk, tid, dq, "cheating", "disqualification", "Judge Kim", "stacked the castle")
    for i, p in enumerate(tables):
        _finish(stations[i % 3], tid, p, 3, rng, JUDGES[i % 3])
    results = _game_results(db, desk.tournaments.load(tid))
    assert results[loser_table.match] == loser_table.B
    assert results[dq_table.match] == dq_table.A and results[f"{dq_table.match}.g2"] == dq_table.A
    with MatchStore(db, read_only=True) as store:
        assert store.load(loser_table.match)[0].result.rule == PENALTY
    state = desk.tournaments.load(tid)
    assert state.players[dq].dropped and state.players[dq].disqualified

    # A drop and an undrop; another drop that stays (neither of them the disqualified player).
    back, gone = [n for n in ("P05", "P07", "P09") if n != dq][:2]
    drop(floor, tid, back, "Judge Ann", "feeling ill")
    undrop(floor, tid, back, "Judge Ann", "feels better")
    drop(floor, tid, gone, "Judge Ann", "went home")
    _whole(desk.tournaments.load(tid), 3)
    for r in (4, 5):
        paired_r, _ = pair_round(stations[r % 3], tid)
        names = {n for p in paired_r.pairings for n in (p.A, p.B)}
        assert back in names and gone not in names and dq not in names
        _whole(desk.tournaments.load(tid), r)
        for i, p in enumerate(paired_r.pairings):
            if p.B is not None:
                _finish(stations[(i + r) % 3], tid, p, r, rng, JUDGES[i % 3])

    # The standings equal a recomputation from the games' own results.
    state = desk.tournaments.load(tid)
    games = _game_results(db, state)
    called = {p.match for r in state.rounds for p in r.pairings if p.match and state.called(r.round, p.table)}
    rounds = [[{"A": p.A, "B": p.B, "match": p.match} for p in r.pairings] for r in state.swiss_rounds]
    expected = recompute(rounds, games, best_of=3, called=called, disqualified={dq})
    shown = json.loads(ok(referee("event", "standings", tid, "--json", db=db)))
    assert without_dropped(shown["standings"]) == expected
    assert {r["player"] for r in shown["standings"] if r["dropped"]} == {dq, gone}
    assert shown["standings"][-1]["player"] == dq and shown["standings"][-1]["rank"] is None
    assert shown["tiebreakers"] == ["points", "omw", "gw", "ogw"]

    # The top 8 (the quarterfinals), seeded 1v8, 4v5, 2v7, 3v6 from the Swiss standings.
    seeds = [r["player"] for r in shown["standings"] if not r["dropped"]][:8]
    qf, _ = playoff(desk, tid, 8)
    assert [(p.A, p.B) for p in qf.pairings] == [
        (seeds[a - 1], seeds[b - 1]) for a, b in ((1, 8), (4, 5), (2, 7), (3, 6))
    ]
    for rnd in range(3):
        state = desk.tournaments.load(tid)
        r = state.rounds[-1]
        for i, p in enumerate(r.pairings):
            _finish(stations[i % 3], tid, p, r.round, rng, JUDGES[i % 3])
        if rnd < 2:
            playoff(stations[rnd], tid, None)
    state = desk.tournaments.load(tid)
    places = final_placings(desk, state)
    games = _game_results(db, state)
    final = state.rounds[-1].pairings[0]
    wins = {final.A: 0, final.B: 0}
    k = 1
    while f"{final.match}.g{k}" in games or (k == 1 and final.match in games):
        w = games[final.match if k == 1 else f"{final.match}.g{k}"]
        if w is not None:
            wins[w] += 1
        k += 1
    champion = max(wins, key=lambda n: wins[n])
    assert places[0]["player"] == champion and places[1]["player"] in (final.A, final.B)
    assert {p["player"] for p in places[:8]} == set(seeds)
    assert [p["places"] for p in places[:8]] == ["1", "2", "3-4", "3-4", "5-8", "5-8", "5-8", "5-8"]
    assert [state.round_name(r.round) for r in state.playoff_rounds] == ["Quarterfinals", "Semifinals", "Final"]
    rank = {r["player"]: r["rank"] for r in shown["standings"]}
    assert rank[places[2]["player"]] < rank[places[3]["player"]]  # semifinal losers by Swiss rank
    assert [p["player"] for p in places[8:]] == [
        r["player"] for r in shown["standings"] if r["player"] not in set(seeds)
    ]
    assert places[-1] == {"place": None, "places": "DQ", "player": dq, "how": "disqualified"}
    assert json.loads(ok(referee("event", "standings", tid, "--json", db=db)))["placings"] == places

    # No hand-entered result was ever overwritten: every game a judge ended still ends there.
    with MatchStore(db, read_only=True) as store:
        for g in games:
            events = store.events(g)
            ended = [e for e in events if type(e).__name__ == "GameEnded"]
            judged = [e for e in ended if e.judge is not None]
            if judged:
                assert events[-1] is judged[-1] or type(events[-1]).__name__ == "GameEnded"
                assert len(ended) == 1, g
    for s in stations:
        s.close()


def test_a_role_that_may_only_read_runs_the_spectator_commands_and_pages(postgres_url, tmp_path: Path) -> None:
    """Read models are made by the commands that write; a PostgreSQL role
    with only SELECT runs `event standings`, `event matches` and the event
    page (no CREATE TABLE, no write), and sees what was written since."""
    import uuid

    from starlette.testclient import TestClient
    from test_store_venue import _make_role

    from referee.web.app import Settings, create_app

    admin = postgres_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    owner = f"{admin}?schema={schema}"
    reader = None
    try:
        tid = json.loads(ok(referee("event", "new", "Spectator Cup", "--json", db=owner)))["event"]
        for n in ("Ann", "Bob", "Cid", "Dee"):
            ok(referee("event", "register", tid, "--player", n, "--deck", str(DECKS / "alice.yaml"), db=owner))
        paired = json.loads(ok(referee("event", "round", tid, "--json", db=owner)))
        reader = _make_role(admin, schema, "SELECT")
        first = paired["pairings"][0]
        # Written after the reader's tables were last caught up: the reader folds it in memory.
        ok(referee("event", "result", tid, first["match"], "--winner", first["A"], "--judge", "Judge Kim", db=owner))
        table = json.loads(ok(referee("event", "standings", tid, "--json", db=reader)))["standings"]
        assert {r["player"]: r["points"] for r in table}[first["A"]] == 3
        rows = json.loads(ok(referee("event", "matches", tid, "--json", db=reader)))["matches"]
        assert rows[0]["status"] == "finished" and rows[0]["entered_by"] == "Judge Kim"
        app = create_app(Settings(reader))
        with TestClient(app) as c:
            for path in ("/", f"/events/{tid}", f"/events/{tid}/tables", f"/events/{tid}/print/pairings"):
                r = c.get(path)
                assert r.status_code == 200, (path, r.text[:500])
            assert "Judge Kim" in c.get(f"/events/{tid}").text
            # A write from the web says the role may only read, not "store not answering".
            import re

            page = c.get(f"/matches/{first['match']}").text
            csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
            version = re.search(r'name="version" value="([0-9]+)"', page).group(1)
            wrote = c.post(
                f"/matches/{first['match']}/note",
                data={"csrf": csrf, "version": version, "text": "a spectator's note", "entry": "x1"},
            )
            assert wrote.status_code == 403 and "may only read" in wrote.text, (wrote.status_code, wrote.text[:300])
        _every_event_command(tid, first, reader, tmp_path)
    finally:
        import psycopg

        from referee.store import parse_url

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            if reader is not None:
                conn.execute(f"DROP ROLE IF EXISTS {parse_url(reader).env['POSTGRES_USER']}")


def _every_event_command(tid: str, first: dict, reader: str, tmp_path: Path) -> None:
    """Every `event` command on a role that may only read: the reads answer,
    each write says in one line that the role may only read (exit 2), and
    nothing prints a traceback."""
    csv = tmp_path / "more.csv"
    csv.write_text(f"name,deck file\nEli,{DECKS / 'alice.yaml'}\n")
    reads = [
        ["event", "standings", tid],
        ["event", "standings", tid, "--json"],
        ["event", "matches", tid],
        ["event", "clock", tid],
        ["event", "penalties", "Ann"],
        ["event", "penalties", "--event", tid],
        ["event", "follow", tid, "--timeout", "1"],
    ]
    writes = [
        ["event", "register", tid, "--csv", str(csv)],
        ["event", "checkin", tid, "Ann"],
        ["event", "round", tid],
        ["event", "result", tid, first["match"], "--winner", first["A"], "--judge", "Judge Kim"],
        ["event", "next", tid],
        ["event", "time", tid, "--judge", "Judge Kim"],
        ["event", "extend", tid, "1", "--minutes", "5", "--reason", "r", "--judge", "Judge Kim"],
        ["event", "penalty", tid, "Ann", "--infraction", "slow-play", "--penalty", "warning", "--judge", "K", "--yes"],
        ["event", "rescind", tid, "1", "--judge", "K", "--reason", "r"],
        ["event", "drop", tid, "Ann"],
        ["event", "undrop", tid, "Ann", "--by", "K", "--reason", "r"],
        ["event", "repair", tid, "1", "--a", "Ann", "--b", "Bob", "--judge", "K", "--reason", "r"],
        ["event", "playoff", tid, "--top", "2"],
        ["event", "standings", tid, "--rebuild"],
        ["event", "new", "Another Cup"],
    ]
    for args in reads:
        done = referee(*args, db=reader)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
    assert "Spectator Cup" in referee("event", "follow", tid, "--timeout", "1", db=reader).stdout
    for args in writes:
        done = referee(*args, db=reader)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "may only read" in lines[0], (args, done.stderr)
