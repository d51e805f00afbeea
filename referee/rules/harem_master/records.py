"""Harem Master's part of a match record (``harem-master-record/1``, docs/scenario-format.md, section 5).

``referee.records`` reads and writes the format every game's records share
(``format``, ``seed``, ``mode``, ``deal``, ``players``, ``actions``, the
chain); what is Harem Master's is here, the game's ``records`` capability
(``RECORDS``): the selectable
rulings and automatic passing, where card names get their definitions
(``cards:``, ``pool:``, then the bundled pool), both players' decks checked
against 100.2 before any action is read, ``{random: N}`` filler entries, and
the cards the table showed that no deck lists (record mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from events.harem_master.cards import CardDef, filler
from events.harem_master.game import CardRevealed, MatchStarted
from events.kernel import Event
from referee.capabilities import RecordDecks, RecordHeader, Setup
from referee.inputs import NAME_LENGTH
from referee.rules.harem_master.settings import RECORD_KEYS, RULING_OPTIONS
from referee.scenario import Reader

SEATS = ("A", "B")
PLAYER_KEYS = ("name", "deck")


class DecksUnwritable(ValueError):
    """A match whose decks a record cannot name (``referee.records`` turns it into an ``ExportError``)."""


def read_header(reader: Reader, data: dict[str, Any]) -> RecordHeader:
    """The match's own settings, where its cards are defined, and both decks
    checked against 100.2 before any action is read (section 4)."""
    rulings_given = data.get("rulings")
    rulings_raw = reader.mapping({} if rulings_given is None else rulings_given, ("rulings",), tuple(RULING_OPTIONS))
    rulings = {k: reader.choice(v, ("rulings", k), RULING_OPTIONS[k]) for k, v in rulings_raw.items()}
    auto_pass = reader.bool_(data.get("auto_pass", True), ("auto_pass",))
    catalog = _catalog(reader, data)
    options: dict[str, Any] = {"rulings": rulings, "auto_pass": auto_pass}
    if "pool" in data:
        # A table-dealt match remembers its pool (``MatchStarted.pool``), so
        # its record's start does too: the pool's own cards, however written.
        options["pool"] = list(catalog.pools[1 if "cards" in data else 0].values())
    players = reader.mapping(data["players"], ("players",), SEATS, SEATS)
    names: dict[str, str] = {}
    decks: dict[str, list[CardDef]] = {}
    for p in SEATS:
        ppath = ("players", p)
        entry = reader.mapping(players[p], ppath, PLAYER_KEYS, ("deck",))
        names[p] = reader.text(entry["name"], ppath + ("name",), NAME_LENGTH) if "name" in entry else p
        decks[p] = _deck(reader, entry["deck"], ppath + ("deck",), catalog)
    return RecordHeader(names, decks, options, catalog)


def _relative(reader: Reader, value: Any, path: tuple[Any, ...], what: str) -> Path:
    file = Path(reader.str_(value, path))
    if not file.is_absolute():
        file = reader.doc.file.parent / file
    if not file.is_file():
        raise reader.err(path, f"no such {what} file {str(file)!r}")
    return file


def _catalog(reader: Reader, data: dict) -> Any:
    """Where card names get their definitions: ``cards:``, then ``pool:``, then
    the bundled rules-test pool (first match wins)."""
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool, parse_cards

    pools: list[dict[str, CardDef]] = []
    if "cards" in data:
        pools.append(parse_cards(data["cards"], reader.doc, ("cards",)))
    if isinstance(data.get("pool"), list):  # written inline (an export of a match that remembers its pool)
        pools.append(parse_cards(data["pool"], reader.doc, ("pool",)))
    elif "pool" in data:
        pools.append(load_pool(_relative(reader, data["pool"], ("pool",), "card pool")))
    pools.append(bundled_pool())
    return CardCatalog(*pools)


def _deck(reader: Reader, value: Any, path: tuple[Any, ...], catalog: Any) -> list[CardDef]:
    from referee.rules.harem_master.decks import check_deck, load_deck, parse_deck

    if isinstance(value, str):
        return load_deck(_relative(reader, value, path, "deck"), catalog)
    if not isinstance(value, list):
        raise reader.err(path, "expected a deck file name or a list of deck entries")
    cards = parse_deck(value, catalog, reader.doc, path)
    check_deck(cards, reader.doc, path)
    return cards


def record_decks(setup: Setup, log: Sequence[Event]) -> RecordDecks:
    """The cards a record must define (``cards:``), each deck in its exact
    order (consecutive copies written once with a count, fillers as
    ``{random: N}``) and the cards the table showed that neither deck lists
    (100.2, record mode), whose definitions go with the record so that it
    replays. ``DecksUnwritable`` when a record cannot name the decks."""
    cards, decks = _decks(setup)
    unlisted = {
        ev.definition.name: ev.definition
        for ev in log
        if isinstance(ev, CardRevealed) and ev.unlisted is not None and ev.definition is not None
    }
    listed = {c["name"] for c in cards}
    cards += [
        {"name": cd.name, **cd.model_dump(mode="json", exclude_defaults=True, exclude={"name"})}
        for name, cd in unlisted.items()
        if name not in listed
    ]
    return RecordDecks(cards, decks, unlisted)


def _decks(setup: Setup) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    """The non-filler definitions used (as ``cards:`` entries) and each deck
    in its exact order, consecutive copies written once with a count."""
    by_name: dict[str, CardDef] = {}
    decks: dict[str, list[Any]] = {}
    for p in SEATS:
        deck = setup.decks.get(p)
        if deck is None:
            raise DecksUnwritable(f"the match has no deck for player {p}")
        entries: list[dict[str, Any]] = []
        for cd in deck:
            if not isinstance(cd, CardDef):
                raise DecksUnwritable(f"a card of {p}'s deck is a {type(cd).__name__}, not a {CardDef.__name__}")
            if cd.filler:
                if cd != filler(cd.random):
                    raise DecksUnwritable(f"a card of {p}'s deck is a filler unlike {{random: {cd.random}}}")
                key: dict[str, Any] = {"random": cd.random}
            else:
                known = by_name.setdefault(cd.name, cd)
                if known != cd:
                    raise DecksUnwritable(
                        f"two different cards are named {cd.name!r}; a record names cards, so it cannot tell them apart"
                    )
                key = {"card": cd.name}
            if entries and {k: v for k, v in entries[-1].items() if k != "count"} == key:
                entries[-1]["count"] = entries[-1].get("count", 1) + 1
            else:
                entries.append(dict(key))
        decks[p] = [e["card"] if set(e) == {"card"} else e for e in entries]
    cards = [
        {"name": cd.name, **cd.model_dump(mode="json", exclude_defaults=True, exclude={"name"})}
        for cd in by_name.values()
    ]
    return cards, decks


def setup_of(first: Event) -> Setup | None:
    """What a match dealt from two decks was started with (None for a
    position written by hand, which no record of the game starts)."""
    if not isinstance(first, MatchStarted):
        return None
    decks = {seat: [first.cards[c] for c in ids] for seat, ids in first.castles.items()}
    options: dict[str, Any] = {"rulings": dict(first.rulings), "auto_pass": first.auto_pass}
    if first.pool:  # a table-dealt match's pool: a record writes it inline (``pool:``)
        options["pool"] = [_card_entry(cd) for cd in first.pool]
    return Setup(decks, first.seed, first.deal, dict(first.names), first.mode, options)


def _card_entry(cd: CardDef) -> dict[str, Any]:
    """A card definition as a file writes it: its name first, defaults left out."""
    return {"name": cd.name, **cd.model_dump(mode="json", exclude_defaults=True, exclude={"name"})}


class HaremMasterRecords:
    """``harem-master-record/1``: the header's rulings, automatic passing and
    decks, then the actions in the notation."""

    format: str = "harem-master-record/1"
    keys: tuple[str, ...] = RECORD_KEYS
    action_args: tuple[str, ...] = ("card", "cards", "target", "targets", "order", "n", "option", "ability")
    setup_of = staticmethod(setup_of)
    read_header = staticmethod(read_header)
    record_decks = staticmethod(record_decks)


RECORDS = HaremMasterRecords()
