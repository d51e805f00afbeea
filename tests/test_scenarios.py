"""The scenario library: every file under scenarios/ passes, and the library
cites the rules it is meant to cover."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.scenario import load_scenario, run_scenario, scenario_files

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = scenario_files([str(ROOT / "scenarios")])


def test_the_library_is_not_empty() -> None:
    assert len(LIBRARY) >= 50


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT / "scenarios")))
def test_scenario_passes(path: Path) -> None:
    report = run_scenario(path)
    assert report.passed, "\n".join(report.failures)


def test_every_scenario_cites_a_rule_or_ruling() -> None:
    for path in LIBRARY:
        sc = load_scenario(path)
        assert sc.rules, path
