"""Start-up: a command imports only what it needs. `referee --help` lists
every command from the registry without importing one, `--version` imports
no command at all, and `act` leaves out what only other commands use (YAML,
PostgreSQL's driver, the scenario runner, a tournament's events, other
games). What this saves in time is measured by `referee bench`, never here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from referee.cli import COMMANDS, cli, load_all

ROOT = Path(__file__).resolve().parent.parent
# The vanilla sample decks: these tests script actions with their cards.
DECKS = [
    "--deck",
    f"A={ROOT / 'scenarios/decks/vanilla-a.yaml'}",
    "--deck",
    f"B={ROOT / 'scenarios/decks/vanilla-b.yaml'}",
]
WATCHED = (
    "referee.commands",
    "pydantic",
    "events",
    "eventsourcing",
    "yaml",
    "psycopg",
    "referee.scenario",
    "referee.records",
    "referee.rules",
    "referee.tournament",
)


def imported_by(*argv: str) -> tuple[set[str], str]:
    """The watched modules a fresh process has imported when ``referee ARGV`` ends, and its output."""
    code = (
        "import sys\n"
        f"sys.argv = ['referee', *{list(argv)!r}]\n"
        "from referee.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print('MODULES', sorted(m for m in sys.modules if m.startswith({WATCHED!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out, _, modules = done.stdout.rpartition("MODULES ")
    return set(eval(modules)), out  # noqa: S307 (our own list literal)


def test_the_registry_holds_every_commands_short_help() -> None:
    commands = load_all()
    assert set(commands) == set(COMMANDS)
    for name, command in commands.items():
        assert isinstance(command, click.Command)
        assert command.name == name
        first_line = (command.help or "").strip().splitlines()[0]
        assert COMMANDS[name][1] == first_line, name


def test_help_lists_every_command_without_importing_one() -> None:
    modules, out = imported_by("--help")
    for name, (_, short) in COMMANDS.items():
        assert name in out
        assert short.split()[0] in out
    assert not any(
        m.startswith(("referee.commands", "pydantic", "events", "eventsourcing", "yaml")) for m in modules
    ), modules


def test_version_imports_no_command() -> None:
    modules, out = imported_by("--version")
    assert "referee, version" in out
    assert modules == set()


def test_act_leaves_out_what_other_commands_use(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'm.db'}"
    result = CliRunner().invoke(cli, ["new", *DECKS, "--seed", "3", "--json", "--db", db])
    match = json.loads(result.stdout)["match"]
    modules, out = imported_by("act", match, "A", "choose_opening", "Little Page", "--db", db)
    assert "ActionTaken" in out or "101.1" in out
    assert "referee.commands.matches" in modules
    assert not any(
        m.startswith(("yaml", "psycopg", "referee.scenario", "referee.records", "referee.commands.records"))
        for m in modules
    ), modules
    # Nor another game's packages, nor a tournament's events (their models
    # cost start-up to build): a Harem Master match loads Harem Master alone.
    assert "referee.rules.harem_master.engine" in modules
    assert not any(m.startswith(("events.tournament", "events.scp_tcg", "referee.rules.scp_tcg")) for m in modules), (
        modules
    )


def test_event_models_are_built_on_first_use() -> None:
    code = (
        "import events.harem_master.game as g\n"
        "before = g.TurnStarted.__pydantic_complete__\n"
        "g.TurnStarted(turn=1, active='A')\n"
        "print(before, g.TurnStarted.__pydantic_complete__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_commands_on_files_leave_the_store_out() -> None:
    record = str(ROOT / "scenarios" / "records" / "complete-legal-game.yaml")
    scenario = str(next((ROOT / "scenarios" / "306.5-battle").glob("*.yaml")))
    for argv in (["audit", record], ["scenario", "check", scenario]):
        modules, out = imported_by(*argv)
        assert not any(m.startswith(("eventsourcing", "psycopg", "referee.commands.matches")) for m in modules), (
            argv,
            modules,
        )
        assert "yaml" in modules  # it did read the file
