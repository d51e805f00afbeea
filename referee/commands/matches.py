"""Stored matches from the command line: new, act, legal, state, log, matches,
and the judge's commands rewind, note, accept, skip-step.

Every command opens the store named by ``--db`` (else ``REFEREE_DB``, else
``sqlite:///referee.db`` in the current directory), does one thing, and
prints for people or, with ``--json``, one JSON document in the shape of
``docs/cli.md``. A refused action exits 1 citing its rule; bad input
and store problems exit 2 with one line.

Every command works a match through the ruleset of its game
(``referee.ruleset``, ``MatchStore.ruleset``): its decision, legal actions,
views, sentences and corrections; a game's own ``new`` options and the
arguments of its actions are read from what the ruleset declares
(``StartOption``, ``ActionSpec``/``ArgSpec``), so no game is named here.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Mapping

import click

from referee import ruleset as registry
from referee.commands.params import (
    CARD,
    DECK,
    FILE,
    JUDGE,
    MATCH,
    NAME,
    NOTE,
    PLAYER,
    REASON,
    SEED,
    TITLE,
    VIEWER,
    KeyChoice,
    check_seats,
    check_viewer,
    db_option,
    json_option,
    once_each,
)
from referee.inputs import MAX_CARDS, printable
from referee.ruleset import DEFAULT_GAME


def open_store(db: str | None, *, create: bool = False, read_only: bool = False) -> Any:
    """The store of ``--db``. Only ``new`` creates a missing SQLite file
    (a typo elsewhere must say "no such database", not make an empty one),
    and commands that only read open it read-only, so read-only media and
    roles that may only read serve them."""
    from referee.store import MatchStore, database_url

    return MatchStore(database_url(db), create=create, read_only=read_only)


def _written(store: Any, match: str) -> None:
    """A write to a table of an event (its id starts with the event's, ``e-``)
    leaves the event's read models current before the command answers
    (``referee.tournament.service.after_match_write``); a write to any other
    match does not even import the tournament code."""
    if match.strip().lower().startswith("e-"):
        from referee.tournament.service import after_match_write

        after_match_write(store, match)


def _not_void(store: Any, match: str, as_json: bool) -> None:
    """A table of an event that a judge re-paired is void (tournament policy
    TP7): an action there is refused naming the re-pair, nothing written."""
    if not match.strip().lower().startswith("e-"):
        return
    from referee.actions import IllegalAction, Refusal
    from referee.tournament.policy import REPAIR
    from referee.tournament.service import void_refusal

    why = void_refusal(store, match)
    if why is not None:
        refused(IllegalAction(Refusal(REPAIR, why)), as_json)


def echo_json(doc: Any) -> None:
    click.echo(json.dumps(doc, indent=2))


def refused(exc: Any, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    """A refused action: the rule and the sentence, exit 1, nothing written."""
    r = exc.refusal
    if as_json:
        echo_json({"refused": {"rule": r.rule, "message": r.reason}, **(extra or {})})
    else:
        click.echo(printable(f"refused ({r.rule}): {r.reason}"), err=True)
        click.echo("Nothing was recorded.", err=True)
    sys.exit(1)


def stale(exc: Any, as_json: bool) -> None:
    """The match moved on since the action was chosen: exit 1, nothing written."""
    if as_json:
        echo_json(
            {"stale": {"chosen": exc.chosen, "current": exc.current, "rewound": exc.rewound, "message": str(exc)}}
        )
    else:
        click.echo(printable(str(exc)), err=True)
    sys.exit(1)


# --- new ---------------------------------------------------------------------------

GAME_OPTION = "game_"  # the prefix of the parameters made from the games' StartOptions


class NewCommand(click.Command):
    """``new``, whose games' own options (Harem Master's ``--ruling``,
    ``--no-auto-pass``) are made from each registered ruleset's
    ``start_options`` when the command's parameters are first needed (to
    parse or to show the help), after ``--mode``."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if not any(p.name and p.name.startswith(GAME_OPTION) for p in self.params):
            at = next(i for i, p in enumerate(self.params) if p.name == "mode") + 1
            self.params[at:at] = _start_option_params()
        return super().get_params(ctx)


def _start_option_params() -> list[click.Parameter]:
    """One click option per distinct ``StartOption`` of every registered game."""
    made: dict[str, click.Parameter] = {}
    for game in registry.games():
        decks = registry.get(game).decks
        for spec in decks.start_options if decks is not None else ():
            if spec.flag in made:
                continue
            name = GAME_OPTION + spec.name
            if spec.kind == "pairs":
                made[spec.flag] = click.Option(
                    [spec.flag, name],
                    type=KeyChoice(spec.choices or {}, spec.metavar or "KEY=CHOICE"),
                    multiple=True,
                    callback=once_each,
                    help=spec.help,
                )
            else:  # off: a flag that turns the option off
                made[spec.flag] = click.Option([spec.flag, name], is_flag=True, help=spec.help)
    return list(made.values())


def _start_options(game: Any, given: dict[str, Any]) -> dict[str, Any]:
    """The ``options`` of ``game.start`` from the game options given; one of
    another game's options is bad input."""
    mine = {GAME_OPTION + spec.name: spec for spec in (game.decks.start_options if game.decks is not None else ())}
    options: dict[str, Any] = {}
    for key, value in given.items():
        spec = mine.get(key)
        if spec is None:
            if value:
                flag = "--" + key.removeprefix(GAME_OPTION).replace("_", "-")
                raise click.BadParameter(f"it is not an option of {game.name}", param_hint=flag)
            continue
        options[spec.name] = dict(value) if spec.kind == "pairs" else not value
    return options


