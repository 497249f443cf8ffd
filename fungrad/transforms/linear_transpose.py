"""`fg.linear_transpose`: the transpose of a linear function (as `jax.linear_transpose`).

`fun` is staged on the primals' shapes and dtypes; partial evaluation splits the graph into
the part that does not depend on the inputs (evaluated once, now) and the rest, which must
be linear in the inputs and is transposed by `ad.backward_pass` at each call.

Linearity is checked per equation of the input-dependent part, with no table of
primitives: the equation's JVP rule is staged with abstract primals and tangents, and the
equation is linear (affine) in its input-dependent operands iff the tangent of its output
reads none of those operands' primal values (mul of two input-dependent values, a divisor,
a select's predicate, a factor of dot_general / conv / convolve1d, the matrix of a solve all
do). A nested `fg.jit` is checked inside. A primitive that fails, or has no transpose rule,
raises TypeError naming it: never a silently wrong transpose. As in JAX, a constant offset
(`x + 1.0`) is allowed and dropped: the result is the transpose of the linear part.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.ad_util import ZERO
from ..core.dtypes import is_inexact
from ..core.ir import Eqn, Graph, Literal, Var, aval_of, ShapedArray
from ..core.trace import Tracer, new_trace
from .ad import _as_array, _fun_name, _zeros_for, backward_pass, check_tangent
from .fresh import fresh_leaves
from .jit import jit_call_p
from .partial_eval import partial_eval_graph
from .staging import StagingTrace, StagingTracer, eval_graph, stage_pytree
from .. import tree as _tree

__all__ = ["linear_transpose"]


def _aval(x, i) -> ShapedArray:
    if isinstance(x, Tracer):
        a = x.aval
    elif hasattr(x, "shape") and hasattr(x, "dtype"):
        a = ShapedArray(tuple(x.shape), np.dtype(x.dtype), False)
    elif type(x) in (bool, int, float, complex):
        a = aval_of(np.asarray(x))
    else:
        raise TypeError(f"linear_transpose: primal leaf {i} is {type(x).__name__} "
                        f"({x!r:.60}), not an array or a fg.ShapeDtypeStruct")
    return ShapedArray(a.shape, a.dtype, False)


def _reads(eqns, out_var, targets: set) -> bool:
    """Whether `out_var` is computed (through `eqns`) from a Var in `targets`."""
    if out_var in targets:
        return True
    need = {out_var}
    for e in reversed(eqns):
        if need.intersection(e.outputs):
            for v in e.inputs:
                if type(v) is Var:
                    if v in targets:
                        return True
                    need.add(v)
    return False


def _check_eqn_jvp(eqn, unknown_in) -> str | None:
    """None if `eqn` is affine in its unknown operands (its JVP's tangents do not read their
    primal values), else why not."""
    st = StagingTrace()
    unknown_primals = set()
    with new_trace(st):
        primals, tangents = [], []
        for v, unk in zip(eqn.inputs, unknown_in):
            if type(v) is Literal:
                primals.append(v.value)
                tangents.append(ZERO)
                continue
            p = st.new_input(v.aval)
            primals.append(p)
            if unk:
                unknown_primals.add(p.graph_var)
                tangents.append(st.new_input(v.aval) if is_inexact(v.aval.dtype) else ZERO)
            else:
                tangents.append(ZERO)
        try:
            _, t_out = eqn.prim.jvp(primals, tangents, **eqn.params)
        except Exception as e:  # (a rule that cannot run abstractly: not shown linear)
            return f"its derivative rule could not be checked ({type(e).__name__}: {e})"
    t_out = list(t_out) if eqn.prim.multiple_results else [t_out]
    for k, t in enumerate(t_out):
        if t is ZERO or not (type(t) is StagingTracer and t._trace is st):
            return ("its output depends on the inputs but has no derivative (e.g. a "
                    "conversion to an integer or bool, a comparison)")
        if _reads(st.eqns, t.graph_var, unknown_primals):
            return "its derivative depends on the values of its input-dependent operand(s)"
    return None


def check_linear(graph: Graph, unknown_inputs, where: str) -> None:
    """Raise TypeError naming the first equation of `graph` that is not linear (affine) in
    the values computed from the inputs marked unknown."""
    unknown = {v for v, u in zip(graph.invars, unknown_inputs) if u}
    for eqn in graph.eqns:
        flags = [type(v) is Var and v in unknown for v in eqn.inputs]
        if not any(flags):
            continue
        prim = eqn.prim
        ops = [i for i, f in enumerate(flags) if f]
        if prim is jit_call_p:  # a nested fg.jit: check its graph
            check_linear(eqn.params["call"].graph, flags, where)
            why = None
        elif prim.transpose is None:
            why = "it has no transpose rule (it is not a linear primitive)"
        elif prim.jvp is None:
            why = "it has no derivative rule"
        else:
            why = _check_eqn_jvp(eqn, flags)
        if why is not None:
            src = f" (at {eqn.source})" if eqn.source else ""
            raise TypeError(
                f"{where}: the function is not linear in its inputs: primitive '{prim.name}'"
                f"{src} is applied to input-dependent operand(s) at position(s) {ops} (of "
                f"{len(flags)}), and {why}. linear_transpose needs a function that is linear "
                "in its inputs (sums, scalings by constants, reshapes, indexing, dot with a "
                "constant, ...); for the transpose of the derivative of a nonlinear "
                "function use fg.vjp.")
        unknown.update(eqn.outputs)


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: tuple = ()) -> Callable:
    """The transpose of the linear function `fun` (as `jax.linear_transpose`).

    `primals` (arrays or `fg.ShapeDtypeStruct`s; only their shapes and dtypes are used) say
    where `fun` is traced. The returned `f_transpose(out_cotangent)` takes a value shaped
    like `fun`'s output and returns a tuple with one cotangent per primal. Inputs and
    outputs must be float or complex. A function that is not linear in its inputs (`sin`,
    a product of two input-dependent values, a division by one, a comparison or `where`
    on them) raises TypeError naming the primitive; a constant offset is dropped, as in JAX.

    Example:
        >>> f = lambda x, y: 0.5 * x - 0.5 * y
        >>> scalar = fg.ShapeDtypeStruct((), np.float32)
        >>> f_transpose = fg.linear_transpose(f, scalar, scalar)
        >>> f_transpose(np.float32(1.0))
        (array(0.5, dtype=float32), array(-0.5, dtype=float32))
    """
    if reduce_axes:
        raise NotImplementedError("linear_transpose: the reduce_axes argument is deprecated "
                                  "(as in JAX)")
    name = f"linear_transpose({_fun_name(fun)})"
    leaves, in_tree = _tree.tree_flatten(primals)
    in_avals = [_aval(x, i) for i, x in enumerate(leaves)]
    graph, out_tree = stage_pytree(fun, tuple(primals), in_avals, _as_array)
    out_avals = [v.aval for v in graph.outvars]
    in_dtypes = [a.dtype for a in in_avals]
    out_dtypes = [a.dtype for a in out_avals]
    if not all(is_inexact(d) for d in in_dtypes + out_dtypes):
        raise TypeError(
            f"{name}: linear_transpose supports only [float or complex] -> [float or "
            f"complex] functions, but got {[d.name for d in in_dtypes]} -> "
            f"{[d.name for d in out_dtypes]} (JAX also accepts integer -> integer ones; "
            "fungrad does not: integers have no cotangents here). Pass float values.")

    pe = partial_eval_graph(graph, True, where=name)
    # the input-independent part: computed once, now
    known_vals = eval_graph(pe.known, [])
    n_known_out = len(known_vals) - pe.n_residuals
    residual_vals = known_vals[n_known_out:]
    lin = pe.unknown
    res_vars = lin.invars[:pe.n_residuals]
    check_linear(lin, [False] * pe.n_residuals + [True] * (len(lin.invars) - pe.n_residuals),
                 name)
    # residuals become Literals: backward_pass reads a Var input as a linear one
    sub = {id(v): Literal(x, v.aval) for v, x in zip(res_vars, residual_vals)}

    def lit(v):
        return sub.get(id(v), v) if type(v) is Var else v
    eqns = [Eqn(e.prim, [lit(v) for v in e.inputs], e.params, e.outputs, e.source)
            for e in lin.eqns]
    lin_in = lin.invars[pe.n_residuals:]
    lin_out = [lit(v) for v in lin.outvars]
    linear = Graph(lin_in, eqns, lin_out)
    # the outputs that depend on the inputs, in order; the others get no cotangent
    unknown_out = list(pe.out_unknown)

    def f_transpose(out_cotangent):
        ct_leaves, ct_tree = _tree.tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"{name}: cotangent tree does not match the function's output: "
                            f"expected {out_tree} but got {ct_tree}")
        cts = [check_tangent(name, f"cotangent for output {i}", c, a)
               for i, (c, a) in enumerate(zip(ct_leaves, out_avals))]
        lin_cts = [c for c, u in zip(cts, unknown_out) if u]
        in_cts = backward_pass(linear, lin_cts)
        res = [_as_array(c) if c is not None else _zeros_for(a)
               for c, a in zip(in_cts, in_avals)]
        res = [r.astype(a.dtype) if r.dtype != a.dtype else r for r, a in zip(res, in_avals)]
        res = fresh_leaves(res, cts + residual_vals)
        return _tree.tree_unflatten(in_tree, res)

    f_transpose.__name__ = name
    return f_transpose
