"""The SCP-TCG zone rules' procedure: the decision in front of the table, the automatic steps, an instruction's normal form.

Chapter 4 has no turns (chapter 5 has them), so the table is always free to
enter the next instruction a process gives, for either seat, except while
an owner must order cards arriving at their Decommissioned zone together
(405.4): then that owner orders them, and meanwhile either seat may still
do what the text allows at any time (count a sandbox, 402.2; look at a
Decommissioned zone, 405.3). After each instruction the automatic steps
run, each at once and off the chain as their rules say: cards on a card
that left the site go to Decommissioned (401.5c), a sandbox at 0
protection or less is restored and breached (402.6), a searched sandbox is
shuffled (402.7). The kernel
(``referee.ruleset``) lists, decides and applies instructions from these
and the instructions' own checks (``instructions``).
"""

from __future__ import annotations

from dataclasses import replace

from events.kernel import Event
from projections.scp_tcg.state import SANDBOXES, ZONES, ZoneState, kind_of
from referee.moves import Context, Decision, Events
from referee.rules.scp_tcg import decommissioned, instructions, sandbox, site
from referee.rules.scp_tcg.common import MOVES, Instruction, not_seated, outside, refuse
from referee.rules.scp_tcg.decommissioned import AT_ANY_TIME

FREE = Decision(
    None,
    "instruction",
    "400.1",
    "enter the next thing a process does with the zones, for either player (docs/games/scp-tcg-s4.md lists them)",
    extra={"rule": "400.1"},  # `legal --json` cites it
)


def decision(state: ZoneState) -> Decision:
    """405.4's owner ordering arriving cards (or counting, or looking: 402.2
    and 405.3 allow those at any time), else the table's next instruction."""
    ordering = decommissioned.ordering(state)
    if ordering is not None:
        return replace(ordering, extra={"rule": ordering.rule}, moves=("order", *AT_ANY_TIME))
    return FREE


def elsewhere(state: ZoneState, a: Instruction, d: Decision | None, ctx: Context) -> Events:
    """An instruction while an owner orders arriving cards (405.4): the other
    seat's count or look (402.2, 405.3: at any time), checked as the owner's
    is; anything else refused. Or one chapter 4 does not have."""
    if d is not None and d.player is not None:
        kind = MOVES.get(a.do)
        if kind is None or a.do not in AT_ANY_TIME:
            raise decommissioned.waiting(state)
        takes = {arg.name for arg in kind.args}
        extra = [key for key in a.arguments() if key not in takes]
        if extra:
            raise refuse(kind.rule, f"{a.do} takes {', '.join(sorted(takes))}; not {', '.join(extra)}.")
        return kind.check(state, a, ctx)
    known = ", ".join(MOVES)
    raise outside(f"{a.do!r} is not something chapter 4 decides; its instructions are {known}.")


def canonical(state: ZoneState, a: Instruction) -> Instruction:
    """``a`` as the legal list writes it: one card as ``card`` rather than
    ``cards``, a pile's ``at`` given (top by default), ``instructed`` left out
    where it changes nothing (looking at Decommissioned, 405.3), an amount
    of damage or protection past the sandbox's maximum as the maximum, which
    it acts as (402.6a)."""
    if a.cards is not None and len(a.cards) == 1 and a.card is None and a.do != "reorder":
        a = replace(a, card=a.cards[0], cards=None)
    if a.do in ("move", "search") and a.at is None and a.to is not None and instructions.is_pile(a.to):
        a = replace(a, at="top")
    if a.do == "look" and a.instructed is False:
        a = replace(a, instructed=None)
    if a.do in ("damage", "raise_protection") and a.n is not None and a.zone in ZONES and kind_of(a.zone) in SANDBOXES:
        a = replace(a, n=min(a.n, sandbox.maximum(a.zone)))  # a larger amount acts as the maximum does (402.6a)
    return a


def automatic(state: ZoneState) -> list[Event] | None:
    """The next automatic step, if any (none while an owner orders arrivals)."""
    if state.arriving:
        return None
    return site.freed_stacks(state) or sandbox.breach(state) or sandbox.shuffle(state)


MOVES.seated = not_seated
MOVES.elsewhere = elsewhere
MOVES.canonical = canonical
