"""Stored matches from the command line: new, act, legal, state, log, matches,
and the judge's commands rewind, note, accept, skip-step.

Every command opens the store named by ``--db`` (else ``REFEREE_DB``, else
``sqlite:///referee.db`` in the current directory), does one thing, and
prints for people or, with ``--json``, one JSON document in the shape of
``docs/cli.md``. A refused action exits 1 citing its rule; bad input
and store problems exit 2 with one line.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Callable

import click

from referee.commands.params import (
    CARD,
    DECK,
    FILE,
    JUDGE,
    MATCH,
    NAME,
    NOTE,
    REASON,
    RULING,
    SEED,
    TITLE,
    db_option,
    json_option,
    once_each,
)
from referee.inputs import MAX_CARDS, printable
from referee.ruleset import DEFAULT_GAME

if TYPE_CHECKING:
    from projections.harem_master.state import GameState

VIEWERS = ("judge", "A", "B", "public")


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


@click.command()
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
    "--ruling",
    "rulings",
    type=RULING,
    multiple=True,
    callback=once_each,
    help="A selectable ruling: A1=not_fallen|felled, A4=bottom|top.",
)
@click.option("--no-auto-pass", is_flag=True, help="The non-active player must pass every window explicitly.")
@click.option(
    "--deal",
    "deal_mode",
    type=click.Choice(["seeded", "table"]),
    default="seeded",
    show_default=True,
    help="seeded: the referee shuffles from the seed; table: a paper match, hidden cards unknown until the table reveals them.",
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
    pool: str | None,
    seed: int | None,
    names: dict[str, str],
    mode: str,
    rulings: dict[str, str],
    no_auto_pass: bool,
    deal_mode: str,
    title: str | None,
    match_id: str | None,
    db: str | None,
    as_json: bool,
) -> None:
    """Start a stored match from two decks; prints its id.

    The decks are checked against 100.2 first. The match then waits at 101.1
    for A to choose an opening character. With --position, the match starts
    from a scenario's setup instead (its mode, rulings and names included).

    Example: referee new --deck A=scenarios/decks/alice.yaml --deck B=scenarios/decks/bob.yaml --name A=Alice --name B=Bob
    """
    import random

    if position is not None:
        if decks or names or rulings or pool or seed is not None:
            raise click.BadParameter(
                "give decks (with --pool, --seed, --name, --ruling) or a position (which has its own), not both",
                param_hint="--position",
            )
        from referee.scenario import load_scenario

        setup = load_scenario(position)  # any registered game's (its ``game:`` key)
        with open_store(db, create=True) as store:
            mid = store.create(setup.events, name=title or setup.name, match_id=match_id)
        links = _player_links(db, mid)
        if as_json:
            echo_json({"match": mid, **({"links": links} if links else {})})
        else:
            click.echo(mid)
            _say_links(links)
        return
    if not decks:
        raise click.UsageError("give --deck A=FILE and --deck B=FILE, or --position SCENARIO")

    from referee.rules import start
    from referee.rules.harem_master.decks import deal, load_deck
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool

    if set(decks) != {"A", "B"}:
        raise click.BadParameter("give one deck for A and one for B", param_hint="--deck")
    player_names = {"A": "A", "B": "B", **names}
    pools = [load_pool(pool)] if pool else []
    catalog = CardCatalog(*pools, bundled_pool())
    built = {p: load_deck(decks[p], catalog) for p in ("A", "B")}
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    cards, castles = deal(built)
    applied = start(
        cards,
        castles,
        seed=seed,
        names=player_names,
        mode=mode,
        rulings=rulings,
        auto_pass=not no_auto_pass,
        deal=deal_mode,
    )
    with open_store(db, create=True) as store:
        mid = store.create(applied.events, name=title, match_id=match_id)
    links = _player_links(db, mid)
    if as_json:
        echo_json({"match": mid, "seed": seed, **({"links": links} if links else {})})
        return
    click.echo(mid)
    dealt = "; dealt at the table (reveals are entered as the referee asks)" if deal_mode == "table" else ""
    click.echo(
        f"seed {seed}; {player_names['A']} (A) against {player_names['B']} (B); {mode} mode{dealt}. "
        f"Next: referee legal {mid}",
        err=True,
    )
    _say_links(links)


def _player_links(db: str | None, mid: str) -> dict[str, str] | None:
    """Each player's link to their own view on `referee serve` (tokens: see referee.web.tokens)."""
    from referee.store import database_url, parse_url
    from referee.web.tokens import load_key, player_links

    key = load_key(parse_url(database_url(db)).path, create=True)
    return player_links(key, mid) if key else None


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


