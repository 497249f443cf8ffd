"""Which array module computes: NumPy by default, CuPy when an input is a CuPy array.

This is the only module that imports CuPy, and only when a CuPy array is actually seen.
"""
from __future__ import annotations

import numpy as np


def is_cupy(x) -> bool:
    """True for a CuPy array (not a tracer: see `array_module`)."""
    return type(x).__module__.startswith("cupy")


def array_module(*xs):
    """`numpy`, or `cupy` if any of `xs` is a CuPy array (tracers are looked through)."""
    for x in xs:
        # look through JVP tracers (primal) and batch or checkify tracers (val) to the value
        while True:
            if hasattr(x, "primal"):
                x = x.primal
            elif hasattr(x, "val"):
                x = x.val
            else:
                break
        if x is not None and is_cupy(x):
            import cupy
            return cupy
    return np


def asarray(x, dtype=None):
    """`np.asarray(x, dtype)`, except that a CuPy array stays a CuPy array (on its device).

    Use it wherever an impl or an eager helper turns an input into an array: `np.asarray`
    of a CuPy array raises (CuPy forbids implicit device-to-host copies).
    """
    if type(x) is np.ndarray or is_cupy(x):  # (NumPy's arrays first: the common case)
        return x if dtype is None or x.dtype == dtype else x.astype(dtype)
    if isinstance(x, np.ma.MaskedArray):  # (eagerly NumPy's functions keep the mask)
        return x if dtype is None or x.dtype == dtype else x.astype(dtype)
    return np.asarray(x, dtype)


def like(x, value, dtype=None):
    """`value` (an array or scalar built with NumPy) as an array on `x`'s device: NumPy for
    NumPy `x`, CuPy for CuPy `x`. Constants mixed into a computation on `x` go through it."""
    if is_cupy(x):
        import cupy
        return cupy.asarray(value, dtype)
    return np.asarray(value, dtype)


def one_device(*xs, lists_as_arrays: bool = False):
    """`xs` with their NumPy arrays and scalars (also those inside a list or tuple) moved to
    the GPU when one of them is a CuPy array, for a call that dispatches to CuPy (CuPy's
    functions and kernels reject NumPy arrays); `xs` itself otherwise. `lists_as_arrays`:
    a list among `xs` (numbers, for a function that takes array-likes) becomes one array."""
    xp = array_module(*xs, *[e for x in xs if type(x) in _SEQUENCES for e in x])
    if xp is np:
        return xs

    def move(x, top=False):
        if top and lists_as_arrays and type(x) is list:
            return xp.asarray(x)
        if type(x) in _SEQUENCES:
            return type(x)(move(e) for e in x)
        return xp.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x
    return tuple(move(x, True) for x in xs)


_SEQUENCES = (list, tuple)


def call_on_one_device(np_fn, *args, **kwargs):
    """`np_fn(*args, **kwargs)`; where that fails because a NumPy array met a CuPy one, once
    more with `one_device(*args)` (free for NumPy arguments: only a TypeError retries)."""
    try:
        return np_fn(*args, **kwargs)
    except TypeError:
        moved = one_device(*args)
        if moved is args:
            raise
        return np_fn(*moved, **kwargs)


def to_host(x):
    """A NumPy array with `x`'s values (a device-to-host copy for a CuPy array)."""
    return x.get() if is_cupy(x) else np.asarray(x)


def scipy_module(name: str, *xs):
    """`scipy.<name>` (special, linalg, signal, ...), or `cupyx.scipy.<name>` if any of `xs` is
    a CuPy array (imported lazily: SciPy stays an optional extra)."""
    import importlib
    if array_module(*xs) is not np:
        return importlib.import_module(f"cupyx.scipy.{name}")
    return importlib.import_module(f"scipy.{name}")


def on_host(fn):
    """`fn` run on host copies of any CuPy arguments, its array results moved back to the
    device: for the few computations CuPy has no kernel for (correct, not fast)."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if array_module(*args, *kwargs.values()) is np:
            return fn(*args, **kwargs)
        import cupy
        from . import tree
        host = tree.tree_map(lambda a: a.get() if is_cupy(a) else a, (args, kwargs))
        out = fn(*host[0], **host[1])
        return tree.tree_map(lambda a: cupy.asarray(a) if isinstance(a, (np.ndarray, np.generic))
                             else a, out)
    return wrapped


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
        return tree.tree_map(lambda a: a.get() if is_cupy(a) else np.asarray(a), x)
    if device == "gpu":
        import cupy
        return tree.tree_map(cupy.asarray, x)
    raise ValueError(f"device_put: device must be 'cpu' or 'gpu', got {device!r}")


def device_get(x):
    """A pytree's arrays as NumPy arrays on the host (CuPy arrays copied over; NumPy arrays
    and Python scalars as they are), as `jax.device_get`.

    Example:
        >>> fg.device_get({"w": np.zeros(2), "n": 3})
        {'n': 3, 'w': array([0., 0.])}
    """
    from . import tree
    return tree.tree_map(lambda a: a.get() if is_cupy(a) else a, x)


def block_until_ready(x):
    """Wait until the computations producing a pytree's arrays have finished, and return it
    (as `jax.block_until_ready`): NumPy computes eagerly, so this returns at once; CuPy
    kernels run asynchronously, so it synchronizes their device. Use it to time GPU code.

    Example:
        >>> fg.block_until_ready(np.ones(2))
        array([1., 1.])
    """
    from . import tree
    for leaf in tree.tree_leaves(x):
        if is_cupy(leaf):
            import cupy
            cupy.cuda.get_current_stream().synchronize()
            break
    return x
