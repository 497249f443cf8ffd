"""Optimizations on the IR: pure functions from a `Graph` to a smaller, equivalent `Graph`.

`optimize` first inlines equations that hold a body (a checkpoint's), then runs, to a fixed point: constant folding, algebraic simplification (x*1, x+0, broadcasts NumPy does itself,
adds of all-zero constants left by symbolic zeros, transpose of transpose, reshape chains,
no-op shape ops and casts, a sum over broadcast dims), common-subexpression elimination and
dead-code elimination. Each pass walks the equations once, rewriting through a substitution
map `subst: Var -> atom` so later equations read the replacement.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.dtypes import is_inexact
from ..core.ir import Eqn, Graph, Literal, Var, has_effects
from ..core.trace import Tracer

# folding materializes a constant; past this many elements it is left to run time
_FOLD_MAX_SIZE = 1 << 16


def _read(subst, v):
    while type(v) is Var and v in subst:
        v = subst[v]
    return v


# ----------------------------------------------------------------------------- rule tables
# Filled by each primitive's module next to its other rules (the compiler never imports lax).
#
# simplify_rules[prim](eqn, ins, producers) -> None (keep), an atom equal to the output, a
#   replacement Eqn, or a list [new Eqn, ..., replacement Eqn]. `ins` are the equation's
#   operands after substitution; `producers` maps a Var to the Eqn that defined it.
# broadcast_sources[prim](eqn) -> (eqns, atom) or None: for an equation that only broadcasts,
#   an atom that NumPy's own broadcasting turns into its output (with equations that compute
#   it, e.g. a reshape that inserts length-1 axes): elementwise ufuncs read it instead.
# inline_rules[prim](eqn, ins) -> (eqns, atoms): equations (with fresh Vars) computing the
#   equation's outputs from `ins` (its operands after substitution), and the atoms that stand
#   for its outputs. `optimize` inlines such equations first (a checkpoint's body), so the
#   other passes and the buffer plan see one flat program.
simplify_rules: dict = {}
broadcast_sources: dict = {}
inline_rules: dict = {}


def can_stand_for(v, out) -> bool:
    """`v` can replace the output var `out`: same shape and dtype, and not a weak scalar."""
    return v.aval.shape == out.aval.shape and v.aval.dtype == out.aval.dtype and not (
        type(v) is Literal and v.aval.weak_type)


def is_scalar_const(v, value) -> bool:
    """A weak Python scalar Literal equal to `value`: multiplying or adding it changes
    neither the values nor the dtype of an array operand."""
    if type(v) is not Literal:
        return False
    x = v.value
    return type(x) in (int, float) and x == value


def is_const_array(v, value) -> bool:
    """A small constant float/complex array whose every element is `value`: the zeros that
    symbolic zeros leave behind, the ones of a gradient's seed cotangent."""
    if type(v) is not Literal or isinstance(v.value, Tracer):
        return False
    x = v.value
    return (type(x) is np.ndarray and is_inexact(x.dtype) and x.size <= _FOLD_MAX_SIZE
            and bool((x == value).all()))


def _foldable(eqn) -> bool:
    for v in eqn.inputs:
        if type(v) is not Literal or isinstance(v.value, Tracer):
            return False
    return not eqn.prim.multiple_results and not has_effects(eqn) and all(
        o.aval.size <= _FOLD_MAX_SIZE for o in eqn.outputs)


def _broadcast_source(v, producers):
    """(eqns, atom) where NumPy's broadcasting of `atom` gives `v`, or None: the source of a
    broadcasting equation (by its primitive's rule), or one scalar for a constant array whose
    elements are all equal. Dtypes agree (elementwise operands do)."""
    if type(v) is Var:
        prev = producers.get(v)
        rule = broadcast_sources.get(prev.prim) if prev is not None else None
        return rule(prev) if rule is not None else None
    x = v.value
    if type(x) is np.ndarray and x.ndim and x.size and (not any(x.strides) or (
            x.size <= _FOLD_MAX_SIZE and (x == x.flat[0]).all())):
        return [], Literal(x.flat[0].item())  # a weak Python scalar of the same value
    return None


