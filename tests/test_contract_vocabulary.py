"""The abilities and scenario contracts, read from the repository's own docs:
every value they list is accepted, and used by a scenario of the library.

The vocabulary is read from ``docs/abilities.md`` and ``docs/scenario-format.md``
(the documents a user has), and checked to hold at least what the contracts
listed when they were written (``CONTRACT_*`` below, copied from them): a
document that narrows a contract fails here before any code does. Every
value is then fed into a card pool or a scenario, which must be read without
error; and every value that changes what happens must be written in some
card or action of the scenario library, whose scenarios all pass
(``test_scenarios``), so each value is both accepted and meaningful.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from referee.inputs import InputError
from referee.rules.harem_master.pool import load_pool
from referee.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCENARIOS = ROOT / "scenarios"

# --- reading the docs ---------------------------------------------------------------------


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The text under ``## title`` up to the next ``## `` heading."""
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def table(text: str) -> list[list[str]]:
    """The rows of the first table in ``text`` (header and rule dropped), cells split at unescaped bars."""
    rows = []
    started = False
    for line in text.splitlines():
        if not line.startswith("|"):
            if started:
                break
            continue
        started = True
        if set(line) <= set("|-: "):
            continue
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))])
    return rows[1:]


def ticks(text: str) -> list[str]:
    return [t.replace("\\|", "|") for t in re.findall(r"`([^`]+)`", text)]


def no_parens(text: str) -> str:
    while True:
        out = re.sub(r"\([^()]*\)", "", text)
        if out == text:
            return out
        text = out


def sentence(text: str, start: str) -> str:
    """From ``start`` to the end of its sentence (a full stop then a space or the end)."""
    i = text.index(start)
    m = re.compile(r"\.(\s|$)").search(no_parens(text[i:]))
    assert m is not None
    return no_parens(text[i:])[: m.start() + 1]


def alternatives(text: str) -> list[str]:
    """``a | b | c`` or ``a, b or c`` -> the words."""
    return [w for w in re.split(r"\s*(?:\||,|\bor\b|\band\b)\s*", text.strip()) if w]


def mapping_keys(token: str) -> dict[str, str]:
    """``{what, to, player, position}`` or ``{top: AMOUNT, of: ZONE}`` -> keys and what follows each."""
    inner = token.strip()[1:-1]
    out = {}
    for part in re.split(r",\s*(?![^\[]*\])", inner):
        key, _, value = part.partition(":")
        for k in key.split("|"):
            if k.strip() and k.strip() != "...":
                out[k.strip()] = value.strip()
    return out


class AbilitiesVocabulary:
    """What docs/abilities.md says card text may be written with."""

    def __init__(self, text: str) -> None:
        kinds = section(text, "Kinds of ability")
        self.kinds: dict[str, list[str]] = {}
        for kind_cell, _, keys_cell in table(kinds):
            self.kinds[ticks(kind_cell)[0]] = ticks(no_parens(keys_cell))
        timing = next(r[2] for r in table(kinds) if ticks(r[0]) == ["triggered"])
        self.timings = ticks(re.search(r"`timing` \(([^)]*)\)", timing).group(1))[:2]  # type: ignore[union-attr]
        cost = kinds[kinds.index("**`cost`**") : kinds.index("\n- **`ot: true`**")]
        self.costs = [t.strip('"') for t in ticks(cost) if re.fullmatch(r'"?(\[(T|n|\d+)\])+"?', t)]
        cond = kinds[kinds.index("A condition is") :]
        cond = re.split(r"\.(?:\s|$)", cond)[0]
        self.conditions: dict[str, list[str]] = {}
        for t in ticks(cond):
            if t.startswith("{"):
                for key, value in mapping_keys(t).items():
                    self.conditions[key] = [v for v in alternatives(value) if re.fullmatch(r"[a-z_]+", v)]
            elif ":" in t:
                key = t.split(":")[0]
                self.conditions[key] = []
        sits = section(text, "Situations")
        self.situation_players = ticks(re.search(r"`player:` \(([^)]*)\)", sits).group(1))  # type: ignore[union-attr]
        self.situations: dict[str, dict[str, list[str]]] = {}
        for row in table(sits):
            extras: dict[str, list[str]] = {}
            for m in re.finditer(r"`(\w+)(?:: (\w+))?`(?: \(([^)]*)\))?", row[2]):
                key, value, said = m.group(1), m.group(2), m.group(3) or ""
                values = [value] if value else ticks(said)
                if "a zone" in said:
                    values = ["zone"]
                extras[key] = [v for v in values if not v.endswith(":")] or ["true"]
            for event in ticks(row[0]):
                self.situations[event] = extras
        sel = section(text, "Selectors, filters, players, amounts")
        self.selectors: list[str] = []
        self.selector_keys: dict[str, list[str]] = {}
        for row in table(sel):
            for t in ticks(row[0]):
                if t.startswith("{"):
                    keys = mapping_keys(t)
                    self.selectors.append(next(iter(keys)))
                    self.selector_keys[next(iter(keys))] = list(keys)
                else:
                    self.selectors.append(t)
        self.filter_keys = [t.split(":")[0] for t in ticks(sentence(sel, "A **filter** is").split(";")[0])]
        self.players = ticks(sentence(sel, "**Players** are"))
        self.zones = ticks(sentence(sel, "**Zones** are").split(";")[0])
        self.amounts = ticks(sentence(sel, "An **amount** is"))
        eff = section(text, "Effects")
        self.effects: dict[str, dict[str, str]] = {}
        self.until: list[str] = []
        self.positions: list[str] = []
        self.forbid_actions: list[str] = []
        for row in table(eff):
            for t in ticks(row[0]):
                key, _, rest = t.partition(":")
                rest = rest.strip()
                self.effects[key] = mapping_keys(rest) if rest.startswith("{") else {"": rest}
            if ticks(row[0])[0].startswith("modify"):
                self.until = [t.split(": ")[-1] for t in ticks(row[1]) if "end_of" in t]
            if ticks(row[0])[0].startswith("move"):
                self.positions = [t.split(": ")[-1] for t in ticks(row[1]) if t.split(": ")[-1] in ("top", "bottom")]
            if ticks(row[0])[0].startswith("forbid"):
                self.forbid_actions = [t for t in ticks(row[1]) if t not in ("who",)]
        acts = section(text, "Actions (scenario notation and `referee act`)")
        self.actions = {ticks(row[0])[0]: [t.split(":")[0] for t in ticks(no_parens(row[1]))] for row in table(acts)}
        self.expect_characters = list(mapping_keys(re.search(r"`characters: \{NAME: (\{[^`]*\})\}`", acts).group(1)))  # type: ignore[union-attr]
        self.event_checks = [mapping_keys(t) for t in ticks(acts) if t.startswith("{card")][0]


