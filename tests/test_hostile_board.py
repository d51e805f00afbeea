"""A board a stranger cannot exhaust, lock or read files through, and that tells one truth
about a slow write (issue 29), through its HTTP interface in this process (the probes
with real server processes are in tests/test_faults.py).

Password attempts are limited per client address in the store, so strangers on many
addresses cannot lock a judge out; sessions live in the store, so signing out ends them;
judge calls are bounded per link; a write either starts before the answer or never, and a
page (or `referee act --entry`) learns what became of one whose answer could not wait.
Nothing here reads the clock to judge: the stores' clocks are replaced where time matters.
"""

from __future__ import annotations

import json
import re
import threading
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from events.kernel import JudgeCalled
from referee.web import tokens
from referee.web.app import Settings, StoreDeadline, create_app
from tests.test_console import BASE, KEY, form_of, keeper, new_table_match, records_of, version_of
from tests.test_web import PASSWORD, judge_auth, referee


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'hostile.db'}"


def _settings(db: str, **extra: Any) -> Settings:
    return Settings(
        db,
        protect=True,
        judge_password=extra.pop("judge_password", PASSWORD),
        token_key=KEY,
        allowed_hosts=("127.0.0.1", "localhost"),
        **extra,
    )


class _Client(TestClient):
    """A client of ``app`` from ``address``. Several share one app (one
    server) without running its lifespan each (which closes its store), so
    leaving the block leaves the app as it is."""

    def __enter__(self) -> "_Client":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _client(app: Any, address: str = "testclient") -> TestClient:
    return _Client(app, base_url=BASE, client=(address, 50000))


def _sign_in(http: TestClient, password: str = PASSWORD) -> int:
    csrf = form_of(http.get("/login").text)["csrf"]
    return http.post("/login", data={"csrf": csrf, "password": password}, follow_redirects=False).status_code


def in_own_loop(make: Any) -> Any:
    """``asyncio.run(make())`` in a thread of its own: the browser tests leave
    an event loop running in this one, where ``asyncio.run`` may not be called."""
    import asyncio
    import threading

    out: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            out.append(asyncio.run(make()))
        except BaseException as exc:  # noqa: BLE001 - raised again below
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return out[0]


# --- password attempts ------------------------------------------------------------------------


def test_thirty_wrong_guesses_a_minute_from_six_addresses_do_not_stop_the_judge(db: str) -> None:
    match = new_table_match(db)
    app = create_app(_settings(db))
    other_server = create_app(_settings(db))  # a second server of the same store
    codes: list[int] = []
    for k in range(6):
        with _client(app if k % 2 else other_server, f"10.0.0.{k + 1}") as stranger:
            codes += [_sign_in(stranger, f"guess {k}.{i}") for i in range(5)]
    assert codes.count(401) == 30
    with _client(app, "10.0.0.1") as again:  # the sixth wrong guess from one address waits, on either server
        assert _sign_in(again, "guess again") == 429
    with _client(other_server, "10.0.0.1") as again:
        assert _sign_in(again, "and again") == 429
    with _client(app, "10.0.0.99") as judge:
        assert _sign_in(judge) == 303
        assert judge.get(f"/matches/{match}?as=judge").status_code == 200
    with _client(app, "10.0.0.98") as basic:
        assert basic.get(f"/matches/{match}?as=judge", headers=judge_auth()).status_code == 200


def test_a_signed_in_judge_is_never_locked_out(db: str) -> None:
    match = new_table_match(db)
    app = create_app(_settings(db))
    with _client(app, "10.1.1.1") as judge, _client(app, "10.1.1.1") as stranger:
        assert _sign_in(judge) == 303
        assert {_sign_in(stranger, f"guess {i}") for i in range(8)} == {401, 429}  # same address, locked
        assert judge.get(f"/matches/{match}?as=judge").status_code == 200
        fields = form_of(judge.get(f"/matches/{match}").text)
        done = judge.post(f"/matches/{match}/note", data={**fields, "text": "still here"})
        assert done.headers["x-outcome"] == "logged"


