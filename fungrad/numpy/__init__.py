"""fungrad.numpy: NumPy's API, differentiable, batchable and traceable.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(np.ones(3))

On plain arrays every function is NumPy's own; on traced values it promotes dtypes
(NEP 50) and broadcasts here, then binds primitives that see explicit shapes.

Every public name is imported explicitly below and listed in `__all__`, so linters and
go-to-definition find its definition (tests/test_namespace.py keeps the two in step).
"""
from numpy import (dtype, e, euler_gamma, iinfo, inf, issubdtype, nan, ndarray, newaxis, pi,
                   floating, integer, inexact, number)
from ._dtypes import result_type, promote_types, finfo
# fnp.float32, fnp.int64, ...: NumPy's types that also convert traced values
from ._scalar_types import (bool_, complex64, complex128, float16, float32, float64, int8, int16,
                            int32, int64, intp, uint8, uint16, uint32, uint64)
# the elementwise table, then its aliases and the other elementwise functions
from ._elementwise import (negative, sin, cos, tan, arcsin, arccos, arctan, sinh, cosh, tanh,
                           arcsinh, arccosh, arctanh, exp, exp2, expm1, log, log2, log10, log1p,
                           sqrt, square, reciprocal, abs, sign, floor, ceil, logical_not, isfinite,
                           isnan, invert, add, subtract, multiply, divide, power, maximum, minimum,
                           arctan2, logaddexp, hypot, floor_divide, less, less_equal, equal,
                           not_equal, greater, greater_equal, logical_and, logical_or, logical_xor,
                           remainder, bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift)
from ._elementwise import (true_divide, absolute, pow, mod, bitwise_not, bitwise_invert,
                           bitwise_left_shift, bitwise_right_shift, where, clip, round, around,
                           real, imag, conj, conjugate, divmod)
from ._reductions import (sum, prod, max, min, amax, amin, mean, var, std, argmax, argmin, any,
                          all, cumsum, cumprod, trace)
from ._shape import (reshape, ravel, transpose, moveaxis, swapaxes, expand_dims, squeeze,
                     broadcast_to, concatenate, stack, split, flip, atleast_1d, shape, ndim, size)
from ._contract import matmul, dot, tensordot, outer, inner, vdot, einsum
from ._creation import (array, asarray, zeros, ones, empty, full, zeros_like, ones_like,
                        empty_like, full_like, arange, linspace, logspace, eye, identity, tri, copy)
from ._indexing import (take, take_along_axis, argsort, sort, repeat, diagonal, compress,
                        searchsorted)
# NumPy's own printing / I/O / dtype-query functions, unchanged (they do no array math)
from ._host import (array2string, array_repr, array_str, base_repr, binary_repr,
                    busday_count, busday_offset, can_cast, common_type, datetime_as_string,
                    datetime_data, errstate, format_float_positional, format_float_scientific,
                    from_dlpack, frombuffer, fromfile, fromiter, fromregex, fromstring,
                    genfromtxt, get_include, get_printoptions, getbufsize, geterr, geterrcall,
                    info, is_busday, isdtype, isfortran, isnat, isscalar, iterable, load,
                    loadtxt, may_share_memory, min_scalar_type, mintypecode, printoptions, save,
                    savetxt, savez, savez_compressed, set_printoptions, setbufsize, seterr,
                    seterrcall, shares_memory, show_config, show_runtime, typename)
from ._apply import apply_along_axis, apply_over_axes, vectorize
from ._index_math import ravel_multi_index, unravel_index
from ._conversions import (asanyarray, asarray_chkfinite, ascontiguousarray, asfortranarray,
                           require)
from ._statistics import (diff, ediff1d, gradient, cumulative_sum, cumulative_prod, partition,
                          argpartition, median, quantile, percentile, average, ptp,
                          count_nonzero, cov, corrcoef)
from ._nanfunctions import (nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin, nanargmax,
                            nanargmin, nancumsum, nancumprod, nanmedian, nanquantile,
                            nanpercentile)
