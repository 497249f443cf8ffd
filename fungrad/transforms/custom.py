"""Custom derivative rules: `custom_jvp` and `custom_vjp` (JAX's semantics).

A decorated function is applied as one primitive that holds, as IR graphs, the primal
function and its rules:

- `custom_jvp_call(*leaves, *consts, rule=)`: `rule.fun` (the primal) and `rule.jvp` (the
  user's JVP rule, staged with every tangent instantiated). Forward mode evaluates the JVP
  graph; reverse mode needs nothing more, because reverse mode is JVP with staged tangents
  (docs/design.md): evaluating the rule there records its linear part, which is transposed
  (JAX's "linearize the custom JVP rule"). Evaluating the graph binds primitives, so the
  rule differentiates again (grad of grad).
- `custom_vjp_call(*leaves, *consts, rule=)`: `rule.fun`, `rule.fwd` and `rule.bwd`. Its JVP
  runs `fwd` (the primal outputs and residuals) and binds the linear primitive
  `custom_vjp_bwd(*residuals, *consts, *tangents)`, whose transpose evaluates `bwd`. In
  reverse mode `fwd` runs in the known part and `bwd` is the transpose of the unknown part,
  eagerly and under `jit` (partial evaluation splits there). Forward mode, which JAX refuses,
  evaluates `custom_vjp_bwd` itself: the transpose of `bwd` in its cotangent argument.

Values the function or its rules close over are lifted out of the graphs while staging and
become operands (`consts`): vmap batches them, and differentiation treats them as constants.
Outside every transform a call runs the Python function directly.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Sequence

import numpy as np

from ..core.ad_util import ZERO, float0
from ..config import config
from ..core.check import check_graph
from ..core.ir import Eqn, Graph, Literal, ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.trace import Tracer, new_trace
from ..core import trace as _trace_mod
from .. import tree as _tree
from .ad import (JVPTrace, JVPTracer, _as_array, _fun_name, backward_pass, is_float,
                 linearize_flat, split_jvp_outputs, tangent_dtype)
from .jit import Call, stage_flat
from .staging import eval_graph
from ..compiler.passes import body_copy, inline_rules


# ----------------------------------------------------------------------------- helpers
class _Zero:
    """Marks a leaf the user gave as None (a symbolic zero) while structures are compared."""

    def __repr__(self):
        return "None"


_ZERO_MARK = _Zero()


def _is_none(x) -> bool:
    return x is None


def _match_tree(value, treedef, avals, what: str, fix: str) -> list:
    """The leaves of `value` (a pytree with `treedef`'s structure, where None stands for a
    zero subtree), as arrays of `avals`' shapes and tangent dtypes; None for zero leaves.
    A different structure or shape raises, naming `what` and `fix`."""
    if value is None:
        return [None] * treedef.num_leaves
    leaves, td = _tree.tree_flatten(value, is_leaf=_is_none)
    filled = _tree.tree_unflatten(td, [_ZERO_MARK if x is None else x for x in leaves])
    leaves, td = _tree.tree_flatten(filled)
    if td != treedef:
        raise TypeError(f"{what} has structure {td}, but it must have the structure "
                        f"{treedef}. {fix}")
    out = []
    for i, (x, a) in enumerate(zip(leaves, avals)):
        if x is _ZERO_MARK or not is_float(a.dtype):
            out.append(None)  # (integer values have no derivative: whatever was given)
            continue
        x = _as_array(x)
        xa = aval_of(x)
        if tuple(xa.shape) != tuple(a.shape):
            raise ValueError(f"{what}: leaf {i} has shape {tuple(xa.shape)}, but its primal "
                             f"is {a.str_short()}; it must have the primal's shape. {fix}")
        if xa.dtype != a.dtype:
            x = x.astype(a.dtype)  # (e.g. a float64 constant for a float32 value)
        out.append(x)
    return out


def _zeros(aval, like=None):
    from ..backend import array_module
    return array_module(like).zeros(aval.shape, tangent_dtype(aval.dtype))


def _float0_zeros(aval):
    return np.zeros(aval.shape, float0)


def _transforming() -> bool:
    """Whether some transform is active on this thread (else no value can be a tracer)."""
    return bool(getattr(_trace_mod._local, "stack", None))


def _stage(fun: Callable, in_avals: list, consts: "_Consts | None" = None) -> Graph:
    """Trace `fun(*tracers) -> list of leaves` into a Graph taking `in_avals` and then the
    values in `consts`: a value `fun` closes over that is one of `consts` (by identity: the
    same tracer the primal function closed over) is read from that input; any other
    closed-over value stays a constant of the graph."""
    graph, lifted = stage_flat(fun, in_avals)
    n = len(in_avals)
    const_vars = [Var(a) for a in consts.avals] if consts is not None else []
    if not lifted and not const_vars:
        return graph
    subst = {}
    for var, value in zip(graph.invars[n:], lifted):
        k = consts.index.get(id(value)) if consts is not None else None
        subst[var] = const_vars[k] if k is not None else Literal(value, var.aval)
    eqns = [Eqn(e.prim, [subst.get(v, v) if type(v) is Var else v for v in e.inputs],
                e.params, e.outputs, e.source) for e in graph.eqns]
    outvars = [subst.get(v, v) if type(v) is Var else v for v in graph.outvars]
    graph = Graph(graph.invars[:n] + const_vars, eqns, outvars)
    if config.check_graphs:
        check_graph(graph, where="custom rule graph")
    return graph


class _Consts:
    """The values a custom function's primal closes over (operands of its call), kept
    alive so that their identities stay valid while rules are staged later."""
    __slots__ = ("values", "avals", "index")

    def __init__(self, values, avals):
        self.values = list(values)
        self.avals = list(avals)
        self.index = {id(v): k for k, v in enumerate(self.values)}


def _split(seq, *sizes):
    out, k = [], 0
    for n in sizes:
        out.append(list(seq[k:k + n]))
        k += n
    out.append(list(seq[k:]))
    return out


# ----------------------------------------------------------------------------- the rule
class CustomRule:
    """What a custom call binds: the primal graph, and its rules as graphs made on first use.

    Operands of `custom_jvp_call` / `custom_vjp_call` are `leaves + consts` (the values the
    primal closes over). Graphs (each also takes the consts last):
    - `fun`: leaves -> outputs
    - `jvp`: leaves, tangents of the float leaves -> outputs, tangents of the float outputs
    - `fwd`: leaves -> outputs, residuals
    - `bwd`: residuals, cotangents of the float outputs -> cotangents of the float leaves
      that `bwd` did not give as None (`ct_nonzero`)
    Rules are staged when a transform first needs them (a rule may call the function
    itself: staging them with the call would recurse). Identity-hashed (a jit CSE key);
    batched rules and the compiled primal are cached on it.
    """

    def __init__(self, name, kind, leaf_avals, out_avals, fun, consts: _Consts, source):
        self.name = name
        self.kind = kind
        self.leaf_avals = list(leaf_avals)
        self.out_avals = list(out_avals)
        self.float_leaf = [is_float(a.dtype) for a in self.leaf_avals]
        self.float_out = [is_float(a.dtype) for a in self.out_avals]
        self.fun = fun
        self.consts = consts
        self.n_consts = len(consts.avals)
        self.source = source  # makes the rule graphs: _UserRules or _BatchedRules
        self.res_avals: list = []
        self.ct_nonzero: list = []
        self._graphs: dict = {}
        self._derived: dict = {}
        self.reusable = False  # held for every call of one signature (its derived rules too)

    def subgraphs(self):
        return (self.fun,)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf_avals)

    def graph(self, which: str) -> Graph:
        g = self._graphs.get(which)
        if g is None:
            if which == "bwd":
                self.graph("fwd")  # (bwd takes the residuals fwd makes)
            g = self._graphs[which] = self.source.make(self, which)
            if which == "fwd":
                self.res_avals = [v.aval for v in g.outvars[len(self.out_avals):]]
        return g

    def derived(self, key, make):
        r = self._derived.get(key)
        if r is None:
            r = self._derived[key] = make()
        return r

    def map_graphs(self, fn: Callable[[Graph], Graph]) -> "CustomRule":
        """This rule with every graph (the primal now, the rules when first needed) replaced
        by `fn(graph)`, a graph of the same avals: how a transform rewrites a custom
        function's body and rules alike (checkify adds its checks)."""
        return CustomRule(self.name, self.kind, self.leaf_avals, self.out_avals, fn(self.fun),
                          self.consts, _MappedRules(self, fn))

    def compiled_fun(self) -> Call:
        return self.derived("compiled", lambda: Call(self.fun, f"custom_{self.name}"))

    def __repr__(self):
        return f"<custom_{self.kind} {self.name}>"


