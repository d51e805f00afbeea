"""Shared fixtures.

Database fixtures: a test that takes ``database`` runs once on SQLite (a file
in tmp_path) and once on PostgreSQL (``REFEREE_TEST_POSTGRES``, a fresh schema
per test, dropped afterwards). Without that variable the PostgreSQL run FAILS
and says how to get a server, unless ``REFEREE_SKIP_POSTGRES=1`` asks to skip.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator

import pytest

NO_POSTGRES = (
    "REFEREE_TEST_POSTGRES is not set: run `.ci/postgres.sh` as root and "
    'export REFEREE_TEST_POSTGRES="<the URL it prints>" '
    "(or set REFEREE_SKIP_POSTGRES=1 to skip the PostgreSQL tests)"
)


def _postgres_url() -> str:
    """The test server's URL; fails (never skips, unless asked to) without one."""
    url = os.environ.get("REFEREE_TEST_POSTGRES", "").strip()
    if url:
        return url
    if os.environ.get("REFEREE_SKIP_POSTGRES") == "1":
        pytest.skip("REFEREE_SKIP_POSTGRES=1")
    pytest.fail(NO_POSTGRES, pytrace=False)


class TestDatabase:
    """One test's database: its URL, stores opened on it, and raw SQL."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, kind: str, tmp_path) -> None:
        self.kind = kind
        self._tmp_path = tmp_path
        self._base: str | None = None
        self.schema = f"t_{uuid.uuid4().hex[:16]}"
        self.stores: list = []

    @property
    def url(self) -> str:
        # Resolved in the test body, so a missing server is a test FAILURE.
        if self.kind == "sqlite":
            return f"sqlite:///{self._tmp_path / 'referee.db'}"
        if self._base is None:
            self._base = _postgres_url()
        return f"{self._base}?schema={self.schema}"

    def open(self, **kwargs):
        """A new MatchStore on this database: another judge station."""
        from referee.store import MatchStore

        store = MatchStore(self.url, **kwargs)
        self.stores.append(store)
        return store

    def sql(self, statement: str) -> None:
        """Run SQL behind the store's back (to break things on purpose)."""
        if self.kind == "sqlite":
            with sqlite3.connect(self._tmp_path / "referee.db") as conn:
                conn.executescript(statement)
        else:
            import psycopg

            with psycopg.connect(self._base, autocommit=True) as conn:
                conn.execute(f'SET search_path TO "{self.schema}"')
                conn.execute(statement)

    def close(self) -> None:
        for store in self.stores:
            store.close()
        if self.kind == "postgresql" and self._base is not None:
            import psycopg

            with psycopg.connect(self._base, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')


@pytest.fixture
def postgres_url():
    """Call it in the test body: the test server's URL, or a failure saying how to get one."""
    return _postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path) -> Iterator[TestDatabase]:
    db = TestDatabase(request.param, tmp_path)
    try:
        yield db
    finally:
        db.close()
