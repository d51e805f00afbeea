"""Pairings of a round: Swiss by points (the ``swisspair`` library) or imported from a CSV made elsewhere.

Who is paired: ``TournamentState.eligible()``, the players who have not
dropped and, in an event that uses check-in (``event new --check-in``),
have checked in; an event without check-in pairs every registered player
who has not dropped.

Swiss here means: players ranked by the standings (points, then OMW, OOMW,
name; round 1 in an order drawn from the round's seed), paired within
score groups as far as possible, never against someone they have already
met, and with an odd count a bye to the lowest-ranked player who has not
had one. ``swisspair`` (PyPI; a C++ minimum-cost perfect matching with
Python bindings, written for Magic tournaments) does the matching with
exactly those constraints (``cannot_be_paired_against_ids``,
``can_get_bye``); the tests check the three promises on random events.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from typing import Any, Callable

from events.tournament import Pairing
from projections.tournament import TournamentState
from referee.inputs import NAME_LENGTH, InputError, read_text, text_problem
from referee.tournament.store import Refused


def swiss(state: TournamentState, table: list[dict[str, Any]], seed: int) -> list[tuple[str, str | None]]:
    """The next round's pairs (A, B or None for the bye), best-placed first.
    ``table`` is the current standings (rows with player and points)."""
    from swisspair import Player, create_matches

    names = state.eligible()
    if len(names) < 2:
        raise Refused(_too_few(state, names))
    if state.rounds:
        position = {row["player"]: i for i, row in enumerate(table)}
        points = {row["player"]: row["points"] for row in table}
        order = sorted(names, key=lambda n: (position.get(n, len(position)), n))
    else:
        points = {}
        order = sorted(names)
        random.Random(seed).shuffle(order)
    met = state.opponents()
    byes = state.byes()
    # swisspair wants non-increasing points by rank: rank by points first
    # (the standings order already is, except for players it does not list).
    order.sort(key=lambda n: -points.get(n, 0))

    def pair(names: list[str]) -> list[Any] | None:
        players = [
            Player(
                id=n,
                points=int(points.get(n, 0)),
                rank=i,
                can_get_bye=False,
                cannot_be_paired_against_ids={o for o in met.get(n, set()) if o in names},
            )
            for i, n in enumerate(names, start=1)
        ]
        try:
            return create_matches(players)
        except Exception:  # noqa: BLE001 - the library signals "no pairing exists" by raising
            return None

    # The bye, with an odd count: the lowest-ranked player who has not had one
    # (swisspair only promises "someone without one"), the next one up if the
    # others cannot then be paired without a rematch.
    bye: str | None = None
    matches = None
    if len(order) % 2 == 0:
        matches = pair(order)
    else:
        for candidate in reversed(order):
            if candidate in byes:
                continue
            matches = pair([n for n in order if n != candidate])
            if matches is not None:
                bye = candidate
                break
    if matches is None:
        raise Refused(
            f"no Swiss pairing without a rematch (and with at most one bye each) exists for round "
            f"{state.current_round + 1}"
        )
    rank = {n: i for i, n in enumerate(order)}
    pairs: list[tuple[str, str | None]] = [] if bye is None else [(bye, None)]
    for m in matches:
        a, b = m.p1.id, (m.p2.id if m.p2 is not None else None)
        if b is not None and rank[b] < rank[a]:
            a, b = b, a
        pairs.append((a, b))
    pairs.sort(key=lambda ab: (ab[1] is None, rank[ab[0]]))
    return pairs


def _too_few(state: TournamentState, names: list[str]) -> str:
    """Why a round cannot be paired with these players, in the organiser's words."""
    if not state.check_in:
        return f"a round needs at least two players who have not dropped; there are {len(names)}"
    waiting = [n for n, p in state.players.items() if not p.dropped and not p.checked_in]
    return (
        f"{state.name} pairs only players who checked in (event new --check-in), and {len(names)} did; "
        f"check players in first: referee event checkin {state.id} "
        + " ".join((repr(n) if " " in n else n) for n in waiting[:3])
        + (" ..." if len(waiting) > 3 else "")
    ).rstrip()


