"""`referee event ...`: tournaments from the command line (new, register, checkin, round, result, time, extend, penalty, drop, undrop, repair, playoff, standings, matches, clock).

Each command opens the store (``--db``, else ``REFEREE_DB``), does one
thing and prints for people or, with ``--json``, one JSON document in the
shape docs/cli.md gives. A request the tournament refuses (a round still
being played, an unknown player) exits 1 with one line and writes nothing;
bad input (an unreadable deck or pairings file) exits 2 naming the file,
the place and what was expected.
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
    from referee.tournament.store import Refused

    with open_store(db, create=create, read_only=read_only) as store:
        station = Station(store)
        try:
            yield station
            station.keep_current()  # what it wrote is in the read models before it answers
        except Refused as exc:
            click.echo(printable(f"refused: {exc}"), err=True)
            click.echo("Nothing was recorded.", err=True)
            sys.exit(1)
        finally:
            station.close()


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
    db: str | None,
    as_json: bool,
) -> None:
    """Create a tournament; prints its id.

    The event's policies (docs/tournament-policy.md) are chosen here and
    kept in its log: games per match, the round's length, what time does
    to an unfinished game, what late entrants get, and check-in.

    Example: referee event new "Spring Cup 2026" --best-of 3 --round-minutes 50
    """
    from referee.simulate import SelfPlayRefused, complete_ruleset

    try:
        complete_ruleset(game)
    except SelfPlayRefused as exc:
        raise click.BadParameter(str(exc), param_hint="--game") from None
    # Harem Master's tournaments name no game, as every one before games were named.
    named = {"game": game} if game != DEFAULT_GAME else {}
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
        rules = tournament_ruleset(st.tournaments.load(event_id))
        pools = [*([rules.load_pool(pool)] if pool else []), rules.bundled_cards()]
        if csv_file is not None:
            from referee.tournament.pairing import read_registrations

            # A bad line: exit 2 before anything is written.
            entries = read_registrations(csv_file, lambda path: rules.load_deck(path, pools))
        else:
            assert player is not None and deck is not None
            entries = [(player, rules.load_deck(deck, pools))]  # bad deck: exit 2 before anything is written
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
    if late:
        missed = state.players[late[0]].joined
        click.echo(
            f"late entry (TP5): {', '.join(late)} take{'s' if len(late) == 1 else ''} "
            f"{state.late}{'es' if state.late == 'loss' else 's'} for the {missed} round(s) missed"
        )
    if csv_file is not None:
        click.echo(f"{len(done)} players registered; {len(state.players)} in {state.name}")


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


def _round_json(r: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "round": r.round,
        "pairings": [{"table": p.table, "A": p.A, "B": p.B, "match": p.match} for p in r.pairings],
    }
    if r.source == "playoff":
        doc["playoff"] = True
    if r.minutes:
        doc["clock"] = {"started": r.started, "minutes": r.minutes}
    return doc


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
    if as_json:
        _echo_json(_round_json(paired))
        return
    if not ours:
        click.echo(f"round {paired.round} had just been paired by another station:", err=True)
    click.echo(
        f"round {paired.round}"
        + (" (top cut)" if paired.source == "playoff" else "")
        + (f": {paired.minutes} minutes from {paired.started[11:16]} UTC" if paired.minutes and paired.started else "")
    )
    for p in paired.pairings:
        if p.B is None:
            click.echo(printable(f"  table {p.table}: {p.A} has a bye"))
        else:
            click.echo(printable(f"  table {p.table}: {p.A} v {p.B}   {p.match}"))


@event.command("result")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("match", type=MATCH)
@click.option("--winner", type=PLAYER_NAME, help="The winner's name.")
@click.option("--draw", is_flag=True, help="The game was a draw.")
@click.option("--judge", required=True, type=JUDGE, help="The judge entering the result.")
@click.option(
    "--replace",
    "replace",
    type=REASON,
    metavar="REASON",
    help="Replace the game's result (entered or played): a judge's rewind with this reason, then the new result.",
)
@db_option
@_one_line
def result(
    event_id: str, match: str, winner: str | None, draw: bool, judge: str, replace: str | None, db: str | None
) -> None:
    """Enter a game's result by hand (a paper game logged at its end): it ends the game (TP1).

    MATCH is a game's id, or a table's (its game in progress, in a
    best-of-N match). The result is a GameEnded in the game's own log naming
    the judge: every later action is refused saying who entered it and
    when, `simulate --event` skips it, `audit` reports it, and only a judge's
    rewind reopens it. A game with a result keeps it: replacing one takes
    --replace REASON (kept in the log).

    Example: referee event result e-1a2b3c4d e-1a2b3c4d.r1.t2 --winner Alice --judge "Judge Kim"
    """
    from referee.tournament.service import enter_result

    if (winner is None) == (not draw):
        raise click.UsageError("give --winner NAME or --draw (one of them)")
    with _station(db) as st:
        game = enter_result(st, event_id, match, winner, draw, judge, replace=replace)
    click.echo(f"result of {game} {'replaced' if replace else 'entered'} by {judge}")


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
    from referee.tournament.service import call_time

    with _station(db) as st:
        settled = call_time(st, event_id, judge, table)
        state = st.tournaments.load(event_id)
    where = f"table {table}" if table else f"round {state.current_round}"
    click.echo(f"time called on {where} by {judge}; {len(settled)} unfinished game(s) settled ({state.at_time})")
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
        f"table {table} of round {done.round}: +{minutes} min ({reason}; {judge}); "
        f"{state.extension(done.round, table)} min in all"
    )


@event.command("clock")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def clock_(event_id: str, db: str | None, as_json: bool) -> None:
    """The current round's clock: when it started, when it ends, what is left, and each table's extension.

    Example: referee event clock e-1a2b3c4d
    """
    from referee.tournament.service import clock

    with _station(db, read_only=True) as st:
        state = st.tournaments.load(event_id)
    c = clock(state)
    ext = {f"{r}.{t}": state.extension(r, t) for (r, t) in state.extensions if r == state.current_round}
    if as_json:
        _echo_json({"clock": c, "extensions": ext})
        return
    if c is None:
        click.echo("no clock: the event has no round length, or no round yet")
        return
    left = (
        f"{c['left'] // 60}:{c['left'] % 60:02d} left"
        if not c["called"]
        else f"time called at {c['called'][11:16]} UTC"
    )
    click.echo(
        f"round {c['round']}: {c['minutes']} minutes from {c['started'][11:16]} to {c['ends'][11:16]} UTC; {left}"
    )
    for key, minutes in ext.items():
        click.echo(f"  table {key.split('.')[1]}: +{minutes} min")


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
@db_option
@json_option
@_one_line
def penalty(
    event_id: str, player: str, infraction: str, penalty_: str, judge: str, note: str, db: str | None, as_json: bool
) -> None:
    """Record a penalty (TP3); first shows the player's earlier penalties in every event.

    A game loss ends the player's game in progress as a loss; between
    games, the next game is recorded as lost without being played; after
    the player's match, it waits for the first game of their next match. A
    match loss ends games until the match is lost; a disqualification does
    that and drops the player. Each such result is the same GameEnded as
    any result entered by hand, naming the judge.

    Example: referee event penalty e-1a2b3c4d Bob --infraction slow-play --penalty warning --judge "Judge Kim"
    """
    from referee.tournament.policy import INFRACTIONS
    from referee.tournament.service import give_penalty

    if infraction not in INFRACTIONS:
        raise click.BadParameter(f"{infraction!r}: expected one of {', '.join(INFRACTIONS)}", param_hint="--infraction")
    with _station(db) as st:
        given, earlier = give_penalty(st, event_id, player, infraction, penalty_, judge, note)
    pending = penalty_ in ("game-loss", "match-loss") and given.game is None
    if as_json:
        _echo_json({"penalty": given.model_dump(mode="json"), "earlier": earlier, "pending": pending})
        return
    if earlier:
        click.echo(printable(f"{player}'s earlier penalties ({len(earlier)}):"))
        for e in earlier:
            where = f"round {e['round']} table {e['table']}" if e.get("round") else ""
            click.echo(
                printable(
                    f"  {e['event']} {where}: {e['infraction']}, {e['penalty']} ({e['judge']}) {e['note']}".rstrip()
                )
            )
    else:
        click.echo(printable(f"{player} has no earlier penalties"))
    click.echo(printable(f"recorded: {player}, {infraction}, {penalty_}, by {judge}"))
    if pending:
        click.echo(
            printable(
                f"{player} has no game to lose now: the {penalty_.replace('-', ' ')} applies to the "
                "first game of their next match when it is paired (TP3)"
            )
        )
    elif penalty_ != "warning" and given.game is not None:
        click.echo(printable(f"applied to round {given.round}, table {given.table}, game {given.game} (TP3)"))


@event.command("penalties")
@click.argument("player", type=PLAYER_NAME)
@db_option
@json_option
@_one_line
def penalties(player: str, db: str | None, as_json: bool) -> None:
    """A player's penalties in every event of the store (from the read model).

    Example: referee event penalties Bob
    """
    with _station(db, read_only=True) as st:
        st.catch_up()
        found = st.reader.penalties_of(player)
    if as_json:
        _echo_json({"player": player, "penalties": found})
        return
    for e in found:
        click.echo(
            printable(
                f"{e['event']} round {e.get('round')} table {e.get('table')}: {e['infraction']}, {e['penalty']} ({e['judge']}) {e['note']}".rstrip()
            )
        )
    if not found:
        click.echo(printable(f"{player} has no penalties"))


@event.command("repair")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("table", type=click.IntRange(min=1))
@click.option("--a", "a", required=True, type=PLAYER_NAME, help="Player A at the table.")
@click.option("--b", "b", type=PLAYER_NAME, help="Player B (none: a bye).")
@click.option("--judge", required=True, type=JUDGE, help="The judge re-pairing the table.")
@click.option("--reason", required=True, type=REASON, help="Why (kept in the log).")
@db_option
@_one_line
def repair(event_id: str, table: int, a: str, b: str | None, judge: str, reason: str, db: str | None) -> None:
    """Re-pair one table of the current round: a new match for it, the old one void.

    Each player must already sit at this table or have no table this round.

    Example: referee event repair e-1a2b3c4d 4 --a Alice --b Hal --judge "Judge Kim" --reason "Bob dropped"
    """
    from referee.tournament.service import repair_table

    with _station(db) as st:
        done = repair_table(st, event_id, table, a, b, judge, reason)
    click.echo(printable(f"round {done.round} table {table}: {a} v {b or '(bye)'}   {done.match or ''}".rstrip()))


@event.command("next")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def next_(event_id: str, db: str | None, as_json: bool) -> None:
    """Create the games due in best-of-N matches (game K+1 where game K ended and the match did not); print their ids.

    Event commands do this as they go; a station logging a table's games
    with `referee act` runs it after a game ends to get the next game's id.

    Example: referee event next e-1a2b3c4d
    """
    from referee.tournament.service import ensure_games

    with _station(db) as st:
        made = ensure_games(st, st.tournaments.load(event_id))
    if as_json:
        _echo_json({"created": made})
        return
    for g in made:
        click.echo(g)
    if not made:
        click.echo("no game is due", err=True)


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

    The first round pairs 1v8, 4v5, 2v7, 3v6 (for --top 8); each later one
    the winners of neighbouring tables. Its tables are stored matches like
    any other; `event standings` shows the final placings once the final ends.

    Example: referee event playoff e-1a2b3c4d --top 8
    """
    from referee.tournament.service import playoff

    with _station(db) as st:
        paired, _ours = playoff(st, event_id, top)
    if as_json:
        _echo_json(_round_json(paired))
        return
    click.echo(f"round {paired.round} (top cut)")
    for p in paired.pairings:
        click.echo(printable(f"  table {p.table}: {p.A} v {p.B}   {p.match}"))


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
    players are marked; after a top cut, the final placings follow.

    Example: referee event standings e-1a2b3c4d --csv
    """
    from projections.tournament import EXPLAINED, TIEBREAKERS
    from referee.tournament.projection import rebuild as do_rebuild
    from referee.tournament.service import final_placings

    with _station(db, read_only=not rebuild) as st:
        state = st.tournaments.load(event_id)
        if rebuild:
            do_rebuild(st.store)
        st.catch_up()
        rows = st.reader.standings(event_id)
        places = final_placings(st, state)
    if as_json:
        _echo_json({"standings": rows, "tiebreakers": list(TIEBREAKERS), "explained": EXPLAINED, "placings": places})
        return
    if as_csv:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", "player", "points", "omw", "gw", "ogw", "oomw", "played", "record", "dropped"])
        for r in rows:
            w.writerow(
                [
                    r["rank"],
                    r["player"],
                    r["points"],
                    f"{r['omw']:.4f}",
                    f"{r['gw']:.4f}",
                    f"{r['ogw']:.4f}",
                    f"{r['oomw']:.4f}",
                    r["played"],
                    r["record"],
                    "yes" if r["dropped"] else "",
                ]
            )
        click.echo(out.getvalue(), nl=False)
        return
    click.echo(printable(f"{state.name}, after round {len(state.swiss_rounds)}"))
    click.echo(f"{'rank':>4}  {'player':<20} {'points':>6} {'record':>7} {'OMW':>7} {'GW':>7} {'OGW':>7} {'played':>6}")
    for r in rows:
        mark = "  (dropped)" if r["dropped"] else ""
        click.echo(
            printable(
                f"{r['rank']:>4}  {r['player']:<20} {r['points']:>6} {r['record']:>7} {r['omw'] * 100:>6.2f}% "
                f"{r['gw'] * 100:>6.2f}% {r['ogw'] * 100:>6.2f}% {r['played']:>6}{mark}"
            )
        )
    click.echo(EXPLAINED)
    if places:
        click.echo("final placings:")
        for p in places:
            click.echo(printable(f"{p['place']:>4}  {p['player']:<20} {p['how']}"))


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
            outcome = "draw" if r["draw"] else f"{r['winner']} won"
            if r.get("entered_by"):
                outcome += f" (entered by {r['entered_by']})"
        else:
            outcome = r["status"]
            if r.get("current"):
                outcome += f", game {table_of(r['current'])[1]}" + (
                    f" ({r['current']})" if r["current"] != r["match"] else ""
                )
        if r.get("score") and (len(r.get("games", [])) > 1 or (r.get("current") or "").count(".g")):
            sc = r["score"]
            outcome += f" [{sc[r['A']]}-{sc[r['B']]}" + (f"-{sc['draws']}" if sc["draws"] else "") + "]"
        if r.get("extension"):
            outcome += f", +{r['extension']} min"
        extra = ""
        if r.get("violations"):
            extra += f", {r['violations']} open violation(s)"
        if r.get("judge_calls"):
            extra += f", {r['judge_calls']} judge call(s)"
        click.echo(
            printable(f"round {r['round']} table {r['table']}: {who}: {outcome}{extra}   {r['match'] or ''}".rstrip())
        )


@event.command("follow")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--timeout", type=click.FloatRange(min=0), help="Stop after this many seconds (default: until Ctrl-C).")
@db_option
@json_option
@_one_line
def follow(event_id: str, timeout: float | None, db: str | None, as_json: bool) -> None:
    """Print the standings again each time a result lands (until Ctrl-C).

    On PostgreSQL the projection runs as eventsourcing's ProjectionRunner,
    subscribed to the store's notifications; on SQLite it polls every second.
    With --json, one JSON document per line, {"standings": [...]}, each time.

    Example: referee event follow e-1a2b3c4d --timeout 3600
    """
    from referee.tournament.projection import follow as do_follow

    with _station(db) as st:
        state = st.tournaments.load(event_id)
        last: list[Any] = []

        def show() -> None:
            rows = st.reader.standings(event_id)
            if rows == last:
                return
            last[:] = rows
            if as_json:
                click.echo(json.dumps({"standings": rows}))
                return
            click.echo(printable(f"{state.name}: standings"))
            for r in rows:
                click.echo(
                    printable(
                        f"{r['rank']:>4}  {r['player']:<20} {r['points']:>3}  OMW {r['omw'] * 100:6.2f}%  OOMW {r['oomw'] * 100:6.2f}%  played {r['played']}"
                    )
                )

        try:
            do_follow(st.store, show, timeout=timeout)
        except KeyboardInterrupt:
            pass
