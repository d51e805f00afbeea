"""Phantom Magic Vision, chapter 7 (effects): the fragment ruleset built on the game kit.

Its scenarios cite the numbered rules its page says it referees, and its
page gives every rule of the chapter a status; every rule its code cites
is one of the chapter's; every event has a fold and a sentence; a position
reads back from what its record writes; a bad position is bad input
naming its place; the referee's own choices (the order of the checks of a
use, the decisions it asks, loops, invalid texts) are as the page says;
and a stored match is worked from the command line and the board.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from events.kernel import ActionTaken
from events.pmv_ch7 import EVENT_TYPES
from projections.pmv_ch7 import sentences, state
from referee import ruleset
from referee.actions import IllegalAction
from referee.cli import cli
from referee.inputs import Document, InputError
from referee.rules import pmv_ch7
from referee.rules.pmv_ch7.common import Action
from referee.rules.pmv_ch7.notation import setup_notation
from referee.scenario import load_scenario, run_scenario, scenario_files

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "rules" / "phantom-magic-vision-s7-effects.ja.txt"
KEPT = ROOT / "tests" / "data" / "pmv-ch7-rules.txt"
LIBRARY = ROOT / "scenarios" / "pmv-ch7"
PAGE = ROOT / "docs" / "games" / "pmv-ch7.md"
PMV = ruleset.get("pmv-ch7")


def kept() -> list[str]:
    return [line for line in KEPT.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def numbered() -> list[str]:
    """The numbered rules, the section titles (7.1 to 7.8) aside."""
    return [r for r in kept() if r.count(".") >= 2]


def position(text: str) -> Any:
    data = yaml.safe_load(text)
    return PMV.position(data, Document(Path("<position>"), data))


def events_of(started: Any, *actions: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The state and log after applying ``actions`` to a position."""
    s, log = started.state, list(started.events)
    for raw in actions:
        applied = PMV.apply(s, PMV.action_from_mapping(raw))
        s, log = applied.state, log + applied.events
    return s, log


# --- the rules, the scenarios and the page ---------------------------------------------------


def test_the_kept_rule_list_is_the_rules_text() -> None:
    if not RULES.exists():
        pytest.skip(f"no rules text at {RULES}: the list in {KEPT.name} is used as kept")
    printed = [
        line.strip().replace("\xa0", "")
        for line in RULES.read_text(encoding="utf-8").splitlines()
        if re.fullmatch(r"7(\.[0-9a-z]+)*", line.strip().replace("\xa0", ""))
    ]
    assert printed == kept()


def _page_rows() -> dict[str, tuple[str, str]]:
    rows = re.findall(r"^\| (7\.[0-9a-z.]+) \| (refereed|outside) \| (.*) \|$", PAGE.read_text(encoding="utf-8"), re.M)
    return {rule: (status, rest) for rule, status, rest in rows}


def test_the_page_gives_every_numbered_rule_its_status_and_the_scenarios_citing_it() -> None:
    """The page's table is the truth of the scenario library: a refereed rule
    names exactly the scenarios that cite it, an outside one is cited by none."""
    assert len(numbered()) == 99
    rows = _page_rows()
    assert list(rows) == numbered()
    citing: dict[str, list[str]] = {}
    for path in scenario_files([str(LIBRARY)]):
        for rule in load_scenario(path).rules:
            citing.setdefault(rule, []).append(path.stem)
    for rule, (status, rest) in rows.items():
        if status == "refereed":
            assert sorted(re.findall(r"`([^`]+)`", rest)) == sorted(citing.get(rule, [])), rule
        else:
            assert rule not in citing and len(rest) > 30, rule
    refereed = [r for r, (status, _) in rows.items() if status == "refereed"]
    assert len(refereed) >= 57
    core = ["7.1.6", "7.1.6.a", *(f"7.1.{n}" for n in range(7, 18)), "7.4.5.a", "7.4.6.a", "7.4.7.d", "7.3.6", "7.3.7"]
    assert all(rows[r][0] == "refereed" for r in core)
    extra = {r for r in citing if not r.startswith("ruling:P")} - set(kept()) - {pmv_ch7.common.OUTSIDE}
    assert extra == set()


