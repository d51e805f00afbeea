"""Unit tests for the parts of the rules engine where the logic is subtle:
214.2e choices, end conditions and scoring (A1, A2, A13), first-turn stack
values (A3), refusals, and the notation's "first valid card in zone order"."""

from __future__ import annotations

import pytest

from events.harem_master.cards import CardDef, filler
from events.harem_master.game import FieldCard, PositionSetUp
from events.kernel import GameEnded
from projections.harem_master.state import evolve, initial_state
from referee.actions import IllegalAction, Refusal
from referee.rules.harem_master import apply, current_decision, legal_actions
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.checks import end_check as _end_check, same_name_choices
from referee.rules.harem_master.notation import resolve

KNIGHT = CardDef(name="Knight", type="character", cost=2, gender="male", physical=3, mental=1)
LADY = CardDef(name="Lady", type="character", cost=1, gender="female", physical=0, mental=2)
SQUIRE = CardDef(name="Squire", type="character", cost=1, gender="male", physical=1, mental=0)


def position(field_a=(), field_b=(), *, hand_a=(), stack_a=0, castle=10, turn=3, active="A", rulings=None, zones=None):
    """A main-phase position: characters on the field (name, ready) for each side."""
    cards: dict[str, CardDef] = {}
    count = {"A": 0, "B": 0}

    def new(owner: str, cd: CardDef) -> str:
        count[owner] += 1
        cid = f"{owner}:{count[owner]}"
        cards[cid] = cd
        return cid

    field = [FieldCard(card=new("A", cd), controller="A", ready=r) for cd, r in field_a]
    field += [FieldCard(card=new("B", cd), controller="B", ready=r) for cd, r in field_b]
    z = {
        "A.hand": [new("A", cd) for cd in hand_a],
        "A.action_stack": [new("A", filler(0)) for _ in range(stack_a)],
        "A.castle": [new("A", filler(0)) for _ in range(castle)],
        "B.castle": [new("B", filler(0)) for _ in range(castle)],
    }
    for key, cds in (zones or {}).items():
        z[key] = [new(key[0], cd) for cd in cds]
    event = PositionSetUp(
        names={"A": "A", "B": "B"},
        cards=cards,
        zones=z,
        field=field,
        turn=turn,
        active=active,
        first="A",
        step="306",
        rulings=rulings or {},
    )
    return evolve(initial_state(), event)


def test_same_name_choice_lists_each_copy_and_nothing_larger() -> None:
    s = position([(KNIGHT, True), (KNIGHT, False), (LADY, True)])
    assert sorted(same_name_choices(s, "A")) == [("A:1",), ("A:2",)]
    d = current_decision(s)
    assert d is not None and d.kind == "same_name" and d.player == "A"
    assert {a.cards for a in legal_actions(s) if a.do == "discard"} == {("A:1",), ("A:2",)}


def test_seven_characters_with_a_duplicate_discard_one_of_the_pair() -> None:
    names = [CardDef(name=f"C{i}", type="character", cost=1, gender="male") for i in range(5)]
    s = position([(cd, True) for cd in names] + [(KNIGHT, True), (KNIGHT, True)])
    # Seven characters, six names: discarding one Knight fixes both limits at once.
    assert sorted(same_name_choices(s, "A")) == [("A:6",), ("A:7",)]


def test_seven_distinct_characters_any_one_may_go() -> None:
    names = [CardDef(name=f"C{i}", type="character", cost=1, gender="male") for i in range(7)]
    s = position([(cd, True) for cd in names])
    assert len(same_name_choices(s, "A")) == 7


def test_a_wrong_same_name_choice_is_refused_and_nothing_happens() -> None:
    s = position([(KNIGHT, True), (KNIGHT, False), (LADY, True)])
    with pytest.raises(IllegalAction) as info:
        apply(s, Action("A", "discard", cards=("A:3",)))
    assert info.value.refusal.rule == "214.2e"
    done = apply(s, Action("A", "discard", cards=("A:2",)))
    assert [type(e).__name__ for e in done.events][:2] == ["ActionTaken", "CharactersDiscarded"]
    assert done.state.zones["A"].discard == ("A:2",)


def test_refusal_cites_parent_rules_only() -> None:
    r = Refusal("306.1a", "")
    assert r.cites("306.1a") and r.cites("306.1") and r.cites("306")
    assert not Refusal("306.1", "").cites("306.1a")
    assert not Refusal("306.10", "").cites("306.1")
    assert Refusal("306.5m", "").cites("306.5")


