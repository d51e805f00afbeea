"""The test command's log helps: CI (.ci/run, which runs scripts/test.sh)
ends with the slowest tests and the reason of every skipped one."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest_options() -> list[str]:
    """The options scripts/test.sh gives pytest, before the caller's own."""
    line = next(x for x in (ROOT / "scripts" / "test.sh").read_text().splitlines() if "-m pytest" in x)
    words = shlex.split(line)
    return words[words.index("pytest") + 1 : words.index("$@")]


def test_ci_runs_the_test_command() -> None:
    assert "exec scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


def test_the_test_command_prints_the_slowest_tests_and_every_skip_reason(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n\n"
        "def test_runs():\n    assert True\n\n"
        "def test_not_here():\n    pytest.skip('no chromium here: set REFEREE_CHROMIUM')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *_pytest_options(), "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out
    assert re.search(r"slowest 15 durations", out), out
    assert re.search(r"SKIPPED \[1\] test_sample.py:\d+: no chromium here: set REFEREE_CHROMIUM", out), out
