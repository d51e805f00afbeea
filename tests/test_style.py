"""Code style is checked by the test command: ruff (``[tool.ruff]`` in
pyproject.toml) finds nothing to lint and nothing to reformat in the files
listed here. The list holds what is already clean; the rest of the tree joins
it when it is formatted in one commit of its own (docs/rulesets.md), so a
change there never mixes with a behaviour change."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ruff.__main__ import find_ruff_bin

ROOT = Path(__file__).resolve().parent.parent
CLEAN = [
    "events/scp_tcg",
    "projections/by_type.py",
    "projections/codec.py",
    "projections/encoding.py",
    "projections/scp_tcg",
    "referee/ruleset.py",
    "referee/rules/harem_master/registry.py",
    "referee/rules/harem_master/ruleset.py",
    "referee/rules/harem_master/zones.py",
    "referee/rules/scp_tcg",
    "tests/test_actions.py",
    "tests/test_import_graph.py",
    "tests/test_rule_map.py",
    "tests/test_ruleset.py",
    "tests/test_scp_tcg.py",
    "tests/test_style.py",
]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([find_ruff_bin(), *args, *CLEAN], cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_clean_files_exist() -> None:
    assert [p for p in CLEAN if not (ROOT / p).exists()] == []


def test_ruff_finds_nothing_to_lint() -> None:
    done = _ruff("check", "--no-cache", "--output-format", "concise")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing_to_reformat() -> None:
    done = _ruff("format", "--check", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
