"""How the referee says no, and what an action applied makes: every game's refusals (``Refusal``, ``IllegalAction``) and results (``Applied``).

Each game's own actions are its own (Harem Master's ``Action`` is in
``referee.rules.harem_master.actions``); the kernel passes them around as
``referee.ruleset.ActionLike``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Refusal:
    """An action the rules forbid: the rule, and a sentence a player understands."""

    rule: str
    reason: str
    # True for what a table can physically do despite the rule (a second
    # character, a tapped attacker): record mode appends it as a violation.
    physical: bool = False

    def __str__(self) -> str:
        return f"refused ({self.rule}): {self.reason}"

    def cites(self, rule: str) -> bool:
        """True if this refusal cites ``rule`` or one of its sub-rules
        (``306.1`` matches ``306.1a``; ``306.1a`` does not match ``306.1``)."""
        mine = self.rule
        if mine == rule:
            return True
        if not mine.startswith(rule):
            return False
        rest = mine[len(rule) :]
        # "306.1" is a prefix of "306.1a" (sub-rule) and of "306.10" (not one).
        return rest[0].isalpha() or (rest[0] == "." and not rule.endswith("."))


class IllegalAction(Exception):
    """Raised when an action is refused; carries the refusal and the action."""

    def __init__(self, refusal: Refusal, action: Any = None) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal
        self.action = action


@dataclass(slots=True)
class Applied:
    """The events one action caused, and the state after them."""

    events: list[Any] = field(default_factory=list)
    state: Any = None  # the game's state
