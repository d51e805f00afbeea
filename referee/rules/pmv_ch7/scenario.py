"""The expectations of Phantom Magic Vision chapter-7 scenario files (docs/games/pmv-ch7.md, "Scenarios").

A file says ``game: pmv-ch7``; ``referee.scenario`` reads and runs it as
every game's (name, rules, question, setup, actions, expect), its actions
read against the moves' declared arguments. This is the game's part: what
``expect`` may check, checked for its shape before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.kernel import Event
from events.pmv_ch7 import EVENT_TYPES
from projections.pmv_ch7.state import SEATS, ZONES, Table, holds, value
from referee.actions import Refusal
from referee.capabilities import Started
from referee.rules.pmv_ch7.engine import decision
from referee.rules.pmv_ch7.position import start_from_position
from referee.scenario import Reader

EXPECT_KEYS = (
    "refused",
    "decision",
    "events",
    "holds",
    "not_holds",
    "values",
    "zones",
    "applying",
    "results",
    "turn",
    "priority",
    "interference",
    "points",
    "lasting",
    "waiting",
    "invalid",
)
# An expected event names its class (``type``), the rule it cites (or one it is a sub-rule of) and any of its fields.
EVENT_KEYS = ("type", *dict.fromkeys(f for cls in EVENT_TYPES.values() for f in cls.model_fields if f != "step"))
Path_ = tuple[Any, ...]


def check_shape(r: Reader, expect: Any, path: Path_) -> None:
    e = r.mapping(expect, path, EXPECT_KEYS)
    if "refused" in e:
        r.mapping(e["refused"] or {}, path + ("refused",), ("rule",))
    if "decision" in e:
        d = r.mapping(e["decision"], path + ("decision",), ("player", "kind", "rule"))
        if d.get("player") is not None:
            r.player(d["player"], path + ("decision", "player"))
    for i, item in enumerate(r.seq(e.get("events", []), path + ("events",))):
        r.mapping(item, path + ("events", i), EVENT_KEYS)
    for key in ("holds", "not_holds", "applying", "invalid"):
        for i, item in enumerate(r.seq(e.get(key, []), path + (key,))):
            r.str_(item, path + (key, i))
    for card, values in r.mapping(e.get("values", {}), path + ("values",), _keys(e.get("values"))).items():
        for name, n in r.mapping(values, path + ("values", card), _keys(values)).items():
            r.int_(n, path + ("values", card, name))
    for zone, cards in r.mapping(e.get("zones", {}), path + ("zones",), ZONES).items():
        r.seq(cards, path + ("zones", zone))
    for i, item in enumerate(r.seq(e.get("results", []), path + ("results",))):
        r.mapping(item, path + ("results", i), ("effect", "outcome", "rule"), ("effect", "outcome"))
    for key in ("turn", "priority"):
        if key in e:
            r.player(e[key], path + (key,))
    if e.get("interference") is not None:
        found = r.mapping(e["interference"], path + ("interference",), ("used", "waiting"))
        for key in ("used", "waiting"):
            r.seq(found.get(key, []), path + ("interference", key))
    for seat, n in r.mapping(e.get("points", {}), path + ("points",), SEATS).items():
        r.int_(n, path + ("points", seat))
    for key in ("lasting", "waiting"):
        if key in e:
            r.int_(e[key], path + (key,), 0)


def _keys(value: Any) -> tuple[str, ...]:
    return tuple(str(k) for k in value) if isinstance(value, dict) else ()


def check_expect(expect: Mapping[str, Any], state: Table, log: list[Event]) -> list[str]:
    """Every way the state and log differ from the expectation, as sentences."""
    fails: list[str] = []
    if "decision" in expect:
        d = decision(state)
        for key, want in expect["decision"].items():
            got = getattr(d, key) if d is not None else None
            if got != want:
                fails.append(f"decision {key}: expected {want!r}, found {got!r}")
    if "events" in expect:
        fails += _check_events(expect["events"], log)
    for c in expect.get("holds", []):
        if not holds(state, str(c)):
            fails.append(f"expected {c} to hold, but it does not")
    for c in expect.get("not_holds", []):
        if holds(state, str(c)):
            fails.append(f"expected {c} not to hold, but it does")
    for card, values in (expect.get("values") or {}).items():
        if card not in state.cards:
            fails.append(f"values: no card {card!r}")
            continue
        for name, n in values.items():
            got = value(state, card, str(name))
            if got != n:
                fails.append(f"{card}'s {name}: expected {n}, found {got}")
    for zone, cards in (expect.get("zones") or {}).items():
        if list(state.zones[zone]) != list(cards):
            fails.append(f"{zone}: expected {list(cards)}, found {list(state.zones[zone])}")
    if "applying" in expect and list(state.applying) != list(expect["applying"]):
        fails.append(f"applying: expected {list(expect['applying'])}, found {list(state.applying)}")
    if "results" in expect:
        got = [{"effect": r.effect, "outcome": r.outcome, "rule": r.rule} for r in state.results]
        want = list(expect["results"])
        same = len(got) == len(want) and all(
            g["effect"] == w["effect"]
            and g["outcome"] == w["outcome"]
            and ("rule" not in w or g["rule"] == str(w["rule"]))
            for g, w in zip(got, want)
        )
        if not same:
            fails.append(f"results: expected {want}, found {got}")
    for key in ("turn", "priority"):
        if key in expect and getattr(state, key) != expect[key]:
            fails.append(f"{key}: expected {expect[key]}, found {getattr(state, key)}")
    if "interference" in expect:
        fails += _check_interference(expect["interference"], state)
    for seat, n in (expect.get("points") or {}).items():
        if state.points.get(seat, 0) != n:
            fails.append(f"{seat}'s points: expected {n}, found {state.points.get(seat, 0)}")
    for key, have in (("lasting", len(state.lasting)), ("waiting", len(state.waiting))):
        if key in expect and have != expect[key]:
            fails.append(f"{key} effects: expected {expect[key]}, found {have}")
    if "invalid" in expect and sorted(state.invalid) != sorted(expect["invalid"]):
        fails.append(f"invalid texts: expected {sorted(expect['invalid'])}, found {sorted(state.invalid)}")
    return fails


def _check_interference(want: Any, state: Table) -> list[str]:
    have = state.interference
    if want is None:
        return [] if have is None else [f"expected no interference, found one (used {list(have.used)})"]
    if have is None:
        return [f"expected an interference ({want}), found none"]
    fails = []
    if "used" in want and list(have.used) != list(want["used"]):
        fails.append(f"interference used: expected {want['used']}, found {list(have.used)}")
    waiting = [u.effect for u in have.waiting]
    if "waiting" in want and waiting != list(want["waiting"]):
        fails.append(f"interference waiting: expected {want['waiting']}, found {waiting}")
    return fails


def _check_events(wanted: list[Mapping[str, Any]], log: list[Event]) -> list[str]:
    """The events wanted, in this order, among the log's."""
    i = 0
    for want in wanted:
        while i < len(log) and not _matches(log[i], want):
            i += 1
        if i == len(log):
            seen = "; ".join(f"{type(e).__name__} {e.rule}" for e in log[-15:])
            return [f"events: expected {dict(want)} (in this order) in the log; it ends with: {seen}"]
        i += 1
    return []


def _matches(event: Event, want: Mapping[str, Any]) -> bool:
    for key, wanted in want.items():
        if key == "type":
            if type(event).__name__ != wanted:
                return False
        elif key == "rule":
            if not Refusal(event.rule, "").cites(str(wanted)):
                return False
        else:
            got = getattr(event, key, None)
            if got != wanted:
                return False
    return True


class PmvScenarios:
    """Chapter 7's part of its scenario files (``referee.scenario`` reads the rest)."""

    keys: tuple[str, ...] = ()

    def read(self, reader: Reader, data: Mapping[str, Any]) -> tuple[Started, Any]:
        return start_from_position(data, reader.doc), None

    def check_shape(self, reader: Reader, expect: Any, path: Path_) -> None:
        check_shape(reader, expect, path)

    def check(
        self, expect: dict[str, Any], state: Table, log: list[Event], refusal: Refusal | None, labels: dict[str, str]
    ) -> list[str]:
        return check_expect(expect, state, log)


SCENARIOS = PmvScenarios()
