"""`associative_scan`: all prefix combinations of an associative function in O(log n)
rounds of whole-array calls (Blelloch's odd/even recursion; Ladner and Fischer 1980).

Built only from slicing, concatenation and reshapes plus the user's function, so every
transform (jvp, grad, vmap, jit) applies without a rule of its own.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import tree as _tree
from ..core.ir import aval_of
from .indexing import getitem_p
from .shape import concatenate, reshape

_ALL = ("slice", None, None, None)


def _slice(x, axis, start, stop, step=None):
    spec = (_ALL,) * axis + (("slice", start, stop, step),)
    return getitem_p.bind(x, spec=spec)


def _interleave(evens, odds, axis):
    """evens[0], odds[0], evens[1], odds[1], ... along `axis` (len(evens) is len(odds) or
    one more): stack the pairs on a new axis after `axis`, then merge the two."""
    shape = aval_of(odds).shape
    n = shape[axis]
    head = _slice(evens, axis, 0, n)
    pair_shape = shape[:axis] + (n, 1) + shape[axis + 1:]
    pairs = concatenate([reshape(head, pair_shape), reshape(odds, pair_shape)], axis + 1)
    out = reshape(pairs, shape[:axis] + (2 * n,) + shape[axis + 1:])
    if aval_of(evens).shape[axis] > n:
        out = concatenate([out, _slice(evens, axis, n, n + 1)], axis)
    return out


def associative_scan(fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False,
                     axis: int = 0) -> Any:
    """Inclusive scan with an associative `fn` along `axis` of every leaf of `elems`
    (JAX's `lax.associative_scan`): `out[i] = fn(...fn(fn(e[0], e[1]), e[2])..., e[i])`, with
    `reverse=True` from the end. `fn(a, b)` takes two pytrees shaped like `elems` (with a
    shorter `axis`) and must be associative and vectorized over `axis`; it is called
    O(log n) times on whole arrays, not n times.

    Example:
        >>> fg.lax.associative_scan(fnp.add, np.arange(1.0, 6.0))
        array([ 1.,  3.,  6., 10., 15.])
        >>> fg.lax.associative_scan(fnp.maximum, np.array([3., 1., 4., 1., 5.]), reverse=True)
        array([5., 5., 5., 5., 5.])
    """
    leaves, treedef = _tree.tree_flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems has no arrays; pass a pytree of arrays "
                         "that share the length of `axis`")
    ndim = len(aval_of(leaves[0]).shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"associative_scan: axis {axis} is out of range for elems of rank "
                         f"{ndim}")
    axis = axis % ndim
    lengths = {aval_of(x).shape[axis] for x in leaves}
    if len(lengths) != 1:
        raise ValueError(f"associative_scan: every leaf of elems needs the same length along "
                         f"axis {axis}; got shapes {[aval_of(x).shape for x in leaves]}")

    def combine(a, b):
        out = fn(_tree.tree_unflatten(treedef, a), _tree.tree_unflatten(treedef, b))
        out_leaves, out_def = _tree.tree_flatten(out)
        if out_def != treedef:
            raise TypeError(f"associative_scan: fn must return the structure of elems "
                            f"({treedef}); it returned {out_def}")
        return out_leaves

    def scan(xs):
        n = aval_of(xs[0]).shape[axis]
        if n < 2:
            return xs
        # combine neighbours, scan the half-length result (the odd positions), then fill in
        # the even positions from their left neighbour's prefix
        pairs = combine([_slice(x, axis, 0, n - 1, 2) for x in xs],
                        [_slice(x, axis, 1, n, 2) for x in xs])
        odds = scan(pairs)
        rest = [_slice(x, axis, 2, n, 2) for x in xs]
        evens = combine([_slice(o, axis, 0, aval_of(r).shape[axis]) for o, r in zip(odds, rest)],
                        rest) if n > 2 else rest
        evens = [concatenate([_slice(x, axis, 0, 1), e], axis) for x, e in zip(xs, evens)]
        return [_interleave(e, o, axis) for e, o in zip(evens, odds)]

    if reverse:
        leaves = [_slice(x, axis, None, None, -1) for x in leaves]
    out = scan(leaves)
    if reverse:
        out = [_slice(x, axis, None, None, -1) for x in out]
    return _tree.tree_unflatten(treedef, out)
