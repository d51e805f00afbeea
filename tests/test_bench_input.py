"""`referee bench`'s figures (4) audit and export of long matches and (5)
start-up, on tiny sizes: every code path and the shape of the report.
Nothing here times anything or asserts on a speed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bench import figures as bench
from referee.cli import cli


def test_the_audit_and_startup_figures_each_stand_against_their_baseline(tmp_path) -> None:
    report = bench.input_bench(runs=1, short=400, long=900, startup_runs=1, directory=str(tmp_path))
    audit = report.info["audit"]
    short, long = audit["short_match"]["events"], audit["long_match"]["events"]
    assert 400 <= short < long and long >= 900
    assert audit["long_match"]["rewinds"] > audit["short_match"]["rewinds"] >= 0
    shape = [(f.section, f.name, f.unit, f.target) for f in report.figures]
    assert shape == [
        ("audit", f"audit, {short}-event match", "ms", ""),
        ("audit", f"audit, {long}-event match", "ms", ""),
        ("audit", "audit (long) / audit (short)", "x", "<= 5"),
        ("audit", f"export, {short}-event match", "ms", ""),
        ("audit", f"export, {long}-event match", "ms", ""),
        ("audit", "export (long) / export (short)", "x", "<= 5"),
        ("startup", 'python -c "import click"', "ms", ""),
        ("startup", "referee --version", "ms", ""),
        ("startup", "--version / import click", "x", "<= 3"),
    ]
    by_name = {f.name: f for f in report.figures}
    assert by_name["audit (long) / audit (short)"].value == pytest.approx(
        by_name[f"audit, {long}-event match"].value / by_name[f"audit, {short}-event match"].value
    )
    assert by_name["--version / import click"].value == pytest.approx(
        by_name["referee --version"].value / by_name['python -c "import click"'].value
    )
    for f in report.figures:
        assert f.value > 0 and (f.ok is None) == (f.target == "")
    assert not list(tmp_path.iterdir())  # the scratch files are gone


def test_the_command_prints_the_figures_and_the_command_that_repeats_them() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--no-engine",
            "--no-store",
            "--no-startup",
            "--no-board",
            "--no-event",
            "--no-console",
            "--audit-events",
            "400",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["command"] == (
        "referee bench --seed 1 --no-engine --no-store --audit-events 400 --no-startup --no-board --no-event --no-console --json"
    )
    assert [f["section"] for f in doc["input"]["figures"]] == ["audit"] * 6
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--no-engine",
            "--no-store",
            "--no-startup",
            "--no-board",
            "--no-event",
            "--no-console",
            "--audit-events",
            "400",
        ],
    )
    assert "audit (long) / audit (short)" in result.output and "(target <= 5)" in result.output
