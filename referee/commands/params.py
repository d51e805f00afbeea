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

from collections.abc import Iterable
from typing import Any, Callable, Mapping

import click

from events.kernel import is_seat
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
    """``KEY=VALUE`` with KEY one of ``keys`` (None: a seat, ``is_seat``, which
    the command checks against its game's seats once it knows the game) and
    VALUE converted by ``value``."""

    def __init__(self, keys: tuple[str, ...] | None, value: click.ParamType, metavar: str) -> None:
        self.keys = keys
        self.value = value
        self.name = metavar

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, Any]:
        if isinstance(value, tuple):  # already converted (a default)
            return value
        key, sep, rest = str(value).partition("=")
        if not sep or not rest:
            self.fail(f"expected {self.name}, got {shown(value)}", param, ctx)
        if self.keys is None:
            if not is_seat(key):
                self.fail(
                    f"{shown(key)} is not a seat: a player's seat is a letter or a word (in {shown(value)})", param, ctx
                )
        elif key not in self.keys:
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


class KeyChoice(click.ParamType):
    """``KEY=CHOICE`` with each key's choices given (a game's selectable
    rulings, ``A1=felled``, as its ``StartOption`` declares them)."""

    def __init__(self, choices: Mapping[str, tuple[str, ...]], metavar: str = "KEY=CHOICE") -> None:
        self.choices = choices
        self.name = metavar

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        key, _, choice = str(value).partition("=")
        if choice not in self.choices.get(key, ()):
            expected = ", ".join(f"{k}={'|'.join(v)}" for k, v in self.choices.items())
            self.fail(f"{shown(value)}: expected one of {expected}", param, ctx)
        return key, choice


class Viewer(click.ParamType):
    """Whose view: ``judge``, ``public`` or a seat (``is_seat``); whether the
    match's game has that seat is checked once the game is known
    (``check_viewer``)."""

    name = "VIEWER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if text not in ("judge", "public") and not is_seat(text):
            self.fail(f"{shown(value)}: expected judge, public or a player's seat (A, B)", param, ctx)
        return text

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[judge|A|B|public]"


class SeatName(click.ParamType):
    """A player's seat (``is_seat``), checked against the match's game's seats by the command."""

    name = "PLAYER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if not is_seat(text):
            self.fail(f"{shown(value)} is not a seat: a player's seat is a letter or a word, e.g. A", param, ctx)
        return text


def check_viewer(viewers: tuple[str, ...], viewer: str, game: str) -> None:
    """``viewer`` one of the match's game's viewers, else a usage error (exit 2)."""
    if viewer not in viewers:
        raise click.BadParameter(
            f"{shown(viewer)} is not a viewer of {game}: its viewers are {', '.join(viewers)}", param_hint="--as"
        )


def check_seats(seats: tuple[str, ...], given: Iterable[str], game: str, param_hint: str) -> None:
    """Each of ``given`` a seat of the match's game (its ``seats``), else a
    usage error naming them (exit 2)."""
    for seat in given:
        if seat not in seats:
            raise click.BadParameter(
                f"{shown(seat)} is not a seat of {game}: its seats are {', '.join(seats)}", param_hint=param_hint
            )


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
VIEWER = Viewer()
PLAYER = SeatName()
DECK = Pair(None, FILE, "P=FILE")
NAME = Pair(None, PLAYER_NAME, "P=NAME")
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
    "PLAYER",
    "SeatName",
    "Viewer",
    "check_seats",
    "check_viewer",
    "PLAYER_NAME",
    "REASON",
    "SEED",
    "TITLE",
    "VIEWER",
    "DatabaseUrl",
    "KeyChoice",
    "MatchId",
    "Pair",
    "Seed",
    "Text",
    "db_option",
    "json_option",
    "once_each",
]
