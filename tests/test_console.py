"""The board as a console, through its HTTP interface (no browser): who may
log what, CSRF, versions, previews of record-mode violations, judges'
corrections, sign-in, the host allow-list, the limit on passwords, several
servers sharing sessions. The browser tests (tests/browser/) drive the same
pages in chromium at phone size."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from referee.store import MatchStore
from referee.web import tokens
from referee.web.app import Settings, create_app
from tests.test_web import DECKS, HIDDEN_HANDS, PASSWORD, judge_auth, referee

BASE = "http://127.0.0.1"
KEY = b"test key of the console tests"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'console.db'}"


def app_for(db: str, *, protect: bool = True, **extra) -> TestClient:
    settings = Settings(
        db,
        protect=protect,
        judge_password=PASSWORD if protect else None,
        token_key=KEY,
        allowed_hosts=("127.0.0.1", "localhost"),
        **extra,
    )
    return TestClient(create_app(settings), base_url=BASE)


def new_table_match(db: str, mode: str = "record") -> str:
    """A table-dealt match of the vanilla decks, past both openings (A to reveal)."""
    mid = json.loads(referee(db, "new", *DECKS, "--seed", "7", "--deal", "table", "--mode", mode, "--json"))["match"]
    referee(db, "act", mid, "A", "choose_opening", "Little Page")
    referee(db, "act", mid, "B", "choose_opening", "Stable Boy")
    return mid


def hidden_hands(db: str, tmp_path: Path, mode: str | None = None) -> str:
    text = HIDDEN_HANDS
    if mode is not None:
        text = text.replace("setup:\n", f"setup:\n  mode: {mode}\n")
    position = tmp_path / "hidden.yaml"
    position.write_text(text)
    return json.loads(referee(db, "new", "--position", str(position), "--json"))["match"]


def keeper(http: TestClient, scope: str, name: str = "Sam") -> None:
    """Open a scorekeeper's link (as `referee serve --scorekeeper` prints it)."""
    page = http.get(tokens.scorekeeper_link(KEY, scope, name), follow_redirects=True)
    assert page.status_code == 200, page.text


