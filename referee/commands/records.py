"""Match records from the command line: `export`, `import` and `audit`.

A match record (scenario format section 4, in the format its game's ruleset
names: ``harem-master-record/1`` for Harem Master) is a whole game as data. ``export`` writes a stored match as one, ``import``
replays one and stores it as a new match, and ``audit`` replays one and says
whether every action was legal. Exit codes: 0 success, 1 an action was
refused (the record is not legal; ``import`` then stores nothing), 2 an
unreadable record, a match that cannot be exported or a store problem (one
line on standard error).
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

import click

from referee.commands.params import JUDGE, MATCH, REASON, TITLE, db_option, json_option
from referee.inputs import TEXT_LENGTH, printable


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """Bad input, a match that cannot be exported and store problems end as
    one line on standard error with exit code 2, also when the command runs
    outside ``referee.cli.main`` (tests, other tools)."""
    from referee.inputs import InputError
    from referee.records import ExportError

    try:
        yield
    except InputError as exc:
        click.echo(f"error: {exc.describe()}", err=True)
        sys.exit(2)
    except Exception as exc:
        # The store is imported only if it is used (auditing a file needs
        # none), so only then can a store problem have been raised.
        errors = sys.modules.get("referee.store.errors")
        if isinstance(exc, ExportError) or (errors is not None and isinstance(exc, errors.StoreError)):
            click.echo(printable(f"error: {exc}"), err=True)
            sys.exit(2)
        raise


def _store(db: str | None, *, create: bool = False) -> Any:
    """The store of ``--db``: ``import`` may create a missing SQLite file;
    ``export`` and ``audit`` only read it, read-only (see ``open_store``)."""
    from referee.store import MatchStore, database_url

    return MatchStore(database_url(db), create=create, read_only=not create)


def _echo_json(doc: Any) -> None:
    click.echo(json.dumps(doc, indent=2))


def _action_text(record: Any, k: int) -> str:
    raw = record.actions[k - 1]
    who = "judge" if raw.get("judge") is True else raw.get("player")
    args = " ".join(str(raw[a]) for a in ("card", "target") if a in raw)
    line = record.line_of_action(k)
    where = f", line {line}" if line is not None else ""
    return f"action {k} ({who} {raw['do']}{' ' + args if args else ''}{where})"


def _result_text(result: dict[str, Any] | None) -> str:
    if result is None:
        return "none: the game had not ended"
    who = "a draw" if result["draw"] else f"{result['winner']} wins"
    rule = result["rule"] + (f", ruling {result['ruling']}" if result["ruling"] else "")
    scores = ""
    if result["scores"]:
        scores = ", scores " + ", ".join(f"{p} {n}" for p, n in sorted(result["scores"].items()))
    reason = f": {result['reason']}" if result["reason"] else ""
    return f"{who} ({rule}){scores}{reason}"


# --- export ------------------------------------------------------------------------------


@click.command("export")
@click.argument("match", type=MATCH)
@db_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the record to this file instead of standard output.",
)
@click.option(
    "--names",
    "by_name",
    is_flag=True,
    help="Name cards by card name where the name means the same card (default: instance ids such as A:12).",
)
def export(match: str, db: str | None, output: str | None, by_name: bool) -> None:
    """Write a stored match as a match record (YAML).

    The record is self-contained (the card definitions it uses and both
    decks in their original order are written in it) and replays to the
    very same events; `referee import` reads it back.

    Example: referee export m-1a2b3c4d -o table4.yaml
    """
    from referee import __version__
    from referee.records import dump_record

    with _one_line_errors():
        record, events = export_one(match, db, by_name)
    players = " vs ".join(f"{entry['name']} ({seat})" for seat, entry in record["players"].items())
    comment = (
        f"Match {match}: {players}, {events} events.\n"
        f"Exported by referee {__version__}; `referee audit` replays it, `referee import` stores it."
    )
    text = dump_record(record, comment)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        click.echo(f"error: cannot write {output}: {exc.strerror}", err=True)
        sys.exit(2)
    click.echo(f"wrote {output} ({len(record['actions'])} actions)", err=True)


def export_one(match: str, db: str | None, by_name: bool = False) -> tuple[dict[str, Any], int]:
    """A stored match as a verified record, and its number of events. The
    whole log is in memory until the end, so this runs with the garbage
    collector paused (see ``corrections.collector_paused``)."""
    from referee.corrections import collector_paused
    from referee.records import add_chain, export_record

    with collector_paused():
        with _store(db) as store:
            events = store.events(match)
        return add_chain(export_record(events, by_name=by_name), events), len(events)


# --- import ------------------------------------------------------------------------------


@click.command("import")
@click.argument("record_file", metavar="RECORD", type=click.Path(dir_okay=False))
@db_option
@click.option("--name", type=TITLE, help="A name for the new match, e.g. 'Round 3, table 4'.")
@click.option(
    "--accept-broken-chain",
    is_flag=True,
    help="A judge's decision: store a record whose hash chain does not fit (it was changed after it "
    "was exported) anyway; the log keeps where it breaks and who decided. Needs --by and --reason.",
)
@click.option("--by", "judge", type=JUDGE, help="With --accept-broken-chain: the judge's name, for the log.")
@click.option("--reason", type=REASON, help="With --accept-broken-chain: why, for the log.")
@json_option
def import_(
    record_file: str,
    db: str | None,
    name: str | None,
    accept_broken_chain: bool,
    judge: str | None,
    reason: str | None,
    as_json: bool,
) -> None:
    """Replay a match record and store it as a new match; print its id.

    Every action must be legal: if one is refused, nothing is stored and the
    command exits 1 naming the action and the rule. A record that carries a
    hash chain (`referee export` writes one) must fit it: a record changed
    after it was exported is refused the same way, naming the first action
    that does not fit, unless a judge accepts it with --accept-broken-chain
    --by NAME --reason TEXT (the log then keeps a note of where the chain
    broke and who accepted it). `--json` prints {"match": ID} (or
    {"match": null, "violation": {...}} or {"match": null, "chain": {...}}).

    Example: referee import scenarios/records/complete-legal-game.yaml --name "Demo"
    """
    from referee.records import chain_check, load_record, replay

    if accept_broken_chain and not (judge and reason):
        raise click.UsageError("--accept-broken-chain is a judge's decision: give --by JUDGE and --reason TEXT too")
    if (judge or reason) and not accept_broken_chain:
        raise click.UsageError("--by and --reason go with --accept-broken-chain")
    with _one_line_errors():
        record = load_record(record_file)
        played = replay(record)
        v = played.violation
        if v is not None:
            if as_json:
                _echo_json({"match": None, "violation": v})
            else:
                click.echo(
                    printable(
                        f"{record_file}: {_action_text(record, v['action'])} was refused ({v['rule']}): {v['message']}"
                    ),
                    err=True,
                )
                click.echo("Nothing was stored.", err=True)
            sys.exit(1)
        chain = chain_check(record, played)
        events = list(played.events)
        if chain is not None and chain["status"] == "broken":
            where = _chain_place(record, chain)
            if not accept_broken_chain:
                if as_json:
                    _echo_json({"match": None, "chain": {**chain, "where": where}})
                else:
                    click.echo(
                        printable(f"{record_file}: its hash chain does not fit at {where}: {chain['reason']}."),
                        err=True,
                    )
                    click.echo(
                        "Nothing was stored. A judge may store it anyway with --accept-broken-chain "
                        "--by NAME --reason TEXT; the log then says where the chain broke.",
                        err=True,
                    )
                sys.exit(1)
            events.append(_broken_chain_note(record_file, record, chain, where, judge, reason))
        with _store(db, create=True) as store:
            match = store.create(events, name=name)
    if as_json:
        _echo_json({"match": match, **({"chain": chain} if chain is not None else {})})
    else:
        click.echo(match)


def _chain_place(record: Any, chain: dict[str, Any]) -> str:
    """The first entry of a record that does not fit its chain, for people."""
    at = chain["broken_at"]
    if at is None:
        return "the head (the hash of the whole record)"
    if at["action"] == 0:
        return "the start (the seed, the decks and the settings)"
    return _action_text(record, at["action"])


def _broken_chain_note(
    file: str, record: Any, chain: dict[str, Any], where: str, judge: str | None, reason: str | None
) -> Any:
    """The judge's note that keeps the evidence of a broken chain in the log:
    where it broke, the hashes the record claimed and those of its replay."""
    from pathlib import Path

    from events.kernel import NoteAdded

    at = chain["broken_at"]
    claimed = ""
    if at is not None and record.chain is not None and at["action"] < len(record.chain):
        claimed = f"; the record's chain hash there is {record.chain[at['action']]}"
    text = (
        f"Imported from {Path(file).name} although its hash chain does not fit at {where} "
        f"(events {at['events'][0]}-{at['events'][1]}){claimed}"
        if at is not None
        else f"Imported from {Path(file).name} although its hash chain does not fit at {where}"
    )
    text += f"; record head {record.head or 'none'}, replay head {chain['head']}. Accepted by the judge: "
    room = TEXT_LENGTH - len(text)  # a note stays one a record can carry (export, import)
    reason = reason or ""
    text += reason if len(reason) <= room else reason[: room - 3] + "..."
    return NoteAdded(judge=judge, text=printable(text))


# --- audit -------------------------------------------------------------------------------


def _looks_like_match(text: str) -> bool:
    """A stored match's id rather than a file name (ids have no slash or suffix)."""
    return "/" not in text and not text.endswith((".yaml", ".yml", ".json"))


