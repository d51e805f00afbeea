"""Code style is checked by the test command: ruff (``[tool.ruff]`` in
pyproject.toml) finds nothing to lint and nothing to reformat anywhere in the
tree (``ruff format .`` formats it; a reformat goes in a commit of its own,
never mixed with a behaviour change)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ruff.__main__ import find_ruff_bin

ROOT = Path(__file__).resolve().parent.parent
CLEAN = ["."]


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
