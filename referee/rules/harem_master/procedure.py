"""Where Harem Master's own modules find the kernel's procedure for this game, by its id.

The kernel lists, decides and applies actions for every game
(``referee.ruleset.Ruleset``); a few of Harem Master's modules need that
procedure themselves (a written position runs the automatic steps after
it, the notation asks which copy of a card a player could use, a stretch of
a match is replayed to write it as a scenario). They find the game through
the registry by its id rather than by importing the module that declares
it, which imports them: the declaration stays at the top of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee import ruleset as registry

if TYPE_CHECKING:
    from projections.harem_master.state import GameState
    from referee.rules.harem_master.actions import Action

GAME = "harem-master"


def game() -> registry.Ruleset[GameState, Action]:
    """Harem Master's ruleset: the kernel's procedure over its rules."""
    found: Any = registry.get(GAME)
    return found
