"""The judges' board in a real browser (Debian's chromium, driven by Playwright)
against `referee serve` running as its own process: walking the timeline of a
stored match, a player's phone that never receives the opponent's hand, a live
update arriving from a CLI `act`, and a screenshot of the board kept in
test-artifacts/. Waits have generous timeouts; nothing here reads the clock."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from projections.harem_master.views import state_view
from referee.store import MatchStore
from tests.test_web import A_HAND, B_HAND, HIDDEN_HANDS

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "scenarios/records/complete-legal-game.yaml"
LIVE_WAIT = 10_000  # ms; the board updates within a second, the machine may be busy


def import_record(cli, db: str) -> str:
    accept = ("--accept-broken-chain", "--by", "Kim", "--reason", "the sample, typed by hand")
    return cli(db, "import", str(RECORD), "--name", "Sample record", *accept).strip()


def hidden_hands(cli, db: str, tmp_path: Path) -> dict:
    position = tmp_path / "hidden.yaml"
    position.write_text(HIDDEN_HANDS)
    return json.loads(cli(db, "new", "--position", str(position), "--title", "Table 7", "--json"))


def castle_counts(page) -> dict[str, str]:
    return {p: page.locator(f'.side-{p} [data-pile="castle"] .count').inner_text() for p in ("A", "B")}


def test_walking_the_timeline_with_keys_and_slider(page, serve, cli, store_url: str) -> None:
    match = import_record(cli, store_url)
    with MatchStore(store_url) as store:
        version = store.load(match)[1]
        views = {n: state_view(store.state_at(match, n), "judge") for n in (*range(0, 41), 60, 299, 300, version)}
    with serve(store_url) as base:
        page.goto(f"{base}matches/{match}?at=0&as=judge")
        board = page.locator("#board .position")
        expect(board).to_have_attribute("data-at", "0")
        # Every event of the first forty, one arrow key at a time.
        for n in range(1, 41):
            page.keyboard.press("ArrowRight")
            expect(board).to_have_attribute("data-at", str(n))
            expect(page).to_have_url(re.compile(rf"[?&]at={n}(&|$)"))
            assert castle_counts(page) == {p: str(views[n]["zones"][f"{p}.castle"]["count"]) for p in ("A", "B")}
            expect(page.locator("#at")).to_have_text(str(n))
        # Shift moves ten; the slider jumps anywhere; the URL always follows.
        page.keyboard.press("Shift+ArrowRight")
        page.keyboard.press("Shift+ArrowRight")
        expect(board).to_have_attribute("data-at", "60")
        page.locator("#slider").fill("300")
        expect(board).to_have_attribute("data-at", "300")
        expect(page).to_have_url(re.compile(r"[?&]at=300(&|$)"))
        assert castle_counts(page) == {p: str(views[300]["zones"][f"{p}.castle"]["count"]) for p in ("A", "B")}
        page.keyboard.press("ArrowLeft")
        expect(board).to_have_attribute("data-at", "299")
        # The current row of the log is the event on the timeline, its rule cited.
        expect(page.locator(".log .row.current .pos")).to_have_text("299")
        # Clicking an event number in the log moves there too.
        page.locator('.log .row[data-position="290"] a.pos').click()
        expect(board).to_have_attribute("data-at", "290")
        # End follows the match live (the URL drops the position); Home goes to the start.
        page.keyboard.press("End")
        expect(board).to_have_attribute("data-at", str(version))
        expect(board).to_have_attribute("data-live", "yes")
        expect(page).not_to_have_url(re.compile(r"[?&]at="))
        page.keyboard.press("Home")
        expect(board).to_have_attribute("data-at", "0")
        # The URL holds the position: opening it again shows the same moment.
        page.goto(f"{base}matches/{match}?at=300&as=judge")
        expect(board).to_have_attribute("data-at", "300")
        # Hovering a character's values shows how they were computed.
        values = page.locator(".character .values").first
        values.hover()
        expect(values.locator(".why")).to_be_visible()
        expect(values.locator(".why")).to_contain_text("at event 300")
        # The judge's rewind preview: what going back to an event would undo.
        page.locator('.log .row[data-position="290"] .preview-btn').click()
        expect(page.locator("#preview")).to_be_visible()
        expect(page.locator("#preview")).to_contain_text("Rewind preview: back to just after event 290")
    with MatchStore(store_url) as store:
        assert store.load(match)[1] == version  # nothing was written


def test_a_players_phone_never_receives_the_opponents_hand(page, serve, cli, store_url: str, tmp_path: Path) -> None:
    made = hidden_hands(cli, store_url, tmp_path)
    match, links = made["match"], made["links"]
    # A plays an event (it goes to the discard, face up) so there is a timeline to walk.
    cli(store_url, "act", match, "A", "play_event", "War Council")
    page.set_viewport_size({"width": 390, "height": 844})
    with serve(store_url, REFEREE_JUDGE_PASSWORD="a judge's secret") as base:
        page.goto(base + links["A"].lstrip("/"))
        board = page.locator("#board .position")
        expect(board).to_have_attribute("data-live", "yes")
        html = page.content()
        assert "Queen Regent" in html  # A's own hand
        assert not [name for name in B_HAND if name in html]
        # Walking back (each position a fragment from the server) leaks nothing either.
        for _ in range(3):
            page.keyboard.press("ArrowLeft")
            expect(board).to_have_attribute("data-live", "no")
            html = page.content()
            assert not [name for name in B_HAND if name in html]
        expect(page).to_have_url(re.compile(r"token="))  # the link stays A's
        # A's link does not open B's view, nor the judge's.
        token = links["A"].split("token=")[1]
        page.goto(f"{base}matches/{match}?as=B&token={token}")
        assert "403" in page.locator("h1").inner_text()
        assert not [name for name in A_HAND + B_HAND if name in page.content()]
        # (A browser would ask for the judge password here: fetch it as the page would.)
        response = page.request.get(f"{base}matches/{match}?as=judge&token={token}")
        assert response.status == 401 and response.headers["www-authenticate"].startswith("Basic")
        assert not [name for name in A_HAND + B_HAND if name in response.text()]


def test_a_live_update_arrives_from_a_cli_act(page, serve, cli, store_url: str, tmp_path: Path) -> None:
    match = hidden_hands(cli, store_url, tmp_path)["match"]
    cli(store_url, "act", match, "A", "play_event", "War Council")
    with MatchStore(store_url) as store:
        before = store.load(match)[1]
    with serve(store_url) as base:
        page.goto(f"{base}matches/{match}?as=judge")
        board = page.locator("#board .position")
        expect(board).to_have_attribute("data-at", str(before))
        page.evaluate("window.stillThisPage = true")  # gone if the page reloads
        looking_back = page.context.new_page()
        try:
            looking_back.goto(f"{base}matches/{match}?as=judge&at=1")
            expect(looking_back.locator("#board .position")).to_have_attribute("data-live", "no")
            # Another judge station acts, from the command line.
            cli(store_url, "act", match, "A", "end_turn")
            with MatchStore(store_url) as store:
                after = store.load(match)[1]
            assert after > before
            expect(board).to_have_attribute("data-at", str(after), timeout=LIVE_WAIT)
            expect(page.locator("#version")).to_have_text(str(after))
            expect(page.locator(".log .row.current")).to_have_attribute("data-position", str(after))
            expect(page.locator(".log")).to_contain_text("A: end turn.")
            assert page.evaluate("window.stillThisPage") is True
            # A page looking back stays where it is and learns the new length.
            expect(looking_back.locator("#version")).to_have_text(str(after), timeout=LIVE_WAIT)
            expect(looking_back.locator("#board .position")).to_have_attribute("data-at", "1")
        finally:
            looking_back.close()
        # The tables page follows too.
        page.goto(base)
        row = page.locator(f'tr[data-match="{match}"]')
        expect(row.locator("td.num")).to_have_text(str(after))
        cli(store_url, "note", match, "B called a judge about the stack count", "--by", "Kim")
        expect(row.locator("td.num")).to_have_text(str(after + 1), timeout=LIVE_WAIT)
        expect(row).to_contain_text("B called a judge about the stack count")


def test_a_screenshot_of_the_board_is_kept(page, serve, cli, store_url: str, artifacts: Path) -> None:
    match = import_record(cli, store_url)
    with serve(store_url) as base:
        # Event 421 of the sample game: A to act in the main phase, seven characters out.
        page.goto(f"{base}matches/{match}?at=421&as=judge")
        expect(page.locator("#board .position")).to_have_attribute("data-at", "421")
        expect(page.locator(".decision")).to_contain_text("must take an action or end the turn (306)")
        page.locator(".side-B .character .values").first.hover()
        shot = artifacts / "board.png"
        page.screenshot(path=str(shot))
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{base}matches/{match}?at=421&as=A")
        expect(page.locator("#board .position")).to_have_attribute("data-at", "421")
        phone = artifacts / "board-phone-A.png"
        page.screenshot(path=str(phone))
    for path in (shot, phone):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    width, height = int.from_bytes(shot.read_bytes()[16:20], "big"), int.from_bytes(shot.read_bytes()[20:24], "big")
    assert (width, height) == (1280, 900)


# A card chosen from A's hidden hand and put on A's castle: no page B or the
# public may open ever names it (rule 215), in the log line of the choice,
# the move that follows, or anywhere else.
HIDDEN_CHOICE = """
name: A card chosen from a hidden hand
rules: ["215.3"]
cards:
  - name: Stash
    type: event
    cost: 0
    text: "Put target card from your hand on top of your castle."
    abilities:
      - kind: use
        effects:
          - move: {what: {target: {zone: hand, owner: you}}, to: castle, position: top}
  - {name: Secret Weapon, type: item, cost: 1}
