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

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from events.kernel import Event
from projections.harem_master.state import GameState
from referee.moves import (
    ArgSpec,
    Candidates as KernelCandidates,
    Check as KernelCheck,
    Context as Context,
    Events as Events,
    Move,
    Moves,
    joined as joined,
    made as made,
    rule_key as rule_key,
)
from referee.rules.harem_master.actions import Action


class Decision(NamedTuple):
    """Who must act now, and what kind of choice they face (the kernel's
    ``referee.moves.Decision`` adds the rule and the sentence: ``engine.decision``)."""

    player: str
    kind: str


Check = KernelCheck[GameState]
Candidates = KernelCandidates[GameState, Action]


@dataclass(frozen=True)
class ActionKind(Move[GameState, Action]):
    """One ``do`` of the notation (scenario format, section 4): the kernel's
    move, with where the notation finds the card it names and which side of
    the turn may take it."""

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


# Every player action, declared once in the kernel's registry (``referee.moves``);
# a refusal to a player who has no seat cites 100.1.
ACTIONS: Moves[GameState, Action, ActionKind] = Moves(kind=ActionKind, seat_rule="100.1")
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


def in_rule_order() -> None:
    """Put ``ACTIONS`` in the order of the rules they cite (as the notation's
    table and ``act --help`` list them), once every module has declared its own."""
    ACTIONS.sort(lambda k: rule_key(k.rule))


def decision_kind(name: str, rule: str, text: str, actions: tuple[str, ...]) -> DecisionKind:
    if name in KINDS:
        raise TypeError(f"decision kind {name!r} is declared twice")
    kind = DecisionKind(name, rule, text, actions)
    KINDS[name] = kind
    return kind


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
