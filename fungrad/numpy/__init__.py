"""fungrad.numpy: NumPy's API, differentiable, batchable and traceable.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(np.ones(3))

On plain arrays every function is NumPy's own; on traced values it promotes dtypes
(NEP 50) and broadcasts here, then binds primitives that see explicit shapes.
"""
import numpy as _np

from numpy import (dtype, e, euler_gamma, finfo, iinfo, inf, issubdtype, nan, ndarray, newaxis,
                   pi, floating, integer, inexact, number)
from ._dtypes import result_type, promote_types
from ._scalar_types import SCALAR_TYPES as _SCALAR_TYPES
from ._elementwise import FUNCTIONS as _ELEMENTWISE, where, clip, round, around, divmod
from ._elementwise import *  # noqa: F401,F403  (the table's functions)
from ._reductions import (sum, prod, max, min, amax, amin, mean, var, std, argmax, argmin, any,
                          all, cumsum, cumprod, trace)
from ._shape import (reshape, ravel, transpose, moveaxis, swapaxes, expand_dims, squeeze,
                     broadcast_to, concatenate, stack, split, flip, atleast_1d, shape, ndim,
                     size)
from ._contract import matmul, dot, tensordot, outer, inner, vdot, einsum
from ._creation import (array, asarray, zeros, ones, empty, full, zeros_like, ones_like,
                        empty_like, full_like, arange, linspace, logspace, eye, identity, tri,
                        copy)
from ._indexing import getitem as _getitem
from ._indexing import (take, take_along_axis, argsort, sort, repeat, diagonal, nonzero,
                        compress, searchsorted)
from . import _operators

globals().update(_ELEMENTWISE)
globals().update(_SCALAR_TYPES)  # fnp.float32, fnp.int64, ...: also convert traced values
_operators.install(__import__(__name__, fromlist=["_"]))
