"""The facts of a Phantom Magic Vision chapter-7 match: effects used, resolved clause by clause, applied and triggered.

Each event is a frozen pydantic model, past tense, citing the rule of
chapter 7 that produced it (``7`` for what the table enters on behalf of
another chapter: a condition that comes to hold, a card that moves, the
turn or priority passing). Effects are named ``CARD#N`` (its N-th effect,
from 1) or ``CARD#play`` (the text applied when its play resolves, 7.1.2);
a waiting effect (7.8) by the id it was given (``w1``). Stored logs name
these classes ``pmv-ch7:ClassName``: never rename one without keeping old
logs readable (``events.TOPIC_ALIASES``).
"""

from __future__ import annotations

from typing import Final, Literal

from events.kernel import Event
from events.names import stored_as
from events.pmv_ch7.cards import Card, Clause

GAME: Final = "pmv-ch7"
Outcome = Literal["success", "failure"]


class PositionSetUp(Event):
    """A position written by hand: the match's first event.

    ``cards`` in the order the position lists them, which for the cards on
    the field is the order they came onto it (7.4.5.e); ``field`` each
    seat's cards on the field, the rest being elsewhere; ``conditions`` the
    named conditions that hold; ``invalid`` the cards whose text is invalid."""

    game: Literal["pmv-ch7"] = GAME
    rule: str = "scenario"
    seed: int = 0
    names: dict[str, str]
    cards: dict[str, Card]
    field: list[str]
    turn: str
    priority: str
    conditions: list[str] = []
    points: dict[str, int] = {}
    invalid: list[str] = []
    mode: str = "strict"


# --- what a clause does ---------------------------------------------------------------


class ConditionSet(Event):
    """The named condition holds now (a clause's ``set``, or another chapter's process)."""

    condition: str


class ConditionCleared(Event):
    """The named condition no longer holds."""

    condition: str


class CardsMoved(Event):
    """The cards went to the field or elsewhere, together (7.1.13)."""

    cards: list[str]
    to: Literal["field", "elsewhere"]


class ValueAdded(Event):
    """``n`` was added to the value ``value`` of each of ``cards``, at once (7.1.13)."""

    cards: list[str]
    value: str
    n: int


class PointsPaid(Event):
    """The player paid ``n`` of their points (a cost, 7.3.4.e)."""

    player: str
    n: int


class TextInvalidated(Event):
    """The cards' text is invalid from now on (7.1.12.d, 7.3.1.b, 7.3.3.b)."""

    cards: list[str]


class TextRewritten(Event):
    """The effect ``effect`` now reads ``text`` (7.1.12.d: an effect being resolved goes on as it read)."""

    effect: str
    text: list[Clause]


class LastingBegan(Event):
    """A clause with ``until`` made what it sets or adds last: it applies, apart
    from the card it came from (7.1.16), until its ``until`` conditions hold.
    ``key`` is the text of the effect it came from ("does not stack", 7.1.14)."""

    id: str
    effect: str
    clause: Clause
    cards: list[str] = []
    key: str
    unique: bool = False


class LastingEnded(Event):
    """The lasting effect's ``until`` conditions hold: it no longer applies."""

    id: str


class WaitingBegan(Event):
    """7.8.1: a waiting effect: ``text`` is done when ``when`` holds, whatever
    becomes of the card or effect it came from (7.8.2)."""

    id: str
    effect: str
    player: str
    when: list[str]
    text: list[Clause]


class EffectNullified(Event):
    """The effect being resolved at ``depth`` (0: the outermost) was nullified
    during its application and is gone (7.1.12.c)."""

    effect: str
    depth: int


# --- resolution, clause by clause (7.1) ------------------------------------------------


class ResolutionBegan(Event):
    """An effect begins to resolve (7.1.6: one at a time): the card's text as
    it reads now (the chosen mode's, 7.1.15), or a waiting effect's.

    ``kind``: ``play`` (7.2.1), ``activated`` (an effect used, 7.3.5),
    ``gamma`` (7.4.7), ``at_will`` (7.4.4), ``waiting`` (7.8.1),
    ``as_used`` (7.5.2.d). ``source`` is the card it comes from (7.5.4)."""

    kind: Literal["play", "activated", "gamma", "at_will", "waiting", "as_used"]
    effect: str
    source: str
    player: str
    mode: int | None = None
    declared: str | None = None
    paid: int = 0
    met: list[bool] = []  # for each "as if used" clause: were its effect's conditions met when this was used (7.5.1.b)


