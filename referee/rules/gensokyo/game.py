"""幻想郷夢紀行 §4 (細かいルールについて), as a ``referee.ruleset.Ruleset``: a fragment that says so.

It answers what §4 decides (活力 and 疲労, attributes, hand costs, abilities'
costs and what of their timings concerns interrupts, the order interrupts
resolve in, the hand maximum and an empty 山札, the two decks and 幻想) and
refuses everything else citing ``4``, "outside §4": no decks, no turns, no
result, nothing of the rest of the game invented under its name, so it has
no ``decks``, ``tournaments`` or ``selfplay`` capability, and the kernel
says so in one line when asked. Its matches start from a position
(``position``), its records write that position (``records``), a judge
rewinds them (``rewinds``, ruling G14), and the board draws them from the
core alone.
"""

from __future__ import annotations

from operator import attrgetter

from events.gensokyo.table import GAME, TableSetUp
from projections.gensokyo import sentences, views
from projections.gensokyo.state import SEATS, Table, evolve
from referee.rules.gensokyo import costs, engine  # noqa: F401 - each declares its moves
from referee.rules.gensokyo.common import MOVES, OUTSIDE, Instruction
from referee.rules.gensokyo.position import start_from_position
from referee.rules.gensokyo.resolve import describe, instruction_from_mapping, resolve
from referee.rules.gensokyo.rewinds import REWINDS
from referee.ruleset import Ruleset, by_kind_and_subject, later

# The moves as docs/games/gensokyo-s4.md, ``act --help`` and the legal list give
# them: a resolving line's answers, then what players do, then the processes of
# chapters the referee does not have.
ORDER = (
    "pay",
    "decline",
    "discard",
    "choose",
    "resolve",
    "travel",
    "intervene",
    "ability",
    "act",
    "draw_phase",
    "draw",
    "move",
    "eliminate",
    "rebuild",
)
MOVES.sort(lambda kind: ORDER.index(kind.do))

GENSOKYO: Ruleset[Table, Instruction] = Ruleset(
    id=GAME,
    name="幻想郷夢紀行 §4 (細かいルールについて)",
    rules_document="幻想郷夢紀行, §4 細かいルールについて (4-1 to 4-7)",
    seats=SEATS,
    outside=OUTSIDE,
    first_events=(TableSetUp,),
    initial_state=Table,
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
    group_actions=by_kind_and_subject,  # ~580 legal actions for 30 cards, most of them moves: by kind, then card
    render_view=views.render_state,
    cards=attrgetter("cards"),
    records=later("referee.rules.gensokyo.records:RECORDS"),
    scenarios=later("referee.rules.gensokyo.scenario:SCENARIOS"),
    rewinds=REWINDS,
)
