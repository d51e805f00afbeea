"""Tournaments: a whole event from several stations at once (SQLite and PostgreSQL), Swiss pairing promises, standings math, bad input, and the hash chain."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from events.tournament import Pairing, PlayerRegistered, RoundPaired
from projections.tournament import Player, Result, TournamentState, standings
from referee.cli import cli

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
NAMES = ["Alice", "Bob", "Carol", "Dan", "Eve", "Fay", "Gus", "Hal"]


# --- helpers --------------------------------------------------------------------------------


def referee(*args: str, db: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, REFEREE_DB=db)
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, env=env, cwd=ROOT
    )


def at_once(commands: list[list[str]], db: str) -> list[subprocess.CompletedProcess]:
    """Run several referee processes at the same time (several stations)."""
    env = dict(os.environ, REFEREE_DB=db)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "referee.cli", *c],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for c in commands
    ]
    out = []
    for c, p in zip(commands, procs):
        stdout, stderr = p.communicate(timeout=600)
        out.append(subprocess.CompletedProcess(c, p.returncode, stdout, stderr))
    return out


def ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, (done.args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stdout


def recompute(
    rounds: list[list[dict]],
    winners: dict[str, str | None],
    *,
    best_of: int = 1,
    missed: dict[str, int] | None = None,
    called: set[str] = frozenset(),
    disqualified: set[str] = frozenset(),
) -> list[dict]:
    """The standings from the rules' text (MTR appendix C), in exact
    fractions: match points win 3, draw 1, bye 3; MWP and GWP (game points
    win 3, draw 1) floored at 0.33 ("If this number is lower than 0.33, use
    0.33 instead"); OMW and OGW the means over opponents, byes ignored, and
    0.33 for a player with no opponent; OOMW likewise; a late entrant's
    missed rounds are losses (0 games to a majority). Disqualified players
    last, unranked. ``winners``: finished game id -> winner's name (None: a
    draw), game K of a table being ``<table match>.gK``; ``called``: the
    tables time was called on."""
    need = best_of // 2 + 1
    names = sorted({p[k] for r in rounds for p in r for k in ("A", "B") if p[k]} | set(missed or {}))
    pts = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    gpts = dict.fromkeys(names, 0)
    gplayed = dict.fromkeys(names, 0)
    record = {n: [0, 0, 0] for n in names}
    opps: dict[str, list[str]] = {n: [] for n in names}
    for n, k in (missed or {}).items():
        played[n] += k
        gplayed[n] += need * k
        record[n][1] += k
    for r in rounds:
        for p in r:
            if p["B"] is None:
                pts[p["A"]] += 3
                played[p["A"]] += 1
                gpts[p["A"]] += 3 * need
                gplayed[p["A"]] += need
                record[p["A"]][0] += 1
                continue
            wins = {p["A"]: 0, p["B"]: 0}
            draws = games = 0
            k = 1
            while True:
                g = p["match"] if k == 1 else f"{p['match']}.g{k}"
                if g not in winners:
                    break
                games += 1
                if winners[g] is None:
                    draws += 1
                else:
                    wins[winners[g]] += 1
                if max(wins.values()) >= need:
                    break
                k += 1
            over = max(wins.values()) >= need or games >= best_of or p["match"] in called
            if not over:
                continue
            for n, o in ((p["A"], p["B"]), (p["B"], p["A"])):
                played[n] += 1
                opps[n].append(o)
                gpts[n] += 3 * wins[n] + draws
                gplayed[n] += games
                if wins[n] > wins[o]:
                    pts[n] += 3
                    record[n][0] += 1
                elif wins[n] == wins[o]:
                    pts[n] += 1
                    record[n][2] += 1
                else:
                    record[n][1] += 1
    floor = Fraction(33, 100)
    mwp = {n: max(floor, Fraction(pts[n], 3 * played[n])) if played[n] else floor for n in names}
    gwp = {n: max(floor, Fraction(gpts[n], 3 * gplayed[n])) if gplayed[n] else floor for n in names}
    mean = lambda xs: sum(xs, Fraction(0)) / len(xs) if xs else floor  # noqa: E731
    omw = {n: mean([mwp[o] for o in opps[n]]) for n in names}
    ogw = {n: mean([gwp[o] for o in opps[n]]) for n in names}
    oomw = {n: mean([omw[o] for o in opps[n]]) for n in names}
    order = sorted(names, key=lambda n: (n in disqualified, -pts[n], -omw[n], -gwp[n], -ogw[n], n))
    return [
        {
            "rank": None if n in disqualified else i,
            "player": n,
            "points": pts[n],
            "omw": round(float(omw[n]), 4),
            "gw": round(float(gwp[n]), 4),
            "ogw": round(float(ogw[n]), 4),
            "oomw": round(float(oomw[n]), 4),
            "played": played[n],
            "record": "-".join(map(str, record[n])),
            "disqualified": n in disqualified,
        }
        for i, n in enumerate(order, 1)
    ]


def without_dropped(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "dropped"} for r in rows]


def results_from_matches(db_url: str, rounds: list[list[dict]]) -> dict[str, str | None]:
    """Each finished match's winner, read from the match itself (its state), not from any projection."""
    from referee.store import MatchStore

    out: dict[str, str | None] = {}
    with MatchStore(db_url) as store:
        for r in rounds:
            for p in r:
                if p["match"] is None:
                    continue
                state, _ = store.load(p["match"])
                if state.result is not None:
                    out[p["match"]] = None if state.result.draw else p[state.result.winner]
    return out


