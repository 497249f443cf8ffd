"""Which array module computes: NumPy by default, CuPy when an input is a CuPy array.

This is the only module that imports CuPy, and only when a CuPy array is actually seen.
"""
from __future__ import annotations

import numpy as np


def _is_cupy(x) -> bool:
    return type(x).__module__.startswith("cupy")


def array_module(*xs):
    """`numpy`, or `cupy` if any of `xs` is a CuPy array (tracers are looked through)."""
    for x in xs:
        while hasattr(x, "primal"):
            x = x.primal
        if x is not None and _is_cupy(x):
            import cupy
            return cupy
    return np


def cupy_available() -> bool:
    """True if CuPy imports and sees a GPU."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def device_put(x, device: str = "cpu"):
    """Move an array (or a pytree of arrays) to `"cpu"` (NumPy) or `"gpu"` (CuPy).

    Example:
        >>> fg.device_put({"w": np.zeros(2), "b": 1.0}, "cpu")   # leaves become NumPy arrays
        {'b': array(1.), 'w': array([0., 0.])}
    """
    from . import tree
    if device == "cpu":
        return tree.tree_map(lambda a: a.get() if _is_cupy(a) else np.asarray(a), x)
    if device == "gpu":
        import cupy
        return tree.tree_map(cupy.asarray, x)
    raise ValueError(f"device_put: device must be 'cpu' or 'gpu', got {device!r}")
