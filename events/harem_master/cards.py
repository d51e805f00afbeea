"""Card definitions: the printed characteristics of a card (rules 202-214).

A card definition is data carried inside events (the match's first event holds
every card of both decks), so the projection never needs a card pool to
rebuild a match: the log alone is enough.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.harem_master.abilities import Ability, Filter
from events.names import stored_as

CardType = Literal["character", "event", "item"]
Gender = Literal["female", "male"]
Icon = Literal["OT", "PA"]


class CardDef(BaseModel):
    """One card's printed characteristics, as the scenario format writes them."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", defer_build=True
    )  # built on first use: see events.harem_master.abilities

    name: str = Field(min_length=1)
    type: CardType
    cost: int = Field(ge=0)
    random: int = 0
    gender: Gender | None = None
    factions: list[str] = Field(default_factory=list)
    physical: int = 0
    mental: int = 0
    icons: list[Icon] = Field(default_factory=list)
    text: str = ""
    # 401.3: each entry is one ability, written in the vocabulary of
    # events.harem_master.abilities (docs/abilities.md).
    abilities: list[Ability] = Field(default_factory=list)
    # Items (and [PA] characters used as items): what a character must be to
    # carry it (214.4f/g, ruling A14).
    equip: Filter | None = None
    uncounterable: bool = False  # 411.2: "this card cannot be countered"
    # A scenario filler `{random: N}`: anonymous, so each one counts as a
    # distinct card for the same-name limit of 100.2 (scenario format, 1).
    filler: bool = False

    @model_validator(mode="after")
    def _character_fields(self) -> "CardDef":
        # 211.1: every character card is either a girl or a male; the other
        # types have no gender, factions or values (207-209 speak only of
        # character cards), so a pool that gives them one has a typo in it.
        if self.type == "character":
            if self.gender is None:
                raise ValueError("a character card needs gender: female or male (211.1)")
        else:
            for field in ("gender", "physical", "mental"):
                if field in self.model_fields_set and getattr(self, field) not in (None, 0):
                    raise ValueError(f"{field} is for character cards only, not for an {self.type}")
            if self.factions:
                raise ValueError(f"factions are for character cards only, not for an {self.type}")
            if "PA" in self.icons:
                raise ValueError(f"[PA] is for character cards only (506), not for an {self.type}")
        if self.equip is not None and not (self.type == "item" or "PA" in self.icons):
            raise ValueError("equip: is for item cards (and [PA] characters used as items), 214.4f")
        for i, ability in enumerate(self.abilities):
            if ability.kind == "use" and self.type != "event":
                raise ValueError(
                    f"abilities[{i}]: kind: use is what an event card does when used (306.2); "
                    f"a {self.type} card's text is activated, triggered, static or replacement"
                )
        return self

    @property
    def is_girl(self) -> bool:
        return self.type == "character" and self.gender == "female"


def filler(random: int) -> CardDef:
    """The anonymous vanilla filler `{random: N}` of the scenario format."""
    return CardDef(name=f"filler {random:+d}", type="event", cost=0, random=random, filler=True)


stored_as(__name__, "events.cards")  # as they were first stored (``events.names``)