class ActCommand(click.Command):
    """``act``, whose help lists the actions as the rules declare them (``referee.rules.ACTIONS``:
    each ``do`` with what it does and the arguments it takes), read only when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from referee.rules import ACTIONS

        with formatter.section("Actions (DO)"):
            formatter.write_dl([(do, _action_help(kind)) for do, kind in ACTIONS.items()])

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Other games' actions, after the options (which are Harem Master's but for --arg)."""
        super().format_epilog(ctx, formatter)
        from referee import ruleset as registry

        for game in registry.games():
            if game == DEFAULT_GAME:
                continue
            other = registry.get(game)
            with formatter.section(f"Actions of {other.name} (a match of {game}; arguments by --arg NAME=VALUE)"):
                formatter.write_dl([(do, _spec_help(spec)) for do, spec in other.actions.items()])


def _action_help(kind: Any) -> str:
    """What an action does and, from its declaration, how the command line gives its arguments."""
    given = []
    for arg in kind.args:
        if arg.name in ("card", "cards"):
            given.append("CARD..." if kind.takes("cards") else "CARD")
        elif arg.name in ("target", "targets"):
            given.append("--target" + ("..." if arg.name == "targets" else ""))
        else:
            given.append(f"--{arg.name}")
    words = " ".join(dict.fromkeys(given))
    return f"{kind.help} [{kind.rule}]" + (f"; {words}" if words else "")


def action_arguments(do: str, cards: tuple[str, ...], targets: tuple[str, ...]) -> dict[str, Any]:
    """The ``card``/``cards`` and ``target``/``targets`` of an action from the
    command line's CARD... and ``--target``, as its declaration takes them:
    one CARD is its ``card`` unless it takes ``cards`` only; a ``target`` is
    one card."""
    from referee.rules import ACTIONS

    kind = ACTIONS[do]
    card = cards[0] if len(cards) == 1 and (kind.takes("card") or not kind.takes("cards")) else None
    out: dict[str, Any] = {"card": card, "cards": tuple(cards) if cards and card is None else None}
    if kind.takes("target"):
        if len(targets) > 1:
            raise click.BadParameter(f"{do} takes one target (an item goes on one character)", param_hint="--target")
        out["target"] = targets[0] if targets else None
    else:
        out["targets"] = tuple(targets) if targets else None
    return out