class ClauseApplied(Event):
    """Clause ``index`` (from 0) of the effect being resolved was applied as
    it says; ``missed``: cards of an "all" clause it could not apply to (7.1.12.e)."""

    effect: str
    index: int
    missed: list[str] = []


class ClauseFailed(Event):
    """Clause ``index`` could not be applied as it says (7.1.12): the text after
    it is not applied. ``missed``: the cards it could not apply to (it applied
    to the others, at once, 7.1.13)."""

    effect: str
    index: int
    reason: str
    missed: list[str] = []


class FallbackBegan(Event):
    """7.1.12.b: the text says what to do when that clause cannot apply; that is applied instead."""

    effect: str


class ResolutionEnded(Event):
    """The effect finished resolving, a success (7.1.11, 7.1.12.b, 7.1.12.e)
    or a failure (7.1.12.a, 7.1.12.c, 7.3.5.a): what was applied stays."""

    effect: str
    outcome: Outcome


class AsUsedBegan(Event):
    """7.5: an effect is resolved as if it had been used (no cost paid, 7.5.1.c)."""

    effect: str
    by: str  # the effect whose clause says so


# --- activated effects (7.3) ------------------------------------------------------------


class EffectUsed(Event):
    """7.3.4.a: the player declared using the effect."""

    player: str
    effect: str
    entry: int  # how many times its card had come onto the field (7.3.1.b: it must not leave before resolving)


class ModeChosen(Event):
    """7.3.4.b: which of the effect's effects resolves (7.1.15: the others never do)."""

    effect: str
    mode: int


class DeclarationMade(Event):
    """7.3.4.d: what the player declared."""

    effect: str
    word: str


class CostPaid(Event):
    """7.3.4.e: the cost is paid (the clauses' own events come before)."""

    effect: str
    paid: int  # the points paid (referred to by ``n: paid``)
    met: list[bool] = []  # 7.5.1.b, for each "as if used" clause of the text


class InterferenceBegan(Event):
    """7.3.4.f: an interference began with the effect used."""

    effect: str


class PriorityPassed(Event):
    """7.3.4.f: priority passed to the next player in turn order."""

    to: str


class EffectVoided(Event):
    """7.3.1.b: the card of an effect used left the field, or its text became
    invalid, before it resolved: the effect is void and never resolves."""

    effect: str
    reason: str


class InterferenceEnded(Event):
    """No effect used in the interference is left to resolve: it is over (ruling:P12)."""


# --- automatic effects (7.4) -------------------------------------------------------------


class AutoApplied(Event):
    """An automatic α (7.4.5.c) or β (7.4.6.c) applies from now on."""

    effect: str


class AutoLapsed(Event):
    """An automatic α or β no longer applies (7.4.5.d, 7.4.6.d; 7.4.5.a: its card left the field)."""

    effect: str
    reason: str


class AutoChoiceAsked(Event):
    """7.4.5.f: the α's condition is met and its player chooses whether it applies."""

    effect: str
    player: str


class AutoChoiceMade(Event):
    """7.4.5.f: the choice, which stands until the condition is met again."""

    effect: str
    player: str
    apply: bool


class AutoChoiceReleased(Event):
    """7.4.5.f: the α's condition is no longer met; the next time it is, its player chooses again."""

    effect: str


class EffectApplied(Event):
    """7.4.4: the player, holding priority, applied an automatic effect they may apply at will."""

    player: str
    effect: str


class GammaWatched(Event):
    """The automatic γ effects whose conditions hold now, none of them newly
    met: at the position, or after a condition stopped holding (ruling:P9)."""

    held: list[str]


class GammaTriggered(Event):
    """7.4.7.c: the conditions of these γ effects were met at the same time."""

    effects: list[str]
    held: list[str]


class GammaSkipped(Event):
    """7.4.7.d: the γ's condition no longer holds, or its card left the field: it is not resolved."""

    effect: str
    reason: str


class WaitingTriggered(Event):
    """7.8.1: the situation these waiting effects wait for came; they are processed at once (7.1.10)."""

    ids: list[str]


class EffectPicked(Event):
    """7.1.6.a, 7.1.17: the player chose which of their effects resolves next."""

    player: str
    effect: str


# --- what other chapters do, entered by the table ---------------------------------------


class TurnPassed(Event):
    """The turn passed to ``to`` (the turn is another chapter's)."""

    to: str


class PriorityGiven(Event):
    """``to`` holds priority now (how priority moves is another chapter's, but for 7.3.4.f)."""

    to: str


stored_as(__name__, GAME)  # a new game's classes are stored under its id (``events.names``)
