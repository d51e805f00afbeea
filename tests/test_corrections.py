"""Judges' corrections (rule 410, ruling A8): the impact report, finding the
position of a rule step or of a player action, rewinds with and without
replay, notes, accepting violations, skipped steps, the transcript's
retracted rows, and an audit that every ``Rewound`` in a log restores
exactly the state that was current at its target.

The positions are written by hand, as a scenario's setup would be, so each
test can name the cards it is about.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from events.harem_master.cards import CardDef, filler
from events.harem_master.game import (
    CardMovedToStack,
    CastlesShuffled,
    FieldCard,
    HandDrawn,
    OpeningChosen,
    PositionSetUp,
    StackReturnedToHand,
    StackSizeSet,
    TurnOrderCardsTurned,
    TurnStarted,
)
from events.kernel import ActionTaken, Event, NoteAdded, Rewound, StepSkipped, ViolationRecorded, ViolationsAccepted
from projections.harem_master.codec import encode_state
from projections.harem_master.state import GameState, evolve, fold, initial_state
from projections.harem_master.transcript import render_transcript, transcript
from projections.lineage import live_positions, retracted_positions
from referee import corrections
from referee.actions import IllegalAction
from referee.corrections import (
    accept,
    action_span,
    brought_back,
    impact,
    note,
    position_before_action,
    position_of_step,
    rewind,
    rewinds_consistent,
    skip_step,
)
from referee.rules.harem_master import advance, apply, legal_actions, start
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.decks import deal
from referee.rules.harem_master.notation import action_from_mapping, resolve
from referee.rules.harem_master.pool import bundled_pool
from referee.rules.harem_master.rewinds import REVEALS
from referee.scenario import judge_action, load_scenario
from referee.simulate import NOT_RANDOM, decks_for

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "scenarios" / "410-corrections"

SWORDSMAN = CardDef(name="Swordsman", type="character", cost=1, gender="male", physical=2, mental=0)
GUARD = CardDef(name="Guard", type="character", cost=1, gender="male", physical=3, mental=0)
LADY = CardDef(name="Lady", type="character", cost=1, gender="female", physical=0, mental=2)
KNIGHT = CardDef(name="Knight", type="character", cost=2, gender="male", physical=3, mental=1)
SQUIRE = CardDef(name="Squire", type="character", cost=1, gender="male", physical=2, mental=0)
HERB = CardDef(name="Herb", type="event", cost=1)
LETTER = CardDef(name="Letter", type="event", cost=0)
UNIFORM = CardDef(name="Uniform", type="item", cost=0)


# --- building positions and playing on them --------------------------------------


class Game:
    """A hand-written position (like a scenario's setup) and the log played on it.

    ``zones`` maps "A.hand", "A.castle", ... to CardDefs, top first; ``field``
    lists (player, CardDef, ready). Cards are found again by name."""

    def __init__(
        self,
        *,
        field: list[tuple[str, CardDef, bool]] = (),
        zones: dict[str, list[CardDef]] | None = None,
        step: str = "306",
        mode: str = "strict",
        turn: int = 3,
        active: str = "A",
    ) -> None:
        cards: dict[str, CardDef] = {}
        count = {"A": 0, "B": 0}
        self.ids: dict[str, str] = {}

        def new(owner: str, cd: CardDef) -> str:
            count[owner] += 1
            cid = f"{owner}:{count[owner]}"
            cards[cid] = cd
            self.ids.setdefault(cd.name, cid)
            return cid

        fc = [FieldCard(card=new(p, cd), controller=p, ready=ready) for p, cd, ready in field]
        z = {key: [new(key[0], cd) for cd in cds] for key, cds in (zones or {}).items()}
        for p in ("A", "B"):
            z.setdefault(f"{p}.castle", [new(p, filler(0)) for _ in range(20)])
        event = PositionSetUp(
            names={"A": "A", "B": "B"},
            cards=cards,
            zones=z,
            field=fc,
            turn=turn,
            active=active,
            first="A",
            step=step,
            mode=mode,
        )
        self.log, self.state = advance(evolve(initial_state(), event), [event])

    def id(self, name: str) -> str:
        return self.ids[name]

    def act(self, player: str, do: str, **args) -> None:
        for key in ("card", "target"):
            if key in args:
                args[key] = self.id(args[key])
        applied = apply(self.state, Action(player, do, **args))
        self.take(applied)

    def take(self, applied) -> None:
        self.log.extend(applied.events)
        self.state = applied.state
        assert fold(self.log) == self.state

    def rewind(self, to: int, rule: str = "410.1", replay: bool = False) -> corrections.Correction:
        correction = rewind(self.state, self.log, to, rule=rule, reason="test", replay=replay)
        self.take(correction)
        return correction

    def pos(self, event_type: type[Event], nth: int = 1) -> int:
        """The 1-based position of the nth event of this type in the log."""
        hits = [i for i, e in enumerate(self.log, start=1) if isinstance(e, event_type)]
        return hits[nth - 1]


def names(state: GameState, cards) -> list[str]:
    return [state.cards[c].name for c in cards]


def without_position(state: GameState) -> dict:
    d = dict(state.__dict__)
    d.pop("position")
    return d


def play_scenario(path: Path) -> tuple[GameState, list[Event]]:
    """Run a scenario's actions as ``referee scenario check`` does, keeping the log."""
    sc = load_scenario(path)
    state, log, before = sc.state, list(sc.events), []
    for raw, _ in sc.actions:
        before.append(len(log))
        try:
            if raw.get("judge") is True:
                applied = judge_action(state, log, raw, before)
            else:
                applied = apply(state, resolve(state, action_from_mapping(raw), sc.labels))
        except IllegalAction:
            continue  # a scenario's last action may be refused on purpose
        state = applied.state
        log.extend(applied.events)
    return state, log


def skipped_303_battle() -> Game:
    """Record mode, turn 3 from 301: the table skips 303, then A's Swordsman
    (+3 on the castle top) beats B's Guard; A equips Uniform and plays Letter.
    With 303 done, the castle top is -4 and the Swordsman loses instead."""
    g = Game(
        field=[("A", SWORDSMAN, True), ("B", GUARD, True)],
        zones={
            "A.hand": [UNIFORM, LETTER],
            "A.castle": [filler(3), filler(0), filler(-4)] + [filler(0)] * 7,
            "B.castle": [filler(0)] * 10,
        },
        step="301",
        mode="record",
    )
    g.take(skip_step(g.state, g.log, "303"))
    g.act("A", "attack", card="Swordsman")
    g.act("B", "intercept", card="Guard")
    g.act("A", "play_item", card="Uniform", target="Swordsman")
    g.act("A", "play_event", card="Letter")
    return g


# --- the audit: every Rewound restores fold(log[:to]) --------------------------------
#
# ``rewinds_consistent`` decodes each Rewound's state and compares it with the
# fold of the log up to its target, retracted stretches included, since that
# is what was on the table when the target event had just happened.


@pytest.mark.parametrize("path", sorted(LIBRARY.glob("*.yaml")), ids=lambda p: p.name)
def test_every_rewind_of_the_410_library_restores_the_state_at_its_target(path: Path) -> None:
    state, log = play_scenario(path)
    assert rewinds_consistent(log) == []
    assert fold(log) == state
    for r, event in enumerate(log, start=1):  # the same, by folding alone
        if isinstance(event, Rewound):
            assert without_position(fold(log[:r])) == without_position(fold(log[: event.to]))


def test_the_audit_finds_a_rewind_whose_state_is_not_the_one_at_its_target() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")
    g.act("A", "play_event", card="Herb")
    good = rewind(g.state, g.log, 1, rule="410.1", reason="back to the start").events
    assert rewinds_consistent(g.log + good) == []
    # A forged rewind that says "to 1" but carries the state after event 3.
    forged = Rewound(rule="410.1", to=1, reason="forged", state=encode_state(fold(g.log[:3]), omit=("cards",)))
    problems = rewinds_consistent(g.log + [forged])
    assert len(problems) == 1 and "zones" in problems[0] and f"event {len(g.log) + 1}" in problems[0]
    # A rewind pointing at itself or beyond.
    for to in (len(g.log) + 1, len(g.log) + 5):
        ahead = Rewound(rule="410.1", to=to, reason="bad", state=good[0].state)
        assert "not an earlier event" in rewinds_consistent(g.log + [ahead])[0]


def test_the_audit_holds_after_nested_rewinds_in_self_play() -> None:
    rng = random.Random(7)
    cards, castles = deal(decks_for(7, bundled_pool(), None))
    applied = start(cards, castles, seed=7)
    state, log = applied.state, list(applied.events)
    for round_ in range(6):
        for _ in range(8):
            if state.result is not None:
                break
            legal = [a for a in legal_actions(state) if a.do not in NOT_RANDOM]
            applied = apply(state, rng.choice(legal))
            state, log = applied.state, log + applied.events
        retracted = sorted(retracted_positions(log))
        to = rng.choice(retracted) if retracted and round_ % 2 else rng.randrange(1, len(log))
        span = action_span(log, to)
        to = span[0] - 1 if span else to  # never into the middle of an action
        c = rewind(state, log, to, rule="410.1", reason="nested", replay=bool(round_ % 3))
        state, log = c.state, log + c.events
    assert sum(isinstance(e, Rewound) for e in log) == 6
    assert rewinds_consistent(log) == []
    assert fold(log) == state


# --- impact ----------------------------------------------------------------------------


def test_impact_lists_the_live_events_after_the_target_most_recent_first() -> None:
    g = Game(
        field=[("A", SWORDSMAN, True), ("B", GUARD, True)],
        zones={"A.hand": [HERB], "A.action_stack": [filler(0)] * 2},
        step="301",
    )
    start_of_play = len(g.log)
    g.act("A", "play_event", card="Herb")
    g.act("A", "attack", card="Swordsman")
    g.act("B", "intercept", card="Guard")
    rows = impact(g.log, 1)
    assert [r["position"] for r in rows] == list(range(len(g.log), 1, -1))
    assert [r["type"] for r in rows] == [type(e).__name__ for e in reversed(g.log[1:])]
    assert all(set(r) == {"position", "type", "rule", "text", "reveals", "revealed"} for r in rows)
    by_type: dict[str, set[bool]] = {}
    for r in rows:
        by_type.setdefault(r["type"], set()).add(r["reveals"])
        assert (r["revealed"] is not None) == r["reveals"]
        assert r["text"]
    # Hidden information shown: cards into the hand (302), turned for a random
    # number (306.5i), a card from the hand played face up.
    assert by_type["StackReturnedToHand"] == {True}
    assert by_type["RandomNumberApplied"] == {True}
    assert by_type["EventPlayed"] == {True}
    # Nothing hidden shown: paying a cost (face down to the castle top), steps.
    for kind in ("CostPaid", "StepPerformed", "StackSizeSet", "CardMovedToStack", "ActionTaken", "BattleResolved"):
        assert by_type[kind] == {False}, kind
    # A target later in the log lists only what follows it.
    assert [r["position"] for r in impact(g.log, start_of_play)] == list(range(len(g.log), start_of_play, -1))


def test_impact_flags_the_setup_reveals_shuffles_turned_cards_and_hands() -> None:
    cards, castles = deal(decks_for(3, bundled_pool(), None))
    applied = start(cards, castles, seed=3)
    state, log = applied.state, list(applied.events)
    while state.step != "306" and state.result is None:
        legal = [a for a in legal_actions(state) if a.do not in NOT_RANDOM]
        pick = next((a for a in legal if a.do in ("keep", "choose_order")), legal[0])
        applied = apply(state, pick)
        state, log = applied.state, log + applied.events
    rows = {r["position"]: r for r in impact(log, 1)}
    for pos, event in enumerate(log, start=1):
        if pos == 1:
            continue
        assert rows[pos]["reveals"] == (type(event) in REVEALS), type(event).__name__
    kinds = {type(e) for e in log}
    assert {CastlesShuffled, TurnOrderCardsTurned, HandDrawn, OpeningChosen} <= kinds
    revealing = {rows[p]["type"] for p in rows if rows[p]["reveals"]}
    assert {"CastlesShuffled", "TurnOrderCardsTurned", "HandDrawn", "OpeningsRevealed"} <= revealing
    assert "OpeningChosen" not in revealing  # face down on the field


def test_impact_of_a_milled_castle_reveals_each_card() -> None:
    g = Game(field=[("A", SWORDSMAN, True)])
    g.act("A", "attack", card="Swordsman")
    rows = impact(g.log, 1)
    milled = [r for r in rows if r["type"] == "CardMilled"]
    assert len(milled) == 2 and all(r["reveals"] for r in milled)
    assert not next(r for r in rows if r["type"] == "CastleAttacked")["reveals"]


def test_impact_skips_retracted_events_and_refuses_bad_targets() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")  # events 2, 3
    g.act("A", "play_event", card="Herb")  # events 4, 5, 6
    g.rewind(3)  # event 7, retracts 4..6
    g.act("A", "play_event", card="Herb")  # events 8, 9, 10
    assert [r["position"] for r in impact(g.log, 1)] == [10, 9, 8, 7, 3, 2]
    assert [r["position"] for r in impact(g.log, 7)] == [10, 9, 8]
    # A target at the end of the retracted stretch: the live events it leaves
    # out, and the retracted ones it brings back.
    assert [r["position"] for r in impact(g.log, 6)] == [10, 9, 8, 7]
    assert [r["position"] for r in brought_back(g.log, 6)] == [4, 5, 6]
    # Inside one action (the second Herb: events 8 to 10) is not a place to go back to.
    with pytest.raises(IllegalAction) as inside:
        impact(g.log, 9)
    assert "inside one action (events 8 to 10)" in inside.value.refusal.reason
    for bad in (0, -1, len(g.log), len(g.log) + 3):
        with pytest.raises(IllegalAction) as exc:
            impact(g.log, bad)
        assert exc.value.refusal.rule == "410"


def test_the_correction_reports_what_it_undid() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")
    g.act("A", "play_event", card="Herb")
    preview = impact(g.log, 3)
    c = g.rewind(3)
    assert c.undone == preview
    assert [r["type"] for r in c.undone] == ["CostPaid", "EventPlayed", "ActionTaken"]
    assert [r["reveals"] for r in c.undone] == [False, True, False]


# --- finding positions -----------------------------------------------------------------


def test_position_of_step_finds_the_start_of_a_step_in_a_turn() -> None:
    g = Game(field=[("A", LADY, True)], step="301")
    # A set-up position starts its own turn (3) at 301.
    assert isinstance(g.log[position_of_step(g.log, 3, "303")], StackSizeSet)
    assert g.log[position_of_step(g.log, 3, "301")].rule == "301"
    assert isinstance(g.log[position_of_step(g.log, 3, "302")], StackReturnedToHand)
    assert position_of_step(g.log, 3, "303") == g.pos(StackSizeSet) - 1
    g.act("A", "end_turn")
    assert g.state.turn == 4
    p = position_of_step(g.log, 4, "303")
    assert isinstance(g.log[p], StackSizeSet) and g.log[p].player == "B" and p == g.pos(StackSizeSet, 2) - 1
    assert isinstance(g.log[position_of_step(g.log, 4, "300")], TurnStarted)
    assert g.log[position_of_step(g.log, 3, "309")].rule == "309"


def test_position_of_step_refuses_turns_and_steps_not_in_the_current_line() -> None:
    g = Game(step="301")
    with pytest.raises(IllegalAction) as exc:
        position_of_step(g.log, 7, "303")
    assert exc.value.refusal.rule == "410" and "Turn 7" in exc.value.refusal.reason
    with pytest.raises(IllegalAction) as exc:
        position_of_step(g.log, 3, "309")  # the turn has not reached 309
    assert exc.value.refusal.rule == "410" and "309" in exc.value.refusal.reason
    # Turn 4 reached, then retracted: not in the current line any more.
    g.act("A", "end_turn")
    position_of_step(g.log, 4, "303")
    g.rewind(g.pos(ActionTaken) - 1)  # just before the end of turn 3
    assert g.state.turn == 3
    with pytest.raises(IllegalAction) as exc:
        position_of_step(g.log, 4, "303")
    assert "not in the current line" in exc.value.refusal.reason


def test_a_main_phase_setup_has_no_303_in_its_turn() -> None:
    g = Game()  # set up at 306: steps 301-305 were never logged
    with pytest.raises(IllegalAction) as exc:
        position_of_step(g.log, 3, "303")
    assert exc.value.refusal.rule == "410" and "Step 303 of turn 3" in exc.value.refusal.reason


def test_position_before_action_counts_player_actions_from_one() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")
    g.act("A", "play_event", card="Herb")
    assert position_before_action(g.log, 1) == 1
    assert position_before_action(g.log, 2) == 3
    assert isinstance(g.log[position_before_action(g.log, 2)], ActionTaken)
    with pytest.raises(IllegalAction) as exc:
        position_before_action(g.log, 3)
    assert exc.value.refusal.rule == "410" and "2 player actions" in exc.value.refusal.reason
    # Judges' events are not player actions; retracted actions still count,
    # as they stay in the log (the record of what the table did).
    g.rewind(3)
    g.take(note(g.state, "a note"))
    g.act("A", "play_event", card="Herb")
    assert position_before_action(g.log, 3) == len(g.log) - 3


# --- rewinds ----------------------------------------------------------------------------


def test_a_rewind_restores_the_state_and_retracts_the_events_after_its_target() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")
    at_3 = g.state
    g.act("A", "play_event", card="Herb")
    c = g.rewind(3)
    assert len(c.events) == 1 and isinstance(c.events[0], Rewound)
    assert without_position(g.state) == without_position(at_3)
    assert g.state.position == len(g.log) == 7
    assert retracted_positions(g.log) == {4, 5, 6}
    assert live_positions(g.log) == [1, 2, 3, 7]


def test_rewind_refuses_bad_rules_reasons_and_targets() -> None:
    g = Game(zones={"A.hand": [LETTER]})
    g.act("A", "play_event", card="Letter")
    cases = [
        dict(to=1, rule="410", reason="x"),
        dict(to=1, rule="306.1a", reason="x"),
        dict(to=1, rule="410.1", reason="  "),
        dict(to=0, rule="410.1", reason="x"),
        dict(to=len(g.log), rule="410.1", reason="x"),
        dict(to=99, rule="410.2", reason="x"),
    ]
    for case in cases:
        with pytest.raises(IllegalAction) as exc:
            rewind(g.state, g.log, case.pop("to"), **case)
        assert exc.value.refusal.rule == "410", case


def test_a_nested_rewind_brings_back_the_line_of_its_target() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB, LADY, SQUIRE], "A.action_stack": [filler(0)] * 3})
    g.act("A", "play_event", card="Letter")  # 2, 3
    g.act("A", "play_event", card="Herb")  # 4, 5, 6
    g.act("A", "play_character", card="Lady")  # 7, 8, 9
    at_9 = g.state
    g.rewind(3)  # 10
    g.act("A", "play_character", card="Squire")  # 11, 12, 13
    g.rewind(9)  # 14: inside the stretch the first rewind retracted
    assert without_position(g.state) == without_position(at_9)
    assert live_positions(g.log) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 14]
    assert retracted_positions(g.log) == {10, 11, 12, 13}
    rows = transcript(g.log)
    assert [r["position"] for r in rows if r["retracted"]] == [10, 11, 12, 13]


