"""Hypothesis strategies for the checker: shapes, broadcasting pairs, values in a domain."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
NONSCALAR = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


# A domain maps a uniform [0, 1) sample to values where the function is smooth and the
# finite differences are accurate.
def uniform(lo, hi):
    return lambda u, rng: lo + (hi - lo) * u


def away_from_zero(lo=0.25, hi=2.0):
    return lambda u, rng: (lo + (hi - lo) * u) * rng.choice([-1.0, 1.0], size=np.shape(u))


def between_integers(lo=-3, hi=3):
    return lambda u, rng: rng.integers(lo, hi, size=np.shape(u)) + 0.2 + 0.6 * u


def distinct(lo=-2.0, hi=2.0):
    """Values at least 0.05 apart (so max/min/sort have no ties to break)."""
    def make(u, rng):
        n = int(np.size(u))
        vals = lo + (hi - lo) * (np.arange(n) + 0.5) / max(n, 1) + 0.01 * rng.random(n)
        return rng.permutation(vals).reshape(np.shape(u))
    return make


DEFAULT = uniform(-2.0, 2.0)


def complex_domain(re=DEFAULT, im=DEFAULT):
    """Complex values whose real and imaginary parts come from the real domains `re`, `im`
    (use with dtype=np.complex128)."""
    return lambda u, rng: re(u, rng) + 1j * im(rng.random(np.shape(u)), rng)


COMPLEX = complex_domain()


@st.composite
def arrays(draw, shape, domain=DEFAULT, dtype=np.float64):
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    u = rng.random(shape)
    return np.asarray(domain(u, rng), dtype=dtype)


@st.composite
def broadcast_pair(draw, min_dims=0):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=min_dims,
                                                     max_dims=3, min_side=1, max_side=3))
    return shapes.input_shapes


def axis_for(draw, ndim, allow_none=True, allow_tuple=True):
    """None, an int (maybe negative) or a tuple of distinct axes of an ndim array."""
    options = ["int"] if ndim else []
    if allow_none:
        options.append("none")
    if allow_tuple and ndim:
        options.append("tuple")
    kind = draw(st.sampled_from(options))
    if kind == "none":
        return None
    if kind == "int":
        a = draw(st.integers(0, ndim - 1))
        return a - ndim if draw(st.booleans()) else a
    return tuple(draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                               unique=True)))
