"""Every public name has a docstring with an example, and every example runs (doctest).

Examples run with `np`, `fg` (fungrad) and `fnp` (fungrad.numpy) already imported, one fresh
namespace per docstring, and ELLIPSIS / NORMALIZE_WHITESPACE on. Names that NumPy itself
provides (re-exported unchanged by fungrad.numpy) keep NumPy's docstring and are not
collected here.
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import types

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

# the public namespaces the reference documents
PUBLIC_MODULES = (
    "fungrad", "fungrad.numpy", "fungrad.numpy.linalg", "fungrad.numpy.fft", "fungrad.lax",
    "fungrad.nn", "fungrad.optim", "fungrad.random", "fungrad.tree", "fungrad.debug",
    "fungrad.scipy.special", "fungrad.scipy.stats", "fungrad.scipy.linalg",
    "fungrad.scipy.signal", "fungrad.scipy.integrate", "fungrad.extend",
    "fungrad.test_util", "fungrad.errors", "fungrad.checkpoint_policies", "fungrad.config",
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:  # attributes that are not modules (fg.config, fg.checkpoint_policies)
        parent, _, attr = name.rpartition(".")
        return getattr(importlib.import_module(parent), attr)


def _public_names(namespace) -> list[str]:
    names = getattr(namespace, "__all__", None)
    if names is None:
        names = [n for n in dir(namespace) if not n.startswith("_")]
    return sorted(names)


def _is_fungrads(obj) -> bool:
    """A function or class that fungrad defines (not NumPy's re-exported own, not a module)."""
    if isinstance(obj, types.ModuleType) or not callable(obj):
        return False
    return (getattr(obj, "__module__", "") or "").startswith("fungrad")


def _distributions(stats) -> list[tuple[str, object]]:
    """fg.scipy.stats's distributions are submodules (norm, t, ...): document each."""
    return [(f"fungrad.scipy.stats.{name}", getattr(stats, name))
            for name in _public_names(stats)
            if isinstance(getattr(stats, name), types.ModuleType)]


def public_objects() -> list[tuple[str, object]]:
    """(qualified name, object) for each public fungrad function and class, once each."""
    seen: set[int] = set()
    found = []
    modules = [(name, _module(name)) for name in PUBLIC_MODULES]
    modules += _distributions(_module("fungrad.scipy.stats"))
    for module_name, namespace in modules:
        for name in _public_names(namespace):
            obj = getattr(namespace, name, None)
            if not _is_fungrads(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            found.append((f"{module_name}.{name}", obj))
    return found


OBJECTS = public_objects()


def _doctest_of(qualname: str, obj) -> doctest.DocTest:
    globs = {"np": np, "fg": fg, "fnp": fnp}
    return doctest.DocTestParser().get_doctest(inspect.getdoc(obj) or "", globs, qualname,
                                               None, 0)


@pytest.mark.parametrize("qualname,obj", OBJECTS, ids=[q for q, _ in OBJECTS])
def test_docstring_has_an_example(qualname, obj):
    assert _doctest_of(qualname, obj).examples, (
        f"{qualname}'s docstring has no `>>>` example; add a short one that runs")


@pytest.mark.parametrize("qualname,obj", OBJECTS, ids=[q for q, _ in OBJECTS])
def test_docstring_example_runs(qualname, obj):
    test = _doctest_of(qualname, obj)
    if not test.examples:
        pytest.skip("no example (test_docstring_has_an_example fails for it)")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    output = []
    with np.printoptions(legacy=False):
        runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