# ----------------------------------------------------------------------------- primitives
custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
# the linear map of a custom_vjp function's tangents: transposes to `bwd`
custom_vjp_bwd_p = Primitive("custom_vjp_bwd", multiple_results=True)


def _call_impl(*args, rule):
    return eval_graph(rule.fun, list(args))


def _call_abstract_eval(*avals, rule):
    return list(rule.out_avals)


def _call_emit(ctx, ins, out, rule):
    return f"{ctx.const(rule.compiled_fun().fn_for(ctx.array_module), 'custom')}({', '.join(ins)})"


def _call_inline(eqn, ins):
    # jit compiles the function's own graph inline (one buffer plan: the call's outputs take
    # dead buffers, ~1.5 ms less per ReLU over LeNet's activations than a separately compiled
    # call allocating its own). Its rules are not needed there: the transforms that traced the
    # program used them, and a compiled graph is never differentiated again (derived calls
    # start from the graph before the passes, `Call.graph_before`).
    return body_copy(eqn.params["rule"].fun, ins)


for _p in (custom_jvp_call_p, custom_vjp_call_p):
    _p.impl = _call_impl
    _p.abstract_eval = _call_abstract_eval
    _p.emit = _call_emit
    inline_rules[_p] = _call_inline


def _instantiate(tangents, leaves, rule) -> list:
    """Tangents of the float leaves, zeros where symbolic."""
    return [_zeros(a, x) if t is ZERO else t
            for t, x, a, f in zip(tangents, leaves, rule.leaf_avals, rule.float_leaf) if f]