def test_the_scenarios_are_this_games_and_pass() -> None:
    found = [load_scenario(p) for p in scenario_files([str(LIBRARY)])]
    assert len(found) >= 50
    for sc in found:
        assert sc.game == "pmv-ch7"
        report = run_scenario(sc)
        assert report.passed, (report.file, report.failures)


def test_every_rule_the_code_cites_is_the_chapters_and_each_refereed_rule_is_named_in_it() -> None:
    code = "".join(
        p.read_text(encoding="utf-8")
        for folder in ("referee/rules/pmv_ch7", "events/pmv_ch7", "projections/pmv_ch7")
        for p in sorted((ROOT / folder).glob("*.py"))
    )
    cited = set(re.findall(r'"(7(?:\.[0-9a-z]+)+)"', code))
    assert cited and cited <= set(kept())
    refereed = [r for r, (status, _) in _page_rows().items() if status == "refereed"]
    unnamed = [r for r in refereed if not re.search(rf"(?<![\d.]){re.escape(r)}(?![\d.a-z])", code)]
    assert unnamed == []


def test_every_rule_belongs_to_one_module_of_the_map() -> None:
    for rule in numbered():
        if rule.startswith(("7.6", "7.7")):
            assert pmv_ch7.module_of(rule) == [], rule  # outside: no module
        else:
            assert len(pmv_ch7.module_of(rule)) == 1, rule
    for module in pmv_ch7.RULE_MAP:
        assert (ROOT / "referee" / "rules" / "pmv_ch7" / f"{module}.py").exists()


def test_every_event_has_a_fold_and_a_sentence() -> None:
    classes = [*EVENT_TYPES.values(), ActionTaken]
    assert state.MUTATORS.missing(classes) == []
    assert sentences.SENTENCES.missing(classes) == []


# --- positions and the notation --------------------------------------------------------------


def test_a_position_reads_back_from_what_its_record_writes() -> None:
    """Every scenario's position, written back in the notation (as an export
    writes it), reads as the very same first event."""
    for path in scenario_files([str(LIBRARY)]):
        first = load_scenario(path).events[0]
        written = {"setup": {**setup_notation(first), "seed": first.seed, "names": dict(first.names)}}
        again = PMV.position(json.loads(json.dumps(written)), Document(path, written)).events[0]
        assert again == first, path


CARD = "{name: Lamp, owner: A, effects: [{opens: (常時), text: [{set: lit}]}]}"


@pytest.mark.parametrize(
    ("setup", "where", "words"),
    [
        ("{cards: [" + CARD + "]}", "setup", "missing required key 'turn'"),
        ("{turn: C, cards: [" + CARD + "]}", "setup.turn", "expected one of A, B"),
        ("{turn: A, cards: [" + CARD + ", " + CARD + "]}", "setup.cards[1].name", "the name of another card"),
        ("{turn: A, cards: [{name: 'a#b', owner: A}]}", "setup.cards[0].name", "no '#'"),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (常時), text: [{set: a, clear: b}]}]}]}",
            "setup.cards[0].effects[0].text[0]",
            "a clause does one thing",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (自動α), text: [{move: [self], to: elsewhere}]}]}]}",
            "setup.cards[0].effects[0].text[0]",
            "ruling:P7",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (常時), cost: [{wait: [a], then: []}]}]}]}",
            "setup.cards[0].effects[0].cost[0]",
            "a cost is paid",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (自動γ), cost: [{pay: 1}]}]}]}",
            "setup.cards[0].effects[0].cost",
            "an activated effect's cost",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (常時), text: [{add: power, of: [Y]}]}]}]}",
            "setup.cards[0].effects[0].text[0]",
            "no card is named 'Y'",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (常時), text: [{as_used: 'X#2'}]}]}]}",
            "setup.cards[0].effects[0].text[0]",
            "X has effects 1 to 1",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (常時), text: [{set: 'two words'}]}]}]}",
            "setup.cards[0].effects[0].text[0].set",
            "a condition is one word",
        ),
        (
            "{turn: A, cards: [{name: X, owner: A, effects: [{opens: (通常)}]}]}",
            "setup.cards[0].effects[0].opens",
            "(常時)",
        ),
    ],
)
def test_a_bad_position_is_bad_input_naming_its_place(setup: str, where: str, words: str) -> None:
    with pytest.raises(InputError) as found:
        position(f"setup: {setup}\n")
    said = found.value.describe()
    assert where in said and words in said, said


