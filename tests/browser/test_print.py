"""Print-outs: pairings by name, match slips and standings, rendered to PDF by Chromium on A4 and Letter; the PDF's pages and the printed text are checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DECKS = ROOT / "scenarios" / "decks"


def _pages(pdf: bytes) -> int:
    """The page count of a PDF: its page objects (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf))


def _page_size(pdf: bytes) -> tuple[float, float]:
    box = re.search(rb"/MediaBox\s*\[\s*([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", pdf)
    assert box is not None
    return float(box.group(3)), float(box.group(4))


@pytest.mark.parametrize("paper,size", [("a4", (595.9, 842.9)), ("letter", (612, 792))])
def test_print_outs_render_to_pdf(
    page, serve, cli, store_url: str, tmp_path: Path, paper: str, size: tuple[float, float]
) -> None:
    event = json.loads(cli(store_url, "event", "new", "Print Cup", "--best-of", "3", "--json"))["event"]
    names = [f"Player {chr(65 + i)}{i:02d}" for i in range(40)]
    csv = tmp_path / "p.csv"
    csv.write_text("".join(f"{n},{DECKS / 'alice.yaml'}\n" for n in names))
    cli(store_url, "event", "register", event, "--csv", str(csv))
    cli(store_url, "event", "drop", event, names[3], "--reason", "left")
    cli(store_url, "event", "round", event)
    with serve(store_url) as base:
        for kind, words in (
            ("pairings", ["Round 1 pairings", names[0], names[-1]]),
            ("slips", ["Table 1", "Game 3", "Signature"]),
            ("standings", ["Standings after round 1", f"{names[3]} dropped"]),
        ):
            page.goto(f"{base}events/{event}/print/{kind}?paper={paper}")
            text = page.locator("body").inner_text()
            for w in words:
                assert w in text, (kind, w)
            if kind == "pairings":
                listed = [row.split("\t")[0] for row in text.splitlines() if row.startswith("Player ")]
                assert listed == sorted(listed, key=str.casefold) and len(listed) == 39  # one line each, by name
            pdf = page.pdf(prefer_css_page_size=True, print_background=True)
            assert pdf.startswith(b"%PDF")
            width, height = _page_size(pdf)
            assert abs(width - size[0]) < 2 and abs(height - size[1]) < 2, (kind, width, height)
            pages = _pages(pdf)
            # 39 players' lines fit on one or two pages; 19 slips need several.
            assert (1 <= pages <= 2) if kind != "slips" else pages >= 2, (kind, pages)
            (tmp_path / f"{kind}-{paper}.pdf").write_bytes(pdf)
