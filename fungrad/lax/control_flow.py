"""Structured control flow: `cond` and `switch`, one primitive `cond` holding its branches as
IR graphs.

`cond(index, *operands, branches=Branches)` runs `branches.graphs[index]` on the operands.
The branches are traced once, to graphs of one signature (their outputs checked equal in
structure, shape and dtype); values of outer transforms that a branch closes over become
extra operands, so every transform sees them. Rules:

- impl: evaluates the taken branch only; jit emits an index into the compiled branches
  (`branches[i](*operands)`), never both.
- JVP: a cond of the branches' JVP graphs. Tangent outputs that are zero in one branch
  but not in another are zeros there (every branch returns the same outputs).
- Reverse mode: partial evaluation of every branch (known: primal outputs and residuals;
  unknown: the linear map of the tangents). Branches have different residuals, so each known
  branch returns every branch's residual slots, zeros in the others' (as JAX does); the linear
  cond is transposed branch-wise (`_transpose_branches`). `partial_eval_rules[cond_p]` lets
  `partial_eval_graph` split a cond equation the same way (jit's reverse mode).
- Batching: an unbatched index batches each branch (outputs batched in any branch are
  batched in all); a batched index runs every branch on the whole batch and picks per example
  with `select_n`.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..backend import array_module, asarray
from ..config import config
from ..core.ad_util import ZERO
from ..core import dtypes
from ..core.check import check_graph
from ..core.ir import (Eqn, Graph, HeldGraphs, Literal, ShapedArray, Var, aval_of,
                       held_graphs_have_effects)
from ..core.trace import Tracer
from .debug import GraphHoldingPrimitive
from ..transforms.ad import backward_pass
from ..transforms.batching import BatchTracer, batch_flat, vmap
from ..transforms.fresh import fresh_leaves, graph_arrays
from ..transforms.jit import jvp_graph_fun
from ..transforms.partial_eval import partial_eval_graph, partial_eval_rules
from ..transforms.staging import StagingTracer, eval_graph
from .. import tree as _tree
from .elementwise import convert_element_type, maximum, minimum, ne
from .shape import bdim_at_front, broadcast_in_dim
from .slicing import select_n_p

_INDEX = np.dtype(np.int32)


class Branches(HeldGraphs):
    """The branch graphs of one `cond` equation (its `branches` parameter), plus graphs derived
    from them (JVP, partial evaluation, transposition, batching, compiled code), made once."""
    __slots__ = ("graphs",)

    def __init__(self, graphs):
        super().__init__()
        self.graphs = tuple(graphs)
        if config.check_graphs:
            for i, g in enumerate(self.graphs):
                check_graph(g, where=f"cond branch {i}")

    def subgraphs(self):
        return self.graphs

    def with_graphs(self, graphs) -> "Branches":
        return Branches(graphs)

    @property
    def in_avals(self):
        return [v.aval for v in self.graphs[0].invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.graphs[0].outvars]

    def __repr__(self):
        body = "\n".join(f"  branch {i}: " + str(g).replace("\n", "\n    ")
                         for i, g in enumerate(self.graphs))
        return f"(\n{body}\n)"


# ----------------------------------------------------------------------------- staging
def _stage(fun: Callable, in_avals) -> tuple:
    """Trace `fun(*tracers) -> list of leaves` to a Graph; (graph, lifted outer values)."""
    from ..transforms.jit import stage_flat
    return stage_flat(fun, in_avals)


def _stage_closed(fun: Callable, in_avals) -> Graph:
    """`_stage` of a function of graphs that close over no outer value."""
    graph, lifted = _stage(fun, in_avals)
    assert not lifted, "a derived cond branch closed over a traced value"
    return graph


def _with_inputs(graph: Graph, invars, outvars=None) -> Graph:
    return Graph(list(invars), graph.eqns, graph.outvars if outvars is None else list(outvars))


def _join_consts(graphs_lifted, n_ops):
    """Branches that close over different outer values get one operand list: the operands,
    then every branch's lifted values (unused inputs in the other branches)."""
    graphs, values = [], []
    for _, lifted in graphs_lifted:
        values.extend(lifted)
    for b, (g, lifted) in enumerate(graphs_lifted):
        invars = list(g.invars[:n_ops])
        for b2, (g2, lifted2) in enumerate(graphs_lifted):
            own = g.invars[n_ops:] if b2 == b else [Var(v.aval) for v in g2.invars[n_ops:]]
            invars.extend(own)
        graphs.append(_with_inputs(g, invars))
    return graphs, values


