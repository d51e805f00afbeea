"""Scenario files of the SCP-TCG zone rules (docs/games/scp-tcg-s4.md, "Scenarios"), run by ``referee scenario check``.

A file says ``game: scp-tcg-s4``; ``referee.scenario`` reads and runs it as
every game's (name, rules, question, setup, actions, expect), with this
game's own keys (``cards``, ``pool``, ``format``), position, instructions
and expectations from here (the ``Scenarios`` capability and the ruleset's
``read_action``). It is read whole and checked before anything runs: a
mistake is an ``InputError`` naming the file, the place and what was
expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from events.kernel import Event
from projections.scp_tcg.state import SEATS, ZONES, ZoneState
from projections.scp_tcg.views import VIEWERS, state_view
from referee.actions import Refusal
from referee.capabilities import Started
from referee.inputs import close_to
from referee.rules.scp_tcg.common import ARGUMENTS, MOVES
from referee.rules.scp_tcg.engine import decision
from referee.rules.scp_tcg.instructions import ANY_SANDBOXES
from referee.rules.scp_tcg.position import start_from_position
from referee.rules.scp_tcg.resolve import matches
from referee.rules.scp_tcg.rewinds import REWIND_RULES
from referee.scenario import JUDGE_ACTION_KEYS, Reader, read_judge_action, zone_checks

ACTION_KEYS = ("player", "do", *ARGUMENTS, "expect")
EXPECT_KEYS = (
    "zones",
    "objects",
    "controller",
    "foundation",
    "protection",
    "terminated",
    "not_terminated",
    "face_up",
    "stacked",
    "arriving",
    "breaches",
    "decision",
    "events",
    "refused",
    "view",
)
ZONE_CHECK_KEYS = ("count", "cards", "top", "bottom", "contains", "excludes")
Path_ = tuple[Any, ...]


def read_action(r: Reader, raw: Any, path: Path_) -> tuple[dict[str, Any], dict | None]:
    """A player's instruction as a scenario or record has it, or a judge's action (``judge: true``)."""
    if isinstance(raw, dict) and raw.get("judge") is True:
        a = r.mapping(raw, path, ("judge", "do", *JUDGE_ACTION_KEYS), ("do",))
        do = r.str_(a["do"], path + ("do",))
        only_players = tuple(k for k in ARGUMENTS if k not in JUDGE_ACTION_KEYS)  # ``to`` is both's
        read_judge_action(r, a, do, path, only_players, REWIND_RULES)
        return a, None
    a = r.mapping(raw, path, ACTION_KEYS, ("player", "do"))
    r.player(a["player"], path + ("player",))
    do = r.str_(a["do"], path + ("do",))
    kind = MOVES.get(do)
    if kind is not None:
        allowed = {arg.name for arg in kind.args}
        for key in a:
            if key in ARGUMENTS and key not in allowed:
                raise r.err(path + (key,), f"{do} takes {', '.join(sorted(allowed)) or 'no arguments'}, not {key!r}")
        for arg in kind.args:
            if arg.required and arg.name not in a:
                raise r.err(path, f"missing required key {arg.name!r} for {do}")
    for key in ("card", "to", "at", "host", "zone"):
        if key in a:
            r.str_(a[key], path + (key,))
    if "cards" in a:
        for i, v in enumerate(r.seq(a["cards"], path + ("cards",))):
            r.str_(v, path + ("cards", i))
    if "n" in a:
        r.int_(a["n"], path + ("n",))
    if "instructed" in a:
        r.bool_(a["instructed"], path + ("instructed",))
    for key in ("to", "zone"):
        if key in a and a[key] not in ZONES and a[key] not in ANY_SANDBOXES:
            close = close_to(str(a[key]), [*ZONES, *ANY_SANDBOXES])
            said = f"did you mean {' or '.join(close)}?" if close else f"expected one of {', '.join(ZONES)}"
            raise r.err(path + (key,), f"no zone {a[key]!r} in this game; {said}")
    expect = a.get("expect")
    if expect is not None:
        _check_expect_shape(r, expect, path + ("expect",))
    return a, expect


def _check_expect_shape(r: Reader, expect: Any, path: Path_) -> None:
    e = r.mapping(expect, path, EXPECT_KEYS)
    for zone, check in r.mapping(e.get("zones", {}), path + ("zones",), ZONES).items():
        c = r.mapping(check, path + ("zones", zone), ZONE_CHECK_KEYS)
        if "count" in c:
            r.int_(c["count"], path + ("zones", zone, "count"), 0)
        for key in ("cards", "top", "bottom", "contains", "excludes"):
            if key in c:
                r.seq(c[key], path + ("zones", zone, key))
    for seat, refs in r.mapping(e.get("objects", {}), path + ("objects",), SEATS).items():
        r.seq(refs, path + ("objects", seat))
    for ref, who in r.mapping(e.get("controller", {}), path + ("controller",), _anything(e.get("controller"))).items():
        if who is not None:
            r.player(who, path + ("controller", ref))
    found = r.mapping(e.get("foundation", {}), path + ("foundation",), ("contains", "excludes"))
    for key, refs in found.items():
        r.seq(refs, path + ("foundation", key))
    for zone, n in r.mapping(e.get("protection", {}), path + ("protection",), ZONES).items():
        r.int_(n, path + ("protection", zone))
    for key in ("terminated", "not_terminated", "face_up", "breaches"):
        if key in e:
            r.seq(e[key], path + (key,))
    for key in ("stacked",):
        for host, sides in r.mapping(e.get(key, {}), path + (key,), _anything(e.get(key))).items():
            r.mapping(sides, path + (key, host), ("above", "below"))
    for seat, refs in r.mapping(e.get("arriving", {}), path + ("arriving",), SEATS).items():
        r.seq(refs, path + ("arriving", seat))
    if "decision" in e:
        d = r.mapping(e["decision"], path + ("decision",), ("player", "kind", "rule"))
        if d.get("player") is not None:
            r.player(d["player"], path + ("decision", "player"))
    for i, item in enumerate(r.seq(e.get("events", []), path + ("events",))):
        r.mapping(item, path + ("events", i), ("rule", "type", "card", "player"))
    if "refused" in e:
        r.mapping(e["refused"] or {}, path + ("refused",), ("rule",))
    if "view" in e:
        v = r.mapping(e["view"], path + ("view",), ("as", "hidden", "shown"), ("as",))
        r.choice(v["as"], path + ("view", "as"), VIEWERS)
        for key in ("hidden", "shown"):
            for i, zone in enumerate(r.seq(v.get(key, []), path + ("view", key))):
                r.choice(zone, path + ("view", key, i), ZONES)


def _anything(value: Any) -> tuple[str, ...]:
    """Every key of ``value`` is allowed (card references are checked when run)."""
    return tuple(str(k) for k in value) if isinstance(value, dict) else ()


# --- checking -----------------------------------------------------------------------


def _show(state: ZoneState, cards: list[str]) -> str:
    return "[" + ", ".join(state.cards[c].name for c in cards) + "]"


def _same(state: ZoneState, cards: list[str], refs: list[Any], labels: dict[str, str]) -> bool:
    return len(cards) == len(refs) and all(matches(state, c, str(w), labels) for c, w in zip(cards, refs))


def _find(state: ZoneState, ref: str, labels: dict[str, str]) -> str | None:
    return next((c for c in state.everywhere() if matches(state, c, ref, labels)), None)


def check_expect(expect: dict, state: ZoneState, log: list[Event], labels: dict[str, str]) -> list[str]:
    """Every way the state differs from the expectation, as sentences."""
    fails: list[str] = []
    fails += zone_checks(
        expect.get("zones") or {},
        lambda zone: list(state.zones[zone]),
        lambda cards: _show(state, cards),
        lambda card, entry: matches(state, card, str(entry), labels),
    )
    for seat, refs in (expect.get("objects") or {}).items():
        have = state.objects(seat)
        if not _same(state, have, refs, labels):
            fails.append(f"{seat}'s objects (401.3): expected {refs}, found {_show(state, have)}")
    for ref, who in (expect.get("controller") or {}).items():
        card = _find(state, str(ref), labels)
        controls = state.controller(card) if card is not None else None
        if card is None or controls != who:
            fails.append(f"controller of {ref} (401.2): expected {who}, found {controls}")
    for key, want in (("contains", True), ("excludes", False)):
        for ref in (expect.get("foundation") or {}).get(key, []):
            card = _find(state, str(ref), labels)
            if card is None or state.in_foundation(card) != want:
                fails.append(f"{ref}: expected {'in' if want else 'not in'} the Foundation (400.3)")
    for zone, n in (expect.get("protection") or {}).items():
        if state.protection(zone) != n:
            fails.append(f"{zone}: expected protection {n}, found {state.protection(zone)}")
    for key, want in (("terminated", True), ("not_terminated", False)):
        for ref in expect.get(key, []):
            card = _find(state, str(ref), labels)
            if card is None or (card in state.terminated) != want:
                fails.append(f"{ref}: expected {'' if want else 'not '}terminated (405.2a)")
    for ref in expect.get("face_up", []):
        card = _find(state, str(ref), labels)
        if card is None or card not in state.face_up:
            fails.append(f"{ref}: expected face up in its sandbox (402.3)")
    for ref, sides in (expect.get("stacked") or {}).items():
        host = _find(state, str(ref), labels)
        for side in ("above", "below"):
            if side in sides:
                have = list(getattr(state, side).get(host, ())) if host else []
                if not _same(state, have, sides[side], labels):
                    fails.append(f"{side} {ref} (401.5): expected {sides[side]}, found {_show(state, have)}")
    for seat, refs in (expect.get("arriving") or {}).items():
        have = list(state.arriving.get(seat, ()))
        if len(have) != len(refs) or not all(any(matches(state, c, str(w), labels) for c in have) for w in refs):
            fails.append(f"arriving at {seat}.decommissioned (405.4): expected {refs}, found {_show(state, have)}")
    if "breaches" in expect and list(state.breaches) != list(expect["breaches"]):
        fails.append(f"breached sandboxes (402.6b): expected {expect['breaches']}, found {list(state.breaches)}")
    if "decision" in expect:
        d = decision(state)
        for key in ("player", "kind", "rule"):
            if key in expect["decision"] and getattr(d, key) != expect["decision"][key]:
                fails.append(f"decision {key}: expected {expect['decision'][key]}, found {getattr(d, key)}")
    if "events" in expect:
        fails += _check_events(expect["events"], state, log, labels)
    if "view" in expect:
        fails += _check_view(expect["view"], state)
    return fails


def _check_events(wanted: list[dict], state: ZoneState, log: list[Event], labels: dict[str, str]) -> list[str]:
    i = 0
    for want in wanted:
        while i < len(log) and not _event_matches(state, log[i], want, labels):
            i += 1
        if i == len(log):
            seen = ", ".join(f"{type(e).__name__} {e.rule}" for e in log[-20:])
            return [f"events: expected {want} (in this order) in the log; the log ends with: {seen}"]
        i += 1
    return []


def _event_matches(state: ZoneState, event: Event, want: dict, labels: dict[str, str]) -> bool:
    if "rule" in want and not Refusal(event.rule, "").cites(str(want["rule"])):
        return False
    if "type" in want and type(event).__name__ != want["type"]:
        return False
    if "player" in want and getattr(event, "player", None) != want["player"]:
        return False
    if "card" in want:
        card = getattr(event, "card", None)
        if card is None or not matches(state, card, str(want["card"]), labels):
            return False
    return True


def _check_view(want: dict, state: ZoneState) -> list[str]:
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


class ScpScenarios:
    """Chapter 4's part of its scenario files (``referee.scenario`` reads the rest)."""

    keys: tuple[str, ...] = ("format", "cards", "pool")

    def read(self, reader: Reader, data: Mapping[str, Any]) -> tuple[Started, Any]:
        if data.get("format", 1) != 1:
            raise reader.err(("format",), f"expected format 1, got {data.get('format')!r}")
        return start_from_position(data, reader.doc), None

    def check_shape(self, reader: Reader, expect: Any, path: Path_) -> None:
        _check_expect_shape(reader, expect, path)

    def check(
        self,
        expect: dict[str, Any],
        state: ZoneState,
        log: list[Event],
        refusal: Refusal | None,
        labels: dict[str, str],
    ) -> list[str]:
        return check_expect(expect, state, log, labels)


SCENARIOS = ScpScenarios()

__all__ = ["SCENARIOS", "check_expect", "read_action"]
