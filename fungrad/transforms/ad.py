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

from ..core.ir import Eqn, Graph, Literal, Var, aval_of
from ..core.primitive import MINUS_ONE, ONE
from ..core.trace import Trace, Tracer, new_trace
from .staging import StagingTrace, StagingTracer, eval_graph
from .. import tree as _tree
from ..backend import array_module


class Zero:
    """The symbolic zero tangent / cotangent."""
    __slots__ = ()

    def __repr__(self):
        return "ZERO"


ZERO = Zero()

# dtype of cotangents for integer/bool inputs, as in JAX: an empty structured dtype
float0 = np.dtype([("float0", np.void, 0)])


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

    def to_concrete(self):
        p = self.primal
        return p.to_concrete() if isinstance(p, Tracer) else p


class JVPTrace(Trace):
    __slots__ = ()

    def process_primitive(self, prim, args, params):
        primals = []
        tangents = []
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                tangents.append(a.tangent)
            else:
                primals.append(a)
                tangents.append(ZERO)
        rule = prim.jvp
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
        out, t_out = rule(primals, tangents, **params)
        if prim.multiple_results:
            return [o if t is ZERO else JVPTracer(self, o, t) for o, t in zip(out, t_out)]
        if t_out is ZERO:
            return out
        return JVPTracer(self, out, t_out)


class LinearizeTrace(JVPTrace):
    """JVP whose tangents are `StagingTracer`s of `lin` (reverse mode's forward pass).

    Elementwise primitives (those with `coefficients`) take a shortcut that records the
    same linear equations the traced JVP rule would (`t * c`, `neg t`, `add`), without
    binding them through the staging trace: this is the hot path of eager `grad`.
    """
    __slots__ = ("lin",)
    # the linear primitives the shortcut records; set once by lax.elementwise
    mul_p = add_p = neg_p = None

    def __init__(self, lin):
        super().__init__()
        self.lin = lin

    def process_primitive(self, prim, args, params):
        coefficients = prim.coefficients
        if coefficients is None:
            return JVPTrace.process_primitive(self, prim, args, params)
        lin = self.lin
        primals = []
        tvars = []
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                t = a.tangent
                if type(t) is not StagingTracer or t._trace is not lin:
                    return JVPTrace.process_primitive(self, prim, args, params)
                primals.append(a.primal)
                tvars.append(t.var)
            else:
                primals.append(a)
                tvars.append(None)
        z = prim.bind(*primals)
        eqns = lin.eqns
        out = None
        for c, v in zip(coefficients, tvars):
            if v is None:
                continue
            if c is not ONE:
                w = Var(v.aval)
                if c is MINUS_ONE:
                    eqns.append(Eqn(self.neg_p, [v], {}, [w]))
                else:
                    eqns.append(Eqn(self.mul_p, [v, Literal(c(*primals, z))], {}, [w]))
                v = w
            if out is None:
                out = v
            else:
                w = Var(v.aval)
                eqns.append(Eqn(self.add_p, [out, v], {}, [w]))
                out = w
        return JVPTracer(self, z, StagingTracer(lin, out))


# ----------------------------------------------------------------------------- helpers

def is_float(dtype) -> bool:
    """Float or complex (bfloat16 and other ml_dtypes floats have kind 'V' but a float name)."""
    k = dtype.kind
    return k == "f" or k == "c" or (k == "V" and "float" in dtype.name)


def _as_array(x):
    """Transform inputs and outputs are arrays: Python/NumPy scalars become 0-d arrays."""
    if isinstance(x, Tracer) or type(x) is np.ndarray:
        return x
    if isinstance(x, np.generic) or type(x) in (float, int, bool, complex):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x  # e.g. a CuPy array


def _zeros_for(aval, like=None):
    xp = array_module(like)
    if not is_float(aval.dtype):
        return np.zeros(aval.shape, float0)
    return xp.zeros(aval.shape, aval.dtype)