def _describe(name, avals):
    return f"{name} returns ({', '.join(a.str_short() for a in avals)})"


def _join_outputs(names, graphs, trees, where):
    """Check that every branch returns the same structure, shapes and dtypes, naming the
    branch that differs. A Python-scalar output takes the dtype the other branches give it."""
    for name, t in zip(names[1:], trees[1:]):
        if t != trees[0]:
            raise TypeError(f"{where}: every branch must return the same pytree structure, but "
                            f"{names[0]} returns {trees[0]} and {name} returns {t}. Make the "
                            "branches return the same containers (e.g. both a tuple of 2 "
                            "arrays).")
    out = list(graphs)
    for j in range(len(graphs[0].outvars)):
        atoms = [g.outvars[j] for g in graphs]
        strong = {(a.aval.shape, a.aval.dtype) for a in atoms if not _weak_output(a)}
        if len(strong) == 1:
            shape, dtype = next(iter(strong))
            for b, a in enumerate(atoms):
                # only where NEP 50 keeps the strong dtype: 1.5 against an int branch is an
                # error, not a silent truncation to 1
                if (_weak_output(a) and a.aval.shape == shape and a.aval.dtype != dtype
                        and dtypes.result_type(dtype, a.value.item()) == dtype):
                    outs = list(out[b].outvars)
                    outs[j] = Literal(np.asarray(a.value, dtype), ShapedArray(shape, dtype))
                    out[b] = _with_inputs(out[b], out[b].invars, outs)
        avals = [g.outvars[j].aval for g in out]
        for name, a in zip(names[1:], avals[1:]):
            if a.shape != avals[0].shape or a.dtype != avals[0].dtype:
                what = "shape" if a.shape != avals[0].shape else "dtype"
                raise TypeError(
                    f"{where}: every branch must return the same shapes and dtypes, but output "
                    f"{j} is {avals[0].str_short()} in {names[0]} and {a.str_short()} in "
                    f"{name} (the {what}s differ). {_describe(names[0], [v.aval for v in out[0].outvars])}"
                    f"; {_describe(name, [v.aval for v in graphs[names.index(name)].outvars])}. "
                    "Make the branches agree (e.g. cast with .astype, or broadcast with "
                    "fnp.broadcast_to).")
    return out


def _weak_output(atom) -> bool:
    return type(atom) is Literal and atom.aval.weak_type


def _stage_branch(fn, in_tree, in_avals):
    tree_box = []

    def fun(*tracers):
        out = fn(*_tree.tree_unflatten(in_tree, list(tracers)))
        leaves, tree = _tree.tree_flatten(out)
        tree_box.append(tree)
        return [_weak_literal(x) for x in leaves]
    graph, lifted = _stage(fun, in_avals)
    return graph, lifted, tree_box[0]


def _weak_literal(x):
    if type(x) in (int, float, bool, complex):
        return np.asarray(x)
    return x


def _mark_weak(graph: Graph, leaves_were_scalars) -> Graph:
    outs = [Literal(v.value, ShapedArray(v.aval.shape, v.aval.dtype, True))
            if weak and type(v) is Literal else v
            for v, weak in zip(graph.outvars, leaves_were_scalars)]
    return _with_inputs(graph, graph.invars, outs)


def _trace_branches(fns, names, operands, where):
    """(Branches, operand leaves incl. lifted values, output tree)."""
    leaves, in_tree = _tree.tree_flatten(tuple(operands))
    leaves = [x if isinstance(x, Tracer) or type(x) is np.ndarray else asarray(x)
              for x in leaves]
    in_avals = [aval_of(x) for x in leaves]
    staged, trees = [], []
    for fn, name in zip(fns, names):
        if not callable(fn):
            raise TypeError(f"{where}: {name} must be callable, got {type(fn).__name__}")
        scalars = []

        def probe(*args, fn=fn, scalars=scalars):
            out = fn(*args)
            scalars[:] = [type(x) in (int, float, bool, complex)
                          for x in _tree.tree_leaves(out)]
            return out
        graph, lifted, tree = _stage_branch(probe, in_tree, in_avals)
        staged.append((_mark_weak(graph, scalars), lifted))
        trees.append(tree)
    graphs, values = _join_consts(staged, len(leaves))
    graphs = _join_outputs(list(names), graphs, trees, where)
    return Branches(graphs), leaves + values, trees[0]


