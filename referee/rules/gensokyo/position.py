"""A position written by hand (docs/games/gensokyo-s4.md, "Positions"): the piles, each player's zones, 気力, effects in force.

A match of §4 starts from a position, never from decks: how a real game is
set up belongs to other chapters. The position must be one §4 allows, so a
card where §4 would never put it is an error naming the place in the file
and the statement (a character in 山札 is 4-7a; a companion at 0 気力 is
4-4g), like any bad input: exit code 2, nothing runs. Cards get ids ``c1``,
``c2``... in the order the file lists them: 山札, 人妖の山, 幻想, then A's
hand, party, journey and items, then B's.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from events.gensokyo.cards import GensokyoCard
from events.gensokyo.table import TableSetUp
from projections.gensokyo.state import HAND_MAX, OWN, SEATS, SHARED, Table, evolve
from referee.inputs import MAX_CARDS, NAME_LENGTH, Document, kind_of, load_document
from referee.rules.gensokyo.vitality import CANNOT
from referee.ruleset import Started
from referee.scenario import Reader

SETUP_KEYS = ("seed", "names", *SHARED, "players")
PLAYER_KEYS = (*OWN, "hand_max", "cannot")
ENTRY_KEYS = ("card", "label")
Path_ = tuple[Any, ...]

# What each zone may hold: the card types named, whether they are the only
# ones it holds (True) or the ones it never holds (False), and the rule that
# says so (4-7a for the piles; the position format's for a player's zones, ruling G2).
HOLDS: dict[str, tuple[tuple[str, ...], bool, str]] = {
    "deck": (("character",), False, "4-7a: 山札 holds no character"),
    "fantasy": (("character",), False, "4-7a: 幻想 holds no character"),
    "character_deck": (("character",), True, "4-7a: 人妖の山 holds characters only"),
    "party": (("character",), True, "a party (仲間) is of characters (ruling:G2)"),
    "journey": (("destination",), True, "a journey holds destination cards (ruling:G2)"),
    "items": (("item",), True, "the items are 呪品 (ruling:G2)"),
}


def parse_cards(entries: Any, doc: Document, path: Path_ = ()) -> dict[str, GensokyoCard]:
    """A list of card definitions by name (docs/games/gensokyo-s4.md, "Cards")."""
    if not isinstance(entries, list):
        raise doc.error(path, f"expected a list of cards ({{name: ..., type: character, ...}}), got {kind_of(entries)}")
    out: dict[str, GensokyoCard] = {}
    for i, entry in enumerate(entries):
        try:
            card = GensokyoCard.model_validate(entry)
        except ValidationError as exc:
            raise doc.validation_error(exc, path + (i,)) from None
        if card.name in out:
            raise doc.error(path + (i, "name"), f"the card {card.name!r} is defined twice")
        out[card.name] = card
    return out


def catalog(data: Mapping[str, Any], doc: Document) -> dict[str, GensokyoCard]:
    """The file's ``cards:``, then its ``pool:`` file's (the file's own win). Nothing is bundled."""
    found: dict[str, GensokyoCard] = {}
    if "pool" in data:
        value = data["pool"]
        if not isinstance(value, str):
            raise doc.error(("pool",), f"expected a file name, got {kind_of(value)}")
        file = Path(value) if Path(value).is_absolute() else doc.file.parent / value
        pool = load_document(file)
        found.update(parse_cards(pool.data, pool))
    if "cards" in data:
        found.update(parse_cards(data["cards"], doc, ("cards",)))
    return found


class _Builder:
    """Deals instance ids (``c1``, ``c2``...) and checks each card against the zone it is put in."""

    def __init__(self, doc: Document, cards: Mapping[str, GensokyoCard]) -> None:
        self.doc = doc
        self.catalog = cards
        self.cards: dict[str, GensokyoCard] = {}
        self.labels: dict[str, str] = {}
        self.zones: dict[str, list[str]] = {}
        self.ki: dict[str, int] = {}

    def card(self, value: Any, path: Path_, party: bool) -> tuple[str, GensokyoCard, dict[str, Any]]:
        keys = (*ENTRY_KEYS, "ki") if party else ENTRY_KEYS
        entry: dict[str, Any] = {"card": value} if isinstance(value, (str, int)) else value
        if not isinstance(entry, dict):
            raise self.doc.error(path, f"expected a card name or a mapping with card:, got {kind_of(value)}")
        for key in entry:
            if key not in keys:
                raise self.doc.error(path + (key,), f"unknown key {key!r}; expected one of: {', '.join(keys)}")
        if "card" not in entry:
            raise self.doc.error(path, "missing required key 'card'")
        name = str(entry["card"])
        cd = self.catalog.get(name)
        if cd is None:
            close = difflib.get_close_matches(name, list(self.catalog), n=1)
            hint = (
                f"; did you mean {close[0]!r}?"
                if close
                else f"; the file defines {', '.join(self.catalog) or 'no cards'}"
            )
            raise self.doc.error(path + ("card",) if isinstance(value, dict) else path, f"unknown card {name!r}{hint}")
        if len(self.cards) >= MAX_CARDS:
            raise self.doc.error(path, f"the position holds more than {MAX_CARDS:,} cards")
        card_id = f"c{len(self.cards) + 1}"
        self.cards[card_id] = cd
        if "label" in entry:
            label = str(entry["label"])
            if label in self.labels:
                raise self.doc.error(path + ("label",), f"the label {label!r} is used twice")
            self.labels[label] = card_id
        return card_id, cd, entry

    def pile(self, value: Any, path: Path_, zone: str) -> None:
        if not isinstance(value, list):
            raise self.doc.error(path, f"expected a list of cards, top first, got {kind_of(value)}")
        kind = zone.partition(".")[2] or zone
        ids: list[str] = []
        for i, raw in enumerate(value):
            here = path + (i,)
            card_id, cd, entry = self.card(raw, here, kind == "party")
            if kind in HOLDS:
                types, only, rule = HOLDS[kind]
                if (cd.type in types) != only:
                    raise self.doc.error(here, f"{cd.name} is a {cd.type} card: {rule}")
            if kind == "party":
                printed = cd.ki or 0
                ki = entry.get("ki", printed)
                if isinstance(ki, bool) or not isinstance(ki, int) or not 1 <= ki <= printed:
                    raise self.doc.error(
                        here + ("ki",),
                        f"expected 気力 from 1 to {printed} (its printed 気力; a companion at 0 goes to the bottom "
                        "of 人妖の山, 4-4g)",
                    )
                self.ki[card_id] = ki
            ids.append(card_id)
        self.zones[zone] = ids


def start_from_position(data: Mapping[str, Any], doc: Document) -> Started:
    """``setup:`` and the cards of ``data`` as the match's first event."""
    cards = catalog(data, doc)
    path: Path_ = ("setup",)
    reader = Reader(doc, SEATS)
    setup, seed = reader.setup(data, SETUP_KEYS)
    names = reader.names(setup.get("names", {}), path + ("names",), NAME_LENGTH)
    built = _Builder(doc, cards)
    for zone in SHARED:
        built.pile(setup.get(zone, []) or [], path + (zone,), zone)
    players = setup.get("players", {}) or {}
    if not isinstance(players, dict) or any(k not in SEATS for k in players):
        raise doc.error(path + ("players",), "expected a mapping with keys A and B")
    hand_max: dict[str, int] = {}
    cannot: dict[str, list[str]] = {}
    for seat in SEATS:
        here = path + ("players", seat)
        mine = players.get(seat) or {}
        if not isinstance(mine, dict):
            raise doc.error(here, f"expected a mapping with keys {', '.join(PLAYER_KEYS)}, got {kind_of(mine)}")
        for key in mine:
            if key not in PLAYER_KEYS:
                raise doc.error(here + (key,), f"unknown key {key!r}; expected one of: {', '.join(PLAYER_KEYS)}")
        for kind in OWN:
            built.pile(mine.get(kind, []) or [], here + (kind,), f"{seat}.{kind}")
        top = mine.get("hand_max", HAND_MAX)
        if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_CARDS:
            raise doc.error(
                here + ("hand_max",), f"expected the hand maximum, a whole number (normally {HAND_MAX}, 4-6a)"
            )
        hand_max[seat] = top
        denied = mine.get("cannot", []) or []
        if not isinstance(denied, list) or any(k not in CANNOT for k in denied):
            raise doc.error(
                here + ("cannot",), f"expected a list of what an effect in force denies: {', '.join(CANNOT)} (4-1d)"
            )
        if denied:
            cannot[seat] = list(dict.fromkeys(denied))
    first = TableSetUp(
        seed=seed,
        names=names,
        cards=built.cards,
        zones=built.zones,
        ki=built.ki,
        hand_max=hand_max,
        cannot=cannot,
    )
    state: Table = evolve(Table(), first)
    return Started([first], state, dict(built.labels))
