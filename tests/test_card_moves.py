"""One pipeline for every card move (403.1, 409; issue 14).

A card that moves from one zone to another because of a rule step or a card
meets the same stages: the proposal of the move, the replacements of 409
(409.1a takes away only the leaving of the field of a 214.2e discard), the
``before`` triggers of 403.1a, the move, the ``after`` triggers of 403.1b and
the checks. These tests list every place in the rules that makes a move, say
how each goes through that pipeline, and check it on every log the scenario
library writes: no move ever happened while something that cared about it
(a replacement, a ``before`` trigger, a use only usable then) was in play,
unless the pipeline held it back first.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from events.harem_master.game import CharactersDiscarded, SituationProceeds
from events.kernel import Event
from projections.harem_master.state import PILES, GameState, evolve, initial_state
from referee.actions import IllegalAction
from referee.inputs import load_document
from referee.rules.harem_master import apply
from referee.rules.harem_master.agenda import cares
from referee.rules.harem_master.notation import action_from_mapping, resolve
from referee.rules.harem_master.situations import MOVES, events_of, happened, moved
from referee.scenario import judge_action, load_scenario, scenario_files

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "referee" / "rules" / "harem_master"
# Harem Master's scenarios (another game's, `game:`, have moves of their own).
LIBRARY = [p for p in scenario_files([str(ROOT / "scenarios")]) if "game" not in (load_document(p).data or {})]

# Every place in the rules that makes an event moving cards, and how that
# move goes through the pipeline: the function that hands it to
# ``agenda.pipeline`` / ``agenda.propose`` (held at its moment before if
# anything cares), or None for moves that no situation of the abilities
# contract names (docs/abilities.md, Situations), so that nothing can care
# about them: ``happened`` gives them no situation, which the log check
# below confirms move by move.
PLACES: dict[tuple[str, str, str], tuple[str | None, str]] = {
    ("setup", "_decide_opening", "OpeningChosen"): (None, "101.1: face down, before the first turn"),
    ("setup", "_hands", "HandDrawn"): (None, "101.4: before the first turn"),
    ("setup", "_decide_mulligan", "MulliganTaken"): (None, "101.5: before the first turn"),
    ("turn", "_stack_to_hand", "StackReturnedToHand"): (None, "302: stack to hand"),
    ("turn", "_fill_stack", "CardMovedToStack"): (None, "303: castle to stack"),
    ("zones", "pay", "CostPaid"): (None, "215.4c: stack to castle"),
    ("abilities", "declare_event", "EventPlayed"): (
        None,
        "306.2, 214.3e, ruling A33: putting the card into the discard is using it; its moment before is the use's",
    ),
    ("turn", "_play_character", "CharacterPlayed"): ("turn._held", "306.1: use, enter_field"),
    ("turn", "_item_played", "ItemPlayed"): ("turn._held", "306.3: use, enter_field"),
    ("turn", "_item_played", "ItemDiscarded"): ("turn._held", "214.4g: then leave_field, discard"),
    ("battle", "_capture", "CharacterCaptured"): ("battle._capture", "306.5k/l: captured, leave_field"),
    ("battle", "_castle_attack", "CardMilled"): ("battle._castle_attack", "306.5m: mill, discard, one card at a time"),
    ("turn", "_decide_discard", "HandLimitDiscarded"): ("turn._decide_discard", "309: discard, one card each"),
    ("checks", "same_name_discard", "CharactersDiscarded"): (
        "checks.same_name_discard",
        "214.2e: discard; 403.2a, 409.1a: no leave_field",
    ),
    ("checks", "unsuited_item", "ItemDiscarded"): ("checks._discard_item", "214.4f, ruling A14: leave_field, discard"),
    ("checks", "state_check", "ItemDiscarded"): ("checks._discard_item", "214.4f: leave_field, discard"),
    ("effects", "_effect", "CardMoved"): ("agenda._resolve", "407.5, 411.1c: a step's effects"),
}

# Events that change where a card id is without a card moving at the table.
NOT_MOVES = {
    "CardRevealed": "100.2, 215: the table names an unknown card; the ids swap, no card moves",
    "Rewound": "410: a judge's correction restores an earlier state",
    "EntryUndone": "the board's undo of a mistyped entry restores the state before it",
    "StepSkipped": "410.2: record mode undoes a step the table skipped",
    "PositionSetUp": "a scenario's position written by hand",
    "MatchStarted": "100.2: the decks",
}


def _places() -> set[tuple[str, str, str]]:
    """Every (module, function, event class) where the rules build a moving event."""
    names = {cls.__name__ for cls in MOVES}
    found: set[tuple[str, str, str]] = set()
    for path in sorted(RULES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                made = node.func
                if isinstance(made, ast.Attribute) and made.attr == "trusted":  # ``Event.trusted``: the engine's own
                    made = made.value
                if isinstance(made, ast.Name) and made.id in names:
                    found.add((path.stem, fn.name, made.id))
    return found


def test_every_place_that_moves_cards_is_listed_with_how_it_meets_the_pipeline() -> None:
    found = _places()
    assert found - set(PLACES) == set(), "a new place moves cards: route it through agenda.pipeline and list it"
    assert set(PLACES) - found == set(), "a listed place no longer moves cards: update PLACES"


def test_the_pipeline_places_call_it() -> None:
    """Each place listed as going through the pipeline reaches it through a
    function that hands its events to ``pipeline`` or ``propose``; each place
    listed as no situation makes an event ``happened`` names no situation for."""
    sources = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in RULES.glob("*.py")}
    for (module, function, cls), (route, why) in PLACES.items():
        assert why, (module, function)
        if route is None:
            continue
        where, _, name = route.partition(".")
        fn = next(n for n in ast.walk(sources[where]) if isinstance(n, ast.FunctionDef) and n.name == name)
        calls = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert calls & {"pipeline", "propose"}, (module, function, route)


def test_a_same_name_discard_is_a_discard_but_no_leaving_of_the_field() -> None:
    """403.2a, 409.1a: the only exemption from the pipeline's stages."""
    from referee.scenario import load_scenario as load

    sc = load(ROOT / "scenarios" / "407-412-resolution" / "409.1a-214.2e-discard-meets-discard-replacements.yaml")
    state = sc.state
    card = next(ch.card for ch in state.field if state.cards[ch.card].name == "Court Lady")
    ev = CharactersDiscarded(player="A", cards=[card])
    sits = {s.event for s, _ in happened(state, evolve(state, ev), ev)}
    assert sits == {"discard"}


