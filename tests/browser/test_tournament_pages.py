"""The tournament pages on a phone (390x844) in Chromium: the event page with its round clock, standings, tables and top-cut bracket, the projector's clock, and the print-outs; none scrolls sideways, the text stays readable, and the clock counts down. Screenshots are kept in test-artifacts/. Nothing here reads the clock to assert speed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import referee as cli, serving

ROOT = Path(__file__).resolve().parents[2]
DECKS = ROOT / "scenarios" / "decks"
PHONE = {"width": 390, "height": 844}
NAMES = [
    "Alexandra Montgomery-Whitfield",
    "Bartholomew Okonkwo",
    "Carolina Fernández",
    "Dmitri Vasilievich",
    "Eleanor Nakamura-Smith",
    "Fitzgerald Osei",
    "Guinevere Lindqvist",
    "Hieronymus Bakker",
]
SMALLEST_TEXT = 12  # px: the least a phone's reader is asked to read


def _fits(page) -> None:
    """No sideways scrolling: the page is no wider than the phone's screen."""
    width = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > width + 0.5)
        .slice(0, 5).map(e => `${e.tagName}.${e.className} to ${Math.round(e.getBoundingClientRect().right)}px`)""",
        PHONE["width"],
    )
    assert width <= PHONE["width"], f"{page.url} is {width}px wide on a {PHONE['width']}px screen: {wide}"


def _readable(page, selector: str) -> None:
    """Every piece of text under ``selector`` is set at ``SMALLEST_TEXT`` px or more and is on the screen's width."""
    found = page.evaluate(
        """([selector, least, width]) => {
            const bad = [];
            for (const el of document.querySelectorAll(selector + ', ' + selector + ' *')) {
              const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
              if (!own) continue;
              const size = parseFloat(getComputedStyle(el).fontSize);
              const box = el.getBoundingClientRect();
              if (size < least || box.right > width + 0.5 || box.left < -0.5) {
                bad.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ${size}px at ${box.left}-${box.right}`);
              }
            }
            return bad;
        }""",
        [selector, SMALLEST_TEXT, PHONE["width"]],
    )
    assert found == [], f"{page.url}: {found[:5]}"


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    """An event of eight players with long names, a round clock and a top 4:
    round 1 played (results entered by a judge, a time extension), the
    semifinals played, the final being played; `referee serve` on it."""
    tmp = tmp_path_factory.mktemp("day")
    db = f"sqlite:///{tmp / 'day.db'}"
    event = json.loads(cli(db, "event", "new", "Phone Cup", "--round-minutes", "50", "--json"))["event"]
    players = tmp / "players.csv"
    players.write_text("".join(f"{n},{DECKS / ('alice.yaml' if i % 2 else 'bob.yaml')}\n" for i, n in enumerate(NAMES)))
    cli(db, "event", "register", event, "--csv", str(players))
    round1 = json.loads(cli(db, "event", "round", event, "--json"))["pairings"]
    cli(
        db,
        "event",
        "extend",
        event,
        str(round1[0]["table"]),
        "--minutes",
        "5",
        "--reason",
        "deck check",
        "--judge",
        "Judge Kim",
    )
    for p in round1:
        cli(db, "event", "result", event, p["match"], "--winner", p["A"], "--judge", "Judge Kim")
    semis = json.loads(cli(db, "event", "playoff", event, "--top", "4", "--json"))["pairings"]
    for p in semis:
        cli(db, "event", "result", event, p["match"], "--winner", p["B"], "--judge", "Judge Ann")
    final = json.loads(cli(db, "event", "playoff", event, "--json"))["pairings"]
    with serving(db) as base:
        yield {"base": base, "event": event, "final": final[0], "semis": semis}


@pytest.fixture
def phone(page):
    page.set_viewport_size(PHONE)
    return page


def test_the_event_page_on_a_phone(phone, day, artifacts: Path) -> None:
    base = day["base"]
    phone.goto(f"{base}events/{day['event']}")
    clock = phone.locator("#tables .clock .countdown")
    expect(clock).to_be_visible()
    first = clock.inner_text()
    expect(clock).not_to_have_text(first, timeout=5_000)  # it counts down in the browser
    expect(phone.locator(".bracket .bracket-round")).to_have_count(2)
    final = phone.locator(".bracket .bracket-round").nth(1)
    expect(final).to_contain_text(day["final"]["A"])
    expect(phone.locator("table.standings").first).to_contain_text(NAMES[0])
    expect(phone.locator("table.tables tbody tr")).to_have_count(1)  # the final's one table
    _fits(phone)
    _readable(phone, "main")
    phone.screenshot(path=str(artifacts / "event-phone.png"), full_page=True)
    # An earlier round, with its extension and the judge who entered each result.
    phone.goto(f"{base}events/{day['event']}?round=1")
    expect(phone.locator("table.tables tbody tr")).to_have_count(4)
    expect(phone.locator("table.tables")).to_contain_text("+5 min")
    expect(phone.locator("table.tables")).to_contain_text("entered by Judge Kim")
    _fits(phone)
    _readable(phone, "main")
    phone.screenshot(path=str(artifacts / "event-round-phone.png"), full_page=True)


def test_the_tables_page_on_a_phone(phone, day) -> None:
    base = day["base"]
    phone.goto(base)
    expect(phone.locator("ul.events")).to_contain_text("Phone Cup")
    expect(phone.locator("table.tables tbody tr")).to_have_count(4 + 2 + 1)
    _fits(phone)
    _readable(phone, "main")


def test_the_projector_clock_on_a_phone(phone, day, artifacts: Path) -> None:
    base = day["base"]
    phone.goto(f"{base}events/{day['event']}/clock")
    big = phone.locator(".big.countdown")
    expect(big).to_be_visible()
    first = big.inner_text()
    expect(big).not_to_have_text(first, timeout=5_000)
    assert ":" in big.inner_text()
    box = big.bounding_box()
    # As big as the screen allows: a fifth of its width at least, many times the size of text.
    assert box is not None and box["width"] <= PHONE["width"] and box["height"] >= PHONE["width"] / 5
    _fits(phone)
    _readable(phone, "body")
    phone.screenshot(path=str(artifacts / "clock-phone.png"))


@pytest.mark.parametrize("kind", ["pairings", "slips", "standings"])
def test_the_print_outs_on_a_phone(phone, day, kind: str) -> None:
    """A judge checks a print-out on a phone before printing it."""
    base = day["base"]
    phone.goto(f"{base}events/{day['event']}/print/{kind}")
    expect(phone.locator(".slip-head" if kind == "slips" else "h1").first).to_contain_text("Phone Cup")
    expect(phone.locator("body")).to_contain_text(day["final"]["A"] if kind != "standings" else NAMES[0])
    _fits(phone)
    _readable(phone, "body")
