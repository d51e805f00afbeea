"""Tournament read models: the tournament's state folded from its events, and the standings math (points, OMW, OOMW).

Both are pure: ``fold`` turns a tournament's own events into its state
(players and their frozen decks, rounds, drops, hand-entered results), and
``standings`` turns pairings and results into ranked rows. The standings
projection (``referee.tournament.projection``) calls ``standings`` each time
a result lands, so the numbers have one definition whichever way they are
reached; the tests recompute them from the matches with the same function
and with a brute-force reading of the rules.

Scoring (the usual Swiss tie-breakers): a win is 3 match points, a draw 1, a
loss 0, a bye 3. A player's match-win percentage is their points over 3 per
round played, floored at 1/3; OMW is the mean of their opponents' (byes are
no opponent), OOMW the mean of their opponents' OMW.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from events.cards import CardDef
from events.tournament import (
    Pairing,
    PlayerDropped,
    PlayerRegistered,
    ResultEntered,
    RoundPaired,
    TournamentCreated,
)

WIN, DRAW, LOSS, BYE = 3, 1, 0, 3
FLOOR = Fraction(1, 3)


@dataclass
class Player:
    """A registered player: the deck frozen at their latest registration."""

    name: str
    deck: list[CardDef]
    registrations: int = 1
    dropped: bool = False


@dataclass
class TournamentState:
    """A tournament as its own events leave it (match results are not here:
    they are the matches' ``GameEnded`` events, read by the projection)."""

    id: str = ""
    name: str = ""
    deal: str = "seeded"
    players_log: bool = False  # players may log their own decisions at the board
    version: int = 0
    players: dict[str, Player] = field(default_factory=dict)  # registration order
    rounds: list[RoundPaired] = field(default_factory=list)
    entered: dict[str, ResultEntered] = field(default_factory=dict)  # match -> hand-entered result

    @property
    def current_round(self) -> int:
        return len(self.rounds)

    def pairing_of(self, match: str) -> tuple[int, Pairing] | None:
        for r in self.rounds:
            for p in r.pairings:
                if p.match == match:
                    return r.round, p
        return None

    def opponents(self) -> dict[str, set[str]]:
        """Who has met whom in the rounds paired so far."""
        met: dict[str, set[str]] = {name: set() for name in self.players}
        for r in self.rounds:
            for p in r.pairings:
                if p.B is not None:
                    met.setdefault(p.A, set()).add(p.B)
                    met.setdefault(p.B, set()).add(p.A)
        return met

    def byes(self) -> set[str]:
        return {p.A for r in self.rounds for p in r.pairings if p.B is None}


def evolve(state: TournamentState, event: Any) -> TournamentState:
    """One event applied (in place: a tournament's state is small and never shared)."""
    state.version += 1
    if isinstance(event, TournamentCreated):
        state.name, state.deal, state.players_log = event.name, event.deal, event.players_log
    elif isinstance(event, PlayerRegistered):
        known = state.players.get(event.player)
        if known is None:
            state.players[event.player] = Player(event.player, list(event.deck))
        else:
            known.deck = list(event.deck)
            known.registrations += 1
    elif isinstance(event, PlayerDropped):
        if event.player in state.players:
            state.players[event.player].dropped = True
    elif isinstance(event, RoundPaired):
        state.rounds.append(event)
    elif isinstance(event, ResultEntered):
        state.entered[event.match] = event
    return state


def fold(events: Iterable[Any], tournament_id: str = "") -> TournamentState:
    state = TournamentState(id=tournament_id)
    for event in events:
        evolve(state, event)
    return state


# --- standings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A finished match: the winner's name, or None for a draw."""

    winner: str | None
    draw: bool


def standings(
    players: Iterable[str],
    rounds: Iterable[tuple[int, Iterable[Pairing]]],
    results: dict[str, Result],
) -> list[dict[str, Any]]:
    """Ranked rows ``{"rank", "player", "points", "omw", "oomw", "played"}``.

    ``rounds`` gives each round's pairings; ``results`` the finished matches
    by id (a match without a result is still being played and counts for
    nothing yet). Ties on points, OMW and OOMW are ordered by name."""
    names = list(dict.fromkeys(players))
    points = {n: 0 for n in names}
    played = {n: 0 for n in names}
    opponents: dict[str, list[str]] = {n: [] for n in names}
    for _round, pairings in rounds:
        for p in pairings:
            for n in (p.A, p.B):
                if n is not None and n not in points:
                    names.append(n)
                    points[n], played[n], opponents[n] = 0, 0, []
            if p.B is None:
                points[p.A] += BYE
                played[p.A] += 1
                continue
            result = results.get(p.match or "")
            if result is None:
                continue
            played[p.A] += 1
            played[p.B] += 1
            opponents[p.A].append(p.B)
            opponents[p.B].append(p.A)
            if result.draw:
                points[p.A] += DRAW
                points[p.B] += DRAW
            elif result.winner in (p.A, p.B):
                points[result.winner] += WIN
    # Exact fractions: two players whose OMW is equal must tie (and be ordered
    # by name), which floats summed in different orders do not promise.
    mwp = {n: max(FLOOR, Fraction(points[n], 3 * played[n])) if played[n] else FLOOR for n in names}
    omw = {n: _mean(mwp[o] for o in opponents[n]) for n in names}
    oomw = {n: _mean(omw[o] for o in opponents[n]) for n in names}
    order = sorted(names, key=lambda n: (-points[n], -omw[n], -oomw[n], n))
    return [
        {
            "rank": i,
            "player": n,
            "points": points[n],
            "omw": round(float(omw[n]), 4),
            "oomw": round(float(oomw[n]), 4),
            "played": played[n],
        }
        for i, n in enumerate(order, start=1)
    ]


def _mean(values: Iterable[Fraction]) -> Fraction:
    vals = list(values)
    return sum(vals, Fraction(0)) / len(vals) if vals else Fraction(0)