# --- replay -------------------------------------------------------------------------------


def test_a_replay_report_counts_the_actions_and_names_the_one_that_stopped_it() -> None:
    g = skipped_303_battle()
    assert len(g.state.violations) == 1
    to = position_of_step(g.log, 3, "303")
    c = g.rewind(to, rule="410.2", replay=True)
    report = c.replay.to_json()
    assert report["attempted"] == 4 and report["replayed"] == 2
    stopped = report["stopped_at"]
    assert stopped["rule"] == "306.3"
    assert stopped["action"] == {"player": "A", "do": "play_item", "card": g.id("Uniform"), "target": g.id("Swordsman")}
    assert "Swordsman" in stopped["message"]
    # The state is the one where the replay stopped: the Swordsman lost.
    s = g.state
    assert names(s, s.zones["B"].execution) == ["Swordsman"]
    assert names(s, s.zones["A"].hand) == ["Uniform", "Letter"]
    assert len(s.zones["A"].action_stack) == 2 and s.violations == ()
    # The step was performed right after the rewind, before the replayed actions.
    after = c.events
    assert isinstance(after[0], Rewound) and isinstance(after[1], StackSizeSet)
    assert [e.do for e in after if isinstance(e, ActionTaken)] == ["attack", "intercept"]


def test_a_full_replay_reports_no_stop() -> None:
    g = Game(
        field=[("A", SQUIRE, True)],
        zones={"A.hand": [LETTER], "A.castle": [filler(2), filler(1)] + [filler(0)] * 8},
        step="301",
        mode="record",
    )
    g.take(skip_step(g.state, g.log, "303"))
    g.act("A", "play_event", card="Letter")
    g.act("A", "attack", card="Squire")
    c = g.rewind(position_of_step(g.log, 3, "303"), rule="410.2", replay=True)
    assert c.replay.to_json() == {"attempted": 2, "replayed": 2, "stopped_at": None}
    assert len(g.state.zones["A"].action_stack) == 2
    assert len(g.state.zones["B"].castle) == 18