def last_action_position(db_url: str, match: str) -> int:
    from referee.store import MatchStore

    with MatchStore(db_url) as store:
        events = store.events(match)
    return max(i for i, e in enumerate(events, 1) if type(e).__name__ == "ActionTaken")


# --- the whole event -------------------------------------------------------------------------


def test_a_whole_event_from_several_stations(database) -> None:
    """8 players registered from 8 processes at once, 3 Swiss rounds each paired
    by 3 stations at once and played by 4 `simulate --event` processes at once;
    the standings equal a recomputation from the matches' own results, nobody
    meets twice, and a rewound result leaves the standings again."""
    db = database.url
    event = json.loads(ok(referee("event", "new", "Spring Cup 2026", "--json", db=db)))["event"]
    decks = {n: DECKS / ("alice.yaml" if i % 2 == 0 else "bob.yaml") for i, n in enumerate(NAMES)}
    for done in at_once([["event", "register", event, "--player", n, "--deck", str(decks[n])] for n in NAMES], db):
        ok(done)
    rounds: list[list[dict]] = []
    for r in range(1, 4):
        paired = [json.loads(ok(d)) for d in at_once([["event", "round", event, "--round", str(r), "--json"]] * 3, db)]
        assert all(p == paired[0] for p in paired), "every station sees the one pairing of the round"
        assert paired[0]["round"] == r and len(paired[0]["pairings"]) == 4
        rounds.append(paired[0]["pairings"])
        for done in at_once([["simulate", "--event", event, "--seed", str(s), "--json"] for s in range(4)], db):
            ok(done)
    matches = json.loads(ok(referee("event", "matches", event, "--json", db=db)))["matches"]
    assert len(matches) == 12 and all(m["status"] == "finished" for m in matches)
    met = [frozenset((p["A"], p["B"])) for r in rounds for p in r]
    assert len(met) == len(set(met)), "no rematch"
    for r in rounds:
        assert sorted(n for p in r for n in (p["A"], p["B"])) == sorted(NAMES)
    winners = results_from_matches(db, rounds)
    assert len(winners) == 12
    for m in matches:
        assert m["winner"] == winners[m["match"]] and m["draw"] == (winners[m["match"]] is None)
    table = without_dropped(json.loads(ok(referee("event", "standings", event, "--json", db=db)))["standings"])
    assert table == recompute(rounds, winners)
    assert sum(row["points"] for row in table) == 3 * 12 - sum(1 for w in winners.values() if w is None)

    # A judge's 410 rewind to before the last action reopens a finished match:
    # its result leaves the standings again.
    reopened = rounds[2][0]["match"]
    to = last_action_position(db, reopened) - 1
    ok(referee("rewind", reopened, "--to", str(to), "--rule", "410.1", "--reason", "wrong count", "--by", "Kim", db=db))
    table = without_dropped(json.loads(ok(referee("event", "standings", event, "--json", db=db)))["standings"])
    without = {m: w for m, w in winners.items() if m != reopened}
    detail = ok(referee("event", "matches", event, "--json", db=db))
    assert table == recompute(rounds, without), (reopened, to, winners, detail)
    row = next(
        m
        for m in json.loads(ok(referee("event", "matches", event, "--json", db=db)))["matches"]
        if m["match"] == reopened
    )
    assert row["status"] == "playing" and row["winner"] is None and row["judge_calls"] == 1
    # Rebuilt from zero, the projection says the same.
    assert (
        without_dropped(json.loads(ok(referee("event", "standings", event, "--rebuild", "--json", db=db)))["standings"])
        == table
    )
    # The next round waits for the reopened table.
    blocked = referee("event", "round", event, db=db)
    assert blocked.returncode == 1 and "not over" in blocked.stderr and "Traceback" not in blocked.stderr


def test_an_odd_event_gives_one_bye_a_round_to_the_lowest_without_one(tmp_path: Path) -> None:
    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.store import MatchStore
    from referee.tournament.service import Station, pair_round, play_round, register

    deck = load_deck(DECKS / "alice.yaml", CardCatalog(bundled_pool()))
    with MatchStore(f"sqlite:///{tmp_path / 'e.db'}") as store:
        station = Station(store)
        tid = station.tournaments.create("Odd Cup")
        for n in NAMES[:7]:
            register(station, tid, n, deck, None)
        byes = []
        for r in range(1, 4):
            station.catch_up()
            before = station.view.standings(tid) if r > 1 else []
            paired, ours = pair_round(station, tid)
            assert ours
            bye = [p for p in paired.pairings if p.B is None]
            assert len(bye) == 1 and bye[0].match is None
            byes.append(bye[0].A)
            if before:
                without = [row["player"] for row in before if row["player"] not in byes[:-1]]
                assert bye[0].A == without[-1], "the lowest-ranked player who has had no bye"
            play_round(station, tid, random.Random(r))
        assert len(set(byes)) == 3
        station.catch_up()
        rows = station.view.standings(tid)
        assert sum(r["played"] for r in rows) == 3 * 7
        # One computation per notification at most (the tracking row makes it so).
        computed = station.view.computed(tid)
        assert len(computed) == len(set(computed))


