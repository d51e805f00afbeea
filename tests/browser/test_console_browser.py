"""The console in a real browser (Debian's chromium, driven by Playwright) at
phone size, against `referee serve` running as its own process: a whole
table-dealt paper match logged by taps alone, reveals included, with one
record-mode violation that a judge rewinds from the browser, and the match
record equal to the same match logged through the CLI; a player link that
can neither act for the opponent nor see their hand; CSRF and stale
versions; a scorekeeper who cannot rewind; the phone layout. Waits have
generous timeouts; nothing here reads the clock."""

from __future__ import annotations

import json
import random
import re
import shlex
from pathlib import Path

from playwright.sync_api import expect

from referee.store import MatchStore
from tests.browser.conftest import PHONE, TABLET
from tests.test_web import B_HAND, HIDDEN_HANDS

ROOT = Path(__file__).resolve().parents[2]
DECKS = [
    "--deck",
    f"A={ROOT / 'scenarios/decks/vanilla-a.yaml'}",
    "--deck",
    f"B={ROOT / 'scenarios/decks/vanilla-b.yaml'}",
]
PASSWORD = "judge's passphrase"
LIVE = 10_000  # ms: the board answers within a second; the machine may be busy
NOT_CHOSEN = ("concede", "propose_draw", "accept_draw")


def server_env() -> dict[str, str]:
    """A protected board; its links come from the key file beside the store, as the CLI's do."""
    return {"REFEREE_JUDGE_PASSWORD": PASSWORD}


def new_paper_match(cli, db: str, seed: int) -> str:
    made = json.loads(
        cli(
            db,
            "new",
            *DECKS,
            "--name",
            "A=Alice",
            "--name",
            "B=Bob",
            "--seed",
            str(seed),
            "--deal",
            "table",
            "--mode",
            "record",
            "--json",
        )
    )
    return made["match"]


def scorekeeper_link(cli, db: str, match: str, base: str) -> str:
    """The link `referee serve --scorekeeper` prints, on this server's address."""
    out = cli(db, "serve", "--scorekeeper", match, "--name", "Sam")
    path = re.search(r"https?://[^/\s]+(/scorekeeper/\S+)", out).group(1)  # type: ignore[union-attr]
    return base.rstrip("/") + path


def version(page) -> int:
    return int(page.locator("#board .position").get_attribute("data-version"))


def lines(page) -> list[str]:
    return page.eval_on_selector_all("#board form.console [data-action]", "els => els.map(e => e.dataset.action)")


def action_locator(page, line: str):
    return page.locator(f"#board [data-action={json.dumps(line)}]")


def moved_from(page, before: int) -> None:
    expect(page.locator("#board .position")).not_to_have_attribute("data-version", str(before), timeout=LIVE)


def choose(rng: random.Random, offered: list[str]) -> str:
    """A table's plausible next move: reveals most likely first, attacks and
    plays preferred (so the game ends), never a concession or a draw."""
    usable = [x for x in offered if x.split()[1] not in NOT_CHOSEN]
    if usable[0].split()[1] == "reveal":
        return usable[0] if rng.random() < 0.6 else rng.choice(usable)
    keen = [x for x in usable if x.split()[1] in ("attack", "play_character", "intercept", "play_item")]
    return rng.choice(keen) if keen and rng.random() < 0.8 else rng.choice(usable)


def tap_line(page, line: str) -> None:
    """Log one line by tapping: an attack from the attacker's sheet (a tap on
    the card on the table shows its text and what it can do, and logs
    nothing), anything else by its button."""
    player, do = line.split()[:2]
    if do == "attack":
        name = shlex.split(line)[2]
        lit = page.locator(f"#board .side-{player} .character.pickable[data-name={json.dumps(name)}]").first
        if lit.count():
            before = version(page)
            lit.tap()
            pop = page.locator("#cardpop")
            expect(pop.locator(f"[data-card-text={json.dumps(name)}]")).to_be_visible()
            assert version(page) == before  # reading is never acting
            pop.locator(f"[data-sheet-line={json.dumps(line)}]").tap()
            return
    action_locator(page, line).tap()


def _game(record: str) -> str:
    """An exported record without ``entries:`` (who entered each action) and
    the ``signature:`` over them: what two stations logging one game share."""
    kept: list[str] = []
    skipping = False
    for line in record.splitlines():
        if line.startswith("entries:"):
            skipping = True
            continue
        if skipping and line.startswith("  - "):
            continue
        skipping = False
        if not line.startswith("signature:"):
            kept.append(line)
    return "\n".join(kept)