def test_a_rewind_without_replay_has_no_report() -> None:
    g = Game(zones={"A.hand": [LETTER]})
    g.act("A", "play_event", card="Letter")
    c = g.rewind(1, replay=False)
    assert c.replay is None
    assert names(g.state, g.state.zones["A"].hand) == ["Letter"]


def test_a_replay_in_record_mode_stops_at_the_illegal_action() -> None:
    """A replay after a correction applies only what the rules allow, even in
    record mode: the recorded illegal play is where it stops."""
    g = Game(zones={"A.hand": [KNIGHT, SQUIRE], "A.action_stack": [filler(0)] * 5}, mode="record")
    g.act("A", "play_character", card="Knight")
    g.act("A", "play_character", card="Squire")
    c = g.rewind(position_before_action(g.log, 2), replay=True)
    report = c.replay.to_json()
    assert report["replayed"] == 0 and report["stopped_at"]["rule"] == "306.1a"
    assert g.state.violations == ()


# --- notes, accepting, skipped steps ---------------------------------------------------


def test_a_note_changes_nothing_but_the_position() -> None:
    g = Game(zones={"A.hand": [KNIGHT, SQUIRE], "A.action_stack": [filler(0)] * 5}, mode="record")
    g.act("A", "play_character", card="Knight")
    g.act("A", "play_character", card="Squire")
    before = g.state
    c = note(g.state, "warned", judge="Floor")
    g.take(c)
    assert c.events == [NoteAdded(text="warned", judge="Floor")]
    assert without_position(g.state) == without_position(before)
    with pytest.raises(IllegalAction) as exc:
        note(g.state, "   ")
    assert exc.value.refusal.rule == "judge"


