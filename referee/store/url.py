"""Database URLs: ``sqlite:///path`` and ``postgresql://user:pass@host:port/db``.

An SQLite URL may end in ``?synchronous=full`` to sync the write-ahead log
at every commit (the default, ``normal``, survives a crash of the program
but not of the machine: see ``sqlitefactory``). A PostgreSQL URL takes
``?schema=NAME`` and the usual libpq connection options (``LIBPQ_OPTIONS``:
``sslmode``, ``sslrootcert``, ``connect_timeout``, ``application_name``...),
which go to every connection the store makes.

How a store opens its file decides what a typo costs: only a store that
may create (``referee new``, ``import``) makes a missing SQLite file; the
others say "no such database" and leave nothing behind, and a store that
only reads opens the file read-only, so read-only media serve.

A URL becomes the eventsourcing environment (``PERSISTENCE_MODULE``,
``SQLITE_DBNAME``, ``POSTGRES_*``) handed to the application, so the library
is configured by what the user typed and never by whatever happens to be in
``os.environ``. ``Database.check`` connects once before the library does:
the library retries a failed connection for a long time and then reports a
pool timeout, while a judge at a table needs "wrong password" in one line.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from referee.store.errors import NoSuchDatabase, StoreError, one_line
from referee.store.sqlitefactory import DEFAULT_SYNCHRONOUS, SYNCHRONOUS, SYNCHRONOUS_MODES

DEFAULT_URL = "sqlite:///referee.db"
CONNECT_TIMEOUT = 5  # seconds; ``?connect_timeout=N`` in a PostgreSQL URL changes it
APPLICATION_NAME = "referee"  # what pg_stat_activity shows for a station, unless the URL says
# libpq options a URL may carry, passed to every connection as they are
# (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-PARAMKEYWORDS).
LIBPQ_OPTIONS = (
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslcrl",
    "sslpassword",
    "sslnegotiation",
    "channel_binding",
    "connect_timeout",
    "application_name",
    "target_session_attrs",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "options",
    "gssencmode",
    "krbsrvname",
    "passfile",
)
SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
SECRET_OPTIONS = ("sslpassword",)  # hidden in every message, as the password is
LIBPQ_ENV = "REFEREE_POSTGRES_OPTIONS"  # environment key: the options as JSON, for the factory

_USAGE = "use sqlite:///relative/path.db, sqlite:////absolute/path.db or postgresql://user:password@host:port/dbname"
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


@dataclass(frozen=True)
class Database:
    """Where matches are stored, as the library's environment."""

    kind: str  # "sqlite" | "postgresql"
    env: dict[str, str] = field(repr=False)  # holds the password
    display: str  # the URL with the password hidden: safe for any message
    password: str = field(default="", repr=False)
    path: str | None = None  # SQLite file (None in memory)
    schema: str | None = None  # PostgreSQL schema, if the URL named one
    options: dict[str, str] = field(default_factory=dict, repr=False)  # libpq options (PostgreSQL)

    def describe(self, exc: BaseException | str) -> str:
        """A one-line reason mentioning this database, the password hidden."""
        text = one_line(str(exc), self.password)
        for key in SECRET_OPTIONS:
            text = one_line(text, self.options.get(key, ""))
        return f"{self.display}: {text}"

    def check(self, *, create: bool = True, read_only: bool = False) -> None:
        """Fail early and clearly if the database cannot be used; an SQLite
        file that does not exist is an error unless ``create``, and one that
        cannot be written is an error unless ``read_only``."""
        if self.kind == "sqlite":
            self._check_sqlite(create, read_only)
        else:
            self._check_postgres()

    def _check_sqlite(self, create: bool, read_only: bool) -> None:
        if self.path is None:
            return
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            raise StoreError(f"cannot open SQLite database {self.path!r}: directory {directory!r} does not exist")
        if os.path.isdir(self.path):
            raise StoreError(f"cannot open SQLite database {self.path!r}: it is a directory")
        if not create and not os.path.exists(self.path):
            raise NoSuchDatabase(
                f"no such database: {self.path!r} does not exist (check --db or REFEREE_DB; "
                "`referee new`, `referee import` or `referee event new` creates it)"
            )
        if not create and not read_only and os.path.getsize(self.path) == 0:
            # Opening it to write would write SQLite's header into it before
            # anything else failed: a command that may not create a database
            # leaves an empty file (a typo, a failed copy) as it found it.
            raise NoSuchDatabase(
                f"{self.path!r} is an empty file, not a referee database: it holds no matches "
                "(check --db or REFEREE_DB; `referee new`, `referee import` or `referee event new` creates one)"
            )
        if not read_only:
            # SQLite writes the file and, beside it, its -wal and -shm files.
            target = self.path if os.path.exists(self.path) else directory
            if not os.access(target, os.W_OK) or not os.access(directory, os.W_OK):
                raise StoreError(
                    f"cannot write to SQLite database {self.path!r}: it or its folder is read-only "
                    "(commands that only read, such as state, legal and log, still work)"
                )

    def connect_kwargs(self) -> dict[str, Any]:
        """psycopg's keyword arguments for a connection to this database."""
        env = self.env
        return {
            "dbname": env["POSTGRES_DBNAME"],
            "host": env["POSTGRES_HOST"],
            "port": env["POSTGRES_PORT"],
            "user": env["POSTGRES_USER"],
            "password": self.password,
            **self.options,
        }

    def _check_postgres(self) -> None:
        import psycopg

        try:
            with psycopg.connect(autocommit=True, **self.connect_kwargs()) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as exc:
            raise StoreError(f"cannot use PostgreSQL at {self.describe(exc)}") from None


