"""The judges' board (`referee serve`) through its HTTP interface, without a
browser: each viewer's page, the timeline positions, the rewind preview, who
may see what, the live watcher, and the player links of `referee new`.
The browser tests (tests/browser/) drive the same pages in chromium."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from projections.harem_master.views import state_view
from referee import corrections
from referee.cli import cli
from referee.store import MatchStore
from referee.web import tokens
from referee.web.app import Settings, create_app
from referee.web.board import LOG_BEFORE
from referee.web.live import Watcher

ROOT = Path(__file__).resolve().parent.parent
# The vanilla sample decks: these tests script actions with their cards.
DECKS = [
    "--deck",
    f"A={ROOT / 'scenarios/decks/vanilla-a.yaml'}",
    "--deck",
    f"B={ROOT / 'scenarios/decks/vanilla-b.yaml'}",
]
PASSWORD = "judge-pw-1"

# Two hands whose cards are nowhere else on the table: any of these names in
# a page means that page shows that hand.
HIDDEN_HANDS = """
name: Hidden hands on both sides
rules: ["215.3"]
setup:
  turn: 3
  active: A
  players:
    A:
      hand: [Queen Regent, War Council]
      field: [Bold Squire]
      action_stack: 3
      castle: 20
    B:
      hand: [Master Thief, Smoke Bomb]
      field: [Helman Ranger]
      castle: 20
"""
A_HAND = ("Queen Regent", "War Council")
B_HAND = ("Master Thief", "Smoke Bomb")


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'board.db'}"


def referee(db: str, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--db", db])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def new_hidden_hands(db: str, tmp_path: Path) -> dict:
    position = tmp_path / "hidden.yaml"
    position.write_text(HIDDEN_HANDS)
    return json.loads(referee(db, "new", "--position", str(position), "--title", "Table 7", "--json"))


def both_openings_chosen(db: str, seed: int) -> str:
    """A new match from the sample decks, past both 101.1 choices."""
    mid = json.loads(referee(db, "new", *DECKS, "--seed", str(seed), "--json"))["match"]
    referee(db, "act", mid, "A", "choose_opening", "Little Page")
    referee(db, "act", mid, "B", "choose_opening", "Stable Boy")
    return mid


def client(db: str, *, protect: bool = False, store: MatchStore | None = None) -> TestClient:
    key = tokens.load_key(db.removeprefix("sqlite:///"))
    settings = Settings(db, protect=protect, judge_password=PASSWORD if protect else None, token_key=key)
    return TestClient(create_app(settings, store))


def judge_auth(password: str = PASSWORD) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"judge:{password}".encode()).decode()}


def text_of(html: str) -> str:
    """The page without its tags, for sentences split by markup."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# --- the match page per viewer ---------------------------------------------------------


def test_each_viewer_sees_exactly_the_hands_rule_215_allows(db: str, tmp_path: Path) -> None:
    match = new_hidden_hands(db, tmp_path)["match"]
    with client(db) as http:
        pages = {v: http.get(f"/matches/{match}?as={v}") for v in ("judge", "A", "B", "public")}
    assert all(p.status_code == 200 for p in pages.values())
    html = {v: p.text for v, p in pages.items()}
    for name in A_HAND + B_HAND:
        assert name in html["judge"]
    for name in A_HAND:
        assert name in html["A"] and name not in html["B"] and name not in html["public"]
    for name in B_HAND:
        assert name in html["B"] and name not in html["A"] and name not in html["public"]
    # The hidden hand is drawn as card backs with its count.
    assert "2 face down" in html["B"] and "2 face down" in html["public"]


def test_the_legal_actions_go_to_the_judge_and_the_deciding_player_only(db: str, tmp_path: Path) -> None:
    match = new_hidden_hands(db, tmp_path)["match"]
    with client(db) as http:
        judge_html = http.get(f"/matches/{match}").text
        a_html = http.get(f"/matches/{match}?as=A").text
        b_html = http.get(f"/matches/{match}?as=B").text
    judge, a, b = text_of(judge_html), text_of(a_html), text_of(b_html)
    for page in (judge, a, b):
        assert "A must take an action or end the turn (306)" in page
    # Each legal line is a control carrying it (spec: console.md).
    assert 'data-action="A play_event &#34;War Council&#34; (cost 2)"' in judge_html
    assert 'data-action="A play_event &#34;War Council&#34; (cost 2)"' in a_html
    assert "legal actions are shown to A and to the judge" in b and "play_event" not in b_html