def test_accept_clears_the_open_violations_and_keeps_the_play() -> None:
    g = Game(zones={"A.hand": [KNIGHT, SQUIRE], "A.action_stack": [filler(0)] * 5}, mode="record")
    g.act("A", "play_character", card="Knight")
    g.act("A", "play_character", card="Squire")
    assert [v.rule for v in g.state.violations] == ["306.1a"]
    assert g.state.violations[0].position == g.pos(ViolationRecorded)
    before = g.state
    c = accept(g.state, "too late to rewind", judge="Head")
    g.take(c)
    assert c.events == [ViolationsAccepted(reason="too late to rewind", judge="Head", rules=["306.1a"])]
    assert g.state.violations == ()
    assert names(g.state, [ch.card for ch in g.state.field]) == ["Knight", "Squire"]
    assert without_position(g.state) == {**without_position(before), "violations": ()}


def test_accept_refuses_with_nothing_open_or_no_reason() -> None:
    g = Game(zones={"A.hand": [LETTER]}, mode="record")
    g.act("A", "play_event", card="Letter")
    with pytest.raises(IllegalAction) as exc:
        accept(g.state, "nothing to accept")
    assert exc.value.refusal.rule == "410" and "no open violations" in exc.value.refusal.reason
    g2 = Game(zones={"A.hand": [KNIGHT, SQUIRE], "A.action_stack": [filler(0)] * 5}, mode="record")
    g2.act("A", "play_character", card="Knight")
    g2.act("A", "play_character", card="Squire")
    with pytest.raises(IllegalAction) as exc:
        accept(g2.state, " ")
    assert exc.value.refusal.rule == "410"


