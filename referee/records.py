"""Match records: a whole game as data, from the shuffle on, in the format its ruleset names.

A record's ``format`` names its game: the game whose ``records``
capability (``referee.capabilities.Records``) has that format
(``harem-master-record/1``, Harem Master's; ``scp-tcg-s4-record/1``; every
record written before games had ids is Harem Master's). This module reads
and writes what every game's records share (``format``, ``seed``, ``mode``,
``deal``, ``players``, ``actions``, the chain) and the judges' actions; the
rest of the header is the game's (``Records.keys``, read with its
``read_header``: for Harem Master the rulings, automatic passing,
``cards:``/``pool:`` and both decks checked against 100.2; written with its
``record_decks``). The header is written from the match's
``Records.setup_of`` and replayed with its ``start`` (the ``decks``
capability) or the position it writes; each action is read with the game's
``read_action``, resolved and applied with its
``action_from_mapping``/``resolve``/``apply``. A game without records
cannot be exported: ``ExportError`` says so.

A match record (docs/scenario-format.md, section 5) names the seed,
the two decks and every action in the scenario notation, player actions and
judges' actions alike. Three things are done with one:

- ``load_record`` reads and checks a record file before anything is played:
  every problem is an ``InputError`` naming the file, the place in it and
  the line; the decks are checked against 100.2 before the actions are read.
- ``replay`` plays it (pure: no database): the match starts with its
  ruleset's ``start`` from the decks and each action goes through the same
  code as the scenario runner, stopping at the first refused action.
- ``export_record`` writes a stored match's log back as a record, and
  ``dump_record`` turns that into YAML. An exported record is self-contained
  (the card definitions it uses are written in ``cards:``, the decks inline in
  their exact original order) and replays to the very same events: the
  export checks that before returning.

Two extensions to the format keep exports self-contained: ``cards:``
(inline card definitions; first match wins: cards, pool, bundled) and
``auto_pass`` (the match's automatic-passing setting). A judge's rewind that
re-applied the retracted actions (``corrections.rewind(..., replay=True)``) is
exported as ``replay: true`` on the rewind, and the actions it replayed are
not written again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from events.kernel import (
    ActionTaken,
    EntryUndone,
    Event,
    GameEnded,
    JudgeCalled,
    NoteAdded,
    Rewound,
    StepSkipped,
    ViolationsAccepted,
)
from referee.actions import IllegalAction
from referee.inputs import MAX_ACTIONS, NAME_LENGTH, TEXT_LENGTH, TITLE_LENGTH, Document, InputError, load_document
from referee.ruleset import DEFAULT_GAME, Records, Ruleset, State, games, get, of_first_event, outcome_json
from referee.scenario import JUDGE_ACTION_KEYS as JUDGES_KEYS, Reader, moves_reader

FORMAT = "harem-master-record/1"  # Harem Master's ``record_format``, what every record so far is in
# The header's keys every game's records share; a game's own
# (``Ruleset.record_keys``) go between ``deal`` and ``players``.
HEAD_KEYS = ("format", "title", "seed", "mode", "deal")
TAIL_KEYS = ("players", "actions", "entries", "chain", "head", "signature")
TOP_KEYS = (*HEAD_KEYS, *TAIL_KEYS)
DEALS = ("seeded", "table")
HASH = re.compile(r"^[0-9a-f]{16,64}$")
MODES = ("strict", "record")
# The keys each kind of record action may carry (read_action checks their values).
JUDGE_ACTION_KEYS = ("judge", "do", *JUDGES_KEYS)


class ExportError(Exception):
    """A stored match that cannot be written as a match record."""


# --- reading ---------------------------------------------------------------------------


@dataclass
class Record:
    """A match record read and checked, ready to replay."""

    file: Path
    seed: int
    mode: str
    options: dict[str, Any]  # the game's own settings (``Setup.options``: Harem Master's rulings, auto_pass)
    names: dict[str, str]
    decks: dict[str, list[Any]]  # each in deck order, top first (before 101.2)
    actions: list[dict[str, Any]]  # checked notation mappings, in order
    doc: Document = field(repr=False)
    deal: str = "seeded"  # table: a paper match; the record's reveal actions say what was turned face up
    # The hash chain an export wrote (``referee.chain``): the chain hash (first
    # 16 hex digits) after the start and after each action, and the full head.
    chain: list[str] | None = None
    head: str | None = None
    catalog: Any = field(default=None, repr=False)  # cards:, pool:, bundled: for cards on neither deck list (100.2)
    game: str = DEFAULT_GAME  # the ruleset whose ``record_format`` the record's ``format`` is
    started: Any = field(default=None, repr=False)  # a record starting from a position: the match it sets up
    # Who entered each action where the store knew it ({action: K (0: the
    # start), by, station}), and the store's signature of the head with them.
    entries: list[dict[str, Any]] | None = None
    signature: dict[str, str] | None = None
    title: str | None = None  # the match's title, which `referee import` gives the match it stores

    @property
    def ruleset(self) -> Ruleset:
        return get(self.game)

    def __getattr__(self, name: str) -> Any:
        """A game's own setting by its name (``record.rulings``)."""
        options = self.__dict__.get("options")
        if options is not None and name in options:
            return options[name]
        raise AttributeError(name)

    def line_of_action(self, k: int) -> int | None:
        """The line of record action ``k`` (from 1), if known."""
        return self.doc.line_of(("actions", k - 1))


