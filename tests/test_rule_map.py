"""The rule map of ``referee.rules.harem_master`` is one a newcomer can trust.

Every rule number printed in the comprehensive rules (the kept list,
``tests/data/printed-rules.txt``) falls in exactly one module's range of
``RULE_MAP``; that module names each of the numbered rules it owns, so
whoever looks a rule up finds it where the map sends them; and the table at
the head of the package lists every module of the package, each with the
ranges the map gives it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.rules import harem_master
from referee.rules.harem_master import RULE_MAP, in_range, module_of, rule_key

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "referee" / "rules" / "harem_master"
PRINTED = ROOT / "tests" / "data" / "printed-rules.txt"


def printed() -> list[str]:
    return [line for line in PRINTED.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def source(module: str) -> Path:
    """The file of a module of the map: one of the package, or a dotted module outside it."""
    return PACKAGE / f"{module}.py" if "." not in module else ROOT / (module.replace(".", "/") + ".py")


def test_every_printed_rule_falls_in_exactly_one_module() -> None:
    rules = printed()
    assert len(rules) > 200
    owners = {rule: module_of(rule) for rule in rules}
    assert {rule: mods for rule, mods in owners.items() if len(mods) != 1} == {}


def test_the_ranges_do_not_overlap() -> None:
    """Two ranges never share a rule, printed or not (a range's ends in order)."""
    spans = [(module, span) for module, spans in RULE_MAP.items() for span in spans]
    for module, span in spans:
        low, _, high = span.partition("-")
        if high:
            assert rule_key(low) <= rule_key(high), span
        for other, other_span in spans:
            if (other, other_span) != (module, span):
                for end in (low, high or low):
                    assert not in_range(end, other_span), (module, span, other, other_span)


def test_each_module_names_the_rules_it_owns() -> None:
    missing: dict[str, list[str]] = {}
    for rule in printed():
        if re.fullmatch(r"\d{3}", rule):
            continue  # a section's heading: its sub-rules are named
        (module,) = module_of(rule)
        text = source(module).read_text(encoding="utf-8")
        if not re.search(r"(?<![\d.])" + re.escape(rule) + r"(?![\da-z])", text):
            missing.setdefault(module, []).append(rule)
    assert missing == {}


def _table() -> dict[str, str]:
    doc = harem_master.__doc__ or ""
    rows = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"``(\w+)``", cells[0]) if line.startswith("|") else None
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} is listed twice"
            rows[m.group(1)] = cells[1]
    return rows


def test_the_package_table_lists_every_module_with_its_ranges() -> None:
    table = _table()
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert set(table) == modules
    for module, spans in RULE_MAP.items():
        assert source(module).exists(), module
        if "." not in module:
            assert table[module] == ", ".join(spans), module
    assert all(not rules for module, rules in table.items() if module not in RULE_MAP)


@pytest.mark.parametrize(
    "rule, module",
    [
        ("306.5c", "battle"),
        ("306.4", "turn"),
        ("306", "turn"),
        ("215.4c", "zones"),
        ("215.10", "zones"),
        ("407.4", "effects"),
        ("407.3", "abilities"),
        ("408.2", "agenda"),
        ("409.1a", "situations"),
        ("100.2", "referee.rules.harem_master.decks"),
        ("410.2", "rewinds"),
        ("214.2e", "checks"),
    ],
)
def test_rules_a_newcomer_looks_up(rule: str, module: str) -> None:
    assert module_of(rule) == [module]