def _out_tangents(t_float, rule) -> list:
    it = iter(t_float)
    return [next(it) if f else ZERO for f in rule.float_out]


def _custom_jvp_jvp(primals, tangents, rule):
    n = rule.n_leaves
    # the consts' tangents are ignored: closed-over values are constants
    if all(t is ZERO for t in tangents[:n]):
        return custom_jvp_call_p.bind(*primals, rule=rule), [ZERO] * len(rule.out_avals)
    leaves, consts = primals[:n], list(primals[n:])
    outs = eval_graph(rule.graph("jvp"),
                      list(leaves) + _instantiate(tangents[:n], leaves, rule) + consts)
    n_out = len(rule.out_avals)
    return outs[:n_out], _out_tangents(outs[n_out:], rule)


custom_jvp_call_p.jvp = _custom_jvp_jvp


def _custom_vjp_jvp(primals, tangents, rule):
    n = rule.n_leaves
    t_leaves = tangents[:n]
    if all(t is ZERO for t in t_leaves) or not any(rule.float_out):
        return custom_vjp_call_p.bind(*primals, rule=rule), [ZERO] * len(rule.out_avals)
    leaves, consts = list(primals[:n]), list(primals[n:])
    outs = eval_graph(rule.graph("fwd"), leaves + consts)
    rule.graph("bwd")  # staged now, while the values its closure reads are alive
    n_out = len(rule.out_avals)
    out, res = outs[:n_out], outs[n_out:]
    float_t = [t for t, f in zip(t_leaves, rule.float_leaf) if f]
    nonzero = tuple(t is not ZERO for t in float_t)
    t_out = custom_vjp_bwd_p.bind(*res, *consts, *[t for t in float_t if t is not ZERO],
                                  rule=rule, nonzero=nonzero)
    return out, _out_tangents(t_out, rule)


custom_vjp_call_p.jvp = _custom_vjp_jvp


# ---- custom_vjp_bwd(*residuals, *consts, *nonzero tangents): transposes to `bwd`
def _bwd_split(args, rule):
    return _split(args, len(rule.res_avals), rule.n_consts)


def _float_out_avals(rule):
    return [a for a, f in zip(rule.out_avals, rule.float_out) if f]


def _bwd_abstract_eval(*avals, rule, nonzero):
    return list(_float_out_avals(rule))


def _bwd_transpose(cts, *args, rule, nonzero):
    res, consts, _ = _bwd_split(args, rule)
    # bwd sees zeros for outputs whose cotangent never arrived (JAX's default)
    cts = [_zeros(a) if c is None else c for c, a in zip(cts, _float_out_avals(rule))]
    got = iter(eval_graph(rule.graph("bwd"), res + cts + consts))
    # one cotangent per float leaf (None: bwd gave a symbolic zero), kept for the nonzero
    # tangents this equation reads
    per_leaf = [next(got) if nz else None for nz in rule.ct_nonzero]
    return ([None] * (len(res) + len(consts))
            + [c for c, nz in zip(per_leaf, nonzero) if nz])


def _bwd_forward(args, rule, nonzero) -> list:
    """Forward mode: the transpose of `bwd` in its cotangent argument (bwd is linear in it),
    applied to the tangents. Written with primitives, so every transform applies."""
    res, consts, tangents = _bwd_split(args, rule)
    bwd = rule.graph("bwd")
    ct_avals = _float_out_avals(rule)
    _, lin, _ = linearize_flat(lambda cts: (eval_graph(bwd, res + list(cts) + consts), None),
                               [_zeros(a) for a in ct_avals])
    t_it = iter(tangents)
    per_leaf = [next(t_it) if nz else None for nz in nonzero]  # per float leaf
    outs = backward_pass(lin, [t for t, nz in zip(per_leaf, rule.ct_nonzero) if nz])
    return [_zeros(a) if o is None else o for o, a in zip(outs, ct_avals)]


