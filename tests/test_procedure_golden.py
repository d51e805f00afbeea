"""The procedure written once in the kernel decides as each game's own engine did.

Before issue 31 each game had its own legality, legal list, own events,
automatic steps and apply. ``tests/data/procedure-golden.json`` holds, for
147 random games (Harem Master seeded, vanilla, table-dealt and in record
mode; from the positions of Harem Master's and SCP-TCG's scenario files),
one digest of every decision, every legal list in its order, the verdict
on a made-up action at each step (rule, sentence, physical) and every
event, as the referee at commit 4edfc60 computed them
(``tests/procedurekit.py``). Today's referee must compute the very same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.procedurekit import Digest, all_cases

GOLDEN = json.loads((Path(__file__).parent / "data" / "procedure-golden.json").read_text())


@pytest.fixture(scope="module")
def today() -> dict:
    return all_cases(only=GOLDEN)


def test_every_game_is_played_again() -> None:
    assert len(GOLDEN) == 147 and Digest().hexdigest()


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_the_procedure_decides_as_the_games_own_engines_did(case: str, today: dict) -> None:
    assert today.get(case) == GOLDEN[case]
