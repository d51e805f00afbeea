"""A chapter-7 position as people write it (a scenario's ``setup:``), read and checked: the test cards and their clauses.

The notation is docs/games/pmv-ch7.md's ("Positions", "Test cards"); what
each clause does is a ruling (docs/rulings.md, P2-P10). Everything is
checked before anything runs, and a mistake is an ``InputError`` naming the
file, the place and what was expected: an unknown key, a card named twice
or never defined, an effect ``CARD#N`` that no card has, an automatic α or
β whose text is not continuous (ruling:P7), a cost that is not a cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.pmv_ch7.cards import ACTIVATED, AUTOMATIC, PRINTED, Card, Clause, Effect, Opens
from events.pmv_ch7.effects import GAME, PositionSetUp
from referee.capabilities import Started
from referee.inputs import NAME_LENGTH, Document
from referee.scenario import Reader

SEATS = ("A", "B")
SETUP_KEYS = ("names", "seed", "turn", "priority", "conditions", "points", "cards")
CARD_KEYS = ("name", "owner", "zone", "invalid", "values", "play", "effects")
EFFECT_KEYS = ("opens", "cost", "needs", "when", "text", "modes", "declare", "unique", "optional", "at_will")
DOES = ("set", "clear", "add", "move", "pay", "act", "invalidate", "rewrite", "nullify", "wait", "as_used")
MODIFIERS = ("needs", "all", "until", "else", "n", "of", "to", "text", "then", "mode", "declare")
CLAUSE_KEYS = DOES + MODIFIERS
# What each kind of clause may say besides what it does (docs/games/pmv-ch7.md, "Clauses").
TAKES: dict[str, tuple[str, ...]] = {
    "set": ("until",),
    "clear": (),
    "add": ("n", "of", "all", "until"),
    "move": ("to", "all"),
    "pay": (),
    "act": (),
    "invalidate": (),
    "rewrite": ("text",),
    "nullify": (),
    "wait": ("then",),
    "as_used": ("mode", "declare"),
}
CONTINUOUS = ("set", "add")  # what an α or β text may do (ruling:P7)
COSTS = ("set", "clear", "add", "move", "pay", "act", "invalidate")  # what a cost may do (ruling:P2)
Path_ = tuple[Any, ...]


class _Cards:
    """The cards read so far (names), for checking what clauses name once all are read."""

    def __init__(self) -> None:
        self.defs: dict[str, Card] = {}
        self.places: dict[str, Path_] = {}


def start_from_position(data: Mapping[str, Any], doc: Document) -> Started:
    """The position a document's ``setup:`` describes, its events and the
    state after them and every automatic step up to the first decision."""
    from referee import ruleset  # the ruleset runs the steps the position sets off (by the registry: no cycle)

    r = Reader(doc, SEATS)
    setup = r.mapping(data.get("setup"), ("setup",), SETUP_KEYS, ("turn", "cards"))
    seed = r.int_(setup.get("seed", 0), ("setup", "seed"), 0)
    names = {seat: seat for seat in SEATS}
    for seat, name in r.mapping(setup.get("names", {}), ("setup", "names"), SEATS).items():
        names[seat] = r.text(name, ("setup", "names", seat), NAME_LENGTH)
    turn = r.player(setup["turn"], ("setup", "turn"))
    priority = r.player(setup.get("priority", turn), ("setup", "priority"))
    points = {
        seat: r.int_(n, ("setup", "points", seat), 0)
        for seat, n in r.mapping(setup.get("points", {}), ("setup", "points"), SEATS).items()
    }
    raw_cards = r.seq(setup["cards"], ("setup", "cards"), 200, "cards")
    if not raw_cards:
        raise r.err(("setup", "cards"), "expected at least one card")
    cards = _Cards()
    field: list[str] = []
    invalid: list[str] = []
    for i, raw in enumerate(raw_cards):
        path = ("setup", "cards", i)
        c = r.mapping(raw, path, CARD_KEYS, ("name", "owner"))
        name = _card_name(r, c["name"], path + ("name",))
        if name in cards.defs:
            raise r.err(path + ("name",), f"{name!r} is the name of another card: a card's name is its id")
        owner = r.player(c["owner"], path + ("owner",))
        zone = r.choice(c.get("zone", "field"), path + ("zone",), ("field", "elsewhere"))
        if r.bool_(c.get("invalid", False), path + ("invalid",)):
            invalid.append(name)
        values = {
            str(k): r.int_(v, path + ("values", k))
            for k, v in r.mapping(c.get("values", {}), path + ("values",), _any(c.get("values"))).items()
        }
        play = _play(r, c["play"], path + ("play",)) if "play" in c else None
        effects = tuple(
            _effect(r, e, path + ("effects", j))
            for j, e in enumerate(r.seq(c.get("effects", []), path + ("effects",), 20))
        )
        cards.defs[name] = Card(name=name, owner=owner, values=values, play=play, effects=effects)
        cards.places[name] = path
        if zone == "field":
            field.append(name)
    _check_references(r, cards)
    conditions = [
        _condition(r, cond, ("setup", "conditions", j), cards, plain=True)
        for j, cond in enumerate(r.seq(setup.get("conditions", []), ("setup", "conditions")))
    ]
    first = PositionSetUp(
        seed=seed,
        names=names,
        cards=cards.defs,
        field=field,
        turn=turn,
        priority=priority,
        conditions=conditions,
        points=points,
        invalid=invalid,
    )
    applied = ruleset.get(GAME).begin([first])
    return Started(applied.events, applied.state, {})


def _any(value: Any) -> tuple[str, ...]:
    return tuple(str(k) for k in value) if isinstance(value, dict) else ()


def _card_name(r: Reader, value: Any, path: Path_) -> str:
    name = r.text(value, path, NAME_LENGTH)
    if "#" in name or "," in name or name == "self" or name != name.strip():
        raise r.err(path, f"{name!r}: a card's name has no '#' or ',', is not 'self' and has no spaces around it")
    return name


def _opens(r: Reader, value: Any, path: Path_) -> Opens:
    text = r.str_(value, path)
    if text in PRINTED:
        return PRINTED[text]
    allowed: tuple[str, ...] = (*PRINTED, *PRINTED.values())
    return r.choice(text, path, allowed)  # type: ignore[return-value]  # an Opens: checked against them just now


def _play(r: Reader, raw: Any, path: Path_) -> Effect:
    """A card's play text: a list of clauses, or ``{text|modes, unique}`` (7.1.2)."""
    if isinstance(raw, list):
        return Effect(opens="play", text=_clauses(r, raw, path, "play"))
    p = r.mapping(raw, path, ("text", "modes", "unique"))
    return Effect(opens="play", unique=r.bool_(p.get("unique", False), path + ("unique",)), **_body(r, p, path, "play"))