def load_record(path: str | Path) -> Record:
    """Read and check a match record file (YAML or JSON); ``InputError`` on any problem."""
    return parse_record(load_document(path))


def record_from_dict(data: dict[str, Any], file: str | Path = "<record>") -> Record:
    """Check a record given as a dict (an export, say). Relative paths in it
    are relative to the current folder; errors name ``file``."""
    return parse_record(Document(Path(file), data))


def parse_record(doc: Document) -> Record:
    reader = Reader(doc)
    # The header's keys are the format's and its game's own (Harem Master's
    # when the format names no game, so the keys a mistake is told are those).
    named = doc.data.get("format") if isinstance(doc.data, dict) else None
    keys = _top_keys(get(_known_format(named) or DEFAULT_GAME))
    data = reader.mapping(doc.data, (), keys, ("format", "seed", "players"))
    game = _game_of_format(reader, data["format"])
    ruleset = get(game)
    reader.seats = ruleset.seats
    seed = reader.int_(data["seed"], ("seed",), -(2**63), 2**63 - 1)  # as `new --seed`: fits in 64 bits
    mode = reader.choice(data.get("mode", "strict"), ("mode",), MODES)
    deal_mode = reader.choice(data.get("deal", "seeded"), ("deal",), DEALS)
    header = _records(ruleset).read_header(reader, data)  # the decks are checked before any action is read
    actions: list[dict[str, Any]] = []
    raw_actions = data.get("actions")
    listed = reader.seq(raw_actions if raw_actions is not None else [], ("actions",), MAX_ACTIONS, "actions")
    for i, raw in enumerate(listed):
        actions.append(_action(reader, ruleset, raw, ("actions", i)))
    chain = None
    if data.get("chain") is not None:
        chain = [
            _hash(reader, h, ("chain", i))
            for i, h in enumerate(reader.seq(data["chain"], ("chain",), MAX_ACTIONS + 1, "hashes"))
        ]
    head = _hash(reader, data["head"], ("head",)) if data.get("head") is not None else None
    entries = _entries(reader, data.get("entries")) if data.get("entries") is not None else None
    signature = None
    if data.get("signature") is not None:
        sig = reader.mapping(data["signature"], ("signature",), ("key", "value"), ("key", "value"))
        signature = {k: reader.text(sig[k], ("signature", k), 200) for k in ("key", "value")}
    title = reader.text(data["title"], ("title",), TITLE_LENGTH) if data.get("title") is not None else None
    return Record(
        doc.file,
        seed,
        mode,
        dict(header.options),
        dict(header.names),
        {seat: list(cards) for seat, cards in header.decks.items()},
        actions,
        doc,
        deal_mode,
        chain,
        head,
        header.catalog,
        game,
        header.started,
        entries,
        signature,
        title,
    )


ENTRY_KEYS = ("action", "by", "station")


def _entries(reader: Any, value: Any) -> list[dict[str, Any]]:
    """A record's ``entries``: who entered which action (0: the start), each
    once, in order. (One naming an action the record lacks is not an input
    error: the signature covers the entries, so such a record is refused as
    changed, exit 1, by whatever checks its proof.)"""
    out: list[dict[str, Any]] = []
    last = -1
    for i, raw in enumerate(reader.seq(value, ("entries",), MAX_ACTIONS + 1, "entries")):
        entry = reader.mapping(raw, ("entries", i), ENTRY_KEYS, ("action",))
        k = reader.int_(entry["action"], ("entries", i, "action"), 0, MAX_ACTIONS)
        if k <= last:
            raise reader.err(("entries", i, "action"), f"expected an action after {last}, in order, each once")
        last = k
        out.append(
            {
                "action": k,
                **{key: reader.text(entry[key], ("entries", i, key), 200) for key in ("by", "station") if key in entry},
            }
        )
    return out


