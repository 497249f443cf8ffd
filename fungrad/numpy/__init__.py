"""fungrad.numpy: NumPy's API, differentiable, batchable and traceable.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(np.ones(3))

On plain arrays every function is NumPy's own; on traced values it promotes dtypes
(NEP 50) and broadcasts here, then binds primitives that see explicit shapes.
"""
import numpy as _np

from numpy import (bool_, complex64, complex128, dtype, e, euler_gamma, finfo, float16,
                   float32, float64, iinfo, inf, int8, int16, int32, int64, intp, issubdtype,
                   nan, ndarray, newaxis, pi, uint8, uint16, uint32, uint64,
                   floating, integer, inexact, number, shape, ndim, size)
from ._dtypes import result_type, promote_types
from ._elementwise import FUNCTIONS as _ELEMENTWISE, where, clip, round, around
from ._elementwise import *  # noqa: F401,F403  (the table's functions)
from ._reductions import (sum, prod, max, min, amax, amin, mean, var, std, argmax, argmin)
from ._shape import (reshape, ravel, transpose, moveaxis, swapaxes, expand_dims, squeeze,
                     broadcast_to, concatenate, stack, split, flip, atleast_1d)
from ._contract import matmul, dot, tensordot, outer, inner, vdot, einsum
from ._creation import (array, asarray, zeros, ones, empty, full, zeros_like, ones_like,
                        empty_like, full_like, arange, linspace, logspace, eye, identity, tri)
from ._indexing import getitem as _getitem
from . import _operators

globals().update(_ELEMENTWISE)
_operators.install(__import__(__name__, fromlist=["_"]))