def test_a_skipped_303_puts_the_cards_back_in_order() -> None:
    g = Game(
        field=[("A", LADY, True)],
        zones={"A.castle": [filler(3), filler(2), filler(1), filler(-1)] + [filler(0)] * 6},
        step="301",
        mode="record",
    )
    castle_before = g.state.zones["A"].castle
    assert len(g.state.zones["A"].action_stack) == 3
    c = skip_step(g.state, g.log, "303", "forgot")
    g.take(c)
    skipped = c.events[0]
    assert isinstance(skipped, StepSkipped) and skipped.rule == "303" and skipped.player == "A"
    moved = [e.card for e in g.log if isinstance(e, CardMovedToStack)]
    assert skipped.cards == list(reversed(moved))  # the stack's top first
    assert isinstance(c.events[1], ViolationRecorded) and c.events[1].rule == "303"
    assert g.state.zones["A"].action_stack == ()
    assert g.state.zones["A"].castle == tuple(moved) + castle_before
    assert [v.rule for v in g.state.violations] == ["303"]


def test_skip_step_refusals() -> None:
    strict = Game(step="301")
    with pytest.raises(IllegalAction) as exc:
        skip_step(strict.state, strict.log, "303")
    assert exc.value.refusal.rule == "410.2"
    g = Game(zones={"A.hand": [LETTER]}, step="301", mode="record")
    for rule, cited in (("304", "410.2"), ("306", "410.2"), ("309", "309")):
        with pytest.raises(IllegalAction) as exc:
            skip_step(g.state, g.log, rule)
        assert exc.value.refusal.rule == cited, rule
    g.take(skip_step(g.state, g.log, "303"))
    with pytest.raises(IllegalAction) as exc:  # twice would put the cards back twice
        skip_step(g.state, g.log, "303")
    assert exc.value.refusal.rule == "410.2"
    g.act("A", "play_event", card="Letter")
    with pytest.raises(IllegalAction) as exc:  # too late: a player has acted
        skip_step(g.state, g.log, "302")
    assert exc.value.refusal.rule == "410.2" and "rewinds" in exc.value.refusal.reason


