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

__all__ = ["bernoulli", "beta", "binom", "cauchy", "dirichlet", "expon", "gamma", "laplace",
           "logistic", "norm", "poisson", "t", "uniform"]
__all__ += ["multivariate_normal"]
