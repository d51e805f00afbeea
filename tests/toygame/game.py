"""A toy take-away game as a ``referee.ruleset.Ruleset``, seats North and South.

The tests register it beside Harem Master and SCP-TCG to show that a third
game, whose seats are not A and B, plugs into the kernel with a package and
one registry line: the store, `new --position`, `act`, `state`, `log`,
`legal`, player links and the board take its seats from it. Rule 1: the
player to move takes 1 to 3 counters; rule 2: who takes the last one wins.
Everything else a game may answer (decks, records, scenarios' expectations)
it refuses as outside its rules.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from events.kernel import ActionTaken, Event, GameEnded, JudgeCalled, NoteAdded, Rewound
from referee.actions import Applied, IllegalAction, Refusal
from referee.inputs import Document, InputError
from referee.ruleset import ActionSpec, ArgSpec, Decision, Outcome, Started, rows_by_event
from referee.scenario import Reader
from tests.toygame.events import GAME, CountersTaken, PileSetUp

SEATS = ("North", "South")
OUTSIDE = "outside the toy game's two rules"


@dataclass(frozen=True, slots=True)
class Move:
    player: str | None
    do: str
    n: int | None = None

    def arguments(self) -> dict[str, object]:
        return {} if self.n is None else {"n": self.n}

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "do": self.do, **self.arguments()}


@dataclass
class Pile:
    position: int = 0
    counters: int = 0
    to_move: str = SEATS[0]
    names: dict[str, str] | None = None
    winner: str | None = None
    judge_call: str | None = None
    seed: int = 0
    mode: str = "strict"
    violations: tuple[Any, ...] = ()


def _refuse(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(Refusal(rule, reason))


def _other(seat: str) -> str:
    return SEATS[1] if seat == SEATS[0] else SEATS[0]


def evolve(state: Pile, event: Event) -> Pile:
    s = Pile(**{**state.__dict__, "position": state.position + 1})
    if isinstance(event, PileSetUp):
        s.counters, s.to_move, s.names = event.counters, event.first, dict(event.names)
    elif isinstance(event, CountersTaken):
        s.counters -= event.n
        s.to_move = _other(event.player)
    elif isinstance(event, GameEnded):
        s.winner = event.winner
    elif isinstance(event, JudgeCalled):
        s.judge_call = event.by or "the table"
    elif isinstance(event, (NoteAdded, Rewound)):
        s.judge_call = None
        if isinstance(event, Rewound):
            s.__dict__.update({k: v for k, v in event.state.items() if k != "position"})
    return s


class TakeAway:
    id = GAME
    name = "Toy take-away"
    rules_document = "the two rules in tests/toygame/game.py"
    complete = False
    seats: tuple[str, ...] = SEATS
    viewers: tuple[str, ...] = ("judge", *SEATS, "public")
    record_format: str | None = None
    rulings: Mapping[str, tuple[str, ...]] = {}
    first_events: tuple[type, ...] = (PileSetUp,)
    event_modules: tuple[str, ...] = ("tests.toygame.events",)
    outside = OUTSIDE
    card_type: type = dict
    state_type: type = Pile
    rewinds = None
    board = None
    playout_skips: frozenset[str] = frozenset()
    start_options: tuple[Any, ...] = ()
    record_keys: tuple[str, ...] = ()
    action_args: tuple[str, ...] = ("n",)
    actions: Mapping[str, ActionSpec] = {
        "take": ActionSpec("take", "1", (ArgSpec("n", "count", True, help="1 to 3 counters"),), "take counters")
    }

    # --- starting --------------------------------------------------------------

    def start_from_position(self, data: Mapping[str, Any], doc: Document) -> Started:
        reader = Reader(doc, self.seats)
        setup = reader.mapping(data.get("setup"), ("setup",), ("counters", "first"), ("counters",))
        counters = reader.int_(setup["counters"], ("setup", "counters"), 1, 99)
        first = reader.player(setup.get("first", SEATS[0]), ("setup", "first"))
        event = PileSetUp(rule="1", counters=counters, first=first, names={s: s for s in SEATS})
        return Started([event], evolve(Pile(), event), {})

    def load_scenario(self, doc: Document) -> Any:
        reader = Reader(doc, self.seats)
        data = reader.mapping(doc.data, (), ("game", "name", "rules", "setup"), ("game", "name", "setup"))
        started = self.start_from_position(data, doc)
        return type("ToySetup", (), {"events": started.events, "name": data["name"], "state": started.state})()

    def run_scenario(self, scenario: Any) -> Any:
        raise _refuse("1", f"scenario checks are {OUTSIDE}")

    def setup_of(self, first_event: Event) -> None:
        return None

    def start(self, decks: Any, **_: Any) -> Applied:
        raise _refuse("1", f"decks are {OUTSIDE}")

    def load_decks(self, files: Any, pool: Any) -> Any:
        raise _refuse("1", f"decks are {OUTSIDE}")

    def load_deck(self, file: str | Path, pools: Any) -> Any:
        raise InputError(file, "", f"decks are {OUTSIDE}")

    def load_pool(self, file: str | Path) -> Any:
        raise InputError(file, "", f"cards are {OUTSIDE}")

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> Any:
        return {}

    def deck_problems(self, cards: Sequence[Any]) -> list[str]:
        return [f"decks are {OUTSIDE}"]

    def bundled_cards(self) -> Mapping[str, Any]:
        return {}

    def random_deck(self, rng: random.Random, cards: Any) -> Any:
        raise _refuse("1", f"decks are {OUTSIDE}")

    # --- the state -------------------------------------------------------------

    def initial_state(self) -> Pile:
        return Pile()

    def evolve(self, state: Pile, event: Event) -> Pile:
        return evolve(state, event)

    def fold(self, events: Iterable[Event], state: Pile | None = None) -> Pile:
        s = state if state is not None else Pile()
        for event in events:
            s = evolve(s, event)
        return s

    def encode_state(self, state: Pile, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        return {k: v for k, v in state.__dict__.items() if k not in omit}

    def decode_state(self, data: Mapping[str, Any], base: Pile | None = None) -> Pile:
        return Pile(**{**(base.__dict__ if base is not None else {}), **data})

    # --- deciding --------------------------------------------------------------

    def decision(self, state: Pile) -> Decision | None:
        if state.winner is not None or state.names is None:
            return None
        return Decision(state.to_move, "take", "1", "take 1 to 3 counters")

    def legal_actions(self, state: Pile) -> list[Move]:
        d = self.decision(state)
        if d is None:
            return []
        return [Move(d.player, "take", n) for n in range(1, min(3, state.counters) + 1)]

    def decide(self, state: Pile, action: Move) -> list[Event]:
        if action.player not in SEATS:
            raise _refuse("1", f"the seats are {' and '.join(SEATS)}, not {action.player}")
        if state.winner is not None:
            raise _refuse("2", "The game is over.")
        if action.player != state.to_move:
            raise _refuse("1", f"It is {state.to_move}'s move, not {action.player}'s.")
        if action.do != "take" or action.n is None or not 1 <= action.n <= min(3, state.counters):
            raise _refuse("1", f"Take 1 to {min(3, state.counters)} counters.")
        events: list[Event] = [CountersTaken(rule="1", player=action.player, n=action.n)]
        if action.n == state.counters:
            events.append(GameEnded(rule="2", winner=action.player, reason=f"{action.player} took the last counter"))
        return events

    def is_legal(self, state: Pile, action: Move) -> Refusal | None:
        try:
            self.decide(state, action)
        except IllegalAction as exc:
            return exc.refusal
        return None

    def canonical(self, state: Pile, action: Move) -> Move:
        return action

    def own_events(self, state: Pile, action: Move, *, strict: bool = False) -> list[Event]:
        events = self.decide(state, action)
        taken = ActionTaken(rule="1", player=action.player, do=action.do, args=action.arguments())
        return [taken, *events]

    def advance(self, state: Pile, out: list[Event] | None = None) -> tuple[list[Event], Pile]:
        return (out if out is not None else []), state

    def apply(self, state: Pile, action: Move, *, strict: bool = False) -> Applied:
        events = self.own_events(state, action, strict=strict)
        return Applied(events, self.fold(events, state))

    def chance_outcomes(self, state: Pile) -> list[tuple[Move, float]]:
        return []

    def action_from_mapping(self, data: Mapping[str, Any]) -> Move:
        return Move(data.get("player"), str(data.get("do")), data.get("n"))

    def resolve(self, state: Pile, action: Move, labels: Mapping[str, str] | None = None) -> Move:
        return action

    def scores(self, state: Pile) -> None:
        return None

    def result(self, state: Pile) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(state.winner, False, "2", reason=f"{state.winner} took the last counter")

    # --- what each viewer reads ------------------------------------------------

    def view(self, state: Pile, viewer: str) -> dict[str, Any]:
        return {
            "game": GAME,
            "event": state.position,
            "result": None if state.winner is None else {"winner": state.winner},
            "zones": {"pile": {"count": state.counters, "cards": None}},
            "violations": [],
            "mode": state.mode,
            **({"judge_call": state.judge_call} if state.judge_call else {}),
        }

    def render_view(self, view: Mapping[str, Any]) -> str:
        return f"Toy take-away, event {view['event']}: {view['zones']['pile']['count']} counters"

    def describe(self, event: Event, state_before: Pile, viewer: str = "judge") -> str:
        if isinstance(event, PileSetUp):
            return f"A pile of {event.counters} counters; {event.first} moves first."
        if isinstance(event, CountersTaken):
            return f"{event.player} takes {event.n}."
        if isinstance(event, ActionTaken):
            return f"{event.player}: {event.do} {event.args}."
        if isinstance(event, GameEnded):
            return f"{event.winner} wins: {event.reason}."
        return type(event).__name__

    def describe_log(
        self, events: Sequence[Event], state: Pile, viewer: str = "judge", retracted: Iterable[int] = ()
    ) -> list[dict[str, Any]]:
        return rows_by_event(self, events, state, viewer, retracted)

    def describe_action(self, state: Pile, action: Move, viewer: str = "judge") -> dict[str, Any]:
        return action.to_dict()

    def list_actions(self, described: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
        return [(f"{a['player']} {a['do']} n={a.get('n')}", [""]) for a in described]

    def card_texts(self, state: Pile, view: Any = None, actions: Any = None) -> None:
        return None

    def unlisted_cards(self, state: Pile, pool: str | None) -> Mapping[str, Any]:
        return {}

    def with_unlisted(self, state: Pile, action: Any, lookup: Any) -> Any:
        return action

    def read_record_header(self, reader: Any, data: Mapping[str, Any]) -> Any:
        raise _refuse("1", f"records are {OUTSIDE}")

    def record_decks(self, setup: Any, log: Sequence[Event]) -> Any:
        raise _refuse("1", f"records are {OUTSIDE}")

    def read_action(self, reader: Any, raw: Any, path: tuple[Any, ...]) -> Any:
        raise _refuse("1", f"records are {OUTSIDE}")


TOY = TakeAway()