# --- Swiss pairing promises ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=12), rounds=st.integers(min_value=1, max_value=5), seed=st.integers(0, 10**6)
)
def test_swiss_pairs_everyone_once_without_rematches(n: int, rounds: int, seed: int) -> None:
    from referee.tournament.pairing import swiss
    from referee.tournament.store import Refused

    rng = random.Random(seed)
    state = TournamentState(id="e-test", name="t")
    for i in range(n):
        state.players[f"P{i}"] = Player(f"P{i}", [])
    results: dict[str, Result] = {}
    for r in range(1, rounds + 1):
        table = standings(list(state.players), [(x.round, x.pairings) for x in state.rounds], results)
        try:
            pairs = swiss(state, table, seed + r)
        except Refused:
            # Only when no pairing without a rematch (and a second bye) exists at all.
            assert not _some_pairing_exists(sorted(state.players), state.opponents(), state.byes())
            return
        names = [x for a, b in pairs for x in (a, b) if x is not None]
        assert sorted(names) == sorted(state.players)
        met = state.opponents()
        assert all(b is None or b not in met[a] for a, b in pairs)
        byes = [a for a, b in pairs if b is None]
        assert len(byes) == n % 2
        for a in byes:
            assert a not in state.byes(), "at most one bye each"
        pairings = [
            Pairing(table=t, A=a, B=b, match=None if b is None else f"m{r}.{t}") for t, (a, b) in enumerate(pairs, 1)
        ]
        state.rounds.append(RoundPaired(round=r, pairings=pairings))
        for p in pairings:
            if p.B is not None:
                roll = rng.random()
                results[p.match] = Result(None, True) if roll < 0.1 else Result(p.A if roll < 0.55 else p.B, False)


def _some_pairing_exists(names: list[str], met: dict[str, set[str]], byes: set[str]) -> bool:
    """Brute force: can ``names`` be paired with no rematch, a bye (if odd) to someone without one?"""
    if not names:
        return True
    if len(names) % 2:
        return any(_some_pairing_exists([x for x in names if x != b], met, byes) for b in names if b not in byes)
    first, rest = names[0], names[1:]
    return any(
        _some_pairing_exists([x for x in rest if x != o], met, byes) for o in rest if o not in met.get(first, set())
    )


def test_standings_math_on_a_small_example() -> None:
    rounds = [
        (1, [Pairing(table=1, A="A", B="B", match="m1"), Pairing(table=2, A="C", B=None)]),
        (2, [Pairing(table=1, A="C", B="A", match="m2"), Pairing(table=2, A="B", B=None)]),
    ]
    results = {"m1": Result("A", False), "m2": Result(None, True)}
    rows = {r["player"]: r for r in standings(["A", "B", "C"], rounds, results)}
    assert rows["A"]["points"] == 4 and rows["C"]["points"] == 4 and rows["B"]["points"] == 3
    # A's opponents: B (3 points in 2 rounds: 1/2) and C (4 in 2: 2/3).
    assert rows["A"]["omw"] == round((0.5 + 2 / 3) / 2, 4)
    # B lost to A only: OMW = A's 4/6; a loss-only record is floored at 0.33.
    assert rows["B"]["omw"] == round(4 / 6, 4)
    assert [r["player"] for r in standings(["A", "B", "C"], rounds, results)][0] in ("A", "C")


def test_the_floor_is_0_33_as_appendix_c_writes_it_not_a_third() -> None:
    """X beat L (no wins: MWP floored), Y beat D (1-2: MWP exactly 1/3).
    At 0.33, Y's OMW (1/3) is above X's (0.33), so Y ranks above X; at 1/3
    they would tie and X (first by name) would rank first."""
    p = lambda t, a, b, m=None: Pairing(table=t, A=a, B=b, match=m or f"{a}{b}")  # noqa: E731
    rounds = [
        (1, [p(1, "X", "L"), p(2, "Y", "D"), p(3, "F", "E")]),
        (2, [p(1, "D", "E"), p(2, "F", "L")]),
        (3, [p(1, "F", "D")]),
    ]
    results = {"XL": Result("X", False), "YD": Result("Y", False), "FE": Result("F", False)}
    results |= {"DE": Result("D", False), "FL": Result("F", False), "FD": Result("F", False)}
    rows = standings(["X", "Y", "L", "D", "E", "F"], rounds, results)
    by = {r["player"]: r for r in rows}
    assert by["X"]["omw"] == 0.33 and by["Y"]["omw"] == round(1 / 3, 4)
    order = [r["player"] for r in rows]
    assert order.index("Y") < order.index("X")


def test_a_player_with_no_opponent_is_at_the_floor_and_a_disqualified_one_is_listed_last() -> None:
    """A round-1 bye (no opponent yet) has OMW and OGW at 0.33, not 0: Ann
    (a bye) ties Bob (who beat a player with no wins) on every tiebreaker
    and ranks first by name; before, her OMW was 0 and she ranked last of
    her points. A disqualified player keeps their results for their
    opponents but is listed last, unranked."""
    rounds = [(1, [Pairing(table=1, A="Bob", B="Cal", match="m1"), Pairing(table=2, A="Ann", B=None)])]
    rows = standings(["Ann", "Bob", "Cal"], rounds, {"m1": Result("Bob", False)})
    assert [r["player"] for r in rows] == ["Ann", "Bob", "Cal"]
    assert rows[0]["omw"] == rows[0]["ogw"] == rows[0]["oomw"] == 0.33
    rows = standings(["Ann", "Bob", "Cal"], rounds, {"m1": Result("Bob", False)}, disqualified=["Bob"])
    assert [(r["player"], r["rank"], r["disqualified"]) for r in rows] == [
        ("Ann", 1, False),
        ("Cal", 2, False),
        ("Bob", None, True),
    ]
    assert rows[1]["omw"] == 1.0  # Cal's opponent Bob still counts