@lru_cache(maxsize=1)
def vocabulary() -> AbilitiesVocabulary:
    return AbilitiesVocabulary(doc("abilities.md"))


# --- what the abilities contract listed (shared with the project when it was written) ---------

CONTRACT_KINDS = {
    "activated": {"cost", "ot", "zone", "only", "also", "if", "effects"},
    "triggered": {"on", "timing", "zone", "if", "effects"},
    "static": {"if", "effects"},
    "replacement": {"instead_of", "if", "effects"},
    "use": {"only", "also", "if", "effects"},
}
CONTRACT_COSTS = {"[T]", "[0]", "[1]", "[2]", "[n]", "[T][1]"}
CONTRACT_CONDITIONS = {
    "count": set(),
    "at_least": set(),
    "at_most": set(),
    "turn": {"you", "opponent"},
    "battle": {"combat", "approach", "castle"},
    "all": set(),
    "any": set(),
}
CONTRACT_SITUATIONS = {
    "use": {"card_type", "ability"},
    "trigger": set(),
    "enter_field": set(),
    "leave_field": {"to"},
    "captured": {"zone"},
    "attack": set(),
    "intercept": set(),
    "no_intercept": set(),
    "battle_type": {"type"},
    "castle_attack": set(),
    "random_number": set(),
    "win_battle": set(),
    "lose_battle": set(),
    "battle_end": set(),
    "turn_start": set(),
    "turn_end": set(),
    "discard": {"from"},
    "mill": set(),
}
CONTRACT_SITUATION_PLAYERS = {"you", "opponent", "any"}
CONTRACT_SELECTORS = {"self", "this", "equipped", "attacker", "interceptor", "it", "target", "all", "top"}
CONTRACT_TOP_KEYS = {"top", "of", "player"}
CONTRACT_FILTER_KEYS = {
    "type",
    "zone",
    "controller",
    "owner",
    "gender",
    "faction",
    "name",
    "ready",
    "other",
    "cost_at_most",
}
CONTRACT_PLAYERS = {"you", "opponent", "active", "each"}
CONTRACT_ZONES = {"castle", "hand", "action_stack", "discard", "field", "harem", "execution", "side"}
CONTRACT_AMOUNTS = {"n", "{count: FILTER}", "{physical: SELECTOR}", "{mental: SELECTOR}", "times: K"}
CONTRACT_EFFECTS = {
    "modify": {"what", "physical", "mental", "random", "until"},
    "move": {"what", "to", "player", "position"},
    "tap": set(),
    "untap": set(),
    "battle_type": set(),
    "no_random_number": set(),
    "counter": set(),
    "copy": {"what", "from"},
    "gain": {"what", "abilities", "until"},
    "lose_abilities": {"what", "until"},
    "control": {"what", "player"},
    "hand_max": {"player", "set", "by", "until"},
    "win": set(),
    "lose": set(),
    "may": set(),
    "then": set(),
    "name": set(),
    "forbid": {"action", "who"},
}
CONTRACT_UNTIL = {"end_of_turn", "end_of_battle"}
CONTRACT_POSITIONS = {"top", "bottom"}
CONTRACT_FORBID = {"attack", "intercept", "play_character"}
CONTRACT_ACTIONS = {
    "activate": {"card", "ability", "n", "targets", "option"},
    "play_event": {"n", "targets", "option"},
    "choose": {"cards", "option"},
    "pass": set(),
}


def test_the_abilities_document_states_the_whole_contract() -> None:
    v = vocabulary()
    for kind, keys in CONTRACT_KINDS.items():
        assert kind in v.kinds and keys <= set(v.kinds[kind]), (kind, v.kinds.get(kind))
    assert set(v.timings) == {"before", "after"}
    assert CONTRACT_COSTS <= set(v.costs)
    for key, values in CONTRACT_CONDITIONS.items():
        assert key in v.conditions and values <= set(v.conditions[key]), (key, v.conditions)
    for event, extras in CONTRACT_SITUATIONS.items():
        assert event in v.situations and extras <= set(v.situations[event]), (event, v.situations.get(event))
    assert CONTRACT_SITUATION_PLAYERS <= set(v.situation_players)
    assert CONTRACT_SELECTORS <= set(v.selectors)
    assert CONTRACT_TOP_KEYS <= set(v.selector_keys["top"])
    assert CONTRACT_FILTER_KEYS <= set(v.filter_keys)
    assert CONTRACT_PLAYERS <= set(v.players)
    assert CONTRACT_ZONES <= set(v.zones)
    assert CONTRACT_AMOUNTS <= set(v.amounts)
    for effect, keys in CONTRACT_EFFECTS.items():
        assert effect in v.effects and keys <= set(v.effects[effect]), (effect, v.effects.get(effect))
    assert CONTRACT_UNTIL <= set(v.until) and CONTRACT_POSITIONS <= set(v.positions)
    assert CONTRACT_FORBID <= set(v.forbid_actions)
    for do, args in CONTRACT_ACTIONS.items():
        assert do in v.actions and args <= set(v.actions[do]), (do, v.actions.get(do))
    assert {"name", "abilities"} <= set(v.expect_characters) and "card" in v.event_checks


# --- every value, fed into a card pool --------------------------------------------------------

