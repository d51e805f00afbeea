"""Match records (harem-master-record/1): reading, replaying, exporting,
importing and auditing, and the round trip from a stored match to a record
and back. Database tests use SQLite files in tmp_path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from events.kernel import ActionTaken, Event, Rewound, StepSkipped, ViolationRecorded
from projections.harem_master.state import evolve, initial_state
from referee import corrections
from referee.actions import IllegalAction
from referee.cli import cli
from referee.commands.records import export_one
from referee.inputs import InputError
from referee.records import (
    FORMAT,
    ExportError,
    dump_record,
    export_record,
    load_record,
    record_from_dict,
    replay,
)
from referee.rules.harem_master import legal_actions, start
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.decks import deal, load_deck
from referee.rules.harem_master.pool import CardCatalog, bundled_pool
from referee.store import MatchStore

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
SAMPLES = ROOT / "scenarios" / "records"
COMPLETE = SAMPLES / "complete-legal-game.yaml"
ILLEGAL = SAMPLES / "illegal-action-midgame.yaml"
NOT_RANDOM = ("concede", "propose_draw", "accept_draw")


def decks() -> dict:
    catalog = CardCatalog(bundled_pool())
    return {"A": load_deck(DECKS / "alice.yaml", catalog), "B": load_deck(DECKS / "bob.yaml", catalog)}


def dumped(events: list[Event]) -> list[dict]:
    return [{"type": type(e).__name__, **e.model_dump(mode="json")} for e in events]


def write(tmp_path: Path, text: str, name: str = "r.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def new_match(store: MatchStore, seed: int, **kwargs) -> str:
    cards, castles = deal(decks())
    return store.create(start(cards, castles, seed=seed, names={"A": "Alice", "B": "Bob"}, **kwargs).events)


def play_to_the_end(store: MatchStore, match: str, rng: random.Random, limit: int = 100_000, hook=None) -> None:
    """Random legal actions through ``MatchStore.act`` until the game ends (or ``limit`` actions)."""
    for n in range(limit):
        state, _ = store.load(match)
        if state.result is not None:
            return
        action = rng.choice([a for a in legal_actions(state) if a.do not in NOT_RANDOM])
        store.act(match, action)
        if hook is not None:
            hook(n)


def assert_same_states(original: list[Event], imported: list[Event]):
    """The imported log folds, prefix by prefix, to the original's states."""
    assert len(imported) == len(original)
    a = b = initial_state()
    for i, (x, y) in enumerate(zip(original, imported), start=1):
        a, b = evolve(a, x), evolve(b, y)
        assert a == b, f"states differ after event {i}"
    return a


# --- reading -------------------------------------------------------------------------------

GOOD_HEAD = """\
format: harem-master-record/1
seed: 3
players:
  A: {name: Alice, deck: ../decks/alice.yaml}
  B: {name: Bob, deck: ../decks/bob.yaml}
"""


def record_file(tmp_path: Path, text: str) -> Path:
    """A record in a folder beside scenarios/decks' copies, so ../decks works."""
    folder = tmp_path / "records"
    folder.mkdir(exist_ok=True)
    (tmp_path / "decks").mkdir(exist_ok=True)
    for f in ("alice.yaml", "bob.yaml"):
        (tmp_path / "decks" / f).write_text((DECKS / f).read_text())
    return write(folder, text)


