"""SCP-TCG-JP-J 購買部版, chapter 4 (zones), as a ``referee.ruleset.Ruleset``: a fragment that says so.

It answers what chapter 4 decides (where a card a process moves ends up,
who may see and reorder what, protection and breach, the order of
Decommissioned) and refuses everything else citing ``4``, "outside the
zone rules of chapter 4": no decks, no turns, no result, nothing of the
rest of the game invented under its name, so it has no ``decks``,
``tournaments`` or ``selfplay`` capability, and the kernel says so in one
line when asked. Its matches start from a position (``position``), its
records write that position (``records``), a judge rewinds them
(``rewinds``, ruling:S13), and the board draws them from the core alone.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path

from events.scp_tcg.zones import GAME, ZonesSetUp
from projections.scp_tcg import sentences, state as zone_state, views
from projections.scp_tcg.state import SEATS, ZoneState, evolve, initial_state
from referee.rules.scp_tcg import engine
from referee.rules.scp_tcg.common import MOVES, OUTSIDE, Instruction
from referee.rules.scp_tcg.position import start_from_position
from referee.rules.scp_tcg.resolve import describe, instruction_from_mapping, resolve
from referee.rules.scp_tcg.rewinds import REWINDS
from referee.ruleset import Ruleset, by_kind_and_subject, later

SCP_TCG_ZONES: Ruleset[ZoneState, Instruction] = Ruleset(
    id=GAME,
    name="SCP-TCG-JP-J 購買部版, chapter 4 (zones)",
    rules_document="SCP-TCG-JP-J 購買部版 comprehensive rules, chapter 4 (400-406)",
    seats=SEATS,
    outside=OUTSIDE,
    first_events=(ZonesSetUp,),
    initial_state=initial_state,
    evolve=evolve,
    position=start_from_position,
    decision=engine.decision,
    moves=MOVES,
    action_from_mapping=instruction_from_mapping,
    view=views.state_view,
    describe=sentences.describe,
    automatic=engine.automatic,
    viewers=views.VIEWERS,
    resolve=resolve,
    describe_action=describe,
    group_actions=by_kind_and_subject,  # ~1,400 legal instructions for 13 cards: by kind, then card or zone
    render_view=views.render_state,
    cards=attrgetter("cards"),
    read_action=later("referee.rules.scp_tcg.scenario:read_action"),
    templates=Path(__file__).parent / "templates",  # a zone's details on the board drawn from the core
    records=later("referee.rules.scp_tcg.records:RECORDS"),
    scenarios=later("referee.rules.scp_tcg.scenario:SCENARIOS"),
    rewinds=REWINDS,
    codec=zone_state,  # encode_state, encode_snapshot, decode_state
)
