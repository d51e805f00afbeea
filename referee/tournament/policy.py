"""Tournament policy: what an event decides that the game's rules do not, each with the id a refusal or a result cites.

The comprehensive rules say how a game is played; they say nothing about
clocks, penalties, hand-entered results or top cuts. Those are the event's
policy, declared here once (id, title, the sentence a refusal quotes) and
listed for people in docs/tournament-policy.md. A refusal or a result that
comes from them cites the policy id (``TP1``), never a rule number, so
nobody mistakes an organiser's choice for a rule of Harem Master.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    id: str
    title: str
    text: str


POLICIES: dict[str, Policy] = {}


def _policy(pid: str, title: str, text: str) -> str:
    POLICIES[pid] = Policy(pid, title, text)
    return pid


RESULT_ENTERED = _policy(
    "TP1",
    "A hand-entered result ends the match",
    "A result a judge enters ends the game: nothing more is logged in it, and only a judge's rewind (410) "
    "reopens it. A result names what it is for: one game, or the whole match's score. The same result keyed "
    "again is recognised and records nothing; a different one for a decided game is a judge's replacement "
    "with a reason, kept in the log.",
)
TIME = _policy(
    "TP2",
    "The round clock",
    "Each round has the event's length of time, plus each table's extensions. When time is called on a "
    "table, its unfinished game is settled by the event's time policy (draw, score or judge), and no "
    "further game of that match is started.",
)
PENALTY = _policy(
    "TP3",
    "Penalties",
    "A game loss ends the player's game in progress as a loss; given between games, the next game of the match "
    "is recorded as lost without being played; given when the player's match is over (or before they are "
    "paired), it applies to the first game of their next match. A match loss ends the match as a loss (their "
    "next match, likewise). A disqualification drops the player and ends their match as a loss.",
)
BEST_OF = _policy(
    "TP4",
    "Best-of-N matches",
    "A match is at most N games; it ends when a player has won more than half of N, or after N games "
    "(the one with more game wins wins the match; equal is a draw).",
)
LATE_ENTRY = _policy(
    "TP5",
    "Late entries",
    "A player who joins after round 1 was paired takes a loss for each round missed, or a bye if the "
    "organiser chose byes for the event.",
)
TOP_CUT = _policy(
    "TP6",
    "Top cut",
    "Single elimination seeded from the final Swiss standings (1v8, 4v5, 2v7, 3v6 for a top 8); a "
    "playoff match cannot end in a draw: another game is played until one player wins.",
)

REPAIR = _policy(
    "TP7",
    "Re-pairing a table",
    "A judge may re-pair tables of the current round: the players seated there take the seats of the "
    "players they replace, a player left without an opponent has a bye, and a player left without a table "
    "must have dropped or be a late entrant (who then takes the missed round, TP5), so every player who "
    "has not dropped sits at exactly one table or has the bye. A table's old match is void: nothing more "
    "is logged in it and no result is taken for it.",
)

# What happens to an unfinished game when time is called (TP2), chosen at ``event new``.
AT_TIME = {
    "draw": "the unfinished game is a draw",
    "score": "the unfinished game goes to the player with the higher score now (counted as 103.2 counts it); equal scores draw",
    "judge": "a judge enters the unfinished game's result by hand",
}
# What a late entrant gets for the rounds missed (TP5), chosen at ``event new``.
LATE = {"loss": "a loss for each round missed", "bye": "a bye (3 points) for each round missed"}

# Infractions (in the spirit of the IPG's categories) and penalties (TP3).
INFRACTIONS: dict[str, str] = {
    "tardiness": "Tardiness: not at the table when the round starts",
    "slow-play": "Slow play: taking longer than reasonable to act",
    "game-rule-violation": "Game rule violation: an action the rules forbid, or a step forgotten",
    "failure-to-maintain-game-state": "Failure to maintain game state: not noticing an opponent's violation",
    "looking-at-extra-cards": "Looking at extra cards: seeing hidden cards one may not see",
    "drawing-extra-cards": "Drawing extra cards: putting more cards in hand than allowed",
    "deck-problem": "Deck problem: the deck does not match the registered list, or breaks 100.2",
    "insufficient-shuffling": "Insufficient shuffling: a castle not made random",
    "marked-cards": "Marked cards: cards or sleeves that can be told apart",
    "outside-assistance": "Outside assistance: advice from someone outside the game",
    "unsporting-conduct-minor": "Unsporting conduct, minor: disruptive or rude behaviour",
    "unsporting-conduct-major": "Unsporting conduct, major: threats, harassment, or worse",
    "cheating": "Cheating: breaking a rule on purpose to gain an advantage",
}
PENALTIES: dict[str, str] = {
    "warning": "Warning: recorded, nothing else happens",
    "game-loss": "Game loss: the player loses the game in progress (between games: the next one; after their match: "
    "the first game of their next match)",
    "match-loss": "Match loss: the player loses the match (after their match: the next one)",
    "disqualification": "Disqualification: the player loses the match, is dropped from the event and is not placed",
}


def cite(pid: str) -> str:
    """The sentence a refusal or a log line quotes for policy ``pid``."""
    p = POLICIES[pid]
    return f"{p.title} (tournament policy {p.id}, not a rule of the game)"