# ----------------------------------------------------------------------------- the primitive
def _cond_aval(index, *ops, branches):
    if index.shape != () or index.dtype.kind not in "iu":
        raise TypeError(f"cond: the branch index must be an integer scalar, got "
                        f"{index.str_short()}")
    want = branches.in_avals
    if len(ops) != len(want) or any(a.shape != w.shape or a.dtype != w.dtype
                                    for a, w in zip(ops, want)):
        raise TypeError(f"cond: operands {list(ops)} do not match the branches' inputs {want}")
    return branches.out_avals


def _cond_impl(index, *ops, branches):
    g = branches.graphs[min(max(int(index), 0), len(branches.graphs) - 1)]
    outs = eval_graph(g, ops)
    xp = array_module(*ops)  # (a branch's constant outputs go to the operands' device)
    return fresh_leaves([xp.asarray(o) if type(o) in (int, float, bool, complex) or (
        xp is not np and type(o) is np.ndarray) else o for o in outs], list(ops) + graph_arrays(g))


cond_p = GraphHoldingPrimitive("cond", multiple_results=True)
cond_p.impl = _cond_impl
cond_p.abstract_eval = _cond_aval


# ----------------------------------------------------------------------------- JVP
def _jvp_graph(graph: Graph, nonzero) -> tuple:
    """(graph of (primals, nonzero tangents) -> (primal outs, nonzero tangent outs), which
    tangent outputs are nonzero)."""
    t_avals = [v.aval for v, nz in zip(graph.invars, nonzero) if nz]
    fun, out_nz = jvp_graph_fun(graph, nonzero)
    g = _stage_closed(fun, [v.aval for v in graph.invars] + t_avals)
    return g, out_nz


def _zero_literal(aval):
    return Literal(np.zeros(aval.shape, aval.dtype), ShapedArray(aval.shape, aval.dtype))


def _jvp_branches(branches: Branches, nonzero) -> tuple:
    """(Branches of the JVP graphs, which tangent outputs are nonzero in any branch)."""
    staged = [_jvp_graph(g, nonzero) for g in branches.graphs]
    n_out = len(branches.out_avals)
    union = [any(nz[j] for _, nz in staged) for j in range(n_out)]
    graphs = []
    for g, nz in staged:
        t_outs = iter(g.outvars[n_out:])
        outs = list(g.outvars[:n_out])
        for j, (u, z) in enumerate(zip(union, nz)):
            if u:
                outs.append(next(t_outs) if z else _zero_literal(branches.out_avals[j]))
        graphs.append(_with_inputs(g, g.invars, outs))
    return Branches(graphs), union


def _level(x) -> int:
    return x._trace.level if isinstance(x, Tracer) else -1


def _cond_jvp(primals, tangents, branches):
    index, *ops = primals
    nonzero = tuple(t is not ZERO for t in tangents[1:])
    n_out = len(branches.out_avals)
    if not any(nonzero):
        return cond_p.bind(*primals, branches=branches), [ZERO] * n_out
    nz = [t for t in tangents[1:] if t is not ZERO]
    jb, union = branches.derived(("jvp", nonzero), lambda: _jvp_branches(branches, nonzero))
    primal_level = max([_level(p) for p in primals], default=-1)
    if any(type(t) is StagingTracer and t._trace.level > primal_level for t in nz):
        return _cond_linearize(index, ops, nz, jb, union, n_out)
    outs = cond_p.bind(index, *ops, *nz, branches=jb)
    t_out = iter(outs[n_out:])
    return outs[:n_out], [next(t_out) if u else ZERO for u in union]


def _cond_linearize(index, ops, nz, jb, union, n_out):
    """Reverse mode's forward pass: the known cond runs now (primal outputs and residuals),
    the linear cond is recorded on the staged tangents for the backward pass."""
    n_t = sum(union)
    split = jb.derived(("linearize", len(ops)), lambda: _partial_eval_branches(
        jb, [False] * len(ops) + [True] * len(nz), [False] * n_out + [True] * n_t,
        require_known=[True] * n_out + [False] * n_t))
    known, unknown, out_uk, n_res = split
    outs = cond_p.bind(index, *ops, branches=known)
    res = outs[len(outs) - n_res:]
    t_out = iter(cond_p.bind(index, *res, *nz, branches=unknown))
    return outs[:n_out], [next(t_out) if u else ZERO for u in union]


