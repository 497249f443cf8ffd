"""The package's layering (docs/design.md): dependencies point one way, no import cycles
outside fungrad/lax, and no undefined names (pyflakes)."""
import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "fungrad"
BASE = {"fungrad.errors", "fungrad.config", "fungrad.tree", "fungrad.backend"}
# what each layer may import (by module-name prefix), besides the base modules and itself
ALLOWED = {
    "fungrad.core": (),
    "fungrad.compiler": ("fungrad.core",),
    "fungrad.transforms": ("fungrad.core", "fungrad.compiler"),
    "fungrad.lax": ("fungrad.core", "fungrad.compiler", "fungrad.transforms"),
    "fungrad.extend": ("fungrad.core", "fungrad.compiler", "fungrad.transforms", "fungrad.lax"),
    "fungrad.numpy": ("fungrad.core", "fungrad.compiler", "fungrad.transforms", "fungrad.lax",
                      "fungrad.extend"),
    "fungrad.nn": ("fungrad.core", "fungrad.compiler", "fungrad.transforms", "fungrad.lax",
                   "fungrad.numpy", "fungrad.random"),
    "fungrad.random": ("fungrad.core", "fungrad.lax", "fungrad.numpy"),
    "fungrad.optim": ("fungrad.core", "fungrad.transforms", "fungrad.numpy", "fungrad.random"),
    "fungrad.debug": ("fungrad.lax",),
    "fungrad.checkify": ("fungrad.core", "fungrad.transforms", "fungrad.lax"),
    "fungrad.scipy": ("fungrad.core", "fungrad.compiler", "fungrad.transforms", "fungrad.lax",
                      "fungrad.extend", "fungrad.numpy", "fungrad.nn"),
}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path) -> set:
    """fungrad modules `path` imports, at module level or inside functions."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("fungrad"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("fungrad"):
                continue
            if node.module is None:  # `from .. import tree`: the names are modules
                found.update(f"{target}.{a.name}" for a in node.names)
            else:
                found.add(target)
    return found


def _graph() -> dict:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for target in _imports(path):
            while target not in modules and "." in target:  # `from x import name`
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                deps.add(target)
        graph[name] = deps
    return graph


def _layer(module: str):
    for layer in ALLOWED:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def test_dependencies_point_one_way():
    wrong = []
    for module, deps in sorted(_graph().items()):
        layer = _layer(module)
        if layer is None:
            continue
        for dep in sorted(deps):
            if not (dep in BASE or _layer(dep) == layer or _layer(dep) in ALLOWED[layer]):
                wrong.append(f"{module} -> {dep}")
    assert not wrong, "imports against the layering (docs/design.md):\n" + "\n".join(wrong)


def _cycles(graph) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_outside_lax():
    graph = _graph()
    # the package __init__ files re-export their modules; a module importing a sibling via
    # its package is not a cycle of the code
    for pkg in ("fungrad", "fungrad.numpy", "fungrad.lax"):
        for deps in graph.values():
            deps.discard(pkg)
    bad = [c for c in _cycles(graph) if not all(m.startswith("fungrad.lax") for m in c)]
    assert not bad, f"import cycles: {bad}"


def test_pyflakes_finds_no_undefined_names():
    pytest.importorskip("pyflakes")
    out = subprocess.run([sys.executable, "-m", "pyflakes", str(PACKAGE)],
                         capture_output=True, text=True).stdout
    undefined = [line for line in out.splitlines() if "undefined name" in line]
    assert not undefined, "\n".join(undefined)
