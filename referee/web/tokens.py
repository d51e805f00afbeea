"""Player and scorekeeper tokens: the links that open a player's view of one
match, or let a scorekeeper log the tables of one event, and nothing more.

A token is an HMAC-SHA256 of the match id and the player under a secret key,
so the server checks it by deriving it again: no token is stored anywhere,
and nothing secret goes into the event log (an exported record can be shared
without handing out anyone's hand). The key is ``$REFEREE_TOKEN_KEY`` if set
(every station and the server must then share it, as with PostgreSQL), else
a file beside an SQLite store, ``FILE.key`` (made by ``referee new`` with
mode 0600). Whoever can read that key can mint any player's link, exactly as
whoever can read the store can read every hand.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from events.kernel import is_seat

KEY_ENV = "REFEREE_TOKEN_KEY"
_CONTEXT = b"referee player token v1\x00"
_KEEPER = b"referee scorekeeper token v1\x00"
_SESSION = b"referee session key v1\x00"
SESSION_ENV = "REFEREE_SESSION_KEY"


def key_file(database_path: str | None) -> Path | None:
    """Where the key of an SQLite store lives (None for other stores)."""
    return Path(database_path + ".key") if database_path else None


def load_key(database_path: str | None, *, create: bool = False) -> bytes | None:
    """The key for this store: the environment's, else the file beside an
    SQLite store (created when ``create``), else None (no player links)."""
    from_env = os.environ.get(KEY_ENV, "")
    if from_env:
        return from_env.encode()
    path = key_file(database_path)
    if path is None:
        return None
    try:
        return path.read_bytes().strip() or None
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return None
    key = secrets.token_hex(32).encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another station made it first: use theirs
        return path.read_bytes().strip() or None
    except OSError:
        return None  # a read-only folder: no links, nothing else fails
    with os.fdopen(fd, "wb") as out:
        out.write(key + b"\n")
    return key


def player_token(key: bytes, match_id: str, player: str) -> str:
    """The token of ``player`` (a seat of the match's game) in ``match_id``:
    20 URL-safe characters (120 bits)."""
    if not is_seat(player):
        raise ValueError(f"{player!r} is not a seat")
    digest = hmac.new(key, _CONTEXT + f"{match_id}\x00{player}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:15]).decode()


def check_token(key: bytes | None, match_id: str, player: str, token: str | None) -> bool:
    """Does ``token`` open ``player``'s view of ``match_id``? (constant time)"""
    if not key or not token or not is_seat(player):
        return False
    return hmac.compare_digest(player_token(key, match_id, player), token)


def player_links(key: bytes, match_id: str, seats: Iterable[str]) -> dict[str, str]:
    """Each player's path on the board server (the host is the judge's to add),
    for the seats of the match's game."""
    return {p: f"/matches/{match_id}?as={p}&token={player_token(key, match_id, p)}" for p in seats}


# --- scorekeepers --------------------------------------------------------------------
#
# A scorekeeper logs every table of one event (or one match outside any
# event): the scope. The token is an HMAC of the scope and the scorekeeper's
# name under the same key, so, like a player's, it is checked by deriving it
# again and nothing secret is stored; it is both the link's secret and the
# password a scorekeeper may type on the sign-in form instead.


def scorekeeper_token(key: bytes, scope: str, name: str = "") -> str:
    """The token of a scorekeeper of ``scope`` (an event id, or a match id)."""
    digest = hmac.new(key, _KEEPER + f"{scope}\x00{name}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:15]).decode()


def check_scorekeeper(key: bytes | None, scope: str, name: str, token: str | None) -> bool:
    if not key or not token or not scope:
        return False
    return hmac.compare_digest(scorekeeper_token(key, scope, name), token)


def scorekeeper_link(key: bytes, scope: str, name: str = "", to: str | None = None) -> str:
    """The path that signs a scorekeeper in and opens ``to`` (default: the
    event's page, or the match's for a match scope)."""
    from urllib.parse import urlencode

    query = {"token": scorekeeper_token(key, scope, name)}
    if name:
        query["name"] = name
    if to:
        query["next"] = to
    return f"/scorekeeper/{scope}?{urlencode(query)}"


def session_secret(key: bytes | None) -> tuple[str, bool]:
    """The key that signs the board's session cookies, and whether every
    server of the store shares it: ``$REFEREE_SESSION_KEY``, else derived
    from the token key (shared as it is), else a random key of this process
    only (sign-ins then last until it stops, and a second server would not
    know them)."""
    from_env = os.environ.get(SESSION_ENV, "")
    if from_env:
        return from_env, True
    if key:
        return hmac.new(key, _SESSION, hashlib.sha256).hexdigest(), True
    return secrets.token_hex(32), False