@click.command(cls=NewCommand)
@click.option(
    "--deck",
    "decks",
    type=DECK,
    multiple=True,
    callback=once_each,
    help="A deck file for each player: --deck A=alice.yaml --deck B=bob.yaml.",
)
@click.option(
    "--position",
    type=FILE,
    help="Instead of decks: start from the setup of a scenario file (a disputed position written by hand); its actions are not applied.",
)
@click.option(
    "--from",
    "origin",
    type=MATCH,
    help="Instead of decks: a what-if fork of this stored match, at the event --at (the original is untouched).",
)
@click.option(
    "--at",
    "fork_at",
    type=click.IntRange(min=1),
    help="With --from: the fork starts just after this event of the match (see `referee log`).",
)
@click.option("--by", "forked_by", type=JUDGE, help="With --from: who forks it (a judge's name), for the log.")
@click.option(
    "--pool", type=FILE, help="A card pool file (YAML or JSON); the bundled rules-test pool is searched after it."
)
@click.option("--seed", type=SEED, default=None, help="Seed of the shuffles (default: a random one, printed).")
@click.option(
    "--name", "names", type=NAME, multiple=True, callback=once_each, help="Players' names: --name A=Alice --name B=Bob."
)
@click.option(
    "--mode",
    type=click.Choice(["strict", "record"]),
    default="strict",
    show_default=True,
    help="strict refuses illegal actions; record logs a paper match as it happened, violations included.",
)
@click.option(
    "--deal",
    "deal_mode",
    type=click.Choice(["seeded", "table"]),
    default="seeded",
    show_default=True,
    help="seeded: the referee shuffles from the seed; table: a paper match, hidden cards unknown until the table reveals them.",
)
@click.option(
    "--game",
    type=click.Choice(registry.games()),
    default=None,
    help=f"The game of the decks (default: {DEFAULT_GAME}); a position names its own. "
    "A game without decks (each fragment: every game but harem-master) starts its matches from a position.",
)
@click.option("--title", type=TITLE, help="A name for the match, e.g. 'Round 3, table 4'.")
@click.option(
    "--id",
    "match_id",
    type=MATCH,
    help="Choose the match id instead of a generated one (up to 64 lowercase letters, digits, '.', '_', '-').",
)
@db_option
@json_option
def new(
    decks: dict[str, str],
    position: str | None,
    origin: str | None,
    fork_at: int | None,
    forked_by: str | None,
    pool: str | None,
    seed: int | None,
    names: dict[str, str],
    mode: str,
    deal_mode: str,
    game: str | None,
    title: str | None,
    match_id: str | None,
    db: str | None,
    as_json: bool,
    **given: Any,
) -> None:
    """Start a stored match from two decks; prints its id.

    The decks are checked against the game's deck rules first (Harem
    Master's 100.2). A Harem Master match then waits at 101.1 for A to
    choose an opening character. With --position, the match starts from a
    scenario's setup instead (its game, mode, rulings and names included).

    With --from MATCH --at N, the match is a what-if fork of a stored
    match: it stands exactly where that match stood just after event N
    (hidden cards still hidden), linked to it (`referee matches` shows
    where it comes from), so another line of play can be tried; the
    original is not changed.

    Examples: referee new --deck A=scenarios/decks/alice.yaml --deck B=scenarios/decks/bob.yaml --name A=Alice --name B=Bob;
    referee new --from m-1a2b3c4d --at 212 --by Kim
    """
    import random

    if origin is not None or fork_at is not None or forked_by is not None:
        _fork(origin, fork_at, forked_by, decks, position, pool, seed, names, given, title, match_id, db, as_json)
        return

    if position is not None:
        if decks or names or pool or seed is not None or any(given.values()):
            flags = [p.opts[0] for p in _start_option_params() if p.name in given and p.multiple]
            raise click.BadParameter(
                f"give decks (with {', '.join(['--pool', '--seed', '--name', *flags])}) "
                "or a position (which has its own), not both",
                param_hint="--position",
            )
        from referee.scenario import load_scenario

        setup = load_scenario(position)  # any registered game's (its ``game:`` key)
        found = registry.game_of(setup.events[0])
        if game is not None and found != game:
            raise click.BadParameter(f"{position} is a position of {found}, not of {game}", param_hint="--game")
        with open_store(db, create=True) as store:
            mid = store.create(setup.events, name=title or setup.name, match_id=match_id)
        links = _player_links(db, mid, registry.get(found).seats)
        if as_json:
            echo_json({"match": mid, **({"links": links} if links else {})})
        else:
            click.echo(mid)
            _say_links(links)
        return
    rules = registry.get(game)
    if rules.decks is None:
        raise click.UsageError(
            f"{rules.name} ({rules.id}) is a fragment of a game and has no decks: "
            f"start its match from a position (--position SCENARIO, a scenario file whose game: is {rules.id}; "
            "its game's page under docs/ describes the position)"
        )
    seats = rules.seats
    if not decks:
        raise click.UsageError(f"give {' and '.join(f'--deck {s}=FILE' for s in seats)}, or --position SCENARIO")
    options = _start_options(rules, given)
    check_seats(seats, decks, rules.id, "--deck")
    check_seats(seats, names, rules.id, "--name")
    if set(decks) != set(seats):
        raise click.BadParameter(f"give one deck for {' and one for '.join(seats)}", param_hint="--deck")
    player_names = {**{s: s for s in seats}, **names}
    built = rules.decks.load_decks(decks, pool)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    if pool:  # a table-dealt match remembers its pool (a card on neither deck list is found there)
        options["pool"] = pool
    applied = rules.start(built, seed=seed, deal=deal_mode, names=player_names, mode=mode, options=options)
    with open_store(db, create=True) as store:
        mid = store.create(applied.events, name=title, match_id=match_id)
    links = _player_links(db, mid, seats)
    if as_json:
        echo_json({"match": mid, "seed": seed, **({"links": links} if links else {})})
        return
    click.echo(mid)
    dealt = "; dealt at the table (reveals are entered as the referee asks)" if deal_mode == "table" else ""
    players = " against ".join(f"{player_names[s]} ({s})" for s in seats)
    click.echo(f"seed {seed}; {players}; {mode} mode{dealt}. Next: referee legal {mid}", err=True)
    _say_links(links)