def _with_unlisted(ruleset: Ruleset, state: State, action: Any, lookup: Any) -> Any:
    """``action`` with the definitions of cards it shows that no deck lists
    (a game with decks: ``Decks.with_unlisted``); else as it is."""
    return ruleset.decks.with_unlisted(state, action, lookup) if ruleset.decks is not None else action


def _records(ruleset: Ruleset) -> Records:
    """The game's match records (``Records``), or ``Lacks`` in one line."""
    found: Records = ruleset.need("records", "its matches cannot be written as records")
    return found


def record_format(ruleset: Ruleset) -> str | None:
    """The ``format`` a record of the game has, None if it has no records."""
    return ruleset.records.format if ruleset.records is not None else None


def _top_keys(ruleset: Ruleset) -> tuple[str, ...]:
    return (*HEAD_KEYS, *(ruleset.records.keys if ruleset.records is not None else ()), *TAIL_KEYS)


def _known_format(fmt: Any) -> str | None:
    """The game whose record format ``fmt`` is, None if none is."""
    if fmt == record_format(get(DEFAULT_GAME)):
        return DEFAULT_GAME
    return next((game for game in games() if isinstance(fmt, str) and record_format(get(game)) == fmt), None)


def _game_of_format(reader: Any, fmt: Any) -> str:
    """The game whose ruleset writes records in format ``fmt`` (Harem
    Master's first: every record so far is in its format, and no other game
    is imported to read one)."""
    if fmt == record_format(get(DEFAULT_GAME)):
        return DEFAULT_GAME
    formats: list[str] = []
    for game in games():
        known = record_format(get(game))
        if known is None:
            continue
        if fmt == known:
            return game
        formats.append(known)
    raise reader.err(("format",), f"expected {' or '.join(formats)}, got {fmt!r}")


def _hash(reader: Any, value: Any, path: tuple[Any, ...]) -> str:
    text = reader.str_(value, path)
    if not HASH.match(text):
        raise reader.err(path, "expected a hash: 16 to 64 lowercase hex digits")
    return text


def chain_check(record: Record, played: "Replay") -> dict[str, Any] | None:
    """Check a record's own chain against its replay: None when the record
    carries none; else {"status": "intact"|"broken", "head", "broken_at":
    {"action": K, "events": [first, last]} or None, "reason"}. Action 0 is the
    start (the decks and the seed)."""
    from referee.chain import chain_of

    if record.chain is None and record.head is None:
        return None
    hashes = chain_of(played.events)
    at_ends = [hashes[end - 1] if end else "" for end in played.ends]
    head = hashes[-1] if hashes else None
    for k, want in enumerate(record.chain or []):
        if k >= len(at_ends):
            return {
                "status": "broken",
                "head": head,
                "broken_at": None,
                "reason": f"the chain has {len(record.chain or [])} hashes but the record replays only "
                f"{len(at_ends)} (the start and {len(at_ends) - 1} actions): actions were cut from it",
            }
        if not at_ends[k].startswith(want):
            first = played.ends[k - 1] + 1 if k else 1
            return {
                "status": "broken",
                "head": head,
                "broken_at": {"action": k, "events": [first, played.ends[k]]},
                "reason": "the events this action replays to do not fit the record's chain "
                "(the record was changed here, or its chain was)",
            }
    if record.chain is not None and len(record.chain) < len(at_ends):
        k = len(record.chain)
        first = played.ends[k - 1] + 1 if k else 1
        return {
            "status": "broken",
            "head": head,
            "broken_at": {"action": k, "events": [first, played.ends[k]]},
            "reason": f"the chain has hashes for {k} of the record's {len(at_ends)} entries "
            "(the start and each action): actions were added after it was written",
        }
    if record.head is not None and record.head != head:
        return {
            "status": "broken",
            "head": head,
            "broken_at": None,
            "reason": f"the record's head {record.head} is not the head of its replay, {head}",
        }
    return {"status": "intact", "head": head, "broken_at": None, "reason": None}


