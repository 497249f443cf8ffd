"""Staging: trace a function into a `Graph`, and evaluate a graph again.

`StagingTrace` records every primitive applied to its tracers as an `Eqn`; values from
outside (arrays, Python scalars, tracers of outer transforms) become `Literal`s. Reverse
mode uses it to record the linear (tangent) part of a computation; `make_ir` uses it to
show a function's IR.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..config import config
from ..core.check import check_graph
from ..core.ir import Eqn, Graph, Literal, Var, aval_of, ShapedArray
from ..core.trace import Trace, Tracer, new_trace
from ..errors import ConcretizationError
from .. import tree as _tree


class StagingTracer(Tracer):
    __slots__ = ("graph_var",)  # not `var`: that is the ndarray method x.var()

    def __init__(self, trace, var):
        self._trace = trace
        self.graph_var = var

    @property
    def aval(self):
        return self.graph_var.aval

    def to_concrete(self, what, cuts=False):
        raise ConcretizationError(
            f"{what} needs a concrete value, but this value is only known abstractly "
            f"({self.graph_var.aval.str_short()}) while tracing for jit / make_ir, where values "
            "have only shapes and dtypes. Instead of an `if` on array values use "
            "fg.lax.cond(pred, true_fn, false_fn, *operands) (or fg.lax.switch) to run one "
            "branch, or fnp.where(cond, x, y) / fg.lax.select_n(which, *cases) to select "
            "values; keep values as arrays (fnp functions instead of float() or math.*), or "
            "mark the argument static (fg.jit(f, static_argnums=...)).")


class StagingTrace(Trace):
    """Records primitives applied to its tracers into a list of equations."""
    __slots__ = ("eqns",)

    def __init__(self):
        super().__init__()
        self.eqns = []

    def new_input(self, aval: ShapedArray) -> StagingTracer:
        return StagingTracer(self, Var(aval))

    def to_atom(self, x):
        """The graph atom for `x`: its Var if it is our tracer, else a Literal."""
        if type(x) is StagingTracer and x._trace is self:
            return x.graph_var
        return Literal(x, aval_of(x))

    def process_primitive(self, prim, args, params):
        inputs = []
        first = None
        for a in args:
            if type(a) is StagingTracer and a._trace is self:
                v = a.graph_var
                if first is None:
                    first = v
            else:
                v = Literal(a)
            inputs.append(v)
        if prim.same_aval:  # elementwise: the output looks like its traced operands
            out_aval = first.aval
        else:
            out_aval = prim.abstract_eval(*[v.aval for v in inputs], **params)
        if prim.multiple_results:
            outs = [Var(a) for a in out_aval]
            self.eqns.append(Eqn(prim, inputs, params, outs))
            return [StagingTracer(self, v) for v in outs]
        out = Var(out_aval)
        self.eqns.append(Eqn(prim, inputs, params, [out]))
        return StagingTracer(self, out)


def eval_graph(graph: Graph, args) -> list:
    """Run `graph` on `args` by binding each equation's primitive (so it is traceable)."""
    env = dict(zip(map(id, graph.invars), args))

    def read(v):
        return v.value if type(v) is Literal else env[id(v)]

    for eqn in graph.eqns:
        out = eqn.prim.bind(*[read(v) for v in eqn.inputs], **eqn.params)
        if eqn.prim.multiple_results:
            for v, o in zip(eqn.outputs, out):
                env[id(v)] = o
        else:
            env[id(eqn.outputs[0])] = out
    return [read(v) for v in graph.outvars]


class IR:
    """The traced IR of a function for one input signature; `str()` prints it."""

    def __init__(self, graph: Graph, in_tree, out_tree):
        self.graph = graph
        self.in_tree = in_tree
        self.out_tree = out_tree

    def __call__(self, *args):
        leaves = _tree.tree_leaves(args)
        return _tree.tree_unflatten(self.out_tree, eval_graph(self.graph, leaves))

    def __str__(self):
        return str(self.graph)

    __repr__ = __str__


def _abstractify(x):
    if isinstance(x, Tracer):
        return x.aval
    a = aval_of(x)
    if a.weak_type:  # a Python scalar argument becomes a strong 0-d array
        return ShapedArray((), a.dtype, False)
    return a


