"""No module of ``core/`` or ``tui/`` imports itself round a circle.

import-linter's contracts see the imports at the top of a module; a circle kept
out of run time by an import inside a function, or written for the type checker
under ``if TYPE_CHECKING:``, is still a circle a reader has to hold in their head.
So every module is parsed here with :mod:`ast` and every import counts: at the top,
inside functions and classes, and under ``if TYPE_CHECKING:`` (one test leaves
those out: the imports that run). A cycle is a strongly connected set of modules
(Tarjan's algorithm), shown with one path round it.

``from package import name`` is an import of ``package.name`` when that is a
module, else of the package itself. A module's own package (its ``__init__``,
which Python runs first) is not counted unless the module imports it by name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "tui")

#: cycles known today and being untied elsewhere: each is a set of modules that may
#: still import each other round a circle (counting imports for the type checker).
#: Once one is gone, its entry must go too (a test below says so).
ALLOWED_CYCLES: tuple[frozenset[str], ...] = ()

Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, *, typing_too: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement anywhere in the tree (in functions and classes too);
    the body of ``if TYPE_CHECKING:`` only with ``typing_too``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node) and not typing_too:
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is one of our modules."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, modules: dict[str, Path], *, typing_too: bool) -> set[str]:
    path = modules[name]
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_nodes(tree, typing_too=typing_too):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        for target in targets:
            known = _known(target, modules)
            if known is not None and known != name:
                found.add(known)
    return found


@cache
def graph(*, typing_too: bool) -> Graph:
    modules = module_files()
    return {name: imports_of(name, modules, typing_too=typing_too) for name in modules}


def cycles(edges: Graph) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(frozenset(members))
    return found


def path_round(members: frozenset[str], edges: Graph) -> list[str]:
    """One circle through the first of ``members``, as a list of modules."""
    first = min(members)
    paths = {first: [first]}
    queue = [first]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges[node] & members):
            if child == first:
                return [*paths[node], first]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return sorted(members)


def shown(found: list[frozenset[str]], edges: Graph) -> str:
    return "\n".join(" -> ".join(path_round(members, edges)) for members in found)


def _allowed(members: frozenset[str]) -> bool:
    return any(members <= allowed for allowed in ALLOWED_CYCLES)


# --------------------------------------------------------------------------- tests
def test_the_cycle_finder_finds_a_circle_and_nothing_else() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [frozenset({"a", "b", "c"})]
    assert path_round(frozenset({"a", "b", "c"}), edges) == ["a", "b", "c", "a"]


def test_an_import_inside_a_function_or_for_the_type_checker_counts() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import x\n"
        "def f():\n    import y\n"
    )
    typed = {n.names[0].name for n in _import_nodes(tree, typing_too=True)}
    running = {n.names[0].name for n in _import_nodes(tree, typing_too=False)}
    assert typed == {"TYPE_CHECKING", "x", "y"}
    assert running == {"TYPE_CHECKING", "y"}


def test_no_module_imports_itself_round_a_circle_counting_every_import() -> None:
    edges = graph(typing_too=True)
    found = [members for members in cycles(edges) if not _allowed(members)]
    assert not found, (
        f"import cycles (imports in functions and for types count):\n{shown(found, edges)}"
    )


def test_no_import_that_runs_makes_a_circle() -> None:
    """Without the type checker's imports: what a running process imports, at the top
    of a module or inside a function (no allow-list here)."""
    edges = graph(typing_too=False)
    found = cycles(edges)
    assert not found, f"import cycles at run time:\n{shown(found, edges)}"


def test_the_store_has_no_cycle_at_all() -> None:
    """The store's handle, its transaction machinery and its catalog import one
    another one way only (no allow-list for ``core.store``)."""
    edges = graph(typing_too=True)
    found = [m for m in cycles(edges) if any(name.startswith("core.store") for name in m)]
    assert not found, shown(found, edges)


def test_every_allowed_cycle_is_still_there() -> None:
    """An allowed cycle that was untied leaves :data:`ALLOWED_CYCLES`, so none comes
    back unnoticed."""
    found = cycles(graph(typing_too=True))
    gone = [sorted(allowed) for allowed in ALLOWED_CYCLES if not any(m <= allowed for m in found)]
    assert not gone, f"no longer a cycle; remove from ALLOWED_CYCLES: {gone}"
