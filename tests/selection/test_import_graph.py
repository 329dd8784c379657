"""selection/ has no import cycle: not between its modules, and not between the siblings of any of its packages.

The second is what import-linter's ``acyclic_siblings`` contract checks (a package's subpackages
and modules, each with everything below it, must not import each other in a circle); the
registry is a leaf that only the name-resolving and command-line modules import.
"""

import pytest

grimp = pytest.importorskip("grimp")  # installed with import-linter


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("selection", cache_dir=None)


def _cycle(nodes, edges) -> list:
    """One cycle of the directed graph (nodes, node -> set of nodes), or []."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = "done"
        stack.pop()
        return []

    for n in sorted(nodes):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return []


def test_no_cycle_between_modules(graph):
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycle(graph.modules, edges) == []


def test_no_cycle_between_the_siblings_of_any_package(graph):
    packages = {m for m in graph.modules if graph.find_children(m)}
    for pkg in sorted(packages):
        kids = sorted(graph.find_children(pkg))
        below = {k: {k, *graph.find_descendants(k)} for k in kids}
        owner = {m: k for k, ms in below.items() for m in ms}
        edges = {k: set() for k in kids}
        for k, ms in below.items():
            for m in ms:
                for target in graph.find_modules_directly_imported_by(m):
                    if owner.get(target, k) != k:
                        edges[k].add(owner[target])
        assert _cycle(kids, edges) == [], pkg


def test_the_registry_is_a_leaf(graph):
    """Only the modules that turn names into estimators or describe them import the registry (the planner looks
    each name up once and passes the entries on); it imports the classes it names and nothing that imports it back
    (no evaluation, no help text)."""
    importers = set(graph.find_modules_that_directly_import("selection.registry"))
    assert importers <= {"selection", "selection.evaluation.specs", "selection.evaluation.plan",
                         "selection.param_routing", "selection.methods_help", "selection.frames",
                         "selection.model", "selection.encoding"}, importers
    upstream = graph.find_upstream_modules("selection.registry")
    assert not {m for m in upstream if m.startswith("selection.evaluation")}
    assert "selection.methods_help" not in upstream and "selection.param_routing" not in upstream