def make_ir(f: Callable, static_argnums: int | Sequence[int] = (),
            optimize: bool = False) -> Callable[..., "IR"]:
    """`make_ir(f)(*args)` traces `f` with abstract values of `args` and returns its `IR`;
    with `optimize=True`, the IR after jit's passes (what `fg.jit` compiles).

    Example:
        >>> print(fg.make_ir(lambda x: fnp.sin(x) * 2.0)(np.ones(3)))
        { lambda a:f64[3] .
          let
            b:f64[3] = sin a
            c:f64[3] = mul b 2.0
          in ( c ) }
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)

    def make_ir_f(*args, **kwargs):
        static = {i % max(len(args), 1) for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = _tree.tree_flatten(dyn)
        trace = StagingTrace()
        with new_trace(trace):
            in_tracers = [trace.new_input(_abstractify(x)) for x in leaves]
            dyn_args = iter(_tree.tree_unflatten(in_tree, in_tracers))
            full = [a if i in static else next(dyn_args) for i, a in enumerate(args)]
            out = f(*full, **kwargs)
            out_leaves, out_tree = _tree.tree_flatten(out)
            outvars = [trace.to_atom(o) for o in out_leaves]
        graph = Graph([t.graph_var for t in in_tracers], trace.eqns, outvars)
        if config.check_graphs:
            check_graph(graph, where=f"make_ir({getattr(f, '__name__', 'f')})")
        if optimize:
            from ..compiler.passes import optimize as run_passes
            graph = run_passes(graph)
            if config.check_graphs:
                check_graph(graph, relaxed=True, where="optimized graph")
        return IR(graph, in_tree, out_tree)

    return make_ir_f


class ShapeDtypeStruct(ShapedArray):
    """An array's shape and dtype, without values: what `fg.eval_shape` returns, and what
    it accepts in place of an array (as `jax.ShapeDtypeStruct`).

    Example:
        >>> fg.ShapeDtypeStruct((2, 3), np.float32)
        ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """
    __slots__ = ()

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False):
        super().__init__(tuple(int(d) for d in shape), np.dtype(dtype), bool(weak_type))

    @property
    def aval(self) -> ShapedArray:  # (what aval_of reads: the weak type included)
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (type(other) is ShapeDtypeStruct and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def _input_aval(x, i: int) -> ShapedArray:
    a = x.aval if isinstance(x, Tracer) else aval_of(x)
    if a.dtype.kind not in "biufcV":
        raise TypeError(f"eval_shape: argument leaf {i} is {type(x).__name__} {x!r:.60}, not "
                        "an array, a Python number or a fg.ShapeDtypeStruct; pass the other "
                        "values through a closure (functools.partial)")
    return a


def stage_pytree(fun: Callable, args: Any, in_avals: list, output=lambda o: o):
    """Trace `fun(*args)` with the leaves of the tuple `args` replaced by abstract inputs of
    `in_avals`: (the Graph, the outputs' treedef). `output` maps each non-tracer output leaf
    (a constant) before it becomes a Literal."""
    in_tree = _tree.tree_structure(args)
    trace = StagingTrace()
    with new_trace(trace):
        tracers = [trace.new_input(a) for a in in_avals]
        out = fun(*_tree.tree_unflatten(in_tree, tracers))
        out_leaves, out_tree = _tree.tree_flatten(out)
        outvars = [trace.to_atom(o if isinstance(o, Tracer) else output(o)) for o in out_leaves]
    return Graph([t.graph_var for t in tracers], trace.eqns, outvars), out_tree


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of `fun(*args, **kwargs)`'s outputs (a pytree of
    `ShapeDtypeStruct`), found by tracing `fun` on abstract values: nothing is computed.
    Arguments may be arrays, Python numbers or `ShapeDtypeStruct`s (no memory needed).

    Example:
        >>> x = fg.ShapeDtypeStruct((1000, 3), np.float32)
        >>> fg.eval_shape(lambda x: fnp.sum(x @ np.ones((3, 4), np.float32), axis=0), x)
        ShapeDtypeStruct(shape=(4,), dtype=float32)
    """
    leaves = _tree.tree_leaves((args, kwargs))
    in_avals = [_input_aval(x, i) for i, x in enumerate(leaves)]
    graph, out_tree = stage_pytree(lambda a, k: fun(*a, **k), (args, kwargs), in_avals)
    return _tree.tree_unflatten(out_tree, [ShapeDtypeStruct(v.aval.shape, v.aval.dtype,
                                                            v.aval.weak_type)
                                           for v in graph.outvars])
