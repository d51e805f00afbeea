"""Scenario files of 幻想郷夢紀行 §4 (docs/games/gensokyo-s4.md, "Scenarios"), run by ``referee scenario check``.

A file says ``game: gensokyo-s4``; ``referee.scenario`` reads and runs it as
every game's (name, rules, question, setup, actions, expect), with this
game's own keys (``cards``, ``pool``), position and expectations from here
(the ``Scenarios`` capability). Actions are read against the moves'
declarations by the kernel. It is read whole and checked before anything
runs: a mistake is an ``InputError`` naming the file, the place and what was
expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.kernel import Event
from projections.gensokyo.state import SEATS, ZONES, Table
from projections.gensokyo.views import VIEWERS, state_view
from referee.actions import Refusal
from referee.capabilities import Started
from referee.rules.gensokyo.engine import decision
from referee.rules.gensokyo.position import start_from_position
from referee.rules.gensokyo.resolve import matches, order
from referee.scenario import Reader, zone_checks

EXPECT_KEYS = ("zones", "ki", "stack", "eliminated", "decision", "events", "refused", "view")
ZONE_CHECK_KEYS = ("count", "cards", "top", "bottom", "contains", "excludes")
EVENT_KEYS = ("type", "rule", "ruling", "card", "player", "kind", "to")
Path_ = tuple[Any, ...]


def _check_expect_shape(r: Reader, expect: Any, path: Path_) -> None:
    e = r.mapping(expect, path, EXPECT_KEYS)
    for zone, check in r.mapping(e.get("zones", {}), path + ("zones",), ZONES).items():
        c = r.mapping(check, path + ("zones", zone), ZONE_CHECK_KEYS)
        if "count" in c:
            r.int_(c["count"], path + ("zones", zone, "count"), 0)
        for key in ("cards", "top", "bottom", "contains", "excludes"):
            if key in c:
                for i, v in enumerate(r.seq(c[key], path + ("zones", zone, key))):
                    r.str_(v, path + ("zones", zone, key, i))
    ki = e.get("ki", {})
    if not isinstance(ki, dict):
        raise r.err(path + ("ki",), "expected a mapping from a card to its 気力 (null: in no party)")
    for ref, n in ki.items():
        if n is not None:
            r.int_(n, path + ("ki", ref), 0)
    for i, item in enumerate(r.seq(e.get("stack", []), path + ("stack",))):
        r.str_(item, path + ("stack", i))
    for i, seat in enumerate(r.seq(e.get("eliminated", []), path + ("eliminated",))):
        r.player(seat, path + ("eliminated", i))
    if "decision" in e:
        d = r.mapping(e["decision"], path + ("decision",), ("player", "kind", "rule"))
        if d.get("player") is not None:
            r.player(d["player"], path + ("decision", "player"))
    for i, item in enumerate(r.seq(e.get("events", []), path + ("events",))):
        r.mapping(item, path + ("events", i), EVENT_KEYS)
    if "refused" in e:
        r.mapping(e["refused"] or {}, path + ("refused",), ("rule",))
    if "view" in e:
        v = r.mapping(e["view"], path + ("view",), ("as", "hidden", "shown"), ("as",))
        r.choice(v["as"], path + ("view", "as"), VIEWERS)
        for key in ("hidden", "shown"):
            for i, zone in enumerate(r.seq(v.get(key, []), path + ("view", key))):
                r.choice(zone, path + ("view", key, i), ZONES)


# --- checking -----------------------------------------------------------------------


def _show(state: Table, cards: list[str]) -> str:
    return "[" + ", ".join(state.name(c) for c in cards) + "]"


def _find(state: Table, ref: str, labels: dict[str, str]) -> str | None:
    return next((c for c in order(state, None) if matches(state, c, ref, labels)), None)


def _source(state: Table, i: int) -> str:
    """An effect waiting to resolve as a scenario names it: its ability, card, or action's words."""
    e = state.stack[i]
    if e.ability is not None:
        return e.ability
    return state.name(e.card) if e.card is not None else (e.text or e.kind)


