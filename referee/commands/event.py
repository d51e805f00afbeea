"""`referee event ...`: tournaments from the command line (new, register, checkin, round, result, time, extend, penalty, rescind, drop, undrop, repair, playoff, standings, matches, clock).

Each command opens the store (``--db``, else ``REFEREE_DB``), does one
thing and prints for people or, with ``--json``, one JSON document in the
shape docs/cli.md gives. A request the tournament refuses (a round still
being played, an unknown player) exits 1 with one line and writes nothing;
bad input (an unreadable deck or pairings file) exits 2 naming the file,
the place and what was expected. A command that writes, run with a
database role that may only read, says so in one line (exit 2) before it
tries; the commands that read work there.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import click

from referee.commands.params import EVENT_NAME, FILE, JUDGE, MATCH, PLAYER_NAME, REASON, db_option, json_option
from referee.inputs import printable
from referee.ruleset import DEFAULT_GAME, games


def _one_line(f: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input and store problems end as one line and exit 2 (also when a
    command runs outside ``referee.cli.main``: tests, other tools)."""
    from referee.commands.records import _one_line_errors

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _one_line_errors():
            return f(*args, **kwargs)

    return wrapper


def _echo_json(doc: Any) -> None:
    click.echo(json.dumps(doc, indent=2))


@contextmanager
def _station(db: str | None, create: bool = False, read_only: bool = False) -> Iterator[Any]:
    """A station on the store; a refusal ends as one line and exit 1. Only
    ``event new`` may create a missing SQLite file (a mistyped ``--db`` must
    say "no such database", as the match commands do). A command that
    writes leaves the read models current before it answers
    (``Station.keep_current``: ``event new`` makes them), so readers fold
    at most what was written since. Commands that only read open the store
    read-only: they never write, not even the read models (they fold what
    the models have not seen yet in memory), so a role that may only read
    runs them."""
    from referee.commands.matches import open_store
    from referee.tournament.service import Station
    from referee.tournament.store import Refused, may_write, only_reads

    with open_store(db, create=create, read_only=read_only) as store:
        if not read_only and not may_write(store):
            _read_only_role(store)
        station = Station(store)
        try:
            yield station
            station.keep_current()  # what it wrote is in the read models before it answers
        except Refused as exc:
            click.echo(printable(f"refused: {exc}"), err=True)
            click.echo("Nothing was recorded.", err=True)
            sys.exit(1)
        except Exception as exc:
            if only_reads(exc):  # a write the role may not make, found only as it was tried
                _read_only_role(store)
            raise
        finally:
            station.close()


def _read_only_role(store: Any) -> None:
    """One line for a command that writes, run with a role that may only read: exit 2, nothing written."""
    ctx = click.get_current_context(silent=True)
    command = ctx.command_path if ctx is not None else "this command"
    click.echo(
        printable(
            f"error: {store.database.display}: this database role may only read; `{command}` writes to the event, "
            "so run it with a role that may write. Nothing was recorded."
        ),
        err=True,
    )
    sys.exit(2)


class EventId(click.ParamType):
    """A tournament id (``e-1a2b3c4d``), checked before the store is opened."""

    name = "event"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        import re

        text = str(value).strip().lower()
        if not re.match(r"^e-[a-z0-9._-]{1,62}$", text):
            self.fail(
                f"{value!r} is not an event id: ids look like e-1a2b3c4d (`referee event new` prints one)", param, ctx
            )
        return text


EVENT = EventId()


@click.group()
def event() -> None:
    """Tournaments: registered decks, Swiss rounds whose tables are stored matches, live standings.

    Example: referee event new "Spring Cup 2026"
    """


