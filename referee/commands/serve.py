"""`referee serve`: the judges' board in a browser, read from the same store the CLI writes."""

from __future__ import annotations

import os

import click

from referee.commands.matches import db_option

PASSWORD_ENV = "REFEREE_JUDGE_PASSWORD"


@click.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Any address other than loopback needs $REFEREE_JUDGE_PASSWORD.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free port).")
@click.option("--ssl-certfile", type=click.Path(dir_okay=False, exists=True), help="Serve HTTPS with this certificate (PEM).")
@click.option("--ssl-keyfile", type=click.Path(dir_okay=False, exists=True), help="The certificate's private key (PEM).")
@click.option("--links", "links_for", metavar="MATCH", help="Print the players' links of MATCH for this server and exit.")
def serve(db: str | None, host: str, port: int, ssl_certfile: str | None, ssl_keyfile: str | None,
          links_for: str | None) -> None:
    """Serve the judges' board: every match at any event, live, per viewer.

    Open the printed URL: the tables page lists the stored matches; a match
    page shows the board as the judge, a player or the public may see it
    (rule 215), with a timeline, the log citing rules, and for the judge a
    preview of what a rule-410 rewind would undo. Pages never change a match.

    By default only this machine can reach it (127.0.0.1) and every view is
    open. To let phones and other stations of the venue in, set a judge
    password ($REFEREE_JUDGE_PASSWORD) and listen on the venue network: the
    judge view then asks for the password (so does any board while the
    variable is set), and each player's view needs that player's link
    (printed by `referee new`, or by `referee serve --links MATCH`).

    Example: REFEREE_JUDGE_PASSWORD=... referee serve --host 0.0.0.0 --port 8000
    """
    from referee.store import database_url, parse_url
    from referee.web.server import bind, is_loopback, url_of
    from referee.web.tokens import load_key

    url = database_url(db)
    password = os.environ.get(PASSWORD_ENV) or None
    loopback = is_loopback(host)
    if not loopback and not password:
        raise click.UsageError(
            f"--host {host} lets other devices reach the board: set {PASSWORD_ENV} first "
            "(the judge view and every hidden card need it; see the README, 'The judges' board')"
        )
    if bool(ssl_certfile) != bool(ssl_keyfile):
        raise click.UsageError("give --ssl-certfile and --ssl-keyfile together")
    scheme = "https" if ssl_certfile else "http"
    key = load_key(parse_url(url).path, create=True)
    if links_for is not None:
        _print_links(url, links_for, key, f"{scheme}://{host}:{port}")
        return

    from referee.web.app import Settings, create_app, open_store
    from referee.web.server import server_for

    store = open_store(url)
    try:
        sock = bind(host, port)
    except OSError as exc:
        store.close()
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    settings = Settings(url, protect=bool(password) or not loopback, judge_password=password, token_key=key)
    app = create_app(settings, store)
    address = url_of(sock, scheme)
    click.echo(f"The board of {store.url} is at {address}  (Ctrl-C stops it)")
    if host in ("0.0.0.0", "::"):
        click.echo(f"  listening on every address of this machine: from another device use this machine's "
                   f"venue address, e.g. {scheme}://<address>:{sock.getsockname()[1]}/")
    if settings.protect:
        click.echo(f"  judge view: the password in ${PASSWORD_ENV}; players: their own links "
                   "(`referee serve --links MATCH`)" + ("" if key else "; no player links: set REFEREE_TOKEN_KEY"))
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
    with open_store(url) as store:
        state, _ = store.load(match)
        key_id = match.strip().lower()
    for player, path in player_links(key, key_id).items():
        click.echo(f"{player} ({state.names.get(player, player)}): {base}{path}")
