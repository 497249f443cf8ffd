"""Specs of fg.scipy.linalg's SciPy-flavoured wrappers (cholesky, solve, eigh, lu, qr, svd,
polar, schur, ...) and special-matrix constructors (toeplitz, hankel, ...), and of the
schur / hessenberg primitives. Decompositions with a sign or phase freedom are checked
through invariants (|v|^2, reconstructions); schur / hessenberg have no derivative, so
their specs stop gradients (diff=False)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad as fg
import fungrad.numpy as fnp
import fungrad.scipy.linalg as SL

from .registry import COMPLEX_CASES, FNP, PRIM, Case, spec
from .specs_linalg import _rng, _size, general, hpd, with_complex_pair

P = "scipy.linalg."


def _abs2(v):
    return fnp.real(v * fnp.conj(v))


def _noisy_hpd(draw, n, cplx=False):
    """Hermitian positive definite plus a small non-Hermitian part: functions reading one
    triangle see a well-conditioned matrix, and the unread triangle is arbitrary."""
    rng = _rng(draw)
    noise = 0.1 * rng.standard_normal((n, n))
    return hpd(draw, (n, n), cplx) + (1j * noise if cplx else noise)


@spec(FNP, *[P + n for n in ("cholesky", "det", "inv", "solve", "eigh", "lu", "qr",
                             "qr_multiply", "svd", "polar", "expm_frechet", "solve_sylvester",
                             "eigh_tridiagonal")])
def _wrappers(draw, name, cplx=False):
    n = _size(draw)
    rng = _rng(draw)
    name = name[len(P):]
    if name == "cholesky":
        lower = draw(st.booleans())
        return Case(lambda a: SL.cholesky(a, lower=lower), (_noisy_hpd(draw, n, cplx),))
    if name in ("det", "inv"):
        return Case(getattr(SL, name), (general(draw, (n, n), cplx),))
    if name == "solve":
        assume = draw(st.sampled_from(["gen", "sym", "her", "pos"]))
        lower = draw(st.booleans())
        rhs = rng.standard_normal((n,) if draw(st.booleans()) else (n, 2))
        rhs = rhs + 1j * rng.standard_normal(rhs.shape) if cplx else rhs
        a = general(draw, (n, n), cplx) if assume == "gen" else _noisy_hpd(draw, n, cplx)
        return Case(lambda a, b: SL.solve(a, b, lower=lower, assume_a=assume), (a, rhs))
    if name == "eigh":
        lower, only = draw(st.booleans()), draw(st.booleans())
        args = (_noisy_hpd(draw, n, cplx),)
        if draw(st.booleans()):
            args += (_noisy_hpd(draw, n, cplx),)

        def f(a, b=None):
            out = SL.eigh(a, b, lower=lower, eigvals_only=only)
            return out if only else (out[0], _abs2(out[1]))
        return Case(f, args, tol=1e-5)
    if name == "lu":
        a = general(draw, (n, n), cplx) + 0.3 * np.diag(np.arange(n))
        permute_l = draw(st.booleans())
        return Case(lambda a: SL.lu(a, permute_l=permute_l), (a,))
    if name in ("qr", "qr_multiply", "svd", "polar"):
        m = _size(draw)
        if name == "polar":
            m = max(m, n)  # full column rank: u and p are unique
        a = general(draw, (m, n), cplx)
        if name == "qr":
            mode = draw(st.sampled_from(["full", "r", "economic"]))
            if mode == "full" and m > n:  # (the extra columns: their projector)
                return Case(lambda a: (lambda q, r: (q[:, :n], r, q @ fnp.conj(q.T)))(
                    *SL.qr(a)), (a,))
            return Case(lambda a: SL.qr(a, mode=mode), (a,))
        if name == "qr_multiply":
            mode, conj = draw(st.sampled_from(["left", "right"])), draw(st.booleans())
            k = min(m, n)
            c = rng.standard_normal((k,) if draw(st.booleans()) else
                                    ((k, 2) if mode == "left" else (2, m)))
            if mode == "right" and c.ndim == 1:
                c = rng.standard_normal(m)
            return Case(lambda a, c: SL.qr_multiply(a, c, mode=mode, conjugate=conj), (a, c))
        if name == "svd":
            full, uv = draw(st.booleans()), draw(st.booleans())
            k = min(m, n)

            def f(a):
                if not uv:
                    return SL.svd(a, compute_uv=False)
                u, s, vh = SL.svd(a, full_matrices=full)
                return s, _abs2(u[:, :k]), _abs2(vh[:k]), (u[:, :k] * s) @ vh[:k]
            return Case(f, (a,))
        side = draw(st.sampled_from(["right", "left"]))
        if side == "left":  # a = p u with u of orthonormal rows: a wide matrix
            a = general(draw, (n, m), cplx)
        return Case(lambda a: SL.polar(a, side=side), (a,))
    if name == "expm_frechet":
        e = rng.standard_normal((n, n))
        only = draw(st.booleans())
        return Case(lambda a, e: SL.expm_frechet(a, e, compute_expm=not only),
                    (0.5 * general(draw, (n, n), cplx), e))
    if name == "solve_sylvester":
        m = _size(draw)
        a = general(draw, (n, n), cplx) + 2.0 * np.eye(n)
        b = general(draw, (m, m), cplx) + 2.0 * np.eye(m)
        return Case(SL.solve_sylvester, (a, b, rng.standard_normal((n, m))))
    # eigh_tridiagonal: separated eigenvalues
    d = np.arange(n) * 2.0 + 0.1 * rng.standard_normal(n)
    e = 0.3 * rng.standard_normal(max(n - 1, 0))
    only = draw(st.booleans())
    sel = draw(st.sampled_from([None, (0, n - 1), (n - 1, n - 1)]))
    kw = {} if sel is None else {"select": "i", "select_range": sel}

    def f(d, e):
        out = SL.eigh_tridiagonal(d, e, eigvals_only=only, **kw)
        return out if only else (out[0], _abs2(out[1]))
    return Case(f, (d, e))


@spec(COMPLEX_CASES, *[P + n for n in ("cholesky", "det", "inv", "solve", "eigh", "lu", "qr",
                                       "svd", "polar", "expm_frechet", "solve_sylvester")])
def _complex_wrappers(draw, name):
    return _wrappers(draw, name, cplx=True)


@spec(FNP, P + "rsf2csf")
def _rsf2csf(draw, name):
    import scipy.linalg as sl
    n = draw(st.sampled_from([2, 3]))
    t, z = sl.schur(with_complex_pair(draw, (), n))
    # entries that are exactly zero below the diagonal stay zero: the rotation switches on
    # where T[m, m-1] != 0 (a complex pair), so a perturbation there is a different function
    mask = np.triu(np.ones((n, n))) + (np.tril(np.ones((n, n)), -1) * (t != 0))
    return Case(lambda t, z: SL.rsf2csf(fnp.multiply(t, mask), z), (t, z), tol=1e-5)


@spec(FNP, P + "schur", P + "hessenberg")
def _schur(draw, name):
    n = _size(draw)
    a = general(draw, (n, n))
    if name == P + "schur":
        output = draw(st.sampled_from(["real", "complex"]))
        return Case(lambda a: SL.schur(fg.lax.stop_gradient(a), output=output), (a,),
                    diff=False)
    calc_q = draw(st.booleans())
    return Case(lambda a: SL.hessenberg(fg.lax.stop_gradient(a), calc_q=calc_q), (a,),
                diff=False)


@spec(PRIM, "scipy_schur", "scipy_hessenberg")
def _schur_prims(draw, name):
    b, n = draw(st.sampled_from([(), (2,)])), _size(draw)
    a = general(draw, b + (n, n))
    if name == "scipy_schur":
        output = draw(st.sampled_from(["real", "complex"]))
        return Case(lambda a: SL._schur_p.bind(fg.lax.stop_gradient(a), output=output), (a,),
                    diff=False)
    return Case(lambda a: SL._hessenberg_p.bind(fg.lax.stop_gradient(a)), (a,), diff=False)


@spec(FNP, *[P + n for n in ("toeplitz", "hankel", "circulant", "companion", "fiedler",
                             "fiedler_companion", "leslie", "convolution_matrix")])
def _constructors(draw, name):
    rng = _rng(draw)
    name = name[len(P):]
    m, n = _size(draw, 1, 4), _size(draw, 1, 4)
    c, r = rng.standard_normal(m), rng.standard_normal(n)
    if name in ("toeplitz", "hankel"):
        f = getattr(SL, name)
        return Case(f, (c, r)) if draw(st.booleans()) else Case(f, (c,))
    if name == "circulant":
        return Case(SL.circulant, (c,))
    if name in ("companion", "fiedler_companion"):
        a = rng.standard_normal(max(m + 1, 2) if name == "companion" else m + 1)
        a[0] = 1.5 if a[0] >= 0 else -1.5
        return Case(getattr(SL, name), (a,))
    if name == "fiedler":
        return Case(SL.fiedler, (np.arange(m) * 1.0 + 0.1 * rng.standard_normal(m),))
    if name == "leslie":
        m = max(m, 2)  # (SciPy needs len(s) >= 1)
        return Case(SL.leslie, (rng.standard_normal(m), rng.standard_normal(m - 1)))
    mode = draw(st.sampled_from(["full", "same", "valid"]))
    return Case(lambda a: SL.convolution_matrix(a, n, mode), (c,))


@spec(FNP, *[P + n for n in ("hadamard", "hilbert", "invhilbert", "pascal", "invpascal",
                             "helmert", "dft")])
def _constants(draw, name):
    """Constants (their only argument an int): scaled by a traced x, so every transform
    sees them as constants of a traced program."""
    name = name[len(P):]
    n = 2 ** draw(st.integers(0, 2)) if name == "hadamard" else _size(draw, 1, 4)
    f = getattr(SL, name)
    kw = {"full": draw(st.booleans())} if name == "helmert" else {}
    if name in ("pascal", "invpascal"):
        kw = {"kind": draw(st.sampled_from([None, "lower", "upper"]))}
        const = np.asarray(f(n, **kw), np.float64)
    else:
        const = f(n, **kw)
    x = _rng(draw).standard_normal(())
    return Case(lambda x: fnp.multiply(x, const), (np.asarray(x),))
