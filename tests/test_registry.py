"""The registry-driven checker (DESIGN.md, last section).

For every primitive and every public fungrad.numpy function, hypothesis draws shapes
(including broadcasting pairs and 0-d) and values from the function's spec and checks:
the traced path against NumPy's values, abstract shapes/dtypes against real ones (float64
and float32), JVP against central differences (float64), VJP against finite differences,
the transposition identity <vjp(ct), t> == <ct, jvp(t)>, second order, vmap against a
Python loop, and jit against eager.
A primitive or fnp function without a spec fails `test_every_*_has_a_spec`.
"""
import importlib
import importlib.util
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import fungrad as fg
import fungrad.numpy as fnp
from fungrad import tree
from fungrad.test_util import check_grads
from fungrad.core.dtypes import is_inexact
from fungrad.core.primitive import registered_primitives

from checker.coverage import coverage
from checker.registry import COMPLEX_CASES, COMPLEX_REJECTED, CREATION, FNP, PRIM
from fungrad.numpy import _elementwise as fnp_elementwise
from fungrad.numpy._host import HOST_FUNCTIONS

# fnp names that are not array functions: dtypes, constants, dtype/shape queries.
NOT_FUNCTIONS = {"bool_", "complex64", "complex128", "dtype", "finfo", "float16", "float32",
                 "float64", "iinfo", "int8", "int16", "int32", "int64", "intp", "issubdtype",
                 "ndarray", "promote_types", "uint8", "uint16", "uint32", "uint64", "floating",
                 "integer", "inexact", "number", "result_type", "shape", "ndim", "size",
                 } | set(HOST_FUNCTIONS)  # (NumPy's own, re-exported)

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# fnp functions whose output shape depends on the values: they work on concrete values
# only (under grad/jvp), not under jit or vmap (tests/test_errors.py checks them).
VALUE_DEPENDENT_SHAPE = {"nonzero", "asarray_chkfinite"}  # (the latter checks values)
VALUE_DEPENDENT_SHAPE |= {"trim_zeros"}  # (tests/test_manipulation.py)
# fnp functions that only raise (they write in place): tests/test_manipulation.py
NOT_FUNCTIONS |= {"copyto"}


def _public_functions(module, prefix=""):
    """Public functions of `module` (spec names: `prefix` + name), and of its public fungrad
    submodules (fnp.linalg, fnp.fft, fg.scipy.special, ...), prefixed with their path."""
    names = []
    for n, v in vars(module).items():
        if n.startswith("_"):
            continue
        if isinstance(v, types.ModuleType):
            if v.__name__ == f"{module.__name__}.{n}":  # a submodule, not an imported module
                names += _public_functions(v, f"{prefix}{n}.")
        elif (callable(v) and n not in NOT_FUNCTIONS and n not in VALUE_DEPENDENT_SHAPE
              and not isinstance(v, type)):
            names.append(prefix + n)
    return sorted(names)


def _public_fnp_functions():
    names = _public_functions(fnp)
    if importlib.util.find_spec("fungrad.scipy") is not None:
        names += _public_functions(importlib.import_module("fungrad.scipy"), "scipy.")
    return names


def test_every_primitive_has_a_spec():
    missing = sorted({p.name for p in registered_primitives()} - set(PRIM))
    assert not missing, f"primitives without a checker spec: {missing}"


def test_every_fnp_function_has_a_spec():
    missing = [n for n in _public_fnp_functions() if n not in FNP and n not in CREATION]
    assert not missing, f"fungrad.numpy functions without a checker spec: {missing}"


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation_matches_numpy(name):
    out = getattr(fnp, name)(*CREATION[name])
    ref = getattr(np, name)(*CREATION[name])
    assert type(out) is np.ndarray and out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)


ALL = [("fnp", n) for n in sorted(FNP)] + [("prim", n) for n in sorted(PRIM)]


def _draw(data, kind, name):
    return data.draw((FNP if kind == "fnp" else PRIM)[name])


def _as64(x):
    x = np.asarray(x)
    return x if x.dtype == np.bool_ else x.astype(np.complex128 if _is_complex(x) else np.float64)


def _traced_value(case, args):
    """Run the function with every argument traced (JVP with zero tangents)."""
    tangents = tuple(np.zeros_like(a) if is_inexact(np.asarray(a).dtype)
                     else np.zeros(np.shape(a), fg.float0) for a in args)
    return fg.jvp(lambda *a: case.fn(*a), args, tangents)[0]