@event.command("new")
@click.argument("name", type=EVENT_NAME)
@click.option(
    "--deal",
    type=click.Choice(["seeded", "table"]),
    default="seeded",
    show_default=True,
    help="seeded: the referee shuffles each match from a seed; table: the event plays on paper.",
)
@click.option(
    "--best-of",
    type=click.IntRange(min=1, max=9),
    default=1,
    show_default=True,
    help="Games per match (TP4): 3 for best-of-three.",
)
@click.option(
    "--round-minutes",
    type=click.IntRange(min=1, max=600),
    help="Each round's length; `event round` starts its clock (TP2). Default: no clock.",
)
@click.option(
    "--at-time",
    type=click.Choice(["draw", "score", "judge"]),
    default="draw",
    show_default=True,
    help="What time does to an unfinished game (TP2): a draw, the higher score now wins, or a judge decides.",
)
@click.option(
    "--late",
    type=click.Choice(["loss", "bye"]),
    default="loss",
    show_default=True,
    help="What a late entrant gets for each round missed (TP5).",
)
@click.option("--check-in", is_flag=True, help="Only players checked in (`event checkin`) are paired.")
@click.option(
    "--players-log",
    is_flag=True,
    help="Players may log their own decisions at the board from their player links "
    "(otherwise only scorekeepers and judges log).",
)
@click.option(
    "--game",
    type=click.Choice(games()),
    default=DEFAULT_GAME,
    show_default=True,
    help="The game its matches are of (a complete ruleset: a fragment such as scp-tcg-s4 ends no game).",
)
@click.option(
    "--tz",
    metavar="ZONE",
    help="The time zone the event's times are shown in (an IANA name: Europe/Berlin). Default: UTC.",
)
@db_option
@json_option
@_one_line
def new(
    name: str,
    deal: str,
    best_of: int,
    round_minutes: int | None,
    at_time: str,
    late: str,
    check_in: bool,
    players_log: bool,
    game: str,
    tz: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Create a tournament; prints its id.

    The event's policies (docs/tournament-policy.md) are chosen here and
    kept in its log: games per match, the round's length, what time does
    to an unfinished game, what late entrants get, and check-in.

    Example: referee event new "Spring Cup 2026" --best-of 3 --round-minutes 50
    """
    from referee.simulate import TOURNAMENT, SelfPlayRefused, complete_ruleset

    try:
        complete_ruleset(game, TOURNAMENT)
    except SelfPlayRefused as exc:
        raise click.BadParameter(str(exc), param_hint="--game") from None
    from referee.tournament.words import UnknownZone, check_zone

    if tz is not None:
        try:
            check_zone(tz)
        except UnknownZone as exc:
            raise click.BadParameter(str(exc), param_hint="--tz") from None
    # Harem Master's tournaments name no game, as every one before games were named.
    named: dict[str, Any] = {"game": game} if game != DEFAULT_GAME else {}
    if tz is not None and tz.upper() != "UTC":
        named["tz"] = tz
    with _station(db, create=True) as st:
        tid = st.tournaments.create(
            name,
            deal,
            best_of=best_of,
            round_minutes=round_minutes,
            at_time=at_time,
            late=late,
            check_in=check_in,
            players_log=players_log,
            **named,
        )
    if as_json:
        _echo_json({"event": tid})
    else:
        click.echo(tid)
        click.echo(
            f"{name}: {deal} deal, best of {best_of}"
            + (f", {round_minutes}-minute rounds (at time: {at_time})" if round_minutes else "")
            + (f", times in {named['tz']}" if "tz" in named else "")
            + f". Next: referee event register {tid} --player NAME --deck FILE (or --csv FILE)",
            err=True,
        )


@event.command("register")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--player", type=PLAYER_NAME, help="The player's name, as it will appear in pairings and standings.")
@click.option("--deck", type=FILE, help="The player's deck file (checked against 100.2, then frozen).")
@click.option(
    "--csv",
    "csv_file",
    type=FILE,
    help="Register many players at once: a CSV of 'name, deck file' lines (one write: all or none).",
)
@click.option("--pool", type=FILE, help="A card pool file; the bundled rules-test pool is searched after it.")
@click.option("--by", type=JUDGE, help="Who changed the deck: required to register a player a second time.")
@db_option
@json_option
@_one_line
def register(
    event_id: str,
    player: str | None,
    deck: str | None,
    csv_file: str | None,
    pool: str | None,
    by: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Register a player's deck (checked against 100.2 and frozen), or many from a CSV.

    A later change of deck is a new registration that names who changed it
    (--by); matches already paired keep the deck they were created with.
    With --csv, every line's deck is read and checked first; a bad line
    exits 2 naming the file, the line and what was expected, and nothing is
    written; otherwise all players are registered in one write. A player
    registered after round 1 was paired is a late entrant (TP5).

    Example: referee event register e-1a2b3c4d --player Alice --deck alice.yaml
    """
    from referee.tournament.service import register_many, tournament_ruleset

    if (csv_file is None) == (player is None and deck is None) or (
        csv_file is None and (player is None or deck is None)
    ):
        raise click.UsageError("give --player NAME --deck FILE, or --csv FILE")
    with _station(db) as st:
        # The decks are the tournament's game's (its deck file format and deck rules).
        decks = tournament_ruleset(st.tournaments.load(event_id)).need("decks")
        pools = [*([decks.load_pool(pool)] if pool else []), decks.bundled_cards()]
        if csv_file is not None:
            from referee.tournament.pairing import read_registrations

            # A bad line: exit 2 before anything is written.
            entries = read_registrations(csv_file, lambda path: decks.load_deck(path, pools))
        else:
            assert player is not None and deck is not None
            entries = [(player, decks.load_deck(deck, pools))]  # bad deck: exit 2 before anything is written
        done = register_many(st, event_id, entries, by)
        state = st.tournaments.load(event_id)
    late = [e.player for e in done if state.players[e.player].joined]
    if as_json:
        if csv_file is None:
            _echo_json(
                {
                    "event": event_id,
                    "player": player,
                    "cards": len(entries[0][1]),
                    "replaces": done[0].replaces,
                    "late": bool(late),
                }
            )
        else:
            _echo_json(
                {"event": event_id, "registered": [e.player for e in done], "players": len(state.players), "late": late}
            )
        return
    for e in done:
        again = f" (replaces the earlier deck; changed by {by})" if e.replaces else ""
        click.echo(printable(f"{e.player} registered with {len(e.deck)} cards{again}"))
    for name in late:
        click.echo(printable(_late_words(state, name)))
    if csv_file is not None:
        click.echo(f"{len(done)} players registered; {len(state.players)} in {state.name}")


def _late_words(state: Any, name: str) -> str:
    """What a late entrant's registration (or check-in) means for them, round by round (TP5)."""
    missed = state.missed().get(name, [])
    rounds = [r.round for r in state.swiss_rounds[: state.players[name].joined]]
    kind = "a loss" if state.late == "loss" else "a bye (3 points)"
    which = ", ".join(str(n) for n in rounds)
    text = (
        f"late entry (TP5): {name} takes {kind} for round{'s' if len(rounds) > 1 else ''} {which}, "
        "paired before they could be"
    )
    if (
        missed
        and state.rounds
        and state.rounds[-1].source != "playoff"
        and rounds
        and rounds[-1] == state.current_round
    ):
        r = state.rounds[-1]
        bye = next((p for p in r.pairings if p.B is None), None)
        free = max((p.table for p in r.pairings), default=0) + 1
        how = (
            f"with the bye player: referee event repair {state.id} {bye.table} --a {shlex_quote(bye.A)} "
            f"--b {shlex_quote(name)}"
            if bye is not None
            else f"a table of their own, a bye: referee event repair {state.id} {free} --a {shlex_quote(name)}"
        )
        text += f"; to seat {name} in round {state.current_round} instead, re-pair ({how} --judge JUDGE --reason TEXT)"
    return text


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


@event.command("checkin")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("players", nargs=-1, required=True, type=PLAYER_NAME)
@click.option("--by", type=JUDGE, help="Who checked them in.")
@db_option
@_one_line
def checkin(event_id: str, players: tuple[str, ...], by: str | None, db: str | None) -> None:
    """Check players in: with `event new --check-in`, only they are paired.

    In an event created without --check-in, every registered player who
    has not dropped is paired; checking in is then only recorded.

    Example: referee event checkin e-1a2b3c4d Alice Bob
    """
    from referee.tournament.service import check_in

    with _station(db) as st:
        done = check_in(st, event_id, list(players), by)
        state = st.tournaments.load(event_id)
    for name in done:
        if state.check_in and state.players[name].joined:
            click.echo(printable(_late_words(state, name)))
    waiting = [n for n, p in state.players.items() if not p.checked_in and not p.dropped]
    click.echo(
        f"checked in: {', '.join(done) or 'nobody new'}; "
        f"{sum(1 for p in state.players.values() if p.checked_in)} of {len(state.players)} players"
        + (f"; not yet: {', '.join(waiting[:20])}{' ...' if len(waiting) > 20 else ''}" if waiting else "")
    )
    if not state.check_in:
        click.echo(
            printable(
                f"{state.name} does not use check-in (created without --check-in): every registered "
                "player who has not dropped is paired"
            )
        )


@event.command("drop")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("player", type=PLAYER_NAME)
@click.option("--by", type=JUDGE, help="Who recorded the drop.")
@click.option("--reason", type=REASON, help="Why the player leaves (kept in the log).")
@db_option
@_one_line
def drop(event_id: str, player: str, by: str | None, reason: str | None, db: str | None) -> None:
    """Drop a player: never paired again; their results stay in the standings, marked dropped.

    Example: referee event drop e-1a2b3c4d Alice --by "Judge Kim" --reason "went home"
    """
    from referee.tournament.service import drop as do_drop

    with _station(db) as st:
        do_drop(st, event_id, player, by, reason)
    click.echo(f"{player} dropped")


@event.command("undrop")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("player", type=PLAYER_NAME)
@click.option("--by", required=True, type=JUDGE, help="The judge undoing the drop.")
@click.option("--reason", required=True, type=REASON, help="Why (kept in the log).")
@db_option
@_one_line
def undrop(event_id: str, player: str, by: str, reason: str, db: str | None) -> None:
    """Undo a drop: the player is paired again from the next round.

    Example: referee event undrop e-1a2b3c4d Alice --by "Judge Kim" --reason "dropped by mistake"
    """
    from referee.tournament.service import undrop as do_undrop

    with _station(db) as st:
        do_undrop(st, event_id, player, by, reason)
    click.echo(f"{player} is back in the event")


def _round_json(r: Any, state: Any = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "round": r.round,
        "pairings": [{"table": p.table, "A": p.A, "B": p.B, "match": p.match} for p in r.pairings],
    }
    if r.source == "playoff":
        doc["playoff"] = True
        doc["name"] = state.round_name(r.round) if state is not None else None
    if r.minutes:
        doc["clock"] = {"started": r.started, "minutes": r.minutes}
    return doc


def _echo_round(state: Any, paired: Any) -> None:
    """A round's pairings for people: its name, its clock in the event's zone, each table."""
    from referee.tournament import words

    clock = (
        f": {paired.minutes} minutes from {words.hhmm(paired.started, state.tz)}"
        if paired.minutes and paired.started
        else ""
    )
    name = state.round_name(paired.round)
    click.echo(printable(name + (f" (round {paired.round}, top cut)" if paired.source == "playoff" else "") + clock))
    for p in paired.pairings:
        if p.B is None:
            click.echo(printable(f"  table {p.table}: {p.A} has a bye"))
        else:
            click.echo(printable(f"  table {p.table}: {p.A} v {p.B}   {p.match}"))


@event.command("round")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option(
    "--pairings",
    "pairings_file",
    type=FILE,
    help="Import this round's pairings (CSV: table, player A, player B; an empty B is a bye).",
)
@click.option(
    "--round",
    "expected",
    type=click.IntRange(min=1),
    help="The round meant: if it is already paired, print it (stations asking at once all get the same round).",
)
@db_option
@json_option
@_one_line
def round_(event_id: str, pairings_file: str | None, expected: int | None, db: str | None, as_json: bool) -> None:
    """Pair the next round (Swiss) and create its matches.

    By points, never a rematch, and with an odd count a bye to the
    lowest-ranked player without one. The previous round must be over.
    Each table's match is created with the registered decks: a station only
    needs its match id. If another station pairs the same round at the same
    moment, this one prints that round; with --round N, a round N already
    paired is printed rather than refused.

    Example: referee event round e-1a2b3c4d --json
    """
    from referee.tournament.service import pair_round

    with _station(db) as st:
        imported = None
        if pairings_file is not None:
            from referee.tournament.pairing import read_pairings

            state = st.tournaments.load(event_id)
            imported = read_pairings(pairings_file, state)  # bad file: exit 2, nothing written
            met = state.opponents()
            for p in imported:
                if p.B is not None and p.B in met.get(p.A, set()):
                    click.echo(f"warning: table {p.table}: {p.A} and {p.B} have met before", err=True)
        paired, ours = pair_round(st, event_id, imported, expected)
        state = st.tournaments.load(event_id)
    if as_json:
        _echo_json(_round_json(paired, state))
        return
    if not ours:
        click.echo(f"round {paired.round} had just been paired by another station:", err=True)
    _echo_round(state, paired)


def _score(text: str | None) -> tuple[int, int, int] | None:
    """``--score 2-1`` (or ``2-1-1`` with draws): the winner's game wins, the loser's, draws."""
    import re

    if text is None:
        return None
    m = re.fullmatch(r"\s*([0-9])\s*-\s*([0-9])(?:\s*-\s*([0-9]))?\s*", text)
    if m is None:
        raise click.BadParameter(
            f"{text!r}: expected the match's games as WINS-LOSSES or WINS-LOSSES-DRAWS, the winner's first (2-1)",
            param_hint="--score",
        )
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


@event.command("result")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("match", metavar="TABLE|MATCH", type=MATCH)
@click.option("--winner", type=PLAYER_NAME, help="The winner's name (of the game, or of the match with --score).")
@click.option("--draw", is_flag=True, help="The game (or, with --score, the match) was a draw.")
@click.option("--game", type=click.IntRange(min=1, max=20), help="Which game of the table's match the result is for.")
@click.option(
    "--score",
    metavar="W-L[-D]",
    help="The whole match from its slip: the winner's game wins, the loser's, draws (2-1, 1-1-1 with --draw).",
)
@click.option(
    "--no-show",
    is_flag=True,
    help="The opponent did not play (a no-show, or dropped after pairing): --winner wins the match 2-0 "
    "(N//2+1 games to none).",
)
@click.option("--judge", required=True, type=JUDGE, help="The judge entering the result.")
@click.option(
    "--replace",
    "replace",
    type=REASON,
    metavar="REASON",
    help="Replace a decided game's result: a judge's rewind with this reason, then the new result.",
)
@db_option
@json_option
@_one_line
def result(
    event_id: str,
    match: str,
    winner: str | None,
    draw: bool,
    game: int | None,
    score: str | None,
    no_show: bool,
    judge: str,
    replace: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Enter a result from a slip, for one game or the whole match: it ends the games (TP1); prints what is due next.

    TABLE|MATCH is a table number of the current round, a table's match id
    or a game's id (<table id>.g2). A result names what it is for: --game N
    (game N of the table), or the match's score (--score 2-1, the winner's
    games first; games not played yet are created and entered). In a
    single-game match the table alone names its game. A game's result is a
    GameEnded in its own log naming the judge: later actions are refused
    saying who entered it and when, and only a judge's rewind reopens it.

    The same result keyed again (the same slip from a second station) is
    recognised: "already entered by JUDGE at 14:02", nothing recorded. A
    different result for a decided game is refused unless --replace REASON
    (kept in the log).

    Example: referee event result e-1a2b3c4d 4 --game 1 --winner Alice --judge "Judge Kim"
    """
    from referee.tournament import words
    from referee.tournament.service import enter_result

    if no_show:
        if winner is None or draw or score is not None or game is not None:
            raise click.UsageError("--no-show goes with --winner NAME alone (the player who was there)")
    elif (winner is None) == (not draw):
        raise click.UsageError("give --winner NAME or --draw (one of them)")
    scored = _score(score)
    if scored is not None and game is not None:
        raise click.UsageError("give --game N (one game) or --score W-L (the whole match), not both")
    with _station(db) as st:
        state = st.tournaments.load(event_id)
        note = None
        if no_show:
            need = state.best_of // 2 + 1
            scored = (need, 0, 0)
            note = "no-show: the opponent did not play"
        done = enter_result(
            st, event_id, match, winner, draw, judge, game=game, score=scored, replace=replace, note=note
        )
        state = st.tournaments.load(event_id)
        if done.round_over and state.rounds:
            last = state.rounds[-1]
            if last.source == "playoff" and len(last.pairings) == 1:
                nxt = "the final is over: referee event standings " + state.id + " prints the placings"
            elif last.source == "playoff":
                nxt = f"every table has a result: pair the next top cut round with referee event playoff {state.id}"
            else:
                nxt = f"every table has a result: pair the next round with referee event round {state.id}"
        else:
            nxt = ""
    p, out = done.table, done.outcome
    if as_json:
        _echo_json(
            {
                "round": done.round,
                "table": p.table,
                "games": done.games,
                "match": {
                    "over": out.over,
                    "winner": out.winner,
                    "draw": out.draw,
                    "score": {**out.wins, "draws": out.draws},
                },
                "next_game": done.next_game,
                "still_playing": [x.table for x in done.still_playing],
                "round_over": done.round_over,
            }
        )
        return
    for g in done.games:
        if g["status"] == "already":
            click.echo(printable(f"game {g['game']} ({g['match']}): already {g['how']}: nothing recorded"))
        else:
            click.echo(printable(f"game {g['game']} ({g['match']}): {g['status']} by {judge}"))
    if out.over:
        click.echo(
            printable(
                f"table {p.table}: {words.match_result(out.winner, out.draw, out.wins, out.draws, state.best_of)}"
            )
        )
    elif done.next_game:
        k = done.next_game.rsplit(".g", 1)[-1] if ".g" in done.next_game else "1"
        click.echo(printable(f"next: game {k} of table {p.table}: {done.next_game}"))
    if done.still_playing:
        shown = ", ".join(str(x.table) for x in done.still_playing[:12])
        more = f" and {len(done.still_playing) - 12} more" if len(done.still_playing) > 12 else ""
        click.echo(
            f"still playing in {state.round_name(done.round).lower()}: table{'s' if len(done.still_playing) > 1 else ''} {shown}{more}"
        )
    elif nxt:
        click.echo(printable(nxt))


@event.command("time")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--judge", required=True, type=JUDGE, help="The judge calling time.")
@click.option("--table", type=click.IntRange(min=1), help="Call time on this table only (one with an extension).")
@db_option
@_one_line
def time_(event_id: str, judge: str, table: int | None, db: str | None) -> None:
    """Call time on the round (or one table): unfinished games are settled by the event's policy (TP2).

    Without --table, every table of the current round without a time
    extension; a table with one gets its own call when its extension ends.
    The game in progress becomes a draw (--at-time draw), goes to the
    higher score (score), or waits for a judge's `event result` (judge); no
    further game of the match is started.

    Example: referee event time e-1a2b3c4d --judge "Judge Kim"
    """
    from referee.tournament import words
    from referee.tournament.service import call_time

    with _station(db) as st:
        settled = call_time(st, event_id, judge, table)
        state = st.tournaments.load(event_id)
    where = f"table {table}" if table else state.round_name(state.current_round).lower()
    call = next((c for c in reversed(state.calls) if c.table == table and c.round == state.current_round), None)
    at = f" at {words.hhmm(call.at, state.tz)}" if call is not None else ""
    click.echo(
        printable(f"time called on {where} by {judge}{at}; {len(settled)} unfinished game(s) settled ({state.at_time})")
    )
    for g in settled:
        click.echo(f"  {g}")


@event.command("extend")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("table", type=click.IntRange(min=1))
@click.option("--minutes", required=True, type=click.IntRange(min=1, max=120), help="Extra minutes for this table.")
@click.option("--reason", required=True, type=REASON, help="Why (a deck check, a long ruling).")
@click.option("--judge", required=True, type=JUDGE, help="The judge giving the extension.")
@db_option
@_one_line
def extend(event_id: str, table: int, minutes: int, reason: str, judge: str, db: str | None) -> None:
    """Give one table of the current round extra time (TP2).

    Example: referee event extend e-1a2b3c4d 7 --minutes 5 --reason "deck check" --judge "Judge Kim"
    """
    from referee.tournament.service import extend_time

    with _station(db) as st:
        done = extend_time(st, event_id, table, minutes, reason, judge)
        state = st.tournaments.load(event_id)
    click.echo(
        printable(
            f"table {table} of {state.round_name(done.round).lower()}: +{minutes} min ({reason}; {judge}); "
            f"{state.extension(done.round, table)} min in all"
        )
    )


@event.command("clock")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def clock_(event_id: str, db: str | None, as_json: bool) -> None:
    """The current round's clock: when it started, when it ends, what is left, and each table's extension.

    Times are in the event's zone (event new --tz). The clock stops when
    every table of the round has its result; after the final, the event
    is over.

    Example: referee event clock e-1a2b3c4d
    """
    from referee.tournament.service import clock, round_over

    with _station(db, read_only=True) as st:
        st.catch_up()
        state = st.tournaments.load(event_id)
        c = clock(state, over=round_over(st, state))
    ext = {f"{r}.{t}": state.extension(r, t) for (r, t) in state.extensions if r == state.current_round}
    if as_json:
        _echo_json({"clock": c, "extensions": ext})
        return
    if c is None:
        click.echo("no clock: the event has no round length, or no round yet")
        return
    if c["event_over"]:
        left = "the final is over: the event has ended"
    elif c["stopped"]:
        left = "every table has its result: the clock has stopped"
    elif c["called"]:
        left = f"time called at {c['called_at']}"
    else:
        left = f"{c['left'] // 60}:{c['left'] % 60:02d} left"
    click.echo(printable(f"{c['name']}: {c['minutes']} minutes from {c['started_at']} to {c['ends_at']}; {left}"))
    for key, minutes in ext.items():
        click.echo(f"  table {key.split('.')[1]}: +{minutes} min")


def _penalty_line(number: int | None, e: dict[str, Any]) -> str:
    where = f" round {e['round']} table {e['table']}" if e.get("round") else ""
    head = f"#{number} " if number is not None else ""
    line = (
        f"  {head}{e['event']}{where}: {e['infraction']}, {e['penalty']} ({e['judge']}) {e.get('note') or ''}".rstrip()
    )
    rescinded = e.get("rescinded")
    if rescinded:
        line += f" [rescinded by {rescinded['judge']}: {rescinded['reason']}]"
    return line


@event.command("penalty")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("player", type=PLAYER_NAME)
@click.option(
    "--infraction", required=True, help="One of the infractions in docs/tournament-policy.md (e.g. slow-play)."
)
@click.option(
    "--penalty",
    "penalty_",
    required=True,
    type=click.Choice(["warning", "game-loss", "match-loss", "disqualification"]),
)
@click.option("--judge", required=True, type=JUDGE, help="The judge giving the penalty.")
@click.option("--note", type=REASON, default="", help="What happened.")
@click.option("--yes", "-y", is_flag=True, help="Record it without asking (the earlier penalties are still printed).")
@db_option
@json_option
@_one_line
def penalty(
    event_id: str,
    player: str,
    infraction: str,
    penalty_: str,
    judge: str,
    note: str,
    yes: bool,
    db: str | None,
    as_json: bool,
) -> None:
    """Record a penalty (TP3): first shows the player's earlier penalties in every event and asks (or --yes).

    A game loss ends the player's game in progress as a loss; between
    games, the next game is recorded as lost without being played; after
    the player's match, it waits for the first game of their next match. A
    match loss ends games until the match is lost; a disqualification does
    that, drops the player and leaves them out of the placings. Each such
    result is the same GameEnded as any result entered by hand, naming the
    judge. Without --yes the command asks before recording (on a terminal;
    elsewhere it records nothing and says to add --yes).

    Example: referee event penalty e-1a2b3c4d Bob --infraction slow-play --penalty warning --judge "Judge Kim" --yes
    """
    from referee.tournament.policy import INFRACTIONS
    from referee.tournament.service import give_penalty, penalty_preview

    if infraction not in INFRACTIONS:
        raise click.BadParameter(f"{infraction!r}: expected one of {', '.join(INFRACTIONS)}", param_hint="--infraction")
    with _station(db) as st:
        preview = penalty_preview(st, event_id, player, penalty_)
        earlier = preview["earlier"]
        shown = not (as_json and yes)  # --json --yes: the document carries them ("earlier")

        def say(text: str) -> None:
            if shown:
                click.echo(printable(text), err=as_json)

        if earlier:
            say(f"{player}'s earlier penalties ({len(earlier)}), in every event:")
            for e in earlier:
                say(_penalty_line(None, e))
        else:
            say(f"{player} has no earlier penalties")
        if penalty_ != "warning":
            if preview["game"] is not None:
                say(
                    f"this {penalty_.replace('-', ' ')} applies to round {preview['round']}, "
                    f"table {preview['table']}, game {preview['game']}"
                )
            elif penalty_ != "disqualification":
                say(f"{player} has no game to lose now: it would apply to the first game of their next match")
        if not yes:
            import sys as _sys

            if not _sys.stdin.isatty():
                click.echo(
                    printable(
                        f"not recorded: confirm the {penalty_} for {player} with --yes (after reading the above)"
                    ),
                    err=True,
                )
                _sys.exit(1)
            if not click.confirm(f"Record {penalty_} for {player} ({infraction})?", default=False, err=as_json):
                click.echo("Nothing was recorded.", err=True)
                _sys.exit(1)
        given, earlier = give_penalty(st, event_id, player, infraction, penalty_, judge, note)
        number = len(st.tournaments.load(event_id).penalties)
    pending = penalty_ in ("game-loss", "match-loss") and given.game is None
    if as_json:
        _echo_json({"penalty": given.model_dump(mode="json"), "number": number, "earlier": earlier, "pending": pending})
        return
    click.echo(printable(f"recorded as penalty {number}: {player}, {infraction}, {penalty_}, by {judge}"))
    if pending:
        click.echo(
            printable(
                f"{player} has no game to lose now: the {penalty_.replace('-', ' ')} applies to the "
                "first game of their next match when it is paired (TP3)"
            )
        )
    elif penalty_ != "warning" and given.game is not None:
        click.echo(printable(f"applied to round {given.round}, table {given.table}, game {given.game} (TP3)"))
    if penalty_ == "disqualification":
        click.echo(printable(f"{player} is dropped and will not be placed"))


@event.command("rescind")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("number", type=click.IntRange(min=1))
@click.option("--judge", required=True, type=JUDGE, help="The judge taking the penalty back.")
@click.option("--reason", required=True, type=REASON, help="Why (kept in the log and the player's history).")
@db_option
@json_option
@_one_line
def rescind(event_id: str, number: int, judge: str, reason: str, db: str | None, as_json: bool) -> None:
    """Rescind penalty NUMBER of the event (as `event penalties` numbers them), with a reason (TP3).

    It stays in the player's history, marked rescinded. A loss not applied
    yet no longer applies; a rescinded disqualification puts the player
    back (paired from the next round, placed again). Games a loss already
    ended keep their result: the command names them, for the judge to
    replace (`event result ... --replace REASON`).

    Example: referee event rescind e-1a2b3c4d 3 --judge "Judge Kim" --reason "appeal upheld"
    """
    from referee.tournament.service import rescind_penalty

    with _station(db) as st:
        given, ended = rescind_penalty(st, event_id, number, judge, reason)
    if as_json:
        _echo_json({"rescinded": number, "penalty": given.model_dump(mode="json"), "games": ended})
        return
    click.echo(printable(f"penalty {number} rescinded by {judge}: {given.player}, {given.infraction}, {given.penalty}"))
    if given.penalty == "disqualification":
        click.echo(printable(f"{given.player} is back in the event (paired from the next round) and placed again"))
    for g in ended:
        click.echo(
            printable(
                f"  {g} was ended by this {given.penalty.replace('-', ' ')}: it keeps that result unless replaced "
                f"(referee event result {event_id} {g} --winner NAME --judge {shlex_quote(judge)} --replace REASON)"
            )
        )


@event.command("penalties")
@click.argument("player", type=PLAYER_NAME, required=False)
@click.option("--event", "event_id", type=EVENT, help="Every penalty of this event, numbered (for `event rescind`).")
@db_option
@json_option
@_one_line
def penalties(player: str | None, event_id: str | None, db: str | None, as_json: bool) -> None:
    """A player's penalties in every event of the store, or every penalty of one event (--event), rescinded ones marked.

    Example: referee event penalties Bob; referee event penalties --event e-1a2b3c4d
    """
    if (player is None) == (event_id is None):
        raise click.UsageError("give a PLAYER, or --event EVENT")
    with _station(db, read_only=True) as st:
        st.catch_up()
        found = st.reader.penalties_of(player) if player is not None else st.reader.penalties_in(str(event_id))
    if as_json:
        _echo_json({"player": player, "event": event_id, "penalties": found})
        return
    for i, e in enumerate(found, start=1):
        click.echo(printable(_penalty_line(i if event_id else None, e).strip()))
    if not found:
        click.echo(printable(f"{player or event_id} has no penalties"))


@event.command("repair")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("table", type=click.IntRange(min=1))
@click.option("--a", "a", required=True, type=PLAYER_NAME, help="Player A at the table.")
@click.option("--b", "b", type=PLAYER_NAME, help="Player B (none: a bye).")
@click.option("--judge", required=True, type=JUDGE, help="The judge re-pairing the table.")
@click.option("--reason", required=True, type=REASON, help="Why (kept in the log).")
@db_option
@json_option
@_one_line
def repair(
    event_id: str, table: int, a: str, b: str | None, judge: str, reason: str, db: str | None, as_json: bool
) -> None:
    """Re-pair a table of the current round, keeping the round whole (TP7); the table's old match is void.

    A player seated here from another table (or from the bye) leaves that
    seat to whoever they replace here; a player left without an opponent
    has a bye; a player left without a table must have dropped or be a late
    entrant (who then takes the missed round). TABLE may be a new table
    number (to give a late entrant a table of their own). Every table
    changed is printed; a table whose match has a result is refused.

    Example: referee event repair e-1a2b3c4d 4 --a Alice --b Hal --judge "Judge Kim" --reason "Bob dropped"
    """
    from referee.tournament.service import repair_table

    with _station(db) as st:
        done = repair_table(st, event_id, table, a, b, judge, reason)
    if as_json:
        _echo_json({"repaired": [e.model_dump(mode="json") for e in done]})
        return
    for e in done:
        if e.A is None:
            what = "no longer in the round"
        elif e.B is None:
            what = f"{e.A} has a bye"
        else:
            what = f"{e.A} v {e.B}   {e.match}"
        void = f" ({e.void} is void)" if e.void else ""
        click.echo(printable(f"round {e.round} table {e.table}: {what}{void}"))


@event.command("next")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def next_(event_id: str, db: str | None, as_json: bool) -> None:
    """The games due now: each table's game being played (created if it was not), one id a line.

    In best-of-N matches game K+1 is created when game K ended and the
    match did not; event commands do this as they go, so the games are
    usually there already: this lists them all (`created` says which this
    command made).

    Example: referee event next e-1a2b3c4d
    """
    from referee.tournament.service import due_games, ensure_games

    with _station(db) as st:
        made = ensure_games(st, st.tournaments.load(event_id))
        state = st.tournaments.load(event_id)
        due = due_games(st, state)
    if as_json:
        _echo_json({"created": made, "due": [{"table": t, "game": g} for t, g in due]})
        return
    for t, g in due:
        click.echo(f"table {t}: {g}" + ("   (created now)" if g in made else ""))
    if not due:
        click.echo(
            printable(
                f"no game is due: every table of {state.round_name(state.current_round).lower() if state.rounds else 'the event'} has its result"
            ),
            err=True,
        )


@event.command("playoff")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option(
    "--top", type=click.IntRange(min=2), help="The size of the top cut (a power of two): needed for its first round."
)
@db_option
@json_option
@_one_line
def playoff_(event_id: str, top: int | None, db: str | None, as_json: bool) -> None:
    """Pair the top cut's next round: single elimination seeded from the Swiss standings (TP6).

    The first round pairs 1v8, 4v5, 2v7, 3v6 (for --top 8: the
    quarterfinals); each later one the winners of neighbouring tables (the
    semifinals, the final). Its tables are stored matches like any other;
    `event standings` shows the final placings once the final ends.

    Example: referee event playoff e-1a2b3c4d --top 8
    """
    from referee.tournament.service import playoff

    with _station(db) as st:
        paired, _ours = playoff(st, event_id, top)
        state = st.tournaments.load(event_id)
    if as_json:
        _echo_json(_round_json(paired, state))
        return
    _echo_round(state, paired)


def _standings_doc(st: Any, event_id: str) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    from referee.tournament.service import final_placings

    state = st.reader.states.get(event_id)
    if state is None:
        state = st.tournaments.load(event_id)  # says "no tournament" in one line
    rows = st.reader.standings(event_id)
    return state, rows, final_placings(st, state)


def _after(state: Any) -> str:
    if not state.swiss_rounds:
        return "before round 1"
    after = f"after round {len(state.swiss_rounds)}"
    if state.playoff_rounds:
        after += f" and the {state.round_name(state.current_round).lower()}"
    return after


@event.command("standings")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option("--rebuild", is_flag=True, help="Rebuild the standings projection from zero first.")
@db_option
@json_option
@_one_line
def standings(event_id: str, as_csv: bool, rebuild: bool, db: str | None, as_json: bool) -> None:
    """The standings: points (win 3, draw 1, bye 3), then OMW, GW and OGW (MTR appendix C).

    Computed by a projection that follows the store's log (each result
    counted once, as it lands); this command first catches it up (a role
    that may only read folds what it has not seen in memory). Dropped
    players are marked; disqualified players are listed last, unranked;
    after a top cut, the final placings follow (ranges: 3-4, 5-8). The
    same table as `event follow`, the event page and the print-out.

    Example: referee event standings e-1a2b3c4d --csv
    """
    from projections.tournament import EXPLAINED, TIEBREAKERS
    from referee.tournament import words
    from referee.tournament.projection import rebuild as do_rebuild

    with _station(db, read_only=not rebuild) as st:
        st.tournaments.load(event_id)
        if rebuild:
            do_rebuild(st.store)
        st.catch_up()
        state, rows, places = _standings_doc(st, event_id)
    if as_json:
        _echo_json({"standings": rows, "tiebreakers": list(TIEBREAKERS), "explained": EXPLAINED, "placings": places})
        return
    if as_csv:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(
            ["rank", "player", "points", "omw", "gw", "ogw", "oomw", "played", "record", "dropped", "disqualified"]
        )
        for r in rows:
            w.writerow(
                [
                    r["rank"] if r["rank"] is not None else "DQ",
                    r["player"],
                    r["points"],
                    f"{r['omw']:.4f}",
                    f"{r['gw']:.4f}",
                    f"{r['ogw']:.4f}",
                    f"{r['oomw']:.4f}",
                    r["played"],
                    r["record"],
                    "yes" if r["dropped"] else "",
                    "yes" if r.get("disqualified") else "",
                ]
            )
        click.echo(out.getvalue(), nl=False)
        return
    for line in words.standings_lines(state.name, _after(state), rows, places):
        click.echo(printable(line))


@event.command("matches")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def matches_(event_id: str, db: str | None, as_json: bool) -> None:
    """Every table of every round: players, match, status, result, open violations, judge calls.

    Example: referee event matches e-1a2b3c4d
    """
    from projections.tournament import table_of
    from referee.tournament.service import matches

    with _station(db, read_only=True) as st:
        rows = matches(st, event_id)
    if as_json:
        _echo_json({"matches": rows})
        return
    for r in rows:
        who = f"{r['A']} v {r['B']}" if r["B"] is not None else f"{r['A']} (bye)"
        if r["status"] == "finished":
            outcome = r["result"]
            if r.get("ended_by"):
                outcome += f" ({r['ended_by']})"
        else:
            outcome = r["status"]
            if r.get("current"):
                outcome += f", game {table_of(r['current'])[1]}" + (
                    f" ({r['current']})" if r["current"] != r["match"] else ""
                )
            if r.get("score") and r.get("games"):
                sc = r["score"]
                outcome += (
                    f" [{r['A']} {sc[r['A']]}-{sc[r['B']]} {r['B']}"
                    + (f", {sc['draws']} drawn" if sc["draws"] else "")
                    + "]"
                )
        if r.get("extension"):
            outcome += f", +{r['extension']} min"
        extra = ""
        if r.get("violations"):
            extra += f", {r['violations']} open violation(s)"
        if r.get("judge_calls"):
            extra += f", {r['judge_calls']} judge call(s)"
        label = r["round_name"] if r.get("playoff") else f"round {r['round']}"
        click.echo(printable(f"{label} table {r['table']}: {who}: {outcome}{extra}   {r['match'] or ''}".rstrip()))


@event.command("follow")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--timeout", type=click.FloatRange(min=0), help="Stop after this many seconds (default: until Ctrl-C).")
@db_option
@json_option
@_one_line
def follow(event_id: str, timeout: float | None, db: str | None, as_json: bool) -> None:
    """Print the standings again each time a result lands (until Ctrl-C): the same table as `event standings`.

    On PostgreSQL the projection runs as eventsourcing's ProjectionRunner,
    subscribed to the store's notifications; on SQLite it polls every
    second. A role that may only read follows too: it reads the read
    models and folds what they have not seen in memory, every second.
    With --json, one JSON document per line, {"standings": [...], "placings": [...]}, each time.

    Example: referee event follow e-1a2b3c4d --timeout 3600
    """
    from referee.commands.matches import open_store
    from referee.tournament import words
    from referee.tournament.projection import follow as do_follow, follow_reading
    from referee.tournament.service import Station
    from referee.tournament.store import may_write

    with open_store(db) if _writable(db) else open_store(db, read_only=True) as store:
        writes = not getattr(store, "read_only", False) and may_write(store)
        st = Station(store) if writes else _reading_station(store)
        try:
            st.tournaments.load(event_id)
            last: list[Any] = []

            def show() -> None:
                state, rows, places = _standings_doc(st, event_id)
                if [rows, places] == last:
                    return
                last[:] = [rows, places]
                if as_json:
                    click.echo(json.dumps({"standings": rows, "placings": places}))
                    return
                for line in words.standings_lines(state.name, _after(state), rows, places):
                    click.echo(printable(line))

            try:
                if writes:
                    do_follow(st.store, show, timeout=timeout)
                else:
                    follow_reading(st, show, timeout=timeout)
            except KeyboardInterrupt:
                pass
        finally:
            st.close()


def _writable(db: str | None) -> bool:
    """May ``--db`` be opened to write (an SQLite file that may not be written is followed read-only)?"""
    from referee.store import database_url, parse_url

    database = parse_url(database_url(db))
    if database.kind != "sqlite" or database.path is None:
        return True
    import os

    return os.access(database.path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(database.path)), os.W_OK)


def _reading_station(store: Any) -> Any:
    from referee.tournament.service import Station

    station = Station(store)
    station.reader.writable = False  # it may only read: the read models are folded in memory
    return station
