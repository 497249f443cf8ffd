"""jit: stage a function to the IR once per input signature, optimize it, compile it to
straight-line NumPy code, and call that.

A cache hit is a flatten, a signature tuple, a dict lookup and one call. Under another
transform (`grad(jit(f))`, `vmap(jit(f))`, ...) the compiled graph is bound as the primitive
`jit_call`, whose rules derive new compiled graphs from it:

- batching stages `vmap` of the graph and compiles that;
- forward mode stages `jvp` of the graph and compiles that;
- reverse mode's forward pass (tangents staged above the primals) splits the JVP graph by
  partial evaluation: the part that needs only primal values runs compiled now, the linear
  rest is recorded for the backward pass.
"""
from __future__ import annotations

import gc
import inspect
import itertools
import os
import sys
import threading
import warnings
from collections import namedtuple
from typing import Callable, Sequence

import numpy as np

from ..backend import array_module, is_cupy
from ..core.ir import PY_SCALARS, Eqn, Graph, Literal, ShapedArray, Var, aval_of
from ..core.check import check_graph
from ..core import nan_checks
from ..core.primitive import Primitive
from ..core.trace import Tracer, new_trace
from ..compiler.codegen import generate
from ..compiler.passes import optimize, zero_signs
from .. import tree as _tree
from ..config import config
from .ad import (ZERO, JVPTrace, JVPTracer, _as_array, _fun_name, backward_pass,
                 split_jvp_outputs)
from .fresh import memory_root
from .partial_eval import partial_eval_graph, partial_eval_rules
from .staging import IR, StagingTrace, StagingTracer, eval_graph

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CacheInfo(namedtuple("CacheInfo", "hits misses size")):
    """`(hits, misses, size)`, and `.maxsize`: the bound on `size` (`fg.config.jit_cache_size`
    when it was asked; None: no limit). A 3-tuple, so `info == (hits, misses, size)` holds."""

    def __new__(cls, hits, misses, size, maxsize=None):
        self = super().__new__(cls, hits, misses, size)
        self.maxsize = maxsize
        return self

    def __repr__(self):
        return (f"CacheInfo(hits={self.hits}, misses={self.misses}, size={self.size}, "
                f"maxsize={self.maxsize})")


# Serializes compiles (traces, derived graphs) and cache insertions across threads, so one
# signature compiles once. Reentrant: tracing a jitted function may compile the jitted
# functions it calls. Cache hits never take it (a dict lookup is atomic).
_compile_lock = threading.RLock()


# fg.disable_jit: per thread (as the trace stack), so one thread's eager debugging never
# changes another's compiled calls. `_disabled_anywhere` counts the threads inside a
# disable_jit(True) block, so a jitted call outside any pays one global read; only while it
# is nonzero does a call read its thread's depth.
_disable_state = threading.local()
_disabled_anywhere = 0
_disable_lock = threading.Lock()


class disable_jit:
    """Context manager under which `fg.jit`-compiled functions run eagerly: `f` itself is
    called on every call (its Python side effects happen each time, values are concrete, so
    `print` shows numbers), as `jax.disable_jit`. Per thread; nests; `disable_jit(False)`
    inside re-enables jit.

    Example:
        >>> f = fg.jit(lambda x: (print("x =", x), x + 1.0)[1])
        >>> with fg.disable_jit():
        ...     y = f(np.ones(2))
        x = [1. 1.]
    """
    __slots__ = ("disable", "_prev")

    def __init__(self, disable: bool = True):
        self.disable = bool(disable)
        self._prev = None

    def __enter__(self) -> "disable_jit":
        global _disabled_anywhere
        prev = getattr(_disable_state, "depth", 0)
        self._prev = prev
        new = 1 if self.disable else 0
        with _disable_lock:
            _disabled_anywhere += (new > 0) - (prev > 0)
        _disable_state.depth = new
        return self

    def __exit__(self, *exc) -> None:
        global _disabled_anywhere
        cur = getattr(_disable_state, "depth", 0)
        prev = self._prev
        with _disable_lock:
            _disabled_anywhere += (prev > 0) - (cur > 0)
        _disable_state.depth = prev


def jit_disabled() -> bool:
    """Whether `fg.disable_jit()` is in effect in this thread."""
    return bool(_disabled_anywhere and getattr(_disable_state, "depth", 0))


# ----------------------------------------------------------------------------- staging
def _user_frame() -> str | None:
    """`file:line (function)` of the innermost frame outside fungrad, for the IR's comments;
    in a backward pass, the line recorded on the equation being transposed, if any (linear
    equations record one while debug_nans / debug_infs is on)."""
    f = sys._getframe(2)
    while f is not None:
        if f.f_code is backward_pass.__code__:
            eqn = f.f_locals.get("eqn")
            if eqn is not None and eqn.source is not None:
                return f"{eqn.source} [backward pass]"
        fn = f.f_code.co_filename
        if not fn.startswith(_PACKAGE_DIR) and not fn.startswith("<fungrad.jit"):
            return f"{os.path.basename(fn)}:{f.f_lineno} ({f.f_code.co_name})"
        f = f.f_back
    return None


class JitStagingTrace(StagingTrace):
    """Staging for jit: also records, per equation, the user's line that produced it."""
    __slots__ = ()

    def process_primitive(self, prim, args, params):
        out = StagingTrace.process_primitive(self, prim, args, params)
        self.eqns[-1].source = _user_frame()
        return out


def _lift_tracer_constants(graph: Graph):
    """Values of outer transforms captured as constants become extra graph inputs, so the
    outer transform sees them as operands of `jit_call`. Returns (graph, their values)."""
    lifted: dict = {}

    def lift(v):
        if type(v) is Literal and isinstance(v.value, Tracer):
            entry = lifted.get(id(v.value))
            if entry is None:
                entry = lifted[id(v.value)] = (Var(v.aval), v.value)
            return entry[0]
        return v
    eqns = [Eqn(e.prim, [lift(v) for v in e.inputs], e.params, e.outputs, e.source)
            for e in graph.eqns]
    outvars = [lift(v) for v in graph.outvars]
    if not lifted:
        return graph, []
    extra = list(lifted.values())
    return Graph(graph.invars + [v for v, _ in extra], eqns, outvars), [x for _, x in extra]