def database_url(option: str | None = None) -> str:
    """The URL the command line means: ``--db``, else ``REFEREE_DB``, else the default."""
    return option or os.environ.get("REFEREE_DB") or DEFAULT_URL


def parse_url(url: str) -> Database:
    """The database a URL names; a URL we cannot use raises ``StoreError``."""
    text = url.strip()
    scheme = text.split(":", 1)[0].lower() if ":" in text else ""
    if scheme == "sqlite":
        return _sqlite(text)
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return _postgres(text)
    shown = _hide_password(text)
    raise StoreError(f"unknown database URL {shown!r}: {_USAGE}")


def _sqlite(url: str) -> Database:
    rest = url[len("sqlite:") :]
    if not rest.startswith("//"):
        raise StoreError(f"bad SQLite URL {url!r}: {_USAGE}")
    rest = rest[2:]
    if not rest.startswith("/"):
        raise StoreError(f"bad SQLite URL {url!r}: an SQLite URL has no host; {_USAGE}")
    path_part, _, query_part = rest[1:].partition("?")
    path = unquote(path_part)
    if not path:
        raise StoreError(f"bad SQLite URL {url!r}: no file name; {_USAGE}")
    query = {k: v[-1] for k, v in parse_qs(query_part).items()}
    synchronous = query.get("synchronous", DEFAULT_SYNCHRONOUS).lower()
    if synchronous not in SYNCHRONOUS_MODES:
        raise StoreError(f"bad SQLite URL {url!r}: synchronous must be normal or full")
    # The library's SQLite factory, plus ``PRAGMA synchronous`` (see sqlitefactory).
    env = {
        "PERSISTENCE_MODULE": "referee.store.sqlitefactory:RefereeSQLiteFactory",
        "ORIGINATOR_ID_TYPE": "text",
        SYNCHRONOUS: synchronous,
    }
    if path == ":memory:":
        # One private shared-cache database per store: the library's connections
        # must all see the same memory, and two stores must not.
        env["SQLITE_DBNAME"] = f"file:referee-{uuid.uuid4().hex}?mode=memory&cache=shared"
        return Database("sqlite", env, url, path=None)
    env["SQLITE_DBNAME"] = path
    return Database("sqlite", env, url, path=path)


def _postgres(url: str) -> Database:
    try:
        parts = urlsplit(url)
        port = parts.port or 5432
    except ValueError as exc:
        raise StoreError(f"bad PostgreSQL URL {_hide_password(url)!r}: {exc}") from None
    password = unquote(parts.password or "")
    user = unquote(parts.username or "")
    host = unquote(parts.hostname or "") or "localhost"
    dbname = unquote(parts.path.lstrip("/"))
    display = _display(user, bool(parts.password), host, port, dbname)
    if not user or not dbname:
        raise StoreError(f"bad PostgreSQL URL {display!r}: it needs a user and a database name; {_USAGE}")
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    unknown = set(query) - {"schema", *LIBPQ_OPTIONS}
    if unknown:
        raise StoreError(
            f"bad PostgreSQL URL {display!r}: unknown option {sorted(unknown)[0]!r} "
            f"(use schema or a libpq option: {', '.join(LIBPQ_OPTIONS[:4])}...)"
        )
    timeout = query.get("connect_timeout", str(CONNECT_TIMEOUT))
    if not timeout.isdigit() or int(timeout) < 1:
        raise StoreError(f"bad PostgreSQL URL {display!r}: connect_timeout must be a whole number of seconds")
    if "sslmode" in query and query["sslmode"] not in SSLMODES:
        raise StoreError(f"bad PostgreSQL URL {display!r}: sslmode must be one of {', '.join(SSLMODES)}")
    schema = query.get("schema") or None
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise StoreError(f"bad PostgreSQL URL {display!r}: schema {schema!r} is not a plain identifier")
    options = {k: v for k, v in query.items() if k in LIBPQ_OPTIONS}
    options["connect_timeout"] = timeout
    options.setdefault("application_name", APPLICATION_NAME)
    shown = [f"schema={schema}"] if schema else []
    shown += [
        f"{k}={'***' if k in SECRET_OPTIONS else quote(v, safe='/')}" for k, v in query.items() if k in LIBPQ_OPTIONS
    ]
    if shown:
        display += "?" + "&".join(shown)
    env = {
        "PERSISTENCE_MODULE": "referee.store.pgfactory:RefereePostgresFactory",
        "ORIGINATOR_ID_TYPE": "text",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": host,
        "POSTGRES_PORT": str(port),
        "POSTGRES_USER": user,
        "POSTGRES_PASSWORD": password,
        "POSTGRES_CONNECT_TIMEOUT": timeout,
        # A judge station needs a connection or two, not the library's five.
        "POSTGRES_POOL_SIZE": "1",
        "POSTGRES_MAX_OVERFLOW": "4",
        LIBPQ_ENV: json.dumps(options, sort_keys=True),
    }
    if schema:
        env["POSTGRES_SCHEMA"] = schema
    return Database("postgresql", env, display, password=password, schema=schema, options=options)


def _display(user: str, has_password: bool, host: str, port: int, dbname: str) -> str:
    auth = quote(user, safe="") + (":***" if has_password else "")
    return f"postgresql://{auth}@{host}:{port}/{quote(dbname, safe='')}"


def _hide_password(url: str) -> str:
    """A URL we could not parse may still hold a password: hide ``:secret@``."""
    return re.sub(r"(//[^/:@]*:)[^@/]*@", r"\1***@", url)
