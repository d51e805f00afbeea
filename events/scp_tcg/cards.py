"""An SCP-TCG-JP-J 購買部版 card, as far as chapter 4 (zones) tells one card from another.

Chapter 4 sorts cards by four kinds and objects by class, and nothing else:
object cards (オブジェクト・カード, 401, 402.1) each of a class, Safe,
Euclid or Keter (402.1, 402.1c); Tale and Incident cards (403.1); personnel
cards (人事カード, 404.1). Everything else printed on a real card (cost,
values, text that does something) belongs to chapters the referee does not
have, so a card here carries only its name, its kind, an object's class and
text for people. Which object is a player's partner (401.4) is not a
property of the card: a position says it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events.names import stored_as

Kind = Literal["object", "tale", "incident", "personnel"]
ObjectClass = Literal["Safe", "Euclid", "Keter"]


class ScpCard(BaseModel):
    """One card's kind and class (docs/games/scp-tcg-s4.md, "Cards")."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )

    name: str = Field(min_length=1)
    type: Kind
    # 402.1c: the sandbox an object card may be in. ``class`` in files.
    object_class: ObjectClass | None = Field(default=None, alias="class")
    text: str = ""

    @model_validator(mode="after")
    def _class_of_objects_only(self) -> ScpCard:
        # 402.1: sandboxes are piles of object cards, one per class, so every
        # object card has a class and no other card has one.
        if self.type == "object" and self.object_class is None:
            raise ValueError("an object card needs class: Safe, Euclid or Keter (402.1)")
        if self.type != "object" and self.object_class is not None:
            raise ValueError(f"class is for object cards only (402.1), not for a {self.type} card")
        return self

    @property
    def is_object_card(self) -> bool:
        return self.type == "object"


stored_as(__name__, "events.scp_tcg.cards")  # as they were first stored (``events.names``)
