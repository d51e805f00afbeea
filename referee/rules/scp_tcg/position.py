"""A position written by hand (docs/games/scp-tcg-s4.md, "Positions"): cards, zones, stacks, damage.

A match of the zone rules starts from a position, never from decks: how a
real game is set up belongs to other chapters. The position must be one
chapter 4 allows, so a card where the zone rules would never put it is an
error naming the place in the file and the rule (a Keter object in a Safe
sandbox is 402.1c), like any bad input: exit code 2, nothing runs.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from events.scp_tcg.cards import ScpCard
from events.scp_tcg.zones import ZonesSetUp
from projections.scp_tcg.state import KINDS, SANDBOXES, SEATS, ZoneState, evolve, initial_state
from referee.inputs import MAX_CARDS, NAME_LENGTH, Document, kind_of, load_document
from referee.rules.scp_tcg import sandbox
from referee.ruleset import Started
from referee.scenario import Reader

SETUP_KEYS = ("seed", "names", "players")
PLAYER_KEYS = (*KINDS, "damage")
ENTRY_KEYS = ("card", "label", "owner")
EXTRA_KEYS = {
    "site": ("partner", "above", "below"),
    "safe": ("face_up", "object_class"),
    "euclid": ("face_up", "object_class"),
    "keter": ("face_up", "object_class"),
    "personnel": ("face_down",),
    "decommissioned": ("terminated",),
}

Path_ = tuple[Any, ...]


def parse_cards(entries: Any, doc: Document, path: Path_ = ()) -> dict[str, ScpCard]:
    """A list of card definitions (``{name, type, class, text}``) by name."""
    if not isinstance(entries, list):
        raise doc.error(
            path, f"expected a list of cards ({{name: ..., type: object, class: Safe}}), got {kind_of(entries)}"
        )
    out: dict[str, ScpCard] = {}
    for i, entry in enumerate(entries):
        try:
            card = ScpCard.model_validate(entry)
        except ValidationError as exc:
            raise doc.validation_error(exc, path + (i,)) from None
        if card.name in out:
            raise doc.error(path + (i, "name"), f"the card {card.name!r} is defined twice")
        out[card.name] = card
    return out


def catalog(data: Mapping[str, Any], doc: Document) -> dict[str, ScpCard]:
    """The file's ``cards:``, then its ``pool:`` file's (first match wins).
    No card list of the game is public, so nothing is bundled."""
    found: dict[str, ScpCard] = {}
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
    """Deals instance ids (owner:index) and checks each card against the zone it is put in."""

    def __init__(self, doc: Document, cards: Mapping[str, ScpCard]) -> None:
        self.doc = doc
        self.catalog = cards
        self.cards: dict[str, ScpCard] = {}
        self.labels: dict[str, str] = {}
        self.count = {seat: 0 for seat in SEATS}
        self.zones: dict[str, list[str]] = {}
        self.partners: list[str] = []
        self.above: dict[str, list[str]] = {}
        self.below: dict[str, list[str]] = {}
        self.face_up: list[str] = []
        self.face_down: list[str] = []
        self.terminated: list[str] = []
        self.classes: dict[str, str] = {}

    def err(self, path: Path_, message: str) -> Exception:
        return self.doc.error(path, message)

    def card(self, value: Any, path: Path_, seat: str, extra: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]]:
        """A card entry: a name, or ``{card, label, owner, ...extra}``; its id and its mapping."""
        entry: dict[str, Any] = {"card": value} if isinstance(value, (str, int)) else value
        if not isinstance(entry, dict):
            raise self.err(path, f"expected a card name or a mapping with card:, got {kind_of(value)}")
        for key in entry:
            if key not in (*ENTRY_KEYS, *extra):
                raise self.err(
                    path + (key,), f"unknown key {key!r}; expected one of: {', '.join((*ENTRY_KEYS, *extra))}"
                )
        if "card" not in entry:
            raise self.err(path, "missing required key 'card'")
        name = str(entry["card"])
        cd = self.catalog.get(name)
        if cd is None:
            close = difflib.get_close_matches(name, list(self.catalog), n=1)
            hint = (
                f"; did you mean {close[0]!r}?"
                if close
                else f"; the file defines {', '.join(self.catalog) or 'no cards'}"
            )
            raise self.err(path + ("card",) if isinstance(value, dict) else path, f"unknown card {name!r}{hint}")
        owner = entry.get("owner", seat)
        if owner not in SEATS:
            raise self.err(path + ("owner",), f"expected A or B, got {owner!r}")
        if len(self.cards) >= MAX_CARDS:
            raise self.err(path, f"the position holds more than {MAX_CARDS:,} cards")
        self.count[owner] += 1
        card_id = f"{owner}:{self.count[owner]}"
        self.cards[card_id] = cd
        if "label" in entry:
            label = str(entry["label"])
            if label in self.labels:
                raise self.err(path + ("label",), f"the label {label!r} is used twice")
            self.labels[label] = card_id
        for flag in extra:
            if flag in entry and flag not in ("above", "below", "object_class") and not isinstance(entry[flag], bool):
                raise self.err(path + (flag,), f"expected true or false, got {kind_of(entry[flag])}")
        return card_id, entry

    def pile(self, value: Any, path: Path_, seat: str, kind: str) -> None:
        if not isinstance(value, list):
            raise self.err(path, f"expected a list of cards, top first, got {kind_of(value)}")
        zone = f"{seat}.{kind}"
        ids: list[str] = []
        for i, raw in enumerate(value):
            here = path + (i,)
            card_id, entry = self.card(raw, here, seat, EXTRA_KEYS.get(kind, ()))
            if "object_class" in entry:
                given = entry["object_class"]
                if given not in SANDBOXES.values():
                    raise self.err(here + ("object_class",), f"expected Safe, Euclid or Keter, got {given!r}")
                self.classes[card_id] = given
            self.check_zone(card_id, zone, here)
            if entry.get("partner"):
                if card_id[0] != seat:
                    raise self.err(here + ("partner",), "a partner object is on its owner's own site (401.4)")
                self.partners.append(card_id)
            if entry.get("face_up"):
                if i != 0:
                    raise self.err(here + ("face_up",), "only the top card of a sandbox is turned face up (402.3)")
                self.face_up.append(card_id)
            if entry.get("face_down"):
                self.face_down.append(card_id)
            if entry.get("terminated"):
                self.terminated.append(card_id)
            for side, table in (("above", self.above), ("below", self.below)):
                if side in entry:
                    stacked = entry[side]
                    if not isinstance(stacked, list):
                        raise self.err(
                            here + (side,), f"expected a list of cards, nearest first, got {kind_of(stacked)}"
                        )
                    table[card_id] = [self.card(s, here + (side, j), seat)[0] for j, s in enumerate(stacked)]
            ids.append(card_id)
        if kind == "personnel" and len(ids) > 1:
            raise self.err(path, f"a personnel zone holds one card at most (404.1b), not {len(ids)}")
        self.zones[zone] = ids

    def check_zone(self, card: str, zone: str, path: Path_) -> None:
        """The zone rules a position must already obey."""
        cd, kind = self.cards[card], zone.partition(".")[2]
        if kind != "site" and card[0] != zone[0]:
            raise self.err(path, f"{cd.name} is {card[0]}'s card: only its owner's zones but the site hold it (400.2)")
        if kind == "site" and cd.type != "object":
            raise self.err(path, f"{cd.name} is a {cd.type} card: a site holds objects (401.1)")
        if kind in SANDBOXES and cd.type != "object":
            raise self.err(path, f"{cd.name} is a {cd.type} card: a sandbox holds object cards only (402.1b)")
        cls = self.classes.get(card, cd.object_class)
        if kind in SANDBOXES and cd.type == "object" and cls != SANDBOXES[kind]:
            raise self.err(path, f"{cd.name} is a {cls} object: it belongs in the {cls} sandbox (402.1c)")
        if kind == "tale" and cd.type not in ("tale", "incident"):
            raise self.err(path, f"{cd.name} is a {cd.type} card: the Tale zone holds Tale and Incident cards (403.1)")
        if kind == "personnel" and cd.type != "personnel":
            raise self.err(path, f"{cd.name} is a {cd.type} card: the personnel zone holds a personnel card (404.2)")


def start_from_position(data: Mapping[str, Any], doc: Document) -> Started:
    """``setup:`` and ``cards:`` of ``data`` as the match's first event."""
    cards = catalog(data, doc)
    path: Path_ = ("setup",)
    reader = Reader(doc, SEATS)
    setup, seed = reader.setup(data, SETUP_KEYS)
    names = reader.names(setup.get("names", {}), path + ("names",), NAME_LENGTH)
    players = setup.get("players", {})
    if not isinstance(players, dict) or any(k not in SEATS for k in players):
        raise doc.error(path + ("players",), "expected a mapping with keys A and B")
    built = _Builder(doc, cards)
    damage: dict[str, int] = {}
    for seat in SEATS:
        here = path + ("players", seat)
        mine = players.get(seat) or {}
        if not isinstance(mine, dict):
            raise doc.error(here, f"expected a mapping with keys {', '.join(PLAYER_KEYS)}, got {kind_of(mine)}")
        for key in mine:
            if key not in PLAYER_KEYS:
                raise doc.error(here + (key,), f"unknown key {key!r}; expected one of: {', '.join(PLAYER_KEYS)}")
        for kind in KINDS:
            if kind in mine:
                built.pile(mine[kind], here + (kind,), seat, kind)
        raw_damage = mine.get("damage", {})
        if not isinstance(raw_damage, dict):
            raise doc.error(here + ("damage",), "expected a mapping from safe, euclid, keter to damage taken")
        for kind, n in raw_damage.items():
            if kind not in SANDBOXES:
                raise doc.error(here + ("damage", kind), f"unknown sandbox {kind!r}; expected safe, euclid or keter")
            top = sandbox.maximum(f"{seat}.{kind}")
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < top:
                raise doc.error(
                    here + ("damage", kind),
                    f"expected damage from 0 to {top - 1}: at {top} protection is 0, and 402.6 restores it at once",
                )
            damage[f"{seat}.{kind}"] = n
    first = ZonesSetUp(
        seed=seed,
        names=names,
        cards=built.cards,
        zones=built.zones,
        partners=built.partners,
        above=built.above,
        below=built.below,
        face_up=built.face_up,
        face_down=built.face_down,
        damage=damage,
        terminated=built.terminated,
        classes=built.classes,
    )
    state: ZoneState = evolve(initial_state(), first)
    return Started([first], state, dict(built.labels))
