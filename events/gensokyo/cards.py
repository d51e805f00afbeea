"""A 幻想郷夢紀行 card as far as §4 tells one card from another, and the notation of its effect lines.

§4 speaks of five kinds of card: characters (キャラクター), with attributes
among 人, 妖, 霊 and 魔 (4-2a) and 気力 (4-4e), and abilities; destination
cards (旅先) and intervention cards (介入), whose effects are lines such as
``妖:活力2`` (4-2b); 呪品 (items), which have abilities; and the rest (騒動
and any other card), which §4 names only to say they are not characters
(4-7a). No card of the real game is bundled: a card here carries what §4
needs and free text for people.

An effect line (ruling G3) is ``[COSTS:]EFFECT``. COSTS, separated by 、 or a
comma, are attributes (one or more of 人妖霊魔, 4-2e: ``人魔``, ``霊霊霊``),
a hand cost (``@`` or ``①`` one card, ``A`` or ``②`` two, ``B`` or ``③``
three..., 4-3a) and, on an ability only, a 気力 cost (``気力3``, 4-4e).
EFFECT is one of ``活力N`` (4-1a), ``疲労N`` (4-1b), ``相手は活力N`` and
``相手は疲労N`` (the other player gets it, 4-1c), ``ドローN`` (a plain
draw, 4-1d), ``捨てN`` (a plain discard, 4-1d), ``気力回復N`` (any one
character recovers N 気力, 4-2d's 粗茶), or any other text: an abstract
effect whose workings are outside §4, recorded as applied. The long forms
(``カードをN枚引く``, ``手札をN枚捨てる``, ``任意のキャラクター1人の気力をN回復する``,
``…を得る``) read as the short ones.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from events.names import stored_as

ATTRIBUTES = "人妖霊魔"  # 4-2a
# 4-3a: the hand cost's circled numbers, and the letters they read as where the
# text lost its encoding (① is written @, ② A, ...).
HAND_MARKS = {
    **{mark: n for n, mark in enumerate("@ABCDEFGHI", start=1)},
    **{mark: n for n, mark in enumerate("①②③④⑤⑥⑦⑧⑨⑩", start=1)},
}
TIMINGS = ("自T", "介入", "常時", "対応")  # 4-4
Kind = Literal["character", "destination", "intervention", "item", "incident", "other"]
EffectKind = Literal["vitality", "fatigue", "draw", "discard", "recover", "other"]

_DIGITS = str.maketrans("０１２３４５６７８９：，", "0123456789:,")
_BODIES: tuple[tuple[EffectKind, re.Pattern[str]], ...] = (
    ("vitality", re.compile(r"^(相手は)?活力(\d+)(?:を得る)?$")),
    ("fatigue", re.compile(r"^(相手は)?疲労(\d+)(?:を得る)?$")),
    ("draw", re.compile(r"^()(?:ドロー(\d+)|カードを(\d+)枚引く)$")),
    ("discard", re.compile(r"^()(?:捨て(\d+)|手札を(\d+)枚捨てる)$")),
    ("recover", re.compile(r"^()(?:気力回復(\d+)|任意のキャラクター1人の気力を(\d+)回復する)$")),
)


class Line(BaseModel):
    """One effect line read (ruling G3): its costs and its effect."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    attributes: str = ""  # as written: "人魔", "霊霊霊" (4-2e)
    hand: int = 0  # cards discarded as the hand cost (4-3a)
    ki: int = 0  # 気力 paid by the character with the ability (4-4e)
    kind: EffectKind = "other"
    n: int = 0
    other_player: bool = False  # 相手は…: the other player gets it (4-1c)
    effect: str = ""  # the effect as written, after the costs

    def needs(self) -> Counter[str]:
        """How many companions must have each attribute (4-2e)."""
        return Counter(self.attributes)


class LineError(ValueError):
    """An effect line that is not in the notation (ruling G3)."""


