"""The three registries the rule modules fill: action kinds, decision kinds, procedure steps.

Each concept is declared once, beside the rule that gives it meaning:

- an **action kind** (``do: attack``): the rule its ``ActionTaken`` cites,
  the arguments it takes (``ArgSpec``, which the notation, the command line
  and the docs follow), where the notation looks for the card it names, and
  the one function that checks it (its events, or the refusal citing the
  rule) with the candidates a player might send. The legal list is the
  candidates that check accepts (python-chess's ``generate_legal_moves``
  filtered by ``is_legal``), so refusing and listing can never disagree;
- a **decision kind** (``intercept``): its rule, the sentence that says what
  the player must do, and the actions that answer it;
- a **procedure step** (``303``): who must act there, if anyone, and the
  automatic event the referee takes there otherwise.

The engine (``engine``) only looks things up here, so a reader finds a
rule's behaviour in the module named after its number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from events.kernel import Event
from projections.harem_master.state import GameState
from referee.actions import Action, Seated
from referee.ruleset import ArgSpec


class Decision(NamedTuple):
    """Who must act now, and what kind of choice they face."""

    player: str
    kind: str


class Context(NamedTuple):
    """What an action is checked in: the kind of decision it answers (an
    action may answer several: ``pass`` ends a 305 window, a 307 one and a
    406.2 one, each its own way) and the rules record mode waives (a
    physical violation the table committed, recorded rather than refused)."""

    kind: str
    waive: frozenset[str] = frozenset()


# The events an action itself causes: a list, or, where making them is work
# (the moment before a card moves, 403.1a, 409), the function that makes them
# once the action is taken, for listing the legal actions needs only to know
# that the check passed. Every refusal is raised before that function.
Events = list[Event] | Callable[[], list[Event]]
# An action's events, or ``IllegalAction`` citing the rule.
Check = Callable[[GameState, Seated, Context], Events]
# Every action of one kind a player might send now; the check decides which are legal.
Candidates = Callable[[GameState, str, Context], Iterable[Action]]


@dataclass(frozen=True)
class ActionKind:
    """One ``do`` of the notation (scenario format, section 4)."""

    do: str
    rule: str  # cited by the action's ActionTaken event
    args: tuple[ArgSpec, ...]  # the arguments it takes, as the notation names them
    help: str  # what it does, for `referee act --help`
    check: Check
    candidates: Candidates
    card_from: str | None = None  # where `card` is found: hand | castle | own_field | usable
    cards_from: str | None = None  # where `cards` are found, when not anywhere: hand
    missing_rule: str | None = None  # cited when the named card is nowhere it could be used from
    # Which side of the turn may take it ("active" | "non_active"), and the
    # rule and sentence that refuse it to the other side: more useful to a
    # player than "it is not your decision".
    side: str | None = None
    side_rule: str | None = None
    side_text: str | None = None

    @property
    def refusal_rule(self) -> str:
        return self.missing_rule or self.rule

    def takes(self, name: str) -> bool:
        """Does this action take the argument ``name``?"""
        return any(a.name == name for a in self.args)

    @property
    def names_cards(self) -> bool:
        """Does it name cards by what the table saw (``name``/``names``), not by the match's cards?"""
        return any(a.kind in ("name", "names") for a in self.args)


@dataclass(frozen=True)
class DecisionKind:
    """A kind of choice the procedure waits for."""

    name: str
    rule: str
    text: str  # completes "A must ...", citing the rule
    actions: tuple[str, ...]  # the ``do``s that answer it


@dataclass(frozen=True)
class Step:
    """A step of the procedure (``state.step``): who must act there, else the
    automatic event(s) the referee takes."""

    name: str
    automatic: Callable[[GameState], Event | list[Event] | None]
    decision: Callable[[GameState], Decision | None] | None = None


ACTIONS: dict[str, ActionKind] = {}
KINDS: dict[str, DecisionKind] = {}
STEPS: dict[str, Step] = {}


