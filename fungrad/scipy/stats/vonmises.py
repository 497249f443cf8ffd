"""The von Mises distribution (`scipy.stats.vonmises`) on the circle, concentration
`kappa` (SciPy's density is 2 pi periodic in x); differentiable in x and kappa.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.vonmises.pdf(1.0, 0.0))   # kappa = 0: uniform, 1 / (2 pi)
    0.15915494309189535
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact_arrays as _inexact_arrays
from ._util import domain as _domain, nonnegative as _nonnegative

__all__ = ["logpdf", "pdf"]
_LOG_2PI = math.log(2.0 * math.pi)


@_domain(kappa=_nonnegative)
def logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """`kappa (cos(x) - 1) - log(2 pi i0e(kappa))` (= kappa cos x - log(2 pi I0(kappa)),
    with no overflow for large kappa); nan for kappa < 0.

    Example:
        >>> fg.scipy.stats.vonmises.logpdf(np.array([0.0, np.pi]), 1.0)
        array([-1.07379142, -3.07379142])
        >>> fg.grad(lambda x: fg.scipy.stats.vonmises.logpdf(x, 2.0))(np.pi / 2)   # -kappa sin x
        array(-2.)
    """
    x, kappa = _inexact_arrays("stats.vonmises.logpdf", x, kappa)
    return kappa * (fnp.cos(x) - 1.0) - _LOG_2PI - fnp.log(fsp.i0e(kappa))


def pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """Density `exp(kappa cos x) / (2 pi I0(kappa))`.

    Example:
        >>> fg.scipy.stats.vonmises.pdf(np.array([0.0, np.pi]), 1.0)
        array([0.34171049, 0.04624549])
    """
    return fnp.exp(logpdf(x, kappa))
