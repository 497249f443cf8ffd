"""Helpers of the distributions added after the first set (chi2, gumbel, pareto, truncnorm,
...): log-space differences of probabilities, kept finite in value and slope in the tails."""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from .. import special as fsp

__all__ = ["log1mexp", "log_ndtr_diff", "safe", "nonneg_integer"]
_LOG2 = math.log(2.0)


def safe(ok, value, fill):
    """`value` where `ok`, else `fill`: an operand for a branch that is taken only where ok
    (the untaken side's slope times a zero cotangent must not be inf * 0 = nan)."""
    return fnp.where(ok, value, fill)


def log1mexp(d):
    """`log(1 - exp(-d))` for d >= 0 (-inf at 0, 0 at inf): `log(-expm1(-d))` for small d,
    `log1p(-exp(-d))` for large (Maechler's switch at log 2)."""
    small = d < _LOG2
    ds = safe(small, d, 1.0)
    dl = safe(small, 1.0, d)
    pos = ds > 0
    near = fnp.log(-fnp.expm1(-safe(pos, ds, 1.0)))
    near = fnp.where(pos, near, -np.inf)
    return fnp.where(small, near, fnp.log1p(-fnp.exp(-dl)))


def log_ndtr_diff(lo, hi):
    """`log(ndtr(hi) - ndtr(lo))` for lo <= hi, accurate when both lie far in one tail: in
    the right half it is computed as `log(ndtr(-lo) - ndtr(-hi))` (the same mass)."""
    right = lo > 0
    a = fnp.where(right, -hi, lo)          # the mirrored interval [a, b] has b <= 0 or a <= 0
    b = fnp.where(right, -lo, hi)
    la, lb = fsp.log_ndtr(a), fsp.log_ndtr(b)
    d = lb - la                             # >= 0; inf where a = -inf
    fin = fnp.isfinite(d)
    return lb + fnp.where(fin, log1mexp(safe(fin, d, 1.0)), 0.0)


def nonneg_integer(v):
    """A domain check: v >= 0 and integral (SciPy's n of betabinom)."""
    return fnp.logical_and(v >= 0, v == fnp.floor(v))