cond_p.jvp = _cond_jvp


# ----------------------------------------------------------------------------- partial evaluation
def _partial_eval_branches(branches: Branches, in_unknown, instantiate, require_known=False):
    """Split every branch alike: (known Branches: known operands -> known outputs + all
    residual slots; unknown Branches: all residual slots + unknown operands -> unknown
    outputs; which outputs are unknown; the number of residual slots)."""
    def split(inst):
        return [partial_eval_graph(g, in_unknown, instantiate=inst, require_known=require_known,
                                   where=f"reverse mode through cond branch {i}")
                for i, g in enumerate(branches.graphs)]
    pes = split(instantiate)
    out_uk = [any(flags) for flags in zip(*[pe.out_unknown for pe in pes])]
    if any(list(pe.out_unknown) != out_uk for pe in pes):
        pes = split(out_uk)  # an output unknown in one branch is unknown in all
    slots = [aval for pe in pes for aval in pe.residual_avals]
    known, unknown = [], []
    offset = 0
    for pe in pes:
        n_known = len(pe.known.outvars) - pe.n_residuals
        own = pe.known.outvars[n_known:]
        res_out = [_zero_literal(a) for a in slots[:offset]] + list(own) + [
            _zero_literal(a) for a in slots[offset + len(own):]]
        known.append(_with_inputs(pe.known, pe.known.invars,
                                  list(pe.known.outvars[:n_known]) + res_out))
        res_in = ([Var(a) for a in slots[:offset]] + list(pe.unknown.invars[:pe.n_residuals])
                  + [Var(a) for a in slots[offset + pe.n_residuals:]])
        unknown.append(_with_inputs(pe.unknown, res_in + list(
            pe.unknown.invars[pe.n_residuals:])))
        offset += pe.n_residuals
    return Branches(known), Branches(unknown), out_uk, len(slots)


def _cond_partial_eval(eqn, in_unknown):
    """`partial_eval_graph`'s rule: a cond whose index is known splits into a known cond
    (known operands -> known outputs, residuals) and an unknown one."""
    if in_unknown[0]:
        return None  # the branch taken is not known: all of it waits
    branches = eqn.params["branches"]
    known, unknown, out_uk, n_res = _partial_eval_branches(branches, in_unknown[1:], False)
    index, ops = eqn.inputs[0], eqn.inputs[1:]
    res = [Var(a) for a in known.out_avals[len(known.out_avals) - n_res:]]
    k_eqn = Eqn(cond_p, [index] + [v for v, u in zip(ops, in_unknown[1:]) if not u],
                {"branches": known},
                [o for o, u in zip(eqn.outputs, out_uk) if not u] + res, eqn.source)
    u_eqn = Eqn(cond_p, [index] + res + [v for v, u in zip(ops, in_unknown[1:]) if u],
                {"branches": unknown}, [o for o, u in zip(eqn.outputs, out_uk) if u],
                eqn.source)
    return [k_eqn], [u_eqn]


partial_eval_rules[cond_p] = _cond_partial_eval


# ----------------------------------------------------------------------------- transpose
def _transpose_graph(graph: Graph, linear, ct_nz) -> Graph:
    """(residuals, nonzero output cotangents) -> cotangents of the linear inputs."""
    res_vars = [v for v, lin in zip(graph.invars, linear) if not lin]
    lin_vars = [v for v, lin in zip(graph.invars, linear) if lin]
    ct_avals = [v.aval for v, nz in zip(graph.outvars, ct_nz) if nz]

    def fun(*args):
        res, cts = args[:len(res_vars)], iter(args[len(res_vars):])
        # residuals become constants, so the transpose rules see them as values
        sub = {v: Literal(r, v.aval) for v, r in zip(res_vars, res)}

        def s(v):
            return sub.get(v, v) if type(v) is Var else v
        eqns = [Eqn(e.prim, [s(v) for v in e.inputs], e.params, e.outputs) for e in graph.eqns]
        g = Graph(lin_vars, eqns, [s(v) for v in graph.outvars])
        cts_in = backward_pass(g, [next(cts) if nz else None for nz in ct_nz])
        return [c if c is not None else np.zeros(v.aval.shape, v.aval.dtype)
                for c, v in zip(cts_in, lin_vars)]
    return _stage_closed(fun, [v.aval for v in res_vars] + ct_avals)