def _fork(
    origin: str | None,
    at: int | None,
    by: str | None,
    decks: dict[str, str],
    position: str | None,
    pool: str | None,
    seed: int | None,
    names: dict[str, str],
    given: dict[str, Any],
    title: str | None,
    match_id: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """``new --from MATCH --at N``: a what-if fork (``corrections.fork``)."""
    from referee import corrections
    from referee.actions import IllegalAction

    if origin is None or at is None:
        raise click.UsageError("a fork needs both --from MATCH and --at EVENT")
    if decks or position or pool or seed is not None or names or any(given.values()):
        raise click.BadParameter(
            "a fork takes the match's own decks, position and settings: give no --deck, --position, --pool, "
            "--seed, --name or rulings with it",
            param_hint="--from",
        )
    with open_store(db) as store:
        records = store.records(origin)
        if at > len(records):
            raise click.BadParameter(
                f"match {origin} has {len(records)} events: there is no event {at}", param_hint="--at"
            )
        try:
            events = corrections.fork([r.event for r in records], at, records[0].match_id, by)
        except IllegalAction as exc:
            raise click.BadParameter(f"{exc.refusal.reason} ({exc.refusal.rule})", param_hint="--at") from None
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--from") from None
        name = title or f"What-if: {records[0].name or records[0].match_id} from event {at}"
        mid = store.create(events, name=name, match_id=match_id)
        game = store.ruleset(mid)
        state, version = store.load(mid)
    links = _player_links(db, mid, game.seats)
    if as_json:
        echo_json(
            {
                "match": mid,
                "origin": {"match": records[0].match_id, "at": at},
                "version": version,
                **({"links": links} if links else {}),
            }
        )
        return
    click.echo(mid)
    click.echo(
        f"A what-if fork of {records[0].match_id} at event {at} ({version} events); the original is untouched. "
        f"Next: referee legal {mid}",
        err=True,
    )
    _say_links(links)


def _player_links(db: str | None, mid: str, seats: tuple[str, ...]) -> dict[str, str] | None:
    """Each seat's link to its own view on `referee serve` (tokens: see referee.web.tokens)."""
    from referee.store import database_url, parse_url
    from referee.web.tokens import load_key, player_links

    key = load_key(parse_url(database_url(db)).path, create=True)
    return player_links(key, mid, seats) if key else None


def _say_links(links: dict[str, str] | None) -> None:
    if links:
        click.echo(
            "Player links for `referee serve` (give each player only their own; add the server's address):", err=True
        )
        for player, path in links.items():
            click.echo(f"  {player}: {path}", err=True)


# --- act ---------------------------------------------------------------------------

expect_version_option = click.option(
    "--expect-version",
    type=click.IntRange(0),
    default=None,
    metavar="N",
    help='The match\'s event count when this was decided (as `legal --json` shows it as "version"): '
    "if anything was recorded since, nothing is recorded and the command exits 1.",
)

# The arguments the command line gives by an option of their own (``--target``,
# ``--order``, ...), in the order a listed action writes them; one CARD... is
# ``card``/``cards``; every other argument of a game is ``--arg NAME=VALUE``.
OWN_OPTIONS = ("ability", "n", "option", "order")


class ActCommand(click.Command):
    """``act``, whose help lists every game's actions as its ruleset declares
    them (``ActionSpec``: each ``do`` with what it does, its rule and the
    arguments it takes), read only when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        with formatter.section("Actions (DO)"):
            formatter.write_dl([(do, _action_help(spec)) for do, spec in registry.get(DEFAULT_GAME).actions.items()])

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Other games' actions, after the options."""
        super().format_epilog(ctx, formatter)
        for game in registry.games():
            if game == DEFAULT_GAME:
                continue
            other = registry.get(game)
            with formatter.section(f"Actions of {other.name} (a match of {game})"):
                formatter.write_dl([(do, _action_help(spec)) for do, spec in other.actions.items()])


def _action_help(spec: Any) -> str:
    """What an action does, its rule and, from its declaration, how the
    command line gives each of its arguments."""
    args = spec.args or ()
    given = []
    for arg in args:
        how = _how(arg, args)
        given.append(how if arg.required or not how.startswith("--arg") else f"[{how}]")
    words = " ".join(dict.fromkeys(given))
    return f"{spec.help} [{spec.rule}]" + (f"; {words}" if words else "")


def _how(arg: Any, args: Any) -> str:
    """How the command line gives the argument ``arg`` of an action taking ``args``."""
    if arg.name in ("card", "cards"):
        return "CARD..." if any(a.name == "cards" for a in args) else "CARD"
    if arg.name in ("target", "targets"):
        return "--target" + ("..." if arg.name == "targets" else "")
    if arg.name in OWN_OPTIONS:
        return f"--{arg.name}"
    shown = f"{arg.name}={'|'.join(arg.choices)}" if arg.choices else f"{arg.name}={arg.kind.upper()}"
    return f"--arg {shown}"


def action_arguments(
    game: Any,
    do: str,
    cards: tuple[str, ...],
    targets: tuple[str, ...],
    own: dict[str, Any],
    given: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The notation mapping of an action's arguments from the command line,
    checked against its ``ActionSpec.args``: CARD... is its ``card`` (one
    card, unless it takes ``cards`` only) or ``cards``; ``--target`` its
    ``target`` or ``targets``; ``--order``, ``--n``, ``--ability``,
    ``--option`` and every ``--arg NAME=VALUE`` the argument of that name.
    An argument it does not take, a bad value or a missing required one is
    bad input (exit 2), not a refusal."""
    if do not in game.actions:
        raise click.BadParameter(
            f"{do!r} is not an action; expected one of: {', '.join(game.actions)}", param_hint="DO"
        )
    spec = game.actions[do]
    args = {a.name: a for a in spec.args or ()}
    takes = ", ".join(args) or "none"
    out: dict[str, Any] = {}
    if cards:
        one = len(cards) == 1 and ("card" in args or "cards" not in args)
        name = "card" if one and "card" in args else "cards" if "cards" in args else None
        if name is None:
            many = "one card" if "card" in args else "no card"
            raise click.BadParameter(f"{do} takes {many} (its arguments: {takes})", param_hint="CARD")
        out[name] = cards[0] if name == "card" else list(cards)
    if targets:
        if "target" in args:
            if len(targets) > 1:
                raise click.BadParameter(f"{do} takes one target ({args['target'].help})", param_hint="--target")
            out["target"] = targets[0]
        elif "targets" in args:
            out["targets"] = list(targets)
        else:
            raise click.BadParameter(f"{do} takes no target (its arguments: {takes})", param_hint="--target")
    for name, value in own.items():
        if value is None:
            continue
        if name not in args:
            raise click.BadParameter(f"{do} takes no {name} (its arguments: {takes})", param_hint=f"--{name}")
        out[name] = value
    for item in given:
        name, eq, value = item.partition("=")
        arg = args.get(name)
        if not eq or arg is None:
            raise click.BadParameter(
                f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(args) or '(none: ' + do + ' takes none)'}",
                param_hint="--arg",
            )
        if arg.choices and value not in arg.choices:
            raise click.BadParameter(f"{name} is one of {', '.join(arg.choices)}, not {value!r}", param_hint="--arg")
        if arg.kind == "count":
            if not value.isdigit() or not 0 < int(value) <= MAX_CARDS:
                raise click.BadParameter(
                    f"{name} is a whole number from 1 to {MAX_CARDS}, not {value!r}", param_hint="--arg"
                )
            value = int(value)
        elif arg.kind == "flag":
            if value not in ("true", "false"):
                raise click.BadParameter(f"{name} is true or false, not {value!r}", param_hint="--arg")
            value = value == "true"
        if arg.kind in ("cards", "names"):
            out.setdefault(name, []).append(value)
        elif name in out:
            raise click.BadParameter(f"{name} is given once", param_hint="--arg")
        else:
            out[name] = value
    return out


def require(game: Any, data: dict[str, Any]) -> None:
    """A required argument missing from an action's mapping is bad input (exit 2)."""
    spec = game.actions[data["do"]]
    missing = [a for a in spec.args or () if a.required and a.name not in data]
    if missing:
        words = ", ".join(f"{a.name} ({_how(a, spec.args)})" for a in missing)
        raise click.BadParameter(f"{spec.do} needs {words}", param_hint=_how(missing[0], spec.args).split()[0])


@click.command(cls=ActCommand)
@click.argument("match", type=MATCH)
@click.argument("player", type=PLAYER)
@click.argument("do")
@click.argument("cards", nargs=-1, type=CARD)
@click.option(
    "--target",
    "targets",
    type=CARD,
    multiple=True,
    help="The character an item goes on; for play_event and activate, a target (repeat for several, in the order the text names them).",
)
@click.option("--order", type=click.Choice(["first", "second"]), help="For choose_order.")
@click.option("--n", type=click.IntRange(0, MAX_CARDS), help="The n of an [n] cost (503.2).")
@click.option(
    "--ability",
    type=click.IntRange(1, 99),
    help="For activate: which of the card's abilities, counted from 1 (default: its first activated one).",
)
@click.option(
    "--option",
    type=CARD,
    help='For choose: yes or no for a "may" (401.7), or the card whose replacement applies (409.3); also answers a "may" in advance.',
)
@click.option(
    "--pool",
    type=FILE,
    help="A table-dealt match: a card pool file where a card on neither deck list is found (the bundled rules-test pool is searched after it), so that it is refused citing 100.2 or, in record mode, recorded with that violation.",
)
@click.option(
    "--arg",
    "given",
    metavar="NAME=VALUE",
    multiple=True,
    help="Any argument by its name, as the actions below declare them (SCP-TCG's: "
    "--arg to=A.decommissioned); repeat a list's name for each value (--arg cards=X --arg cards=Y).",
)
@expect_version_option
@click.option(
    "--entry",
    metavar="ID",
    help="The submission's id: the board's (its answer names it when the store was too slow to say whether "
    "the entry was recorded), or the one an earlier `act` printed. If that submission is recorded already, "
    "nothing more is (exit 0, a repeat).",
)
@click.option(
    "--as",
    "viewer",
    type=VIEWER,
    default="judge",
    show_default=True,
    help="Whose view of the events printed (hidden cards are not named to players, rule 215).",
)
@db_option
@json_option
def act(
    match: str,
    player: str,
    do: str,
    cards: tuple[str, ...],
    targets: tuple[str, ...],
    order: str | None,
    n: int | None,
    ability: int | None,
    option: str | None,
    pool: str | None,
    given: tuple[str, ...],
    expect_version: int | None,
    entry: str | None,
    viewer: str,
    db: str | None,
    as_json: bool,
) -> None:
    """Apply one player action (refused actions exit 1 with the rule).

    DO is an action of the match's game (listed below, as its rules
    declare them). Cards are named by name, or by id (A:12) where names
    repeat.

    Examples: referee act m-1a2b3c4d A attack "Iron Knight";
    referee act m-1a2b3c4d A activate "Fencing Master" --target "Iron Knight";
    referee act m-1a2b3c4d B choose "Court Lady"; referee act m-1a2b3c4d A choose --option yes
    """
    import secrets

    from referee.actions import IllegalAction
    from referee.store.errors import AlreadyEntered, StaleVersion, StoreError

    with open_store(db) as store:  # opened once: the game is read from it first
        game = store.ruleset(match)
        if player not in game.seats:
            raise click.BadParameter(f"{game.id}'s seats are {', '.join(game.seats)}", param_hint="PLAYER")
        check_viewer(game.viewers, viewer, game.id)
        own = {"order": order, "n": n, "ability": ability, "option": option}
        data = {"player": player, "do": do, **action_arguments(game, do, cards, targets, own, given)}
        require(game, data)
        specs = game.actions[do].args or ()
        # Every card named, by a card of the match or (a reveal) by what the table saw.
        refs = [data[a.name] for a in specs if a.kind in ("card", "name") and a.name in data]
        refs += [c for a in specs if a.kind in ("cards", "names") for c in data.get(a.name, [])]
        now = store.load(match)[0]
        _check_zones(game, now, data, specs)
        unlisted = _check_cards(game, now, refs, match, pool)
        if unlisted:
            data["definitions"] = unlisted
        raw = game.action_from_mapping(data)
        _not_void(store, match, as_json)
        before: list[Any] = []

        def decide(state: Any) -> Any:
            before[:] = [state]  # the last attempt's state is the one written on
            return game.apply(state, game.resolve(state, raw))

        # Every write carries a submission id, so that a write whose outcome
        # was not known (a cut connection) is never entered twice.
        typed = entry is not None
        entry = (entry or "").strip()[:40] or f"cli-{secrets.token_hex(6)}"
        try:
            applied = store.update(match, decide, expected_version=expect_version, entry=entry, check_entry=typed)
        except IllegalAction as exc:
            refused(exc, as_json)
        except AlreadyEntered as exc:
            _repeat(match, exc, as_json)
            return
        except StaleVersion as exc:
            stale(exc, as_json)
        except StoreError as exc:
            raise StoreError(
                f"{exc}; if its outcome is not known, the same command with --entry {entry} "
                "records it only if it was not recorded"
            ) from None
        _written(store, match)
    state = applied.state
    rows = game.log_rows(applied.events, before[0], viewer)
    d = game.decision(state)
    if as_json:
        echo_json(
            {
                "match": match,
                "events": rows,
                "next": d.player if d else None,
                "result": registry.outcome_json(game.result(state)),
                "violations": [v.rule for v in state.violations],
            }
        )
        return
    for row in rows:
        click.echo(_line(row))
    _say_next(game, state)


def _repeat(match: str, exc: Any, as_json: bool) -> None:
    """The submission was recorded already (``--entry``): say where; nothing more is."""
    if as_json:
        echo_json({"match": match, "repeat": {"entry": exc.entry, "position": exc.chosen + 1}})
        return
    click.echo(
        printable(
            f"Already recorded: submission {exc.entry} was recorded at event {exc.chosen + 1} "
            "(this was a repeat); nothing more was recorded."
        )
    )


def _check_zones(game: Any, state: Any, data: dict[str, Any], specs: Any) -> None:
    """A zone named that is no zone of the game is a typo (exit 2), as a
    card's name is: the zones are those its view lists, and the words its
    argument declares beside them (``ArgSpec.also``), which the rules answer."""
    named = [(a, data[a.name]) for a in specs if a.kind == "zone" and a.name in data]
    if not named:
        return
    zones = list(game.view(state, "judge").get("zones") or ())
    for arg, zone in named:
        known = [*zones, *arg.also]
        if zones and zone not in known:
            from referee.inputs import close_to

            close = close_to(str(zone), known)
            hint = f"did you mean {', '.join(repr(z) for z in close)}?" if close else f"the zones: {', '.join(zones)}"
            raise click.BadParameter(f"{arg.name}: no zone {zone!r} in this game; {hint}", param_hint="--arg")


def _check_cards(game: Any, state: Any, refs: list[str], match: str, pool: str | None = None) -> list[Any]:
    """A name that is no card of this match at all is a typo (bad input, exit
    2); a card that exists but cannot be used so is for the rules to refuse.
    A card the ruleset lets an action name beyond the match's own
    (``Decks.unlisted_cards``: Harem Master's table-dealt match, the pool's) goes to
    the rules with its definition, which refuse it citing 100.2 or, in
    record mode, record it with that violation."""
    if not refs:
        return []  # nothing named (and a game may have no cards at all)
    cards = game.cards_of(state)
    names = {cd.name for cd in cards.values()}
    found: list[Any] = []
    extra: Any = None
    for ref in refs:
        if ref in names or ref in cards:
            continue
        known = sorted(names)
        if extra is None:
            extra = game.decks.unlisted_cards(state, pool) if game.decks is not None else {}
        if extra:
            cd = extra.get(ref)
            if cd is not None:
                found.append(cd)
                continue
            known = sorted(set(known) | set(extra))
        close = sorted(n for n in known if n.lower() == ref.lower() or ref.lower() in n.lower())[:3]
        if not close:
            import difflib

            close = difflib.get_close_matches(ref, known, n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        where = " or its pool" if extra else ""
        raise click.BadParameter(f"no card {ref!r} in match {match}{where}{hint}", param_hint="CARD")
    return found


def _line(row: dict[str, Any], *, times: bool = False) -> str:
    """One log line: its position, rule and sentence; ``times``: when it was
    entered; on the first event of each entry, who entered it."""
    cite = row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
    mark = "x" if row.get("retracted") else " "
    when = ""
    if times:
        stamp = row.get("time")
        when = f"{stamp[:10]} {stamp[11:19]}  " if stamp else " " * 21
    line = f"{mark}{row['position']:>5}  {when}{cite:<17} {printable(row['text'])}" + (
        "  (retracted)" if row.get("retracted") else ""
    )
    if row.get("starts"):
        line += "  [" + (printable(f"{row['by']} at the {row['station']}") if row.get("by") else COMMAND_LINE) + "]"
    return line


COMMAND_LINE = "a command-line station"  # who entered an event no board station entered


def _say_next(game: Any, state: Any) -> None:
    """How the game ended, or who must act now in its decision's words
    (citing its rule once), then the open violations."""
    outcome = game.result(state)
    if outcome is not None:
        who = "a draw" if outcome.draw else f"{outcome.winner} wins"
        click.echo(f"Game over: {who} ({outcome.rule}).")
    else:
        d = game.decision(state)
        if d is not None:
            who = d.player if d.player is not None else "the table (any seat)"
            cite = "" if f"({d.rule})" in d.text else f" ({d.rule})"
            click.echo(f"Next: {who} must {d.text}{cite}.")
    for v in state.violations:
        click.echo(f"OPEN VIOLATION ({v.rule}) at event {v.position}: {printable(v.reason)}")


# --- legal -------------------------------------------------------------------------


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--as",
    "viewer",
    type=VIEWER,
    default="judge",
    show_default=True,
    help="Whose view: the actions are listed to the judge and to the player who must act, "
    "each card named as that viewer may know it (rule 215); to anyone else, only who must act.",
)
@db_option
@json_option
def legal(match: str, viewer: str, db: str | None, as_json: bool) -> None:
    """Who must act now, and every legal action.

    Example: referee legal m-1a2b3c4d --json
    """
    with open_store(db, read_only=True) as store:
        game = store.ruleset(match)
        check_viewer(game.viewers, viewer, game.id)
        state, version = store.load(match)
    d = game.decision(state)
    if d is None:  # nobody's decision (the game is over): whatever the rules still list, to the judge
        shown: bool | None = viewer == "judge"
    else:  # the judge and the seat that must act (anyone, when any seat may)
        shown = viewer == "judge" or d.player in (None, viewer)
    actions: list[dict[str, Any]] | None = None
    if shown:
        actions = [game.describe_action(state, a, viewer) for a in game.legal_actions(state)]
    elif d is None:
        actions = []
    cards = game.texts(state, actions=actions or [])  # only names this viewer's actions may show
    if as_json:
        echo_json(
            {
                "player": d.player if d else None,
                "kind": d.kind if d else None,
                **((d.extra or {}) if d else {}),
                "actions": actions,
                "violations": [v.rule for v in state.violations],
                "version": version,
                **({"cards": cards} if cards is not None else {}),
            }
        )
        return
    _say_next(game, state)
    if actions is None:
        click.echo(f"(the legal actions are shown to {d.player if d else 'the player who must act'} and to the judge)")
        return
    lines = game.list_actions(actions)
    groups = game.group_actions(actions) if game.group_actions is not None and len(actions) > 1 else None
    if groups:  # the decision's own moves first, then the rest as the game declares them
        kinds = registry.kind_order(game, d)
        groups = sorted(groups, key=lambda g: kinds.get(g.do, len(kinds)))
    order = [i for g in groups for i in g.indices] if groups else range(len(lines))
    heads = _group_heads(game, groups) if groups else {}
    for n, i in enumerate(order, start=1):
        for head in heads.get(i, ()):
            click.echo(printable(head))
        line, ids = lines[i]
        listed = ids[0] if len(ids) == 1 else f"{len(ids)} copies: {', '.join(ids)}"
        number = f"    {n:>4}." if groups else f"{n:>3}."
        click.echo(printable(f"{number} {line}" + (f"   [{listed}]" if ids and ids[0] else "")))
    _say_card_text(cards or {})


def _group_heads(game: Any, groups: Any) -> dict[int, list[str]]:
    """The headings a grouped legal list prints before an action (by its
    place in the list): the counts by kind first, then each kind with its
    rule and count, each subject (the card or zone the actions name) with
    its count."""
    kinds: dict[str, int] = {}
    for g in groups:
        kinds[g.do] = kinds.get(g.do, 0) + len(g.indices)
    total = sum(kinds.values())
    heads: dict[int, list[str]] = {}
    said: set[str] = set()
    for g in groups:
        first = heads.setdefault(g.indices[0], [])
        if not said:
            counts = ", ".join(f"{do} {n}" for do, n in kinds.items())
            first.append(f"{total} legal actions: {counts} (by kind, then by what each names; --json lists them all)")
        if g.do not in said:
            said.add(g.do)
            spec = game.actions.get(g.do)
            first.append(f"{g.do}" + (f" ({spec.rule})" if spec is not None else "") + f": {kinds[g.do]}")
        if g.subject:
            first.append(f"  {g.subject}: {len(g.indices)}")
    return heads


def _say_card_text(cards: dict[str, dict[str, Any]]) -> None:
    """The text of the named cards that have abilities: what each says and
    how the referee reads it (vanilla cards have nothing to add)."""
    with_text = {n: t for n, t in cards.items() if t.get("abilities")}
    if not with_text:
        return
    click.echo("Card text:")
    for name, t in with_text.items():
        if t.get("text"):
            click.echo(printable(f"  {name}: {t['text']}"))
        for words in t["abilities"]:
            click.echo(printable(f"    referee reads: {words}"))


# --- state and log ---------------------------------------------------------------------


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--at", "at", type=click.IntRange(min=0), help="The state just after this event (see `referee log`); default: now."
)
@click.option(
    "--as",
    "viewer",
    type=VIEWER,
    default="judge",
    show_default=True,
    help="Whose view: the judge sees everything; A, B and the public see what rule 215 lets them.",
)
@db_option
@json_option
def state(match: str, at: int | None, viewer: str, db: str | None, as_json: bool) -> None:
    """The zones, the field and the result, now or after any event.

    Example: referee state m-1a2b3c4d --at 120 --as A
    """
    with open_store(db, read_only=True) as store:
        game = store.ruleset(match)
        check_viewer(game.viewers, viewer, game.id)
        if at is None:
            current, _ = store.load(match)
        else:
            current = store.state_at(match, at)
    seen = {**game.view(current, viewer), "match": match}
    if as_json:
        cards = game.texts(current, view=seen)
        echo_json({**seen, **({"cards": cards} if cards is not None else {})})
        return
    for line in game.render_view(seen).splitlines():  # each line escaped, as stored text may be old
        click.echo(printable(line))
    if at is None:
        _say_next(game, current)


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--as",
    "viewer",
    type=VIEWER,
    default="judge",
    show_default=True,
    help="Whose view of the log (hidden cards are not named to players).",
)
@click.option("--from", "start", type=click.IntRange(min=1), default=1, help="First event to show.")
@click.option("--times", is_flag=True, help="Show when each event was entered (the store's clock, UTC).")
@click.option(
    "--slow",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Instead of the log: each player's decisions that took longer than SECONDS (slow-play review, IPG 3.3).",
)
@db_option
@json_option
def log(match: str, viewer: str, start: int, times: bool, slow: float | None, db: str | None, as_json: bool) -> None:
    """The event log: one numbered line per event, citing its rule.

    Events a rewind retracted are marked with an x. Each entry says who
    entered it: at the board (a judge, a scorekeeper, a player) or at a
    command-line station. --times adds when each event was entered;
    --slow SECONDS lists, per player, the decisions that took longer.

    Examples: referee log m-1a2b3c4d --from 100 --times; referee log m-1a2b3c4d --slow 120
    """
    from projections import entries
    from projections.lineage import retracted_positions

    with open_store(db, read_only=True) as store:
        game = store.ruleset(match)
        check_viewer(game.viewers, viewer, game.id)
        records = store.records(match)
    events = [r.event for r in records]
    if slow is not None:
        _say_slow(game, match, records, events, slow, viewer, as_json)
        return
    rows = game.log_rows(events, game.initial_state(), viewer, retracted_positions(events))
    rows = entries.with_columns([r for r in rows if r["position"] >= start], records)
    if as_json:
        for row in rows:
            row.pop("starts", None)
        echo_json({"match": match, "events": rows})
        return
    for row in rows:
        click.echo(_line(row, times=times))


