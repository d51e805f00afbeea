"""Card abilities as data (rules 400-412, icons 500-506): the vocabulary of card text.

A card pool writes each card's text twice: ``text:`` for people, and
``abilities:`` in this vocabulary for the referee, which interprets it; no
card has code of its own. The vocabulary is the contract of the project's
abilities format (``docs/abilities.md``): five kinds of ability (activated,
triggered, static, replacement, and ``use`` for event cards), each with
conditions, situations, selectors, amounts and effects.

Every model is frozen and forbids unknown keys, and every union is
discriminated (by ``kind``, by the situation's ``event``, by an effect's one
key, by a selector's or a condition's shape), so a misspelt effect, a wrong
situation name or a static with an ``until`` is an error naming the place in
the file (``referee.inputs`` words it for people).
"""

import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from events.names import stored_as

Zone = Literal["castle", "hand", "action_stack", "discard", "field", "harem", "execution", "side"]
PILE_ZONES = ("castle", "hand", "action_stack", "discard", "harem", "execution", "side")
Side = Literal["you", "opponent"]  # relative to the ability's controller (401.6)
SituationPlayer = Literal["you", "opponent", "any"]
Player = Literal["you", "opponent", "active", "each"]
Until = Literal["end_of_turn", "end_of_battle"]
CardType = Literal["character", "event", "item"]


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )


def _keyed(options: dict[str, str], what: str) -> Discriminator:
    """A discriminator for mappings told apart by which key they have (an
    effect by its one key, a selector or a condition by its shape)."""

    def tag(value: Any) -> str | None:
        if isinstance(value, str):
            return value if value in options.values() else None
        if isinstance(value, dict):
            for key, name in options.items():
                if key in value:
                    return name
            return None
        if isinstance(value, BaseModel):  # already validated (a model built in code)
            for key, name in options.items():
                if key in type(value).model_fields or key.rstrip("_") in type(value).model_fields:
                    return name
        return None

    expected = ", ".join(dict.fromkeys(options))
    return Discriminator(
        tag,
        custom_error_type=f"unknown_{what}",
        custom_error_message=f"not a known {what}; expected one of: {expected}",
    )


# --- filters and selectors (section 4) ----------------------------------------------


class Filter(_Model):
    """Which cards: every key narrows. ``zone`` defaults to the field for
    characters and items (214.2g, 215.6b) and to anywhere for event cards."""

    type: CardType | None = None
    zone: Zone | None = None
    controller: Player | None = None
    owner: Player | None = None
    gender: Literal["female", "male"] | None = None
    faction: str | None = None
    name: str | None = None
    ready: bool | None = None
    other: bool = False  # not this card
    cost_at_most: int | None = None


class Target(_Model):
    """One card the controller chooses when the effect resolves (407.4)."""

    target: Filter


class All(_Model):
    """Every card that matches, fixed when the effect resolves (407.6)."""

    all: Filter


class Top(_Model):
    """The top cards of a pile (``player``: whose, default the card's owner;
    ``each``: of both players' piles). ``of: field`` reads the field as the
    scenario format's expectations do: a player's characters in field order."""

    top: "Amount"
    of: Zone
    player: Player | None = None


Named = Literal["self", "this", "equipped", "attacker", "interceptor", "it"]


def _named_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "named" if value in ("self", "this", "equipped", "attacker", "interceptor", "it") else None
    return _keyed_selector_tag(value)


def _keyed_selector_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("target", "all", "top"):
            if key in value:
                return key
    if isinstance(value, BaseModel):
        return {Target: "target", All: "all", Top: "top"}.get(type(value))
    return None


Selector = Annotated[
    Union[
        Annotated[Named, Tag("named")],
        Annotated[Target, Tag("target")],
        Annotated[All, Tag("all")],
        Annotated[Top, Tag("top")],
    ],
    Discriminator(
        _named_tag,
        custom_error_type="unknown_selector",
        custom_error_message=(
            "not a known selector; expected self, this, equipped, attacker, interceptor, it, "
            "{target: FILTER}, {all: FILTER} or {top: AMOUNT, of: ZONE, player: PLAYER}"
        ),
    ),
]