def stage_flat(fun: Callable, in_avals: Sequence[ShapedArray]):
    """Trace `fun(*tracers) -> list of leaves` to a Graph; returns (graph, lifted values)."""
    trace = JitStagingTrace()
    with new_trace(trace):
        tracers = [trace.new_input(a) for a in in_avals]
        outs = fun(*tracers)
        outvars = [trace.to_atom(_as_array(o) if not isinstance(o, Tracer) else o)
                   for o in outs]
    graph = Graph([t.graph_var for t in tracers], trace.eqns, outvars)
    return _lift_tracer_constants(graph)


# ----------------------------------------------------------------------------- compiled calls
class Call:
    """One compiled graph: what `jit_call` binds. Derived graphs (batched, JVP, partial
    evaluation) are compiled on first use and cached here; they are derived from the graph
    before the passes, whose equations keep the primitives' invariants (the passes may, for
    instance, let an elementwise operation take a 0-d operand where NumPy broadcasts it)."""

    def __init__(self, graph: Graph, name: str, donated=frozenset(), array_module=np):
        self.name = name
        self.array_module = array_module  # NumPy, or CuPy for CuPy inputs
        self.donated = donated
        self.graph_before = graph
        if config.check_graphs:
            check_graph(graph, where=f"jit({name}) staged graph")
        self.graph = optimize(graph)
        if config.check_graphs:
            check_graph(self.graph, relaxed=True, where=f"jit({name}) optimized graph")
        checks = nan_checks.mode  # debug_nans / debug_infs: a variant checking its outputs
        if checks is not None:
            donated = frozenset()  # (a re-run to pinpoint a NaN reads the inputs again)
        self.compiled = generate(self.graph, name, donated, array_module)
        self.fn = self.compiled.fn if checks is None else nan_checks.checked(
            self.compiled.fn, graph, name, checks)
        self.in_avals = [v.aval for v in self.graph.invars]
        self.out_avals = [v.aval for v in self.graph.outvars]
        self._derived: dict = {}

    def subgraphs(self):
        return (self.graph_before,)

    def __repr__(self):
        return f"<compiled {self.name}>"

    def derived(self, key, make):
        c = self._derived.get(key)
        if c is None:
            with _compile_lock:
                c = self._derived.get(key)  # another thread may have made it meanwhile
                if c is None:
                    c = self._derived[key] = make()
        return c

    def fn_for(self, xp):
        """The compiled function for `xp`'s arrays (NumPy or CuPy). A graph staged from
        abstract values (a jit inside another transform, a loop body, a branch) is compiled
        before the values it will see are known: the other module's code is made once."""
        if xp is self.array_module:
            return self.fn
        return self.derived(("array_module", xp.__name__), lambda: Call(
            self.graph_before, self.name, self.donated, xp)).fn


def compiled_for(owner, key, graph: Graph, name: str, xp):
    """`graph` compiled for `xp`'s arrays (NumPy or CuPy), made once and kept by `owner` (a
    graph holder with `derived`: a loop body, cond branches, a while tape's pieces)."""
    return owner.derived((key, xp.__name__), lambda: Call(graph, name, array_module=xp).fn)


def _call_of(fun, in_avals, name, parent: Call) -> Call:
    graph, _ = stage_flat(fun, in_avals)  # (closes over the graph's constants only)
    return Call(graph, name, array_module=parent.array_module)


jit_call_p = Primitive("jit_call", multiple_results=True)
jit_call_p.impl = lambda *args, call: list(call.fn_for(array_module(*args))(*args))
jit_call_p.abstract_eval = lambda *avals, call: list(call.out_avals)


def _jit_call_emit(ctx, ins, out, call):
    return f"{ctx.const(call.fn_for(ctx.array_module), 'jitted')}({', '.join(ins)})"


jit_call_p.emit = _jit_call_emit


def _jit_batch(vals, dims, axis_size, call):
    dims = tuple(dims)
    in_avals = [aval_of(v) for v in vals]
    bcall = call.derived(("batch", dims, axis_size, tuple(in_avals)),
                         lambda: _batched_call(call, in_avals, dims, axis_size))
    return jit_call_p.bind(*vals, call=bcall), list(bcall.out_dims)


def _batched_call(call, in_avals, dims, axis_size) -> Call:
    """`call` vmapped: batched outputs at axis 0, the others as they are. A batched opaque
    output (the tape of a while_loop's known half, when reverse mode ran inside the jitted
    function) holds every lane itself, as its aval says: it has no axis to move, and the
    linear loop that reads it outside takes the lanes from there."""
    from .batching import BatchTracer, batch_flat
    out_dims: list = []

    def fun(*xs):
        def inner(ins):
            outs = eval_graph(call.graph_before, ins)
            out_dims[:] = [0 if type(o) is BatchTracer else None for o in outs]
            opaque = [d == 0 and getattr(aval_of(o.val), "opaque", False)
                      for o, d in zip(outs, out_dims)]
            return ([o.val if op else o for o, op in zip(outs, opaque)],
                    [None if op else d for d, op in zip(out_dims, opaque)])
        return batch_flat(f"vmap_{call.name}", inner, list(xs), list(dims), axis_size)[0]
    c = _call_of(fun, in_avals, f"vmap_{call.name}", call)
    c.out_dims = tuple(out_dims)
    return c


jit_call_p.batch = _jit_batch