def test_x_forwarded_for_is_believed_only_from_a_named_proxy(db: str) -> None:
    new_table_match(db)
    plain = create_app(_settings(db))
    with _client(plain, "10.2.2.2") as http:
        codes = [
            http.post(
                "/login",
                data={"csrf": form_of(http.get("/login").text)["csrf"], "password": "x"},
                headers={"X-Forwarded-For": f"192.0.2.{i}"},
            ).status_code
            for i in range(8)
        ]
        assert codes[5:] == [429] * 3  # a client's own header buys it no more guesses
    proxied = create_app(_settings(db, proxies=("10.3.3.3",)))
    with _client(proxied, "10.3.3.3") as proxy:
        csrf = form_of(proxy.get("/login").text)["csrf"]
        codes = [
            proxy.post(
                "/login", data={"csrf": csrf, "password": "x"}, headers={"X-Forwarded-For": f"6.6.6.6, 192.0.2.{i}"}
            ).status_code
            for i in range(8)
        ]
        assert codes == [401] * 8  # each is another client behind the proxy (its last hop)


# --- sessions in the store ---------------------------------------------------------------------


def test_logging_out_ends_the_session_on_every_server(db: str) -> None:
    match = new_table_match(db)
    app, other = create_app(_settings(db)), create_app(_settings(db))
    with _client(app) as judge, _client(other) as thief:
        assert _sign_in(judge) == 303
        cookie = dict(judge.cookies)
        thief.cookies.update(cookie)
        assert thief.get(f"/matches/{match}?as=judge").status_code == 200  # the same session, another server
        fields = form_of(judge.get(f"/matches/{match}").text)
        assert judge.post("/logout", data={"csrf": fields["csrf"]}, follow_redirects=False).status_code == 303
        thief.cookies.clear()
        thief.cookies.update(cookie)  # the cookie as it was before signing out
        assert thief.get(f"/matches/{match}?as=judge").status_code == 401


def test_a_changed_password_ends_the_judges_sessions(db: str) -> None:
    match = new_table_match(db)
    with _client(create_app(_settings(db))) as judge:
        assert _sign_in(judge) == 303
        cookie = dict(judge.cookies)
    with _client(create_app(_settings(db, judge_password="a new password 42"))) as later:
        later.cookies.update(cookie)
        assert later.get(f"/matches/{match}?as=judge").status_code == 401


def test_a_session_ends_at_the_expiry_the_organiser_set(db: str) -> None:
    match = new_table_match(db)
    app = create_app(_settings(db, session_seconds=3600))
    with _client(app) as judge:
        assert _sign_in(judge) == 303
        assert judge.get(f"/matches/{match}?as=judge").status_code == 200
        sessions = app.state.board.guard.sessions
        clock = sessions.clock
        sessions.clock = lambda: clock() + 3601  # an hour and a second later
        assert judge.get(f"/matches/{match}?as=judge").status_code == 401


# --- judge calls --------------------------------------------------------------------------------


def test_judge_calls_from_a_link_are_bounded_and_each_recorded(db: str) -> None:
    match = new_table_match(db)
    token = tokens.player_token(KEY, match, "A")
    with _client(create_app(_settings(db))) as player:
        csrf = form_of(player.get(f"/matches/{match}?as=A&token={token}").text)["csrf"]
        fields = {"csrf": csrf, "as": "A", "token": token, "version": str(version_of(db, match)), "entry": "c1"}
        too_long = player.post(f"/matches/{match}/call", data={**fields, "reason": "x" * 201})
        assert too_long.status_code == 400 and too_long.headers["x-outcome"] == "invalid"
        outcomes = []
        for i in range(5):
            answer = player.post(f"/matches/{match}/call", data={**fields, "reason": f"call {i}"})
            outcomes.append(answer.headers["x-outcome"])
            if answer.status_code == 200:
                fields = {**fields, "version": str(version_of(db, match)), "entry": f"c{i + 2}"}
        assert outcomes == ["logged"] * 3 + ["refused"] * 2
        assert "every call is in the log" in answer.text
    calls = [r for r in records_of(db, match) if isinstance(r.event, JudgeCalled)]
    assert [c.event.reason for c in calls] == ["call 0", "call 1", "call 2"]