def _say_slow(
    game: Any, match: str, records: list[Any], events: list[Any], slow: float, viewer: str, as_json: bool
) -> None:
    """``log --slow``: each seat's decisions over ``slow`` seconds, with the
    sentence of each (as ``viewer`` may read it) and who entered it."""
    from projections import entries
    from projections.lineage import retracted_positions

    found = entries.slow_decisions(records, slow, game.seats)
    wanted = {d["position"] for seat in found.values() for d in seat["slow"]}
    rows = {
        r["position"]: r
        for r in game.log_rows(events, game.initial_state(), viewer, retracted_positions(events))
        if r["position"] in wanted
    }
    report = {
        seat: {
            "decisions": found[seat]["decisions"],
            "total_seconds": round(found[seat]["total_seconds"], 3),
            "longest_seconds": round(found[seat]["longest"], 3),
            "slow": [
                {
                    "position": d["position"],
                    "seconds": round(d["seconds"], 3),
                    "time": d["record"].timestamp.isoformat(),
                    "by": d["record"].by,
                    "station": entries.station(d["record"]),
                    "rule": rows[d["position"]]["rule"],
                    "text": rows[d["position"]]["text"],
                    "retracted": rows[d["position"]]["retracted"],
                }
                for d in found[seat]["slow"]
            ],
        }
        for seat in game.seats
    }
    if as_json:
        echo_json({"match": match, "threshold_seconds": slow, "players": report})
        return
    names = dict(getattr(game.initial_state(), "names", {}) or {})
    if events:
        names = dict(getattr(game.fold(events[:1]), "names", {}) or {})
    click.echo(f"Decisions that took longer than {slow:g} s (slow play, IPG 3.3), from the entry before each one:")
    for seat in game.seats:
        mine = report[seat]
        label = seat + (f" ({names[seat]})" if names.get(seat, seat) != seat else "")
        slow_ones = mine["slow"]
        click.echo(
            printable(
                f"{label}: {len(slow_ones)} of {mine['decisions']} decisions; "
                f"longest {entries.duration(mine['longest_seconds'])}, "
                f"all together {entries.duration(mine['total_seconds'])}"
            )
        )
        for d in slow_ones:
            mark = "x" if d["retracted"] else " "
            click.echo(
                printable(
                    f"{mark}{d['position']:>5}  {entries.duration(d['seconds']):>7}  {d['rule']:<8} {d['text']}"
                    f"  [{d['time'][11:19]} UTC, {d['by'] or COMMAND_LINE}]"
                )
            )


