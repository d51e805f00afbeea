"""Tamper-evident logs: check the hash chain of a stored match or tournament, or compute the chain of a replayed record.

Each stored event carries the hash of its own JSON chained to the previous
event's hash (``referee.store.mapper``: ``chain_hash``). Checking a stored
log recomputes every hash from the stored bytes and names the first event
whose hash does not fit, so one changed byte anywhere in an event (or in
its hash) is found at its position. Logs stored before chains existed carry
no hashes: they are reported as "no chain", not as broken.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from events.names import canonical, stored_name

# The chain is written by ``referee.store.mapper`` with these functions; they
# live here, free of the store, so auditing a record file needs no database
# library.

GENESIS = "0" * 64
HASH_KEY = b',"_hash":"'


def chain_hash(prev: str, topic: str, body: bytes) -> str:
    """The chain hash of an event whose JSON is ``body``, after ``prev``."""
    return chain_step(prev.encode(), topic.encode() + b"\n", body).decode()


def chain_step(prev: bytes, topic_line: bytes, body: bytes) -> bytes:
    """``chain_hash`` on bytes (``topic_line`` is the topic and a newline):
    the store writes thousands of events at a time, and this is its loop."""
    return hashlib.sha256(b"%s\n%s%s" % (prev, topic_line, body)).hexdigest().encode()


def event_json(event: Any) -> bytes:
    """An event's JSON bytes exactly as the store writes (and hashes) them."""
    return type(event).__pydantic_serializer__.to_json(event)


def split_chained(data: bytes) -> tuple[bytes, str] | None:
    """(the event's own JSON bytes, its stored hash) from a stored row's bytes;
    None when the row carries no hash (stored before chains)."""
    if data.startswith(b'{"_hash":"'):
        body = b"{}"
        start = len(b'{"_hash":"')
    else:
        at = data.rfind(HASH_KEY)
        if at < 0:
            return None
        body = data[:at] + b"}"
        start = at + len(HASH_KEY)
    end = data.find(b'"', start)
    if end < 0:
        return None
    return body, data[start:end].decode("ascii", "replace")


@dataclass(frozen=True)
class ChainReport:
    """What checking one log's chain found."""

    events: int  # events in the log
    unchained: int  # leading events stored before chains (no hash)
    head: str | None  # the last event's hash, when the whole chained part fits
    broken_at: int | None  # position of the first event that does not fit
    reason: str | None

    @property
    def ok(self) -> bool:
        return self.broken_at is None

    @property
    def status(self) -> str:
        if self.broken_at is not None:
            return "broken"
        if self.unchained == self.events:
            return "no chain"
        return "intact"

    def describe(self) -> str:
        """One line for people."""
        if self.broken_at is not None:
            return f"chain broken at event {self.broken_at}: {self.reason}"
        if self.unchained == self.events:
            return f"no chain: the {self.events} events were stored before hashes were kept"
        older = f" (events 1-{self.unchained} were stored before hashes and are not covered)" if self.unchained else ""
        return f"chain intact over {self.events - self.unchained} events{older}; head {self.head}"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "events": self.events,
            "unchained": self.unchained,
            "head": self.head,
            "broken_at": self.broken_at,
            "reason": self.reason,
        }


def check_rows(rows: Iterable[tuple[int, str, bytes]]) -> ChainReport:
    """Check stored rows (position, topic, the row's bytes unsealed), in order."""
    prev: str | None = None  # None: still in the leading rows without a hash
    count = 0
    unchained = 0
    expected_position = 1
    for position, topic, data in rows:
        count += 1
        if position != expected_position:
            return ChainReport(count, unchained, None, expected_position, f"event {expected_position} is missing")
        expected_position += 1
        split = split_chained(bytes(data))
        if split is None:
            if prev is None:
                unchained += 1
                continue
            return ChainReport(count, unchained, None, position, "it carries no hash, but the events before it do")
        body, stored = split
        made = chain_hash(prev or GENESIS, canonical(topic), body)
        if made != stored:
            return ChainReport(
                count,
                unchained,
                None,
                position,
                "its hash does not fit its content and the hash of the event before it "
                "(the event, or its hash, was changed after it was written)",
            )
        prev = stored
    return ChainReport(count, unchained, prev, None, None)


def check_stored(application: Any, originator_id: str) -> ChainReport:
    """Check the chain of one stored match (or tournament) from its raw rows."""
    mapper = application.mapper
    rows = application.recorder.select_events(originator_id)
    return check_rows((r.originator_version, r.topic, mapper.unseal(r.state)) for r in rows)


