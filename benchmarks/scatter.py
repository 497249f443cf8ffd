"""`fg.grad` through `x.at[idx].add(v)` against the hand-written NumPy forward + backward
with `np.add.at` (issue 11's target: within 1.2x).

Loss: 0.5 * sum((x.at[idx].add(v)) ** 2), gradient with respect to x and v. Hand-written:
y = x.copy(); np.add.at(y, idx, v); the cotangent of y is y itself; dx = y, dv = y[idx].
Cases: 1e5 random row indices into 1e4 rows of 64 floats, and the same indices into a
1-D array of 1e4 floats. fungrad is timed eagerly (`fg.grad`) and compiled
(`fg.jit(fg.grad(...))`).

    python benchmarks/scatter.py
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run import best_times  # noqa: E402

import fungrad as fg  # noqa: E402
import fungrad.numpy as fnp  # noqa: E402

N_ROWS, N_COLS, N_INDEX = 10_000, 64, 100_000


def numpy_grad(x, idx, v):
    y = x.copy()
    np.add.at(y, idx, v)
    return 0.5 * np.sum(y * y), (y, y[idx])


def make_fungrad(idx):
    def loss(x, v):
        y = fnp.at(x)[idx].add(v)
        return 0.5 * fnp.sum(y * y)
    return fg.value_and_grad(loss, argnums=(0, 1))


def run_case(name, x, idx, v):
    f = make_fungrad(idx)
    fj = fg.jit(f)
    want_loss, (want_dx, want_dv) = numpy_grad(x, idx, v)
    for g in (f, fj):
        loss, (dx, dv) = g(x, v)
        np.testing.assert_allclose(loss, want_loss, rtol=1e-10)
        np.testing.assert_allclose(dx, want_dx, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(dv, want_dv, rtol=1e-10, atol=1e-10)
    t_np, t_eager, t_jit = best_times([lambda: numpy_grad(x, idx, v), lambda: f(x, v),
                                       lambda: fj(x, v)])
    print(f"{name:>24}: numpy+np.add.at {t_np * 1e3:8.2f} ms | fg.grad {t_eager * 1e3:8.2f} ms"
          f" ({t_eager / t_np:.2f}x) | jit(grad) {t_jit * 1e3:8.2f} ms ({t_jit / t_np:.2f}x)")


def main():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, N_ROWS, N_INDEX)
    run_case(f"rows {N_ROWS}x{N_COLS}", rng.standard_normal((N_ROWS, N_COLS)), idx,
             rng.standard_normal((N_INDEX, N_COLS)))
    run_case(f"1-D {N_ROWS}", rng.standard_normal(N_ROWS), idx, rng.standard_normal(N_INDEX))


if __name__ == "__main__":
    main()