UNTAP: dict[str, Any] = {"untap": "self"}
STATIC_EFFECT: dict[str, Any] = {"modify": {"what": "self", "physical": 1}}
SAMPLE_SITUATION: dict[str, Any] = {"event": "attack"}


def character(name: str, abilities: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": "character",
        "cost": 1,
        "gender": "female",
        "physical": 1,
        "mental": 1,
        "text": "x",
        "abilities": abilities,
        **more,
    }


def event_card(name: str, abilities: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "type": "event", "cost": 0, "text": "x", "abilities": abilities}


def ability_with(kind: str, **keys: Any) -> dict[str, Any]:
    """The smallest ability of ``kind``, with ``keys`` written in."""
    base: dict[str, Any] = {
        "activated": {"kind": "activated", "cost": "[0]", "effects": [UNTAP]},
        "triggered": {"kind": "triggered", "on": SAMPLE_SITUATION, "effects": [UNTAP]},
        "static": {"kind": "static", "effects": [STATIC_EFFECT]},
        "replacement": {"kind": "replacement", "instead_of": SAMPLE_SITUATION, "effects": [UNTAP]},
        "use": {"kind": "use", "effects": [UNTAP]},
    }[kind]
    return {**copy.deepcopy(base), **keys}


def card_with(ability: dict[str, Any], n: int) -> dict[str, Any]:
    if ability["kind"] == "use":
        return event_card(f"Card {n}", [ability])
    return character(f"Card {n}", [ability])


SAMPLES: dict[str, Any] = {
    "cost": "[1]",
    "ot": True,
    "zone": "hand",
    "only": SAMPLE_SITUATION,
    "also": SAMPLE_SITUATION,
    "if": {"turn": "you"},
    "effects": None,
    "on": SAMPLE_SITUATION,
    "timing": "before",
    "instead_of": SAMPLE_SITUATION,
}


def selectors_written() -> Iterator[Any]:
    v = vocabulary()
    for s in v.selectors:
        if s == "target":
            yield {"target": {"type": "character"}}
        elif s == "all":
            yield {"all": {"type": "character"}}
        elif s == "top":
            for zone in v.zones:
                for player in v.players:
                    yield {"top": 1, "of": zone, "player": player}
        else:
            yield s


def filters_written() -> Iterator[dict[str, Any]]:
    v = vocabulary()
    samples: dict[str, list[Any]] = {
        "type": ["character", "event", "item"],
        "zone": v.zones,
        "controller": v.players,
        "owner": v.players,
        "gender": ["female", "male"],
        "faction": ["Kingdom"],
        "name": ["Iron Knight"],
        "ready": [True, False],
        "other": [True],
        "cost_at_most": [2],
    }
    for key in v.filter_keys:
        for value in samples[key]:
            yield {key: value}


def amounts_written() -> Iterator[Any]:
    v = vocabulary()
    for a in v.amounts:
        if a == "n":
            yield "n"
        elif a.startswith("{count"):
            yield {"count": {"type": "character"}}
        elif a.startswith("{physical"):
            yield {"physical": "self"}
        elif a.startswith("{mental"):
            yield {"mental": "self"}
        elif a.startswith("times"):
            yield {"physical": "self", "times": 2}
    yield 3


def situations_written() -> Iterator[dict[str, Any]]:
    v = vocabulary()
    for event, extras in v.situations.items():
        yield {"event": event}
        for player in v.situation_players:
            yield {"event": event, "player": player}
        for key, values in extras.items():
            for value in values:
                if value == "zone":
                    for zone in v.zones:
                        yield {"event": event, key: zone}
                else:
                    yield {"event": event, key: {"true": True, "false": False}.get(value, value)}
        for selector in selectors_written():
            yield {"event": event, "card": selector}
        yield {"event": event, "card": {"gender": "female"}}


def conditions_written() -> Iterator[dict[str, Any]]:
    v = vocabulary()
    for key, values in v.conditions.items():
        if key == "count":
            yield {"count": {"type": "character"}, "at_least": 1}
        elif key == "at_least":
            yield {"count": {"type": "character"}, "at_least": 2}
        elif key == "at_most":
            yield {"count": {"type": "character"}, "at_most": 2}
        elif key in ("all", "any"):
            yield {key: [{"turn": "you"}, {"battle": "combat"}]}
        else:
            for value in values:
                yield {key: value}


def effects_written() -> Iterator[tuple[str, dict[str, Any]]]:
    """(the kind of ability that may hold it, the effect) for every effect,
    key and value the document lists."""
    v = vocabulary()
    for effect, keys in v.effects.items():
        if effect == "modify":
            for key in keys:
                body: dict[str, Any] = {"what": "self", "physical": 1}
                if key == "until":
                    for until in v.until:
                        yield "activated", {"modify": {**body, "until": until}}
                elif key != "what":
                    for amount in amounts_written():
                        yield "activated", {"modify": {"what": "self", key: amount}}
            for selector in selectors_written():
                yield "activated", {"modify": {"what": selector, "physical": 1}}
        elif effect == "move":
            for zone in v.zones:
                for player in v.players:
                    for position in v.positions:
                        yield "activated", {"move": {"what": "it", "to": zone, "player": player, "position": position}}
            for selector in selectors_written():
                yield "activated", {"move": {"what": selector, "to": "discard"}}
        elif effect in ("tap", "untap", "no_random_number"):
            for selector in selectors_written():
                yield "activated", {effect: selector}
        elif effect == "battle_type":
            for value in alternatives(keys[""]):
                yield "activated", {"battle_type": value}
        elif effect == "counter":
            yield "activated", {"counter": keys[""]}
        elif effect == "copy":
            yield "activated", {"copy": {"what": "self", "from": {"target": {"type": "character"}}}}
            for until in v.until:
                yield "activated", {"copy": {"what": "self", "from": "it", "until": until}}
        elif effect == "gain":
            for until in [None, *v.until]:
                gained = {"what": "self", "abilities": [ability_with("static")]}
                yield "activated", {"gain": {**gained, **({"until": until} if until else {})}}
        elif effect == "lose_abilities":
            for until in [None, *v.until]:
                yield "activated", {"lose_abilities": {"what": "self", **({"until": until} if until else {})}}
        elif effect == "control":
            for player in v.players:
                yield "activated", {"control": {"what": "it", "player": player}}
                for until in v.until:
                    yield "activated", {"control": {"what": "it", "player": player, "until": until}}
        elif effect == "hand_max":
            for player in v.players:
                yield "activated", {"hand_max": {"player": player, "set": 5}}
                yield "static", {"hand_max": {"player": player, "by": 1}}
                for until in v.until:
                    yield "activated", {"hand_max": {"player": player, "by": -1, "until": until}}
        elif effect in ("win", "lose"):
            for player in v.players:
                yield "activated", {effect: player}
        elif effect in ("may", "then"):
            yield "activated", {effect: [UNTAP, {"tap": "self"}]}
        elif effect == "name":
            yield "static", {"name": "Another Name"}
        elif effect == "forbid":
            for action in v.forbid_actions:
                for who in [*v.players, "self", {"all": {"type": "character"}}]:
                    yield "static", {"forbid": {"action": action, "who": who}}
        else:
            raise AssertionError(f"the test does not know how to write the effect {effect!r}")


