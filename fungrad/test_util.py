"""`check_grads`: compare forward and reverse mode with finite differences."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import tree as _tree
from .core.dtypes import is_inexact
from .transforms.ad import jvp, vjp

# by the itemsize of the narrowest float argument (float16 and bfloat16 are 2 bytes)
_DEFAULT_TOL = {8: 1e-6, 4: 2e-2, 2: 1e-1}
_DEFAULT_EPS = {8: 1e-5, 4: 2e-3, 2: 1e-1}


def _random_array(rng, x):
    """Standard normal values like `x`; complex ones get random real and imaginary parts, so
    the finite differences probe both directions."""
    dt = np.asarray(x).dtype
    r = rng.standard_normal(np.shape(x))
    if dt.kind == "c":
        r = r + 1j * rng.standard_normal(np.shape(x))
    return r.astype(dt)


def _random_like(rng, tree):
    return _tree.tree_map(lambda x: _random_array(rng, x), tree)


def _wide(x):
    """float64, or complex128 for complex values (the precision the checks compare in)."""
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _vdot(a, b):
    """The real pairing Re(sum(a * b)) under which cotangents transpose (JAX's convention:
    no conjugation; for real arrays the ordinary dot)."""
    return sum(float(np.real(np.sum(_wide(x) * _wide(y))))
               for x, y in zip(_tree.tree_leaves(a), _tree.tree_leaves(b)))


def _numerical_jvp(f, args, tangents, eps):
    plus = f(*_tree.tree_map(lambda x, t: x + eps * t, args, tangents))
    minus = f(*_tree.tree_map(lambda x, t: x - eps * t, args, tangents))
    return _tree.tree_map(lambda a, b: (_wide(a) - _wide(b)) / (2 * eps), plus, minus)


def _assert_close(what, got, want, atol, rtol):
    for i, (g, w) in enumerate(zip(_tree.tree_leaves(got), _tree.tree_leaves(want))):
        g = _wide(g)
        w = _wide(w)
        if g.shape != w.shape:
            raise AssertionError(f"{what}: output {i} has shape {g.shape}, expected {w.shape}")
        if not np.allclose(g, w, atol=atol, rtol=rtol, equal_nan=True):
            err = np.max(np.abs(g - w)) if g.size else 0.0
            raise AssertionError(
                f"{what}: output {i} differs from finite differences (max abs error {err:.3g}, "
                f"atol={atol:g}, rtol={rtol:g})\n  got:      {np.array2string(g, precision=8)}"
                f"\n  expected: {np.array2string(w, precision=8)}")


def check_grads(f: Callable, args: Sequence, order: int = 1, modes=("fwd", "rev"),
                atol: float | None = None, rtol: float | None = None, eps: float | None = None,
                seed: int = 0) -> None:
    """Check `f`'s derivatives up to `order` in `modes` ("fwd", "rev") against central
    finite differences along random directions; raise AssertionError with a report.
    Complex arguments get complex directions; reverse mode is checked through the pairing
    Re(sum(ct * t)) (JAX's convention).

    Example:
        >>> fg.test_util.check_grads(fnp.sin, (np.array([0.5, 1.0]),), order=2)
    """
    args = tuple(args)
    leaves = _tree.tree_leaves(args)
    dtypes = [np.asarray(x).dtype for x in leaves]
    if not leaves or not all(is_inexact(d) for d in dtypes):
        raise TypeError(f"check_grads: all arguments must be float or complex arrays, got "
                        f"dtypes {dtypes}")
    # complex arguments: the precision of their real and imaginary parts
    low = min((np.finfo(d).dtype if d.kind == "c" else d for d in dtypes),
              key=lambda d: d.itemsize)
    tol = _DEFAULT_TOL.get(low.itemsize, 1e-6)
    atol = tol if atol is None else atol
    rtol = tol if rtol is None else rtol
    eps = _DEFAULT_EPS.get(low.itemsize, 1e-5) if eps is None else eps
    rng = np.random.default_rng(seed)
    name = getattr(f, "__name__", "f")
    tangents = _random_like(rng, args)

    if "fwd" in modes:
        _, t_out = jvp(f, args, tangents)
        _assert_close(f"check_grads({name}) forward mode (order {order})", t_out,
                      _numerical_jvp(f, args, tangents, eps), atol, rtol)
    if "rev" in modes:
        out, f_vjp = vjp(f, *args)
        ct = _random_like(rng, out)
        ct_in = f_vjp(ct)
        lhs = _vdot(ct_in, tangents)
        rhs = _vdot(ct, _numerical_jvp(f, args, tangents, eps))
        if not np.isclose(lhs, rhs, atol=atol, rtol=rtol):
            raise AssertionError(
                f"check_grads({name}) reverse mode (order {order}): <vjp(ct), t> = {lhs!r} "
                f"but <ct, finite-difference jvp(t)> = {rhs!r}")
    if order > 1:
        if "fwd" in modes:
            def f_jvp(*a):
                return jvp(f, a, tangents)[1]
            f_jvp.__name__ = f"jvp({name})"
            check_grads(f_jvp, args, order - 1, ("fwd",), atol, rtol, eps, seed + 1)
        if "rev" in modes:
            out = f(*args)
            ct = _random_like(np.random.default_rng(seed + 7), out)

            def f_vjp(*a):
                return vjp(f, *a)[1](ct)
            f_vjp.__name__ = f"vjp({name})"
            check_grads(f_vjp, args, order - 1, ("rev",), atol, rtol, eps, seed + 2)
