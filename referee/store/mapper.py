"""Our pydantic mapper for eventsourcing 9.5: the stored events ARE the domain events.

Every game's events (Harem Master's ``events.harem_master.game``, SCP-TCG's
``events.scp_tcg.zones``...) are frozen pydantic models with no
originator fields, because they are facts about a game, not about a
database. ``MatchEvent`` is the envelope the library needs around one of
them (match id, position, time); ``StateSnapshot`` is the envelope of a
game's state taken at a position. The mapper stores:

- topic the domain event's stored name (``events.game:CardMovedToStack``:
  registered, ``events.names``, not its module's path), and
  state = the event's ``model_dump(mode="json")`` plus envelope keys that
  start with ``_`` (pydantic fields never do): ``_timestamp``, ``_name``
  on a match's first event when it was given one, and on the events of one
  entry made at the board ``_by`` (who entered it: "judge Kim",
  "scorekeeper of e-1a2b3c4d", "player A") and ``_entry`` (that submission's
  id, so a repeated submission is recognised). The envelope is not part of
  the hash chain: it says who wrote an event, not what happened;
- topic the state class's stored name (``projections.state:GameState`` for
  Harem Master, ``projections.scp_tcg.state:ZoneState``...) for a snapshot,
  with the state written by that game's ruleset (``statecodec``).

On reading, a topic is resolved through ``events.TOPIC_ALIASES`` (a renamed
class keeps old logs readable), then the registered names, old namespaces
included (``events.kernel:ActionTaken``, written while classes were stored
by module path, reads as ``events.game:ActionTaken``): the kernel's modules
and, in registry order, the games are imported until one declares the
name's namespace; never by importing whatever a database row names.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from eventsourcing.persistence import (
    Mapper,
    MapperDeserialisationError,
    StoredEvent,
    Transcoder,
    Transcoding,
)
from pydantic import BaseModel

import events as events_package
from events import names
from events.kernel import Event
from referee import ruleset as registry
from referee.chain import GENESIS, HASH_KEY, chain_hash, chain_step, event_json, split_chained  # noqa: F401 (the chain is written here)
from referee.store.statecodec import IncompatibleSnapshot, encode_state, state_topic


def row_bytes(state: bytes | str) -> bytes:
    """A stored row's state as bytes. A row edited by hand can come back as
    text (SQLite's ``replace()`` turns a blob into text): read as its UTF-8
    bytes, the hash chain then names the edit instead of a traceback."""
    return state.encode("utf-8") if isinstance(state, str) else bytes(state)


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """One domain event in a match's log, with the envelope the library stores.

    ``originator_version`` is the event's position: event 1 is the first, and
    the state after event N has ``position == N``."""

    originator_id: str  # the match id
    originator_version: int
    timestamp: datetime
    event: Event
    name: str | None = None  # the match's name, on its first event only
    hash: str | None = None  # the chain hash stored with it (None: stored before chains)
    by: str | None = None  # who entered it at the board (None: a command-line station)
    entry: str | None = None  # the board submission it came from
    station: str | None = None  # the machine that wrote it, where known
    sig: str | None = None  # the store's signature of the head after it (the last event of a write)

    @property
    def match_id(self) -> str:
        return self.originator_id

    @property
    def position(self) -> int:
        return self.originator_version


@dataclass(frozen=True, slots=True)
class StateSnapshot:
    """The state of a match after event ``originator_version``.

    ``state`` is None when the snapshot was written for a differently shaped
    state: the store then ignores it and folds the events instead; or when
    it holds its card definitions by reference: ``cards_at`` is then the
    version of the match's snapshot that holds them, and ``partial`` the
    rest of the state as stored, which the store decodes with that
    snapshot's state as the base (``MatchStore``). Written with
    ``cards_at``, the snapshot leaves the cards out and names that version:
    a match's card definitions are nine tenths of a snapshot and seldom
    change, so each snapshot need not repeat them. A reader from before
    this finds the cards missing and folds the events instead."""

    originator_id: str
    originator_version: int
    timestamp: datetime
    state: Any | None
    cards_at: int | None = None
    partial: dict[str, Any] | None = None


def event_topic(cls: type[Event]) -> str:
    """The stored name of a domain event class (``events.names``), checked
    to be readable back."""
    topic = names.stored_name(cls)  # TypeError: a class of no module that declared its names
    try:
        readable = resolve_event_topic(topic) is cls
    except LookupError:
        readable = False
    if not readable:
        raise TypeError(f"{cls.__qualname__} is stored as {topic!r}, which reads back as another class")
    return topic


# class -> (its stored name, the topic line its chain hash covers). A class once
# found readable stays so: rulesets are only ever added to the registry, and
# ``events.TOPIC_ALIASES`` is fixed when ``events`` is imported.
_topics: dict[type, tuple[str, bytes]] = {}


def _topic_of(cls: type[Event]) -> tuple[str, bytes]:
    """``event_topic(cls)`` and its chain's topic line (``referee.chain``),
    worked out once per class: a write of an action's few events used to
    spend a third of its time looking them up again."""
    known = _topics.get(cls)
    if known is None:
        topic = event_topic(cls)
        known = _topics[cls] = (topic, names.canonical(topic).encode() + b"\n")
    return known


def _class_of(name: str) -> type:
    """The class stored as ``name``; ``LookupError`` if none is. The classes
    known so far are looked at first, then those of the kernel's module that
    stores under its namespace, then each game's, imported in registry order
    (so a game's own events import no later game); never whatever a row names."""
    events_package.load_namespace(name)
    try:
        return names.class_of(name)
    except LookupError:
        pass
    for game in registry.games():
        registry.get(game)
        try:
            return names.class_of(name)
        except LookupError:
            continue
    raise LookupError(f"no class is stored as {name!r}")


_snapshot_topics: dict[str, registry.Ruleset[Any, Any] | None] = {}


def snapshot_ruleset(topic: str) -> registry.Ruleset[Any, Any] | None:
    """The ruleset whose state a snapshot stored under ``topic`` holds (its
    state class, by the name it was stored under); None when ``topic`` is not
    a snapshot's (an event's)."""
    if topic in _snapshot_topics:
        return _snapshot_topics[topic]
    found: registry.Ruleset[Any, Any] | None = None
    try:
        cls = _class_of(topic)
    except LookupError:
        cls = None
    if cls is not None and not events_package.is_event_class(cls):
        found = next((registry.get(g) for g in registry.games() if registry.get(g).state_type is cls), None)
    _snapshot_topics[topic] = found
    return found


def resolve_event_topic(topic: str) -> type[Event]:
    """The event class of a stored name: aliases first (following renames of
    renames), then the registered names (``events.names``, old namespaces
    included); ``LookupError`` if none is an event class."""
    seen = {topic}
    while topic in events_package.TOPIC_ALIASES:
        topic = events_package.TOPIC_ALIASES[topic]
        if topic in seen:
            raise LookupError(f"events.TOPIC_ALIASES has a cycle through {topic!r}")
        seen.add(topic)
    try:
        cls = _class_of(topic)
    except LookupError:
        cls = None
    if cls is None or not events_package.is_event_class(cls):
        raise LookupError(
            f"no event class for stored topic {topic!r}: if the class was renamed, "
            "register the old name in events.TOPIC_ALIASES"
        )
    return cls


def topics_of(*classes: type[BaseModel]) -> list[str]:
    """Every stored name that reads as one of ``classes``: its own, the old
    namespaces' (``events.names.ONCE``), its module path, any alias."""
    wanted = set(classes)
    topics = {f"{c.__module__}:{c.__qualname__}" for c in classes}
    for c in classes:
        topics |= names.names_of(c)
    for old in events_package.TOPIC_ALIASES:
        try:
            if resolve_event_topic(old) in wanted:
                topics.add(old)
        except LookupError:
            continue
    return sorted(topics)


# --- the hash chain ---------------------------------------------------------------------
#
# Every event is stored with ``"_hash"``: sha256 of the previous event's hash
# (of the same match or tournament; ``GENESIS`` before the first), the topic
# and the event's own JSON bytes, as hex. It covers what happened (the event),
# not when a station wrote it (``_timestamp``), so a match record replayed
# from its seed gives the very same chain and an export can end with its head.
# In the stored row it sits right after the event's fields and before the
# other envelope keys, so the exact bytes that were hashed are recovered by
# cutting the row there (``split_chained``): ``,"`` never occurs inside a JSON
# string, and the envelope keys come last. (``referee.chain`` holds the functions.)


class JSONBytes(Transcoder):
    """Compact UTF-8 JSON. Pydantic already turned the event into JSON types,
    so the library's type-tagging ``JSONTranscoder`` has nothing to do."""

    def encode(self, obj: Any) -> bytes:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()

    def decode(self, data: bytes) -> Any:
        return json.loads(data)

    def register(self, transcoding: Transcoding) -> None:
        raise TypeError("JSONBytes stores pydantic JSON: describe new types as pydantic fields")


class PydanticEventMapper(Mapper[str]):
    """Maps ``MatchEvent`` and ``StateSnapshot`` envelopes to stored events and back.

    Reading remembers what it decoded, keyed by the row itself (match,
    position, topic and stored bytes): rows are append-only and what they
    decode to is immutable, so a judge stepping through ``state_at`` pays for
    pydantic and JSON once per row, not once per look. (Snapshots are not
    kept here: the store keeps the few it uses, decoded.)"""

    memo_size = 20_000  # decoded rows kept; a long match is ~1,500

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._memo: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._memo_lock = threading.Lock()
        self.station: str | None = None  # written as ``_station`` on every event (``MatchStore`` sets it)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        if isinstance(domain_event, MatchEvent):
            return self.to_stored_events(
                domain_event.originator_id,
                domain_event.originator_version - 1,
                domain_event.timestamp,
                [domain_event.event],
                domain_event.name,
                by=domain_event.by,
                entry=domain_event.entry,
            )[0]
        if isinstance(domain_event, StateSnapshot):
            if domain_event.state is None:
                raise ValueError("cannot store a snapshot without a state")
            return StoredEvent(
                originator_id=domain_event.originator_id,
                originator_version=domain_event.originator_version,
                topic=state_topic(type(domain_event.state)),
                state=self._seal(
                    self._snapshot_body(domain_event.timestamp, domain_event.state, domain_event.cards_at)
                ),
            )
        raise TypeError(f"cannot store a {type(domain_event).__qualname__}")

    def _snapshot_body(self, timestamp: datetime, state: Any, cards_at: int | None = None) -> bytes:
        """``{"_timestamp": ..., **encode_state(state, snapshot=True)}`` as JSON, written by
        the ruleset of the state's game (``statecodec``). With ``cards_at``
        (see ``StateSnapshot``) the cards are left out, as a rewind's restored
        state leaves them out, and ``"_cards_at"`` names the snapshot that
        holds them. (The walk keeps what it wrote of the card definitions:
        ``projections.encoding``.)"""
        head: dict[str, Any] = {"_timestamp": timestamp.isoformat()}
        if cards_at is not None:
            head["_cards_at"] = cards_at
            return self.transcoder.encode({**head, **encode_state(state, ("cards",), snapshot=True)})
        return self.transcoder.encode({**head, **encode_state(state, snapshot=True)})

    def to_stored_events(
        self,
        match_id: str,
        version: int,
        timestamp: datetime,
        events: list[Event],
        name: str | None = None,
        *,
        by: str | None = None,
        entry: str | None = None,
    ) -> list[StoredEvent]:
        """The stored events of ``events`` as positions ``version + 1``,
        ``version + 2``... of a match, all written at ``timestamp``, ``name``
        on the first: the same as ``to_stored_event`` of each one's
        ``MatchEvent``, made without the envelopes (see ``to_rows``)."""
        rows = self.to_rows(match_id, version, timestamp, events, name, by=by, entry=entry)
        return [StoredEvent(*row) for row in rows]

    def to_rows(
        self,
        match_id: str,
        version: int,
        timestamp: datetime,
        events: list[Event],
        name: str | None = None,
        *,
        by: str | None = None,
        entry: str | None = None,
    ) -> list[tuple[str, int, str, bytes]]:
        """``chained_rows`` without a chain (rows as written before chains)."""
        return self.chained_rows(match_id, version, timestamp, events, name, None, by, entry)[0]

    def chained_rows(
        self,
        match_id: str,
        version: int,
        timestamp: datetime,
        events: list[Any],
        name: str | None = None,
        prev: str | None = GENESIS,
        by: str | None = None,
        entry: str | None = None,
        sign: Callable[[int, str], str] | None = None,
        envelopes: list[dict[str, str]] | None = None,
    ) -> tuple[list[tuple[str, int, str, bytes]], str | None]:
        """``to_stored_events`` as plain (match, position, topic, bytes) rows,
        which is what SQLite takes: one tuple per event and nothing else.

        Pydantic writes each event's JSON bytes itself (the serializer that
        ``model_dump_json`` calls, in Rust: the same JSON as
        ``model_dump(mode="json")`` then ``json.dumps``), and the envelope keys
        are spliced in before its closing brace, so nothing is dumped to
        Python objects and back. ``by`` and ``entry`` go on every event of
        the write (one entry at the board), and the station's name
        (``_station``, the machine that wrote) when ``station`` is set.
        ``envelopes`` (an imported record's: one mapping per event of who
        entered it) replace ``by`` event by event. ``sign(version, head)``
        signs the head after the last event (``_sig`` on that one)."""
        stamp = b',"_timestamp":"' + timestamp.isoformat().encode() + b'"'  # ISO digits: nothing to escape
        if by is not None:
            stamp += b',"_by":' + json.dumps(by, ensure_ascii=False).encode()
        if entry is not None:
            stamp += b',"_entry":' + json.dumps(entry, ensure_ascii=False).encode()
        if self.station is not None and envelopes is None:
            stamp += b',"_station":' + json.dumps(self.station, ensure_ascii=False).encode()
        stamp += b"}"
        seal = self._seal if (self.compressor or self.cipher) else None
        rows: list[tuple[str, int, str, bytes]] = []
        append = rows.append
        bodies: list[bytes] = []  # each event's hashed JSON, for the rows made again below
        link = prev.encode() if prev is not None else None
        topics = _topics
        for event in events:
            cls = type(event)
            body = cls.__pydantic_serializer__.to_json(event)  # '{...}'; '{}' without fields
            known = topics.get(cls) or _topic_of(cls)
            topic = known[0]
            if link is not None:
                link = chain_step(link, known[1], body)
                body = body[:-1] + (b"," if len(body) > 2 else b"") + b'"_hash":"' + link + b'"}'
            bodies.append(body)
            data = body[:-1] + stamp if len(body) > 2 else b"{" + stamp[1:]
            version += 1
            append((match_id, version, topic, seal(data) if seal else data))
        head = link.decode() if link is not None else None
        if rows and (name is not None or sign is not None or envelopes is not None):
            # The rows whose envelope differs from the others': made again.
            extra: dict[int, bytes] = {}
            if envelopes is not None:
                for k, env in enumerate(envelopes[: len(rows)]):
                    extra[k] = b"".join(
                        b',"_%s":%s' % (key.encode(), json.dumps(value, ensure_ascii=False).encode())
                        for key, value in env.items()
                        if key in ("by", "station") and isinstance(value, str)
                    )
            if name is not None:
                extra[0] = extra.get(0, b"") + b',"_name":' + json.dumps(name, ensure_ascii=False).encode()
            if sign is not None and head is not None:
                last = len(rows) - 1
                extra[last] = extra.get(last, b"") + b',"_sig":"' + sign(version, head).encode() + b'"'
            for k, more in extra.items():
                row_id, row_version, topic, _ = rows[k]
                body = bodies[k]
                tail = stamp[:-1] + more + b"}"
                data = body[:-1] + tail if len(body) > 2 else b"{" + tail[1:]
                rows[k] = (row_id, row_version, topic, seal(data) if seal else data)
        return rows, head

    def unseal(self, data: bytes) -> bytes:
        """A stored row's bytes as written before compression and encryption."""
        data = row_bytes(data)
        if self.cipher:
            data = self.cipher.decrypt(data)
        if self.compressor:
            data = self.compressor.decompress(data)
        return data

    def first_game(self, stored_event: StoredEvent) -> str | None:
        """The game a match's first stored row names (``registry.game_of``
        of the event it holds), read from its JSON without building the event."""
        where = f"event 1 of match {stored_event.originator_id} (topic {stored_event.topic!r})"
        try:
            body = self.transcoder.decode(self.unseal(stored_event.state))
        except Exception as exc:  # noqa: BLE001 - any failure here means an unreadable row
            raise MapperDeserialisationError(f"cannot read {where}: {exc}") from exc
        game = body.get("game") if isinstance(body, dict) else None
        return game if isinstance(game, str) and game else None

    def _seal(self, data: bytes) -> bytes:
        if self.compressor:
            data = self.compressor.compress(data)
        if self.cipher:
            data = self.cipher.encrypt(data)
        return data

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        if snapshot_ruleset(stored_event.topic) is not None:
            return self._decode(stored_event)  # big, and remembered by the store
        key = (
            stored_event.originator_id,
            stored_event.originator_version,
            stored_event.topic,
            row_bytes(stored_event.state),
        )
        with self._memo_lock:
            found = self._memo.get(key)
            if found is not None:
                self._memo.move_to_end(key)
                return found
        decoded = self._decode(stored_event)
        with self._memo_lock:
            self._memo[key] = decoded
            if len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return decoded

    def _decode(self, stored_event: StoredEvent) -> Any:
        where = (
            f"event {stored_event.originator_version} of match {stored_event.originator_id} "
            f"(topic {stored_event.topic!r})"
        )
        try:
            data = row_bytes(stored_event.state)
            if self.cipher:
                data = self.cipher.decrypt(data)
            if self.compressor:
                data = self.compressor.decompress(data)
            body: dict[str, Any] = self.transcoder.decode(data)
            envelope = {k: body.pop(k) for k in [k for k in body if k.startswith("_")]}
            timestamp = datetime.fromisoformat(envelope["_timestamp"])
            game = snapshot_ruleset(stored_event.topic)
            if game is not None and "_cards_at" in envelope:  # decoded by the store, on its cards' snapshot
                return StateSnapshot(
                    str(stored_event.originator_id),
                    stored_event.originator_version,
                    timestamp,
                    None,
                    int(envelope["_cards_at"]),
                    body,
                )
            if game is not None:
                try:
                    state: Any | None = game.decode_state(body)
                except (IncompatibleSnapshot, ValueError):  # another shape of the state: fold instead
                    state = None
                return StateSnapshot(str(stored_event.originator_id), stored_event.originator_version, timestamp, state)
            cls = resolve_event_topic(stored_event.topic)
            event = cls.model_validate(body)
        except Exception as exc:  # noqa: BLE001 - any failure here means an unreadable row
            raise MapperDeserialisationError(f"cannot read {where}: {exc}") from exc
        return MatchEvent(
            str(stored_event.originator_id),
            stored_event.originator_version,
            timestamp,
            event,
            envelope.get("_name"),
            envelope.get("_hash"),
            envelope.get("_by"),
            envelope.get("_entry"),
            envelope.get("_station"),
            envelope.get("_sig"),
        )