@pytest.mark.parametrize("kind,name", ALL)
@settings(max_examples=10, **SETTINGS)
@given(data=st.data())
def test_values_and_abstract_shapes(kind, name, data):
    _check_values(_draw(data, kind, name))


def _narrow(a):
    """float64 -> float32, complex128 -> complex64 (the abstract-shape check's second pass)."""
    return a.astype({"float64": np.float32, "complex128": np.complex64}.get(a.dtype.name,
                                                                             a.dtype))


def _check_values(case):
    want = case.fn(*case.args)
    got = _traced_value(case, case.args)
    for w, g in zip(tree.tree_leaves(want), tree.tree_leaves(got)):
        w, g = np.asarray(w), np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    for args in (case.args, tuple(_narrow(a) for a in case.args)):
        ir = fg.make_ir(case.fn)(*args)
        real = tree.tree_leaves(case.fn(*args))
        avals = [v.aval for v in ir.graph.outvars]
        assert len(avals) == len(real)
        for a, r in zip(avals, real):
            r = np.asarray(r)
            assert (a.shape, a.dtype) == (r.shape, r.dtype), f"abstract {a} vs real {r.dtype}{r.shape}"


@pytest.mark.parametrize("kind,name", ALL)
@settings(max_examples=8, **SETTINGS)
@given(data=st.data())
def test_first_order(kind, name, data):
    case = _draw(data, kind, name)
    if kind == "fnp" and not name.startswith("scipy."):
        _check_coverage_listing(name, case)
    _check_first_order(case)


def _check_coverage_listing(name, case):
    """The coverage page (docs/numpy_coverage.py) calls a function "value only" exactly when
    its spec has no derivative."""
    listed = name in coverage.VALUE_ONLY
    if case.diff:
        assert not listed, f"{name} is differentiable: remove it from VALUE_ONLY in " \
                           "docs/numpy_coverage.py"
    else:
        assert listed or name in coverage.PARTLY_DIFFERENTIABLE, (
            f"{name} has no derivative: list it in VALUE_ONLY in docs/numpy_coverage.py with "
            "the reason")


def _is_complex(a):
    return np.asarray(a).dtype.kind == "c"


def _pair(xs, ys):
    """Re(sum(x * y)) over leaves: the pairing under which cotangents are transposes (JAX's
    convention for complex values; the ordinary dot for real ones)."""
    return sum(np.real(np.sum(_as64(a) * _as64(b))) for a, b in zip(xs, ys)
               if np.asarray(a).dtype != fg.float0 and np.asarray(b).dtype != fg.float0)


def _in_tangent_dtype(a, t):
    """`t` as a tangent of `a`: its dtype, or float0 zeros for integer and bool values."""
    a = np.asarray(a)
    return np.asarray(t, a.dtype) if is_inexact(a.dtype) else np.zeros(a.shape, fg.float0)


def _directions(args, rng):
    """Tangent tuples: a random real direction; with complex arguments also a purely
    imaginary one for them, so both directions meet the finite differences."""
    real = tuple(_in_tangent_dtype(a, rng.standard_normal(a.shape)) for a in args)
    if not any(_is_complex(a) for a in args):
        return [real]
    return [real, tuple(_in_tangent_dtype(a, 1j * rng.standard_normal(a.shape) if _is_complex(a)
                                          else rng.standard_normal(a.shape)) for a in args)]


def _central_difference(fn, args, tangents, eps):
    def moved(sign):
        return [a if t.dtype == fg.float0 else a + sign * eps * t for a, t in zip(args, tangents)]
    plus, minus = fn(*moved(1)), fn(*moved(-1))
    return [(_as64(p) - _as64(m)) / (2 * eps)
            for p, m in zip(tree.tree_leaves(plus), tree.tree_leaves(minus))]


