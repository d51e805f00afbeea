"""The documentation a user has (README and docs/) covers what the code
accepts: every command, every key of the file formats, every action, every
ruling; and it never sends the reader to files only the team has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docexamples import documents

from referee import records, scenario as kernel_scenario
from referee.cli import COMMANDS
from referee.rules.harem_master import scenario
from referee.rules.harem_master.notation import PLAYER_DOS
from referee.rules.harem_master.settings import RECORD_KEYS
from referee.scenario import JUDGE_DOS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_every_command_has_a_section_in_the_cli_reference() -> None:
    cli = text("cli.md")
    documented = set(re.findall(r"^### `referee ([a-z-]+)", cli, flags=re.MULTILINE))
    assert set(COMMANDS) <= documented, set(COMMANDS) - documented


@pytest.mark.parametrize(
    "keys",
    [
        (*kernel_scenario.TOP_KEYS, *scenario.SCENARIOS.keys),
        scenario.SETUP_KEYS,
        scenario.PLAYER_KEYS,
        scenario.EXPECT_KEYS,
        scenario.ZONE_CHECK_KEYS,
        scenario.CHARACTER_KEYS,
        scenario.ACTION_KEYS,
        records.TOP_KEYS,
        RECORD_KEYS,
        tuple(PLAYER_DOS),
        JUDGE_DOS,
    ],
)
def test_every_key_and_action_of_the_formats_is_documented(keys: tuple[str, ...]) -> None:
    formats = text("scenario-format.md")
    missing = [k for k in keys if not re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", formats)]
    assert not missing


def test_every_ruling_is_described() -> None:
    rulings = text("rulings.md")
    for n in range(1, 38):
        assert f"**A{n}. " in rulings, f"A{n}"


def test_every_ruling_a_scenario_cites_is_described() -> None:
    rulings = text("rulings.md")
    cited = set()
    for path in (ROOT / "scenarios").rglob("*.yaml"):
        cited |= set(re.findall(r"ruling:(A\d+)", path.read_text(encoding="utf-8")))
    assert cited and not [a for a in sorted(cited) if f"**{a}. " not in rulings]


def test_no_user_document_points_at_the_teams_shared_folder() -> None:
    for path in documents():
        assert "../shared" not in path.read_text(encoding="utf-8"), path


def test_the_readme_is_short_and_links_every_page_of_the_docs() -> None:
    """A newcomer finds every page from the README's contents; a page no
    contents line links to is a page nobody finds."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    linked = {(ROOT / target).resolve() for target, _ in links(readme)}
    pages = [p for p in DOCS.rglob("*") if p.suffix in (".md", ".csv")]
    unlinked = sorted(str(p.relative_to(ROOT)) for p in pages if p.resolve() not in linked)
    assert not unlinked, f"pages the README's contents do not link: {unlinked}"
    assert {"docs/cli.md", "docs/scenario-format.md", "docs/rulings.md", "docs/console.md"} <= {
        t for t, _ in links(readme)
    }


@pytest.mark.parametrize("page", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_link_is_broken(page: Path) -> None:
    """Every relative link and image of a page names a file that exists, and
    every #anchor a heading of the page it points into."""
    broken = []
    for target, anchor in links(page.read_text(encoding="utf-8")):
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}#{anchor}: no such heading")
    assert not broken, broken


def test_anchors_are_github_slugs() -> None:
    heads = anchors_of("# A\n## `referee log MATCH [--as VIEWER]`\n## 3. Roles that may only do their job\n## A\n")
    assert heads == {"a", "referee-log-match---as-viewer", "3-roles-that-may-only-do-their-job", "a-1"}


FENCED = re.compile(r"^ {0,3}(`{3,}).*?^ {0,3}\1\s*$", re.M | re.S)


def links(text: str) -> list[tuple[str, str]]:
    """The relative links and images of a Markdown text, outside code: (file, anchor)."""
    text = FENCED.sub("", text)
    text = re.sub(r"`[^`\n]*`", "", text)
    found = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'<img [^>]*src="([^"]+)"', text)
    out = []
    for link in found:
        if re.match(r"[a-z]+:", link):
            continue  # http://, mailto:
        target, _, anchor = link.partition("#")
        out.append((target, anchor))
    return out


def anchors(path: Path) -> set[str]:
    return anchors_of(path.read_text(encoding="utf-8"))


def anchors_of(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation
    dropped, spaces as hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCED.sub("", text), re.M):
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out
