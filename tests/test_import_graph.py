"""No import cycle among the project's modules, not even one hidden behind an
import inside a function.

The graph is read from the source with ``ast``: every ``import`` and
``from ... import`` of a module of ``events``, ``projections`` or
``referee``, wherever it is written (at the top, inside a function), but
those under ``if TYPE_CHECKING:``, which never run. A cycle means two
modules each need the other to be whole: the layers (events <- projections
<- referee) and the rule modules must each be readable one way.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from sourcetree import parsed

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("events", "projections", "referee", "bench")


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each module and the project modules it imports, read once per run
    (tests/test_kernel_imports.py reads the same graph): do not mutate it."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        tree = parsed(path)
        skip = _type_checking_only(tree)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in known)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in known:
                        graph[name].add(sub)
                    elif target in known:
                        graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read_from_every_kind_of_import() -> None:
    graph = import_graph()
    assert "projections.harem_master.state" in graph["referee.rules.harem_master.engine"]  # from ... import, at the top
    assert "referee.store" in graph["referee.commands.matches"]  # inside a function
    assert "referee.rules.harem_master.turn" in graph["referee.rules.harem_master.engine"]  # from package import module


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_tree_is_parsed_once_per_run() -> None:
    """The graph is built once and every file parsed once, however many tests read it."""
    assert import_graph() is import_graph()
    path = next(iter(modules().values()))
    assert parsed(path) is parsed(path)


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_benchmarks_import_the_product_and_never_the_other_way() -> None:
    """``bench`` (``referee bench``) is a package of its own: the product's
    command line names it by string (``referee.cli.COMMANDS``), and no
    module of ``events``, ``projections`` or ``referee`` imports it."""
    graph = import_graph()
    product = {m: deps for m, deps in graph.items() if not m.startswith("bench")}
    assert not {
        m: sorted(d for d in deps if d.startswith("bench"))
        for m, deps in product.items()
        if any(d.startswith("bench") for d in deps)
    }
    assert any(d.startswith("referee") for d in graph["bench.figures"])
