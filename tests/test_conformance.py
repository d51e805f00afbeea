"""Every registered game, and the toy game that is a core alone, keeps what the kernel promises.

OpenSpiel's ``games_sim_test`` for this referee (``tests/conformance.py``):
random playouts of each game check that the fold of its stored events is
its state, that its legal list and its refusals agree, that no view names
what its viewer may not see, that every event has a sentence for every
viewer, and, where the game has them, that a rewind with replay returns the
state and a record replays to the same events. A game added to the
registry is checked here with no line of its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee import ruleset as registry
from tests.conformance import CHECKS, conformance, position

TOY_POSITIONS = [
    "name: Seven\nrules: ['1']\nsetup: {counters: 7, first: North}\n",
    "name: Twelve\nrules: ['1']\nsetup: {counters: 12, first: South}\n",
]


def _toy() -> Any:
    from tests.toygame.game import TOY

    return TOY


@pytest.fixture(scope="module")
def found() -> dict[str, dict[str, list[str]]]:
    out = {game: conformance(registry.get(game)) for game in registry.games()}
    toy = _toy()
    out[toy.id] = conformance(toy, [position(toy, text) for text in TOY_POSITIONS])
    return out


GAMES = [*registry.games(), "toy-takeaway"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("game", GAMES)
def test_every_game_keeps_what_the_kernel_promises(game: str, check: str, found: dict) -> None:
    assert found[game][check] == [], f"{game} breaks {check}"


def test_the_suite_plays_each_game() -> None:
    """Not a suite that checks nothing: each game is played from its starts."""
    from tests.conformance import play, starts

    for game in registry.games():
        ruleset = registry.get(game)
        played = [play(ruleset, s, 0, 10) for s in starts(ruleset)]
        assert played and any(p.actions for p in played), game
