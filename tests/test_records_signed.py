"""Records that prove themselves: every store signs its matches' heads and its exports with
its own Ed25519 key, and `import` takes only a record whose chain, head and signature
all fit. Every edit a forger can make to an exported record is refused, however legal
the edited game is, and whoever re-chains it with the project's own functions still
lacks the key. Database tests use SQLite files in tmp_path."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_records import new_match, play_to_the_end

from events.kernel import ActionTaken, NoteAdded
from referee import corrections
from referee.actions import IllegalAction
from referee.chain import chain_of, key_fingerprint
from referee.cli import cli
from referee.commands.records import export_one
from referee.records import dump_record, record_from_dict, replay
from referee.rules.harem_master.actions import Action
from referee.store import MatchStore


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, dict]:
    """A whole game stored and exported: (store URL, match id, the exported record)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('signed') / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=11)
        play_to_the_end(store, match, random.Random(11))
    record, _ = export_one(match, url)
    return url, match, record


def _imports(url: str, tmp_path: Path, record: dict, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "edited.yaml"
    path.write_text(dump_record(record))
    return invoke("import", str(path), "--db", url, *extra)


def _matches(url: str) -> int:
    with MatchStore(url, read_only=True) as store:
        return len(store.list_matches())


def _rechained(record: dict) -> dict:
    """The record chained again over its (edited) replay with the project's own
    functions, as a forger can: only the signature cannot be made again."""
    played = replay(record_from_dict({k: v for k, v in record.items() if k not in ("chain", "head")}))
    hashes = chain_of(played.events)
    return {**record, "chain": [hashes[end - 1][:16] for end in played.ends], "head": hashes[-1]}


def test_the_untouched_export_imports_and_names_its_signer(game, tmp_path: Path) -> None:
    url, match, record = game
    code, out, err = _imports(url, tmp_path, record, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["chain"]["status"] == "intact" and doc["chain"]["signature"]["trusted"] == "this store"
    code, out, _ = invoke("key", "--db", url, "--json")
    key = json.loads(out)
    assert code == 0 and key["key"] == record["signature"]["key"]
    assert doc["chain"]["signature"]["fingerprint"] == key["fingerprint"]
    code, out, _ = invoke("audit", match, "--db", url)
    assert code == 0 and f"signed by key {key['fingerprint']} (this store's key)" in out


def _cut(record: dict) -> dict:
    return {**record, "actions": record["actions"][:-10]}


def _swapped(record: dict) -> dict:
    """One action replaced by another the rules allow at that point."""
    actions = list(record["actions"])
    k = next(i for i, a in enumerate(actions) if a.get("do") == "keep")
    actions[k] = {**actions[k], "do": "mulligan"}
    return {**record, "actions": actions}


def _conceded(record: dict) -> dict:
    """The game's end replaced by a concession of the winner: A's win becomes B's."""
    actions = list(record["actions"])
    played = replay(record_from_dict({k: v for k, v in record.items() if k not in ("chain", "head", "signature")}))
    winner = played.result["winner"] if played.result else "A"
    # Drop actions from the end until the game is not over, then concede for the winner.
    while actions:
        actions.pop()
        trial = replay(record_from_dict({**record, "actions": actions, "chain": None, "head": None}))
        if trial.result is None and trial.violation is None:
            break
    return {**record, "actions": [*actions, {"player": winner or "A", "do": "concede"}]}


EDITS = {
    "cut, head removed": lambda r: {k: v for k, v in _cut(r).items() if k != "head"},
    "cut, head kept": _cut,
    "conceded, chain and head removed": lambda r: {k: v for k, v in _conceded(r).items() if k not in ("chain", "head")},
    "conceded": _conceded,
    "swapped": _swapped,
    "swapped and re-chained": lambda r: _rechained(_swapped(r)),
    "cut and re-chained": lambda r: _rechained(_cut(r)),
    "conceded and re-chained": lambda r: _rechained(_conceded(r)),
    "chain removed": lambda r: {k: v for k, v in r.items() if k != "chain"},
    "head removed": lambda r: {k: v for k, v in r.items() if k != "head"},
    "signature removed": lambda r: {k: v for k, v in r.items() if k != "signature"},
    "all proof removed": lambda r: {k: v for k, v in r.items() if k not in ("chain", "head", "signature")},
    "chain shortened": lambda r: {**r, "chain": r["chain"][:-3]},
    "entries changed": lambda r: {
        **r,
        "entries": [{**e, "by": "judge Mallory"} for e in r.get("entries", [{"action": 1}])],
    },
    "signature of another record": lambda r: {**r, "signature": {**r["signature"], "value": _other_sig(r)}},
}


def _other_sig(record: dict) -> str:
    value = record["signature"]["value"]
    return value[:10] + ("A" if value[10] != "A" else "B") + value[11:]


@pytest.mark.parametrize("edit", list(EDITS))
def test_every_edit_of_an_exported_record_is_refused(game, tmp_path: Path, edit: str) -> None:
    url, _, record = game
    edited = EDITS[edit](dict(record))
    assert edited != record
    before = _matches(url)
    code, out, err = _imports(url, tmp_path, edited)
    assert code == 1, (edit, out, err)
    assert "Nothing was stored" in err and len(err.strip().splitlines()) == 2, err
    assert _matches(url) == before
    code, out, _ = _imports(url, tmp_path, edited, "--json")
    assert code == 1 and json.loads(out)["match"] is None


def test_a_re_chained_record_fails_its_audit_by_its_signature(game, tmp_path: Path) -> None:
    url, _, record = game
    path = tmp_path / "forged.yaml"
    path.write_text(dump_record(_rechained(_swapped(record))))
    code, out, _ = invoke("audit", str(path), "--db", url, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["chain"]["status"] == "intact" and doc["signature"]["status"] == "bad"
    code, out, _ = invoke("audit", str(path), "--db", url)
    assert code == 1 and "SIGNATURE DOES NOT VERIFY" in out


def test_another_stores_record_is_stored_saying_who_signed_it_unless_its_key_is_trusted(game, tmp_path: Path) -> None:
    url, _, record = game
    other = f"sqlite:///{tmp_path / 'other.db'}"
    code, out, err = _imports(other, tmp_path, record)
    fingerprint = key_fingerprint(__import__("base64").b64decode(record["signature"]["key"][8:]))
    # Out of one store and into another works (cli.md: "match record out and in"), and says what vouches for it.
    assert code == 0 and f"signed by key {fingerprint}" in err and "--trust" in err
    with MatchStore(other, read_only=True) as store:
        note = store.events(out.strip())[-1]
    assert isinstance(note, NoteAdded) and f"signed by key {fingerprint}" in note.text
    code, out, err = _imports(other, tmp_path, record, "--trust", "0000 0000 0000 0000", "--json")
    assert code == 0 and json.loads(out)["chain"]["status"] == "untrusted"
    code, out, err = _imports(other, tmp_path, record, "--trust", fingerprint, "--json")
    assert code == 0, err
    assert json.loads(out)["chain"]["signature"]["trusted"] == "--trust"
    code, out, err = _imports(other, tmp_path, record, "--trust", record["signature"]["key"])
    assert code == 0, err
    code, _, err = _imports(other, tmp_path, record, "--trust", "not-a-key")
    assert code == 2 and "--trust" in err


def test_a_judge_brings_in_an_unproven_record_and_the_log_says_what_failed(game, tmp_path: Path) -> None:
    url, _, record = game
    edited = {k: v for k, v in _cut(record).items() if k not in ("chain", "head", "signature")}
    code, out, err = _imports(
        url, tmp_path, edited, "--accept-broken-chain", "--by", "Kim", "--reason", "typed from the slip", "--json"
    )
    assert code == 0, err
    with MatchStore(url, read_only=True) as store:
        note = store.events(json.loads(out)["match"])[-1]
    assert isinstance(note, NoteAdded) and note.judge == "Kim"
    assert "carries no hash chain or head" in note.text and "typed from the slip" in note.text


def test_a_stored_match_re_chained_without_the_key_fails_its_audit(tmp_path: Path) -> None:
    """Someone with the database file edits an event and chains every row
    after it again (the chain functions are public): the chain then fits,
    but the head's signature does not verify, and the audit says so."""
    from events.names import canonical
    from referee.chain import GENESIS, chain_hash, split_chained

    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=4)
        play_to_the_end(store, match, random.Random(4), limit=30)
    code, out, _ = invoke("audit", match, "--db", url)
    assert code == 0 and "(this store's key)" in out
    db = sqlite3.connect(tmp_path / "referee.db")
    rows = db.execute(
        "SELECT originator_version, topic, state FROM stored_events WHERE originator_id = ? ORDER BY 1", (match,)
    ).fetchall()
    edit = next(v for v, topic, state in rows if v > 10 and b'"player":"A"' in state and "ActionTaken" in topic)
    prev = GENESIS
    for version, topic, state in rows:
        body, _ = split_chained(bytes(state))
        if version == edit:
            body = body.replace(b'"player":"A"', b'"player":"B"', 1)
        envelope = bytes(state)[bytes(state).rfind(b'"_timestamp"') :]  # the old envelope, old signature and all
        prev = chain_hash(prev, canonical(topic), body)
        new = body[:-1] + b',"_hash":"' + prev.encode() + b'",' + envelope
        db.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (new, match, version),
        )
    db.execute("DELETE FROM stored_snapshots")
    db.commit()
    db.close()
    code, out, _ = invoke("audit", match, "--db", url, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["chain"]["status"] == "intact" and doc["signature"]["status"] == "bad", doc


def test_a_row_edited_as_text_is_found_by_the_audit_not_a_traceback(tmp_path: Path) -> None:
    """SQLite's replace() on a stored row turns its blob into text, as an edit
    with the sqlite3 shell does: the audit names the event whose hash no
    longer fits (exit 1), and every command still reads the match."""
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=4)
        play_to_the_end(store, match, random.Random(4), limit=10)
    db = sqlite3.connect(tmp_path / "referee.db")
    version = db.execute(
        "SELECT min(originator_version) FROM stored_events WHERE originator_id = ? AND instr(state, '\"A:') > 0",
        (match,),
    ).fetchone()[0]
    db.execute(
        "UPDATE stored_events SET state = replace(state, '\"A:', '\"B:') WHERE originator_id = ? AND originator_version = ?",
        (match, version),
    )
    db.commit()
    assert db.execute(
        "SELECT typeof(state) FROM stored_events WHERE originator_id = ? AND originator_version = ?", (match, version)
    ).fetchone() == ("text",)
    db.close()
    code, out, err = invoke("audit", match, "--db", url)
    assert code == 1 and f"chain broken at event {version}:" in out and "Traceback" not in err, (out, err)
    for command in ("state", "log", "legal"):
        code, out, err = invoke(command, match, "--db", url)
        assert "Traceback" not in err and code in (0, 2), (command, code, err)


def test_a_match_whose_violations_were_all_accepted_audits_as_legal(tmp_path: Path) -> None:
    """Issue 27: an accepted violation is ruled on. The audit lists it and says
    legal (exit 0); an open one still makes the match NOT legal (exit 1)."""
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url) as store:
        match = new_match(store, seed=8, mode="record")
        rng = random.Random(8)
        played = {"done": False}

        def hook(n: int) -> None:
            state, _ = store.load(match)
            if played["done"] or state.result is not None or state.characters_played < 1:
                return
            p = state.active
            extra = next((c for c in state.zones[p].hand if state.cards[c].type == "character"), None)
            if extra is None:
                return
            try:
                store.act(match, Action(p, "play_character", card=extra))
            except IllegalAction:
                return
            played["done"] = True

        play_to_the_end(store, match, rng, limit=40, hook=hook)
        assert played["done"]
    code, out, _ = invoke("audit", match, "--db", url, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["legal"] is False and doc["violation"]["rule"] == "306.1a"
    code, out, _ = invoke("audit", match, "--db", url)
    assert code == 1 and "NOT legal" in out and "still open" in out
    with MatchStore(url) as store:
        store.update(match, lambda s: corrections.accept(s, "too late to rewind", "Jo"))
    code, out, _ = invoke("audit", match, "--db", url, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["legal"] is True and doc["violation"] is None
    assert [v["rule"] for v in doc["accepted_violations"]] == ["306.1a"]
    assert doc["recorded_violations"][0]["accepted"] is True
    code, out, _ = invoke("audit", match, "--db", url)
    assert code == 0 and "legal," in out and "NOT legal" not in out
    assert re.search(r"action \d+: 306\.1a, accepted by a judge", out), out


def test_the_export_says_who_entered_each_action_and_import_keeps_it(tmp_path: Path) -> None:
    """Issue 27: each action's `by` (as the board stored it in the event's
    envelope) and the station that wrote it travel with the record."""
    from referee.rules.harem_master import legal_actions

    url = f"sqlite:///{tmp_path / 'referee.db'}"
    with MatchStore(url, station="table-4-laptop") as store:
        match = new_match(store, seed=3)
        for who in ("scorekeeper Kim of m-x", "judge Jo", None):
            state, _ = store.load(match)
            action = next(a for a in legal_actions(state) if a.do not in ("concede", "propose_draw"))
            store.act(match, action, by=who)
    record, _ = export_one(match, url)
    assert record["entries"][0] == {"action": 0, "station": "table-4-laptop"}
    assert record["entries"][1:] == [
        {"action": 1, "by": "scorekeeper Kim of m-x", "station": "table-4-laptop"},
        {"action": 2, "by": "judge Jo", "station": "table-4-laptop"},
        {"action": 3, "station": "table-4-laptop"},
    ]
    text = dump_record(record)
    assert "by: scorekeeper Kim of m-x" in text and yaml.safe_load(text)["entries"] == record["entries"]
    code, out, err = _imports(url, tmp_path, record, "--json")
    assert code == 0, err
    again = json.loads(out)["match"]
    with MatchStore(url, read_only=True) as store:
        kept = store.records(again)
        original = store.records(match)
    assert [(r.by, r.station) for r in kept] == [(r.by, r.station) for r in original]
    assert [r.hash for r in kept] == [r.hash for r in original]  # the chain covers the events, not who
    first_action = next(r for r in kept if isinstance(r.event, ActionTaken))
    assert first_action.by == "scorekeeper Kim of m-x"


def test_stations_making_the_signing_key_at_once_all_get_the_same_one(database) -> None:
    """Eight stations of a new store sign at the same moment: one makes the
    key table and the key, the others wait and use them (PostgreSQL's
    CREATE TABLE IF NOT EXISTS alone fails on a race: CI once saw it)."""
    import threading

    database.open().close()  # the store's own tables exist; its side tables do not yet
    stores = [database.open() for _ in range(8)]
    start = threading.Barrier(len(stores))
    keys: list[str] = []
    errors: list[BaseException] = []

    def sign(store) -> None:
        start.wait()
        try:
            signer = store.side.signer()
            assert signer is not None
            keys.append(signer.fingerprint)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=sign, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and len(keys) == 8 and len(set(keys)) == 1
