"""fungrad.scipy.stats: distributions as modules of functions (as jax.scipy.stats), each
written with fungrad.numpy and fungrad.scipy.special, so differentiable in x and in the
parameters (SciPy's signatures: `norm.logpdf(x, loc=0, scale=1)`, ...).

Example:
    >>> import fungrad as fg, fungrad.scipy.stats as fst
    >>> float(fg.grad(fst.norm.logpdf)(1.0))   # -(x - loc) / scale**2
    -1.0
"""
from . import (bernoulli, beta, binom, cauchy, dirichlet, expon, gamma, laplace, logistic, norm,
               poisson, t, uniform)
from . import multivariate_normal
from . import (betabinom, chi2, gennorm, geom, gumbel_l, gumbel_r, multinomial, nbinom, pareto,
               truncnorm, vonmises, wrapcauchy)
from ._descriptive import ModeResult, mode, rankdata, sem
from ._kde import gaussian_kde

__all__ = ["bernoulli", "beta", "binom", "cauchy", "dirichlet", "expon", "gamma", "laplace",
           "logistic", "norm", "poisson", "t", "uniform"]
__all__ += ["multivariate_normal"]
__all__ += ["betabinom", "chi2", "gennorm", "geom", "gumbel_l", "gumbel_r", "multinomial",
            "nbinom", "pareto", "truncnorm", "vonmises", "wrapcauchy"]
# descriptive functions (the names above are distribution modules)
__all__ += ["sem", "rankdata", "mode", "ModeResult", "gaussian_kde"]

