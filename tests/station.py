"""A judge station for the venue tests: runs referee commands in one process, as fast as it can.

    python tests/station.py URL play MATCH [ACTIONS] [--at T]
    python tests/station.py URL station DECKS_DIR [--at T]

``play`` applies random legal actions to MATCH through the ``act`` command
itself (its click command, called in-process: the store opened, the action
checked and written, the store closed, exactly as ``referee act`` does, but
without an interpreter start per action), so a ``kill -9`` from the test
lands inside a write far more often than between processes. ``station`` is
one of eight stations starting together: it waits until the clock reads
``T`` (so all of them open the database at the same instant), then starts
a match (the first of them makes the tables), lists the matches, reads its
match and acts on it. Any command failing
ends the station with its exit code, which is what the tests look at.
"""

from __future__ import annotations

import io
import json
import random
import sys
import time
from contextlib import redirect_stderr, redirect_stdout

import click

from referee.cli import cli


def run(*argv: str) -> str:
    """One referee command in this process; its output. A failing command
    ends the station with that command's exit code and says which it was."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            cli.main(list(argv), prog_name="referee", standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (0, None):
            sys.stderr.write(f"station: {' '.join(argv[:3])} exited {exc.code}: {err.getvalue()}")
            sys.exit(int(exc.code) if isinstance(exc.code, int) else 2)
    except click.ClickException as exc:
        sys.stderr.write(f"station: {' '.join(argv[:3])}: {exc.format_message()}\n")
        sys.exit(exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - a store error, say; `referee` would exit 2
        sys.stderr.write(f"station: {' '.join(argv[:3])}: {type(exc).__name__}: {exc}\n")
        sys.exit(2)
    return out.getvalue()


def random_action(url: str, match: str, rng: random.Random) -> list[str] | None:
    """``P DO [CARDS...]`` of a random legal action that keeps the game going,
    or None when there is none (the game is over)."""
    from bench.figures import _act_arguments
    from referee.store import MatchStore, StoreError

    try:
        with MatchStore(url, read_only=True) as store:
            state, _ = store.load(match)
    except StoreError as exc:  # as `referee` would say it: one line, exit 2
        sys.stderr.write(f"station: load {match}: StoreError: {exc}\n")
        sys.exit(2)
    if state.result is not None:
        return None
    legal = json.loads(run("legal", match, "--db", url, "--json"))["actions"]
    rng.shuffle(legal)
    try:
        return _act_arguments(state, legal)
    except RuntimeError:
        return None


def play(url: str, match: str, actions: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(actions):
        argv = random_action(url, match, rng)
        if argv is None:
            return
        run("act", match, *argv, "--db", url)
        print("acted", flush=True)  # the test kills between and during writes


def station(url: str, decks: str, at: float) -> None:
    time.sleep(max(0.0, at - time.time()))
    match = run("new", "--deck", f"A={decks}/alice.yaml", "--deck", f"B={decks}/bob.yaml", "--db", url).strip()
    run("matches", "--db", url)
    run("legal", match, "--db", url)
    run("state", match, "--db", url)
    with redirect_stdout(io.StringIO()):
        play(url, match, 2, seed=hash(match) & 0xFFFF)
    run("log", match, "--db", url)
    run("matches", "--db", url)
    print(match)


def main(args: list[str]) -> None:
    at = time.time()
    if "--at" in args:
        k = args.index("--at")
        at = float(args[k + 1])
        del args[k : k + 2]
    url, what, *rest = args
    if what == "play":
        play(url, rest[0], int(rest[1]) if len(rest) > 1 else 10_000, seed=int(at * 1000) & 0xFFFF)
    elif what == "station":
        station(url, rest[0], at)
    else:
        raise SystemExit(f"station: unknown task {what!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