def _bwd_impl(*args, rule, nonzero):
    return _bwd_forward(args, rule, nonzero)


def _bwd_jvp(primals, tangents, rule, nonzero):
    trace = JVPTrace()
    with new_trace(trace):
        ins = [p if t is ZERO else JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
        return split_jvp_outputs(_bwd_forward(ins, rule, nonzero), trace)


def _bwd_batch(vals, dims, axis_size, rule, nonzero):
    from .batching import vmap
    run = vmap(lambda *xs: _bwd_forward(xs, rule, nonzero), in_axes=tuple(dims), out_axes=0,
               axis_size=axis_size)
    outs = run(*vals)
    return outs, [0] * len(outs)


custom_vjp_bwd_p.impl = _bwd_impl
custom_vjp_bwd_p.abstract_eval = _bwd_abstract_eval
custom_vjp_bwd_p.transpose = _bwd_transpose
custom_vjp_bwd_p.jvp = _bwd_jvp
custom_vjp_bwd_p.batch = _bwd_batch


# ---- batching: the primal function and each rule, vmapped (a derived rule)
def _vmapped_graph(graph, dims, axis_size, in_avals, post=None) -> Graph:
    """Stage vmap(eval_graph(graph)) (outputs batched at axis 0), then `post` on them."""
    from .batching import vmap
    run = vmap(lambda *xs: eval_graph(graph, list(xs)), in_axes=tuple(dims), out_axes=0,
               axis_size=axis_size)

    def fun(*xs):
        outs = run(*xs)
        return post(outs) if post is not None else outs
    return _stage(fun, in_avals)


class _BatchedRules:
    """Makes a batched rule's graphs: vmaps of its parent's (operands keep their batch
    axes; every output, residuals included, is batched at axis 0)."""

    def __init__(self, parent, dims, axis_size, avals):
        self.parent, self.dims, self.axis_size, self.avals = parent, dims, axis_size, avals

    def make(self, rule, which):
        p, n = self.parent, rule.n_leaves
        leaf_dims, const_dims = self.dims[:n], self.dims[n:]
        leaf_avals, const_avals = self.avals[:n], self.avals[n:]
        float_dims = tuple(d for d, f in zip(leaf_dims, rule.float_leaf) if f)
        size = self.axis_size
        if which == "jvp":
            t_avals = [a for a, f in zip(leaf_avals, rule.float_leaf) if f]
            return _vmapped_graph(p.graph("jvp"), leaf_dims + float_dims + const_dims, size,
                                  leaf_avals + t_avals + const_avals)
        if which == "fwd":
            return _vmapped_graph(p.graph("fwd"), leaf_dims + const_dims, size,
                                  leaf_avals + const_avals)
        p.graph("bwd")
        rule.ct_nonzero = list(p.ct_nonzero)
        # cotangents come back batched at 0: summed over the batch for an unbatched leaf,
        # the batch axis moved where the leaf has it otherwise
        out_dims = [d for d, nz in zip(float_dims, p.ct_nonzero) if nz]

        def place(cts):
            from .batching import _moveaxis
            return [c.sum(0) if d is None else _moveaxis(c, 0, d)
                    for c, d in zip(cts, out_dims)]
        ct_avals = _float_out_avals(rule)
        return _vmapped_graph(p.graph("bwd"),
                              (0,) * (len(rule.res_avals) + len(ct_avals)) + const_dims, size,
                              rule.res_avals + ct_avals + const_avals, place)


class _MappedRules:
    """Makes a mapped rule's graphs (`CustomRule.map_graphs`): `fn` of its parent's."""

    def __init__(self, parent, fn):
        self.parent, self.fn = parent, fn

    def make(self, rule, which):
        g = self.parent.graph(which)
        if which == "bwd":
            rule.ct_nonzero = list(self.parent.ct_nonzero)
        return self.fn(g)


def _batch_rule(vals, dims, axis_size, rule):
    # (cached only on a reusable rule: the batched rule refers to its parent, so a cache is a
    # cycle, which a rule made per call need not carry; jit derives a batched graph once)
    avals = [aval_of(v) for v in vals]
    dims = tuple(dims)
    if rule.reusable:
        brule = rule.derived(("batched", dims, axis_size, tuple(avals)),
                             lambda: _make_batched(rule, dims, axis_size, avals))
    else:
        brule = _make_batched(rule, dims, axis_size, avals)
    prim = custom_jvp_call_p if rule.kind == "jvp" else custom_vjp_call_p
    outs = prim.bind(*vals, rule=brule)
    return outs, [0] * len(outs)


def _make_batched(rule, dims, axis_size, avals) -> CustomRule:
    n = rule.n_leaves
    fun = _vmapped_graph(rule.fun, dims, axis_size, avals)
    consts = _Consts([None] * rule.n_consts, avals[n:])  # (read as operands: no identities)
    consts.index = {}
    brule = CustomRule(rule.name, rule.kind, avals[:n], [v.aval for v in fun.outvars], fun,
                       consts, _BatchedRules(rule, dims, axis_size, avals))
    brule.reusable = rule.reusable
    return brule


custom_jvp_call_p.batch = _batch_rule
custom_vjp_call_p.batch = _batch_rule


# ----------------------------------------------------------------------------- the API
class _CustomBase:
    """Shared by custom_jvp and custom_vjp: argument handling and staging of `fun`."""
    kind = ""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        if not callable(fun):
            raise TypeError(f"custom_{self.kind}: expected a function, got "
                            f"{type(fun).__name__}")
        self.fun = fun
        self.nondiff_argnums = tuple(sorted(int(i) for i in nondiff_argnums))
        self._rules_by_signature: dict | None = None  # see stage_once_per_signature
        self.__name__ = _fun_name(fun)
        functools.update_wrapper(self, fun)

    def __get__(self, obj, objtype=None):  # on a method: bind like a function
        return self if obj is None else functools.partial(self, obj)

    def _positional(self, args, kwargs):
        if not kwargs:
            return tuple(args)
        try:
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"custom_{self.kind}({self.__name__}): {e}") from None
        bound.apply_defaults()
        if bound.kwargs:
            raise TypeError(f"custom_{self.kind}({self.__name__}): keyword-only arguments "
                            f"{sorted(bound.kwargs)} are not supported; make them positional "
                            "(and list them in nondiff_argnums if they are not arrays)")
        return tuple(bound.args)

    def _split_args(self, args):
        nargs = len(args)
        for i in self.nondiff_argnums:
            if not -nargs <= i < nargs:
                raise ValueError(f"custom_{self.kind}({self.__name__}): nondiff_argnums "
                                 f"contains {i}, but it was called with {nargs} argument(s)")
        nondiff = {i % nargs for i in self.nondiff_argnums}
        diff_pos = [i for i in range(nargs) if i not in nondiff]
        leaves, in_tree = _tree.tree_flatten(tuple(args[i] for i in diff_pos))
        leaves = [_as_array(x) for x in leaves]
        arg_trees = [_tree.tree_structure(args[i]) for i in diff_pos]
        return nondiff, diff_pos, leaves, in_tree, arg_trees

    @staticmethod
    def _rebuild(args, diff_pos, in_tree, leaves):
        full = list(args)
        for i, a in zip(diff_pos, _tree.tree_unflatten(in_tree, list(leaves))):
            full[i] = a
        return full

    def _stage_fun(self, args, diff_pos, in_tree, leaves):
        """(graph of the primal on the leaves, the values it closes over, output tree)."""
        box = []

        def flat(*xs):
            out = self.fun(*self._rebuild(args, diff_pos, in_tree, xs))
            out_leaves, out_tree = _tree.tree_flatten(out)
            box.append(out_tree)
            return [_as_array(o) for o in out_leaves]
        graph, lifted = stage_flat(flat, [aval_of(x) for x in leaves])
        consts = _Consts(lifted, [v.aval for v in graph.invars[len(leaves):]])
        return graph, consts, box[0]

    def __call__(self, *args, **kwargs):
        args = self._positional(args, kwargs)
        if not _transforming():  # no transform: no derivative, no batch: run it
            return self.fun(*args)
        self._check_rules()
        nondiff, diff_pos, leaves, in_tree, arg_trees = self._split_args(args)
        rule, out_tree = self._rule_for(args, nondiff, diff_pos, leaves, in_tree, arg_trees)
        prim = custom_jvp_call_p if self.kind == "jvp" else custom_vjp_call_p
        outs = prim.bind(*leaves, *rule.consts.values, rule=rule)
        return _tree.tree_unflatten(out_tree, [_as_array(o) for o in outs])

    def _rule_for(self, args, nondiff, diff_pos, leaves, in_tree, arg_trees):
        """The CustomRule of this call, and the output tree: staged now, or (for a function
        marked by `stage_once_per_signature`) the one staged for the same signature."""
        avals = [aval_of(x) for x in leaves]
        key = None
        if self._rules_by_signature is not None:
            nondiff_values = tuple((type(args[i]), args[i]) for i in sorted(nondiff))
            key = (tuple(avals), in_tree, len(args), nondiff_values)
            try:
                hit = self._rules_by_signature.get(key)
            except TypeError:  # an unhashable nondiff argument: staged every call
                key, hit = None, None
            if hit is not None:
                return hit
        graph, consts, out_tree = self._stage_fun(args, diff_pos, in_tree, leaves)
        ctx = _CallContext(self, args, nondiff, diff_pos, in_tree, arg_trees, out_tree)
        rule = CustomRule(self.__name__, self.kind, avals, [v.aval for v in graph.outvars],
                          graph, consts, ctx)
        if key is not None and not consts.values:  # (nothing closed over: reusable)
            rule.reusable = True
            if len(self._rules_by_signature) >= _SIGNATURES_KEPT:
                self._rules_by_signature.clear()
            self._rules_by_signature[key] = (rule, out_tree)
        return rule, out_tree