def _compare_stored(stored: list, replayed: list) -> list[str]:
    """Where a stored log departs from the replay of its own actions."""
    for pos, (a, b) in enumerate(zip(stored, replayed), start=1):
        if a != b:
            return [
                f"stored event {pos} ({type(a).__name__}) differs from the replay of the match's actions ({type(b).__name__})"
            ]
    if len(stored) != len(replayed):
        return [f"the match stores {len(stored)} events but its actions replay to {len(replayed)}"]
    return []


@click.command("audit")
@click.argument("targets", nargs=-1, required=True, metavar="RECORD|MATCH...")
@db_option
@json_option
def audit(targets: tuple[str, ...], db: str | None, as_json: bool) -> None:
    """Replay a match record: is every action legal, and what is the result?

    Given the id of a stored match instead of a file, audits that match: its
    actions are replayed from its seed and must give exactly the stored
    events, and every stored rewind must restore exactly the state of its
    target (rule 410).

    Reports the first refused action with its rule and the referee's reason
    (in record mode, the first violation recorded), or that the record is
    legal, and the result the game reached. Exit code 0 legal, 1 not legal,
    2 a record cannot be read (the message names the file, the line and the
    place in it). Nothing is stored. Several records are audited in turn,
    with a progress bar on a terminal; --json then prints
    {"legal": all legal, "records": [one report each, with its "record"]}.

    Example: referee audit scenarios/records/illegal-action-midgame.yaml --json
    """
    from pathlib import Path

    for t in targets:  # every match id checked before anything is audited
        if not Path(t).exists() and _looks_like_match(t):
            MATCH.convert(t, None, click.get_current_context())
    show_bar = len(targets) > 1 and not as_json and sys.stderr.isatty()
    reports: list[tuple[dict[str, Any], list[str]]] = []
    with _one_line_errors():
        if show_bar:
            with click.progressbar(targets, label="auditing", file=sys.stderr) as bar:
                reports = [audit_one(t, db) for t in bar]
        else:
            reports = [audit_one(t, db) for t in targets]
    if as_json:
        if len(targets) == 1:
            _echo_json(reports[0][0])
        else:
            docs = [{"record": t, **doc} for t, (doc, _) in zip(targets, reports)]
            _echo_json({"legal": all(d["legal"] for d in docs), "records": docs})
    else:
        for _, lines in reports:
            for line in lines:
                click.echo(printable(line))
    if not all(doc["legal"] for doc, _ in reports):
        sys.exit(1)