def add_chain(
    record: dict[str, Any], events: Sequence[Event], envelopes: Sequence[Any] = (), signer: Any = None
) -> dict[str, Any]:
    """An exported record with its proof: who entered each action (from the
    stored events' ``envelopes``, ``MatchEvent``s: their ``by`` and
    ``station``), the chain hash (16 hex digits) after the start and after
    each action, the head at the very end, so two copies can be compared at
    a glance, and the store's ``signer``'s signature of the head with the
    entries (``referee.chain.record_message``)."""
    from referee.chain import chain_of, record_message

    played = replay(record_from_dict(record))
    hashes = chain_of(events)
    out = dict(record)
    entries = entries_of(played.ends, envelopes)
    if entries:
        out["entries"] = entries
    out["chain"] = [hashes[end - 1][:16] for end in played.ends]
    out["head"] = hashes[-1]
    if signer is not None:
        message = record_message(str(out["format"]), out["head"], entries, out.get("title"))
        out["signature"] = {"key": signer.text, "value": signer.sign(message)}
    return out


def entries_of(ends: Sequence[int], envelopes: Sequence[Any]) -> list[dict[str, Any]]:
    """Who entered the start (0) and each action, from the first stored
    event of each (``ends``: the log's length after the start and after each
    action), where the store knew it."""
    out: list[dict[str, Any]] = []
    for k, end in enumerate(ends):
        at = ends[k - 1] if k else 0
        if at >= len(envelopes) or at >= end:
            continue
        env = envelopes[at]
        known = {key: getattr(env, key, None) for key in ("by", "station")}
        if any(known.values()):
            out.append({"action": k, **{key: v for key, v in known.items() if v}})
    return out


def envelopes_of(record: Record, ends: Sequence[int]) -> list[dict[str, str]] | None:
    """The envelope of each event of a record's replay (who entered the
    action it belongs to, from ``entries``), for the store; None without entries."""
    if not record.entries:
        return None
    by_action = {e["action"]: {k: v for k, v in e.items() if k in ("by", "station")} for e in record.entries}
    out: list[dict[str, str]] = []
    for k, end in enumerate(ends):
        out += [by_action.get(k, {})] * (end - len(out))
    return out


def signature_check(
    record: Record, head: str | None, store_key: bytes | None = None, trusted: Sequence[str] = ()
) -> dict[str, Any]:
    """Does the record's signature verify, and whose key is it? {"status":
    "verified" | "unsigned" | "bad", "key", "fingerprint", "trusted": "this
    store" | "--trust" | None, "reason"}: ``bad`` when the signature does not
    sign this record (its head, format and entries) under the key it names."""
    from referee.chain import key_bytes, key_fingerprint, record_message, same_key, verify

    if record.signature is None:
        return {
            "status": "unsigned",
            "key": None,
            "fingerprint": None,
            "trusted": None,
            "reason": "the record carries no signature",
        }
    public = key_bytes(record.signature["key"])
    if public is None:
        return {
            "status": "bad",
            "key": record.signature["key"],
            "fingerprint": None,
            "trusted": None,
            "reason": "its signature's key is not an Ed25519 public key (ed25519: and base64)",
        }
    fingerprint = key_fingerprint(public)
    trust = "this store" if store_key == public else "--trust" if any(same_key(t, public) for t in trusted) else None
    base = {"key": record.signature["key"], "fingerprint": fingerprint, "trusted": trust}
    if head is None or not verify(
        public,
        record.signature["value"],
        record_message(str(record_format(record.ruleset)), head, record.entries or [], record.title),
    ):
        return {
            "status": "bad",
            **base,
            "reason": f"its signature does not sign this record under key {fingerprint}: the record "
            "(or who entered its actions) was changed after it was signed",
        }
    return {"status": "verified", **base, "reason": None}


def _action(reader: Any, ruleset: Ruleset, raw: Any, path: tuple[Any, ...]) -> dict[str, Any]:
    if isinstance(raw, dict):
        judge = raw.get("judge") is True
        allowed = JUDGE_ACTION_KEYS if judge else ("player", "judge", "do", *_records(ruleset).action_args)
        for key in raw:
            if key not in allowed:
                if key == "expect":
                    why = "a match record holds actions only; expectations belong in a scenario"
                else:
                    kind = "a judge action" if judge else "a player action"
                    why = f"{kind} has only: {', '.join(allowed)}"
                raise reader.err(path + (key,), f"unknown key {key!r}; {why}")
    action, _expect = (ruleset.read_action or moves_reader(ruleset))(reader, raw, path)
    for key, limit in (("reason", TEXT_LENGTH), ("text", TEXT_LENGTH), ("by", NAME_LENGTH)):
        if key in action:  # stored with the match and printed in its log
            reader.text(action[key], path + (key,), limit)
    return action


# --- replaying -------------------------------------------------------------------------


