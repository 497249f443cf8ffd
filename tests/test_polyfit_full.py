"""fnp.polyfit's full=True and cov= outputs on traced values: NumPy's values, shapes and
types; derivatives in x, y and w against finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

RNG = np.random.default_rng(0)
X = np.linspace(-1, 1, 7) + RNG.uniform(-0.05, 0.05, 7)
Y1, Y2, W = RNG.normal(size=7), RNG.normal(size=(7, 3)), RNG.uniform(0.5, 1.5, 7)
KWARGS = [{"full": True}, {"cov": True}, {"cov": "unscaled"}, {"full": True, "w": W},
          {"cov": True, "w": W}, {"full": True, "rcond": 1e-3}, {"full": True, "cov": True}]


def _same(got, want):
    assert type(got) is type(want) or np.shape(got) == np.shape(want)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kw", KWARGS)
@pytest.mark.parametrize("y", [Y1, Y2], ids=["1d", "2d"])
@pytest.mark.parametrize("deg", [0, 2, 6])
def test_full_and_cov_match_numpy(deg, y, kw):
    if deg == 6 and kw.get("cov") is True and not kw.get("full"):
        pytest.skip("NumPy raises: 7 points do not exceed order 7 (tested below)")
    want = np.polyfit(X, y, deg, **kw)
    _same(fg.jit(lambda x, y: fnp.polyfit(x, y, deg, **kw))(X, y), want)
    got = fg.jvp(lambda x: fnp.polyfit(x, y, deg, **kw), (X,), (np.ones_like(X),))[0]
    _same(got, want)


def test_full_returns_rank_and_rcond_like_numpy():
    _, _, rank, _, rcond = fg.jit(lambda x, y: fnp.polyfit(x, y, 2, full=True))(X, Y1)
    _, _, want_rank, _, want_rcond = np.polyfit(X, Y1, 2, full=True)
    assert int(rank) == want_rank and rcond == want_rcond
    # m <= order: NumPy's residuals are empty
    res = fg.jit(lambda x, y: fnp.polyfit(x, y, 6, full=True)[1])(X, Y1)
    assert res.shape == (0,)


def test_scaled_cov_needs_more_points_than_the_order():
    with pytest.raises(ValueError, match=r"must exceed order.*cov='unscaled'"):
        fg.jit(lambda x, y: fnp.polyfit(x, y, 6, cov=True))(X, Y1)


def _fd(f, x, eps=1e-6):
    cols = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((f(x + e) - f(x - e)) / (2 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


# (name, picks a differentiable output of polyfit's result)
OUTPUTS = {
    "residuals": ({"full": True}, lambda out: out[1]),
    "singular_values": ({"full": True}, lambda out: out[3]),
    "cov": ({"cov": True}, lambda out: out[1]),
    "cov_unscaled": ({"cov": "unscaled"}, lambda out: out[1]),
}


@pytest.mark.parametrize("argnum", [0, 1, 2], ids=["x", "y", "w"])
@pytest.mark.parametrize("y", [Y1, Y2], ids=["1d", "2d"])
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_derivatives_match_finite_differences_of_numpy(output, y, argnum):
    kw, pick = OUTPUTS[output]
    args = [X, y, W]
    jac = fg.jacfwd(lambda *a: pick(fnp.polyfit(a[0], a[1], 2, w=a[2], **kw)),
                    argnums=argnum)(*args)

    def numpy_f(v):
        a = list(args)
        a[argnum] = v
        return np.asarray(pick(np.polyfit(a[0], a[1], 2, w=a[2], **kw)))
    np.testing.assert_allclose(jac, _fd(numpy_f, args[argnum]), rtol=1e-6, atol=1e-7)
