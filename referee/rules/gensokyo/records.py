"""幻想郷夢紀行 §4's match records (``gensokyo-s4-record/1``, docs/games/gensokyo-s4.md, "Match records").

§4's matches start from a position written by hand, never from decks, so
its record is the position document, then the instructions: ``cards:``
(or ``pool:``) and ``setup:`` exactly as a position file has them (the seed
and the players' names are the record's ``seed:`` and ``players:``), then
``actions:`` in the scenario notation, players' instructions and judges'
actions alike. ``referee.records`` reads and writes the rest of the format;
this module is the game's ``Records`` capability (``RECORDS``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.gensokyo.cards import GensokyoCard
from events.gensokyo.table import TableSetUp
from events.kernel import Event
from projections.gensokyo.state import HAND_MAX, OWN, SEATS, SHARED
from referee.capabilities import RecordDecks, RecordHeader, Setup
from referee.inputs import NAME_LENGTH
from referee.rules.gensokyo.common import ARGUMENTS
from referee.rules.gensokyo.position import start_from_position
from referee.scenario import Reader

FORMAT = "gensokyo-s4-record/1"
RECORD_KEYS = ("cards", "pool", "setup")  # the header's keys that are this game's, after ``deal``


class GensokyoRecords:
    """``gensokyo-s4-record/1``: the position, then the instructions."""

    format: str = FORMAT
    keys: tuple[str, ...] = RECORD_KEYS
    action_args: tuple[str, ...] = ARGUMENTS

    def read_header(self, reader: Reader, data: Mapping[str, Any]) -> RecordHeader:
        """The players' names and the position, checked as a position file is
        (an error names the place in the record); the match it sets up."""
        for key, only in (("mode", "strict"), ("deal", "seeded")):
            if data.get(key, only) != only:
                raise reader.err((key,), f"§4's matches are {key} {only}: a position is set up by hand, never dealt")
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
        """The seed and the names a record writes at its top (its position goes
        in ``setup:``, written by ``record_decks``)."""
        if not isinstance(first, TableSetUp):
            return None
        return Setup({}, first.seed, "seeded", dict(first.names), first.mode, {})

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        """The match's position as a position file writes it: each card defined
        once by name in ``cards:``, each zone's cards in the order the position
        gave them their ids, so that reading it back deals the same ids."""
        first = log[0] if log else None
        if not isinstance(first, TableSetUp):
            raise ValueError("the match does not start from a position (TableSetUp)")
        by_name: dict[str, GensokyoCard] = {}
        for card in first.cards.values():
            if by_name.setdefault(card.name, card) != card:
                raise ValueError(
                    f"two different cards are named {card.name!r}; a record names cards, so it cannot tell them apart"
                )
        cards = [card.model_dump(mode="json", exclude_defaults=True) for card in by_name.values()]

        def entry(card: str, party: bool) -> Any:
            name = first.cards[card].name
            printed = first.cards[card].ki
            if party and first.ki.get(card, printed) != printed:
                return {"card": name, "ki": first.ki[card]}
            return name

        out: dict[str, Any] = {}
        for zone in SHARED:
            if first.zones.get(zone):
                out[zone] = [entry(c, False) for c in first.zones[zone]]
        players: dict[str, dict[str, Any]] = {}
        for seat in SEATS:
            mine: dict[str, Any] = {}
            for kind in OWN:
                zone = f"{seat}.{kind}"
                if first.zones.get(zone):
                    mine[kind] = [entry(c, kind == "party") for c in first.zones[zone]]
            if first.hand_max.get(seat, HAND_MAX) != HAND_MAX:
                mine["hand_max"] = first.hand_max[seat]
            if first.cannot.get(seat):
                mine["cannot"] = list(first.cannot[seat])
            if mine:
                players[seat] = mine
        if players:
            out["players"] = players
        return RecordDecks(cards, {}, {}, {"setup": out})


RECORDS = GensokyoRecords()
