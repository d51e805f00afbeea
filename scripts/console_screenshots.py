"""The README's screenshots of the console (docs/console-*.png): a scorekeeper's
phone logging a paper match of an event, played by a seeded policy through
the board itself, against `referee serve` in its own process.

    .venv/bin/python scripts/console_screenshots.py OUT_DIR

Needs chromium (REFEREE_CHROMIUM or /usr/bin/chromium) and the test tools
(scripts/setup.sh --test). The pictures are then looked at, and copied to
docs/ by hand: console-phone, -reveal, -violation, -cardtext, and
event-phone as console-event.
"""
import json, random, re, shlex, subprocess, sys, os, tempfile, time
from pathlib import Path
ROOT_DIR = __import__("pathlib").Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT_DIR))
from tests.browser.conftest import serving, referee
from playwright.sync_api import sync_playwright, expect
ROOT = ROOT_DIR
out = Path(sys.argv[1]); out.mkdir(exist_ok=True)
tmp = Path(tempfile.mkdtemp()); db = f"sqlite:///{tmp/'venue.db'}"
D = ROOT / "scenarios/decks"
ev = referee(db, "event", "new", "Spring Cup 2026", "--deal", "table").strip().splitlines()[0]
for name, deck in (("Alice", "vanilla-a"), ("Bob", "vanilla-b"), ("Carol", "vanilla-a"), ("Dan", "vanilla-b")):
    referee(db, "event", "register", ev, "--player", name, "--deck", str(D / f"{deck}.yaml"))
referee(db, "event", "round", ev, "--round", "1")
match = f"{ev}.r1.t1"
linkout = referee(db, "serve", "--scorekeeper", ev, "--name", "Sam")
path = re.search(r"https?://[^/\s]+(/scorekeeper/\S+)", linkout).group(1)
rng = random.Random(4)
PHONE = dict(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=2)
with serving(db, REFEREE_JUDGE_PASSWORD="pw") as base, sync_playwright() as pw:
    b = pw.chromium.launch(executable_path=os.environ.get("REFEREE_CHROMIUM") or "/usr/bin/chromium", args=["--no-sandbox", "--headless"])
    phone = b.new_context(**PHONE).new_page()
    phone.goto(base.rstrip("/") + path)
    phone.screenshot(path=str(out / "event-phone.png"))
    phone.locator(f'[data-log-table="{match}"]').tap()
    pos = phone.locator("#board .position")
    shots = set()
    for i in range(400):
        if phone.locator("#board .result").count(): break
        v = int(pos.get_attribute("data-version"))
        lines = phone.eval_on_selector_all("#board form.console [data-action]", "els => els.map(e => e.dataset.action)")
        usable = [x for x in lines if x.split()[1] not in ("concede", "propose_draw", "accept_draw")]
        kinds = {x.split()[1] for x in usable}
        if "reveal" in kinds and "reveal" not in shots and v > 30:
            phone.screenshot(path=str(out / "console-reveal.png")); shots.add("reveal")
        if "attack" in kinds and "play_character" in kinds and v > 120 and "main" not in shots:
            phone.evaluate("window.scrollTo(0, 0)")
            phone.wait_for_timeout(300)
            phone.screenshot(path=str(out / "console-phone.png")); shots.add("main")
            phone.locator("fieldset[data-group='attack'] .pick-kind").tap()
            phone.wait_for_timeout(1200)
            phone.screenshot(path=str(out / "console-pick.png"))
            other = phone.locator("#board .table .character[data-name]:not(.pickable) .name").first
            if other.count():
                other.tap()
                phone.wait_for_timeout(500)
                phone.screenshot(path=str(out / "console-cardtext.png"))
                phone.locator("#cardpop button", has_text="Close").first.tap()
        tapped = phone.locator("#board .side-A .character.tapped[data-name]")
        if "violation" not in shots and v > 150 and any(x.startswith("A end_turn") for x in lines) and tapped.count():
            name = tapped.first.get_attribute("data-name")
            tool = phone.locator("details.tool", has_text="Record what the table did")
            tool.locator("summary").tap()
            form = tool.locator("form")
            form.locator("select[name=player]").select_option("A")
            form.locator("select[name=do]").select_option("attack")
            form.locator("select[name=card]").select_option(name)
            form.locator("button[type=submit]").tap()
            expect(phone.locator("#board [data-preview-violation]")).to_be_visible()
            phone.wait_for_timeout(300)
            phone.screenshot(path=str(out / "console-violation.png")); shots.add("violation")
            phone.locator("#board [data-preview-violation] [data-dismiss]").tap()
            continue
        keen = [x for x in usable if x.split()[1] in ("attack", "play_character", "intercept", "play_item")]
        line = usable[0] if usable[0].split()[1] == "reveal" and rng.random() < .6 else (rng.choice(keen) if keen and rng.random() < .8 else rng.choice(usable))
        phone.locator(f"#board [data-action={json.dumps(line)}]").tap()
        expect(pos).not_to_have_attribute("data-version", str(v))
        if len(shots) >= 3: break
    # Card text: a card with an ability, tapped on a phone (the judge's own match here).
    m2 = json.loads(referee(db, "new", "--deck", f"A={D}/alice.yaml", "--deck", f"B={D}/bob.yaml", "--name", "A=Alice", "--name", "B=Bob", "--seed", "3", "--json"))["match"]
    referee(db, "act", m2, "A", "choose_opening", "Palace Herald")
    judge_phone = b.new_context(**PHONE, http_credentials={"username": "judge", "password": "pw"}).new_page()
    judge_phone.goto(f"{base}matches/{m2}?as=judge")
    judge_phone.locator("#board .character[data-name='Palace Herald'] .name").tap()
    judge_phone.wait_for_timeout(500)
    judge_phone.screenshot(path=str(out / "console-cardtext.png"))
    desk = b.new_context(viewport={"width": 1280, "height": 900}).new_page()
    desk.goto(f"{base}login?next=/matches/{match}")
    desk.fill("input[name=password]", "pw"); desk.fill("input[name=name]", "Kim")
    desk.click("form.signin-form button[type=submit]")
    expect(desk).to_have_url(re.compile(match))
    desk.screenshot(path=str(out / "console-desktop.png"))
    b.close()
print("shots", sorted(shots))