def test_castle_fall_scores_under_both_readings_of_a1() -> None:
    # B's castle is empty; A controls two characters and has one harem card.
    base = dict(field_a=[(KNIGHT, True), (SQUIRE, True)], field_b=[(LADY, True)])
    s = position(**base, zones={"A.harem": [LADY]})
    s.zones = {**s.zones, "B": s.zones["B"].__class__(castle=())}
    end = _end_check(s)
    assert isinstance(end, GameEnded)
    assert (end.rule, end.ruling, end.scores, end.winner) == ("103.2", "A1", {"A": 8, "B": 1}, "A")
    felled = position(**base, zones={"A.harem": [LADY]}, rulings={"A1": "felled"})
    felled.zones = {**felled.zones, "B": felled.zones["B"].__class__(castle=())}
    end = _end_check(felled)
    # Not during a castle attack, so nobody "made it fall": no bonus (102.3).
    assert (end.rule, end.scores, end.winner) == ("102.3", {"A": 3, "B": 1}, "A")


def test_both_immediate_wins_at_once_are_a_draw() -> None:
    s = position(zones={"A.harem": [LADY] * 5, "B.execution": [SQUIRE] * 5})
    end = _end_check(s)
    assert end.draw and end.ruling == "A13"


def test_immediate_win_beats_castle_fall() -> None:
    s = position(zones={"A.harem": [LADY] * 5})
    s.zones = {**s.zones, "A": s.zones["A"].__class__(castle=(), harem=s.zones["A"].harem)}
    end = _end_check(s)
    assert (end.rule, end.winner) == ("102.1", "A")


@pytest.mark.parametrize(
    "turn, girls, expected, rule", [(1, 1, 1, "101.7"), (2, 1, 2, "101.8"), (3, 1, 3, "303"), (1, 0, 0, "101.7")]
)
def test_first_turn_stack_values(turn: int, girls: int, expected: int, rule: str) -> None:
    field = [(LADY, True)] * girls + [(SQUIRE, True)]
    s = position(field, turn=turn)
    # Rerun the turn from 301 (as `step: start` does) and read 303's count.
    s.step = "301"
    from referee.rules.harem_master import advance

    events, after = advance(s)
    sized = [e for e in events if type(e).__name__ == "StackSizeSet"]
    assert len(sized) == 1
    assert (sized[0].count, sized[0].rule, sized[0].ruling) == (expected, rule, "A3" if rule != "303" else None)
    assert len(after.zones["A"].action_stack) == expected


def test_repeated_names_resolve_to_distinct_cards_in_zone_order() -> None:
    # Three Knights: 214.2e asks A to discard two; "Knight, Knight" names two
    # different cards, the first ones in field order.
    s = position([(KNIGHT, True), (KNIGHT, True), (KNIGHT, True)])
    action = resolve(s, Action("A", "discard", cards=("Knight", "Knight")))
    assert action.cards == ("A:1", "A:2")
    done = apply(s, action)
    assert [ch.card for ch in done.state.field] == ["A:3"]


def test_a_name_resolves_to_the_first_card_for_which_the_action_is_legal() -> None:
    # Two copies in hand; the stack pays for either: the first is taken.
    s = position(hand_a=[SQUIRE, SQUIRE], stack_a=1)
    assert resolve(s, Action("A", "play_character", card="Squire")).card == "A:1"
    # A card named but not in the hand is looked for everywhere, so the
    # refusal can say where it is.
    s2 = position([(KNIGHT, True)], hand_a=[SQUIRE], stack_a=3)
    with pytest.raises(IllegalAction) as info:
        apply(s2, resolve(s2, Action("A", "play_character", card="Knight")))
    assert info.value.refusal.rule == "306.1"
    assert "not in A's hand (it is in field)" in info.value.refusal.reason


def test_an_illegal_action_appends_nothing_and_keeps_the_state() -> None:
    s = position([(KNIGHT, False)])
    before = s.copy()
    with pytest.raises(IllegalAction) as info:
        apply(s, Action("A", "attack", card="A:1"))
    assert info.value.refusal.rule == "306.5b"
    assert "tapped" in info.value.refusal.reason
    assert s == before


def test_opponent_cannot_play_a_character_in_your_turn() -> None:
    s = position(hand_a=[SQUIRE], stack_a=3)
    with pytest.raises(IllegalAction) as info:
        apply(s, Action("B", "play_character", card="A:1"))
    assert info.value.refusal.rule == "214.2a"


def test_the_roster_is_the_same_object_while_only_readiness_changes() -> None:
    """``characteristics.roster``, the key of the values carried while who is
    on the field stays the same: along a whole game, a field that only
    tapped or untapped gives the very roster object it had, and any other
    change of the field (a character entering or leaving, an item, a new
    controller) gives a different one."""
    from referee.rules.harem_master.characteristics import roster
    from referee.rules.harem_master.pool import bundled_pool
    from referee.simulate import decks_for, play_game

    record = play_game(5, decks_for(5, bundled_pool(), None))
    state = initial_state()
    kept = changed = 0
    for event in record.events:
        after = evolve(state, event)
        if after.field is not state.field:
            before_roster = roster(state)
            same = [(c.card, c.controller, c.items, c.face_down, c.since) for c in after.field] == [
                (c.card, c.controller, c.items, c.face_down, c.since) for c in state.field
            ]
            assert (roster(after) is before_roster) == same, type(event).__name__
            kept += same
            changed += not same
        state = after
    assert kept > 5 and changed > 5