# --- what the referee decides ------------------------------------------------------------------

TWO = """
setup:
  turn: A
  priority: B
  cards:
    - {name: Far, owner: A, zone: elsewhere, effects: [{opens: (常時), needs: [dusk], text: [{set: lit}]}]}
    - {name: Near, owner: A, effects: [{opens: (自分ターン), cost: [{pay: 5}], text: [{set: lit}]}]}
    - {name: Wall, owner: B, effects: [{opens: (常時), text: [{set: wall}]}]}
"""


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"player": "A", "do": "use", "card": "Far", "effect": 1}, "7.3.3.a"),  # priority before the field
        ({"player": "B", "do": "use", "card": "Near", "effect": 1}, "7.3.3.b"),  # A's card, on A's field
        ({"player": "B", "do": "use", "card": "Wall", "effect": 2}, "7.1.5"),  # no such effect
        ({"player": "B", "do": "use", "card": "Wall", "effect": 1, "mode": 1}, "7.3.4.b"),
        ({"player": "B", "do": "order", "first": "Wall#1"}, "7.1.6.a"),  # nothing waits to be ordered
        ({"player": "B", "do": "choose", "apply": True}, "7.4.5.f"),  # no α asks
        ({"player": "B", "do": "resolve", "card": "Wall", "effect": 1}, "7.3.5"),  # never used
        ({"player": "B", "do": "happen", "condition": "dusk"}, "7"),  # the turn player enters it (ruling:P11)
    ],
)
def test_a_refusal_cites_the_first_rule_that_fails(action: dict[str, Any], rule: str) -> None:
    s = position(TWO).state
    refusal = PMV.is_legal(s, PMV.action_from_mapping(action))
    assert refusal is not None and refusal.rule == rule and refusal.reason, refusal
    assert PMV.action_from_mapping(action) not in PMV.legal_actions(s)


def test_the_legal_list_is_exactly_what_is_accepted_and_a_refused_action_writes_nothing() -> None:
    started = position(TWO)
    s = started.state
    legal = PMV.legal_actions(s)
    assert Action("B", "use", "Wall", 1) in legal
    assert not any(a.do == "use" and a.player == "A" for a in legal)  # A does not hold priority (7.3.3.a)
    for a in legal:
        assert PMV.is_legal(s, a) is None
    with pytest.raises(IllegalAction):
        PMV.apply(s, Action("A", "use", "Near", 1))
    assert s == started.state  # nothing was changed


def test_at_an_order_decision_only_the_chooser_acts_and_only_on_their_effects() -> None:
    s, _ = events_of(
        position("""
setup:
  turn: B
  cards:
    - {name: A1, owner: A, effects: [{opens: (自動γ), when: [dusk], text: [{act: a1}]}]}
    - {name: A2, owner: A, effects: [{opens: (自動γ), when: [dusk], text: [{act: a2}]}]}
    - {name: B1, owner: B, effects: [{opens: (自動γ), when: [dusk], text: [{act: b1}]}]}
    - {name: B2, owner: B, effects: [{opens: (自動γ), when: [dusk], text: [{act: b2}]}]}
"""),
        {"player": "B", "do": "happen", "condition": "dusk"},
    )
    d = PMV.decision(s)
    assert d is not None and (d.player, d.kind, d.rule) == ("B", "order", "7.1.6.a")
    assert sorted(a.first for a in PMV.legal_actions(s)) == ["B1#1", "B2#1"]
    refusal = PMV.is_legal(s, Action("B", "happen", condition="rain"))
    assert refusal is not None and refusal.rule == "7.1.6.a" and "B must first choose" in refusal.reason
    assert PMV.is_legal(s, Action("B", "order", first="A1#1")) is not None


