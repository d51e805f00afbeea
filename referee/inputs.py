"""Reading people's files: YAML/JSON with line numbers, bounded, and errors that say where.

Every file a user hands the referee (scenarios, decks, card pools, match
records) goes through ``load_document``, and every problem with one is an
``InputError`` naming the file, the place in it (a path such as
``setup.players.A.field[0].card`` and, where known, the line), and what was
expected. The CLI turns an ``InputError`` into one line and exit code 2.

Files come from anyone, so reading one is bounded before any work grows with
it: its size (``REFEREE_MAX_FILE_SIZE``, 8 MB by default), how deeply it
nests, and how many values it holds once YAML aliases are expanded (an alias
counts its whole anchor again each time it is used, so a kilobyte of nested
aliases cannot stand for a billion values). The counts inside a file that no
real game approaches (cards in a deck or a position, actions in a record)
are declared here too, and checked where those files are read.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from pydantic import ValidationError

# --- limits ---------------------------------------------------------------------

FILE_SIZE_VARIABLE = "REFEREE_MAX_FILE_SIZE"
DEFAULT_MAX_FILE_SIZE = 8 * 1024 * 1024
# A file of N bytes holds at most about N/2 values written out (``[1,1,1]``);
# one value per 8 bytes of the size limit leaves room for any real file while
# refusing an alias bomb after a fraction of a second of work.
BYTES_PER_VALUE = 8
MAX_DEPTH = 64  # nesting levels; real files use fewer than ten
MAX_CARDS = 1000  # cards in one deck or one position; a whole game has 102 (100.2)
MAX_ACTIONS = 100_000  # actions in one scenario or record; a long match has a few thousand
# Every whole number a card carries (its cost, random number, values, and each
# amount in its text) and a filler's random number: printed cards have one or
# two digits, so three leave room for any card while keeping a typo such as
# ``random: 99999999999999999999`` out of the arithmetic of every battle.
MAX_CARD_NUMBER = 999

_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)I?B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def max_file_size() -> int:
    """The size limit of an input file in bytes: ``REFEREE_MAX_FILE_SIZE``
    (a number of bytes, or with a unit: ``64M``, ``512K``), else 8 MB."""
    raw = os.environ.get(FILE_SIZE_VARIABLE)
    if raw is None or not raw.strip():
        return DEFAULT_MAX_FILE_SIZE
    match = _SIZE.match(raw)
    if match is None or int(match.group(1)) == 0:
        raise InputError(
            None,
            "",
            f"{FILE_SIZE_VARIABLE}={raw!r} is not a size; expected a number of bytes, "
            "or one with a unit such as 64M or 512K",
        )
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


def _size_text(n: int) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


_TOO_DEEP = f"nests more than {MAX_DEPTH} levels deep; no real file comes near that"


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
        # Printed to a terminal: a file name or a value quoted from the file
        # may hold bytes that are not text, or control characters.
        return printable(f"{where}: {self.message}")


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
    """A parsed file and, computed when an error first needs it, a map from
    paths inside it to line numbers (most files are read without error, so
    most never pay for the map)."""

    file: Path
    data: Any
    _lines: dict[tuple[Any, ...], int] | None = field(default=None, repr=False)
    _source: Any = field(default=None, repr=False)  # the root node, or JSON text

    @property
    def lines(self) -> dict[tuple[Any, ...], int]:
        if self._lines is None:
            self._lines = _line_map(self._source)
        return self._lines

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
        prefix = tuple(prefix)
        err = exc.errors()[0]
        return self.error(prefix + _data_path(self.at(prefix), err["loc"]), _explain(err))

    def at(self, path: Iterable[Any]) -> Any:
        """The value at ``path`` in the file's data (None if there is none)."""
        node = self.data
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return None
        return node