from ._searching import (interp, digitize, bincount, histogram, histogram2d, histogramdd,
                         histogram_bin_edges, unique, unique_values, unique_counts,
                         unique_inverse, unique_all, isin, intersect1d, union1d, setdiff1d,
                         setxor1d, argwhere, flatnonzero, lexsort, nonzero)
from ._grids import (meshgrid, indices, ix_, fromfunction, mgrid, ogrid, r_, c_, geomspace,
                     trapezoid, convolve, correlate, bartlett, blackman, hamming, hanning,
                     kaiser)
from ._polynomial import (polyval, polyfit, poly, polyadd, polysub, polymul, polydiv, polyder,
                          polyint, roots, vander)
from ._contract import einsum_path
from ._at import at
from ._manipulation import (tile, roll, rollaxis, rot90, flipud, fliplr, tril, triu, diag,
                            diagflat, fill_diagonal, append, insert, delete, hstack, vstack,
                            dstack, column_stack, row_stack, block, array_split, hsplit, vsplit,
                            dsplit, atleast_2d, atleast_3d, unstack, pad, select, piecewise, kron,
                            cross, put_along_axis, choose, extract, place, put, putmask, resize,
                            trim_zeros, broadcast_arrays, broadcast_shapes, tril_indices,
                            triu_indices, tril_indices_from, triu_indices_from, diag_indices,
                            diag_indices_from, mask_indices, astype, copyto)
from . import _operators
from ._elementwise import (fabs, rint, trunc, fix, cbrt, spacing, signbit, isinf, i0, fmod, fmax,
                           fmin, copysign, nextafter, logaddexp2, gcd, lcm, acos, asin, atan,
                           atan2, acosh, asinh, atanh)
from ._ufuncs import (angle, deg2rad, rad2deg, radians, degrees, sinc, unwrap, heaviside,
                      nan_to_num, positive, float_power, ldexp, frexp, modf, sort_complex,
                      real_if_close, iscomplex, isreal, iscomplexobj, isrealobj, isposinf,
                      isneginf, isclose, allclose, array_equal, array_equiv, bitwise_count,
                      concat, permute_dims, matrix_transpose, vecdot, matvec, vecmat)
from . import fft
from . import linalg

__all__ = [
    "abs", "absolute", "add", "all", "amax", "amin", "any", "arange", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argsort", "around",
    "array", "asarray", "atleast_1d", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bool_", "broadcast_to",
    "ceil", "clip", "complex128", "complex64", "compress", "concatenate", "conj", "conjugate",
    "copy", "cos", "cosh", "cumprod", "cumsum", "diagonal", "divide", "divmod", "dot", "dtype",
    "e", "einsum", "empty", "empty_like", "equal", "euler_gamma", "exp", "exp2", "expand_dims",
    "expm1", "eye", "finfo", "flip", "float16", "float32", "float64", "floating", "floor",
    "floor_divide", "full", "full_like", "greater", "greater_equal", "hypot", "identity", "iinfo",
    "imag", "inexact", "inf", "inner", "int16", "int32", "int64", "int8", "integer", "intp",
    "invert", "isfinite", "isnan", "issubdtype", "left_shift", "less", "less_equal", "linspace",
    "log", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "logspace", "matmul", "max", "maximum", "mean", "min", "minimum", "mod",
    "moveaxis", "multiply", "nan", "ndarray", "ndim", "negative", "newaxis", "nonzero",
    "not_equal", "number", "ones", "ones_like", "outer", "pi", "pow", "power", "prod",
    "promote_types", "ravel", "real", "reciprocal", "remainder", "repeat", "reshape",
    "result_type", "right_shift", "round", "searchsorted", "shape", "sign", "sin", "sinh", "size",
    "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes",
    "take", "take_along_axis", "tan", "tanh", "tensordot", "trace", "transpose", "tri",
    "true_divide", "uint16", "uint32", "uint64", "uint8", "var", "vdot", "where", "zeros",
    "zeros_like",
]
__all__ += ["ravel_multi_index", "unravel_index"]
__all__ += ["apply_along_axis", "apply_over_axes", "vectorize", "asanyarray",
            "asarray_chkfinite", "ascontiguousarray", "asfortranarray", "require"]
