"""Phantom Magic Vision chapter 7's match records (``pmv-ch7-record/1``, docs/games/pmv-ch7.md, "Match records").

A chapter-7 match starts from a position, so its record is the position's
``setup:`` (its seed and the players' names at the record's top, as every
record has them), then ``actions:`` in the scenario notation, players' and
judges' alike. ``referee.records`` reads and writes the rest of the format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events.kernel import Event
from events.pmv_ch7.effects import PositionSetUp
from referee.capabilities import RecordDecks, RecordHeader, Setup
from referee.inputs import NAME_LENGTH
from referee.rules.pmv_ch7.common import ARGUMENTS
from referee.rules.pmv_ch7.notation import setup_notation
from referee.rules.pmv_ch7.position import SEATS, start_from_position
from referee.scenario import Reader

FORMAT = "pmv-ch7-record/1"


class PmvRecords:
    """``pmv-ch7-record/1``: the position, then the actions."""

    format: str = FORMAT
    keys: tuple[str, ...] = ("setup",)
    action_args: tuple[str, ...] = ARGUMENTS

    def read_header(self, reader: Reader, data: Mapping[str, Any]) -> RecordHeader:
        """The players' names and the position, checked as a position file is
        (an error names the place in the record); the match it sets up."""
        for key, only in (("mode", "strict"), ("deal", "seeded")):
            if data.get(key, only) != only:
                raise reader.err((key,), f"chapter 7's matches are {key} {only}: a position is set up by hand")
        players = reader.mapping(data["players"], ("players",), SEATS, SEATS)
        names: dict[str, str] = {}
        for seat in SEATS:
            entry = reader.mapping(players[seat], ("players", seat), ("name",))
            names[seat] = (
                reader.text(entry["name"], ("players", seat, "name"), NAME_LENGTH) if "name" in entry else seat
            )
        setup = data.get("setup")
        if isinstance(setup, dict):
            for key, where in (("seed", "seed:"), ("names", "players:")):
                if key in setup:
                    raise reader.err(("setup", key), f"a record gives the {key} once, at its top ({where})")
            setup = {**setup, "seed": data["seed"], "names": names}
        started = start_from_position({**data, "setup": setup}, reader.doc)
        return RecordHeader(names, {}, {}, None, started)

    def setup_of(self, first: Event) -> Setup | None:
        if not isinstance(first, PositionSetUp):
            return None
        return Setup({}, first.seed, "seeded", dict(first.names), first.mode, {})

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        first = log[0] if log else None
        if not isinstance(first, PositionSetUp):
            raise ValueError("the match does not start from a position (PositionSetUp)")
        return RecordDecks([], {}, {}, {"setup": setup_notation(first)})


RECORDS = PmvRecords()