setup:
  turn: 3
  active: A
  players:
    A:
      hand: [Stash, Secret Weapon]
      field: [Bold Squire]
      castle: 20
    B:
      field: [Helman Ranger]
      castle: 20
"""


def test_a_card_chosen_from_a_hidden_hand_is_named_on_no_page_of_the_opponent(
    page, serve, cli, store_url: str, tmp_path: Path
) -> None:
    position = tmp_path / "choice.yaml"
    position.write_text(HIDDEN_CHOICE)
    made = json.loads(cli(store_url, "new", "--position", str(position), "--json"))
    match, links = made["match"], made["links"]
    cli(store_url, "act", match, "A", "play_event", "Stash", "--target", "Secret Weapon")
    judge_log = cli(store_url, "log", match)
    assert "targeting Secret Weapon" in judge_log and "moves Secret Weapon" in judge_log  # the judge knows it
    with serve(store_url, REFEREE_JUDGE_PASSWORD="a judge's secret") as base:
        for url in (base + links["B"].lstrip("/"), f"{base}matches/{match}?as=public"):
            page.goto(url)
            board = page.locator("#board .position")
            expect(board).to_have_attribute("data-live", "yes")
            assert "Secret Weapon" not in page.content()
            assert "targeting a card" in page.locator(".log").inner_text()
            for _ in range(3):  # back along the timeline, each position fetched from the server
                page.keyboard.press("ArrowLeft")
                expect(board).to_have_attribute("data-live", "no")
                assert "Secret Weapon" not in page.content()
            page.get_by_role("link", name="full log").first.click()
            expect(page.locator("ol.full-log")).to_be_visible()
            assert "Secret Weapon" not in page.content() and "Stash" in page.content()
