"""The ``referee`` command line: one click group whose commands live in
``referee/commands/`` and are imported only when run.

Bad input (``InputError``, ``click.UsageError``) ends with one line on standard
error and exit code 2; a refused action or a failed check ends with exit
code 1; no traceback reaches the user for either.

Starting fast matters: a judge runs one short command after another, and
most of a short command's time used to be spent importing what other
commands need. So ``COMMANDS`` names each command's module and its short
help, ``referee --help`` lists them from there without importing any, and a
command's module (with pydantic, the event models, the store...) is imported
only when that command runs (click's documented lazy-group pattern).
"""

from __future__ import annotations

import importlib
import sys

import click

from referee import __version__

# name -> ("module:attribute" of the click command, its short help). The short
# help is the first line of the command's docstring (a test keeps them equal).
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("referee.commands.matches:new", "Start a stored match from two decks; prints its id."),
    "act": ("referee.commands.matches:act", "Apply one player action (refused actions exit 1 with the rule)."),
    "legal": ("referee.commands.matches:legal", "Who must act now, and every legal action."),
    "state": ("referee.commands.matches:state", "The zones, the field and the result, now or after any event."),
    "log": ("referee.commands.matches:log", "The event log: one numbered line per event, citing its rule."),
    "matches": ("referee.commands.matches:matches_", "List the stored matches."),
    "rewind": ("referee.commands.matches:rewind", "A judge's correction (rule 410): go back to just after an event."),
    "note": ("referee.commands.matches:note", "Add a judge's note to the log (it changes nothing on the table)."),
    "accept": (
        "referee.commands.matches:accept",
        "Leave open violations standing (the game is too far along to rewind).",
    ),
    "skip-step": (
        "referee.commands.matches:skip_step",
        "Record mode: the table skipped a mandatory step (an open violation).",
    ),
    "export": ("referee.commands.records:export", "Write a stored match as a match record (YAML)."),
    "import": ("referee.commands.records:import_", "Replay a match record and store it as a new match; print its id."),
    "audit": (
        "referee.commands.records:audit",
        "Replay a match record: is every action legal, and what is the result?",
    ),
    "key": ("referee.commands.key:key", "Show the store's signing key: its public key and fingerprint."),
    "scenario": (
        "referee.commands.scenario:scenario",
        "Rules questions written as data (the format: docs/scenario-format.md).",
    ),
    "event": (
        "referee.commands.event:event",
        "Tournaments: registered decks, Swiss rounds whose tables are stored matches, live standings.",
    ),
    "simulate": ("referee.commands.simulate:simulate", "Play whole games by picking random legal actions."),
    "serve": (
        "referee.commands.serve:serve",
        "Serve the board and its console: every match at any event, live, per viewer.",
    ),
    "bench": (
        "bench.command:bench",
        "Measure the engine's and the store's speed (a benchmark, not a test).",
    ),
}


class LazyGroup(click.Group):
    """A group whose commands are imported when first used (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        command = self.commands.get(cmd_name)
        if command is None:
            module_name, _, attr = COMMANDS[cmd_name][0].partition(":")
            command = getattr(importlib.import_module(module_name), attr)
            self.commands[cmd_name] = command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help`` from the registry, importing nothing."""
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """Referee and judge tool for the card game Harem Master.

    Every player action and rule step is an event in an append-only log;
    the board is rebuilt from the log. Run `referee COMMAND --help` for the
    details and an example of each command.
    """


def load_all() -> dict[str, click.Command]:
    """Every command, imported (for tests and documentation tools)."""
    ctx = click.Context(cli)
    return {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}  # type: ignore[misc]


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
