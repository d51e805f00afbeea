"""The test cards written back as a position writes them: the notation of docs/games/pmv-ch7.md, from the stored cards.

A record (``records``) writes the position its match started from; reading
what this writes gives back the very same cards (``tests/test_pmv.py``).
"""

from __future__ import annotations

from typing import Any

from events.pmv_ch7.cards import Card, Clause, Effect
from events.pmv_ch7.effects import PositionSetUp


def clause_notation(c: Clause) -> dict[str, Any]:
    """A clause as a position writes it."""
    out: dict[str, Any] = {}
    if c.does in ("set", "clear", "act"):
        out[c.does] = c.word
    elif c.does == "add":
        out["add"] = c.word
        if c.paid:
            out["n"] = "paid"
        elif c.n is not None:
            out["n"] = c.n
        out["of"] = list(c.cards)
    elif c.does in ("move", "invalidate"):
        out[c.does] = list(c.cards)
        if c.does == "move":
            out["to"] = c.to
    elif c.does == "pay":
        out["pay"] = c.n
    elif c.does == "rewrite":
        out["rewrite"] = c.ref
        out["text"] = [clause_notation(x) for x in c.text]
    elif c.does == "nullify":
        out["nullify"] = "resolving"
    elif c.does == "wait":
        out["wait"] = list(c.when)
        out["then"] = [clause_notation(x) for x in c.text]
    else:
        out["as_used"] = c.ref
        if c.mode is not None:
            out["mode"] = c.mode
        if c.declare is not None:
            out["declare"] = c.declare
    if c.needs:
        out["needs"] = list(c.needs)
    if c.all:
        out["all"] = True
    if c.until is not None:
        out["until"] = list(c.until)
    if c.otherwise is not None:
        out["else"] = [clause_notation(x) for x in c.otherwise]
    return out


def _body(e: Effect) -> dict[str, Any]:
    if e.modes:
        return {"modes": [[clause_notation(c) for c in m] for m in e.modes]}
    return {"text": [clause_notation(c) for c in e.text]}


def effect_notation(e: Effect) -> dict[str, Any]:
    out: dict[str, Any] = {"opens": e.opens}
    for key in ("cost",):
        if e.cost:
            out[key] = [clause_notation(c) for c in e.cost]
    for key, value in (("needs", e.needs), ("when", e.when), ("declare", e.declare)):
        if value:
            out[key] = list(value)
    out.update(_body(e))
    for key, flag in (("unique", e.unique), ("optional", e.optional), ("at_will", e.at_will)):
        if flag:
            out[key] = True
    return out


def card_notation(cd: Card, on_field: bool, invalid: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": cd.name, "owner": cd.owner}
    if not on_field:
        out["zone"] = "elsewhere"
    if invalid:
        out["invalid"] = True
    if cd.values:
        out["values"] = dict(cd.values)
    if cd.play is not None:
        out["play"] = {**_body(cd.play), **({"unique": True} if cd.play.unique else {})}
    if cd.effects:
        out["effects"] = [effect_notation(e) for e in cd.effects]
    return out


def setup_notation(first: PositionSetUp) -> dict[str, Any]:
    """A position's ``setup:`` (without its seed and names, which a record
    gives at its top), from the event it set up."""
    field, invalid = set(first.field), set(first.invalid)
    out: dict[str, Any] = {"turn": first.turn, "priority": first.priority}
    if first.conditions:
        out["conditions"] = list(first.conditions)
    if any(first.points.values()):
        out["points"] = {seat: n for seat, n in first.points.items() if n}
    out["cards"] = [card_notation(cd, name in field, name in invalid) for name, cd in first.cards.items()]
    return out