add_any = None  # cotangent accumulation: lax.elementwise sets it to `add` (it imports us)


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

    def flat_fun(ins):
        out = f(*_tree.tree_unflatten(p_tree, ins))
        return _split_aux(f, out) if has_aux else (out, None)
    out_tree, p_out, t_out, aux = jvp_flat(flat_fun, p_leaves, t_leaves, _fun_name(f))
    res = (_tree.tree_unflatten(out_tree, p_out), _tree.tree_unflatten(out_tree, t_out))
    return res + (aux,) if has_aux else res


def jvp_flat(fun, p_leaves, t_leaves, name):
    """Forward mode on flat leaves: `fun(leaves) -> (output pytree, aux or None)`.

    Returns (out_tree, primal output leaves, tangent output leaves, aux without tracers).
    """
    trace = JVPTrace()
    with new_trace(trace):
        ins = []
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            p = _as_array(p)
            t = _as_array(t)
            pa, ta = aval_of(p), aval_of(t)
            if is_float(pa.dtype):
                if pa.shape != ta.shape or pa.dtype != ta.dtype:
                    raise ValueError(
                        f"jvp({name}): tangent {i} must match its primal's shape and "
                        f"dtype: primal is {pa.str_short()}, tangent is {ta.str_short()}")
                ins.append(JVPTracer(trace, p, t))
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
            p_out.append(o)
            t_out.append(ZERO)
    return p_out, t_out


def _split_aux(f, out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{_fun_name(f)} was transformed with has_aux=True, so it must return "
                        f"a pair (output, aux), but it returned {type(out).__name__}")
    return out[0], out[1]


def _strip(tree, trace):
    """Aux outputs carry no derivative: replace our tracers by their primal values."""
    def strip(x):
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
    jt = LinearizeTrace(lin)
    with new_trace(lin), new_trace(jt):
        invars = []
        ins = []
        for p in primals:
            v = Var(aval_of(p))
            invars.append(v)
            ins.append(JVPTracer(jt, p, StagingTracer(lin, v)) if is_float(v.aval.dtype) else p)
        outs, aux = fun(ins)
        p_out = []
        outvars = []
        for o in outs:
            if type(o) is JVPTracer and o._trace is jt:
                p_out.append(o.primal)
                t = o.tangent
                outvars.append(t.var if type(t) is StagingTracer and t._trace is lin
                               else Literal(t, aval_of(t)))
            else:
                p_out.append(o)
                outvars.append(None)
        if has_aux:
            aux = _strip(aux, jt)
    return p_out, Graph(invars, lin.eqns, outvars), aux


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


def _check_cotangent(f, i, ct, aval):
    ca = aval_of(ct)
    if ca.shape != aval.shape:
        raise ValueError(f"vjp({_fun_name(f)}): cotangent for output {i} has shape "
                         f"{ca.shape}, but the output has shape {aval.shape}")


