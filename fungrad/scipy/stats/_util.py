"""Helpers of fungrad.scipy.stats' distributions: promotion, standardization, supports."""
from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from ... import numpy as fnp
from .._util import inexact, inexact_arrays

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["Array", "ArrayLike", "inexact", "inexact_arrays", "standardize", "outside",
           "log_or_minus_inf", "log_probability", "log_scale", "integer_support", "domain",
           "positive", "nonnegative", "probability"]


def standardize(fname, x, loc, scale):
    """`(x - loc) / scale` and `log(scale)`, with the arguments promoted to one float dtype."""
    x, loc, scale = inexact(fname, x, loc, scale)
    return (x - loc) / scale, fnp.log(scale) if not isinstance(scale, (int, float)) else \
        float(np.log(scale))


def log_scale(scale):
    """`log(scale)`, a Python float for a weak (Python) scale: fnp.log(1.0) is a strong
    float64 array, which made float32 logpdfs with the default scale float64."""
    return fnp.log(scale) if not isinstance(scale, (int, float)) else float(np.log(scale))


def outside(inside, value, fill):
    """`value` where `inside`, else `fill` (-inf for a log density outside the support)."""
    return fnp.where(inside, value, fill)


def log_or_minus_inf(p):
    """`log(p)`, -inf where p == 0 with a zero derivative there (log's slope is inf)."""
    pos = p > 0
    return fnp.where(pos, fnp.log(fnp.where(pos, p, 1.0)), -np.inf)


def log_probability(p, complement):
    """`log(p)` for a probability whose complement `1 - p` is also known: `log1p(-complement)`
    where p > 1/2 (log(p) would round p = 1 - 1e-20 to 0), else `log(p)` (-inf at 0)."""
    big = p > 0.5
    return fnp.where(big, fnp.log1p(-fnp.where(big, complement, 0.0)), log_or_minus_inf(p))


def integer_support(k, lo):
    """Where a discrete distribution's k (shifted by loc) is an integer >= lo."""
    return fnp.logical_and(k >= lo, k == fnp.floor(k))


def positive(v):
    return v > 0


def nonnegative(v):
    return v >= 0


def probability(v):
    return fnp.logical_and(v >= 0, v <= 1)


def domain(**valid):
    """Decorator: SciPy's nan where the first argument (x, k or q) is nan or a parameter
    is outside its domain (`valid[name](value)` False: scale <= 0, a shape <= 0, p > 1,
    nan); the formulas' support masks would read those as outside the support (-inf, 0)
    or compute a value."""
    def wrap(f):
        params = inspect.signature(f).parameters
        names = list(params)
        defaults = {n: p.default for n, p in params.items() if p.default is not p.empty}

        @functools.wraps(f)
        def checked(*args, **kwargs):
            out = f(*args, **kwargs)  # (first: a wrong call raises f's own TypeError)
            given = dict(zip(names, args), **kwargs)  # (no signature binding per call)
            bad = fnp.isnan(fnp.asarray(given[names[0]]))
            for name, ok in valid.items():
                value = given.get(name, defaults.get(name))
                bad = fnp.logical_or(bad, fnp.logical_not(ok(fnp.asarray(value))))
            return fnp.where(bad, np.nan, out)
        return checked
    return wrap