@pytest.mark.parametrize(
    "text, place, line, words",
    [
        (GOOD_HEAD.replace("record/1", "record/2"), "format", 1, "expected harem-master-record/1"),
        (GOOD_HEAD + "colour: red\n", "colour", 6, "unknown key 'colour'"),
        (GOOD_HEAD.replace("seed: 3", "seed: three"), "seed", 2, "expected a whole number"),
        (GOOD_HEAD.replace("seed: 3\n", ""), "", 1, "missing required key 'seed'"),
        (GOOD_HEAD + "mode: casual\n", "mode", 6, "expected one of strict, record"),
        (GOOD_HEAD + "rulings: {A1: maybe}\n", "rulings.A1", 6, "not_fallen, felled"),
        (GOOD_HEAD + "auto_pass: 1\n", "auto_pass", 6, "expected true or false"),
        (GOOD_HEAD + "pool: nowhere.yaml\n", "pool", 6, "no such card pool file"),
        (GOOD_HEAD.replace("../decks/bob.yaml", "../decks/carol.yaml"), "players.B.deck", 5, "no such deck file"),
        (
            GOOD_HEAD.replace("  B: {name: Bob, deck: ../decks/bob.yaml}\n", ""),
            "players",
            3,
            "missing required key 'B'",
        ),
        (GOOD_HEAD.replace("name: Bob,", "nick: Bob,"), "players.B.nick", 5, "unknown key"),
        (
            GOOD_HEAD.replace("../decks/bob.yaml", "[{card: Iron Knight, count: 3}, {random: 0, count: 47}]"),
            "players.B.deck",
            5,
            "100.2: a deck has exactly 51 cards",
        ),
        (
            GOOD_HEAD.replace("../decks/bob.yaml", "[Little Page, Iron Knigt]"),
            "players.B.deck[1]",
            5,
            "did you mean 'Iron Knight'",
        ),
        (
            GOOD_HEAD + "actions:\n  - {player: A, do: keep}\n  - {player: C, do: pass}\n",
            "actions[1].player",
            8,
            "expected one of A, B",
        ),
        (GOOD_HEAD + "actions:\n  - {player: A, do: fly}\n", "actions[0].do", 7, "unknown action 'fly'"),
        (
            GOOD_HEAD + "actions:\n  - {player: A, do: keep, expect: {turn: 1}}\n",
            "actions[0].expect",
            7,
            "expectations belong in a scenario",
        ),
        (
            GOOD_HEAD + "actions:\n  - {player: A, do: keep, reason: tired}\n",
            "actions[0].reason",
            7,
            "a player action has only",
        ),
        (
            GOOD_HEAD + "actions:\n  - {judge: true, do: rewind, to: {event: 3}, rule: '410.1'}\n",
            "actions[0]",
            7,
            "missing required key 'reason'",
        ),
    ],
)
def test_load_errors_name_the_file_the_place_and_the_line(tmp_path, text, place, line, words) -> None:
    path = record_file(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_record(path)
    err = info.value
    assert err.file == str(path)
    assert err.place == place
    assert err.line == line
    assert words in err.message


def test_an_error_inside_a_deck_file_names_the_deck_file(tmp_path) -> None:
    path = record_file(tmp_path, GOOD_HEAD)
    (tmp_path / "decks" / "bob.yaml").write_text("- {card: Iron Knight, count: 3}\n- {random: 0, count: 47}\n")
    with pytest.raises(InputError) as info:
        load_record(path)
    assert Path(info.value.file).resolve() == (tmp_path / "decks" / "bob.yaml").resolve()
    assert "100.2" in info.value.message


def test_a_json_record_with_inline_cards_and_decks_is_read(tmp_path) -> None:
    deck = [{"card": "Test Hero", "count": 3}, {"random": 1, "count": 48}]
    doc = {
        "format": FORMAT,
        "seed": 5,
        "mode": "record",
        "rulings": {"A1": "felled", "A4": "top"},
        "auto_pass": False,
        "cards": [{"name": "Test Hero", "type": "character", "cost": 1, "gender": "female", "physical": 9}],
        "players": {"A": {"deck": deck}, "B": {"name": "Bea", "deck": deck}},
        "actions": [],
    }
    record = load_record(write(tmp_path, json.dumps(doc, indent=1), "r.json"))
    assert (record.seed, record.mode, record.auto_pass) == (5, "record", False)
    assert record.rulings == {"A1": "felled", "A4": "top"}
    assert record.names == {"A": "A", "B": "Bea"}
    assert record.decks["A"][0].physical == 9 and len(record.decks["B"]) == 51
    played = replay(record)
    assert played.legal and played.applied == 0
    first = played.events[0]
    assert first.mode == "record" and first.auto_pass is False and first.rulings == {"A1": "felled", "A4": "top"}


# --- the samples ------------------------------------------------------------------------------


def test_the_complete_sample_is_legal_to_its_result() -> None:
    record = load_record(COMPLETE)
    played = replay(record)
    assert played.violation is None
    assert played.applied == len(record.actions) == 104
    assert played.result is not None
    assert played.result["winner"] == "A" and played.result["rule"] == "102.1"
    assert record.names == {"A": "Alice", "B": "Bob"}


def test_the_illegal_sample_is_refused_at_its_second_character_306_1a() -> None:
    record = load_record(ILLEGAL)
    played = replay(record)
    assert played.violation is not None
    assert played.violation["action"] == 35
    assert played.violation["rule"] == "306.1a"
    assert "Bold Squire" in played.violation["message"]
    assert played.applied == 34
    assert played.result is None
    assert record.actions[34] == {"player": "A", "do": "play_character", "card": "Bold Squire"}
    assert record.line_of_action(35) == 65


def test_in_record_mode_a_judge_rewind_to_the_illegal_action_makes_the_record_legal(tmp_path) -> None:
    """The illegal sample played at a table in record mode: the second character
    is recorded as a violation, a judge rewinds to just before it (410.1, the
    ``{action: K}`` target), and the game goes on to its result."""
    data = yaml.safe_load(ILLEGAL.read_text())
    data["mode"] = "record"
    for p in ("A", "B"):
        data["players"][p]["deck"] = str(SAMPLES / data["players"][p]["deck"])
    data["actions"].insert(
        35,
        {
            "judge": True,
            "do": "rewind",
            "to": {"action": 35},
            "rule": "410.1",
            "reason": "a second character",
            "by": "Jo",
        },
    )
    record = load_record(write(tmp_path, dump_record(data)))
    played = replay(record)
    assert played.violation is None, played.violation
    assert played.result is not None and played.result["winner"] == "A" and played.result["rule"] == "103.2"
    assert [type(e).__name__ for e in played.events if isinstance(e, (ViolationRecorded, Rewound))] == [
        "ViolationRecorded",
        "Rewound",
    ]
    assert played.state.violations == ()
    # The export writes the rewind with its event target and the judge, and the
    # illegal action (retracted, but in the log) too; it replays to the same log.
    exported = export_record(played.events)
    judge = [a for a in exported["actions"] if a.get("judge")]
    rewound = next(e for e in played.events if isinstance(e, Rewound))
    assert judge == [
        {
            "judge": True,
            "do": "rewind",
            "to": {"event": rewound.to},
            "rule": "410.1",
            "reason": "a second character",
            "by": "Jo",
        }
    ]
    assert len(exported["actions"]) == len(record.actions)
    assert dumped(replay(record_from_dict(exported)).events) == dumped(played.events)


# --- exporting --------------------------------------------------------------------------------


def test_export_dumps_a_self_contained_record_in_the_formats_order(tmp_path) -> None:
    played = replay(load_record(COMPLETE))
    record = export_record(played.events)
    assert list(record) == ["format", "seed", "mode", "rulings", "auto_pass", "cards", "players", "actions"]
    assert record["players"]["A"]["name"] == "Alice"
    assert record["players"]["A"]["deck"][0] == {"card": "Bold Squire", "count": 3}
    names = [c["name"] for c in record["cards"]]
    assert len(names) == len(set(names)) and "Iron Knight" in names
    text = dump_record(record, "a comment\nof two lines")
    assert text.startswith("# a comment\n# of two lines\nformat: harem-master-record/1\n")
    lines = text.splitlines()
    start_ = lines.index("actions:")
    assert len(lines) - start_ - 1 == len(record["actions"])  # one action per line
    assert lines[start_ + 1].startswith("  - {player: A, do: choose_opening, card: ")
    # Self-contained: it replays from a folder without decks or pools.
    path = write(tmp_path, text)
    again = replay(load_record(path))
    assert dumped(again.events) == dumped(played.events)
    assert yaml.safe_load(text) == record


def test_export_by_name_names_cards_only_where_that_means_the_same_card() -> None:
    played = replay(load_record(COMPLETE))
    by_id = export_record(played.events)
    by_name = export_record(played.events, by_name=True)
    assert all(":" in a["card"] for a in by_id["actions"] if "card" in a)
    named = [a for a in by_name["actions"] if "card" in a and ":" not in a["card"]]
    assert len(named) > len(by_name["actions"]) // 2
    assert dumped(replay(record_from_dict(by_name)).events) == dumped(played.events)


def test_a_scenario_position_cannot_be_exported() -> None:
    from referee.scenario import load_scenario

    sc = load_scenario(ROOT / "scenarios" / "410-corrections" / "410.1-second-character-recorded-then-rewound.yaml")
    with pytest.raises(ExportError, match="set-up position"):
        export_record(sc.events)


# --- the round trip through the store ---------------------------------------------------------


def test_a_stored_match_exported_imported_and_audited_is_the_same_game(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=11)
        play_to_the_end(store, match, random.Random(11))
        original = store.events(match)
        final, _ = store.load(match)
    assert final.result is not None
    record = export_one(match, url)[0]  # signed by the store, as `referee export` writes it
    path = write(tmp_path, dump_record(record), "exported.yaml")

    runner = CliRunner()
    result = runner.invoke(cli, ["import", str(path), "--db", url, "--json", "--name", "again"])
    assert result.exit_code == 0, result.output
    imported_id = json.loads(result.output)["match"]
    with MatchStore(url) as store:
        imported = store.events(imported_id)
        state, version = store.load(imported_id)
        assert store.state_at(imported_id, version // 2) == store.state_at(match, version // 2)
    last = assert_same_states(original, imported)
    assert last == final == state
    assert dumped(imported) == dumped(original)

    result = runner.invoke(cli, ["audit", str(path), "--json", "--db", url])
    assert result.exit_code == 0, result.output
    audit = json.loads(result.output)
    assert audit.pop("chain")["status"] == "intact"
    signature = audit.pop("signature")
    assert signature["status"] == "verified" and signature["trusted"] == "this store"
    r = final.result
    assert audit == {
        "legal": True,
        "actions": len(record["actions"]),
        "violation": None,
        "result": {
            "winner": r.winner,
            "draw": r.draw,
            "rule": r.rule,
            "ruling": r.ruling,
            "scores": r.scores,
            "reason": r.reason,
        },
    }
    assert len(record["actions"]) == sum(isinstance(e, ActionTaken) for e in original)


def _rewound_match(tmp_path: Path, *, replay_: bool) -> tuple[str, str, list[Event]]:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=21)
        rng = random.Random(21)
        play_to_the_end(store, match, rng, limit=40)
        log = store.events(match)
        # Back to just before the 30th action: 410.1, with or without replaying what followed.
        to = next(i for i, _ in enumerate(log) if sum(isinstance(e, ActionTaken) for e in log[: i + 1]) == 30)
        store.update(
            match,
            lambda s: corrections.rewind(
                s, store.events(match), to, rule="410.1", reason="test", judge="Jo", replay=replay_
            ),
        )
        play_to_the_end(store, match, rng, limit=30)
        store.update(match, lambda s: corrections.note(s, "table 4 checked", "Jo"))
        play_to_the_end(store, match, rng)
        return url, match, store.events(match)


@pytest.mark.parametrize("replay_", [False, True])
def test_an_export_with_a_410_rewind_reimports_to_the_same_events(tmp_path, replay_) -> None:
    url, match, original = _rewound_match(tmp_path, replay_=replay_)
    record = export_one(match, url)[0]
    rewinds = [a for a in record["actions"] if a.get("do") == "rewind"]
    rewound = next(e for e in original if isinstance(e, Rewound))
    expected = {"judge": True, "do": "rewind", "to": {"event": rewound.to}, "rule": "410.1", "reason": "test"}
    if replay_:
        expected["replay"] = True
    expected["by"] = "Jo"
    assert rewinds == [expected]
    assert {"judge": True, "do": "note", "text": "table 4 checked", "by": "Jo"} in record["actions"]
    taken = sum(isinstance(e, ActionTaken) for e in original)
    players = sum(1 for a in record["actions"] if "player" in a)
    if replay_:
        # The actions the replay applied again follow the rewind in the log
        # and are not written twice.
        assert players < taken
    else:
        assert players == taken
    path = write(tmp_path, dump_record(record), "rewound.yaml")
    result = CliRunner().invoke(cli, ["import", str(path), "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    with MatchStore(url) as store:
        imported = store.events(json.loads(result.output)["match"])
    assert dumped(imported) == dumped(original)
    assert_same_states(original, imported)


def test_record_mode_violations_accepts_and_skipped_steps_round_trip(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=8, mode="record")
        rng = random.Random(8)
        done = {"violation": False, "skip": False}

        def judge(n: int) -> None:
            state, _ = store.load(match)
            if state.result is not None:
                return
            if not done["skip"] and state.turn >= 3:
                try:
                    store.update(match, lambda s: corrections.skip_step(s, store.events(match), "303", "forgot"))
                    done["skip"] = True
                except IllegalAction:
                    pass
                state, _ = store.load(match)
            if not done["violation"] and state.characters_played >= 1:
                p = state.active
                extra = next((c for c in state.zones[p].hand if state.cards[c].type == "character"), None)
                if extra is not None:
                    try:
                        store.act(match, Action(p, "play_character", card=extra))
                    except IllegalAction:
                        return
                    store.update(match, lambda s: corrections.accept(s, "too late to rewind", "Jo"))
                    done["violation"] = True

        play_to_the_end(store, match, rng, hook=judge)
        original = store.events(match)
    assert done == {"violation": True, "skip": True}
    assert any(isinstance(e, StepSkipped) for e in original)
    record = export_record(original)
    kinds = [a["do"] for a in record["actions"] if a.get("judge")]
    assert "skip_step" in kinds and "accept" in kinds
    assert {"judge": True, "do": "skip_step", "rule": "303", "reason": "forgot"} in record["actions"]
    again = replay(record_from_dict(record))
    assert again.violation is None  # record mode refuses nothing the table could do
    # ...but the audit still reports what was broken, and that a judge accepted the 306.1a.
    rules = {v["rule"]: v for v in again.recorded}
    assert {"303", "306.1a"} <= set(rules) and rules["306.1a"]["accepted"]
    # Every violation was ruled on by a judge (accepted): the record is legal, its violations listed.
    assert all(r["accepted"] for r in again.recorded) and again.legal and again.first_violation is None
    assert dumped(again.events) == dumped(original)


# --- the command line -------------------------------------------------------------------------


def test_audit_cli_exit_codes_and_json(tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["audit", str(COMPLETE)])
    assert result.exit_code == 0, result.output
    assert "legal, 104 actions" in result.output and "A wins (102.1)" in result.output

    result = runner.invoke(cli, ["audit", str(ILLEGAL), "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert set(doc) == {"legal", "actions", "violation", "result"}
    assert doc["legal"] is False and doc["actions"] == 34 and doc["result"] is None
    assert doc["violation"]["action"] == 35 and doc["violation"]["rule"] == "306.1a"
    assert set(doc["violation"]) == {"action", "rule", "message"}

    result = runner.invoke(cli, ["audit", str(ILLEGAL)])
    assert result.exit_code == 1
    assert "action 35 (A play_character Bold Squire, line 65) is refused (306.1a)" in result.output

    bad = write(tmp_path, GOOD_HEAD.replace("seed: 3", "seed: x"))
    result = runner.invoke(cli, ["audit", str(bad), "--json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {bad}:2: at seed: expected a whole number")
    assert len(result.stderr.strip().splitlines()) == 1

    result = runner.invoke(cli, ["audit", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_import_cli_stores_nothing_for_an_illegal_record_and_one_match_for_a_legal_one(tmp_path) -> None:
    runner = CliRunner()
    db = tmp_path / "referee.db"
    url = f"sqlite:///{db}"
    result = runner.invoke(cli, ["import", str(ILLEGAL), "--db", url])
    assert result.exit_code == 1
    assert "action 35" in result.stderr and "306.1a" in result.stderr and "Nothing was stored" in result.stderr
    assert not db.exists()
    result = runner.invoke(cli, ["import", str(ILLEGAL), "--db", url, "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {"match": None, "violation": replay(load_record(ILLEGAL)).violation}

    # The sample is written by hand (scenario-format.md, section 4): no chain, no
    # head, no signature. It is stored, as the format promises, with a warning
    # and a note in its log that nothing shows it is the match it records.
    result = runner.invoke(cli, ["import", str(COMPLETE), "--db", url, "--name", "Demo"])
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "carries no hash chain, head or signature" in result.stderr
    match = result.stdout.strip()
    with MatchStore(url) as store:
        assert [(m.id, m.name) for m in store.list_matches()] == [(match, "Demo")]
        assert store.load(match)[0].result.rule == "102.1"
        note = store.events(match)[-1]
        assert note.judge is None and "nothing shows it equals the match it records" in note.text

    bad = write(tmp_path, GOOD_HEAD.replace("seed: 3", "seed: [3]"))
    result = runner.invoke(cli, ["import", str(bad), "--db", url])
    assert result.exit_code == 2 and "at seed: expected a whole number" in result.stderr
    result = runner.invoke(cli, ["import", str(COMPLETE), "--db", "mysql://x"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown database URL") and len(result.stderr.strip().splitlines()) == 1


def test_export_cli_writes_a_record_that_imports_to_the_same_match(tmp_path, monkeypatch) -> None:
    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = store.create(replay(load_record(COMPLETE)).events)
    result = runner.invoke(cli, ["export", match, "--db", url])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"# Match {match}: Alice (A) vs Bob (B)")
    assert yaml.safe_load(result.stdout)["format"] == FORMAT

    out = tmp_path / "out.yaml"
    monkeypatch.setenv("REFEREE_DB", url)  # --db defaults to $REFEREE_DB
    result = runner.invoke(cli, ["export", match, "-o", str(out), "--names"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    result = runner.invoke(cli, ["import", str(out), "--json"])
    assert result.exit_code == 0, result.output
    with MatchStore(url) as store:
        again = json.loads(result.stdout)["match"]
        assert dumped(store.events(again)) == dumped(store.events(match))

    result = runner.invoke(cli, ["export", "m-nothere", "--db", url])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no match 'm-nothere'") and len(result.stderr.strip().splitlines()) == 1


def test_export_cli_refuses_a_scenario_position_in_one_line(tmp_path) -> None:
    from referee.scenario import load_scenario

    url = f"sqlite:///{tmp_path / 'referee.db'}"
    sc = load_scenario(ROOT / "scenarios" / "410-corrections" / "410.1-second-character-recorded-then-rewound.yaml")
    with MatchStore(url) as store:
        match = store.create(sc.events)
    result = CliRunner().invoke(cli, ["export", match, "--db", url])
    assert result.exit_code == 2
    assert "cannot be exported" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_scenario_runner_skips_the_records_folder() -> None:
    from referee.scenario import scenario_files

    files = scenario_files([str(ROOT / "scenarios")])
    assert files and not any("records" in f.parts for f in files)


def test_auditing_several_records_at_once() -> None:
    """`audit` of many files: one report each, not legal if any is not."""
    runner = CliRunner()
    files = [str(SAMPLES / "complete-legal-game.yaml"), str(SAMPLES / "illegal-action-midgame.yaml")]
    result = runner.invoke(cli, ["audit", *files, "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["legal"] is False
    assert [(r["record"], r["legal"]) for r in doc["records"]] == [(files[0], True), (files[1], False)]
    assert doc["records"][1]["violation"]["rule"] == "306.1a"


def test_a_late_interception_exports_as_the_players_action_and_replays() -> None:
    """306.5c: the referee's own retraction before a late interception is no
    judge's rewind: the record holds only B's interception, whose replay takes
    the same steps back, so the record replays to the very same log."""
    from referee.rules.harem_master import apply
    from referee.simulate import decks_for, vanilla

    cards, castles = deal(decks_for(1, vanilla(bundled_pool()), None))
    applied = start(cards, castles, seed=1, mode="record")
    state, log = applied.state, list(applied.events)
    rng = random.Random(1)
    while True:  # random play up to an attack on a player whose characters are all tapped
        assert state.result is None
        legal = legal_actions(state)
        nap = "B" if state.active == "A" else "A"
        theirs = [ch for ch in state.field if ch.controller == nap]
        attacks = [a for a in legal if a.do == "attack"]
        if attacks and theirs and not any(ch.ready for ch in theirs):
            break
        action = rng.choice([a for a in legal if a.do not in ("concede", "propose_draw", "accept_draw")])
        applied = apply(state, action)
        state, log = applied.state, log + applied.events
    applied = apply(state, attacks[0])
    state, log = applied.state, log + applied.events
    applied = apply(state, Action(nap, "intercept", card=theirs[0].card))
    log += applied.events
    assert type(applied.events[0]).__name__ == "Rewound" and applied.events[0].rule == "306.5c"
    record = export_record(log)
    assert not [a for a in record["actions"] if a.get("do") == "rewind"]
    assert record["actions"][-1] == {"player": nap, "do": "intercept", "card": theirs[0].card}
    assert replay(record_from_dict(record)).events == log