def _situation_card_tag(value: Any) -> str | None:
    """In a situation, ``card:`` may also be a bare filter (``card: {gender:
    female}``), read as ``{all: FILTER}``."""
    tag = _named_tag(value)
    if tag is None and isinstance(value, dict):
        return "filter"
    if tag is None and isinstance(value, Filter):
        return "filter"
    return tag


CardMatch = Annotated[
    Union[
        Annotated[Named, Tag("named")],
        Annotated[Target, Tag("target")],
        Annotated[All, Tag("all")],
        Annotated[Top, Tag("top")],
        Annotated[Filter, Tag("filter")],
    ],
    Discriminator(
        _situation_card_tag,
        custom_error_type="unknown_selector",
        custom_error_message="not a known selector; expected self, this, it, {all: FILTER} or a filter",
    ),
]


# --- amounts ------------------------------------------------------------------


class Count(_Model):
    count: Filter
    times: int = 1


class PhysicalOf(_Model):
    """[P] (501): a card's current physical value."""

    physical: Selector
    times: int = 1


class MentalOf(_Model):
    """[M] (502): a card's current mental value."""

    mental: Selector
    times: int = 1


def _amount_tag(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "int"
    if value == "n":
        return "n"
    if isinstance(value, dict):
        for key in ("count", "physical", "mental"):
            if key in value:
                return key
    if isinstance(value, BaseModel):
        return {Count: "count", PhysicalOf: "physical", MentalOf: "mental"}.get(type(value))
    return None


Amount = Annotated[
    Union[
        Annotated[int, Tag("int")],
        Annotated[Literal["n"], Tag("n")],
        Annotated[Count, Tag("count")],
        Annotated[PhysicalOf, Tag("physical")],
        Annotated[MentalOf, Tag("mental")],
    ],
    Discriminator(
        _amount_tag,
        custom_error_type="unknown_amount",
        custom_error_message=(
            "not an amount; expected a whole number, n, {count: FILTER}, {physical: SELECTOR} "
            "or {mental: SELECTOR} (optionally with times: K)"
        ),
    ),
]


# --- conditions -----------------------------------------------------------------------


class CountCondition(_Model):
    count: Filter
    at_least: int | None = None
    at_most: int | None = None

    @model_validator(mode="after")
    def _bound(self) -> "CountCondition":
        if self.at_least is None and self.at_most is None:
            raise ValueError("a count condition needs at_least: N or at_most: N")
        return self


class TurnCondition(_Model):
    turn: Side


class BattleCondition(_Model):
    battle: Literal["combat", "approach", "castle"]


class AllOf(_Model):
    all: list["Condition"]


class AnyOf(_Model):
    any: list["Condition"]


Condition = Annotated[
    Union[
        Annotated[CountCondition, Tag("count")],
        Annotated[TurnCondition, Tag("turn")],
        Annotated[BattleCondition, Tag("battle")],
        Annotated[AllOf, Tag("all")],
        Annotated[AnyOf, Tag("any")],
    ],
    _keyed({"count": "count", "turn": "turn", "battle": "battle", "all": "all", "any": "any"}, "condition"),
]


# --- situations (section 3) -------------------------------------------------------------


class _Situation(_Model):
    card: CardMatch | None = None
    player: SituationPlayer = "any"


class UseSituation(_Situation):
    event: Literal["use"]
    card_type: CardType | None = None
    ability: bool | None = None  # true: an activated ability; false: a card


class TriggerSituation(_Situation):
    event: Literal["trigger"]


class EnterField(_Situation):
    event: Literal["enter_field"]


class LeaveField(_Situation):
    event: Literal["leave_field"]
    to: Zone | None = None


class Captured(_Situation):
    event: Literal["captured"]
    zone: Literal["harem", "execution"] | None = None


class AttackSituation(_Situation):
    event: Literal["attack"]


class InterceptSituation(_Situation):
    event: Literal["intercept"]


class NoIntercept(_Situation):
    event: Literal["no_intercept"]


class BattleTypeSituation(_Situation):
    event: Literal["battle_type"]
    type: Literal["combat", "approach", "castle"] | None = None


class CastleAttack(_Situation):
    event: Literal["castle_attack"]


class RandomNumber(_Situation):
    event: Literal["random_number"]


class WinBattle(_Situation):
    event: Literal["win_battle"]


class LoseBattle(_Situation):
    event: Literal["lose_battle"]


class BattleEnd(_Situation):
    event: Literal["battle_end"]


class TurnStart(_Situation):
    event: Literal["turn_start"]


class TurnEnd(_Situation):
    event: Literal["turn_end"]


class DiscardSituation(_Situation):
    event: Literal["discard"]
    from_: Zone | None = Field(default=None, alias="from")


class Mill(_Situation):
    event: Literal["mill"]


Situation = Annotated[
    Union[
        UseSituation,
        TriggerSituation,
        EnterField,
        LeaveField,
        Captured,
        AttackSituation,
        InterceptSituation,
        NoIntercept,
        BattleTypeSituation,
        CastleAttack,
        RandomNumber,
        WinBattle,
        LoseBattle,
        BattleEnd,
        TurnStart,
        TurnEnd,
        DiscardSituation,
        Mill,
    ],
    Field(discriminator="event"),
]

# Each situation in words, for the log and the board.
SITUATIONS = {
    "use": "a card or ability being used",
    "trigger": "an ability triggering",
    "enter_field": "entering the field",
    "leave_field": "leaving the field",
    "captured": "being captured",
    "attack": "an attack",
    "intercept": "an interception",
    "no_intercept": "no interception",
    "battle_type": "the battle's type being set",
    "castle_attack": "a castle attack",
    "random_number": "a random number",
    "win_battle": "winning a battle",
    "lose_battle": "losing a battle",
    "battle_end": "the end of the battle",
    "turn_start": "the start of the turn",
    "turn_end": "the end of the turn",
    "discard": "a discard",
    "mill": "a mill",
    "effects": "the effects",
}


# --- effects (section 5) ---------------------------------------------------------------


class Modify(_Model):
    what: Selector
    physical: Amount | None = None
    mental: Amount | None = None
    random: Amount | None = None
    until: Until | None = None


class Move(_Model):
    what: Selector
    to: Zone
    player: Player | None = None  # each: every card to its own owner's
    position: Literal["top", "bottom"] = "top"


class Copy(_Model):
    what: Selector
    from_: Selector = Field(alias="from")
    until: Until | None = None


class Gain(_Model):
    what: Selector
    abilities: list["Ability"]
    until: Until | None = None


class LoseAbilities(_Model):
    what: Selector
    until: Until | None = None


class Control(_Model):
    what: Selector
    player: Player  # each: every character to its own owner
    until: Until | None = None


class HandMax(_Model):
    player: Player
    set: Amount | None = None
    by: Amount | None = None
    until: Until | None = None

    @model_validator(mode="after")
    def _one(self) -> "HandMax":
        if (self.set is None) == (self.by is None):
            raise ValueError("hand_max takes set: N (a new maximum) or by: N (a change), one of them")
        return self


FORBIDDABLE = ("attack", "intercept", "play_character", "play_event", "play_item", "activate")


class Forbid(_Model):
    action: Literal["attack", "intercept", "play_character", "play_event", "play_item", "activate"]
    who: Union[Player, Selector]


class ModifyEffect(_Model):
    modify: Modify


class MoveEffect(_Model):
    move: Move


class TapEffect(_Model):
    tap: Selector


class UntapEffect(_Model):
    untap: Selector


class BattleTypeEffect(_Model):
    battle_type: Literal["combat", "approach"]


class NoRandomNumberEffect(_Model):
    no_random_number: Selector


class CounterEffect(_Model):
    counter: Literal["it"]


class CopyEffect(_Model):
    copy_: Copy = Field(alias="copy")


class GainEffect(_Model):
    gain: Gain


class LoseAbilitiesEffect(_Model):
    lose_abilities: LoseAbilities


class ControlEffect(_Model):
    control: Control


class HandMaxEffect(_Model):
    hand_max: HandMax


class WinEffect(_Model):
    win: Player


class LoseEffect(_Model):
    lose: Player


class MayEffect(_Model):
    may: list["Effect"]


class ThenEffect(_Model):
    then: list["Effect"]


class NameEffect(_Model):
    name: str = Field(min_length=1)


class ForbidEffect(_Model):
    forbid: Forbid


EFFECT_KEYS = {
    "modify": "modify",
    "move": "move",
    "tap": "tap",
    "untap": "untap",
    "battle_type": "battle_type",
    "no_random_number": "no_random_number",
    "counter": "counter",
    "copy": "copy",
    "gain": "gain",
    "lose_abilities": "lose_abilities",
    "control": "control",
    "hand_max": "hand_max",
    "win": "win",
    "lose": "lose",
    "may": "may",
    "then": "then",
    "name": "name",
    "forbid": "forbid",
}
_EFFECT_CLASSES: dict[type, str] = {}


def _effect_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        if len(value) != 1:
            return None
        (key,) = value
        return EFFECT_KEYS.get(key)
    if isinstance(value, BaseModel):
        return _EFFECT_CLASSES.get(type(value))
    return None


Effect = Annotated[
    Union[
        Annotated[ModifyEffect, Tag("modify")],
        Annotated[MoveEffect, Tag("move")],
        Annotated[TapEffect, Tag("tap")],
        Annotated[UntapEffect, Tag("untap")],
        Annotated[BattleTypeEffect, Tag("battle_type")],
        Annotated[NoRandomNumberEffect, Tag("no_random_number")],
        Annotated[CounterEffect, Tag("counter")],
        Annotated[CopyEffect, Tag("copy")],
        Annotated[GainEffect, Tag("gain")],
        Annotated[LoseAbilitiesEffect, Tag("lose_abilities")],
        Annotated[ControlEffect, Tag("control")],
        Annotated[HandMaxEffect, Tag("hand_max")],
        Annotated[WinEffect, Tag("win")],
        Annotated[LoseEffect, Tag("lose")],
        Annotated[MayEffect, Tag("may")],
        Annotated[ThenEffect, Tag("then")],
        Annotated[NameEffect, Tag("name")],
        Annotated[ForbidEffect, Tag("forbid")],
    ],
    Discriminator(
        _effect_tag,
        custom_error_type="unknown_effect",
        custom_error_message="not a known effect (an effect is a mapping with one key); expected one of: "
        + ", ".join(EFFECT_KEYS),
    ),
]

_EFFECT_CLASSES.update(
    {
        ModifyEffect: "modify",
        MoveEffect: "move",
        TapEffect: "tap",
        UntapEffect: "untap",
        BattleTypeEffect: "battle_type",
        NoRandomNumberEffect: "no_random_number",
        CounterEffect: "counter",
        CopyEffect: "copy",
        GainEffect: "gain",
        LoseAbilitiesEffect: "lose_abilities",
        ControlEffect: "control",
        HandMaxEffect: "hand_max",
        WinEffect: "win",
        LoseEffect: "lose",
        MayEffect: "may",
        ThenEffect: "then",
        NameEffect: "name",
        ForbidEffect: "forbid",
    }
)

# Continuous effects, the only ones a static ability may hold (404.1). A
# copy or a change of control read through statics would make a card's
# identity depend on itself, so those are for abilities that resolve.
CONTINUOUS = ("modify", "gain", "lose_abilities", "hand_max", "name", "forbid")
STATIC_ONLY = ("name", "forbid")


def effect_key(effect: BaseModel) -> str:
    return _EFFECT_CLASSES[type(effect)]


def effect_body(effect: BaseModel) -> Any:
    """What an effect says: the value under its one key."""
    return getattr(effect, next(iter(type(effect).model_fields)))


def walk(effects: list[Any]) -> list[Any]:
    """Every effect of a list, those inside ``may`` and ``then`` included."""
    out = []
    for e in effects:
        out.append(e)
        if isinstance(e, MayEffect):
            out += walk(e.may)
        elif isinstance(e, ThenEffect):
            out += walk(e.then)
    return out


# --- costs (503, 504) ---------------------------------------------------------------

_COST = re.compile(r"^(\[(T|n|\d+)\])+$")
_ICON = re.compile(r"\[(T|n|\d+)\]")
_PARSED: dict[str, "Cost"] = {}  # Cost.parse's, by the printed text (a few dozen at most)


class Cost(_Model):
    """A printed cost, parsed: [T] (504), [0] [1] [2]... (503, 503.1), [n] (503.2)."""

    tap: bool = False
    amount: int = 0
    n: bool = False

    @classmethod
    def parse(cls, text: str) -> "Cost":
        """The cost ``text`` prints; one frozen object per text, kept (a
        use's check reads it every time a window lists it)."""
        found = _PARSED.get(text)
        if found is None:
            found = _PARSED[text] = cls._parse(text)
        return found

    @classmethod
    def _parse(cls, text: str) -> "Cost":
        tap, amount, n = False, 0, False
        for icon in _ICON.findall(text):
            if icon == "T":
                tap = True
            elif icon == "n":
                n = True
            else:
                amount += int(icon)
        return cls(tap=tap, amount=amount, n=n)

    def __str__(self) -> str:
        parts = (["[T]"] if self.tap else []) + (
            [f"[{self.amount}]"] if self.amount or not (self.tap or self.n) else []
        )
        return "".join(parts + (["[n]"] if self.n else []))


def _check_cost(text: str) -> str:
    if not _COST.match(text):
        raise ValueError(f'a cost is written in icons, in order, e.g. "[T][1]", "[0]", "[2]" or "[n]"; got {text!r}')
    return text


# --- the five kinds of ability (section 2) ------------------------------------------------


class _Ability(_Model):
    if_: Condition | None = Field(default=None, alias="if")
    effects: list[Effect] = Field(min_length=1)

    def _no_static_only(self, kind: str) -> None:
        for e in walk(self.effects):
            key = effect_key(e)
            if key in STATIC_ONLY:
                raise ValueError(f"{key} is an effect of static abilities only, not of a {kind} ability")


class Activated(_Ability):
    """402: "(cost){effect}", used by its controller (402.3) in their own turn
    unless [OT] (402.2), or by its owner from another zone (402.3a)."""

    kind: Literal["activated"]
    cost: str
    ot: bool = False
    zone: Zone = "field"
    only: Situation | None = None
    also: Situation | None = None

    @field_validator("cost")
    @classmethod
    def _cost(cls, cost: str) -> str:
        return _check_cost(cost)

    @model_validator(mode="after")
    def _check(self) -> "Activated":
        if self.only is not None and self.also is not None:
            raise ValueError("an ability has only: or also:, not both")
        self._no_static_only("activated")
        return self

    @property
    def parsed_cost(self) -> Cost:
        return Cost.parse(self.cost)


class Triggered(_Ability):
    """403: "when ~ (will) happen, {effect}"."""

    kind: Literal["triggered"]
    on: Situation
    timing: Literal["before", "after"] = "after"
    zone: Zone = "field"

    @model_validator(mode="after")
    def _check(self) -> "Triggered":
        self._no_static_only("triggered")
        return self


class Static(_Ability):
    """404: always applies (404.1), or as long as ``if`` holds (404.2)."""

    kind: Literal["static"]
    zone: Zone = "field"

    @field_validator("effects")
    @classmethod
    def _continuous(cls, effects: list[Any]) -> list[Any]:
        for e in walk(effects):
            key = effect_key(e)
            if key not in CONTINUOUS:
                raise ValueError(f"a static ability holds continuous effects only ({', '.join(CONTINUOUS)}), not {key}")
            if getattr(effect_body(e), "until", None) is not None:
                raise ValueError(f"a static ability's {key} lasts as long as the static applies: remove until: (404.1)")
            what = getattr(effect_body(e), "what", None)
            if isinstance(what, Target):
                raise ValueError(f"a static ability's {key} has nobody to choose a target: use {{all: FILTER}} or self")
        return effects


class Replacement(_Ability):
    """409: "if ~ would happen, instead ...": ``effects`` happen instead."""

    kind: Literal["replacement"]
    instead_of: Situation
    zone: Zone = "field"

    @model_validator(mode="after")
    def _check(self) -> "Replacement":
        self._no_static_only("replacement")
        return self


class UseAbility(_Ability):
    """214.3, 306.2: what an event card does when it is used."""

    kind: Literal["use"]
    only: Situation | None = None
    also: Situation | None = None

    @model_validator(mode="after")
    def _check(self) -> "UseAbility":
        if self.only is not None and self.also is not None:
            raise ValueError("an ability has only: or also:, not both")
        self._no_static_only("use")
        return self


Ability = Annotated[Union[Activated, Triggered, Static, Replacement, UseAbility], Field(discriminator="kind")]

# The models refer to each other by name (effects inside ``may``, abilities
# inside ``gain``); with ``defer_build`` each is built, its names resolved in
# this module, the first time something is validated or written with it, so a
# command that never reads card text does not pay for the whole vocabulary.


stored_as(__name__, "events.abilities")  # as they were first stored (``events.names``)
