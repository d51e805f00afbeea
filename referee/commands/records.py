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

    The record is self-contained (the card definitions it uses and how the
    match began, in its game's record format: the decks in their original
    order, or the position it was set up from), keeps the match's title and
    replays to the very same events; `referee import` reads it back.

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
    from referee.records import ExportError, add_chain, export_record

    with collector_paused():
        with _signing_store(db) as store:
            records = store.records(match)
            signer = store.signer()
        if signer is None:
            raise ExportError(
                f"{store.url} has no signing key and is read-only here, so the record could not be signed: "
                "run `referee key` once where the store can be written"
            )
        events = [r.event for r in records]
        title = records[0].name if records else None
        record = export_record(events, by_name=by_name, title=title)
        return add_chain(record, events, records, signer), len(events)


def _signing_store(db: str | None) -> Any:
    """The store of ``--db`` as ``export`` opens it: writable where it can be,
    so that a store without a signing key yet makes one (an older store's
    first export), else read-only (read-only media, a read-only role)."""
    from referee.store import MatchStore, NoSuchDatabase, StoreError, database_url

    url = database_url(db)
    try:
        return MatchStore(url, create=False)
    except NoSuchDatabase:
        raise
    except StoreError:
        return MatchStore(url, read_only=True)


# --- import ------------------------------------------------------------------------------


@click.command("import")
@click.argument("record_file", metavar="RECORD", type=click.Path(dir_okay=False))
@db_option
@click.option(
    "--name",
    "--title",
    "name",
    type=TITLE,
    help="A title for the new match, e.g. 'Round 3, table 4' (default: the record's own `title:`).",
)
@click.option(
    "--id",
    "match_id",
    type=MATCH,
    help="Choose the new match's id instead of a generated one (up to 64 lowercase letters, digits, '.', '_', '-').",
)
@click.option(
    "--trust",
    "trusted",
    multiple=True,
    metavar="KEY",
    help="Also accept records signed by this key (another store's, as `referee key` prints it there: "
    "the ed25519:... key or its fingerprint). Repeat for several.",
)
@click.option(
    "--accept-broken-chain",
    is_flag=True,
    help="A judge's decision: store a record that does not prove itself (no chain or head, one that "
    "does not fit, no signature or one that does not verify against a trusted key) anyway; the log "
    "keeps what failed and who decided. Needs --by and --reason.",
)
@click.option("--by", "judge", type=JUDGE, help="With --accept-broken-chain: the judge's name, for the log.")
@click.option("--reason", type=REASON, help="With --accept-broken-chain: why, for the log.")
@json_option
def import_(
    record_file: str,
    db: str | None,
    name: str | None,
    match_id: str | None,
    trusted: tuple[str, ...],
    accept_broken_chain: bool,
    judge: str | None,
    reason: str | None,
    as_json: bool,
) -> None:
    """Replay a match record and store it as a new match; print its id.

    The match takes the record's title (`title:`, as `referee export`
    writes it) unless --name gives another, and a generated id unless --id
    chooses one (an id already taken is an error, nothing stored).

    Every action must be legal: if one is refused, nothing is stored and the
    command exits 1 naming the action and the rule. A record that claims a
    proof must hold it, as `referee export` writes it: its hash chain and
    head must fit its replay in full, and its signature must verify. One
    cut, extended, edited, re-chained by someone without the key, or with
    part of its proof removed is refused the same way (exit 1, nothing
    stored), unless a judge accepts it with --accept-broken-chain --by NAME
    --reason TEXT (the log then keeps a note of what failed and who accepted
    it). A record with no proof at all (written by hand, as
    docs/scenario-format.md describes) or signed by a key this store does not
    trust (not its own, not given with --trust) is stored with a warning and
    a note in its log saying that nothing vouches for it. `--json` prints {"match": ID,
    "chain": {...}} (or {"match": null, "violation": {...}} or
    {"match": null, "chain": {...}}).

    Example: referee import table4.yaml --trust "3f2a 9c1e 77b0 4d12"
    """
    from referee.records import envelopes_of, load_record, replay

    if accept_broken_chain and not (judge and reason):
        raise click.UsageError("--accept-broken-chain is a judge's decision: give --by JUDGE and --reason TEXT too")
    if (judge or reason) and not accept_broken_chain:
        raise click.UsageError("--by and --reason go with --accept-broken-chain")
    from referee.chain import key_bytes

    for t in trusted:
        if key_bytes(t) is None and not _is_fingerprint(t):
            raise click.BadParameter(
                f"{t!r}: expected a key as `referee key` prints it (ed25519:... or its 16-digit fingerprint)",
                param_hint="--trust",
            )
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
        events = list(played.events)
        # Checked against the key of the store as it is (a store that does
        # not exist yet has none): nothing is written for a refused record.
        proof = _proof(record, played, _store_key(db), trusted)
        if proof["status"] in UNPROVEN:
            # A record written by hand (the format of docs/scenario-format.md,
            # section 4, carries no proof), or one signed by a key this store
            # has not been told to trust: stored, as the format promises, with
            # a note in its log and (once stored) a warning that nothing vouches for it.
            events.append(_unproven_note(record_file, proof))
        elif proof["status"] != "intact":
            if not accept_broken_chain:
                if as_json:
                    _echo_json({"match": None, "chain": proof})
                else:
                    click.echo(printable(f"{record_file}: {proof['message']}"), err=True)
                    click.echo(
                        "Nothing was stored. A judge may store it anyway with --accept-broken-chain "
                        "--by NAME --reason TEXT; the log then says what failed.",
                        err=True,
                    )
                sys.exit(1)
            events.append(_broken_chain_note(record_file, record, proof, proof["where"], judge, reason))
        envelopes = envelopes_of(record, played.ends)
        if envelopes is not None and len(events) > len(envelopes):
            envelopes += [{"by": f"judge {judge}"}] * (len(events) - len(envelopes))
        with _store(db, create=True) as store:
            match = store.create(events, name=name or record.title, match_id=match_id, envelopes=envelopes)
    if proof["status"] in UNPROVEN and not as_json:
        click.echo(printable(f"warning: {record_file}: {proof['message']}"), err=True)
    if as_json:
        _echo_json({"match": match, "chain": proof})
    else:
        click.echo(match)


