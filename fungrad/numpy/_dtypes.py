"""`result_type` and `promote_types`: NumPy's, with the promotion fungrad.numpy applies to
traced values (bfloat16 and ml_dtypes' other floats promote like float16)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes as _dtypes
from ..core.trace import Tracer
from ._base import _promotion_operand, is_weak


def _operand(x):
    if is_weak(x) or isinstance(x, Tracer) or (
            hasattr(x, "dtype") and not isinstance(x, (type, np.dtype))):
        return _promotion_operand(x)  # arrays, tracers, NumPy scalars; Python scalars weak
    return np.dtype(x)


def result_type(*arrays_and_dtypes) -> np.dtype:
    """`numpy.result_type` (NEP 50: Python scalars are weak), also for traced values and
    ml_dtypes floats, exactly as fungrad.numpy promotes operands: a Python scalar never
    widens bfloat16, and bfloat16 with float16 gives float32.

    Example: `fnp.result_type(ml_dtypes.bfloat16, 1.0)` is bfloat16.
    """
    return _dtypes.result_type(*[_operand(x) for x in arrays_and_dtypes])


def promote_types(type1, type2) -> np.dtype:
    """`numpy.promote_types`, with ml_dtypes floats promoting like float16.

    Example: `fnp.promote_types(ml_dtypes.bfloat16, np.float16)` is float32.
    """
    return _dtypes.result_type(np.dtype(type1), np.dtype(type2))
