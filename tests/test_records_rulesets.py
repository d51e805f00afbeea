"""Match records go through the ruleset a record's format names: its
``start`` replays the header and its ``action_from_mapping``, ``resolve`` and
``apply`` play the actions; a game with no record format (SCP-TCG's chapter
4, which starts from a position) is refused by ``export`` and ``audit`` in
one line (docs/rulesets.md, ``referee/records.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from projections.harem_master.views import result_json
from referee import ruleset as registry
from referee.cli import cli
from referee.inputs import InputError
from referee.records import export_record, load_record, record_from_dict, replay
from referee.rules.harem_master.ruleset import HAREM_MASTER
from referee.store import MatchStore
from tests.test_store_rulesets import scp_match

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "scenarios" / "records" / "complete-legal-game.yaml"


class Variant:
    """Harem Master under another id and record format, counting what the
    records module asks of it."""

    id = "hm-variant"
    record_format = "hm-variant-record/1"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        member = getattr(HAREM_MASTER, name)
        if name in ("start", "action_from_mapping", "resolve", "apply", "result"):

            def counted(*args: Any, **kwargs: Any) -> Any:
                self.calls[name] = self.calls.get(name, 0) + 1
                return member(*args, **kwargs)

            return counted
        return member


@pytest.fixture
def variant(monkeypatch: pytest.MonkeyPatch) -> Variant:
    game = Variant()
    monkeypatch.setitem(registry._REGISTERED, game.id, "tests.test_records_rulesets:unused")
    monkeypatch.setitem(registry._loaded, game.id, game)
    return game


def test_a_records_format_picks_the_ruleset_that_replays_it(variant: Variant) -> None:
    text = RECORD.read_text(encoding="utf-8")
    assert "format: harem-master-record/1" in text
    own = load_record(RECORD)
    assert own.game == "harem-master" and own.ruleset is HAREM_MASTER
    data = yaml.safe_load(text)
    data["format"] = variant.record_format
    record = record_from_dict(data, RECORD)  # its deck files where the record's are
    assert record.game == variant.id and record.ruleset is variant
    played = replay(record)
    assert played.violation is None and played.applied == len(record.actions) > 0
    assert variant.calls["start"] == 1
    for name in ("action_from_mapping", "resolve", "apply"):
        assert variant.calls[name] == sum(1 for a in record.actions if a.get("judge") is not True), name
    assert played.events == replay(own).events
    assert played.result is not None and played.result == replay(own).result and variant.calls["result"] == 2


def test_an_unknown_format_names_every_format_known(variant: Variant) -> None:
    data = yaml.safe_load(RECORD.read_text(encoding="utf-8"))
    data["format"] = "scp-tcg-record/1"
    with pytest.raises(InputError) as caught:
        record_from_dict(data, RECORD)
    assert "expected harem-master-record/1 or hm-variant-record/1, got 'scp-tcg-record/1'" in caught.value.describe()


def _stored_scp(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first, actions = scp_match(4)
    with MatchStore(url) as store:
        match = store.create(first, name="Zones")
        for action in actions:
            store.act(match, action)
    return url, match


def test_an_scp_tcg_match_is_refused_by_export_and_audit_in_one_line(tmp_path: Path) -> None:
    url, match = _stored_scp(tmp_path)
    out = tmp_path / "zones.yaml"
    for args in (["export", match, "-o", str(out)], ["export", match], ["audit", match], ["audit", match, "--json"]):
        result = CliRunner().invoke(cli, [*args, "--db", url])
        assert result.exit_code == 2, (args, result.output)
        assert result.stdout == ""
        [line] = result.stderr.splitlines()
        assert line.startswith("error: SCP-TCG") and "(scp-tcg-s4) has no match-record format yet" in line, line
        assert "record_format" in line and "set-up position" in line
    assert not out.exists()
    with MatchStore(url, read_only=True) as store:
        events = store.events(match)
    with pytest.raises(Exception, match="has no match-record format yet"):
        export_record(events)


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
    assert record["format"] == HAREM_MASTER.record_format
    assert list(record["players"]) == list(HAREM_MASTER.seats)
    assert replay(load_record(RECORD)).events == played.events