def _body(r: Reader, e: dict[str, Any], path: Path_, opens: str) -> dict[str, Any]:
    if "text" in e and "modes" in e:
        raise r.err(path, "an effect has a text or modes to choose from (7.1.15), not both")
    if "modes" in e:
        modes = r.seq(e["modes"], path + ("modes",), 9)
        if len(modes) < 2:
            raise r.err(path + ("modes",), "modes: at least two effects to choose from (7.3.4.b)")
        return {
            "modes": tuple(
                _clauses(r, r.seq(m, path + ("modes", i)), path + ("modes", i), opens) for i, m in enumerate(modes)
            )
        }
    return {"text": _clauses(r, r.seq(e.get("text", []), path + ("text",)), path + ("text",), opens)}


def _effect(r: Reader, raw: Any, path: Path_) -> Effect:
    e = r.mapping(raw, path, EFFECT_KEYS, ("opens",))
    opens = _opens(r, e["opens"], path + ("opens",))
    activated, automatic = opens in ACTIVATED, opens in AUTOMATIC
    for key, allowed, what in (
        ("cost", activated, "an activated effect's cost (7.3.2)"),
        ("needs", activated, "an activated effect's conditions of use (7.3.3.c)"),
        ("declare", activated, "what using an activated effect asks to declare (7.3.4.d)"),
        ("when", automatic, "an automatic effect's condition (7.4.2)"),
        ("at_will", automatic, "an automatic effect applied at will (7.4.4)"),
        ("optional", opens == "alpha", "an automatic α whose player chooses (7.4.5.f)"),
        ("modes", activated, "an activated effect's effects to choose from (7.3.4.b); a play text's go in play"),
    ):
        if key in e and not allowed:
            raise r.err(path + (key,), f"{key} is {what}; this effect opens {e['opens']}")
    unique, optional, at_will = (r.bool_(e.get(k, False), path + (k,)) for k in ("unique", "optional", "at_will"))
    continuous = opens in ("alpha", "beta") and not at_will
    body = _body(r, e, path, "continuous" if continuous else "text")
    cost = _clauses(r, r.seq(e.get("cost", []), path + ("cost",)), path + ("cost",), "cost")
    declare = tuple(
        r.str_(w, path + ("declare", i)) for i, w in enumerate(r.seq(e.get("declare", []), path + ("declare",)))
    )
    needs = _conditions(r, e.get("needs", []), path + ("needs",))
    when = _conditions(r, e.get("when", []), path + ("when",))
    return Effect(
        opens=opens,
        cost=cost,
        needs=needs,
        when=when,
        declare=declare,
        unique=unique,
        optional=optional,
        at_will=at_will,
        **body,
    )


