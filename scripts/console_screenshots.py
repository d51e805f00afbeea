"""Takes the docs' screenshots of the console (docs/console-*.png, in docs/tutorials/paper-match.md).

A scorekeeper's phone logs a paper match of an event through the board
itself (a seeded policy taps the controls), against `referee serve` running
as its own process; the pictures are taken on the way:

    .venv/bin/python scripts/console_screenshots.py OUT_DIR

Needs chromium (REFEREE_CHROMIUM, else /usr/bin/chromium) and the test tools
(scripts/setup.sh --test). Look at the pictures, then copy them to docs/:
console-qr, console-phone, console-reveal, console-logged, console-else,
console-violation and console-cardtext.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.browser.conftest import referee, serving  # noqa: E402

DECKS = ROOT / "scenarios/decks"
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}
PASSWORD = "pw"
NOT_CHOSEN = ("concede", "propose_draw", "accept_draw")


def venue(db: str) -> tuple[str, str]:
    """A table-dealt event of four players, round 1 paired; (event, its first table)."""
    event = referee(db, "event", "new", "Spring Cup 2026", "--deal", "table").strip().splitlines()[0]
    for name, deck in (("Alice", "vanilla-a"), ("Bob", "vanilla-b"), ("Carol", "vanilla-a"), ("Dan", "vanilla-b")):
        referee(db, "event", "register", event, "--player", name, "--deck", str(DECKS / f"{deck}.yaml"))
    referee(db, "event", "round", event, "--round", "1")
    return event, f"{event}.r1.t1"


def log_until_shots(phone: Any, out: Path, rng: random.Random) -> set[str]:
    """Tap through the match until every picture of the console is taken:
    a reveal narrowed by typing, a decision logged (its sentence and the
    undo), the "Something else happened" menu, a record-mode violation's
    preview, and a card read from its sheet."""
    position = phone.locator("#board .position")
    shots: set[str] = set()
    wanted = {"reveal", "logged", "else", "violation", "card"}
    for _ in range(400):
        if phone.locator("#board .result").count() or shots >= wanted:
            break
        version = int(position.get_attribute("data-version"))
        lines = phone.eval_on_selector_all("#board form.console [data-action]", "els => els.map(e => e.dataset.action)")
        usable = [x for x in lines if x.split()[1] not in NOT_CHOSEN]
        kinds = {x.split()[1] for x in usable}
        if "card" not in shots and version > 120 and phone.locator("#board .side-A .character[data-name]").count():
            phone.locator("#board .side-A .character[data-name] .name").first.tap()
            expect(phone.locator("#cardpop [data-card-text]").first).to_be_visible()
            phone.wait_for_timeout(500)
            phone.screenshot(path=str(out / "console-cardtext.png"))
            phone.keyboard.press("Escape")
            shots.add("card")
        if "reveal" in kinds and "reveal" not in shots and version > 30:
            name = json.loads(usable[0].split(" ", 2)[2])
            box = phone.locator("#board input[data-filter]")
            box.tap()
            phone.keyboard.type(name[:3])
            phone.wait_for_timeout(300)
            phone.screenshot(path=str(out / "console-reveal.png"))
            shots.add("reveal")
            box.fill("")
            phone.locator("#board input[data-filter]").dispatch_event("input")
        tapped = phone.locator("#board .side-A .character.tapped[data-name]")
        if "violation" not in shots and version > 150 and "A end_turn" in lines and tapped.count():
            name = tapped.first.get_attribute("data-name")
            phone.evaluate("window.scrollTo(0, 0)")
            phone.locator("#board details[data-else] > summary").tap()
            tool = phone.locator('#board details[data-tool="record"]')
            tool.locator(":scope > summary").tap()
            form = tool.locator("form")
            form.locator("select[name=do]").select_option("attack")
            form.locator("select[name=card]").select_option(name)
            tool.scroll_into_view_if_needed()
            phone.wait_for_timeout(300)
            phone.screenshot(path=str(out / "console-else.png"))
            form.locator("button[type=submit]").tap()
            expect(phone.locator("#board [data-preview-violation]")).to_be_visible()
            phone.wait_for_timeout(300)
            phone.screenshot(path=str(out / "console-violation.png"))
            phone.locator("#board [data-preview-violation] [data-dismiss]").tap()
            phone.locator("#board details[data-else] > summary").tap()
            shots.update({"violation", "else"})
            continue
        keen = [x for x in usable if x.split()[1] in ("attack", "play_character", "intercept", "play_item")]
        if usable[0].split()[1] == "reveal" and rng.random() < 0.6:
            line = usable[0]
        else:
            line = rng.choice(keen) if keen and rng.random() < 0.8 else rng.choice(usable)
        phone.locator(f"#board [data-action={json.dumps(line)}]").tap()
        expect(position).not_to_have_attribute("data-version", str(version))
        if "logged" not in shots and line.split()[1] in ("attack", "play_character") and version > 60:
            phone.evaluate("window.scrollTo(0, 0)")
            phone.wait_for_timeout(500)
            phone.screenshot(path=str(out / "console-logged.png"))
            shots.add("logged")
    return shots


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{Path(tempfile.mkdtemp()) / 'venue.db'}"
    event, match = venue(db)
    chromium = os.environ.get("REFEREE_CHROMIUM") or "/usr/bin/chromium"
    with serving(db, REFEREE_JUDGE_PASSWORD=PASSWORD) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--headless"])
        # The organiser's sheet of per-table QR codes, as a judge opens it.
        judge = browser.new_context(
            viewport={"width": 800, "height": 560}, http_credentials={"username": "judge", "password": PASSWORD}
        ).new_page()
        judge.goto(f"{base}events/{event}/print/links")
        judge.screenshot(path=str(out / "console-qr.png"))
        # A scorekeeper's phone opens the first table's code: the table's console, signed in.
        printed = referee(db, "serve", "--scorekeeper", match, "--port", base.rsplit(":", 1)[1].strip("/"))
        path = re.search(r"https?://[^/\s]+(/scorekeeper/\S+)", printed).group(1)  # type: ignore[union-attr]
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(base.rstrip("/") + path)
        expect(phone.locator("#board form.console")).to_be_visible()
        phone.screenshot(path=str(out / "console-phone.png"))
        print("taken:", sorted(log_until_shots(phone, out, random.Random(4))))
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "test-artifacts/screenshots"))