@click.command(cls=ActCommand)
@click.argument("match", type=MATCH)
@click.argument("player", type=click.Choice(["A", "B"]))
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
    help="Another game's argument, as its actions declare them (listed below for SCP-TCG): "
    "--arg to=A.decommissioned; repeat a list's name for each value (--arg cards=X --arg cards=Y).",
)
@expect_version_option
@click.option(
    "--as",
    "viewer",
    type=click.Choice(VIEWERS),
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
    viewer: str,
    db: str | None,
    as_json: bool,
) -> None:
    """Apply one player action (refused actions exit 1 with the rule).

    DO is an action of the scenario notation (listed below, as the rules
    declare them). Cards are named by name, or by id (A:12) where names
    repeat.

    Examples: referee act m-1a2b3c4d A attack "Iron Knight";
    referee act m-1a2b3c4d A activate "Fencing Master" --target "Iron Knight";
    referee act m-1a2b3c4d B choose "Court Lady"; referee act m-1a2b3c4d A choose --option yes
    """
    from referee.store.errors import StaleVersion

    with open_store(db) as store:  # opened once: the game is read from it first
        game = store.ruleset(match)
        if game.id != DEFAULT_GAME:
            extra = {"target": targets, "order": order, "n": n, "ability": ability, "option": option, "pool": pool}
            _act_other(store, game, match, player, do, cards, given, extra, expect_version, viewer, as_json)
            return
        if given:
            raise click.BadParameter("Harem Master's actions take CARD... and the options above", param_hint="--arg")
        from projections.harem_master.transcript import rows_for
        from projections.harem_master.views import result_json
        from referee.actions import Action, IllegalAction
        from referee.rules import ACTIONS, current_decision

        if do not in ACTIONS:
            raise click.BadParameter(f"{do!r} is not an action; expected one of: {', '.join(ACTIONS)}", param_hint="DO")
        raw = Action(
            player, do, **action_arguments(do, cards, targets), order=order, n=n, ability=ability, option=option
        )
        before: list[GameState] = []

        def decide(state: GameState) -> Any:
            before[:] = [state]  # the last attempt's state is the one written on
            return _apply(state, raw)

        unlisted = _check_cards(store.load(match)[0], [*cards, *targets], match, pool)
        if unlisted:
            from dataclasses import replace

            raw = replace(raw, definitions=unlisted)
        try:
            applied = store.update(match, decide, expected_version=expect_version)
        except IllegalAction as exc:
            refused(exc, as_json)
        except StaleVersion as exc:
            stale(exc, as_json)
        _written(store, match)
    state = applied.state
    rows = rows_for(applied.events, before[0], viewer)
    d = current_decision(state)
    if as_json:
        echo_json(
            {
                "match": match,
                "events": rows,
                "next": d.player if d else None,
                "result": result_json(state),
                "violations": [v.rule for v in state.violations],
            }
        )
        return
    for row in rows:
        click.echo(_line(row))
    _say_next(state)


def _spec_help(spec: Any) -> str:
    """An action of another game as its ``ActionSpec`` declares it: what it
    does, its rule, and each argument (one CARD may stand for ``card``)."""
    words = []
    for arg in spec.args or ():
        shown = f"{arg.name}={'|'.join(arg.choices)}" if arg.choices else f"{arg.name}={arg.kind.upper()}"
        words.append(shown if arg.required else f"[{shown}]")
    return f"{spec.help} [{spec.rule}]" + (f"; {' '.join(words)}" if words else "")


def other_arguments(
    game: Any, do: str, cards: tuple[str, ...], given: tuple[str, ...], extra: dict[str, Any]
) -> dict[str, Any]:
    """The notation mapping of another game's action from the command line,
    checked against its ``ActionSpec.args``: an unknown name, a bad value or
    a missing required argument is bad input (exit 2), not a refusal."""
    if do not in game.actions:
        raise click.BadParameter(
            f"{do!r} is not an action of {game.id}; expected one of: {', '.join(game.actions)}", param_hint="DO"
        )
    for name, value in extra.items():
        if value not in (None, ()):
            raise click.BadParameter(f"{game.id} actions take --arg NAME=VALUE", param_hint=f"--{name}")
    spec = game.actions[do]
    args = {a.name: a for a in spec.args or ()}
    out: dict[str, Any] = {}
    if cards:
        name = "card" if len(cards) == 1 and "card" in args else "cards" if "cards" in args else None
        if name is None:
            raise click.BadParameter(f"{do} takes no card (its arguments: {', '.join(args) or 'none'})", "CARD")
        out[name] = cards[0] if name == "card" else list(cards)
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
                raise click.BadParameter(f"{name} is a whole number from 1 to {MAX_CARDS}, not {value!r}", "--arg")
            out[name] = int(value)
        elif arg.kind == "flag":
            if value not in ("true", "false"):
                raise click.BadParameter(f"{name} is true or false, not {value!r}", param_hint="--arg")
            out[name] = value == "true"
        elif arg.kind in ("cards", "names"):
            out.setdefault(name, []).append(value)
        elif name in out:
            raise click.BadParameter(f"{name} is given once", param_hint="--arg")
        else:
            out[name] = value
    missing = [a.name for a in spec.args or () if a.required and a.name not in out]
    if missing:
        raise click.BadParameter(f"{do} needs {', '.join(missing)} (--arg {missing[0]}=...)", param_hint="--arg")
    return out


