"""Forward and reverse mode.

- `JVPTrace` carries (primal, tangent) pairs; a primitive's `jvp` rule gives both outputs.
  Zero tangents are the symbolic `ZERO` and never become arrays; a result whose tangent is
  `ZERO` is returned as a plain value (it is a constant for this transform).
- `linearize` runs the JVP with tangents that are `StagingTracer`s, so the tangent work is
  recorded as a linear `Graph` while the primal work runs eagerly (JVP + partial evaluation
  in one pass).
- `backward_pass` transposes a linear graph; `vjp` = linearize + transpose; `grad` = vjp
  with a seed of 1.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..core.dtypes import is_inexact
from ..core.ir import PY_SCALARS as _PY_SCALARS, Graph, Literal, ShapedArray, Var, aval_of
from ..core.check import check_graph
from ..core import nan_checks
from ..core.ad_util import ZERO, add_any, float0
from ..config import config
from ..core.trace import Trace, Tracer, new_trace
from ..errors import ConcretizationError, NonScalarOutputError
from .fresh import fresh_leaves, fresh_tree, graph_arrays
from .staging import StagingTrace, StagingTracer, eval_graph
from .. import tree as _tree
from ..backend import array_module


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent", "_aval")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self._aval = None

    @property
    def aval(self):
        a = self._aval
        if a is None:  # computed once: fnp and the rules ask for it several times
            a = self._aval = aval_of(self.primal)
        return a

    def to_concrete(self, what, cuts=False):
        if cuts:  # a Python number or NumPy array of x is a constant: its derivative is lost
            raise ConcretizationError(
                f"{what} was applied to a value being differentiated ({self.aval.str_short()}"
                "): the result would be a constant, silently dropping the derivative. Keep it an "
                "array and use fungrad.numpy functions (fnp.sin(x), not math.sin(x)); if a "
                "constant is what you mean, convert fg.stop_gradient(x) instead.")
        p = self.primal
        return p.to_concrete(what, cuts) if isinstance(p, Tracer) else p


class JVPTrace(Trace):
    __slots__ = ()

    def process_primitive(self, prim, args, params):
        primals = []
        tangents = []
        weak = True  # every operand weak: a differentiated Python float and Python scalars
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                tangents.append(a.tangent)
                weak = weak and _known_weak(a)
            else:
                primals.append(a)
                tangents.append(ZERO)
                weak = weak and type(a) in _PY_SCALARS
        rule = prim.jvp
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
        out, t_out = rule(primals, tangents, **params)
        if prim.multiple_results:
            return [o if t is ZERO else JVPTracer(self, o, t) for o, t in zip(out, t_out)]
        if t_out is ZERO:
            return out
        return _weakened(JVPTracer(self, out, t_out)) if weak else JVPTracer(self, out, t_out)


class LinearizeTrace(JVPTrace):
    """JVP whose tangents are `StagingTracer`s of `lin` (reverse mode's forward pass).

    A primitive with a `linearize` rule (elementwise ones) takes a shortcut: the rule computes
    the output and appends the linear equations of its tangent to `lin.eqns` directly (what
    its traced JVP rule would record), without binding them through the staging trace: this
    is the hot path of eager `grad`. The rule returns (output, tangent Var or None for a
    zero tangent).
    """
    __slots__ = ("lin",)

    def __init__(self, lin):
        super().__init__()
        self.lin = lin

    def process_primitive(self, prim, args, params):
        rule = prim.linearize
        if rule is None:
            return JVPTrace.process_primitive(self, prim, args, params)
        lin = self.lin
        primals = []
        tvars = []
        weak = True  # (as JVPTrace's)
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                t = a.tangent
                if type(t) is not StagingTracer or t._trace is not lin:
                    return JVPTrace.process_primitive(self, prim, args, params)
                primals.append(a.primal)
                tvars.append(t.graph_var)
                weak = weak and _known_weak(a)
            else:
                primals.append(a)
                tvars.append(None)
                weak = weak and type(a) in _PY_SCALARS
        z, v = rule(lin.eqns, primals, tvars, **params)
        if v is None:
            return z
        out = JVPTracer(self, z, StagingTracer(lin, v))
        return _weakened(out) if weak else out


def _known_weak(tracer) -> bool:
    """Whether a JVP tracer is weakly typed, read without computing its aval (only tracers
    of differentiated Python scalars, and what is computed from them alone, have one set)."""
    a = tracer._aval
    return a is not None and a.weak_type


def _weakened(tracer):
    """`tracer` with a weak aval: a value computed from weak operands alone is weak, as a
    Python scalar computed from Python scalars is (`b * b` of a differentiated Python float
    times a float32 array stays float32)."""
    a = aval_of(tracer.primal)
    tracer._aval = ShapedArray(a.shape, a.dtype, True)
    return tracer


class SourcedLinearizeTrace(LinearizeTrace):
    """`LinearizeTrace` that records the user's line on the linear equations it appends (while
    `debug_nans` / `debug_infs` is on: an error in the backward pass then names the forward
    line of the equation being transposed)."""
    __slots__ = ()

    def process_primitive(self, prim, args, params):
        eqns = self.lin.eqns
        n = len(eqns)
        out = LinearizeTrace.process_primitive(self, prim, args, params)
        if len(eqns) > n:
            source = nan_checks.user_frame()
            for e in eqns[n:]:
                if e.source is None:
                    e.source = source
        return out


# ----------------------------------------------------------------------------- helpers

# float or complex, bfloat16 included: the dtypes that carry tangents (one test everywhere)
is_float = is_inexact


def _as_array(x):
    """Transform inputs and outputs are arrays: Python/NumPy scalars become 0-d arrays."""
    if isinstance(x, Tracer) or type(x) is np.ndarray:
        return x
    if isinstance(x, np.generic) or type(x) in (float, int, bool, complex):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x  # e.g. a CuPy array


# Python floats and complexes are weak (NEP 50) operands: `x32 * 2.0` is float32. A
# differentiated Python scalar stays weak (its tracer's aval says so, as under jit), so the
# transformed function computes in the dtypes the untransformed one does.
_WEAK_INEXACT = (float, complex)


def _weak_primal(trace, p, tangent):
    """The tracer of a differentiated Python float or complex `p`: a 0-d array primal whose
    aval is weak."""
    t = JVPTracer(trace, np.asarray(p), tangent)
    t._aval = aval_of(p)
    return t


def _as_primal(x):
    """A primal leaf as the transforms take it: `_as_array`, except that Python scalars stay
    as they are (weak operands; see `_WEAK_INEXACT`)."""
    return x if type(x) in _PY_SCALARS else _as_array(x)


def _zeros_for(aval, like=None):
    xp = array_module(like)
    if not is_float(aval.dtype):
        return np.zeros(aval.shape, float0)
    return xp.zeros(aval.shape, aval.dtype)


def tangent_dtype(dtype):
    """The dtype of tangents and cotangents of values of `dtype` (JAX's rule): the same for
    floats and complex, `float0` for integers and bools (they have no derivative)."""
    return dtype if is_float(dtype) else float0


def check_tangent(where: str, what: str, t, aval):
    """`t` as an array of `aval`'s shape and tangent dtype, or an error naming both.

    A weak Python scalar stands for a 0-d tangent of the expected float dtype (as `x32 * 2.0`
    stays float32): `jvp(f, (x32,), (1.0,))` works. Shapes differ: ValueError; dtypes
    differ: TypeError (as in JAX)."""
    want = tangent_dtype(aval.dtype)
    if type(t) in (float, int) and aval.shape == () and is_float(want) and want.kind != "V":
        return np.asarray(t, want)
    t = _as_array(t)
    ta = aval_of(t)
    if ta.shape != aval.shape:
        raise ValueError(f"{where}: {what} has shape {ta.shape}, but its primal has shape "
                         f"{aval.shape} (primal is {aval.str_short()}, {what.split()[0]} is "
                         f"{ta.str_short()})")
    if ta.dtype != want:
        fix = ((f"(e.g. t.astype(np.{want.name}))" if want.kind != "V" else
                "(e.g. t.astype(primal.dtype))") if want is not float0 else
               "(integer and bool values have no derivative: pass "
               "np.zeros(shape, fg.float0))")
        got = "float0" if ta.dtype == float0 else ta.dtype.name
        raise TypeError(f"{where}: {what} has dtype {got}, but its primal has dtype "
                        f"{aval.dtype.name}, whose tangents have dtype "
                        f"{'float0' if want is float0 else want.name}; pass a tangent of that "
                        f"dtype {fix}")
    return t


def _fun_name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


# ----------------------------------------------------------------------------- forward mode

def jvp(f: Callable, primals: Sequence, tangents: Sequence, has_aux: bool = False) -> tuple:
    """Forward mode: `(f(*primals), J_f(primals) @ tangents)` in one pass.

    Example:
        >>> fg.jvp(fnp.sin, (0.0,), (1.0,))
        (array(0.), array(1.))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"jvp({_fun_name(f)}): primals and tangents must be tuples or lists, "
                        f"got {type(primals).__name__} and {type(tangents).__name__}")
    p_leaves, p_tree = _tree.tree_flatten(tuple(primals))
    t_leaves, t_tree = _tree.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise ValueError(f"jvp({_fun_name(f)}): primals and tangents must have the same "
                         f"structure, got {p_tree} and {t_tree}")
    t_leaves = [check_tangent(f"jvp({_fun_name(f)})", f"tangent {i}", t, aval_of(_as_array(p)))
                for i, (p, t) in enumerate(zip(p_leaves, t_leaves))]

    def flat_fun(ins):
        out = f(*_tree.tree_unflatten(p_tree, ins))
        return _split_aux(f, out) if has_aux else (out, None)
    out_tree, p_out, t_out, aux = jvp_flat(flat_fun, p_leaves, t_leaves, _fun_name(f))
    ins = p_leaves + t_leaves
    outs = fresh_leaves(p_out + t_out, ins)  # (no output shares memory with an input)
    p_out, t_out = outs[:len(p_out)], outs[len(p_out):]
    res = (_tree.tree_unflatten(out_tree, p_out), _tree.tree_unflatten(out_tree, t_out))
    return res + (fresh_tree(aux, ins + outs),) if has_aux else res