def _chain_lines(chain: dict[str, Any] | None) -> list[str]:
    """The chain part of an audit, for people."""
    if chain is None:
        return ["chain: none (the record carries no hashes)"]
    if chain["status"] == "no chain":
        return [f"chain: no chain (the {chain['events']} events were stored before hashes were kept)"]
    if chain["status"] == "broken":
        at = chain["broken_at"]
        if isinstance(at, dict):
            where = f"action {at['action']} (events {at['events'][0]}-{at['events'][1]})"
        elif at is not None:
            where = f"event {at}"
        else:
            where = "the head"
        return [f"CHAIN BROKEN at {where}: {chain['reason']}"]
    return [f"chain: intact, head {chain['head']}"]


def audit_one(target: str, db: str | None) -> tuple[dict[str, Any], list[str]]:
    """The audit of one record file or stored match: the JSON document of
    docs/cli.md and the lines a person reads. Everything it loads stays
    alive to the end, so it runs with the garbage collector paused (see
    ``corrections.collector_paused``)."""
    from pathlib import Path

    from referee.corrections import collector_paused, rewinds_consistent
    from referee.records import chain_check, export_record, load_record, record_from_dict, replay

    problems: list[str] = []
    chain: dict[str, Any] | None = None
    doc: dict[str, Any]
    with collector_paused():
        if Path(target).exists() or not _looks_like_match(target):
            record = load_record(target)
            played = replay(record)
            problems = rewinds_consistent(played.events, played.states)
            chain = chain_check(record, played)
        else:
            from referee.chain import check_stored

            with _store(db) as store, store._db_errors(f"audit match {target}"):
                # A damaged database file is a store problem: one line, exit 2.
                key = store._key(target)
                report = check_stored(store.application, key)
                chain = report.to_json()
                if not report.ok:
                    # A changed row may not even decode: say where, replay nothing.
                    doc = {"legal": False, "actions": 0, "violation": None, "result": None, "chain": chain}
                    return doc, [f"{target}: CHAIN BROKEN: {report.describe()}"]
                stored = store.events(target)
            if stored and type(stored[0]).__name__ == "TournamentCreated":
                # A tournament (referee event): its log has no game to replay, only its chain.
                doc = {"legal": True, "actions": 0, "violation": None, "result": None, "chain": chain}
                return doc, [f"{target}: a tournament of {len(stored)} events", *_chain_lines(chain)]
            record = record_from_dict(export_record(stored, verify=False), file=f"match {target}")
            played = replay(record)
            differ = _compare_stored(stored, played.events)
            # Where the stored log is the replay's, the replay's states are its states.
            problems = differ + rewinds_consistent(stored, None if differ else played.states)
    v = played.first_violation
    doc = {
        "legal": played.legal and not problems,
        "actions": played.applied,
        "violation": v,
        "result": played.result,
    }
    if played.recorded:
        doc["recorded_violations"] = played.recorded
    if problems:
        doc["rewinds"] = problems
    if chain is not None:
        doc["chain"] = chain
        if chain["status"] == "broken":
            doc["legal"] = False
    lines = []
    total = len(record.actions)
    if played.violation is not None:
        lines.append(
            f"{target}: NOT legal: {_action_text(record, v['action'])} is refused ({v['rule']}): {v['message']}"  # type: ignore[index]  # v is played.violation here
        )
        lines.append(f"{played.applied} of {total} actions were applied before it")
    elif v is not None:
        lines.append(
            f"{target}: NOT legal: {_action_text(record, v['action'])} broke {v['rule']} (recorded in record mode): {v['message']}"
        )
        for r in played.recorded:
            state = "accepted by a judge" if r["accepted"] else "still open"
            lines.append(f"  action {r['action']}: {r['rule']}, {state}")
    else:
        lines.append(f"{target}: legal, {total} actions")
    lines += [f"REWIND NOT CONSISTENT: {problem}" for problem in problems]
    lines += _chain_lines(chain)
    lines.append(f"result: {_result_text(played.result)}")
    return doc, lines