def test_the_board_is_the_projections_view_at_every_position(db: str) -> None:
    mid = json.loads(referee(db, "new", *DECKS, "--seed", "3", "--json"))["match"]
    referee(db, "act", mid, "A", "choose_opening", "Little Page")
    with MatchStore(db) as store:
        version = store.load(mid)[1]
        states = [store.state_at(mid, n) for n in range(version + 1)]
    with client(db) as http:
        for n, state in enumerate(states):
            page = http.get(f"/matches/{mid}?at={n}&as=A")
            assert page.status_code == 200
            assert f'data-at="{n}" data-version="{version}"' in page.text
            view = state_view(state, "A")
            for zone, shown in view["zones"].items():
                if zone.endswith(".field"):
                    continue
                pile = zone.split(".")[1]
                section = page.text.split(f'data-player="{zone[0]}"')[1]
                assert re.search(
                    rf'data-pile="{pile}">\s*<div class="pile-head"><span class="pile-name">[^<]*</span> '
                    rf'<span class="count">{shown["count"]}</span>',
                    section,
                ), (n, zone)
        assert http.get(f"/matches/{mid}?at={version + 1}").status_code == 404
        assert http.get(f"/matches/{mid}?at=-1").status_code == 400
        assert http.get(f"/matches/{mid}?as=a").status_code == 400
        assert http.get("/matches/m-00000000").status_code == 404
        # No position: the latest event, and the page follows the match live.
        assert 'data-live="yes"' in http.get(f"/matches/{mid}").text
        assert 'data-live="no"' in http.get(f"/matches/{mid}?at=1").text


def test_the_log_cites_rules_strikes_retracted_events_and_flags_violations(db: str, tmp_path: Path) -> None:
    from tests.test_cli_matches import SECOND_CHARACTER

    position = tmp_path / "second.yaml"
    position.write_text(SECOND_CHARACTER)
    mid = referee(db, "new", "--position", str(position)).strip()
    referee(db, "act", mid, "A", "play_character", "Iron Knight")
    referee(db, "act", mid, "A", "play_character", "Bold Squire")  # record mode: a 306.1a violation
    with client(db) as http:
        before = http.get(f"/matches/{mid}").text
    assert "OPEN VIOLATION (306.1a)" in before
    assert "OPEN VIOLATION (306.1a) at event 7" in before
    assert "cannot be played. A judge must rule" in before and ".. A judge" not in before
    flagged = re.findall(
        r'<li class="row[^"]* violation" data-position="(\d+)">\s*<a[^>]*>\d+</a>\s*'
        r'<span class="rule">([^<]+)</span>',
        before,
    )
    assert flagged == [("7", "306.1a")]
    with MatchStore(db) as store:
        to = corrections.position_before_action(store.events(mid), 2)
    referee(db, "rewind", mid, "--to", str(to), "--rule", "410.1", "--reason", "second character")
    with client(db) as http:
        after = http.get(f"/matches/{mid}").text
        full = http.get(f"/matches/{mid}/log").text
    assert "OPEN VIOLATION" not in after
    struck = re.findall(r'<li class="row retracted[^"]*" data-position="(\d+)"', after)
    with MatchStore(db) as store:
        from projections.lineage import retracted_positions

        expected = sorted(retracted_positions(store.events(mid)))
    assert [int(p) for p in struck] == expected and expected
    assert full.count("<s>") == len(expected)
    assert '<span class="rule">410.1</span>' in after


def test_the_log_window_is_the_transcript_of_the_viewer(db: str) -> None:
    """The page's rows are `referee log --json --as VIEWER` rows around the position."""
    from projections.harem_master.transcript import transcript

    mid = both_openings_chosen(db, 5)
    with MatchStore(db) as store:
        rows = transcript(store.events(mid), "B")
    at = len(rows) - 1
    with client(db) as http:
        page = http.get(f"/matches/{mid}?at={at}&as=B").text
    for row in rows[max(0, at - LOG_BEFORE) :]:
        assert f'data-position="{row["position"]}"' in page
        assert row["text"] in unescape(page)


# --- extensibility: whatever the view carries is shown, never computed -----------------