def cli_argv(line: str) -> list[str]:
    """A console line as `referee act` takes it (the cost shown is not an argument)."""
    return shlex.split(re.sub(r" \(cost [^)]*\)$", "", line))


def test_a_whole_paper_match_is_logged_by_taps_at_phone_size_and_equals_the_cli_record(
    serve, cli, device, store_url: str, artifacts: Path
) -> None:
    seed = 22  # a game of about a hundred decisions
    match = new_paper_match(cli, store_url, seed)
    twin = new_paper_match(cli, store_url, seed)  # the same match, logged at a terminal below
    rng = random.Random(seed)
    logged: list[list[str]] = []  # what the terminal replays: act argv, or a judge's command
    violation_done = False
    shots = 0
    with serve(store_url, **server_env()) as base:
        phone = device(PHONE)
        phone.goto(scorekeeper_link(cli, store_url, match, base))
        expect(phone).to_have_url(re.compile(rf"/matches/{match}"))
        expect(phone.locator("#board form.console")).to_be_visible()
        for _ in range(600):
            if phone.locator("#board .result").count():
                break
            before = version(phone)
            offered = lines(phone)
            assert offered, "a decision without controls"
            # Once, when the active player has a tapped character, the table
            # attacks with it anyway: record mode records it, with its violation.
            tapped = phone.locator("#board .side-A .character.tapped[data-name]")
            if (
                not violation_done
                and before > 60
                and any(x.startswith("A end_turn") for x in offered)
                and tapped.count()
            ):
                name = tapped.first.get_attribute("data-name")
                phone.locator("#board details[data-else] > summary").tap()
                tool = phone.locator('#board details[data-tool="record"]')
                tool.locator(":scope > summary").tap()
                form = tool.locator("form")
                form.locator("select[name=player]").select_option("A")
                form.locator("select[name=do]").select_option("attack")
                form.locator("select[name=card]").select_option(name)
                form.locator("button[type=submit]").tap()
                preview = phone.locator("#board [data-preview-violation]")
                expect(preview).to_be_visible(timeout=LIVE)
                expect(preview).to_contain_text("tapped")
                assert version(phone) == before  # nothing recorded before the confirmation
                phone.screenshot(path=str(artifacts / "console-phone-violation.png"))
                preview.locator("[data-confirm]").tap()
                moved_from(phone, before)
                expect(phone.locator("#board div.violation").first).to_contain_text("OPEN VIOLATION")
                logged.append(["act", "A", "attack", name])
                violation_done = True
                # A judge, at a laptop, rewinds it from the browser (the preview first).
                judge = device({"viewport": {"width": 1280, "height": 900}})
                judge.goto(f"{base}login?next=/matches/{match}")
                judge.fill("input[name=password]", PASSWORD)
                judge.fill("input[name=name]", "Kim")
                judge.click("form.signin-form button[type=submit]")
                expect(judge).to_have_url(re.compile(rf"/matches/{match}"))
                judge.locator(f'.log .row[data-position="{before}"] .preview-btn').click()
                rewind = judge.locator("#preview")
                expect(rewind).to_contain_text(f"back to just after event {before}")
                rewind.locator("input[name=reason]").fill("attacked with a tapped character")
                judge.screenshot(path=str(artifacts / "console-judge-rewind.png"))
                rewind.locator("[data-confirm]").click()
                expect(judge.locator("#board .row.retracted").first).to_be_visible(timeout=LIVE)
                logged.append(
                    [
                        "rewind",
                        "--to",
                        str(before),
                        "--rule",
                        "410.1",
                        "--reason",
                        "attacked with a tapped character",
                        "--by",
                        "Kim",
                    ]
                )
                # The scorekeeper's phone follows live, the violation gone.
                expect(phone.locator("#board div.violation")).to_have_count(0, timeout=LIVE)
                judge.context.close()
                continue
            line = choose(rng, offered)
            if line.split()[1] == "reveal" and shots < 1:
                phone.screenshot(path=str(artifacts / "console-phone-reveal.png"))
                shots += 1
            if before > 20 and shots == 1 and line.split()[1] in ("attack", "play_character"):
                phone.screenshot(path=str(artifacts / "console-phone.png"))
                shots += 1
            tap_line(phone, line)
            moved_from(phone, before)
            expect(phone.locator("#board [data-refusal]")).to_have_count(0)
            logged.append(["act", *cli_argv(line)])
        else:
            raise AssertionError("the match did not end within 600 decisions")
        assert violation_done, "no moment for the record-mode violation came up"
        expect(phone.locator("#board .result")).to_contain_text("Game over")
        phone.screenshot(path=str(artifacts / "console-phone-over.png"))
    # The same match at a terminal, decision by decision.
    for step in logged:
        if step[0] == "act":
            cli(store_url, "act", twin, *step[1:])
        else:
            cli(store_url, step[0], twin, *step[1:])
    exported = cli(store_url, "export", match)
    # The same record, hash chain head included; only the comment naming the match differs,
    # and who entered each action (the scorekeeper's phone, or the terminal) with the signature over it.
    assert _game(exported.replace(match, "M")) == _game(cli(store_url, "export", twin).replace(twin, "M"))
    assert "by: scorekeeper" in exported
    assert "deal: table" in exported and "do: reveal" in exported and "do: rewind" in exported
    record = Path(store_url.removeprefix("sqlite:///")).parent / "phone-match.yaml"
    record.write_text(exported)
    audits = [json.loads(cli(store_url, "audit", what, "--json")) for what in (str(record), match, twin)]
    for audit in audits:
        assert audit["legal"] is True and audit["result"] is not None, audit
    with MatchStore(store_url, read_only=True) as store:
        entered = {r.by for r in store.records(match)[2:]}
    assert entered <= {None, "scorekeeper Sam of " + match, "judge Kim"} and "judge Kim" in entered


