"""`referee key`: the store's signing key, which signs every match's head and every export."""

from __future__ import annotations

import json
import sys

import click

from referee.commands.params import db_option, json_option


@click.command("key")
@db_option
@json_option
def key(db: str | None, as_json: bool) -> None:
    """Show the store's signing key: its public key and fingerprint.

    Every store signs the head of each match after every write, and each
    record it exports, with its own Ed25519 key (made the first time it is
    needed, kept in the store). `referee import` in this store accepts the
    records it signed; another store accepts them with `--trust` and this
    key or its fingerprint. Read the fingerprint to the other store's
    judge, or compare it with the one on the print-outs.

    Example: referee key --db postgresql://referee@db.venue/tournament
    """
    from referee.inputs import printable
    from referee.store import MatchStore, StoreError, database_url

    url = database_url(db)
    try:
        try:
            store = MatchStore(url, create=False)
        except StoreError as exc:
            if "read-only" not in str(exc) and "readonly" not in str(exc):
                raise
            store = MatchStore(url, read_only=True)
        with store:
            signer = store.signer()
            shown = store.url
    except StoreError as exc:
        click.echo(printable(f"error: {exc}"), err=True)
        sys.exit(2)
    if signer is None:
        click.echo(f"error: {shown} has no signing key yet and cannot be written here to make one", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps({"store": shown, "key": signer.text, "fingerprint": signer.fingerprint}, indent=2))
        return
    click.echo(f"Signing key of {shown}")
    click.echo(f"  public key:  {signer.text}")
    click.echo(f"  fingerprint: {signer.fingerprint}")
    click.echo(f'Another store imports this store\'s records with: referee import FILE --trust "{signer.fingerprint}"')
