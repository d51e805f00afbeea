"""`referee serve`: the board in a browser, read from and written to the same store the CLI uses."""

from __future__ import annotations

import os
import sys

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
    help="A host name the board answers to besides its own (repeat for several; *.example.org for a domain): "
    "it always answers localhost and the address it listens on; on 0.0.0.0, this machine's name and any address.",
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
    help="Print a scorekeeper's link (and password) for an event's tables, or one match, and exit "
    "(with --host, the link names that address; the store is all it needs).",
)
@click.option(
    "--qr/--no-qr",
    "qr",
    default=None,
    help="Draw QR codes of the venue address and the links in the terminal (default: when it is a terminal).",
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
    qr: bool | None,
) -> None:
    """Serve the board and its console: every match at any event, live, per viewer.

    The console is the match page for whoever may log it: a scorekeeper or a
    judge records each decision there from a phone. Open the printed URL: the tables page lists the stored matches and
    events; a match page shows the board as the judge, a player or the
    public may see it (rule 215), with a timeline, the log citing rules and,
    for whoever may log, the decision in front of the table as controls.

    By default only this machine can reach it (127.0.0.1) and everyone who
    can is the judge. To let phones and other stations of the venue in,
    listen on the venue network with a judge password ($REFEREE_JUDGE_PASSWORD,
    at least 12 characters; unset, the board makes one and prints it once):
    judges then sign in with it, scorekeepers open their link
    (`referee serve --scorekeeper EVENT`), each player their own link
    (printed by `referee new`, or by `referee serve --links MATCH`).

    On 0.0.0.0 it answers every address of this machine, and prints the one
    a phone on the same network opens, with its QR code. Printing a link
    (--links, --scorekeeper) needs only the store; with --host ADDRESS the
    link names that address (0.0.0.0: this machine's venue address).

    Example: REFEREE_JUDGE_PASSWORD=... referee serve --host 0.0.0.0 --port 8000
    """
    from referee.store import database_url, parse_url
    from referee.web.server import bind, is_loopback, url_of
    from referee.web.tokens import load_key, session_secret
    from referee.web.venue import ANY_ADDRESS, default_names, machine_addresses, qr_for_terminal

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
    if qr is None:
        qr = sys.stdout.isatty()  # a phone reads a terminal, not a file or another program
    venue = machine_addresses()
    shown_host = venue[0] if host in ANY_ADDRESS and venue else host
    base = f"{scheme}://{_bracketed(shown_host)}:{port}"
    if links_for is not None:
        _print_links(url, links_for, key, base, qr=qr)
        return
    if keeper_for is not None:
        _print_scorekeeper(url, keeper_for, keeper_name or "", key, base, qr=qr)
        return

    from referee.web.app import Settings, create_app, open_store
    from referee.web.server import server_for

    store = open_store(url, read_only)
    try:
        sock = bind(host, port)
    except OSError as exc:
        store.close()
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    hosts = tuple(dict.fromkeys((*default_names(host), *allowed_hosts)))
    settings = Settings(
        url,
        protect=bool(password) or not loopback,
        judge_password=password,
        token_key=key,
        allowed_hosts=hosts,
        any_address=host in ANY_ADDRESS,
        read_only=read_only,
        https=bool(ssl_certfile),
        session_seconds=session_hours * 3600,
        proxies=tuple(proxies),
    )
    app = create_app(settings, store)
    address = url_of(sock, scheme)
    click.echo(f"The board of {store.url} is at {address}  (Ctrl-C stops it)")
    if host in ANY_ADDRESS:
        port_now = sock.getsockname()[1]
        if venue:
            phone = f"{scheme}://{_bracketed(venue[0])}:{port_now}/"
            others = "".join(f", {scheme}://{_bracketed(a)}:{port_now}/" for a in venue[1:])
            click.echo(f"  phones and other stations on this network open {phone}{others}")
            if qr:
                click.echo(qr_for_terminal(phone), nl=False)
        else:
            click.echo(
                f"  listening on every address of this machine, but it has no network address yet: "
                f"connect it to the venue's network, then open {scheme}://<its address>:{port_now}/"
            )
    click.echo(
        f"  answers to the host names {', '.join(hosts)}"
        + (" and any address of this machine" if host in ANY_ADDRESS else "")
        + " (--allowed-host adds others)"
    )
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


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _print_links(url: str, match: str, key: bytes | None, base: str, qr: bool = False) -> None:
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
        if qr:
            from referee.web.venue import qr_for_terminal

            click.echo(qr_for_terminal(f"{base}{path}"), nl=False)


def _print_scorekeeper(url: str, scope: str, name: str, key: bytes | None, base: str, qr: bool = False) -> None:
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
    link = f"{base}{scorekeeper_link(key, scope, name)}"
    click.echo(f"Scorekeeper link for {what}" + (f", {name}" if name else "") + ":")
    click.echo(f"  {link}")
    if qr:
        from referee.web.venue import qr_for_terminal

        click.echo(qr_for_terminal(link), nl=False)
    # The link's token is the password: typed on the sign-in form with the same name, it signs in as that name.
    who = f' with the name "{name}"' if name else ""
    click.echo(f"  or sign in on its page{who} and the password {scorekeeper_token(key, scope, name)}")
    click.echo(
        "It logs every decision there (violations included) but cannot rewind or accept; give it only "
        "to the scorekeeper"
        + (", whose name it records with every entry" if name else "; entries are recorded as its scope's scorekeeper")
        + ". Anyone with the store's token key can make these links."
    )