# --- the logs of the scenario library ---------------------------------------------------


def _where(state: GameState) -> dict[str, str]:
    out: dict[str, str] = {}
    for ch in state.field:
        out[ch.card] = "field"
        for item in ch.items:
            out[item] = "field"
    for item in state.orphans:
        out[item] = "field"
    for p, z in state.zones.items():
        for pile in PILES:
            for c in getattr(z, pile):
                out[c] = f"{p}.{pile}"
    return out


def _log(path: Path) -> list[Event]:
    """The scenario's log: its setup, then every action it applies (a refused
    one ends it, as in the runner)."""
    sc = load_scenario(path)
    state, log, labels = sc.state, list(sc.events), sc.labels
    before: list[int] = []
    for raw, _ in sc.actions:
        before.append(len(log))
        try:
            if raw.get("judge") is True:
                applied = judge_action(state, log, raw, before)
            else:
                applied = apply(state, resolve(state, action_from_mapping(raw), labels))
        except IllegalAction:
            break
        state = applied.state
        log.extend(applied.events)
    return log


def _dump(ev: Event) -> dict[str, Any]:
    return ev.model_dump(mode="json")


def side_doors(log: list[Event]) -> list[str]:
    """The moves of ``log`` that happened although something in play cared
    about them and no proposal had held them back."""
    out: list[str] = []
    state: GameState | None = None
    released: list[dict[str, Any]] = []
    for i, ev in enumerate(log):
        if state is None:
            state = evolve(initial_state(), ev)
            continue
        after = evolve(state, ev)
        if type(ev) is SituationProceeds:
            prop = next((f for f in state.agenda if getattr(f, "id", None) == ev.about), None)
            released = [_dump(e) for e in events_of(getattr(prop, "pending", ()) or ())]
        elif moved(ev) and type(ev).__name__ != "EventPlayed":
            d = _dump(ev)
            if d in released:
                released.remove(d)
            else:
                for sit, _ in happened(state, after, ev):
                    if cares(state, sit):
                        out.append(f"event {i} {type(ev).__name__} ({sit.event} of {sit.card}) bypassed the pipeline")
        state = after
    return out


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT / "scenarios")))
def test_no_move_bypasses_the_pipeline(path: Path) -> None:
    assert side_doors(_log(path)) == []


def test_every_kind_of_move_happens_in_the_library_and_no_other_event_moves_cards() -> None:
    seen: set[str] = set()
    movers: set[str] = set()
    for path in LIBRARY:
        log = _log(path)
        state: GameState | None = None
        for ev in log:
            prev = state if state is not None else initial_state()
            after = evolve(prev, ev)
            a, b = _where(prev), _where(after)
            if any(a.get(c) != b.get(c) for c in set(a) | set(b)):
                movers.add(type(ev).__name__)
            if moved(ev):
                seen.add(type(ev).__name__)
            state = after
    declared = {cls.__name__ for cls in MOVES}
    assert movers - declared - set(NOT_MOVES) == set(), "an event moves cards without being declared in MOVES"
    assert declared - seen == set(), "a kind of move no scenario makes: the log check above never saw it"


def test_the_moves_listed_without_a_route_are_no_situation() -> None:
    """The places PLACES lists with no route make moves that ``happened`` names
    no situation for (nothing in play could care); EventPlayed's is its use."""
    unrouted = {cls for (_, _, cls), (route, _) in PLACES.items() if route is None}
    found: dict[str, set[str]] = {}
    for path in LIBRARY:
        state: GameState | None = None
        for ev in _log(path):
            prev = state if state is not None else initial_state()
            after = evolve(prev, ev)
            name = type(ev).__name__
            if name in unrouted:
                found.setdefault(name, set()).update(s.event for s, _ in happened(prev, after, ev))
            state = after
    assert set(found) == unrouted
    assert {k: v for k, v in found.items() if v - {"use"} or (v and k != "EventPlayed")} == {}
