"""The domain events of a Harem Master match, one class per kind of fact.

Every event is a frozen pydantic model named in the past tense and carries the
rule (and, where an interpretation decided, the ruling of
``shared/rules/rulings.md``) that produced it. Events are facts only: they hold
no logic, and everything random (shuffles, turned cards) is stored in them as
data, so folding the log never re-rolls anything.

Stored logs name these classes by ``events.game:ClassName``: never rename or
move one without registering the old name (see ``events.__init__``).
Fields are lists and string-keyed dicts because JSON keeps nothing else.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from events.cards import CardDef

Player = Literal["A", "B"]


class Event(BaseModel):
    """Base of every domain event: the rule that produced it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    ruling: str | None = None


# --- setting up (100-101) ---------------------------------------------------


class FieldCard(BaseModel):
    """A character on the field in a position set up by hand (scenarios)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    card: str
    controller: Player
    ready: bool = True
    items: list[str] = []


class MatchStarted(Event):
    """The decks, checked against 100.2, with every card's definition."""

    rule: str = "100.2"
    seed: int
    names: dict[str, str]
    cards: dict[str, CardDef]
    castles: dict[str, list[str]]  # deck order, top first, before 101.2
    mode: str = "strict"
    rulings: dict[str, str] = {}
    auto_pass: bool = True


class PositionSetUp(Event):
    """A whole position written by hand (a scenario's setup), not played to."""

    rule: str = "scenario"
    seed: int = 0
    names: dict[str, str]
    cards: dict[str, CardDef]
    zones: dict[str, list[str]]  # "A.castle" -> ids, top first
    field: list[FieldCard]
    turn: int
    active: Player
    first: Player
    step: str
    characters_played: int = 0
    mode: str = "strict"
    rulings: dict[str, str] = {}
    auto_pass: bool = True


class OpeningChosen(Event):
    """101.1: a cost-1 character from the deck, face down on the field."""

    rule: str = "101.1"
    player: Player
    card: str


class CastlesShuffled(Event):
    """101.2: the order each castle has after shuffling, top first."""

    rule: str = "101.2"
    orders: dict[str, list[str]]


class TurnOrderCardsTurned(Event):
    """101.3: both players turn their top card; the cards go to the bottom."""

    rule: str = "101.3"
    attempt: int
    cards: dict[str, str]
    numbers: dict[str, int]


class TurnOrderChosen(Event):
    """101.3: the player with the higher random number takes first or second."""

    rule: str = "101.3"
    player: Player
    order: Literal["first", "second"]
    first: Player


class HandDrawn(Event):
    """101.4: the top seven cards of the castle become the hand."""

    rule: str = "101.4"
    player: Player
    cards: list[str]


class MulliganTaken(Event):
    """101.5: the hand to the castle bottom in the order given, seven new cards."""

    rule: str = "101.5"
    player: Player
    returned: list[str]
    drawn: list[str]


class HandKept(Event):
    """101.5: the player keeps the hand (and so never mulligans)."""

    rule: str = "101.5"
    player: Player


class OpeningsRevealed(Event):
    """101.6: the face-down characters are turned face up."""

    rule: str = "101.6"
    cards: list[str]


# --- the turn (300-310) -----------------------------------------------------


class TurnStarted(Event):
    rule: str = "300.1"
    turn: int
    active: Player


class CharactersUntapped(Event):
    """301: every player untaps every character they control."""

    rule: str = "301"
    cards: list[str]


class StackReturnedToHand(Event):
    rule: str = "302"
    player: Player
    cards: list[str]


class StackSizeSet(Event):
    """303 (101.7/101.8 on the first turns): how many cards 303 moves."""

    rule: str = "303"
    player: Player
    count: int
    girls: int


class CardMovedToStack(Event):
    """303: one card, castle top to stack top, face down."""

    rule: str = "303"
    player: Player
    card: str


class StepPerformed(Event):
    """A step whose only work is abilities that no card in play has (304, 306.5h,
    306.5j, 306.5n, 306.5o, 308, 309 with a legal hand, 310): recorded so the log
    shows every step of the procedure and a rewind can name it."""

    text: str = ""


class WindowPassed(Event):
    """305/307: the non-active player says they are done using [OT] cards."""

    rule: str = "305"
    player: Player


class CharacterPlayed(Event):
    """306.1: a character from the hand onto the field, tapped (306.1b)."""

    rule: str = "306.1"
    player: Player
    card: str


class EventPlayed(Event):
    """306.2: an event card from the hand to its owner's discard."""

    rule: str = "306.2"
    player: Player
    card: str


class ItemPlayed(Event):
    """306.3: an item card from the hand, attached to a character."""

    rule: str = "306.3"
    player: Player
    card: str
    target: str