def _check_first_order(case):
    args = case.args
    before = [a.copy() for a in args]
    rng = np.random.default_rng(0)
    tol = 1e-9 if case.tol is None else case.tol
    for tangents in _directions(args, rng):
        out, t_out = fg.jvp(case.fn, args, tangents)
        if not case.diff:
            for t in tree.tree_leaves(t_out):
                t = np.asarray(t)
                assert t.dtype == fg.float0 or not np.any(t), "expected a zero derivative"
            return
        if any(_is_complex(a) for a in args):  # (real directions: check_grads below)
            fd_tol = 1e-6 if case.tol is None else case.tol
            for g, w in zip(tree.tree_leaves(t_out),
                            _central_difference(case.fn, args, tangents, case.eps or 1e-5)):
                np.testing.assert_allclose(_as64(g), w, rtol=fd_tol, atol=fd_tol)
        # transposition: <vjp(ct), t> == <ct, jvp(t)> (both exact, so a tight tolerance)
        _, f_vjp = fg.vjp(case.fn, *args)
        ct = tree.tree_map(lambda o: _random_like(rng, o), out)
        lhs = _pair(f_vjp(ct), tangents)
        rhs = _pair(tree.tree_leaves(ct), tree.tree_leaves(t_out))
        np.testing.assert_allclose(lhs, rhs, rtol=tol, atol=tol)
    check_grads(case.fn, args, order=1, modes=("fwd", "rev"), atol=case.tol, rtol=case.tol,
                eps=case.eps)
    for a, b in zip(args, before):  # a user's arrays are never mutated
        np.testing.assert_array_equal(a, b)


def _random_like(rng, o):
    o = np.asarray(o)
    c = rng.standard_normal(o.shape) + (1j * rng.standard_normal(o.shape) if _is_complex(o)
                                        else 0)
    return np.asarray(c, o.dtype)


@pytest.mark.parametrize("kind,name", ALL)
@settings(max_examples=3, **SETTINGS)
@given(data=st.data())
def test_second_order(kind, name, data):
    _check_second_order(_draw(data, kind, name))


def _check_second_order(case):
    if not case.diff or not case.order2:
        return
    check_grads(case.fn, case.args, order=2, modes=("fwd", "rev"), atol=case.tol,
                rtol=case.tol, eps=case.eps)


def _stack_at(xs, axis):
    return np.stack([np.asarray(x) for x in xs], axis=axis)


@pytest.mark.parametrize("kind,name", ALL)
@settings(max_examples=8, **SETTINGS)
@given(data=st.data())
def test_vmap_matches_loop(kind, name, data):
    """vmap vs a Python loop: each argument mapped or not, at axis 0 or another axis, and
    the output batch axis placed at 0 or at the end."""
    _check_vmap(_draw(data, kind, name), data)


def _check_vmap(case, data):
    args = case.args
    size = data.draw(st.integers(1, 3), label="batch size")
    mapped = [data.draw(st.booleans(), label=f"arg {i} mapped") for i in range(len(args))]
    if not any(mapped):
        mapped[data.draw(st.integers(0, len(args) - 1))] = True
    in_axes, batched, per_example = [], [], [[] for _ in range(size)]
    rng = np.random.default_rng(1)
    for a, m in zip(args, mapped):
        if not m:
            in_axes.append(None)
            batched.append(a)
            for ex in per_example:
                ex.append(a)
            continue
        ax = data.draw(st.integers(0, a.ndim), label="in axis")
        # examples are small perturbations of the drawn point (stay inside its domain)
        exs = [a if b == 0 or a.dtype.kind in "biu" else a + (1e-3 * rng.standard_normal(
               a.shape)).astype(a.dtype) for b in range(size)]
        for ex, e in zip(per_example, exs):
            ex.append(e)
        in_axes.append(ax if data.draw(st.booleans()) else ax - (a.ndim + 1))
        batched.append(_stack_at(exs, ax))
    outs = [case.fn(*ex) for ex in per_example]
    out_leaves = [tree.tree_leaves(o) for o in outs]
    out_axis = data.draw(st.sampled_from([0, -1]), label="out axis")
    got = fg.vmap(case.fn, in_axes=tuple(in_axes), out_axes=out_axis)(*batched)
    for j, g in enumerate(tree.tree_leaves(got)):
        want = _stack_at([ol[j] for ol in out_leaves], out_axis)
        g = np.asarray(g)
        assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, want.shape)
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind,name", ALL)
@settings(max_examples=6, **SETTINGS)
@given(data=st.data())
def test_jit_matches_eager(kind, name, data):
    """jit vs eager: same shapes and dtypes, values equal to 1e-12 (bitwise where the same
    NumPy kernels run); the user's arrays untouched; a second call hits the cache."""
    _check_jit(_draw(data, kind, name))


