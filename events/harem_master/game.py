"""The domain events of a Harem Master match, one class per kind of fact.

Every event is a frozen pydantic model named in the past tense and carries the
rule (and, where an interpretation decided, the ruling of
``shared/rules/rulings.md``) that produced it. Events are facts only: they hold
no logic, and everything random (shuffles, turned cards) is stored in them as
data, so folding the log never re-rolls anything.

Stored logs name these classes by ``events.harem_master.game:ClassName``
(logs written before they moved here: ``events.game:ClassName``, read through
``events.MOVED_MODULES``): never rename or move one without registering the
old name (see ``events.__init__``). The kernel's events (``events.kernel``:
actions, results, judges' corrections) are part of this game's log too and
are re-exported here.
Fields are lists and string-keyed dicts because JSON keeps nothing else.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_serializer

from events.harem_master.abilities import Ability
from events.harem_master.cards import CardDef
from events.kernel import (  # the kernel's events are part of every game's log, and re-exported here
    ActionTaken as ActionTaken,
    EntryUndone as EntryUndone,
    Event,
    GameEnded as GameEnded,
    JudgeCalled as JudgeCalled,
    NoteAdded as NoteAdded,
    Rewound as Rewound,
    StepSkipped as StepSkipped,
    ViolationRecorded as ViolationRecorded,
    ViolationsAccepted as ViolationsAccepted,
)
from events.names import stored_as

# Harem Master's two seats (100.1).
Player = Literal["A", "B"]

# --- setting up (100-101) ---------------------------------------------------


class ForkOrigin(BaseModel):
    """Where a what-if fork comes from: the match it was forked from and the
    event of that match it starts after (``referee new --from MATCH --at N``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    match: str
    at: int
    by: str | None = None  # who forked it (a judge's name), where given


class _DealField(BaseModel):
    """``deal`` on a match's first event: ``seeded`` (the referee deals from
    the seed) or ``table`` (a paper match: hidden cards are unknown cards of
    their owner's deck until revealed). Left out of the stored JSON when it is
    ``seeded``, so seeded logs stay byte for byte what they were; so are the
    fields added since (a table-dealt match's ``pool``, a fork's ``origin``,
    a written position's ``known`` cards) when they are empty."""

    model_config = ConfigDict(defer_build=True)

    deal: Literal["seeded", "table"] = "seeded"

    @model_serializer(mode="wrap")
    def _omit_seeded(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("deal") == "seeded":
                del data["deal"]
            if "origin" in data and data["origin"] is None:
                del data["origin"]
            for key in ("pool", "known"):
                if key in data and not data[key]:
                    del data[key]
        return data


class FieldCard(BaseModel):
    """A character on the field in a position set up by hand (scenarios)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    card: str
    controller: Player
    ready: bool = True
    items: list[str] = []


class MatchStarted(_DealField, Event):
    """The decks, checked against 100.2, with every card's definition."""

    rule: str = "100.2"
    seed: int
    names: dict[str, str]
    cards: dict[str, CardDef]
    castles: dict[str, list[str]]  # deck order, top first, before 101.2
    mode: str = "strict"
    rulings: dict[str, str] = {}
    auto_pass: bool = True
    # 1: written before events recorded the procedure's step (projections.harem_master.legacy).
    log_format: int = 1
    # A table-dealt match: the card pool it was started with (``new --pool``),
    # where a card the table shows that is on neither deck list is looked up
    # (100.2), so the match need not be told its pool again.
    pool: list[CardDef] = []
    origin: ForkOrigin | None = None  # a what-if fork: the log up to ``origin.at`` is the origin's


class PositionSetUp(_DealField, Event):
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
    log_format: int = 1
    origin: ForkOrigin | None = None  # a what-if fork: the log up to ``origin.at`` is the origin's
    # A table-dealt position: the cards of a castle, hand or action-cost stack
    # that are known all the same (written ``known: true``); the others are unknown.
    known: list[str] = []


class CardRevealed(Event):
    """A hidden card of a table-dealt match turned face up, as the table says
    (101.3, 306.5i, 306.5m, 309, a card used from the hand): the unknown card
    at ``card``'s place is ``identity``, an unknown card of its owner's deck
    with that ``name`` (the two swap places; ``identity`` is known from now
    on). Record mode only, for a card the deck list does not have left (a
    100.2 violation): ``identity`` None and ``definition`` given; with
    ``unlisted``, the card is a new one of that id at ``card``'s place, and
    the unknown card that stood there leaves every zone but stays
    unaccounted for (the deck differs from its list by it; written before
    ``unlisted`` existed, the card at the place was given the definition)."""

    rule: str
    player: Player  # the card's owner
    card: str
    name: str
    identity: str | None = None
    definition: CardDef | None = None
    unlisted: str | None = None
    # Ruling A36: a card the table saw before a judge's rewind took its reveal
    # back is known again right after the rewind (``rule`` is the rewind's);
    # when the rules turn it face up again, the table's reveal must agree.
    again: bool = False

    @model_serializer(mode="wrap")
    def _omit_unlisted(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("unlisted") is None:
                data.pop("unlisted", None)
            if data.get("again") is False:
                data.pop("again", None)
        return data


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
    """305/307: the non-active player says they are done using [OT] cards;
    406.2: a player passes in a window (``auto``: with nothing usable)."""

    rule: str = "305"
    player: Player
    auto: bool = False


class CharacterPlayed(Event):
    """306.1: a character from the hand onto the field, tapped (306.1b).

    ``counted``: the card was held at the moment before it was used (a
    ``SituationProposed`` of situation ``use``), and that proposal already
    counted it for 306.1a: a character card counts when it is used, so a
    countered one still counts (411.1a, ruling A28). Left out of the JSON
    when false, so the events written before are stored as they were."""

    rule: str = "306.1"
    player: Player
    card: str
    counted: bool = False

    @model_serializer(mode="wrap")
    def _omit_counted(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("counted") is False:
            del data["counted"]
        return data


class EventPlayed(Event):
    """306.2: an event card from the hand to its owner's discard. With
    ``resolves`` its abilities of kind ``use`` wait on the agenda to resolve
    (407), with the choices the player gave (``n``, ``targets``, ``option``)."""

    rule: str = "306.2"
    player: Player
    card: str
    resolves: bool = False
    n: int | None = None
    targets: list[str] = []
    option: str | None = None
    about: int | None = None  # the agenda entry it responds to (407.3), if any
    it: str | None = None  # the card that situation is about


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
    """214.4f: an item whose character left the field (or, ruling A14, no
    longer meets the item's equip restriction) goes to its owner's discard;
    214.4g: one used on a character it does not suit is discarded at once."""

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


# --- abilities (400-412, 500-506) ---------------------------------------------
# An event an ability causes names the card whose ability it is as ``card``
# and the agenda entry it belongs to as ``use`` (the log position of the event
# that put it there); the cards it acts on are ``target``/``targets``.


class AbilityActivated(Event):
    """402, 306.4, 407.2: an activated ability is used; its cost follows
    ([T] as ``CardTapped``, cards as ``CostPaid``). ``ability`` counts the
    card's abilities from 1; ``definition`` is the ability as it was then."""

    rule: str = "407.2"
    player: Player
    card: str
    ability: int
    definition: Ability
    n: int | None = None
    targets: list[str] = []
    option: str | None = None
    about: int | None = None
    it: str | None = None


class CardTapped(Event):
    """504 / 402.1a: [T] in a cost turns the card from untapped to tapped."""

    rule: str = "504"
    card: str


class LastKnown(BaseModel):
    """403.2: a card as it last was on the field, for the abilities it
    triggered by leaving: its controller and its values then (printed,
    effects, statics and the faction modifier)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    controller: Player
    physical: int
    mental: int
    random: int


class TriggerFired(Event):
    """403.1, 408.1: a triggered ability's condition is met; it waits to
    resolve (408.2 orders several). ``it`` is the card the situation is about;
    ``player`` is the ability's controller (403.2: as it last was on the field).
    ``known``: the cards that left the field, as they last were there (403.2);
    left out of the stored JSON when empty."""

    rule: str = "403.1b"
    player: Player
    card: str
    ability: int
    definition: Ability
    situation: str
    it: str | None = None
    known: dict[str, LastKnown] = {}

    @model_serializer(mode="wrap")
    def _omit_known(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("known"):
            data.pop("known", None)
        return data


class TriggersOrdered(Event):
    """408.2 (ruling A23): a player orders their own simultaneous triggers."""

    rule: str = "408.2"
    ruling: str | None = "A23"
    player: Player
    cards: list[str]


class TriggerResolving(Event):
    """408.2: the next triggered ability goes on the agenda to resolve."""

    rule: str = "408.2"
    player: Player
    card: str
    index: int  # its place among the waiting triggers


class TriggerCarried(Event):
    """308.1 (ruling A12): an "at the end of the turn" ability triggered while
    308 was processed resolves at the end of the next turn."""

    rule: str = "308.1"
    ruling: str | None = "A12"
    player: Player
    card: str
    ability: int
    definition: Ability


class WindowOpened(Event):
    """406.2: a chance to use events and abilities (306.5h, or 407.3: a
    response chance ``about`` the agenda entry at that position)."""

    rule: str = "406.2"
    kind: Literal["response", "battle_type"]
    player: Player  # who may act first: the non-active player
    about: int | None = None
    situation: str | None = None  # or a moment of the procedure (turn_end, ...) it is about
    it: str | None = None
    whose: Player | None = None


class WindowClosed(Event):
    """406.2: two passes in a row; the game moves on."""

    rule: str = "406.2"


class SituationProposed(Event):
    """403.1a, 409, 214.3c: something is certain to happen (``situation``,
    about ``it``); what resolves before it comes first, then ``pending`` (the
    events of the situation itself) happens."""

    rule: str = "403.1a"
    situation: str
    it: str | None = None
    player: Player | None = None
    pending: list[
        dict[str, Any]
    ] = []  # {"type": event class name, "event": its fields, "zone": where "it" must still be}
    exempt: list[str] = []  # 409: replacements that may not apply again (the effects of one replacing)


class MomentBefore(Event):
    """403.1a, 407.3: what resolves before the agenda entry at ``about``
    (triggers, responses) comes first."""

    rule: str = "403.1a"
    about: int


class SituationProceeds(Event):
    """The situation proposed at ``about`` happens now (or, with ``cancelled``,
    cannot: its card is no longer where it was)."""

    rule: str = "403.1a"
    about: int
    cancelled: bool = False


class SituationReplaced(Event):
    """409.1-409.2: ``card``'s replacement ability applies; the situation does
    not happen, and the replacement's effects wait on the agenda instead."""

    rule: str = "409.1"
    player: Player
    card: str
    ability: int
    definition: Ability
    situation: str
    it: str | None = None
    about: int | None = None  # the proposal or use it replaces, if it was on the agenda
    fact: int | None = None  # which of the proposal's pending events it replaces
    exempt: list[str] = []  # replacements that may not apply to what replaced it (409.3)


class Chosen(Event):
    """401.7, 407.4, 409.3: a choice made while something resolves: target
    ``cards``, or ``option`` (yes/no for "may", a replacement's card)."""

    rule: str = "407.4"
    player: Player
    use: int | None = None
    cards: list[str] = []
    option: str | None = None


class UseResolving(Event):
    """407.4: the card or ability at ``use`` resolves (after the response
    chance); ``active`` are its abilities (from 0) whose condition holds now."""

    rule: str = "407.4"
    use: int
    card: str
    active: list[int] = [0]


class EffectsApplied(Event):
    """407.5: one step of a resolution has happened ("then" starts the next).
    ``targets_left`` are the targets named in advance that this step did not
    take, for the steps after it (None in logs written before it existed:
    every step then saw all of them)."""

    rule: str = "407.5"
    use: int
    card: str
    targets_left: list[str] | None = None


class UseResolved(Event):
    """407: the card or ability at ``use`` has resolved (or was countered: 411.1b)."""

    rule: str = "407.4"
    use: int
    card: str


class UseCountered(Event):
    """411.1b-d: the use at ``countered`` has no effect; costs stay paid."""

    rule: str = "411.1b"
    card: str
    use: int | None = None
    target: str
    countered: int


class CounterFailed(Event):
    """411.2: the card cannot be countered, so the counter fails."""

    rule: str = "411.2"
    card: str
    use: int | None = None
    target: str
    countered: int


class ValuesModified(Event):
    """An effect adds to a card's values (201-210 as 501/502 read them);
    ``until`` says when it ends (310, 306.5o), None while the card stays."""

    rule: str = "407.5"
    card: str
    use: int | None = None
    target: str
    physical: int = 0
    mental: int = 0
    random: int = 0
    until: str | None = None


class CharactersTapped(Event):
    """214.2c: an effect taps (or, with ``untap``, untaps) characters."""

    rule: str = "214.2c"
    card: str
    use: int | None = None
    targets: list[str]
    untap: bool = False


class CardMoved(Event):
    """An effect moves a card to ``to`` of ``player`` (top or bottom);
    a character entering the field enters tapped (214.2f)."""

    rule: str = "407.5"
    card: str
    use: int | None = None
    target: str
    to: str
    player: Player
    position: Literal["top", "bottom"] = "top"


class BattleTypeChanged(Event):
    """306.5h: an effect changes the battle between combat and approach."""

    rule: str = "306.5h"
    card: str
    use: int | None = None
    kind: Literal["combat", "approach"]


class RandomNumberWaived(Event):
    """306.5i: no card is turned for ``target``'s random number."""

    rule: str = "306.5i"
    card: str
    use: int | None = None
    target: str


class CharacteristicsCopied(Event):
    """412.1: ``target`` takes ``source``'s printed characteristics."""

    rule: str = "412.1"
    card: str
    use: int | None = None
    target: str
    source: str
    until: str | None = None


class AbilitiesGained(Event):
    """405.1: ``target`` gains abilities (applied in resolution order)."""

    rule: str = "405.1"
    card: str
    use: int | None = None
    target: str
    abilities: list[Ability]
    until: str | None = None


class AbilitiesLost(Event):
    """405.1: ``target`` loses its abilities (applied in resolution order)."""

    rule: str = "405.1"
    card: str
    use: int | None = None
    target: str
    until: str | None = None


class ControlChanged(Event):
    """214.2d: ``player`` controls ``target`` from now on (or ``until``)."""

    rule: str = "214.2d"
    card: str
    use: int | None = None
    target: str
    player: Player
    until: str | None = None


class HandMaximumChanged(Event):
    """215.3b (ruling A11): ``player``'s hand maximum is set or changed."""

    rule: str = "215.3b"
    ruling: str | None = "A11"
    card: str
    use: int | None = None
    player: Player
    set: int | None = None
    by: int = 0
    until: str | None = None


class EffectsEnded(Event):
    """310 (until the end of the turn), 306.5o (until the end of the battle),
    215.10 (the card they applied to left): these continuous effects end."""

    ids: list[int]


class BattleInterrupted(Event):
    """306.5 (ruling A18): a combatant left the field or changed controller:
    the battle ends and the procedure jumps to 306.5n."""

    rule: str = "306.5"
    ruling: str | None = "A18"
    card: str


# --- the end (102) ----------------------------------------------------------


class Conceded(Event):
    rule: str = "102.7"
    player: Player


class DrawProposed(Event):
    rule: str = "102.8"
    player: Player


stored_as(__name__, "events.game")  # as they were first stored (``events.names``)
