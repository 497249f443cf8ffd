"""Transforms leave no reference cycles: intermediates and outputs are freed by reference
counting as soon as the caller drops them, not at the next garbage collection. (A cycle that
holds a 16 MB per-example gradient alive makes the next call take fresh pages from the OS,
which made eager vmap(grad) several times slower.)"""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from checker.cycles import assert_no_reference_cycles

X = np.linspace(0.1, 1.0, 12).reshape(3, 4)


def loss(w, x):
    return fnp.sum(fnp.tanh(x @ w) ** 2)


CALLS = {
    "grad": lambda: fg.grad(loss)(X.T, X),
    "value_and_grad": lambda: fg.value_and_grad(loss)(X.T, X),
    "jvp": lambda: fg.jvp(fnp.sin, (X,), (X,)),
    "vjp": lambda: fg.vjp(fnp.sin, X)[1](X),
    "linearize": lambda: fg.linearize(fnp.sin, X)[1](X),
    "vmap": lambda: fg.vmap(fnp.sin)(X),
    "vmap with out_axes tree": lambda: fg.vmap(lambda x: (x, {"a": x}), out_axes=(0, {"a": 1}))(X),
    "vmap(grad)": lambda: fg.vmap(fg.grad(loss), in_axes=(None, 0))(X.T, X[:, None, :]),
    "jacfwd": lambda: fg.jacfwd(fnp.sin)(X[0]),
    "jacrev": lambda: fg.jacrev(fnp.sin)(X[0]),
    "hessian": lambda: fg.hessian(lambda x: fnp.sum(x ** 3))(X[0]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_no_reference_cycles(name):
    assert_no_reference_cycles(name, CALLS[name])


def test_outputs_freed_when_dropped():
    out = fg.vmap(fg.grad(loss), in_axes=(None, 0))(X.T, X[:, None, :])
    ref = weakref.ref(out if out.base is None else out.base)
    del out
    assert ref() is None


def test_deleting_a_jitted_function_frees_its_generated_code():
    """Generated source lives in linecache (for tracebacks) only as long as its code."""
    import linecache

    def freed_with_jitted(x):
        return fnp.sin(x) * 2.0

    def entries():
        return [k for k in list(linecache.cache) if "jit_freed_with_jitted " in k]
    jf = fg.jit(freed_with_jitted)
    for n in range(1, 4):
        jf(np.ones(n))
    assert len(entries()) == 3
    ref = weakref.ref(jf.lower(np.ones(1)).call.fn)
    del jf
    gc.collect()
    assert entries() == [] and ref() is None


# ------------------------------------------------------------------ peak memory of eager grad
def _peak_above_inputs(call) -> int:
    """Peak bytes allocated during `call()` (NumPy reports its buffers to tracemalloc)."""
    call()  # warm caches, so that only the call's own arrays are counted
    tracemalloc.start()
    try:
        out = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del out
    return peak


def _chain(x):
    y = fnp.tanh(x) * x + fnp.sin(x)
    return fnp.sum(y * y)


def _rownorm(x):
    d = x - fnp.mean(x, axis=1, keepdims=True)
    return fnp.sum(fnp.tanh(d / fnp.sqrt(fnp.mean(d * d, axis=1, keepdims=True) + 1e-5)))


@pytest.mark.parametrize("f, arrays", [(_chain, 6.5), (_rownorm, 7.5)])
def test_eager_grad_frees_residuals_early(f, arrays):
    # 8 MB of float64. The forward pass of _chain holds 6 input-sized arrays at its peak (3
    # residuals, 2 temporaries and their sum); the backward pass must stay below that plus
    # half an array: each residual dies once transposed and the cotangent sums run after the
    # equation's references are dropped (before: 9 arrays for _chain, 8 for _rownorm).
    x = np.linspace(-2.0, 2.0, 1 << 20).reshape(1 << 13, 128)
    peak = _peak_above_inputs(lambda: fg.grad(f)(x))
    assert peak < arrays * x.nbytes, f"peak {peak / x.nbytes:.2f} input-sized arrays"


def test_jit_grad_deletes_dead_values():
    # The float32 forward buffers die before the float64 gradient is made: the generated
    # code deletes a local once its value is dead, else the dead 0.5-array-sized buffer
    # lives until the function returns (peak 2.0 input-sized arrays; now 1.5).
    x = np.linspace(-2.0, 2.0, 1 << 20).reshape(1 << 13, 128)
    g = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x.astype(np.float32)) ** 2)))
    peak = _peak_above_inputs(lambda: g(x))
    assert peak < 1.75 * x.nbytes, f"peak {peak / x.nbytes:.2f} input-sized arrays"


def test_jit_grad_computes_coefficients_where_needed():
    # sin's derivative cos(x) is traced with the forward pass but read by the backward pass:
    # computed there (and into a dead forward buffer), _chain's compiled gradient holds 4
    # input-sized arrays at its peak, not 5.
    x = np.linspace(-2.0, 2.0, 1 << 20).reshape(1 << 13, 128)
    g = fg.jit(fg.grad(_chain))
    peak = _peak_above_inputs(lambda: g(x))
    assert peak < 4.5 * x.nbytes, f"peak {peak / x.nbytes:.2f} input-sized arrays"
    np.testing.assert_allclose(g(x), fg.grad(_chain)(x), rtol=1e-12)
