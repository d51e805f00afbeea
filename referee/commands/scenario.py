"""`referee scenario check`: run rules questions written as scenario files."""

from __future__ import annotations

import json
import sys

import click

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


class _plain:
    """A stand-in for click's progress bar when output is not a terminal."""

    def __init__(self, items: list) -> None:
        self.items = items

    def __enter__(self) -> list:
        return self.items

    def __exit__(self, *exc: object) -> None:
        return None
