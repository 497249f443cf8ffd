"""`fg.pure_callback`: call a host Python function on concrete NumPy values from inside
transformed and compiled code (as `jax.pure_callback`).

The call binds the primitive `pure_callback(*operands, callback=PureCallback)`: its operands
are the array leaves of the arguments; `callback` rebuilds the caller's pytrees from their
runtime values, calls the function and checks each result leaf against the declared
`result_shape_dtypes` (shape and dtype; a mismatch raises naming the leaf, what was declared
and what came back). It is pure (no `effectful` flag): jit may drop a call whose results
nobody reads, as XLA may.

- eagerly (impl) and in jitted code (emit: a call of the callback object): on NumPy arrays;
- vmap: as `vmap_method` says (JAX's names): `"sequential"` (and `"sequential_unrolled"`)
  calls once per batch element; `"expand_dims"` calls once, batched operands with the batch
  at axis 0 and the others with a new size-1 axis 0; `"broadcast_all"` likewise with every
  operand broadcast to the batch; `"legacy_vectorized"` with the unbatched operands as they
  are. Without a `vmap_method`, vmap raises NotImplementedError (as JAX);
- differentiation: not differentiable (ValueError naming `fg.custom_jvp` / `fg.custom_vjp`,
  the way to give it a derivative), unless no operand carries a tangent.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.ad_util import ZERO
from ..core.ir import ShapedArray, aval_of
from ..core.primitive import Primitive
from ..core.trace import Tracer
from .. import tree as _tree

__all__ = ["pure_callback", "pure_callback_p"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized")


def _host(x):
    if hasattr(x, "get") and not isinstance(x, np.ndarray):  # CuPy -> host
        return x.get()
    return np.asarray(x)


def _is_operand(x) -> bool:
    """A leaf passed as an operand (traced values, arrays and numbers); other leaves (strings,
    objects) are static and reach the callback as they are."""
    return (isinstance(x, Tracer) or isinstance(x, (np.ndarray, np.generic, bool, int, float,
                                                    complex))
            or (hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type)))


def _result_aval(x, i) -> ShapedArray:
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        raise TypeError(f"pure_callback: result_shape_dtypes leaf {i} is {type(x).__name__} "
                        f"({x!r:.60}), not a fg.ShapeDtypeStruct or an array; declare each "
                        "result as fg.ShapeDtypeStruct(shape, dtype)")
    return ShapedArray(tuple(int(d) for d in x.shape), np.dtype(x.dtype), False)


class PureCallback:
    """The `callback` parameter of `pure_callback`: rebuilds `fn`'s arguments from the
    runtime operand values, calls it and checks the results against `result_avals`."""
    __slots__ = ("fn", "treedef", "leaves", "slots", "result_avals", "out_tree",
                 "vmap_method", "name")

    def __init__(self, fn, treedef, leaves, slots, result_avals, out_tree, vmap_method, name):
        self.fn, self.treedef, self.leaves, self.slots = fn, treedef, leaves, slots
        self.result_avals, self.out_tree = result_avals, out_tree
        self.vmap_method, self.name = vmap_method, name

    def batched(self, axis_size: int) -> "PureCallback":
        """The same callback with every result batched at axis 0."""
        avals = [ShapedArray((axis_size,) + a.shape, a.dtype, False) for a in self.result_avals]
        return PureCallback(self.fn, self.treedef, self.leaves, self.slots, avals,
                            self.out_tree, self.vmap_method, self.name)

    def __call__(self, *values):
        leaves = list(self.leaves)
        for k, v in zip(self.slots, values):
            leaves[k] = _host(v)
        args, kwargs = _tree.tree_unflatten(self.treedef, leaves)
        out = self.fn(*args, **kwargs)
        out_leaves, out_tree = _tree.tree_flatten(out)
        if out_tree != self.out_tree:
            raise TypeError(f"pure_callback({self.name}): the callback returned a value of "
                            f"structure {out_tree}, but result_shape_dtypes declares "
                            f"{self.out_tree}")
        xp = None
        if values and hasattr(values[0], "get") and not isinstance(values[0], np.ndarray):
            from ..backend import array_module  # (CuPy operands: results go to the GPU)
            xp = array_module(values[0])
        results = []
        for i, (o, a) in enumerate(zip(out_leaves, self.result_avals)):
            r = np.asarray(_host(o))
            if r.shape != a.shape or r.dtype != a.dtype:
                what = "shape" if r.shape != a.shape else "dtype"
                raise TypeError(
                    f"pure_callback({self.name}): result leaf {i} has {what} "
                    f"{r.shape if what == 'shape' else r.dtype.name}, but result_shape_dtypes "
                    f"declares {a.shape if what == 'shape' else a.dtype.name} (the callback "
                    f"returned {r.dtype.name}{list(r.shape)}, declared {a.str_short()}); "
                    "return arrays of the declared shapes and dtypes (e.g. "
                    "np.asarray(y, dtype))")
            r = np.array(r)  # (a fresh, writable copy: it may be an operand or the fn's state)
            results.append(xp.asarray(r) if xp is not None else r)
        return results

    def __repr__(self):
        return f"pure_callback({self.name})"


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call the host function `callback(*args, **kwargs)` with the runtime values of the
    arguments (array leaves as NumPy arrays), also from inside `fg.jit` and `fg.vmap`, and
    return its results (as `jax.pure_callback`).

    `result_shape_dtypes` is a pytree of `fg.ShapeDtypeStruct` (or arrays) declaring the
    results; what the callback returns must match it exactly (else TypeError naming the
    mismatch). `callback` must be pure: under jit it may be skipped when its results are
    unused. Under `vmap`, `vmap_method` says how the batch reaches it: `"sequential"` (one
    call per element), `"expand_dims"` (one call; unbatched arguments get a size-1 axis 0),
    `"broadcast_all"` (one call; all arguments broadcast to the batch) or
    `"legacy_vectorized"` (one call; unbatched arguments as they are); with none, vmap raises
    NotImplementedError. It has no derivative: wrap it in `fg.custom_jvp` / `fg.custom_vjp`.

    Example:
        >>> def host_sin(x):
        ...     return np.sin(x)              # any NumPy / SciPy / Python code
        >>> f = fg.jit(lambda x: fg.pure_callback(
        ...     host_sin, fg.ShapeDtypeStruct(x.shape, x.dtype), x) * 2.0)
        >>> f(np.zeros(2))
        array([0., 0.])
    """
    if not callable(callback):
        raise TypeError(f"pure_callback: callback must be callable, got "
                        f"{type(callback).__name__}")
    if vmap_method not in VMAP_METHODS + (None,):
        raise ValueError(f"pure_callback: vmap_method must be one of {list(VMAP_METHODS)} or "
                         f"None, but got {vmap_method!r}")
    res_leaves, out_tree = _tree.tree_flatten(result_shape_dtypes)
    result_avals = [_result_aval(x, i) for i, x in enumerate(res_leaves)]
    leaves, treedef = _tree.tree_flatten((tuple(args), dict(kwargs)))
    slots = [k for k, x in enumerate(leaves) if _is_operand(x)]
    static = [None if k in slots else x for k, x in enumerate(leaves)]
    operands = []
    for k in slots:
        x = leaves[k]
        operands.append(x if isinstance(x, Tracer) or hasattr(x, "shape") else np.asarray(x))
    cb = PureCallback(callback, treedef, static, slots, result_avals, out_tree, vmap_method,
                      getattr(callback, "__name__", type(callback).__name__))
    outs = pure_callback_p.bind(*operands, callback=cb)
    return _tree.tree_unflatten(out_tree, list(outs))


