"""A game's moves, each declared once: the rule it cites, its arguments, the candidates a player might send, its one check.

A game makes one ``Moves`` registry and declares each kind of move on the
function that checks it (``@MOVES.move("take", "1", args=..., candidates=...)``),
beside the rule that gives it meaning. The kernel's procedure
(``referee.procedure``) does the rest the same way for every game: the legal
list is each decision's candidates that the move's check accepts
(python-chess's ``generate_legal_moves`` filtered by ``is_legal``), so listing
and refusing can never disagree; ``referee act --help``, the notation, the
scenario and record readers and the board's forms read the arguments from
here.

A check returns the events the move causes, or raises ``IllegalAction``
citing the rule. Where making the events is work (a card about to move sets
off what waits for that moment), it may return a function that makes them:
listing only needs to know the check passed, and an action chosen from the
list is decided by making the events its listing found.

The rest of ``Moves`` is what a game with more procedure than "whoever must
act answers the decision" tells the kernel, each optional: moves either
player may make whatever the table waits for (conceding), the rules about an
action that answers no decision (whose turn it is), what a move implies
before its check (a hidden card named as it leaves the hand), the order of
the legal list, an action's normal form, and what its record cites.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple

from typing_extensions import TypeVar

from events.kernel import Event
from referee.actions import IllegalAction, Refusal

S = TypeVar("S")  # a game's state
A = TypeVar("A")  # a game's action


def refuse(rule: str, reason: str, physical: bool = False) -> IllegalAction:
    """The refusal of an action, to raise: the rule and a sentence a player understands."""
    return IllegalAction(Refusal(rule, reason, physical))


# --- what a game tells the kernel -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One argument of an action kind: its name in the notation, what it holds
    (``card``, ``cards``, ``zone``, ``count``, ``choice``, ``flag``; ``name``,
    ``names``: what the table saw, not a card of the match, as a reveal names
    it), whether it is required and, for a choice, the values it may take.
    ``also``: for a zone, the words the notation takes beside the zones the
    game's view lists (SCP-TCG's ``A.sandbox``, "a sandbox", 402.1a), which
    go to the rules rather than being told apart as a typo."""

    name: str
    kind: str
    required: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One ``do`` of a game as the kernel hands it out: the rule its record
    cites and the arguments it takes."""

    do: str
    rule: str
    args: tuple[ArgSpec, ...] | None = None
    help: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must act now, what kind of choice it is, and the rule that asks for it.

    ``player`` None means any seat may enter the next action (a fragment with no
    turn order, where the table enters what a card's process instructs).
    ``moves`` are the moves that answer it (None: every move the game has).
    ``chance`` marks a choice that is the table's, not a strategy: a hidden card
    turned face up at a table-dealt match, which the table reveals (OpenSpiel's
    chance node; seeded matches decide those from the seed and never ask)."""

    player: str | None
    kind: str
    rule: str
    text: str  # completes "A must ..."
    chance: bool = False
    # What `referee legal --json` says of it beside who and what kind (Harem
    # Master's ``reveal`` at a table-dealt match: who turns, which rule, why,
    # at most how many; SCP-TCG's ``rule``).
    extra: Mapping[str, Any] | None = None
    moves: tuple[str, ...] | None = None


class Context(NamedTuple):
    """What an action is checked in: the kind of decision it answers (a move
    may answer several, each its own way: ``pass`` ends one window one way
    and another another; ``ANY`` for a move made whatever the table waits
    for) and the rules record mode waives (a physical violation the table
    committed, recorded rather than refused)."""

    kind: str
    waive: frozenset[str] = frozenset()


ANY = "any"  # the context of a move made whatever the table waits for (``Moves.any_time``)

# The events a move causes: a list, or the function that makes them once the
# action is taken (every refusal is raised before that function).
Events = list[Event] | Callable[[], list[Event]]
# A move's one check: its events, or ``IllegalAction`` citing the rule. The
# action it is given is a seat's (the kernel has refused any other player
# before), which a game may type more narrowly than its actions (Harem
# Master's ``Seated``), hence ``Any``.
Check = Callable[[S, Any, Context], Events]
# Every action of one move a seat might send now; the check decides which are legal.
Candidates = Callable[[S, str, Context], Iterable[A]]


def made(events: Events) -> list[Event]:
    """The events a check accepted an action with, made now if it deferred them."""
    return events() if callable(events) else events


def joined(*parts: Events) -> Events:
    """Several checks' events one after the other, made when the last of them are."""
    if any(callable(p) for p in parts):
        return lambda: [e for p in parts for e in made(p)]
    return [e for p in parts for e in p]  # type: ignore[union-attr]


@dataclass(frozen=True)
class Move(Generic[S, A]):
    """One ``do`` of a game: the rule its record cites, the arguments it takes,
    what it does (``referee act --help``), its one check and its candidates.
    A game may declare its moves with a subclass carrying more of its own
    (where the notation finds the card a move names)."""

    do: str
    rule: str
    args: tuple[ArgSpec, ...]
    help: str
    check: Check[S]
    candidates: Candidates[S, A]

    @property
    def spec(self) -> ActionSpec:
        return ActionSpec(self.do, self.rule, self.args, self.help)

    def takes(self, name: str) -> bool:
        """Does this move take the argument ``name``?"""
        return any(a.name == name for a in self.args)


