"""`referee serve`: the board in a browser, read from and written to the same store the CLI uses."""

from __future__ import annotations

import os

import click

from referee.commands.matches import db_option
from referee.commands.params import JUDGE

PASSWORD_ENV = "REFEREE_JUDGE_PASSWORD"
MIN_PASSWORD = 12  # characters of a judge password the venue network may try to guess


@click.command()
@db_option
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Any address other than loopback needs $REFEREE_JUDGE_PASSWORD.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free port).")
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name the board answers to (repeat for several; *.example.org for a domain). "
    "Default: the address it listens on, and localhost; on 0.0.0.0, this machine's names and addresses.",
)
@click.option(
    "--ssl-certfile", type=click.Path(dir_okay=False, exists=True), help="Serve HTTPS with this certificate (PEM)."
)
@click.option(
    "--ssl-keyfile", type=click.Path(dir_okay=False, exists=True), help="The certificate's private key (PEM)."
)
@click.option(
    "--read-only", is_flag=True, help="A spectators' board: nothing can be logged (a read-only store or role serves)."
)
@click.option(
    "--links", "links_for", metavar="MATCH", help="Print the players' links of MATCH for this server and exit."
)
@click.option(
    "--scorekeeper",
    "keeper_for",
    metavar="EVENT|MATCH",
    help="Print a scorekeeper's link (and password) for an event's tables, or one match, and exit.",
)
@click.option(
    "--proxy",
    "proxies",
    multiple=True,
    metavar="ADDRESS",
    help="The address of a reverse proxy in front of the board: only from it is X-Forwarded-For believed "
    "(for the limit on password attempts per client). Repeat for several.",
)
@click.option(
    "--session-hours",
    type=click.FloatRange(0.05, 24 * 14),
    default=24.0,
    show_default=True,
    help="How long a sign-in (a judge's, a scorekeeper's) lasts before it must be made again.",
)
@click.option(
    "--name",
    "keeper_name",
    type=JUDGE,
    default=None,
    help="With --scorekeeper: the scorekeeper's name, recorded with what they log.",
)
def serve(
    db: str | None,
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    ssl_certfile: str | None,
    ssl_keyfile: str | None,
    read_only: bool,
    links_for: str | None,
    keeper_for: str | None,
    proxies: tuple[str, ...],
    session_hours: float,
    keeper_name: str | None,
) -> None:
    """Serve the board and its console: every match at any event, live, per viewer.

    The console is the match page for whoever may log it: a scorekeeper or a
    judge records each decision there from a phone. Open the printed URL: the tables page lists the stored matches and
    events; a match page shows the board as the judge, a player or the
    public may see it (rule 215), with a timeline, the log citing rules and,
    for whoever may log, the decision in front of the table as controls.

    By default only this machine can reach it (127.0.0.1) and everyone who
    can is the judge. To let phones and other stations of the venue in, set
    a judge password ($REFEREE_JUDGE_PASSWORD) and listen on the venue
    network: judges then sign in with it, scorekeepers open their link
    (`referee serve --scorekeeper EVENT`), each player their own link
    (printed by `referee new`, or by `referee serve --links MATCH`).

    Example: REFEREE_JUDGE_PASSWORD=... referee serve --host 0.0.0.0 --port 8000
    """
    from referee.store import database_url, parse_url
    from referee.web.server import bind, default_hosts, is_loopback, url_of
    from referee.web.tokens import load_key, session_secret

    url = database_url(db)
    password = os.environ.get(PASSWORD_ENV) or None
    loopback = is_loopback(host)
    generated = False
    if not loopback and links_for is None and keeper_for is None:
        # Other devices can try passwords: a short one is guessed, none is made.
        if password is None:
            import secrets

            password, generated = secrets.token_urlsafe(15), True
        elif len(password) < MIN_PASSWORD:
            raise click.UsageError(
                f"--host {host} lets other devices reach the board: ${PASSWORD_ENV} must have at least "
                f"{MIN_PASSWORD} characters (it has {len(password)}), or leave it unset and the board makes one"
            )
    if bool(ssl_certfile) != bool(ssl_keyfile):
        raise click.UsageError("give --ssl-certfile and --ssl-keyfile together")
    for name in allowed_hosts:
        if "*" in name[1:] or (name.startswith("*") and not name.startswith("*.")) or not name.strip():
            raise click.BadParameter(
                f"{name!r}: a host name, or *.domain for every name of a domain", param_hint="--allowed-host"
            )
    scheme = "https" if ssl_certfile else "http"
    key = load_key(parse_url(url).path, create=True)
    if links_for is not None:
        _print_links(url, links_for, key, f"{scheme}://{host}:{port}")
        return
    if keeper_for is not None:
        _print_scorekeeper(url, keeper_for, keeper_name or "", key, f"{scheme}://{host}:{port}")
        return

    from referee.web.app import Settings, create_app, open_store
    from referee.web.server import server_for

    store = open_store(url, read_only)
    try:
        sock = bind(host, port)
    except OSError as exc:
        store.close()
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    hosts = tuple(allowed_hosts) or default_hosts(host)
    settings = Settings(
        url,
        protect=bool(password) or not loopback,
        judge_password=password,
        token_key=key,
        allowed_hosts=hosts,
        read_only=read_only,
        https=bool(ssl_certfile),
        session_seconds=session_hours * 3600,
        proxies=tuple(proxies),
    )
    app = create_app(settings, store)
    address = url_of(sock, scheme)
    click.echo(f"The board of {store.url} is at {address}  (Ctrl-C stops it)")
    if host in ("0.0.0.0", "::"):
        click.echo(
            f"  listening on every address of this machine: from another device use this machine's "
            f"venue address, e.g. {scheme}://<address>:{sock.getsockname()[1]}/"
        )
    click.echo(f"  answers to the host names {', '.join(hosts)} (--allowed-host adds others)")
    if generated:
        click.echo(
            f"  the judge password for this run (shown once, kept nowhere; set ${PASSWORD_ENV} to choose one): "
            f"{password}"
        )
    if settings.protect:
        click.echo(
            f"  judges: the password in ${PASSWORD_ENV}; scorekeepers: `referee serve --scorekeeper EVENT`; "
            "players: their own links (`referee serve --links MATCH`)"
            + ("" if key else "; no player or scorekeeper links: set REFEREE_TOKEN_KEY")
        )
    if not session_secret(key)[1]:
        click.echo(
            "  sign-ins last until this server stops: set REFEREE_TOKEN_KEY (or REFEREE_SESSION_KEY) "
            "to share them with other servers of this store"
        )
    try:
        server_for(app, ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile).run(sockets=[sock])
    finally:
        sock.close()
        store.close()