def jvp_flat(fun, p_leaves, t_leaves, name):
    """Forward mode on flat leaves: `fun(leaves) -> (output pytree, aux or None)`.

    Returns (out_tree, primal output leaves, tangent output leaves, aux without tracers).
    """
    trace = JVPTrace()
    with new_trace(trace):
        ins = []
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            weak = type(p) in _WEAK_INEXACT
            if type(p) not in _PY_SCALARS:  # (Python ints and bools reach `fun` as they are)
                p = _as_array(p)
            t = _as_array(t)
            pa, ta = aval_of(np.asarray(p) if weak else p), aval_of(t)
            if is_float(pa.dtype):
                if pa.shape != ta.shape or pa.dtype != ta.dtype:
                    raise ValueError(
                        f"jvp({name}): tangent {i} must match its primal's shape and "
                        f"dtype: primal is {pa.str_short()}, tangent is {ta.str_short()}")
                ins.append(_weak_primal(trace, p, t) if weak else JVPTracer(trace, p, t))
            else:
                ins.append(p)
        out, aux = fun(ins)
        out_leaves, out_tree = _tree.tree_flatten(out)
        p_out, t_out = split_jvp_outputs(out_leaves, trace)
        p_out = [_as_array(o) for o in p_out]
        t_out = [_zeros_for(aval_of(o), o) if t is ZERO else _as_array(t)
                 for o, t in zip(p_out, t_out)]
        if aux is not None:
            aux = _strip(aux, trace)
    return out_tree, p_out, t_out, aux