def test_a_player_link_cannot_act_for_the_opponent_or_see_their_hand(
    serve, cli, device, store_url: str, tmp_path: Path
) -> None:
    position = tmp_path / "hidden.yaml"
    position.write_text(HIDDEN_HANDS)
    made = json.loads(cli(store_url, "new", "--position", str(position), "--json"))
    match, links = made["match"], made["links"]
    before = int(json.loads(cli(store_url, "legal", match, "--json"))["version"])
    with serve(store_url, **server_env()) as base:
        phone = device(PHONE)
        phone.goto(base + links["A"].lstrip("/"))
        expect(phone.locator("#board .position")).to_have_attribute("data-live", "yes")
        html = phone.content()
        assert not [name for name in B_HAND if name in html]
        assert phone.locator("[data-action]").count() == 0  # this event's players do not log
        # A forged post from A's page, for B (and for A): refused, nothing recorded.
        for who in ("B", "A"):
            status = phone.evaluate(
                """async ([match, who, token]) => {
                    const csrf = document.getElementById("match").dataset.csrf;
                    const body = new URLSearchParams({csrf, version: "1", entry: "x", as: who, token,
                                                      line: who + " end_turn"});
                    const r = await fetch(`/matches/${match}/act`, {method: "POST", body});
                    return r.status;
                }""",
                [match, who, links["A"].split("token=")[1]],
            )
            assert status in (401, 403)
        # B's own view is not A's to open.
        phone.goto(f"{base}matches/{match}?as=B&token={links['A'].split('token=')[1]}")
        assert "403" in phone.locator("h1").inner_text()
        assert not [name for name in B_HAND if name in phone.content()]
    assert int(json.loads(cli(store_url, "legal", match, "--json"))["version"]) == before


def test_no_csrf_token_or_a_stale_version_records_nothing_and_the_page_says_what_happened(
    serve, cli, device, store_url: str
) -> None:
    match = new_paper_match(cli, store_url, 3)
    with serve(store_url, **server_env()) as base:
        phone = device(PHONE)
        phone.goto(scorekeeper_link(cli, store_url, match, base))
        expect(phone.locator("#board form.console")).to_be_visible()
        start = version(phone)
        # A post without the CSRF token (what another site's page could send): refused.
        status = phone.evaluate(
            """async (match) => {
                const body = new URLSearchParams({version: String(%d), entry: "y", line: 'A choose_opening "Little Page"'});
                return (await fetch(`/matches/${match}/act`, {method: "POST", body})).status;
            }"""
            % start,
            match,
        )
        assert status == 403
        assert version(phone) == start and int(json.loads(cli(store_url, "legal", match, "--json"))["version"]) == start
        # A second device logs first; this page's tap is then stale. (The live
        # update is held back so the phone still shows the old board.)
        phone.add_init_script("EventSource.prototype.addEventListener = function () {};")
        phone.reload()
        expect(phone.locator("#board form.console")).to_be_visible()
        cli(store_url, "act", match, "A", "choose_opening", "Bold Squire")
        action_locator(phone, 'A choose_opening "Little Page"').tap()
        stale = phone.locator("#board [data-stale]")
        expect(stale).to_contain_text("Not recorded: A: choose opening Bold Squire was logged meanwhile", timeout=LIVE)
        assert version(phone) == start + 2
        legal = json.loads(cli(store_url, "legal", match, "--json"))
        assert legal["player"] == "B" and legal["version"] == start + 2


