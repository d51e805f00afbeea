"""Instructions as people write them: cards by name, label or instance id, turned into ids.

A name that several cards answer to means the first of them in the fixed
order of ``ZoneState.everywhere`` (sites first, each card followed by what
is stacked on it, then the piles), as Harem Master's notation takes the
first in zone order; a label (given in the position) or an id (``B:2``)
says exactly which. A reference nothing answers to is left as written, and
the rules refuse it as no card of the game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from projections.scp_tcg.state import ZoneState
from projections.scp_tcg.views import place_words, sees
from referee.rules.scp_tcg.common import ARGUMENTS, MOVES, Instruction

INSTANCE_ID = re.compile(r"^[AB]:[0-9]+$")


def matches(state: ZoneState, card: str, ref: str, labels: Mapping[str, str]) -> bool:
    """Does ``ref`` (a label, an instance id or a name) mean ``card``?"""
    if ref in labels:
        return labels[ref] == card
    if INSTANCE_ID.match(ref):
        return ref == card
    cd = state.cards.get(card)
    return cd is not None and cd.name == ref


def _one(state: ZoneState, ref: str | None, labels: Mapping[str, str]) -> str | None:
    if ref is None:
        return None
    if ref in labels:
        return labels[ref]
    if INSTANCE_ID.match(ref):
        return ref
    return next((c for c in state.everywhere() if matches(state, c, ref, labels)), ref)


def resolve(state: ZoneState, a: Instruction, labels: Mapping[str, str] | None = None) -> Instruction:
    """``a`` with its card references as instance ids."""
    labels = labels or {}
    cards = None
    if a.cards is not None:
        taken: list[str] = []
        for ref in a.cards:
            # Several cards of one name: each reference takes the next one not taken yet.
            found = next(
                (c for c in state.everywhere() if c not in taken and matches(state, c, ref, labels)),
                _one(state, ref, labels),
            )
            taken.append(found or ref)
        cards = tuple(taken)
    return replace(a, card=_one(state, a.card, labels), host=_one(state, a.host, labels), cards=cards)


def instruction_from_mapping(data: Mapping[str, Any]) -> Instruction:
    """``{player: A, do: move, card: ..., to: ...}`` as an ``Instruction``."""
    args: dict[str, Any] = {k: data[k] for k in ARGUMENTS if k in data}
    if "cards" in args and args["cards"] is not None:
        args["cards"] = tuple(str(c) for c in args["cards"])
    for key in ("card", "to", "at", "host", "zone"):
        if key in args and args[key] is not None:
            args[key] = str(args[key])
    return Instruction(player=data.get("player"), do=str(data["do"]), **args)


def describe(state: ZoneState, a: Instruction, viewer: str = "judge") -> dict[str, Any]:
    """The instruction with card names beside the ids, as people read it: a
    card nobody may see where it is now reads "face-down" to anyone, the
    judge included (402.2), and every card says where it lies
    (``card_at``: ``A.keter #2``), so two instructions on two face-down
    cards, or on two cards of one name, read apart (``referee legal``, the
    board's controls). Its id is given to a viewer who may see the card
    (the judge: every card); to anyone else it is None, since an id follows
    a card through a shuffle (402.7)."""

    def name(card: str) -> str:
        if card not in state.cards:
            return card
        return state.cards[card].name if sees(state, card, "public") else "face-down"

    def ident(card: str) -> str | None:
        return card if card not in state.cards or sees(state, card, viewer) else None

    def at(card: str) -> str | None:
        return place_words(state, card) if card in state.cards else None

    out: dict[str, Any] = {"player": a.player, "do": a.do}
    given = a.arguments()
    kind = MOVES.get(a.do)
    declared = [arg.name for arg in kind.args] if kind is not None else []
    # In the order the instruction declares its arguments (a search's zone
    # first): what the board and `referee legal` group the list by comes first.
    for key in [*[k for k in declared if k in given], *[k for k in given if k not in declared]]:
        value = given[key]
        if key in ("card", "host") and isinstance(value, str):
            out[key] = name(value)
            out[key + "_id"] = ident(value)
            out[key + "_at"] = at(value)
        elif key == "cards" and isinstance(value, list):
            out[key] = [name(c) for c in value]
            out[key + "_ids"] = [ident(c) for c in value]
            out[key + "_at"] = [at(c) for c in value]
        else:
            out[key] = value
    return out
