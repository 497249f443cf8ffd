"""Outputs of transforms are fresh: writable NumPy arrays that share memory with no input
and no other output (the API's promise; NumPy users write into results: `g *= 0.5`).

Transforms compute with NumPy, which hands back views where it can: `vjp(lambda x: x, x)`
returns `x`, the two gradients of `x + y` are one cotangent array, `grad(fnp.sum)` is a
read-only stride-0 broadcast of the seed. `fresh_leaves` copies exactly those outputs, at
the output boundary of each eager transform, with cheap checks (flags, identity, the
`.base` owner, and `np.may_share_memory`'s bounds test only between arrays with one owner).
jit decides the same at compile time instead (compiler/buffers.py).
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Literal
from .. import tree as _tree


def memory_root(x: np.ndarray):
    """The object owning the memory of NumPy array `x` (x itself or the end of its `.base`
    chain): arrays with different roots do not overlap."""
    while True:
        b = x.base
        if b is None:
            return x
        if type(b) is not np.ndarray:
            return b  # memory NumPy did not allocate (bytes, mmap, ...)
        x = b


def _note(owners: dict, x) -> None:
    """Record NumPy array `x` under the id of its memory's owner. A second array with the
    same owner is recorded as the owner itself (overlap checks stay conservative)."""
    b = x.base
    root = x if b is None else memory_root(x)
    key = id(root)
    if key in owners and owners[key] is not x:
        owners[key] = root
    else:
        owners[key] = x


def fresh_leaves(outs: list, ins: list) -> list:
    """`outs` with every NumPy leaf that is read-only, self-overlapping (stride 0), or may
    share memory with a NumPy leaf of `ins` or an earlier leaf of `outs` replaced by a copy.
    Other leaves (tracers, CuPy arrays, None) pass unchanged.

    Example:
        >>> x = np.ones(3)
        >>> fresh_leaves([x, x], [x])[0] is x
        False
    """
    owners = None  # id(owner of the memory) -> an array in it (inputs, earlier outputs)
    res = None
    for k, o in enumerate(outs):
        if type(o) is not np.ndarray:
            continue
        if owners is None:
            owners = {}
            for x in ins:
                if type(x) is np.ndarray:
                    if x.base is None and id(x) not in owners:
                        owners[id(x)] = x  # (inline: the common case)
                    else:
                        _note(owners, x)
        if o.base is None:  # owns its memory (the common case: a result NumPy allocated)
            if id(o) not in owners and o.flags.writeable:
                owners[id(o)] = o
                continue
        elif o.flags.writeable and not (0 in o.strides and o.size > 1):
            other = owners.get(id(memory_root(o)))
            if other is None or (type(other) is np.ndarray
                                 and not np.may_share_memory(o, other)):
                _note(owners, o)
                continue
        o = o.copy()
        owners[id(o)] = o
        if res is None:
            res = list(outs)
        res[k] = o
    return outs if res is None else res


def fresh_tree(tree, ins: list):
    """`fresh_leaves` on the leaves of a pytree (unflattened again only if one changed)."""
    leaves, treedef = _tree.tree_flatten(tree)
    new = fresh_leaves(leaves, ins)
    return tree if new is leaves else _tree.tree_unflatten(treedef, new)


def graph_arrays(graph) -> list:
    """The NumPy arrays a kept graph (vjp's or linearize's) holds as constants: the caller
    must not receive them, or writing into an output would change the next `vjp_fn` call."""
    return [v.value for e in graph.eqns for v in e.inputs
            if type(v) is Literal and type(v.value) is np.ndarray]
