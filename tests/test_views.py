"""The views hide exactly what rule 215 hides, from each viewer, at every point of a game."""

from __future__ import annotations

import json

import pytest
from gamekit import POOL, play

from events.harem_master.cards import CardDef
from events.harem_master.game import FieldCard, PositionSetUp
from events.kernel import Event
from projections.harem_master.state import PILES, GameState, evolve, fold, initial_state
from projections.harem_master.views import VIEWERS, render_state
from referee.rules.harem_master.characteristics import mental, name as current_name, physical
from referee.rules.harem_master.views import state_view


def random_game(seed: int) -> list[Event]:
    return play(seed)[0]


def states(events: list[Event]) -> list[GameState]:
    out, s = [], initial_state()
    for e in events:
        s = evolve(s, e)
        out.append(s)
    return out


@pytest.fixture(scope="module")
def games() -> list[list[GameState]]:
    return [states(random_game(seed)) for seed in (1, 2, 3)]


def names(state: GameState, cards: tuple[str, ...]) -> list[str]:
    return [state.cards[c].name for c in cards]


def test_the_judge_sees_every_card(games: list[list[GameState]]) -> None:
    for game in games:
        for s in game[1::5]:
            view = state_view(s, "judge")
            for p in "AB":
                for pile in PILES:
                    assert view["zones"][f"{p}.{pile}"]["cards"] == names(s, getattr(s.zones[p], pile))
                field = [ch.card for ch in s.field if ch.controller == p]
                assert view["zones"][f"{p}.field"]["cards"] == names(s, tuple(field))
            assert [c["id"] for c in view["characters"]] == [ch.card for ch in s.field]
            for c, ch in zip(view["characters"], s.field):
                # A character's name is its current one (a copy or a static can change it, 202).
                assert c["card"] == current_name(s, ch.card)
                assert c["physical"] == physical(s, ch.card) and c["mental"] == mental(s, ch.card)
                assert c["items"] == names(s, ch.items)


def test_zone_counts_are_the_same_in_every_view(games: list[list[GameState]]) -> None:
    for game in games:
        for s in game[::3]:
            for viewer in VIEWERS:
                view = state_view(s, viewer)
                assert view["event"] == s.position and view["turn"] == s.turn and view["step"] == s.step
                for p in "AB":
                    for pile in PILES:
                        zone = view["zones"][f"{p}.{pile}"]
                        assert zone["count"] == len(getattr(s.zones[p], pile))
                        assert zone["cards"] is None or len(zone["cards"]) == zone["count"]
                    assert view["zones"][f"{p}.field"]["count"] == len(s.controlled(p))
                assert len(view["characters"]) == len(s.field)


def test_a_player_sees_their_own_hand_only(games: list[list[GameState]]) -> None:
    for game in games:
        for s in game[1::7]:
            for me, them in (("A", "B"), ("B", "A")):
                zones = state_view(s, me)["zones"]
                assert zones[f"{me}.hand"]["cards"] == names(s, s.zones[me].hand)
                assert zones[f"{them}.hand"]["cards"] is None
                assert zones[f"{them}.hand"]["count"] == len(s.zones[them].hand)
                for p in "AB":
                    # 215.2, 215.4: nobody, not even the owner, looks at castle or stack faces.
                    assert zones[f"{p}.castle"]["cards"] is None
                    assert zones[f"{p}.action_stack"]["cards"] is None
                    for pile in ("discard", "harem", "execution", "side"):
                        assert zones[f"{p}.{pile}"]["cards"] == names(s, getattr(s.zones[p], pile))


def test_the_public_sees_no_hand(games: list[list[GameState]]) -> None:
    for s in games[0][1::7]:
        zones = state_view(s, "public")["zones"]
        for p in "AB":
            for pile in ("castle", "hand", "action_stack"):
                assert zones[f"{p}.{pile}"]["cards"] is None
            assert zones[f"{p}.discard"]["cards"] == names(s, s.zones[p].discard)


