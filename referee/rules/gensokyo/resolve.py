"""Instructions as people write them: cards by name, label or id, turned into ids, and back for a viewer.

A name several cards answer to means the first of them in the acting
player's own zones (hand, party, journey, items), then the other player's,
then 幻想, 山札 and 人妖の山, then the cards being used; a label (given in
the position) or an id (``c3``) says exactly which. A reference nothing
answers to is left as written, and the rules refuse it as no card of the game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from projections.gensokyo.state import OWN, SEATS, Table
from projections.gensokyo.views import sees
from referee.rules.gensokyo.common import ARGUMENTS, Instruction

INSTANCE_ID = re.compile(r"^c[0-9]+$")


def order(state: Table, player: str | None) -> list[str]:
    """Every card, in the order a name is looked for (the acting player's zones first)."""
    seats = (player, *(s for s in SEATS if s != player)) if player in SEATS else SEATS
    out = [c for seat in seats for kind in OWN for c in state.zones[f"{seat}.{kind}"]]
    out += [c for zone in ("fantasy", "deck", "character_deck") for c in state.zones[zone]]
    out += [e.card for e in state.stack if e.card is not None and e.card not in out]
    return out


def matches(state: Table, card: str, ref: str, labels: Mapping[str, str]) -> bool:
    """Does ``ref`` (a label, an instance id or a name) mean ``card``?"""
    if ref in labels:
        return labels[ref] == card
    if INSTANCE_ID.match(ref):
        return ref == card
    cd = state.cards.get(card)
    return cd is not None and cd.name == ref


def resolve(state: Table, a: Instruction, labels: Mapping[str, str] | None = None) -> Instruction:
    """``a`` with its card references as instance ids."""
    labels = labels or {}
    cards = order(state, a.player)

    def one(ref: str | None, taken: list[str]) -> str | None:
        if ref is None:
            return None
        return next((c for c in cards if c not in taken and matches(state, c, ref, labels)), ref)

    many = None
    if a.cards is not None:
        taken: list[str] = []
        for ref in a.cards:
            taken.append(one(ref, taken) or ref)  # several cards of one name: each takes the next
        many = tuple(taken)
    return replace(a, card=one(a.card, []), cards=many)


def instruction_from_mapping(data: Mapping[str, Any]) -> Instruction:
    """``{player: A, do: travel, card: ...}`` as an ``Instruction``."""
    args: dict[str, Any] = {k: data[k] for k in ARGUMENTS if k in data}
    if args.get("cards") is not None:
        args["cards"] = tuple(str(c) for c in args["cards"])
    for key in ("card", "to", "at", "skill", "text"):
        if args.get(key) is not None:
            args[key] = str(args[key])
    if args.get("n") is not None and not isinstance(args["n"], int):
        raise ValueError(f"n is a whole number, not {args['n']!r}")
    return Instruction(player=data.get("player"), do=str(data["do"]), **args)


def describe(state: Table, a: Instruction, viewer: str = "judge") -> dict[str, Any]:
    """The instruction with card names beside the ids, as ``viewer`` may read
    them: a card the viewer may not see where it is now reads "face-down" (as the
    board's forms label it)."""

    def name(card: str) -> str:
        if card not in state.cards:
            return card
        return state.cards[card].name if sees(state, card, viewer) else "face-down"

    out: dict[str, Any] = {"player": a.player, "do": a.do}
    for key, value in a.arguments().items():
        if key == "card" and isinstance(value, str):
            out[key] = name(value)
            out[key + "_id"] = value
        elif key == "cards" and isinstance(value, list):
            out[key] = [name(c) for c in value]
            out[key + "_ids"] = value
        else:
            out[key] = value
    return out