# --- command line details --------------------------------------------------------------------


@pytest.fixture
def run(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'event.db'}"
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, [*args, "--db", db])
        assert result.exit_code == code, (args, result.output)
        return result.output

    invoke.db = db  # type: ignore[attr-defined]
    return invoke


def test_registration_is_checked_frozen_and_changed_only_by_someone(run, tmp_path: Path) -> None:
    from referee.store import MatchStore
    from referee.tournament.store import Tournaments

    event = json.loads(run("event", "new", "Cup", "--json"))["event"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {card: Little Page, count: 4}\n")
    out = run("event", "register", event, "--player", "Alice", "--deck", str(bad), code=2)
    assert "bad.yaml" in out and "100.2" in out and "Traceback" not in out
    run("event", "register", event, "--player", "Alice", "--deck", str(DECKS / "alice.yaml"))
    again = run("event", "register", event, "--player", "Alice", "--deck", str(DECKS / "bob.yaml"), code=1)
    assert "--by" in again
    run("event", "register", event, "--player", "Alice", "--deck", str(DECKS / "bob.yaml"), "--by", "Judge Kim")
    with MatchStore(run.db) as store:  # type: ignore[attr-defined]
        log = [r.event for r in store.application.events.get(event)]
        state = Tournaments(store).load(event)
    regs = [e for e in log if isinstance(e, PlayerRegistered)]
    assert len(regs) == 2 and regs[1].by == "Judge Kim" and regs[1].replaces
    assert state.players["Alice"].registrations == 2
    assert [c.name for c in state.players["Alice"].deck] == [c.name for c in regs[1].deck]


def test_imported_pairings_and_a_result_entered_by_hand(run, tmp_path: Path) -> None:
    event = json.loads(run("event", "new", "Cup", "--json"))["event"]
    for n in NAMES[:5]:
        run("event", "register", event, "--player", n, "--deck", str(DECKS / "alice.yaml"))
    bad = tmp_path / "bad.csv"
    bad.write_text("table,A,B\n1,Alice,Bob\n2,Carol,Zed\n")
    out = run("event", "round", event, "--pairings", str(bad), code=2)
    assert "bad.csv:3: at column 3 (player B): 'Zed' is not registered" in out
    twice = tmp_path / "twice.csv"
    twice.write_text("1,Alice,Bob\n2,Alice,Carol\n")
    assert "already paired at line 1" in run("event", "round", event, "--pairings", str(twice), code=2)
    assert json.loads(run("event", "matches", event, "--json"))["matches"] == []  # nothing written
    good = tmp_path / "r1.csv"
    good.write_text("table,A,B\n1,Alice,Bob\n2,Carol,Dan\n3,Eve,\n")
    paired = json.loads(run("event", "round", event, "--pairings", str(good), "--json"))
    assert paired == {
        "round": 1,
        "pairings": [
            {"table": 1, "A": "Alice", "B": "Bob", "match": f"{event}.r1.t1"},
            {"table": 2, "A": "Carol", "B": "Dan", "match": f"{event}.r1.t2"},
            {"table": 3, "A": "Eve", "B": None, "match": None},
        ],
    }
    run("event", "result", event, f"{event}.r1.t1", "--winner", "Bob", "--judge", "Judge Kim")
    run("event", "result", event, f"{event}.r1.t2", "--draw", "--judge", "Judge Kim")
    rows = {m["table"]: m for m in json.loads(run("event", "matches", event, "--json"))["matches"]}
    assert rows[1]["status"] == "finished" and rows[1]["winner"] == "Bob" and rows[1]["entered_by"] == "Judge Kim"
    assert rows[2]["draw"] is True and rows[3]["status"] == "bye" and rows[3]["B"] is None
    table = {r["player"]: r["points"] for r in json.loads(run("event", "standings", event, "--json"))["standings"]}
    assert table == {"Bob": 3, "Eve": 3, "Carol": 1, "Dan": 1, "Alice": 0}
    csv_out = run("event", "standings", event, "--csv")
    assert csv_out.splitlines()[0] == "rank,player,points,omw,gw,ogw,oomw,played,record,dropped,disqualified"
    run("event", "drop", event, "Alice", "--by", "Judge Kim")
    paired2 = json.loads(run("event", "round", event, "--json"))
    assert "Alice" not in {n for p in paired2["pairings"] for n in (p["A"], p["B"])}


def test_an_unknown_event_is_bad_input(run) -> None:
    # Only `event new` makes a missing database; the others say there is none.
    assert "no such database" in run("event", "standings", "e-00000000", code=2)
    run("event", "new", "Spring Cup")
    out = run("event", "standings", "e-00000000", code=2)
    assert "no tournament" in out
    assert "not an event id" in run("event", "standings", "m-1234", code=2)


# --- the hash chain ---------------------------------------------------------------------------


def _match_with_actions(url: str) -> str:
    from referee.rules.harem_master import start
    from referee.rules.harem_master.decks import deal, load_deck
    from referee.rules.harem_master.notation import action_from_mapping, resolve
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.store import MatchStore

    cat = CardCatalog(bundled_pool())
    decks = {p: load_deck(DECKS / f, cat) for p, f in (("A", "vanilla-a.yaml"), ("B", "vanilla-b.yaml"))}
    cards, castles = deal(decks)
    with MatchStore(url) as store:
        mid = store.create(start(cards, castles, seed=5).events)
        state, _ = store.load(mid)
        store.act(
            mid, resolve(state, action_from_mapping({"player": "A", "do": "choose_opening", "card": "Little Page"}))
        )
    return mid


def test_one_changed_byte_in_the_database_is_found_at_its_position(database) -> None:
    mid = _match_with_actions(database.url)
    intact = json.loads(ok(referee("audit", mid, "--json", db=database.url)))
    assert intact["chain"]["status"] == "intact" and intact["chain"]["events"] == 3
    # Event 2's "rule":"101.1" becomes "1X1.1": still JSON, still an event.
    if database.kind == "sqlite":
        database.sql(
            "UPDATE stored_events SET state = CAST(substr(CAST(state AS TEXT), 1, 10) || 'X' || "
            f"substr(CAST(state AS TEXT), 12) AS BLOB) WHERE originator_id = '{mid}' AND originator_version = 2"
        )
    else:
        database.sql(
            "UPDATE referee_events SET state = overlay(state placing '\\x58'::bytea from 11 for 1) "
            f"WHERE originator_id = '{mid}' AND originator_version = 2"
        )
    done = referee("audit", mid, "--json", db=database.url)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["chain"]["status"] == "broken" and report["chain"]["broken_at"] == 2
    text = referee("audit", mid, db=database.url)
    assert "chain broken at event 2" in text.stdout


def test_an_export_ends_with_the_stored_head_and_an_edited_record_is_caught(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    mid = _match_with_actions(url)
    head = json.loads(ok(referee("audit", mid, "--json", db=url)))["chain"]["head"]
    out = tmp_path / "r.yaml"
    ok(referee("export", mid, "-o", str(out), db=url))
    text = out.read_text()
    assert text.rstrip().splitlines()[-2] == f"head: {head}"  # then the store's signature of it
    assert text.rstrip().splitlines()[-1].startswith("signature: {key: 'ed25519:")
    assert json.loads(ok(referee("audit", str(out), "--json", db=url)))["chain"]["status"] == "intact"
    out.write_text(text.replace("card: 'A:4'", "card: 'A:5'"))
    done = referee("audit", str(out), "--json", db=url)
    assert done.returncode == 1
    assert json.loads(done.stdout)["chain"]["broken_at"] == {"action": 1, "events": [2, 3]}


def test_a_match_stored_before_chains_reads_as_no_chain(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from eventsourcing.persistence import StoredEvent

    from referee.rules.harem_master import start
    from referee.rules.harem_master.decks import deal, load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.store import MatchStore

    url = f"sqlite:///{tmp_path / 'old.db'}"
    cat = CardCatalog(bundled_pool())
    cards, castles = deal({p: load_deck(DECKS / f, cat) for p, f in (("A", "vanilla-a.yaml"), ("B", "vanilla-b.yaml"))})
    with MatchStore(url) as store:
        rows = store.application.mapper.to_rows(
            "m-01d01d01", 0, datetime.now(timezone.utc), list(start(cards, castles, seed=1).events)
        )
        store.application.recorder.insert_events([StoredEvent(*r) for r in rows])
    report = json.loads(ok(referee("audit", "m-01d01d01", "--json", db=url)))
    assert report["legal"] is True and report["chain"]["status"] == "no chain"
    # Acting on it goes on with a chain from there; the old part is named as not covered.
    ok(referee("act", "m-01d01d01", "A", "choose_opening", "Little Page", db=url))
    report = json.loads(ok(referee("audit", "m-01d01d01", "--json", db=url)))
    assert report["chain"]["status"] == "intact" and report["chain"]["unchained"] == 1


def test_a_table_dealt_event_stores_the_setting_and_its_tournament_log_is_chained(run, tmp_path: Path) -> None:
    from referee.store import MatchStore

    event = json.loads(run("event", "new", "Paper Cup", "--deal", "table", "--json"))["event"]
    for n in NAMES[:2]:
        run("event", "register", event, "--player", n, "--deck", str(DECKS / "alice.yaml"))
    paired = json.loads(run("event", "round", event, "--json"))
    match = paired["pairings"][0]["match"]
    with MatchStore(run.db) as store:  # type: ignore[attr-defined]
        first = store.events(match, upto=1)[0]
        log = [r.event for r in store.application.events.get(event)]
    assert log[0].deal == "table"
    assert first.mode == "record"  # until the match layer takes deal=table (see create_table_match)
    assert set(first.names.values()) == set(NAMES[:2])
    report = json.loads(run("audit", event, "--json"))
    assert report["chain"]["status"] == "intact" and report["chain"]["events"] == 4


def test_follow_sees_results_land(database) -> None:
    """`event follow`: on PostgreSQL eventsourcing's ProjectionRunner, on SQLite a poll."""
    import threading
    import time

    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.tournament.projection import follow
    from referee.tournament.service import Station, enter_result, pair_round, register

    deck = load_deck(DECKS / "alice.yaml", CardCatalog(bundled_pool()))
    station = Station(database.open())
    tid = station.tournaments.create("Live Cup")
    for n in NAMES[:4]:
        register(station, tid, n, deck, None)
    paired, _ = pair_round(station, tid)
    seen: list[dict] = []
    watcher = Station(database.open())

    def changed() -> None:
        seen.append({r["player"]: r["points"] for r in watcher.view.standings(tid)})

    thread = threading.Thread(target=follow, args=(watcher.store, changed), kwargs={"timeout": 8, "poll": 0.2})
    thread.start()
    time.sleep(2)
    first = paired.pairings[0]
    enter_result(station, tid, first.match, first.A, False, "Judge Kim")
    thread.join()
    watcher.close()
    station.close()
    assert seen[0] == dict.fromkeys(NAMES[:4], 0)
    assert seen[-1][first.A] == 3 and sum(seen[-1].values()) == 3


def test_stations_catching_up_at_once_count_each_event_once(database) -> None:
    """Four stations rebuild-and-catch-up the same log at once: every followed
    event is computed exactly once, and the standings are those of one station alone."""
    import threading

    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool
    from referee.tournament.projection import catch_up, close_view, open_view
    from referee.tournament.service import Station, enter_result, pair_round, register

    deck = load_deck(DECKS / "alice.yaml", CardCatalog(bundled_pool()))
    station = Station(database.open())
    tid = station.tournaments.create("Busy Cup")
    for n in NAMES:
        register(station, tid, n, deck, None)
    paired, _ = pair_round(station, tid)
    for p in paired.pairings:
        enter_result(station, tid, p.match, p.B, False, "Judge Kim")
    alone = station.view.standings(tid)
    from referee.tournament.projection import tracking_key

    station.view.clear(tracking_key(station.store))
    stores = [database.open() for _ in range(4)]
    views = [open_view(s) for s in stores]
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            barrier.wait()
            catch_up(stores[i], views[i])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert station.view.standings(tid) == alone
    # 8 registrations, 1 pairing, 4 results: 13 events computed, each once.
    computed = station.view.computed(tid)
    assert len(computed) == 13 == len(set(computed))
    for v in views:
        close_view(v)
    station.close()


def test_a_page_read_before_another_station_took_in_part_of_it_is_refused(database) -> None:
    """Two stations catch a read model up at once while a third writes:
    station A reads notifications 1-2 (the log's end then), the log grows,
    station B reads 1-3 from the same position; A records its page first.
    The tracking row alone would then let B record 3 (it only refuses a
    position at or below its own), taking 1-2 in twice (a judge call
    counted twice); B's page is refused because the position it read from
    is no longer the position, and B reads on from A's."""
    from eventsourcing.persistence import Tracking

    from referee.tournament.projection import close_view, open_view
    from referee.tournament.tables import NAME

    store = database.open()
    key = "two-stations/" + NAME  # a tracking position of its own
    view = open_view(store)
    try:
        start = view.max_tracking_id(key) or 0
        taken: list[str] = []
        assert view.tracked(Tracking(key, start + 2), start, lambda c: taken.append("A: 1-2"))
        assert not view.tracked(Tracking(key, start + 3), start, lambda c: taken.append("B: 1-3"))
        assert taken == ["A: 1-2"] and view.max_tracking_id(key) == start + 2
        assert view.tracked(Tracking(key, start + 3), start + 2, lambda c: taken.append("B: 3"))
        assert taken == ["A: 1-2", "B: 3"] and view.max_tracking_id(key) == start + 3
        # What the check prevents: without it, the later position is simply accepted.
        assert view.tracked(Tracking(key, start + 9), None, lambda c: taken.append("unchecked"))
    finally:
        close_view(view)
        store.close()


# --- check-in ---------------------------------------------------------------------------------


def test_check_in_restricts_pairing_and_an_event_without_it_pairs_everyone(run, tmp_path: Path) -> None:
    """With `event new --check-in` only players checked in are paired (a
    Swiss round and imported pairings alike); one who checks in after round 1
    is a late entrant (TP5). Without --check-in every registered player who
    has not dropped is paired, checked in or not."""
    event = json.loads(run("event", "new", "Door Cup", "--check-in", "--json"))["event"]
    for n in NAMES[:6]:
        run("event", "register", event, "--player", n, "--deck", str(DECKS / "alice.yaml"))
    refused = run("event", "round", event, code=1)
    assert "checked in" in refused and "referee event checkin" in refused and "Nothing was recorded" in refused
    run("event", "checkin", event, "Alice", "Bob", "Carol", "Dan")
    late_import = tmp_path / "r1.csv"
    late_import.write_text("1,Alice,Bob\n2,Carol,Eve\n")
    out = run("event", "round", event, "--pairings", str(late_import), code=2)
    assert "r1.csv:2: at column 3 (player B): 'Eve' has not checked in" in out
    paired = json.loads(run("event", "round", event, "--json"))
    seated = {n for p in paired["pairings"] for n in (p["A"], p["B"]) if n}
    assert seated == {"Alice", "Bob", "Carol", "Dan"}
    for p in paired["pairings"]:
        run("event", "result", event, p["match"], "--winner", p["A"], "--judge", "Judge Kim")
    run("event", "checkin", event, "Eve")  # after round 1: a late entrant
    paired = json.loads(run("event", "round", event, "--json"))
    seated = {n for p in paired["pairings"] for n in (p["A"], p["B"]) if n}
    assert seated == {"Alice", "Bob", "Carol", "Dan", "Eve"} and "Fay" not in seated
    eve = next(r for r in json.loads(run("event", "standings", event, "--json"))["standings"] if r["player"] == "Eve")
    assert eve["record"].split("-")[1] == "1"  # round 1, missed: a loss (round 2 is a bye or still playing)
    assert "Fay" not in {
        r["player"] for r in json.loads(run("event", "standings", event, "--json"))["standings"] if r["played"]
    }

    plain = json.loads(run("event", "new", "Open Cup", "--json"))["event"]
    for n in NAMES[:4]:
        run("event", "register", plain, "--player", n, "--deck", str(DECKS / "alice.yaml"))
    said = run("event", "checkin", plain, "Alice")
    assert "does not use check-in" in said
    paired = json.loads(run("event", "round", plain, "--json"))
    assert {n for p in paired["pairings"] for n in (p["A"], p["B"])} == set(NAMES[:4])


# --- the read models stay current ---------------------------------------------------------------


def _folded_by_a_reader(db: str) -> tuple[int, int]:
    """What a reader that may not write (the board, a spectator's role)
    must fold in memory before it can answer: notifications the tournaments
    projection and the table summaries have not taken in yet."""
    from referee.store import MatchStore
    from referee.tournament.projection import Reader
    from referee.tournament.tables import Tables

    with MatchStore(db, read_only=True) as store:
        reader, tables = Reader(store, writable=False), Tables(store, writable=False)
        try:
            return reader.catch_up(), tables.refresh()
        finally:
            reader.close()
            tables.close()


def test_every_command_that_writes_leaves_the_read_models_current(run, tmp_path: Path) -> None:
    """After each command that writes to an event or to one of its tables
    (`event ...`, `act`, `note`, `rewind`), a reader folds nothing: the
    command caught both read models up before it answered. A write to a
    match outside any event is folded by the reader (or by the next command
    that writes to an event), never more than what was written since."""
    event = json.loads(run("event", "new", "Live Cup", "--best-of", "3", "--round-minutes", "50", "--json"))["event"]
    players = tmp_path / "players.csv"
    players.write_text("".join(f"{n},{DECKS / 'alice.yaml'}\n" for n in NAMES[:5]))
    steps: list[tuple[str, ...]] = [
        ("event", "register", event, "--csv", str(players)),
        ("event", "checkin", event, "Alice"),
        ("event", "round", event),
    ]
    for step in steps:
        run(*step)
        assert _folded_by_a_reader(run.db) == (0, 0), step
    rows = json.loads(run("event", "matches", event, "--json"))["matches"]
    table = next(r for r in rows if r["B"] is not None)
    other = next(r for r in rows if r["B"] is not None and r["table"] != table["table"])
    game = table["current"]
    steps = [
        ("act", game, "A", "choose_opening", "Bold Squire"),
        ("note", game, "A asked about the opening", "--by", "Judge Kim"),
        ("rewind", game, "--to", "1", "--rule", "410.1", "--reason", "wrong card", "--by", "Judge Kim"),
        (
            "event",
            "extend",
            event,
            str(table["table"]),
            "--minutes",
            "5",
            "--reason",
            "deck check",
            "--judge",
            "Judge Kim",
        ),
        ("event", "result", event, game, "--game", "1", "--winner", table["A"], "--judge", "Judge Kim"),
        (
            "event",
            "penalty",
            event,
            other["A"],
            "--infraction",
            "slow-play",
            "--penalty",
            "game-loss",
            "--judge",
            "Judge Kim",
            "--yes",
        ),
        ("event", "time", event, "--judge", "Judge Kim"),
        ("event", "drop", event, "Eve", "--by", "Judge Kim", "--reason", "went home"),
        ("event", "undrop", event, "Eve", "--by", "Judge Kim", "--reason", "came back"),
    ]
    for step in steps:
        run(*step)
        assert _folded_by_a_reader(run.db) == (0, 0), step
    # A match outside any event: the reader folds exactly its events, and the
    # next command that writes to the event takes them in.
    made = json.loads(run("new", "--deck", f"A={DECKS / 'alice.yaml'}", "--deck", f"B={DECKS / 'bob.yaml'}", "--json"))
    from referee.store import MatchStore

    with MatchStore(run.db, read_only=True) as store:
        version = store.load(made["match"])[1]
    assert _folded_by_a_reader(run.db) == (0, version)
    run("event", "checkin", event, "Bob")
    assert _folded_by_a_reader(run.db) == (0, 0)


# --- penalties: when a game loss applies (TP3) ---------------------------------------------------


def test_a_game_loss_between_games_takes_the_next_game_and_after_the_match_the_next_match(run) -> None:
    """TP3: between games of a best-of-three the next game is recorded as
    lost without being played (stored, ended at its start by the judge);
    after the player's match, the loss waits for the first game of their
    next match and is applied once, however many stations pair the round."""
    from events.tournament import PenaltyApplied
    from referee.store import MatchStore
    from referee.tournament.policy import PENALTY

    event = json.loads(run("event", "new", "Loss Cup", "--best-of", "3", "--json"))["event"]
    for n in NAMES[:4]:
        run("event", "register", event, "--player", n, "--deck", str(DECKS / "alice.yaml"))
    one, two = json.loads(run("event", "round", event, "--json"))["pairings"]
    # Table one: game 1 won by A; then a game loss for A, between games.
    run("event", "result", event, one["match"], "--game", "1", "--winner", one["A"], "--judge", "Judge Kim")
    given = json.loads(
        run(
            "event",
            "penalty",
            event,
            one["A"],
            "--infraction",
            "tardiness",
            "--penalty",
            "game-loss",
            "--judge",
            "Judge Ann",
            "--json",
            "--yes",
        )
    )
    assert given["penalty"]["game"] == 2 and given["pending"] is False
    with MatchStore(run.db, read_only=True) as store:
        lost = store.events(f"{one['match']}.g2")
        state, _ = store.load(f"{one['match']}.g2")
        assert store.exists(f"{one['match']}.g3")  # the match goes on: game 3 is created
    assert not [e for e in lost if type(e).__name__ == "ActionTaken"]  # never played
    assert state.result.rule == PENALTY and state.result.winner == "B" and "Judge Ann" in state.result.reason
    row = next(m for m in json.loads(run("event", "matches", event, "--json"))["matches"] if m["table"] == one["table"])
    assert row["score"] == {one["A"]: 1, one["B"]: 1, "draws": 0} and row["current"] == f"{one['match']}.g3"
    run("event", "result", event, f"{one['match']}.g3", "--winner", one["A"], "--judge", "Judge Kim")
    # Table two: over 2-0; a game loss for its loser now waits for the next match.
    for k, game in enumerate((two["match"], f"{two['match']}.g2"), start=1):
        run("event", "result", event, game, "--game", str(k), "--winner", two["B"], "--judge", "Judge Kim")
    said = run(
        "event",
        "penalty",
        event,
        two["A"],
        "--infraction",
        "slow-play",
        "--penalty",
        "game-loss",
        "--judge",
        "Judge Ann",
        "--yes",
    )
    assert "applies to the first game of their next match" in said
    with MatchStore(run.db, read_only=True) as store:
        assert not store.exists(f"{two['match']}.g3")  # no game was added to a finished match
    paired = json.loads(run("event", "round", event, "--round", "2", "--json"))
    again = json.loads(run("event", "round", event, "--round", "2", "--json"))  # another station asks too
    assert again == paired
    table = next(p for p in paired["pairings"] if two["A"] in (p["A"], p["B"]))
    opponent_seat = "B" if table["A"] == two["A"] else "A"
    with MatchStore(run.db, read_only=True) as store:
        state, _ = store.load(table["match"])
        log = [r.event for r in store.application.events.get(event)]
    assert state.result.rule == PENALTY and state.result.winner == opponent_seat and "Judge Ann" in state.result.reason
    applied = [e for e in log if isinstance(e, PenaltyApplied)]
    assert [(e.player, e.round, e.table, e.game) for e in applied] == [(two["A"], 2, table["table"], 1)]


def test_the_policy_page_lists_the_policies_infractions_and_penalties_as_declared() -> None:
    """docs/tournament-policy.md says for people what referee/tournament/policy.py declares once."""
    from referee.tournament.policy import INFRACTIONS, PENALTIES, POLICIES

    text = (ROOT / "docs" / "tournament-policy.md").read_text()
    for p in POLICIES.values():
        assert f"| {p.id} | {p.title} | {p.text} |" in text, p.id
    for name, said in {**INFRACTIONS, **PENALTIES}.items():
        assert f"- `{name}`: {said.split(': ', 1)[1]}." in text, name


def test_a_record_with_a_judges_result_audits_imports_and_refuses_play_after_it(run) -> None:
    """scenarios/records/result-entered-by-a-judge.yaml: `audit` replays the
    judge's `result` action (TP1; here time, TP2) to a draw; imported, the
    match refuses any action citing TP2 and quoting the judge."""
    record = str(ROOT / "scenarios" / "records" / "result-entered-by-a-judge.yaml")
    audited = CliRunner().invoke(cli, ["audit", record])
    assert audited.exit_code == 0, audited.output
    assert "legal, 16 actions" in audited.output and "a draw (TP2)" in audited.output
    run("event", "new", "Cup")  # the store exists
    # Typed by hand: no chain or signature, so a judge brings it in (the log keeps a note).
    accept = ["--accept-broken-chain", "--by", "Kim", "--reason", "the judge's own sample"]
    match = json.loads(run("import", record, *accept, "--json"))["match"]
    refused = run("act", match, "A", "concede", code=1)
    assert "refused (TP2)" in refused and "Judge Kim" in refused


def test_bad_registration_lists_and_names_are_bad_input_and_write_nothing(run, tmp_path: Path) -> None:
    """`event register --csv`: each bad line exits 2 naming the file, the
    line, the column and what was expected, before anything is written; an
    event or a judge without a name is refused the same way."""
    assert "is empty: expected a name" in run("event", "new", "  ", code=2)
    event = json.loads(run("event", "new", "List Cup", "--json"))["event"]
    illegal = tmp_path / "illegal.yaml"
    illegal.write_text("- {card: Little Page, count: 4}\n")
    alice = DECKS / "alice.yaml"
    cases = {
        f"name,deck\nAnn,{alice}\nBob,nosuch.yaml\n": "players.csv:3: at column 2 (deck file): expected a deck file: no such file",
        f"Ann,{alice}\nAnn,{alice}\n": "players.csv:2: at column 1 (name): 'Ann' is already listed at line 1",
        f"Ann,{alice},x\n": "players.csv:1: expected 'name, deck file' (2 columns), got 3",
        f"Ann,{illegal}\n": "players.csv:1: at column 2 (deck file): the deck",
    }
    players = tmp_path / "players.csv"
    for text, said in cases.items():
        players.write_text(text)
        out = run("event", "register", event, "--csv", str(players), code=2)
        assert said in out and "Traceback" not in out, out
    assert "100.2" in out  # the illegal deck says which rule it breaks
    assert json.loads(run("event", "standings", event, "--json"))["standings"] == []  # nothing was written
    assert "is empty" in run("event", "extend", event, "1", "--minutes", "5", "--reason", "r", "--judge", "", code=2)