# What a record may lack and still be stored, with a note saying so: no proof
# at all (written by hand), or a signature by a key this store does not know.
# Anything that claims a proof and does not hold (a chain without a head, a
# head without a signature, a cut, an edit, a re-chain) is refused.
UNPROVEN = ("written by hand", "untrusted")


def _unproven_note(file: str, proof: dict[str, Any]) -> Any:
    """The note that stays in the log of a match imported from a record that
    proves nothing here: what it lacked, and the signer if there was one."""
    from pathlib import Path

    from events.kernel import NoteAdded

    if proof["status"] == "untrusted":
        what = f"signed by key {proof['signature']['fingerprint']}, which this store was not told to trust (--trust)"
    else:
        what = "written without a hash chain, head or signature (by hand, or stripped of them)"
    return NoteAdded(
        judge=None,
        text=printable(f"Imported from {Path(file).name}, {what}: nothing shows it equals the match it records."),
    )


def _is_fingerprint(text: str) -> bool:
    import re

    return re.fullmatch(r"[0-9a-f]{16}", text.replace(" ", "").replace("-", "").lower()) is not None


def _proof(record: Any, played: Any, store_key: bytes | None, trusted: tuple[str, ...]) -> dict[str, Any]:
    """Whether a record proves itself: its chain and head present and fitting
    its replay in full, and its signature verifying under this store's key
    or a trusted one. {"status": "intact" | "missing" | "broken" |
    "unsigned" | "untrusted", "head", "broken_at", "reason", "signature",
    "where", "message"} (``chain_check``'s keys, and the signature's check)."""
    from referee.records import chain_check, signature_check

    chain = chain_check(record, played)
    if record.chain is None and record.head is None and record.signature is None and record.entries is None:
        return {
            "status": "written by hand",
            "head": chain["head"] if chain is not None else None,
            "broken_at": None,
            "reason": "the record carries no hash chain, head or signature",
            "signature": None,
            "where": "the record",
            "message": "it carries no hash chain, head or signature (a record written by hand, or stripped "
            "of them): it is stored, with a note in its log that nothing shows it is the match it records.",
        }
    if chain is None or record.chain is None or record.head is None:
        lacks = (
            "hash chain" if record.head is not None else "head" if record.chain is not None else "hash chain or head"
        )
        return {
            "status": "missing",
            "head": chain["head"] if chain is not None else None,
            "broken_at": None,
            "reason": f"the record carries no {lacks}",
            "signature": None,
            "where": "the record",
            "message": f"it carries no {lacks}: a record `referee export` wrote has both (and a signature), "
            "so nothing shows this one was not changed.",
        }
    signature = signature_check(record, chain["head"], store_key, trusted)
    out = {**chain, "signature": signature}
    if chain["status"] == "broken":
        where = _chain_place(record, chain)
        return {
            **out,
            "where": where,
            "message": f"its hash chain does not fit at {where}: {chain['reason']}.",
        }
    if signature["status"] == "unsigned":
        return {
            **out,
            "status": "unsigned",
            "where": "the signature",
            "message": "it carries no signature: anyone can chain an edited record again, so only a store's "
            "signature shows the record is the one it exported.",
        }
    if signature["status"] == "bad":
        return {**out, "status": "broken", "where": "the signature", "message": f"{signature['reason']}."}
    if signature["trusted"] is None:
        return {
            **out,
            "status": "untrusted",
            "where": "the signature",
            "message": f"it is signed by key {signature['fingerprint']}, which is neither this store's key "
            f"nor one given with --trust: it is stored, with a note in its log saying so; if that is the "
            f'store it came from (`referee key` there), import it with --trust "{signature["fingerprint"]}".',
        }
    return {**out, "where": None, "message": None}


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
    """The judge's note that keeps the evidence of a record that does not
    prove itself in the log: what failed and where, the hashes the record
    claimed and those of its replay, the key that signed it."""
    from pathlib import Path

    from events.kernel import NoteAdded

    at = chain.get("broken_at")
    claimed = ""
    if at is not None and record.chain is not None and at["action"] < len(record.chain):
        claimed = f"; the record's chain hash there is {record.chain[at['action']]}"
    what = {
        "missing": "it carries no hash chain or head",
        "unsigned": "it carries no signature",
        "untrusted": "its signing key is not trusted",
    }.get(chain["status"], f"its proof does not fit at {where}")
    text = f"Imported from {Path(file).name} although {what}"
    if at is not None:
        text += f" (events {at['events'][0]}-{at['events'][1]}){claimed}"
    signature = chain.get("signature") or {}
    if signature.get("fingerprint"):
        text += f"; signed by key {signature['fingerprint']} ({signature['status']})"
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
@click.option(
    "--trust",
    "trusted",
    multiple=True,
    metavar="KEY",
    help="A key whose signature counts as known (another store's, as `referee key` prints it). Repeat for several.",
)
@json_option
def audit(targets: tuple[str, ...], db: str | None, trusted: tuple[str, ...], as_json: bool) -> None:
    """Replay a match record: is every action legal, and what is the result?

    Given the id of a stored match instead of a file, audits that match: its
    actions are replayed from its seed (or the position it started from) and
    must give exactly the stored events, every stored rewind must restore
    exactly the state of its target (rule 410), its chain must fit its rows
    and the store's signature its head.

    Reports the first refused action with its rule and the referee's reason
    (in record mode, the first violation recorded that no judge ruled on),
    or that the record is legal (with the violations a judge accepted), the
    result the game reached, and who signed it. Exit code 0 legal, 1 not
    legal (or a chain or signature that does not fit), 2 a record cannot be
    read (the message names the file, the line and the place in it). Nothing
    is stored. Several records are audited in turn, with a progress bar on a
    terminal; --json then prints {"legal": all legal, "records": [one report
    each, with its "record"]}.

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
                reports = [audit_one(t, db, trusted) for t in bar]
        else:
            reports = [audit_one(t, db, trusted) for t in targets]
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


def _signer_line(signature: dict[str, Any] | None) -> list[str]:
    """Who signed, for people: the key's fingerprint and whose it is."""
    if signature is None:
        return []
    if signature["status"] == "unsigned":
        return [f"signature: none ({signature['reason']})"]
    if signature["status"] == "bad":
        return [f"SIGNATURE DOES NOT VERIFY: {signature['reason']}"]
    whose = {"this store": "this store's key", "--trust": "a key given with --trust"}.get(
        signature["trusted"] or "", "a key this store does not know"
    )
    return [f"signed by key {signature['fingerprint']} ({whose})"]