__all__ += [  # NumPy's own (fungrad/numpy/_host.py)
    "array2string", "array_repr", "array_str", "base_repr", "binary_repr", "busday_count",
    "busday_offset", "can_cast", "common_type", "datetime_as_string", "datetime_data",
    "errstate", "format_float_positional", "format_float_scientific", "from_dlpack",
    "frombuffer", "fromfile", "fromiter", "fromregex", "fromstring", "genfromtxt",
    "get_include", "get_printoptions", "getbufsize", "geterr", "geterrcall", "info",
    "is_busday", "isdtype", "isfortran", "isnat", "isscalar", "iterable", "load", "loadtxt",
    "may_share_memory", "min_scalar_type", "mintypecode", "printoptions", "save", "savetxt",
    "savez", "savez_compressed", "set_printoptions", "setbufsize", "seterr", "seterrcall",
    "shares_memory", "show_config", "show_runtime", "typename",
]
__all__ += [
    "argpartition", "average", "corrcoef", "count_nonzero", "cov", "cumulative_prod",
    "cumulative_sum", "diff", "ediff1d", "gradient", "median", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile",
    "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "partition", "percentile", "ptp",
    "quantile",
]
__all__ += [
    "interp", "digitize", "bincount", "histogram", "histogram2d", "histogramdd",
    "histogram_bin_edges", "unique", "unique_values", "unique_counts", "unique_inverse",
    "unique_all", "isin", "intersect1d", "union1d", "setdiff1d", "setxor1d", "argwhere",
    "flatnonzero", "lexsort",
]
__all__ += [
    "meshgrid", "indices", "ix_", "fromfunction", "mgrid", "ogrid", "r_", "c_", "geomspace",
    "trapezoid", "convolve", "correlate", "bartlett", "blackman", "hamming", "hanning",
    "kaiser",
]
__all__ += [
    "polyval", "polyfit", "poly", "polyadd", "polysub", "polymul", "polydiv", "polyder",
    "polyint", "roots", "vander",
]
__all__ += ["einsum_path"]
__all__ += ["at"]
__all__ += [
    "tile", "roll", "rollaxis", "rot90", "flipud", "fliplr", "tril", "triu", "diag", "diagflat",
    "fill_diagonal", "append", "insert", "delete", "hstack", "vstack", "dstack", "column_stack",
    "row_stack", "block", "array_split", "hsplit", "vsplit", "dsplit", "atleast_2d",
    "atleast_3d", "unstack", "pad", "select", "piecewise", "kron", "cross", "put_along_axis",
    "choose", "extract", "place", "put", "putmask", "resize", "trim_zeros", "broadcast_arrays",
    "broadcast_shapes", "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from",
    "diag_indices", "diag_indices_from", "mask_indices", "astype", "copyto",
]
__all__ += ["fft"]
__all__ += [
    "fabs", "rint", "trunc", "fix", "cbrt", "spacing", "signbit", "isinf", "i0", "fmod", "fmax",
    "fmin", "copysign", "nextafter", "logaddexp2", "gcd", "lcm", "acos", "asin", "atan", "atan2",
    "acosh", "asinh", "atanh", "angle", "deg2rad", "rad2deg", "radians", "degrees", "sinc",
    "unwrap", "heaviside", "nan_to_num", "positive", "float_power", "ldexp", "frexp", "modf",
    "sort_complex", "real_if_close", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
    "isposinf", "isneginf", "isclose", "allclose", "array_equal", "array_equiv", "bitwise_count",
    "concat", "permute_dims", "matrix_transpose", "vecdot", "matvec", "vecmat",
]
__all__ += ["linalg"]

_operators.install(__import__(__name__, fromlist=["_"]))
