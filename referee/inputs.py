"""Reading people's files: YAML/JSON with line numbers, and errors that say where.

Every file a user hands the referee (scenarios, decks, card pools, match
records) goes through ``load_document``, and every problem with one is an
``InputError`` naming the file, the place in it (a path such as
``setup.players.A.field[0].card`` and, where known, the line), and what was
expected. The CLI turns an ``InputError`` into one line and exit code 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import ValidationError


class InputError(Exception):
    """Bad input: which file, where in it, and what was expected."""

    def __init__(self, file: str | Path | None, place: str, message: str, line: int | None = None):
        self.file = str(file) if file is not None else None
        self.place = place
        self.message = message
        self.line = line
        super().__init__(self.describe())

    def describe(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.place:
            where += f": at {self.place}"
        return f"{where}: {self.message}"


def format_path(path: Iterable[Any]) -> str:
    """("setup", "players", "A", "field", 0, "card") -> setup.players.A.field[0].card"""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


@dataclass
class Document:
    """A parsed file and a map from paths inside it to line numbers."""

    file: Path
    data: Any
    lines: dict[tuple[Any, ...], int]

    def line_of(self, path: Iterable[Any]) -> int | None:
        """The line of the deepest known node on ``path`` (1-based)."""
        key = tuple(path)
        while True:
            if key in self.lines:
                return self.lines[key]
            if not key:
                return None
            key = key[:-1]

    def error(self, path: Iterable[Any], message: str) -> InputError:
        path = tuple(path)
        return InputError(self.file, format_path(path), message, self.line_of(path))

    def validation_error(self, exc: ValidationError, prefix: Iterable[Any] = ()) -> InputError:
        """The first pydantic error, placed in the file."""
        err = exc.errors()[0]
        loc = tuple(prefix) + tuple(p for p in err["loc"] if not _is_union_tag(p))
        return self.error(loc, _explain(err))


def _is_union_tag(part: Any) -> bool:
    # pydantic puts the union member's name in loc ("list[str]", "function-after[...]").
    return isinstance(part, str) and ("[" in part or part in ("str", "int", "bool"))


def _explain(err: dict[str, Any]) -> str:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key (check its spelling; unknown keys are not allowed)"
    if kind == "missing":
        return "this key is required but missing"
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if "input" in err and kind not in ("model_type", "dict_type"):
        shown = repr(err["input"])
        if len(shown) > 60:
            shown = shown[:57] + "..."
        msg += f" (got {shown})"
    return msg


def kind_of(value: Any) -> str:
    """How a wrong value is named in an error, so people recognise what they wrote."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"text ({shown!r})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    return type(value).__name__


class _LineLoader(yaml.SafeLoader):
    pass


def _walk(node: yaml.Node, path: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[path + (key,)] = key_node.start_mark.line + 1
            _walk(value_node, path + (key,), lines)
            lines[path + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), lines)


def load_document(file: str | Path) -> Document:
    """Parse a YAML or JSON file (JSON is YAML) keeping each node's line."""
    path = Path(file)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "", "is a folder, expected a file") from None
    except UnicodeDecodeError:
        raise InputError(path, "", "is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(path, "", f"cannot be read ({exc.strerror})") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(path, "", f"is not valid JSON: {exc.msg}", exc.lineno) from None
        lines: dict[tuple[Any, ...], int] = {}
        try:  # JSON is YAML unless it uses tabs; line numbers are a bonus
            node = yaml.compose(text, Loader=_LineLoader)
            if node is not None:
                _walk(node, (), lines)
        except yaml.YAMLError:
            pass
        return Document(path, data, lines)
    try:
        node = yaml.compose(text, Loader=_LineLoader)
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or "invalid YAML"
        raise InputError(path, "", f"is not valid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise InputError(path, "", f"is not valid YAML: {exc}") from None
    lines = {}
    if node is not None:
        _walk(node, (), lines)
    return Document(path, data, lines)
