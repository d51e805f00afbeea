"""A store written by one version of the referee, and what its commands printed on it: the legacy-store fixtures.

``tests/test_legacy_store.py`` keeps stores written by older referees
(``tests/data/legacy-store/<commit>.db.gz``) with what each command printed
on them then (``<commit>.json``), and checks today's referee prints the
same. ``c05abeb`` was written before issue 17 moved each game's code into
packages of its own; ``da8144e`` just before issue 31 registered the names
stored classes are kept under, when rows named classes by their module
(``events.harem_master.game:...``, ``events.kernel:...``, snapshots
``projections.harem_master.state:GameState``). To write one again with an
older referee's source:

    PYTHONPATH=OLD_SOURCE:. python tests/legacystore.py OUT_DIR COMMIT

It uses only the command line both versions share.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sqlite3
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "scenarios" / "decks"
RECORD = ROOT / "scenarios" / "records" / "complete-legal-game.yaml"
SCP = ROOT / "scenarios" / "scp-tcg" / "402.6-a-sandbox-at-zero-protection-is-restored-and-breached.yaml"

# What each kept store answers, the matches named by the ids it gives them.
COMMANDS = (
    "event standings {event}",
    "log {table}",
    "state {table} --json",
    "state {table} --as A",
    "legal {table}",
    "export {table}",
    "log hm1",
    "state hm1 --json",
    "legal hm1",
    "export hm1",
    "log {imported}",
    "state {imported} --json",
    "state {imported} --at 150 --as B --json",
    "export {imported}",
    "log {imported} --as B",
    "log s1",
    "state s1 --json",
    "legal s1",
    "audit {table}",
    "audit hm1",
    "audit {imported}",
    "audit s1",
)


def run(db: Path, *args: str) -> tuple[int, str]:
    from referee.cli import cli

    result = CliRunner().invoke(cli, [*args, "--db", f"sqlite:///{db}"])
    return result.exit_code, result.stdout


def ok(db: Path, *args: str) -> str:
    code, out = run(db, *args)
    if code != 0:
        raise SystemExit(f"{args}: exit {code}\n{out}")
    return out.strip()


def write(db: Path) -> dict[str, str]:
    """The store: a tournament's table played to its end, a match just
    started, an imported record rewound with replay and annotated, an
    SCP-TCG match corrected by a judge. Returns the ids it gave them."""
    event = json.loads(ok(db, "event", "new", "Legacy Cup", "--json"))["event"]
    for name, deck in (("alice", "vanilla-a.yaml"), ("bob", "vanilla-b.yaml")):
        ok(db, "event", "register", event, "--player", name, "--deck", str(DECKS / deck))
    table = json.loads(ok(db, "event", "round", event, "--json"))["pairings"][0]["match"]
    rng = random.Random(31)
    while True:
        legal = json.loads(ok(db, "legal", table, "--json"))
        actions = [a for a in legal["actions"] if a["do"] not in ("concede", "propose_draw", "accept_draw")]
        if legal.get("result") or not actions:
            break
        a = rng.choice(actions)
        args = ["act", table, a["player"], a["do"]]
        if a.get("card_id"):
            args.append(a["card_id"])
        for key in ("target", "order", "n"):
            if a.get(key + "_id") or a.get(key) is not None:
                args += [f"--{key}", str(a.get(key + "_id") or a[key])]
        if a.get("cards_ids"):
            args += ["--cards", ",".join(a["cards_ids"])]
        code, _ = run(db, *args)
        if code != 0:
            break
    ok(
        db,
        "new",
        "--deck",
        f"A={DECKS / 'alice.yaml'}",
        "--deck",
        f"B={DECKS / 'bob.yaml'}",
        "--seed",
        "5",
        "--id",
        "hm1",
    )
    imported = ok(db, "import", str(RECORD))
    ok(db, "rewind", imported, "--to", "120", "--rule", "410.1", "--reason", "a slip", "--replay", "--by", "Kim")
    ok(db, "note", imported, "--by", "Kim", "the table agreed")
    ok(db, "new", "--position", str(SCP), "--id", "s1")
    legal = json.loads(ok(db, "legal", "s1", "--json"))["actions"]
    for a in legal[:2]:
        args = ["act", "s1", a["player"], a["do"]]
        for key, value in a.items():
            if key in ("player", "do") or key.endswith(("_id", "_ids")):
                continue
            shown = a.get(key + "_id") or (",".join(a[key + "_ids"]) if key + "_ids" in a else value)
            args += ["--arg", f"{key}={shown if not isinstance(shown, list) else ','.join(map(str, shown))}"]
        run(db, *args)
    ok(db, "rewind", "s1", "--to", "1", "--rule", "4", "--reason", "no process did that", "--by", "Kim")
    return {"event": event, "table": table, "imported": imported}


def answers(db: Path, ids: dict[str, str]) -> dict[str, dict[str, object]]:
    """What each of ``COMMANDS`` prints on the store, by the command as run."""
    out: dict[str, dict[str, object]] = {}
    for template in COMMANDS:
        command = template.format(**ids)
        code, text = run(db, *command.split())
        out[command] = {"code": code, "out": text}
    return out


def main(folder: str, commit: str) -> None:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    db = target / f"{commit}.db"
    db.unlink(missing_ok=True)
    ids = write(db)
    expected = answers(db, ids)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with db.open("rb") as src, gzip.open(target / f"{commit}.db.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    (target / f"{commit}.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