def _check_jit(case):
    args = case.args
    before = [a.copy() for a in args]
    want = case.fn(*args)
    jf = fg.jit(case.fn)
    for _ in range(2):
        got = jf(*args)
        for w, g in zip(tree.tree_leaves(want), tree.tree_leaves(got)):
            w = np.asarray(w)
            assert type(g) is np.ndarray, type(g)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert jf.cache_info().misses == 1
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)


def test_a_new_fungrad_primitive_is_seen_by_the_spec_guard():
    from fungrad.core.primitive import Primitive, _REGISTRY
    p = Primitive("spec_guard_probe", module="fungrad.lax.probe")
    try:
        assert p in registered_primitives()
        assert "spec_guard_probe" not in PRIM  # so test_every_primitive_has_a_spec would fail
    finally:
        del _REGISTRY["spec_guard_probe"]
    user = Primitive("user_defined_probe")  # defined outside fungrad: not fungrad's to check
    try:
        assert user not in registered_primitives()
    finally:
        del _REGISTRY["user_defined_probe"]


# ----------------------------------------------------------------------------- complex
# Complex (and mixed real/complex) cases of every elementwise function, reduction and
# product: the same checks, with fewer examples (each case also has real specs above).
COMPLEX_ALL = sorted(COMPLEX_CASES)
COMPLEX_SETTINGS = dict(SETTINGS, max_examples=2)
ignore_complex_warning = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")


def test_every_elementwise_function_has_a_complex_spec():
    names = [n for n, *_ in fnp_elementwise.UNARY + fnp_elementwise.BINARY]
    missing = [n for n in names if n not in COMPLEX_CASES and n not in COMPLEX_REJECTED]
    assert not missing, (f"elementwise functions without a complex spec in COMPLEX_CASES "
                         f"(or an entry in COMPLEX_REJECTED if NumPy rejects complex): {missing}")


@pytest.mark.parametrize("name", sorted(COMPLEX_REJECTED))
def test_complex_rejected_like_numpy(name):
    """fnp raises TypeError where NumPy does, eagerly and on traced values."""
    fn, z = getattr(fnp, name), np.array([1 + 2j, -0.5j])
    args = (z,) if name in [n for n, *_ in fnp_elementwise.UNARY] else (z, z)
    with pytest.raises(TypeError):
        getattr(np, name)(*args)
    with pytest.raises(TypeError):
        fn(*args)
    with pytest.raises(TypeError):
        fg.jit(lambda *a: fn(*a))(*args)


@pytest.mark.parametrize("name", COMPLEX_ALL)
@ignore_complex_warning
@settings(**COMPLEX_SETTINGS)
@given(data=st.data())
def test_complex_values_vmap_and_jit(name, data):
    case = data.draw(COMPLEX_CASES[name])
    _check_values(case)
    _check_vmap(case, data)
    _check_jit(case)


@pytest.mark.parametrize("name", COMPLEX_ALL)
@ignore_complex_warning
@settings(**COMPLEX_SETTINGS)
@given(data=st.data())
def test_complex_derivatives(name, data):
    """First order along real and imaginary directions, and second order."""
    case = data.draw(COMPLEX_CASES[name])
    _check_first_order(case)
    _check_second_order(case)


# ----------------------------------------------------------------------------- narrow floats
try:
    import ml_dtypes
    NARROW = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
except ImportError:  # the `test` extra installs it; float16 is checked without it
    NARROW = [np.dtype(np.float16)]
# loose tolerances, relative to the largest magnitude of the float64 reference: narrow
# kernels round every intermediate (float16: 2**-11, bfloat16: 2**-8 relative)
NARROW_TOL = {"float16": 2e-2, "bfloat16": 1e-1}
# specs that compute on a plain (untraced) array with NumPy: `fnp.empty_like(x) * 0.0` is
# NumPy's own product, and NumPy with ml_dtypes makes bfloat16 * 0.0 float32
NARROW_SKIP = {"empty_like"}


def _narrow_args(args, dtype):
    return tuple(a.astype(dtype) if a.dtype == np.float64 else a for a in args)


def _expected_dtype(out16, dtype):
    """The dtype a narrow-float result should have: NumPy's own for float16 inputs (NEP 50
    knows float16), with bfloat16 standing where float16 stands (fnp's promotion rule)."""
    dt = np.asarray(out16).dtype
    return dtype if dt == np.float16 else dt