def _act_other(
    store: Any,
    game: Any,
    match: str,
    player: str,
    do: str,
    cards: tuple[str, ...],
    given: tuple[str, ...],
    extra: dict[str, Any],
    expect_version: int | None,
    viewer: str,
    as_json: bool,
) -> None:
    """``act`` for a game other than Harem Master, wholly through its ruleset."""
    from referee.actions import IllegalAction
    from referee.store.errors import StaleVersion

    if player not in game.seats:
        raise click.BadParameter(f"{game.id}'s seats are {', '.join(game.seats)}", param_hint="PLAYER")
    data = {"player": player, "do": do, **other_arguments(game, do, cards, given, extra)}
    specs = game.actions[do].args or ()
    refs = [data[a.name] for a in specs if a.kind == "card" and a.name in data]
    refs += [c for a in specs if a.kind == "cards" for c in data.get(a.name, [])]
    raw = game.action_from_mapping(data)
    before: list[Any] = []

    def decide(state: Any) -> Any:
        before[:] = [state]
        return game.apply(state, game.resolve(state, raw))

    _known_cards(store.load(match)[0], refs, match)
    try:
        applied = store.update(match, decide, expected_version=expect_version)
    except IllegalAction as exc:
        refused(exc, as_json)
    except StaleVersion as exc:
        stale(exc, as_json)
    _written(store, match)
    rows = _other_rows(game, applied.events, before[0], viewer)
    d = game.decision(applied.state)
    if as_json:
        echo_json({"match": match, "events": rows, "next": d.player if d else None, "result": None, "violations": []})
        return
    for row in rows:
        click.echo(_line(row))
    _say_next_other(game, applied.state)


def _known_cards(state: Any, refs: list[str], match: str) -> None:
    """A card named that is no card of the match is a typo: exit 2."""
    names = {cd.name for cd in state.cards.values()}
    for ref in refs:
        if ref not in names and ref not in state.cards:
            import difflib

            close = difflib.get_close_matches(ref, sorted(names), n=3)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise click.BadParameter(f"no card {ref!r} in match {match}{hint}", param_hint="CARD")