def _eval_inlined(graph: Graph, args) -> list:
    """`eval_graph`, except that a nested `jit_call` runs its graph's equations instead of
    binding the call, so tracing this yields no call equations (see `_Split`)."""
    env = dict(zip(map(id, graph.invars), args))

    def read(v):
        return v.value if type(v) is Literal else env[id(v)]

    for eqn in graph.eqns:
        ins = [read(v) for v in eqn.inputs]
        if eqn.prim is jit_call_p:
            outs = _eval_inlined(eqn.params["call"].graph_before, ins)
        elif eqn.prim.multiple_results:
            outs = eqn.prim.bind(*ins, **eqn.params)
        else:
            outs = [eqn.prim.bind(*ins, **eqn.params)]
        for v, o in zip(eqn.outputs, outs):
            env[id(v)] = o
    return [read(v) for v in graph.outvars]


def jvp_graph_fun(graph, nonzero, evaluate=eval_graph):
    """fun(*primals, *nonzero tangents) -> primal outs + nonzero tangent outs of `graph`,
    and a list (filled while tracing) of which tangent outputs are nonzero."""
    n = len(graph.invars)
    out_nonzero: list = []

    def fun(*args):
        primals, tangents = args[:n], iter(args[n:])
        trace = JVPTrace()
        with new_trace(trace):
            ins = [JVPTracer(trace, p, next(tangents)) if nz else p
                   for p, nz in zip(primals, nonzero)]
            p_out, t_out = split_jvp_outputs(evaluate(graph, ins), trace)
        out_nonzero[:] = [t is not ZERO for t in t_out]
        return list(p_out) + [t for t in t_out if t is not ZERO]
    return fun, out_nonzero


def _level(x) -> int:
    return x._trace.level if isinstance(x, Tracer) else -1


def _jit_jvp(primals, tangents, call):
    nonzero = tuple(t is not ZERO for t in tangents)
    nz_tangents = [t for t in tangents if t is not ZERO]
    n_out = len(call.out_avals)
    primal_level = max([_level(p) for p in primals], default=-1)
    if any(type(t) is StagingTracer and t._trace.level > primal_level for t in nz_tangents):
        return _jit_linearize(call, primals, nz_tangents, nonzero)
    t_avals = [aval_of(t) for t in nz_tangents]

    def make():
        fun, out_nz = jvp_graph_fun(call.graph_before, nonzero)
        c = _call_of(fun, call.in_avals + t_avals, f"jvp_{call.name}", call)
        c.out_nonzero = list(out_nz)
        return c
    jcall = call.derived(("jvp", nonzero, tuple(t_avals)), make)
    outs = jit_call_p.bind(*primals, *nz_tangents, call=jcall)
    t_iter = iter(outs[n_out:])
    return outs[:n_out], [next(t_iter) if nz else ZERO for nz in jcall.out_nonzero]


jit_call_p.jvp = _jit_jvp


class _Split:
    """A JVP graph split by `partial_eval_graph`: `known` (compiled, primal inputs only)
    gives the primal outputs and residuals; `unknown` (linear in the tangents) is evaluated
    later on (residuals, tangents).

    The split goes equation by equation, so the JVP graph is staged with nested jitted calls
    inlined: the JVP of a nested call is one `jit_call` equation taking primals and tangents
    and returning both, which belongs to neither part."""

    def __init__(self, call, nonzero, t_avals):
        fun, out_nz = jvp_graph_fun(call.graph_before, nonzero, _eval_inlined)
        graph, _ = stage_flat(fun, call.in_avals + t_avals)
        self.out_nonzero = list(out_nz)
        # (not `optimize`d: the linear part is transposed later, and the passes may relax the
        # primitives' invariants, e.g. let an add broadcast an operand)
        n, n_out = len(call.in_avals), len(call.out_avals)
        n_t_out = len(graph.outvars) - n_out
        # primal outputs must be known; every tangent output comes from the linear part, even
        # one computed from primals only (or a constant)
        pe = partial_eval_graph(
            graph, [False] * n + [True] * len(t_avals),
            instantiate=[False] * n_out + [True] * n_t_out,
            require_known=[True] * n_out + [False] * n_t_out,
            where=f"reverse mode through jit({call.name}): partial evaluation of its JVP",
            hint="Call the function without jit under grad/vjp, or use fg.jvp / fg.jacfwd.")
        self.n_res = pe.n_residuals
        self.known = Call(pe.known, f"fwd_{call.name}", array_module=call.array_module)
        self.unknown = pe.unknown


def _jit_linearize(call, primals, nz_tangents, nonzero):
    t_avals = [aval_of(t) for t in nz_tangents]
    split = call.derived(("linearize", nonzero, tuple(t_avals)),
                         lambda: _Split(call, nonzero, t_avals))
    n_out = len(call.out_avals)
    outs = jit_call_p.bind(*primals, call=split.known)
    res = outs[n_out:]
    t_out = iter(eval_graph(split.unknown, list(res) + list(nz_tangents)))
    return outs[:n_out], [next(t_out) if nz else ZERO for nz in split.out_nonzero]


# A jitted call inside a body that reverse mode splits (a scan or while body, a cond branch)
# at second order: the outer derivative makes the call's JVP one `jit_call` equation whose
# operands mix known primals and unknown tangents. It splits into a known call and a linear
# one, as `cond` does, and the linear call transposes into a compiled backward pass.
class _PartialCall:
    """`call`'s graph split by `partial_eval_graph` for operands `in_unknown`: `known`
    (known operands -> known outputs + residuals) and `unknown` (residuals + unknown
    operands -> unknown outputs), both compiled."""

    def __init__(self, call, in_unknown):
        pe = partial_eval_graph(call.graph_before, list(in_unknown),
                                where=f"partial evaluation of jit({call.name})")
        self.out_unknown = pe.out_unknown
        self.residual_avals = pe.residual_avals
        xp = call.array_module
        self.known = Call(pe.known, f"known_{call.name}", array_module=xp)
        self.unknown = (Call(pe.unknown, f"unknown_{call.name}", array_module=xp)
                        if any(pe.out_unknown) else None)


