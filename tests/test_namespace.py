"""fungrad.numpy defines every public name explicitly (no star imports, no globals().update),
so linters and go-to-definition can follow each fnp name to where it is defined."""
import ast
import pathlib
import subprocess
import sys

import pytest

import fungrad.numpy as fnp
from fungrad.numpy import _elementwise

FNP_DIR = pathlib.Path(fnp.__file__).parent


def _bound_names(path):
    """Names a module binds at its top level by def, class, assignment or import, read from
    its source (what a linter sees), not from the imported module (what it did at runtime)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:  # `x = ...` and `a, b = ...`
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def test_every_public_fnp_name_is_imported_explicitly_and_listed_in_all():
    public = {n for n in vars(fnp) if not n.startswith("_")}
    assert public - _bound_names(FNP_DIR / "__init__.py") == set()
    assert sorted(fnp.__all__) == sorted(public)


def test_every_name_imported_from_a_submodule_is_defined_there():
    tree = ast.parse((FNP_DIR / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            defined = _bound_names(FNP_DIR / f"{node.module}.py")
            missing = {a.name for a in node.names} - defined
            assert not missing, f"fungrad/numpy/{node.module}.py does not define {missing}"


def test_each_table_row_binds_its_own_public_name():
    # catches a row like `sin = _unary("cos", ...)`
    for name, _, _ in _elementwise.UNARY + _elementwise.BINARY:
        assert getattr(_elementwise, name).__name__ == name


def test_fungrad_numpy_is_clean_under_pyflakes():
    pytest.importorskip("pyflakes")
    out = subprocess.run([sys.executable, "-m", "pyflakes", str(FNP_DIR)],
                         capture_output=True, text=True).stdout
    bad = [line for line in out.splitlines()
           if "import *" in line or "undefined name" in line or "imported but unused" in line]
    assert bad == []
