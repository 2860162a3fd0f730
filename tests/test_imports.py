"""No import circle in ``ntk_helpers``: every ``import`` and ``from ... import`` statement, at module level and inside
functions, read from the sources with ``ast`` (nothing is imported), forms a graph that must have no cycle.

An edge A -> B means that a statement in A imports B: ``import B``, ``from B import name`` (B itself), or
``from P import B`` where P.B is a module (then P.B, not P's ``__init__``). Relative imports are resolved against A's
package. The implicit import of a module's parent packages is not an edge (every package whose ``__init__`` imports
its modules would be a cycle otherwise). Also checked: the layers (the kernel rules and torch modules) reach neither
the evaluation module nor the compiled backend, and the backend reaches no layer module (it reads rules only).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ntk_helpers"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The ntk_helpers modules that ``name`` (the module at ``path``) imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:          # ``import a.b.c``: the deepest module that exists
                target = target.rpartition(".")[0]
            if target and target.startswith("ntk_helpers") and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a cycle through it."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
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
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [(_cycle_through(c, edges), c) for c in components]


def _cycle_through(component, edges):
    """One cycle that starts and ends at the component's first module, by breadth-first search inside it."""
    start, members = component[0], set(component)
    previous, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v] & members):
                if w == start:
                    path = [v]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
                if w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    return component


def reachable(edges, start):
    seen, todo = set(), [start]
    while todo:
        for w in edges[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def test_the_walk_sees_function_level_imports():
    """The walk must see an import inside a function (the kind that hides a circle until it runs)."""
    edges = graph()
    assert "ntk_helpers.engine.activation" in edges["ntk_helpers.engine.receptive_field"]


def test_no_import_cycle():
    found = cycles(graph())
    assert not found, "import cycles in ntk_helpers:\n" + "\n".join(
        f"{' -> '.join(cycle)}  (a circle of {len(members)} modules: {', '.join(members)})" for cycle, members in found)


def test_the_cycle_finder_finds_a_cycle():
    """The check can fail: a made-up graph with a circle through a function-level import is reported."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [(["a", "b", "c", "a"], ["a", "b", "c"])]
    assert cycles({"a": {"b"}, "b": set()}) == []


LAYERS = ["layer", "combinators", "activation", "activations", "conv", "dense", "pooling", "normalization",
          "architectures", "kernel", "rules", "spatial", "quadrature"]


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_do_not_reach_the_evaluation(layer):
    edges = graph()
    reached = reachable(edges, f"ntk_helpers.engine.{layer}")
    bad = sorted(m for m in reached
                 if m == "ntk_helpers.engine.evaluation" or m.startswith("ntk_helpers.engine.compiled"))
    assert not bad, (f"ntk_helpers.engine.{layer} imports (directly or not) {bad}: evaluation depends on the layers, "
                     "never the reverse")


#: The modules that define layer classes (the kernel, the rules and the pixel-pair geometry of spatial.py are data and
#: helpers the backend may use).
LAYER_CLASSES = ["layer", "combinators", "activation", "activations", "conv", "dense", "pooling", "normalization",
                 "architectures"]


def test_the_backend_reads_rules_not_layers():
    edges = graph()
    layer_modules = {f"ntk_helpers.engine.{m}" for m in LAYER_CLASSES}
    for name in edges:
        if name.startswith("ntk_helpers.engine.compiled"):
            bad = sorted(reachable(edges, name) & layer_modules)
            assert not bad, f"{name} imports {bad}: the fused backend must compile the layers' rules, not match classes"