def _jit_partial_eval(eqn, in_unknown):
    """`partial_eval_graph`'s rule: a call with known and unknown operands becomes a known
    call (giving the known outputs and residuals) and an unknown one."""
    if all(in_unknown):
        return None
    call = eqn.params["call"]
    split = call.derived(("partial_eval", tuple(in_unknown)),
                         lambda: _PartialCall(call, in_unknown))
    res = [Var(a) for a in split.residual_avals]
    known_outs = [o for o, u in zip(eqn.outputs, split.out_unknown) if not u]
    k_eqn = Eqn(jit_call_p, [v for v, u in zip(eqn.inputs, in_unknown) if not u],
                {"call": split.known}, known_outs + res, eqn.source)
    if split.unknown is None:
        return [k_eqn], []
    u_eqn = Eqn(jit_call_p, res + [v for v, u in zip(eqn.inputs, in_unknown) if u],
                {"call": split.unknown},
                [o for o, u in zip(eqn.outputs, split.out_unknown) if u], eqn.source)
    return [k_eqn], [u_eqn]


partial_eval_rules[jit_call_p] = _jit_partial_eval


def _transpose_call(call, linear, ct_nz) -> Call:
    """Compiled (non-linear operands, nonzero output cotangents) -> cotangents of the linear
    operands. What the graph computes from the non-linear operands alone is evaluated first
    (partial evaluation), so the backward pass sees those values as constants."""
    pe = partial_eval_graph(call.graph_before, list(linear),
                            where=f"transposing jit({call.name})")
    const_avals = [a for a, lin in zip(call.in_avals, linear) if not lin]
    # cotangents of outputs computed from the non-linear operands only are not linear: dropped
    ct_avals = [a for a, nz in zip(call.out_avals, ct_nz) if nz]
    lin_avals = [a for a, lin in zip(call.in_avals, linear) if lin]
    u = pe.unknown
    n_res = pe.n_residuals

    def fun(*args):
        consts, cts = args[:len(const_avals)], args[len(const_avals):]
        known = eval_graph(pe.known, list(consts))
        sub = {v: Literal(r, v.aval) for v, r in zip(u.invars[:n_res], known[len(known) - n_res:])}

        def s(v):
            return sub.get(v, v) if type(v) is Var else v
        g = Graph(u.invars[n_res:], [Eqn(e.prim, [s(v) for v in e.inputs], e.params, e.outputs)
                                     for e in u.eqns], [s(v) for v in u.outvars])
        ct_iter = iter(cts)
        out_cts = [next(ct_iter) if nz else None for nz in ct_nz]
        cts_in = backward_pass(g, [c for c, unk in zip(out_cts, pe.out_unknown) if unk])
        return [c if c is not None else np.zeros(a.shape, a.dtype)
                for c, a in zip(cts_in, lin_avals)]
    return _call_of(fun, const_avals + ct_avals, f"transpose_{call.name}", call)


def _jit_transpose(cts, *args, call):
    linear = tuple(type(a) is Var for a in args)
    ct_nz = tuple(c is not None for c in cts)
    tcall = call.derived(("transpose", linear, ct_nz),
                         lambda: _transpose_call(call, linear, ct_nz))
    consts = [a for a, lin in zip(args, linear) if not lin]
    cts_in = iter(jit_call_p.bind(*consts, *[c for c in cts if c is not None], call=tcall))
    return [next(cts_in) if lin else None for lin in linear]


jit_call_p.transpose = _jit_transpose


# ----------------------------------------------------------------------------- the jit API
def _leaf_sig(x):
    """(signature entry, is a tracer) for one argument leaf."""
    if isinstance(x, Tracer):
        a = x.aval
        return (a.shape, a.dtype), True
    t = type(x)
    if t in (float, int, bool, complex):
        if t is int and not -2**63 <= x < 2**63:  # (NumPy would make it an object array)
            raise OverflowError(f"jit: the Python int argument {x} is too large for int64; "
                                "pass it as a float, or make it static (static_argnums)")
        return t, False
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        if t.__module__.startswith("cupy"):
            return ("cupy", x.shape, x.dtype), False
        return (tuple(x.shape), np.dtype(x.dtype)), False
    raise TypeError(f"jit: an argument holds a {t.__name__} ({x!r:.40}), which is not an array "
                    "or a Python scalar and cannot be traced; pass it through static_argnums / "
                    "static_argnames (it then becomes part of the cache key)")


def _signature(leaves):
    """(per-leaf signature tuple, whether a leaf is a tracer, positions of Python scalars)."""
    sig = []
    traced = False
    scalars = None
    for i, x in enumerate(leaves):
        if type(x) is np.ndarray:  # the common case, inline
            sig.append((x.shape, x.dtype))
            continue
        s, t = _leaf_sig(x)
        sig.append(s)
        traced |= t
        if type(x) in PY_SCALARS:
            scalars = (scalars or []) + [i]
    return tuple(sig), traced, scalars


def _is_output_value(o) -> bool:
    """A jitted function's output leaf that is a value: a traced value, a Python number, or
    an array / NumPy scalar of a numeric or boolean dtype (not object or str)."""
    if isinstance(o, Tracer) or type(o) in PY_SCALARS or type(o) is bool:
        return True
    dtype = getattr(o, "dtype", None)
    if dtype is None or not hasattr(o, "shape"):
        return False
    try:
        return np.dtype(dtype).kind not in "OSU"
    except TypeError:
        return False


def _leaf_aval(x) -> ShapedArray:
    # a Python scalar argument is traced as a weak-typed 0-d value: it promotes like the
    # scalar (x32 * 2.0 stays float32, as in eager NumPy); it arrives as a 0-d array
    return x.aval if isinstance(x, Tracer) else aval_of(x)


class Lowered:
    """What `jit` made for one signature: `.ir_before` and `.ir` (the IR before and after
    the passes), `.source` (the generated Python code, also `.as_text()`); `.compile()`
    gives a callable for that signature only (JAX's ahead-of-time API)."""

    def __init__(self, call: Call, in_tree, out_tree, jitted=None, key=None):
        self.call = call
        self.ir_before = IR(call.graph_before, in_tree, out_tree)
        self.ir = IR(call.graph, in_tree, out_tree)
        self.source = call.compiled.source
        self._jitted, self._key = jitted, key

    def as_text(self) -> str:
        """The generated code (`.source`), as JAX's `Lowered.as_text()` gives its IR."""
        return self.source

    def compile(self) -> "Compiled":
        """A callable for the arguments' signature only (fungrad compiled it already, in
        `lower`): called with another signature it raises TypeError, as JAX's does."""
        if self._jitted is None:
            raise TypeError("this Lowered was not made by fg.jit(f).lower(*args)")
        return Compiled(self)

    def __str__(self):
        return self.source


