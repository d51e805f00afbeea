"""A toy take-away game, seats North and South: a game's core and nothing more, as docs/rulesets.md writes one.

The tests register it beside Harem Master and SCP-TCG to show that a third
game, whose seats are not A and B, plugs into the kernel with its own
packages and one registry line, and that the core alone (no capability) is
enough to store, act on, show, list, win and check it: ``referee new
--position``, ``act``, ``state``, ``log``, ``legal``, a scenario file,
player links and the board, and the conformance suite. Rule 1: the player
to move takes 1 to 3 counters; rule 2: who takes the last one wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from events.kernel import ActionTaken, Event, GameEnded, JudgeCalled, NoteAdded, Rewound
from events.names import stored_as
from referee.inputs import Document
from referee.moves import ArgSpec, Context, Decision, Moves, refuse
from referee.ruleset import Outcome, Ruleset, Started
from referee.scenario import Reader
from tests.toygame.events import GAME, CountersTaken, PileSetUp

SEATS = ("North", "South")


@dataclass(frozen=True, slots=True)
class Take:
    """A player's move: take ``n`` counters."""

    player: str | None
    do: str
    n: int | None = None

    def arguments(self) -> dict[str, object]:
        return {} if self.n is None else {"n": self.n}

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "do": self.do, **self.arguments()}


@dataclass(frozen=True)
class Pile:
    """The table: the counters left, whose move it is, the winner."""

    position: int = 0
    counters: int = 0
    to_move: str = SEATS[0]
    names: dict[str, str] = field(default_factory=dict)
    winner: str | None = None
    judge_call: str | None = None
    seed: int = 0
    mode: str = "strict"
    violations: tuple[Any, ...] = ()


def evolve(state: Pile, event: Event) -> Pile:
    s = replace(state, position=state.position + 1)
    if isinstance(event, PileSetUp):
        return replace(s, counters=event.counters, to_move=event.first, names=dict(event.names))
    if isinstance(event, CountersTaken):
        return replace(s, counters=s.counters - event.n, to_move=SEATS[1 - SEATS.index(event.player)])
    if isinstance(event, GameEnded):
        return replace(s, winner=event.winner)
    if isinstance(event, JudgeCalled):
        return replace(s, judge_call=event.by or "the table")
    if isinstance(event, NoteAdded):
        return replace(s, judge_call=None)
    return s


def position(data: Mapping[str, Any], doc: Document) -> Started:
    reader = Reader(doc, SEATS)
    setup = reader.mapping(data.get("setup"), ("setup",), ("counters", "first"), ("counters",))
    counters = reader.int_(setup["counters"], ("setup", "counters"), 1, 99)
    first = reader.player(setup.get("first", SEATS[0]), ("setup", "first"))
    event = PileSetUp(rule="1", counters=counters, first=first, names={s: s for s in SEATS})
    return Started([event], evolve(Pile(), event), {})


def decision(state: Pile) -> Decision | None:
    if state.winner is not None or not state.names:
        return None
    return Decision(state.to_move, "take", "1", "take 1 to 3 counters")


MOVES: Moves[Pile, Take] = Moves(strict_arguments=True)


def _takes(state: Pile, player: str, ctx: Context) -> list[Take]:
    return [Take(player, "take", n) for n in range(1, min(3, state.counters) + 1)]


@MOVES.move(
    "take", "1", args=(ArgSpec("n", "count", True, help="1 to 3 counters"),), help="take counters", candidates=_takes
)
def take(state: Pile, a: Take, ctx: Context) -> list[Event]:
    """Rule 1, and rule 2 when the last counter is taken."""
    if a.n is None or not 1 <= a.n <= min(3, state.counters):
        raise refuse("1", f"Take 1 to {min(3, state.counters)} counters.")
    events: list[Event] = [CountersTaken(rule="1", player=a.player, n=a.n)]
    if a.n == state.counters:
        events.append(GameEnded(rule="2", winner=a.player, reason=f"{a.player} took the last counter"))
    return events


def read_take(data: Mapping[str, Any]) -> Take:
    return Take(data.get("player"), str(data.get("do")), data.get("n"))


def view(state: Pile, viewer: str) -> dict[str, Any]:
    return {
        "game": GAME,
        "event": state.position,
        "result": None if state.winner is None else {"winner": state.winner},
        "zones": {"pile": {"count": state.counters, "cards": None}},
        "violations": [],
        "mode": state.mode,
        **({"judge_call": state.judge_call} if state.judge_call else {}),
    }


def describe(event: Event, state_before: Pile, viewer: str) -> str:
    if isinstance(event, PileSetUp):
        return f"A pile of {event.counters} counters; {event.first} moves first."
    if isinstance(event, CountersTaken):
        return f"{event.player} takes {event.n}."
    if isinstance(event, ActionTaken):
        return f"{event.player}: {event.do} {event.args}."
    if isinstance(event, GameEnded):
        return f"{event.winner} wins: {event.reason}."
    if isinstance(event, Rewound):
        return f"Rewound to event {event.to}."
    return type(event).__name__


def result(state: Pile) -> Outcome | None:
    if state.winner is None:
        return None
    return Outcome(state.winner, False, "2", reason=f"{state.winner} took the last counter")


TOY: Ruleset[Pile, Take] = Ruleset(
    id=GAME,
    name="Toy take-away",
    rules_document="the two rules in tests/toygame/game.py",
    seats=SEATS,
    outside="1",
    first_events=(PileSetUp,),
    initial_state=Pile,
    evolve=evolve,
    position=position,
    decision=decision,
    moves=MOVES,
    action_from_mapping=read_take,
    view=view,
    describe=describe,
    result=result,
)


stored_as(__name__, GAME)  # its state, as its snapshots are stored (``events.names``)