def _print_links(url: str, match: str, key: bytes | None, base: str) -> None:
    from referee.web.app import open_store
    from referee.web.tokens import player_links

    if key is None:
        raise click.UsageError("no key for player links: set REFEREE_TOKEN_KEY (PostgreSQL stores need it)")
    with open_store(url, read_only=True) as store:
        state, _ = store.load(match)
        seats = store.ruleset(match).seats
        key_id = match.strip().lower()
    for player, path in player_links(key, key_id, seats).items():
        click.echo(f"{player} ({state.names.get(player, player)}): {base}{path}")


def _print_scorekeeper(url: str, scope: str, name: str, key: bytes | None, base: str) -> None:
    """A scorekeeper's link for an event (every table of it) or one match."""
    from referee.web.app import open_store
    from referee.web.tokens import scorekeeper_link, scorekeeper_token

    if key is None:
        raise click.UsageError("no key for scorekeeper links: set REFEREE_TOKEN_KEY (PostgreSQL stores need it)")
    scope = scope.strip().lower()
    with open_store(url, read_only=True) as store:
        if scope.startswith("e-") and "." not in scope:
            from referee.tournament.store import Tournaments

            what = f"every table of {Tournaments(store).load(scope).name} ({scope})"
        else:
            store.load(scope)  # MatchNotFound, exit 2, for a typo
            what = f"match {scope}"
    click.echo(f"Scorekeeper link for {what}" + (f", {name}" if name else "") + ":")
    click.echo(f"  {base}{scorekeeper_link(key, scope, name)}")
    click.echo(f"  or sign in on the event's page with the password {scorekeeper_token(key, scope)}")
    click.echo(
        "It logs every decision there (violations included) but cannot rewind or accept; give it only "
        "to the scorekeeper. Anyone with the store's token key can make these links."
    )