def _store_key(db: str | None) -> bytes | None:
    """The public key of the store of ``--db``, if there is one to read (an
    audit of a file needs no store)."""
    from referee.store import NoSuchDatabase

    try:
        with _store(db) as store:
            signer = store.side.signer(create=False)
    except NoSuchDatabase:
        return None  # no store yet: no key of its own (another store's may be trusted)
    return signer.public if signer is not None else None


def _stored_signature(store: Any, key: str, head: str | None, trusted: tuple[str, ...]) -> dict[str, Any]:
    """The store's signature of a stored match's head (its last event's
    ``_sig``), checked against the store's key."""
    from referee.chain import head_message, key_fingerprint, verify

    last = store.head_of(key)
    signer = store.side.signer(create=False)
    if last.sig is None or head is None:
        why = "the last event was stored before heads were signed" if head else "the log has no chain"
        return {"status": "unsigned", "key": None, "fingerprint": None, "trusted": None, "reason": why}
    if signer is None:
        return {
            "status": "bad",
            "key": None,
            "fingerprint": None,
            "trusted": None,
            "reason": "the head carries a signature, but this store has no signing key to check it with",
        }
    base = {"key": signer.text, "fingerprint": key_fingerprint(signer.public), "trusted": "this store"}
    if not verify(signer.public, last.sig, head_message(key, last.position, head)):
        return {
            "status": "bad",
            **base,
            "reason": f"the signature of the head (event {last.position}) does not verify under this store's "
            f"key {base['fingerprint']}: the rows were changed or chained again without the key",
        }
    return {"status": "verified", **base, "reason": None}


