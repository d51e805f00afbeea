"""SCP-TCG-JP-J 購買部版, chapter 4 (zones): the rules, one module per section.

Each printed rule of chapter 4 is owned by exactly one module (``RULE_MAP``;
``tests/test_scp_tcg.py`` checks every rule number falls in one range):

| module | rules |
|---|---|
| ``zones`` | 400 (the zones, 400.2's owner's zone, 400.3's Foundation), 403 (Tale), 404 (personnel), 406 (outside the game); where a moved card ends up |
| ``site`` | 401: the site, control, the partner object, cards stacked on site cards |
| ``sandbox`` | 402: sandboxes, who may look, protection, breach, search |
| ``decommissioned`` | 405: Decommissioned, terminating, the owner's order of cards arriving together |

The rest has no rule of its own: ``common`` (the instruction and its
declaration), ``instructions`` (every instruction a process gives, each
checked by the modules above; what chapter 4 does not decide is refused
citing ``4``), ``engine`` (the decision in front of the table, legal
instructions, applying one and the automatic steps), ``position`` and
``resolve`` (a position and instructions as people write them),
``scenario`` (its scenario files), ``rewinds`` (what a judge's rewind
cites and what each event revealed, ruling:S13) and ``ruleset`` (the
``Ruleset``).
"""

from __future__ import annotations

# Rule ranges by module: a number belongs to a module when it is one of
# these sections or a sub-rule of one.
RULE_MAP: dict[str, tuple[str, ...]] = {
    "zones": ("400", "403", "404", "406"),
    "site": ("401",),
    "sandbox": ("402",),
    "decommissioned": ("405",),
}


def module_of(rule: str) -> list[str]:
    """The modules whose ranges hold ``rule`` (exactly one for a rule of chapter 4)."""
    section = rule.partition(".")[0]
    return [module for module, sections in RULE_MAP.items() if section in sections]
