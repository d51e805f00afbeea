"""`referee scenario check`: run rules questions written as scenario files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from referee.commands.params import MATCH, VIEWER, check_viewer, db_option, json_option
from referee.inputs import InputError, printable


@click.group()
def scenario() -> None:
    """Rules questions written as data (the format: docs/scenario-format.md)."""


@scenario.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("-v", "--verbose", is_flag=True, help="List passing scenarios too.")
def check(paths: tuple[str, ...], as_json: bool, verbose: bool) -> None:
    """Run scenario files; folders are searched recursively for *.yaml.

    Exit code 0 if every scenario passes, 1 if any fails. A file that cannot
    be read or does not follow the format is reported as a failed scenario
    of its own (the message names the file, the place in it and what was
    expected) and the others still run. Exit code 2 when nothing could be
    run: a path that does not exist, no scenario files, or no file that
    could be read (each file's error is then printed on its own line).

    Example: referee scenario check scenarios/306-turn/
    """
    from referee.scenario import Scenario, load_scenario, run_scenario, scenario_files, unreadable

    files = scenario_files(list(paths))
    if not files:
        raise InputError(" ".join(paths), "", "no scenario files (*.yaml) found")
    # Every file is read and checked before any runs; one that cannot be read
    # is that file's failure, not the whole run's.
    loaded: list[Scenario | InputError] = []
    for f in files:
        try:
            loaded.append(load_scenario(f))
        except InputError as exc:
            loaded.append(exc)
    errors = [x for x in loaded if isinstance(x, InputError)]
    if len(errors) == len(loaded):
        if len(errors) == 1:
            raise errors[0]
        for error in errors:
            click.echo(f"error: {error.describe()}", err=True)
        sys.exit(2)
    reports = []
    show_bar = not as_json and sys.stderr.isatty() and len(files) > 20
    with click.progressbar(loaded, label="scenarios", file=sys.stderr) if show_bar else _plain(loaded) as items:
        for f, sc in zip(files, items):
            if isinstance(sc, InputError):
                reports.append(unreadable(f, sc))
                continue
            try:
                reports.append(run_scenario(sc))
            except InputError as exc:
                reports.append(unreadable(f, exc))
    passed = sum(r.passed for r in reports)
    failed = len(reports) - passed
    if as_json:
        click.echo(
            json.dumps(
                {"passed": passed, "failed": failed, "scenarios": [r.to_json() for r in reports]},
                indent=2,
            )
        )
    else:
        for r in reports:
            if r.passed and not verbose:
                continue
            mark = "PASS" if r.passed else "FAIL"
            click.echo(printable(f"{mark} {r.file}: {r.name} [{', '.join(r.rules)}]"))
            for failure in r.failures:
                click.echo(printable(f"     - {failure}"))
        click.echo(f"{passed} passed, {failed} failed")
    if failed:
        sys.exit(1)


@scenario.command("from")
@click.argument("match", type=MATCH)
@click.option(
    "--at",
    "at",
    type=click.IntRange(min=0),
    required=True,
    help="The position just after this event (see `referee log`; 0: the match's start).",
)
@click.option(
    "--to",
    "to",
    type=click.IntRange(min=1),
    default=None,
    help="The last event of the stretch, whose state is the expected outcome (default: the latest).",
)
@click.option(
    "--as",
    "viewer",
    type=VIEWER,
    default="judge",
    show_default=True,
    help="Whose knowledge: the judge's (everything), or A, B or public (hidden cards stay unknown, rule 215).",
)
@click.option("--out", type=click.Path(dir_okay=False), help="Write the file here instead of standard output.")
@db_option
@json_option
def from_match(
    match: str, at: int, to: int | None, viewer: str, out: str | None, db: str | None, as_json: bool
) -> None:
    """Write a stretch of a stored match as a scenario file (a dispute as a rules question).

    The position just after event --at (as --as knows it), the actions of
    the log up to event --to, and the state there as the expected outcome,
    with the rules the log cites. It passes `referee scenario check` as
    written; edit its actions or position to ask what the rules say would
    follow instead ("what if B had intercepted?"). Where the position at
    --at cannot be written (a battle or a window of card text under way,
    an open violation), the file starts at the last one before it that can,
    and says so.

    Example: referee scenario from m-1a2b3c4d --at 212 --to 230 --out dispute.yaml
    """
    from referee.commands.matches import open_store
    from referee.scenario import dump_scenario, scenario_from

    with open_store(db, read_only=True) as store:
        game = store.ruleset(match)
        check_viewer(game.viewers, viewer, game.id)
        records = store.records(match)
    events = [r.event for r in records]
    if to is not None and to > len(events):
        raise click.BadParameter(f"match {match} has {len(events)} events: there is no event {to}", param_hint="--to")
    if at >= (to if to is not None else len(events)):
        raise click.BadParameter(f"--at must come before --to (the match has {len(events)} events)", param_hint="--at")
    try:
        written = scenario_from(events, at, to, viewer, records[0].match_id, records[0].name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="MATCH") from None
    text = dump_scenario(
        written.data,
        f"referee scenario from {records[0].match_id} --at {at} --to {written.to} --as {viewer}\n"
        "Check it: referee scenario check FILE",
    )
    if out is not None:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise click.BadParameter(f"cannot write {out}: {exc.strerror}", param_hint="--out") from None
    if as_json:
        click.echo(
            json.dumps(
                {
                    "match": records[0].match_id,
                    "at": written.asked,
                    "start": written.start,
                    "to": written.to,
                    "viewer": viewer,
                    "file": out,
                    "scenario": written.data,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    elif out is None:
        click.echo(text, nl=False)
    else:
        click.echo(f"wrote {out}: events {written.start + 1} to {written.to} of {records[0].match_id}", err=True)


class _plain:
    """A stand-in for click's progress bar when output is not a terminal."""

    def __init__(self, items: list) -> None:
        self.items = items

    def __enter__(self) -> list:
        return self.items

    def __exit__(self, *exc: object) -> None:
        return None