def only(do: str, make: Callable[[str, str], Any]) -> Candidates[Any, Any]:
    """The candidates of a move that takes no argument: the action itself (``make(player, do)``)."""

    def candidates(state: Any, player: str, ctx: Context) -> list[Any]:
        return [make(player, do)]

    return candidates


K = TypeVar("K", bound="Move[Any, Any]", default="Move[Any, Any]")  # a game's kind of move (``Moves(kind=...)``)


class Moves(Generic[S, A, K]):
    """Every move of one game, in the order they were declared (or sorted).

    ``any_time``: the moves any seat may make whatever the table waits for,
    checked without asking whose decision it is (Harem Master's conceding,
    102.7). The optional rules, each None where the kernel's own answer is
    the game's:

    - ``seated(player)``: the refusal of an action by a player who has no
      seat (default: the seats named, citing ``seat_rule``);
    - ``before(state, action, waive)``: what the rules decide of an action
      before asking whose decision it is; events, or None to go on (Harem
      Master's interception entered after the referee passed it over, 306.5c);
    - ``elsewhere(state, action, decision, ctx)``: the answer to an action that
      answers no decision in front of the table (the wrong player, a move the
      decision does not take, nobody to act): its refusal, citing the rule
      that forbids it, or in record mode the events the table played (default:
      refused citing the decision's rule);
    - ``prepare(state, ctx, check)``: the check a move has at ``state``,
      where an action implies something first (a hidden card named as it
      leaves the hand is revealed, then the move's own ``check`` runs);
      None where the move's own check is all (asked once per legal list);
    - ``retract(state, action)``: an event that takes back the referee's own
      steps before the action is recorded (None: nothing to take back);
    - ``record(state, action)``: the rule and arguments the action's record
      (``ActionTaken``) cites, None for the move's own;
    - ``rank(state, decision)``: the key the legal list is sorted by, None to
      keep the candidates' order;
    - ``canonical(state, action)``: the action as the legal list writes it.
    """

    def __init__(
        self,
        *,
        kind: type[Any] = Move,
        seat_rule: str = "",
        strict_arguments: bool = False,
    ) -> None:
        self.kind: type[K] = kind
        self.kinds: dict[str, K] = {}
        self.any_time: tuple[str, ...] = ()
        self.seat_rule = seat_rule
        # True: an argument the move does not declare, or a required one left
        # out, is refused citing the move's rule before its check runs.
        self.strict_arguments = strict_arguments
        self.seated: Callable[[object], IllegalAction] | None = None
        self.before: Callable[[S, A, frozenset[str]], Events | None] | None = None
        self.elsewhere: Callable[[S, A, Decision | None, Context], Events] | None = None
        self.prepare: Callable[[S, Context, Check[S]], Check[S] | None] | None = None
        self.retract: Callable[[S, A], Event | None] | None = None
        self.record: Callable[[S, A], tuple[str, dict[str, Any]] | None] | None = None
        self.rank: Callable[[S, Decision], Callable[[A], int] | None] | None = None
        self.canonical: Callable[[S, A], A] | None = None

    def move(
        self,
        do: str,
        rule: str,
        *,
        args: tuple[ArgSpec, ...] = (),
        help: str,
        candidates: Candidates[S, A],
        any_time: bool = False,
        **more: Any,
    ) -> Callable[[Check[S]], Check[S]]:
        """Declare move ``do``, checked by the decorated function; ``more`` are
        the fields of the game's own ``Move`` subclass (``kind``)."""

        def register(check: Check[S]) -> Check[S]:
            if do in self.kinds:
                raise TypeError(f"move {do!r} is declared twice")
            self.kinds[do] = self.kind(do, rule, args, help, check, candidates, **more)
            if any_time:
                self.any_time += (do,)
            return check

        return register

    def sort(self, key: Callable[[K], Any]) -> None:
        """Put the moves in ``key``'s order (the rules they cite), as the
        notation's table and ``act --help`` list them."""
        ordered = sorted(self.kinds.values(), key=key)
        self.kinds.clear()
        self.kinds.update((k.do, k) for k in ordered)

    def specs(self) -> dict[str, ActionSpec]:
        """Every move as the kernel hands it out."""
        return {do: kind.spec for do, kind in self.kinds.items()}

    # --- a mapping of do -> Move ------------------------------------------------

    def __getitem__(self, do: str) -> K:
        return self.kinds[do]

    def get(self, do: str) -> K | None:
        return self.kinds.get(do)

    def __contains__(self, do: object) -> bool:
        return do in self.kinds

    def __iter__(self) -> Iterator[str]:
        return iter(self.kinds)

    def __len__(self) -> int:
        return len(self.kinds)

    def items(self) -> Iterable[tuple[str, K]]:
        return self.kinds.items()

    def values(self) -> Iterable[K]:
        return self.kinds.values()


def rule_key(rule: str) -> tuple[int, int, str]:
    """``306.5a`` as (306, 5, "a"), for putting rule numbers in their order."""
    section, _, rest = rule.partition(".")
    digits = "".join(ch for ch in rest if ch.isdigit())
    return int(section) if section.isdigit() else 0, int(digits) if digits else -1, rest[len(digits) :]


__all__ = [
    "ANY",
    "ActionSpec",
    "ArgSpec",
    "Candidates",
    "Check",
    "Context",
    "Decision",
    "Events",
    "Move",
    "Moves",
    "joined",
    "made",
    "only",
    "refuse",
    "rule_key",
]
