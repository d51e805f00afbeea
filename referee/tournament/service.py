"""What the ``referee event`` commands do: register and check in players, pair rounds and start their clock, create each table's games, enter results, time, penalties, drops, re-pairings and the top cut.

Every operation decides on the tournament's current state and appends its
events (``store.Tournaments.update``), so eight stations may run them at
once: a registration or a drop lands once; a round is paired once, and a
station that loses that race gets the pairings the other station wrote.
A round's matches are created after its ``RoundPaired`` event, with ids
decided in it (``e-1a2b3c4d.r2.t3``), the registered decks and a seed drawn
from the round's seed, so creating them is idempotent: whichever station
gets to a table first creates it, the others find it there, and a station
that stopped half-way is completed by the next command. Game K of a
best-of-N match (``<table id>.gK``) is created the same way, by the first
command that finds game K-1 over and the match not (``ensure_games``).

A result entered by hand (TP1), a game lost to a penalty (TP3) and a game
settled by time (TP2) are all the same fact: a ``GameEnded`` in the game's
own log naming the judge (``corrections.enter_result``). The game is then
over for the rules too: a later action is refused citing the policy, and
only a judge's rewind reopens it.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from events.tournament import (
    Pairing,
    PenaltyApplied,
    PenaltyGiven,
    PenaltyRescinded,
    PlayerCheckedIn,
    PlayerDropped,
    PlayerRegistered,
    PlayerReinstated,
    RoundPaired,
    TableRepaired,
    TimeCalled,
    TimeExtended,
)
from projections.tournament import (
    Outcome,
    Result,
    TournamentState,
    game_id,
    placings,
    seed_order,
    table_of,
    table_outcome,
)
from referee.ruleset import Ruleset
from referee.simulate import TOURNAMENT, SelfPlayRefused, complete_ruleset
from referee.store.errors import MatchExists
from referee.tournament import words
from referee.tournament.policy import INFRACTIONS, PENALTIES, PENALTY, REPAIR, TIME, cite
from referee.tournament.projection import Reader, game_seats
from referee.tournament.store import Refused, Tournaments


def now() -> datetime:
    return datetime.now(timezone.utc)


def stamp(when: datetime | None = None) -> str:
    """A time as events store it (ISO 8601, UTC, to the second)."""
    return (when or now()).replace(microsecond=0).isoformat()


def said(state: TournamentState, when: datetime | None = None) -> str:
    """When something happens, as the log's sentences say it: in the event's time zone ("14:02 CEST on 2026-06-01")."""
    return words.said(when or now(), state.tz)


@dataclass
class Station:
    """One station's view of the database: the match store, its tournaments
    and the tournaments read model (caught up on demand; read-only stores
    read it without writing, see ``projection.Reader``)."""

    store: Any

    def __post_init__(self) -> None:
        from referee.tournament.store import TournamentCache

        states = TournamentCache(self.store)  # folded once, shared by the commands and the read models
        self.tournaments = Tournaments(self.store, states)
        self.reader = Reader(self.store, writable=not getattr(self.store, "read_only", False), states=states)

    @property
    def view(self) -> Any:
        """The tracking view itself (writers only)."""
        return self.reader.view if self.reader.writable else self.reader

    def catch_up(self) -> int:
        return self.reader.catch_up()

    def keep_current(self) -> None:
        """Leave both read models current: the tournaments projection and the
        table summaries, caught up to the log's last notification. Every
        command that writes ends with this (``referee event ...`` as its
        station closes, ``referee act`` and the judges' commands on a table
        of an event: ``after_match_write``), so a reader that may not write
        (the board, a read-only role) folds at most what was written since
        the last write. Read-only stations leave them alone."""
        if not self.reader.writable:
            return
        from referee.tournament.tables import Tables

        self.reader.catch_up()
        tables = Tables(self.store, writable=True)
        try:
            tables.refresh()
        finally:
            tables.close()

    def close(self) -> None:
        """Release the view's connection (the store is closed by its owner)."""
        self.reader.close()

    def results(self, state: TournamentState) -> dict[str, Any]:
        """Every game result of the tournament, winners by name."""
        return self.reader.named_results(state)


def after_match_write(store: Any, match: str) -> None:
    """After a command wrote to ``match`` (an action, a rewind, a note): a
    table of an event leaves the read models current (``Station.keep_current``:
    the table summaries, and the standings when a game ended or reopened).
    A match outside any event is left to the next command that writes to
    an event, or to the reader: a store without events has no read models."""
    from referee.tournament.projection import tournament_of_match

    if tournament_of_match(match.strip().lower()) is None:
        return
    station = Station(store)
    try:
        station.keep_current()
    finally:
        station.close()


# --- matches -----------------------------------------------------------------------------


def create_table_match(
    store: Any,
    match_id: str,
    decks: dict[str, list[Any]],
    names: dict[str, str],
    seed: int,
    deal: str,
    title: str | None,
    game: str | None = None,
) -> bool:
    """Create one game's match (False if it already exists). The one place
    a tournament makes a match, so the deal setting goes through here: an
    event played on paper gets table-dealt matches (hidden cards unknown
    until the table reveals them, bounded by the registered deck lists) in
    record mode, since the log is the record of what the table did,
    mistakes included. The match is of the tournament's ``game`` (its
    ruleset's ``start``; a fragment of a game is refused)."""
    mode = "record" if deal == "table" else "strict"
    applied = complete_ruleset(game, TOURNAMENT).start(decks, seed=seed, names=names, mode=mode, deal=deal)
    try:
        store.create(applied.events, name=title, match_id=match_id)
    except MatchExists:
        return False
    return True


def match_seed(round_seed: int, table: int, game: int = 1) -> int:
    text = f"{round_seed}:{table}" if game == 1 else f"{round_seed}:{table}:g{game}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % 2**31


def _create_game(station: Station, state: TournamentState, paired: RoundPaired, p: Pairing, k: int) -> bool:
    if p.match is None or p.B is None:
        return False
    gid = game_id(p.match, k)
    if station.store.exists(gid):
        return False
    first, second = tournament_ruleset(state).seats  # a table seats its pairing's A and B in the game's two seats
    decks = {first: state.players[p.A].deck, second: state.players[p.B].deck}
    title = f"{state.name}, round {paired.round}, table {p.table}" + (
        f", game {k}" if state.best_of > 1 or k > 1 else ""
    )
    return create_table_match(
        station.store,
        gid,
        decks,
        {first: p.A, second: p.B},
        match_seed(paired.seed, p.table, k),
        state.deal,
        title,
        state.game,
    )


def ensure_matches(station: Station, state: TournamentState, round_no: int | None = None) -> list[str]:
    """Create the first games of a round that do not exist yet; return those created."""
    if not state.rounds:
        return []
    paired = state.rounds[(round_no or state.current_round) - 1]
    return [p.match for p in paired.pairings if p.match and _create_game(station, state, paired, p, 1)]


