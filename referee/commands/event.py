"""`referee event ...`: tournaments from the command line (new, register, round, drop, result, standings, matches).

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

from referee.commands.params import FILE, JUDGE, MATCH, PLAYER_NAME, TITLE, db_option, json_option
from referee.inputs import printable


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
def _station(db: str | None, create: bool = False) -> Iterator[Any]:
    """A station on the store; a refusal ends as one line and exit 1. Only
    ``event new`` may create a missing SQLite file (a mistyped ``--db`` must
    say "no such database", as the match commands do)."""
    from referee.commands.matches import open_store
    from referee.tournament.service import Station
    from referee.tournament.store import Refused

    with open_store(db, create=create) as store:
        station = Station(store)
        try:
            yield station
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
            self.fail(f"{value!r} is not an event id: ids look like e-1a2b3c4d (`referee event new` prints one)", param, ctx)
        return text


EVENT = EventId()


@click.group()
def event() -> None:
    """Tournaments: registered decks, Swiss rounds whose tables are stored matches, live standings.

    Example: referee event new "Spring Cup 2026"
    """


@event.command("new")
@click.argument("name", type=TITLE)
@click.option("--deal", type=click.Choice(["seeded", "table"]), default="seeded", show_default=True,
              help="seeded: the referee shuffles each match from a seed; table: the event plays on paper.")
@click.option("--players-log", is_flag=True,
              help="Players may log their own decisions at the board from their player links "
                   "(otherwise only scorekeepers and judges log).")
@db_option
@json_option
@_one_line
def new(name: str, deal: str, players_log: bool, db: str | None, as_json: bool) -> None:
    """Create a tournament; prints its id.

    Example: referee event new "Spring Cup 2026"
    """
    with _station(db, create=True) as st:
        tid = st.tournaments.create(name, deal, players_log=players_log)
    if as_json:
        _echo_json({"event": tid})
    else:
        click.echo(tid)
        click.echo(f"{name}: {deal} deal. Next: referee event register {tid} --player NAME --deck FILE", err=True)


@event.command("register")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--player", required=True, type=PLAYER_NAME, help="The player's name, as it will appear in pairings and standings.")
@click.option("--deck", required=True, type=FILE, help="The player's deck file (checked against 100.2, then frozen).")
@click.option("--pool", type=FILE, help="A card pool file; the bundled rules-test pool is searched after it.")
@click.option("--by", type=JUDGE, help="Who changed the deck: required to register a player a second time.")
@db_option
@json_option
@_one_line
def register(event_id: str, player: str, deck: str, pool: str | None, by: str | None, db: str | None, as_json: bool) -> None:
    """Register a player's deck (checked against 100.2 and frozen).

    A later change of deck is a new registration that names who changed it
    (--by); matches already paired keep the deck they were created with.

    Example: referee event register e-1a2b3c4d --player Alice --deck alice.yaml
    """
    from referee.decks import load_deck
    from referee.pool import CardCatalog, bundled_pool, load_pool
    from referee.tournament.service import register as do_register

    catalog = CardCatalog(*([load_pool(pool)] if pool else []), bundled_pool())
    cards = load_deck(deck, catalog)  # bad deck: exit 2 before anything is written
    with _station(db) as st:
        done = do_register(st, event_id, player, cards, by)
    if as_json:
        _echo_json({"event": event_id, "player": player, "cards": len(cards), "replaces": done.replaces})
    else:
        again = f" (replaces the earlier deck; changed by {by})" if done.replaces else ""
        click.echo(f"{player} registered with {len(cards)} cards{again}")


@event.command("drop")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("player", type=PLAYER_NAME)
@click.option("--by", type=JUDGE, help="Who recorded the drop.")
@db_option
@_one_line
def drop(event_id: str, player: str, by: str | None, db: str | None) -> None:
    """Drop a player: never paired again; their results stay in the standings.

    Example: referee event drop e-1a2b3c4d Alice --by "Judge Kim"
    """
    from referee.tournament.service import drop as do_drop

    with _station(db) as st:
        do_drop(st, event_id, player, by)
    click.echo(f"{player} dropped")


def _round_json(r: Any) -> dict[str, Any]:
    return {
        "round": r.round,
        "pairings": [{"table": p.table, "A": p.A, "B": p.B, "match": p.match} for p in r.pairings],
    }


@event.command("round")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--pairings", "pairings_file", type=FILE, help="Import this round's pairings (CSV: table, player A, player B; an empty B is a bye).")
@click.option("--round", "expected", type=click.IntRange(min=1), help="The round meant: if it is already paired, print it (stations asking at once all get the same round).")
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
    click.echo(f"round {paired.round}")
    for p in paired.pairings:
        if p.B is None:
            click.echo(printable(f"  table {p.table}: {p.A} has a bye"))
        else:
            click.echo(printable(f"  table {p.table}: {p.A} v {p.B}   {p.match}"))


@event.command("result")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.argument("match", type=MATCH)
@click.option("--winner", type=PLAYER_NAME, help="The winner's name.")
@click.option("--draw", is_flag=True, help="The match was a draw.")
@click.option("--judge", required=True, type=JUDGE, help="The judge entering the result.")
@db_option
@_one_line
def result(event_id: str, match: str, winner: str | None, draw: bool, judge: str, db: str | None) -> None:
    """Enter a match's result by hand (a game logged only at its end).

    Example: referee event result e-1a2b3c4d e-1a2b3c4d.r1.t2 --winner Alice --judge "Judge Kim"
    """
    from referee.tournament.service import enter_result

    if (winner is None) == (not draw):
        raise click.UsageError("give --winner NAME or --draw (one of them)")
    with _station(db) as st:
        enter_result(st, event_id, match, winner, draw, judge)
    click.echo(f"result of {match} entered by {judge}")


@event.command("standings")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option("--rebuild", is_flag=True, help="Rebuild the standings projection from zero first.")
@db_option
@json_option
@_one_line
def standings(event_id: str, as_csv: bool, rebuild: bool, db: str | None, as_json: bool) -> None:
    """The standings: points (win 3, draw 1, bye 3), then OMW, then OOMW.

    Computed by a projection that follows the store's log (each result
    counted once, as it lands); this command first catches it up.

    Example: referee event standings e-1a2b3c4d --csv
    """
    from referee.tournament.projection import rebuild as do_rebuild

    with _station(db) as st:
        state = st.tournaments.load(event_id)
        if rebuild:
            do_rebuild(st.store)
        st.catch_up()
        rows = st.view.standings(event_id)
    if as_json:
        _echo_json({"standings": rows})
        return
    if as_csv:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", "player", "points", "omw", "oomw", "played"])
        for r in rows:
            w.writerow([r["rank"], r["player"], r["points"], f"{r['omw']:.4f}", f"{r['oomw']:.4f}", r["played"]])
        click.echo(out.getvalue(), nl=False)
        return
    click.echo(printable(f"{state.name}, after round {state.current_round}"))
    click.echo(f"{'rank':>4}  {'player':<20} {'points':>6} {'OMW':>7} {'OOMW':>7} {'played':>6}")
    for r in rows:
        click.echo(printable(
            f"{r['rank']:>4}  {r['player']:<20} {r['points']:>6} {r['omw'] * 100:>6.2f}% {r['oomw'] * 100:>6.2f}% {r['played']:>6}"
        ))


@event.command("matches")
@click.argument("event_id", metavar="EVENT", type=EVENT)
@db_option
@json_option
@_one_line
def matches_(event_id: str, db: str | None, as_json: bool) -> None:
    """Every table of every round: players, match, status, result, open violations, judge calls.

    Example: referee event matches e-1a2b3c4d
    """
    from referee.tournament.service import matches

    with _station(db) as st:
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
        extra = ""
        if r.get("violations"):
            extra += f", {r['violations']} open violation(s)"
        if r.get("judge_calls"):
            extra += f", {r['judge_calls']} judge call(s)"
        click.echo(printable(f"round {r['round']} table {r['table']}: {who}: {outcome}{extra}   {r['match'] or ''}".rstrip()))


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
            rows = st.view.standings(event_id)
            if rows == last:
                return
            last[:] = rows
            if as_json:
                click.echo(json.dumps({"standings": rows}))
                return
            click.echo(printable(f"{state.name}: standings"))
            for r in rows:
                click.echo(printable(f"{r['rank']:>4}  {r['player']:<20} {r['points']:>3}  OMW {r['omw'] * 100:6.2f}%  OOMW {r['oomw'] * 100:6.2f}%  played {r['played']}"))

        try:
            do_follow(st.store, show, timeout=timeout)
        except KeyboardInterrupt:
            pass
