"""Jacobians and Hessians: `jacfwd = vmap(jvp)` over a basis of the input space,
`jacrev = vmap(vjp)` over a basis of the output space, `hessian = jacfwd(jacrev)`.

Layout as in JAX: for an output leaf of shape So and an input leaf of shape Si the block is
So + Si; the result is the output pytree whose leaves are input-shaped pytrees.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..core.ir import ShapedArray, aval_of
from .. import tree as _tree
from .ad import (_as_array, _fun_name, _split_aux, check_holomorphic_inputs, check_output_kind,
                 diff_leaves, float0, jvp_flat, tangent_dtype, vjp)
from .batching import batch_flat, vmap
from .fresh import fresh_tree


def _basis(avals):
    """Rows of the identity over the concatenated leaves, split and shaped per leaf, each in
    its leaf's tangent dtype (float32 and float64 leaves mix; float0 zeros for integer
    leaves), as jvp / vjp require."""
    sizes = [a.size for a in avals]
    total = sum(sizes)
    out, start = [], 0
    for a, n in zip(avals, sizes):
        shape = (total,) + a.shape
        want = tangent_dtype(a.dtype)
        if want is float0:
            out.append(np.zeros(shape, float0))
        elif len(avals) == 1:
            out.append(np.eye(total, dtype=want).reshape(shape))
        else:
            block = np.zeros((total, n), want)
            block[start:start + n] = np.eye(n, dtype=want)
            out.append(block.reshape(shape))
        start += n
    return out


def _split_last(x, avals, lead_shape):
    """Split the trailing flat axis of `x` into blocks shaped like `avals`."""
    out, start = [], 0
    for a in avals:
        block = x if len(avals) == 1 else x[(Ellipsis, slice(start, start + a.size))]
        shape = tuple(lead_shape) + a.shape
        out.append(block if aval_of(block).shape == shape else block.reshape(shape))
        start += a.size
    return out


def _partial(f, args, kwargs, nums, in_tree):
    """`f` of the differentiated leaves, the other arguments and keywords fixed (keyword
    arguments are never differentiated, as in JAX)."""
    def g(*leaves):
        new = list(args)
        for i, a in zip(nums, _tree.tree_unflatten(in_tree, leaves)):
            new[i] = a
        return f(*new, **kwargs)
    return g


def _assemble(out_leaves_blocks, out_tree, in_tree, single):
    """blocks[o][i] -> output pytree of (input pytree) Jacobian blocks."""
    per_out = []
    for blocks in out_leaves_blocks:
        t = _tree.tree_unflatten(in_tree, blocks)
        per_out.append(t[0] if single else t)
    return _tree.tree_unflatten(out_tree, per_out)


def _check_fwd_inputs(f, leaves, holomorphic):
    """As JAX: forward mode over a real basis needs real inputs unless holomorphic=True."""
    if holomorphic:
        return check_holomorphic_inputs("jacfwd", f, leaves)
    for i, x in enumerate(leaves):
        dt = aval_of(x).dtype
        if dt.kind == "c":
            raise TypeError(
                f"jacfwd({_fun_name(f)}) requires real inputs, but input leaf {i} has dtype "
                f"{dt}. Pass holomorphic=True for a holomorphic function, use fg.jacrev (a "
                "real-valued function of complex inputs), or fg.jvp with complex tangents.")


def jacfwd(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, chunk_size: int | None = None) -> Callable:
    """Jacobian by forward mode: one batched `jvp` over the input basis.

    Inputs are real, or complex with `holomorphic=True` (the Jacobian is then f'(z)).

    Example:
        >>> fg.jacfwd(lambda x: fnp.sin(x) * 2.0)(np.zeros(3))   # diag(2 cos 0)
        array([[2., 0., 0.],
               [0., 2., 0.],
               [0., 0., 2.]])
    """
    def jac_f(*args, **kwargs):
        single, nums, leaves, in_tree = diff_leaves("jacfwd", f, args, argnums)
        _check_fwd_inputs(f, leaves, holomorphic)
        g = _partial(f, args, kwargs, nums, in_tree)
        avals = [aval_of(x) for x in leaves]
        state = {}

        def g_flat(ins):
            out = g(*ins)
            return _split_aux(g, out) if has_aux else (out, None)

        def push(*tangents):
            # (aux is primal work: unbatched, the same on every call of a chunked push)
            out_tree, p_out, t_out, state["aux"] = jvp_flat(g_flat, leaves, tangents, "jacfwd")
            state["out_tree"] = out_tree
            state["out_dtypes"] = [aval_of(o).dtype for o in p_out]
            return t_out
        basis = _basis(avals)
        if not leaves:  # nothing to push: each output's block is the empty input tree
            out, state["aux"] = g_flat([])
            state["out_tree"] = _tree.tree_structure(out)
            t_out = [np.zeros(aval_of(o).shape + (0,)) for o in _tree.tree_leaves(out)]
        elif chunk_size is None:
            t_out = _push_basis(push, basis)
        else:
            t_out = vmap(push, out_axes=-1, chunk_size=chunk_size)(*basis)
        # an integer (or bool) output's block is zeros of its own dtype, as JAX's jacfwd (its
        # tangents are float0, a placeholder dtype with no values)
        t_out = [np.zeros(aval_of(o).shape, dt) if aval_of(o).dtype == float0 else o
                 for o, dt in zip(t_out, state.get("out_dtypes", [None] * len(t_out)))]
        if holomorphic:
            for o in t_out:  # (the tangents carry the basis axis last)
                a = aval_of(o)
                check_output_kind("jacfwd", _fun_name(f), ShapedArray(a.shape[:-1], a.dtype), True)
        blocks = [_split_last(o, avals, aval_of(o).shape[:-1]) for o in t_out]
        jac = _assemble(blocks, state["out_tree"], in_tree, single)
        aux = state["aux"] if has_aux else None  # (from the one call of f, as JAX)
        return _fresh_result(jac, aux, (args, kwargs), has_aux)

    return jac_f


def _push_basis(push, basis):
    """`vmap(push, out_axes=-1)(*basis)` on flat lists, without vmap's pytree wrapper: the
    basis is batched at axis 0, the outputs get the batch axis last."""
    def fun(ins):
        outs = push(*ins)
        return outs, [-1] * len(outs)
    outs, _ = batch_flat("jacfwd", fun, basis, [0] * len(basis), len(basis[0]))
    return [_as_array(o) for o in outs]


def _fresh_result(jac, aux, args, has_aux):
    """The Jacobian (and aux): fresh arrays that share memory with no argument (`args`: the
    positional and keyword ones; a Jacobian block may be a view of a basis or an input, or an
    unbatched zero broadcast)."""
    ins = _tree.tree_leaves(args)
    if not has_aux:
        return fresh_tree(jac, ins)
    jac = fresh_tree(jac, ins)
    return jac, fresh_tree(aux, ins + _tree.tree_leaves(jac))


def jacrev(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, chunk_size: int | None = None) -> Callable:
    """Jacobian by reverse mode: one `vjp`, its `vjp_fn` batched over the output basis.

    Outputs are real (rows of complex inputs are df/dx - i df/dy, as `grad`), or complex with
    `holomorphic=True` (complex inputs; the Jacobian is then f'(z)).

    Example:
        >>> fg.jacrev(lambda x: fnp.sum(x ** 2))(np.array([1.0, 2.0, 3.0]))   # 2x
        array([2., 4., 6.])
    """
    def jac_f(*args, **kwargs):
        single, nums, leaves, in_tree = diff_leaves("jacrev", f, args, argnums)
        if holomorphic:
            check_holomorphic_inputs("jacrev", f, leaves)
        g = _partial(f, args, kwargs, nums, in_tree)
        res = vjp(g, *leaves, has_aux=has_aux)
        out, f_vjp = res[0], res[1]
        out_leaves, out_tree = _tree.tree_flatten(out)
        o_avals = [aval_of(o) for o in out_leaves]
        for a in o_avals:
            check_output_kind("jacrev", _fun_name(f), a, holomorphic)
        basis = _basis(o_avals)
        # (no output leaves: no rows, and nothing for vmap to map)
        cts = vmap(lambda *c: f_vjp(_tree.tree_unflatten(out_tree, c)),
                   chunk_size=chunk_size)(*basis) if out_leaves else []
        # cts[i]: (M,) + Si for each input leaf; row block of output o is So
        blocks = [[] for _ in out_leaves]
        start = 0
        for k, a in enumerate(o_avals):
            for i, c in enumerate(cts):
                rows = c[start:start + a.size]
                blocks[k].append(rows.reshape(a.shape + aval_of(leaves[i]).shape))
            start += a.size
        jac = _assemble(blocks, out_tree, in_tree, single)
        return _fresh_result(jac, res[2] if has_aux else None, (args, kwargs), has_aux)

    return jac_f


jacobian = jacrev  # (JAX's name for reverse-mode Jacobians: jax.jacobian is jax.jacrev)


def hessian(f: Callable, argnums: int | Sequence[int] = 0, holomorphic: bool = False) -> Callable:
    """Hessian: `jacfwd(jacrev(f))`.

    Example:
        >>> fg.hessian(lambda x: fnp.sum(x ** 3))(np.array([1.0, 2.0]))   # diag(6x)
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    return jacfwd(jacrev(f, argnums, holomorphic=holomorphic), argnums, holomorphic=holomorphic)
