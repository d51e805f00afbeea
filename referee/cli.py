"""The ``referee`` command line: one click group; each command lives in
``referee/commands/`` and is registered below.

Bad input (``InputError``, ``click.UsageError``) ends with one line on standard
error and exit code 2; a refused action or a failed check ends with exit
code 1; no traceback reaches the user for either.
"""

from __future__ import annotations

import importlib
import sys

import click

from referee import __version__

# Each entry is "module:attribute" of a click command; the module is imported
# only when the CLI starts, so a command's heavy imports stay out of the others.
COMMANDS = [
    "referee.commands.scenario:scenario",
    "referee.commands.simulate:simulate",
    "referee.commands.bench:bench",
    "referee.commands.records:export",
    "referee.commands.records:import_",
    "referee.commands.records:audit",
    "referee.commands.matches:new",
    "referee.commands.matches:act",
    "referee.commands.matches:legal",
    "referee.commands.matches:state",
    "referee.commands.matches:log",
    "referee.commands.matches:matches_",
    "referee.commands.matches:rewind",
    "referee.commands.matches:note",
    "referee.commands.matches:accept",
    "referee.commands.matches:skip_step",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """Referee and judge tool for the card game Harem Master.

    Every player action and rule step is an event in an append-only log;
    the board is rebuilt from the log. Run `referee COMMAND --help` for the
    details and an example of each command.
    """


def _register() -> None:
    for spec in COMMANDS:
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # a command still being written is simply absent
        cli.add_command(getattr(module, attr))


_register()


def main() -> None:
    """Entry point: turn bad input into one line and exit 2, never a traceback."""
    from referee.inputs import InputError

    try:
        cli.main(standalone_mode=False)
    except InputError as exc:
        click.echo(f"error: {exc.describe()}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:  # usage errors: exit 2 with click's message
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:
        # A store problem (unreachable database, wrong password, unknown match)
        # is bad input too. The store is imported only by commands that use
        # it, so it can only have raised if its module is loaded.
        errors = sys.modules.get("referee.store.errors")
        if errors is not None and isinstance(exc, errors.StoreError):
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        raise


if __name__ == "__main__":
    main()