def _conditions(r: Reader, raw: Any, path: Path_) -> tuple[str, ...]:
    return tuple(_condition(r, c, path + (i,)) for i, c in enumerate(r.seq(raw, path)))


def _condition(r: Reader, raw: Any, path: Path_, cards: _Cards | None = None, plain: bool = False) -> str:
    """A named condition: a word, ``not WORD``, ``field:CARD`` or ``declared:WORD`` (ruling:P3)."""
    text = r.str_(raw, path).strip()
    word = text[4:].strip() if text.startswith("not ") else text
    if not word or " " in word or "," in word or "#" in word:
        raise r.err(
            path, f"{text!r}: a condition is one word (a-z, 0-9, '-', ':'), 'not WORD', 'field:CARD' or 'declared:WORD'"
        )
    if plain and (text != word or word.startswith(("field:", "declared:"))):
        raise r.err(path, f"{text!r}: the position lists the conditions that hold, each a plain word")
    return text


def _clauses(r: Reader, raw: list[Any], path: Path_, where: str) -> tuple[Clause, ...]:
    return tuple(_clause(r, c, path + (i,), where) for i, c in enumerate(raw))


def _clause(r: Reader, raw: Any, path: Path_, where: str) -> Clause:
    """One clause (docs/games/pmv-ch7.md, "Clauses"); ``where``: text, play,
    cost or continuous (an α or β text, ruling:P7)."""
    c = r.mapping(raw, path, CLAUSE_KEYS)
    found = [k for k in DOES if k in c]
    if len(found) != 1:
        raise r.err(path, f"a clause does one thing, one of: {', '.join(DOES)}")
    does = found[0]
    for key in c:
        if key in MODIFIERS and key not in ("needs", "else") and key not in TAKES[does]:
            raise r.err(
                path + (key,),
                f"a {does} clause takes {', '.join(TAKES[does]) or 'nothing else'} (and needs, else), not {key}",
            )
    if where == "continuous":
        if does not in CONTINUOUS or any(k in c for k in ("needs", "else", "until", "all")):
            raise r.err(
                path,
                "an automatic α or β applies while its condition holds: its text sets conditions and adds to values, nothing else (ruling:P7)",
            )
    if where == "cost" and does not in COSTS:
        raise r.err(path, f"a cost is paid, never {does} (ruling:P2): {', '.join(COSTS)}")
    value = c[does]
    out: dict[str, Any] = {"does": does}
    if does in ("set", "clear"):
        out["word"] = _condition(r, value, path + (does,), plain=True)
    elif does == "act":
        out["word"] = r.str_(value, path + (does,))
    elif does == "add":
        out["word"] = r.str_(value, path + (does,))
        if "n" in c:
            if c["n"] == "paid":
                out["paid"] = True
            else:
                out["n"] = r.int_(c["n"], path + ("n",), -99, 99)
        out["cards"] = _names(r, c.get("of", ["self"]), path + ("of",))
    elif does in ("move", "invalidate"):
        out["cards"] = _names(r, value, path + (does,))
        if does == "move":
            if "to" not in c:
                raise r.err(path, "a move clause needs to: field or elsewhere")
            out["to"] = r.choice(c["to"], path + ("to",), ("field", "elsewhere"))
    elif does == "pay":
        out["n"] = r.int_(value, path + (does,), 0, 99)
    elif does == "rewrite":
        out["ref"] = r.str_(value, path + (does,))
        out["text"] = _clauses(r, r.seq(c.get("text", []), path + ("text",)), path + ("text",), "text")
    elif does == "nullify":
        r.choice(value, path + (does,), ("resolving",))
    elif does == "wait":
        out["when"] = _conditions(r, value, path + (does,))
        if not out["when"]:
            raise r.err(path + (does,), "a waiting effect waits for at least one condition (7.8.1)")
        out["text"] = _clauses(r, r.seq(c.get("then", []), path + ("then",)), path + ("then",), "text")
    else:
        out["ref"] = r.str_(value, path + (does,))
        if "mode" in c:
            out["mode"] = r.int_(c["mode"], path + ("mode",), 1, 9)
        if "declare" in c:
            out["declare"] = r.str_(c["declare"], path + ("declare",))
    out["needs"] = _conditions(r, c.get("needs", []), path + ("needs",))
    if "all" in c:
        out["all"] = r.bool_(c["all"], path + ("all",))
    if "until" in c:
        out["until"] = _conditions(r, c["until"], path + ("until",))
    if "else" in c:
        if where == "cost":
            raise r.err(path + ("else",), "a cost is paid as it says or not at all (7.3.3.d): no else")
        out["otherwise"] = _clauses(r, r.seq(c["else"], path + ("else",)), path + ("else",), where)
    return Clause(**out)