class Compiled:
    """`fg.jit(f).lower(*args).compile()`: `f` compiled for the signature of `args`; a call
    with another signature (shapes, dtypes, structure, static values) raises TypeError
    instead of compiling again."""

    def __init__(self, lowered: Lowered):
        self.lowered = lowered
        self.source = lowered.source

    def as_text(self) -> str:
        return self.source

    def __call__(self, *args, **kwargs):
        jitted, key = self.lowered._jitted, self.lowered._key
        new = jitted._key_of(args, kwargs)
        if new != key:
            what = _what_changed(key, new, args, jitted._static_positions(len(args)))
            raise TypeError(f"{jitted.__name__}: this function was compiled (lower(...)."
                            f"compile()) for other arguments: {what}. Call lower(...)."
                            "compile() again with these arguments, or call the jitted "
                            "function itself (it compiles once per signature).")
        return jitted(*args, **kwargs)

    def __repr__(self):
        return f"<compiled {self.lowered.call.name}>"


class _Entry:
    __slots__ = ("call", "in_tree", "out_tree", "lifted", "donated", "leaf_names",
                 "const_roots", "used", "host_leaves")

    def __init__(self, call, in_tree, out_tree, lifted, donated=(), leaf_names=()):
        self.call, self.in_tree, self.out_tree, self.lifted = call, in_tree, out_tree, lifted
        self.donated = donated  # positions of the donated leaves
        self.leaf_names = leaf_names  # "argument 0", ... per leaf (for donation warnings)
        self.used = 0  # when it was last used (a tick of its Jitted's clock; for LRU)
        self.host_leaves = ()  # positions of leaves to move to the GPU first (see _compile)
        # memory the compiled code reads as constants: a donated argument must not overlap it
        self.const_roots = frozenset(
            id(memory_root(c)) for c in call.compiled.fn.__globals__.values()
            if type(c) is np.ndarray) if donated else frozenset()

    def undonated(self) -> Call:
        """The same graph compiled without donation: under an outer transform or jit the
        operands are not the caller's to give (as in JAX, donation is then ignored)."""
        c = self.call
        return c.derived("undonated", lambda: Call(c.graph_before, c.name,
                                                    array_module=c.array_module))


def _to_device(leaves, positions):
    import cupy
    leaves = list(leaves)
    for i in positions:
        leaves[i] = cupy.asarray(leaves[i])
    return leaves


