"""幻想郷夢紀行 §4 (``gensokyo-s4``), a fragment ruleset on the game kit: its statements, positions, effect lines, resolution, views, commands and board.

The scenario library (``scenarios/gensokyo/``) asks the rules questions;
these tests hold the rest: the page lists every statement of §4 with the
scenarios that cite it, bad input is an error naming its place, the rules'
pieces answer as §4 says when called directly, random play through the
effects' resolution keeps what the conformance suite checks, hidden cards
stay hidden, and the command line and the board work on its matches.
"""

from __future__ import annotations

import json
import random
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from events.gensokyo import EVENT_TYPES
from events.gensokyo.cards import GensokyoCard, LineError, parse_line
from events.kernel import ActionTaken
from projections.gensokyo import sentences, state as table_state
from projections.gensokyo.state import Table
from projections.gensokyo.views import state_view
from referee import ruleset as registry
from referee.actions import IllegalAction
from referee.capabilities import Started
from referee.cli import cli
from referee.inputs import Document, InputError
from referee.rules import gensokyo
from referee.rules.gensokyo.attributes import unmet
from referee.rules.gensokyo.common import Instruction
from referee.rules.gensokyo.hand_limit import draws
from referee.scenario import load_scenario, run_scenario, scenario_files
from tests.conformance import CHECKERS, Playout

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "scenarios" / "gensokyo"
POOL = LIBRARY / "pools" / "cards.yaml"
PAGE = ROOT / "docs" / "games" / "gensokyo-s4.md"
GAME = registry.get("gensokyo-s4")
STATEMENT = re.compile(r"^4-[1-7][a-z]$")


def position(text: str) -> Started:
    """A position written in YAML, its cards from the library's pool."""
    data = yaml.safe_load(text)
    data.setdefault("pool", str(POOL))
    return GAME.position(data, Document(LIBRARY / "<test>.yaml", data))