def _scalar_operands(eqn, ins, producers):
    """Elementwise ops read broadcast operands before the broadcast: NumPy broadcasts them
    for free (the op keeps a full-shaped operand, so its output shape is unchanged)."""
    oa = eqn.outputs[0].aval
    if not oa.shape or len(ins) < 2:
        return None
    new = list(ins)
    before = []  # equations the rewritten equation reads
    for k, v in enumerate(ins):
        found = _broadcast_source(v, producers)
        if found is not None and any(j != k and type(u) is Var and u.aval.shape == oa.shape
                                     for j, u in enumerate(new)):
            eqns, new[k] = found
            before.extend(Eqn(e.prim, e.inputs, e.params, e.outputs, eqn.source) for e in eqns)
    if all(a is b for a, b in zip(new, ins)):
        return None
    return before + [Eqn(eqn.prim, new, eqn.params, eqn.outputs, eqn.source)]


def _simplify(eqn, ins, producers):
    """An atom equal to the equation's output, or a replacement Eqn (list), or None.
    The primitive's rule first: it tells a zero array (a symbolic zero's, dropped from an
    add) from the scalar zero a user wrote (x + 0.0 is not x at -0.0), which
    `_scalar_operands` would make of it."""
    rule = simplify_rules.get(eqn.prim)
    rep = rule(eqn, ins, producers) if rule is not None else None
    if rep is None and eqn.prim.accepts_out == "inplace":
        rep = _scalar_operands(eqn, ins, producers)
    return rep


def _params_key(params):
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def zero_signs(x) -> tuple:
    """The signs of a float or complex scalar's parts: -0.0 == 0.0 with one hash, but
    copysign(x, -0.0) differs from copysign(x, 0.0). () for other values."""
    if isinstance(x, (float, np.floating)):
        return (math.copysign(1.0, x),)
    if isinstance(x, (complex, np.complexfloating)):
        return (math.copysign(1.0, x.real), math.copysign(1.0, x.imag))
    return ()


def scalar_key(x) -> tuple:
    """A dict key for the Python or NumPy scalar `x` that tells apart what `==` merges but
    an operation does not: the type (1, 1.0, True) and the zero's sign."""
    return (type(x), x) + zero_signs(x)


def _atom_key(v):
    if type(v) is Var:
        return v
    x = v.value
    if type(x) in (int, float, bool, complex):
        return scalar_key(x)
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
        pk = _params_key(eqn.params) if not has_effects(eqn) else None  # (never merged)
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
    """Drop equations none of whose outputs is used, except effectful ones (a host callback
    acts without outputs); the others are pure."""
    live = {v for v in graph.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(graph.eqns):
        if any(o in live for o in eqn.outputs) or has_effects(eqn):
            kept.append(eqn)
            live.update(v for v in eqn.inputs if type(v) is Var)
    kept.reverse()
    return Graph(graph.invars, kept, graph.outvars)


def _inline_eqns(eqns, subst, out) -> None:
    for eqn in eqns:
        ins = [_read(subst, v) for v in eqn.inputs]
        rule = inline_rules.get(eqn.prim)
        if rule is None:
            if any(a is not b for a, b in zip(ins, eqn.inputs)):
                eqn = Eqn(eqn.prim, ins, eqn.params, eqn.outputs, eqn.source)
            out.append(eqn)
            continue
        body, atoms = rule(eqn, ins)
        _inline_eqns(body, subst, out)  # (a body may hold equations to inline in turn)
        for o, a in zip(eqn.outputs, atoms):
            subst[o] = a


def body_copy(body: Graph, ins) -> tuple[list, list]:
    """An inline rule's result for `body` applied to `ins`: its equations with fresh Vars
    (one body may be inlined several times) and the atoms of its outputs."""
    env = dict(zip(body.invars, ins))
    eqns = []
    for e in body.eqns:
        outs = [Var(o.aval) for o in e.outputs]
        env.update(zip(e.outputs, outs))
        eqns.append(Eqn(e.prim, [env[v] if type(v) is Var else v for v in e.inputs], e.params,
                        outs, e.source))
    return eqns, [env[v] if type(v) is Var else v for v in body.outvars]


def inline(graph: Graph) -> Graph:
    """Replace the equations that have an `inline_rules` entry by their bodies."""
    if not any(e.prim in inline_rules for e in graph.eqns):
        return graph
    subst: dict = {}
    eqns: list = []
    _inline_eqns(graph.eqns, subst, eqns)
    return Graph(graph.invars, eqns, [_read(subst, v) for v in graph.outvars])


def optimize(graph: Graph, max_rounds: int = 4) -> Graph:
    """All passes, repeated while they still change something (a few rounds at most)."""
    graph = inline(graph)
    for _ in range(max_rounds):
        graph, changed = simplify_graph(graph)
        graph = dce(graph)
        if not changed:
            break
    return graph
