"""Stored matches on eventsourcing 9.5: SQLite by default, PostgreSQL for tournaments.

    from referee.store import MatchStore
    with MatchStore("sqlite:///referee.db") as store:
        match = store.create(rules.start(cards, castles, seed=1).events, name="Table 4")
        store.act(match, Action("A", "choose_opening", card="A:3"))
        state, version = store.load(match)

See ``matches`` for how transactions, concurrency and snapshots work,
``mapper`` for what a stored event looks like, and ``url`` for the URLs.
"""

from referee.store.errors import MatchExists, MatchNotFound, NoSuchDatabase, PositionError, StaleVersion, StoreError
from referee.store.mapper import MatchEvent, PydanticEventMapper, StateSnapshot
from referee.store.matches import DEFAULT_SNAPSHOT_INTERVAL, MatchInfo, MatchStore, RefereeApplication
from referee.store.statecodec import decode_state, encode_state
from referee.store.url import DEFAULT_URL, database_url, parse_url

__all__ = [
    "DEFAULT_SNAPSHOT_INTERVAL",
    "DEFAULT_URL",
    "MatchEvent",
    "MatchExists",
    "MatchInfo",
    "MatchNotFound",
    "MatchStore",
    "NoSuchDatabase",
    "PositionError",
    "PydanticEventMapper",
    "RefereeApplication",
    "StaleVersion",
    "StateSnapshot",
    "StoreError",
    "database_url",
    "decode_state",
    "encode_state",
    "parse_url",
]
