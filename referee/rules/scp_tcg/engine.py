"""The SCP-TCG zone rules as a state machine: the decision in front of the table, legal instructions, applying one.

Chapter 4 has no turns (chapter 5 has them), so the table is always free to
enter the next instruction a process gives, for either seat, except while
an owner must order cards arriving at their Decommissioned zone together
(405.4). After each instruction the automatic steps run, each at once and
off the chain as their rules say: cards on a card that left the site go to
Decommissioned (401.5c), a sandbox at 0 protection or less is restored and
breached (402.6), a searched sandbox is shuffled (402.7).
"""

from __future__ import annotations

from dataclasses import replace

from events.kernel import ActionTaken, Event
from projections.scp_tcg.state import SEATS, ZoneState, evolve
from referee.actions import Applied, IllegalAction, Refusal
from referee.rules.scp_tcg import decommissioned, instructions, sandbox, site
from referee.rules.scp_tcg.common import KINDS, Instruction, refuse, seat
from referee.ruleset import Decision

FREE = Decision(
    None,
    "instruction",
    "400.1",
    "enter the next thing a process does with the zones, for either player (docs/scp-tcg.md lists them)",
)


def decision(state: ZoneState) -> Decision:
    """405.4's owner ordering arriving cards, else the table's next instruction."""
    return decommissioned.ordering(state) or FREE


def decide(state: ZoneState, a: Instruction) -> list[Event]:
    """The events the instruction itself causes, or ``IllegalAction`` citing the rule."""
    seat(a.player)
    d = decision(state)
    if d.player is not None and (a.do != "order" or a.player != d.player):
        cards = ", ".join(state.cards[c].name for c in state.arriving[d.player])
        raise refuse(
            "405.4",
            f"{d.player} is putting {cards} onto their Decommissioned zone (405.4): "
            f"{d.player} orders them (order) before anything else happens.",
        )
    return instructions.check(state, a)


def is_legal(state: ZoneState, a: Instruction) -> Refusal | None:
    try:
        decide(state, a)
    except IllegalAction as exc:
        return exc.refusal
    return None


def canonical(state: ZoneState, a: Instruction) -> Instruction:
    """``a`` as ``legal_actions`` writes it: one card as ``card`` rather than
    ``cards``, a pile's ``at`` given (top by default), ``instructed`` left out
    where it changes nothing (looking at Decommissioned, 405.3)."""
    if a.cards is not None and len(a.cards) == 1 and a.card is None and a.do != "reorder":
        a = replace(a, card=a.cards[0], cards=None)
    if a.do in ("move", "search") and a.at is None and a.to is not None and instructions.is_pile(a.to):
        a = replace(a, at="top")
    if a.do == "look" and a.instructed is False:
        a = replace(a, instructed=None)
    return a


def legal_actions(state: ZoneState) -> list[Instruction]:
    """Every instruction ``decide`` accepts now (see ``instructions`` for the
    two kinds whose unbounded arguments are proposed in a bounded range)."""
    d = decision(state)
    if d.player is not None:
        proposed = instructions.candidates(state, d.player, only=("order",))
    else:
        proposed = (a for s in SEATS for a in instructions.candidates(state, s))
    return [a for a in proposed if is_legal(state, a) is None]


def automatic(state: ZoneState) -> list[Event] | None:
    """The next automatic step, if any (none while an owner orders arrivals)."""
    if state.arriving:
        return None
    return site.freed_stacks(state) or sandbox.breach(state) or sandbox.shuffle(state)


def advance(state: ZoneState, out: list[Event] | None = None) -> tuple[list[Event], ZoneState]:
    events: list[Event] = [] if out is None else out
    while True:
        step = automatic(state)
        if not step:
            return events, state
        for event in step:
            state = evolve(state, event)
            events.append(event)


def own_events(state: ZoneState, a: Instruction, *, strict: bool = False) -> list[Event]:
    """The instruction's record (``ActionTaken``) and its events: one whole."""
    events = decide(state, a)
    kind = KINDS[a.do]
    # decide() refused a player other than A or B (``seat``)
    return [
        ActionTaken(rule=kind.spec.rule, player=a.player, do=a.do, args=a.arguments()),  # type: ignore[arg-type]
        *events,
    ]


def apply(state: ZoneState, a: Instruction, *, strict: bool = False) -> Applied:
    """Every event of the instruction and the automatic steps after it, or
    ``IllegalAction`` with nothing applied."""
    events: list[Event] = []
    for event in own_events(state, a, strict=strict):
        state = evolve(state, event)
        events.append(event)
    events, state = advance(state, events)
    return Applied(events, state)