_SIGNATURES_KEPT = 64  # staged rules a stage_once_per_signature function keeps


def stage_once_per_signature(fn: "_CustomBase") -> "_CustomBase":
    """Mark a custom_jvp / custom_vjp function whose primal and rules read nothing but their
    arguments (no closed-over arrays, no global state): its graphs are staged once per
    argument signature and reused, instead of on every transformed call (~0.2 ms each, which
    eager `grad` through a ReLU pays per layer). For fungrad's own functions; a user's
    function is staged per call, as JAX traces it, so a changed closure is always seen.
    A call that closes over a traced value is staged afresh whatever the mark."""
    fn._rules_by_signature = {}
    return fn


class _CallContext:
    """One call's arguments, to stage the user's rules for it when a transform needs them."""

    def __init__(self, owner, args, nondiff, diff_pos, in_tree, arg_trees, out_tree):
        # only the nondiff arguments are kept: the others are rebuilt from the leaves, and a
        # tracer kept here would make a cycle (tracer -> its trace -> equation -> rule -> us)
        args = tuple(a if i in nondiff else None for i, a in enumerate(args))
        self.owner, self.args, self.nondiff, self.diff_pos = owner, args, nondiff, diff_pos
        self.in_tree, self.arg_trees, self.out_tree = in_tree, arg_trees, out_tree
        self.nondiff_values = [args[i] for i in sorted(nondiff)]
        self.res_tree = None

    def rebuild(self, leaves) -> list:
        return self.owner._rebuild(self.args, self.diff_pos, self.in_tree, leaves)

    def make(self, rule, which) -> Graph:
        return getattr(self.owner, f"_make_{which}")(rule, self)


