"""The stored-match commands as a judge uses them: new, legal, act, state, log,
and the 410 corrections, on a SQLite file (PostgreSQL is covered by the store
tests, which run the same store against both)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli

ROOT = Path(__file__).resolve().parent.parent
# The vanilla sample decks: these tests script actions with their cards.
DECKS = [
    "--deck",
    f"A={ROOT / 'scenarios/decks/vanilla-a.yaml'}",
    "--deck",
    f"B={ROOT / 'scenarios/decks/vanilla-b.yaml'}",
]

SECOND_CHARACTER = """
name: A main phase with two characters in hand
rules: ["306.1a"]
setup:
  mode: record
  turn: 3
  active: A
  players:
    A:
      hand: [Iron Knight, Bold Squire]
      action_stack: 5
      castle: 20
    B:
      castle: 20
"""


@pytest.fixture
def run(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'matches.db'}"
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, [*args, "--db", db])
        assert result.exit_code == code, (args, result.output, result.stderr if hasattr(result, "stderr") else "")
        return result.stdout

    return invoke


def j(text: str) -> dict:
    return json.loads(text)


def test_a_new_match_waits_for_the_openings(run) -> None:
    match = j(run("new", *DECKS, "--seed", "7", "--name", "A=Alice", "--json"))["match"]
    legal = j(run("legal", match, "--json"))
    assert legal["player"] == "A"
    assert {a["do"] for a in legal["actions"]} == {"choose_opening", "concede", "propose_draw"}
    view = j(run("state", match, "--json"))
    assert view["event"] == 1 and view["zones"]["A.castle"]["count"] == 51
    assert view["result"] is None


def test_playing_through_the_setup_and_reading_it_back(run) -> None:
    match = j(run("new", *DECKS, "--seed", "7", "--json"))["match"]
    run("act", match, "A", "choose_opening", "Little Page")
    out = j(run("act", match, "B", "choose_opening", "Stable Boy", "--json"))
    assert out["events"][0]["type"] == "ActionTaken"
    # After both openings, 101.2-101.4 run by themselves up to a decision.
    rules = [row["rule"] for row in out["events"]]
    assert "101.2" in rules and "101.3" in rules
    chooser = out["next"]
    run("act", match, chooser, "choose_order", "--order", "first")
    run("act", match, chooser, "keep")
    other = "B" if chooser == "A" else "A"
    done = j(run("act", match, other, "keep", "--json"))
    assert done["next"] == chooser  # turn 1 is the chooser's
    view = j(run("state", match, "--json", "--as", other))
    hidden = "A" if other == "B" else "B"
    assert view["zones"][f"{hidden}.hand"]["cards"] is None
    assert view["zones"][f"{hidden}.hand"]["count"] == 7
    assert view["zones"][f"{other}.hand"]["cards"] is not None
    # The state after any earlier event is still there.
    early = j(run("state", match, "--at", "3", "--json"))
    assert early["event"] == 3
    log = j(run("log", match, "--json"))["events"]
    assert [r["position"] for r in log] == list(range(1, len(log) + 1))


def test_a_refused_action_exits_1_with_the_rule_and_writes_nothing(run) -> None:
    match = j(run("new", *DECKS, "--seed", "7", "--json"))["match"]
    before = j(run("log", match, "--json"))["events"]
    out = j(run("act", match, "B", "choose_opening", "Stable Boy", "--json", code=1))
    assert out["refused"]["rule"] == "101.1"
    assert j(run("log", match, "--json"))["events"] == before


def test_record_mode_violation_until_a_judge_rewinds(run, tmp_path: Path) -> None:
    position = tmp_path / "position.yaml"
    position.write_text(SECOND_CHARACTER)
    match = j(run("new", "--position", str(position), "--json"))["match"]
    run("act", match, "A", "play_character", "Iron Knight")
    before_second = j(run("state", match, "--json"))
    played = j(run("act", match, "A", "play_character", "Bold Squire", "--json"))
    assert played["violations"] == ["306.1a"]
    # The open violation shows in state, legal and log until a judge rules.
    assert [v["rule"] for v in j(run("state", match, "--json"))["violations"]] == ["306.1a"]
    flagged = next(line for line in run("state", match).splitlines() if line.startswith("OPEN VIOLATION"))
    assert flagged.endswith("so Bold Squire cannot be played (a judge must rule)"), flagged
    assert j(run("legal", match, "--json"))["violations"] == ["306.1a"]
    log = j(run("log", match, "--json"))["events"]
    assert any(r["type"] == "ViolationRecorded" and r["rule"] == "306.1a" for r in log)
    second = next(r["position"] for r in log if r["type"] == "ActionTaken" and "Bold Squire" in r["text"])
    # What a rewind would undo: the second play, most recent first.
    dry = j(run("rewind", match, "--to", str(second - 1), "--rule", "410.1", "--reason", "x", "--dry-run", "--json"))
    positions = [r["position"] for r in dry["undo"]]
    assert positions == sorted(positions, reverse=True) and positions[-1] == second
    assert all("reveals" in r for r in dry["undo"])
    assert any(r["reveals"] and r["type"] == "CharacterPlayed" for r in dry["undo"])
    assert j(run("log", match, "--json"))["events"] == log  # a dry run writes nothing
    run("rewind", match, "--to", str(second - 1), "--rule", "410.1", "--reason", "second character this turn")
    after = j(run("state", match, "--json"))
    assert after["violations"] == []
    assert after["zones"] == before_second["zones"]
    rows = j(run("log", match, "--json"))["events"]
    retracted = [r["position"] for r in rows if r["retracted"]]
    assert retracted == list(range(second, len(log) + 1))
    assert rows[-1]["type"] == "Rewound" and not rows[-1]["retracted"]
    # The retracted stretch can still be looked at.
    assert [v["rule"] for v in j(run("state", match, "--at", str(len(log)), "--json"))["violations"]] == ["306.1a"]


def test_judge_notes_and_accepting_a_violation(run, tmp_path: Path) -> None:
    position = tmp_path / "position.yaml"
    position.write_text(SECOND_CHARACTER)
    match = j(run("new", "--position", str(position), "--json"))["match"]
    run("act", match, "A", "play_character", "Iron Knight")
    run("act", match, "A", "play_character", "Bold Squire")
    run("note", match, "B called a judge", "--by", "Kim")
    run("accept", match, "--reason", "noticed too late", "--by", "Kim")
    view = j(run("state", match, "--json"))
    assert view["violations"] == []
    assert view["zones"]["A.field"]["cards"] == ["Iron Knight", "Bold Squire"]
    texts = [r["text"] for r in j(run("log", match, "--json"))["events"]]
    assert "Judge Kim notes: B called a judge." in texts
    out = j(run("accept", match, "--reason", "again", "--json", code=1))
    assert out["refused"]["rule"] == "410"


def _referee(*args: str, env_db: str | None = None) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ)
    if env_db:
        env["REFEREE_DB"] = env_db
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, env=env)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'm.db'}"
    # A database that does not exist is not made by a command that only uses one.
    missing = _referee("state", "no-such-match", "--db", db)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "no such database" in missing.stderr and not (tmp_path / "m.db").exists()
    bad_deck = tmp_path / "deck.yaml"
    bad_deck.write_text("- Iron Knight\n- {card: Iron Knight, count: 3}\n")
    proc = _referee("new", "--deck", f"A={bad_deck}", "--deck", f"B={bad_deck}", "--db", db)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(bad_deck) in proc.stderr and "100.2" in proc.stderr
    # A card name that is no card of the match is a typo: exit 2, with a hint.
    made = _referee("new", *DECKS, "--seed", "1", "--id", "typo", "--db", db)
    assert made.returncode == 0, made.stderr
    unknown = _referee("state", "no-such-match", "--db", db)
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert "no-such-match" in unknown.stderr
    typo = _referee("act", "typo", "A", "choose_opening", "little page", "--db", db)
    assert typo.returncode == 2 and "Traceback" not in typo.stderr
    assert "no card 'little page' in match typo; did you mean 'Little Page'?" in typo.stderr
    usage = _referee("new", "--deck", "A", "--db", db)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


def test_a_wrong_password_never_shows_the_password(tmp_path: Path) -> None:
    url = "postgresql://referee:hunter2secret@127.0.0.1:1/none"
    proc = _referee("matches", "--db", url)
    assert proc.returncode == 2
    assert "hunter2secret" not in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_audit_of_a_stored_match_finds_a_rewind_that_restores_the_wrong_state(run, tmp_path: Path) -> None:
    """Issue 4: audit checks every stored Rewound against the events up to its target."""
    from referee import corrections
    from referee.store import MatchStore

    match = j(run("new", *DECKS, "--seed", "3", "--json"))["match"]
    run("act", match, "A", "choose_opening", "Little Page")
    run("act", match, "B", "choose_opening", "Stable Boy")
    run("rewind", match, "--to", "3", "--rule", "410.1", "--reason", "wrong opening")
    out = j(run("audit", match, "--json"))
    assert out["legal"] is True and "rewinds" not in out
    # A forged log: the same match, but its rewind restores a different state.
    db = f"sqlite:///{tmp_path / 'matches.db'}"
    with MatchStore(db) as store:
        events = store.events(match)
        rewind = next(e for e in events if type(e).__name__ == "Rewound")
        wrong = corrections.rewind(store.load(match)[0], events, rewind.to + 2, rule="410.1", reason="forged").events[0]
        forged = [*events[: events.index(rewind)], rewind.model_copy(update={"state": wrong.state})]
        forged_id = store.create(forged, match_id="forged")
    out = j(run("audit", forged_id, "--json", code=1))
    assert out["legal"] is False
    assert any("restores a different state" in p for p in out["rewinds"]), out


def test_act_with_an_older_expected_version_records_nothing(run) -> None:
    match = j(run("new", *DECKS, "--seed", "3", "--json"))["match"]
    seen = j(run("legal", match, "--json"))["version"]
    run("act", match, "A", "choose_opening", "Little Page", "--expect-version", str(seen))
    after = j(run("log", match, "--json"))["events"]
    out = j(run("act", match, "B", "choose_opening", "Stable Boy", "--expect-version", str(seen), "--json", code=1))
    assert out["stale"]["chosen"] == seen and out["stale"]["current"] == len(after)
    assert j(run("log", match, "--json"))["events"] == after


LATE_INTERCEPTION = "scenarios/410-corrections/306.5d-record-late-interception-takes-back-the-castle-attack.yaml"


@pytest.mark.parametrize("mode", ["record", "strict"])
def test_a_late_interception_after_the_referee_resolved_the_castle_attack(run, tmp_path: Path, mode: str) -> None:
    """306.5c-d: B's only character was tapped, so the referee resolved the
    castle attack by itself; the table says B intercepted. Record mode takes
    the referee's own steps back and records the interception with its
    violation (exit 0); strict mode refuses it citing 306.5d (exit 1)."""
    from referee import corrections
    from referee.store import MatchStore

    position = tmp_path / "late.yaml"
    position.write_text((ROOT / LATE_INTERCEPTION).read_text(encoding="utf-8").replace("mode: record", f"mode: {mode}"))
    match = j(run("new", "--position", str(position), "--json"))["match"]
    run("act", match, "A", "attack", "Iron Knight")
    assert j(run("state", match, "--json"))["zones"]["B.castle"]["count"] == 7
    before = j(run("log", match, "--json"))["events"]
    if mode == "strict":
        out = j(run("act", match, "B", "intercept", "Border Guard", "--json", code=1))
        assert out["refused"]["rule"] == "306.5d"
        assert j(run("log", match, "--json"))["events"] == before
        return
    out = j(run("act", match, "B", "intercept", "Border Guard", "--json"))
    assert out["violations"] == ["306.5d"]
    assert out["events"][0]["type"] == "Rewound" and out["events"][0]["rule"] == "306.5c"
    state = j(run("state", match, "--json"))
    assert state["zones"]["B.castle"]["count"] == 10 and state["zones"]["B.discard"]["count"] == 0
    assert [v["rule"] for v in state["violations"]] == ["306.5d"]
    rows = j(run("log", match, "--json"))["events"]
    milled = [r for r in rows if r["type"] == "CardMilled"]
    assert len(milled) == 3 and all(r["retracted"] for r in milled)
    rewound = next(r for r in rows if r["type"] == "Rewound")
    assert rewound["text"].startswith("The referee takes back its own steps") and not rewound["retracted"]
    # The log is consistent: its rewind restores exactly the state its target had.
    with MatchStore(f"sqlite:///{tmp_path / 'matches.db'}") as store:
        assert corrections.rewinds_consistent(store.events(match)) == []


def _invoke(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--db", f"sqlite:///{tmp_path / 'matches.db'}"])
    return result.exit_code, result.output


def test_every_match_goes_through_its_ruleset(run, tmp_path: Path) -> None:
    """The game's own options and arguments come from what its ruleset
    declares: Harem Master's --ruling and --no-auto-pass (StartOption), an
    action's CARD, --target, --order... (ActionSpec.args); one an action does
    not take is bad input (exit 2), as is a rule a game's corrections do not
    know, and nothing is written."""
    match = j(run("new", *DECKS, "--seed", "7", "--ruling", "A1=felled", "--no-auto-pass", "--json"))["match"]
    # --ruling and --no-auto-pass reached the start (the first event records both).
    from referee.commands.matches import open_store

    with open_store(f"sqlite:///{tmp_path / 'matches.db'}", read_only=True) as store:
        first = store.events(match)[0]
    assert first.rulings["A1"] == "felled" and first.auto_pass is False
    code, out = _invoke(tmp_path, "act", match, "A", "choose_opening", "Little Page", "--order", "first")
    assert code == 2 and "choose_opening takes no order" in out
    code, out = _invoke(tmp_path, "act", match, "A", "choose_order")
    assert code == 2 and "choose_order needs order (--order)" in out
    code, out = _invoke(tmp_path, "act", match, "A", "choose_opening", "Little Page", "--arg", "card=Little Page")
    assert code == 2 and "card is given once" in out
    code, out = _invoke(tmp_path, "skip-step", match, "306")
    assert code == 2 and "'306' is not one of '301', '302', '303', '309', '214.2e'" in out
    assert j(run("legal", match, "--json"))["version"] == 1  # nothing was written
    # --arg names any declared argument, for Harem Master too.
    assert "101.1" in run("act", match, "A", "choose_opening", "--arg", "card=Little Page")


def test_a_fragment_of_a_game_starts_only_from_a_position(tmp_path: Path) -> None:
    """SCP-TCG's chapter 4 has no decks: `new --game scp-tcg-s4` without
    --position says so (exit 2); a position of another game than --game is
    refused too; a zone that no zone of the game is bad input, not a refusal."""
    code, out = _invoke(tmp_path, "new", "--game", "scp-tcg-s4")
    assert code == 2 and "fragment of a game and has no decks" in out and "--position" in out
    position = ROOT / "scenarios/scp-tcg/402.6-a-sandbox-at-zero-protection-is-restored-and-breached.yaml"
    code, out = _invoke(tmp_path, "new", "--position", str(position), "--game", "harem-master")
    assert code == 2 and "is a position of scp-tcg-s4, not of harem-master" in out
    assert _invoke(tmp_path, "new", "--position", str(position), "--game", "scp-tcg-s4", "--id", "s1")[0] == 0
    code, out = _invoke(tmp_path, "act", "s1", "A", "look", "--arg", "zone=A.kter")
    assert code == 2 and "no zone 'A.kter'" in out and "did you mean 'A.keter'" in out
    code, out = _invoke(tmp_path, "act", "s1", "B", "damage", "--arg", "zone=A.safe", "--n", "1", "--json")
    assert code == 0 and [r["rule"] for r in json.loads(out)["events"]][:2] == ["402.5", "402.5"]
    # A count that is not a whole number in range is bad input, with its option named (exit 2, no traceback).
    for bad in ("n=abc", "n=0"):
        code, out = _invoke(tmp_path, "act", "s1", "B", "damage", "--arg", "zone=A.safe", "--arg", bad)
        assert code == 2 and "Invalid value for --arg: n is a whole number from 1 to" in out, out


def test_the_help_names_each_games_rules_and_actions() -> None:
    rewind_help = CliRunner().invoke(cli, ["rewind", "--help"]).output
    assert "--rule RULE" in rewind_help and "410.1" in rewind_help and "410.2" in rewind_help
    assert "SCP-TCG chapter 4: 4" in rewind_help
    act_help = CliRunner().invoke(cli, ["act", "--help"]).output
    assert "damage" in act_help and "--arg zone=ZONE" in act_help
    new_help = CliRunner().invoke(cli, ["new", "--help"]).output
    assert "--ruling ID=CHOICE" in new_help and "--no-auto-pass" in new_help and "--game" in new_help
