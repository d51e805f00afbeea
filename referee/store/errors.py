"""The store's exceptions: one family, so the CLI can catch ``StoreError`` once.

Every message is one line a person can act on, and never contains a
database password (the URL is always shown with the password replaced).
A refused action is not a store problem: it stays ``IllegalAction``.
"""

from __future__ import annotations


class StoreError(Exception):
    """The match store cannot do what was asked: the database is unreachable,
    refuses the credentials, holds something unreadable, or a match or a
    position does not exist."""


class NoSuchDatabase(StoreError):
    """The URL names an SQLite file that does not exist, and the command
    only uses a database (a typo must not become a new, empty one)."""


class MatchNotFound(StoreError, LookupError):
    """No match has this id."""


class MatchExists(StoreError):
    """A match with the chosen id is already stored."""


class PositionError(StoreError, IndexError):
    """The match has no event at the position asked for."""


def one_line(text: str, secret: str = "") -> str:
    """Driver messages span lines and may echo what they were given: keep the
    gist on one line and hide the password (the check needs a password of at
    least three characters; shorter ones would blank out ordinary words)."""
    text = " ".join(part.strip() for part in str(text).splitlines() if part.strip())
    text = text.replace("FATAL:  ", "").replace("FATAL: ", "")
    if secret and len(secret) >= 3:
        text = text.replace(secret, "***")
    return text


class StaleVersion(StoreError):
    """The match moved on after the action was chosen: the caller said which
    version it chose on and the store holds another, or a rewind (410) landed
    between reading the match and writing to it. Nothing was written: an
    action chosen from one position's legal list is never stored on another."""

    def __init__(self, key: str, chosen: int, current: int, rewound: bool) -> None:
        self.key = key
        self.chosen = chosen
        self.current = current
        self.rewound = rewound
        why = "a judge's rewind was recorded meanwhile" if rewound else "other events were recorded meanwhile"
        super().__init__(
            f"match {key} moved on: the action was chosen at event {chosen} and the match is at event "
            f"{current} now ({why}); nothing was recorded: look at the board again and choose again"
        )


class AlreadyEntered(StaleVersion):
    """The very submission (its entry id) was stored already: a resend after
    an answer that never came, or an action typed again at a terminal after
    the board said the outcome was not known. Nothing more was written. It is
    a ``StaleVersion`` whose first event after ``chosen`` carries the entry,
    so whatever tells a stale page what happened meanwhile calls it a repeat."""

    def __init__(self, key: str, chosen: int, current: int, entry: str) -> None:
        super().__init__(key, chosen, current, False)
        self.entry = entry
        self.args = (
            f"match {key}: submission {entry} was recorded already at event {chosen + 1}; nothing more was recorded",
        )

    def __str__(self) -> str:
        return str(self.args[0])


class WriteCancelled(StoreError):
    """A write given up before it reached the database (the answer could
    wait no longer: ``matches.write_gate``): nothing was written."""