class CostPaid(Event):
    """215.4c: one card from the stack top to the castle top (ruling A10)."""

    rule: str = "215.4c"
    ruling: str | None = "A10"
    player: Player
    card: str


class AttackDeclared(Event):
    rule: str = "306.5a"
    player: Player


class AttackerChosen(Event):
    """306.5b: the attacking character, tapped."""

    rule: str = "306.5b"
    player: Player
    card: str


class InterceptionDeclined(Event):
    """306.5c: no interception, by choice or because nothing could intercept."""

    rule: str = "306.5c"
    player: Player
    able: bool


class InterceptorChosen(Event):
    """306.5c-d: the intercepting character, tapped."""

    rule: str = "306.5d"
    player: Player
    card: str


class BattleTypeSet(Event):
    """306.5e (combat), 306.5f (approach) or 306.5g (castle attack)."""

    kind: Literal["combat", "approach", "castle"]


class RandomNumberApplied(Event):
    """306.5i: a player turns their castle's top card and adds its number."""

    rule: str = "306.5i"
    player: Player
    character: str
    card: str
    number: int
    to: Literal["bottom", "top"]


class BattleResolved(Event):
    """306.5i: battle powers compared; ``winner`` is None for a draw."""

    rule: str = "306.5i"
    powers: dict[str, int]
    winner: Player | None


class CharacterCaptured(Event):
    """306.5k (a male, to the winner's execution pile) or 306.5l (a girl, to
    the winner's harem)."""

    card: str
    by: Player
    zone: Literal["harem", "execution"]


class CastleAttacked(Event):
    """306.5m: the attacker's physical when the step begins (ruling A6)."""

    rule: str = "306.5m"
    ruling: str | None = "A6"
    player: Player  # whose castle is attacked
    amount: int


class CardMilled(Event):
    """306.5m: one card from the attacked castle's top to its owner's discard."""

    rule: str = "306.5m"
    player: Player
    card: str


class ItemDiscarded(Event):
    """214.4f: an item whose character left the field goes to its owner's discard."""

    rule: str = "214.4f"
    card: str


class CharactersDiscarded(Event):
    """214.2e: the controller's choice of characters to discard, all at once."""

    rule: str = "214.2e"
    ruling: str | None = "A7"
    player: Player
    cards: list[str]


class EndDeclared(Event):
    rule: str = "307"
    player: Player


class EndDeclarationCancelled(Event):
    rule: str = "307.1"
    player: Player


class EndAccepted(Event):
    """307.2: the non-active player passes after the end declaration."""

    rule: str = "307.2"
    player: Player
    auto: bool = False


class HandLimitDiscarded(Event):
    """309: the active player's choice of cards over the hand maximum."""

    rule: str = "309"
    player: Player
    cards: list[str]


# --- the end (102) ----------------------------------------------------------


class Conceded(Event):
    rule: str = "102.7"
    player: Player


class DrawProposed(Event):
    rule: str = "102.8"
    player: Player


class GameEnded(Event):
    """The result as data: a winner or a draw, the rule, and scores if counted."""

    winner: Player | None = None
    draw: bool = False
    scores: dict[str, int] | None = None
    reason: str = ""


# --- the record of play and judges' corrections (410) -------------------------------


class ActionTaken(Event):
    """A player's action as they asked for it (cards as instance ids), written
    before the events it causes: the log then holds the match record that
    ``export`` writes and the actions a 410.2 replay applies again."""

    player: Player
    do: str
    args: dict[str, Any] = {}


class ViolationRecorded(Event):
    """Record mode: the action just recorded broke ``rule``; the violation stays
    open until a judge rewinds (410) or accepts it."""

    player: Player | None = None
    reason: str


class StepSkipped(Event):
    """Record mode: the table skipped a mandatory step (``rule``); ``cards`` are
    the ones its automatic moves had put in place and that go back (for 303,
    from the stack top back onto the castle top)."""

    player: Player | None = None
    cards: list[str] = []
    reason: str = ""


class NoteAdded(Event):
    """A judge's note in the log; it changes nothing on the table."""

    rule: str = "judge"
    judge: str | None = None
    text: str


class ViolationsAccepted(Event):
    """A judge leaves the open violations standing (the game is too far along)."""

    rule: str = "410"
    judge: str | None = None
    reason: str
    rules: list[str] = []


class Rewound(Event):
    """410.1/410.2: the game goes back to the position just after event ``to``.

    The restored state itself is in the event (as ``projections.codec``
    writes it), so folding the log stays one pure step per event; the events
    after ``to`` stay in the log and every view marks them retracted."""

    rule: str = "410.1"
    to: int
    reason: str
    judge: str | None = None
    replay: bool = False  # the player actions after ``to`` are applied again next
    state: dict[str, Any]