def vjp(f: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """Reverse mode: `(f(*primals), vjp_fn)`; `vjp_fn(ct)` returns one cotangent per primal.

    `vjp_fn` may be called many times (the linearized graph is kept).

    Example:
        >>> y, f_vjp = fg.vjp(fnp.sin, 0.0)
        >>> f_vjp(1.0)
        (array(1.),)
    """
    leaves, in_tree = _tree.tree_flatten(primals)
    leaves = [_as_array(x) for x in leaves]
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
        ct_leaves = [_as_array(c) for c in ct_leaves]
        for i, (c, a) in enumerate(zip(ct_leaves, out_avals)):
            _check_cotangent(f, i, c, a)
        cts = backward_pass(graph, ct_leaves)
        cts = [_as_array(c) if c is not None else _zeros_for(v.aval, p)
               for c, v, p in zip(cts, graph.invars, leaves)]
        return tuple(_tree.tree_unflatten(in_tree, cts))

    out = _tree.tree_unflatten(out_tree, [_as_array(o) for o in p_out])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def linearize(f: Callable, *primals: Any) -> tuple:
    """`(f(*primals), f_jvp)` where `f_jvp(*tangents)` evaluates the linearized function.

    Example:
        >>> y, f_jvp = fg.linearize(fnp.sin, 0.0)
        >>> f_jvp(2.0)
        array(2.)
    """
    leaves, in_tree = _tree.tree_flatten(primals)
    leaves = [_as_array(x) for x in leaves]
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
        outs = eval_graph(live, [_as_array(t) for t in t_leaves])
        outs = [_as_array(o) if v is not None else _zeros_for(aval_of(p), p)
                for o, v, p in zip(outs, graph.outvars, p_out)]
        return _tree.tree_unflatten(out_tree, outs)

    return _tree.tree_unflatten(out_tree, [_as_array(o) for o in p_out]), f_jvp


def _normalize_argnums(f, argnums, nargs):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for n in nums:
        if not isinstance(n, int) or not -nargs <= n < nargs:
            raise ValueError(f"grad({_fun_name(f)}): argnums={argnums!r} is out of range for "
                             f"a call with {nargs} positional argument(s)")
    return single, tuple(n % nargs for n in nums)


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable:
    """`(f(*args), gradient)` for scalar-output `f`; with `has_aux`: `((value, aux), grad)`.

    Example:
        >>> fg.value_and_grad(lambda x: x ** 2)(3.0)
        (array(9.), array(6.))
    """
    name = _fun_name(f)

    def value_and_grad_f(*args, **kwargs):
        single, nums, leaves, in_tree = diff_leaves("grad", f, args, argnums)

        def flat_fun(ins):
            new_args = list(args)
            for i, a in zip(nums, _tree.tree_unflatten(in_tree, ins)):
                new_args[i] = a
            out = f(*new_args, **kwargs)
            aux = None
            if has_aux:
                out, aux = _split_aux(f, out)
            a = aval_of(out)
            if a.shape != () or not is_float(a.dtype):
                raise TypeError(
                    f"grad({name}) requires {name} to return a float scalar (shape ()), but it "
                    f"returned {a.str_short()}. Use fg.vjp or fg.jacrev for non-scalar outputs, "
                    "or reduce the output (e.g. .sum()).")
            return [out], aux

        (out,), graph, aux = linearize_flat(flat_fun, leaves, has_aux)
        seed = _seed_one(out)
        cts = backward_pass(graph, [seed], consume=True)  # used once: free residuals early
        grads = [_as_array(c) if c is not None else _zeros_for(v.aval, p)
                 for c, v, p in zip(cts, graph.invars, leaves)]
        g = _tree.tree_unflatten(in_tree, grads)
        g = g[0] if single else g
        out = _as_array(out)
        return ((out, aux), g) if has_aux else (out, g)

    value_and_grad_f.__name__ = f"value_and_grad({name})"
    return value_and_grad_f


def diff_leaves(transform, f, args, argnums):
    """The float leaves of the arguments `argnums` selects, with their structure.

    Returns (single, nums, leaves, in_tree); an integer leaf raises an error naming the
    transform, the function and the argument.
    """
    single, nums = _normalize_argnums(f, argnums, len(args))
    leaves, in_tree = _tree.tree_flatten(tuple(args[i] for i in nums))
    leaves = [_as_array(x) for x in leaves]
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


def _seed_one(out):
    a = aval_of(out)
    return array_module(out).ones((), a.dtype)


def grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """Gradient of a scalar-output `f` with respect to positional argument(s) `argnums`.

    Gradients have the pytree structure and dtype of the differentiated argument.

    Example:
        >>> fg.grad(lambda x: (3 * x + 2) ** 2)(1.0)
        array(30.)
    """
    vg = value_and_grad(f, argnums, has_aux)

    def grad_f(*args, **kwargs):
        v, g = vg(*args, **kwargs)
        return (g, v[1]) if has_aux else g

    grad_f.__name__ = f"grad({_fun_name(f)})"
    return grad_f