@dataclass
class Replay:
    """What a record replays to."""

    events: list[Event]
    state: State
    applied: int  # record actions applied (all of them, unless one was refused)
    violation: dict[str, Any] | None  # {action: K (from 1), rule, message} of the refused action
    ends: list[int] = field(default_factory=list)  # log length after the start and after each applied action
    states: list[State] = field(default_factory=list, repr=False)  # states[i]: after the first i events
    game: str = DEFAULT_GAME  # the ruleset that played it

    @property
    def legal(self) -> bool:
        """No action refused, and every violation recorded on the line of
        play ruled on by a judge (accepted, 410): only an open one makes a
        record not legal."""
        return self.violation is None and all(r["accepted"] for r in self.recorded)

    @property
    def recorded(self) -> list[dict[str, Any]]:
        """Record mode: the violations recorded on the current line of play (a
        rewind that retracted one corrected it), each with its action number
        and whether a judge accepted it. The record is not legal while one
        stands that no judge ruled on (``legal``)."""
        from projections.lineage import live_positions

        live = set(live_positions(self.events))
        accepted_from = {
            p for p, e in enumerate(self.events, 1) if type(e).__name__ == "ViolationsAccepted" and p in live
        }
        out = []
        event: Any  # a ViolationRecorded once the test below passes (dispatch by class name)
        for pos, event in enumerate(self.events, start=1):
            if type(event).__name__ != "ViolationRecorded" or pos not in live:
                continue
            k = next((i for i, end in enumerate(self.ends) if end >= pos), len(self.ends))
            out.append(
                {
                    "action": k,
                    "rule": event.rule,
                    "message": event.reason,
                    "accepted": any(a > pos for a in accepted_from),
                }
            )
        return out

    @property
    def first_violation(self) -> dict[str, Any] | None:
        """The refused action, else the first violation recorded in record
        mode that no judge accepted."""
        if self.violation is not None:
            return self.violation
        return next((r for r in self.recorded if not r["accepted"]), None)

    @property
    def result(self) -> dict[str, Any] | None:
        return outcome_json(get(self.game).result(self.state))


def replay(record: Record) -> Replay:
    """Deal the decks, start the match and apply each action in order; stop at
    the first refused one. Judge actions go through the scenario runner's
    ``judge_action`` (``to: {action: K}`` is the position just before record
    action K).

    The state after every event is kept as the log grows (one ``evolve`` per
    event), so a rewind looks its target up instead of refolding the log:
    replaying a record takes time in proportion to its length, however many
    rewinds it holds."""
    from referee.corrections import collector_paused

    with collector_paused():
        return _replay(record)


def _replay(record: Record) -> Replay:
    from referee.corrections import states_along
    from referee.scenario import judge_action

    ruleset = record.ruleset
    started = _started(record)
    state, log = started.state, list(started.events)
    labels = (dict(record.started.labels) or None) if record.started is not None else None
    states = states_along(log)
    ends = [len(log)]
    before: list[int] = []
    violation = None
    for k, raw in enumerate(record.actions, start=1):
        before.append(len(log))
        try:
            if raw.get("judge") is True:
                applied = judge_action(state, log, raw, before, states)
            else:
                action = ruleset.action_from_mapping(raw)
                if record.catalog is not None:
                    action = _with_unlisted(ruleset, state, action, record.catalog.get)
                applied = ruleset.apply(state, ruleset.resolve(state, action, labels))
        except IllegalAction as exc:
            violation = {"action": k, "rule": exc.refusal.rule, "message": exc.refusal.reason}
            break
        log.extend(applied.events)
        states_along(log, states)
        state = applied.state
        ends.append(len(log))
    return Replay(log, state, len(ends) - 1, violation, ends, states, record.game)


# --- exporting -------------------------------------------------------------------------


