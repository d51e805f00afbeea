"""The engine's caches under threads: the board serves requests from several threads at once,
and each asks the rules about its own states. Hammered from threads with a tiny switch
interval, every cache answers each thread for the state it asked about (none hands one
state's answers to another, none raises), and the legal actions come out as one thread
alone works them out. Nothing here reads the clock: the bounds are counts of calls."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable
from typing import Any

from test_records import decks

from referee.rules.harem_master import characteristics, legal_actions, start
from referee.rules.harem_master.decks import deal
from referee.simulate import random_action

THREADS = 4


def _states(n: int = 40) -> list[Any]:
    """The states of a game played at random, one per action."""
    cards, castles = deal(decks())
    applied = start(cards, castles, seed=5)
    state = applied.state
    rng = random.Random(5)
    out = [state]
    while len(out) < n and state.result is None:
        legal = [a for a in legal_actions(state) if a.do not in ("concede", "propose_draw", "accept_draw")]
        from referee.rules.harem_master import apply

        state = apply(state, random_action(state, legal, rng)).state
        out.append(state)
    return out


def _hammer(work: Callable[[int], None], rounds: int) -> list[BaseException]:
    """Run ``work(k)`` for k in range(rounds) in each of THREADS threads at
    once, switching threads as often as the interpreter can; what they raised."""
    failures: list[BaseException] = []
    start_line = threading.Barrier(THREADS)

    def run(seed: int) -> None:
        start_line.wait()
        try:
            for k in range(rounds):
                work(seed * 7919 + k)
        except BaseException as exc:  # noqa: BLE001 - what the test looks for
            failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    return failures


def test_the_memo_gives_each_thread_the_answers_of_its_own_state() -> None:
    """Many more states than the memo keeps, asked in turn from every thread:
    each dict handed out is that state's (its marker says so), and the table
    of the last few never loses an entry under another thread (the KeyError
    a board once answered 500 with)."""
    states = _states()
    assert len(states) > characteristics.MEMO_STATES * 3
    for state in states:
        characteristics.memo(state)["owner"] = (id(state), state.position)
    wrong: list[Any] = []

    def work(k: int) -> None:
        state = states[k % len(states)]
        found = characteristics.memo(state)
        owner = found.setdefault("owner", (id(state), state.position))
        if owner != (id(state), state.position):
            wrong.append((owner, state.position))

    failures = _hammer(work, 20_000)
    assert failures == [] and wrong == []


def test_legal_actions_from_threads_are_those_one_thread_works_out() -> None:
    states = _states()
    alone = [sorted(map(repr, legal_actions(s))) for s in states]
    differ: list[int] = []

    def work(k: int) -> None:
        i = k % len(states)
        if sorted(map(repr, legal_actions(states[i]))) != alone[i]:
            differ.append(i)

    failures = _hammer(work, 600)
    assert failures == [] and differ == []