def _other_rows(
    game: Any, events: list[Any], state: Any, viewer: str, retracted: set[int] | frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """Log rows of another game's events from ``state`` on, each in the
    ruleset's sentence as ``viewer`` may know it."""
    rows = []
    for event in events:
        pos = state.position + 1
        rows.append(
            {
                "position": pos,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": getattr(event, "ruling", None),
                "text": game.describe(event, state, viewer),
                "retracted": pos in retracted,
            }
        )
        state = game.evolve(state, event)
    return rows


def _say_next_other(game: Any, state: Any) -> None:
    """Who must act now in another game, in its own decision's words."""
    d = game.decision(state)
    if d is not None:
        who = d.player if d.player is not None else "the table (any seat)"
        click.echo(f"Next: {who} must {d.text} ({d.rule}).")


def _check_cards(state: GameState, refs: list[str], match: str, pool: str | None = None) -> tuple[Any, ...]:
    """A name that is no card of this match at all is a typo (bad input, exit
    2); a card that exists but cannot be used so is for the rules to refuse.
    In a table-dealt match a name that is on neither deck list but in the
    pool (``--pool``, then the bundled one) is a deck-list problem at the
    table: its definition goes to the rules, which refuse it citing 100.2
    or, in record mode, record it with that violation."""
    from referee.rules.harem_master.notation import INSTANCE_ID

    names = {cd.name for cd in state.cards.values()}
    found: list[Any] = []
    catalog = None
    for ref in refs:
        if ref in names or (INSTANCE_ID.match(ref) and ref in state.cards):
            continue
        known = sorted(names)
        if state.deal == "table":
            from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool

            if catalog is None:
                catalog = CardCatalog(*([load_pool(pool)] if pool else []), bundled_pool())
            cd = catalog.get(ref)
            if cd is not None:
                found.append(cd)
                continue
            known = sorted(set(known) | set(catalog.names()))
        close = sorted(n for n in known if n.lower() == ref.lower() or ref.lower() in n.lower())[:3]
        if not close:
            import difflib

            close = difflib.get_close_matches(ref, known, n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        where = " or its pool" if state.deal == "table" else ""
        raise click.BadParameter(f"no card {ref!r} in match {match}{where}{hint}", param_hint="CARD")
    return tuple(found)


def _apply(state: GameState, raw: Any) -> Any:
    from referee.rules import apply
    from referee.rules.harem_master.notation import resolve

    return apply(state, resolve(state, raw))


def _line(row: dict[str, Any]) -> str:
    cite = row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
    mark = "x" if row.get("retracted") else " "
    return f"{mark}{row['position']:>5}  {cite:<17} {printable(row['text'])}" + (
        "  (retracted)" if row.get("retracted") else ""
    )


def _say_next(state: GameState) -> None:
    from referee.rules import KINDS, current_decision

    if state.result is not None:
        r = state.result
        who = "a draw" if r.draw else f"{r.winner} wins"
        click.echo(f"Game over: {who} ({r.rule}).")
    else:
        d = current_decision(state)
        if d is not None:
            from referee.rules.harem_master.hidden import pending

            found = pending(state) if d.kind == "reveal" else None
            why = f": {found.why}" if found is not None else ""
            click.echo(f"Next: {d.player} must {KINDS[d.kind].text}{why}.")
    for v in state.violations:
        click.echo(f"OPEN VIOLATION ({v.rule}) at event {v.position}: {printable(v.reason)}")


# --- legal -------------------------------------------------------------------------


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--as",
    "viewer",
    type=click.Choice(VIEWERS),
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
        state, version = store.load(match)
        game = store.ruleset(match)
    if game.id != DEFAULT_GAME:
        _legal_other(game, state, version, viewer, as_json)
        return
    from referee.rules import legal_actions
    from referee.rules.harem_master.notation import describe_action
    from referee.rules.harem_master.views import action_names, card_texts, decision_view

    d = decision_view(state, viewer)
    if d is not None:
        actions = d["actions"]
    else:  # nobody's decision (the game is over): whatever the rules still list
        actions = [describe_action(state, a, viewer) for a in legal_actions(state)] if viewer == "judge" else []
    cards = card_texts(state, action_names(actions or []))  # only names this viewer's actions may show
    if as_json:
        reveal = {"reveal": d["reveal"]} if d is not None and "reveal" in d else {}
        echo_json(
            {
                "player": d["player"] if d else None,
                "kind": d["kind"] if d else None,
                **reveal,
                "actions": actions,
                "violations": [v.rule for v in state.violations],
                "version": version,
                "cards": cards,
            }
        )
        return
    _say_next(state)
    if actions is None:
        click.echo(
            f"(the legal actions are shown to {d['player'] if d else 'the player who must act'} and to the judge)"
        )
        return
    for i, (line, ids) in enumerate(_grouped(actions), start=1):
        shown = ids[0] if len(ids) == 1 else f"{len(ids)} copies: {', '.join(ids)}"
        click.echo(f"{i:>3}. {line}" + (f"   [{shown}]" if ids and ids[0] else ""))
    _say_card_text(cards)


def _legal_other(game: Any, state: Any, version: int, viewer: str, as_json: bool) -> None:
    """``legal`` for another game: its decision and its legal actions, listed
    to the judge and to the seat that must act (to anyone when any seat may)."""
    d = game.decision(state)
    shown = viewer == "judge" or d is None or d.player in (None, viewer)
    actions = [game.describe_action(state, a) for a in game.legal_actions(state)] if shown else None
    if as_json:
        echo_json(
            {
                "player": d.player if d else None,
                "kind": d.kind if d else None,
                "rule": d.rule if d else None,
                "actions": actions,
                "violations": [],
                "version": version,
            }
        )
        return
    _say_next_other(game, state)
    if actions is None:
        click.echo(f"(the legal actions are shown to {d.player if d else 'the player who must act'} and to the judge)")
        return
    for i, a in enumerate(actions, start=1):
        words = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
            + (
                f" [{','.join(map(str, a[k + '_ids'])) if k + '_ids' in a else a.get(k + '_id', '')}]"
                if k + "_id" in a or k + "_ids" in a
                else ""
            )
            for k, v in a.items()
            if k not in ("player", "do") and not k.endswith(("_id", "_ids"))
        )
        click.echo(printable(f"{i:>3}. {a['player']} {a['do']} {words}".rstrip()))


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


def _grouped(actions: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Actions as people type them, one line per distinct action: copies of
    the same card are one line listing their ids."""
    from referee.rules import ACTIONS
    from referee.rules.harem_master.notation import action_line

    lines: dict[str, list[str]] = {}
    for a in actions:
        ids = lines.setdefault(action_line(a), [])
        if ACTIONS[a["do"]].names_cards:
            continue  # a reveal: a name the deck list has left, not yet any one card
        if a.get("card_id"):
            ids.append(a["card_id"] + (f" on {a['target_id']}" if a.get("target_id") else ""))
        elif a.get("cards_ids") and all(a["cards_ids"]):
            ids.append("+".join(a["cards_ids"]))
    return [(line, ids or [""]) for line, ids in lines.items()]


# --- state and log ---------------------------------------------------------------------


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--at", "at", type=click.IntRange(min=0), help="The state just after this event (see `referee log`); default: now."
)
@click.option(
    "--as",
    "viewer",
    type=click.Choice(VIEWERS),
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
        if at is None:
            current, _ = store.load(match)
        else:
            current = store.state_at(match, at)
        game = store.ruleset(match)
    if game.id != DEFAULT_GAME:
        seen = {**game.view(current, viewer), "match": match}
        if as_json:
            echo_json(seen)
            return
        for line in game.render_view(seen).splitlines():
            click.echo(printable(line))
        if at is None:
            _say_next_other(game, current)
        return
    from referee.rules.harem_master.views import card_texts, names_in_view, render_state, state_view

    view = state_view(current, viewer)
    view["match"] = match
    if as_json:
        echo_json({**view, "cards": card_texts(current, names_in_view(view))})
        return
    for line in render_state(view).splitlines():  # each line escaped, as stored text may be old
        click.echo(printable(line))
    if at is None:
        _say_next(current)


@click.command()
@click.argument("match", type=MATCH)
@click.option(
    "--as",
    "viewer",
    type=click.Choice(VIEWERS),
    default="judge",
    show_default=True,
    help="Whose view of the log (hidden cards are not named to players).",
)
@click.option("--from", "start", type=click.IntRange(min=1), default=1, help="First event to show.")
@db_option
@json_option
def log(match: str, viewer: str, start: int, db: str | None, as_json: bool) -> None:
    """The event log: one numbered line per event, citing its rule.

    Events a rewind retracted are marked with an x.

    Example: referee log m-1a2b3c4d --from 100
    """
    with open_store(db, read_only=True) as store:
        events = store.events(match)
        game = store.ruleset(match)
    if game.id != DEFAULT_GAME:
        from projections.lineage import retracted_positions

        rows = _other_rows(game, events, game.initial_state(), viewer, retracted_positions(events))
    else:
        from projections.harem_master.transcript import transcript

        rows = transcript(events, viewer)
    rows = [r for r in rows if r["position"] >= start]
    if as_json:
        echo_json({"match": match, "events": rows})
        return
    for row in rows:
        click.echo(_line(row))


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
                    }
                    for m in found
                ]
            }
        )
        return
    for m in found:
        players = f"{m.players.get('A', 'A')} v {m.players.get('B', 'B')}"
        line = f"{m.id}  {m.created:%Y-%m-%d %H:%M}  {players}  {m.mode}"
        line += (f"  {m.game}" if m.game != DEFAULT_GAME else "") + (f"  {m.name}" if m.name else "")
        click.echo(printable(line))  # names from a store written before they were checked


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
    help="Harem Master: 410.1, an action that was impossible; 410.2, a forgotten mandatory step. "
    "Another game: the rule its corrections cite (SCP-TCG chapter 4: 4, ruling:S13).",
)
@click.option("--reason", type=REASON, required=True, help="Why, for the log.")
@click.option("--by", "judge", type=JUDGE, help="The judge's name, for the log.")
@click.option("--dry-run", is_flag=True, help="Only report what the rewind would undo.")
@click.option(
    "--replay",
    is_flag=True,
    help="After the rewind, apply again the player actions that followed, stopping at the first one no longer allowed.",
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
    expect_version: int | None,
    db: str | None,
    as_json: bool,
) -> None:
    """A judge's correction (rule 410): go back to just after an event.

    Nothing is erased: a Rewound event restores the earlier state and the
    events it undoes stay in the log, marked retracted. --dry-run lists the
    events it would undo, most recent first, flagging those that revealed
    hidden information (a turned card, cards into a hand, a shuffle).

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
                    s, store.events(match), to, rule=rule, reason=reason, judge=judge, replay=replay
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
    click.echo(f"Rewound to just after event {to} ({rule}); {len(done.undone)} events retracted.")
    if report is not None:
        line = f"Replayed {report['replayed']} of {report['attempted']} actions"
        if report["stopped_at"]:
            s = report["stopped_at"]
            line += f"; stopped at {s['action']['player']} {s['action']['do']}: refused ({s['rule']}): {s['message']}"
        click.echo(line + ".")
    if game.id != DEFAULT_GAME:
        _say_next_other(game, state)
        return
    _say_next(state)


def _judge_update(
    match: str, db: str | None, as_json: bool, decide: Callable[[Any, list], Any], expect_version: int | None = None
) -> None:
    from projections.harem_master.transcript import rows_for
    from referee.actions import IllegalAction
    from referee.store.errors import StaleVersion

    before: list[GameState] = []

    def decided(state: GameState) -> Any:
        before[:] = [state]  # the last attempt's state is the one written on
        return decide(state, store.events(match))

    with open_store(db) as store:
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
    if game.id != DEFAULT_GAME:
        for row in _other_rows(game, done.events, before[0], "judge"):
            click.echo(_line(row))
        _say_next_other(game, state)
        return
    for row in rows_for(done.events, before[0]):
        click.echo(_line(row))
    _say_next(state)


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
@expect_version_option
@db_option
@json_option
def accept(
    match: str, reason: str, judge: str | None, expect_version: int | None, db: str | None, as_json: bool
) -> None:
    """Leave the open violations standing (the game is too far along to rewind).

    Example: referee accept m-1a2b3c4d --reason "noticed three turns later" --by Kim
    """
    from referee import corrections

    _judge_update(match, db, as_json, lambda s, log: corrections.accept(s, reason, judge), expect_version)


@click.command("skip-step")
@click.argument("match", type=MATCH)
@click.argument("rule", type=click.Choice(["301", "302", "303", "309", "214.2e"]))
@click.option("--reason", type=REASON, default="", help="What happened at the table.")
@expect_version_option
@db_option
@json_option
def skip_step(match: str, rule: str, reason: str, expect_version: int | None, db: str | None, as_json: bool) -> None:
    """Record mode: the table skipped a mandatory step (an open violation).

    Record it when it happens, before the next action; a judge later rewinds
    to the step (410.2) or accepts it.

    Example: referee skip-step m-1a2b3c4d 303 --reason "B forgot to fill the stack"
    """
    from referee import corrections

    _judge_update(match, db, as_json, lambda s, log: corrections.skip_step(s, log, rule, reason), expect_version)