def parse_line(text: str, ability: bool = False) -> Line:
    """``text`` read as an effect line; ``LineError`` saying what is wrong.
    A 気力 cost is an ability's only (4-4e: the character with it pays)."""
    if not isinstance(text, str) or not text.strip():
        raise LineError("an effect line is text, such as 妖:活力2")
    plain = text.strip().translate(_DIGITS)
    costs, colon, effect = plain.partition(":")
    if not colon:
        costs, effect = "", plain
    attributes, hand, ki = "", 0, 0
    for token in filter(None, (t.strip() for t in re.split(r"[、,]", costs))):
        if token in HAND_MARKS:
            if hand:
                raise LineError(f"{text!r} has two hand costs")
            hand = HAND_MARKS[token]
        elif re.fullmatch(r"気力\d+", token):
            if not ability:
                raise LineError(
                    f"{text!r}: a 気力 cost is paid by the character with an ability (4-4e), not by a card's effect"
                )
            ki = int(token[2:])
            if ki < 1:
                raise LineError(f"{text!r}: a 気力 cost is at least 1")
        elif all(ch in ATTRIBUTES for ch in token):
            attributes += token
        else:
            raise LineError(
                f"{text!r}: {token!r} is no cost; costs are attributes (人妖霊魔), a hand cost (@ A B or ① ② ③) or 気力N"
            )
    effect = effect.strip()
    if not effect:
        raise LineError(f"{text!r} has costs but no effect after the colon")
    for kind, pattern in _BODIES:
        m = pattern.match(effect)
        if m:
            n = int(next(g for g in m.groups()[1:] if g))
            if n < 1:
                raise LineError(f"{text!r}: the number is at least 1")
            return Line(
                text=text,
                attributes=attributes,
                hand=hand,
                ki=ki,
                kind=kind,
                n=n,
                other_player=bool(m.group(1)),
                effect=effect,
            )
    return Line(text=text, attributes=attributes, hand=hand, ki=ki, kind="other", effect=effect)


class Ability(BaseModel):
    """An ability of a character or an item: its name, its timing (4-4) and its line."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = Field(min_length=1)
    timing: Literal["自T", "介入", "常時", "対応"]
    line: str


class GensokyoCard(BaseModel):
    """One card's kind and what §4 reads of it (docs/games/gensokyo-s4.md, "Cards")."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = Field(min_length=1)
    type: Kind
    attributes: str = ""  # a character's, among 人妖霊魔 (4-2a)
    ki: int | None = None  # a character's printed 気力 (4-4e)
    effects: tuple[str, ...] = ()  # a destination's or an intervention card's lines (4-2b, 4-2c)
    abilities: tuple[Ability, ...] = ()  # a character's or an item's (4-4)
    text: str = ""

    @field_validator("attributes")
    @classmethod
    def _attributes(cls, value: str) -> str:
        # 4-2a: four kinds, each had or not: from none to all four, none twice.
        if any(ch not in ATTRIBUTES for ch in value) or len(set(value)) != len(value):
            raise ValueError(f"attributes are some of 人妖霊魔, each at most once (4-2a), not {value!r}")
        return value

    @model_validator(mode="after")
    def _what_each_kind_has(self) -> GensokyoCard:
        character = self.type == "character"
        if character and (self.ki is None or self.ki < 1):
            raise ValueError("a character has its printed 気力, at least 1 (ki: 5)")
        if not character and (self.ki is not None or self.attributes):
            raise ValueError(f"attributes and ki are a character's (4-2a, 4-4e), not a {self.type} card's")
        if self.effects and self.type not in ("destination", "intervention"):
            raise ValueError(
                f"effects are a destination's or an intervention card's lines (4-2), not a {self.type} card's"
            )
        if self.abilities and self.type not in ("character", "item"):
            raise ValueError(f"abilities are a character's or an item's (4-4), not a {self.type} card's")
        for line in self.effects:
            parse_line(line)
        names = [a.name for a in self.abilities]
        if len(set(names)) != len(names):
            raise ValueError("two abilities of one card have the same name")
        for a in self.abilities:
            parse_line(a.line, ability=character)
        return self

    @property
    def is_character(self) -> bool:
        return self.type == "character"

    def lines(self) -> tuple[Line, ...]:
        return tuple(parse_line(t) for t in self.effects)

    def ability(self, name: str | None) -> Ability | None:
        """The ability called ``name`` (None: the card's only one)."""
        if name is None:
            return self.abilities[0] if len(self.abilities) == 1 else None
        return next((a for a in self.abilities if a.name == name), None)


stored_as(__name__, "gensokyo-s4")  # a new game's classes are stored under its id (``events.names``)