def split_jvp_outputs(outs, trace):
    """(primal, tangent) lists of output leaves; ZERO for those that carry no tangent."""
    p_out, t_out = [], []
    for o in outs:
        if type(o) is JVPTracer and o._trace is trace:
            p_out.append(o.primal)
            t_out.append(o.tangent)
        else:
            p_out.append(_constant_output(o))
            t_out.append(ZERO)
    return p_out, t_out


def _split_aux(f, out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{_fun_name(f)} was transformed with has_aux=True, so it must return "
                        f"a pair (output, aux), but it returned {type(out).__name__}")
    return out[0], out[1]


def _constant_output(o):
    """An output that no tracer produced (an array the function closes over, returned as it
    is): a copy, as jit returns, so that writing into the result never writes into it."""
    return o.copy() if type(o) is np.ndarray else o


def _strip(tree, trace):
    """Aux outputs carry no derivative: replace our tracers by their primal values."""
    def strip(x):
        if not isinstance(x, Tracer):
            # (Python and NumPy scalars come back as they are, as JAX returns them)
            return _constant_output(x)
        while isinstance(x, JVPTracer) and x._trace is trace:
            x = x.primal
        return _as_array(x) if not isinstance(x, Tracer) else x
    return _tree.tree_map(strip, tree)


# ----------------------------------------------------------------------------- reverse mode

