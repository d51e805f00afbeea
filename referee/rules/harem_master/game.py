"""Harem Master as a ``referee.ruleset.Ruleset``: the whole game, rules 100-506, declared.

Each member names the function of the module that owns its rule (the
engine's procedure, the fold of ``projections.harem_master.state``, the
views, the sentences of the transcript, the notation) and each capability
the module that is it (decks and pools with 100.2, match records,
scenarios, 410's rewinds, the board's own parts, tournaments' scores,
self-play's chance). The kernel does the rest the way it does for every
game; ``tests/test_conformance.py`` plays it at random against the kernel's
promises, and ``tests/test_ruleset.py`` holds it to what its engine did
before the kernel owned the procedure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

from events.harem_master.game import MatchStarted, PositionSetUp
from projections.harem_master import codec, transcript, views as projection_views
from projections.harem_master.state import IN_PLACE, GameState, evolve, initial_state
from referee.rules.harem_master import checks, engine, hidden, notation, views
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.registry import ACTIONS
from referee.rules.harem_master.rewinds import REWINDS
from referee.ruleset import Outcome, Ruleset, later


def result(state: GameState) -> Outcome | None:
    """How the game ended (102, 103.2; a draw by 102.8 or ruling A30), None while it goes on."""
    r = state.result
    if r is None:
        return None
    return Outcome(r.winner, r.draw, r.rule, r.ruling, dict(r.scores) if r.scores is not None else None, r.reason)


def card_texts(
    state: GameState, view: Mapping[str, Any] | None = None, actions: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, Any] | None:
    """The text of the cards a view or described actions name: only names the
    viewer's view or actions show (215)."""
    names = (
        views.names_in_view(dict(view)) if view is not None else views.action_names([dict(a) for a in actions or ()])
    )
    return views.card_texts(state, names)


class Tournaments:
    """What a tournament asks of the game beyond its decks and result."""

    def scores(self, state: GameState) -> Mapping[str, int]:
        """102.3/103.2's count without the castle bonus (ruling A26): a game cut short by time."""
        return {seat: state.score(seat) for seat in ("A", "B")}


class SelfPlay:
    """Random play: conceding and draws are never picked (102.7, 102.8), and
    a table-dealt match's reveals are the table's chance."""

    playout_skips: frozenset[str] = frozenset(engine.ANY_TIME)

    def chance_outcomes(self, state: GameState) -> list[tuple[Action, float]]:
        """A table-dealt match's reveal: each unknown card of the owner is
        equally likely to be the one turned (the true card of a shuffled paper
        castle), as ``referee.simulate.random_action`` draws it."""
        found = engine.decision(state)
        if found is None or not found.chance:
            return []
        why = hidden.pending(state)
        owner = why.player if why is not None else found.player
        seen = [a for a in HAREM_MASTER.legal_actions(state) if a.do == "reveal" and a.card in state.seen]
        if seen:  # seen before a rewind (ruling A36): it is that card
            return [(seen[0], 1.0)]
        cards = sorted(hidden.unknown_of(state, owner))  # type: ignore[arg-type]  # a reveal is a player's: owner is a seat
        return [(Action(found.player, "reveal", card=c), 1 / len(cards)) for c in cards]


HAREM_MASTER: Ruleset[GameState, Action] = Ruleset(
    # --- the core -------------------------------------------------------------
    id="harem-master",
    name="Harem Master",
    rules_document="Harem Master comprehensive rules, 100-506",
    seats=("A", "B"),
    outside="100.1",  # nothing is outside: the referee knows every rule of the game
    first_events=(MatchStarted, PositionSetUp),
    initial_state=initial_state,
    evolve=evolve,
    position=later("referee.rules.harem_master.scenario:position"),  # its scenario files' reader
    decision=engine.decision,
    moves=ACTIONS,
    action_from_mapping=notation.action_from_mapping,
    view=views.state_view,
    describe=transcript.describe,
    # --- what it writes beyond the core -----------------------------------------
    automatic=engine.automatic,
    checks=checks.state_check,
    push=engine.push,
    loops=engine.LOOPS,
    result=result,
    viewers=projection_views.VIEWERS,
    resolve=notation.resolve,
    describe_action=notation.describe_action,
    list_actions=notation.action_lines,
    render_view=projection_views.render_state,
    describe_log=transcript.log_rows,
    cards=attrgetter("cards"),
    card_texts=card_texts,
    read_action=later("referee.rules.harem_master.scenario:read_action"),
    templates=Path(__file__).parent / "templates",  # its board: board.html
    # --- its capabilities (a module a command may not need is named, imported on first use)
    decks=later("referee.rules.harem_master.decks:DECKS"),
    records=later("referee.rules.harem_master.records:RECORDS"),
    scenarios=later("referee.rules.harem_master.scenario:SCENARIOS"),
    scenario_writer=later("referee.rules.harem_master.written"),
    rewinds=REWINDS,
    board=later("referee.rules.harem_master.board"),
    tournaments=Tournaments(),
    selfplay=SelfPlay(),
    codec=codec,
    in_place=IN_PLACE,
)