def bad(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        position(text)
    return caught.value


def act(state: Table, player: str, do: str, **args: Any) -> Any:
    """``player``'s instruction applied, card names resolved as the notation resolves them."""
    a = GAME.action_from_mapping({"player": player, "do": do, **args})
    return GAME.apply(state, GAME.resolve(state, a))


def refused(state: Table, player: str, do: str, **args: Any) -> str:
    with pytest.raises(IllegalAction) as caught:
        act(state, player, do, **args)
    return caught.value.refusal.rule


# --- the statements of §4, the page and the library ---------------------------------------


def page_statements() -> dict[str, list[str]]:
    """Each statement the page lists (``- **4-6a** ...``) and the scenarios it names."""
    out: dict[str, list[str]] = {}
    text = PAGE.read_text(encoding="utf-8")
    for item in re.split(r"\n(?=- \*\*)", text.split("## The statements of §4", 1)[1].split("\n## ", 1)[0]):
        m = re.match(r"- \*\*(4-[1-7][a-z])\*\*", item)
        if m:
            out[m.group(1)] = re.findall(r"`(4-[^`\s]+)`", item.split("\n\n", 1)[0])
    return out


def cited() -> dict[str, set[str]]:
    """Each rule the library's scenarios cite, and the files (by stem) that cite it."""
    out: dict[str, set[str]] = {}
    for path in scenario_files([str(LIBRARY)]):
        for rule in load_scenario(path).rules:
            out.setdefault(rule, set()).add(path.stem)
    return out


def test_the_page_lists_every_statement_with_the_scenarios_that_cite_it() -> None:
    listed, citing = page_statements(), cited()
    assert list(listed) == sorted(listed, key=lambda r: (r[:3], r[3])), "in the order of the text"
    assert len(listed) == 31
    for rule, files in listed.items():
        named = [f for f in files if STATEMENT.match(f) is None]  # the scenarios named, not statements
        assert named, f"{rule}: the page names no scenario"
        for stem in named:
            assert (LIBRARY / f"{stem}.yaml").exists(), f"{rule}: no scenario {stem}"
            assert stem in citing.get(rule, set()), f"{rule}: {stem} does not cite it"
        assert citing.get(rule, set()) <= set(named), f"{rule}: the page leaves out {citing[rule] - set(named)}"
    statements = {r for r in citing if STATEMENT.match(r)}
    assert statements == set(listed), "every statement cited is listed, and every one listed is cited"
    assert len(statements) >= 12


def test_the_library_is_this_games_and_passes() -> None:
    files = scenario_files([str(LIBRARY)])
    assert len(files) == 50
    for path in files:
        assert load_scenario(path).game == "gensokyo-s4", path
        report = run_scenario(path)
        assert report.passed, (path.name, report.failures)


def test_every_statement_belongs_to_exactly_one_module() -> None:
    for rule in page_statements():
        owners = gensokyo.module_of(rule)
        assert len(owners) == 1, (rule, owners)
        module = __import__(f"referee.rules.gensokyo.{owners[0]}", fromlist=["_"])
        assert (module.__doc__ or "").lstrip().startswith(rule[:3]), (rule, owners[0])


def test_every_event_has_a_fold_a_sentence_and_a_line_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    quiet = {"DrawStopped", "DiscardDenied"}  # facts for the log: they change no zone
    for name, cls in EVENT_TYPES.items():
        assert cls in sentences.SENTENCES, name
        assert f"`{name}`" in page, name
        if name not in quiet:
            assert cls in table_state.MUTATORS, name
    assert ActionTaken in sentences.SENTENCES


# --- cards and effect lines (ruling G3) ---------------------------------------------------


def test_effect_lines_read_their_costs_and_effect() -> None:
    line = parse_line("人魔、@:活力2")
    assert (line.attributes, line.hand, line.ki, line.kind, line.n) == ("人魔", 1, 0, "vitality", 2)
    assert parse_line("霊霊霊:活力3").needs()["霊"] == 3
    assert parse_line("②：疲労１").hand == 2 and parse_line("②：疲労１").n == 1  # circled, full width
    assert parse_line("A:効果T").hand == 2 and parse_line("A:効果T").kind == "other"
    assert parse_line("相手は活力2を得る").other_player
    assert parse_line("任意のキャラクター1人の気力を2回復する").kind == "recover"
    assert parse_line("カードを3枚引く").kind == "draw" and parse_line("手札を1枚捨てる").kind == "discard"
    assert parse_line("気力3、A:効果K", ability=True).ki == 3
    for text, words in (
        ("気力3:効果", "気力 cost is paid by the character"),
        ("火:活力1", "is no cost"),
        ("人:", "no effect after the colon"),
        ("@、A:効果", "two hand costs"),
        ("活力0", "at least 1"),
    ):
        with pytest.raises(LineError, match=words):
            parse_line(text)


@pytest.mark.parametrize(
    "card, words",
    [
        ({"name": "x", "type": "character", "attributes": "人人", "ki": 3}, "each at most once"),
        ({"name": "x", "type": "character", "attributes": "火", "ki": 3}, "some of 人妖霊魔"),
        ({"name": "x", "type": "character"}, "printed 気力"),
        ({"name": "x", "type": "destination", "ki": 2}, "are a character's"),
        ({"name": "x", "type": "character", "ki": 2, "effects": ["活力1"]}, "destination's or an intervention"),
        ({"name": "x", "type": "destination", "effects": ["気力1:活力1"]}, "気力 cost"),
        (
            {"name": "x", "type": "item", "abilities": [{"name": "a", "timing": "介入", "line": "気力1:効果"}]},
            "気力 cost",
        ),
    ],
)
def test_a_card_breaking_the_format_is_refused(card: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        GensokyoCard.model_validate(card)


# --- positions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, where, words",
    [
        ("setup: {deck: [人の仲間]}", "setup.deck[0]", "4-7a"),
        ("setup: {fantasy: [魔の仲間]}", "setup.fantasy[0]", "4-7a"),
        ("setup: {character_deck: [札]}", "setup.character_deck[0]", "4-7a"),
        ("setup: {players: {A: {party: [{card: 人の仲間, ki: 0}]}}}", "setup.players.A.party[0].ki", "4-4g"),
        ("setup: {players: {A: {party: [{card: 人の仲間, ki: 4}]}}}", "setup.players.A.party[0].ki", "from 1 to 3"),
        ("setup: {players: {A: {party: [札]}}}", "setup.players.A.party[0]", "ruling:G2"),
        ("setup: {players: {B: {journey: [粗茶]}}}", "setup.players.B.journey[0]", "destination"),
        ("setup: {players: {A: {cannot: [飛行]}}}", "setup.players.A.cannot", "4-1d"),
        ("setup: {players: {A: {hand_max: ten}}}", "setup.players.A.hand_max", "4-6a"),
        ("setup: {players: {C: {}}}", "setup.players", "A and B"),
        ("setup: {deck: [粗ちゃ]}", "setup.deck[0]", "unknown card"),
        ("setup: {deck: [{card: 札, label: x}, {card: 札, label: x}]}", "setup.deck[1].label", "used twice"),
        ("setup: {table: []}", "setup.table", "unknown key"),
    ],
)
def test_a_position_gensokyo_would_never_allow_is_an_error_naming_the_place(text: str, where: str, words: str) -> None:
    error = bad(text)
    assert error.describe().count(where) == 1 and words in error.describe(), error.describe()


def test_a_position_deals_ids_in_the_order_it_lists_the_cards() -> None:
    started = position(
        "setup: {deck: [札], character_deck: [人の仲間], fantasy: [粗茶],"
        " players: {A: {hand: [札], party: [{card: 技の仲間, ki: 2, label: tech}]}, B: {items: [呪いの人形]}}}"
    )
    s: Table = started.state
    assert s.zones["deck"] == ("c1",) and s.zones["character_deck"] == ("c2",) and s.zones["fantasy"] == ("c3",)
    assert s.zones["A.hand"] == ("c4",) and s.zones["A.party"] == ("c5",) and s.zones["B.items"] == ("c6",)
    assert s.ki == {"c5": 2} and started.labels == {"tech": "c5"}
    assert GAME.decision(s) is not None and GAME.decision(s).player is None  # anyone enters the next thing


# --- the rules' pieces ---------------------------------------------------------------------


def test_a_draw_of_several_cards_stops_at_the_maximum_card_by_card() -> None:
    s = position("setup: {deck: [札, 札, 札], players: {A: {hand: [札, 札, 札, 札, 札, 札, 札, 札, 札]}}}").state
    made = draws(s, "A", 3, "活力")
    assert [type(e).__name__ for e in made] == ["CardDrawn", "DrawStopped"]
    assert (made[1].rule, made[1].ruling, made[1].drawn) == ("4-6a", "G4", 1)
    # At the maximum, nothing at all (no ruling needed: 4-6a says so).
    full = position("setup: {deck: [札], players: {A: {hand: [札, 札, 札, 札, 札, 札, 札, 札, 札, 札]}}}").state
    assert [(e.rule, e.ruling) for e in draws(full, "A", 1, "ドローフェイズ")] == [("4-6a", None)]


def test_attributes_count_each_companion_once_per_attribute() -> None:
    s = position("setup: {players: {A: {party: [霊の仲間, 四属性の仲間]}, B: {party: [人魔の仲間]}}}").state
    assert unmet(s, "A", "霊霊") is None and unmet(s, "A", "人妖霊魔") is None
    assert unmet(s, "A", "霊霊霊") == "A has 2 companions with 霊, not 3"
    assert unmet(s, "B", "人魔") is None and unmet(s, "B", "人人") == "B has 1 companion with 人, not 2"
    assert unmet(s, "B", "妖") == "B has no companion with 妖"


def test_an_abilitys_costs_are_paid_as_it_resolves_and_not_declined() -> None:
    s = position("setup: {players: {A: {hand: [札, 札, 騒動札], party: [手札技の仲間]}}}").state
    used = act(s, "A", "ability", card="手札技の仲間").state
    assert used.ki == s.ki and used.hand("A") == s.hand("A")  # nothing paid on use (ruling G9)
    asked = act(used, "A", "resolve").state
    assert GAME.decision(asked).kind == "ability_cost" and GAME.decision(asked).moves == ("pay",)
    assert refused(asked, "A", "decline") == "4-4e"
    assert refused(asked, "A", "pay", cards=["札"]) == "4-4e"  # two cards, not one
    assert refused(asked, "B", "resolve") == "4-4e"  # only A's answer now
    paid = act(asked, "A", "pay", cards=["札", "騒動札"]).state
    assert [asked.name(c) for c in paid.zones["fantasy"]] == ["騒動札", "札"] and not paid.stack


def test_a_line_answered_by_another_player_is_theirs_to_answer() -> None:
    """相手は疲労1 (4-1c): the other player chooses what they discard; the user may not."""
    s = position("setup: {players: {A: {hand: [札, 騒動札]}, B: {hand: [札], items: [呪いの人形]}}}").state
    s = act(act(s, "B", "ability", card="呪いの人形").state, "A", "resolve").state
    d = GAME.decision(s)
    assert (d.player, d.kind, d.rule) == ("A", "discard", "4-1b")
    assert refused(s, "B", "discard", cards=["札"]) == "4-1b"
    assert [a.to_dict()["cards"] for a in GAME.legal_actions(s)] == [["c1"], ["c2"]]


def test_an_intervention_card_is_used_from_its_users_hand_only() -> None:
    s = position("setup: {deck: [粗茶], players: {A: {hand: [札]}, B: {hand: [粗茶]}}}").state
    assert refused(s, "A", "intervene", card="c3") == "4-2c"  # B's
    assert refused(s, "A", "intervene", card="c1") == "4-2c"  # in 山札
    assert refused(s, "A", "intervene", card="c2") == "4"  # not an intervention card
    assert refused(s, "A", "resolve") == "4-5b"  # nothing waits


# --- random play through the effects ------------------------------------------------------

RICH = [
    """setup:
  deck: [札, 札, 札, 捨て札, 札, 粗茶, 札, 札, 割り込み札, 札, 札, 札]
  character_deck: [人の仲間, 霊の仲間]
  players:
    A: {hand: [粗茶, 札, 妖の介入, 割り込み札], party: [技の仲間, 妖の仲間, 霊の仲間], journey: [妖怪の山, 紅魔館正門, 相手の地]}
    B: {hand: [捨て札, 札, 札], party: [手札技の仲間, 対応の仲間, 属性技の仲間], items: [呪いの人形], journey: [疲れる地, 霊霊霊の地]}
""",
    """setup:
  deck: [札, 札]
  players:
    A: {hand: [札, 札, 札, 札, 札, 札, 札, 札, 粗茶], party: [四属性の仲間, 人魔の仲間], journey: [活力の地, 二枚の地], cannot: [疲労]}
    B: {hand: [割り込み札, 粗茶], party: [{card: 技の仲間, ki: 1}], journey: [ドローの地, 人魔の地], hand_max: 4, cannot: [ドロー]}
""",
]


def playout(started: Started, seed: int, most: int = 120) -> Playout:
    """Random legal instructions, a process's ``move`` and ``eliminate`` seldom,
    so that play goes through the effects' resolution; every listed action is
    checked to be accepted as it goes."""
    rng = random.Random(seed)
    out = Playout(GAME, list(started.events), [started.state], [len(started.events)])
    s = started.state
    for _ in range(most):
        legal = GAME.legal_actions(s)
        for a in legal:
            refusal = GAME.is_legal(s, a)
            if refusal is not None:
                out.problems.append(f"listed {a.to_dict()} is refused: {refusal}")
        rare = [a for a in legal if a.do in ("move", "eliminate")]
        usual = [a for a in legal if a not in rare]
        action = rng.choice(usual if usual and rng.random() < 0.9 else legal)
        applied = GAME.apply(s, action)
        s = applied.state
        out.log.extend(applied.events)
        out.states.append(s)
        out.ends.append(len(out.log))
        out.actions.append(action)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_through_resolution_keeps_what_the_kernel_promises(seed: int) -> None:
    seen: set[str] = set()
    for k, text in enumerate(RICH):
        p = playout(position(text), seed * 10 + k)
        seen |= {type(e).__name__ for e in p.log}
        for name, check in CHECKERS.items():
            assert check(p) == [], (name, seed, k)
        last: Table = p.states[-1]
        assert all(0 < n <= (last.cards[c].ki or 0) for c, n in last.ki.items())  # 4-4f, 4-4g, ruling G13
        for seat in ("A", "B"):
            for c in last.party(seat):
                assert last.cards[c].is_character
        assert not any(last.cards[c].is_character for z in ("deck", "fantasy") for c in last.zones[z])  # 4-7a
        assert all(last.cards[c].is_character for c in last.zones["character_deck"])
    assert {"ResolutionBegan", "ChoiceAsked", "LineSkipped", "LineApplied", "EffectResolved", "CardDrawn"} <= seen


# --- what each viewer sees -------------------------------------------------------------------


def test_a_hand_is_its_players_and_the_log_keeps_it_so() -> None:
    started = position(
        "setup: {deck: [{card: 粗茶, label: drawn}, 札], players: {A: {hand: [割り込み札], journey: [活力の地]}}}"
    )
    applied = act(started.state, "A", "draw", n=1)
    s = applied.state
    assert state_view(s, "A")["zones"]["A.hand"]["cards"] == ["割り込み札", "粗茶"]
    for viewer in ("B", "public"):
        view = state_view(s, viewer)
        assert view["zones"]["A.hand"]["cards"] == [None, None] and view["zones"]["A.hand"]["count"] == 2
        assert view["zones"]["deck"]["cards"] == [None]
        text = " ".join(GAME.describe(e, started.state, viewer) for e in applied.events)
        assert "粗茶" not in text and "A draws a card" in text
    assert "A draws 粗茶" in " ".join(GAME.describe(e, started.state, "A") for e in applied.events)
    described = GAME.describe_action(s, Instruction("A", "intervene", card="c3"), "B")
    assert described["card"] == "face-down"
    # Used, an intervention card is face up for everyone (ruling G2).
    used = act(s, "A", "intervene", card="割り込み札").state
    assert state_view(used, "B")["stack"][0]["card"] == "割り込み札"


# --- the command line -----------------------------------------------------------------------


def test_a_stored_match_is_worked_exported_audited_and_imported(tmp_path: Path) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'g.db'}"]
    source = tmp_path / "position.yaml"
    source.write_text(
        "game: gensokyo-s4\nname: x\nrules: ['4']\n"
        f"pool: {POOL}\n"
        "setup:\n  deck: [札, 札, 札]\n  players:\n"
        "    A: {hand: [札, 騒動札], party: [{card: 手札技の仲間, ki: 3}], hand_max: 9}\n"
        "    B: {hand: [札], items: [呪いの人形], cannot: [活力]}\n",
        encoding="utf-8",
    )

    def run(*args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(cli, [*args, *db])
        assert result.exit_code == code, result.output
        return result

    assert run("new", "--position", str(source), "--id", "g1").output.splitlines()[0] == "g1"
    assert "A.party" in run("state", "g1").output and "手札技の仲間 (妖, 気力 3/4)" in run("state", "g1").output
    run("act", "g1", "A", "ability", "手札技の仲間", "--arg", "skill=手札技")
    run("act", "g1", "B", "ability", "呪いの人形")
    legal = json.loads(run("legal", "g1", "--json").output)
    assert legal["player"] is None and legal["kind"] == "interrupt" and legal["rule"] == "4-5"
    acted = json.loads(run("act", "g1", "A", "resolve", "--json").output)
    assert [e["rule"] for e in acted["events"]][:3] == ["4-5b", "4-5b", "4-4e"]
    legal = json.loads(run("legal", "g1", "--json").output)
    assert (legal["player"], legal["kind"], legal["rule"]) == ("A", "discard", "4-1b")
    assert "refused (4-1b)" in run("act", "g1", "B", "draw", "--n", "1", code=1).output
    run("act", "g1", "A", "discard", "札")
    out = run("act", "g1", "B", "resolve").output
    assert "is not resolved: its costs can no longer be paid" in out  # 4-5e
    # Bad input is exit 2; a refusal exit 1 with its statement.
    assert "did you mean" in run("act", "g1", "A", "move", "札x", "--arg", "to=deck", code=2).output
    assert "no zone 'dek'" in run("act", "g1", "A", "move", "札", "--arg", "to=dek", code=2).output
    assert "refused (4-6b)" in run("act", "g1", "A", "rebuild", code=1).output
    assert "B.hand" in run("state", "g1", "--as", "A").output
    assert "Judge Kim notes: checked." in run("note", "g1", "checked", "--by", "Kim").output
    assert "refused (4)" in run("skip-step", "g1", "301", code=1).output
    assert "not one of '4'" in run("rewind", "g1", "--to", "3", "--rule", "410.1", "--reason", "x", code=2).output
    run("rewind", "g1", "--to", "5", "--rule", "4", "--reason", "B used no item", "--by", "Kim")
    rows = json.loads(run("log", "g1", "--json").output)["events"]
    assert rows[-1]["rule"] == "4" and any(r["retracted"] for r in rows)
    record = tmp_path / "g1.yaml"
    record.write_text(run("export", "g1").output, encoding="utf-8")
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    assert data["format"] == "gensokyo-s4-record/1"
    assert data["setup"]["players"]["A"]["hand_max"] == 9 and data["setup"]["players"]["B"]["cannot"] == ["活力"]
    assert data["setup"]["players"]["A"]["party"] == [{"card": "手札技の仲間", "ki": 3}]
    assert "legal" in run("audit", str(record)).output
    imported = run("import", str(record)).output.split()[0]
    assert run("log", imported).output.count("\n") == run("log", "g1").output.count("\n")
    # A fragment ends no game: self-play refuses it.
    assert "幻想郷夢紀行" in run("simulate", "--game", "gensokyo-s4", code=2).output


def test_new_without_a_position_says_to_start_from_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["new", "--game", "gensokyo-s4", "--db", f"sqlite:///{tmp_path / 'g.db'}"])
    assert result.exit_code == 2 and "position" in result.output