@click.command("matches")
@db_option
@json_option
def matches_(db: str | None, as_json: bool) -> None:
    """List the stored matches.

    Example: referee matches --db postgresql://judge:secret@10.0.0.5:5432/tournament
    """
    with open_store(db, read_only=True) as store:
        found = store.list_matches()
    if as_json:
        echo_json(
            {
                "matches": [
                    {
                        "id": m.id,
                        "name": m.name,
                        "created": m.created.isoformat(),
                        "players": m.players,
                        "mode": m.mode,
                        "seed": m.seed,
                        "game": m.game,
                        "origin": {"match": m.origin[0], "at": m.origin[1]} if m.origin else None,
                    }
                    for m in found
                ]
            }
        )
        return
    for m in found:
        players = " v ".join(m.players.get(s, s) for s in _seats(m.game, m.players))
        line = f"{m.id}  {m.created:%Y-%m-%d %H:%M}  {players}  {m.mode}"
        line += (f"  {m.game}" if m.game != DEFAULT_GAME else "") + (f"  {m.name}" if m.name else "")
        if m.origin:
            line += f"  (forked from {m.origin[0]} at event {m.origin[1]})"
        click.echo(printable(line))  # names from a store written before they were checked


def _seats(game: str, players: Mapping[str, str]) -> tuple[str, ...]:
    """A game's seats; for a game this referee does not know, those its match names."""
    try:
        return registry.get(game).seats
    except registry.UnknownGame:
        return tuple(players)


