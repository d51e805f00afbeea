"""4-5: interrupts, resolved last in, first out.

An effect used waits to resolve on top of whatever waits already. Only
介入 and 対応 interrupt (4-5a): an intervention card, or an ability of
either timing; moving to a destination, an action (such as setting a
騒動) and the draw phase wait until nothing does. The table enters
``resolve`` when nobody interrupts (more): the effect on top resolves first,
the one it interrupted waiting (4-5b); an interrupt may itself be
interrupted (4-5c), and once it has resolved, the one below may be
interrupted anew (4-5d). An effect resolves in one go once begun: nobody
interrupts it half way (ruling G12).

An ability whose user left the field, or whose costs can no longer be paid,
is not resolved (4-5e, ``abilities.begin``). An action whose player dropped
out (脱落, entered with ``eliminate``: when that happens is another
chapter's) is not resolved (4-5f). What an action does is outside §4: it
is recorded as carried out.
"""

from __future__ import annotations

from events.gensokyo.table import EffectNotResolved, EffectResolved, EffectUsed, PlayerEliminated, ResolutionBegan
from events.kernel import Event
from projections.gensokyo.state import Entry, Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo.common import MOVES, Instruction, refuse


def nothing_waits(state: Table, what: str) -> None:
    """4-5a: only 介入 and 対応 interrupt; anything else waits until nothing waits."""
    if state.stack:
        raise refuse(
            "4-5a",
            f"An effect waits to resolve: only 介入 and 対応 interrupt it (4-5a), not {what}; "
            "let it resolve first (resolve).",
        )


@MOVES.move(
    "resolve",
    "4-5b",
    help="nobody interrupts (more): the effect on top resolves",
    candidates=lambda state, seat, ctx: [Instruction(seat, "resolve")],
)
def resolve(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-5b: the last effect used resolves first; the one it interrupted waits."""
    top = state.top()
    if top is None:
        raise refuse("4-5b", "Nothing waits to resolve.")
    assert a.player is not None
    return [ResolutionBegan.trusted(player=top.player)]


@MOVES.move(
    "act",
    "4-5f",
    args=(ArgSpec("text", "choice", False, help="the action, in words (設置: a 騒動 is set)"),),
    help="the player takes an action of another chapter (such as setting a 騒動); it may be interrupted",
    candidates=lambda state, seat, ctx: [Instruction(seat, "act")],
)
def act(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-5f: an action waits to resolve, and may be interrupted."""
    nothing_waits(state, "an action")
    assert a.player is not None
    return [EffectUsed.trusted(rule="4-5f", player=a.player, kind="action", text=a.text or "")]


@MOVES.move(
    "eliminate",
    "4-5f",
    help="the player drops out (脱落), as a rule outside §4 decides",
    candidates=lambda state, seat, ctx: [Instruction(seat, "eliminate")],
)
def eliminate(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-5f: recorded for what it does to an action waiting to resolve; when
    a player drops out is decided outside §4."""
    assert a.player is not None
    if a.player in state.eliminated:
        raise refuse("4-5f", f"{a.player} has dropped out already.")
    return [PlayerEliminated.trusted(player=a.player)]


def resolve_action(state: Table, top: Entry) -> list[Event]:
    """4-5f: an action resolves unless its player dropped out; what it does is outside §4."""
    if top.player in state.eliminated:
        reason = f"{top.player}, who took it, has dropped out"
        return [EffectNotResolved.trusted(rule="4-5f", player=top.player, reason=reason)]
    return [EffectResolved.trusted(player=top.player)]
