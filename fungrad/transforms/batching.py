"""vmap: the batching interpreter, and the Jacobians built on it.

A `BatchTracer` holds a value with one extra axis (`bdim`) that carries the batch; values
without a batch axis are never wrapped (like symbolic zero tangents), so weights closed
over stay unbatched. Each primitive's `batch` rule takes `(values, dims)` (dim None = not
batched) and returns `(out, out_dim)`, using NumPy's own batched kernels, never a loop.
"""
from __future__ import annotations

import collections
import inspect
import numbers

from typing import Any, Callable

import numpy as np

from ..backend import array_module
from ..core.ir import ShapedArray, aval_of
from ..core.trace import Trace, Tracer, new_trace
from ..errors import ConcretizationError
from .. import tree as _tree
from .ad import _as_array, _fun_name
from .fresh import fresh_leaves


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim", "_aval")

    def __init__(self, trace, val, bdim: int):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        self._aval = None

    @property
    def aval(self):
        a = self._aval
        if a is None:  # computed once: rules ask for it several times per primitive
            v = aval_of(self.val)
            a = self._aval = ShapedArray(v.shape[:self.bdim] + v.shape[self.bdim + 1:], v.dtype)
        return a

    def to_concrete(self, what, cuts=False):
        raise ConcretizationError(
            f"{what} needs one concrete value, but this is a batched value "
            f"({self.aval.str_short()} with a batch of {self._trace.axis_size}) under vmap, where "
            "each example may differ. Instead of Python branching on batched values use "
            "fnp.where(cond, x, y) or fg.lax.select_n(which, *cases) to select values, or "
            "fg.lax.cond(pred, true_fn, false_fn, *operands) (fg.lax.switch) to choose a "
            "branch per example; and fnp functions instead of float() or math.*.")


