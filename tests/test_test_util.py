"""check_grads itself: passes on right derivatives, reports wrong ones readably."""
import numpy as np
import pytest

import fungrad.numpy as fnp
from fungrad.core.primitive import Primitive
from fungrad.lax import elementwise as E
from fungrad.test_util import check_grads


def test_passes_on_correct_derivatives_any_order():
    x = np.array([0.3, -0.7, 1.2])
    check_grads(lambda x: fnp.sum(fnp.sin(x) * fnp.exp(x)), (x,), order=3)
    check_grads(lambda a, b: (a @ b, {"s": fnp.tanh(a).sum()}),
                (np.ones((2, 3)) * 0.3, np.arange(6.0).reshape(3, 2) / 6), order=2)


def _wrong_sin():
    p = Primitive("wrong_sin")
    p.impl = np.sin
    p.abstract_eval = lambda x: x
    p.jvp = lambda primals, tangents: (p.bind(primals[0]),
                                       E.mul(tangents[0], E.mul(E.cos(primals[0]), 1.1)))
    return p


@pytest.mark.parametrize("modes", [("fwd",), ("rev",)])
def test_reports_wrong_derivative(modes):
    p = _wrong_sin()
    with pytest.raises(AssertionError, match="finite"):
        check_grads(p.bind, (np.array([0.5, 1.0]),), modes=modes)


def test_rejects_integer_arguments():
    with pytest.raises(TypeError, match="float"):
        check_grads(fnp.sin, (np.array([1, 2]),))


def _holomorphic_abs():
    """|z| with the derivative rule of a holomorphic function (t * conj(z)/|z|, complex): right
    along real directions of real z, wrong for complex z."""
    p = Primitive("holomorphic_abs")
    p.impl = np.abs
    p.abstract_eval = lambda x: x
    p.jvp = lambda primals, tangents: (p.bind(primals[0]), E.mul(
        tangents[0], E.div(E.conj(primals[0]), p.bind(primals[0]))))
    return p


def test_complex_arguments():
    z = np.array([0.5 + 1.0j, -1.0 + 0.2j])
    check_grads(lambda z: fnp.sin(z) * fnp.abs(z), (z,), order=2)
    check_grads(lambda z: fnp.real(fnp.sum(z * z)), (z,), order=2)
    with pytest.raises(AssertionError, match="finite"):
        check_grads(lambda z: fnp.sum(_holomorphic_abs().bind(z) ** 2), (z,))


def test_float32_uses_looser_tolerance():
    check_grads(lambda x: fnp.tanh(x) * 3.0, (np.array([0.2, 0.4], np.float32),), order=2)


def test_import_is_light():
    import subprocess
    import sys
    code = ("import sys, fungrad, fungrad.numpy; "
            "heavy = [m for m in ('scipy', 'cupy', 'sklearn', 'matplotlib') if m in sys.modules];"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
