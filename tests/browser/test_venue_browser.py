"""The venue's phones reach the board (issue 27, item 9): `referee serve
--host 0.0.0.0` as its own process, opened by a phone-like client on the
machine's own non-loopback address, as the start-up banner prints it; and
the judges' sheet of scorekeepers' QR codes rendered to PDF like the other
print-outs."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
from pathlib import Path

from playwright.sync_api import expect

from bench.figures import referee_command
from referee.web.venue import machine_addresses
from tests.browser.conftest import PHONE
from tests.browser.test_print import _pages

ROOT = Path(__file__).resolve().parents[2]
DECKS = ROOT / "scenarios" / "decks"
PASSWORD = "a judge's passphrase"


def test_a_phone_reaches_the_board_on_the_address_the_banner_prints(device, cli, store_url: str) -> None:
    assert machine_addresses(), "this machine has no network address but loopback: a phone could not reach it"
    cli(store_url, "new", "--deck", f"A={DECKS / 'vanilla-a.yaml'}", "--deck", f"B={DECKS / 'vanilla-b.yaml'}")
    env = {k: v for k, v in os.environ.items() if k not in ("REFEREE_DB",)}
    env["REFEREE_JUDGE_PASSWORD"] = PASSWORD
    proc = subprocess.Popen(
        [*referee_command(), "serve", "--db", store_url, "--host", "0.0.0.0", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        banner = ""
        while "answers to the host names" not in banner:
            banner += lines.get(timeout=60)
        found = re.search(r"phones and other stations on this network open (http://[^/\s]+/)", banner)
        assert found, banner
        url = found.group(1)
        assert url.split("//")[1].split(":")[0] in machine_addresses()
        phone = device(PHONE)
        phone.goto(url)
        expect(phone.locator("h1").first).to_be_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        assert "Invalid host" not in phone.content()
        # The phone signs in as the judge on that address and opens the match.
        phone.goto(f"{url}login?next=/")
        phone.fill("input[name=password]", PASSWORD)
        phone.locator("form.signin-form button[type=submit]").tap()
        match = phone.locator("a[href^='/matches/m-']").first
        expect(match).to_be_visible()
        match.tap()
        expect(phone.locator("#board form.console")).to_be_visible()
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_scorekeepers_qr_sheet_renders_to_pdf(page, chromium, serve, cli, store_url: str, tmp_path: Path) -> None:
    event = json.loads(cli(store_url, "event", "new", "QR Cup", "--json"))["event"]
    csv = tmp_path / "p.csv"
    csv.write_text("".join(f"Player {i},{DECKS / 'alice.yaml'}\n" for i in range(8)))
    cli(store_url, "event", "register", event, "--csv", str(csv))
    cli(store_url, "event", "round", event)
    with serve(store_url, REFEREE_JUDGE_PASSWORD=PASSWORD) as base:
        assert page.request.get(f"{base}events/{event}/print/links").status == 401  # a code is a scorekeeper's key
        judge = chromium.new_context(http_credentials={"username": "judge", "password": PASSWORD})
        try:
            sheet = judge.new_page()
            sheet.goto(f"{base}events/{event}/print/links?paper=a4")
            text = sheet.locator("body").inner_text()
            for words in ("QR Cup", "Table 1", "Table 4", "Every table of QR Cup"):
                assert words in text, words
            assert sheet.locator(".qr-card svg").count() == 5  # four tables and the whole event
            pdf = sheet.pdf(prefer_css_page_size=True, print_background=True)
            assert pdf.startswith(b"%PDF") and _pages(pdf) >= 1
            (tmp_path / "links-a4.pdf").write_bytes(pdf)
        finally:
            judge.close()