class custom_jvp(_CustomBase):
    """A function with a custom JVP (forward-mode) rule; reverse mode linearizes the rule.

    `rule(primals, tangents) -> (primal_out, tangent_out)` gets the differentiable
    arguments and their tangents as tuples (nondiff arguments first, before them, as
    `rule(*nondiff, primals, tangents)`); `tangent_out` has the structure of `primal_out`
    (None for a zero tangent). The rule is written with fungrad.numpy, so it is itself
    differentiated for higher orders (grad of grad), and it must be linear in the tangents
    for reverse mode. Tangents of integer arguments are `float0` zeros.

    Values `f` or the rule close over (arrays, or values of an enclosing transform) are
    treated as constants: no derivative flows through them into the custom rule. Pass a
    value you differentiate with respect to as an argument. `nondiff_argnums` are
    non-array arguments (Python callables, shapes, flags); arrays passed there are constants.

    Example:
        >>> @fg.custom_jvp
        ... def log1pexp(x):
        ...     return fnp.log1p(fnp.exp(x))
        >>> @log1pexp.defjvp
        ... def log1pexp_jvp(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return log1pexp(x), t * fg.nn.sigmoid(x)
        >>> fg.grad(log1pexp)(np.float32(100.0))
        array(1., dtype=float32)
    """
    kind = "jvp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.jvp_rule = None

    def defjvp(self, rule: Callable) -> Callable:
        """Set the JVP rule `rule(primals, tangents) -> (primal_out, tangent_out)`; returns
        `rule` (so it works as a decorator)."""
        self.jvp_rule = rule
        return rule

    def defjvps(self, *rules: Callable | None) -> None:
        """One rule per differentiable argument, `rule_i(t_i, primal_out, *primals)`, giving
        that argument's contribution to the output tangent (None: no derivative); the
        contributions are summed.

        Example:
            >>> f.defjvps(lambda tx, out, x, y: tx * y, lambda ty, out, x, y: ty * x)
        """
        self.jvp_rule = _PerArgJvps(self, rules)

    def _check_rules(self):
        if self.jvp_rule is None:
            raise TypeError(f"custom_jvp({self.__name__}) has no JVP rule: define one with "
                            f"@{self.__name__}.defjvp (or {self.__name__}.defjvps) before "
                            "differentiating or transforming it")

    def _make_jvp(self, rule, ctx) -> Graph:
        n = rule.n_leaves
        name = self.__name__
        fix = (f"Fix the rule given to {name}.defjvp: it returns (primal_out, tangent_out), "
               f"both shaped like {name}'s output.")

        def flat(*xs):
            leaves, t_float = xs[:n], iter(xs[n:])
            tangents = [next(t_float) if f else _float0_zeros(a)
                        for f, a in zip(rule.float_leaf, rule.leaf_avals)]
            primals = tuple(_tree.tree_unflatten(ctx.in_tree, list(leaves)))
            t_tree = tuple(_tree.tree_unflatten(ctx.in_tree, tangents))
            if isinstance(self.jvp_rule, _PerArgJvps):
                got = self.jvp_rule(ctx.rebuild(leaves), primals, t_tree)
            else:
                got = self.jvp_rule(*ctx.nondiff_values, primals, t_tree)
            if not (isinstance(got, (tuple, list)) and len(got) == 2):
                raise TypeError(f"custom_jvp({name}): the JVP rule must return a pair "
                                f"(primal_out, tangent_out), but it returned "
                                f"{type(got).__name__}. {fix}")
            p_out, td = _tree.tree_flatten(got[0])
            if td != ctx.out_tree:
                raise TypeError(f"custom_jvp({name}): the JVP rule's primal_out has structure "
                                f"{td}, but {name} returns {ctx.out_tree}. {fix}")
            t_out = _match_tree(got[1], ctx.out_tree, rule.out_avals,
                                f"custom_jvp({name}): the JVP rule's tangent_out", fix)
            t_out = [_zeros(a) if t is None else t
                     for t, a, f in zip(t_out, rule.out_avals, rule.float_out) if f]
            return [_as_array(o) for o in p_out] + t_out
        t_avals = [a for a, f in zip(rule.leaf_avals, rule.float_leaf) if f]
        graph = _stage(flat, rule.leaf_avals + t_avals, rule.consts)
        _check_outputs(graph.outvars[:len(rule.out_avals)], rule.out_avals,
                       f"custom_jvp({name}): the JVP rule's primal_out", fix)
        return graph


