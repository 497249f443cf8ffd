"""Optimizations on the IR: pure functions from a `Graph` to a smaller, equivalent `Graph`.

`optimize` runs, to a fixed point: constant folding, algebraic simplification (x*1, x+0, broadcasts NumPy does itself,
adds of all-zero constants left by symbolic zeros, transpose of transpose, reshape chains,
no-op shape ops and casts, a sum over broadcast dims), common-subexpression elimination and
dead-code elimination. Each pass walks the equations once, rewriting through a substitution
map `subst: Var -> atom` so later equations read the replacement.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import is_inexact
from ..core.ir import Eqn, Graph, Literal, ShapedArray, Var
from ..core.trace import Tracer

# folding materializes a constant; past this many elements it is left to run time
_FOLD_MAX_SIZE = 1 << 16


def _read(subst, v):
    while type(v) is Var and v in subst:
        v = subst[v]
    return v


def _is_scalar_const(v, value) -> bool:
    """A Literal equal to the Python/0-d constant `value` everywhere (a weak scalar or a 0-d
    array): multiplying or adding it changes neither values nor dtype of an array operand."""
    if type(v) is not Literal:
        return False
    x = v.value
    if type(x) in (int, float):
        return x == value
    return False


def _is_zero_array(v) -> bool:
    if type(v) is not Literal or isinstance(v.value, Tracer):
        return False
    x = v.value
    return (type(x) is np.ndarray and is_inexact(x.dtype) and x.size <= _FOLD_MAX_SIZE
            and not x.any())


def _foldable(eqn) -> bool:
    for v in eqn.inputs:
        if type(v) is not Literal or isinstance(v.value, Tracer):
            return False
    return not eqn.prim.multiple_results and all(
        o.aval.size <= _FOLD_MAX_SIZE for o in eqn.outputs)


def _broadcast_source(v, producers):
    """An atom that NumPy's own broadcasting turns into `v`, or None: the operand of a
    broadcast_in_dim onto trailing dims (bias vectors, 0-d values), or one scalar for a
    constant array whose elements are all equal. Dtypes agree (elementwise operands do)."""
    if type(v) is Var:
        prev = producers.get(v)
        if prev is None or prev.prim.name != "broadcast_in_dim":
            return None
        src = prev.inputs[0]
        shape, dims = prev.params["shape"], prev.params["broadcast_dimensions"]
        nd, n = len(src.aval.shape), len(shape)
        if src.aval.dtype != v.aval.dtype:
            return None
        if tuple(dims) == tuple(range(n - nd, n)):
            return src
        # other dims: a reshape that puts 1s where the broadcast adds dims, then NumPy's
        # broadcasting (the reshape is a view; chains of them fold away)
        xp_shape = [1] * n
        for i, d in enumerate(dims):
            xp_shape[d] = src.aval.shape[i]
        return ("reshape", src, tuple(xp_shape))
    x = v.value
    if type(x) is np.ndarray and x.ndim and x.size and (not any(x.strides) or (
            x.size <= _FOLD_MAX_SIZE and (x == x.flat[0]).all())):
        return Literal(x.flat[0].item())  # a weak Python scalar of the same value
    return None


def _scalar_operands(eqn, ins, producers):
    """Elementwise ops read broadcast operands before the broadcast: NumPy broadcasts them
    for free (the op keeps a full-shaped operand, so its output shape is unchanged)."""
    oa = eqn.outputs[0].aval
    if not oa.shape or len(ins) < 2:
        return None
    new = list(ins)
    before = []  # reshape equations the rewritten equation reads
    for k, v in enumerate(ins):
        s = _broadcast_source(v, producers)
        if s is not None and any(j != k and type(u) is Var and u.aval.shape == oa.shape
                                 for j, u in enumerate(new)):
            if type(s) is tuple:
                from ..lax.shape import reshape_p  # (lax imports jit, which imports us)
                _, src, xp_shape = s
                r = Var(ShapedArray(xp_shape, src.aval.dtype))
                before.append(Eqn(reshape_p, [src], {"new_sizes": xp_shape}, [r], eqn.source))
                s = r
            new[k] = s
    if all(a is b for a, b in zip(new, ins)):
        return None
    return before + [Eqn(eqn.prim, new, eqn.params, eqn.outputs, eqn.source)]


def _simplify(eqn, ins, producers):
    """An atom equal to the equation's output, or a replacement Eqn, or None (keep as is)."""
    name = eqn.prim.name
    out = eqn.outputs[0]
    oa = out.aval
    p = eqn.params
    if eqn.prim.accepts_out == "inplace":
        rep = _scalar_operands(eqn, ins, producers)
        if rep is not None:
            return rep

    def same(v):  # v can stand for the output: same shape and dtype
        return v.aval.shape == oa.shape and v.aval.dtype == oa.dtype and not (
            type(v) is Literal and v.aval.weak_type)

    if name == "mul":
        a, b = ins
        if _is_scalar_const(b, 1) and same(a):
            return a
        if _is_scalar_const(a, 1) and same(b):
            return b
    elif name in ("add", "sub"):
        a, b = ins
        if (_is_scalar_const(b, 0) or _is_zero_array(b)) and same(a):
            return a
        if name == "add" and (_is_scalar_const(a, 0) or _is_zero_array(a)) and same(b):
            return b
    elif name == "div":
        a, b = ins
        if _is_scalar_const(b, 1) and same(a):
            return a
    elif name == "neg":
        prev = producers.get(ins[0])
        if prev is not None and prev.prim.name == "neg":
            return prev.inputs[0]
    elif name == "convert_element_type":
        if same(ins[0]):
            return ins[0]
    elif name == "transpose":
        perm = p["permutation"]
        if list(perm) == list(range(len(perm))):
            return ins[0]
        prev = producers.get(ins[0])
        if prev is not None and prev.prim.name == "transpose":
            inner = prev.params["permutation"]
            composed = tuple(inner[i] for i in perm)
            if list(composed) == list(range(len(composed))):
                return prev.inputs[0]
            return Eqn(eqn.prim, [prev.inputs[0]], {"permutation": composed}, eqn.outputs,
                       eqn.source)
    elif name == "reshape":
        if same(ins[0]):
            return ins[0]
        prev = producers.get(ins[0])
        if prev is not None and prev.prim.name == "reshape":
            if same(prev.inputs[0]):
                return prev.inputs[0]
            return Eqn(eqn.prim, [prev.inputs[0]], dict(p), eqn.outputs, eqn.source)
    elif name == "broadcast_in_dim":
        if same(ins[0]) and list(p["broadcast_dimensions"]) == list(range(len(oa.shape))):
            return ins[0]
    elif name in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
        if not p["axes"] and same(ins[0]):
            return ins[0]
        if name == "reduce_sum":
            return _sum_of_broadcast(eqn, ins, producers)
    return None


