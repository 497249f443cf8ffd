"""Transforms leave no reference cycles: intermediates and outputs are freed by reference
counting as soon as the caller drops them, not at the next garbage collection. (A cycle that
holds a 16 MB per-example gradient alive makes the next call take fresh pages from the OS,
which made eager vmap(grad) several times slower.)"""
import gc
import weakref

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

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
    call = CALLS[name]
    call()
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        call()
        gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert garbage == [], f"{name} left reference cycles: {garbage[:20]}"


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
