"""Phantom Magic Vision, chapter 7 (effects): the rules, one module per section.

Each numbered rule of chapter 7 that the referee applies is owned by one
module (``RULE_MAP``; ``tests/test_pmv.py`` checks every rule a module
cites falls in its ranges):

| module | rules |
|---|---|
| ``resolution`` | 7.1 (one at a time, clause by clause, success and failure, order), 7.5 (as if used), 7.8 (waiting effects) |
| ``table`` | 7.2 (the played card's text), and what other chapters do, entered by the table |
| ``activated`` | 7.3: using an activated effect and resolving it |
| ``automatic`` | 7.4: α and β applying, γ triggered, effects applied at will |

The rest has no rule of its own: ``common`` (the action, the registry of
moves, refusals), ``engine`` (the decision in front of the table, the
rules' checks and the automatic steps), ``position`` and ``notation`` (a
position and the test cards as people write them), ``scenario`` (its
scenario files' expectations), ``records`` (``pmv-ch7-record/1``),
``rewinds`` (what a judge's rewind cites, ruling:P13) and ``game`` (the
``Ruleset``). 7.6 and 7.7 need targets, characters and timings of other
chapters and have no module: docs/games/pmv-ch7.md says why.
"""

from __future__ import annotations

RULE_MAP: dict[str, tuple[str, ...]] = {
    "resolution": ("7.1", "7.5", "7.8"),
    "table": ("7.2",),
    "activated": ("7.3",),
    "automatic": ("7.4",),
}


def module_of(rule: str) -> list[str]:
    """The modules whose ranges hold ``rule`` (7.1.12.a is 7.1's)."""
    section = ".".join(rule.split(".")[:2])
    return [module for module, sections in RULE_MAP.items() if section in sections]