def chain_of(events: Sequence[Any], topic_of: Any = None) -> list[str]:
    """The chain hashes a log of events gets when stored from its first event
    (the same as a store writes them): one per event. Each event is hashed
    with its class's stored name (``events.names``), as the store does."""
    topic = topic_of or stored_name
    out: list[str] = []
    prev = GENESIS
    for event in events:
        prev = chain_hash(prev, topic(type(event)), event_json(event))
        out.append(prev)
    return out


# --- signatures -------------------------------------------------------------------------
#
# A hash chain alone proves nothing to someone who can run this code: an
# edited record can be chained again with ``chain_of``. So every store has an
# Ed25519 signing key (``referee.store.side``), and signs what only it can
# vouch for: the head of each match after every write (``_sig`` in the last
# event's envelope) and each export's head together with who entered each
# action (the record's ``signature``). A verifier needs only the public key,
# which a record carries and ``referee key`` prints with its fingerprint.

HEAD_CONTEXT = b"referee match head v1\x00"
RECORD_CONTEXT = b"referee record v1\x00"
KEY_PREFIX = "ed25519:"


def key_text(public: bytes) -> str:
    """A public key as records and ``referee key`` write it: ``ed25519:`` and base64."""
    import base64

    return KEY_PREFIX + base64.b64encode(public).decode()


def key_bytes(text: str) -> bytes | None:
    """The raw public key of ``key_text``'s form; None if ``text`` is not one."""
    import base64
    import binascii

    if not text.startswith(KEY_PREFIX):
        return None
    try:
        raw = base64.b64decode(text[len(KEY_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def key_fingerprint(public: bytes) -> str:
    """A key's fingerprint for people to compare: SHA-256 of the raw key, 16
    hex digits in groups of four (``3f2a 9c1e 77b0 4d12``)."""
    digest = hashlib.sha256(public).hexdigest()[:16]
    return " ".join(digest[i : i + 4] for i in range(0, 16, 4))


def same_key(given: str, public: bytes) -> bool:
    """Does ``given`` (a public key as ``key_text`` writes it, or its
    fingerprint, with or without spaces) name ``public``?"""
    given = given.strip()
    if given.startswith(KEY_PREFIX):
        return key_bytes(given) == public
    return given.replace(" ", "").replace("-", "").lower() == key_fingerprint(public).replace(" ", "")


def head_fingerprint(head: str) -> str:
    """A head's short form for paper (print-outs, slips): 12 hex digits in
    groups of four, enough for a person to compare a record with its slip."""
    return "-".join(head[i : i + 4] for i in range(0, 12, 4))


def head_message(match_id: str, version: int, head: str) -> bytes:
    """What a store signs after a write: this match, at this version, has this head."""
    return HEAD_CONTEXT + f"{match_id}\x00{version}\x00{head}".encode()


def record_message(fmt: str, head: str, entries: Any, title: str | None = None) -> bytes:
    """What an export signs: the record's format, the head of its replay
    (which covers the seed, the decks, the names and every event), who
    entered each action (``entries``, outside the chain as in the store)
    and the match's title where it has one (a record without one is signed
    as before titles were exported)."""
    import json

    who = json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    message = RECORD_CONTEXT + f"{fmt}\x00{head}\x00".encode() + hashlib.sha256(who).hexdigest().encode()
    if title is not None:
        message += b"\x00title\x00" + hashlib.sha256(title.encode()).hexdigest().encode()
    return message


def verify(public: bytes, signature: str, message: bytes) -> bool:
    """Does ``signature`` (base64) sign ``message`` under the Ed25519 key ``public``?"""
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        sig = base64.b64decode(signature, validate=True)
        Ed25519PublicKey.from_public_bytes(public).verify(sig, message)
    except (binascii.Error, ValueError, InvalidSignature):
        return False
    return True


class Signer:
    """A store's signing key (Ed25519), as ``referee.store.side`` loads it."""

    def __init__(self, private: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.from_private_bytes(private)
        self.public = self._key.public_key().public_bytes_raw()

    @staticmethod
    def new_private() -> bytes:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.generate().private_bytes_raw()

    @property
    def fingerprint(self) -> str:
        return key_fingerprint(self.public)

    @property
    def text(self) -> str:
        return key_text(self.public)

    def sign(self, message: bytes) -> str:
        import base64

        return base64.b64encode(self._key.sign(message)).decode()

    def sign_head(self, match_id: str, version: int, head: str) -> str:
        return self.sign(head_message(match_id, version, head))
