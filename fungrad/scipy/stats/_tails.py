"""Helpers of the distributions added after the first set (chi2, gumbel, pareto, truncnorm,
...): log-space differences of probabilities, kept finite in value and slope in the tails."""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ...nn.activations import log1mexp as _nn_log1mexp

__all__ = ["log1mexp", "log_ndtr_diff", "safe", "nonneg_integer"]


def safe(ok, value, fill):
    """`value` where `ok`, else `fill`: an operand for a branch that is taken only where ok
    (the untaken side's slope times a zero cotangent must not be inf * 0 = nan)."""
    return fnp.where(ok, value, fill)


def log1mexp(d):
    """`log(1 - exp(-d))` for d >= 0 (-inf at 0, 0 at inf): fg.nn.log1mexp (Maechler's switch
    at log 2), with 0 mapped to -inf directly (no log(0) warning; its slope there is 0)."""
    pos = d > 0
    return fnp.where(pos, _nn_log1mexp(safe(pos, d, 1.0)), -np.inf)


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