class Jitted:
    """A function compiled once per input signature. See `jit`."""

    def __init__(self, f, static_argnums, static_argnames, donate_argnums, donate_argnames=()):
        self.f = f
        self.__name__ = f"jit({_fun_name(f)})"
        self.__doc__ = getattr(f, "__doc__", None)
        self.__wrapped__ = f
        static_argnums, static_argnames = _resolve_static(f, self.__name__, static_argnums,
                                                          static_argnames)
        donate_argnums, donate_argnames = _resolve_static(f, self.__name__, donate_argnums,
                                                          donate_argnames, "donate")
        both = set(static_argnames) & set(donate_argnames)
        both_nums = set(static_argnums) & set(donate_argnums)
        if both or both_nums:  # (as JAX: a static value is not an array to donate)
            what = f"names {sorted(both)}" if both else f"positions {sorted(both_nums)}"
            raise ValueError(f"{self.__name__}: an argument cannot be both static and donated, "
                             f"but the argument {what} appear in static_argnums / "
                             "static_argnames and in donate_argnums / donate_argnames")
        self._static_argnums = frozenset(static_argnums)
        self._static_argnames = frozenset(static_argnames)
        self._donate_argnums = frozenset(donate_argnums)
        self._donate_argnames = frozenset(donate_argnames)
        self._donates = bool(self._donate_argnums or self._donate_argnames)
        self._simple = not (self._static_argnums or self._static_argnames or self._donates)
        self._cache: dict = {}
        # LRU eviction without touching the dict on a hit (hits stay safe across threads):
        # an entry records a tick of `_clock` when it is used after a different one
        self._mru = None
        self._clock = itertools.count()
        self._hits = self._misses = 0
        self._last_key = None
        self._warned = False

    # ------------------------------------------------------------------ the hot path
    def __call__(self, *args, **kwargs):
        if _disabled_anywhere and getattr(_disable_state, "depth", 0):
            return self.f(*args, **kwargs)  # fg.disable_jit(): run f eagerly, every call
        entry, leaves, traced, scalars = self._lookup(args, kwargs)
        if scalars:  # traced as weak 0-d values; the compiled code takes 0-d arrays
            leaves = list(leaves)
            for i in scalars:
                leaves[i] = np.asarray(leaves[i])
        if traced or entry.lifted:
            call = entry.undonated() if entry.donated else entry.call
            outs = jit_call_p.bind(*leaves, *entry.lifted, call=call)
            return _tree.tree_unflatten(entry.out_tree, [_as_array(o) for o in outs])
        if entry.host_leaves:  # NumPy values meeting CuPy arrays: all go to the GPU
            leaves = _to_device(leaves, entry.host_leaves)
        if entry.donated:
            outs = _call_donating(self.__name__, entry, leaves)
        else:
            outs = entry.call.fn(*leaves)
        return _tree.tree_unflatten(entry.out_tree, outs)  # (generated code returns arrays)

    def _lookup(self, args, kwargs):
        """(cache entry, compiled on a miss; argument leaves; any leaf traced?; positions of
        Python scalar leaves)."""
        if self._simple and not kwargs:
            leaves, treedef = _tree.tree_flatten(args)
            static = None
        else:
            leaves, treedef, static = self._split_args(args, kwargs)
        sig, traced, scalars = _signature(leaves)
        key = (treedef, sig, static, nan_checks.mode)  # (a checking variant while on)
        entry = self._cache.get(key)
        if entry is None:
            with _compile_lock:
                entry = self._cache.get(key)  # another thread may have compiled it meanwhile
                if entry is None:
                    entry = self._compile(key, args, kwargs, leaves, treedef, static)
                else:
                    self._hits += 1
        else:
            self._hits += 1
            if entry is not self._mru:  # (repeated calls with one signature skip this)
                self._mru = entry
                entry.used = next(self._clock)
        return entry, leaves, traced, scalars

    # ------------------------------------------------------------------ misses
    def _static_positions(self, nargs) -> set:
        return {i % nargs for i in self._static_argnums if -nargs <= i < nargs}

    def _split_args(self, args, kwargs):
        # a static position beyond the call's positional arguments was passed by keyword
        # (its name is in _static_argnames) or left to its default
        nargs = len(args)
        static_pos = self._static_positions(nargs)
        static = []
        for i in sorted(static_pos):
            v = _hashable(self.__name__, f"argument {i}", args[i])
            static.append(("arg", i, v, _static_types(v)))
        dyn_kwargs = {}
        for k in sorted(kwargs):
            if k in self._static_argnames:
                v = _hashable(self.__name__, f"argument {k!r}", kwargs[k])
                static.append(("kw", k, v, _static_types(v)))
            else:
                dyn_kwargs[k] = kwargs[k]
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        leaves, treedef = _tree.tree_flatten((dyn_args, dyn_kwargs))
        return leaves, treedef, tuple(static)

    def _compile(self, key, args, kwargs, leaves, treedef, static):
        self._misses += 1
        self._warn_retrace(key, args, kwargs)
        self._last_key = key
        nargs = len(args)
        static_pos = self._static_positions(nargs)
        out_tree_box = []
        f = self.f

        def fun(*tracers):
            if static is None:
                call_args, call_kwargs = _tree.tree_unflatten(treedef, tracers), {}
            else:
                dyn_args, call_kwargs = _tree.tree_unflatten(treedef, tracers)
                it = iter(dyn_args)
                call_args = [args[i] if i in static_pos else next(it) for i in range(nargs)]
                call_kwargs = dict(call_kwargs)
                for k in self._static_argnames:
                    if k in kwargs:
                        call_kwargs[k] = kwargs[k]
            out = f(*call_args, **call_kwargs)
            out_leaves, out_tree = _tree.tree_flatten(out)
            for k, o in enumerate(out_leaves):
                if not _is_output_value(o):
                    raise TypeError(
                        f"{self.__name__}: output leaf {k} of {len(out_leaves)} is a "
                        f"{type(o).__name__} ({o!r:.40}), which is not an array or a number; "
                        "a jitted function returns arrays and numbers only (return it from a "
                        "function outside the jitted one, or register its type as a pytree "
                        "with fg.tree.register_pytree_node)")
            out_tree_box.append(out_tree)
            return out_leaves

        in_avals = [_leaf_aval(x) for x in leaves]
        # tracing allocates many small objects that all stay alive: the cyclic GC would scan
        # them again and again (a full collection mid-trace doubles the compile time)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            graph, lifted = stage_flat(fun, in_avals)
            donated, names = (self._donated_leaves(args, kwargs, static_pos)
                              if self._donates else ((), ()))
            # CuPy code where a leaf is a CuPy array, as the cache key tells (not a tracer's
            # value: the entry serves plain calls of the tracer's signature too)
            xp = array_module(*[x for x in leaves if not isinstance(x, Tracer)])
            call = Call(graph, _fun_name(f), frozenset(graph.invars[k] for k in donated), xp)
        finally:
            if gc_was_enabled:
                gc.enable()
        entry = _Entry(call, treedef, out_tree_box[0], lifted, donated, names)
        if xp is not np:  # code for CuPy arrays: the leaves that are NumPy arrays or scalars
            # (an optimizer's step count, say) are moved to the GPU at each call
            entry.host_leaves = tuple(i for i, x in enumerate(leaves) if not is_cupy(x))
        if not lifted:  # a graph closing over an outer transform's values is not reusable
            self._insert(key, entry)
        return entry

    def _insert(self, key, entry):
        """Cache `entry`, dropping the least recently used ones beyond `jit_cache_size`
        (their generated code, and its linecache entry, are freed with them)."""
        cache = self._cache
        cache[key] = entry
        self._mru = entry
        entry.used = next(self._clock)
        size = config.jit_cache_size
        if size is not None and len(cache) > size:
            by_age = sorted(list(cache.items()), key=lambda kv: kv[1].used)
            for k, _ in by_age[:len(by_age) - size]:
                cache.pop(k, None)

    def _donated_leaves(self, args, kwargs, static_pos) -> tuple:
        """(positions of the donated arguments' leaves among all argument leaves, a name for
        every leaf: "argument 1", "argument 0 (leaf 2)", "argument 'lr'")."""
        nargs = len(args)
        donate = {i % nargs for i in self._donate_argnums if -nargs <= i < nargs}
        out, names = [], []
        named = [(i, f"argument {i}", a) for i, a in enumerate(args) if i not in static_pos]
        named += [(k, f"argument {k!r}", kwargs[k]) for k in sorted(kwargs)
                  if k not in self._static_argnames]
        for i, name, a in named:
            n = len(_tree.tree_leaves(a))
            if i in donate or i in self._donate_argnames:
                out.extend(range(len(names), len(names) + n))
            names.extend([name] if n == 1 else [f"{name} (leaf {j})" for j in range(n)])
        return tuple(out), tuple(names)

    def _warn_retrace(self, key, args, kwargs):
        """Warn once per jitted function, at the user's call (__call__ or lower -> _lookup ->
        _compile -> here), when it has been traced more than `jit_retrace_warning` times."""
        limit = config.jit_retrace_warning
        if not limit or self._misses <= limit or self._last_key is None or self._warned:
            return
        self._warned = True
        what = _what_changed(self._last_key, key, args, self._static_positions(len(args)))
        warnings.warn(f"{self.__name__} has been traced {self._misses} times: {what}. Each new "
                      "signature (pytree structure, shapes, dtypes, static values) compiles "
                      "again; keep shapes fixed (pad batches) or mark configuration "
                      "arguments static. (fg.config.update('jit_retrace_warning', None) "
                      "silences this.)", stacklevel=5)

    # ------------------------------------------------------------------ introspection
    def lower(self, *args, **kwargs) -> Lowered:
        """Compile (or fetch) for these arguments, without running: `.source`, `.ir`."""
        entry = self._lookup(args, kwargs)[0]
        return Lowered(entry.call, entry.in_tree, entry.out_tree, self,
                       self._key_of(args, kwargs))

    def _key_of(self, args, kwargs):
        """The cache key of a call with these arguments (as `_lookup` builds it)."""
        if self._simple and not kwargs:
            leaves, treedef = _tree.tree_flatten(args)
            static = None
        else:
            leaves, treedef, static = self._split_args(args, kwargs)
        return (treedef, _signature(leaves)[0], static, nan_checks.mode)

    def cache_info(self) -> CacheInfo:
        """(hits, misses, size, maxsize): calls served from the cache, traces, cached
        signatures, and the bound on them (`fg.config.jit_cache_size`; None: no limit)."""
        return CacheInfo(self._hits, self._misses, len(self._cache), config.jit_cache_size)

    def clear_cache(self) -> None:
        """Drop every compiled signature (and its generated code)."""
        self._cache.clear()
        self._mru = None
        self._last_key = None

    def __get__(self, obj, objtype=None):  # jit on a method binds like a function
        if obj is None:
            return self
        import functools
        return functools.partial(self, obj)

    def __repr__(self):
        return f"<{self.__name__}>"