# --- bodies and pasted positions ------------------------------------------------------------


def test_a_form_longer_than_the_limit_is_refused_chunked_or_not(db: str) -> None:
    new_table_match(db)
    with _client(create_app(_settings(db))) as http:
        big = b"password=" + b"x" * (70 * 1024)
        said = http.post("/login", content=big, headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert said.status_code == 413

        def chunks():  # no Content-Length: sent in chunks
            for _ in range(20):
                yield b"x" * 8192

        chunked = http.post("/login", content=chunks(), headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert chunked.status_code == 413 and "too large" in chunked.text


def test_a_pasted_position_reads_no_file_of_the_server(db: str, tmp_path: Path) -> None:
    new_table_match(db)
    secret = tmp_path / "secret.yaml"
    secret.write_text("- {name: Secret Card, type: event, cost: 0}\n")
    with _client(create_app(_settings(db))) as http:
        csrf = form_of(http.get("/new", headers=judge_auth()).text)["csrf"]
        answers = []
        for pool in (str(secret), "/etc/passwd", "/no/such/file", "../../etc/hostname"):
            text = f"name: x\nrules: ['306']\npool: {pool}\nsetup:\n  turn: 3\n"
            answers.append(http.post("/new", headers=judge_auth(), data={"csrf": csrf, "scenario": text}))
        assert {a.status_code for a in answers} == {400}
        messages = {unescape(a.text).split("<textarea")[0] for a in answers}
        assert len(messages) == 1  # the same words whatever the path: nothing tells a file exists
        assert "never a file on the server" in messages.pop()
        decks = "name: x\nrules: ['101']\nsetup:\n  decks: {A: /etc/passwd, B: /etc/passwd}\n"
        answer = http.post("/new", headers=judge_auth(), data={"csrf": csrf, "scenario": decks})
        assert answer.status_code == 400 and "deck file" in answer.text


# --- one truth about a slow write -------------------------------------------------------------


def _deadline(app: Any, seconds: float) -> None:
    for m in app.user_middleware:
        if m.cls is StoreDeadline:
            m.kwargs["seconds"] = seconds


async def _keeper_post(app: Any, match: str, then: Any) -> Any:
    """In one event loop that keeps running after the answer (as a server's
    does, and the test client's does not): sign a scorekeeper in, post the
    first legal line, then ``then(http, fields, answer)``."""
    import httpx2

    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE) as http:
        await http.get(tokens.scorekeeper_link(KEY, match, "Sam"), follow_redirects=True)
        fields = form_of((await http.get(f"/matches/{match}")).text)
        answer = await http.post(
            f"/matches/{match}/act",
            data={**fields, "line": 'A reveal "Kitchen Maid"'},
            headers={"X-Requested-With": "referee-console"},
        )
        return await then(http, fields, answer)


async def _status(http: Any, match: str, entry: str) -> dict[str, Any]:
    answer = await http.get(f"/matches/{match}/entries/{entry}", headers={"Accept": "application/json"})
    return dict(answer.json())


def test_a_write_held_past_the_answer_is_unknown_then_learned_and_act_never_logs_it_twice(db: str) -> None:
    import asyncio

    match = new_table_match(db)
    app = create_app(_settings(db))
    _deadline(app, 0.3)
    store = app.state.board.store
    release = threading.Event()
    write = store._write

    def held_write(*args: Any, **kwargs: Any) -> None:  # the database holds a lock: the write waits
        release.wait(60)
        write(*args, **kwargs)

    store._write = held_write
    before = version_of(db, match)

    async def then(http: Any, fields: dict[str, str], answer: Any) -> tuple[str, dict[str, Any]]:
        entry = fields["entry"]
        assert answer.status_code == 503 and answer.headers["x-outcome"] == "unknown"
        assert answer.headers["x-entry"] == entry
        assert "not known yet" in answer.text and "nothing was recorded" not in answer.text
        assert (await _status(http, match, entry))["status"] == "pending"
        release.set()
        for _ in range(600):  # the held write goes on in its thread, then the page learns it
            status = await _status(http, match, entry)
            if status["status"] != "pending":
                break
            await asyncio.sleep(0.05)
        return entry, status

    entry, status = in_own_loop(lambda: _keeper_post(app, match, then))
    assert status["status"] == "recorded" and status["position"] == before + 1
    after = version_of(db, match)
    assert after > before
    # The table enters it again at a terminal with the entry the page named: a repeat, logged once.
    out = referee(db, "act", match, "A", "reveal", "Kitchen Maid", "--entry", entry, "--json")
    assert json.loads(out)["repeat"] == {"entry": entry, "position": before + 1}
    assert version_of(db, match) == after
    assert len([r for r in records_of(db, match) if r.entry == entry]) == after - before


def test_a_write_that_had_not_started_by_the_answer_never_starts(db: str) -> None:
    import asyncio

    match = new_table_match(db)
    app = create_app(_settings(db))
    _deadline(app, 0.3)
    store = app.state.board.store
    release, finished = threading.Event(), threading.Event()
    store.before_write = lambda key, attempt: release.wait(60)  # slow before the write begins
    update = store.update

    def update_then_say(*args: Any, **kwargs: Any) -> Any:
        try:
            return update(*args, **kwargs)
        finally:
            finished.set()

    store.update = update_then_say
    before = version_of(db, match)

    async def then(http: Any, fields: dict[str, str], answer: Any) -> dict[str, Any]:
        assert answer.status_code == 503 and answer.headers["x-outcome"] == "unavailable"
        assert "nothing was recorded" in answer.text
        release.set()
        assert await asyncio.to_thread(finished.wait, 60)
        return await _status(http, match, fields["entry"])

    assert in_own_loop(lambda: _keeper_post(app, match, then))["status"] == "not recorded"
    assert version_of(db, match) == before  # what the answer said is true


def test_every_console_post_says_its_outcome(db: str) -> None:
    match = new_table_match(db)
    with _client(create_app(_settings(db))) as http:
        public = http.post(f"/matches/{match}/act", data={"line": "A concede"})
        assert public.status_code == 403 and public.headers["x-outcome"] == "refused"
        keeper(http, match)
        fields = form_of(http.get(f"/matches/{match}").text)
        bad = http.post(f"/matches/{match}/act", data={**fields, "version": "x"})
        assert bad.status_code == 400 and bad.headers["x-outcome"] == "invalid"
        stale = http.post(f"/matches/{match}/act", data={**fields, "version": "1", "line": "A concede"})
        assert stale.headers["x-outcome"] == "stale"


def test_match_slips_carry_each_matchs_short_head_fingerprint(db: str) -> None:
    from referee.chain import head_fingerprint
    from referee.store import MatchStore

    event = json.loads(referee(db, "event", "new", "Cup", "--json"))["event"]
    deck = str(Path(__file__).parent.parent / "scenarios/decks/alice.yaml")
    for name in ("Ann", "Bea", "Cyd", "Dot"):
        referee(db, "event", "register", event, "--player", name, "--deck", deck)
    referee(db, "event", "round", event)
    with _client(create_app(_settings(db))) as http:
        page = http.get(f"/events/{event}/print/slips")
    shown = re.findall(r"data-record-fingerprint>([^<]+)<", page.text)
    with MatchStore(db, read_only=True) as store:
        matches = [m.id for m in store.list_matches() if m.id.startswith(event)]
        expected = [
            f"{head_fingerprint(store.head_of(m).hash)} at event {store.head_of(m).position}" for m in sorted(matches)
        ]
    assert len(shown) == 2 and sorted(shown) == sorted(expected)
