"""The scenario library covers the comprehensive rules: every rule printed
from 100 to 310 is cited by a scenario or listed, with its reason, under
"Rules not exercised yet" in scenarios/README.md, and every rule printed from
400 to 506 (card abilities and icons) is cited by a scenario, with no way
out: abilities are data, so each of their rules can be played. Headings that
only title their sub-rules (100, 214.2, 215.4, ...) need no scenario of
their own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.scenario import load_scenario, scenario_files

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "rules" / "harem-master-comprehensive-rules.ja.txt"
PRINTED = ROOT / "tests" / "data" / "printed-rules.txt"
README = ROOT / "scenarios" / "README.md"


def _from_text(text: str) -> list[str]:
    """Rule ids as printed at the start of the rules text's lines."""
    ids = []
    for line in text.splitlines():
        m = re.match(r"^(\d{3}(?:\.\d+[a-z]?)?)[ .]", line)
        if m:
            ids.append(m.group(1))
    return ids


def _stored() -> list[str]:
    return [line for line in PRINTED.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def printed_rules(low: int = 100, high: int = 310) -> list[str]:
    """Rule ids from ``low`` to ``high``: the list kept in the repository
    (a user's clone has no rules text beside it)."""
    return [r for r in _stored() if low <= int(r[:3]) <= high]


def test_the_kept_rule_list_is_the_rules_text() -> None:
    """Where the rules text is at hand (the team's shared/), the kept list is
    exactly what it prints; elsewhere there is nothing to compare."""
    if not RULES.exists():
        pytest.skip(f"no rules text at {RULES}: the list in {PRINTED.name} is used as kept")
    assert _stored() == _from_text(RULES.read_text(encoding="utf-8"))


def cited_rules() -> set[str]:
    """Every rule some Harem Master scenario's ``rules:`` list cites (another
    game's scenarios, ``game: ...``, cite that game's own numbers)."""
    cited: set[str] = set()
    for path in scenario_files([str(ROOT / "scenarios")]):
        sc = load_scenario(path)
        if getattr(sc, "game", "harem-master") == "harem-master":
            cited.update(sc.rules)
    return cited


def is_heading(rule: str, ids: list[str]) -> bool:
    """A rule with sub-rules under it (214.2 -> 214.2a; 215 -> 215.1)."""
    return any(o != rule and (o.startswith(rule + ".") or re.fullmatch(re.escape(rule) + r"[a-z]", o)) for o in ids)


def untestable() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Rules not exercised yet", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"\d{3}(\.\d+[a-z]?)?", cells[0]):
            rows[cells[0]] = cells[1]
    return rows


def test_every_rule_from_100_to_310_is_cited_or_explained() -> None:
    ids = printed_rules()
    assert len(ids) > 120, "the rules text did not parse"
    cited = cited_rules()
    explained = untestable()
    assert all(reason for reason in explained.values())
    missing = [r for r in ids if r not in cited and r not in explained and not is_heading(r, ids)]
    assert missing == [], f"rules neither cited by a scenario nor explained in scenarios/README.md: {missing}"
    # Nothing is both exercised and called untestable.
    assert sorted(set(explained) & cited) == []


def test_every_ability_and_icon_rule_is_cited() -> None:
    """400-412 and 500-506 have no "not exercised" list: abilities are data
    (docs/abilities.md), so every one of their rules can be put in a scenario.
    Only the section titles 400-412 are exempt: a rule such as 402.1 or 503
    says something of its own besides heading its sub-rules, so it is cited
    too."""
    ids = printed_rules(400, 506)
    assert len(ids) > 60, "the rules text did not parse past 400"
    cited = cited_rules()
    missing = [r for r in ids if r not in cited and not re.fullmatch(r"4\d\d", r)]
    assert missing == [], f"ability and icon rules no scenario cites: {missing}"
    explained = untestable()
    assert [r for r in explained if int(r[:3]) >= 400] == [], "rules 400-506 cannot be called untestable"