class BatchTrace(Trace):
    __slots__ = ("axis_size",)

    def __init__(self, axis_size: int):
        super().__init__()
        self.axis_size = axis_size

    def process_primitive(self, prim, args, params):
        vals = []
        dims = []
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
            else:
                vals.append(a)
                dims.append(None)
        rule = prim.batch
        if rule is None:
            raise NotImplementedError(
                f"vmap: primitive '{prim.name}' has no batching rule (fungrad never falls "
                "back to a Python loop over the batch)")
        out, out_dim = rule(vals, dims, axis_size=self.axis_size, **params)
        if prim.multiple_results:
            return [o if d is None else BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
        return out if out_dim is None else BatchTracer(self, out, out_dim)


# ----------------------------------------------------------------------------- vmap
def _broadcast_prefix(prefix, tree, what: str, fname: str) -> list:
    """The axis (int or None) for every leaf of `tree`, from a pytree prefix `prefix`."""
    out: list = []
    _prefix_axes(prefix, tree, out, (), what, fname)
    return out


def _is_leaf_axis(ax) -> bool:
    """An axis spec that applies to every leaf as it is (the common case: no tree walk)."""
    return ax is None or type(ax) is int


def _prefix_axes(p, t, out, path, what, fname):
    # a module-level recursion, not a closure: a recursive closure is a reference cycle that
    # would keep every batched output alive until the garbage collector runs
    if isinstance(p, (bool, np.bool_)):  # (an int to Python: True would mean axis 1)
        raise ValueError(
            f"vmap({fname}): {what}{''.join(f'[{k!r}]' for k in path)}={p!r} is a bool, not an "
            f"axis: use an int (the axis of {_prefix_owner(what, path)} that holds the batch) "
            "or None (not mapped)")
    if p is None or isinstance(p, (int, np.integer)):
        out.extend([None if p is None else int(p)] * len(_tree.tree_leaves(t)))
    elif isinstance(p, dict) and isinstance(t, dict) and sorted(p) == sorted(t):
        # in the order `t` flattens in: an OrderedDict keeps insertion order (sorted keys
        # would give its leaves each other's axes), other dicts sort their keys
        for k in (list(t) if isinstance(t, collections.OrderedDict) else sorted(t)):
            _prefix_axes(p[k], t[k], out, path + (k,), what, fname)
    elif isinstance(p, (list, tuple)) and isinstance(t, (list, tuple)) and len(p) == len(t):
        for i, (pc, tc) in enumerate(zip(p, t)):
            _prefix_axes(pc, tc, out, path + (i,), what, fname)
    elif type(p) is type(t) and _is_node(p):
        # another pytree node (a registered class or dataclass), as JAX allows: the entries of
        # `p` (None kept as an entry) against the subtrees of `t` at the same places
        entries, spec = _tree.tree_flatten(p, is_leaf=lambda x: x is None)
        try:
            subtrees = spec.flatten_up_to(t)
        except ValueError:
            subtrees = None
        if subtrees is None:
            _prefix_mismatch(p, t, path, what, fname)
        for i, (pc, tc) in enumerate(zip(entries, subtrees)):
            _prefix_axes(pc, tc, out, path + (f"leaf {i}",), what, fname)
    else:
        _prefix_mismatch(p, t, path, what, fname)


def _is_node(p) -> bool:
    """Whether `p` is a pytree node (not one leaf) once None counts as a leaf."""
    entries = _tree.tree_leaves(p, is_leaf=lambda x: x is None)
    return not (len(entries) == 1 and entries[0] is p)


def _prefix_mismatch(p, t, path, what, fname):
    raise ValueError(
        f"vmap({fname}): {what}{''.join(f'[{k!r}]' for k in path)}={p!r} is not a pytree "
        f"prefix of {_prefix_owner(what, path)}, whose structure is "
        f"{_tree.tree_structure(t)} (use an int, None, or a matching container)")


def _prefix_owner(what, path) -> str:
    """Which argument (or output) a mismatching in_axes (out_axes) entry belongs to."""
    if what != "in_axes":
        return "the outputs" if not path else f"output{''.join(f'[{k!r}]' for k in path)}"
    if not path:
        return "the positional arguments"
    rest = "".join(f"[{k!r}]" for k in path[1:])
    return f"argument {path[0]}" + (f" (at {rest})" if rest else "")


def vmap(f: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_size: int | None = None,
         chunk_size: int | None = None) -> Callable:
    """Vectorize `f` over a batch axis of its arguments, with NumPy's batched kernels.

    `in_axes` / `out_axes`: an int (negative allowed), None (not mapped), or a pytree prefix
    of the positional arguments / outputs; keyword arguments are mapped over axis 0 (as in
    JAX). `axis_size` gives the batch size when no input is mapped;
    `chunk_size` processes the batch in chunks of at most that many (same result, less memory).

    Example:
        >>> fg.vmap(fnp.dot)(np.ones((3, 2)), np.ones((3, 2)))   # three dot products
        array([2., 2., 2.])
        >>> loss = lambda w, x, y: (fnp.dot(x, w) - y) ** 2
        >>> w, xs, ys = np.array([2.0, 3.0]), np.eye(2), np.array([1.0, 2.0])
        >>> fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)   # per example: 2 (x.w - y) x
        array([[2., 0.],
               [0., 2.]])
    """
    name = _fun_name(f)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap({name}): chunk_size must be a positive int, got {chunk_size!r}")
    if axis_size is not None:
        if not isinstance(axis_size, (int, np.integer)) or isinstance(axis_size, bool) or \
                axis_size < 0:
            raise ValueError(f"vmap({name}): axis_size must be None or an int >= 0 (the batch "
                             f"size), got {axis_size!r}")
        axis_size = int(axis_size)

    def run(leaves, in_tree, axes, size):
        trees = []

        def fun(ins):
            out = (f(*_tree.tree_unflatten(in_tree, ins)) if type(in_tree) is not tuple
                   else _call_with_kwargs(f, in_tree, ins))
            out_leaves, out_tree = _tree.tree_flatten(out)
            trees.append(out_tree)
            return out_leaves, ([out_axes] * len(out_leaves) if _is_leaf_axis(out_axes)
                                else _broadcast_prefix(out_axes, out, "out_axes", name))
        outs, placed_axes = batch_flat(name, fun, leaves, axes, size)
        return outs, trees[0], placed_axes

    def vmapped(*args, **kwargs):
        leaves, in_tree = _tree.tree_flatten(args)
        axes = ([in_axes] * len(leaves) if _is_leaf_axis(in_axes) else _broadcast_prefix(
            tuple(in_axes) if isinstance(in_axes, list) else in_axes, args, "in_axes", name))
        if kwargs:  # as in JAX: keyword arguments are mapped over their axis 0
            kw_leaves, kw_tree = _tree.tree_flatten(kwargs)
            leaves, axes = leaves + kw_leaves, axes + [0] * len(kw_leaves)
            in_tree = (in_tree, kw_tree)
        leaves = [x if ax is None else _as_batchable(x) for x, ax in zip(leaves, axes)]
        size = _batch_size(name, leaves, axes, axis_size, (args, kwargs, f))
        if chunk_size is None or size <= chunk_size:
            outs, out_tree, _ = run(leaves, in_tree, axes, size)
        else:
            outs, out_tree = _run_chunked(run, leaves, in_tree, axes, size, chunk_size)
        outs = [_as_array(o) for o in outs]
        xp = array_module(*leaves)
        if xp is not np:  # an output that does not depend on CuPy inputs joins them there
            outs = [xp.asarray(o) if type(o) is np.ndarray else o for o in outs]
        return _tree.tree_unflatten(out_tree, fresh_leaves(outs, leaves))

    vmapped.__name__ = f"vmap({name})"
    return vmapped


def _call_with_kwargs(f, trees, ins):
    """`f(*args, **kwargs)` from the flat leaves of the positional and keyword arguments."""
    args_tree, kw_tree = trees
    n = args_tree.num_leaves
    return f(*_tree.tree_unflatten(args_tree, ins[:n]), **_tree.tree_unflatten(kw_tree, ins[n:]))


def batch_flat(name, fun, leaves, axes, size):
    """The batching interpreter on flat lists: `fun(ins) -> (out leaves, out axes)` runs
    with the leaves whose axis is not None batched. Returns (outputs with their batch axis
    moved to the requested place, the axis each ended up at or None)."""
    trace = BatchTrace(size)
    with new_trace(trace):
        ins = [x if ax is None else BatchTracer(trace, x, ax % aval_of(x).ndim)
               for x, ax in zip(leaves, axes)]
        outs, oaxes = fun(ins)
        placed = [_place_output(name, trace, o, ax, size) for o, ax in zip(outs, oaxes)]
    return [p for p, _ in placed], [a for _, a in placed]


def _as_batchable(x):
    if isinstance(x, Tracer) or hasattr(x, "shape"):
        return x
    return np.asarray(x)


def _batch_size(name, leaves, axes, axis_size, call=None):
    sizes: dict = {}
    for i, (x, ax) in enumerate(zip(leaves, axes)):
        if ax is None:
            continue
        shape = aval_of(x).shape
        if not -len(shape) <= ax < len(shape):
            raise ValueError(_axis_error(name, ax, i, shape, call))
        sizes.setdefault(shape[ax], []).append((i, ax))
    if len(sizes) > 1 or (sizes and axis_size is not None and axis_size not in sizes):
        # as JAX's: every mapped leaf by name (argument, position in its pytree), with its
        # axis, size and type, so the one that disagrees is easy to spot
        where = _leaf_names(leaves, call)
        lines = ([f"axis_size={axis_size}"] if axis_size is not None else []) + [
            f"size {n}: axis {ax} of {where[i]} ({aval_of(leaves[i]).str_short()})"
            for n, v in sizes.items() for i, ax in v]
        head = ("mapped inputs have different sizes along their mapped axes" if len(sizes) > 1
                else f"axis_size={axis_size} but the mapped inputs have size {next(iter(sizes))}")
        raise ValueError(
            f"vmap({name}): {head}: " + "; ".join(lines) + ". Every mapped axis must have "
            "the batch size: pass in_axes=None for an argument that is the same for every "
            "example, or the in_axes entry of the axis that holds the batch")
    if sizes:
        return next(iter(sizes))
    if axis_size is None:
        raise ValueError(f"vmap({name}): no input is mapped (every in_axes is None), so the "
                         "batch size is unknown: pass axis_size=")
    return axis_size


def _leaf_names(leaves, call) -> list:
    """A readable place for every flat input leaf: 'argument 1 (b)', "argument 0 (d)['w']",
    "keyword argument 'k'" (the order of `tree_flatten((args, kwargs))`)."""
    if call is None:
        return [f"input leaf {i}" for i in range(len(leaves))]
    args, kwargs, f = call
    params = _param_names(f)  # (only here, for an error: inspect is slow for the hot path)
    out: list = []
    for pos, a in enumerate(args):
        _name_leaves(a, f"argument {pos}" + (f" ({params[pos]})" if pos < len(params) else ""),
                     out)
    for key in sorted(kwargs):
        _name_leaves(kwargs[key], f"keyword argument {key!r}", out)
    return out if len(out) == len(leaves) else [f"input leaf {i}" for i in range(len(leaves))]


def _name_leaves(t, path, out):
    if type(t) is dict:
        for k in sorted(t):
            _name_leaves(t[k], f"{path}[{k!r}]", out)
    elif type(t) in (list, tuple):
        for k, c in enumerate(t):
            _name_leaves(c, f"{path}[{k}]", out)
    else:  # a leaf, or a pytree node of another type: its leaves by number
        n = len(_tree.tree_leaves(t))
        out.extend([path] if n == 1 and _tree.tree_leaves(t)[0] is t
                   else [f"{path} (leaf {j})" for j in range(n)])


def _param_names(f) -> tuple:
    """The names of `f`'s positional parameters, for error messages (none if unknown)."""
    try:
        return tuple(p.name for p in inspect.signature(f).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    except (TypeError, ValueError):
        return ()


def _axis_error(name, ax, i, shape, call) -> str:
    """The message for a mapped axis out of range, naming the argument that holds leaf `i`
    of `call` = (args, kwargs, the function)."""
    msg = (f"vmap({name}): in_axes={ax} is out of range for input leaf {i} of shape {shape} "
           f"(it has {len(shape)} axes)")
    if call is None:
        return msg
    args, kwargs, _ = call
    where = _leaf_names([None] * len(_tree.tree_leaves((args, kwargs))), call)[i]
    if where.startswith("keyword"):
        return (f"vmap({name}): {where.split(' (leaf')[0]} is mapped over axis 0 (as every "
                f"keyword argument is), but it has shape {shape}; pass it positionally with an "
                "in_axes entry (None: not mapped) instead")
    fix = (f"use an axis in [{-len(shape)}, {len(shape)})" if shape else
           "a 0-d value has no axis to map (stack the examples into an array)")
    return f"{msg}, in {where}: {fix}; in_axes None leaves an argument unmapped"


# A batched opaque value is one host object for all examples (vmap of a while_loop's
# reverse mode records one tape for the batch): it has no axis to move, stack or select on.
_BATCHED_OPAQUE = (
    "vmap of reverse-mode differentiation through a while_loop that runs inside another "
    "differentiated loop or branch (a while_loop in the body of a while_loop, scan or cond, "
    "or vmap(fg.grad(fg.grad(f))) of a while_loop) is not supported: its tape is one object "
    "for the whole batch. For second derivatives use fg.vmap(fg.hessian(f)) or "
    "fg.vmap(fg.jacfwd(fg.grad(f))); otherwise loop over the batch with fg.lax.map, or write "
    "the inner loop with fg.lax.fori_loop / fg.lax.scan with a static trip count.")


def _place_output(name, trace, o, ax, size):
    """Move the batch axis of output `o` to `ax`; returns (value, its batch axis or None)."""
    if type(o) is BatchTracer and o._trace is trace:
        if getattr(aval_of(o.val), "opaque", False):
            raise NotImplementedError(_BATCHED_OPAQUE)
        if ax is None:
            raise ValueError(f"vmap({name}): an output varies over the batch but its out_axes "
                             "is None: give it an int out_axes (where its batch axis goes), or "
                             "None only for outputs that are the same for every example")
        nd = aval_of(o.val).ndim
        _check_out_axis(name, ax, nd)
        return _moveaxis(o.val, o.bdim, ax % nd), ax % nd
    if ax is None:  # (an array the function closes over: a copy, as jit returns)
        return (o.copy() if type(o) is np.ndarray else o), None
    if isinstance(o, (str, bytes, np.dtype)) or not (
            isinstance(o, (Tracer, numbers.Number)) or hasattr(o, "shape")):
        raise TypeError(f"vmap({name}): an output of type {type(o).__name__} ({o!r:.40}) is "
                        "not an array: vmap stacks each output along the batch axis. Return "
                        "arrays, or compute that value outside the vmapped function")
    o = _as_batchable(o)
    shape = aval_of(o).shape
    # an output that does not depend on the batch is broadcast along it, at the same place
    _check_out_axis(name, ax, len(shape) + 1)
    ax = ax % (len(shape) + 1)
    return np.broadcast_to(o.reshape(shape[:ax] + (1,) + shape[ax:]),
                           shape[:ax] + (size,) + shape[ax:]), ax


# The array operations below work on NumPy/CuPy arrays and on tracers alike (tracers take
# NumPy's methods and functions to fungrad.numpy), so this module needs nothing from lax.
def _moveaxis(x, src: int, dst: int):
    if src == dst:
        return x
    perm = [i for i in range(aval_of(x).ndim) if i != src]
    perm.insert(dst, src)
    return x.transpose(tuple(perm))


def _check_out_axis(name, ax, nd):
    if not -nd <= ax < nd:
        raise ValueError(f"vmap({name}): out_axes={ax} is out of range for an output with "
                         f"{nd} axes (batch included): use an axis in [{-nd}, {nd})")


def _run_chunked(run, leaves, in_tree, axes, size, chunk):
    """`run` on consecutive chunks of the batch, outputs joined along their batch axes."""
    parts = []
    for start in range(0, size, chunk):
        stop = min(start + chunk, size)
        sliced = [x if ax is None else x[(slice(None),) * (ax % aval_of(x).ndim)
                                         + (slice(start, stop),)]
                  for x, ax in zip(leaves, axes)]
        parts.append(run(sliced, in_tree, axes, stop - start))
    outs0, out_tree, placed = parts[0]
    outs = [o if ax is None else np.concatenate([p[0][j] for p in parts], axis=ax)
            for j, (o, ax) in enumerate(zip(outs0, placed))]
    return outs, out_tree