def form_of(html: str) -> dict[str, str]:
    """The console's hidden fields (csrf, version, entry, as, token)."""
    form = html[html.index("data-console") :] if "data-console" in html else html
    return {k: unescape(v) for k, v in re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', form)}


def version_of(db: str, match: str) -> int:
    with MatchStore(db, read_only=True) as store:
        return store.load(match)[1]


def records_of(db: str, match: str):
    with MatchStore(db, read_only=True) as store:
        return store.records(match)


def actions(html: str) -> list[str]:
    return [unescape(a) for a in re.findall(r'data-action="([^"]*)"', html)]


# --- logging ---------------------------------------------------------------------------


def test_a_scorekeeper_link_opens_the_console_and_logs_a_line_with_who_entered_it(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        page = http.get(tokens.scorekeeper_link(KEY, match, "Sam"), follow_redirects=True)
        assert page.url.path == f"/matches/{match}"
        lines = actions(page.text)
        assert 'A reveal "Kitchen Maid"' in lines and "A concede" in lines
        # The same lines as `referee legal` prints, in full (spec: console.md).
        printed = referee(db, "legal", match)
        listed = [
            re.sub(r"^\s*\d+\.\s+", "", line).split("   [")[0]
            for line in printed.splitlines()
            if re.match(r"^\s*\d+\.", line)
        ]
        assert sorted(lines) == sorted(listed)
        fields = form_of(page.text)
        before = version_of(db, match)
        done = http.post(
            f"/matches/{match}/act",
            data={**fields, "line": 'A reveal "Kitchen Maid"'},
            headers={"X-Requested-With": "referee-console"},
        )
        assert done.status_code == 200 and done.headers["x-outcome"] == "logged"
        after = version_of(db, match)
        assert after > before and f'data-version="{after}"' in done.text
    written = records_of(db, match)[before:]
    assert {r.by for r in written} == {f"scorekeeper Sam of {match}"}
    assert len({r.entry for r in written}) == 1


def test_a_post_without_the_csrf_token_or_with_a_stale_version_records_nothing(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match)
        fields = form_of(http.get(f"/matches/{match}").text)
        before = version_of(db, match)
        line = {"line": 'A reveal "Kitchen Maid"'}
        no_csrf = http.post(f"/matches/{match}/act", data={**{k: v for k, v in fields.items() if k != "csrf"}, **line})
        assert no_csrf.status_code == 403 and "CSRF" in no_csrf.text
        wrong = http.post(f"/matches/{match}/act", data={**fields, **line, "csrf": "x" + fields["csrf"]})
        assert wrong.status_code == 403
        assert version_of(db, match) == before
        # Another station logs meanwhile; the page's submission is then stale.
        referee(db, "act", match, "A", "reveal", "Bold Squire")
        moved = version_of(db, match)
        stale = http.post(f"/matches/{match}/act", data={**fields, **line})
        assert stale.status_code == 409 and stale.headers["x-outcome"] == "stale"
        text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", stale.text)))
        assert "Not recorded: A: reveal Bold Squire was logged meanwhile" in text
        assert f'data-version="{moved}"' in stale.text and "data-stale" in stale.text
        assert version_of(db, match) == moved


def test_the_same_submission_twice_is_logged_once(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match)
        fields = form_of(http.get(f"/matches/{match}").text)
        data = {**fields, "line": 'A reveal "Kitchen Maid"'}
        first = http.post(f"/matches/{match}/act", data=data)
        after = version_of(db, match)
        second = http.post(f"/matches/{match}/act", data=data)
        assert first.headers["x-outcome"] == "logged" and second.headers["x-outcome"] == "repeat"
        assert "sent twice: logged once" in second.text and version_of(db, match) == after
        # The second answer says what was logged, as the first did (spec: console.md, 8).
        said = lambda html: re.search(r"<span data-logged>(.*?)</span>", html, re.S).group(1)  # noqa: E731
        assert said(second.text) == said(first.text) and "reveal Kitchen Maid" in said(first.text)


def test_a_refused_action_shows_its_rule_and_records_nothing(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)  # strict mode
    with app_for(db) as http:
        fields = form_of(http.get(f"/matches/{match}", headers=judge_auth()).text)
        before = version_of(db, match)
        # B plays a character in A's turn: strict mode refuses it (214.2a).
        page = http.post(
            f"/matches/{match}/act",
            headers=judge_auth(),
            data={**fields, "player": "B", "do": "play_character", "card": "Master Thief"},
        )
        assert page.status_code == 422 and page.headers["x-outcome"] == "refused"
        refusal = re.search(r'<div class="notice refusal" data-refusal[^>]*>(.*?)</div>', page.text, re.S)
        assert refusal and "214.2a" in refusal.group(1) and "own turn" in unescape(refusal.group(1))
        assert version_of(db, match) == before


SECOND_CHARACTER = """
name: A second character in one turn
rules: ["306.1a"]
setup:
  mode: record
  turn: 3
  active: A
  players:
    A: {hand: [Iron Knight, Bold Squire], action_stack: 5, castle: 20}
    B: {field: [Helman Ranger], castle: 20}
"""


def test_record_mode_previews_the_violation_then_records_it_when_confirmed(db: str, tmp_path: Path) -> None:
    position = tmp_path / "second.yaml"
    position.write_text(SECOND_CHARACTER)
    match = json.loads(referee(db, "new", "--position", str(position), "--json"))["match"]
    referee(db, "act", match, "A", "play_character", "Iron Knight")
    with app_for(db) as http:
        keeper(http, match)
        page = http.get(f"/matches/{match}")
        assert 'A play_character "Bold Squire" (cost 1)' not in actions(page.text)  # not legal: not offered
        fields = form_of(page.text)
        before = version_of(db, match)
        entry = {**fields, "player": "A", "do": "play_character", "card": "Bold Squire"}
        preview = http.post(f"/matches/{match}/act", data=entry)
        assert preview.headers["x-outcome"] == "preview" and "data-confirm" in preview.text
        assert "306.1a" in preview.text and version_of(db, match) == before  # nothing yet
        confirm = dict(
            re.findall(
                r'<input type="hidden" name="([a-z]+)" value="([^"]*)"',
                preview.text[preview.text.index('class="confirm"') :].split("</form>")[0],
            )
        )
        assert confirm["confirm"] == "yes" and confirm["card"] == "Bold Squire"
        done = http.post(f"/matches/{match}/act", data={k: unescape(v) for k, v in confirm.items()})
        assert done.headers["x-outcome"] == "logged"
        assert "OPEN VIOLATION (306.1a)" in done.text
    with MatchStore(db, read_only=True) as store:
        state, _ = store.load(match)
    assert [v.rule for v in state.violations] == ["306.1a"]


def test_a_skipped_step_is_previewed_and_confirmed(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path, mode="record")
    referee(db, "act", match, "A", "end_turn")  # B's turn starts: 301-304 done by the referee
    with app_for(db) as http:
        keeper(http, match)
        fields = form_of(http.get(f"/matches/{match}").text)
        before = version_of(db, match)
        preview = http.post(f"/matches/{match}/skip-step", data={**fields, "rule": "303", "reason": "B forgot"})
        assert preview.headers["x-outcome"] == "preview" and "data-confirm" in preview.text
        assert version_of(db, match) == before
        confirm = dict(
            re.findall(
                r'<input type="hidden" name="([a-z]+)" value="([^"]*)"',
                preview.text[preview.text.index('class="confirm"') :].split("</form>")[0],
            )
        )
        done = http.post(
            preview.text.split('class="confirm"')[0].rsplit('action="', 1)[1].split('"')[0],
            data={k: unescape(v) for k, v in confirm.items()},
        )
        assert done.headers["x-outcome"] == "logged" and "OPEN VIOLATION (303)" in done.text
    assert type(records_of(db, match)[-1].event).__name__ in ("StepSkipped", "ViolationRecorded")


# --- roles ---------------------------------------------------------------------------------


def test_a_scorekeeper_cannot_rewind_or_accept_and_a_judge_can(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path, mode="record")
    referee(db, "act", match, "A", "play_event", "War Council")
    with app_for(db) as keeper_http, app_for(db) as judge_http:
        keeper(keeper_http, match)
        page = keeper_http.get(f"/matches/{match}")
        assert "rewind here?" not in page.text and "/accept" not in page.text
        fields = form_of(page.text)
        before = version_of(db, match)
        assert (
            keeper_http.post(
                f"/matches/{match}/rewind", data={**fields, "to": "1", "rule": "410.1", "reason": "x"}
            ).status_code
            == 403
        )
        assert keeper_http.post(f"/matches/{match}/accept", data={**fields, "reason": "x"}).status_code == 403
        assert keeper_http.get(f"/matches/{match}/rewind?to=1").status_code == 403
        assert version_of(db, match) == before
        # The judge (signed in with the form) rewinds from the preview.
        login = judge_http.get("/login")
        csrf = form_of(login.text)["csrf"]
        signed = judge_http.post("/login", data={"csrf": csrf, "password": PASSWORD, "name": "Kim", "next": "/"})
        assert signed.status_code in (200, 303)
        preview = judge_http.get(f"/matches/{match}/rewind?to=1")
        assert "data-confirm" in preview.text and 'name="reason"' in preview.text
        fields = {
            k: unescape(v) for k, v in re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', preview.text)
        }
        done = judge_http.post(f"/matches/{match}/rewind", data={**fields, "rule": "410.1", "reason": "wrong event"})
        assert done.headers["x-outcome"] == "logged"
    last = records_of(db, match)[-1]
    assert type(last.event).__name__ == "Rewound" and last.event.judge == "Kim" and last.by == "judge Kim"


def test_a_player_link_never_acts_for_the_opponent_and_logs_only_where_the_event_allows(
    db: str, tmp_path: Path
) -> None:
    match = hidden_hands(db, tmp_path)
    a_token = tokens.player_token(KEY, match, "A")
    b_token = tokens.player_token(KEY, match, "B")
    with app_for(db) as http:
        page = http.get(f"/matches/{match}?as=A&token={a_token}")
        assert page.status_code == 200 and "data-action" not in page.text  # players do not log here
        assert f'action="/matches/{match}/call"' in page.text  # but they may call a judge
        fields = {
            "csrf": form_of(http.get("/login").text)["csrf"],
            "version": str(version_of(db, match)),
            "as": "A",
            "token": a_token,
            "entry": "e1",
        }
        assert http.post(f"/matches/{match}/act", data={**fields, "line": "A end_turn"}).status_code == 403
        # B's link cannot act, and A's token does not open B's seat.
        assert http.post(f"/matches/{match}/act", data={**fields, "as": "B", "line": "A end_turn"}).status_code in (
            401,
            403,
        )
        assert (
            http.post(
                f"/matches/{match}/act", data={**fields, "as": "B", "token": b_token, "line": "A end_turn"}
            ).status_code
            == 403
        )
    assert version_of(db, match) == 1


def test_players_of_an_event_that_allows_it_log_their_own_decisions_only(db: str, tmp_path: Path) -> None:
    event = referee(db, "event", "new", "Open Cup", "--players-log").strip().splitlines()[0]
    for name, deck in (("Alice", "vanilla-a"), ("Bob", "vanilla-b")):
        referee(
            db, "event", "register", event, "--player", name, "--deck", str(Path(DECKS[1][2:]).parent / f"{deck}.yaml")
        )
    referee(db, "event", "round", event, "--round", "1")
    match = f"{event}.r1.t1"
    with MatchStore(db, read_only=True) as store:
        opener = store.load(match)[0]
    from referee.rules.harem_master import current_decision

    first = current_decision(opener).player
    other = "B" if first == "A" else "A"
    with app_for(db) as http:
        own = http.get(f"/matches/{match}?as={first}&token={tokens.player_token(KEY, match, first)}")
        assert "data-console" in own.text and all(line.startswith(first + " ") for line in actions(own.text))
        fields = form_of(own.text)
        line = actions(own.text)[0]
        done = http.post(f"/matches/{match}/act", data={**fields, "line": line})
        assert done.headers["x-outcome"] == "logged", done.text[-3000:]
        assert records_of(db, match)[-1].by == f"player {first}"
        # The other player cannot log the first player's decision, nor see their hand.
        theirs = http.get(f"/matches/{match}?as={other}&token={tokens.player_token(KEY, match, other)}")
        fields = form_of(theirs.text)
        now = version_of(db, match)
        from referee.rules.harem_master import legal_actions
        from referee.rules.harem_master.notation import action_line, describe_action

        with MatchStore(db, read_only=True) as store:
            state = store.load(match)[0]
        lines = [action_line(describe_action(state, a)) for a in legal_actions(state)]
        mine = [x for x in lines if not x.startswith(other + " ")]
        if mine:
            refused = http.post(f"/matches/{match}/act", data={**fields, "version": str(now), "line": mine[0]})
            assert refused.status_code == 403 and version_of(db, match) == now


def test_the_judge_signs_in_with_basic_or_the_form_and_wrong_passwords_are_limited(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    with app_for(db) as http:
        assert http.get(f"/matches/{match}?as=judge").status_code == 401
        assert http.get(f"/matches/{match}?as=judge", headers=judge_auth()).status_code == 200
        # /login: the sign-in form; ?basic=1 the browser's own box (HTTP Basic),
        # and with the password, back to the page.
        form = http.get(f"/login?next=/matches/{match}")
        assert form.status_code == 200 and 'name="password"' in form.text
        challenge = http.get(f"/login?next=/matches/{match}&basic=1")
        assert challenge.status_code == 401 and challenge.headers["www-authenticate"].startswith("Basic")
        back = http.get(f"/login?next=/matches/{match}", headers=judge_auth(), follow_redirects=False)
        assert back.status_code == 303 and back.headers["location"] == f"/matches/{match}"
        http.cookies.clear()
        csrf = form_of(http.get("/login").text)["csrf"]
        assert http.post("/login", data={"csrf": csrf, "password": "nope"}).status_code == 401
        signed = http.post(
            "/login", data={"csrf": csrf, "password": PASSWORD, "next": f"/matches/{match}"}, follow_redirects=False
        )
        assert signed.status_code == 303 and signed.headers["location"] == f"/matches/{match}"
        cookie = signed.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert http.get(f"/matches/{match}?as=judge").status_code == 200
        # A sign-in form without the CSRF token is refused too.
        assert http.post("/login", data={"password": PASSWORD}).status_code == 403
    with app_for(db) as http:  # another server of the store: the wrong "nope" above counts here too
        csrf = form_of(http.get("/login").text)["csrf"]
        codes = [http.post("/login", data={"csrf": csrf, "password": f"guess {i}"}).status_code for i in range(8)]
        assert codes[:4] == [401] * 4 and set(codes[4:]) == {429}
        # Even the right password waits now (the limit is per address), and Basic too.
        assert http.post("/login", data={"csrf": csrf, "password": PASSWORD}).status_code == 429
        assert http.get(f"/matches/{match}?as=judge", headers=judge_auth("wrong")).status_code == 429


def test_the_limit_counts_per_client_and_overall_in_a_window() -> None:
    from referee.web.auth import Attempts

    now = [0.0]
    limit = Attempts(per_client=2, overall=3, window=60, clock=lambda: now[0])
    limit.failed("a")
    limit.failed("a")
    assert limit.wait("a") > 0 and limit.wait("b") == 0
    limit.failed("b")
    assert limit.wait("c") > 0  # three in all: everyone waits
    now[0] = 61.0
    assert limit.wait("a") == 0 and limit.wait("c") == 0


def test_the_board_answers_only_its_own_host_names(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    with app_for(db, protect=False) as http:
        assert http.get(f"/matches/{match}").status_code == 200
        rebound = http.get(f"/matches/{match}", headers={"Host": "attacker.example"})
        assert rebound.status_code == 400 and "Queen Regent" not in rebound.text


def test_several_servers_share_sign_ins_through_the_session_key(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    with app_for(db) as one, app_for(db) as two:
        csrf = form_of(one.get("/login").text)["csrf"]
        one.post("/login", data={"csrf": csrf, "password": PASSWORD})
        two.cookies.update(one.cookies)
        assert two.get(f"/matches/{match}?as=judge").status_code == 200
        # A form shown by one server is accepted by the other (the CSRF token is in the shared session).
        fields = form_of(one.get(f"/matches/{match}").text)
        done = two.post(f"/matches/{match}/act", data={**fields, "line": "A end_turn"})
        assert done.headers["x-outcome"] == "logged"


def test_a_judge_starts_a_match_from_a_pasted_position(db: str) -> None:
    referee(db, "new", *DECKS, "--seed", "1")  # the store exists
    with app_for(db) as http:
        assert http.get("/new").status_code == 401
        page = http.get("/new", headers=judge_auth())
        csrf = form_of(page.text)["csrf"]
        bad = http.post("/new", headers=judge_auth(), data={"csrf": csrf, "scenario": "name: x\nrules: []\n"})
        assert bad.status_code == 400 and "the pasted position" in unescape(bad.text)
        made = http.post(
            "/new",
            headers=judge_auth(),
            data={"csrf": csrf, "scenario": HIDDEN_HANDS, "title": "Disputed"},
            follow_redirects=False,
        )
        assert made.status_code == 303
        match = made.headers["location"].rsplit("/", 1)[1]
        board = http.get(f"/matches/{match}", headers=judge_auth())
        assert "data-console" in board.text and "A end_turn" in actions(board.text)


def test_the_event_page_opens_its_tables_to_log_and_flags_judge_calls(db: str) -> None:
    event = referee(db, "event", "new", "Paper Cup", "--deal", "table").strip().splitlines()[0]
    for name, deck in (("Alice", "vanilla-a"), ("Bob", "vanilla-b")):
        referee(
            db, "event", "register", event, "--player", name, "--deck", str(Path(DECKS[1][2:]).parent / f"{deck}.yaml")
        )
    referee(db, "event", "round", event, "--round", "1")
    match = f"{event}.r1.t1"
    with app_for(db) as http:
        public = http.get(f"/events/{event}")
        assert "data-log-table" not in public.text
        keeper(http, event)
        page = http.get(f"/events/{event}")
        assert f'data-log-table="{match}"' in page.text
        table = http.get(f"/matches/{match}")
        assert "data-console" in table.text and "/call" in table.text
        fields = form_of(table.text)
        called = http.post(f"/matches/{match}/call", data={**fields, "reason": "stack count"})
        assert called.headers[
            "x-outcome"
        ] == "logged" and "JUDGE CALLED by the scorekeeper Sam: stack count" in unescape(called.text)
        assert "data-judge-called" in http.get(f"/events/{event}/tables").text
        # A scorekeeper of this event logs no other event's tables.
        other = http.get(f"/matches/{match}".replace(event, "e-00000000"))
        assert other.status_code == 404


def test_card_text_is_shown_for_the_cards_the_viewer_may_read_only(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    a_token = tokens.player_token(KEY, match, "A")
    with app_for(db) as http:
        a_page = http.get(f"/matches/{match}?as=A&token={a_token}").text
        judge = http.get(f"/matches/{match}", headers=judge_auth()).text
    texts = lambda html: set(re.findall(r'data-text-of="([^"]*)"', html))  # noqa: E731
    assert {"Queen Regent", "War Council", "Bold Squire", "Helman Ranger"} <= texts(a_page)
    assert not {"Master Thief", "Smoke Bomb"} & texts(a_page)
    assert {"Master Thief", "Smoke Bomb"} <= texts(judge)


def test_the_health_of_the_store_and_the_watchers_alarm(db: str, tmp_path: Path) -> None:
    import asyncio

    from referee.web.live import Watcher

    hidden_hands(db, tmp_path)
    with app_for(db) as http:
        assert http.get("/health").json() == {"store": "ok"}

    class Dead:
        def max_notification_id(self) -> int:
            raise OSError("connection refused")

    watcher = Watcher(Dead(), interval=0.01)
    watch = watcher.subscribe("m-1")

    async def down_then_up() -> list[dict]:
        task = asyncio.create_task(watcher.run())
        try:
            heard = [await asyncio.wait_for(watch.queue.get(), 5)]
            watcher.recorder = type("Alive", (), {"max_notification_id": lambda self: 0})()
            heard.append(await asyncio.wait_for(watch.queue.get(), 5))
            return heard
        finally:
            task.cancel()

    # In a thread of its own: a browser test of the same session may hold this thread's loop.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        down, up = pool.submit(asyncio.run, down_then_up()).result()
    assert down["store"] == "down" and "message" in down
    assert up == {"store": "ok"} and watcher.health() == {"store": "ok"}


def test_the_console_bench_runs_its_figures_on_tiny_sizes(tmp_path: Path) -> None:
    """`referee bench --console` end to end on a small match (the bench's
    numbers are never asserted: tests do not time anything)."""
    from bench.console import decision_bench, percentile

    report = decision_bench(str(tmp_path), posts=3, act_runs=1, min_events=300)
    names = [f.name for f in report.figures]
    assert "board p95 / act median" in names and all(f.value > 0 for f in report.figures)
    assert report.info["console"]["match"]["after"] > report.info["console"]["match"]["events"]  # it logged
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.0 and percentile([1.0] * 19 + [9.0], 95) == 1.0


def test_the_controls_place_each_card_where_the_state_says_it_is() -> None:
    """``zones_of`` (all cards at once, for lighting them on the table) agrees
    with ``GameState.where`` at every 25th position of a self-play game with abilities."""
    from projections.harem_master.state import evolve, initial_state
    from referee.rules.harem_master.board import zones_of
    from referee.rules.harem_master.pool import bundled_pool
    from referee.simulate import decks_for, play_game

    game = play_game(5, decks_for(5, bundled_pool(), None))
    state = initial_state()
    checked = 0
    for i, event in enumerate(game.events):
        state = evolve(state, event)
        if i % 25 == 0:
            where = zones_of(state)
            assert all((state.where(c) or "") == where.get(c, "") for c in state.cards)
            checked += 1
    assert checked > 10