def abilities_written() -> Iterator[tuple[str, dict[str, Any]]]:
    """(what it shows, an ability) for every kind, key and value of the document."""
    v = vocabulary()
    for kind, keys in v.kinds.items():
        yield f"kind {kind}", ability_with(kind)
        for key in keys:
            if key == "effects":
                continue
            if key == "cost":
                for cost in v.costs:
                    yield f"{kind} cost {cost}", ability_with(kind, cost=cost)
            elif key == "timing":
                for timing in v.timings:
                    yield f"{kind} timing {timing}", ability_with(kind, timing=timing)
            elif key == "zone":
                for zone in v.zones:
                    yield f"{kind} zone {zone}", ability_with(kind, zone=zone)
            elif key == "on":
                for sit in situations_written():  # every situation, once, read the same in every place
                    yield f"{kind} {key} {sit}", ability_with(kind, **{key: sit})
            elif key in ("only", "also", "instead_of"):
                for event in v.situations:
                    yield f"{kind} {key} {event}", ability_with(kind, **{key: {"event": event}})
            elif key == "if":
                for cond in conditions_written():
                    yield f"{kind} if {cond}", ability_with(kind, **{"if": cond})
            else:
                yield f"{kind} {key}", ability_with(kind, **{key: SAMPLES[key]})
    for holder, effect in effects_written():
        yield f"{holder} effect {effect}", ability_with(holder, effects=[effect])
    for f in filters_written():
        yield f"filter {f}", ability_with("activated", effects=[{"tap": {"all": f}}])
        yield f"count of {f}", ability_with("static", effects=[{"modify": {"what": "self", "physical": {"count": f}}}])


def test_every_value_of_the_abilities_document_is_accepted_in_a_pool(tmp_path: Path) -> None:
    written = list(abilities_written())
    assert len(written) > 500
    cards = [card_with(ability, i) for i, (_, ability) in enumerate(written)]
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump({"cards": cards}, sort_keys=False), encoding="utf-8")
    try:
        pool = load_pool(path)
    except InputError as exc:  # name the value that was refused
        index = int(re.search(r"cards\[(\d+)\]", exc.place).group(1))  # type: ignore[union-attr]
        pytest.fail(f"{written[index][0]} was refused: {exc.describe()}")
    assert len(pool) == len(cards)


@pytest.mark.parametrize("player", ["you", "opponent", "active", "each"])
def test_top_of_a_pile_takes_every_player(tmp_path: Path, player: str) -> None:
    """The narrowing this test was written for: ``{top: ..., player: P}``
    refused ``each`` and ``active`` ("Input should be 'you' or 'opponent'")."""
    ability = ability_with(
        "activated", effects=[{"move": {"what": {"top": 1, "of": "castle", "player": player}, "to": "discard"}}]
    )
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump([card_with(ability, 1)]), encoding="utf-8")
    card = load_pool(path)["Card 1"]
    assert card.abilities[0].effects[0].move.what.player == player


# --- every value, used by the scenario library ----------------------------------------------


def _library_files() -> list[Path]:
    return sorted(p for p in SCENARIOS.rglob("*.yaml") if "decks" not in p.parts)


@lru_cache(maxsize=1)
def library_files_read() -> list[Any]:
    return [yaml.load(p.read_text(encoding="utf-8"), Loader=_Loader) for p in _library_files()]


@lru_cache(maxsize=1)
def library_cards() -> list[dict[str, Any]]:
    """Every card definition written in the library: the bundled pool, pool
    files, and each scenario's and record's own ``cards:``."""
    out: list[dict[str, Any]] = []
    data = yaml.load(
        (ROOT / "referee" / "rules" / "harem_master" / "data" / "rules-test-pool.yaml").read_text(encoding="utf-8"),
        Loader=_Loader,
    )
    out += data["cards"] if isinstance(data, dict) else data
    for data in library_files_read():
        if isinstance(data, dict) and isinstance(data.get("cards"), list):
            out += [c for c in data["cards"] if isinstance(c, dict)]
        elif isinstance(data, list) and data and isinstance(data[0], dict) and "type" in data[0]:
            out += data
    return out


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML as the referee reads it: ``on``, ``yes`` and ``no`` are words."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|false|True|False|TRUE|FALSE)$"), list("tTfF")
)


@lru_cache(maxsize=1)
def library_actions() -> list[dict[str, Any]]:
    out = []
    for data in library_files_read():
        if isinstance(data, dict):
            out += [a for a in data.get("actions") or [] if isinstance(a, dict)]
    return out