def _names(r: Reader, raw: Any, path: Path_) -> tuple[str, ...]:
    items = [raw] if isinstance(raw, str) else r.seq(raw, path)
    return tuple(r.str_(x, path + (i,)) for i, x in enumerate(items))


# --- what clauses name, checked once every card is read ---------------------------------------


def _check_references(r: Reader, cards: _Cards) -> None:
    for name, cd in cards.defs.items():
        base = cards.places[name]
        effects: list[tuple[Path_, Effect]] = [((*base, "play"), cd.play)] if cd.play is not None else []
        effects += [((*base, "effects", j), e) for j, e in enumerate(cd.effects)]
        for path, e in effects:
            for key, conds in (("needs", e.needs), ("when", e.when)):
                for i, cond in enumerate(conds):
                    _condition_names(r, cond, path + (key, i), cards)
            groups = [("text", e.text), ("cost", e.cost)] + [(f"modes.{i}", m) for i, m in enumerate(e.modes)]
            for key, clauses in groups:
                for i, clause in enumerate(clauses):
                    _clause_names(r, clause, path + (*key.split("."), i), cards)


def _clause_names(r: Reader, c: Clause, path: Path_, cards: _Cards) -> None:
    for card in c.cards:
        if card != "self" and card not in cards.defs:
            raise r.err(path, f"no card is named {card!r} (the cards: {', '.join(cards.defs)}, or self)")
    for cond in (*c.needs, *c.when, *(c.until or ())):
        _condition_names(r, cond, path, cards)
    if c.ref is not None:
        found = _effect_named(r, c.ref, path, cards)
        if c.does == "as_used":
            if found.kind != "activated":
                raise r.err(
                    path,
                    f"{c.ref} is not an activated effect: only an effect that is used can be resolved as if used (7.5)",
                )
            if found.modes and c.mode is None:
                raise r.err(path, f"{c.ref} has {len(found.modes)} effects: say which (mode, 7.5.2.a)")
            if c.mode is not None and not 1 <= c.mode <= max(len(found.modes), 1 if not found.modes else 0):
                raise r.err(path + ("mode",), f"{c.ref} has {len(found.modes) or 'no'} modes")
            if found.declare and c.declare not in found.declare:
                raise r.err(path, f"{c.ref} asks for a declaration: {' or '.join(found.declare)} (7.5.2.c)")
        elif found.modes:
            raise r.err(path, f"{c.ref} has modes: a rewrite gives an effect one text")
        elif found.opens in ("alpha", "beta") and not found.at_will and any(x.does not in CONTINUOUS for x in c.text):
            raise r.err(
                path,
                f"{c.ref} is an automatic {found.opens}: its new text sets conditions and adds to values (ruling:P7)",
            )
    for inner in (*c.text, *(c.otherwise or ())):
        _clause_names(r, inner, path, cards)


def _condition_names(r: Reader, cond: str, path: Path_, cards: _Cards) -> None:
    word = cond[4:] if cond.startswith("not ") else cond
    if word.startswith("field:") and word[6:] not in cards.defs:
        raise r.err(path, f"{cond!r}: no card is named {word[6:]!r}")


def _effect_named(r: Reader, ref: str, path: Path_, cards: _Cards) -> Effect:
    card, _, index = ref.rpartition("#")
    cd = cards.defs.get(card)
    if cd is None:
        raise r.err(path, f"{ref!r}: an effect is named CARD#N, and no card is named {card!r}")
    if index == "play" and cd.play is not None:
        return cd.play
    if index.isdigit() and 1 <= int(index) <= len(cd.effects):
        return cd.effects[int(index) - 1]
    raise r.err(path, f"{ref!r}: {card} has effects 1 to {len(cd.effects)}" + (" and play" if cd.play else ""))
