"""SCP-TCG chapter 4's match records (``scp-tcg-s4-record/1``, docs/games/scp-tcg-s4.md, "Match records").

Chapter 4's matches start from a position written by hand, never from decks,
so its record is the position document, then the instructions: ``cards:``
(or ``pool:``) and ``setup:`` exactly as a position file has them (the seed
and the players' names are the record's ``seed:`` and ``players:``), then
``actions:`` in the scenario notation, players' instructions and judges'
actions alike. ``referee.records`` reads and writes the rest of the format;
this module is the game's ``Records`` capability (``RECORDS``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.kernel import Event
from events.scp_tcg.cards import ScpCard
from events.scp_tcg.zones import ZonesSetUp
from projections.scp_tcg.state import KINDS, SEATS
from referee.capabilities import RecordDecks, RecordHeader, Setup
from referee.inputs import NAME_LENGTH
from referee.rules.scp_tcg.common import ARGUMENTS
from referee.rules.scp_tcg.position import start_from_position
from referee.scenario import Reader

FORMAT = "scp-tcg-s4-record/1"
# The header's keys that are this game's: the position document's (after
# ``deal``, before ``players``).
RECORD_KEYS = ("cards", "pool", "setup")


class ScpRecords:
    """``scp-tcg-s4-record/1``: the position, then the instructions."""

    format: str = FORMAT
    keys: tuple[str, ...] = RECORD_KEYS
    action_args: tuple[str, ...] = ARGUMENTS

    def read_header(self, reader: Reader, data: Mapping[str, Any]) -> RecordHeader:
        """The players' names and the position, checked as a position file is
        (an error names the place in the record); the match it sets up."""
        for key, only in (("mode", "strict"), ("deal", "seeded")):
            if data.get(key, only) != only:
                raise reader.err(
                    (key,), f"chapter 4's matches are {key} {only}: a position is set up by hand, never dealt"
                )
        players = reader.mapping(data["players"], ("players",), SEATS, SEATS)
        names: dict[str, str] = {}
        for seat in SEATS:
            entry = reader.mapping(players[seat], ("players", seat), ("name",))
            names[seat] = (
                reader.text(entry["name"], ("players", seat, "name"), NAME_LENGTH) if "name" in entry else seat
            )
        setup = data.get("setup", {})
        if isinstance(setup, dict):
            for key, where in (("seed", "seed:"), ("names", "players:")):
                if key in setup:
                    raise reader.err(("setup", key), f"a record gives the {key} once, at its top ({where})")
            setup = {**setup, "seed": data["seed"], "names": names}
        started = start_from_position({**data, "setup": setup}, reader.doc)
        return RecordHeader(names, {}, {}, None, started)

    def setup_of(self, first: Event) -> Setup | None:
        """What a record of the match writes at its top: the seed and the names
        (its position goes in ``setup:``, written by ``record_decks``). Every
        match of this game starts from a position, which its record writes."""
        if not isinstance(first, ZonesSetUp):
            return None
        return Setup({}, first.seed, "seeded", dict(first.names), first.mode, {})

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        """The match's position as a position file writes it: each card defined
        once by name in ``cards:``, each zone's cards top first in the order the
        position gave them their ids, so that reading it back deals the same ids."""
        first = log[0] if log else None
        if not isinstance(first, ZonesSetUp):
            raise ValueError("the match does not start from a position (ZonesSetUp)")
        by_name: dict[str, ScpCard] = {}
        for card in first.cards.values():
            if by_name.setdefault(card.name, card) != card:
                raise ValueError(
                    f"two different cards are named {card.name!r}; a record names cards, so it cannot tell them apart"
                )
        cards = [card.model_dump(mode="json", exclude_defaults=True) for card in by_name.values()]
        partners, face_up, face_down = set(first.partners), set(first.face_up), set(first.face_down)
        terminated = set(first.terminated)

        def entry(card: str, seat: str, host: bool) -> Any:
            out: dict[str, Any] = {"card": first.cards[card].name}
            if card.partition(":")[0] != seat:
                out["owner"] = card.partition(":")[0]
            if host:
                for key, found in (
                    ("partner", card in partners),
                    ("face_up", card in face_up),
                    ("face_down", card in face_down),
                    ("terminated", card in terminated),
                ):
                    if found:
                        out[key] = True
                if card in first.classes:
                    out["object_class"] = first.classes[card]
                for side, table in (("above", first.above), ("below", first.below)):
                    if card in table:
                        out[side] = [entry(c, seat, False) for c in table[card]]
            return out["card"] if set(out) == {"card"} else out

        players: dict[str, dict[str, Any]] = {}
        for seat in SEATS:
            mine: dict[str, Any] = {}
            for kind in KINDS:
                zone = f"{seat}.{kind}"
                if zone in first.zones:
                    mine[kind] = [entry(c, seat, True) for c in first.zones[zone]]
            damage = {zone.partition(".")[2]: n for zone, n in first.damage.items() if zone.partition(".")[0] == seat}
            if damage:
                mine["damage"] = damage
            if mine:
                players[seat] = mine
        return RecordDecks(cards, {}, {}, {"setup": {"players": players}})


RECORDS = ScpRecords()
