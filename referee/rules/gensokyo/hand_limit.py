"""4-6: the hand maximum and an empty 山札: when a draw of any kind stops.

A player whose hand is at or above its maximum (normally 10) draws nothing,
by any means: 活力 and the draw phase included (4-6a). A multi-card draw is
that many draws of one card, each checked, so it stops at the maximum
(ruling G4: "10枚以上", at or above, is checked before every card). An empty
山札 is never rebuilt and the game goes on (4-6b); with no 山札 nobody draws
(4-6c). An effect in force that denies a kind of draw (4-1d) is checked
first: 活力 and plain draws are told apart (``vitality``).

The draw phase's draw (``draw_phase``) and a plain draw a process of another
chapter gives (``draw``) are the table's to enter, with how many cards the
rest of the rules give; ``rebuild`` is the table asking to rebuild 山札,
which 4-6b refuses.
"""

from __future__ import annotations

from events.gensokyo.table import CardDrawn, DrawKind, DrawStopped
from events.kernel import Event
from projections.gensokyo.state import SEATS, Table
from referee.moves import ArgSpec, Context
from referee.rules.gensokyo import interrupts
from referee.rules.gensokyo.common import MOVES, Instruction, refuse
from referee.rules.gensokyo.vitality import DRAW_RULE, denied


def draws(state: Table, player: str, n: int, kind: DrawKind) -> list[Event]:
    """``player`` draws ``n`` cards as ``kind``, one at a time from the top of
    山札, stopping where 4-1d, 4-6a or 4-6c stop them (a ``DrawStopped`` says which)."""
    if denied(state, player, kind):
        return [DrawStopped.trusted(rule="4-1d", player=player, kind=kind, wanted=n, drawn=0)]
    hand, deck = len(state.hand(player)), state.zones["deck"]
    out: list[Event] = []
    for i in range(n):
        if hand + i >= state.maximum(player):
            ruling = "G4" if i else None  # a multi-card draw stopped part way
            out.append(DrawStopped.trusted(rule="4-6a", ruling=ruling, player=player, kind=kind, wanted=n, drawn=i))
            break
        if i >= len(deck):
            out.append(DrawStopped.trusted(rule="4-6c", player=player, kind=kind, wanted=n, drawn=i))
            break
        out.append(CardDrawn.trusted(rule=DRAW_RULE[kind], player=player, card=deck[i], kind=kind))
    return out


def _counts(state: Table, seat: str, do: str) -> list[Instruction]:
    return [Instruction(seat, do, n=n) for n in (1, 2, 3)]


def _n(a: Instruction, rule: str) -> int:
    if a.n is None or a.n < 1:
        raise refuse(rule, "Say how many cards (n, at least 1).")
    return a.n


@MOVES.move(
    "draw_phase",
    "4-6a",
    args=(ArgSpec("n", "count", True, help="how many cards the draw phase draws (the rest of the rules say)"),),
    help="the player's draw phase draws n cards (4-6a stops it at the hand maximum)",
    candidates=lambda state, seat, ctx: _counts(state, seat, "draw_phase"),
)
def draw_phase(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-6a: the draw phase draws like any draw; 4-5a: not while an effect waits."""
    n = _n(a, "4-6a")
    interrupts.nothing_waits(state, "the draw phase")
    assert a.player in SEATS
    return draws(state, a.player, n, "ドローフェイズ")


@MOVES.move(
    "draw",
    "4-1d",
    args=(ArgSpec("n", "count", True, help="how many cards"),),
    help="a process of another chapter makes the player draw n cards (a plain draw, not 活力)",
    candidates=lambda state, seat, ctx: _counts(state, seat, "draw"),
)
def draw(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-1d: a plain draw; 4-6 stops it as any draw."""
    n = _n(a, "4-1d")
    assert a.player in SEATS
    return draws(state, a.player, n, "ドロー")


@MOVES.move(
    "rebuild",
    "4-6b",
    help="rebuild 山札 from 幻想 (never: 4-6b)",
    candidates=lambda state, seat, ctx: [Instruction(seat, "rebuild")],
)
def rebuild(state: Table, a: Instruction, ctx: Context) -> list[Event]:
    """4-6b: 山札 is never rebuilt, empty or not; the game goes on."""
    empty = "empty" if not state.zones["deck"] else "not empty"
    raise refuse(
        "4-6b",
        f"山札 is never rebuilt (it is {empty}); the game goes on, and with no 山札 nobody draws (4-6b, 4-6c).",
    )