def test_a_refusal_shows_its_rule_and_sentence_and_a_scorekeeper_cannot_rewind(
    serve, cli, device, store_url: str, tmp_path: Path
) -> None:
    position = tmp_path / "hidden.yaml"
    position.write_text(HIDDEN_HANDS)
    match = json.loads(cli(store_url, "new", "--position", str(position), "--json"))["match"]
    cli(store_url, "act", match, "A", "play_event", "War Council")
    with serve(store_url, **server_env()) as base:
        phone = device(PHONE)
        phone.goto(scorekeeper_link(cli, store_url, match, base))
        expect(phone.locator("#board form.console")).to_be_visible()
        start = version(phone)
        tool = phone.locator("details.tool", has_text="Record what the table did")
        assert tool.count() == 0  # strict mode: nothing illegal is recorded
        # A scorekeeper has no rewind on the log, and a forged one is refused.
        assert phone.locator(".preview-btn").count() == 0
        status = phone.evaluate(
            """async ([match, v]) => {
                const csrf = document.getElementById("match").dataset.csrf;
                const body = new URLSearchParams({csrf, version: String(v), entry: "z", to: "1", rule: "410.1", reason: "no"});
                return (await fetch(`/matches/${match}/rewind`, {method: "POST", body})).status;
            }""",
            [match, start],
        )
        assert status == 403
        assert version(phone) == start
        # A refused action, sent as the page would: the rule and the sentence, nothing recorded.
        phone.evaluate(
            """async ([match, v]) => {
                const form = document.querySelector("form.console");
                const input = document.createElement("input");
                input.type = "hidden"; input.name = "do"; input.value = "attack";
                const p = document.createElement("input"); p.type = "hidden"; p.name = "player"; p.value = "B";
                const c = document.createElement("input"); c.type = "hidden"; c.name = "card"; c.value = "Helman Ranger";
                form.append(input, p, c);
                form.requestSubmit();
            }""",
            [match, start],
        )
        refusal = phone.locator("#board [data-refusal]")
        expect(refusal).to_be_visible(timeout=LIVE)
        expect(refusal).to_contain_text("Refused (")
        assert version(phone) == start


def test_phone_and_tablet_layouts_keep_the_decision_above_the_fold(
    serve, cli, device, store_url: str, artifacts: Path
) -> None:
    match = new_paper_match(cli, store_url, 5)
    for argv in (["A", "choose_opening", "Little Page"], ["B", "choose_opening", "Stable Boy"]):
        cli(store_url, "act", match, *argv)
    with serve(store_url, **server_env()) as base:
        for name, options in (("phone", PHONE), ("tablet", TABLET)):
            page = device(options)
            page.goto(scorekeeper_link(cli, store_url, match, base))
            expect(page.locator("#board form.console")).to_be_visible()
            size = options["viewport"]
            # No horizontal scrolling.
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
            # The decision and its first controls are above the fold.
            decision = page.locator("#board .decision p.who").bounding_box()
            first = page.locator("#board form.console [data-action]").first.bounding_box()
            assert decision and first and decision["y"] + decision["height"] <= size["height"]
            assert first["y"] + first["height"] <= size["height"]
            # Every control of the console is at least 44 px each way.
            small = page.eval_on_selector_all(
                "#board form.console button, #board .tools summary, .timeline button, nav.viewers a",
                "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim().slice(0, 30), "
                "e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
                ".filter(([t, w, h]) => w < 44 || h < 44)",
            )
            assert not small, small
            page.screenshot(path=str(artifacts / f"console-{name}-reveal.png"))
        # Keyboard shortcuts on a desktop: 1 takes the first action of the console.
        desk = device({"viewport": {"width": 1280, "height": 900}})
        desk.goto(scorekeeper_link(cli, store_url, match, base))
        before = version(desk)
        first = lines(desk)[0]
        desk.keyboard.press("1")
        moved_from(desk, before)
        assert first.split()[1] == "reveal"