# --- the judge's commands ----------------------------------------------------------------


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--to",
    "to",
    type=click.IntRange(min=1),
    required=True,
    help="Go back to just after this event (see `referee log`).",
)
@click.option(
    "--rule",
    required=True,
    metavar="RULE",
    help="The rule the correction cites, one of its game's: Harem Master 410.1 (an action that was impossible) "
    "or 410.2 (a forgotten mandatory step); SCP-TCG chapter 4: 4 (ruling:S13).",
)
@click.option("--reason", type=REASON, required=True, help="Why, for the log.")
@click.option("--by", "judge", type=JUDGE, help="The judge's name, for the log.")
@click.option("--dry-run", is_flag=True, help="Only report what the rewind would undo.")
@click.option(
    "--replay",
    is_flag=True,
    help="After the rewind, apply again the player actions that followed, stopping at the first one no longer allowed.",
)
@click.option(
    "--replay-after",
    "replay_after",
    is_flag=True,
    help="Replay, leaving out the first action that followed (the one the rewind undoes): "
    "rewound to just before action K, the replay starts at K+1.",
)
@expect_version_option
@db_option
@json_option
def rewind(
    match: str,
    to: int,
    rule: str,
    reason: str,
    judge: str | None,
    dry_run: bool,
    replay: bool,
    replay_after: bool,
    expect_version: int | None,
    db: str | None,
    as_json: bool,
) -> None:
    """A judge's correction (rule 410): go back to just after an event.

    Nothing is erased: a Rewound event restores the earlier state and the
    events it undoes stay in the log, marked retracted. --dry-run lists the
    events it would undo, most recent first, flagging those that revealed
    hidden information (a turned card, cards into a hand, a shuffle).

    --replay applies again the player actions that followed the event;
    --replay-after all of them but the first, the action at fault (rewound
    to just before it, play goes on with what came after it).

    Example: referee rewind m-1a2b3c4d --to 212 --rule 410.1 --reason "second character this turn" --dry-run
    """
    from referee import corrections
    from referee.actions import IllegalAction

    with open_store(db, read_only=dry_run) as store:
        rules = corrections.rewinds_of(store.ruleset(match)).rules
        if rule not in rules:
            raise click.BadParameter(f"{rule!r} is not one of {', '.join(map(repr, rules))}.", param_hint="'--rule'")
        if dry_run:
            log_ = store.events(match)
            try:
                states = corrections.states_along(log_)
                rows = corrections.impact(log_, to, states)
                back = corrections.brought_back(log_, to, states)
            except IllegalAction as exc:
                refused(exc, as_json)
            if as_json:
                echo_json(
                    {
                        "match": match,
                        "to": to,
                        "rule": rule,
                        "undo": rows,
                        "restore": back,
                        "reveals": any(r["reveals"] for r in rows),
                    }
                )
                return
            click.echo(f"Rewinding to just after event {to} would undo {len(rows)} events (most recent first):")
            for r in rows:
                flag = f"  REVEALED: {r['revealed']}" if r["reveals"] else ""
                click.echo(printable(f"{r['position']:>6}  {r['rule']:<8} {r['text']}{flag}"))
            if back:
                click.echo(
                    f"It would bring back {len(back)} events an earlier rewind retracted "
                    f"(events {back[0]['position']} to {back[-1]['position']})."
                )
            hidden = sum(r["reveals"] for r in rows)
            click.echo(
                f"{hidden} of them revealed hidden information."
                if hidden
                else "None of them revealed hidden information."
            )
            return
        from referee.store.errors import StaleVersion

        try:
            done = store.update(
                match,
                lambda s: corrections.rewind(
                    s,
                    store.events(match),
                    to,
                    rule=rule,
                    reason=reason,
                    judge=judge,
                    replay=replay or replay_after,
                    after=replay_after,
                ),
                expected_version=expect_version,
            )
        except IllegalAction as exc:
            refused(exc, as_json)
        except StaleVersion as exc:
            stale(exc, as_json)
        state, _ = store.load(match)
        game = store.ruleset(match)
        _written(store, match)
    report = done.replay.to_json() if done.replay else None
    if as_json:
        echo_json(
            {
                "match": match,
                "to": to,
                "rule": rule,
                "undone": len(done.undone),
                "replay": report,
                "event": state.position,
            }
        )
        return
    n = len(done.undone)
    click.echo(f"Rewound to just after event {to} ({rule}); {n} event{'s' if n != 1 else ''} retracted.")
    if report is not None:
        line = f"Replayed {report['replayed']} of {report['attempted']} actions"
        if report["stopped_at"]:
            s = report["stopped_at"]
            line += f"; stopped at {s['action']['player']} {s['action']['do']}: refused ({s['rule']}): {s['message']}"
        click.echo(line + ".")
    _say_next(game, state)


