"""What every game must keep, checked by playing it at random: the conformance suite's checks.

Like OpenSpiel's ``games_sim_test``, which plays every registered game, the
suite plays random legal actions from a game's starting positions (random
decks where the game has them, the positions of its scenario files, or
positions a test gives) and, after every action, checks what the kernel's
procedure promises and what a game must keep for it:

- ``fold``: the fold of the stored events equals the state the actions
  led to, and the state's encoding reads back the same (a snapshot);
- ``listed``: every listed action is accepted; an action made up from a
  listed one is either listed (as the list writes it) or refused, citing a
  rule with a sentence;
- ``views``: every viewer's view shows the judge's zones, each card either
  as the judge sees it or hidden, and names no card it hides anywhere else
  (nor does any sentence of the log for that viewer, about cards it never
  saw);
- ``sentences``: every event has a sentence for every viewer, and the log's
  rows follow the events;
- ``rewind``: for a game with rewinds, a rewind to before an action with
  its later actions replayed returns the state as it was;
- ``records``: for a game with records, the match exported as a record
  replays to the very same events.

Each check returns sentences, one per break found (empty: the game keeps
it). ``tests/test_conformance.py`` runs them over every registered game and
the toy game; ``tests/test_conformance_breaks.py`` plants each break in a
game and sees its check fail.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.actions import IllegalAction
from referee.capabilities import Started
from referee.inputs import Document, load_document
from referee.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ("fold", "listed", "views", "sentences", "rewind", "records")


@dataclass
class Playout:
    """One random game: its log, the state after each action, the actions."""

    ruleset: Ruleset[Any, Any]
    log: list[Any]
    states: list[Any]  # the state after the start, then after each action
    ends: list[int]  # the log's length after the start, then after each action
    actions: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what went wrong while playing (``listed``)


# --- starting positions ---------------------------------------------------------------


def scenario_positions(ruleset: Ruleset[Any, Any], most: int = 6) -> list[Started]:
    """The positions of the scenario files under ``scenarios/`` that name
    the game (its written examples), at most ``most``."""
    out: list[Started] = []
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        if len(out) >= most:
            break
        try:
            doc = load_document(path)
        except Exception:  # noqa: BLE001 - decks, pools and records live beside scenarios
            continue
        if not isinstance(doc.data, dict) or doc.data.get("game") != ruleset.id or "setup" not in doc.data:
            continue
        out.append(ruleset.position(doc.data, doc))
    return out


def position(ruleset: Ruleset[Any, Any], text: str) -> Started:
    """A position written in YAML, as ``referee new --position`` reads it."""
    import yaml

    return ruleset.position(yaml.safe_load(text), Document(Path("<position>"), yaml.safe_load(text)))


def starts(ruleset: Ruleset[Any, Any], seeds: Iterable[int] = (1, 2)) -> Iterator[Started]:
    """Where a game's random playouts start: random legal decks dealt
    (``decks``), else the positions of its scenario files."""
    if ruleset.decks is not None:
        decks = ruleset.decks
        pool = decks.bundled_cards()
        for seed in seeds:
            rng = random.Random(seed)
            dealt = {seat: decks.random_deck(rng, pool) for seat in ruleset.seats}
            applied = ruleset.start(dealt, seed=seed)
            yield Started(applied.events, applied.state, {})
    else:
        yield from scenario_positions(ruleset)


# --- playing --------------------------------------------------------------------------


def junk(rng: random.Random, ruleset: Ruleset[Any, Any], state: Any, legal: list[Any]) -> Any:
    """An action made up from a listed one: another seat, another move, or
    another value for one of its arguments (one the legal list gives some
    action, or a card of the match)."""
    base = dict(rng.choice(legal).to_dict())
    spoil = rng.randrange(3)
    if spoil == 0:
        base["player"] = rng.choice([*ruleset.seats, "nobody"])
    elif spoil == 1:
        base["do"] = rng.choice([*ruleset.actions, "no_such_move"])
    else:
        args = [k for k in base if k not in ("player", "do")]
        if args:
            key = rng.choice(args)
            values = [a.to_dict()[key] for a in legal if key in a.to_dict() and a.to_dict()[key] != base[key]]
            cards = sorted(ruleset.cards_of(state))
            if isinstance(base[key], bool) or not values and not cards:
                base.pop(key)
            elif values and (rng.random() < 0.5 or not cards or not isinstance(base[key], (str, list))):
                base[key] = rng.choice(values)
            else:
                base[key] = [rng.choice(cards)] if isinstance(base[key], list) else rng.choice(cards)
    try:
        return ruleset.action_from_mapping(base)
    except (TypeError, ValueError, KeyError):
        return None


def _listed(ruleset: Ruleset[Any, Any], state: Any, action: Any, legal: list[Any]) -> bool:
    """Is ``action`` one the legal list has: as the list writes it, or in
    effect (the very events of a listed action)?"""
    written = ruleset.canonical(state, action).to_dict()
    if any(a.to_dict() == written for a in legal):
        return True
    events = ruleset.decide(state, action)
    return any(a.do == action.do and a.player == action.player and ruleset.decide(state, a) == events for a in legal)


def play(ruleset: Ruleset[Any, Any], started: Started, seed: int, most: int = 80) -> Playout:
    """Random legal actions from ``started``, checking as it goes that every
    listed action is accepted and a made-up one is listed or refused with a
    rule (``listed``)."""
    rng = random.Random(seed)
    skips = ruleset.selfplay.playout_skips if ruleset.selfplay is not None else frozenset()
    out = Playout(ruleset, list(started.events), [started.state], [len(started.events)])
    state = started.state
    for _ in range(most):
        if ruleset.result(state) is not None:
            break
        legal = ruleset.legal_actions(state)
        if not legal:
            break
        for action in legal:
            refusal = ruleset.is_legal(state, action)
            if refusal is not None:
                out.problems.append(f"listed action {action.to_dict()} is refused: {refusal}")
        made_up = junk(rng, ruleset, state, legal)
        deciding = ruleset.decision(state)
        if made_up is not None:
            refusal = ruleset.is_legal(state, made_up)
            if refusal is None:
                # The legal list is the deciding player's (any seat's, when it is nobody's in particular).
                if deciding is not None and deciding.player in (None, made_up.player):
                    if not _listed(ruleset, state, made_up, legal):
                        out.problems.append(f"{made_up.to_dict()} is accepted but not listed")
            elif not refusal.rule or not refusal.reason:
                out.problems.append(f"{made_up.to_dict()} is refused without a rule and a sentence: {refusal!r}")
        choices = [a for a in legal if a.do not in skips] or legal
        action = rng.choice(choices)
        try:
            applied = ruleset.apply(state, action)
        except IllegalAction as exc:
            out.problems.append(f"listed action {action.to_dict()} cannot be applied: {exc.refusal}")
            break
        state = applied.state
        out.log.extend(applied.events)
        out.states.append(state)
        out.ends.append(len(out.log))
        out.actions.append(action)
    return out


# --- the checks -----------------------------------------------------------------------


def check_fold(p: Playout) -> list[str]:
    """The fold of the log equals the state the actions led to; its encoding reads back the same."""
    g, fails = p.ruleset, []
    if g.fold(p.log) != p.states[-1]:
        fails.append("the fold of the stored events differs from the state the actions led to")
    state = g.initial_state()
    for event in p.log:
        state = g.evolve(state, event)
    if state != p.states[-1]:
        fails.append("evolve, event by event, differs from the state the actions led to")
    for encode in (g.encode_state, g.encode_snapshot):
        data = json.loads(json.dumps(encode(p.states[-1])))
        if g.decode_state(data) != p.states[-1]:
            fails.append(f"the state does not read back from its encoding ({encode.__name__})")
    return fails


def check_listed(p: Playout) -> list[str]:
    return list(p.problems)


def _zone_names(view: dict[str, Any]) -> set[str]:
    return {c for zone in (view.get("zones") or {}).values() for c in (zone.get("cards") or []) if c}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def redactions(mine: Any, judge: Any, path: str, out: list[str], said: list[str], shown: set[str]) -> None:
    """Walk a viewer's view beside the judge's: it may leave out or hide
    (None, empty) what the judge's shows, never add (a key, an entry, a
    number the judge's view has not). Its own words where they differ from
    the judge's go to ``said``; strings it shows as the judge does to ``shown``."""
    if mine is None or mine == "" or mine == [] or mine == {}:
        return
    if isinstance(mine, dict):
        if not isinstance(judge, dict):
            out.append(f"{path} is a mapping where the judge's view has {judge!r}")
            return
        for k, v in mine.items():
            if k not in judge:
                out.append(f"{path}.{k} is in no judge's view")
            else:
                redactions(v, judge[k], f"{path}.{k}", out, said, shown)
    elif isinstance(mine, (list, tuple)):
        theirs = list(judge) if isinstance(judge, (list, tuple)) else None
        if theirs is None:
            out.append(f"{path} is a list where the judge's view has {judge!r}")
            return
        for i, v in enumerate(mine):
            if i >= len(theirs):
                out.append(f"{path}[{i}] is beyond the judge's view")
            else:
                redactions(v, theirs[i], f"{path}[{i}]", out, said, shown)
    elif isinstance(mine, str):
        (shown.add if mine == judge else said.append)(mine)
    elif mine != judge:
        out.append(f"{path} is {mine!r} where the judge's view has {judge!r}")