def export_record(
    events: Sequence[Event], *, by_name: bool = False, verify: bool = True, title: str | None = None
) -> dict[str, Any]:
    """A stored match's log as a record dict, in the format's key order,
    with the match's ``title`` if it has one (``referee import`` gives it back).
    (The walk runs with the garbage collector paused: see ``replay``.)

    Player actions name cards by instance id (``A:12``); with ``by_name``,
    an action names them by card name wherever the name means the very same
    cards to the notation (so the record replays identically either way).
    With ``verify`` (the default) the record is replayed and must give back
    exactly ``events``; ``ExportError`` otherwise, and for a match that did
    not start from decks (a scenario's set-up position) or whose game has no
    record format (no ``records`` capability)."""
    log = list(events)
    if not log:
        raise ExportError("the match has no events")
    first = log[0]
    ruleset = of_first_event(first)
    records = ruleset.records
    if records is None:
        raise ExportError(
            f"{ruleset.name} ({ruleset.id}) has no match-record format yet (no records capability): "
            "its matches start from a set-up position, which no record format writes, "
            "so this match cannot be exported as a record"
        )
    if not isinstance(first, ruleset.first_events):
        raise ExportError(
            f"the match starts with {type(first).__name__}, not {' or '.join(c.__name__ for c in ruleset.first_events)}"
        )
    origin = getattr(first, "origin", None)
    if origin is not None:
        raise ExportError(
            f"the match is a what-if fork of {origin.match} at event {origin.at}, not a game played from the "
            f"shuffle: export {origin.match} itself, or write the question as a scenario (referee scenario from)"
        )
    setup = records.setup_of(first)
    if setup is None:
        raise ExportError(
            "the match was started from a set-up position (a scenario), not from two decks; "
            "a match record starts from the shuffle (101), so this match cannot be exported as one"
        )
    try:
        written = records.record_decks(setup, log)
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    cards, decks, unlisted = list(written.cards), written.decks, written.unlisted
    out: dict[str, Any] = {
        "format": records.format,
        **({"title": title} if title else {}),
        "seed": setup.seed,
        "mode": setup.mode,
        **({"deal": setup.deal} if setup.deal != "seeded" else {}),
        **{key: _plain(value) for key, value in setup.options.items()},  # the game's own settings
    }
    if cards:
        out["cards"] = cards
    out.update(written.more)
    out["players"] = {
        p: {"name": setup.names.get(p, p), **({"deck": decks[p]} if p in decks else {})} for p in ruleset.seats
    }
    if not verify:
        out["actions"] = _actions(log, by_name, None, unlisted.get)
        return out
    # Verified in the same pass that writes the actions: the record's decks
    # must start the very same match, and each action written, applied as a
    # replay of the record would apply it, must give the very events that
    # follow in the log. So the record replays to exactly ``events``.
    header = _parsed({**out, "actions": []})
    from referee.corrections import collector_paused

    with collector_paused():
        started = _started(header)
    _check_same(started.events, log, 0)
    out["actions"] = _actions(log, by_name, len(started.events), unlisted.get)
    _parsed(out)  # the whole record, as `referee import` will read it
    return out


def _plain(value: Any) -> Any:
    """A setting as the record writes it (a mapping as a plain dict)."""
    return dict(value) if isinstance(value, Mapping) else value


def _actions(
    log: list[Event], by_name: bool, verify_from: int | None, unlisted: Any = lambda name: None
) -> list[dict[str, Any]]:
    """The record's actions for ``log``, walking it once with the state after
    every event kept (``corrections.states_along``), so a rewind re-made to
    see whether it replayed looks its target up instead of refolding.

    With ``verify_from`` (the length of the verified start), each action is
    also applied as ``replay`` would apply the record's entry, and must give
    exactly the events that follow in the log (``ExportError`` otherwise);
    without it the log is only walked (an audit compares the replay itself)."""
    from referee.corrections import collector_paused

    with collector_paused():
        return _walk(log, by_name, verify_from, unlisted)