def _cond_transpose(cts, index, *args, branches):
    linear = tuple(type(a) is Var for a in args)
    ct_nz = tuple(c is not None for c in cts)
    tb = branches.derived(("transpose", linear, ct_nz), lambda: Branches(
        [_transpose_graph(g, linear, ct_nz) for g in branches.graphs]))
    res = [a for a, lin in zip(args, linear) if not lin]
    cts_in = iter(cond_p.bind(index, *res, *[c for c in cts if c is not None], branches=tb))
    return [None] + [next(cts_in) if lin else None for lin in linear]


cond_p.transpose = _cond_transpose


# ----------------------------------------------------------------------------- batching
def _batched_graph(graph: Graph, in_avals, dims, axis_size, force=None) -> tuple:
    """(graph of the batched operands -> outputs, batched ones at axis 0; which outputs are
    batched). `force`: outputs to batch even where this branch does not vary."""
    flags: list = []

    def fun(*xs):
        def inner(ins):
            outs = eval_graph(graph, ins)
            flags[:] = [type(o) is BatchTracer or bool(force and force[j])
                        for j, o in enumerate(outs)]
            return outs, [0 if f else None for f in flags]
        outs, _ = batch_flat("cond", inner, list(xs), list(dims), axis_size)
        return outs
    return _stage_closed(fun, in_avals), flags


def _batch_branches(branches, in_avals, dims, axis_size):
    staged = [_batched_graph(g, in_avals, dims, axis_size) for g in branches.graphs]
    union = [any(f) for f in zip(*[f for _, f in staged])]
    graphs = [g if f == union else _batched_graph(b, in_avals, dims, axis_size, union)[0]
              for (g, f), b in zip(staged, branches.graphs)]
    return Branches(graphs), [0 if u else None for u in union]


def _cond_batch(vals, dims, axis_size, branches):
    index, *ops = vals
    di, *dops = dims
    if di is None:
        in_avals = [aval_of(x) for x in ops]
        bb, out_dims = branches.derived(
            ("batch", tuple(dops), axis_size, tuple(in_avals)),
            lambda: _batch_branches(branches, in_avals, dops, axis_size))
        return cond_p.bind(index, *ops, branches=bb), out_dims
    if held_graphs_have_effects({"branches": branches}):
        return _cond_per_example(index, di, ops, dops, axis_size, branches)
    # a branch per example: run every branch on the whole batch, then pick per example
    outs = [vmap(lambda *xs, g=g: eval_graph(g, xs), in_axes=tuple(dops), out_axes=0,
                 axis_size=axis_size)(*ops) for g in branches.graphs]
    index = bdim_at_front(index, di, axis_size)
    picked = []
    for j in range(len(branches.out_avals)):
        cases = [o[j] for o in outs]
        full = aval_of(cases[0]).shape
        which = index if len(full) == 1 else broadcast_in_dim(index, full, (0,))
        picked.append(select_n_p.bind(which, *cases))
    return picked, [0] * len(picked)


def _cond_per_example(index, di, ops, dops, axis_size, branches):
    """A batched index with effectful branches (a print, a checkify check): a loop over the
    batch in which each example runs only its own branch, so an effect of a branch that an
    example does not take never happens (running every branch on the whole batch would
    print, or report a failed check, for it)."""
    from .loops import map as lax_map
    mapped = [bdim_at_front(x, d, axis_size) for x, d in zip(ops, dops) if d is not None]

    def one_example(xs):
        i, *per_example = xs
        it = iter(per_example)
        return cond_p.bind(i, *[x if d is None else next(it) for x, d in zip(ops, dops)],
                           branches=branches)
    outs = lax_map(one_example, [bdim_at_front(index, di, axis_size)] + mapped)
    return outs, [0] * len(outs)


cond_p.batch = _cond_batch