def uses_of_ability(ab: dict[str, Any], out: set[tuple[Any, ...]]) -> None:
    kind = ab.get("kind")
    out.add(("kind", kind))
    for key, value in ab.items():
        out.add(("kind key", kind, key))
        if key == "cost":
            out.add(("cost", value))
        elif key == "timing":
            out.add(("timing", value))
        elif key == "zone":
            out.add(("ability zone", value))
        elif key in ("on", "only", "also", "instead_of"):
            uses_of_situation(value, out)
        elif key == "if":
            uses_of_condition(value, out)
        elif key == "effects":
            for e in value:
                uses_of_effect(e, out)


def uses_of_situation(sit: dict[str, Any], out: set[tuple[Any, ...]]) -> None:
    event = sit["event"]
    out.add(("situation", event))
    for key, value in sit.items():
        if key == "player":
            out.add(("situation player", value))
        elif key == "card":
            uses_of_selector(value, out, situation=True)
        elif key != "event":
            out.add(("situation filter", event, key))
            out.add(("situation filter value", event, key, str(value).lower()))


def uses_of_condition(cond: dict[str, Any], out: set[tuple[Any, ...]]) -> None:
    for key, value in cond.items():
        out.add(("condition", key))
        if key in ("turn", "battle"):
            out.add(("condition value", key, value))
        elif key in ("all", "any"):
            for c in value:
                uses_of_condition(c, out)
        elif key == "count":
            uses_of_filter(value, out)


def uses_of_selector(sel: Any, out: set[tuple[Any, ...]], situation: bool = False) -> None:
    if isinstance(sel, str):
        out.add(("selector", sel))
        return
    for key in ("target", "all", "top"):
        if key in sel:
            out.add(("selector", key))
            if key == "top":
                out.add(("top of", sel["of"]))
                out.add(("player", "top", sel.get("player", "you")))
                uses_of_amount(sel["top"], out)
            else:
                uses_of_filter(sel[key], out)
            return
    if situation:
        uses_of_filter(sel, out)


def uses_of_filter(f: dict[str, Any], out: set[tuple[Any, ...]]) -> None:
    for key, value in f.items():
        out.add(("filter", key))
        if key in ("controller", "owner"):
            out.add(("player", f"filter {key}", value))
        elif key == "zone":
            out.add(("filter zone", value))


def uses_of_amount(a: Any, out: set[tuple[Any, ...]]) -> None:
    if isinstance(a, dict):
        for key in a:
            out.add(("amount", key))
        if "count" in a:
            uses_of_filter(a["count"], out)
        for key in ("physical", "mental"):
            if key in a:
                uses_of_selector(a[key], out)
    else:
        out.add(("amount", "n" if a == "n" else "number"))


def uses_of_effect(e: dict[str, Any], out: set[tuple[Any, ...]]) -> None:
    ((key, body),) = e.items()
    out.add(("effect", key))
    if key in ("tap", "untap", "no_random_number"):
        uses_of_selector(body, out)
    elif isinstance(body, dict):
        for k, value in body.items():
            out.add(("effect key", key, k))
            if k in ("what", "from"):
                uses_of_selector(value, out)
            elif k in ("physical", "mental", "random", "set", "by"):
                uses_of_amount(value, out)
            elif k == "until":
                out.add(("until", value))
            elif k == "position":
                out.add(("position", value))
            elif k == "to":
                out.add(("move to", value))
            elif k == "abilities":
                for ab in value:
                    uses_of_ability(ab, out)
            elif k == "action":
                out.add(("forbid action", value))
            if k in ("player", "who") and isinstance(value, str) and value in vocabulary().players:
                out.add(("player", key, value))
            elif k == "who":
                uses_of_selector(value, out)
    elif key in ("win", "lose"):
        out.add(("player", key, body))
    elif key in ("may", "then"):
        for inner in body:
            uses_of_effect(inner, out)
    elif key == "battle_type":
        out.add(("battle type", body))


@lru_cache(maxsize=1)
def library_uses() -> frozenset[tuple[Any, ...]]:
    out: set[tuple[Any, ...]] = set()
    for card in library_cards():
        for ab in card.get("abilities") or []:
            uses_of_ability(ab, out)
    for a in library_actions():
        do = a.get("do")
        out.add(("do", do))
        for key in a:
            out.add(("do arg", do, key))
        if do == "choose" and "option" in a:
            out.add(("choose option", str(a["option"])))
    return frozenset(out)


# Accepted, but nothing can ever meet them (docs/abilities.md says so): a card
# does not leave the field for the field, nor go to a discard pile from one.
NEVER_HAPPENS = {("leave_field", "to", "field"), ("discard", "from", "discard")}


def wanted_uses() -> Iterator[tuple[Any, ...]]:
    """Every use of a documented value that changes what happens."""
    v = vocabulary()
    for kind, keys in v.kinds.items():
        yield ("kind", kind)
        for key in keys:
            yield ("kind key", kind, key)
    yield from (("cost", c) for c in v.costs)
    yield from (("timing", t) for t in v.timings)
    for key, values in v.conditions.items():
        yield ("condition", key)
        yield from (("condition value", key, value) for value in values)
    for event, extras in v.situations.items():
        yield ("situation", event)
        for key, values in extras.items():
            yield ("situation filter", event, key)
            for value in values:
                for one in v.zones if value == "zone" else [value]:
                    if (event, key, one) not in NEVER_HAPPENS:
                        yield ("situation filter value", event, key, one)
    yield from (("situation player", p) for p in v.situation_players)
    yield from (("selector", s) for s in v.selectors)
    yield from (("filter", k) for k in v.filter_keys)
    for place in ("top", "filter controller", "filter owner", "move", "control", "hand_max", "win", "lose", "forbid"):
        yield from (("player", place, p) for p in v.players)
    yield from (("top of", z) for z in v.zones)
    yield from (("ability zone", z) for z in v.zones)
    yield from (("filter zone", z) for z in v.zones)
    yield from (("move to", z) for z in v.zones)
    for a in v.amounts:
        yield ("amount", "n" if a == "n" else a.strip("{").split(":")[0])
    for effect, keys in v.effects.items():
        yield ("effect", effect)
        yield from (("effect key", effect, k) for k in keys if k)
    yield from (("until", u) for u in v.until)
    yield from (("position", p) for p in v.positions)
    yield from (("forbid action", a) for a in v.forbid_actions)
    yield from (("battle type", t) for t in alternatives(v.effects["battle_type"][""]))
    for do, args in v.actions.items():
        yield ("do", do)
        yield from (("do arg", do, a) for a in args)
    yield from (("choose option", o) for o in ("yes", "no"))


