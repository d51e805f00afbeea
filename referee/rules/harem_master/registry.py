"""The three registries the rule modules fill: action kinds, decision kinds, procedure steps.

Each concept is declared once, beside the rule that gives it meaning:

- an **action kind** (``do: attack``): the rule its ``ActionTaken`` cites and
  where the notation looks for the card it names;
- a **decision kind** (``intercept``): its rule, the sentence that says what
  the player must do, the actions that answer it, how they are checked and
  how the legal ones are listed;
- a **procedure step** (``303``): who must act there, if anyone, and the
  automatic event the referee takes there otherwise.

The engine (``engine``) only looks things up here, so a reader finds a
rule's behaviour in the module named after its number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from events.game import Event
from projections.state import GameState
from referee.actions import Action


class Decision(NamedTuple):
    """Who must act now, and what kind of choice they face."""

    player: str
    kind: str


@dataclass(frozen=True)
class ActionKind:
    """One ``do`` of the notation (scenario format, section 3)."""

    do: str
    rule: str  # cited by the action's ActionTaken event
    card_from: str | None = None  # where `card` is found: hand | castle | own_field | usable
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


Decider = Callable[[GameState, Action, frozenset[str]], list[Event]]
Lister = Callable[[GameState, str], list[Action]]


@dataclass(frozen=True)
class DecisionKind:
    """A kind of choice the procedure waits for."""

    name: str
    rule: str
    text: str  # completes "A must ...", citing the rule
    actions: tuple[str, ...]  # the ``do``s that answer it
    decide: Decider  # checks an answer: its events, or IllegalAction
    legal: Lister  # every answer the player may give


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


def action_kind(
    do: str,
    rule: str,
    *,
    card_from: str | None = None,
    missing_rule: str | None = None,
    side: str | None = None,
    side_rule: str | None = None,
    side_text: str | None = None,
) -> ActionKind:
    kind = ActionKind(do, rule, card_from, missing_rule, side, side_rule, side_text)
    ACTIONS[do] = kind
    return kind


def decision_kind(name: str, rule: str, text: str, actions: tuple[str, ...], decide: Decider, legal: Lister) -> DecisionKind:
    kind = DecisionKind(name, rule, text, actions, decide, legal)
    KINDS[name] = kind
    return kind


def step(
    *names: str, decision: Callable[[GameState], Decision | None] | None = None
) -> Callable[[Callable[[GameState], Event | list[Event] | None]], Callable[[GameState], Event | list[Event] | None]]:
    """Register the automatic handler of one or more steps."""

    def register(fn: Callable[[GameState], Event | list[Event] | None]) -> Callable[[GameState], Event | list[Event] | None]:
        for name in names:
            STEPS[name] = Step(name, fn, decision)
        return fn

    return register