def test_the_event_page_fits_a_phone_and_opens_a_table_ready_to_log(serve, cli, device, store_url: str) -> None:
    event = cli(store_url, "event", "new", "Paper Cup", "--deal", "table").strip().splitlines()[0]
    for name, deck in (("Alice", "vanilla-a"), ("Bob", "vanilla-b"), ("Carol", "vanilla-a")):
        cli(
            store_url,
            "event",
            "register",
            event,
            "--player",
            name,
            "--deck",
            str(ROOT / f"scenarios/decks/{deck}.yaml"),
        )
    cli(store_url, "event", "round", event, "--round", "1")
    with serve(store_url, **server_env()) as base:
        out = cli(store_url, "serve", "--scorekeeper", event, "--name", "Sam")
        link = base.rstrip("/") + re.search(r"https?://[^/\s]+(/scorekeeper/\S+)", out).group(1)  # type: ignore[union-attr]
        phone = device(PHONE)
        phone.goto(link)
        expect(phone).to_have_url(re.compile(rf"/events/{event}$"))
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        table = phone.locator("[data-log-table]").first
        table.tap()
        expect(phone.locator("#board form.console")).to_be_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_store_that_stops_answering_is_said_within_seconds_and_the_page_comes_back(
    serve, cli, device, postgres_url, tmp_path: Path
) -> None:
    """PostgreSQL behind a relay the test cuts: the open page says the store
    is not answering (today's board waited 42-52 s, then answered 500), new
    pages answer 503 and retry by themselves, and all come back when it does."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    from tests.tcpcut import Relay

    server = postgres_url()
    parts = urlsplit(server)
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    schema = f"t_{uuid.uuid4().hex[:12]}"
    db = f"{parts.scheme}://{parts.netloc.split('@')[0]}@127.0.0.1:{relay.port}{parts.path}?schema={schema}"
    try:
        match = new_paper_match(cli, db, 2)
        with serve(db, REFEREE_JUDGE_PASSWORD=PASSWORD, REFEREE_TOKEN_KEY="browser test key") as base:
            cli_env_key = {"REFEREE_TOKEN_KEY": "browser test key"}
            link = scorekeeper_link(lambda d, *a: _cli_with(cli, d, cli_env_key, *a), db, match, base)
            phone = device(PHONE)
            phone.goto(link)
            expect(phone.locator("#board form.console")).to_be_visible()
            relay.cut()
            banner = phone.locator("#connection")
            expect(banner).to_contain_text("not answering", timeout=15_000)
            # A new page says so too, within seconds, and asks again by itself.
            other = device(PHONE)
            response = other.goto(f"{base}matches/{match}")
            assert response is not None and response.status == 503
            expect(other.locator("p.error")).to_contain_text("not answering")
            relay.mend()
            expect(banner).to_be_hidden(timeout=30_000)
            expect(phone.locator("#board form.console")).to_be_visible()
            expect(other.locator("#board .position")).to_be_visible(timeout=30_000)  # after its own retries
            # And logging works again.
            before = version(phone)
            action_locator(phone, 'A choose_opening "Little Page"').tap()
            moved_from(phone, before)
    finally:
        relay.close()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _cli_with(cli, db: str, env: dict[str, str], *args: str) -> str:
    import os

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return cli(db, *args)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_a_judge_signed_in_by_http_basic_logs_from_the_judge_view(serve, cli, device, store_url: str) -> None:
    match = new_paper_match(cli, store_url, 4)
    with serve(store_url, **server_env()) as base:
        judge = device(PHONE, http_credentials={"username": "judge", "password": PASSWORD})
        judge.goto(f"{base}matches/{match}?as=judge")
        expect(judge.locator("#board form.console")).to_be_visible()
        before = version(judge)
        action_locator(judge, 'A choose_opening "Court Lady"').tap()
        moved_from(judge, before)
    with MatchStore(store_url, read_only=True) as store:
        assert store.records(match)[-1].by == "judge"