def test_every_value_of_the_abilities_document_is_used_by_a_scenario() -> None:
    missing = [use for use in wanted_uses() if use not in library_uses()]
    assert not missing, "\n".join(map(str, missing))


# --- the scenario format ---------------------------------------------------------------------------


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


def block_starting(text: str, start: str) -> str:
    return next(b for b in yaml_blocks(text) if b.lstrip().startswith(start))


def comment_values(block: str, key: str) -> list[str]:
    """The values a comment lists for ``key`` in a YAML block: ``step: main
    # main (default): ...`` then ``# "305": ...``; ``mode: strict  # strict
    (default) | record``."""
    lines = block.splitlines()
    i = next(k for k, line in enumerate(lines) if re.match(rf"\s*{key}:", line))
    comment = [lines[i].partition("#")[2]]
    for line in lines[i + 1 :]:
        if not line.strip().startswith("#"):
            break
        comment.append(line.strip()[1:])
    out = []
    for part in re.split(r"\||;|\n", "\n".join(comment)):
        m = re.match(r'\s*("?[A-Za-z0-9_]+"?)', part)
        if m:
            out.append(m.group(1).strip('"'))
    return out


def all_keys(value: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(str(k))
            out |= all_keys(v)
    elif isinstance(value, list):
        for v in value:
            out |= all_keys(v)
    return out


class FormatVocabulary:
    """What docs/scenario-format.md says scenario files may be written with."""

    def __init__(self, text: str, rulings: str) -> None:
        load = lambda s: yaml.load(s, Loader=_Loader)  # noqa: E731
        scen = section(text, "3. Scenarios")
        self.top = list(load(block_starting(scen, "name:").replace("{...}", "{}").replace("[...]", "[]")))
        position = block_starting(scen, "setup:\n  turn")
        self.position = load(position)["setup"]
        self.setup_keys = list(self.position)
        decks = load(block_starting(scen, "setup:\n  seed"))["setup"]
        self.setup_keys += [k for k in decks if k not in self.setup_keys]
        self.player_keys = sorted(set(self.position["players"]["A"]) | set(self.position["players"]["B"]))
        self.field_keys = sorted(all_keys(self.position["players"]["A"]["field"]))
        self.castle_keys = list(self.position["players"]["A"]["castle"])
        self.step_values = comment_values(position, "step")
        self.mode_values = comment_values(position, "mode")
        self.deal_values = comment_values(position, "deal")
        self.auto_pass_values = [True, *(v == "true" for v in comment_values(position, "auto_pass"))]
        self.rulings = {
            n: re.findall(r"^- `(\w+)`", rulings[rulings.index(f"**{n}. ") :].split("\n\n**")[0], flags=re.MULTILINE)
            for n in self.position["rulings"]
        }
        expect_block = block_starting(scen, "expect:\n  zones")
        self.expect = load(expect_block)["expect"]
        self.expect_keys = list(self.expect)
        self.expect_keys += [
            k for k in load(block_starting(scen, "expect:\n  refused"))["expect"] if k not in self.expect_keys
        ]
        self.zone_check_keys = sorted({k for check in self.expect["zones"].values() for k in check})
        self.character_keys = sorted({k for check in self.expect["characters"].values() for k in check})
        result_comment = expect_block[expect_block.index("result:") :].splitlines()[0]
        self.result_keys = sorted(
            set(self.expect["result"]) | set(re.findall(r"\b(draw|rule|ruling|scores)\b", result_comment))
        )
        self.event_keys = sorted({k for e in self.expect["events"] for k in e})
        self.view_keys = list(self.expect["view"])
        card = load(block_starting(section(text, "1. Cards"), "- name:"))
        self.card_keys = list(card[0])
        acts = section(text, "4. Actions")
        tables = acts.split("Judge actions")
        self.player_dos = {d: _arguments(row[1]) for row in table(tables[0]) for d in ticks(row[0])}
        self.judge_dos = {ticks(row[0])[0]: _arguments(row[1]) for row in table(tables[1])}
        self.rewind_to = [
            list(mapping_keys(t))
            for t in ticks(acts[acts.index("A rewind goes back to one of") :])
            if t.startswith("{")
        ]
        self.record_keys = list(
            load(block_starting(section(text, "5. Match records"), "format:").replace(", ...]", "]"))
        )


def _arguments(cell: str) -> list[str]:
    """The argument names of an action table's cell: ``card``, ``order: first``
    or ``second`` -> card, order (an alternative value after "or" is not an
    argument; ``cards: [...]`` or ``option`` are two)."""
    out: list[str] = []
    last = ""
    for m in re.finditer(r"(\bor\s+)?`([^`]*)`", no_parens(cell)):
        after_or, token = m.group(1), m.group(2)
        if after_or and ":" not in token and out and re.fullmatch(r'[^:]+:\s*"?[\w.]+"?', last):
            continue
        out.append(token.split(":")[0])
        last = token
    return out


@lru_cache(maxsize=1)
def format_vocabulary() -> FormatVocabulary:
    return FormatVocabulary(doc("scenario-format.md"), doc("rulings.md"))


# What the scenario contract listed when it was written.
CONTRACT_TOP = {"name", "rules", "question", "cards", "pool", "setup", "actions", "expect"}
CONTRACT_SETUP = {"turn", "active", "first", "step", "characters_played", "mode", "rulings", "players", "seed", "decks"}
CONTRACT_STEPS = {"main", "start"}
CONTRACT_MODES = {"strict", "record"}
CONTRACT_RULINGS = {"A1": {"not_fallen", "felled"}, "A4": {"bottom", "top"}}
CONTRACT_PLAYER = {"field", "hand", "action_stack", "castle", "discard", "harem", "execution", "side"}
CONTRACT_FIELD = {"card", "ready", "items"}
CONTRACT_CASTLE = {"top", "count"}
CONTRACT_CARD = {
    "name",
    "type",
    "cost",
    "random",
    "gender",
    "factions",
    "physical",
    "mental",
    "icons",
    "text",
    "abilities",
}
CONTRACT_EXPECT = {"zones", "characters", "active", "turn", "result", "ongoing", "events", "violations", "refused"}
CONTRACT_ZONE_CHECKS = {"count", "cards", "contains", "top", "bottom"}
CONTRACT_CHARACTER = {"ready", "physical", "mental", "items", "controller"}
CONTRACT_RESULT = {"winner", "draw", "rule", "scores"}
CONTRACT_PLAYER_DOS = {
    "choose_opening": {"card"},
    "choose_order": {"order"},
    "mulligan": set(),
    "keep": set(),
    "play_character": {"card"},
    "play_event": {"card", "targets", "n"},
    "play_item": {"card", "target"},
    "activate": {"card", "ability", "targets", "n"},
    "attack": {"card"},
    "intercept": {"card"},
    "no_intercept": set(),
    "pass": set(),
    "end_turn": set(),
    "discard": {"cards"},
    "choose": {"cards", "option"},
    "concede": set(),
    "propose_draw": set(),
    "accept_draw": set(),
}
CONTRACT_JUDGE_DOS = {"rewind": {"to", "rule", "reason"}, "note": {"text"}, "skip_step": {"rule"}, "accept": {"reason"}}
CONTRACT_REWIND_TO = [["action"], ["event"], ["turn", "step"]]
CONTRACT_RECORD = {"format", "seed", "mode", "rulings", "pool", "players", "actions"}


def test_the_scenario_format_document_states_the_whole_contract() -> None:
    v = format_vocabulary()
    assert CONTRACT_TOP <= set(v.top)
    assert CONTRACT_SETUP <= set(v.setup_keys)
    assert CONTRACT_STEPS <= set(v.step_values) and CONTRACT_MODES <= set(v.mode_values)
    assert all(values <= set(v.rulings[n]) for n, values in CONTRACT_RULINGS.items()), v.rulings
    assert CONTRACT_PLAYER <= set(v.player_keys) and CONTRACT_FIELD <= set(v.field_keys)
    assert CONTRACT_CASTLE <= set(v.castle_keys) and CONTRACT_CARD <= set(v.card_keys)
    assert CONTRACT_EXPECT <= set(v.expect_keys) and CONTRACT_ZONE_CHECKS <= set(v.zone_check_keys)
    assert CONTRACT_CHARACTER <= set(v.character_keys) and CONTRACT_RESULT <= set(v.result_keys)
    assert "rule" in v.event_keys
    for do, args in CONTRACT_PLAYER_DOS.items():
        assert do in v.player_dos and args <= set(v.player_dos[do]), (do, v.player_dos.get(do))
    for do, args in CONTRACT_JUDGE_DOS.items():
        assert do in v.judge_dos and args <= set(v.judge_dos[do]), (do, v.judge_dos.get(do))
    assert all(to in v.rewind_to for to in CONTRACT_REWIND_TO)
    assert CONTRACT_RECORD <= set(v.record_keys)


def _scenario(tmp: Path, name: str, data: dict[str, Any]) -> Path:
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "rules": ["100"], **data}, sort_keys=False), encoding="utf-8")
    return path


