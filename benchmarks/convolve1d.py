"""`fg.grad` through `fnp.convolve` (1-D) against the hand-written NumPy forward + backward.

Loss: 0.5 * sum(convolve(a, v, 'full') ** 2), gradient with respect to a and v. Hand-written:
z = np.convolve(a, v); the cotangent of z is z itself; da = np.correlate(z, v, 'valid'),
dv = np.correlate(z, a, 'valid') (real inputs). fungrad is timed eagerly (`fg.grad`) and
compiled (`fg.jit(fg.grad(...))`); before the convolve1d primitive this took ~22x.

    python benchmarks/convolve1d.py
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run import best_times  # noqa: E402

import fungrad as fg  # noqa: E402
import fungrad.numpy as fnp  # noqa: E402


def numpy_grad(a, v):
    z = np.convolve(a, v)
    return 0.5 * np.sum(z * z), (np.correlate(z, v, "valid"), np.correlate(z, a, "valid"))


def loss(a, v):
    z = fnp.convolve(a, v)
    return 0.5 * fnp.sum(z * z)


def run_case(n, m):
    rng = np.random.default_rng(0)
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    f = fg.value_and_grad(loss, argnums=(0, 1))
    fj = fg.jit(f)
    want, (want_da, want_dv) = numpy_grad(a, v)
    for g in (f, fj):
        got, (da, dv) = g(a, v)
        np.testing.assert_allclose(got, want, rtol=1e-10)
        np.testing.assert_allclose(da, want_da, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(dv, want_dv, rtol=1e-9, atol=1e-9)
    t_np, t_eager, t_jit = best_times([lambda: numpy_grad(a, v), lambda: f(a, v),
                                       lambda: fj(a, v)])
    print(f"{f'convolve {n} * {m}':>24}: numpy {t_np * 1e3:8.3f} ms | fg.grad "
          f"{t_eager * 1e3:8.3f} ms ({t_eager / t_np:.2f}x) | jit(grad) {t_jit * 1e3:8.3f} ms "
          f"({t_jit / t_np:.2f}x)")


def main():
    run_case(10_000, 64)
    run_case(1_000, 16)


if __name__ == "__main__":
    main()