def linearize_flat(fun, primals, has_aux=False):
    """Run `fun(list_of_leaves) -> list_of_leaves` once, recording its linear part.

    Returns (primal outputs, linear Graph from input tangents to output tangents, aux).
    Non-float inputs get no tangent (their graph input is a Var that nothing reads).
    """
    lin = StagingTrace()
    jt = (LinearizeTrace if nan_checks.mode is None else SourcedLinearizeTrace)(lin)
    with new_trace(lin), new_trace(jt):
        invars = []
        ins = []
        for p in primals:
            if type(p) in _WEAK_INEXACT:
                v = Var(aval_of(np.asarray(p)))
                ins.append(_weak_primal(jt, p, StagingTracer(lin, v)))
            else:  # (a Python int or bool, not differentiated, reaches `fun` as it is)
                v = Var(aval_of(p))
                ins.append(JVPTracer(jt, p, StagingTracer(lin, v)) if is_float(v.aval.dtype)
                           else p)
            invars.append(v)
        outs, aux = fun(ins)
        p_out = []
        outvars = []
        for o in outs:
            if type(o) is JVPTracer and o._trace is jt:
                p_out.append(o.primal)
                t = o.tangent
                outvars.append(t.graph_var if type(t) is StagingTracer and t._trace is lin
                               else Literal(t, aval_of(t)))
            else:
                p_out.append(_constant_output(o))
                outvars.append(None)
        if has_aux:
            aux = _strip(aux, jt)
    graph = Graph(invars, lin.eqns, outvars)
    if config.check_graphs:
        check_graph(graph, where="linearized graph")
    return p_out, graph, aux


def backward_pass(graph: Graph, cts_out, consume: bool = False) -> list:
    """Transpose a linear graph: cotangents of its outputs -> cotangents of its inputs.

    Cotangents absent from the result (None) are symbolic zeros. With `consume=True` (a
    graph used once, as in `grad`) each equation is removed from the graph as it is
    transposed, so the residuals it holds die as soon as the pass no longer needs them
    (otherwise every forward intermediate would live until the pass ends).
    """
    ct_env = {}
    for v, ct in zip(graph.outvars, cts_out):
        if type(v) is Var and ct is not None:
            prev = ct_env.get(v)
            ct_env[v] = ct if prev is None else add_any(prev, ct)
    pop = ct_env.pop
    eqns = graph.eqns
    drop = eqns.pop if consume else None
    for eqn in reversed(eqns):
        if drop:
            drop()  # this equation (the reversed iterator has passed it)
        prim = eqn.prim
        if prim.multiple_results:
            cts = [pop(v, None) for v in eqn.outputs]
            if all(c is None for c in cts):
                continue
        else:
            cts = pop(eqn.outputs[0], None)
            if cts is None:
                continue
        rule = prim.transpose
        if rule is None:
            raise NotImplementedError(f"Transpose rule for '{prim.name}' not implemented")
        inputs = eqn.inputs
        cts_in = rule(cts, *[v if type(v) is Var else v.value for v in inputs], **eqn.params)
        sums = None  # (Var, cotangent) pairs to add to one already there
        for v, ct in zip(inputs, cts_in):
            if ct is not None and type(v) is Var:
                if v in ct_env:
                    sums = [(v, ct)] if sums is None else sums + [(v, ct)]
                else:
                    ct_env[v] = ct
        if sums is not None:
            # drop this equation's cotangents (and, consumed, its residuals) before the sums
            # allocate; the summed terms die one by one
            eqn = inputs = cts = cts_in = ct = None
            while sums:
                v, ct = sums.pop()
                ct_env[v] = add_any(pop(v), ct)
                ct = None
    return [ct_env.get(v) for v in graph.invars]


