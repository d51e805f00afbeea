"""What the ``referee event`` commands do: register decks, pair rounds and create their matches, drop players, enter results, list matches.

Every operation decides on the tournament's current state and appends its
events (``store.Tournaments.update``), so eight stations may run them at
once: a registration or a drop lands once; a round is paired once, and a
station that loses that race gets the pairings the other station wrote.
A round's matches are created after its ``RoundPaired`` event, with ids
decided in it (``e-1a2b3c4d.r2.t3``), the registered decks and a seed drawn
from the round's seed, so creating them is idempotent: whichever station
gets to a table first creates it, the others find it there, and a station
that stopped half-way is completed by the next ``event round``.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from events.cards import CardDef
from events.tournament import Pairing, PlayerDropped, PlayerRegistered, ResultEntered, RoundPaired
from projections.tournament import TournamentState
from referee.store.errors import MatchExists
from referee.tournament.projection import catch_up, close_view, open_view
from referee.tournament.store import Refused, Tournaments


@dataclass
class Station:
    """One station's view of the database: the match store, its tournaments
    and the standings view (caught up on demand)."""

    store: Any

    def __post_init__(self) -> None:
        self.tournaments = Tournaments(self.store)
        self._view: Any = None

    @property
    def view(self) -> Any:
        if self._view is None:
            self._view = open_view(self.store)
        return self._view

    def catch_up(self) -> int:
        return catch_up(self.store, self.view)

    def close(self) -> None:
        """Release the view's connection (the store is closed by its owner)."""
        if self._view is not None:
            close_view(self._view)
            self._view = None


# --- matches -----------------------------------------------------------------------------


def create_table_match(
    store: Any,
    match_id: str,
    decks: dict[str, list[CardDef]],
    names: dict[str, str],
    seed: int,
    deal: str,
    title: str | None,
) -> bool:
    """Create one table's match (False if it already exists). The one place
    a tournament makes a match, so the deal setting goes through here: an
    event played on paper gets table-dealt matches (hidden cards unknown
    until the table reveals them, bounded by the registered deck lists) in
    record mode, since the log is the record of what the table did,
    mistakes included."""
    from referee.decks import deal as deal_cards
    from referee.rules import start

    cards, castles = deal_cards(decks)
    mode = "record" if deal == "table" else "strict"
    applied = start(cards, castles, seed=seed, names=names, mode=mode, deal=deal)
    try:
        store.create(applied.events, name=title, match_id=match_id)
    except MatchExists:
        return False
    return True


