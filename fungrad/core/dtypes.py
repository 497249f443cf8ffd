"""Dtype categories and promotion, in one place for every layer.

NumPy does not know ml_dtypes' narrow floats (bfloat16, float8_*): their kind is 'V', so
`np.issubdtype(bfloat16, np.inexact)` is False, and `np.result_type` either fails
(bfloat16 with float16 or int32) or promotes a Python float to float64. fungrad treats them
as floats everywhere and promotes them like float16 (whose NEP 50 rules NumPy does know):
a Python scalar never widens them, and two different 16-bit-or-narrower floats meet in
float32, as in JAX. `ml_dtypes` is never imported here: its dtypes are recognised by name.
"""
from __future__ import annotations

import functools

import numpy as np

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_WEAK = (bool, int, float, complex)  # Python scalar types (NEP 50 weak operands)


_on_first_narrow: list = []  # callbacks to run once, when an ml_dtypes float is first seen


def on_first_narrow_float(callback) -> None:
    """Run `callback()` once, the first time fungrad meets an ml_dtypes float (now, if it
    already has). lax uses it to install dtype-keeping kernels that only such dtypes need,
    so programs on NumPy's own dtypes never pay for them."""
    if _on_first_narrow is None:
        callback()
    else:
        _on_first_narrow.append(callback)


def _is_ml_float(dt: np.dtype) -> bool:
    """bfloat16, float8_e4m3fn, ...: kind 'V' (NumPy's "void") but a float name."""
    if dt.kind == "V" and "float" in dt.name:
        if _on_first_narrow is not None:
            _first_narrow_seen()
        return True
    return False


def _first_narrow_seen():
    global _on_first_narrow
    callbacks, _on_first_narrow = _on_first_narrow, None
    for callback in callbacks:
        callback()


def kind(dtype) -> str:
    """NumPy's `dtype.kind` ('b', 'i', 'u', 'f', 'c', ...), with 'f' for ml_dtypes floats.

    Example: `kind(ml_dtypes.bfloat16)` is 'f'.
    """
    try:  # np.dtype instances (the usual case) need no conversion
        k = dtype.kind
    except AttributeError:
        dtype = np.dtype(dtype)
        k = dtype.kind
    return "f" if k == "V" and _is_ml_float(dtype) else k


def is_floating(dtype) -> bool:
    """A real float dtype, bfloat16 and ml_dtypes' other floats included.

    Example: `is_floating(np.float16)` is True; `is_floating(np.int32)` is False.
    """
    return kind(dtype) == "f"


def is_inexact(dtype) -> bool:
    """A float or complex dtype: the dtypes that carry derivatives.

    Example:
        >>> fg.test_util.is_inexact(np.float32), fg.test_util.is_inexact(np.complex64)
        (True, True)
        >>> fg.test_util.is_inexact(np.int64), fg.test_util.is_inexact(np.bool_)
        (False, False)
    """
    k = kind(dtype)
    return k == "f" or k == "c"


@functools.lru_cache(maxsize=None)
def _narrow_result(operands: tuple) -> np.dtype:
    """Promotion with ml_dtypes floats: each stands in as float16 for NumPy's NEP 50 rules;
    a float16 result is that narrow float if it is the only one among the strong operands,
    else float32 (bfloat16 + float16 -> float32)."""
    narrow = {o for o in operands if isinstance(o, np.dtype) and
              (o == _F16 or _is_ml_float(o))}
    proxies = [o(0) if isinstance(o, type) else _F16 if _is_ml_float(o) else o
               for o in operands]
    out = np.result_type(*proxies)
    if out != _F16:
        return out
    return narrow.pop() if len(narrow) == 1 else _F32


def result_type(*operands) -> np.dtype:
    """NumPy 2 promotion (NEP 50) of dtypes (or scalar types) and weak Python scalars
    (passed as values: `1.0`, `2`), extended to ml_dtypes floats (see the module docstring).

    Example: `result_type(np.float32, 2.5)` is float32;
    `result_type(ml_dtypes.bfloat16, 1.0)` is bfloat16.
    """
    for o in operands:
        if type(o) not in _WEAK:
            try:
                k = o.kind
            except AttributeError:
                k = np.dtype(o).kind
            if k == "V":
                # weak scalars enter the cached key by type (0 == 0.0 == False as keys)
                return _narrow_result(tuple(type(o) if type(o) in _WEAK else np.dtype(o)
                                            for o in operands))
    return np.result_type(*operands)
