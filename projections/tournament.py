"""Tournament read models: the tournament's state folded from its events, each table's outcome over its games, the standings math (MTR appendix C) and the top cut's placings.

All pure: ``fold`` turns a tournament's own events into its state (players
and their frozen decks, check-in, drops, rounds and their clock, penalties);
``table_outcome`` says whether a table's match is over and how, from its
games' results; ``standings`` turns pairings and game results into ranked
rows; ``placings`` orders a finished top cut. The standings projection
(``referee.tournament.projection``) calls ``standings`` each time a result
lands, so the numbers have one definition whichever way they are reached;
the tests recompute them from the matches with the same function and with a
brute-force reading of the rules.

Scoring (the Magic Tournament Rules' appendix C, the usual Swiss
tie-breakers): a match win is 3 match points, a draw 1, a loss 0, a bye 3 (a
match won by N//2+1 games to 0). Match-win percentage (MWP): match points
over 3 per round played; game-win percentage (GWP): game points (win 3,
draw 1) over 3 per game played; each at least 0.33, as appendix C writes
it (not 1/3: the two order some players differently). OMW and OGW are the
means of the opponents' MWP and GWP; a player's byes are ignored there (a
bye is no opponent), and a player with no opponent yet (a round-1 bye, a
late entrant) is at the floor, 0.33, as every percentage is. Ranked by
points, then OMW, then GW, then OGW, then name; OOMW (the opponents' OMW)
is shown too. A late entrant's missed rounds are losses (0 games to N//2+1)
or byes, as the event chose (tournament policy TP5). A disqualified
player's results stay (their opponents' tiebreakers need them), but they
are listed after everyone, unranked, and never placed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from events.tournament import (
    Pairing,
    PenaltyApplied,
    PenaltyGiven,
    PenaltyRescinded,
    PlayerCheckedIn,
    PlayerDropped,
    PlayerRegistered,
    PlayerReinstated,
    ResultEntered,
    RoundPaired,
    TableRepaired,
    TimeCalled,
    TimeExtended,
    TournamentCreated,
)

WIN, DRAW, LOSS, BYE = 3, 1, 0, 3
FLOOR = Fraction(33, 100)  # MTR appendix C: "If this number is lower than 0.33, use 0.33 instead."
TIEBREAKERS = ("points", "omw", "gw", "ogw")
EXPLAINED = (
    "Ranked by match points (win 3, draw 1, loss 0, bye 3), then OMW (the mean of the opponents' "
    "match-win percentages), then GW (the player's game-win percentage), then OGW (the mean of the "
    "opponents' game-win percentages); every percentage is at least 0.33 (33%), a player's byes are "
    "ignored for their opponents' percentages, and a player with no opponent yet is at 0.33 "
    "(Magic Tournament Rules, appendix C). Disqualified players are listed last, unranked."
)


def game_id(match: str, k: int) -> str:
    """Game ``k`` of the table whose first game is ``match`` (game 1 is ``match`` itself)."""
    return match if k == 1 else f"{match}.g{k}"


def table_of(match_id: str) -> tuple[str, int]:
    """The table's match id and the game number of a stored game's id
    (``e-1a2b3c4d.r3.t7.g2``: the table ``e-1a2b3c4d.r3.t7``, game 2)."""
    table, mark, k = match_id.rpartition(".g")
    if mark and table and k.isascii() and k.isdigit():
        return table, int(k)
    return match_id, 1


@dataclass
class Player:
    """A registered player: the deck frozen at their latest registration
    (cards of the tournament's game)."""

    name: str
    deck: list[Any]
    registrations: int = 1
    dropped: bool = False
    drop_reason: str | None = None
    checked_in: bool = False
    joined: int = 0  # rounds already paired when the player could first be paired (missed rounds)
    disqualified: bool = False


@dataclass
class TournamentState:
    """A tournament as its own events leave it (game results are not here:
    they are the matches' ``GameEnded`` events, read by the projection)."""

    id: str = ""
    name: str = ""
    game: str | None = None  # the ruleset its matches are of (None: Harem Master)
    deal: str = "seeded"
    best_of: int = 1
    round_minutes: int | None = None
    at_time: str = "draw"
    late: str = "loss"
    check_in: bool = False
    players_log: bool = False  # players may log their own decisions at the board
    tz: str | None = None  # the zone its times are shown in (None: UTC)
    version: int = 0
    players: dict[str, Player] = field(default_factory=dict)  # registration order
    rounds: list[RoundPaired] = field(default_factory=list)
    entered: dict[str, ResultEntered] = field(default_factory=dict)  # legacy: match -> hand-entered result
    extensions: dict[tuple[int, int], list[TimeExtended]] = field(default_factory=dict)
    calls: list[TimeCalled] = field(default_factory=list)
    penalties: list[PenaltyGiven] = field(default_factory=list)
    applied: dict[int, PenaltyApplied] = field(default_factory=dict)  # penalty (index) -> where a late loss applied
    repairs: list[TableRepaired] = field(default_factory=list)
    void: dict[str, TableRepaired] = field(default_factory=dict)  # a re-paired table's old match -> the re-pair
    rescinded: dict[int, PenaltyRescinded] = field(default_factory=dict)  # penalty (index) -> its rescission
    originally: dict[int, set[str]] = field(default_factory=dict)  # round -> who its pairing seated

    @property
    def current_round(self) -> int:
        return len(self.rounds)

    def copy(self) -> "TournamentState":
        """A copy that the next events can be applied to without changing this one."""
        import copy

        out = copy.copy(self)
        out.players = {k: copy.copy(v) for k, v in self.players.items()}
        out.rounds = list(self.rounds)
        out.extensions = {k: list(v) for k, v in self.extensions.items()}
        out.calls, out.penalties, out.applied = list(self.calls), list(self.penalties), dict(self.applied)
        out.repairs, out.void, out.entered = list(self.repairs), dict(self.void), dict(self.entered)
        out.rescinded, out.originally = dict(self.rescinded), dict(self.originally)
        return out

    @property
    def swiss_rounds(self) -> list[RoundPaired]:
        return [r for r in self.rounds if r.source != "playoff"]

    @property
    def playoff_rounds(self) -> list[RoundPaired]:
        return [r for r in self.rounds if r.source == "playoff"]

    def pairing_of(self, match: str) -> tuple[int, Pairing] | None:
        """The round and table a table's match (or one of its games) belongs to."""
        table, _ = table_of(match)
        for r in self.rounds:
            for p in r.pairings:
                if p.match in (match, table):
                    return r.round, p
        return None

    def void_of(self, match: str) -> TableRepaired | None:
        """The re-pair that voided this match (or the table this game is of), if one did."""
        return self.void.get(match) or self.void.get(table_of(match)[0])

    def seats(self, round_no: int) -> dict[str, list[int]]:
        """Where each player sits in a round: their tables (one, if the round is whole)."""
        out: dict[str, list[int]] = {}
        for p in self.rounds[round_no - 1].pairings:
            for n in (p.A, p.B):
                if n is not None:
                    out.setdefault(n, []).append(p.table)
        return out

    def round_name(self, round_no: int) -> str:
        """The round's name: "Round 3", or a top cut round's ("Quarterfinals", "Semifinals", "Final")."""
        r = self.rounds[round_no - 1]
        return playoff_name(len(r.pairings)) if r.source == "playoff" else f"Round {round_no}"

    def eligible(self) -> list[str]:
        """Who may be paired now: not dropped, and checked in where check-in is used."""
        return [p.name for p in self.players.values() if not p.dropped and (p.checked_in or not self.check_in)]

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

    def pending_losses(self) -> list[tuple[int, PenaltyGiven]]:
        """Game and match losses given when the player had no game to lose
        (their match was over, or they were not paired yet), not applied
        yet: each applies to the player's next match (TP3). A bye is no
        game: it waits for the one after."""
        return [
            (i, p)
            for i, p in enumerate(self.penalties)
            if p.penalty in ("game-loss", "match-loss")
            and p.game is None
            and i not in self.applied
            and i not in self.rescinded
        ]

    def extension(self, round_no: int, table: int) -> int:
        return sum(e.minutes for e in self.extensions.get((round_no, table), []))

    def called(self, round_no: int, table: int) -> TimeCalled | None:
        """The call of time that applies to this table: its own, or the
        round's (which leaves out tables with an extension)."""
        own = next((c for c in self.calls if c.round == round_no and c.table == table), None)
        if own is not None:
            return own
        if self.extension(round_no, table):
            return None
        return next((c for c in self.calls if c.round == round_no and c.table is None), None)

    def missed(self) -> dict[str, list[str]]:
        """Each late entrant's missed Swiss rounds, as ``loss`` or ``bye`` (TP5):
        the rounds paired before they could be, except one a re-pair seated
        them in after all (that round they played)."""
        late = [p for p in self.players.values() if p.joined]
        if not late:
            return {}
        swiss = self.swiss_rounds
        seated = [{n for x in r.pairings for n in (x.A, x.B)} for r in swiss]
        out: dict[str, list[str]] = {}
        for p in late:
            kinds = [self.late for i in range(min(p.joined, len(swiss))) if p.name not in seated[i]]
            if kinds:
                out[p.name] = kinds
        return out

    def disqualified(self) -> list[str]:
        return [n for n, p in self.players.items() if p.disqualified]


def _eligible_now(state: TournamentState, player: Player) -> None:
    if not player.joined and (player.checked_in or not state.check_in):
        player.joined = len(state.swiss_rounds)


def evolve(state: TournamentState, event: Any) -> TournamentState:
    """One event applied (in place: a tournament's state is small and never shared)."""
    state.version += 1
    if isinstance(event, TournamentCreated):
        state.name, state.deal, state.game = event.name, event.deal, event.game
        state.best_of, state.round_minutes = event.best_of, event.round_minutes
        state.at_time, state.late, state.check_in = event.at_time, event.late, event.check_in
        state.players_log, state.tz = event.players_log, event.tz
    elif isinstance(event, PlayerRegistered):
        known = state.players.get(event.player)
        if known is None:
            known = state.players[event.player] = Player(event.player, list(event.deck))
            _eligible_now(state, known)
        else:
            known.deck = list(event.deck)
            known.registrations += 1
    elif isinstance(event, PlayerCheckedIn):
        p = state.players.get(event.player)
        if p is not None and not p.checked_in:
            p.checked_in = True
            _eligible_now(state, p)
    elif isinstance(event, PlayerDropped):
        p = state.players.get(event.player)
        if p is not None:
            p.dropped, p.drop_reason = True, event.reason
    elif isinstance(event, PlayerReinstated):
        p = state.players.get(event.player)
        if p is not None:
            p.dropped, p.drop_reason, p.disqualified = False, None, False
    elif isinstance(event, RoundPaired):
        state.rounds.append(event)
        state.originally[event.round] = {n for p in event.pairings for n in (p.A, p.B) if n is not None}
    elif isinstance(event, TableRepaired):
        state.repairs.append(event)
        r = state.rounds[event.round - 1]
        pairings = []
        for pr in r.pairings:
            if pr.table == event.table:
                if pr.match:
                    state.void[pr.match] = event
                continue
            pairings.append(pr)
        if event.A is not None:  # None: the table is taken out of the round
            pairings.append(Pairing(table=event.table, A=event.A, B=event.B, match=event.match))
        pairings.sort(key=lambda x: x.table)
        state.rounds[event.round - 1] = r.model_copy(update={"pairings": pairings})
    elif isinstance(event, TimeExtended):
        state.extensions.setdefault((event.round, event.table), []).append(event)
    elif isinstance(event, TimeCalled):
        state.calls.append(event)
    elif isinstance(event, PenaltyGiven):
        state.penalties.append(event)
        if event.penalty == "disqualification" and event.player in state.players:
            state.players[event.player].disqualified = True
    elif isinstance(event, PenaltyApplied):
        state.applied[event.penalty] = event
    elif isinstance(event, PenaltyRescinded):
        state.rescinded[event.penalty] = event
        given = state.penalties[event.penalty] if event.penalty < len(state.penalties) else None
        if given is not None and given.penalty == "disqualification" and given.player in state.players:
            state.players[given.player].disqualified = any(
                p.player == given.player and p.penalty == "disqualification" and i not in state.rescinded
                for i, p in enumerate(state.penalties)
            )
    elif isinstance(event, ResultEntered):
        state.entered[event.match] = event
    return state


def fold(events: Iterable[Any], tournament_id: str = "") -> TournamentState:
    state = TournamentState(id=tournament_id)
    for event in events:
        evolve(state, event)
    return state


# --- a table's outcome over its games ------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A finished game: the winner's name (or seat), or None for a draw."""

    winner: str | None
    draw: bool


@dataclass(frozen=True)
class Outcome:
    """Where a table's match stands: over or not, its winner (None: a draw
    or not over), game wins per player, drawn games, and the game to play
    next (None when the match is over or a game is being played)."""

    over: bool
    winner: str | None
    draw: bool
    wins: dict[str, int]
    draws: int
    games: int  # games with a result
    next_game: int | None


def table_outcome(
    p: Pairing, results: dict[str, Result], best_of: int = 1, *, called: bool = False, playoff: bool = False
) -> Outcome:
    """The match at table ``p`` from its games' results (keyed by game id,
    winners by player name) under TP4: over when a player has won more than
    half of ``best_of`` games, or after ``best_of`` games (more game wins
    wins; equal is a draw), or when time was ``called`` and no game is being
    played. A playoff match is over only with a winner (TP6)."""
    wins = {p.A: 0, **({p.B: 0} if p.B else {})}
    draws = games = 0
    need = best_of // 2 + 1
    k = 1
    if p.match is not None:
        while True:
            r = results.get(game_id(p.match, k))
            if r is None:
                break
            games += 1
            if r.draw or r.winner not in wins:
                draws += 1
            else:
                wins[r.winner] += 1
            if max(wins.values()) >= need:
                break
            k += 1
    if p.B is None:
        return Outcome(True, p.A, False, {p.A: need}, 0, 0, None)
    leader = max(wins, key=lambda n: wins[n])
    tied = wins[p.A] == wins[p.B]
    if wins[leader] >= need:
        return Outcome(True, leader, False, wins, draws, games, None)
    if playoff:  # TP6: no draws; time only stops new games once someone leads
        if called and not tied:
            return Outcome(True, leader, False, wins, draws, games, None)
        return Outcome(False, None, False, wins, draws, games, games + 1)
    if games >= best_of or called:
        return Outcome(True, None if tied else leader, tied, wins, draws, games, None)
    return Outcome(False, None, False, wins, draws, games, games + 1)


# --- standings -------------------------------------------------------------------------------


def standings(
    players: Iterable[str],
    rounds: Iterable[tuple[int, Iterable[Pairing]]],
    results: dict[str, Result],
    *,
    best_of: int = 1,
    missed: dict[str, list[str]] | None = None,
    called: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
    dropped: Iterable[str] = (),
    disqualified: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """Ranked rows ``{"rank", "player", "points", "omw", "gw", "ogw", "oomw",
    "played", "record", "dropped", "disqualified"}``.

    ``rounds`` gives each Swiss round's pairings; ``results`` the finished
    games by id (winners by name); a table whose match is not over counts
    for nothing yet. ``missed``: each late entrant's missed rounds (``loss``
    or ``bye``); ``called``: the (round, table) pairs time was called on.
    ``disqualified`` players come last with ``rank`` None (their results
    still count for their opponents)."""
    names = list(dict.fromkeys(players))
    need = best_of // 2 + 1
    points = {n: 0 for n in names}
    played = {n: 0 for n in names}
    gpoints = {n: 0 for n in names}
    gplayed = {n: 0 for n in names}
    record = {n: [0, 0, 0] for n in names}  # wins, losses, draws
    opponents: dict[str, list[str]] = {n: [] for n in names}

    def known(n: str) -> None:
        if n not in points:
            names.append(n)
            points[n], played[n], gpoints[n], gplayed[n], record[n], opponents[n] = 0, 0, 0, 0, [0, 0, 0], []

    for n, kinds in (missed or {}).items():
        known(n)
        for kind in kinds:
            played[n] += 1
            gplayed[n] += need
            if kind == "bye":
                points[n] += BYE
                gpoints[n] += need * WIN
                record[n][0] += 1
            else:
                record[n][1] += 1
    for round_no, pairings in rounds:
        for p in pairings:
            for m in (p.A, p.B):
                if m is not None:
                    known(m)
            if p.B is None:
                points[p.A] += BYE
                played[p.A] += 1
                gpoints[p.A] += need * WIN
                gplayed[p.A] += need
                record[p.A][0] += 1
                continue
            out = table_outcome(p, results, best_of, called=(round_no, p.table) in called)
            if not out.over:
                continue
            for n, o in ((p.A, p.B), (p.B, p.A)):
                played[n] += 1
                opponents[n].append(o)
                gpoints[n] += WIN * out.wins[n] + DRAW * out.draws
                gplayed[n] += out.games
                if out.draw:
                    points[n] += DRAW
                    record[n][2] += 1
                elif out.winner == n:
                    points[n] += WIN
                    record[n][0] += 1
                else:
                    record[n][1] += 1
    # Exact fractions: two players whose OMW is equal must tie (and be ordered
    # by name), which floats summed in different orders do not promise.
    mwp = {n: max(FLOOR, Fraction(points[n], 3 * played[n])) if played[n] else FLOOR for n in names}
    gwp = {n: max(FLOOR, Fraction(gpoints[n], 3 * gplayed[n])) if gplayed[n] else FLOOR for n in names}
    # A player with no opponent (byes and missed rounds only, or none played
    # yet) is at the floor: "every percentage is at least 0.33" holds for OMW
    # and OGW too, and they do not sink below players who lost to someone.
    omw = {n: _mean_or_floor(mwp[o] for o in opponents[n]) for n in names}
    ogw = {n: _mean_or_floor(gwp[o] for o in opponents[n]) for n in names}
    oomw = {n: _mean_or_floor(omw[o] for o in opponents[n]) for n in names}
    excluded = set(disqualified)
    order = sorted(names, key=lambda n: (n in excluded, -points[n], -omw[n], -gwp[n], -ogw[n], n))
    out_dropped = set(dropped)
    ranked = len([n for n in names if n not in excluded])
    return [
        {
            "rank": i if i <= ranked else None,
            "player": n,
            "points": points[n],
            "omw": round(float(omw[n]), 4),
            "gw": round(float(gwp[n]), 4),
            "ogw": round(float(ogw[n]), 4),
            "oomw": round(float(oomw[n]), 4),
            "played": played[n],
            "record": "-".join(str(x) for x in record[n]),
            "dropped": n in out_dropped,
            "disqualified": n in excluded,
        }
        for i, n in enumerate(order, start=1)
    ]


def state_standings(state: TournamentState, results: dict[str, Result]) -> list[dict[str, Any]]:
    """``standings`` of a tournament's Swiss rounds, with its policies."""
    called = {(r.round, p.table) for r in state.swiss_rounds for p in r.pairings if state.called(r.round, p.table)}
    return standings(
        list(state.players),
        [(r.round, r.pairings) for r in state.swiss_rounds],
        results,
        best_of=state.best_of,
        missed=state.missed(),
        called=called,
        dropped=[n for n, p in state.players.items() if p.dropped],
        disqualified=state.disqualified(),
    )


def _mean_or_floor(values: Iterable[Fraction]) -> Fraction:
    vals = list(values)
    return sum(vals, Fraction(0)) / len(vals) if vals else FLOOR


# --- the top cut -----------------------------------------------------------------------------


def seed_order(n: int) -> list[tuple[int, int]]:
    """The first playoff round's seed pairs, in bracket order: for 8,
    (1,8), (4,5), (2,7), (3,6); the winners of neighbouring tables meet next."""
    bracket = [1]
    while len(bracket) < n:
        size = 2 * len(bracket)
        bracket = [x for s in bracket for x in (s, size + 1 - s)]
    return [(bracket[i], bracket[i + 1]) for i in range(0, n, 2)]


def playoff_outcomes(state: TournamentState, results: dict[str, Result]) -> list[list[tuple[Pairing, Outcome]]]:
    """Each playoff round's tables with their outcomes."""
    return [
        [(p, table_outcome(p, results, state.best_of, playoff=True)) for p in r.pairings] for r in state.playoff_rounds
    ]


def playoff_name(tables: int) -> str:
    """A top cut round by its size: the final, the semifinals, the quarterfinals, the round of 16..."""
    return {1: "Final", 2: "Semifinals", 4: "Quarterfinals"}.get(tables, f"Round of {2 * tables}")


def _one_loss(name: str) -> str:
    return {"Final": "the final", "Semifinals": "a semifinal", "Quarterfinals": "a quarterfinal"}.get(
        name, f"the {name.lower()}"
    )


def placings(state: TournamentState, swiss: list[dict[str, Any]], results: dict[str, Result]) -> list[dict[str, Any]]:
    """Final placings once the top cut is over (empty before): the champion,
    the finalist, then each earlier playoff round's losers (sharing a range
    of places, "3-4", "5-8", listed by their Swiss rank), then everyone else
    in Swiss order. Each row: ``place`` (the first of its range), ``places``
    (the range as printed: "3-4", or "1"), ``player`` and ``how``. A
    disqualified player is not placed: listed last, ``place`` None,
    ``places`` "DQ"."""
    rounds = playoff_outcomes(state, results)
    if not rounds or len(rounds[-1]) != 1 or not rounds[-1][0][1].over:
        return []
    dq = set(state.disqualified())
    rank = {row["player"]: row["rank"] or 10**6 for row in swiss}
    out: list[dict[str, Any]] = []

    def place(group: list[str], how: str) -> None:
        kept = [n for n in group if n not in dq]
        first, last = len(out) + 1, len(out) + len(kept)
        text = str(first) if first == last else f"{first}-{last}"
        for n in sorted(kept, key=lambda x: (rank.get(x, 10**6), x)):
            out.append({"place": first, "places": text, "player": n, "how": how})

    final_p, final_o = rounds[-1][0]
    loser = final_p.B if final_o.winner == final_p.A else final_p.A
    place([str(final_o.winner)], "won the final")
    place([str(loser)], "lost the final")
    for r in reversed(rounds[:-1]):
        losers = [p.B if o.winner == p.A else p.A for p, o in r if p.B is not None]
        place([str(n) for n in losers], f"lost in {_one_loss(playoff_name(len(r)))}")
    seen = {row["player"] for row in out} | dq
    for row in swiss:
        if row["player"] not in seen:
            place([row["player"]], f"Swiss rank {row['rank']}")
    for n in sorted(dq, key=lambda x: rank.get(x, 10**6)):
        out.append({"place": None, "places": "DQ", "player": n, "how": "disqualified"})
    return out