def _position_record(stored: list[Any], target: str) -> Any:
    """A stored match that started from a position (a scenario's, ``new
    --position``), as a record to replay: its first events as they are
    stored, then the actions the rest of its log records."""
    from pathlib import Path
    from types import SimpleNamespace

    from referee.inputs import Document
    from referee.records import Record, _actions
    from referee.ruleset import game_of, of_first_event

    ruleset = of_first_event(stored[0])
    actions = _actions(stored, False, None)
    kinds = ("ActionTaken", "Rewound", "NoteAdded", "JudgeCalled", "ViolationsAccepted", "StepSkipped")
    start = next(
        (i for i, e in enumerate(stored) if type(e).__name__ in kinds or getattr(e, "judge", None) is not None),
        len(stored),
    )
    state = ruleset.initial_state()
    for event in stored[:start]:
        state = ruleset.evolve(state, event)
    started = SimpleNamespace(events=stored[:start], state=state, labels={})
    mode = getattr(state, "mode", "strict")
    return Record(
        Path(f"match {target}"),
        0,
        mode if mode in ("strict", "record") else "strict",
        {},
        {},
        {},
        actions,
        Document(Path(f"match {target}"), {}),
        game=game_of(stored[0]),
        started=started,
    )


def audit_one(target: str, db: str | None, trusted: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[str]]:
    """The audit of one record file or stored match: the JSON document of
    docs/cli.md and the lines a person reads. Everything it loads stays
    alive to the end, so it runs with the garbage collector paused (see
    ``corrections.collector_paused``)."""
    from pathlib import Path

    from referee.corrections import collector_paused, rewinds_consistent
    from referee.records import (
        ExportError,
        chain_check,
        export_record,
        load_record,
        record_from_dict,
        replay,
        signature_check,
    )

    problems: list[str] = []
    chain: dict[str, Any] | None = None
    signature: dict[str, Any] | None = None
    doc: dict[str, Any]
    with collector_paused():
        if Path(target).exists() or not _looks_like_match(target):
            record = load_record(target)
            played = replay(record)
            problems = rewinds_consistent(played.events, played.states)
            chain = chain_check(record, played)
            if chain is not None or record.signature is not None:
                head = chain["head"] if chain is not None else None
                signature = signature_check(record, head, _store_key(db) if record.signature else None, trusted)
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
                signature = _stored_signature(store, key, report.head, trusted)
                if not (stored and type(stored[0]).__name__ == "TournamentCreated"):
                    # What `state` and `act` read (the latest snapshot, then the
                    # events after it) must be readable too: a damaged snapshot
                    # table is a store problem, one line, exit 2.
                    store.load(target)
            if stored and type(stored[0]).__name__ == "TournamentCreated":
                # A tournament (referee event): its log has no game to replay, only its chain.
                doc = {"legal": True, "actions": 0, "violation": None, "result": None, "chain": chain}
                if signature is not None:
                    doc["signature"] = signature
                    doc["legal"] = signature["status"] != "bad"
                lines = [f"{target}: a tournament of {len(stored)} events", *_chain_lines(chain)]
                return doc, lines + _signer_line(signature)
            try:
                record = record_from_dict(export_record(stored, verify=False), file=f"match {target}")
            except ExportError:
                if registry_setup(stored) is not None:
                    raise
                record = _position_record(stored, target)  # started from a position: no record format writes it
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
        doc["accepted_violations"] = [r for r in played.recorded if r["accepted"]]
    if problems:
        doc["rewinds"] = problems
    if chain is not None:
        doc["chain"] = chain
        if chain["status"] == "broken":
            doc["legal"] = False
    if signature is not None:
        doc["signature"] = signature
        if signature["status"] == "bad":
            doc["legal"] = False
    lines = []
    total = len(record.actions)
    if played.violation is not None:
        lines.append(
            f"{target}: NOT legal: {_action_text(record, played.violation['action'])} is refused "
            f"({played.violation['rule']}): {played.violation['message']}"
        )
        lines.append(f"{played.applied} of {total} actions were applied before it")
    elif v is not None:
        lines.append(
            f"{target}: NOT legal: {_action_text(record, v['action'])} broke {v['rule']} "
            f"(recorded in record mode, no judge ruled on it): {v['message']}"
        )
        for r in played.recorded:
            state = "accepted by a judge" if r["accepted"] else "still open"
            lines.append(f"  action {r['action']}: {r['rule']}, {state}")
    else:
        lines.append(f"{target}: legal, {total} actions")
        accepted = [r for r in played.recorded if r["accepted"]]
        if accepted:
            lines.append(f"  {len(accepted)} violation(s) recorded and accepted by a judge:")
            lines += [f"  action {r['action']}: {r['rule']}, accepted by a judge: {r['message']}" for r in accepted]
    lines += [f"REWIND NOT CONSISTENT: {problem}" for problem in problems]
    lines += _chain_lines(chain)
    lines += _signer_line(signature)
    lines.append(f"result: {_result_text(played.result)}")
    return doc, lines


def registry_setup(stored: list[Any]) -> Any:
    """The setup a stored match's first event holds (None: it started from a position)."""
    from referee.ruleset import of_first_event

    ruleset = of_first_event(stored[0])
    if ruleset.records is None or not isinstance(stored[0], ruleset.first_events):
        return True  # another reason not to export: say it as export does
    return ruleset.records.setup_of(stored[0])