def hidden_from(g: Ruleset[Any, Any], state: Any, viewer: str) -> tuple[set[str], set[str], list[str]]:
    """The card names hidden from ``viewer`` (in a zone the judge sees and it
    does not, and shown to it nowhere), the names it is shown, and each
    place its view adds to the judge's or names a card it hides."""
    judge, mine = g.view(state, "judge"), g.view(state, viewer)
    fails: list[str] = []
    said: list[str] = []
    shown: set[str] = set()
    redactions(mine, judge, viewer, fails, said, shown)
    hidden: set[str] = set()
    my_zones = mine.get("zones") or {}
    for name, zone in (judge.get("zones") or {}).items():
        left = [c for c in (zone.get("cards") or []) if c]
        for card in (my_zones.get(name) or {}).get("cards") or []:
            if card in left:
                left.remove(card)
        hidden.update(left)
    secret = hidden - shown
    for text in said:
        named = sorted(n for n in secret if n in text and _whole(n, text))
        if named:
            fails.append(f"{viewer}'s view says {text!r}, naming {named}, which it hides")
    return secret, shown, fails


def check_views(p: Playout, every: int = 3) -> list[str]:
    """Every viewer's view is the judge's with what it may not see left out
    or hidden: nothing added, no card it hides named in its own words; and
    of another seat's zones a seat sees no card the public does not (what
    a seat keeps from everyone, it keeps from the other seats)."""
    g, fails = p.ruleset, []
    for k, state in enumerate(p.states):
        if k % every and k != len(p.states) - 1:
            continue
        public = (g.view(state, "public").get("zones") or {}) if "public" in g.viewers else None
        for viewer in g.viewers:
            if viewer == "judge":
                continue
            fails += [f"after action {k}: {w}" for w in hidden_from(g, state, viewer)[2]]
            if viewer not in g.seats or public is None:
                continue
            for name, zone in (g.view(state, viewer).get("zones") or {}).items():
                owner = name.partition(".")[0]
                if owner == viewer or owner not in g.seats:
                    continue
                more = Counter(c for c in zone.get("cards") or () if c) - Counter(
                    c for c in (public.get(name) or {}).get("cards") or () if c
                )
                if more:
                    fails.append(f"after action {k}: {viewer} sees {sorted(more)} in {name}, which the public does not")
    return sorted(set(fails))