def outcomes(station: Station, state: TournamentState, round_no: int | None = None) -> dict[int, Outcome]:
    """Each table of a round (default: the current one) and where its match stands."""
    if not state.rounds:
        return {}
    paired = state.rounds[(round_no or state.current_round) - 1]
    results = station.results(state)
    playoff = paired.source == "playoff"
    return {
        p.table: table_outcome(
            p, results, state.best_of, called=state.called(paired.round, p.table) is not None, playoff=playoff
        )
        for p in paired.pairings
    }


def ensure_games(station: Station, state: TournamentState) -> list[str]:
    """Create the next game of every table of the current round whose last
    game is over and whose match is not (best-of-N, TP4); return those created."""
    if not state.rounds:
        return []
    ensure_matches(station, state)
    paired = state.rounds[-1]
    made = []
    station.catch_up()
    done = outcomes(station, state)
    for p in paired.pairings:
        out = done.get(p.table)
        if out is None or out.over or out.next_game is None or out.next_game == 1 or p.match is None:
            continue
        if _create_game(station, state, paired, p, out.next_game):
            made.append(game_id(p.match, out.next_game))
    return made


def current_game(station: Station, state: TournamentState, p: Pairing, round_no: int) -> str | None:
    """The game being played at a table (created if it is due), None when the match is over."""
    if p.match is None or p.B is None:
        return None
    out = table_outcome(
        p,
        station.results(state),
        state.best_of,
        called=state.called(round_no, p.table) is not None,
        playoff=state.rounds[round_no - 1].source == "playoff",
    )
    if out.over or out.next_game is None:
        return None
    _create_game(station, state, state.rounds[round_no - 1], p, out.next_game)
    return game_id(p.match, out.next_game)


# --- registration, check-in, drops ---------------------------------------------------------


def tournament_ruleset(state: TournamentState) -> Ruleset:
    """The ruleset of the tournament's game (Harem Master when it names none);
    refused for a fragment of a game, which ends no game to score."""
    try:
        return complete_ruleset(state.game, TOURNAMENT)
    except SelfPlayRefused as exc:
        raise Refused(f"{state.name}: {exc}") from None


def register(station: Station, tid: str, player: str, deck: list[Any], by: str | None) -> PlayerRegistered:
    return register_many(station, tid, [(player, deck)], by)[0]