def test_extra_view_keys_explanations_and_unknown_cards_are_rendered_as_given(db: str, tmp_path: Path) -> None:
    match = new_hidden_hands(db, tmp_path)["match"]
    app = create_app(Settings(db))
    page = app.state.board.reader.page(match, None, "judge")
    app.state.board.store.close()
    view = page["view"]
    view["characters"][0]["explain"] = {"physical": "4 = 2 printed +2 Fencing Master until end of turn"}
    view["agenda"] = [{"use": "Fencing Master", "cost": 2}]
    view["zones"]["B.hand"]["cards"] = ["?", "Smoke Bomb"]
    html = app.state.templates.get_template("harem-master/board.html").render(
        {**page, "view": view, "token": None, "judge": True, "request": None}
    )
    assert "4 = 2 printed +2 Fencing Master until end of turn" in html
    assert 'class="k">agenda</span>' in html and "Fencing Master" in html
    assert '<span class="card unknown" title="a card nobody has identified yet">?</span>' in html


# --- the rewind preview ------------------------------------------------------------------


def test_the_rewind_preview_is_the_dry_run_and_changes_nothing(db: str) -> None:
    mid = both_openings_chosen(db, 7)
    with MatchStore(db) as store:
        log = store.events(mid)
        version = len(log)
    expected = corrections.impact(log, 1)
    with client(db) as http:
        preview = http.get(f"/matches/{mid}/rewind?to=1")
        refused = http.get(f"/matches/{mid}/rewind?to={version + 5}")
        assert http.get(f"/matches/{mid}/rewind").status_code == 400
    assert preview.status_code == 200
    assert f"It would undo <b>{len(expected)}</b> events" in preview.text
    positions = [int(p) for p in re.findall(r'<span class="pos">(\d+)</span>', preview.text)]
    assert positions == [r["position"] for r in expected]
    assert preview.text.count("revealed:") == sum(r["reveals"] for r in expected) > 0
    assert "Not possible (410" in refused.text
    with MatchStore(db) as store:
        assert store.load(mid)[1] == version


# --- who may see what ----------------------------------------------------------------------


def test_a_protected_board_asks_for_the_password_and_the_player_tokens(db: str, tmp_path: Path) -> None:
    made = new_hidden_hands(db, tmp_path)
    match, links = made["match"], made["links"]
    with client(db, protect=True) as http:
        judge = http.get(f"/matches/{match}?as=judge")
        assert judge.status_code == 401 and judge.headers["www-authenticate"].startswith("Basic")
        assert A_HAND[0] not in judge.text
        assert http.get(f"/matches/{match}?as=judge", headers=judge_auth("wrong")).status_code == 401
        assert http.get(f"/matches/{match}?as=judge", headers=judge_auth()).status_code == 200
        # Without `as`, a protected board shows the public view (to a browser
        # that has not signed in: the judge's session is left behind).
        http.cookies.clear()
        default = http.get(f"/matches/{match}")
        assert default.status_code == 200 and "as <b>public</b>" in default.text
        assert all(name not in default.text for name in A_HAND + B_HAND)
        # A player's link opens that player's view and no other.
        a_token = links["A"].split("token=")[1]
        a_page = http.get(links["A"])
        assert a_page.status_code == 200 and A_HAND[0] in a_page.text and B_HAND[0] not in a_page.text
        assert f"token={a_token}" in a_page.text  # the timeline's links keep it
        assert http.get(f"/matches/{match}?as=B&token={a_token}").status_code == 403
        assert http.get(f"/matches/{match}?as=A").status_code == 403
        assert http.get(f"/matches/{match}/board?as=B&token={a_token}").status_code == 403
        assert http.get(f"/matches/{match}/log?as=B&token={a_token}").status_code == 403
        assert http.get(f"/matches/{match}/log?as=judge").status_code == 401
        assert http.get(f"/matches/{match}?as=B", headers=judge_auth()).status_code == 200
        # The rewind preview is the judge's.
        http.cookies.clear()
        assert http.get(f"/matches/{match}/rewind?to=1").status_code == 401
        assert http.get(f"/matches/{match}/rewind?to=1", headers=judge_auth()).status_code == 200
        # A's token is for this match only.
        http.cookies.clear()
        other = new_hidden_hands(db, tmp_path)["match"]
        assert http.get(f"/matches/{other}?as=A&token={a_token}").status_code == 403
        # The tables page is public and names no hidden card.
        tables = http.get("/")
        assert tables.status_code == 200 and "Table 7" in tables.text
        assert all(name not in tables.text for name in A_HAND + B_HAND)
        assert "sqlite:///" not in tables.text  # a protected board does not name its store