class _PerArgJvps:
    """`defjvps`' rules as one JVP rule: the primal output from the function itself, plus
    each argument's tangent contribution."""

    def __init__(self, owner, rules):
        self.owner = owner
        self.rules = rules

    def __call__(self, full_args, primals, tangents):
        name = self.owner.__name__
        if len(self.rules) != len(primals):
            raise TypeError(f"custom_jvp({name}).defjvps got {len(self.rules)} rule(s) for "
                            f"{len(primals)} differentiable argument(s); pass one per "
                            "argument (None for no derivative)")
        out = self.owner.fun(*full_args)
        total = None
        for r, t in zip(self.rules, tangents):
            if r is None:
                continue
            term = r(t, out, *primals)
            total = term if total is None else _tree.tree_map(lambda a, b: a + b, total, term)
        return out, total


def _check_outputs(outvars, avals, what, fix):
    for i, (v, a) in enumerate(zip(outvars, avals)):
        if tuple(v.aval.shape) != tuple(a.shape) or v.aval.dtype != a.dtype:
            raise TypeError(f"{what}: output leaf {i} is {v.aval.str_short()}, but the primal "
                            f"function's is {a.str_short()}. {fix}")


class custom_vjp(_CustomBase):
    """A function with a custom VJP (reverse-mode) rule.

    `fwd(*args) -> (out, residuals)` computes the output and what the backward pass needs
    (a pytree of arrays); `bwd(residuals, ct) -> tuple` returns one cotangent per
    differentiable argument (a pytree shaped like it; None, or None leaves, for zero). With
    `nondiff_argnums`, `fwd` gets every argument and `bwd` gets them first:
    `bwd(*nondiff, residuals, ct)`. A zero output cotangent reaches `bwd` as zeros.

    Values `f`, `fwd` or `bwd` close over (arrays, or values of an enclosing transform) are
    treated as constants: `bwd` gives no cotangent for them, so no derivative flows through
    them. Pass a value you differentiate with respect to as an argument (its `bwd` entry may
    be None). `nondiff_argnums` are for non-array arguments (callables, shapes, flags).

    Forward mode (fg.jvp, fg.jacfwd) works too, unlike JAX: the tangent is the transpose
    of `bwd` in its cotangent argument, which needs `bwd` to be linear in it (as a VJP is).

    Example:
        >>> @fg.custom_vjp
        ... def straight_through_round(x):
        ...     return fnp.round(x)
        >>> straight_through_round.defvjp(lambda x: (fnp.round(x), None),
        ...                               lambda res, g: (g,))
        >>> fg.grad(lambda x: straight_through_round(x) * 3.0)(0.4)
        array(3.)
    """
    kind = "vjp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set `fwd(*args) -> (out, residuals)` and `bwd(residuals, ct) -> cotangents`."""
        self.fwd, self.bwd = fwd, bwd

    def _check_rules(self):
        if self.fwd is None:
            raise TypeError(f"custom_vjp({self.__name__}) has no VJP rule: define one with "
                            f"{self.__name__}.defvjp(fwd, bwd) before differentiating or "
                            "transforming it")

    def _make_fwd(self, rule, ctx) -> Graph:
        name = self.__name__
        fix = (f"Fix {name}'s fwd: it returns (out, residuals), out shaped like {name}'s "
               "output.")

        def flat(*xs):
            got = self.fwd(*ctx.rebuild(xs))
            if not (isinstance(got, (tuple, list)) and len(got) == 2):
                raise TypeError(f"custom_vjp({name}): fwd must return a pair (out, "
                                f"residuals), but it returned {type(got).__name__}. {fix}")
            out_leaves, td = _tree.tree_flatten(got[0])
            if td != ctx.out_tree:
                raise TypeError(f"custom_vjp({name}): fwd's out has structure {td}, but "
                                f"{name} returns {ctx.out_tree}. {fix}")
            res_leaves, ctx.res_tree = _tree.tree_flatten(got[1])
            for r in res_leaves:
                if not (isinstance(r, Tracer) or hasattr(r, "dtype")
                        or type(r) in (float, int, bool, complex)):
                    raise TypeError(f"custom_vjp({name}): fwd's residuals must be arrays "
                                    f"(a pytree of them), but one is a {type(r).__name__}; "
                                    "pass non-array values through nondiff_argnums or a "
                                    "closure")
            return [_as_array(o) for o in out_leaves] + [_as_array(r) for r in res_leaves]
        graph = _stage(flat, rule.leaf_avals, rule.consts)
        _check_outputs(graph.outvars[:len(rule.out_avals)], rule.out_avals,
                       f"custom_vjp({name}): fwd's out", fix)
        return graph

    def _make_bwd(self, rule, ctx) -> Graph:
        name = self.__name__
        n_res = len(rule.res_avals)
        n_args = len(ctx.arg_trees)
        fix = (f"Fix {name}'s bwd: it returns a tuple with one entry per differentiable "
               f"argument ({n_args}), each shaped like that argument (None for zero).")

        def flat(*xs):
            res, cts = xs[:n_res], iter(xs[n_res:])
            ct = [next(cts) if f else _float0_zeros(a)
                  for f, a in zip(rule.float_out, rule.out_avals)]
            got = self.bwd(*ctx.nondiff_values, _tree.tree_unflatten(ctx.res_tree, list(res)),
                           _tree.tree_unflatten(ctx.out_tree, ct))
            if not isinstance(got, (tuple, list)) or len(got) != n_args:
                desc = (f"a {type(got).__name__} of {len(got)} value(s)"
                        if isinstance(got, (tuple, list)) else
                        f"a {type(got).__name__}, not a tuple")
                wrap = (" (for one argument too: return (g,), not g)"
                        if not isinstance(got, (tuple, list)) else "")
                raise TypeError(f"custom_vjp({name}): bwd returned {desc}, but {name} has "
                                f"{n_args} differentiable argument(s). {fix}{wrap}")
            flat_cts = []
            k = 0
            for i, (g, td) in enumerate(zip(got, ctx.arg_trees)):
                avals = rule.leaf_avals[k:k + td.num_leaves]
                k += td.num_leaves
                flat_cts += _match_tree(g, td, avals, f"custom_vjp({name}): bwd's cotangent "
                                        f"for differentiable argument {i}", fix)
            kept = [c for c, f in zip(flat_cts, rule.float_leaf) if f]
            rule.ct_nonzero = [c is not None for c in kept]
            return [c for c in kept if c is not None]
        ct_avals = [_ct_aval(a) for a in _float_out_avals(rule)]
        return _stage(flat, rule.res_avals + ct_avals, rule.consts)


def _ct_aval(aval):
    return ShapedArray(aval.shape, tangent_dtype(aval.dtype))