def test_automatic_effects_that_switch_each_other_without_end_are_refused_whole() -> None:
    """Two α that turn each other off: chapter 7 does not say how that ends
    (ruling:P16), so the action that sets them off is refused, citing 7."""
    s = position("""
setup:
  turn: A
  cards:
    - {name: Up, owner: A, effects: [{opens: (自動α), when: [dusk, not down], text: [{set: up}]}]}
    - {name: Down, owner: A, effects: [{opens: (自動α), when: [up], text: [{set: down}]}]}
""").state
    with pytest.raises(IllegalAction) as found:
        PMV.apply(s, Action("A", "happen", condition="dusk"))
    assert found.value.refusal.rule == "7" and "loop" in found.value.refusal.reason
    assert PMV.is_legal(s, Action("A", "happen", condition="dusk")) is None  # the check alone accepts it


def test_an_invalid_text_has_no_automatic_effects() -> None:
    """Ruling P6: a card whose text becomes invalid stops its α, and its γ
    met before is not resolved."""
    s, log = events_of(
        position("""
setup:
  turn: A
  conditions: [dusk]
  cards:
    - name: Lamp
      owner: A
      effects: [{opens: (常時), text: [{set: lit}, {invalidate: [Bell]}]}]
    - name: Bell
      owner: B
      effects:
        - {opens: (自動α), when: [dusk], text: [{add: power}]}
        - {opens: (自動γ), when: [lit], text: [{set: rung}]}
"""),
        {"player": "A", "do": "use", "card": "Lamp", "effect": 1},
        {"player": "A", "do": "resolve", "card": "Lamp", "effect": 1},
    )
    assert s.applying == () and state.value(s, "Bell", "power") == 0 and not state.holds(s, "rung")
    assert [(type(e).__name__, e.rule) for e in log if type(e).__name__ in ("AutoLapsed", "GammaSkipped")] == [
        ("AutoLapsed", "7.4.1"),
        ("GammaSkipped", "7.4.7.d"),
    ]


def test_every_viewer_sees_the_same_and_every_event_is_said() -> None:
    s, log = events_of(
        load_scenario(LIBRARY / "7.1.12.c-an-effect-nullified-while-applied-is-gone.yaml"),
        {"player": "B", "do": "play", "card": "Snuffer"},
        {"player": "A", "do": "use", "card": "Lamp", "effect": 1},
        {"player": "A", "do": "resolve", "card": "Lamp", "effect": 1},
    )
    views = {viewer: PMV.view(s, viewer) for viewer in PMV.viewers}
    assert all(v == views["judge"] for v in views.values())  # ruling:P1
    assert views["judge"]["results"][-1] == {"effect": "Lamp#1", "outcome": "failure", "rule": "7.1.12.c"}
    texts = [row["text"] for row in PMV.log_rows(log, PMV.initial_state(), "A")]
    assert "Lamp#1 is nullified while it is being applied, and is gone (7.1.12.c)." in texts
    assert len(texts) == len(log) and all(text.endswith(".") and text[0].isupper() for text in texts)


# --- the command line and the board -------------------------------------------------------------