# --- the arguments actions take (scenario format, section 4) -----------------------------

CARD = ArgSpec("card", "card", required=True, help="the card, by name or id (A:12)")
TARGET = ArgSpec("target", "card", required=True, help="the character an item goes on")
TARGETS = ArgSpec("targets", "cards", help="targets named in advance, in the order the text names them (407.4)")
CARDS = ArgSpec("cards", "cards", required=True, help="the cards, by name or id")
N = ArgSpec("n", "count", help="the n of an [n] cost (503.2)")
ABILITY = ArgSpec(
    "ability", "count", help="which of the card's abilities, counted from 1 (default: its first activated one)"
)
OPTION = ArgSpec(
    "option", "choice", help='yes or no for a "may" (401.7), or the card whose replacement applies (409.3)'
)
ORDER = ArgSpec("order", "choice", required=True, choices=("first", "second"), help="first or second")
# A name the table saw, not one card of the match (a table-dealt match's reveal, 100.2).
NAME = ArgSpec("card", "name", help="the name of the card the table turned face up")
NAMES = ArgSpec("cards", "names", help="several cards turned at once, top first (306.5m)")


def action(
    do: str,
    rule: str,
    *,
    args: tuple[ArgSpec, ...] = (),
    help: str,
    candidates: Candidates,
    card_from: str | None = None,
    cards_from: str | None = None,
    missing_rule: str | None = None,
    side: str | None = None,
    side_rule: str | None = None,
    side_text: str | None = None,
) -> Callable[[Check], Check]:
    """Declare action ``do``, checked by the decorated function."""

    def register(check: Check) -> Check:
        if do in ACTIONS:
            raise TypeError(f"action {do!r} is declared twice")
        ACTIONS[do] = ActionKind(
            do, rule, args, help, check, candidates, card_from, cards_from, missing_rule, side, side_rule, side_text
        )
        return check

    return register


def rule_key(rule: str) -> tuple[int, int, str]:
    """``306.5a`` as (306, 5, "a"), for putting rule numbers in their order."""
    section, _, rest = rule.partition(".")
    digits = "".join(ch for ch in rest if ch.isdigit())
    return int(section), int(digits) if digits else -1, rest[len(digits) :]


def in_rule_order() -> None:
    """Put ``ACTIONS`` in the order of the rules they cite (as the notation's
    table and ``act --help`` list them), once every module has declared its own."""
    ordered = sorted(ACTIONS.values(), key=lambda k: rule_key(k.rule))
    ACTIONS.clear()
    ACTIONS.update((k.do, k) for k in ordered)


def decision_kind(name: str, rule: str, text: str, actions: tuple[str, ...]) -> DecisionKind:
    if name in KINDS:
        raise TypeError(f"decision kind {name!r} is declared twice")
    kind = DecisionKind(name, rule, text, actions)
    KINDS[name] = kind
    return kind


def made(events: Events) -> list[Event]:
    """The events a check accepted an action with, made now if it deferred them."""
    return events() if callable(events) else events


def joined(*parts: Events) -> Events:
    """Several checks' events one after the other, made when the last of them are."""
    if any(callable(p) for p in parts):
        return lambda: [e for p in parts for e in made(p)]
    return [e for p in parts for e in p]  # type: ignore[union-attr]


def only(do: str) -> Candidates:
    """The candidates of an action that takes no argument: the action itself."""

    def candidates(state: GameState, player: str, ctx: Context) -> list[Action]:
        return [Action(player, do)]

    return candidates


def step(
    *names: str, decision: Callable[[GameState], Decision | None] | None = None
) -> Callable[[Callable[[GameState], Event | list[Event] | None]], Callable[[GameState], Event | list[Event] | None]]:
    """Register the automatic handler of one or more steps."""

    def register(
        fn: Callable[[GameState], Event | list[Event] | None],
    ) -> Callable[[GameState], Event | list[Event] | None]:
        for name in names:
            STEPS[name] = Step(name, fn, decision)
        return fn

    return register
