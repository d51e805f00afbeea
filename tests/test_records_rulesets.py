"""Match records go through the ruleset a record's format names: its
``start`` replays the header and its ``action_from_mapping``, ``resolve`` and
``apply`` play the actions; SCP-TCG's chapter 4, whose matches start from a
position, has a format that writes the position, then the instructions
(docs/rulesets.md, ``referee/records.py``)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from projections.harem_master.views import result_json
from referee import ruleset as registry
from referee.cli import cli
from referee.inputs import InputError
from referee.records import dump_record, export_record, load_record, record_from_dict, replay
from referee.rules.harem_master.game import HAREM_MASTER
from referee.ruleset import Ruleset
from referee.scenario import load_scenario, scenario_files
from referee.store import MatchStore
from tests.test_store_rulesets import scp_match

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "scenarios" / "records" / "complete-legal-game.yaml"


class Variant(Ruleset[Any, Any]):
    """Harem Master under another id and record format, counting what the
    records module asks of it."""

    calls: dict[str, int]

    def start(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["start"] = self.calls.get("start", 0) + 1
        return super().start(*args, **kwargs)

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        self.calls["apply"] = self.calls.get("apply", 0) + 1
        return super().apply(*args, **kwargs)


def _counted(calls: dict[str, int], name: str, member: Any) -> Any:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] = calls.get(name, 0) + 1
        return member(*args, **kwargs)

    return counted


@pytest.fixture
def variant(monkeypatch: pytest.MonkeyPatch) -> Variant:
    calls: dict[str, int] = {}
    given = {f.name: getattr(HAREM_MASTER, f.name) for f in fields(Ruleset) if f.init}
    given["id"] = "hm-variant"
    given["records"] = SimpleNamespace(
        **{
            k: getattr(HAREM_MASTER.records, k)
            for k in ("keys", "action_args", "setup_of", "read_header", "record_decks")
        },
        format="hm-variant-record/1",
    )
    for name in ("action_from_mapping", "resolve"):
        given[name] = _counted(calls, name, given[name])
    game = Variant(**given)
    object.__setattr__(game, "calls", calls)
    monkeypatch.setitem(registry._REGISTERED, game.id, "tests.test_records_rulesets:unused")
    monkeypatch.setitem(registry._loaded, game.id, game)
    return game


def test_a_records_format_picks_the_ruleset_that_replays_it(variant: Variant) -> None:
    text = RECORD.read_text(encoding="utf-8")
    assert "format: harem-master-record/1" in text
    own = load_record(RECORD)
    assert own.game == "harem-master" and own.ruleset is HAREM_MASTER
    data = yaml.safe_load(text)
    data["format"] = variant.records.format
    record = record_from_dict(data, RECORD)  # its deck files where the record's are
    assert record.game == variant.id and record.ruleset is variant
    played = replay(record)
    assert played.violation is None and played.applied == len(record.actions) > 0
    assert variant.calls["start"] == 1
    for name in ("action_from_mapping", "resolve", "apply"):
        assert variant.calls[name] == sum(1 for a in record.actions if a.get("judge") is not True), name
    assert played.events == replay(own).events
    assert played.result is not None and played.result == replay(own).result


def test_an_unknown_format_names_every_format_known(variant: Variant) -> None:
    data = yaml.safe_load(RECORD.read_text(encoding="utf-8"))
    data["format"] = "scp-tcg-record/1"
    with pytest.raises(InputError) as caught:
        record_from_dict(data, RECORD)
    registered = [registry.get(game).records for game in registry.games()]
    known = [r.format for r in registered if r is not None]  # the variant is registered too
    assert variant.records.format in known
    assert f"expected {' or '.join(known)}, got 'scp-tcg-record/1'" in caught.value.describe()
    assert known[:2] == ["harem-master-record/1", "scp-tcg-s4-record/1"]


def _stored_scp(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first, actions = scp_match(4)
    with MatchStore(url) as store:
        match = store.create(first, name="Zones")
        for action in actions:
            store.act(match, action)
    return url, match


def test_an_scp_tcg_match_exports_audits_and_imports_as_its_own_record(tmp_path: Path) -> None:
    """``scp-tcg-s4-record/1``: the position document (``cards:``, ``setup:``),
    then the instructions; the record replays to the stored log, event for event."""
    url, match = _stored_scp(tmp_path)
    out = tmp_path / "zones.yaml"
    runner = CliRunner()
    judged = (
        ["note", match, "A moved the wrong card", "--by", "Jo"],
        ["rewind", match, "--to", "4", "--rule", "4", "--reason", "wrong card", "--by", "Jo"],  # 4: chapter 4
    )
    for args in judged:
        done = runner.invoke(cli, [*args, "--db", url])
        assert done.exit_code == 0, done.output
    exported = runner.invoke(cli, ["export", match, "-o", str(out), "--db", url])
    assert exported.exit_code == 0, exported.output
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["format"] == "scp-tcg-s4-record/1" and set(data["setup"]) == {"players"}
    assert {c["name"] for c in data["cards"]} and all("deck" not in p for p in data["players"].values())
    with MatchStore(url, read_only=True) as store:
        events = store.events(match)
    record = load_record(out)
    assert record.game == "scp-tcg-s4" and len(record.actions) == 6
    assert [a["do"] for a in record.actions[4:]] == ["note", "rewind"] and record.actions[5]["rule"] == "4"
    assert replay(record).events == events
    for target in (match, str(out)):
        audited = runner.invoke(cli, ["audit", target, "--json", "--db", url])
        assert audited.exit_code == 0, audited.output
        report = json.loads(audited.output)
        assert report["legal"] is True and report["chain"]["status"] == "intact"
    imported = runner.invoke(cli, ["import", str(out), "--name", "Again", "--db", url])
    assert imported.exit_code == 0, imported.output
    with MatchStore(url, read_only=True) as store:
        again = store.events(imported.output.strip())
    assert [e.model_dump(mode="json") for e in again] == [e.model_dump(mode="json") for e in events]


def test_import_keeps_the_records_title_and_takes_an_id(tmp_path: Path) -> None:
    """`export` writes the match's title (signed with the rest), `import`
    gives it back to the match it stores, under the id `--id` chooses; an id
    already taken is bad input and stores nothing; `--title` names it anew."""
    url, match = _stored_scp(tmp_path)
    out = tmp_path / "zones.yaml"
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        done = runner.invoke(cli, [*args, "--db", url])
        assert done.exit_code == code, done.output
        return done.output

    run("export", match, "-o", str(out))
    text = out.read_text(encoding="utf-8")
    assert yaml.safe_load(text)["title"] == "Zones" and text.splitlines()[3] == "title: Zones"
    assert run("import", str(out), "--id", "again").strip() == "again"
    taken = run("import", str(out), "--id", "again", code=2)
    assert "a match with id 'again' already exists" in taken
    assert run("import", str(out), "--id", "renamed", "--title", "Table 9").strip() == "renamed"
    titles = {m["id"]: m["name"] for m in json.loads(run("matches", "--json"))["matches"]}
    assert titles == {match: "Zones", "again": "Zones", "renamed": "Table 9"}
    # The title is signed with the record: changed, the record proves nothing.
    out.write_text(text.replace("title: Zones", "title: Final, table 1"), encoding="utf-8")
    forged = run("import", str(out), "--id", "forged", code=1)
    assert "signature does not sign this record" in forged
    assert "forged" not in {m["id"] for m in json.loads(run("matches", "--json"))["matches"]}
    # `export --help` speaks of every game's records, not Harem Master's decks alone.
    helped = " ".join(runner.invoke(cli, ["export", "--help"]).output.split())
    assert "both decks" not in helped and "the position it was set up from" in helped
    assert "--id" in runner.invoke(cli, ["import", "--help"]).output


def test_every_scp_tcg_scenario_position_round_trips_through_a_record() -> None:
    """Every position of the scenario library, stacks, partners, damage and
    all, is written so that reading it back deals the very same cards."""
    found = 0
    for path in scenario_files([str(ROOT / "scenarios")]):
        sc = load_scenario(path)
        if sc.game != "scp-tcg-s4":
            continue
        record = export_record(sc.events)  # verifies that the record replays to the log
        assert replay(record_from_dict(yaml.safe_load(dump_record(record)))).events == sc.events
        found += 1
    assert found > 10


@pytest.mark.parametrize(
    ("change", "place", "message"),
    [
        ({"mode": "record"}, "mode", "chapter 4's matches are mode strict"),
        ({"setup": {"seed": 3, "players": {}}}, "setup.seed", "gives the seed once, at its top"),
        ({"setup": {"players": {"A": {"site": ["Nothing"]}}}}, "setup.players.A.site[0]", "unknown card 'Nothing'"),
        ({"actions": [{"player": "A", "do": "move", "host": "A:1"}]}, "actions[0].host", "move takes"),
    ],
)
def test_a_bad_scp_tcg_record_names_the_place(change: dict, place: str, message: str) -> None:
    events, _ = scp_match(0)
    data = {**export_record(events), **change}
    with pytest.raises(InputError) as caught:
        record_from_dict(data, "zones.yaml")
    assert place in caught.value.describe() and message in caught.value.message, caught.value.describe()


def test_every_kept_records_result_reads_as_before() -> None:
    """The result an audit prints comes from the ruleset's ``result`` now:
    the same document as the state's own result always gave."""
    files = sorted((ROOT / "scenarios" / "records").glob("*.yaml"))
    assert len(files) >= 3
    ended = 0
    for file in files:
        played = replay(load_record(file))
        assert played.result == result_json(played.state), file
        ended += played.result is not None
    assert ended >= 2


def test_a_harem_master_match_still_exports_in_its_own_format() -> None:
    played = replay(load_record(RECORD))
    record = export_record(played.events)
    assert record["format"] == HAREM_MASTER.records.format
    assert list(record["players"]) == list(HAREM_MASTER.seats)
    assert replay(load_record(RECORD)).events == played.events
