"""What each person may see of a Phantom Magic Vision chapter-7 match, as JSON-ready data and as text; effects in words.

Chapter 7 hides nothing and says nothing of who may see a zone, and the
test cards are the same for everyone (ruling:P1), so every viewer sees the
same position: the turn player and who holds priority, the named
conditions that hold, each seat's field (in the order the cards came onto
it) and the cards elsewhere, each card's values and effects, the effects
being resolved and waiting to, the interference, the α and β effects
applying, lasting and waiting effects, and how each resolution ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from events.pmv_ch7.cards import PRINTED_AS, Clause, Effect
from projections.pmv_ch7.state import (
    SEATS,
    ZONES,
    Table,
    contributions,
    effect_of,
    effects_of,
    holds,
    value,
    value_names,
    zone_of,
)

VIEWERS = ("judge", "A", "B", "public")


def check_viewer(viewer: str) -> None:
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}: expected one of {', '.join(VIEWERS)}")


# --- effects in words ---------------------------------------------------------------------


def _cards(names: Iterable[str]) -> str:
    return ", ".join(names) or "no card"


def _conds(conds: Iterable[str]) -> str:
    return " and ".join(conds)


def clause_words(c: Clause) -> str:
    """A clause as people read it: ``add 1 to power of self, if dusk``."""
    if c.does == "set":
        words = f"{c.word} holds"
    elif c.does == "clear":
        words = f"{c.word} no longer holds"
    elif c.does == "add":
        n = "the points paid" if c.paid else str(c.n if c.n is not None else 1)
        words = f"add {n} to {c.word} of {'all of ' if c.all else ''}{_cards(c.cards)}"
    elif c.does == "move":
        words = f"move {'all of ' if c.all else ''}{_cards(c.cards)} to {c.to}"
    elif c.does == "pay":
        words = f"pay {c.n} point{'s' if c.n != 1 else ''}"
    elif c.does == "act":
        words = f"{c.word}"
    elif c.does == "invalidate":
        words = f"the text of {_cards(c.cards)} is invalid"
    elif c.does == "rewrite":
        words = f"{c.ref} now reads [{text_words(c.text)}]"
    elif c.does == "nullify":
        words = "nullify the effect being resolved"
    elif c.does == "wait":
        words = f"when {_conds(c.when)}: [{text_words(c.text)}]"
    else:
        mode = f" (mode {c.mode})" if c.mode is not None else ""
        said = f", declaring {c.declare}" if c.declare else ""
        words = f"resolve {c.ref}{mode} as if used{said}"
    if c.until is not None:
        words += f" until {_conds(c.until) or 'the end of the game'}"
    if c.needs:
        words = f"if {_conds(c.needs)}: {words}"
    if c.otherwise:
        words += f"; if it cannot, [{text_words(c.otherwise)}]"
    return words


def text_words(clauses: Iterable[Clause]) -> str:
    return "; ".join(clause_words(c) for c in clauses) or "nothing"


def effect_words(e: Effect) -> str:
    """An effect as people read it, opening as printed (7.1.3, 7.1.4)."""
    head = PRINTED_AS.get(e.opens, "")
    parts = []
    if e.opens in ("alpha", "beta", "gamma") and e.when:
        parts.append(f"when {_conds(e.when)}:")
    if e.needs:
        parts.append(f"[only if {_conds(e.needs)}]")
    if e.opens in ("always", "own-turn", "opponent-turn"):
        parts.append(f"{text_words(e.cost) if e.cost else 'no cost'}:")
    if e.modes:
        parts.append(" / ".join(f"mode {i}: [{text_words(m)}]" for i, m in enumerate(e.modes, start=1)))
    else:
        parts.append(text_words(e.text))
    if e.declare:
        parts.append(f"(declare {' or '.join(e.declare)})")
    if e.unique:
        parts.append("(does not stack)")
    if e.optional:
        parts.append("(its player chooses whether it applies)")
    if e.at_will:
        parts.append("(may be applied at will)")
    return " ".join(p for p in [head, *parts] if p)


# --- the view ------------------------------------------------------------------------------


def conditions_holding(state: Table) -> list[str]:
    """Every named condition that holds now, set or made to hold."""
    made = {c.clause.word for c in contributions(state) if c.clause.does == "set" and c.clause.word}
    return sorted(c for c in state.conditions | made if holds(state, c))


def state_view(state: Table, viewer: str) -> dict[str, Any]:
    """The position as ``viewer`` sees it: the same for everyone (ruling:P1)."""
    check_viewer(viewer)
    names = value_names(state)
    cards: dict[str, Any] = {}
    for name, cd in state.cards.items():
        cards[name] = {
            "owner": cd.owner,
            "zone": zone_of(state, name),
            "values": {v: value(state, name, v) for v in names},
            "text": "invalid" if name in state.invalid else "valid",
            "effects": {
                label.partition("#")[2]: effect_words(effect_of(state, label) or e) for label, e in effects_of(cd)
            },
        }
    frames = [
        {
            "effect": f.effect,
            "kind": f.kind,
            "player": f.player,
            "next clause": f.pc + 1,
            "clauses": len(f.clauses),
            **({"mode": f.mode} if f.mode is not None else {}),
            **({"nullified": True} if f.nullified else {}),
        }
        for f in state.frames
    ]
    pending = [
        {
            "kind": b.kind,
            "effects": {p.player: [x.label for x in p.chosen + p.rest] for p in b.parts},
            "ordered": {p.player: not p.rest for p in b.parts},
        }
        for b in state.pending
    ]
    interference = None
    if state.interference is not None:
        interference = {
            "used": list(state.interference.used),
            "waiting": [{"effect": u.effect, "player": u.player} for u in state.interference.waiting],
        }
    return {
        "game": "pmv-ch7",
        "event": state.position,
        "result": None,
        "turn": state.turn,
        "priority": state.priority,
        "conditions": conditions_holding(state),
        "points": {seat: state.points.get(seat, 0) for seat in SEATS},
        "zones": {zone: {"count": len(state.zones[zone]), "cards": list(state.zones[zone])} for zone in ZONES},
        "cards": cards,
        "applying": list(state.applying),
        "choices": {k: "applies" if v else "does not apply" for k, v in state.chosen.items()},
        "lasting": [f"{x.id}: {clause_words(x.clause)} (from {x.effect})" for x in state.lasting],
        "waiting effects": [
            f"{w.id}: when {_conds(w.when)}, [{text_words(w.text)}] (from {w.effect})" for w in state.waiting
        ],
        "interference": interference,
        "resolving": frames,
        "pending": pending,
        "results": [{"effect": r.effect, "outcome": r.outcome, "rule": r.rule} for r in state.results],
        "violations": [],
        "mode": state.mode,
        **({"judge_call": state.judge_call} if state.judge_call else {}),
    }


def render_state(view: dict[str, Any]) -> str:
    """The view as text: the table, then each card with its values and effects."""
    lines = [
        f"Phantom Magic Vision chapter 7 (effects), event {view['event']}",
        f"  turn: {view['turn']}   priority: {view['priority']}   points: "
        + ", ".join(f"{s} {n}" for s, n in view["points"].items()),
        f"  conditions: {', '.join(view['conditions']) or '-'}",
    ]
    for zone, entry in view["zones"].items():
        lines.append(f"  {zone:<12} {entry['count']:>2}  {', '.join(entry['cards']) or '-'}")
    for name, card in view["cards"].items():
        values = ", ".join(f"{k} {v}" for k, v in card["values"].items())
        invalid = "  (text invalid)" if card["text"] == "invalid" else ""
        lines.append(f"  {name} ({card['zone']}){': ' + values if values else ''}{invalid}")
        for number, words in card["effects"].items():
            lines.append(f"      #{number} {words}")
    if view["applying"]:
        lines.append(f"  applying: {', '.join(view['applying'])}")
    for item in view["lasting"]:
        lines.append(f"  lasting {item}")
    for item in view["waiting effects"]:
        lines.append(f"  waiting {item}")
    if view["interference"] is not None:
        waiting = ", ".join(u["effect"] for u in view["interference"]["waiting"]) or "-"
        lines.append(f"  interference: used {', '.join(view['interference']['used'])}; to resolve: {waiting}")
    for frame in view["resolving"]:
        lines.append(f"  resolving {frame['effect']}: clause {frame['next clause']} of {frame['clauses']}")
    for batch in view["pending"]:
        lines.append(f"  to resolve ({batch['kind']}): {batch['effects']}")
    return "\n".join(lines)
