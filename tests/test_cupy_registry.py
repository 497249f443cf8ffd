"""The registry checker on CuPy: every spec's function on CuPy arrays gives CuPy arrays
with NumPy's numbers, eagerly, under jit, under vmap, and in its vector-Jacobian product
(eager and jitted, the way a training step runs).

NumPy's results are the reference (tests/test_registry.py checks those against finite
differences and loops); here only the backend changes. Skips (with the reason) where CuPy
or a GPU is missing.
"""
import numpy as np
import pytest
from hypothesis import Phase, given, settings, strategies as st

import fungrad as fg
from fungrad import tree
from fungrad.backend import cupy_available
from fungrad.core.dtypes import is_inexact

from checker.registry import FNP, PRIM
from test_registry import SETTINGS

pytestmark = pytest.mark.skipif(not cupy_available(),
                                reason="CuPy with a visible GPU is not available here")

ALL = [("fnp", n) for n in sorted(FNP)] + [("prim", n) for n in sorted(PRIM)]
# decompositions whose vectors are defined up to sign: cuSOLVER and LAPACK may pick either,
# so vectors compare in absolute value and cotangents on them are zero (values stay exact)
GAUGE = {"eigh", "linalg.eigh", "svd", "linalg.svd"}
# no shrinking: a failure's first example is reported as drawn (GPU time is scarce)
CUPY_SETTINGS = dict(SETTINGS, max_examples=2, phases=(Phase.generate,))


def each_spec(test):
    """`test(kind, name, data)` for every spec, on a few drawn cases each."""
    return pytest.mark.parametrize("kind,name", ALL)(
        settings(**CUPY_SETTINGS)(given(data=st.data())(test)))


def _draw(data, kind, name):
    return data.draw((FNP if kind == "fnp" else PRIM)[name])


def _to_gpu(args):
    import cupy as cp
    return tuple(cp.asarray(a) for a in args)


def _vector_leaves(leaves):
    """Which leaves of a GAUGE decomposition's output are vectors: those of the largest
    rank, when a leaf of smaller rank (the values) is beside them."""
    ranks = [np.ndim(x) for x in leaves]
    return [len(set(ranks)) > 1 and r == max(ranks) for r in ranks]


def _assert_same(got, want, what, gauge=False):
    """`got` (from CuPy inputs) holds CuPy arrays with `want`'s (NumPy's) shapes, dtypes and
    values; GPU kernels round differently, hence a tolerance."""
    import cupy as cp
    got_leaves, want_leaves = tree.tree_leaves(got), tree.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), what
    vectors = _vector_leaves(want_leaves) if gauge else [False] * len(want_leaves)
    for g, w, up_to_sign in zip(got_leaves, want_leaves, vectors):
        if up_to_sign:
            g, w = abs(g), np.abs(w)
        if type(w) in (bool, int, float) and type(g) is type(w):  # (allclose: a Python bool)
            assert g == w, what
            continue
        w = np.asarray(w)
        if w.dtype == fg.float0:
            continue
        assert isinstance(g, cp.ndarray), f"{what}: {type(g).__name__} out for CuPy inputs"
        assert g.shape == w.shape and g.dtype == w.dtype, (what, g.shape, g.dtype, w.shape,
                                                           w.dtype)
        tol = 1e-5 if w.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(cp.asnumpy(g), w, rtol=tol, atol=tol, err_msg=what)


def _cotangent(out, rng):
    def like(o):
        o = np.asarray(o)
        if not is_inexact(o.dtype):
            return np.zeros(o.shape, fg.float0)
        c = rng.standard_normal(o.shape)
        return np.asarray(c + 1j * rng.standard_normal(o.shape) if o.dtype.kind == "c" else c,
                          o.dtype)
    return tree.tree_map(like, out)


def _ct_to_gpu(ct):
    import cupy as cp
    return tree.tree_map(lambda c: c if c.dtype == fg.float0 else cp.asarray(c), ct)


@each_spec
def test_eager_on_cupy(kind, name, data):
    case = _draw(data, kind, name)
    _assert_same(case.fn(*_to_gpu(case.args)), case.fn(*case.args), "eager", name in GAUGE)


@each_spec
def test_jit_on_cupy(kind, name, data):
    case = _draw(data, kind, name)
    _assert_same(fg.jit(case.fn)(*_to_gpu(case.args)), case.fn(*case.args), "jit",
                 name in GAUGE)


@each_spec
def test_vmap_on_cupy(kind, name, data):
    case = _draw(data, kind, name)
    rng = np.random.default_rng(2)
    batched = tuple(np.stack([a, a if not is_inexact(a.dtype) else
                              a + (1e-3 * rng.standard_normal(a.shape)).astype(a.dtype)])
                    for a in map(np.asarray, case.args))
    _assert_same(fg.vmap(case.fn)(*_to_gpu(batched)), fg.vmap(case.fn)(*batched), "vmap",
                 name in GAUGE)


@each_spec
def test_vjp_on_cupy(kind, name, data):
    case = _draw(data, kind, name)
    if not case.diff:
        return
    out, f_vjp = fg.vjp(case.fn, *case.args)
    ct = _cotangent(out, np.random.default_rng(3))
    if name in GAUGE:  # (the derivative of the values only: vectors' signs may differ)
        leaves, treedef = tree.tree_flatten(ct)
        ct = tree.tree_unflatten(treedef, [np.zeros_like(c) if v else c for c, v in
                                           zip(leaves, _vector_leaves(leaves))])
    want = f_vjp(ct)
    gpu_args, gpu_ct = _to_gpu(case.args), _ct_to_gpu(ct)
    gpu_out, gpu_vjp = fg.vjp(case.fn, *gpu_args)
    _assert_same(gpu_out, out, "vjp primal", name in GAUGE)
    _assert_same(gpu_vjp(gpu_ct), want, "vjp")

    def pullback(args, ct):
        return fg.vjp(case.fn, *args)[1](ct)
    _assert_same(fg.jit(pullback)(gpu_args, gpu_ct), want, "jit(vjp)")