def read_pairings(file: str | Path, state: TournamentState) -> list[Pairing]:
    """Pairings from a CSV file: ``table, player A, player B`` per line (a
    header line is allowed; an empty B is a bye). Every player must be
    registered, not dropped, checked in if the event uses check-in, and
    appear once; tables are distinct
    positive numbers. ``InputError`` naming the line otherwise."""
    text = read_text(file).lstrip("\ufeff")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(file, "", f"expected CSV: {exc}") from None
    out: list[Pairing] = []
    seen_players: dict[str, int] = {}
    seen_tables: set[int] = set()
    for line, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if line == 1 and cells and not cells[0].isdigit():
            continue  # a header
        if len(cells) not in (2, 3):
            raise InputError(file, "", f"expected 'table, player A, player B' (3 columns), got {len(cells)}", line)
        if not cells[0].isdigit() or int(cells[0]) < 1:
            raise InputError(file, "column 1 (table)", f"expected a table number (1 or more), got {cells[0]!r}", line)
        table = int(cells[0])
        if table in seen_tables:
            raise InputError(file, "column 1 (table)", f"table {table} is listed twice", line)
        seen_tables.add(table)
        a, b = cells[1], (cells[2] if len(cells) == 3 and cells[2] else None)
        for where, name in (("column 2 (player A)", a), ("column 3 (player B)", b)):
            if name is None:
                continue
            problem = text_problem(name, NAME_LENGTH)
            if problem is not None:
                raise InputError(file, where, f"the player name {problem}", line)
            p = state.players.get(name)
            if p is None:
                known = ", ".join(state.players) or "none yet"
                raise InputError(file, where, f"{name!r} is not registered in this event (registered: {known})", line)
            if p.dropped:
                raise InputError(file, where, f"{name!r} has dropped from this event", line)
            if state.check_in and not p.checked_in:
                raise InputError(
                    file,
                    where,
                    f"{name!r} has not checked in (this event pairs only players who "
                    "checked in: referee event checkin)",
                    line,
                )
            if name in seen_players:
                raise InputError(file, where, f"{name!r} is already paired at line {seen_players[name]}", line)
            seen_players[name] = line
        if a == "":
            raise InputError(file, "column 2 (player A)", "player A is empty", line)
        out.append(Pairing(table=table, A=a, B=b))
    if not out:
        raise InputError(file, "", "expected at least one line 'table, player A, player B'")
    return sorted(out, key=lambda p: p.table)


def _registration_header(cells: list[str]) -> bool:
    """Is this first line a header ("name, deck file", "player,deck", "Name,Deck File")?"""
    if len(cells) != 2:
        return False
    first, second = (" ".join(c.lower().replace("_", " ").split()) for c in cells)
    return first in ("name", "player", "player name") and second in ("deck", "deck file", "deckfile", "file")


def read_registrations(file: str | Path, load_deck: Callable[[Path], list[Any]]) -> list[tuple[str, list[Any]]]:
    """Players and their decks from a CSV file: ``name, deck file`` per line
    (a header line is allowed; a deck path is relative to the CSV's folder).
    Every deck is read with ``load_deck`` (the tournament's game's deck file,
    checked by its deck rules: Harem Master's 100.2) before anything is written;
    ``InputError`` naming the CSV, the line and what was expected otherwise
    (for a bad deck, the deck file's own problem too). Decks named by several
    lines are read once."""
    path = Path(file)
    text = read_text(file).lstrip("\ufeff")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(file, "", f"expected CSV: {exc}") from None
    decks: dict[Path, list[Any]] = {}
    out: list[tuple[str, list[Any]]] = []
    seen: dict[str, int] = {}
    for line, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if line == 1 and _registration_header(cells):
            continue  # a header: "name,deck file" (as the docs write it), "player,deck", ...
        if len(cells) != 2 or not cells[0] or not cells[1]:
            raise InputError(
                file, "", f"expected 'name, deck file' (2 columns), got {len(cells)}: {','.join(cells)!r}", line
            )
        name, deck = cells
        problem = text_problem(name, NAME_LENGTH)
        if problem is not None:
            raise InputError(file, "column 1 (name)", f"the player name {problem}", line)
        if name in seen:
            raise InputError(file, "column 1 (name)", f"{name!r} is already listed at line {seen[name]}", line)
        seen[name] = line
        deck_path = Path(deck) if Path(deck).is_absolute() else path.parent / deck
        if deck_path not in decks:
            if not deck_path.is_file():
                raise InputError(
                    file, "column 2 (deck file)", f"expected a deck file: no such file {str(deck_path)!r}", line
                )
            try:
                decks[deck_path] = load_deck(deck_path)
            except InputError as exc:
                raise InputError(
                    file, "column 2 (deck file)", f"the deck {deck!r} is not a legal deck: {exc.describe()}", line
                ) from None
        out.append((name, decks[deck_path]))
    if not out:
        raise InputError(file, "", "expected at least one line 'name, deck file'")
    return out