def test_a_stored_match_is_worked_from_the_command_line(tmp_path: Path) -> None:
    """`new --position`, `act` with --arg, `legal --json`, `state --json`,
    `log`, a refusal (exit 1), a rewind citing 7, a note, skip-step refused,
    and a record exported, audited and imported to the same events."""
    path = LIBRARY / "7.4.7.c-a-gamma-waits-for-the-resolution-to-end.yaml"
    db = ["--db", f"sqlite:///{tmp_path / 'm.db'}"]

    def run(*args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(cli, [*args, *db])
        assert result.exit_code == code, result.output
        return result

    assert run("new", "--position", str(path), "--id", "p1").output.splitlines()[0] == "p1"
    legal = json.loads(run("legal", "p1", "--json").output)
    assert legal["player"] is None and legal["kind"] == "next" and legal["rule"] == "7"
    acted = json.loads(run("act", "p1", "A", "use", "Lamp", "--arg", "effect=1", "--json").output)
    assert [r["rule"] for r in acted["events"]] == ["7.3.4", "7.3.4.a", "7.3.4.e", "7.3.4.f", "7.3.4.f"]
    assert "refused (7.1.8)" in run("act", "p1", "B", "use", "Bell", "--arg", "effect=1", code=1).output
    assert "use takes no target" in run("act", "p1", "A", "use", "Lamp", "--target", "Bell", code=2).output
    assert "effect" in run("act", "p1", "A", "resolve", "Lamp", code=2).output  # a required argument missing
    run("act", "p1", "A", "resolve", "Lamp", "--arg", "effect=1")
    view = json.loads(run("state", "p1", "--json").output)
    assert view["conditions"] == ["lit", "rung", "warm"] and view["interference"] is None
    assert "not one of '7'" in run("rewind", "p1", "--to", "7", "--rule", "410.1", "--reason", "x", code=2).output
    run("rewind", "p1", "--to", "7", "--rule", "7", "--reason", "resolved too soon", "--by", "Kim")
    assert json.loads(run("state", "p1", "--json").output)["interference"] == {
        "used": ["Lamp#1"],
        "waiting": [{"effect": "Lamp#1", "player": "A"}],
    }
    assert "Judge Kim notes: checked." in run("note", "p1", "checked", "--by", "Kim").output
    assert "refused (7)" in run("skip-step", "p1", "7.3.4", code=1).output
    record = tmp_path / "p1.yaml"
    record.write_text(run("export", "p1").output, encoding="utf-8")
    assert yaml.safe_load(record.read_text(encoding="utf-8"))["format"] == "pmv-ch7-record/1"
    assert "legal" in run("audit", str(record)).output
    imported = run("import", str(record)).output.split()[0]
    first = json.loads(run("log", "p1", "--json").output)["events"]
    again = json.loads(run("log", imported, "--json").output)["events"]
    assert [(r["type"], r["rule"], r["text"]) for r in again] == [(r["type"], r["rule"], r["text"]) for r in first]


def test_the_board_shows_the_match_and_logs_a_form_through_the_ruleset(tmp_path: Path) -> None:
    from tests.test_console import app_for, form_of, version_of
    from tests.test_web import judge_auth, referee

    db = f"sqlite:///{tmp_path / 'board.db'}"
    referee(db, "new", "--position", str(LIBRARY / "7.1.10-what-an-application-sets-off-interrupts.yaml"), "--id", "b1")
    with app_for(db) as http:
        page = http.get("/matches/b1", headers=judge_auth())
        assert page.status_code == 200 and 'data-game="pmv-ch7"' in page.text
        assert "Lamp" in page.text and "Bell" in page.text
        assert 'data-action-form="use"' in page.text
        before = version_of(db, "b1")
        done = http.post(
            "/matches/b1/act",
            headers={**judge_auth(), "X-Requested-With": "referee-console"},
            data={**form_of(page.text), "do": "use", "player": "A", "card": "Lamp", "effect": "1"},
        )
        assert done.status_code == 200 and done.headers["x-outcome"] == "logged", done.text
        assert version_of(db, "b1") == before + 5  # its record and 7.3.4 a, e, f, f
        refused = http.post(
            "/matches/b1/act",
            headers=judge_auth(),
            data={**form_of(done.text), "do": "use", "player": "A", "card": "Lamp", "effect": "1"},
        )
        assert refused.status_code == 422 and "Refused (7.3.3.a)" in refused.text
        row = re.search(r'<tr data-match="b1">(.*?)</tr>', http.get("/").text, re.S)
        assert row and "Phantom Magic Vision" in row.group(1)


def test_every_ruling_the_game_cites_is_described() -> None:
    """Each ``ruling:Pn`` a scenario, an event or the code cites is a reading
    docs/rulings.md describes, and each described one is cited somewhere."""
    rulings = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    described = set(re.findall(r"\*\*(P\d+)\. ", rulings))
    assert described == {f"P{n}" for n in range(1, 17)}
    texts = [p.read_text(encoding="utf-8") for p in LIBRARY.glob("*.yaml")]
    texts += [
        p.read_text(encoding="utf-8")
        for folder in ("referee/rules/pmv_ch7", "projections/pmv_ch7", "events/pmv_ch7")
        for p in (ROOT / folder).glob("*.py")
    ]
    texts.append(PAGE.read_text(encoding="utf-8"))
    cited = {m for text in texts for m in re.findall(r"ruling[:=]\"?(P\d+)", text)}
    assert cited <= described and described - cited == set(), described - cited