def check_sentences(p: Playout) -> list[str]:
    """Every event has a sentence for every viewer; the log's rows follow
    the events; a seat is told no more of a card it never saw than everyone is."""
    g, fails = p.ruleset, []
    rows: dict[str, list[dict[str, Any]]] = {}
    for viewer in g.viewers:
        state = g.initial_state()
        for event in p.log:
            try:
                text = g.describe(event, state, viewer)
            except Exception as exc:  # noqa: BLE001 - any failure to say an event is the break
                fails.append(f"{type(event).__name__} has no sentence for {viewer}: {exc!r}")
                break
            if not isinstance(text, str) or not text:
                fails.append(f"{type(event).__name__} has an empty sentence for {viewer}")
            state = g.evolve(state, event)
        try:
            rows[viewer] = g.log_rows(p.log, g.initial_state(), viewer)
        except Exception as exc:  # noqa: BLE001
            fails.append(f"the log has no rows for {viewer}: {exc!r}")
            continue
        if [r["position"] for r in rows[viewer]] != list(range(1, len(p.log) + 1)):
            fails.append(f"the log's rows for {viewer} do not follow its events")
    public = rows.get("public")
    for viewer in g.seats:
        if public is None or viewer not in rows:
            continue
        hidden: set[str] = set()
        seen: set[str] = set()
        for state in p.states:
            secret, shown, _ = hidden_from(g, state, viewer)
            hidden |= secret
            seen |= shown
        never = hidden - seen
        for row, told in zip(rows[viewer], public):
            named = sorted(n for n in never if _whole(n, row["text"]) and not _whole(n, told["text"]))
            if named:
                fails.append(f"{viewer}'s sentence {row['text']!r} names {named}, which it never saw")
    return sorted(set(fails))