def check_expect(expect: Mapping[str, Any], state: Table, log: list[Event], labels: dict[str, str]) -> list[str]:
    """Every way the state differs from the expectation, as sentences."""
    fails: list[str] = []
    fails += zone_checks(
        expect.get("zones") or {},
        lambda zone: list(state.zones[zone]),
        lambda cards: _show(state, cards),
        lambda card, entry: matches(state, card, str(entry), labels),
    )
    for ref, n in (expect.get("ki") or {}).items():
        card = _find(state, str(ref), labels)
        have = state.ki.get(card) if card is not None else None
        if have != n:
            fails.append(f"気力 of {ref}: expected {n}, found {have}")
    if "stack" in expect:
        sources = [_source(state, i) for i in range(len(state.stack))]
        if sources != [str(w) for w in expect["stack"]]:
            fails.append(f"waiting to resolve (4-5), oldest first: expected {expect['stack']}, found {sources}")
    if "eliminated" in expect and list(state.eliminated) != list(expect["eliminated"]):
        fails.append(f"dropped out (4-5f): expected {expect['eliminated']}, found {list(state.eliminated)}")
    if "decision" in expect:
        d = decision(state)
        for key in ("player", "kind", "rule"):
            got = getattr(d, key) if d is not None else None
            if key in expect["decision"] and got != expect["decision"][key]:
                fails.append(f"decision {key}: expected {expect['decision'][key]}, found {got}")
    if "events" in expect:
        fails += _check_events(expect["events"], state, log, labels)
    if "view" in expect:
        fails += _check_view(expect["view"], state)
    return fails


def _check_events(wanted: list[dict[str, Any]], state: Table, log: list[Event], labels: dict[str, str]) -> list[str]:
    """``wanted`` found in the log in this order (others may come between)."""
    i = 0
    for want in wanted:
        while i < len(log) and not _event_matches(state, log[i], want, labels):
            i += 1
        if i == len(log):
            seen = ", ".join(f"{type(e).__name__} {e.rule}" for e in log[-20:])
            return [f"events: expected {want} (in this order) in the log; the log ends with: {seen}"]
        i += 1
    return []


def _event_matches(state: Table, event: Event, want: Mapping[str, Any], labels: dict[str, str]) -> bool:
    if "rule" in want and not Refusal(event.rule, "").cites(str(want["rule"])):
        return False
    if "ruling" in want and event.ruling != want["ruling"]:
        return False
    if "type" in want and type(event).__name__ != want["type"]:
        return False
    for key in ("player", "kind", "to"):
        if key in want and getattr(event, key, None) != want[key]:
            return False
    if "card" in want:
        card = getattr(event, "card", None)
        if card is None or not matches(state, card, str(want["card"]), labels):
            return False
    return True


def _check_view(want: Mapping[str, Any], state: Table) -> list[str]:
    view = state_view(state, want["as"])
    fails = []
    for zone in want.get("hidden", []):
        cards = view["zones"][zone]["cards"]
        if any(c is not None for c in cards):
            fails.append(f"view as {want['as']}: expected {zone} hidden, but it shows {cards}")
    for zone in want.get("shown", []):
        cards = view["zones"][zone]["cards"]
        if any(c is None for c in cards):
            fails.append(f"view as {want['as']}: expected {zone} shown, but it hides {cards}")
    return fails


class GensokyoScenarios:
    """§4's part of its scenario files (``referee.scenario`` reads the rest)."""

    keys: tuple[str, ...] = ("cards", "pool")

    def read(self, reader: Reader, data: Mapping[str, Any]) -> tuple[Started, Any]:
        return start_from_position(data, reader.doc), None

    def check_shape(self, reader: Reader, expect: Any, path: Path_) -> None:
        _check_expect_shape(reader, expect, path)

    def check(
        self,
        expect: dict[str, Any],
        state: Table,
        log: list[Event],
        refusal: Refusal | None,
        labels: dict[str, str],
    ) -> list[str]:
        return check_expect(expect, state, log, labels)


SCENARIOS = GensokyoScenarios()

__all__ = ["SCENARIOS", "SEATS", "check_expect"]
