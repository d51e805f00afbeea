"""The argument types of every command: each argument is checked when click
parses it, so a bad one ends the command (exit 2, one message) before any
file is read or anything is written.

Text that is stored and printed back (titles, names, reasons, notes, the
judge's name) follows ``referee.inputs.text_problem``: valid UTF-8 (an
argument of other bytes arrives with lone surrogates), no control
characters, bounded length. Match ids follow the store's own pattern.
``KEY=VALUE`` options given once per key (``--deck A=FILE``) refuse a key
given twice instead of letting the last one win silently.
"""

from __future__ import annotations

from typing import Any, Callable

import click

from referee.inputs import NAME_LENGTH, TEXT_LENGTH, TITLE_LENGTH, text_problem


def shown(value: Any, limit: int = 60) -> str:
    """A value quoted in an error message: ``repr`` escapes control
    characters and bytes that were not text, so it prints safely."""
    text = repr(str(value))
    return text if len(text) <= limit else text[: limit - 4] + "...'"


class Text(click.ParamType):
    """Free text that is stored and shown to people."""

    name = "text"

    def __init__(self, max_length: int, *, blank: bool = True) -> None:
        self.max_length = max_length
        self.blank = blank  # False: someone's name or an event's, which cannot be empty

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if not isinstance(value, str):
            value = str(value)
        problem = text_problem(value, self.max_length)
        if problem is None and not self.blank and not value.strip():
            problem = "is empty: expected a name"
        if problem is not None:
            self.fail(f"{shown(value)} {problem}", param, ctx)
        return value


class MatchId(click.ParamType):
    """A match id as the store writes them (``m-3f9c2a1e``, or one chosen with
    ``new --id``): checked before the store is even opened."""

    name = "match"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from referee.store.matches import MATCH_ID

        text = str(value)
        if text_problem(text, 64) is not None or not MATCH_ID.match(text.strip().lower()):
            self.fail(
                f"{shown(text)} is not a match id: ids are up to 64 lowercase letters, digits, '.', '_' "
                "or '-', beginning with a letter or digit (e.g. m-3f9c2a1e; `referee matches` lists them)",
                param,
                ctx,
            )
        return text.strip().lower()


class DatabaseUrl(click.ParamType):
    """A ``--db`` URL: plain text only. The store reads the URL itself; this
    only refuses bytes that are not text, without ever echoing the URL (it
    may hold a password)."""

    name = "url"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        problem = text_problem(str(value), 4096)
        if problem is not None:
            self.fail(f"the database URL {problem}", param, ctx)
        return str(value)


class Pair(click.ParamType):
    """``KEY=VALUE`` with KEY one of ``keys`` and VALUE converted by ``value``."""

    def __init__(self, keys: tuple[str, ...], value: click.ParamType, metavar: str) -> None:
        self.keys = keys
        self.value = value
        self.name = metavar

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, Any]:
        if isinstance(value, tuple):  # already converted (a default)
            return value
        key, sep, rest = str(value).partition("=")
        if not sep or not rest:
            self.fail(f"expected {self.name}, got {shown(value)}", param, ctx)
        if key not in self.keys:
            self.fail(f"{shown(key)} is not one of {', '.join(self.keys)} (in {shown(value)})", param, ctx)
        return key, self.value.convert(rest, param, ctx)


class Seed(click.ParamType):
    """A match seed: a whole number that fits in 64 bits (stored as JSON and
    in PostgreSQL alike)."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            number = int(value)
        except (TypeError, ValueError):
            self.fail(f"{shown(value)} is not a whole number", param, ctx)
        if not -(2**63) <= number < 2**63:
            self.fail(f"{number} does not fit in 64 bits", param, ctx)
        return number


class RulingChoice(click.ParamType):
    """``ID=CHOICE`` for a selectable ruling (``A1=felled``), from the rulings
    the scenario format declares."""

    name = "ID=CHOICE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        from referee.ruleset import get

        RULING_OPTIONS = get().rulings

        key, _, choice = str(value).partition("=")
        if choice not in RULING_OPTIONS.get(key, ()):
            expected = ", ".join(f"{k}={'|'.join(v)}" for k, v in RULING_OPTIONS.items())
            self.fail(f"{shown(value)}: expected one of {expected}", param, ctx)
        return key, choice


def once_each(ctx: click.Context, param: click.Parameter, pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """The pairs of a repeated ``KEY=VALUE`` option as a dict; a key given
    twice is an error, not a silent override."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise click.BadParameter(
                f"{key} is given twice ({shown(out[key])} and {shown(value)}); give it once",
                ctx=ctx,
                param=param,
            )
        out[key] = value
    return out


DB_HELP = (
    "Where matches are stored: sqlite:///FILE or postgresql://user:pass@host:port/db "
    "(default: $REFEREE_DB, else sqlite:///referee.db)."
)


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--db URL``, else ``$REFEREE_DB`` (checked like the option)."""
    return click.option("--db", "db", type=DATABASE_URL, metavar="URL", envvar="REFEREE_DB", help=DB_HELP)(f)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(f)


PLAYERS = ("A", "B")
PLAYER_NAME = Text(NAME_LENGTH)
JUDGE = Text(NAME_LENGTH, blank=False)
EVENT_NAME = Text(TITLE_LENGTH, blank=False)
CARD = Text(NAME_LENGTH)
TITLE = Text(TITLE_LENGTH)
REASON = Text(TEXT_LENGTH)
NOTE = Text(TEXT_LENGTH)
MATCH = MatchId()
DATABASE_URL = DatabaseUrl()
FILE = click.Path(dir_okay=False)
DECK = Pair(PLAYERS, FILE, "P=FILE")
NAME = Pair(PLAYERS, PLAYER_NAME, "P=NAME")
RULING = RulingChoice()
SEED = Seed()

__all__ = [
    "CARD",
    "DATABASE_URL",
    "DB_HELP",
    "DECK",
    "EVENT_NAME",
    "FILE",
    "JUDGE",
    "MATCH",
    "NAME",
    "NOTE",
    "PLAYERS",
    "PLAYER_NAME",
    "REASON",
    "RULING",
    "SEED",
    "TITLE",
    "DatabaseUrl",
    "MatchId",
    "Pair",
    "RulingChoice",
    "Seed",
    "Text",
    "db_option",
    "json_option",
    "once_each",
]