def vjp(f: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """Reverse mode: `(f(*primals), vjp_fn)`; `vjp_fn(ct)` returns one cotangent per primal.

    `vjp_fn` may be called many times (the linearized graph is kept).

    Example:
        >>> y, f_vjp = fg.vjp(fnp.sin, 0.0)
        >>> f_vjp(1.0)
        (array(1.),)
    """
    leaves, in_tree = _tree.tree_flatten(primals)
    leaves = [_as_primal(x) for x in leaves]
    state = {}

    def flat_fun(ins):
        out = f(*_tree.tree_unflatten(in_tree, ins))
        aux = None
        if has_aux:
            out, aux = _split_aux(f, out)
        out_leaves, state["out_tree"] = _tree.tree_flatten(out)
        return out_leaves, aux

    p_out, graph, aux = linearize_flat(flat_fun, leaves, has_aux)
    out_tree = state["out_tree"]
    out_avals = [aval_of(o) for o in p_out]

    def vjp_fn(ct):
        ct_leaves, ct_tree = _tree.tree_flatten(ct)
        if ct_tree != out_tree:
            raise ValueError(f"vjp({_fun_name(f)}): cotangent structure {ct_tree} does not "
                             f"match the output structure {out_tree}")
        ct_leaves = [check_tangent(f"vjp({_fun_name(f)})", f"cotangent for output {i}", c, a)
                     for i, (c, a) in enumerate(zip(ct_leaves, out_avals))]
        cts = backward_pass(graph, ct_leaves)
        cts = [_as_array(c) if c is not None else _zeros_for(v.aval, p)
               for c, v, p in zip(cts, graph.invars, leaves)]
        cts = fresh_leaves(cts, ct_leaves + kept)
        return tuple(_tree.tree_unflatten(in_tree, cts))

    kept = leaves + graph_arrays(graph)  # what the caller holds or vjp_fn reads
    p_out = fresh_leaves([_as_array(o) for o in p_out], kept)
    out = _tree.tree_unflatten(out_tree, p_out)
    if has_aux:
        return out, vjp_fn, fresh_tree(aux, kept + p_out)
    return out, vjp_fn


def linearize(f: Callable, *primals: Any) -> tuple:
    """`(f(*primals), f_jvp)` where `f_jvp(*tangents)` evaluates the linearized function.

    Example:
        >>> y, f_jvp = fg.linearize(fnp.sin, 0.0)
        >>> f_jvp(2.0)
        array(2.)
    """
    leaves, in_tree = _tree.tree_flatten(primals)
    leaves = [_as_primal(x) for x in leaves]
    state = {}

    def flat_fun(ins):
        out_leaves, state["out_tree"] = _tree.tree_flatten(f(*_tree.tree_unflatten(in_tree, ins)))
        return out_leaves, None

    p_out, graph, _ = linearize_flat(flat_fun, leaves)
    out_tree = state["out_tree"]

    # outputs without a tangent read a placeholder and become zeros below
    live = Graph(graph.invars, graph.eqns,
                 [v if v is not None else Literal(None, None) for v in graph.outvars])

    def f_jvp(*tangents):
        t_leaves, t_tree = _tree.tree_flatten(tangents)
        if t_tree != in_tree:
            raise ValueError(f"linearize({_fun_name(f)}): tangents have structure {t_tree}, "
                             f"but the primals have {in_tree}")
        t_leaves = [check_tangent(f"linearize({_fun_name(f)})", f"tangent {i}", t, v.aval)
                    for i, (t, v) in enumerate(zip(t_leaves, graph.invars))]
        outs = eval_graph(live, t_leaves)
        outs = [_as_array(o) if v is not None else _zeros_for(aval_of(p), p)
                for o, v, p in zip(outs, graph.outvars, p_out)]
        return _tree.tree_unflatten(out_tree, fresh_leaves(outs, t_leaves + kept))

    kept = leaves + graph_arrays(graph)  # what the caller holds or f_jvp reads
    p_out = fresh_leaves([_as_array(o) for o in p_out], kept)
    return _tree.tree_unflatten(out_tree, p_out), f_jvp


class ArgnumsOutOfRangeError(TypeError, ValueError):
    """argnums names a positional argument the call did not pass. A TypeError as JAX raises
    for too few positional arguments (a call-signature error), and a ValueError as fungrad
    raised before."""


def _normalize_argnums(f, argnums, nargs, transform="grad"):
    single = isinstance(argnums, (int, np.integer))
    nums = (argnums,) if single else tuple(argnums)
    for n in nums:
        if not isinstance(n, (int, np.integer)) or not -nargs <= n < nargs:
            raise ArgnumsOutOfRangeError(
                f"{transform}({_fun_name(f)}): argnums={argnums!r} is out of range for a "
                f"call with {nargs} positional argument(s)")
    return single, tuple(int(n) % nargs for n in nums)


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False) -> Callable:
    """`(f(*args), gradient)` for scalar-output `f`; with `has_aux`: `((value, aux), grad)`.

    Complex inputs follow JAX: for real `f` the gradient is df/dx - i df/dy; a complex output
    needs `holomorphic=True` (complex inputs), which gives the complex derivative f'(z).

    Example:
        >>> fg.value_and_grad(lambda x: x ** 2)(3.0)
        (array(9.), array(6.))
    """
    name = _fun_name(f)

    def value_and_grad_f(*args, **kwargs):
        single, nums, leaves, in_tree = diff_leaves("grad", f, args, argnums)
        if holomorphic:
            check_holomorphic_inputs("grad", f, leaves)

        def flat_fun(ins):
            new_args = list(args)
            for i, a in zip(nums, _tree.tree_unflatten(in_tree, ins)):
                new_args[i] = a
            out = f(*new_args, **kwargs)
            aux = None
            if has_aux:
                out, aux = _split_aux(f, out)
            _check_scalar_output(name, out, has_aux)
            check_output_kind("grad", name, aval_of(out), holomorphic)
            return [out], aux

        (out,), graph, aux = linearize_flat(flat_fun, leaves, has_aux)
        seed = _seed_one(out)
        cts = backward_pass(graph, [seed], consume=True)  # used once: free residuals early
        grads = [_as_array(c) if c is not None else _zeros_for(v.aval, p)
                 for c, v, p in zip(cts, graph.invars, leaves)]
        others = [a for i, a in enumerate(args) if i not in nums]
        ins = leaves + _tree.tree_leaves((others, kwargs)) if others or kwargs else leaves
        grads = fresh_leaves(grads + [_as_array(out)], ins)
        out = grads.pop()
        g = _tree.tree_unflatten(in_tree, grads)
        g = g[0] if single else g
        return ((out, fresh_tree(aux, ins + grads + [out])), g) if has_aux else (out, g)

    value_and_grad_f.__name__ = f"value_and_grad({name})"
    return value_and_grad_f