_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _resolve_static(f, fname, argnums, argnames, what="static"):
    """(argnums, argnames) of `what` ("static" or "donate"), each completed from the other
    through `f`'s signature (as JAX does), so a static (or donated) parameter is one whether
    it is passed by position or by keyword. A name `f` does not have, or a position beyond
    its positional parameters, raises ValueError now (for static_argnames JAX only warns; a
    typo would otherwise leave the argument traced and fail later, far from its cause)."""
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):  # no signature (some builtins): take them as given
        return tuple(argnums), tuple(argnames)
    kinds = [p.kind for p in params.values()]
    positional = [n for n, p in params.items() if p.kind in _POSITIONAL]
    nums, names = set(argnums), set(argnames)
    for name in argnames:
        if name in positional:
            nums.add(positional.index(name))
        elif not (name in params and params[name].kind in _NAMED
                  or inspect.Parameter.VAR_KEYWORD in kinds):
            valid = [n for n, p in params.items() if p.kind in _NAMED]
            raise ValueError(f"{fname}: {what}_argnames contains {name!r}, which is not a "
                             f"parameter of {_fun_name(f)}; its parameters that can be passed "
                             f"by name are {valid}")
    for i in argnums:
        if 0 <= i < len(positional):
            if params[positional[i]].kind in _NAMED:
                names.add(positional[i])
        elif not (-len(positional) <= i < 0 or inspect.Parameter.VAR_POSITIONAL in kinds):
            raise ValueError(f"{fname}: {what}_argnums contains {i}, but {_fun_name(f)} takes "
                             f"{len(positional)} positional parameter(s) {positional}")
    return tuple(sorted(nums)), tuple(sorted(names))


def _argnums_tuple(what, value) -> tuple:
    """`value` (an int, a sequence of ints, NumPy integers included) as a tuple of ints."""
    return tuple(int(i) for i in _items(what, value, (int, np.integer), "an int"))


def _argnames_tuple(what, value) -> tuple:
    """`value` (a str or a sequence of str) as a tuple of str."""
    return _items(what, value, str, "a str")


def _items(what, value, kinds, one) -> tuple:
    items = (value,) if isinstance(value, kinds) else value
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if items is None or not all(isinstance(i, kinds) for i in items):
        raise TypeError(f"jit: {what} must be {one} or a sequence of {one.split()[-1]}s, got "
                        f"{value!r}")
    return items


# ----------------------------------------------------------------------------- donation
def _donation_blocker(i, x, leaves, roots, const_roots, names) -> str | None:
    """Why donated leaf `i` (a NumPy array) cannot be written, or None if it can."""
    if not x.flags.writeable:
        return ("it is read-only (an array donated to an earlier call is marked read-only "
                "after it: its contents are undefined)")
    if not _no_self_overlap(x):
        return "it may overlap itself (a strided view whose elements share memory)"
    r = roots[i]
    if id(r) in const_roots:
        return "it shares memory with an array the function closes over"
    for j, y in enumerate(leaves):
        if j != i and roots[j] is r and np.may_share_memory(x, y):
            return f"it shares memory with {names[j]}"
    return None


def _no_self_overlap(x) -> bool:
    """True if no two elements of NumPy array `x` share memory (sufficient test: with the
    axes sorted by stride, each stride steps over all of the smaller axes' extent). Only a
    view made with `as_strided(..., writeable=True)` fails it; writing a result into such
    memory would give the elements that share it one value."""
    flags = x.flags
    if flags.c_contiguous or flags.f_contiguous or x.size <= 1:
        return True
    extent = x.itemsize
    for stride, size in sorted((abs(s), n) for s, n in zip(x.strides, x.shape) if n > 1):
        if stride < extent:
            return False
        extent = stride * (size - 1) + extent
    return True