def _data_path(data: Any, loc: Iterable[Any]) -> tuple[Any, ...]:
    """pydantic's error location with the names it adds for union members
    ("list[str]", a discriminated union's tag such as "activated") left out:
    only the keys and indexes that are in the data remain."""
    out: list[Any] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
            out.append(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            out.append(part)
        elif node is None and not (isinstance(part, str) and ("[" in part or part in ("str", "int", "bool"))):
            out.append(part)  # a key the data lacks (a missing field): name it
    return tuple(out)


def _explain(err: Mapping[str, Any]) -> str:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key (check its spelling; unknown keys are not allowed)"
    if kind == "missing":
        return "this key is required but missing"
    if kind == "union_tag_invalid":
        ctx = err.get("ctx") or {}
        expected = [t.strip(" '") for t in str(ctx.get("expected_tags", "")).split(",") if t.strip()]
        tag = str(ctx.get("tag", ""))
        msg = (
            f"unknown {ctx.get('discriminator', 'kind').strip(chr(39))} {tag!r}; expected one of: {', '.join(expected)}"
        )
        close = difflib.get_close_matches(tag, expected, n=1)
        return msg + (f" (did you mean {close[0]!r}?)" if close else "")
    if kind.startswith("unknown_"):  # our own discriminators (events.harem_master.abilities)
        msg = str(err.get("msg", ""))
        value = err.get("input")
        if isinstance(value, dict) and len(value) == 1:
            msg = f"{next(iter(value))!r} is " + msg
        elif isinstance(value, str):
            msg = f"{value!r} is " + msg
        return msg
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if "input" in err and kind not in ("model_type", "dict_type") and not isinstance(err["input"], (dict, list)):
        shown = repr(err["input"])
        if len(shown) > 60:
            shown = shown[:57] + "..."
        msg += f" (got {shown})"
    return msg


def close_to(value: str, options: Iterable[str], n: int = 3) -> list[str]:
    """The options ``value`` is probably a typo of, best first: those equal to
    it but for case, then difflib's close matches (``A.KETER``, ``A.ketr``:
    ``A.keter``), for a "did you mean" in place of a list of every option."""
    known = list(dict.fromkeys(options))
    same = [o for o in known if o.lower() == value.lower()]
    if same:
        return same[:n]
    lowered = {o.lower(): o for o in known}
    return [lowered[o] for o in difflib.get_close_matches(value.lower(), list(lowered), n=n)]


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


# --- reading a file once, within bounds ------------------------------------------------


def read_text(file: str | Path) -> str:
    """A file's text, refused past the size limit before it is read whole."""
    path = Path(file)
    limit = max_file_size()
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except FileNotFoundError:
        raise InputError(path, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "", "is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(path, "", f"cannot be read ({exc.strerror})") from None
    if len(raw) > limit:
        raise InputError(
            path,
            "",
            f"is larger than {_size_text(limit)}, the limit for an input file "
            f"(set {FILE_SIZE_VARIABLE}, e.g. {FILE_SIZE_VARIABLE}=64M, to raise it)",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "", "is not UTF-8 text") from None


def load_document(file: str | Path) -> Document:
    """Parse a YAML or JSON file once, within the limits above. YAML keeps
    its parsed nodes for the line map; JSON (parsed by ``json``, which is
    exact about numbers) gets its line map from YAML only if an error needs it."""
    path = Path(file)
    text = read_text(path)
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text, object_pairs_hook=_unique_keys)
        except _DuplicateKey as exc:
            # The line: JSON is YAML, and composing it as YAML finds the key.
            try:
                loader = _new_loader(text)
                try:
                    _compose(loader, path, _max_values())
                finally:
                    loader.dispose()
            except InputError as found:
                raise found from None
            except Exception:  # noqa: BLE001 - the line is a help, not a must
                pass
            raise InputError(
                path, "", f"the key {exc.key!r} is written twice in one mapping; write each key once"
            ) from None
        except json.JSONDecodeError as exc:
            raise InputError(path, "", f"is not valid JSON: {exc.msg}", exc.lineno) from None
        except RecursionError:
            raise InputError(path, "", _TOO_DEEP) from None
        except ValueError as exc:  # a number of thousands of digits
            raise _unreadable(path, text, exc) from None
        _check_depth(path, data)
        return Document(path, data, None, text)
    import yaml

    try:
        loader = _new_loader(text)
        try:
            node = _compose(loader, path, _max_values())
            data = None if node is None else loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        if "nesting depth" in problem:
            # The libyaml bundled with newer PyYAML wheels stops deep nesting while
            # scanning ahead, before ``_compose`` sees the 65th level: the
            # same refusal either way.
            raise InputError(path, "", _TOO_DEEP, line) from None
        raise InputError(path, "", f"is not valid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise InputError(path, "", f"is not valid YAML: {exc}") from None
    except ValueError as exc:  # a number of thousands of digits
        raise _unreadable(path, text, exc) from None
    return Document(path, data, None, node)


def _unreadable(path: Path, text: str, exc: ValueError) -> InputError:
    """A value Python will not read, with its line: a number of more digits
    than Python turns into an integer (4,300), which no field takes anyway."""
    import re
    import sys

    limit = sys.get_int_max_str_digits() or 4300
    found = re.search(r"\d{%d,}" % (limit + 1), text)
    if found is None:
        return InputError(path, "", f"holds a value that cannot be read ({_short(exc)})")
    line = text.count("\n", 0, found.start()) + 1
    digits = len(found.group())
    return InputError(path, "", f"holds a number of {digits} digits, which no field takes (at most {limit})", line)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def card_number_problem(value: int) -> str | None:
    """Why ``value`` cannot be a number on a card, or None (``MAX_CARD_NUMBER``)."""
    if -MAX_CARD_NUMBER <= value <= MAX_CARD_NUMBER:
        return None
    shown = str(value) if len(str(value)) <= 30 else str(value)[:27] + "..."
    return f"is {shown}; a number on a card is between -{MAX_CARD_NUMBER} and {MAX_CARD_NUMBER}"


def check_card_numbers(doc: Document, data: Any, path: Iterable[Any] = ()) -> None:
    """Refuse any whole number in a card definition (``data``, as written)
    past ``MAX_CARD_NUMBER``, naming its place."""
    todo: list[tuple[Any, tuple[Any, ...]]] = [(data, tuple(path))]
    while todo:
        value, here = todo.pop()
        if isinstance(value, dict):
            todo.extend((v, here + (k,)) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, here + (i,)) for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            problem = card_number_problem(value)
            if problem is not None:
                raise doc.error(here, problem)


def _short(exc: BaseException) -> str:
    text = str(exc).split("\n")[0]
    return text if len(text) <= 100 else text[:97] + "..."


def _max_values() -> int:
    return max_file_size() // BYTES_PER_VALUE


_LOADER: list[type] = []


def _loader_class() -> type:
    """libyaml's parser when available (the C one is many times faster); the
    nodes are composed by ``_compose`` below either way, never by libyaml's
    own composer, which recurses in C and crashes on deep nesting.

    Scalars are resolved with YAML 1.2's booleans, only true and false:
    YAML 1.1 also reads on/off/yes/no as booleans, which would turn a
    trigger's ``on:`` key into ``True`` and a "may" answer ``option: yes``
    into a boolean; the formats mean the words."""
    if _LOADER:
        return _LOADER[0]
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader: Any = type("RefereeLoader", (base,), {})  # a yaml Loader subclass; yaml ships no types
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    _LOADER.append(loader)
    return loader


def _new_loader(text: str) -> Any:
    return _loader_class()(text)


def _compose(loader: Any, path: Path, max_values: int) -> Any:
    """The document's node graph, built from the parser's events without
    recursion, refusing it as soon as it nests deeper than ``MAX_DEPTH`` or
    its expanded size passes ``max_values`` (an alias adds its anchor's whole
    expanded size), and refusing an alias to a node still being built (a
    cycle). Otherwise like PyYAML's own composer (tags, anchors, one document)."""
    from yaml.events import (
        AliasEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    loader.get_event()  # the stream's start
    if loader.check_event(StreamEndEvent):
        loader.get_event()
        return None
    loader.get_event()  # the document's start
    anchors: dict[str, Any] = {}
    size: dict[int, int] = {}  # id(anchored node) -> its expanded size, once complete
    # Open collections: [node, expanded size so far, key waiting for its value,
    # anchored, and for a mapping the line of each key seen in it].
    stack: list[list[Any]] = []
    total = 0
    root = None

    def refuse(mark: Any, message: str) -> InputError:
        return InputError(path, "", message, mark.line + 1 if mark is not None else None)

    def anchor(name: str | None, node: Any, mark: Any) -> None:
        if name is None:
            return
        if name in anchors:
            first = anchors[name].start_mark.line + 1
            raise refuse(mark, f"is not valid YAML: the anchor &{name} is defined twice (first on line {first})")
        anchors[name] = node

    def count(n: int, mark: Any) -> None:
        nonlocal total
        total += n
        if total > max_values:
            raise refuse(
                mark,
                f"expands to more than {max_values:,} values, the limit for an input file (each use "
                "of a YAML alias counts all the values of its anchor again); the limit is one value "
                f"per {BYTES_PER_VALUE} bytes of {FILE_SIZE_VARIABLE}, so raising that raises it",
            )

    def attach(node: Any, n: int) -> None:
        """Put a complete node (expanded size ``n``) into the open collection."""
        nonlocal root
        if not stack:
            root = node
            return
        top = stack[-1]
        top[1] += n
        parent = top[0]
        if isinstance(parent, SequenceNode):
            parent.value.append(node)
        elif top[2] is None:
            if isinstance(node, ScalarNode) and node.tag != "tag:yaml.org,2002:merge":
                # A key written twice: YAML would keep the last value silently.
                key = (node.tag, node.value)
                first = top[4].get(key)
                if first is not None:
                    raise refuse(
                        node.start_mark,
                        f"the key {node.value!r} is written twice in one mapping "
                        f"(first on line {first}); write each key once",
                    )
                top[4][key] = node.start_mark.line + 1
            top[2] = node
        else:
            parent.value.append((top[2], node))
            top[2] = None

    while True:
        event = loader.get_event()
        if isinstance(event, AliasEvent):
            target = anchors.get(event.anchor)
            if target is None:
                raise refuse(
                    event.start_mark,
                    f"is not valid YAML: the alias *{event.anchor} has no anchor &{event.anchor} before it",
                )
            if id(target) not in size:
                raise refuse(event.start_mark, f"the YAML alias *{event.anchor} refers to a value that contains it")
            count(size[id(target)], event.start_mark)
            attach(target, size[id(target)])
        elif isinstance(event, ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(ScalarNode, event.value, event.implicit)
            node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            anchor(event.anchor, node, event.start_mark)
            if event.anchor is not None:
                size[id(node)] = 1
            count(1, event.start_mark)
            attach(node, 1)
        elif isinstance(event, (SequenceStartEvent, MappingStartEvent)):
            if len(stack) >= MAX_DEPTH:
                raise refuse(event.start_mark, _TOO_DEEP)
            kind = SequenceNode if isinstance(event, SequenceStartEvent) else MappingNode
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(kind, None, event.implicit)
            node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
            anchor(event.anchor, node, event.start_mark)
            count(1, event.start_mark)
            stack.append([node, 1, None, event.anchor is not None, {}])
        elif isinstance(event, (SequenceEndEvent, MappingEndEvent)):
            node, n, _, anchored, _ = stack.pop()
            node.end_mark = event.end_mark
            if anchored:
                size[id(node)] = n
            attach(node, n)
        else:
            raise refuse(event.start_mark, f"is not valid YAML: unexpected {type(event).__name__}")
        if not stack and root is not None:
            break
    loader.get_event()  # the document's end
    if not loader.check_event(StreamEndEvent):
        raise refuse(loader.get_event().start_mark, "holds a second YAML document (after ---); expected one")
    return root


def _check_depth(path: Path, data: Any) -> None:
    """JSON nests as deep as ``json`` allows; hold it to the YAML limit."""
    level = [data]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for value in level
            for child in (value.values() if isinstance(value, dict) else value if isinstance(value, list) else ())
        ]
        if not level:
            return
    raise InputError(path, "", _TOO_DEEP)


def _line_map(source: Any) -> dict[tuple[Any, ...], int]:
    """Path -> line for a composed YAML node, or for JSON text (composed here
    as YAML, which JSON nearly always is: the map is a help, not a must)."""
    if source is None:
        return {}
    if isinstance(source, str):
        try:
            loader = _new_loader(source)
            try:
                source = _compose(loader, Path("<json>"), _max_values())
            finally:
                loader.dispose()
        except Exception:
            return {}
        if source is None:
            return {}
    from yaml.nodes import MappingNode, SequenceNode

    lines: dict[tuple[Any, ...], int] = {}
    todo: list[tuple[Any, tuple[Any, ...]]] = [(source, ())]
    while todo:  # aliases are walked again where used: the composer bounded that
        node, path = todo.pop()
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value
                lines[path + (key,)] = key_node.start_mark.line + 1
                todo.append((value_node, path + (key,)))
        elif isinstance(node, SequenceNode):
            for i, item in enumerate(node.value):
                todo.append((item, path + (i,)))
    return lines


# --- text people type -------------------------------------------------------------------

# Characters that must never reach a terminal raw: C0 and C1 controls (newlines,
# ESC and so terminal escape codes, DEL) and the bidirectional overrides that
# make text display in another order than it is stored.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def text_problem(value: str, max_length: int) -> str | None:
    """Why ``value`` cannot be a name, title, reason or note, or None.

    Such text is stored in the match and printed back to every station, so
    it must be valid Unicode (arguments that were not UTF-8 arrive with
    lone surrogates), of bounded length, and free of control characters,
    which are refused rather than stored: a title with a newline or an
    escape code would print as something else than it is.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 text"
    bad = _UNSAFE.search(value)
    if bad is not None:
        what = "a newline" if bad.group() in "\n\r" else f"the control character U+{ord(bad.group()):04X}"
        return f"contains {what}; control characters, newlines and terminal escape codes are not allowed"
    if len(value) > max_length:
        return f"is {len(value):,} characters long; at most {max_length:,} are allowed"
    return None


def printable(value: str) -> str:
    """``value`` with anything ``text_problem`` refuses shown escaped
    (``\\x1b``, ``\\n``, ``\\udcff``): for printing text that came from
    elsewhere (a store written by an older version, a file name)."""
    value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)


# Length limits of the text people give the referee (characters).
NAME_LENGTH = 100  # a player's or a judge's name, a card name
TITLE_LENGTH = 200  # a match's title
TEXT_LENGTH = 2000  # a reason or a note
