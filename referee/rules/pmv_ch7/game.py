"""Phantom Magic Vision, chapter 7 (effects), as a ``referee.ruleset.Ruleset``: a fragment that says so.

It answers what chapter 7 decides about effects (how one resolves, clause
by clause, and ends; activated effects used and resolved; automatic
effects applying and triggering; an effect resolved as if used; waiting
effects), with abstract test cards whose effects are clauses
(docs/games/pmv-ch7.md), and refuses everything else citing ``7``,
"outside the effect rules of chapter 7": no decks, no result, nothing of
the rest of the game invented under its name. Its matches start from a
position (``position``), its records write that position (``records``), a
judge rewinds them (``rewinds``), and the board draws them from the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from events.pmv_ch7.effects import GAME, PositionSetUp
from projections.pmv_ch7 import sentences, views
from projections.pmv_ch7.state import SEATS, Table, evolve, initial_state
from referee.rules.pmv_ch7 import activated, automatic, engine, resolution, table  # noqa: F401 - each declares its moves
from referee.rules.pmv_ch7.common import ARGUMENTS, MOVES, OUTSIDE, Action
from referee.rules.pmv_ch7.position import start_from_position
from referee.rules.pmv_ch7.rewinds import REWINDS
from referee.ruleset import Ruleset, later


def action_from_mapping(data: Mapping[str, Any]) -> Action:
    """An action as the notation writes it (``{player, do, ...}``)."""
    return Action(data.get("player"), str(data.get("do")), **{k: data.get(k) for k in ARGUMENTS})


PMV_CH7: Ruleset[Table, Action] = Ruleset(
    id=GAME,
    name="Phantom Magic Vision, chapter 7 (effects)",
    rules_document="Phantom Magic Vision comprehensive rules, chapter 7 (カードのテキストと効果, 7.1-7.8)",
    seats=SEATS,
    outside=OUTSIDE,
    first_events=(PositionSetUp,),
    initial_state=initial_state,
    evolve=evolve,
    position=start_from_position,
    decision=engine.decision,
    moves=MOVES,
    action_from_mapping=action_from_mapping,
    view=views.state_view,
    describe=sentences.describe,
    automatic=engine.automatic_step,
    loops=engine.LOOPS,
    viewers=views.VIEWERS,
    render_view=views.render_state,
    cards=attrgetter("cards"),
    records=later("referee.rules.pmv_ch7.records:RECORDS"),
    scenarios=later("referee.rules.pmv_ch7.scenario:SCENARIOS"),
    rewinds=REWINDS,
)