pure_callback_p = Primitive("pure_callback", multiple_results=True)


def _impl(*values, callback):
    return callback(*values)


def _abstract_eval(*avals, callback):
    return list(callback.result_avals)


def _jvp(primals, tangents, callback):
    if any(t is not ZERO for t in tangents):
        raise ValueError(
            f"pure_callback({callback.name}) cannot be differentiated: fungrad cannot see "
            "inside a host callback (as jax.pure_callback: 'Pure callbacks do not support "
            "JVP'). Wrap the function calling it in fg.custom_jvp or fg.custom_vjp and give "
            "its derivative there (which may itself use fg.pure_callback).")
    outs = pure_callback_p.bind(*primals, callback=callback)
    return outs, [ZERO] * len(outs)


def _to_front(x, d):
    if d is None or d == 0:
        return x
    perm = [d] + [i for i in range(aval_of(x).ndim) if i != d]
    return x.transpose(tuple(perm))


def _batch(vals, dims, axis_size, callback):
    method = callback.vmap_method
    if method is None:
        raise NotImplementedError(
            f"vmap of pure_callback({callback.name}) needs a vmap_method (as in JAX: 'vmap is "
            "only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            "'legacy_vectorized''): pass vmap_method='sequential' to call it once per batch "
            "element, or 'expand_dims' / 'broadcast_all' if it handles a leading batch axis")
    n_out = len(callback.result_avals)
    if method in ("sequential", "sequential_unrolled"):
        per = []
        for i in range(axis_size):
            args = [x if d is None else x[(slice(None),) * d + (i,)] for x, d in zip(vals, dims)]
            per.append(pure_callback_p.bind(*args, callback=callback))
        outs = [np.stack([p[k] for p in per]) for k in range(n_out)]
        return outs, [0] * n_out
    args = []
    for x, d in zip(vals, dims):
        if d is not None:
            args.append(_to_front(x, d))
            continue
        a = aval_of(x)
        if method == "expand_dims":
            args.append(x.reshape((1,) + a.shape))
        elif method == "broadcast_all":
            args.append(np.broadcast_to(x, (axis_size,) + a.shape))
        else:  # legacy_vectorized: as it is
            args.append(x)
    outs = pure_callback_p.bind(*args, callback=callback.batched(axis_size))
    return list(outs), [0] * n_out


def _emit(ctx, ins, out, callback):
    return f"{ctx.const(callback, 'callback')}({', '.join(ins)})"


pure_callback_p.impl = _impl
pure_callback_p.abstract_eval = _abstract_eval
pure_callback_p.jvp = _jvp
pure_callback_p.batch = _batch
pure_callback_p.emit = _emit
pure_callback_p.fresh_output = True
