"""`referee bench`: every code path of the benchmark on tiny sizes, and the
shape of its report. Nothing here times anything or asserts on a speed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import figures as bench
from referee.cli import cli
from referee.rules.harem_master.pool import bundled_pool, load_pool
from referee.store import MatchStore

STORE_FIGURES = [
    ("self_play", "self-play in memory", "events/s", ""),
    ("self_play", "self-play stored in SQLite", "events/s", ""),
    ("self_play", "stored / in memory", "x", ">= 0.5"),
    ("self_play", "same actions replayed: stored / memory", "x", ""),
    ("self_play", "bound: sqlite3 alone, a txn per action", "x", ""),
    ("write", "store writes {n} events", "events/s", ""),
    ("write", "sqlite3 inserts the same rows", "events/s", ""),
    ("write", "store / sqlite3", "x", ">= 0.5"),
    ("write", "(serializing alone, in the store)", "events/s", ""),
]


def _shape(figures) -> list[tuple[str, str, str, str]]:
    return [(f.section, f.name, f.unit, f.target) for f in figures]


def test_the_store_bench_reports_each_figure_against_its_baseline(tmp_path):
    report = bench.store_bench(games=1, seed=3, runs=1, act_runs=1, min_events=600, directory=str(tmp_path))
    n = report.events
    assert report.games == 1 and n == report.info["self_play"]["events"] == report.info["write"]["events"]
    act = report.info["act"]
    long_events, short_events = act["long_match"]["events"], act["short_match"]["events"]
    assert long_events >= 600 and act["long_match"]["rewinds"] >= 1 and act["long_match"]["replayed_actions"] > 0
    assert 50 <= short_events < 150
    expected = [(s, name.format(n=n), u, t) for s, name, u, t in STORE_FIGURES] + [
        ("act", "referee --version", "ms", ""),
        ("act", f"referee act, {long_events}-event match", "ms", ""),
        ("act", f"referee act, {short_events}-event match", "ms", ""),
        ("act", "act (long) / --version", "x", "<= 1.5"),
        ("act", "act (long) / act (short)", "x", ""),
    ]
    assert _shape(report.figures) == expected
    for f in report.figures:
        assert f.value > 0
        assert (f.ok is None) == (f.target == "")
    by_name = {f.name: f for f in report.figures}
    # Ratios are the quotients of the figures they compare, measured in the same run.
    assert by_name["stored / in memory"].value == pytest.approx(
        by_name["self-play stored in SQLite"].value / by_name["self-play in memory"].value
    )
    assert by_name["act (long) / --version"].value == pytest.approx(
        by_name[f"referee act, {long_events}-event match"].value / by_name["referee --version"].value
    )
    assert set(act["commands"]) == {"version", "long", "short"}
    assert " act m-" in act["commands"]["long"] and " --db sqlite:///" in act["commands"]["long"]
    assert act["commands"]["version"].endswith(" --version")
    assert list(tmp_path.iterdir()) == []  # the temporary databases are gone

    doc = json.loads(json.dumps(report.to_json()))
    assert {"games", "events", "figures", "self_play", "write", "act"} <= doc.keys()
    assert [f["section"] for f in doc["figures"]] == [f.section for f in report.figures]


def test_the_long_match_is_still_going_and_was_made_by_rewinds_with_replay(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.db'}"
    match, events, rewinds, replayed = bench.build_long_match(url, min_events=700, seed=1)
    with MatchStore(url) as store:
        state, version = store.load(match)
        log = store.events(match)
    assert version == events >= 700 and state.result is None
    assert sum(type(e).__name__ == "Rewound" for e in log) == rewinds >= 1
    assert replayed > 0


def test_referee_bench_json_is_one_document_with_the_command(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--games",
            "1",
            "--chess-games",
            "1",
            "--store-games",
            "1",
            "--runs",
            "1",
            "--no-act",
            "--no-audit",
            "--no-startup",
            "--no-board",
            "--no-event",
            "--no-console",
            "--dir",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["command"].startswith(
        "referee bench --seed 1 --games 1 --chess-games 1 --store-games 1 --runs 1 --no-act"
    )
    assert [f["unit"] for f in doc["decisions"]["figures"]] == ["decisions/s", "decisions/s", "moves/s", "x", "x"]
    kinds = {kind for kind, cards in bench.bench_pools(bundled_pool()).items() if cards}
    assert {f["section"] for f in doc["engine"]["figures"]} == kinds
    assert {f["section"] for f in doc["store"]["figures"]} == {"self_play", "write"}
    assert [(f["name"], f["target"]) for f in doc["store"]["figures"] if f["target"]] == [
        ("stored / in memory", ">= 0.5"),
        ("store / sqlite3", ">= 0.5"),
    ]
    assert all(isinstance(f["ok"], bool) for f in doc["store"]["figures"] if f["target"])


def test_referee_bench_prints_the_command_targets_and_verdicts(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--no-engine",
            "--store-games",
            "1",
            "--runs",
            "1",
            "--no-act",
            "--no-audit",
            "--no-startup",
            "--no-board",
            "--no-event",
            "--no-console",
            "--dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "$ referee bench --seed 1 --no-engine --store-games 1 --runs 1 --no-act --no-audit --no-startup "
        f"--no-board --no-event --no-console --dir {tmp_path}"
    )
    targeted = [line for line in lines if "(target" in line]
    assert len(targeted) == 2
    assert all(line.endswith(("  ok", "  BELOW TARGET")) for line in targeted)


def test_the_engine_is_timed_with_vanilla_and_with_ability_heavy_decks():
    pool = bundled_pool()
    fuzz = load_pool(Path(__file__).with_name("data") / "ability-fuzz-pool.yaml")
    kinds = bench.bench_pools({**pool, **fuzz})
    assert kinds["vanilla"] and all(not c.abilities for c in kinds["vanilla"].values())
    heavy = kinds["ability-heavy"]
    assert all(c.abilities or (c.type == "character" and c.cost == 1) for c in heavy.values())
    assert set(fuzz) <= set(heavy)


def test_the_engine_report_has_both_kinds_of_deck_and_their_quotient(monkeypatch):
    fuzz = load_pool(Path(__file__).with_name("data") / "ability-fuzz-pool.yaml")
    monkeypatch.setattr(bench, "bundled_pool", lambda: {**bundled_pool(), **fuzz})
    report = bench.engine_bench(games=2, seed=5, runs=1)
    assert {f.section for f in report.figures} == {"vanilla", "ability-heavy"}
    assert report.events == report.info["vanilla"]["events"] + report.info["ability-heavy"]["events"]
    by = {(f.section, f.name.split(" (")[0]): f.value for f in report.figures}
    assert by[("ability-heavy", "self-play: ability-heavy / vanilla")] == pytest.approx(
        by[("ability-heavy", "self-play in memory")] / by[("vanilla", "self-play in memory")]
    )


def test_the_postgres_bench_runs_stations_and_drops_its_schema(postgres_url):
    """`referee bench --postgres URL` on one tiny game and one run: every
    figure is there, and the schema it wrote in is gone afterwards."""
    import psycopg

    from referee.store import parse_url

    url = postgres_url()
    report = bench.postgres_bench(url, games=1, runs=1)
    names = [f.name for f in report.figures]
    assert names[:3] == ["one station writes", "4 stations on 4 matches write", "4 stations / one"]
    assert report.figures[2].target == ">= 2.0" and report.figures[2].ok in (True, False)
    with psycopg.connect(**parse_url(url).connect_kwargs()) as conn:
        # Its own schema: other benches may be running against the same server.
        left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (report.info["schema"],)).fetchone()
    assert left is not None and left[0] == 0


def test_player_decisions_are_measured_against_python_chess():
    """The decisions figure: random self-play's player decisions against
    python-chess's random legal moves, in the same run, and their quotient."""
    report = bench.decisions_bench(games=2, seed=5, runs=1, chess_games=1)
    names = [f.name.split(" (")[0] for f in report.figures]
    assert names == [
        "random self-play",
        "same, vanilla decks",
        "python-chess random playouts",
        "decisions / chess moves",
        "vanilla decisions / chess moves",
    ]
    by = {name: f for name, f in zip(names, report.figures)}
    assert by["decisions / chess moves"].target == ">= 0.5"
    assert by["decisions / chess moves"].value == pytest.approx(
        by["random self-play"].value / by["python-chess random playouts"].value
    )
    assert by["vanilla decisions / chess moves"].target == "" and by["vanilla decisions / chess moves"].ok is None
    assert by["vanilla decisions / chess moves"].value == pytest.approx(
        by["same, vanilla decks"].value / by["python-chess random playouts"].value
    )
    assert report.info["decisions"]["decisions"] > 0 and report.info["chess"]["moves"] > 0
    assert report.info["decisions"]["vanilla_decisions"] > 0


def test_without_python_chess_the_ratio_is_left_out_and_said_so(monkeypatch):
    monkeypatch.setattr(bench, "chess_available", lambda: False)
    report = bench.decisions_bench(games=1, seed=5, runs=1)
    assert [f.unit for f in report.figures] == ["decisions/s", "decisions/s"]
    assert "not installed" in report.info["chess"] and "referee[bench]" in report.info["chess"]
    result = CliRunner().invoke(
        cli, ["bench", "--games", "1", "--no-store", "--no-audit", "--no-startup", "--no-board", "--no-event"]
    )
    assert result.exit_code == 0, result.output
    assert "python-chess is not installed" in result.output
