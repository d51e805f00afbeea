"""幻想郷夢紀行 §4 (細かいルールについて): the rules, one module per section.

Each section of §4 is owned by exactly one module (``RULE_MAP``;
``tests/test_gensokyo.py`` checks every statement falls in one):

| module | statements |
|---|---|
| ``vitality`` | 4-1: 活力 and 疲労, and plain draws and discards told apart |
| ``attributes`` | 4-2: attributes, destination and intervention cards' lines |
| ``costs`` | 4-3: hand costs, paid or declined |
| ``abilities`` | 4-4: abilities' timings and costs (気力 down to 0, 0 goes to 人妖の山) |
| ``interrupts`` | 4-5: interrupts resolved last in, first out; what is then not resolved |
| ``hand_limit`` | 4-6: the hand maximum and an empty 山札 |
| ``piles`` | 4-7: 人妖の山, 山札 and 幻想, and where a card sent to the wrong one goes |

The rest has no rule of its own: ``common`` (the instruction and its
registry), ``resolution`` (the resolving effect walked one line at a time,
each event citing the statement that decides it), ``engine`` (the decision
in front of the table, the automatic steps), ``position`` and ``resolve``
(a position and instructions as people write them), ``scenario``,
``records`` and ``rewinds`` (its capabilities) and ``game`` (the ``Ruleset``).
"""

from __future__ import annotations

RULE_MAP: dict[str, tuple[str, ...]] = {
    "vitality": ("4-1",),
    "attributes": ("4-2",),
    "costs": ("4-3",),
    "abilities": ("4-4",),
    "interrupts": ("4-5",),
    "hand_limit": ("4-6",),
    "piles": ("4-7",),
}


def module_of(rule: str) -> list[str]:
    """The modules whose sections hold ``rule`` (``4-6a`` is 4-6's)."""
    section = rule[:3]
    return [module for module, sections in RULE_MAP.items() if section in sections]
