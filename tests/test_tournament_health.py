"""Busy is not down (issue 28): the board tells a slow store from a dead one with a health check of its own (a short connection, not the pages' queries), so a busy server gives no 503 while the store answers, and `/health` answers within a few seconds while PostgreSQL is gone; read models are warm from the start."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from referee.web import live


def _in_a_thread(coro: Any) -> Any:
    """Run a coroutine in a loop of its own (a browser test of the same session may hold this thread's)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


class _Slow:
    """A notification log that answers, slowly (a busy server on two cores)."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.calls = 0

    def max_notification_id(self) -> int:
        self.calls += 1
        time.sleep(self.pause)
        return 0


class _Probe:
    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.asked = 0

    async def answering(self) -> str | None:
        self.asked += 1
        return self.answer


def test_a_slow_poll_is_not_down_while_the_health_check_reaches_the_store() -> None:
    """The poll takes longer than DOWN_AFTER; the health check (its own
    connection) finds the store answering: no page hears "down" (before:
    any poll over 3 s was "not answering", and the pages showed a red 503
    during play)."""
    watcher = live.Watcher(_Slow(0.3), interval=0.01, probe=_Probe(None))  # type: ignore[arg-type]
    watch = watcher.subscribe(None)

    async def run() -> None:
        task = asyncio.create_task(watcher.run(down_after=0.05))
        while watcher.busy < 2:
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _in_a_thread(run())
    assert watcher.down is None and watch.queue.empty() and watcher.probe.asked >= 2  # type: ignore[union-attr]


def test_a_slow_poll_is_down_when_the_health_check_cannot_reach_the_store() -> None:
    watcher = live.Watcher(_Slow(0.3), interval=0.01, probe=_Probe("the match store is not answering"))  # type: ignore[arg-type]
    watch = watcher.subscribe("m-1")

    async def run() -> dict:
        task = asyncio.create_task(watcher.run(down_after=0.05))
        try:
            return await asyncio.wait_for(watch.queue.get(), 10)
        finally:
            task.cancel()

    heard = _in_a_thread(run())
    assert heard == {"store": "down", "message": "the match store is not answering"}


class _Board:
    def __init__(self) -> None:
        self.watcher = live.Watcher(_Slow(0), probe=_Probe(None))  # type: ignore[arg-type]


def _deadline_app(board: _Board, pause: float, seconds: float) -> Any:
    from referee.web.app import StoreDeadline

    def slow(request: Any) -> PlainTextResponse:
        time.sleep(pause)
        return PlainTextResponse("answered")

    inner = Starlette(routes=[Route("/events/e-1", slow)])
    return StoreDeadline(inner, board, seconds=seconds)  # type: ignore[arg-type]


def test_a_page_the_store_answers_slowly_is_waited_for_not_refused() -> None:
    """StoreDeadline: a request still waiting after its deadline gets its
    answer while the store answers (before: a 503 "store not answering" at
    6 s, whatever the store was doing)."""
    board = _Board()
    with TestClient(_deadline_app(board, pause=0.4, seconds=0.05)) as c:
        r = c.get("/events/e-1")
    assert r.status_code == 200 and r.text == "answered"


def test_a_page_waiting_when_the_store_goes_down_gets_its_503() -> None:
    board = _Board()
    threading.Timer(0.2, lambda: setattr(board.watcher, "down", "the match store is not answering")).start()
    with TestClient(_deadline_app(board, pause=2.0, seconds=0.05)) as c:
        r = c.get("/events/e-1")
    assert r.status_code == 503 and "not answering" in r.text


def test_the_health_check_has_a_short_connection_of_its_own(tmp_path: Path) -> None:
    """The probe never uses the store's pool: for PostgreSQL a connection of
    its own with a connect_timeout of a few seconds (the URL's own, if
    shorter), for SQLite the file opened read-only."""
    from referee.store import parse_url

    probe = live.Probe(parse_url("postgresql://u:p@127.0.0.1:9/db?connect_timeout=30"))
    seen: dict[str, Any] = {}

    class _Conn:
        def __enter__(self) -> "_Conn":
            return self

        def __exit__(self, *args: Any) -> None:
            return None

        def execute(self, sql: str) -> None:
            seen.setdefault("sql", []).append(sql)

    import psycopg

    original = psycopg.connect
    psycopg.connect = lambda **kw: seen.update(kw) or _Conn()  # type: ignore[assignment]
    try:
        assert probe.check() is None
    finally:
        psycopg.connect = original  # type: ignore[assignment]
    assert seen["connect_timeout"] == 2 and seen["autocommit"] is True and "SELECT 1" in seen["sql"]
    assert live.Probe(parse_url(f"sqlite:///{tmp_path / 'none.db'}")).check() == live.NOT_ANSWERING


def test_health_answers_while_postgresql_is_gone(postgres_url, tmp_path: Path) -> None:
    """PostgreSQL behind a relay that stops passing anything (a network
    that drops packets): `/health` says "down" from its own short
    connection (before: it asked through the store's pool, about 50 s)."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg
    from test_tournament import referee

    from referee.web.app import Settings, create_app
    from tests.tcpcut import Relay

    server = postgres_url()
    parts = urlsplit(server)
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    schema = f"t_{uuid.uuid4().hex[:12]}"
    db = f"{parts.scheme}://{parts.netloc.split('@')[0]}@127.0.0.1:{relay.port}{parts.path}?schema={schema}"
    try:
        assert referee("event", "new", "Health Cup", db=db).returncode == 0
        with TestClient(create_app(Settings(db))) as c:
            assert c.get("/health").json() == {"store": "ok"}
            relay.hang()
            r = c.get("/health")
            assert r.status_code == 503 and r.json()["store"] == "down"
            relay.mend()
            assert c.get("/health").json() == {"store": "ok"}
    finally:
        relay.mend()
        relay.close()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_the_read_models_are_warm_when_the_server_starts(tmp_path: Path) -> None:
    """At start the board reads the read models, folds every tournament and
    computes its standings, so the first event page computes nothing."""
    import json

    from test_tournament import DECKS, ok, referee

    from referee.web.app import Settings, create_app

    db = f"sqlite:///{tmp_path / 'warm.db'}"
    tid = json.loads(ok(referee("event", "new", "Warm Cup", "--json", db=db)))["event"]
    for n in ("Ann", "Bob"):
        ok(referee("event", "register", tid, "--player", n, "--deck", str(DECKS / "alice.yaml"), db=db))
    ok(referee("event", "round", tid, db=db))
    app = create_app(Settings(db))
    from referee.tournament import projection

    computed: list[str] = []
    compute = projection.compute_standings

    def counted(state: Any, rows: Any) -> Any:
        computed.append(state.id)
        return compute(state, rows)

    projection.compute_standings = counted  # type: ignore[assignment]
    try:
        with TestClient(app) as c:
            reads = app.state.reads
            assert reads.ready.wait(60)
            assert tid in reads.warmed and computed == [tid]
            assert c.get(f"/events/{tid}").status_code == 200
            assert computed == [tid]  # the first page computed nothing again
    finally:
        projection.compute_standings = compute  # type: ignore[assignment]