def test_a_skipped_309_keeps_the_hand_and_moves_on() -> None:
    g = Game(zones={"A.hand": [filler(0)] * 9}, mode="record")
    g.act("A", "end_turn")
    assert g.state.step == "309"
    g.take(skip_step(g.state, g.log, "309"))
    assert g.state.turn == 4 and g.state.active == "B"
    assert len(g.state.zones["A"].hand) == 9
    assert [v.rule for v in g.state.violations] == ["309"]
    # A 410.2 rewind to the start of the skipped 309 asks for the discard again.
    c = g.rewind(position_of_step(g.log, 3, "309"), rule="410.2", replay=True)
    assert g.state.step == "309" and g.state.violations == ()
    assert c.replay.to_json() == {"attempted": 0, "replayed": 0, "stopped_at": None}


# --- the transcript ------------------------------------------------------------------------


def test_transcript_rows_mark_the_retracted_events() -> None:
    g = Game(zones={"A.hand": [LETTER, HERB], "A.action_stack": [filler(0)] * 2})
    g.act("A", "play_event", card="Letter")
    g.act("A", "play_event", card="Herb")
    g.rewind(3)
    rows = transcript(g.log)
    assert [r["retracted"] for r in rows] == [False, False, False, True, True, True, False]
    assert rows[-1]["type"] == "Rewound" and rows[-1]["rule"] == "410.1"
    assert "events 4 to 6 are retracted" in rows[-1]["text"]
    text = render_transcript(rows).splitlines()
    assert all(line.startswith("x") and line.endswith("(retracted)") for line in text[3:6])
    assert not any(line.startswith("x") for line in text[:3] + text[6:])
    # Every view marks the same events.
    for viewer in ("A", "B", "public"):
        assert [r["retracted"] for r in transcript(g.log, viewer)] == [r["retracted"] for r in rows]


# --- where a rewind may go back to -------------------------------------------------------


def test_a_rewind_into_the_middle_of_an_action_is_refused() -> None:
    g = Game(field=[("A", SWORDSMAN, True), ("B", GUARD, True)])
    g.act("A", "attack", card="Swordsman")  # ActionTaken 2, AttackDeclared 3, AttackerChosen 4, ...
    assert type(g.log[2]).__name__ == "AttackDeclared"
    try:
        g.rewind(3)
    except IllegalAction as exc:  # refusing such a target would be a fix too
        assert exc.refusal.rule == "410"
        return
    assert g.state.result is not None or legal_actions(g.state), f"nobody can act at step {g.state.step}"


def test_the_start_of_309_is_before_the_players_discard() -> None:
    g = Game(zones={"A.hand": [filler(0)] * 9})
    g.act("A", "end_turn")
    hand = g.state.zones["A"].hand
    g.act("A", "discard", cards=(hand[0], hand[1]))
    discard_action = g.pos(ActionTaken, 2)
    assert position_of_step(g.log, 3, "309") == discard_action - 1
