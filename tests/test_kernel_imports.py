"""The kernel knows no game: no kernel module imports a game's modules.

Issue 17's move ("the kernel knows no game", docs/rulesets.md) went one
module at a time, with this test as its ratchet: ``KNOWN`` listed every
import of a game's module that a kernel module still made (read with
``ast`` as ``tests/test_import_graph.py`` reads the graph, imports inside
functions included); a new one failed the test, and so did one a change
removed until it was taken off the list. The list is now empty: any kernel
module importing a game's package fails.

A game's modules are those under a game's package in each layer
(``events.harem_master``, ``projections.harem_master``,
``referee.rules.harem_master``, and SCP-TCG's). The registry (``referee.ruleset``) is the one
place meant to name games.
"""

from __future__ import annotations

from test_import_graph import import_graph

GAME_PACKAGES = (
    "events.harem_master",
    "events.scp_tcg",
    "projections.harem_master",
    "projections.scp_tcg",
    "referee.rules.harem_master",
    "referee.rules.scp_tcg",
)
KERNEL = (
    "events.kernel",
    "events.tournament",
    "projections.by_type",
    "projections.encoding",
    "projections.judging",
    "projections.lineage",
    "projections.tournament",
    "bench",
    "referee.chain",
    "referee.cli",
    "referee.commands",
    "referee.corrections",
    "referee.records",
    "referee.scenario",
    "referee.simulate",
    "referee.store",
    "referee.tournament",
    "referee.web",
)


def is_game(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in GAME_PACKAGES)


def is_kernel(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in KERNEL)


def game_imports() -> dict[str, tuple[str, ...]]:
    """Each kernel module that imports a game's module, with those modules."""
    out = {}
    for module, deps in import_graph().items():
        found = tuple(sorted(d for d in deps if is_game(d)))
        if is_kernel(module) and found:
            out[module] = found
    return out


KNOWN: dict[str, tuple[str, ...]] = {}


def test_no_kernel_module_imports_a_game_module_beyond_the_known_list() -> None:
    found = game_imports()
    new = {m: sorted(set(deps) - set(KNOWN.get(m, ()))) for m, deps in found.items()}
    new = {m: deps for m, deps in new.items() if deps}
    assert not new, f"kernel modules importing a game's modules (go through referee.ruleset instead): {new}"


def test_the_known_list_shrinks_as_the_move_goes() -> None:
    found = game_imports()
    gone = {m: sorted(set(deps) - set(found.get(m, ()))) for m, deps in KNOWN.items()}
    gone = {m: deps for m, deps in gone.items() if deps}
    assert not gone, f"no longer imported: take them off KNOWN in tests/test_kernel_imports.py: {gone}"


def test_the_registry_alone_is_not_counted_as_kernel() -> None:
    assert not is_kernel("referee.ruleset") and is_game("referee.rules.harem_master.turn")
    assert is_kernel("referee.store.matches") and not is_game("referee.store.matches")