def _judge_update(
    match: str,
    db: str | None,
    as_json: bool,
    decide: Callable[[Any, list], Any],
    expect_version: int | None = None,
    check: Callable[[Any], None] | None = None,
) -> None:
    """A judge's entry through the match's ruleset: ``check`` (bad input,
    exit 2) sees the game first; a refusal exits 1 citing its rule."""
    from referee.actions import IllegalAction
    from referee.store.errors import StaleVersion

    before: list[Any] = []

    def decided(state: Any) -> Any:
        before[:] = [state]  # the last attempt's state is the one written on
        return decide(state, store.events(match))

    with open_store(db) as store:
        if check is not None:
            check(store.ruleset(match))
        try:
            done = store.update(match, decided, expected_version=expect_version)
        except IllegalAction as exc:
            refused(exc, as_json)
        except StaleVersion as exc:
            stale(exc, as_json)
        state, _ = store.load(match)
        game = store.ruleset(match)
        _written(store, match)
    if as_json:
        echo_json({"match": match, "event": state.position, "violations": [v.rule for v in state.violations]})
        return
    for row in game.log_rows(done.events, before[0], "judge"):
        click.echo(_line(row))
    _say_next(game, state)


@click.command()
@click.argument("match", type=MATCH)
@click.argument("text", type=NOTE)
@click.option("--by", "judge", type=JUDGE, help="The judge's name.")
@expect_version_option
@db_option
@json_option
def note(match: str, text: str, judge: str | None, expect_version: int | None, db: str | None, as_json: bool) -> None:
    """Add a judge's note to the log (it changes nothing on the table).

    Example: referee note m-1a2b3c4d "Player B called a judge about the stack count" --by Kim
    """
    from referee import corrections

    _judge_update(match, db, as_json, lambda s, log: corrections.note(s, text, judge), expect_version)


