"""The project's Python files, each read and parsed once per test run: the
tests that walk the whole tree (the import graph, the kernel's imports,
style checks) share the parsed modules instead of parsing it each again."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The module at ``path`` as ``ast`` reads it (never mutate it: it is shared)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
