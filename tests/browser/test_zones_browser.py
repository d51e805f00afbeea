"""An SCP-TCG chapter-4 match on the board in a real browser (Debian's
chromium, Playwright) at phone size, against `referee serve` as its own
process: a judge signed in on a phone logs two instructions from the forms
the ruleset's ActionSpecs generate, sees a refusal with its rule, rewinds
citing 4, and a player's link never shows the cards in a sandbox (402.2).
Waits have generous timeouts; nothing here reads the clock."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from referee.store import MatchStore
from referee.web import tokens
from tests.browser.conftest import PHONE
from tests.test_web_rulesets import HIDDEN, POSITION, SHOWN

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "judge's passphrase"
LIVE = 10_000  # ms


def version(page) -> int:
    return int(page.locator("#board .position").get_attribute("data-version"))


def new_match(cli, store_url: str, tmp_path: Path) -> None:
    """Match s1 from the zones position."""
    position = tmp_path / "zones.yaml"
    position.write_text(POSITION.format(pool=ROOT / "scenarios/scp-tcg/pools/cards.yaml"))
    cli(store_url, "new", "--position", str(position), "--id", "s1")


def damage_form(board):
    """The damage instruction's form opened and filled: A deals 3 to B's Keter sandbox (402.5)."""
    damage = board.locator("details[data-do=damage]")
    damage.locator("summary").tap()
    form = damage.locator("form")
    form.locator("select[name=player]").select_option("A")
    form.locator("select[name=zone]").select_option("B.keter")
    form.locator("input[name=n]").fill("3")
    return form


def judge_on_a_phone(device, base: str):
    """Judge Kim signed in on a phone, at match s1's board."""
    judge = device(PHONE)
    judge.goto(f"{base}login?next=/matches/s1")
    judge.fill("input[name=password]", PASSWORD)
    judge.fill("input[name=name]", "Kim")
    judge.locator("form.signin-form button[type=submit]").tap()
    expect(judge).to_have_url(re.compile(r"/matches/s1"))
    return judge


def test_a_judge_logs_and_rewinds_an_scp_tcg_match_on_a_phone(
    serve, cli, device, store_url: str, tmp_path: Path, artifacts: Path
) -> None:
    new_match(cli, store_url, tmp_path)
    a_link = f"/matches/s1?as=A&token={tokens.player_token(tokens.load_key(store_url.removeprefix('sqlite:///')), 's1', 'A')}"
    with serve(store_url, REFEREE_JUDGE_PASSWORD=PASSWORD) as base:
        judge = judge_on_a_phone(device, base)
        board = judge.locator("#board")
        expect(board.locator('[data-zone="B.keter"] .count')).to_have_text("2")
        expect(board.locator(".decision .who")).to_contain_text("Either player must enter")
        # Nothing wider than the phone: the forms wrap.
        width = judge.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width

        # damage 3 to B's Keter sandbox (402.5), from its form.
        form = damage_form(board)
        before = version(judge)
        judge.screenshot(path=str(artifacts / "zones-phone-form.png"))
        form.locator("button[type=submit]").tap()
        expect(board.locator("[data-logged]")).to_be_visible(timeout=LIVE)
        expect(board.locator('[data-zone="B.keter"] .protection')).to_contain_text("9/12")
        damaged = version(judge)
        assert damaged == before + 2

        # 402.2: looking into a sandbox without a process saying so is refused, with its rule.
        look = board.locator("details[data-do=look]")
        look.locator("summary").tap()
        form = look.locator("form")
        form.locator("select[name=zone]").select_option("B.keter")
        form.locator("button[type=submit]").tap()
        expect(board.locator("[data-refusal]")).to_contain_text("Refused (402.2)", timeout=LIVE)
        assert version(judge) == damaged

        # The judge rewinds to before the damage, citing 4 (ruling:S13).
        judge.locator('.log .row[data-position="1"] .preview-btn').tap()
        preview = judge.locator("#preview")
        expect(preview).to_contain_text("back to just after event 1")
        expect(preview.locator("input[name=rule][value='4']")).to_be_checked()
        preview.locator("input[name=reason]").fill("no process dealt that damage")
        judge.screenshot(path=str(artifacts / "zones-phone-rewind.png"))
        preview.locator("[data-confirm]").tap()
        expect(board.locator('[data-zone="B.keter"] .protection')).to_contain_text("12/12", timeout=LIVE)
        expect(board.locator(".row.retracted").first).to_be_visible()

        # Every legal line is one button (spec: console.md): tapping it logs exactly that action.
        before = version(judge)
        line = board.locator('[data-action="A count zone=B.keter"]')
        line.scroll_into_view_if_needed()
        line.tap()
        expect(board.locator(".position")).to_have_attribute("data-version", str(before + 2), timeout=LIVE)
        expect(board.locator("[data-logged]")).to_contain_text("A: count")
        assert judge.evaluate("document.documentElement.scrollWidth") <= 390

        # Player A's link: A's own view, no sandbox card named, the public zones shown.
        player = device(PHONE)
        player.goto(base.rstrip("/") + a_link)
        expect(player.locator('#board [data-zone="B.keter"] .count')).to_have_text("2")
        text = player.locator("body").inner_text()
        for name in HIDDEN:
            assert name not in text
        for name in SHOWN:
            assert name in text
    with MatchStore(store_url, read_only=True) as store:
        records = store.records("s1")
    rewinds = [r for r in records if type(r.event).__name__ == "Rewound"]
    assert len(rewinds) == 1 and rewinds[0].event.rule == "4" and rewinds[0].by == "judge Kim"
    assert {r.by for r in records[1:]} == {"judge Kim"}


