"""How a tournament says things: times in the event's zone, scores winner first, who entered a result and how, and the one standings table every command prints.

Events store times in UTC (ISO 8601); an event created with ``--tz`` shows
them in its zone everywhere (commands, pages, print-outs), named ("14:02
CEST"). A score reads from the winner's side ("Bob won 2-1"), and a result
says how it came: keyed from a slip, time called, a penalty. The standings
table is declared once here, so ``event standings`` and ``event follow``
print the same columns as the board and the print-out show.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from referee.tournament.policy import PENALTY, RESULT_ENTERED, TIME


class UnknownZone(ValueError):
    """A time zone name the system does not know (``event new --tz``)."""


def zone(tz: str | None) -> Any:
    """The zone of an event's times (UTC when it names none)."""
    if not tz:
        return timezone.utc
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise UnknownZone(f"unknown time zone {tz!r}: expected an IANA name such as Europe/Berlin or UTC") from None


def check_zone(tz: str) -> str:
    """``tz`` if the system knows it (``UnknownZone`` otherwise)."""
    zone(tz)
    return tz


def local(when: str | datetime, tz: str | None) -> datetime:
    moment = datetime.fromisoformat(when) if isinstance(when, str) else when
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(zone(tz))


def hhmm(when: str | datetime, tz: str | None) -> str:
    """A time of the day in the event's zone, named: "14:02 CEST"."""
    moment = local(when, tz)
    return f"{moment:%H:%M} {moment.tzname() or 'UTC'}"


def said(when: str | datetime, tz: str | None) -> str:
    """When something was recorded: "14:02 CEST on 2026-06-01"."""
    moment = local(when, tz)
    return f"{moment:%H:%M} {moment.tzname() or 'UTC'} on {moment:%Y-%m-%d}"


def score(wins: int, losses: int, draws: int = 0) -> str:
    """A match's games from one side: "2-1", "1-1-1" with draws."""
    return f"{wins}-{losses}" + (f"-{draws}" if draws else "")


def match_result(winner: str | None, draw: bool, wins: dict[str, int], draws: int, best_of: int) -> str:
    """A match result, the winner's games first: "Bob won 2-1", "draw 1-1-1"; a single game: "Bob won"."""
    if draw or winner is None:
        counts = sorted(wins.values(), reverse=True)
        return "draw" + (f" {score(counts[0], counts[-1], draws)}" if best_of > 1 else "")
    other = max((n for n in wins if n != winner), key=lambda n: wins[n], default=None)
    text = f"{winner} won"
    if best_of > 1:
        text += f" {score(wins[winner], wins.get(other, 0) if other else 0, draws)}"
    return text


def how(rule: str | None) -> str:
    """The verb for a result a judge ended a game with: keyed from a slip,
    time called (TP2), a penalty (TP3)."""
    if rule == TIME:
        return "time called by"
    if rule == PENALTY:
        return "penalty given by"
    if rule == RESULT_ENTERED or rule == "legacy":
        return "entered by"
    return "ended by"


def entered_by(games: list[dict[str, Any]]) -> str | None:
    """Who ended a match's games by hand, game by game where they differ:
    "entered by Judge Kim", "entered by Judge Kim (game 1), time called by
    Judge Ann (game 2)". None when every game was played to its end."""
    by = [(g["game"], how(g.get("rule")), g["entered_by"]) for g in games if g.get("entered_by")]
    if not by:
        return None
    kinds = {(verb, judge) for _, verb, judge in by}
    if len(kinds) == 1 and len(by) == len(games):
        verb, judge = next(iter(kinds))
        return f"{verb} {judge}"
    return ", ".join(f"{verb} {judge} (game {k})" for k, verb, judge in by)


# --- the standings table, as every command prints it --------------------------------------------

HEADER = f"{'rank':>4}  {'player':<20} {'points':>6} {'record':>7} {'OMW':>7} {'GW':>7} {'OGW':>7} {'played':>6}"


def standings_lines(name: str, after: str, rows: list[dict[str, Any]], places: list[dict[str, Any]]) -> list[str]:
    """The standings table (rank, player, points, record, OMW, GW, OGW,
    played; dropped and disqualified players marked), the tiebreakers
    explained, and the final placings once the top cut is over."""
    from projections.tournament import EXPLAINED

    out = [f"{name}, {after}", HEADER]
    for r in rows:
        mark = "  (disqualified)" if r.get("disqualified") else "  (dropped)" if r["dropped"] else ""
        rank = "DQ" if r.get("rank") is None else str(r["rank"])
        out.append(
            f"{rank:>4}  {r['player']:<20} {r['points']:>6} {r['record']:>7} {r['omw'] * 100:>6.2f}% "
            f"{r['gw'] * 100:>6.2f}% {r['ogw'] * 100:>6.2f}% {r['played']:>6}{mark}"
        )
    out.append(EXPLAINED)
    if places:
        out.append("final placings:")
        for p in places:
            out.append(f"{p['places']:>5}  {p['player']:<20} {p['how']}")
    return out
