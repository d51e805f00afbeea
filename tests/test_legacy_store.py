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

``da8144e`` is the same day written by the referee just before issue 31
registered the names stored classes are kept under (rows then named
classes by module path: ``events.kernel:ActionTaken``,
``events.harem_master.game:MatchStarted``, snapshots
``projections.harem_master.state:GameState``), with its signing key
(``da8144e.db.key``), so its exports are signed as they were.
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
COMMITS = ("c05abeb", "da8144e")
EXPECTED: dict[str, dict[str, dict]] = {c: json.loads((DATA / f"{c}.json").read_text()) for c in COMMITS}
CASES = [(c, command) for c in COMMITS for command in sorted(EXPECTED[c])]


def _unpacked(folder: Path, commit: str) -> Path:
    path = folder / "legacy.db"
    with gzip.open(DATA / f"{commit}.db.gz") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    key = DATA / f"{commit}.db.key"
    if key.exists():  # the store's signing key, beside it as the store keeps it
        shutil.copy(key, folder / "legacy.db.key")
    return path


@pytest.fixture(scope="module")
def legacy_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {c: _unpacked(tmp_path_factory.mktemp(f"legacy-{c}"), c) for c in COMMITS}


def invoke(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--db", f"sqlite:///{db}"])
    return result.exit_code, result.stdout


# ``referee log`` now ends the first line of each entry with who entered it
# (issue 30: "[a command-line station]", "[judge Kim at the board]"), which
# the old referee did not print; every sentence is what it was.
ENTERED_BY = re.compile(r"  \[(a command-line station|[^\]]+ at the board[^\]]*)\]$", flags=re.MULTILINE)


def as_printed_then(command: str, out: str) -> str:
    """``out`` without what this version adds to the old commands' output: the log's entry column."""
    if command.split()[0] != "log":
        return out
    return ENTERED_BY.sub("", out)


@pytest.mark.parametrize(("commit", "command"), CASES)
def test_an_old_store_reads_as_it_did(legacy_dbs: dict[str, Path], commit: str, command: str) -> None:
    code, out = invoke(legacy_dbs[commit], *command.split())
    want = EXPECTED[commit][command]
    assert code == want["code"], out
    if command.startswith("export") and commit == "c05abeb":
        # An export now ends with the store's signature (a key made for the
        # old store on its first export); the record before it is the same.
        out, _, signature = out[:-1].rpartition("\n")
        assert signature.startswith("signature: {key: 'ed25519:"), signature
        out += "\n"
    # c05abeb's referee printed no entry column; da8144e's printed everything as today.
    assert (as_printed_then(command, out) if commit == "c05abeb" else out) == want["out"]
    if command.split()[0] == "log":
        assert "[a command-line station]" in out  # the old rows have no one's name: command-line stations


@pytest.mark.parametrize(
    ("commit", "match"),
    [
        ("c05abeb", "hm1"),
        ("c05abeb", "s1"),
        ("c05abeb", "m-cc9d79b8"),
        ("da8144e", "hm1"),
        ("da8144e", "s1"),
        ("da8144e", "m-95aa90ab"),
    ],
)
def test_an_old_match_takes_new_events_with_its_chain_intact(
    tmp_path: Path, legacy_dbs: dict[str, Path], commit: str, match: str
) -> None:
    db = tmp_path / "copy.db"
    shutil.copy(legacy_dbs[commit], db)
    assert invoke(db, "note", match, "--by", "Kim", "written after the move")[0] == 0
    code, log = invoke(db, "log", match)
    log = as_printed_then("log", log)  # the new line's column too
    assert code == 0 and log.rstrip().endswith("Judge Kim notes: written after the move.")
    then = EXPECTED[commit][f"log {match}"]["out"].rpartition("\nNext:")[0]
    assert log.startswith(as_printed_then("log", then))
    # The chain runs on from the old rows through the new one.
    from referee.chain import check_stored
    from referee.store.matches import MatchStore

    with MatchStore(f"sqlite:///{db}") as store:
        report = check_stored(store.application, match)
    assert report.ok, report.describe()