# --- the board ------------------------------------------------------------------------------


def test_the_board_shows_each_viewer_its_view_and_logs_a_form(tmp_path: Path) -> None:
    from referee.web import tokens
    from tests.test_console import KEY, app_for, form_of, version_of
    from tests.test_web import judge_auth, referee

    db = f"sqlite:///{tmp_path / 'board.db'}"
    source = tmp_path / "position.yaml"
    source.write_text(
        f"game: gensokyo-s4\nname: x\nrules: ['4']\npool: {POOL}\n"
        "setup: {deck: [札, 札], players: {A: {hand: [割り込み札], party: [妖の仲間], journey: [妖怪の山]}}}\n",
        encoding="utf-8",
    )
    referee(db, "new", "--position", str(source), "--id", "g1", "--title", "Table 5")
    with app_for(db) as http:
        judge = http.get("/matches/g1", headers=judge_auth())
        assert judge.status_code == 200 and 'data-game="gensokyo-s4"' in judge.text
        assert "割り込み札" in unescape(judge.text)
        for viewer in ("B", "public"):
            token = f"&token={tokens.player_token(KEY, 'g1', viewer)}" if viewer != "public" else ""
            page = http.get(f"/matches/g1?as={viewer}{token}")
            assert page.status_code == 200
            assert "割り込み札" not in unescape(page.text) and "妖怪の山" in unescape(page.text)
        mine = http.get(f"/matches/g1?as=A&token={tokens.player_token(KEY, 'g1', 'A')}")
        assert "割り込み札" in unescape(mine.text)
        fields = form_of(judge.text)
        before = version_of(db, "g1")
        done = http.post(
            "/matches/g1/act",
            headers={**judge_auth(), "X-Requested-With": "referee-console"},
            data={**fields, "do": "travel", "player": "A", "card": "c5"},
        )
        assert done.status_code == 200 and done.headers["x-outcome"] == "logged", done.text
        assert version_of(db, "g1") == before + 2  # the instruction's record and its use (4-2b)
        tables = http.get("/")
        row = re.search(r'<tr data-match="g1">(.*?)</tr>', tables.text, re.S)
        assert row and 'data-game="gensokyo-s4"' in row.group(1)