# ----------------------------------------------------------------------------- jit
def _compiled(branches: Branches, xp) -> tuple:
    from ..transforms.jit import Call
    return tuple(Call(g, f"branch{i}", array_module=xp).fn
                 for i, g in enumerate(branches.graphs))


def _cond_emit(ctx, ins, out, branches):
    xp = ctx.array_module
    fns = ctx.const(branches.derived(("compiled", xp.__name__), lambda: _compiled(branches, xp)),
                    "branches")
    index = ins[0] if xp is np else f"int({ins[0]})"  # (a CuPy index: its value, on the host)
    return f"{fns}[{index}]({', '.join(ins[1:])})"


cond_p.emit = _cond_emit

CONTROL_FLOW_PRIMITIVES = [cond_p]


# ----------------------------------------------------------------------------- public functions
def _scalar_index(what, x, where):
    a = aval_of(x)
    if a.shape != ():
        raise TypeError(f"{where}: {what} must be a scalar, got {a.str_short()}. For an "
                        "elementwise choice use fnp.where or fg.lax.select_n; to run a branch "
                        "per example, use fg.vmap over the cond.")
    return a


def _bind_cond(index, branches: Branches, leaves, out_tree):
    outs = cond_p.bind(index, *leaves, branches=branches)
    return _tree.tree_unflatten(out_tree, outs)


def switch(index, branches: Sequence[Callable], *operands):
    """`branches[index](*operands)`, with `index` possibly traced: JAX's `lax.switch`.

    `index` is clamped to `[0, len(branches) - 1]`. Every branch is traced (they must return
    the same structure, shapes and dtypes); only the selected one runs (under `vmap` with a
    batched index, every branch runs and the results are selected per example).

    Example:
        >>> branches = [lambda x: x + 1, lambda x: x * 2]
        >>> fg.lax.switch(1, branches, np.array([3.0]))
        array([6.])
        >>> fg.jit(lambda i, x: fg.lax.switch(i, branches, x))(5, np.array([3.0]))   # clamped to 1
        array([6.])
    """
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence of functions")
    a = _scalar_index("index", index, "switch")
    if a.dtype.kind not in "iu":
        raise TypeError(f"switch: index must be an integer scalar, got {a.str_short()}; for a "
                        "bool predicate use fg.lax.cond")
    names = [f"branches[{i}]" for i in range(len(branches))]
    bs, leaves, out_tree = _trace_branches(branches, names, operands, "switch")
    n = len(branches)
    if isinstance(index, Tracer):
        index = convert_element_type(minimum(maximum(index, 0), n - 1), _INDEX)
    else:
        index = np.asarray(min(max(int(index), 0), n - 1), _INDEX)
    return _bind_cond(index, bs, leaves, out_tree)


_NO_OPERAND = object()


def cond(pred, true_fn: Callable, false_fn: Callable, *operands, operand=_NO_OPERAND):
    """`true_fn(*operands) if pred else false_fn(*operands)`, with `pred` possibly traced:
    JAX's `lax.cond`.

    `pred` is a scalar (bool, or a number: nonzero is true). Both branches are traced and
    must return the same pytree structure, shapes and dtypes; only the taken one runs
    (under `vmap` with a batched `pred`, both run and `select_n` picks per example).
    Works under `jit`, `grad`, `jvp`, `vmap` and nested in itself. JAX's older spelling
    `cond(pred, true_fn, false_fn, operand=x)` passes one operand by keyword.

    Example:
        >>> f = fg.jit(lambda x: fg.lax.cond(x > 0, fnp.sin, lambda x: -x, x))
        >>> f(np.array(-2.0))
        array(2.)
    """
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("cond: pass the operands either positionally or as operand=, not "
                            "both")
        operands = (operand,)
    a = _scalar_index("pred", pred, "cond")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"cond: pred must be a bool or number scalar, got {a.str_short()}")
    bs, leaves, out_tree = _trace_branches((false_fn, true_fn), ("false_fn", "true_fn"),
                                           operands, "cond")
    if isinstance(pred, Tracer):
        index = convert_element_type(ne(pred, 0) if a.dtype != np.bool_ else pred, _INDEX)
    else:
        index = np.asarray(bool(pred), _INDEX)
    return _bind_cond(index, bs, leaves, out_tree)


__all__ = ["cond", "switch", "cond_p", "Branches"]