def _walk(log: list[Event], by_name: bool, verify_from: int | None, unlisted: Any) -> list[dict[str, Any]]:
    from referee.corrections import states_along
    from referee.scenario import judge_action

    ruleset = of_first_event(log[0]) if log else get()
    judges_rules = ruleset.rewinds.rules if ruleset.rewinds is not None else ()
    verify = verify_from is not None
    i = verify_from or 0
    states = states_along(log, upto=i)
    out: list[dict[str, Any]] = []
    while i < len(log):
        ev = log[i]
        state = states[i]
        entry: dict[str, Any] | None = None
        n = 1  # events this entry accounts for
        checked = False  # its events compared with the log already
        if isinstance(ev, ActionTaken):
            entry = _player_action(ruleset, state, ev, by_name)
        elif (
            type(ev) is Rewound
            and ev.judge is None
            and ev.rule not in judges_rules
            and i + 1 < len(log)
            and isinstance(following := log[i + 1], ActionTaken)
        ):
            # A rewind no judge made and no correction rule cites: the rules
            # took their own steps back for the action that follows (Harem
            # Master's late interception, 306.5c), which makes it again.
            entry = _player_action(ruleset, state, following, by_name)
            n = 2
        elif isinstance(ev, EntryUndone):
            # Whoever logged the last entry took it back (the board's undo).
            entry = {"judge": True, "do": "undo", "to": {"event": ev.to}, "by": ev.by}
            if ev.reason != EntryUndone.model_fields["reason"].default:
                entry["reason"] = ev.reason
        elif isinstance(ev, Rewound):
            entry = {"judge": True, "do": "rewind", "to": {"event": ev.to}, "rule": ev.rule, "reason": ev.reason}
            replayed = _replayed(state, log, i, states)
            if replayed:  # the rewind and the events of the actions it replayed, compared already
                entry["replay"] = "after" if ev.after else True
                n, checked = replayed, True
            if ev.judge:
                entry["by"] = ev.judge
        elif isinstance(ev, NoteAdded):
            entry = {"judge": True, "do": "note", "text": ev.text, **({"by": ev.judge} if ev.judge else {})}
        elif isinstance(ev, JudgeCalled):
            entry = {
                "judge": True,
                "do": "call",
                **({"reason": ev.reason} if ev.reason else {}),
                **({"by": ev.by} if ev.by else {}),
            }
        elif isinstance(ev, ViolationsAccepted):
            entry = {
                "judge": True,
                "do": "accept",
                "reason": ev.reason,
                **({"by": ev.judge} if ev.judge else {}),
                **({"at": ev.at[0]} if len(ev.at) == 1 else {}),
            }
        elif isinstance(ev, GameEnded) and ev.judge is not None:
            # A result a judge entered by hand (tournament policy TP1).
            entry = {
                "judge": True,
                "do": "result",
                "winner": ev.winner or "draw",
                "rule": ev.rule,
                "reason": ev.reason,
                "by": ev.judge,
            }
        elif isinstance(ev, StepSkipped):
            entry = {"judge": True, "do": "skip_step", "rule": ev.rule, **({"reason": ev.reason} if ev.reason else {})}
        if entry is not None:
            out.append(entry)
        if verify and not checked:
            if entry is None:  # an event that no action of the record makes
                raise _differs(i + 1)
            try:
                if entry.get("judge") is True:
                    made = judge_action(state, log[:i], entry, [], states)
                else:
                    action = _with_unlisted(ruleset, state, ruleset.action_from_mapping(entry), unlisted)
                    made = ruleset.apply(state, ruleset.resolve(state, action))
            except IllegalAction as exc:
                raise ExportError(
                    f"the exported record does not replay: action {len(out)} is refused "
                    f"({exc.refusal.rule}): {exc.refusal.reason}"
                ) from None
            _check_same(made.events, log, i)
            n = len(made.events)
        i += n
        states_along(log, states, upto=i)
    return out


def _started(record: Record) -> Any:
    """The first events of a record's replay: the position it sets up, or
    the match its ruleset starts from its decks, seed and settings (``Ruleset.start``)."""
    if record.started is not None:
        return record.started
    return record.ruleset.start(
        record.decks,
        seed=record.seed,
        deal=record.deal,
        names=record.names,
        mode=record.mode,
        options=record.options,
    )


def _check_same(made: Sequence[Event], log: list[Event], at: int) -> None:
    """``made`` must be the events of ``log`` from index ``at`` on."""
    for k, event in enumerate(made):
        if at + k >= len(log) or not _same([event], [log[at + k]]):
            raise _differs(at + k + 1)


def _differs(position: int) -> ExportError:
    return ExportError(f"the exported record does not replay to the stored log: they differ at event {position}")


def _parsed(record: dict[str, Any]) -> Record:
    try:
        return record_from_dict(record, "<exported record>")
    except InputError as exc:
        raise ExportError(f"the match cannot be written as a valid record: {exc.message}") from None


def _action_of(ruleset: Ruleset, ev: ActionTaken) -> Any:
    """The action an ``ActionTaken`` records, as its game reads the notation."""
    args = {k: v for k, v in ev.args.items() if k in _records(ruleset).action_args and v is not None}
    return ruleset.action_from_mapping({"player": ev.player, "do": ev.do, **args})