def test_an_open_local_board_needs_no_password(db: str, tmp_path: Path) -> None:
    match = new_hidden_hands(db, tmp_path)["match"]
    with client(db) as http:
        assert http.get(f"/matches/{match}?as=judge").status_code == 200
        assert http.get(f"/matches/{match}?as=B").status_code == 200
        assert http.get(f"/matches/{match}/rewind?to=1").status_code == 200


def test_pages_forbid_caching_framing_and_referrers(db: str, tmp_path: Path) -> None:
    match = new_hidden_hands(db, tmp_path)["match"]
    with client(db) as http:
        page = http.get(f"/matches/{match}?as=A")
        static = http.get("/static/board.js")
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["x-frame-options"] == "DENY"
    assert "script-src" not in page.headers["content-security-policy"]  # default-src 'self': no inline script
    assert "<script>" not in page.text and " style=" not in page.text
    assert static.status_code == 200 and "cache-control" not in static.headers


def test_no_page_shows_the_database_password(postgres_url, tmp_path: Path) -> None:
    import uuid

    import psycopg

    base = postgres_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    url = f"{base}?schema={schema}"
    password = psycopg.conninfo.conninfo_to_dict(base).get("password")
    assert password, "the test server's URL has a password"
    try:
        position = tmp_path / "hidden.yaml"
        position.write_text(HIDDEN_HANDS)
        match = json.loads(referee(url, "new", "--position", str(position), "--json"))["match"]
        with client(url) as http:
            pages = [
                http.get(p)
                for p in (
                    "/",
                    "/tables",
                    f"/matches/{match}",
                    f"/matches/{match}/log",
                    f"/matches/{match}/rewind?to=1",
                    "/matches/m-00000000",
                    f"/matches/{match}?at=99",
                )
            ]
        assert [p.status_code for p in pages] == [200, 200, 200, 200, 200, 404, 404]
        # The test server's password may be an everyday word ("referee"), so
        # look for it where a URL would carry it.
        for page in pages:
            assert f":{password}@" not in page.text and base not in page.text
        assert ":***@" in pages[0].text  # the store is named, password masked
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


# --- player tokens -------------------------------------------------------------------------


