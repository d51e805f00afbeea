"""The record equals the table (spec: console.md, 6-10), through the board's
HTTP interface: the notice says in words what was logged; whoever logged the
last entry takes it back (an event of its own, kept with who made it), and
nobody else can, nor after anything else is logged; a judge rules on one
violation at a time; keys never end the game; name lists keep a stable order
and a search box; undos and single acceptances survive export, import and
audit. The browser tests (tests/browser/test_console_table.py) drive the
same pages in chromium at phone size."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import yaml

from events.kernel import ActionTaken, EntryUndone, ViolationsAccepted
from referee.store import MatchStore
from tests.test_console import actions, app_for, db, form_of, keeper, new_table_match, records_of, version_of
from tests.test_web import judge_auth, referee, text_of

__all__ = ["db"]  # the fixture, shared with tests.test_console

FRAGMENT = {"X-Requested-With": "referee-console"}


def post_line(http, match: str, line: str, page: str | None = None):
    fields = form_of(page if page is not None else http.get(f"/matches/{match}").text)
    fields.pop("undo", None)
    return http.post(f"/matches/{match}/act", data={**fields, "line": line}, headers=FRAGMENT)


def undo_form(html: str) -> dict[str, str]:
    """The undo control's form, as the page draws it (spec: console.md, 10)."""
    found = re.search(r'<form method="post" action="/matches/[^"]+/undo".*?</form>', html, re.S)
    assert found, "no undo control on the page"
    return {k: unescape(v) for k, v in re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', found[0])}


def logged_text(html: str) -> str:
    found = re.search(r"<span data-logged>(.*?)</span>", html, re.S)
    assert found, "no data-logged element"
    return unescape(found[1])


# --- say what was logged (8) -----------------------------------------------------------


def test_the_notice_is_the_sentence_of_what_was_logged_naming_player_action_and_card(db: str) -> None:
    mid = json.loads(
        referee(db, "new", "--deck", *_decks(), "--name", "A=Alice", "--name", "B=Bob", "--seed", "7", "--json")
    )["match"]
    with app_for(db) as http:
        keeper(http, mid)
        page = http.get(f"/matches/{mid}").text
        line = next(x for x in actions(page) if " choose_opening " in x)
        card = line.split(" ", 2)[2].strip('"')
        done = post_line(http, mid, line, page)
        assert done.headers["x-outcome"] == "logged"
        said = logged_text(done.text)
        assert said == f"Alice (A): choose opening {card} (101.1).", said
        assert "events recorded" not in done.text


# --- undo (10) -------------------------------------------------------------------------


def test_whoever_logged_the_last_entry_takes_it_back_and_the_store_keeps_both(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match, "Sam")
        page = http.get(f"/matches/{match}").text
        before = version_of(db, match)
        assert "data-undo" not in page  # the last entry was a terminal's, not Sam's
        done = post_line(http, match, 'A reveal "Kitchen Maid"', page)
        assert done.headers["x-outcome"] == "logged"
        assert "data-undo" in done.text and "A: reveal Kitchen Maid" in text_of(done.text)
        logged = version_of(db, match)
        undone = http.post(f"/matches/{match}/undo", data=undo_form(done.text), headers=FRAGMENT)
        assert undone.status_code == 200 and undone.headers["x-outcome"] == "undone", undone.text
        after = version_of(db, match)
        # The board before the entry, the version counting the undo (spec: console.md, 10).
        assert after == logged + 1 and f'data-version="{after}"' in undone.text
        assert 'data-action="A reveal &#34;Kitchen Maid&#34;"' in undone.text or 'A reveal "Kitchen Maid"' in actions(
            undone.text
        )
        assert f"back to event {before}" in text_of(undone.text)
        assert "data-undo" not in undone.text  # an undo is not itself taken back
    rows = records_of(db, match)
    entry, undo = rows[before:logged], rows[-1]
    assert isinstance(entry[0].event, ActionTaken) and entry[0].by == f"scorekeeper Sam of {match}"
    assert isinstance(undo.event, EntryUndone) and undo.by == f"scorekeeper Sam of {match}"
    assert undo.event.to == before and undo.event.by == undo.by and undo.entry != entry[0].entry
    with MatchStore(db, read_only=True) as store:
        state, _ = store.load(match)
        assert store.state_at(match, before).position == before
    log = json.loads(referee(db, "log", match, "--json"))["events"]
    assert [r["retracted"] for r in log if r["position"] > before][:-1] == [True] * (logged - before)
    assert "takes back their last entry" in log[-1]["text"]


def test_nobody_else_takes_an_entry_back_and_nothing_after_another_entry(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as sam, app_for(db) as kim:
        keeper(sam, match, "Sam")
        keeper(kim, match, "Kim")
        done = post_line(sam, match, 'A reveal "Kitchen Maid"')
        form = undo_form(done.text)
        # Kim sees no undo of Sam's entry, and posting Sam's is refused.
        assert "data-undo" not in kim.get(f"/matches/{match}").text
        kim_fields = form_of(kim.get(f"/matches/{match}").text)
        refused = kim.post(f"/matches/{match}/undo", data={**kim_fields, "undo": form["undo"]}, headers=FRAGMENT)
        assert refused.status_code == 403 and "Only whoever logged an entry may undo it" in text_of(refused.text)
        # Once anything else is logged, Sam's entry is not the last one: refused, nothing written.
        page = sam.get(f"/matches/{match}").text
        nxt = next(x for x in actions(page) if " reveal " in x)
        referee(db, "act", match, *_argv(nxt))
        moved = version_of(db, match)
        fields = form_of(sam.get(f"/matches/{match}").text)
        late = sam.post(f"/matches/{match}/undo", data={**fields, "undo": form["undo"]}, headers=FRAGMENT)
        assert late.status_code == 409 and "no longer the last one" in text_of(late.text)
        assert version_of(db, match) == moved
        # And the undo as first drawn is stale: the page had an older version.
        stale = sam.post(f"/matches/{match}/undo", data=form, headers=FRAGMENT)
        assert stale.status_code == 409 and stale.headers["x-outcome"] == "stale"
        assert version_of(db, match) == moved


def test_an_undo_needs_csrf_and_the_right_to_log(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match)
        done = post_line(http, match, 'A reveal "Kitchen Maid"')
        form = undo_form(done.text)
        before = version_of(db, match)
        no_csrf = http.post(f"/matches/{match}/undo", data={k: v for k, v in form.items() if k != "csrf"})
        assert no_csrf.status_code == 403
    with app_for(db) as stranger:
        page = stranger.get(f"/matches/{match}")
        fields = form_of(page.text)
        nobody = stranger.post(f"/matches/{match}/undo", data={**fields, "undo": form["undo"]})
        assert nobody.status_code == 403
    assert version_of(db, match) == before


# --- the judge rules on one violation at a time ---------------------------------------------


TWO_CHARACTERS = """
name: Three characters in hand, in record mode
rules: ["306.1a"]
setup:
  mode: record
  turn: 3
  active: A
  players:
    A: {hand: [Iron Knight, Bold Squire, Little Page], action_stack: 9, castle: 20}
    B: {castle: 20}
"""


def record_mode_match(db: str, tmp_path: Path) -> str:
    position = tmp_path / "record.yaml"
    position.write_text(TWO_CHARACTERS)
    return json.loads(referee(db, "new", "--position", str(position), "--json"))["match"]


def record(http, match: str, card: str, **headers: str):
    """What the table did, through the record form, confirmed where it breaks a rule."""
    fields = form_of(http.get(f"/matches/{match}", headers=headers).text)
    fields.pop("undo", None)
    data = {**fields, "player": "A", "do": "play_character", "card": card}
    first = http.post(f"/matches/{match}/act", data=data, headers={**FRAGMENT, **headers})
    if first.headers["x-outcome"] == "preview":
        assert version_of(http.db, match) == int(fields["version"])  # nothing before the confirmation
        first = http.post(f"/matches/{match}/act", data={**data, "confirm": "yes"}, headers={**FRAGMENT, **headers})
    assert first.headers["x-outcome"] == "logged", first.text
    return first


def test_a_judge_accepts_one_violation_from_its_banner_and_the_other_stays_open(db: str, tmp_path: Path) -> None:
    match = record_mode_match(db, tmp_path)
    with app_for(db) as http:
        http.db = db
        keeper(http, match)
        record(http, match, "Iron Knight")
        said = logged_text(record(http, match, "Bold Squire").text)
        assert "violation recorded (306.1a)" in said
        record(http, match, "Little Page")
    with app_for(db) as judge:
        page = judge.get(f"/matches/{match}", headers=judge_auth()).text
        banners = re.findall(r'id="violation-(\d+)"', page)
        assert len(banners) == 2
        first = int(banners[0])
        assert f'href="#violation-{first}"' in page and 'data-preview="' in page and "data-accept" in page
        fields = form_of(page)
        fields.pop("undo", None)
        done = judge.post(
            f"/matches/{match}/accept",
            data={**fields, "at": str(first), "reason": "both players agree"},
            headers={**FRAGMENT, **judge_auth()},
        )
        assert done.headers["x-outcome"] == "logged", done.text
        assert re.findall(r'id="violation-(\d+)"', done.text) == [banners[1]]
    last = records_of(db, match)[-1].event
    assert isinstance(last, ViolationsAccepted) and last.at == [first] and last.rules == ["306.1a"]
    log = json.loads(referee(db, "log", match, "--json"))["events"]
    assert f"lets 306.1a (recorded at event {first}) stand" in log[-1]["text"]


def test_an_undo_survives_export_and_import(db: str, tmp_path: Path) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match, "Sam")
        done = post_line(http, match, 'A reveal "Kitchen Maid"')
        http.post(f"/matches/{match}/undo", data=undo_form(done.text), headers=FRAGMENT)
        post_line(http, match, 'A reveal "Bold Squire"')
    exported = referee(db, "export", match)
    data = yaml.safe_load(exported)
    undo = [a for a in data["actions"] if a.get("do") == "undo"]
    by = f"scorekeeper Sam of {match}"
    assert undo == [{"judge": True, "do": "undo", "to": {"event": undo[0]["to"]["event"]}, "by": by}]
    record = tmp_path / "undo.yaml"
    record.write_text(exported)
    imported = referee(db, "import", str(record), "--json")  # the store that signed it
    twin = json.loads(imported)["match"]
    body = lambda text: text.split("\n", 1)[1]  # noqa: E731 - the first line names the match
    assert body(referee(db, "export", twin)) == body(exported)


# --- controls: keys, order, filters ----------------------------------------------------------


def test_keys_never_end_the_game_and_every_keyed_action_shows_its_number(db: str) -> None:
    match = new_table_match(db)
    with app_for(db) as http:
        keeper(http, match)
        page = http.get(f"/matches/{match}").text
    keyed = re.findall(r'data-action="([^"]*)"[^>]*data-key="(\d)"', page)
    assert keyed and [int(k) for _, k in keyed] == list(range(1, len(keyed) + 1))
    assert not [a for a, _ in keyed if re.search(r" (concede|propose_draw|accept_draw)$", unescape(a))]
    for _, k in keyed:
        assert f'<kbd class="key" aria-hidden="true">{k}</kbd>' in page


def test_a_reveal_lists_its_names_in_one_order_with_a_search_box(db: str) -> None:
    match = new_table_match(db)
    orders = []
    with app_for(db) as http:
        keeper(http, match)
        for _ in range(2):
            page = http.get(f"/matches/{match}").text
            names = [a for a in actions(page) if " reveal " in a]
            assert "data-filter" in page and len(names) > 6
            orders.append(names)
            assert names == sorted(names, key=lambda x: x.split(" ", 2)[2].strip('"').casefold())
            post_line(http, match, names[-1], page)
    # The second reveal (B's) lists B's names, in the same kind of order.
    assert orders[0] != orders[1]


def _decks() -> list[str]:
    from tests.test_web import DECKS

    return [DECKS[1], DECKS[2], DECKS[3]]


def _argv(line: str) -> list[str]:
    import shlex

    return shlex.split(re.sub(r" \(cost [^)]*\)$", "", line))


def test_a_void_table_refuses_the_console_as_it_refuses_act(db: str) -> None:
    """A judge re-paired the table (TP7): the board's console logs nothing on
    the void match and says why, as `referee act` does (issue 28)."""
    event = json.loads(referee(db, "event", "new", "Void Cup", "--json"))["event"]
    for n in ("Ann", "Bob", "Cid", "Dee", "Eve"):
        referee(db, "event", "register", event, "--player", n, "--deck", _decks()[0].split("=", 1)[1])
    paired = json.loads(referee(db, "event", "round", event, "--json"))["pairings"]
    bye = next(p for p in paired if p["B"] is None)
    table = next(p for p in paired if p["B"] is not None)
    referee(db, "event", "drop", event, table["B"], "--by", "Judge Kim", "--reason", "went home")
    referee(
        db, "event", "repair", event, str(table["table"]), "--a", table["A"], "--b", bye["A"],
        "--judge", "Judge Kim", "--reason", "dropped after pairing",
    )  # fmt: skip
    match = table["match"]
    with app_for(db) as http:
        page = http.get(f"/matches/{match}", headers=judge_auth()).text
        line = next(a for a in actions(page) if " choose_opening " in a)
        before = version_of(db, match)
        fields = form_of(page)
        fields.pop("undo", None)
        done = http.post(f"/matches/{match}/act", data={**fields, "line": line}, headers={**FRAGMENT, **judge_auth()})
        assert done.status_code == 422 and done.headers["x-outcome"] == "refused"
        said = text_of(done.text)
        assert "Refused (TP7)" in said and "void" in said and "Judge Kim" in said
    assert version_of(db, match) == before