def _whole(name: str, text: str) -> bool:
    import re

    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def check_rewind(p: Playout) -> list[str]:
    """A rewind to just before an action, its later actions replayed,
    returns the state as it was (the judge's view, but for the log position)."""
    g = p.ruleset
    if g.rewinds is None or len(p.actions) < 2:
        return []
    from referee import corrections

    fails = []
    for k in (1, len(p.actions) // 2):
        to = p.ends[k - 1] if k >= 1 else p.ends[0]
        try:
            back = corrections.rewind(
                p.states[-1], p.log, to, rule=g.rewinds.rules[0], reason="conformance", judge="suite", replay=True
            )
        except IllegalAction as exc:
            fails.append(f"a rewind to event {to} with replay is refused: {exc.refusal}")
            continue
        before, after = _unplaced(g.view(p.states[-1], "judge")), _unplaced(g.view(back.state, "judge"))
        if before != after:
            keys = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
            fails.append(
                f"a rewind to event {to} with its actions replayed does not return the state as it was ({keys})"
            )
    return fails


def _unplaced(view: Any) -> Any:
    """A view without the log positions it names (a rewind and its replay
    write later events: the position, and the events an agenda refers to)."""
    import re

    if isinstance(view, dict):
        return {k: _unplaced(v) for k, v in view.items() if k not in ("event", "violations")}
    if isinstance(view, list):
        return [_unplaced(v) for v in view]
    if isinstance(view, str):
        return re.sub(r"\bevent \d+", "event N", view)
    return view


def check_records(p: Playout) -> list[str]:
    """The match exported as a record replays to the very same events."""
    g = p.ruleset
    if g.records is None:
        return []
    from referee.records import ExportError, export_record, record_from_dict, replay

    try:
        record = export_record(p.log)
    except ExportError as exc:
        if "set-up position" in str(exc):  # a position no record of the game starts from
            return []
        return [f"the match cannot be exported: {exc}"]
    played = replay(record_from_dict(json.loads(json.dumps(record))))
    if played.events != p.log:
        return ["the exported record does not replay to the same events"]
    return []


CHECKERS = {
    "fold": check_fold,
    "listed": check_listed,
    "views": check_views,
    "sentences": check_sentences,
    "rewind": check_rewind,
    "records": check_records,
}


def conformance(
    ruleset: Ruleset[Any, Any], extra: Iterable[Started] = (), checks: Iterable[str] = CHECKS, most: int = 60
) -> dict[str, list[str]]:
    """Every check's breaks, over random playouts from the game's starts
    (and ``extra`` positions): empty lists where the game keeps its promise."""
    found: dict[str, list[str]] = {name: [] for name in checks}
    for seed, started in enumerate([*starts(ruleset), *extra]):
        p = play(ruleset, started, seed, most)
        for name in found:
            found[name] += CHECKERS[name](p)
    return found