def test_every_setup_value_of_the_document_is_accepted(tmp_path: Path) -> None:
    v = format_vocabulary()
    base = copy.deepcopy(v.position)
    base.pop("deal")  # a table-dealt position is read on its own below
    load_scenario(_scenario(tmp_path, "as-written", {"setup": v.position}))
    for key, values in (
        ("step", v.step_values),
        ("mode", v.mode_values),
        ("deal", v.deal_values),
        ("auto_pass", v.auto_pass_values),
    ):
        assert len(values) >= 2, (key, values)
        for value in values:
            load_scenario(_scenario(tmp_path, f"{key}-{value}", {"setup": {**base, key: value}}))
    for ruling, values in v.rulings.items():
        for value in values:
            load_scenario(_scenario(tmp_path, f"{ruling}-{value}", {"setup": {**base, "rulings": {ruling: value}}}))
    for fmt in (1, 2):
        load_scenario(_scenario(tmp_path, f"format-{fmt}", {"format": fmt, "setup": base}))


def test_every_expectation_of_the_document_is_accepted(tmp_path: Path) -> None:
    v = format_vocabulary()
    expect = {**copy.deepcopy(v.expect), "refused": {"rule": "306.1a"}}
    cards = yaml.load(block_starting(section(doc("scenario-format.md"), "1. Cards"), "- name:"), Loader=_Loader)
    cards = [{**c, "name": "Documented Knight"} for c in cards]
    sc = load_scenario(_scenario(tmp_path, "expect", {"cards": cards, "setup": {}, "expect": expect}))
    assert set(sc.expect) == set(expect)


@pytest.mark.parametrize("do", sorted(set(format_vocabulary().player_dos) | set(format_vocabulary().judge_dos)))
def test_every_action_of_the_document_is_read_with_its_arguments(tmp_path: Path, do: str) -> None:
    v = format_vocabulary()
    samples: dict[str, Any] = {
        "card": "Iron Knight",
        "cards": ["Iron Knight"],
        "target": "Iron Knight",
        "targets": ["Iron Knight"],
        "order": "first",
        "n": 1,
        "option": "yes",
        "ability": 1,
        "rule": "410.1",
        "reason": "a reason",
        "text": "a note",
        "replay": True,
        "by": "Kim",
        "to": {"action": 1},
        "winner": "A",
        "at": 1,
    }
    judge = do in v.judge_dos
    args = v.judge_dos[do] if judge else v.player_dos[do]
    action: dict[str, Any] = {"judge": True} if judge else {"player": "A"}
    action |= {"do": do, **{a: samples[a] for a in args}}
    if do == "skip_step":
        action["rule"] = "303"
    actions = [action] + (
        [{**action, "to": to} for to in ({"event": 1}, {"turn": 1, "step": "303"})] if do == "rewind" else []
    )
    sc = load_scenario(_scenario(tmp_path, do, {"setup": {}, "actions": actions}))
    assert [a["do"] for a, _ in sc.actions] == [do] * len(actions)


