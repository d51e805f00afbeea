"""Code style is checked by the test command: ruff (``[tool.ruff]`` in
pyproject.toml) finds nothing to lint and nothing to reformat anywhere in the
tree (``ruff format .`` formats it; a reformat goes in a commit of its own,
never mixed with a behaviour change), and mypy (``[tool.mypy]``) finds every
type hint of the package true. No module defines a function or class
twice: ruff lets a second definition pass when the first is called from a
function body, and the second then silently replaces it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from ruff.__main__ import find_ruff_bin
from sourcetree import parsed

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


def _defined_twice(source: str | ast.Module) -> list[tuple[str, int, int]]:
    """(name, first line, second line) of each module-level function or class defined again."""
    seen: dict[str, int] = {}
    twice = []
    module = ast.parse(source) if isinstance(source, str) else source
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in seen:
                twice.append((node.name, seen[node.name], node.lineno))
            seen[node.name] = node.lineno
    return twice


def test_no_module_defines_a_function_or_class_twice() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name} at lines {first} and {second}"
        for package in ("events", "projections", "referee", "scripts", "tests")
        for path in sorted((ROOT / package).rglob("*.py"))
        for name, first, second in _defined_twice(parsed(path))
    ]
    assert found == []


def test_a_function_defined_twice_is_found() -> None:
    source = "def f():\n    return g()\n\ndef g():\n    return 1\n\ndef g():\n    return 2\n"
    assert _defined_twice(source) == [("g", 4, 7)]


PACKAGES = ("events", "projections", "referee", "bench")


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    """mypy as the project runs it, with ``[tool.mypy]``; its cache is the
    tree's own ``.mypy_cache`` (ignored by git), so a second run is quick."""
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_finds_every_type_hint_true() -> None:
    done = _mypy()
    assert done.returncode == 0, done.stdout + done.stderr
    # Every module of the package was checked, not just some of them.
    checked = re.search(r"no issues found in (\d+) source files", done.stdout)
    modules = sum(1 for package in PACKAGES for _ in (ROOT / package).rglob("*.py"))
    assert checked is not None and int(checked.group(1)) == modules, done.stdout


def test_mypy_as_run_here_reports_a_wrong_hint(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def f() -> int:\n    return 'one'\n", encoding="utf-8")
    done = _mypy(str(wrong))
    assert done.returncode == 1
    assert 'Incompatible return value type (got "str", expected "int")' in done.stdout