def _call_donating(name, entry, leaves):
    """Call a compiled function that may write into its donated leaves. A donated leaf that
    is read-only, overlaps itself, or overlaps another argument (or a constant) is copied
    first, with a warning; the others are marked read-only afterwards, also when the call
    raises: their contents are undefined (the NumPy stand-in for JAX deleting a donated
    buffer)."""
    leaves = list(leaves)
    roots = [memory_root(y) if type(y) is np.ndarray else None for y in leaves]
    ids = [id(r) for r in roots]
    backs: dict = {}  # id of a memory owner -> how many leaves live in its memory
    for r in ids:
        backs[r] = backs.get(r, 0) + 1
    consumed = []
    for i in entry.donated:
        x = leaves[i]
        if type(x) is not np.ndarray:
            continue  # (CuPy arrays are donated as they are)
        r = ids[i]
        flags = x.flags
        if (backs[r] == 1 and r not in entry.const_roots and flags.writeable
                and (flags.c_contiguous or flags.f_contiguous or _no_self_overlap(x))):
            consumed.append(x)  # (the common case, checked without a loop over the leaves)
            continue
        why = _donation_blocker(i, x, leaves, roots, entry.const_roots, entry.leaf_names)
        if why is None:
            consumed.append(x)
            continue
        warnings.warn(f"{name}: donated {entry.leaf_names[i]} ({_sig_str((x.shape, x.dtype))})"
                      f" was not donated: {why}. It is copied instead and left unchanged; "
                      "donate a fresh array (e.g. the previous call's output).", stacklevel=3)
        leaves[i] = x.copy()
    try:
        return entry.call.fn(*leaves)
    finally:  # (also when the call raises: the code may have written into them already)
        for x in consumed:
            x.setflags(write=False)  # (twice as fast as setting x.flags.writeable)


def _hashable(fname, what, value):
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"{fname}: static {what} must be hashable (it is part of the cache key), but it "
            f"is a {type(value).__name__}. Pass a tuple instead of a list, a frozen dataclass, "
            "or make it a regular (traced) argument.") from None
    return value


def _static_types(value):
    """The types in a static value, for the cache key: 1, 1.0 and True are equal and hash
    alike, but trace to different dtypes (fnp.full(2, s) is int, float or bool); and the
    signs of float zeros (-0.0 == 0.0, but copysign(x, s) differs)."""
    if isinstance(value, tuple):
        return type(value), tuple(_static_types(v) for v in value)
    return (type(value),) + zero_signs(value)


def _what_changed(old, new, args, static_pos) -> str:
    (otree, osig, ostatic, ochecks), (ntree, nsig, nstatic, nchecks) = old, new
    if ochecks != nchecks:
        return "fg.config's debug_nans / debug_infs changed"
    if otree != ntree:
        return f"the argument structure changed from {otree} to {ntree}"
    if ostatic != nstatic:
        return (f"static arguments changed from {[s[:3] for s in ostatic]} to "
                f"{[s[:3] for s in nstatic]}")
    leaf = next((i for i, (a, b) in enumerate(zip(osig, nsig)) if a != b), None)
    if leaf is None:
        return "the signature changed"
    # the argument that holds that leaf
    k = 0
    for i, a in enumerate(args):
        if i in static_pos:
            continue
        n = len(_tree.tree_leaves(a))
        if leaf < k + n:
            return (f"argument {i} (leaf {leaf - k}) changed from {_sig_str(osig[leaf])} to "
                    f"{_sig_str(nsig[leaf])}")
        k += n
    return f"leaf {leaf} changed from {_sig_str(osig[leaf])} to {_sig_str(nsig[leaf])}"


def _sig_str(s) -> str:
    if isinstance(s, tuple) and len(s) == 2:
        return ShapedArray(tuple(s[0]), s[1]).str_short()
    return getattr(s, "__name__", repr(s))


def jit(f: Callable, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (),
        donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = ()) -> Jitted:
    """Compile `f` to straight-line NumPy code, once per input signature.

    The signature is the pytree structure, shapes and dtypes of the arguments, the values
    of the static ones, and the backend. Arrays `f` closes over become constants. Python
    control flow on traced values raises an error (use `fnp.where`, or mark
    the argument static). A static parameter may be named by position (`static_argnums`) or
    by name (`static_argnames`) and then passed either way; a name `f` does not have raises
    ValueError.

    Donation: the NumPy arrays of the arguments in `donate_argnums` (or `donate_argnames`;
    each is completed from the other through `f`'s signature, as the static ones are) lend
    their memory to the compiled code, which may write intermediates and outputs into it (saving allocations,
    as in JAX). After the call a donated array is *consumed*: its contents are undefined
    (an output may live in its memory) and it is marked read-only, so writing to it raises
    and donating it again is refused (also after a call that raised: it may have been
    written already). Reuse the output instead: `w = step(w, x)`. A donated array that is
    read-only, shares memory with another argument or overlaps itself (a writable
    `as_strided` view) is not donated (it is copied, with a warning), and under an outer
    transform or jit donation is ignored. An argument cannot be both static and donated
    (ValueError, as in JAX).
    Outputs are always fresh, writable arrays that share memory with no argument (except
    a donated one) and with no other output.

    Example:
        >>> f = fg.jit(lambda x: fnp.sin(x) * 2.0)
        >>> f(np.zeros(2))                    # traced and compiled on the first call
        array([0., 0.])
        >>> print(f.lower(np.zeros(2)).source)   # the generated code
        def jit__lambda_(a):
            b = np.sin(a)  # ...
            c = np.multiply(b, c0, out=b)  # ...
            return (c, )
        >>> step = fg.jit(lambda w, g: w - 0.5 * g, donate_argnums=0)
        >>> w = np.ones(2)
        >>> w = step(w, np.ones(2))           # the old w's memory may hold the new w
        >>> w
        array([0.5, 0.5])
    """
    if not callable(f):
        raise TypeError(f"jit: expected a function, got {type(f).__name__} ({f!r:.40})")
    return Jitted(f, _argnums_tuple("static_argnums", static_argnums),
                  _argnames_tuple("static_argnames", static_argnames),
                  _argnums_tuple("donate_argnums", donate_argnums),
                  _argnames_tuple("donate_argnames", donate_argnames))