def _player_action(ruleset: Ruleset, state: State, ev: ActionTaken, by_name: bool) -> dict[str, Any]:
    action = _action_of(ruleset, ev)
    entry = action.to_dict()
    spec = ruleset.actions.get(ev.do)
    if spec is not None and any(a.kind in ("name", "names") for a in spec.args or ()):
        # What the table turned face up, by name (a reveal names a card of the
        # deck list, not one instance; an id given stands for its name).
        cards = ruleset.cards_of(state)

        def shown(ref: Any) -> Any:
            cd = cards.get(ref)
            return cd.name if cd is not None and not getattr(cd, "filler", False) else ref

        if "card" in entry:
            entry["card"] = shown(entry["card"])
        if "cards" in entry:
            entry["cards"] = [shown(c) for c in entry["cards"]]
        return entry
    if not by_name:
        return entry

    cards = ruleset.cards_of(state)

    def name(cid: Any) -> Any:
        cd = cards.get(cid)
        return cd.name if cd is not None and not getattr(cd, "filler", False) else cid

    named = dict(entry)
    for key in ("card", "target"):
        if key in named:
            named[key] = name(named[key])
    for key in ("cards", "targets"):
        if key in named:
            named[key] = [name(c) for c in named[key]]
    if named == entry:
        return entry
    try:
        same = ruleset.resolve(state, ruleset.action_from_mapping(named)) == action
    except IllegalAction:
        same = False
    return named if same else entry


def _same(a: Sequence[Event], b: Sequence[Event]) -> bool:
    """The same events as stored: equal models, or equal once dumped as JSON
    (which is all a stored event keeps)."""
    return len(a) == len(b) and all(
        type(x) is type(y) and (x == y or x.model_dump(mode="json") == y.model_dump(mode="json")) for x, y in zip(a, b)
    )


def _replayed(state: State, log: list[Event], i: int, states: list[State]) -> int:
    """If the rewind at ``log[i]`` was made with ``replay`` (the retracted actions
    applied again), the number of events from it that such a rewind makes;
    else 0. The log does not say whether the judge asked for the replay, so
    the rewind is re-made with it: where that gives exactly the events that
    follow and replays at least one action, ``replay: true`` with those
    actions left out reproduces the log (and so does the other reading).
    ``states`` are the states along ``log`` up to ``i`` at least."""
    from referee.corrections import rewind

    ev = log[i]
    assert isinstance(ev, Rewound)
    try:
        made = rewind(
            state,
            log[:i],
            ev.to,
            rule=ev.rule,
            reason=ev.reason,
            judge=ev.judge,
            replay=True,
            after=ev.after,
            states=states,
            describe_undone=False,
        )
    except IllegalAction:
        return 0
    if made.replay is None or (made.replay.replayed == 0 and not ev.replay):
        return 0
    n = len(made.events)
    return n if _same(log[i : i + n], made.events) else 0


# --- writing YAML ----------------------------------------------------------------------

ORDER = (
    "format",
    "title",
    "seed",
    "mode",
    "deal",
    "rulings",
    "pool",
    "auto_pass",
    "cards",
    "setup",
    "players",
    "actions",
    "entries",
    "chain",
    "head",
    "signature",
)


def dump_record(record: dict[str, Any], comment: str | None = None) -> str:
    """The record as YAML, keys in the format's order, one card, deck entry
    or action per line in flow style. ``comment`` lines go on top as ``#``."""
    lines: list[str] = []
    if comment:
        lines += [("# " + c).rstrip() for c in comment.splitlines()]
    keys = [k for k in ORDER if k in record] + [k for k in record if k not in ORDER]
    for key in keys:
        value = record[key]
        if key in ("cards", "actions", "entries") and isinstance(value, list):
            if not value:
                lines.append(f"{key}: []")
                continue
            lines.append(f"{key}:")
            lines += [f"  - {_flow(item)}" for item in value]
        elif key == "setup" and isinstance(value, dict):  # a position, as a position file writes it
            lines.append("setup:")
            block = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=None, width=10**9)
            lines += ["  " + line for line in block.splitlines()]
        elif key == "players" and isinstance(value, dict):
            lines.append("players:")
            for p, entry in value.items():
                lines.append(f"  {_flow(p)}:")
                for k, v in entry.items():
                    if k == "deck" and isinstance(v, list):
                        lines.append("    deck:")
                        lines += [f"      - {_flow(item)}" for item in v]
                    else:
                        lines.append(f"    {_flow(k)}: {_flow(v)}")
        else:
            lines.append(f"{_flow(key)}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    text = yaml.safe_dump([value], default_flow_style=True, width=float("inf"), allow_unicode=True)
    text = text.strip()
    if text.endswith("..."):
        text = text[:-3].strip()
    inner = text[1:-1]  # in a flow list, so quoted wherever flow context needs it
    if "\n" in inner:
        import json

        return json.dumps(value, ensure_ascii=False)
    return inner


__all__ = [
    "FORMAT",
    "ExportError",
    "Record",
    "Replay",
    "dump_record",
    "export_record",
    "load_record",
    "parse_record",
    "record_from_dict",
    "outcome_json",
    "replay",
]
