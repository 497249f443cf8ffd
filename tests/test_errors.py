"""Issue 8: concrete conversions, ndarray methods and operators on traced values, and error
messages that name the fix (and only APIs that exist)."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError, NonScalarOutputError

X = np.array([0.5, -1.5, 2.0])


def test_var_method_under_jit():
    # StagingTracer's graph variable used to be called `var`, shadowing x.var()
    np.testing.assert_allclose(fg.jit(lambda a: a.var())(X), X.var())
    np.testing.assert_allclose(fg.jit(lambda a: a.var(ddof=1, keepdims=True))(X),
                               X.var(ddof=1, keepdims=True))
    np.testing.assert_allclose(fg.make_ir(lambda a: a.std())(X)(X), X.std())


# ------------------------------------------------------------------ 1.2 concrete conversions
CUTTING = {
    "float": lambda x: x * float(x),
    "int": lambda x: x * int(x),
    "complex": lambda x: x * complex(x).real,
    "math.sin": math.sin,
    "np.float64": lambda x: x * np.float64(x),
    "item": lambda x: x * x.item(),
    "tolist": lambda x: x * x.tolist(),
    "np.asarray": lambda x: np.asarray(x) * x,
}


@pytest.mark.parametrize("name", sorted(CUTTING))
def test_conversion_of_a_differentiated_value_raises_eagerly(name):
    # used to return the wrong derivative: fg.grad(lambda x: x * float(x))(3.0) gave 3.0
    with pytest.raises(ConcretizationError, match=r"differentiated.*fg.stop_gradient"):
        fg.grad(CUTTING[name])(3.0)
    with pytest.raises(ConcretizationError):
        fg.jvp(CUTTING[name], (3.0,), (1.0,))


@pytest.mark.parametrize("name", sorted(CUTTING))
def test_conversion_raises_under_jit_alike(name):
    with pytest.raises(ConcretizationError, match=r"fnp.where.*static_argnums"):
        fg.jit(CUTTING[name])(3.0)
    with pytest.raises(ConcretizationError, match=r"batched value.*fnp.where"):
        fg.vmap(CUTTING[name])(np.array([3.0, 4.0]))


def test_issue_examples():
    with pytest.raises(ConcretizationError, match=r"float\(x\)"):
        fg.grad(lambda x: x * float(x))(3.0)
    with pytest.raises(ConcretizationError, match=r"math"):
        fg.grad(math.sin)(1.0)
    # the fixes the message names work
    assert fg.grad(lambda x: x * float(fg.stop_gradient(x)))(3.0) == 3.0
    assert fg.grad(fnp.sin)(1.0) == pytest.approx(math.cos(1.0))


def test_bool_of_a_concrete_value_works_under_grad():
    def f(x):
        if x > 0:
            return x * x
        return -x
    assert fg.grad(f)(3.0) == 6.0
    assert fg.grad(f)(-3.0) == -1.0
    assert fg.grad(fg.grad(f))(3.0) == 2.0
    assert fg.jvp(f, (2.0,), (1.0,))[1] == 4.0
    # a non-differentiated integer input stays a plain value: int() of it is fine
    assert fg.grad(lambda x, n: x * int(n), argnums=0)(2.0, 3) == 3.0
    with pytest.raises(ConcretizationError, match=r"bool\(x\).*jit"):
        fg.jit(f)(1.0)
    with pytest.raises(ConcretizationError, match=r"bool\(x\).*batched"):
        fg.vmap(f)(np.ones(2))


# ------------------------------------------------------------------ messages
@pytest.mark.parametrize("out, pattern", [
    (lambda x: (x, x), r"returned a tuple of 2 value\(s\) \(f64\[\], f64\[\].*has_aux=True"),
    (lambda x: [x, x * 2, x], r"returned a list of 3 value\(s\)"),
    (lambda x: {"a": x}, r"returned a dict of 1 value"),
    (lambda x: x * np.ones(3), r"returned f64\[3\]"),
    (lambda x: (x > 0), r"returned bool\[\]"),
])
def test_grad_of_a_non_scalar_output(out, pattern):
    # a tuple output used to say 'cannot be converted to a NumPy array'
    with pytest.raises(NonScalarOutputError, match=pattern) as e:
        fg.grad(out)(1.0)
    assert ".sum()" in str(e.value) and "fg.vjp or fg.jacrev" in str(e.value)


def test_unsupported_numpy_function_is_named_with_its_module(monkeypatch):
    # fnp.linalg provides every numpy.linalg function: take one away to see the message
    monkeypatch.delattr(fnp.linalg, "norm")
    with pytest.raises(TypeError, match=r"np\.linalg\.norm is not supported") as e:
        fg.grad(lambda a: np.linalg.norm(a))(np.ones(3))
    assert "numpy.norm" not in str(e.value)
    with pytest.raises(TypeError, match=r"np\.add\.reduce is not supported"):
        fg.grad(lambda a: np.add.reduce(a))(np.ones(3))


# ------------------------------------------------------------------ ndarray API on tracers
# ndarray attributes a traced value does not have, and why
NOT_APPLICABLE = {
    "base", "ctypes", "data", "flags", "strides",  # memory layout: tracers have no buffer
    "getfield", "dump", "dumps", "tofile",  # raw memory / files
    "device", "to_device", "__dlpack__", "__dlpack_device__",  # device placement
    "__array_interface__", "__array_struct__", "__array_finalize__", "__array_wrap__",
    "__array_namespace__", "__class_getitem__", "__setstate__", "__reduce__", "__reduce_ex__",
    "__getstate__", "__buffer__", "__release_buffer__",
    # in-place operators: Python falls back to x = x + y, which is what a tracer needs
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
    "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
}
OTHER_HELPER = {"real", "imag", "conj", "conjugate"}  # complex support lands separately


def test_tracers_have_every_ndarray_method_and_operator():
    from fungrad.core.trace import Tracer
    missing = sorted(n for n in dir(np.ndarray) if n not in NOT_APPLICABLE | OTHER_HELPER
                     and n not in dir(object) and not hasattr(Tracer, n))
    assert not missing, f"ndarray attributes missing on tracers: {missing}"


A = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.5]])
METHODS = {
    "mod": lambda x: x % 0.7, "rmod": lambda x: 2.5 % x, "ndarray_mod": lambda x: A % x,
    "divmod": lambda x: divmod(x, 0.7)[1] + divmod(x, 0.7)[0],
    "rdivmod": lambda x: divmod(2.5, x)[1],
    "round": lambda x: round(x[0, 0] * 10, 1) + round(x[1, 0]),
    "copy": lambda x: x.copy() * 2, "any": lambda x: x.any(axis=0), "all": lambda x: x.all(1),
    "clip": lambda x: x.clip(-1, 1), "cumsum": lambda x: x.cumsum(axis=1),
    "cumprod": lambda x: x.cumprod(), "mean": lambda x: x.mean(axis=0, keepdims=True),
    "var": lambda x: x.var(ddof=1), "std": lambda x: x.std(axis=1, keepdims=True),
    "argsort": lambda x: x.argsort(axis=0), "repeat": lambda x: x.repeat(2, axis=1),
    "take": lambda x: x.take([0, 2], axis=1), "trace": lambda x: x.trace(),
    "diagonal": lambda x: x.diagonal(1), "flat": lambda x: x.flat[4],
    "compress": lambda x: x.compress([True, False, True], axis=1),
    "searchsorted": lambda x: np.sort(x[0]).searchsorted(x[1], side="right"),
    "sum_prod": lambda x: x.sum(axis=1) * x.prod(axis=0)[:2],
    "abs_pos_neg": lambda x: abs(-(+x)), "argpartition": lambda x: x.argpartition(1)[:, :1],
    "choose": lambda x: (x > 0).astype(int).choose([x, -x]),
    "nbytes": lambda x: x * x.nbytes + x.itemsize, "view": lambda x: x.view() * 2,
    "iter": lambda x: sum(row for row in x),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_ndarray_methods_on_traced_values_match_numpy(name):
    f = METHODS[name]
    want = f(A)
    outs = [fg.jit(f)(A), fg.vmap(f, in_axes=None, axis_size=1)(A)[0]]
    if name != "choose":  # under jvp the index (x > 0) is a plain ndarray: NumPy's own method
        outs.append(fg.jvp(f, (A,), (A,))[0])
    for got in outs:
        got = np.asarray(got)
        assert got.dtype == np.asarray(want).dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_remainder_derivatives():
    # d(x % y)/dx = 1, d(x % y)/dy = -floor(x / y)
    x, y = np.array([3.0, -1.0, 2.5]), 0.7
    gx, gy = fg.grad(lambda x, y: fnp.sum(x % y), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, np.ones(3))
    assert gy == pytest.approx(-np.floor(x / y).sum())
    assert fg.grad(lambda x: round(x * 1.7))(1.0) == 0.0


def test_bitwise_operators_are_bitwise_on_integers_and_logical_on_bools():
    a, b = np.array([1, 2, 3, 12]), np.array([3, 3, 5, 10])
    f = lambda a, b: (a & b, a | b, a ^ b, ~a, a << 2, a >> 1, 6 & a, 6 | a, 6 ^ a,
                      (a > 1) & (b > 3), (a > 1) | (b > 3), (a > 1) ^ (b > 3), ~(a > 1))
    for got, want in zip(fg.jit(f)(a, b), f(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match=r"bitwise_and is not defined for float64.*astype"):
        fg.jit(lambda x: x & x)(X)


@pytest.mark.parametrize("method, fix", [
    (lambda x: x.sort(), r"x.sort\(\) changes x in place; use y = fnp.sort"),
    (lambda x: x.fill(0.0), r"fnp.full_like"), (lambda x: x.resize((3,)), r"fnp.reshape"),
    (lambda x: x.put([0], 1.0), r"fnp.where"),
])
def test_in_place_methods_name_the_functional_alternative(method, fix):
    with pytest.raises(TypeError, match=r"immutable.*" + fix):
        fg.grad(lambda x: method(x) or fnp.sum(x))(X)


def test_value_dependent_shapes():
    # nonzero needs values: fine under grad (concrete), a ConcretizationError under jit/vmap
    g = fg.grad(lambda x: fnp.sum(x[fnp.nonzero(x > 0)]))(X)
    np.testing.assert_array_equal(g, X > 0)
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.sum(x[x.nonzero()]))(X), np.ones(3))
    with pytest.raises(ConcretizationError, match=r"nonzero.*fnp.where"):
        fg.jit(lambda x: x.nonzero())(X)
    with pytest.raises(ConcretizationError, match=r"nonzero"):
        fg.vmap(lambda x: fnp.nonzero(x))(np.ones((2, 3)))


def test_contains_needs_a_concrete_value():
    assert fg.grad(lambda x: fnp.sum(x) * (3.0 in x))(A)[0, 0] == 1.0
    with pytest.raises(ConcretizationError, match=r"bool\(x\)"):
        fg.jit(lambda x: 3.0 in x)(A)


def test_format_prints_concrete_values_under_grad():
    seen = []

    def f(x):
        seen.append(f"{x:.2f}")
        return x * x
    fg.grad(f)(1.5)
    assert seen == ["1.50"]
    with pytest.raises(ConcretizationError, match="format"):
        fg.jit(f)(1.5)


# ------------------------------------------------------------------ named APIs exist
_API_REF = r"\b(fg\.numpy|fungrad\.numpy|fg|fnp)\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"


def _api_references():
    """(file, line, reference) for every fg./fnp. name quoted in a string of fungrad's source
    (error messages, f-string parts and docstrings)."""
    import ast
    import pathlib
    import re
    root = pathlib.Path(fg.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for m in re.finditer(_API_REF, node.value):
                    yield f"{path.relative_to(root)}:{node.lineno}", m.group(1), m.group(2)


def test_every_api_named_in_a_message_exists():
    # messages used to name fg.lax.cond and fg.lax.dynamic_slice, which do not exist
    bases = {"fg": fg, "fnp": fnp, "fg.numpy": fnp, "fungrad.numpy": fnp}
    refs = list(_api_references())
    assert any(r[2] == "where" for r in refs)  # the scan sees f-strings and plain strings
    missing = []
    for where, base, ref in refs:
        obj = bases[base]
        for part in ref.split("."):
            if not hasattr(obj, part):
                missing.append(f"{where}: {base}.{ref}")
                break
            obj = getattr(obj, part)
    assert not missing, "messages name APIs that do not exist:\n" + "\n".join(missing)


def test_traced_slice_bound_names_a_fix_that_works():
    x = np.arange(5.0)
    with pytest.raises(IndexError, match=r"fnp.take\(x, i \+ fnp.arange\(n\), axis=0\)"):
        fg.jit(lambda x, i: x[i:i + 3])(x, 1)
    np.testing.assert_array_equal(
        fg.jit(lambda x, i: fnp.take(x, i + fnp.arange(3), axis=0))(x, 1), x[1:4])


def test_indexing_a_numpy_array_with_a_traced_index_names_fnp_take():
    """NumPy's ndarray.__getitem__ cannot hand a tracer back to fungrad; the error names
    the fix that works (fnp.take), under vmap and jit."""
    x = np.arange(4.0)
    for transform in (fg.vmap, fg.jit):
        with pytest.raises(fg.errors.ConcretizationError, match=r"fnp\.take\(a, x\)"):
            transform(lambda i: x[i])(np.array([0, 1]))
        np.testing.assert_array_equal(transform(lambda i: fnp.take(x, i))(np.array([0, 1])),
                                      [0.0, 1.0])