def test_player_tokens_are_derived_per_match_and_player(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(tokens.KEY_ENV, raising=False)
    path = str(tmp_path / "referee.db")
    assert tokens.load_key(path) is None  # reading never makes a key
    key = tokens.load_key(path, create=True)
    assert key and tokens.load_key(path) == key
    assert stat.S_IMODE(os.stat(path + ".key").st_mode) == 0o600
    a = tokens.player_token(key, "m-1", "A")
    assert len(a) == 20 and a == tokens.player_token(key, "m-1", "A")
    assert (
        len(
            {
                a,
                tokens.player_token(key, "m-1", "B"),
                tokens.player_token(key, "m-2", "A"),
                tokens.player_token(b"another key", "m-1", "A"),
            }
        )
        == 4
    )
    assert tokens.check_token(key, "m-1", "A", a)
    assert not tokens.check_token(key, "m-1", "B", a)
    assert not tokens.check_token(key, "m-1", "A", None) and not tokens.check_token(None, "m-1", "A", a)
    monkeypatch.setenv(tokens.KEY_ENV, "shared by every station")
    assert tokens.load_key(path) == b"shared by every station"
    assert tokens.load_key(None) == b"shared by every station"


def test_new_prints_each_players_link_and_keeps_no_secret_in_the_log(db: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(tokens.KEY_ENV, raising=False)
    result = CliRunner().invoke(cli, ["new", *DECKS, "--seed", "1", "--db", db])
    assert result.exit_code == 0
    mid = result.stdout.strip()  # standard output is still the id alone
    links = re.findall(r"^  ([AB]): (/matches/\S+)$", result.stderr, re.M)
    assert [p for p, _ in links] == ["A", "B"]
    key = tokens.load_key(db.removeprefix("sqlite:///"))
    assert dict(links) == tokens.player_links(key, mid, ("A", "B"))
    with MatchStore(db) as store:
        stored = json.dumps([e.model_dump(mode="json") for e in store.events(mid)])
    for _, link in links:
        assert link.split("token=")[1] not in stored
    assert key.decode() not in stored


def test_serve_refuses_the_network_with_a_short_judge_password(db: str, monkeypatch) -> None:
    """(Without one, it makes one and prints it once: tests/test_hostile_board.py.)"""
    monkeypatch.setenv("REFEREE_JUDGE_PASSWORD", "x")
    result = CliRunner().invoke(cli, ["serve", "--db", db, "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "REFEREE_JUDGE_PASSWORD" in result.output and "at least 12 characters" in result.output


def test_serve_links_prints_the_player_links_for_this_server(db: str, tmp_path: Path) -> None:
    made = new_hidden_hands(db, tmp_path)
    out = referee(db, "serve", "--links", made["match"], "--port", "8123")
    assert out.splitlines() == [f"{p} ({p}): http://127.0.0.1:8123{made['links'][p]}" for p in ("A", "B")]


# --- the tables page and the live watcher -----------------------------------------------------


def test_the_tables_page_lists_every_match_with_status_violations_and_last_event(db: str, tmp_path: Path) -> None:
    from tests.test_cli_matches import SECOND_CHARACTER

    first = json.loads(
        referee(
            db,
            "new",
            *DECKS,
            "--seed",
            "1",
            "--name",
            "A=Alice",
            "--name",
            "B=Bob",
            "--title",
            "Round 1, table 1",
            "--json",
        )
    )["match"]
    position = tmp_path / "second.yaml"
    position.write_text(SECOND_CHARACTER)
    second = referee(db, "new", "--position", str(position), "--title", "Round 1, table 2").strip()
    referee(db, "act", second, "A", "play_character", "Iron Knight")
    referee(db, "act", second, "A", "play_character", "Bold Squire")
    with client(db) as http:
        page = http.get("/")
    rows = {m: text_of(row) for m, row in re.findall(r'<tr data-match="([^"]+)">(.*?)</tr>', page.text, re.S)}
    assert set(rows) == {first, second}
    assert "Round 1, table 1" in rows[first] and "Alice (A) v Bob (B)" in rows[first]
    assert "A must choose a cost-1 character" in rows[first] and "none" in rows[first]
    assert "1 open" in rows[second] and "306.1a" in rows[second]
    from projections.harem_master.transcript import transcript

    with MatchStore(db) as store:
        last = transcript(store.events(second), "public")[-1]
    assert f"{last['rule']} ruling:A10 {last['text']} {last['position']}" in rows[second]  # as anyone may read it
    assert "a card goes from the action-cost stack" in last["text"]


def test_the_watcher_reports_which_matches_other_stations_wrote(database) -> None:
    db = database.url
    mid = json.loads(referee(db, "new", *DECKS, "--seed", "1", "--json"))["match"]
    other = json.loads(referee(db, "new", *DECKS, "--seed", "2", "--json"))["match"]
    with database.open() as server:
        watcher = Watcher(server.application.recorder)
        assert watcher.poll() == {}  # the first poll takes its bearings
        assert watcher.poll() == {}
        referee(db, "act", mid, "A", "choose_opening", "Little Page")  # another process's store
        version = server.load(mid)[1]
        assert watcher.poll() == {mid: version}
        assert watcher.poll() == {}
        watch, everything = watcher.subscribe(mid), watcher.subscribe(None)
        watcher.publish({other: 9})
        assert watch.queue.empty() and everything.queue.get_nowait() == {"matches": {other: 9}}
        watcher.publish({mid: version})
        assert watch.queue.get_nowait() == {"match": mid, "version": version}
        watcher.unsubscribe(watch)
        watcher.publish({mid: version + 1})
        assert watch.queue.empty()


def test_the_board_bench_runs_every_figure_on_tiny_sizes(tmp_path: Path) -> None:
    from bench.figures import board_bench

    report = board_bench(str(tmp_path), runs=1, pages=2, min_events=400)
    names = [f.name for f in report.figures]
    assert names[2:] == [
        "long / short",
        "first page of the long match (log read once)",
        "first page of the short match",
        "live: a station's act to the page's stream",
    ]
    assert report.info["board"]["long_match"]["events"] >= 400
    assert all(f.value > 0 for f in report.figures)
    assert [f.target for f in report.figures if f.target] == ["<= 3", "<= 1000"]


def test_the_live_stream_of_an_unknown_match_is_a_404(db: str, tmp_path: Path) -> None:
    new_hidden_hands(db, tmp_path)
    with client(db) as http:
        response = http.get("/matches/m-00000000/live")
        assert response.status_code == 404
        assert http.app.state.board.watcher._watches == set()  # nobody left watching


def test_a_page_whose_first_read_stalls_still_hears_how_the_store_is(db: str, tmp_path: Path, monkeypatch) -> None:
    """The live stream's first read of its match stalls (the store going
    down as the page opens): the stream starts anyway after ``DOWN_AFTER``
    with the store's health, so the page can say what the watcher finds,
    and the version follows once the read answers. Before, the stream
    waited for the read and the page heard nothing at all."""
    import threading

    from referee.web import live

    match = new_hidden_hands(db, tmp_path)["match"]
    monkeypatch.setattr(live, "DOWN_AFTER", 0.2)
    heard = threading.Event()
    with client(db) as http:
        store = http.app.state.board.store
        load = store.load

        def stalled(key: str):
            if not heard.wait(30):  # released only once the page heard the store's health
                raise TimeoutError("the stream never started while the read stalled")
            return load(key)

        monkeypatch.setattr(store, "load", stalled)
        events = []
        with http.stream("GET", f"/matches/{match}/live") as stream:
            assert stream.status_code == 200
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))
                    heard.set()
                    if "version" in events[-1]:
                        break
        _, version = load(match)
        assert events == [{"store": "ok"}, {"version": version}]


def test_a_page_whose_first_read_fails_still_gets_its_stream(db: str, tmp_path: Path, monkeypatch) -> None:
    """The store fails as the live stream opens: the stream starts with the
    store's health, not an error status (a browser never reconnects an
    event stream that answered 500), so the page hears the watcher's "down"
    and "ok" like any open page."""
    from referee.store import StoreError

    match = new_hidden_hands(db, tmp_path)["match"]
    with client(db) as http:
        store = http.app.state.board.store

        def failing(key: str):
            raise StoreError("cannot use the store: connection refused")

        monkeypatch.setattr(store, "load", failing)
        with http.stream("GET", f"/matches/{match}/live") as stream:
            assert stream.status_code == 200
            first = next(json.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:"))
        assert first == {"store": "ok"}  # the watcher has not polled the failing store yet


def test_an_event_page_shows_standings_and_every_table(db: str, tmp_path: Path) -> None:
    """The tournament's page: the standings projection and each round's tables
    with links to their matches; the first page lists the event."""
    run = lambda *args: CliRunner().invoke(cli, [*args, "--db", db], catch_exceptions=False)  # noqa: E731
    made = run("event", "new", "Spring Cup", "--json")
    assert made.exit_code == 0, made.output
    event = json.loads(made.output)["event"]
    for name in ("Ann", "Bob", "Cid"):
        assert (
            run(
                "event", "register", event, "--player", name, "--deck", str(ROOT / "scenarios/decks/vanilla-a.yaml")
            ).exit_code
            == 0
        )
    paired = json.loads(run("event", "round", event, "--json").output)
    played = next(p for p in paired["pairings"] if p["match"])
    bye = next(p for p in paired["pairings"] if p["B"] is None)
    assert (
        run("event", "result", event, played["match"], "--winner", played["A"], "--judge", "Judge Kim").exit_code == 0
    )
    with client(db) as c:
        index = c.get("/")
        assert index.status_code == 200 and f'href="/events/{event}"' in index.text and "Spring Cup" in index.text
        page = c.get(f"/events/{event}")
        assert page.status_code == 200
        text = unescape(page.text)
        assert f'href="/matches/{played["match"]}"' in text
        assert f"<b>{played['A']} won</b> (entered by Judge Kim)" in text and f"{bye['A']} (bye)" in text
        ranks = re.findall(
            r'<tr data-player="([^"]+)"><td class="num">(\d+)</td><td[^>]*>[^<]+</td><td class="num"[^>]*>(\d+)</td>',
            text,
        )
        points = {player: int(p) for player, _, p in ranks}
        assert points == {played["A"]: 3, bye["A"]: 3, played["B"]: 0}
        # The live part (fetched again whenever a station writes) is the same tables.
        fragment = c.get(f"/events/{event}/tables")
        assert fragment.status_code == 200 and f'href="/matches/{played["match"]}"' in fragment.text
        assert 'data-fragment="/events/' + event + '/tables"' in text
        # A table still being played says who must act, and its last event.
        assert "Last event" in fragment.text
        missing = c.get("/events/e-00000000")
        assert missing.status_code == 404 and "no tournament" in missing.text