def _describe_output(out) -> str | None:
    """'f64[3]' for an array-like output, 'a tuple of 2 values (f64[], f64[3])' for a
    container; None if it is a float scalar."""
    if isinstance(out, Tracer) or hasattr(out, "dtype") or type(out) in (float, int, bool,
                                                                            complex):
        a = aval_of(out)
        return None if a.shape == () and is_float(a.dtype) else a.str_short()
    leaves, treedef = _tree.tree_flatten(out)
    kinds = ", ".join(aval_of(_as_array(x)).str_short() for x in leaves[:6])
    more = ", ..." if len(leaves) > 6 else ""
    return (f"a {type(out).__name__} of {len(leaves)} value(s) ({kinds}{more}; structure "
            f"{treedef})")


def _check_scalar_output(name, out, has_aux):
    desc = _describe_output(out)
    if desc is None:
        return
    pair = isinstance(out, (tuple, list)) and len(out) == 2 and not has_aux
    raise NonScalarOutputError(
        f"grad({name}) needs {name} to return a float scalar (shape ()), but it returned "
        f"{desc}. Reduce the output to a scalar (e.g. .sum() or fnp.mean), or use fg.vjp or "
        "fg.jacrev for non-scalar outputs"
        + ("; if the second value is auxiliary data, pass has_aux=True." if pair else "."))