def register_many(
    station: Station, tid: str, entries: list[tuple[str, list[Any]]], by: str | None
) -> list[PlayerRegistered]:
    """Register several players in one write (one transaction): all or none."""
    names = [n for n, _ in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise Refused(f"{', '.join(twice)} listed more than once")

    def decide(state: TournamentState) -> list[Any]:
        out = []
        for player, deck in entries:
            known = state.players.get(player)
            if known is not None and by is None:
                raise Refused(
                    f"{player} is already registered in {state.name}: a change of deck is a new registration "
                    "that names who changed it (--by JUDGE)"
                )
            if known is not None and known.dropped:
                raise Refused(f"{player} has dropped from {state.name}")
            out.append(PlayerRegistered(player=player, deck=deck, by=by, replaces=known is not None, game=state.game))
        return out

    _, new = station.tournaments.update(tid, decide)
    return new  # type: ignore[return-value]


def check_in(station: Station, tid: str, players: list[str], by: str | None) -> list[str]:
    """Mark players as present; returns those newly checked in."""

    def decide(state: TournamentState) -> list[Any]:
        unknown = [n for n in players if n not in state.players]
        if unknown:
            known = list(state.players)
            raise Refused(f"not registered in {state.name}: " + ", ".join(n + _did_you_mean(n, known) for n in unknown))
        return [PlayerCheckedIn(player=n, by=by) for n in dict.fromkeys(players) if not state.players[n].checked_in]

    _, new = station.tournaments.update(tid, decide)
    return [e.player for e in new]  # type: ignore[attr-defined]


def drop(station: Station, tid: str, player: str, by: str | None, reason: str | None = None) -> None:
    def decide(state: TournamentState) -> list[Any]:
        p = state.players.get(player)
        if p is None:
            raise Refused(
                f"{player} is not registered in {state.name}{_did_you_mean(player, list(state.players))}"
                f" (registered: {', '.join(list(state.players)[:20]) or 'none'}{' ...' if len(state.players) > 20 else ''})"
            )
        if p.dropped:
            return []  # already dropped (by another station, say): nothing to add
        return [PlayerDropped(player=player, by=by, reason=reason)]

    station.tournaments.update(tid, decide)


def undrop(station: Station, tid: str, player: str, by: str, reason: str) -> None:
    def decide(state: TournamentState) -> list[Any]:
        p = state.players.get(player)
        if p is None:
            raise Refused(f"{player} is not registered in {state.name}{_did_you_mean(player, list(state.players))}")
        if not p.dropped:
            raise Refused(f"{player} has not dropped from {state.name}")
        return [PlayerReinstated(player=player, by=by, reason=reason)]

    station.tournaments.update(tid, decide)


# --- rounds -------------------------------------------------------------------------------


def open_tables(station: Station, state: TournamentState) -> list[Pairing]:
    """The tables of the current round whose match is not over."""
    if not state.rounds:
        return []
    done = outcomes(station, state)
    return [p for p in state.rounds[-1].pairings if p.B is not None and not done[p.table].over]


def _check_round_over(station: Station, state: TournamentState) -> None:
    still = open_tables(station, state)
    if still:
        tables = ", ".join(f"table {p.table} ({p.A} v {p.B})" for p in still[:12])
        more = f" and {len(still) - 12} more" if len(still) > 12 else ""
        raise Refused(f"round {state.current_round} is not over: {tables}{more} still being played")


def pair_round(
    station: Station, tid: str, imported: list[Pairing] | None = None, expected: int | None = None
) -> tuple[RoundPaired, bool]:
    """Pair the next round (Swiss, or ``imported``), start its clock and
    create its matches. Returns the round and whether this station paired it
    (False: another station had just paired the same round, and these are
    its pairings).

    ``expected`` names the round meant: if it is already paired, that round
    is returned (its matches created if a station stopped half-way), so
    several stations asking for round N at once all get the one round N."""
    from referee.tournament.pairing import swiss

    station.catch_up()
    before = station.tournaments.load(tid)
    target = before.current_round + 1
    if expected is not None:
        if expected <= before.current_round:
            ensure_matches(station, before, expected)
            if expected == before.current_round:
                apply_pending(station, tid)  # a station that stopped half-way
            return before.rounds[expected - 1], False
        if expected != target:
            raise Refused(f"round {expected} cannot be paired yet: {before.name} is at round {before.current_round}")

    def decide(state: TournamentState) -> list[Any]:
        if state.current_round >= target:
            return []  # another station paired it meanwhile
        if state.playoff_rounds:
            raise Refused(
                f"{state.name} is in its top cut: pair its next round with `referee event playoff {state.id}`"
            )
        _check_round_over(station, state)
        seed = random.SystemRandom().randrange(2**31)
        if imported is not None:
            pairs = [(p.table, p.A, p.B) for p in imported]
        else:
            table = station.reader.standings(state.id)
            pairs = [(i, a, b) for i, (a, b) in enumerate(swiss(state, table, seed), start=1)]
        pairings = [
            Pairing(table=t, A=a, B=b, match=None if b is None else f"{state.id}.r{target}.t{t}") for t, a, b in pairs
        ]
        return [
            RoundPaired(
                round=target,
                pairings=pairings,
                source="imported" if imported is not None else "swiss",
                seed=seed,
                started=stamp(),
                minutes=state.round_minutes,
            )
        ]

    state, new = station.tournaments.update(tid, decide)
    ensure_matches(station, state, target)
    if state.current_round == target:
        apply_pending(station, tid)
    station.catch_up()
    return state.rounds[target - 1], bool(new)


def playoff(station: Station, tid: str, top: int | None) -> tuple[RoundPaired, bool]:
    """Pair the top cut's next round: the first seeded from the final Swiss
    standings (1vN, ...: ``seed_order``), each later one pairing the winners
    of neighbouring tables. ``top`` is required for the first."""
    station.catch_up()

    def decide(state: TournamentState) -> list[Any]:
        _check_round_over(station, state)
        seed = random.SystemRandom().randrange(2**31)
        target = state.current_round + 1
        if not state.playoff_rounds:
            if top is None or top < 2 or top & (top - 1):
                raise Refused("the top cut's size is a power of two, 2 or more: --top 8")
            standings = station.reader.standings(state.id)
            seeds = [r["player"] for r in standings if not state.players[r["player"]].dropped][:top]
            if len(seeds) < top:
                raise Refused(f"a top {top} needs {top} players who have not dropped; there are {len(seeds)}")
            pairs = [(seeds[a - 1], seeds[b - 1]) for a, b in seed_order(top)]
        else:
            last = state.playoff_rounds[-1]
            if len(last.pairings) == 1:
                raise Refused(f"the top cut of {state.name} is over: its final was round {last.round}")
            done = outcomes(station, state)
            winners = [done[p.table].winner for p in last.pairings]
            pairs = [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
        pairings = [
            Pairing(table=t, A=a, B=b, match=f"{state.id}.r{target}.t{t}") for t, (a, b) in enumerate(pairs, start=1)
        ]
        return [
            RoundPaired(
                round=target,
                pairings=pairings,
                source="playoff",
                seed=seed,
                started=stamp(),
                minutes=state.round_minutes,
            )
        ]

    state, new = station.tournaments.update(tid, decide)
    ensure_matches(station, state)
    apply_pending(station, tid)
    station.catch_up()
    return state.rounds[-1], bool(new)


def final_placings(station: Station, state: TournamentState) -> list[dict[str, Any]]:
    return placings(state, station.reader.standings(state.id), station.results(state))


def repair_table(
    station: Station, tid: str, table: int, a: str, b: str | None, judge: str, reason: str
) -> list[TableRepaired]:
    """Re-pair a table of the current round (TP7): ``a`` and ``b`` (None: a
    bye) play at ``table`` now, in a new match; the table's old match is
    void. The round stays whole: a player seated here who came from another
    table leaves their seat there to whoever they replace here (so a bye
    player, or a player of another table, can be seated here), a player left
    without an opponent has a bye, an emptied table leaves the round, and a
    player this takes out of the round must have dropped or be a late
    entrant for it (who then takes the missed round, TP5), else it is
    refused. ``table`` may be a new table number (a new table of the round).
    A table whose match has a result is never re-paired. Returns one
    ``TableRepaired`` per table changed, written in one append."""
    if table < 1:
        raise Refused("a table number is 1 or more")
    station.catch_up()  # every result landed so far is known: a table with one is never re-paired

    def decide(state: TournamentState) -> list[Any]:
        if not state.rounds:
            raise Refused(f"{state.name} has no round to re-pair")
        r = state.rounds[-1]
        if a == b:
            raise Refused("a table needs two different players")
        at = {p.table: p for p in r.pairings}
        here = at.get(table)
        new = [a] + ([b] if b is not None else [])
        for n in new:
            player = state.players.get(n)
            if player is None:
                raise Refused(f"{n} is not registered in {state.name}{_did_you_mean(n, list(state.players))}")
            if player.dropped:
                raise Refused(f"{n} has dropped from {state.name}: undrop them first (event undrop)")
            if state.check_in and not player.checked_in:
                raise Refused(f"{n} has not checked in (this event pairs only players who checked in)")
        old = [n for n in ((here.A, here.B) if here else ()) if n is not None]
        seats = state.seats(r.round)
        arriving = [n for n in new if n not in old]
        leaving = [n for n in old if n not in new]
        changed: dict[int, list[str | None]] = {table: list(new)}
        vacated: list[tuple[int, int]] = []
        for n in arriving:
            for t in seats.get(n, []):
                if t == table:
                    continue
                there = changed.setdefault(t, [x for x in (at[t].A, at[t].B) if x is not None])
                i = there.index(n)
                there[i] = None
                vacated.append((t, i))
        for n in leaving:
            player = state.players[n]
            if player.dropped:
                continue  # a dropped player needs no seat: they leave the round
            if vacated:
                t, i = vacated.pop(0)
                changed[t][i] = n
                continue
            if not (player.joined >= r.round or n not in state.originally.get(r.round, set())):
                raise Refused(
                    f"{n} sits at table {table} and has not dropped: seating {' and '.join(arriving)} there would "
                    f"leave {n} without a table in round {r.round}. Seat {n} elsewhere in the same re-pair (bring in "
                    f"a player who has a table or the bye), drop {n} first (event drop), or give the newcomer a "
                    f"table of their own (event repair {state.id} {_free_table(r)} --a NAME: a bye)"
                )
        events: list[Any] = []
        when = stamp()
        for t in sorted(changed):
            players = [x for x in changed[t] if x is not None]
            was = at.get(t)
            A = players[0] if players else None
            B = players[1] if len(players) > 1 else None
            if was is not None and (was.A, was.B) == (A, B):
                continue
            if was is not None and was.match is not None:
                decided = _decided_games(station, state, was)
                if decided:
                    raise Refused(
                        f"table {t}'s match already has a result ({decided}): re-pairing would void it; "
                        "correct a result with `event result --replace REASON` instead"
                    )
            if was is None and A is None:
                continue
            nth = sum(1 for x in state.repairs if x.round == r.round and x.table == t) + 2
            match = None if B is None else f"{state.id}.r{r.round}.t{t}.p{nth}"
            why = reason if t == table else f"{reason} (seats moved by the re-pair of table {table})"
            events.append(
                TableRepaired(
                    round=r.round,
                    table=t,
                    A=A,
                    B=B,
                    match=match,
                    judge=judge,
                    reason=why,
                    at=when,
                    void=was.match if was is not None else None,
                )
            )
        if not events:
            raise Refused(f"table {table} already seats {' v '.join(new)}: nothing to re-pair")
        return events

    _, new_events = station.tournaments.update(tid, decide)
    ensure_matches(station, station.tournaments.load(tid))
    station.catch_up()
    return new_events  # type: ignore[return-value]


def _free_table(r: RoundPaired) -> int:
    return max((p.table for p in r.pairings), default=0) + 1


def _decided_games(station: Station, state: TournamentState, p: Pairing) -> str:
    """The games of a table that have a result, in words ("" when none)."""
    if p.match is None:
        return ""
    results = station.results(state)
    done = []
    k = 1
    while game_id(p.match, k) in results:
        r = results[game_id(p.match, k)]
        done.append(f"game {k}: " + ("a draw" if r.draw or r.winner is None else f"{r.winner} won"))
        k += 1
    if not done and station.store.exists(p.match):
        game, _ = station.store.load(p.match)
        if station.store.ruleset(p.match).result(game) is not None:
            done.append("game 1 is over")
    return ", ".join(done)


def _did_you_mean(name: str, known: list[str]) -> str:
    """A hint for a name close to a registered one: " (did you mean Alice?)"."""
    import difflib

    close = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
    if not close:
        folded = {k.casefold(): k for k in known}
        if name.casefold() in folded:
            close = [folded[name.casefold()]]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def void_sentence(state: TournamentState | None, match: str, repair: dict[str, Any]) -> str:
    """Why a match is void, naming the re-pair: who, when, why, and what the table plays now."""
    tz = state.tz if state is not None else None
    when = f" at {words.hhmm(repair['at'], tz)}" if repair.get("at") else ""
    now_plays = (
        f"the table plays {repair['match']} now"
        if repair.get("match")
        else f"{repair['A']} has a bye there now"
        if repair.get("A")
        else "the table is no longer in the round"
    )
    return (
        f"{match} is void: round {repair['round']} table {repair['table']} was re-paired by {repair['judge']}{when} "
        f"({repair['reason']}); {now_plays}. Nothing is recorded in a void match ({cite(REPAIR)})."
    )


def void_refusal(store: Any, match: str) -> str | None:
    """The refusal for an action on a void match (a table a judge re-paired,
    TP7), or None. ``referee act`` asks before acting on a table of an event."""
    from referee.tournament.projection import voided

    repair = voided(store, match.strip().lower())
    if repair is None:
        return None
    return void_sentence(None, match, repair)


# --- results ------------------------------------------------------------------------------


class _Same(Exception):
    """The game already has the result being entered (another station keyed the same slip first)."""


def _locate(state: TournamentState, match: str) -> tuple[int, Pairing, int | None]:
    """The round, table and game number (None: the table's id, which names no game) of ``match``:
    a game's id, a table's, or a table number of the current round."""
    text = match.strip().lower()
    if text.isascii() and text.isdigit():
        if not state.rounds:
            raise Refused(f"{state.name} has no round yet")
        r = state.rounds[-1]
        p = next((x for x in r.pairings if x.table == int(text)), None)
        if p is None:
            raise Refused(f"{state.round_name(r.round).lower()} has no table {text}")
        return r.round, p, None
    repair = state.void_of(text)
    if repair is not None:
        raise Refused(void_sentence(state, text, repair.model_dump(mode="json")))
    found = state.pairing_of(text)
    if found is None:
        raise Refused(f"match {match} is not a table of {state.name}")
    round_no, p = found
    table, k = table_of(text)
    if text == p.match:
        return round_no, p, None
    return round_no, p, k


def _result_words(r: Result | None) -> str:
    if r is None:
        return "no result"
    return "a draw" if r.draw or r.winner is None else f"{r.winner} wins"


def _ended(station: Station, state: TournamentState, game: str) -> str:
    """How a game's result came, in words: "entered by Judge Kim at 14:02 CEST", "played to its end at 14:02 UTC"."""
    rows = station.reader.results([game])
    row = rows.get(game)
    if row is None:
        # The other station's result is stored but the read model has not
        # caught up with it yet (two judges keying one slip at once): read
        # the game's own log, from its end.
        from events.kernel import GameEnded

        try:
            with station.store._db_errors(f"read match {game}"):
                recent = list(station.store.application.events.get(game, desc=True, limit=50))
        except Exception:  # noqa: BLE001 - the words are a courtesy; the refusal stands
            recent = []
        ended = next((r for r in recent if isinstance(r.event, GameEnded)), None)
        if ended is None:
            return "recorded"
        row = {"position": ended.position, "judge": ended.event.judge, "rule": ended.event.rule}
    when = ""
    try:
        with station.store._db_errors(f"read match {game}"):
            found = list(station.store.application.events.get(game, gt=row["position"] - 1, limit=1))
        if found:
            when = f" at {words.hhmm(found[0].timestamp, state.tz)}"
    except Exception:  # noqa: BLE001 - the time is a courtesy; the result is what matters
        when = ""
    if row.get("judge"):
        return f"{words.how(row.get('rule'))} {row['judge']}{when}"
    return f"played to its end{when} ({row.get('rule')})"


def _end_game(
    station: Station,
    state: TournamentState,
    game: str,
    p: Pairing,
    winner: str | None,
    judge: str,
    reason: str,
    *,
    rule: str | None = None,
    replace: str | None = None,
) -> None:
    """A game's result entered by hand: the judge's ``GameEnded`` in its own
    log. ``_Same`` when the game already ends with this very result (a slip
    keyed again, by this station or another); ``Refused`` when it ends with
    another one and this is no replacement."""
    from referee import corrections
    from referee.actions import IllegalAction

    first, second = game_seats(state)
    seat = None if winner is None else (first if winner == p.A else second)
    rules = station.store.ruleset(game)

    def decide(game_state: Any) -> Any:
        if replace is not None:
            log = station.store.events(game)
            return corrections.replace_result(game_state, log, seat, seat is None, judge, replace, reason)
        ended = rules.result(game_state)
        if ended is not None:
            if (ended.draw or ended.winner is None) == (seat is None) and (seat is None or ended.winner == seat):
                raise _Same()
        return corrections.enter_result(game_state, seat, seat is None, judge, reason, rule=rule)

    try:
        station.store.update(game, decide)
    except IllegalAction as exc:
        raise Refused(f"{game}: {exc.refusal.reason} ({exc.refusal.rule})") from None


@dataclass
class Keyed:
    """What ``enter_result`` did: each game it touched (``entered``,
    ``replaced``, or ``already``: the same result was there, nothing
    written, with who entered it and when), and where the table and its
    round stand now."""

    round: int
    table: Pairing
    games: list[dict[str, Any]]
    outcome: Outcome
    next_game: str | None
    still_playing: list[Pairing]
    round_over: bool


def _score_sequence(p: Pairing, winner: str | None, wins: int, losses: int, draws: int) -> list[str | None]:
    """A match's games for a score keyed from a slip, in an order that ends
    the match at its last game: the loser's wins, the draws, the winner's
    wins (a slip says how many, not in which order; the standings need only
    the count)."""
    a = winner or p.A
    b = p.B if a == p.A else p.A
    return [b] * losses + [None] * draws + [a] * wins


def enter_result(
    station: Station,
    tid: str,
    match: str,
    winner: str | None,
    draw: bool,
    judge: str,
    *,
    game: int | None = None,
    score: tuple[int, int, int] | None = None,
    replace: str | None = None,
    note: str | None = None,
) -> Keyed:
    """A result entered by hand (TP1), for what it names: ``match`` is a
    game's id, a table's id or a table number of the current round; ``game``
    names game K of the table, ``score`` the whole match (the winner's game
    wins, the loser's, draws; a draw: equal wins). A table's id alone names
    game 1 of a single-game match only: in a best-of-N match it must say
    which game, or the score.

    The same result keyed again (a slip keyed twice, by one station or two)
    is recognised and nothing is written; a different result for a decided
    game needs ``replace`` (a reason, kept in the log). Games the score
    needs are created and entered in order (the loser's wins, the draws, the
    winner's wins). Returns what was done and what is due next."""
    station.catch_up()
    state = station.tournaments.load(tid)
    round_no, p, k = _locate(state, match)
    if winner is not None and winner not in (p.A, p.B):
        raise Refused(
            f"{winner} does not play at table {p.table} ({p.A} v {p.B}){_did_you_mean(winner, [p.A, p.B or ''])}"
        )
    if p.match is None or p.B is None:
        raise Refused(f"table {p.table} is {p.A}'s bye: there is no game to enter")
    if game is not None and k is not None and game != k:
        raise Refused(f"{match} is game {k} of table {p.table}, not game {game}")
    k = game if game is not None else k
    paired = state.rounds[round_no - 1]
    playoff = paired.source == "playoff"
    called = state.called(round_no, p.table) is not None
    where = f"table {p.table}" + (
        f" ({state.round_name(round_no)})" if round_no != state.current_round or playoff else ""
    )
    if score is None and k is None:
        if state.best_of > 1:
            now = table_outcome(p, station.results(state), state.best_of, called=called, playoff=playoff)
            due = f"game {now.next_game} is being played" if now.next_game else "its match is over"
            raise Refused(
                f"{where} plays best of {state.best_of}: say which game the result is for (--game N; {due}) "
                f"or give the match's score (--score 2-1)"
            )
        k = 1
    verb_note = f" ({note})" if note else ""
    done: list[dict[str, Any]] = []

    def key_game(n: int, who: str | None, results: dict[str, Result], *, replacing: bool) -> None:
        gid = game_id(str(p.match), n)
        have = results.get(gid)
        wanted = Result(who, who is None)
        if have is not None:
            same = (have.draw or have.winner is None) == wanted.draw and (wanted.draw or have.winner == who)
            if same:
                done.append({"game": n, "match": gid, "status": "already", "how": _ended(station, state, gid)})
                return
            if not replacing:
                raise Refused(
                    f"game {n} of {where} already has a result: {_result_words(have)}, {_ended(station, state, gid)}. "
                    f"To replace it: --replace REASON"
                )
            why = f"Result replaced by {judge} at {said(state)}: {_result_words(wanted)}{verb_note}."
            _end_game(station, state, gid, p, who, judge, why, replace=replace)
            done.append({"game": n, "match": gid, "status": "replaced"})
            return
        if replacing and score is None:
            raise Refused(f"game {n} of {where} has no result to replace: enter it without --replace")
        now = table_outcome(p, results, state.best_of, called=called, playoff=playoff)
        if now.over:
            raise Refused(
                f"{where}'s match is over ({words.match_result(now.winner, now.draw, now.wins, now.draws, state.best_of)}):"
                f" game {n} is not played"
            )
        if now.next_game != n:
            raise Refused(f"game {n} of {where} is not due: game {now.next_game} has no result yet")
        _create_game(station, state, paired, p, n)
        why = f"Result entered by {judge} at {said(state)}: {_result_words(wanted)}{verb_note}."
        try:
            _end_game(station, state, gid, p, who, judge, why)
        except _Same:
            done.append({"game": n, "match": gid, "status": "already", "how": _ended(station, state, gid)})
            return
        except Refused:
            station.catch_up()  # another station ended it otherwise meanwhile: say how
            have = station.results(state).get(gid)
            raise Refused(
                f"game {n} of {where} already has a result: {_result_words(have)}, {_ended(station, state, gid)}. "
                f"To replace it: --replace REASON"
            ) from None
        done.append({"game": n, "match": gid, "status": "entered"})

    if score is None:
        assert k is not None
        key_game(k, winner, station.results(state), replacing=replace is not None)
    else:
        wins, losses, draws = score
        if draw and wins != losses:
            raise Refused(f"a drawn match has as many game wins on each side, not {words.score(*score)}")
        if not draw and wins <= losses:
            raise Refused(
                f"the winner's games come first: {winner} won {words.score(losses, wins, draws)}, not {words.score(*score)}"
            )
        wanted = _score_sequence(p, winner, wins, losses, draws)
        results = station.results(state)
        have: list[str | None] = []
        while game_id(p.match, len(have) + 1) in results:
            r = results[game_id(p.match, len(have) + 1)]
            have.append(None if r.draw or r.winner is None else r.winner)
        loser = p.B if (winner or p.A) == p.A else p.A
        if replace is None:
            remaining = list(wanted)
            for n, h in enumerate(have, start=1):
                if h in remaining:
                    remaining.remove(h)
                    continue
                gid = game_id(p.match, n)
                raise Refused(
                    f"game {n} of {where} already has a result: {_result_words(results[gid])}, "
                    f"{_ended(station, state, gid)}, which {words.score(*score)} does not include. "
                    "To replace the match's games: --replace REASON"
                )
            # the games still to enter, ordered so that the match ends at the last one
            sequence = have + sorted(remaining, key=lambda w: 0 if w == loser else 1 if w is None else 2)
        else:
            sequence = wanted
            if len(have) > len(wanted):
                raise Refused(
                    f"{where} has {len(have)} games with a result and {words.score(*score)} is {len(wanted)}: "
                    "replace them one by one (--game N --replace REASON)"
                )
        trial = {game_id(p.match, n): Result(w, w is None) for n, w in enumerate(sequence, start=1)}
        out = table_outcome(p, trial, state.best_of, called=called, playoff=playoff)
        if not out.over or out.games != len(sequence) or out.winner != winner or out.draw != draw:
            need = state.best_of // 2 + 1
            why = (
                "a top cut match ends only with a winner"
                if playoff and draw
                else f"{need} game wins end a best-of-{state.best_of} match, or {state.best_of} games"
                + ("" if called else " (or fewer, once time is called)")
            )
            raise Refused(f"{words.score(*score)} does not end {where}'s match: {why}")
        for n, w in enumerate(sequence, start=1):
            key_game(n, w, station.results(state), replacing=replace is not None)
            station.catch_up()
    station.catch_up()
    state = station.tournaments.load(tid)
    results = station.results(state)
    out = table_outcome(p, results, state.best_of, called=called, playoff=playoff)
    nxt = game_id(p.match, out.next_game) if not out.over and out.next_game else None
    if nxt is not None:
        _create_game(station, state, state.rounds[round_no - 1], p, out.next_game or 1)  # ready to log
    still = open_tables(station, state) if round_no == state.current_round else []
    return Keyed(round_no, p, done, out, nxt, still, round_no == state.current_round and not still)


# --- the clock ----------------------------------------------------------------------------


def extend_time(station: Station, tid: str, table: int, minutes: int, reason: str, judge: str) -> TimeExtended:
    def decide(state: TournamentState) -> list[Any]:
        if not state.rounds:
            raise Refused(f"{state.name} has no round yet")
        r = state.rounds[-1]
        if not any(p.table == table and p.B is not None for p in r.pairings):
            raise Refused(f"round {r.round} has no table {table} with a match")
        if state.called(r.round, table) is not None:
            raise Refused(f"time was already called on table {table}")
        return [TimeExtended(round=r.round, table=table, minutes=minutes, reason=reason, judge=judge)]

    _, new = station.tournaments.update(tid, decide)
    return new[0]  # type: ignore[return-value]


def clock(
    state: TournamentState, round_no: int | None = None, when: datetime | None = None, *, over: bool = False
) -> dict[str, Any] | None:
    """The round's clock: start, length, end and seconds left (None: no
    clock), with the times as the event's zone says them (``started_at``,
    ``ends_at``, ``called_at``: "14:02 CEST"). ``over``: every table of the
    round is over, so the clock has stopped (``stopped``: True, nothing
    left); after the final, the event is over (``event_over``)."""
    if not state.rounds:
        return None
    r = state.rounds[(round_no or state.current_round) - 1]
    if r.minutes is None or r.started is None:
        return None
    from datetime import timedelta

    start = datetime.fromisoformat(r.started)
    end = start + timedelta(minutes=r.minutes)
    left = (end - (when or now())).total_seconds()
    called = next((c for c in state.calls if c.round == r.round and c.table is None), None)
    final = r.source == "playoff" and len(r.pairings) == 1
    return {
        "round": r.round,
        "name": state.round_name(r.round),
        "started": r.started,
        "minutes": r.minutes,
        "ends": stamp(end),
        "left": 0 if over else max(0, int(left)),
        "called": called.at if called else None,
        "stopped": over,
        "event_over": over and final,
        "tz": state.tz or "UTC",
        "started_at": words.hhmm(r.started, state.tz),
        "ends_at": words.hhmm(end, state.tz),
        "called_at": words.hhmm(called.at, state.tz) if called else None,
    }


def round_over(station: Station, state: TournamentState, round_no: int | None = None) -> bool:
    """Is every table of the round over (its clock stops)?"""
    return outcomes_over(state, station.results(state), round_no)


def outcomes_over(state: TournamentState, results: dict[str, Result], round_no: int | None = None) -> bool:
    """Is every table of the round (default: the current one) over, by these results?"""
    if not state.rounds:
        return False
    r = state.rounds[(round_no or state.current_round) - 1]
    playoff = r.source == "playoff"
    return all(
        table_outcome(
            p, results, state.best_of, called=state.called(r.round, p.table) is not None, playoff=playoff
        ).over
        for p in r.pairings
    )


def call_time(station: Station, tid: str, judge: str, table: int | None = None) -> list[str]:
    """Time is called (TP2) on the round, or on one table: each unfinished
    game there is settled by the event's policy (draw, score; judge: left for
    a judge to enter). Returns the games settled."""
    from referee.store import MatchStore  # noqa: F401 - the store's errors come through it

    def decide(state: TournamentState) -> list[Any]:
        if not state.rounds:
            raise Refused(f"{state.name} has no round yet")
        r = state.rounds[-1]
        if table is not None and not any(p.table == table for p in r.pairings):
            raise Refused(f"round {r.round} has no table {table}")
        if any(c.round == r.round and c.table == table for c in state.calls):
            return []
        return [TimeCalled(round=r.round, table=table, judge=judge, at=stamp())]

    state, _ = station.tournaments.update(tid, decide)
    station.catch_up()
    r = state.rounds[-1]
    settled = []
    results = station.results(state)  # once: a game this call settles is not asked about again
    for p in r.pairings:
        if p.match is None or p.B is None or state.called(r.round, p.table) is None:
            continue
        if table is not None and p.table != table:
            continue
        out = table_outcome(p, results, state.best_of, called=False, playoff=r.source == "playoff")
        if out.over or out.next_game is None:
            continue
        game = game_id(p.match, out.next_game)
        if not station.store.exists(game) or state.at_time == "judge":
            continue  # no game in progress (none is started after time), or the judge decides
        game_state, _ = station.store.load(game)
        rules = station.store.ruleset(game)
        if rules.result(game_state) is not None:
            continue
        winner: str | None = None
        if state.at_time == "score":
            counted = rules.tournaments.scores(game_state) if rules.tournaments is not None else None
            if counted is None:
                continue  # a game that keeps no score: the judge decides, as at_time "judge"
            first, second = game_seats(state)
            a, b = counted[first], counted[second]
            winner = p.A if a > b else p.B if b > a else None
            why = f"time called by {judge} at {said(state)}; scores {a}-{b}"
        else:
            why = f"time called by {judge} at {said(state)}"
        who = "a draw" if winner is None else f"{winner} wins"
        try:
            _end_game(
                station,
                state,
                game,
                p,
                winner,
                judge,
                f"Time: {why} (event policy: {state.at_time}): {who}.",
                rule=TIME,
            )
        except Refused:
            continue  # the game ended meanwhile
        settled.append(game)
    station.catch_up()
    return settled


# --- penalties ----------------------------------------------------------------------------


def penalty_preview(station: Station, tid: str, player: str, penalty: str) -> dict[str, Any]:
    """What a penalty would do, before it is recorded: the player's earlier
    penalties in every event of the store (rescinded ones marked), for the
    judge to consider an upgrade, and where a loss would apply (``round``,
    ``table``, ``game``; ``game`` None: it waits for their next match)."""
    if penalty not in PENALTIES:
        raise Refused(f"unknown penalty {penalty!r}: one of {', '.join(PENALTIES)}")
    station.catch_up()
    state = station.tournaments.load(tid)
    if player not in state.players:
        raise Refused(f"{player} is not registered in {state.name}{_did_you_mean(player, list(state.players))}")
    where: tuple[int, Pairing] | None = None
    for r in reversed(state.rounds):
        p = next((x for x in r.pairings if player in (x.A, x.B)), None)
        if p is not None:
            where = (r.round, p)
            break
    game_no = None
    if where is not None and where[1].match is not None and where[1].B is not None:
        out = table_outcome(
            where[1],
            station.results(state),
            state.best_of,
            called=state.called(where[0], where[1].table) is not None,
            playoff=state.rounds[where[0] - 1].source == "playoff",
        )
        game_no = None if out.over else out.next_game
    return {
        "earlier": station.reader.penalties_of(player),
        "round": where[0] if where else None,
        "table": where[1].table if where else None,
        "pairing": where[1] if where else None,
        "game": game_no,
    }


def give_penalty(
    station: Station,
    tid: str,
    player: str,
    infraction: str,
    penalty: str,
    judge: str,
    note: str = "",
) -> tuple[PenaltyGiven, list[dict[str, Any]]]:
    """Record a penalty (TP3) and apply it: a game loss ends the player's
    game in progress as a loss, or, between games, their next game of the
    match, recorded as lost without being played (it is stored, so the
    table's games keep their numbers, and ends at its start naming the
    judge); a match loss ends games until the match is lost; a
    disqualification does that and drops the player. A game or match loss
    given when the player has no game to lose (their match is over, or they
    are not paired yet) waits for their next match (``apply_pending``).
    Returns the penalty and the player's earlier penalties in every event
    (``penalty_preview``'s, which a judge sees before recording it)."""
    if infraction not in INFRACTIONS:
        raise Refused(f"unknown infraction {infraction!r}: one of {', '.join(INFRACTIONS)}")
    preview = penalty_preview(station, tid, player, penalty)
    where = (preview["round"], preview["pairing"]) if preview["pairing"] is not None else None
    game_no = preview["game"]

    def decide(s: TournamentState) -> list[Any]:
        given = PenaltyGiven(
            player=player,
            infraction=infraction,
            penalty=penalty,
            judge=judge,
            round=where[0] if where else None,
            table=where[1].table if where else None,
            game=game_no,
            note=note,
        )
        out: list[Any] = [given]
        if penalty == "disqualification" and not s.players[player].dropped:
            out.append(PlayerDropped(player=player, by=judge, reason=f"disqualified: {INFRACTIONS[infraction]}"))
        return out

    _, new = station.tournaments.update(tid, decide)
    given: PenaltyGiven = new[0]  # type: ignore[assignment]
    if penalty in LOSSES and where is not None and game_no is not None:
        _lose(station, tid, given, *where)
    station.catch_up()
    return given, preview["earlier"]


def rescind_penalty(station: Station, tid: str, number: int, judge: str, reason: str) -> tuple[PenaltyGiven, list[str]]:
    """Take back the tournament's penalty ``number`` (from 1, as `event
    penalties` lists them), with a reason (TP3). It stays in the history,
    marked rescinded; a loss it had not applied yet no longer applies; a
    rescinded disqualification puts the player back (paired from the next
    round, placed again). Games a loss already ended keep their result:
    returns them, for the judge to replace (`event result --replace`)."""

    def decide(state: TournamentState) -> list[Any]:
        if not 1 <= number <= len(state.penalties):
            raise Refused(f"{state.name} has no penalty {number}: it has {len(state.penalties)} (event penalties)")
        if number - 1 in state.rescinded:
            r = state.rescinded[number - 1]
            raise Refused(f"penalty {number} was already rescinded by {r.judge} ({r.reason})")
        given = state.penalties[number - 1]
        out: list[Any] = [PenaltyRescinded(penalty=number - 1, judge=judge, reason=reason, at=stamp())]
        player = state.players.get(given.player)
        others = [
            i
            for i, x in enumerate(state.penalties)
            if x.player == given.player
            and x.penalty == "disqualification"
            and i != number - 1
            and i not in state.rescinded
        ]
        if given.penalty == "disqualification" and player is not None and player.dropped and not others:
            out.append(PlayerReinstated(player=given.player, by=judge, reason=f"disqualification rescinded: {reason}"))
        return out

    state, new = station.tournaments.update(tid, decide)
    given = state.penalties[number - 1]
    ended: list[str] = []
    if given.penalty in LOSSES:
        station.catch_up()
        rows = station.reader.result_rows(tid)
        ended = sorted(m for m, row in rows.items() if row.get("rule") == PENALTY and _lost_to(state, m, given))
    station.catch_up()
    return given, ended


def _lost_to(state: TournamentState, game: str, given: PenaltyGiven) -> bool:
    """Was ``game`` ended by this penalty (a game of the player's, ended citing TP3)?"""
    found = state.pairing_of(game)
    if found is None or given.player not in (found[1].A, found[1].B):
        return False
    applied = [a for i, a in state.applied.items() if state.penalties[i] is given]
    if given.round is not None and given.game is not None:
        return found[0] == given.round and found[1].table == given.table
    return any(found[0] == a.round and found[1].table == a.table for a in applied)


LOSSES = ("game-loss", "match-loss", "disqualification")


def _lose(station: Station, tid: str, given: PenaltyGiven, round_no: int, p: Pairing) -> list[str]:
    """End the penalised player's games at table ``p`` as losses (TP3): the
    next one not over for a game loss, every one until the match is lost for
    a match loss or a disqualification. Returns the games ended."""
    opponent = p.B if given.player == p.A else p.A
    ended: list[str] = []
    while True:
        state = station.tournaments.load(tid)
        game = current_game(station, state, p, round_no)
        if game is None:
            break
        try:
            _end_game(
                station,
                state,
                game,
                p,
                opponent,
                given.judge,
                f"{given.penalty.replace('-', ' ').capitalize()} for {given.player} "
                f"({INFRACTIONS[given.infraction].split(':')[0]}), given by {given.judge} at {said(state)}: "
                f"{opponent} wins.",
                rule=PENALTY,
            )
        except Refused:
            continue  # the game ended meanwhile: the loss goes to the next one
        ended.append(game)
        station.catch_up()
        if given.penalty == "game-loss":
            break
    ensure_games(station, station.tournaments.load(tid))
    return ended


def apply_pending(station: Station, tid: str) -> list[str]:
    """Apply the game and match losses given between matches (TP3) to each
    player's match of the current round, if it has a game to lose (a bye
    waits for the next round). Each is claimed first with a
    ``PenaltyApplied`` in the tournament's log, so of several stations
    pairing at once exactly one applies it. Returns the games ended."""
    state = station.tournaments.load(tid)
    if not state.rounds or not state.pending_losses():
        return []
    r = state.rounds[-1]
    ended: list[str] = []
    for index, given in state.pending_losses():
        p = next((x for x in r.pairings if given.player in (x.A, x.B)), None)
        if p is None or p.B is None or p.match is None or (given.round or 0) >= r.round:
            continue
        game = current_game(station, state, p, r.round)
        if game is None:
            continue
        _, k = table_of(game)
        claim = PenaltyApplied(player=given.player, penalty=index, round=r.round, table=p.table, game=k)

        def decide(s: TournamentState, claim: PenaltyApplied = claim) -> list[Any]:
            return [] if claim.penalty in s.applied else [claim]

        _, new = station.tournaments.update(tid, decide)
        if new:
            ended += _lose(station, tid, given, r.round, p)
    return ended


# --- listing ------------------------------------------------------------------------------


def due_games(station: Station, state: TournamentState) -> list[tuple[int, str]]:
    """The game being played at each table of the current round whose match
    is not over: (table, game id), the games a station logs next."""
    if not state.rounds:
        return []
    r = state.rounds[-1]
    done = outcomes(station, state)
    return [
        (p.table, game_id(p.match, done[p.table].next_game or 1))
        for p in r.pairings
        if p.match is not None and p.B is not None and not done[p.table].over
    ]


def matches(station: Station, tid: str, *, details: bool = True) -> list[dict[str, Any]]:
    """Every table of every round: players, match, status, result, games,
    and (with ``details``) each table's current game as the table summary
    read model has it (turn, step, open violations, judge calls)."""
    from referee.tournament.tables import summaries

    station.catch_up()
    state = station.tournaments.load(tid)
    results = station.results(state)
    rows_of = station.reader.result_rows(tid)
    out = []
    for r in state.rounds:
        playoff = r.source == "playoff"
        for p in r.pairings:
            row: dict[str, Any] = {
                "round": r.round,
                "round_name": state.round_name(r.round),
                "table": p.table,
                "A": p.A,
                "B": p.B,
                "match": p.match,
                "playoff": playoff,
                "extension": state.extension(r.round, p.table),
            }
            if p.B is None:
                row.update(status="bye", winner=None, draw=False)  # 3 points, but no game was won
                out.append(row)
                continue
            o = table_outcome(
                p, results, state.best_of, called=state.called(r.round, p.table) is not None, playoff=playoff
            )
            games = [game_id(p.match, k) for k in range(1, o.games + 2)] if p.match else []
            row["games"] = [
                {
                    "game": k,
                    "match": g,
                    "winner": (results[g].winner if g in results else None),
                    "draw": bool(g in results and results[g].draw),
                    "entered_by": (rows_of.get(g) or {}).get("judge"),
                    "rule": (rows_of.get(g) or {}).get("rule"),
                }
                for k, g in enumerate(games, start=1)
                if g in results
            ]
            row["score"] = {p.A: o.wins[p.A], p.B: o.wins[p.B], "draws": o.draws}
            current = game_id(p.match, o.next_game) if (p.match and not o.over and o.next_game) else None
            row["current"] = current
            if o.over:
                row.update(status="finished", winner=o.winner, draw=o.draw)
                row["result"] = words.match_result(o.winner, o.draw, o.wins, o.draws, state.best_of)
                keyed = [
                    g["entered_by"] for g in row["games"] if g["entered_by"] and words.how(g["rule"]) == "entered by"
                ]
                if keyed:
                    row["entered_by"] = " and ".join(dict.fromkeys(keyed))
                ended = words.entered_by(row["games"])
                if ended:
                    row["ended_by"] = ended
            else:
                row.update(status="playing", winner=None, draw=False)
            out.append(row)
    if details:
        ids = [
            g
            for row in out
            for g in ([row["current"]] if row.get("current") else []) + [x["match"] for x in row.get("games", [])]
        ]
        found = summaries(station.store, ids)
        for row in out:
            if row["status"] == "bye":
                continue
            cur = row.get("current")
            if cur is not None and cur not in found:
                row["status"] = "not created" if not row["games"] else "playing"
            seen = [found[g] for g in ids_of(row) if g in found]
            row["violations"] = sum(s["violations"] for s in seen)
            row["judge_calls"] = sum(s["judge_calls"] for s in seen)
            if cur in found:
                s = found[cur]
                row.update(turn=s["turn"], step=s["step"], decision=s["decision"], last=s["last"], version=s["version"])
    return out


def ids_of(row: dict[str, Any]) -> list[str]:
    return [g["match"] for g in row.get("games", [])] + ([row["current"]] if row.get("current") else [])


# --- simulation ---------------------------------------------------------------------------


def play_round(station: Station, tid: str, rng: random.Random, progress: Any = None) -> dict[str, int]:
    """Play the current round's open games to their end by random legal
    actions (as ``referee simulate`` does), each action stored through the
    store like a station's ``act``, game after game until each match is
    over. Several processes may run this at once on the same round: tables
    are taken in a random order, and an action that another station's write
    made stale is decided again on the new state. A game whose result a
    judge entered is over: it is never played (TP1)."""
    from referee.actions import IllegalAction
    from referee.simulate import random_action
    from referee.store.errors import StaleVersion

    state = station.tournaments.load(tid)
    if not state.rounds:
        raise Refused(f"{state.name} has no round yet: pair one with `referee event round {tid}`")
    ensure_matches(station, state)
    r = state.rounds[-1]
    tables = [p for p in r.pairings if p.match is not None and p.B is not None]
    rng.shuffle(tables)
    counts = {"matches": 0, "actions": 0}
    store = station.store
    for p in tables:
        while True:
            state = station.tournaments.load(tid)
            station.catch_up()
            game = current_game(station, state, p, r.round)
            if game is None:
                break
            g, _ = store.load(game)
            rules = store.ruleset(game)
            if rules.result(g) is not None:
                station.catch_up()
                continue
            while rules.result(g) is None:
                action = random_action(g, rules.legal_actions(g), rng, rules)
                try:
                    applied = store.act(game, action)
                    g = applied.state
                    counts["actions"] += 1
                except (IllegalAction, StaleVersion):
                    g, _ = store.load(game)  # another station moved on: look again
                if progress is not None:
                    progress(p, counts)
            counts["matches"] += 1
            station.catch_up()
    return counts
