"""A store written by an older referee stays readable after code moves.

``tests/data/legacy-store/c05abeb.db.gz`` is a SQLite store written by the
referee at commit c05abeb, before Harem Master's events, state and rules
moved into their own packages (issue 17): a tournament's table played to its
end, a match just started, an imported record rewound with replay and
annotated, and an SCP-TCG chapter-4 match corrected by a judge. Its rows name
the classes where they were then (``events.game:ActionTaken``, snapshots
``projections.state:GameState``). ``c05abeb.json`` holds what each command
printed on it then; today's referee must print the very same, and must keep
writing to those matches with their chains intact.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli

DATA = Path(__file__).parent / "data" / "legacy-store"
EXPECTED: dict[str, dict] = json.loads((DATA / "c05abeb.json").read_text())


@pytest.fixture(scope="module")
def legacy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("legacy") / "legacy.db"
    with gzip.open(DATA / "c05abeb.db.gz") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def invoke(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--db", f"sqlite:///{db}"])
    return result.exit_code, result.stdout


# ``referee log`` now ends the first line of each entry with who entered it
# (issue 30: "[a command-line station]", "[judge Kim at the board]"), which
# the old referee did not print; every sentence is what it was.
ENTERED_BY = re.compile(r"  \[(a command-line station|[^\]]+ at the board[^\]]*)\]$", flags=re.MULTILINE)


# ``referee legal`` now groups a long list (issue 32: by kind, then by the card
# or zone each names, with counts) and says where each card lies, so that no
# two lines read alike: "card=face-down (A.safe #1) [A:1]", its arguments in
# the order the instruction declares them (a search's zone first). The
# actions are the same, each with the same words but for where its cards lie.
GROUPED = re.compile(r"(?m)^\d+ legal actions: ")
PLACE = re.compile(r" \((?:[AB]\.[a-z]+ #\d+|#\d+ (?:above|below|arriving at) [^)]*)\)")
# ``referee export`` now writes the match's title (issue 32), which `import` gives back.
TITLE = re.compile(r"(?m)^title: .*\n")


def _actions_listed(out: str) -> list[list[str]]:
    """Each action's words (who, what, then its arguments in any order), without where its cards lie."""
    lines = [PLACE.sub("", line).split(" ") for line in re.findall(r"(?m)^\s*\d+\. (.*)$", out)]
    return sorted([*words[:2], *sorted(words[2:])] for words in lines)


def as_printed_then(command: str, out: str, then: str = "") -> str:
    """``out`` without what this version adds to the old commands' output:
    the log's entry column, an export's title; a grouped legal list as the
    old one's lines, if it lists the very same actions (``then``)."""
    kind = command.split()[0]
    if kind == "export":
        return TITLE.sub("", out, count=1)
    if kind == "legal" and GROUPED.search(out):
        same = out.splitlines()[0] == then.splitlines()[0] and _actions_listed(out) == _actions_listed(then)
        return then if same else out
    if kind != "log":
        return out
    return ENTERED_BY.sub("", out)


@pytest.mark.parametrize("command", sorted(EXPECTED))
def test_an_old_store_reads_as_it_did(legacy_db: Path, command: str) -> None:
    code, out = invoke(legacy_db, *command.split())
    want = EXPECTED[command]
    assert code == want["code"], out
    if command.startswith("export"):
        # An export now ends with the store's signature (a key made for the
        # old store on its first export); the record before it is the same.
        out, _, signature = out[:-1].rpartition("\n")
        assert signature.startswith("signature: {key: 'ed25519:"), signature
        out += "\n"
    assert as_printed_then(command, out, want["out"]) == want["out"]
    if command.startswith("export"):
        assert out.splitlines()[3].startswith("title: ")  # the stored match's title, after its format
    if command.split()[0] == "log":
        assert "[a command-line station]" in out  # the old rows have no one's name: command-line stations


@pytest.mark.parametrize("match", ["hm1", "s1", "m-cc9d79b8"])
def test_an_old_match_takes_new_events_with_its_chain_intact(tmp_path: Path, legacy_db: Path, match: str) -> None:
    db = tmp_path / "copy.db"
    shutil.copy(legacy_db, db)
    assert invoke(db, "note", match, "--by", "Kim", "written after the move")[0] == 0
    code, log = invoke(db, "log", match)
    log = as_printed_then("log", log)
    assert code == 0 and log.rstrip().endswith("Judge Kim notes: written after the move.")
    assert log.startswith(EXPECTED[f"log {match}"]["out"].rpartition("\nNext:")[0])
    # The chain runs on from the old rows through the new one.
    from referee.chain import check_stored
    from referee.store.matches import MatchStore

    with MatchStore(f"sqlite:///{db}") as store:
        report = check_stored(store.application, match)
    assert report.ok, report.describe()