def diff_leaves(transform, f, args, argnums):
    """The float leaves of the arguments `argnums` selects, with their structure.

    Returns (single, nums, leaves, in_tree); an integer leaf raises an error naming the
    transform, the function and the argument.
    """
    single, nums = _normalize_argnums(f, argnums, len(args), transform)
    leaves, in_tree = _tree.tree_flatten(tuple(args[i] for i in nums))
    leaves = [_as_primal(x) for x in leaves]
    for x in leaves:
        if not is_float(aval_of(x).dtype):
            for i in nums:
                for y in _tree.tree_leaves(args[i]):
                    dt = aval_of(_as_array(y)).dtype
                    if not is_float(dt):
                        raise TypeError(
                            f"{transform}({_fun_name(f)}) requires float (inexact) inputs, but "
                            f"argument {i} has dtype {dt}. Differentiate with respect to float "
                            "arrays (e.g. x.astype(float)), or use fg.vjp for integer inputs.")
    return single, nums, leaves, in_tree


def check_holomorphic_inputs(transform, f, leaves):
    """holomorphic=True differentiates complex functions of complex inputs only."""
    for i, x in enumerate(leaves):
        dt = aval_of(x).dtype
        if dt.kind != "c":
            raise TypeError(
                f"{transform}({_fun_name(f)}, holomorphic=True) requires complex inputs, but "
                f"input leaf {i} has dtype {dt}. Pass complex arrays (e.g. x.astype(complex)), "
                "or drop holomorphic=True for a real-valued function.")


def check_output_kind(transform, name, aval, holomorphic):
    """A complex output needs holomorphic=True (and holomorphic=True a complex output)."""
    is_complex = aval.dtype.kind == "c"
    if is_complex and not holomorphic:
        raise TypeError(
            f"{transform}({name}) requires {name} to return a real value, but it returned "
            f"complex {aval.str_short()}. Pass holomorphic=True (for a holomorphic function "
            "of complex inputs), differentiate a real value such as fnp.real(out) or "
            "fnp.abs(out), or use fg.vjp for a non-holomorphic complex output.")
    if holomorphic and not is_complex:
        raise TypeError(
            f"{transform}({name}, holomorphic=True) requires {name} to return a complex "
            f"value, but it returned {aval.str_short()}. Drop holomorphic=True for a "
            "real-valued function.")


def _seed_one(out):
    a = aval_of(out)
    return array_module(out).ones((), a.dtype)


def grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False) -> Callable:
    """Gradient of a scalar-output `f` with respect to positional argument(s) `argnums`.

    Gradients have the pytree structure and dtype of the differentiated argument. For a
    real `f` of complex z it is df/dx - i df/dy (JAX's convention: grad(|z|**2) = 2 conj(z));
    `holomorphic=True` differentiates a complex `f` of complex z, giving f'(z).

    Example:
        >>> fg.grad(lambda x: (3 * x + 2) ** 2)(1.0)
        array(30.)
        >>> fg.grad(lambda z: z ** 3, holomorphic=True)(1j)
        array(-3.+0.j)
    """
    vg = value_and_grad(f, argnums, has_aux, holomorphic)

    def grad_f(*args, **kwargs):
        v, g = vg(*args, **kwargs)
        return (g, v[1]) if has_aux else g

    grad_f.__name__ = f"grad({_fun_name(f)})"
    return grad_f
