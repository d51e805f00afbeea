"""`referee bench`'s tournament figures on tiny sizes: every figure against its baseline, the events built as a day builds them, and the printed section. Nothing here times anything or asserts on a speed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bench import tournament as bench
from referee.cli import cli


def test_the_event_bench_reports_each_page_and_registration_against_its_baseline(tmp_path) -> None:
    report = bench.event_bench(str(tmp_path), runs=1, tables=20, small=10, many=6, few=2)
    pages = report.info["pages"]["events"]
    assert pages["large"]["tables"] == 20 and pages["small"]["tables"] == 10
    assert (pages["large"]["players"], pages["large"]["rounds"]) == (20, 2)
    shape = [(f.section, f.name, f.unit, f.target) for f in report.figures]
    assert shape == [
        ("pages", "event page, 20 tables", "ms", ""),
        ("pages", "event page, 10 tables", "ms", ""),
        ("pages", "event page: 20 / 10", "x", "<= 3"),
        ("pages", "first page, 20 tables", "ms", ""),
        ("pages", "first page, 10 tables", "ms", ""),
        ("pages", "first page: 20 / 10", "x", "<= 3"),
        ("pages", "event page at server start, 20 tables", "ms", ""),
        ("pages", "event page at server start, 10 tables", "ms", ""),
        ("pages", "first page at server start, 20 tables", "ms", ""),
        ("pages", "first page at server start, 10 tables", "ms", ""),
        ("register", "register 6 players from a CSV", "ms", ""),
        ("register", "register 2 players from a CSV", "ms", ""),
        ("register", "6 / 2 players", "x", "<= 4"),
        ("register", "each player beyond 2", "ms", ""),
    ]
    by = {f.name: f for f in report.figures}
    assert by["event page: 20 / 10"].value == pytest.approx(
        by["event page, 20 tables"].value / by["event page, 10 tables"].value
    )
    assert by["6 / 2 players"].value == pytest.approx(
        by["register 6 players from a CSV"].value / by["register 2 players from a CSV"].value
    )
    for f in report.figures:
        assert (f.ok is None) == (f.target == "")
    commands = report.info["register"]["commands"]
    assert " event register e-" in commands["many"] and "--csv" in commands["many"]
    assert list(tmp_path.iterdir()) == []  # the temporary databases are gone
    assert json.loads(json.dumps(report.to_json()))["figures"][0]["section"] == "pages"


def test_the_bench_event_is_a_day_as_the_commands_leave_it(tmp_path) -> None:
    """Every round but the last finished by a judge's results, the last one
    being played, and the read models current (a reader folds nothing)."""
    from test_tournament import _folded_by_a_reader

    from referee.store import MatchStore
    from referee.tournament.service import Station, matches

    url = f"sqlite:///{tmp_path / 'e.db'}"
    built = bench.build_event(url, 10)
    assert _folded_by_a_reader(url) == (0, 0)
    with MatchStore(url, read_only=True) as store:
        station = Station(store)
        try:
            rows = matches(station, built["event"])
        finally:
            station.close()
    assert len(rows) == 10
    assert {r["status"] for r in rows if r["round"] == 1} == {"finished"}
    assert {r["status"] for r in rows if r["round"] == 2} == {"playing"}
    assert all(r["entered_by"] == "Bench Judge" for r in rows if r["round"] == 1)


def test_referee_bench_prints_the_event_section(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bench, "SMALL_TABLES", 10)
    real = bench.event_bench
    monkeypatch.setattr(
        bench,
        "event_bench",
        lambda directory, runs, tables, seed: real(directory, runs, tables=20, small=10, many=4, few=2, seed=seed),
    )
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--no-engine",
            "--no-store",
            "--no-audit",
            "--no-startup",
            "--no-board",
            "--no-console",
            "--runs",
            "1",
            "--dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"$ referee bench --seed 1 --no-engine --no-store --no-audit --no-startup --no-board "
        f"--event-tables 1000 --runs 1 --no-console --dir {tmp_path}"
    )
    assert lines[1].startswith("event (referee serve, real HTTP; 20 tables: 20 players, 2 rounds; 10 tables")
    targeted = [line for line in lines if "(target" in line]
    assert len(targeted) == 3 and all(line.endswith(("  ok", "  BELOW TARGET")) for line in targeted)
    assert sum(line.startswith("      $ ") and " event register " in line for line in lines) == 2


def test_the_event_load_bench_reports_each_organiser_command_under_load_against_idle(postgres_url) -> None:
    """`referee bench --postgres URL`'s event load on tiny sizes: each
    organiser command idle and loaded (its 95th percentile and their ratio,
    targeted), the failed polls of the event page and the clock, the load
    still running at the end, and the schema dropped. Nothing is timed."""
    import psycopg

    from referee.store import parse_url

    url = postgres_url()
    report = bench.load_bench(url, samples=2, organised=16, played=8)
    shape = [(f.section, f.name, f.unit, f.target) for f in report.figures]
    assert shape == [
        ("load", f"{name}: {what}", unit, target)
        for name in ("event result", "event time", "event standings")
        for what, unit, target in (
            ("idle, p95", "ms", ""),
            ("loaded, p95", "ms", ""),
            ("loaded / idle p95", "x", "<= 3"),
        )
    ] + [("load", "failed polls of the event page and the clock", "", "0")]
    info = report.info["load"]
    assert info["stations_logging_at_the_end"] == 2 and info["simulate_runs"] >= 1
    assert info["polls"]["idle"]["ok"] + info["polls"]["idle"]["failed"] > 0
    assert info["polls"]["loaded"]["ok"] + info["polls"]["loaded"]["failed"] > 0
    assert " event result e-" in info["commands"]["event result"] and "***" in info["commands"]["event result"]
    with psycopg.connect(autocommit=True, **parse_url(url).connect_kwargs()) as conn:
        left = conn.execute("SELECT count(*) AS n FROM pg_namespace WHERE nspname = %s", (info["schema"],)).fetchone()
    assert left[0] == 0