def _assert_narrow_close(what, got, want, tol):
    got, want = _as64(got), _as64(want)
    if want.dtype == np.bool_:  # comparisons of the same (rounded) values
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    scale = 1.0 + (np.max(np.abs(want)) if want.size else 0.0)
    err = np.max(np.abs(got - want)) if want.size else 0.0
    assert err <= tol * scale, f"{what}: max error {err:.3g} > {tol} * {scale:.3g}"


@settings(max_examples=1, phases=(Phase.generate,), **SETTINGS)
@given(data=st.data())
def test_narrow_floats_keep_their_dtype(data):
    """float16 and bfloat16 inputs, one example per spec: traced values, make_ir's abstract
    dtypes, jit, vmap, JVP and VJP all keep the dtype NumPy gives float16 (bfloat16 where
    float16 stands), and their values approximate float64 (so no derivative is silently
    zero). One test over all specs: hypothesis' per-test overhead would dominate."""
    failures = []
    for kind, name in ALL:
        case = _draw(data, kind, name)
        if name in NARROW_SKIP or not any(a.dtype == np.float64 for a in case.args):
            continue
        try:
            _check_narrow(case)
        except Exception as e:  # report every failing spec at once
            failures.append(f"{kind} {name}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)


def _numpy_rejects_float16(case):
    """Whether NumPy itself refuses float16 here (its LAPACK routines: numpy.linalg)."""
    try:
        case.fn(*_narrow_args(case.args, np.float16))
    except TypeError:
        return True
    return False


def _check_narrow(case):
    if _numpy_rejects_float16(case):  # then fnp must refuse traced narrow floats too
        for dtype in NARROW:
            with pytest.raises(TypeError):
                _traced_value(case, _narrow_args(case.args, dtype))
        return
    rng = np.random.default_rng(2)
    for dtype in NARROW:
        tol = NARROW_TOL[dtype.name]
        args = _narrow_args(case.args, dtype)
        args64 = tuple(_as64(a) if a.dtype == dtype else a for a in args)
        want = tree.tree_leaves(case.fn(*args64))
        expected = [_expected_dtype(o, dtype)
                    for o in tree.tree_leaves(case.fn(*_narrow_args(case.args, np.float16)))]
        traced = tree.tree_leaves(_traced_value(case, args))
        ir = fg.make_ir(case.fn)(*args)
        jitted = tree.tree_leaves(fg.jit(case.fn)(*args))
        batched = tree.tree_leaves(fg.vmap(case.fn)(*[np.stack([a, a]) for a in args]))
        for i, w in enumerate(want):
            for what, got in (("traced", traced[i]), ("jit", jitted[i]),
                              ("vmap", np.asarray(batched[i])[1])):
                assert np.asarray(got).dtype == expected[i], (what, dtype, np.asarray(got).dtype)
                _assert_narrow_close(f"{what} value ({dtype})", got, w, tol)
            assert ir.graph.outvars[i].aval.dtype == expected[i], (dtype, ir.graph.outvars[i])
        if not case.diff:
            continue
        tangents = tuple(rng.standard_normal(a.shape).astype(a.dtype) for a in args)
        _, t_out = fg.jvp(case.fn, args, tangents)
        _, t_want = fg.jvp(case.fn, args64, tuple(_as64(t) for t in tangents))
        out, f_vjp = fg.vjp(case.fn, *args)
        ct = tree.tree_map(lambda o: rng.standard_normal(np.shape(o)).astype(
            np.asarray(o).dtype), out)
        cts = f_vjp(ct)
        ct_want = fg.vjp(case.fn, *args64)[1](tree.tree_map(_as64, ct))
        for i, (g, w) in enumerate(zip(tree.tree_leaves(t_out), tree.tree_leaves(t_want))):
            assert np.asarray(g).dtype == expected[i], ("jvp", dtype, np.asarray(g).dtype)
            _assert_narrow_close(f"jvp ({dtype})", g, w, tol)
        for a, g, w in zip(args, cts, ct_want):
            assert np.asarray(g).dtype == a.dtype, ("vjp", dtype, np.asarray(g).dtype)
            _assert_narrow_close(f"vjp ({dtype})", g, w, tol)