def _sum_of_broadcast(eqn, ins, producers):
    """sum(broadcast_in_dim(x), axes) over exactly the added dims = x * (their size)."""
    prev = producers.get(ins[0])
    if prev is None or prev.prim.name != "broadcast_in_dim":
        return None
    x = prev.inputs[0]
    shape, bdims = prev.params["shape"], prev.params["broadcast_dimensions"]
    axes = eqn.params["axes"]
    added = [d for d in range(len(shape)) if d not in bdims]
    if sorted(axes) != added or x.aval.shape != eqn.outputs[0].aval.shape or (
            x.aval.dtype != eqn.outputs[0].aval.dtype or not is_inexact(x.aval.dtype)):
        return None
    n = 1
    for d in added:
        n *= shape[d]
    from ..lax.elementwise import mul_p
    return Eqn(mul_p, [x, Literal(float(n))], {}, eqn.outputs, eqn.source)


def _params_key(params):
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def _atom_key(v):
    if type(v) is Var:
        return v
    x = v.value
    if type(x) in (int, float, bool, complex):
        return (type(x), x)
    return ("id", id(x))


def simplify_graph(graph: Graph) -> tuple[Graph, bool]:
    """One pass of folding, simplification and CSE; returns (graph, changed)."""
    subst: dict = {}
    producers: dict = {}
    seen: dict = {}
    eqns = []
    changed = False
    for eqn in graph.eqns:
        ins = [_read(subst, v) for v in eqn.inputs]
        if any(a is not b for a, b in zip(ins, eqn.inputs)):
            eqn = Eqn(eqn.prim, ins, eqn.params, eqn.outputs, eqn.source)
        if _foldable(eqn):
            value = eqn.prim.impl(*[v.value for v in ins], **eqn.params)
            out_dtype = eqn.outputs[0].aval.dtype
            if type(value) is np.ndarray and value.dtype != out_dtype:
                value = value.astype(out_dtype)  # NumPy computes bfloat16 + 1.0 in float32
            if type(value) is np.ndarray and value.size > 1 and (value == value.flat[0]).all():
                # a constant with one value is kept as a broadcast view (no memory)
                value = np.broadcast_to(value.flat[0], value.shape)
            subst[eqn.outputs[0]] = Literal(value, eqn.outputs[0].aval)
            changed = True
            continue
        if not eqn.prim.multiple_results:
            rep = _simplify(eqn, ins, producers)
            if type(rep) is list:  # new equations first (recorded as they are), then `eqn`
                for e in rep[:-1]:
                    producers[e.outputs[0]] = e
                    eqns.append(e)
                rep = rep[-1]
            if rep is not None:
                changed = True
                if type(rep) is Eqn:
                    eqn = rep
                    ins = eqn.inputs
                else:
                    subst[eqn.outputs[0]] = rep
                    continue
        pk = _params_key(eqn.params)
        if pk is not None:
            key = (eqn.prim, pk, tuple(_atom_key(v) for v in ins))
            prev = seen.get(key)
            if prev is not None:
                for o, po in zip(eqn.outputs, prev.outputs):
                    subst[o] = po
                changed = True
                continue
            seen[key] = eqn
        for o in eqn.outputs:
            producers[o] = eqn
        eqns.append(eqn)
    outvars = [_read(subst, v) for v in graph.outvars]
    return Graph(graph.invars, eqns, outvars), changed


def dce(graph: Graph) -> Graph:
    """Drop equations none of whose outputs is used (every primitive is pure)."""
    live = {v for v in graph.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(graph.eqns):
        if any(o in live for o in eqn.outputs):
            kept.append(eqn)
            live.update(v for v in eqn.inputs if type(v) is Var)
    kept.reverse()
    return Graph(graph.invars, kept, graph.outvars)


def optimize(graph: Graph, max_rounds: int = 4) -> Graph:
    """All passes, repeated while they still change something (a few rounds at most)."""
    for _ in range(max_rounds):
        graph, changed = simplify_graph(graph)
        graph = dce(graph)
        if not changed:
            break
    return graph