@click.command()
@click.argument("match", type=MATCH)
@click.option("--reason", type=REASON, required=True, help="Why the violations stand.")
@click.option("--by", "judge", type=JUDGE, help="The judge's name.")
@click.option(
    "--at",
    type=click.IntRange(1, 10**9),
    default=None,
    metavar="EVENT",
    help="Only the violation recorded at this event (as `referee state` lists them); default: every open one.",
)
@expect_version_option
@db_option
@json_option
def accept(
    match: str,
    reason: str,
    judge: str | None,
    at: int | None,
    expect_version: int | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Leave open violations standing (the game is too far along to rewind).

    Example: referee accept m-1a2b3c4d --reason "noticed three turns later" --by Kim --at 63
    """
    from referee import corrections

    _judge_update(match, db, as_json, lambda s, log: corrections.accept(s, reason, judge, at=at), expect_version)


@click.command("skip-step")
@click.argument("match", type=MATCH)
@click.argument("rule", metavar="RULE")
@click.option("--reason", type=REASON, default="", help="What happened at the table.")
@expect_version_option
@db_option
@json_option
def skip_step(match: str, rule: str, reason: str, expect_version: int | None, db: str | None, as_json: bool) -> None:
    """Record mode: the table skipped a mandatory step (an open violation).

    RULE is a step the game's corrections let a table skip (Harem Master:
    301, 302, 303, 309, 214.2e). Record it when it happens, before the next
    action; a judge later rewinds to the step (410.2) or accepts it.

    Example: referee skip-step m-1a2b3c4d 303 --reason "B forgot to fill the stack"
    """
    from referee import corrections

    def check(game: Any) -> None:
        skippable = corrections.rewinds_of(game).skippable
        if skippable and rule not in skippable:  # a game with none refuses, citing its rule
            raise click.BadParameter(f"{rule!r} is not one of {', '.join(map(repr, skippable))}.", param_hint="'RULE'")

    _judge_update(match, db, as_json, lambda s, log: corrections.skip_step(s, log, rule, reason), expect_version, check)