def test_opening_characters_are_hidden_from_the_opponent_until_101_6(
    games: list[list[GameState]],
) -> None:
    game = games[0]
    before = next(s for s in game if s.step == "101.5")  # both openings chosen, not yet revealed
    assert all(ch.face_down for ch in before.field) and len(before.field) == 2
    for viewer in VIEWERS:
        view = state_view(before, viewer)
        for c, ch in zip(view["characters"], before.field):
            if viewer in ("judge", ch.controller):
                assert c["card"] == before.cards[ch.card].name and c["id"] == ch.card
            else:
                assert c["card"] is None and c["id"] is None and c["face_down"] is True
                assert "physical" not in c and "mental" not in c
        for p in "AB":
            field = view["zones"][f"{p}.field"]
            assert field["count"] == 1
            assert (field["cards"][0] is not None) == (viewer in ("judge", p))
    revealed_at = next(i for i, s in enumerate(game) if s.step == "300")
    after = game[revealed_at]
    for viewer in VIEWERS:
        assert all(c["card"] is not None for c in state_view(after, viewer)["characters"])


def test_views_survive_a_json_round_trip(games: list[list[GameState]]) -> None:
    for s in (games[0][0], games[0][len(games[0]) // 2], games[0][-1]):
        for viewer in VIEWERS:
            view = state_view(s, viewer)
            assert json.loads(json.dumps(view)) == view


def test_the_finished_game_has_a_result(games: list[list[GameState]]) -> None:
    s = games[0][-1]
    view = state_view(s, "public")
    assert view["result"] is not None and s.result is not None
    assert view["result"]["winner"] == s.result.winner and view["result"]["rule"] == s.result.rule
    assert set(view["result"]) == {"winner", "draw", "rule", "ruling", "scores", "reason"}
    assert view["violations"] == [] and "draw_offer" in view
    text = render_state(view)
    assert "Result:" in text and s.result.rule in text


SECRET = CardDef(name="Secret Plan", type="event", cost=0)
KNIGHT = POOL[2]
LADY = POOL[1]
SWORD = POOL[8]


def position() -> GameState:
    """A hand-written position: B's hand holds the only Secret Plan; A's
    castle top is a Court Lady; each side has one character, A's with a sword."""
    return fold(
        [
            PositionSetUp(
                names={"A": "Alice", "B": "Bob"},
                cards={"A:1": KNIGHT, "A:2": SWORD, "A:3": LADY, "A:4": KNIGHT, "B:1": SECRET, "B:2": LADY},
                zones={"A.castle": ["A:3"], "A.hand": ["A:4"], "B.hand": ["B:1"]},
                field=[
                    FieldCard(card="A:1", controller="A", items=["A:2"]),
                    FieldCard(card="B:2", controller="B", ready=False),
                ],
                turn=3,
                active="A",
                first="A",
                step="306",
            )
        ]
    )


def test_a_hidden_card_name_appears_nowhere_in_a_view_or_its_rendering() -> None:
    s = position()
    for viewer in ("A", "public"):
        view = state_view(s, viewer)
        assert "Secret Plan" not in json.dumps(view) and "Secret Plan" not in render_state(view)
        assert "Court Lady" not in str(view["zones"]["A.castle"])
    for viewer in ("B", "judge"):
        assert "Secret Plan" in render_state(state_view(s, viewer))


def test_render_state_shows_the_field_at_a_glance() -> None:
    text = render_state(state_view(position(), "judge"))
    assert "turn 3" in text and "active A" in text and "step 306" in text
    knight = next(line for line in text.splitlines() if "Iron Knight [A:1]" in line)
    assert "ready" in knight and "P3 M1" in knight and "Long Sword" in knight
    lady = next(line for line in text.splitlines() if "Court Lady [B:2]" in line)
    assert "tapped" in lady


def test_an_unknown_viewer_is_refused() -> None:
    with pytest.raises(ValueError):
        state_view(position(), "a")


def test_the_face_down_marker_is_rendered() -> None:
    s = position()
    hidden = s.copy()
    hidden.field = tuple(ch._replace(face_down=True) for ch in s.field)
    text = render_state(state_view(hidden, "B"))
    assert "face-down" in text and "Iron Knight" not in text
