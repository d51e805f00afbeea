"""Long-lived helper processes for the fault tests (tests/test_faults.py): each runs referee
commands in its own process, in a loop, so a test starts an interpreter once, not per command.

    python tests/faultkit.py full URL MATCH LIMIT...
        one `act` per LIMIT, each with the process's files limited to LIMIT
        bytes (RLIMIT_FSIZE: a disk that is full past that), then an
        `import` of the sample record the same way with the last LIMIT
    python tests/faultkit.py race URL MATCH actor|judge T0 STEP TRIALS
        at T0, T0+STEP, ...: the actor reads the match and sends a random
        legal action with `act --expect-version` (the version it read); the
        judge rewinds to just before the last action; each says what happened

Every command runs through ``referee.cli.main`` (exactly the installed
command) and prints one JSON line: its exit code and its standard error.
An exception it lets through is printed as ``{"traceback": ...}``.
"""

from __future__ import annotations

import io
import json
import random
import resource
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def command(*argv: str) -> dict[str, object]:
    from referee.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    sys.argv = ["referee", *argv]
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code if exc.code is not None else 0
    except BaseException:  # noqa: BLE001 - what the test looks for
        return {"traceback": traceback.format_exc()}
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def argv_of(action: object) -> list[str]:
    a = action  # a referee.actions.Action with instance ids
    argv = [a.player, a.do, *([a.card] if a.card else []), *(a.cards or ())]  # type: ignore[attr-defined]
    if a.target:  # type: ignore[attr-defined]
        argv += ["--target", a.target]  # type: ignore[attr-defined]
    if a.order:  # type: ignore[attr-defined]
        argv += ["--order", a.order]  # type: ignore[attr-defined]
    return argv


def random_action(url: str, match: str, rng: random.Random) -> tuple[int, list[str]]:
    from referee.rules.harem_master import legal_actions
    from referee.simulate import random_action as pick
    from referee.store import MatchStore

    with MatchStore(url, read_only=True) as store:
        state, version = store.load(match)
    legal = [a for a in legal_actions(state) if not a.targets and a.ability is None and a.option is None]
    return version, argv_of(pick(state, legal, rng))


def full(url: str, match: str, limits: list[int]) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    rng = random.Random(9)
    for k, limit in enumerate(limits):
        version, argv = random_action(url, match, rng)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            if k < len(limits) - 1:
                done = command("act", match, *argv, "--db", url)
            else:
                sample = str(ROOT / "scenarios" / "records" / "complete-legal-game.yaml")
                done = command("import", sample, "--db", url, "--accept-broken-chain", "--by", "K", "--reason", "x")
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        print(json.dumps({"limit": limit, "version": version, **done}), flush=True)


def race(url: str, match: str, role: str, t0: float, step: float, trials: int) -> None:
    from events.kernel import ActionTaken
    from referee.store import MatchStore

    rng = random.Random(int(t0) ^ (1 if role == "actor" else 2))
    for trial in range(trials):
        time.sleep(max(0.0, t0 + trial * step - time.time()))
        if role == "actor":
            version, argv = random_action(url, match, rng)
            done = command("act", match, *argv, "--expect-version", str(version), "--db", url, "--json")
            print(json.dumps({"trial": trial, "version": version, "argv": argv, **done}), flush=True)
            for _ in range(2):  # play on, so the next rewind has something to take back
                _, more = random_action(url, match, rng)
                command("act", match, *more, "--db", url)
        else:
            with MatchStore(url, read_only=True) as store:
                log = store.events(match)
            to = max(i for i, e in enumerate(log) if isinstance(e, ActionTaken))  # just before the last action
            done = command(
                "rewind", match, "--to", str(to), "--rule", "410.1", "--reason", f"race {trial}", "--db", url
            )
            print(json.dumps({"trial": trial, "to": to, **done}), flush=True)


if __name__ == "__main__":
    what, url, match, *rest = sys.argv[1:]
    if what == "full":
        full(url, match, [int(x) for x in rest])
    elif what == "race":
        race(url, match, rest[0], float(rest[1]), float(rest[2]), int(rest[3]))
    else:
        raise SystemExit(f"faultkit: unknown task {what!r}")