def library_format_uses() -> set[tuple[Any, ...]]:
    """What the library's scenario files write: keys, values and actions."""
    out: set[tuple[Any, ...]] = set()
    for data in library_files_read():
        if not isinstance(data, dict) or "rules" not in data:
            continue
        out |= {("top", k) for k in data}
        setup = data.get("setup") or {}
        for key, value in setup.items():
            out.add(("setup", key))
            if key in ("step", "mode", "deal", "auto_pass"):
                out.add((key, str(value).lower() if isinstance(value, bool) else str(value)))
            if key == "rulings":
                out |= {("ruling", k, str(val)) for k, val in value.items()}
        for pdata in (setup.get("players") or {}).values():
            for key, value in (pdata or {}).items():
                out.add(("player", key))
                if key == "field":
                    out |= {("field", k) for entry in value if isinstance(entry, dict) for k in entry}
                if key == "castle" and isinstance(value, dict):
                    out |= {("castle", k) for k in value}
        expects = [data.get("expect") or {}] + [
            a.get("expect") or {} for a in data.get("actions") or [] if isinstance(a, dict)
        ]
        for expect in expects:
            for key, value in expect.items():
                out.add(("expect", key))
                if key == "zones":
                    out |= {("zone check", k) for check in value.values() for k in check}
                elif key == "characters":
                    out |= {("character", k) for check in value.values() for k in check}
                elif key == "result":
                    out |= {("result", k) for k in value}
                elif key == "events":
                    out |= {("event check", k) for e in value for k in e}
                elif key == "view":
                    out |= {("view", k) for k in value}
        for a in data.get("actions") or []:
            do = a.get("do")
            out.add(("do", do))
            out |= {("arg", do, k) for k in a if k not in ("player", "judge", "do", "expect")}
            if do == "rewind":
                out.add(("rewind to", tuple(sorted(a["to"]))))
    return out


def test_every_key_and_action_of_the_scenario_document_is_used_by_a_scenario() -> None:
    v = format_vocabulary()
    used = library_format_uses()
    wanted = {("top", k) for k in v.top}
    wanted |= {("setup", k) for k in v.setup_keys}
    wanted |= {("step", s) for s in v.step_values} | {("mode", m) for m in v.mode_values}
    wanted |= {("deal", d) for d in v.deal_values} | {("auto_pass", "false")}
    wanted |= {("ruling", n, val) for n, values in v.rulings.items() for val in values}
    wanted |= {("player", k) for k in v.player_keys} | {("field", k) for k in v.field_keys}
    wanted |= {("castle", k) for k in v.castle_keys}
    wanted |= {("expect", k) for k in v.expect_keys} | {("zone check", k) for k in v.zone_check_keys}
    wanted |= {("character", k) for k in v.character_keys} | {("result", k) for k in v.result_keys}
    wanted |= {("event check", k) for k in v.event_keys} | {("view", k) for k in v.view_keys}
    for dos in (v.player_dos, v.judge_dos):
        for do, args in dos.items():
            wanted.add(("do", do))
            wanted |= {("arg", do, a) for a in args}
    wanted |= {("rewind to", tuple(sorted(to))) for to in v.rewind_to}
    missing = sorted(wanted - used, key=str)
    assert not missing, "\n".join(map(str, missing))


def test_every_key_of_a_match_record_in_the_document_is_accepted(tmp_path: Path) -> None:
    from referee.records import load_record

    v = format_vocabulary()
    samples: dict[str, Any] = {
        "format": "harem-master-record/1",
        "title": "Round 3, table 4",
        "seed": 7,
        "mode": "record",
        "deal": "table",
        "rulings": {"A1": "felled"},
        "auto_pass": False,
        "pool": "pool.yaml",
        "cards": [{"name": "Recorded Page", "type": "character", "cost": 1, "gender": "male"}],
        "players": {
            "A": {"name": "Alice", "deck": "deck.yaml"},
            "B": {
                "name": "Bob",
                "deck": ["Recorded Page", {"card": "Iron Knight", "count": 3}, {"random": 2, "count": 47}],
            },
        },
        "actions": [
            {"player": "A", "do": "choose_opening", "card": "Little Page"},
            {"judge": True, "do": "note", "text": "ok", "by": "Kim"},
        ],
        "chain": ["cb4ceda4236c6d75", "8f9482946ab69bd4", "8f9482946ab69bd4"],
        "head": "8f9482946ab69bd4d7bc5e9ddd06b7777828010103dcb9dbc1230a9be23b98d7",
        "entries": [{"action": 1, "by": "scorekeeper Sam of m-1a2b3c4d", "station": "table-4"}],
        "signature": {"key": "ed25519:" + "A" * 43 + "=", "value": "c2ln"},
    }
    (tmp_path / "pool.yaml").write_text("[]\n", encoding="utf-8")
    (tmp_path / "deck.yaml").write_text(
        yaml.safe_dump(["Little Page", {"card": "Iron Knight", "count": 3}, {"random": 2, "count": 47}]),
        encoding="utf-8",
    )
    record = {k: samples[k] for k in v.record_keys}
    path = tmp_path / "record.yaml"
    path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    loaded = load_record(path)
    assert (loaded.mode, loaded.deal, loaded.auto_pass, loaded.rulings) == ("record", "table", False, {"A1": "felled"})
    assert len(loaded.actions) == 2 and loaded.head == samples["head"] and loaded.title == "Round 3, table 4"