def test_a_live_board_fetched_before_a_form_answer_does_not_wipe_its_notice(
    serve, cli, device, store_url: str, tmp_path: Path
) -> None:
    """The race behind a flaky CI run, made to happen every time: a live
    fetch of the board is on its way when a form's answer ("Logged.") is put
    in place; the fetch then answers with the board from before. It must not
    take the board back nor wipe the notice."""
    new_match(cli, store_url, tmp_path)
    with serve(store_url, REFEREE_JUDGE_PASSWORD=PASSWORD) as base:
        judge = judge_on_a_phone(device, base)
        board = judge.locator("#board")
        expect(board.locator('[data-zone="B.keter"] .protection')).to_contain_text("12/12")
        held: list = []

        def hold(route) -> None:
            held.append(route)

        judge.route("**/matches/s1/board?*", hold)
        with judge.expect_request("**/matches/s1/board?*"):
            judge.locator("#golive").tap()  # a live fetch of the board, held on its way
        form = damage_form(board)
        form.locator("button[type=submit]").tap()
        expect(board.locator("[data-logged]")).to_be_visible(timeout=LIVE)
        assert held, "the live fetch was not held"
        fetched = judge.locator("#match").get_attribute("data-fetched") or "0"
        for route in held:
            route.continue_()
        judge.unroute("**/matches/s1/board?*", hold)
        judge.wait_for_function(
            f"() => Number(document.getElementById('match').dataset.fetched || 0) > {fetched}",
            timeout=LIVE,
        )
        expect(board.locator("[data-logged]")).to_be_visible()
        expect(board.locator('[data-zone="B.keter"] .protection')).to_contain_text("9/12")


THIRTEEN = ROOT / "tests" / "data" / "scp-tcg-13-cards.yaml"


def printed_lines(text: str) -> list[str]:
    """Each action `referee legal` prints (not its headings), as the console
    contract's LINE: without its number and its bracketed card ids."""
    return [re.sub(r" \[[A-Z]:\d+(?:,[A-Z]:\d+)*\]", "", line) for line in re.findall(r"(?m)^\s*\d+\. (.*)$", text)]


def test_every_legal_instruction_is_its_own_control_on_a_phone(
    serve, cli, device, store_url: str, artifacts: Path
) -> None:
    """13 cards, about 1,300 legal instructions: one control each, each
    carrying its own line (two face-down cards of A's Keter sandbox told
    apart by where they lie, never by a name), reachable without scrolling
    sideways on a phone; a filter narrows them, and tapping one logs exactly
    that instruction, on exactly that card."""
    cli(store_url, "new", "--position", str(THIRTEEN), "--id", "t13")
    legal = json.loads(cli(store_url, "legal", "t13", "--json"))["actions"]
    lines = printed_lines(cli(store_url, "legal", "t13"))
    assert len(legal) > 1_200 and len(lines) == len(legal) and len(set(lines)) == len(lines)
    with serve(store_url, REFEREE_JUDGE_PASSWORD=PASSWORD) as base:
        judge = device(PHONE)
        judge.goto(f"{base}login?next=/matches/t13")
        judge.fill("input[name=password]", PASSWORD)
        judge.fill("input[name=name]", "Kim")
        judge.locator("form.signin-form button[type=submit]").tap()
        expect(judge).to_have_url(re.compile(r"/matches/t13"))
        board = judge.locator("#board")
        controls = board.locator("section.lines [data-action]")
        expect(controls).to_have_count(len(legal))
        shown = controls.evaluate_all("els => els.map(e => e.dataset.action)")
        assert sorted(shown) == sorted(lines)
        # Each control's text is its whole line (what the row and heading say, for a screen reader).
        texts = controls.evaluate_all("els => els.map(e => e.textContent.replace(/\\s+/g, ' ').trim())")
        assert texts == shown
        assert judge.evaluate("document.documentElement.scrollWidth") <= 390

        # Two face-down cards of A's Keter sandbox: a row each, under where each lies.
        second = "B move card=face-down (A.keter #2) to=A.decommissioned"
        first = "B move card=face-down (A.keter #1) to=A.decommissioned"
        assert second in shown and first in shown
        part = board.locator(
            'section.lines fieldset[data-group=move] .part[data-subject="card=face-down (A.keter #2)"]'
        )
        expect(part.locator("h4.subject")).to_contain_text("card=face-down (A.keter #2)")
        # The filter leaves only the controls whose line holds the words typed (spec: console.md, 9).
        search = board.locator("section.lines input[data-filter]")
        search.fill("KETER #2")
        visible = board.locator("section.lines [data-action]:visible")
        assert 0 < visible.count() < len(legal)
        assert all("keter #2" in t.lower() for t in visible.all_text_contents())
        judge.screenshot(path=str(artifacts / "zones-phone-every-action.png"))
        search.fill("")
        before = version(judge)
        button = board.locator(f'[data-action="{second}"]')
        button.scroll_into_view_if_needed()
        expect(button).to_have_text(re.compile(r"^B\s"))  # the row says the rest
        button.tap()
        expect(board.locator("[data-logged]")).to_be_visible(timeout=LIVE)
        expect(board.locator(".position")).to_have_attribute("data-version", str(before + 2), timeout=LIVE)
        assert judge.evaluate("document.documentElement.scrollWidth") <= 390
    with MatchStore(store_url, read_only=True) as store:
        state = store.load("t13")[0]
        records = store.records("t13")
    # The second card of the sandbox went, not the first (the old buttons logged the first of seven).
    assert [state.cards[c].name for c in state.zones["A.keter"]] == ["Keter object"]
    assert state.cards[state.zones["A.decommissioned"][0]].name == "Keter object 2"
    taken = [r.event for r in records if type(r.event).__name__ == "ActionTaken"]
    assert len(taken) == 1 and taken[0].player == "B" and records[-1].by == "judge Kim"
