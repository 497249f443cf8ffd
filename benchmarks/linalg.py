"""Gradients of fnp.linalg.solve / cholesky / eigh (256 x 256) against hand-written NumPy /
SciPy derivatives written from the same closed forms (not a test).

    PYTHONPATH=. python benchmarks/linalg.py [--quick] [--n 256]

Each loss is <C, f(A)> for a fixed C, so the gradient is f's VJP of C; both sides compute
the forward factorization and the backward formulas (ratios > 1: fungrad slower).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import scipy.linalg as sl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import best_times  # noqa: E402

import fungrad as fg  # noqa: E402
import fungrad.numpy as fnp  # noqa: E402


def problem(n, seed=0):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    spd = (q * np.linspace(1.0, 2.0, n)) @ q.T
    a = spd + 0.1 * rng.standard_normal((n, n)) / np.sqrt(n)
    return a, spd, rng.standard_normal((n, n)), rng.standard_normal((n, n))


def _lower_grad(s):
    """Gradient w.r.t. a matrix of which only the lower triangle is read (as NumPy's
    cholesky / eigh), given the gradient `s` w.r.t. the Hermitian matrix it stands for."""
    return np.tril(s + s.T, -1) + np.diag(np.diag(s))


# ----------------------------------------------------------------------------- solve
def solve_numpy(a, b, c):
    x = np.linalg.solve(a, b)
    gb = np.linalg.solve(a.T, c)
    return -gb @ x.T, gb


def solve_fungrad(c):
    return fg.grad(lambda a, b: fnp.sum(fnp.linalg.solve(a, b) * c), argnums=(0, 1))


# ----------------------------------------------------------------------------- cholesky
def cholesky_numpy(a, c):
    """dL = L Phi(L^-1 dA L^-T)  =>  Abar = L^-T Phi(L^T Cbar) L^-1 (Cbar: tril of C)."""
    low = np.linalg.cholesky(a)
    p = low.T @ np.tril(c)
    p = np.tril(p, -1) + 0.5 * np.diag(np.diag(p))
    s = sl.solve_triangular(low, sl.solve_triangular(low, p.T, lower=True, trans=1).T,
                            lower=True, trans=1)
    return _lower_grad(s)


def cholesky_fungrad(c):
    return fg.grad(lambda a: fnp.sum(fnp.linalg.cholesky(a) * c))


# ----------------------------------------------------------------------------- eigh
def eigh_numpy(a, c, cw):
    """dw = diag(V^T dA V), dV = V (F o V^T dA V)  =>  Abar = V (diag(wbar) + F o V^T Vbar) V^T."""
    w, v = np.linalg.eigh(a)
    gaps = w[None, :] - w[:, None]
    np.fill_diagonal(gaps, 1.0)
    f = 1.0 / gaps
    np.fill_diagonal(f, 0.0)
    inner = f * (v.T @ c)
    inner[np.diag_indices_from(inner)] += cw
    return _lower_grad(v @ inner @ v.T)


def eigh_fungrad(c, cw):
    def loss(a):
        w, v = fnp.linalg.eigh(a)
        return fnp.sum(w * cw) + fnp.sum(v * c)
    return fg.grad(loss)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--n", type=int, default=256)
    args = ap.parse_args(argv)
    a, spd, b, c = problem(args.n)
    cw = c[0]
    rows = [
        ("solve", lambda: solve_fungrad(c)(a, b), lambda: solve_numpy(a, b, c)),
        ("cholesky", lambda: cholesky_fungrad(c)(spd), lambda: cholesky_numpy(spd, c)),
        ("eigh", lambda: eigh_fungrad(c, cw)(spd), lambda: eigh_numpy(spd, c, cw)),
    ]
    print(f"grad of fnp.linalg.* at n={args.n} (best of interleaved rounds)")
    for name, ours, theirs in rows:
        g_ours, g_theirs = ours(), theirs()
        for x, y in zip(np.atleast_1d(g_ours) if name != "solve" else g_ours,
                        np.atleast_1d(g_theirs) if name != "solve" else g_theirs):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-8)
        t_ours, t_np = best_times([ours, theirs], quick=args.quick)
        print(f"{name:10s} fungrad {t_ours * 1e3:8.2f} ms   hand-written {t_np * 1e3:8.2f} ms"
              f"   ratio {t_ours / t_np:5.2f}")


if __name__ == "__main__":
    main()
