"""The documentation a user has (README and docs/) covers what the code
accepts: every command, every key of the file formats, every action, every
ruling; and it never sends the reader to files only the team has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
    for path in [ROOT / "README.md", ROOT / "scenarios" / "README.md", *DOCS.glob("*.md")]:
        assert "../shared" not in path.read_text(encoding="utf-8"), path


def test_the_readme_links_to_documents_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert {"docs/cli.md", "docs/scenario-format.md", "docs/rulings.md"} <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link