def match_seed(round_seed: int, table: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{round_seed}:{table}".encode()).digest()[:4], "big") % 2**31


def ensure_matches(station: Station, state: TournamentState, round_no: int | None = None) -> list[str]:
    """Create the matches of a round that do not exist yet; return those created."""
    if not state.rounds:
        return []
    paired = state.rounds[(round_no or state.current_round) - 1]
    made = []
    for p in paired.pairings:
        if p.match is None or p.B is None or station.store.exists(p.match):
            continue
        decks = {"A": state.players[p.A].deck, "B": state.players[p.B].deck}
        title = f"{state.name}, round {paired.round}, table {p.table}"
        if create_table_match(
            station.store, p.match, decks, {"A": p.A, "B": p.B}, match_seed(paired.seed, p.table), state.deal, title
        ):
            made.append(p.match)
    return made


# --- registration, drops ------------------------------------------------------------------


def register(station: Station, tid: str, player: str, deck: list[CardDef], by: str | None) -> PlayerRegistered:
    def decide(state: TournamentState) -> list[Any]:
        known = state.players.get(player)
        if known is not None and by is None:
            raise Refused(
                f"{player} is already registered in {state.name}: a change of deck is a new registration "
                "that names who changed it (--by JUDGE)"
            )
        if known is not None and known.dropped:
            raise Refused(f"{player} has dropped from {state.name}")
        return [PlayerRegistered(player=player, deck=deck, by=by, replaces=known is not None)]

    _, new = station.tournaments.update(tid, decide)
    return new[0]  # type: ignore[return-value]


def drop(station: Station, tid: str, player: str, by: str | None) -> None:
    def decide(state: TournamentState) -> list[Any]:
        p = state.players.get(player)
        if p is None:
            raise Refused(f"{player} is not registered in {state.name} (registered: {', '.join(state.players) or 'none'})")
        if p.dropped:
            return []  # already dropped (by another station, say): nothing to add
        return [PlayerDropped(player=player, by=by)]

    station.tournaments.update(tid, decide)


# --- rounds -------------------------------------------------------------------------------


def open_tables(station: Station, state: TournamentState) -> list[Pairing]:
    """The tables of the current round still being played (per the projection)."""
    if not state.rounds:
        return []
    pairings = state.rounds[-1].pairings
    done = station.view.results([p.match for p in pairings if p.match])
    return [p for p in pairings if p.B is not None and p.match not in done]


def pair_round(
    station: Station, tid: str, imported: list[Pairing] | None = None, expected: int | None = None
) -> tuple[RoundPaired, bool]:
    """Pair the next round (Swiss, or ``imported``) and create its matches.
    Returns the round and whether this station paired it (False: another
    station had just paired the same round, and these are its pairings).

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
            return before.rounds[expected - 1], False
        if expected != target:
            raise Refused(f"round {expected} cannot be paired yet: {before.name} is at round {before.current_round}")

    def decide(state: TournamentState) -> list[Any]:
        if state.current_round >= target:
            return []  # another station paired it meanwhile
        still = open_tables(station, state)
        if still:
            tables = ", ".join(f"table {p.table} ({p.A} v {p.B})" for p in still)
            raise Refused(f"round {state.current_round} is not over: {tables} still being played")
        seed = random.SystemRandom().randrange(2**31)
        if imported is not None:
            pairs = [(p.table, p.A, p.B) for p in imported]
        else:
            table = station.view.standings(state.id)
            pairs = [(i, a, b) for i, (a, b) in enumerate(swiss(state, table, seed), start=1)]
        pairings = [
            Pairing(table=t, A=a, B=b, match=None if b is None else f"{state.id}.r{target}.t{t}") for t, a, b in pairs
        ]
        return [RoundPaired(round=target, pairings=pairings, source="imported" if imported is not None else "swiss", seed=seed)]

    state, new = station.tournaments.update(tid, decide)
    ensure_matches(station, state, target)
    station.catch_up()
    return state.rounds[target - 1], bool(new)


def enter_result(station: Station, tid: str, match: str, winner: str | None, draw: bool, judge: str) -> None:
    """A result entered by hand (a paper game logged only at its end)."""

    def decide(state: TournamentState) -> list[Any]:
        found = state.pairing_of(match)
        if found is None:
            raise Refused(f"match {match} is not a table of {state.name}")
        _, p = found
        if winner is not None and winner not in (p.A, p.B):
            raise Refused(f"{winner} does not play at table {p.table} ({p.A} v {p.B})")
        return [ResultEntered(match=match, winner=winner, draw=draw, judge=judge)]

    station.tournaments.update(tid, decide)
    station.catch_up()


def matches(station: Station, tid: str, *, details: bool = True) -> list[dict[str, Any]]:
    """Every table of every round: players, match, status, result, and (with
    ``details``) the match's open violations and judge calls."""
    station.catch_up()
    state = station.tournaments.load(tid)
    ids = [p.match for r in state.rounds for p in r.pairings if p.match]
    done = station.view.results(ids)
    out = []
    for r in state.rounds:
        for p in r.pairings:
            row: dict[str, Any] = {"round": r.round, "table": p.table, "A": p.A, "B": p.B, "match": p.match}
            if p.B is None:
                row.update(status="bye", winner=None, draw=False)  # 3 points, but no game was won
            elif p.match in done:
                res = done[p.match]
                name = {"A": p.A, "B": p.B}.get(res["winner"] or "")
                row.update(status="finished", winner=name, draw=res["draw"])
                if res["judge"]:
                    row["entered_by"] = res["judge"]
            elif not station.store.exists(p.match):
                row.update(status="not created", winner=None, draw=False)
            else:
                row.update(status="playing", winner=None, draw=False)
            if details and p.match and row["status"] != "not created":
                row.update(_match_details(station.store, p.match))
            out.append(row)
    return out


JUDGE_EVENTS = ("Rewound", "NoteAdded", "ViolationsAccepted", "StepSkipped", "JudgeCalled")


def _match_details(store: Any, match: str) -> dict[str, Any]:
    state, _ = store.load(match)
    calls = sum(1 for e in store.events(match) if type(e).__name__ in JUDGE_EVENTS)
    return {"violations": len(state.violations), "judge_calls": calls}


# --- simulation ---------------------------------------------------------------------------


def play_round(station: Station, tid: str, rng: random.Random, progress: Any = None) -> dict[str, int]:
    """Play the current round's open matches to their end by random legal
    actions (as ``referee simulate`` does), each action stored through the
    store like a station's ``act``. Several processes may run this at once on
    the same round: matches are taken in a random order, and an action that
    another station's write made stale is decided again on the new state."""
    from referee.actions import IllegalAction
    from referee.simulate import random_action
    from referee.rules import legal_actions

    state = station.tournaments.load(tid)
    if not state.rounds:
        raise Refused(f"{state.name} has no round yet: pair one with `referee event round {tid}`")
    ensure_matches(station, state)
    tables = [p for p in state.rounds[-1].pairings if p.match is not None]
    rng.shuffle(tables)
    counts = {"matches": 0, "actions": 0}
    store = station.store
    for p in tables:
        game, _ = store.load(p.match)
        if game.result is not None:
            continue
        while game.result is None:
            action = random_action(game, legal_actions(game), rng)
            try:
                applied = store.act(p.match, action)
                game = applied.state
                counts["actions"] += 1
            except IllegalAction:
                game, _ = store.load(p.match)  # another station moved on: look again
            if progress is not None:
                progress(p, counts)
        counts["matches"] += 1
    return counts
