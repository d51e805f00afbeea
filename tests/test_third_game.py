"""A third game is a package and one registry line: a toy take-away game
(``tests/toygame``) whose seats are North and South, registered as any game
is, is stored, started from a position, acted on, shown, listed and won
through the same commands and board as Harem Master and SCP-TCG. Nothing
in the kernel assumes seats A and B: a seat the game has not is refused
with the game's own seats named (exit 2), and its events (the kernel's
``ActionTaken`` and ``GameEnded`` included) carry its seats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee import ruleset as registry
from referee.cli import cli
from referee.store import MatchStore
from referee.web import tokens
from tests.test_console import KEY, app_for
from tests.test_web import referee

POSITION = """
game: toy-takeaway
name: Seven counters
rules: ["1", "2"]
setup:
  counters: 7
  first: North
"""


@pytest.fixture
def toy() -> Iterator[str]:
    """The toy game registered for one test, then forgotten."""
    registry.register("toy-takeaway", "tests.toygame.game:TOY")
    try:
        yield "toy-takeaway"
    finally:
        registry._REGISTERED.pop("toy-takeaway", None)
        registry._loaded.pop("toy-takeaway", None)


def refused(db: str, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--db", db])
    assert result.exit_code == 2, (args, result.output)
    assert "Traceback" not in result.output
    return result.output


def test_a_third_game_with_its_own_seats_plays_through_the_kernel(toy: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'toy.db'}"
    position = tmp_path / "toy.yaml"
    position.write_text(POSITION)
    started = json.loads(referee(db, "new", "--position", str(position), "--id", "t1", "--json"))
    assert set(started["links"]) == {"North", "South"}  # a link per seat of the game
    referee(db, "act", "t1", "North", "take", "--arg", "n=3")

    # Seats and viewers the game has not are refused naming its own, nothing written.
    assert "toy-takeaway's seats are North, South" in refused(db, "act", "t1", "A", "take", "--arg", "n=1")
    assert "its viewers are judge, North, South, public" in refused(db, "state", "t1", "--as", "B")
    assert "'A' is not a viewer of toy-takeaway" in refused(db, "log", "t1", "--as", "A")
    with MatchStore(db, read_only=True) as store:
        assert store.load("t1")[1] == 3
        # The start's snapshot, written with the game's own encode_state (it has no encode_snapshot).
        assert [s.originator_version for s in store.application.snapshots.get("t1")] == [1]

    legal = json.loads(referee(db, "legal", "t1", "--as", "South", "--json"))
    assert [a["player"] for a in legal["actions"]] == ["South"] * 3
    referee(db, "act", "t1", "South", "take", "--arg", "n=1")
    out = referee(db, "act", "t1", "North", "take", "--arg", "n=3", "--as", "North", "--json")
    assert json.loads(out)["result"]["winner"] == "North"
    view = json.loads(referee(db, "state", "t1", "--as", "South", "--json"))
    assert view["result"] == {"winner": "North"} and view["zones"]["pile"]["count"] == 0
    log = referee(db, "log", "t1", "--as", "North")
    assert "North wins: North took the last counter." in log
    with MatchStore(db, read_only=True) as store:
        records = store.records("t1")
    ended = records[-1].event
    assert type(ended).__name__ == "GameEnded" and ended.winner == "North"
    assert {r.event.player for r in records if type(r.event).__name__ == "ActionTaken"} == {"North", "South"}


def test_a_third_games_player_links_open_its_seats_views_on_the_board(toy: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'toy.db'}"
    position = tmp_path / "toy.yaml"
    position.write_text(POSITION)
    referee(db, "new", "--position", str(position), "--id", "t1")
    north = f"/matches/t1?as=North&token={tokens.player_token(KEY, 't1', 'North')}"
    with app_for(db) as http:
        page = http.get(north)
        assert page.status_code == 200, page.text
        assert "<small>North v South · t1</small>" in page.text  # the game's seats, not A and B
        assert 'data-zone="pile"' in page.text  # a zone no seat owns, drawn as shared
        assert "<b>North</b> must take 1 to 3 counters" in page.text
        forged = http.get(f"/matches/t1?as=South&token={tokens.player_token(KEY, 't1', 'North')}")
        assert forged.status_code == 403  # North's token opens North's view alone
        nobody = http.get(f"/matches/t1?as=A&token={tokens.player_token(KEY, 't1', 'A')}")
        assert nobody.status_code == 400 and "expected one of judge, North, South, public" in nobody.text
