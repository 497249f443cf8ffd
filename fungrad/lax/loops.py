"""Loops: `scan` (and `fori_loop` / `map` on it), one primitive holding its body as an IR graph.

`scan(*consts, *init, *xs, body=Body, length, reverse, unroll)` runs `body.graph`,
(consts, carry, x) -> (carry, y), `length` times, slicing `xs` along axis 0 and stacking
the `y`s. `consts` are the values of outer transforms the body closes over (lifted when it
is staged), so every transform sees them as operands. Rules:

- impl / jit emit: a generated Python `for` loop (`Body.runner`) around the compiled body
  (`jit`'s `Call`), writing each `y` into a preallocated stacked array; jit calls that loop.
- JVP: a scan of the body's JVP graph. Which carry tangents are nonzero is a fixed point
  (a carry whose tangent is zero on entry may get one from a const or an x); zero tangents
  of those carries are instantiated.
- Reverse mode: partial evaluation of the body (`_split_body`, a fixed point on which
  carries are unknown). The known scan computes the primal carries/ys and per-iteration
  residuals, stacked like ys; residuals that are the body's consts or xs are passed as
  they are, and loop-invariant ones (computed from consts only) leave the known scan as
  extra carries instead of being stacked. The linear scan is transposed into a scan in the
  opposite order over the stacked residuals; the cotangents of its linear consts are
  accumulated in carries. `partial_eval_rules[scan_p]` splits a scan equation that mixes
  primal and tangent values (a scan's JVP inside jit, or nested in another scan).
- Batching: consts and xs batched (xs at axis 1: axis 0 is the loop's); which carries are
  batched is a fixed point.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from ..backend import array_module, asarray
from ..compiler.codegen import define_function
from ..config import config
from ..core.ad_util import ZERO, add_any
from ..core import dtypes
from ..core.check import check_graph
from ..core.ir import (Eqn, Graph, HeldGraph, HeldGraphs, Literal, ShapedArray, Var,
                       aval_of, held_graphs_have_effects)
from ..core.trace import Tracer
from .debug import GraphHoldingPrimitive
from ..transforms.ad import backward_pass
from ..transforms.fresh import fresh_leaves, graph_arrays
from ..transforms.jit import jvp_graph_fun
from ..transforms.partial_eval import partial_eval_graph, partial_eval_rules
from ..transforms.staging import StagingTracer, eval_graph
from .. import tree as _tree
from .control_flow import _batched_graph, _stage, _stage_closed, _zero_literal
from .shape import bdim_at_front, broadcast_in_dim, concatenate, moveaxis, reshape

_counter = itertools.count()


class Body(HeldGraph):
    """The body graph of one `scan` equation (its `body` parameter): invars are
    consts + carry + x (one iteration's slice), outvars carry + y; plus graphs and code
    derived from it (JVP, partial evaluation, transposition, batching, the loop), made once."""
    __slots__ = ("n_consts", "n_carry", "__weakref__")

    def __init__(self, graph: Graph, n_consts: int, n_carry: int):
        super().__init__(graph)
        self.n_consts = n_consts
        self.n_carry = n_carry
        if config.check_graphs:
            check_graph(graph, where="scan body")

    def with_graphs(self, graphs) -> "Body":
        return Body(graphs[0], self.n_consts, self.n_carry)

    @property
    def n_xs(self) -> int:
        return len(self.graph.invars) - self.n_consts - self.n_carry

    def __repr__(self):
        return (f"Body(consts={self.n_consts}, carry={self.n_carry}, "
                + str(self.graph).replace("\n", "\n  ") + ")")


def _strong(a: ShapedArray) -> ShapedArray:
    return ShapedArray(a.shape, a.dtype) if a.weak_type else a


def _with_io(graph: Graph, invars, outvars=None) -> Graph:
    return Graph(list(invars), graph.eqns, graph.outvars if outvars is None else list(outvars))


# ----------------------------------------------------------------------------- the loop
def _loop_source(body: Body, length: int, reverse: bool, name: str, k: int = 1) -> str:
    """A function (consts, carry, xs) -> (carry, stacked ys): a Python `for` over `body`.
    With `k > 1` the loop steps by chunks of `k` iterations, each one call of `body_k` (the
    body unrolled `k` times, compiled as one function), and runs the remainder with `body`."""
    nc, nh, nx = body.n_consts, body.n_carry, body.n_xs
    cs = [f"c{i}" for i in range(nc)]
    hs = [f"h{i}" for i in range(nh)]
    xs = [f"x{i}" for i in range(nx)]
    y_avals = body.out_avals[nh:]
    ys = [f"y{j}" for j in range(len(y_avals))]
    lines = [f"def {name}({', '.join(cs + hs + xs)}):"]
    if length == 0:  # (no iteration: the carry comes back as a fresh copy)
        lines += [f"    {h} = np.array({h})" for h in hs]
    for y, a in zip(ys, y_avals):
        lines.append(f"    {y} = np.empty({(length,) + tuple(a.shape)!r}, dtype_{y})")
    rest = length % k
    chunked = length - rest  # iterations run by body_k: [0, chunked) or, reversed, [rest, n)
    if chunked:
        order = (f"range({length - k}, {rest - 1}, {-k})" if reverse
                 else f"range(0, {chunked}, {k})" if k > 1 else f"range({length})")
        at = ["i"] + [f"i + {j}" for j in range(1, k)]
        lines.append(f"    for i in {order}:")
        lines += _step_lines("body_k" if k > 1 else "body", cs + hs + [f"{x}[{a}]" for a in at for x in xs], hs,
                             [(f"{y}[{a}]", f"t{j}_{m}") for m, a in enumerate(at)
                              for j, y in enumerate(ys)])
    if rest:
        lo, hi = (0, rest) if reverse else (chunked, length)
        order = f"range({hi - 1}, {lo - 1}, -1)" if reverse else f"range({lo}, {hi})"
        lines.append(f"    for i in {order}:")
        lines += _step_lines("body", cs + hs + [x + "[i]" for x in xs], hs,
                             [(f"{y}[i]", f"t{j}") for j, y in enumerate(ys)])
    lines.append(f"    return ({''.join(v + ', ' for v in hs + ys)})")
    return "\n".join(lines) + "\n"


def _step_lines(fn: str, args: list, hs: list, stores: list) -> list:
    """`hs..., ts... = fn(args)` then `y[..] = t` for each (y[..], t) of `stores`."""
    lhs = hs + [t for _, t in stores]
    call = f"{fn}({', '.join(args)})"
    lines = [f"        {', '.join(lhs)}{',' if len(lhs) == 1 else ''} = {call}" if lhs
             else f"        {call}"]
    return lines + [f"        {y} = {t}" for y, t in stores]


def _unrolled_graph(body: Body, k: int, reverse: bool) -> Graph:
    """`k` iterations of `body` as one graph: (consts, carry, the xs of iteration 0, ..., of
    iteration k-1) -> (carry, the ys of iteration 0, ..., k-1); `reverse` runs iteration
    k-1 first."""
    nc, nh, nx = body.n_consts, body.n_carry, body.n_xs
    avals = body.in_avals

    def fun(*args):
        consts, carry, xs = list(args[:nc]), list(args[nc:nc + nh]), args[nc + nh:]
        ys: list = [None] * k
        for m in (range(k - 1, -1, -1) if reverse else range(k)):
            outs = eval_graph(body.graph, consts + carry + list(xs[m * nx:(m + 1) * nx]))
            carry, ys[m] = list(outs[:nh]), list(outs[nh:])
        return carry + [y for ys_m in ys for y in ys_m]
    return _stage_closed(fun, avals[:nc + nh] + avals[nc + nh:] * k)


def _unroll_factor(unroll, length: int) -> int:
    """JAX's `unroll`: an int k >= 1 (iterations per compiled step), True (all of them)."""
    if unroll is True:
        return max(length, 1)
    return max(1, min(int(unroll), max(length, 1)))


def _make_loop(body: Body, length: int, reverse: bool, unroll=1, xp=np):
    """The generated loop for `body` on `xp`'s arrays (NumPy or CuPy; its source is the
    function's `.source`)."""
    from ..transforms.jit import compiled_for
    fn = compiled_for(body, "compiled", body.graph, "scan_body", xp)
    k = _unroll_factor(unroll, length)
    name = f"scan_loop_{next(_counter)}"
    source = _loop_source(body, length, reverse, name, k)
    namespace = {"np": xp, "body": fn}
    if k > 1:
        namespace["body_k"] = compiled_for(body, ("unrolled", k, reverse),
                                           _unrolled_graph(body, k, reverse), f"scan_body_x{k}",
                                           xp)
    for j, a in enumerate(body.out_avals[body.n_carry:]):
        namespace[f"dtype_y{j}"] = a.dtype
    loop = define_function(source, name, namespace, f"<fungrad.jit {name}>")
    loop.source = source
    return loop


def _loop(body: Body, length: int, reverse: bool, unroll=1, xp=np):
    return body.derived(("loop", length, reverse, unroll, xp.__name__),
                        lambda: _make_loop(body, length, reverse, unroll, xp))


# ----------------------------------------------------------------------------- the primitive
def _scan_aval(*avals, body, length, reverse, unroll):
    nc, nh = body.n_consts, body.n_carry
    want = body.in_avals
    if len(avals) != len(want):
        raise TypeError(f"scan: {len(avals)} operands for a body of {len(want)} inputs")
    for k, (a, w) in enumerate(zip(avals, want)):
        shape = a.shape
        if k >= nc + nh:
            if shape[:1] != (length,):
                raise TypeError(f"scan: xs operand {k - nc - nh} is {a.str_short()}, but the "
                                f"loop has length {length}")
            shape = shape[1:]
        if shape != w.shape or a.dtype != w.dtype:
            raise TypeError(f"scan: operand {k} is {a.str_short()} but the body takes "
                            f"{w.str_short()}")
    outs = [_strong(a) for a in body.out_avals]
    return outs[:nh] + [ShapedArray((length,) + a.shape, a.dtype) for a in outs[nh:]]


def _scan_impl(*ops, body, length, reverse, unroll):
    outs = _loop(body, length, reverse, unroll, array_module(*ops))(*ops)
    return fresh_leaves(list(outs), list(ops) + graph_arrays(body.graph))


def _scan_emit(ctx, ins, out, body, length, reverse, unroll):
    loop = _loop(body, length, reverse, unroll, ctx.array_module)
    return f"{ctx.const(loop, 'scan')}({', '.join(ins)})"


scan_p = GraphHoldingPrimitive("scan", multiple_results=True)
scan_p.impl = _scan_impl
scan_p.abstract_eval = _scan_aval
scan_p.emit = _scan_emit


def _bind(ops, body, params):
    return scan_p.bind(*ops, body=body, **params)


# ----------------------------------------------------------------------------- JVP
def _jvp_body(body: Body, nz_c, nz_h, nz_x) -> tuple:
    """(Body of the JVP: consts (c, tc), carry (h, th), xs (x, tx) -> carry (h, th),
    ys (y, ty); which y tangents are nonzero; which carry tangents the body makes nonzero)."""
    nc, nh = body.n_consts, body.n_carry
    nonzero = list(nz_c) + list(nz_h) + list(nz_x)
    fun, out_nz = jvp_graph_fun(body.graph, nonzero)
    avals = body.in_avals
    g = _stage_closed(fun, avals + [_strong(a) for a, nz in zip(avals, nonzero) if nz])
    n_in, n_out = len(avals), len(body.out_avals)
    prim_in, tan_in = g.invars[:n_in], iter(g.invars[n_in:])
    tan_of = [next(tan_in) if nz else None for nz in nonzero]
    t_out = iter(g.outvars[n_out:])
    t_outs = [next(t_out) if nz else None for nz in out_nz]

    def group(lo, hi):
        return list(prim_in[lo:hi]) + [t for t in tan_of[lo:hi] if t is not None]
    invars = group(0, nc) + group(nc, nc + nh) + group(nc + nh, n_in)
    outs = list(g.outvars[:nh])
    for j in range(nh):
        if nz_h[j]:
            outs.append(t_outs[j] if t_outs[j] is not None
                        else _zero_literal(_strong(body.out_avals[j])))
    outs += list(g.outvars[nh:n_out]) + [t for t in t_outs[nh:] if t is not None]
    jb = Body(_with_io(g, invars, outs), nc + sum(nz_c), nh + sum(nz_h))
    return jb, list(out_nz[nh:]), list(out_nz[:nh])


def _jvp_fixed_point(body: Body, nz_c, nz_h, nz_x) -> tuple:
    nz_h = list(nz_h)
    while True:
        key = ("jvp", tuple(nz_c), tuple(nz_h), tuple(nz_x))
        jb, y_nz, h_out = body.derived(key, lambda: _jvp_body(body, nz_c, nz_h, nz_x))
        grown = [a or b for a, b in zip(nz_h, h_out)]
        if grown == nz_h:
            return jb, y_nz, nz_h
        nz_h = grown


def _level(x) -> int:
    return x._trace.level if isinstance(x, Tracer) else -1


def _scan_jvp(primals, tangents, body, **params):
    nc, nh = body.n_consts, body.n_carry
    n_y = len(body.out_avals) - nh
    nz = [t is not ZERO for t in tangents]
    if not any(nz):
        return _bind(primals, body, params), [ZERO] * (nh + n_y)
    nz_c, nz_x = nz[:nc], nz[nc + nh:]
    jb, y_nz, nz_h = _jvp_fixed_point(body, nz_c, nz[nc:nc + nh], nz_x)
    h_tan = [(t if t is not ZERO else np.zeros(aval_of(p).shape, aval_of(p).dtype))
             for p, t, f in zip(primals[nc:nc + nh], tangents[nc:nc + nh], nz_h) if f]

    def nonzero(lo, hi):
        return [t for t in tangents[lo:hi] if t is not ZERO]
    c_tan, x_tan = nonzero(0, nc), nonzero(nc + nh, len(primals))
    ops = (list(primals[:nc]) + c_tan + list(primals[nc:nc + nh]) + h_tan
           + list(primals[nc + nh:]) + x_tan)
    primal_level = max([_level(p) for p in primals], default=-1)
    if any(type(t) is StagingTracer and t._trace.level > primal_level
           for t in c_tan + h_tan + x_tan):
        # reverse mode's forward pass: tangents are unknown, primals known
        n = [nc, len(c_tan), nh, len(h_tan), len(primals) - nc - nh, len(x_tan)]
        unknown = [u for k, u in zip(n, [False, True] * 3) for _ in range(k)]
        outs = _split_and_bind(jb, ops, unknown, params, instantiate_ys=[False] * n_y
                               + [True] * sum(y_nz))
    else:
        outs = _bind(ops, jb, params)
    n_ht = len(h_tan)
    h_t = iter(outs[nh:nh + n_ht])
    y_t = iter(outs[nh + n_ht + n_y:])
    return (outs[:nh] + outs[nh + n_ht:nh + n_ht + n_y],
            [next(h_t) if f else ZERO for f in nz_h] + [next(y_t) if f else ZERO for f in y_nz])


scan_p.jvp = _scan_jvp


# ----------------------------------------------------------------------------- partial evaluation
class _Split:
    """A scan body split by partial evaluation (see `_split_body`)."""
    __slots__ = ("known", "unknown", "in_unknown", "out_unknown", "res_consts", "res_xs",
                 "inv_avals", "n_stacked")


def _invariant(graph: Graph, n_consts: int) -> set:
    """The body's Vars computed from its consts only (the same in every iteration)."""
    inv = set(graph.invars[:n_consts])
    for e in graph.eqns:
        if not e.prim.effectful and all(type(v) is not Var or v in inv for v in e.inputs):
            inv.update(e.outputs)
    return inv


def _split_body(body: Body, in_unknown, instantiate_ys) -> _Split:
    """Split `body` into a known body (known consts, carry + loop-invariant residual slots,
    known xs -> known carry + invariant residuals, known ys + stacked residuals) and an
    unknown body (residual consts + unknown consts, unknown carry, stacked residuals +
    residual xs + unknown xs -> unknown carry, unknown ys). A carry is unknown if it is on
    entry or becomes so in the body (fixed point)."""
    nc, nh = body.n_consts, body.n_carry
    uk_c, uk_h, uk_x = (list(in_unknown[:nc]), list(in_unknown[nc:nc + nh]),
                        list(in_unknown[nc + nh:]))
    while True:
        pe = partial_eval_graph(body.graph, uk_c + uk_h + uk_x,
                                instantiate=uk_h + list(instantiate_ys),
                                where="reverse mode through scan: partial evaluation of its body")
        out_h = list(pe.out_unknown[:nh])
        if out_h == uk_h:
            break
        uk_h = [a or b for a, b in zip(uk_h, out_h)]
    invars = body.graph.invars
    in_uk = uk_c + uk_h + uk_x
    known_in = [v for v, u in zip(invars, in_uk) if not u]
    k_consts = set(v for v, u in zip(invars[:nc], uk_c) if not u)
    k_xs = set(v for v, u in zip(invars[nc + nh:], uk_x) if not u)
    invariant = _invariant(pe.known, sum(1 for u in uk_c if not u))
    n_kout = len(pe.known.outvars) - pe.n_residuals
    residuals = pe.unknown.invars[:pe.n_residuals]  # (the same Vars as known's last outputs)
    res_vars = pe.known.outvars[n_kout:]
    by_kind: dict = {"const": [], "x": [], "inv": [], "stack": []}
    for r, v in zip(residuals, res_vars):
        kind = ("const" if v in k_consts else "x" if v in k_xs else
                "inv" if v in invariant else "stack")
        by_kind[kind].append((r, v))
    n_kh = sum(1 for u in uk_h if not u)
    k_outs = pe.known.outvars[:n_kout]
    inv_slots = [Var(v.aval) for _, v in by_kind["inv"]]
    k_nc = sum(1 for u in uk_c if not u)
    known = Body(Graph(known_in[:k_nc + n_kh] + inv_slots + known_in[k_nc + n_kh:],
                       pe.known.eqns,
                       list(k_outs[:n_kh]) + [v for _, v in by_kind["inv"]]
                       + list(k_outs[n_kh:]) + [v for _, v in by_kind["stack"]]),
                 k_nc, n_kh + len(inv_slots))
    u_in = pe.unknown.invars[pe.n_residuals:]
    n_uc, n_uh = sum(uk_c), sum(uk_h)
    unknown = Body(_with_io(pe.unknown, [r for r, _ in by_kind["const"] + by_kind["inv"]]
                            + list(u_in[:n_uc + n_uh]) + [r for r, _ in by_kind["stack"]]
                            + [r for r, _ in by_kind["x"]] + list(u_in[n_uc + n_uh:])),
                   len(by_kind["const"]) + len(by_kind["inv"]) + n_uc, n_uh)
    s = _Split()
    s.known, s.unknown = known, unknown
    s.in_unknown, s.out_unknown = in_uk, list(pe.out_unknown)
    s.res_consts = [list(invars).index(v) for _, v in by_kind["const"]]
    s.res_xs = [list(invars).index(v) for _, v in by_kind["x"]]
    s.inv_avals = [_strong(v.aval) for _, v in by_kind["inv"]]
    s.n_stacked = len(by_kind["stack"])
    return s


def _split_of(body, in_unknown, instantiate_ys) -> _Split:
    key = ("split", tuple(in_unknown), tuple(instantiate_ys))
    return body.derived(key, lambda: _split_body(body, in_unknown, instantiate_ys))


def _split_and_bind(body, ops, in_unknown, params, instantiate_ys) -> list:
    """Run the known scan now and bind the unknown one on its residuals: the outputs."""
    s = _split_of(body, in_unknown, instantiate_ys)
    nc, nh = body.n_consts, body.n_carry
    known_ops = [x for x, u in zip(ops, s.in_unknown) if not u]
    k_nc_h = sum(1 for u in s.in_unknown[:nc + nh] if not u)
    inv0 = [np.zeros(a.shape, a.dtype) for a in s.inv_avals]
    k_out = _bind(known_ops[:k_nc_h] + inv0 + known_ops[k_nc_h:], s.known, params)
    n_kh = s.known.n_carry - len(inv0)
    n_ky = len(k_out) - s.known.n_carry - s.n_stacked
    inv = k_out[n_kh:s.known.n_carry]
    stacked = k_out[len(k_out) - s.n_stacked:]
    uk = [x for x, u in zip(ops, s.in_unknown) if u]
    n_uc, n_uh = sum(s.in_unknown[:nc]), sum(s.in_unknown[nc:nc + nh])
    u_ops = ([ops[i] for i in s.res_consts] + list(inv) + uk[:n_uc + n_uh] + list(stacked)
             + [ops[i] for i in s.res_xs] + uk[n_uc + n_uh:])
    u_out = iter(_bind(u_ops, s.unknown, params))
    k_iter = iter(list(k_out[:n_kh]) + list(k_out[s.known.n_carry:s.known.n_carry + n_ky]))
    return [next(u_out) if u else next(k_iter) for u in s.out_unknown]


def _scan_partial_eval(eqn, in_unknown):
    """`partial_eval_graph`'s rule: a scan with known and unknown operands becomes a known
    scan (with stacked residuals) and an unknown one."""
    body = eqn.params["body"]
    params = {k: v for k, v in eqn.params.items() if k != "body"}
    n_y = len(body.out_avals) - body.n_carry
    s = _split_of(body, in_unknown, [False] * n_y)
    nc, nh = body.n_consts, body.n_carry
    ins = eqn.inputs
    known_in = [x for x, u in zip(ins, s.in_unknown) if not u]
    k_nc_h = sum(1 for u in s.in_unknown[:nc + nh] if not u)
    inv0 = [Literal(np.zeros(a.shape, a.dtype), a) for a in s.inv_avals]
    inv = [Var(a) for a in s.inv_avals]
    length = params["length"]
    res_avals = s.known.out_avals[len(s.known.out_avals) - s.n_stacked:]
    stacked = [Var(ShapedArray((length,) + a.shape, a.dtype)) for a in res_avals]
    k_outs_h = [o for o, u in zip(eqn.outputs[:nh], s.out_unknown[:nh]) if not u]
    k_outs_y = [o for o, u in zip(eqn.outputs[nh:], s.out_unknown[nh:]) if not u]
    k_eqn = Eqn(scan_p, known_in[:k_nc_h] + inv0 + known_in[k_nc_h:],
                dict(params, body=s.known), k_outs_h + inv + k_outs_y + stacked, eqn.source)
    uk = [x for x, u in zip(ins, s.in_unknown) if u]
    n_uc, n_uh = sum(s.in_unknown[:nc]), sum(s.in_unknown[nc:nc + nh])
    u_ins = ([ins[i] for i in s.res_consts] + inv + uk[:n_uc + n_uh] + stacked
             + [ins[i] for i in s.res_xs] + uk[n_uc + n_uh:])
    u_eqn = Eqn(scan_p, u_ins, dict(params, body=s.unknown),
                [o for o, u in zip(eqn.outputs, s.out_unknown) if u], eqn.source)
    return [k_eqn], [u_eqn]


partial_eval_rules[scan_p] = _scan_partial_eval


# ----------------------------------------------------------------------------- transpose
def _transpose_body(body: Body, lin_c, lin_x, ct_y_nz) -> Body:
    """The body of the transposed scan: consts = residual consts; carry = cotangent
    accumulators of the linear consts + carry cotangents; xs = residual xs + nonzero y
    cotangents -> (accumulators, carry cotangents), linear-x cotangents."""
    nc, nh = body.n_consts, body.n_carry
    invars = body.graph.invars
    c_vars, h_vars, x_vars = invars[:nc], invars[nc:nc + nh], invars[nc + nh:]
    res_c = [v for v, lin in zip(c_vars, lin_c) if not lin]
    res_x = [v for v, lin in zip(x_vars, lin_x) if not lin]
    lc = [v for v, lin in zip(c_vars, lin_c) if lin]
    lx = [v for v, lin in zip(x_vars, lin_x) if lin]
    y_out = body.graph.outvars[nh:]
    ct_y_avals = [_strong(v.aval) for v, nz in zip(y_out, ct_y_nz) if nz]

    def fun(*args):
        it = iter(args)
        rc = [next(it) for _ in res_c]
        acc = [next(it) for _ in lc]
        ct_h = [next(it) for _ in h_vars]
        rx = [next(it) for _ in res_x]
        ct_y = iter([next(it) for _ in ct_y_avals])
        sub = {v: Literal(r, v.aval) for v, r in zip(res_c + res_x, rc + rx)}

        def s(v):
            return sub.get(v, v) if type(v) is Var else v
        eqns = [Eqn(e.prim, [s(v) for v in e.inputs], e.params, e.outputs)
                for e in body.graph.eqns]
        g = Graph(lc + list(h_vars) + lx, eqns, [s(v) for v in body.graph.outvars])
        cts = backward_pass(g, list(ct_h) + [next(ct_y) if nz else None for nz in ct_y_nz])
        out = [a if c is None else add_any(a, c) for a, c in zip(acc, cts[:len(lc)])]
        return out + [c if c is not None else np.zeros(v.aval.shape, v.aval.dtype)
                      for c, v in zip(cts[len(lc):], list(h_vars) + lx)]
    avals = [_strong(v.aval) for v in res_c + lc + list(h_vars) + res_x] + ct_y_avals
    return Body(_stage_closed(fun, avals), len(res_c), len(lc) + nh)


def _scan_transpose(cts, *args, body, **params):
    nc, nh = body.n_consts, body.n_carry
    lin = [type(a) is Var for a in args]
    lin_c, lin_x = lin[:nc], lin[nc + nh:]
    ct_h = [c if c is not None else np.zeros(a.shape, a.dtype)
            for c, a in zip(cts[:nh], body.out_avals)]
    ct_y_nz = tuple(c is not None for c in cts[nh:])
    tb = body.derived(("transpose", tuple(lin_c), tuple(lin_x), ct_y_nz),
                      lambda: _transpose_body(body, lin_c, lin_x, ct_y_nz))
    consts, xs = args[:nc], args[nc + nh:]
    acc0 = [np.zeros(v.aval.shape, v.aval.dtype) for v, f in zip(consts, lin_c) if f]
    ops = ([a for a, f in zip(consts, lin_c) if not f] + acc0 + ct_h
           + [a for a, f in zip(xs, lin_x) if not f] + [c for c in cts[nh:] if c is not None])
    params = dict(params, reverse=not params["reverse"])
    outs = _bind(ops, tb, params)
    ct_c, ct_h_in, ct_x = iter(outs[:len(acc0)]), outs[len(acc0):len(acc0) + nh], iter(
        outs[len(acc0) + nh:])
    return ([next(ct_c) if f else None for f in lin_c]
            + [c if type(a) is Var else None for c, a in zip(ct_h_in, args[nc:nc + nh])]
            + [next(ct_x) if f else None for f in lin_x])


scan_p.transpose = _scan_transpose


# ----------------------------------------------------------------------------- batching
def _batch_body(body: Body, b_c, b_h, b_x, axis_size) -> tuple:
    """(batched Body: batched operands at axis 0 of each iteration's values; which ys are
    batched)."""
    flags = list(b_c) + list(b_h) + list(b_x)
    avals = [ShapedArray((axis_size,) + a.shape, a.dtype) if f else a
             for a, f in zip([_strong(a) for a in body.in_avals], flags)]
    force = list(b_h) + [False] * (len(body.out_avals) - body.n_carry)
    g, out_b = _batched_graph(body.graph, avals, [0 if f else None for f in flags], axis_size,
                              force)
    return Body(g, body.n_consts, body.n_carry), out_b


def _scan_batch(vals, dims, axis_size, body, **params):
    nc, nh = body.n_consts, body.n_carry
    b = [d is not None for d in dims]
    b_c, b_h, b_x = b[:nc], list(b[nc:nc + nh]), b[nc + nh:]
    while True:
        key = ("batch", tuple(b_c), tuple(b_h), tuple(b_x), axis_size)
        bb, out_b = body.derived(key, lambda: _batch_body(body, b_c, b_h, b_x, axis_size))
        grown = [x or y for x, y in zip(b_h, out_b[:nh])]
        if grown == b_h:
            break
        b_h = grown
    consts = [v if d is None else moveaxis(v, d, 0) for v, d in zip(vals[:nc], dims[:nc])]
    init = [bdim_at_front(v, d, axis_size) if f else v
            for v, d, f in zip(vals[nc:nc + nh], dims[nc:nc + nh], b_h)]
    xs = [v if d is None else moveaxis(v, d, 1) for v, d in zip(vals[nc + nh:], dims[nc + nh:])]
    outs = _bind(consts + init + xs, bb, params)
    return outs, [0 if f else None for f in b_h] + [1 if f else None for f in out_b[nh:]]


scan_p.batch = _scan_batch



# ----------------------------------------------------------------------------- while_loop
class WhileGraphs(HeldGraphs):
    """The `graphs` parameter of a `while` equation: `cond` (cond consts + carry -> a bool
    scalar) and `body`, a scan `Body` without xs or ys (body consts + carry -> carry), plus
    what is derived from them (made once)."""
    __slots__ = ("cond", "body", "__weakref__")

    def __init__(self, cond: Graph, body: Body):
        super().__init__()
        self.cond = cond
        self.body = body
        if config.check_graphs:
            check_graph(cond, where="while_loop cond")

    def subgraphs(self):
        return (self.cond, self.body.graph)

    def with_graphs(self, graphs) -> "WhileGraphs":
        return WhileGraphs(graphs[0], self.body.with_graphs(graphs[1:]))

    @property
    def n_cond_consts(self) -> int:
        return len(self.cond.invars) - self.body.n_carry

    def __repr__(self):
        return (f"WhileGraphs(cond={self.cond}".replace("\n", "\n  ")
                + f", body={self.body})")


def _while_source(graphs: WhileGraphs, name: str) -> str:
    nq, nb, nh = graphs.n_cond_consts, graphs.body.n_consts, graphs.body.n_carry
    qs, bs, hs = ([f"{p}{i}" for i in range(n)] for p, n in (("q", nq), ("b", nb), ("h", nh)))
    lhs = ", ".join(hs) + ("," if nh == 1 else "")
    lines = [f"def {name}({', '.join(qs + bs + hs)}):",
             f"    while cond({', '.join(qs + hs)})[0]:"]
    lines.append(f"        {lhs} = body({', '.join(bs + hs)})" if nh else
                 f"        body({', '.join(bs)})")
    lines.append(f"    return ({''.join(h + ', ' for h in hs)})")
    return "\n".join(lines) + "\n"


def _compiled(graphs: WhileGraphs, xp) -> tuple:
    from ..transforms.jit import compiled_for
    return (compiled_for(graphs, "compiled", graphs.cond, "while_cond", xp),
            compiled_for(graphs.body, "compiled", graphs.body.graph, "while_body", xp))


def _make_while(graphs: WhileGraphs, xp):
    cond, body = _compiled(graphs, xp)
    name = f"while_loop_{next(_counter)}"
    source = _while_source(graphs, name)
    namespace = {"cond": cond, "body": body}
    loop = define_function(source, name, namespace, f"<fungrad.jit {name}>")
    loop.source = source
    return loop


def _while_loop_fn(graphs, xp=np):
    return graphs.derived(("loop", xp.__name__), lambda: _make_while(graphs, xp))


def _while_aval(*avals, graphs, checkpoint=0):
    want = [v.aval for v in graphs.cond.invars[:graphs.n_cond_consts]] + graphs.body.in_avals
    for k, (a, w) in enumerate(zip(avals, want)):
        if a.shape != w.shape or a.dtype != w.dtype:
            raise TypeError(f"while: operand {k} is {a.str_short()} but the loop takes "
                            f"{w.str_short()}")
    return [_strong(a) for a in graphs.body.out_avals]


def _while_impl(*ops, graphs, checkpoint=0):
    outs = _while_loop_fn(graphs, array_module(*ops))(*ops)
    return fresh_leaves(list(outs), list(ops) + graph_arrays(graphs.body.graph)
                        + graph_arrays(graphs.cond))


def _while_emit(ctx, ins, out, graphs, checkpoint=0):
    loop = _while_loop_fn(graphs, ctx.array_module)
    return f"{ctx.const(loop, 'while_loop')}({', '.join(ins)})"


while_p = GraphHoldingPrimitive("while", multiple_results=True)
while_p.impl = _while_impl
while_p.abstract_eval = _while_aval
while_p.emit = _while_emit


def _concrete(x):
    """The concrete value under forward-mode tracers (a primal's primal...), or None."""
    while isinstance(x, Tracer):
        x = getattr(x, "primal", None)
        if x is None:
            return None
    return x


def _trip_count(graphs: WhileGraphs, ops) -> int:
    """How many times the loop runs on these operands (eager higher-order reverse mode
    records it, then differentiates a scan of that length)."""
    vals = [_concrete(x) for x in ops]
    cond, body = _compiled(graphs, array_module(*vals))
    nq, nb = graphs.n_cond_consts, graphs.body.n_consts
    q, b, h = vals[:nq], vals[nq:nq + nb], vals[nq + nb:]
    n = 0
    while cond(*q, *h)[0]:
        h = body(*b, *h)
        n += 1
    return n


def _cond_with_tangents(graphs: WhileGraphs, nz_h) -> Graph:
    """The cond graph taking the carry tangents too (as unused inputs)."""
    extra = [Var(_strong(a)) for a, nz in zip(graphs.body.out_avals, nz_h) if nz]
    return Graph(list(graphs.cond.invars) + extra, graphs.cond.eqns, graphs.cond.outvars)


def _tape_ok(primals) -> bool:
    """Reverse mode can record a tape: the primals are concrete or staged (jit), or batched
    by one vmap over such values (one tape for all lanes), not values of an outer
    differentiation or of nested vmaps."""
    from ..transforms.batching import BatchTracer
    vmaps = set()
    for p in primals:
        if type(p) is BatchTracer:
            vmaps.add(p._trace)
            p = p.val
        if isinstance(p, Tracer) and not isinstance(p, StagingTracer):
            return False
    return len(vmaps) <= 1


def _while_jvp(primals, tangents, graphs, checkpoint=0):
    nq, nb, nh = graphs.n_cond_consts, graphs.body.n_consts, graphs.body.n_carry
    nz = [t is not ZERO for t in tangents]
    if not any(nz[nq:]):
        return while_p.bind(*primals, graphs=graphs, checkpoint=checkpoint), [ZERO] * nh
    ops, tans = primals[nq:], tangents[nq:]
    primal_level = max([_level(p) for p in primals], default=-1)
    reverse = any(type(t) is StagingTracer and t._trace.level > primal_level for t in tans)
    if reverse and not _tape_ok(primals) and all(_concrete(p) is not None for p in primals):
        # eager higher order (the primals carry an outer derivative): count the trips, then
        # differentiate a scan of that many iterations (which differentiates again)
        n = _trip_count(graphs, primals)
        return _scan_jvp(ops, tans, body=graphs.body, length=n, reverse=False, unroll=1)
    nz_b = nz[nq:nq + nb]
    jb, _, nz_h = _jvp_fixed_point(graphs.body, nz_b, nz[nq + nb:], [])
    jg = graphs.derived(("jvp", tuple(nz_b), tuple(nz_h)),
                        lambda: WhileGraphs(_cond_with_tangents(graphs, nz_h), jb))
    h_tan = [(t if t is not ZERO else np.zeros(aval_of(p).shape, aval_of(p).dtype))
             for p, t, f in zip(ops[nb:], tans[nb:], nz_h) if f]
    b_tan = [t for t in tans[:nb] if t is not ZERO]
    jops = [*primals[:nq], *ops[:nb], *b_tan, *ops[nb:], *h_tan]
    if reverse and not _tape_ok(primals):
        # the primals have an outer derivative (under jit): the JVP loop goes whole into the
        # linear graph; its transpose replays it with plain loops (while_tape.replay_jvp)
        from .while_tape import replay_jvp
        outs_p, outs = replay_jvp(graphs, jg, primals, jops, checkpoint)
        t_out = iter(outs[nh:])
        return outs_p, [next(t_out) if f else ZERO for f in nz_h]
    if reverse:
        # reverse mode: the known loop records a tape (trip count, residuals), the linear
        # loop replays it (while_tape.py)
        from .while_tape import split_and_bind
        unknown = ([False] * (nq + nb) + [True] * len(b_tan) + [False] * (nh)
                   + [True] * len(h_tan))
        outs = split_and_bind(jg, jops, unknown, checkpoint)
    else:
        outs = while_p.bind(*jops, graphs=jg, checkpoint=checkpoint)
    t_out = iter(outs[nh:])
    return outs[:nh], [next(t_out) if f else ZERO for f in nz_h]


while_p.jvp = _while_jvp


def _batch_while(graphs: WhileGraphs, b_q, b_b, b_h, axis_size) -> tuple:
    """(batched WhileGraphs, which carries are batched, whether the predicate is)."""
    b_h = list(b_h)
    nq = graphs.n_cond_consts
    while True:
        bb, out_b = _batch_body(graphs.body, b_b, b_h, [], axis_size)
        q_avals = [ShapedArray((axis_size,) + v.aval.shape, v.aval.dtype) if f else v.aval
                   for v, f in zip(graphs.cond.invars, list(b_q) + b_h)]
        q_dims = [0 if f else None for f in list(b_q) + b_h]
        cg, pred_b = _batched_graph(graphs.cond, q_avals, q_dims, axis_size)
        grown = [x or y for x, y in zip(b_h, out_b)]
        if pred_b[0]:
            grown = [True] * len(b_h)  # lanes stop at different times: every carry varies
        if grown == b_h:
            break
        b_h = grown
    if not pred_b[0]:
        return WhileGraphs(cg, bb), b_h, False
    # a predicate per lane: loop while any lane runs; finished lanes keep their carry
    from .elementwise import convert_element_type, ne
    from .reduce import reduce_sum
    from .slicing import select_n

    def any_cond(*args):  # (a sum, not a max: a batch of 0 lanes runs no trip)
        pred = eval_graph(cg, args)[0]
        return [ne(reduce_sum(convert_element_type(pred, np.dtype(np.int32)), (0,)), 0)]

    def masked_body(*args):
        q, b, h = args[:nq], args[nq:nq + len(b_b)], args[nq + len(b_b):]
        pred = eval_graph(cg, list(q) + list(h))[0]
        new = eval_graph(bb.graph, list(b) + list(h))
        return [select_n(broadcast_in_dim(pred, aval_of(o).shape, (0,)), old, o)
                for old, o in zip(h, new)]
    h_avals = [v.aval for v in cg.invars[nq:]]
    cond = _stage_closed(any_cond, [v.aval for v in cg.invars])
    body = _stage_closed(masked_body, [v.aval for v in cg.invars[:nq]]
                         + [v.aval for v in bb.graph.invars[:bb.n_consts]] + h_avals)
    return WhileGraphs(cond, Body(body, nq + bb.n_consts, len(h_avals))), b_h, True


def _while_batch(vals, dims, axis_size, graphs, checkpoint=0):
    nq, nb = graphs.n_cond_consts, graphs.body.n_consts
    b = [d is not None for d in dims]
    b_q, b_b, b_h = b[:nq], b[nq:nq + nb], b[nq + nb:]
    key = ("batch", tuple(b), axis_size)
    bg, b_h, per_lane = graphs.derived(key, lambda: _batch_while(graphs, b_q, b_b, b_h,
                                                                 axis_size))
    if per_lane and held_graphs_have_effects({"graphs": graphs}):
        return _while_per_example(vals, dims, axis_size, graphs, checkpoint)
    q = [v if d is None else moveaxis(v, d, 0) for v, d in zip(vals[:nq], dims[:nq])]
    bc = [v if d is None else moveaxis(v, d, 0) for v, d in zip(vals[nq:nq + nb],
                                                                 dims[nq:nq + nb])]
    h = [bdim_at_front(v, d, axis_size) if f else v
         for v, d, f in zip(vals[nq + nb:], dims[nq + nb:], b_h)]
    outs = while_p.bind(*q, *(q if per_lane else []), *bc, *h, graphs=bg, checkpoint=checkpoint)
    return outs, [0 if f else None for f in b_h]


def _while_per_example(vals, dims, axis_size, graphs, checkpoint):
    """A per-example predicate with an effectful cond or body (a print, a checkify check):
    a loop over the batch in which each example makes only its own trips. The lane-masked
    loop would run the body again for lanes that have finished, and masking hides their
    values but not their prints or failed checks."""
    mapped = [bdim_at_front(x, d, axis_size) for x, d in zip(vals, dims) if d is not None]

    def one_example(xs):
        per_example = iter(xs)
        return while_p.bind(*[x if d is None else next(per_example) for x, d in zip(vals, dims)],
                            graphs=graphs, checkpoint=checkpoint)
    outs = map(one_example, mapped)  # fg.lax.map, defined below
    return outs, [0] * len(outs)


while_p.batch = _while_batch

LOOP_PRIMITIVES = [scan_p, while_p]


# ----------------------------------------------------------------------------- public functions
def _leaf_paths(tree: Any, whole: str = "(the whole carry)") -> list:
    """A readable path per leaf (`[0]['w']`), in flattening order, `whole` for a tree that is
    one leaf; `leaf i` for leaves of other containers."""
    out: list = []

    def walk(x, path):
        if x is None:
            return
        if isinstance(x, dict):
            for k in sorted(x):
                walk(x[k], f"{path}[{k!r}]")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")
        else:
            out.append(path or whole)
    walk(tree, "")
    n = len(_tree.tree_leaves(tree))
    return out if len(out) == n else [f"leaf {i}" for i in range(n)]


def _as_leaf(x):
    if isinstance(x, Tracer) or type(x) is np.ndarray:
        return x
    return asarray(x)


def _scan_length(xs_leaves, xs, length) -> int:
    paths = _leaf_paths(xs, whole="")
    lengths = {}
    for p, x in zip(paths, xs_leaves):
        a = aval_of(x)
        if not a.shape:
            raise TypeError(f"scan: xs{p if not p or p.startswith('[') else ' ' + p} is a scalar "
                            f"({a.str_short()}), but every leaf of xs is sliced along its "
                            "axis 0; give it a leading axis of the loop's length (or close "
                            "over it in f)")
        lengths.setdefault(a.shape[0], []).append(f"xs{p if p.startswith('[') else ''}"
                                                  f" {a.str_short()}")
    if length is not None:
        if isinstance(length, Tracer) or int(length) != length or int(length) < 0:
            raise TypeError(f"scan: length must be a non-negative Python int, got {length!r}")
        length = int(length)
        lengths.setdefault(length, []).append("length=")
    if len(lengths) > 1:
        desc = "; ".join(f"{n} for {', '.join(v)}" for n, v in lengths.items())
        raise ValueError(f"scan: the leaves of xs (and length=) must agree on the loop "
                         f"length (their axis 0), got {desc}")
    if not lengths:
        raise ValueError("scan: xs is None (or has no leaves), so the number of iterations "
                         "is unknown: pass length=")
    return next(iter(lengths))


def _carry_mismatch(f_name, init_tree, out_tree):
    return TypeError(
        f"scan: {f_name} must return a pair (carry, y) whose carry has the same pytree "
        f"structure as init, but init is {init_tree} and the returned carry is {out_tree}. "
        "Return the carry in the same containers (e.g. a tuple of 2 arrays).")


def _check_carry(where, paths, init_avals, out_avals, init_weak, name="carry") -> list:
    """The dtypes to cast Python-scalar init leaves to (the NEP 50 promotion with the body's
    output dtype, as JAX promotes weak-typed inputs: a float init of an int body stays float
    and then fails here, never truncated), or TypeError naming the leaf that changes."""
    cast = []
    for p, a, o, w in zip(paths, init_avals, out_avals, init_weak):
        if a.shape == o.shape and a.dtype == o.dtype:
            continue
        if a.shape == o.shape and w:
            cast.append(dtypes.result_type(o.dtype, _PY_ZERO[a.dtype.kind]))
            continue
        what = "shape" if a.shape != o.shape else "dtype"
        raise TypeError(
            f"{where} changes the {what} of {name}{p if not p or p.startswith('[') else ' ' + p}"
            f": it is {a.str_short()} in init but the body returns {o.str_short()}. The carry "
            "must keep its structure, shapes and dtypes across iterations: cast with "
            ".astype(...) or fix the initial value (e.g. init with the dtype the body "
            "computes in).")
    return cast


_PY_ZERO = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}  # a Python scalar of a weak leaf's kind


def _weak_fits(value, dtype) -> bool:
    """A Python scalar that NEP 50 casts to `dtype` without changing its kind (1.5 does not
    fit an int carry: an error, not a truncation)."""
    return dtypes.result_type(dtype, value) == dtype


def _cast_weak_init(leaves, weak, out_avals, cast):
    """The init leaves after `_check_carry` asked for `cast`: the Python-scalar leaves whose
    dtype the body changed take the promoted dtype and are strong from then on; the other
    weak leaves stay weak (as JAX promotes only the weak leaves that differ: a weak float
    leaf multiplying a float32 one must keep it float32 when the body is traced again)."""
    to = iter(cast)
    changed = [w and aval_of(x).dtype != o.dtype for x, w, o in zip(leaves, weak, out_avals)]
    leaves = [np.asarray(x, next(to)) if c else x for x, c in zip(leaves, changed)]
    return leaves, [w and not c for w, c in zip(weak, changed)]


def _trace_body(f, f_name, init_leaves, init_tree, x_avals, xs_tree, init_weak):
    """(graph: carry + x + lifted -> carry + y, lifted values, y tree, carry out avals)."""
    nh = len(init_leaves)
    c_avals = [ShapedArray(aval_of(x).shape, aval_of(x).dtype, w)
               for x, w in zip(init_leaves, init_weak)]
    trees = []

    def fun(*tracers):
        carry = _tree.tree_unflatten(init_tree, list(tracers[:nh]))
        x = _tree.tree_unflatten(xs_tree, list(tracers[nh:]))
        out = f(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"scan: {f_name} must return a pair (carry, y), got "
                            f"{type(out).__name__}")
        c_leaves, c_tree = _tree.tree_flatten(out[0])
        y_leaves, y_tree = _tree.tree_flatten(out[1])
        if c_tree != init_tree:
            raise _carry_mismatch(f_name, init_tree, c_tree)
        trees.append(y_tree)
        # a Python scalar in the new carry takes its init leaf's dtype
        c_leaves = [np.asarray(c, a.dtype) if type(c) in (int, float, bool, complex)
                    and _weak_fits(c, a.dtype) else c for c, a in zip(c_leaves, c_avals)]
        return c_leaves + [_as_leaf(y) for y in y_leaves]
    graph, lifted = _stage(fun, c_avals + x_avals)
    return graph, lifted, trees[0]


def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple:
    """Loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`: JAX's `lax.scan`.

    Returns `(final carry, stacked ys)`. `init`, `xs` and the ys may be pytrees; `xs=None`
    with `length=n` runs `n` iterations with `x = None`; `reverse=True` walks `xs` from the
    end (ys are still stored at their index). The carry must keep its structure, shapes and
    dtypes. `f` is traced once; the loop runs it compiled (a Python `for` under `jit`) and
    works under `grad` (residuals of each iteration are stacked), `jvp`, `vmap` and nested
    in itself. `unroll=k` compiles `k` iterations as one function (fewer Python calls per
    iteration; `True`: all of them), with the same results.

    Example:
        >>> def step(total, x):               # a running sum; y = twice the sum so far
        ...     total = total + x
        ...     return total, 2 * total
        >>> fg.lax.scan(step, 0.0, np.array([1.0, 2.0, 3.0]))
        (array(6.), array([ 2.,  6., 12.]))
        >>> fg.grad(lambda xs: fg.lax.scan(step, 0.0, xs)[1].sum())(np.array([1.0, 2.0, 3.0]))
        array([6., 4., 2.])
    """
    return _scan(f, init, xs, length, reverse, unroll)


def _scan(f, init, xs, length, reverse, unroll, init_weak=None) -> tuple:
    """`scan`; `init_weak` (one flag per init leaf) marks leaves weakly typed, as a Python
    scalar init is (fori_loop's counter: JAX's is a Python int)."""
    if not callable(f):
        raise TypeError(f"scan: f must be callable, got {type(f).__name__}")
    if not (isinstance(unroll, (bool, np.bool_))
            or isinstance(unroll, (int, np.integer)) and unroll >= 0):
        raise ValueError(f"scan: unroll must be a bool or a non-negative int (iterations per "
                         f"compiled step), got {unroll!r}")
    # (np.bool_(True) unrolls fully as True does; a NumPy int is the int)
    unroll = bool(unroll) if isinstance(unroll, (bool, np.bool_)) else int(unroll)
    f_name = getattr(f, "__name__", "f")
    xs_leaves, xs_tree = _tree.tree_flatten(xs)
    xs_leaves = [_as_leaf(x) for x in xs_leaves]
    n = _scan_length(xs_leaves, xs, length)
    init_leaves, init_tree = _tree.tree_flatten(init)
    if init_weak is None:
        init_weak = [type(x) in (int, float, bool, complex) for x in init_leaves]
    init_leaves = [_as_leaf(x) for x in init_leaves]
    x_avals = [ShapedArray(aval_of(x).shape[1:], aval_of(x).dtype) for x in xs_leaves]
    paths = _leaf_paths(init)
    nh = len(init_leaves)
    while True:  # again after casting Python-scalar init leaves to the body's dtypes
        graph, lifted, y_tree = _trace_body(f, f_name, init_leaves, init_tree, x_avals, xs_tree,
                                            init_weak)
        out_avals = [v.aval for v in graph.outvars[:nh]]
        cast = _check_carry(f"scan: {f_name}", paths, [aval_of(x) for x in init_leaves],
                            out_avals, init_weak)
        if not cast:  # (each cast makes a weak leaf strong: this ends)
            break
        init_leaves, init_weak = _cast_weak_init(init_leaves, init_weak, out_avals, cast)
    n_in = nh + len(x_avals)
    body = Body(_with_io(graph, graph.invars[n_in:] + graph.invars[:n_in]), len(lifted), nh)
    outs = scan_p.bind(*lifted, *init_leaves, *xs_leaves, body=body, length=n,
                       reverse=bool(reverse), unroll=unroll)
    return _tree.tree_unflatten(init_tree, outs[:nh]), _tree.tree_unflatten(y_tree, outs[nh:])


def fori_loop(lower, upper, body_fun: Callable, init_val: Any, unroll: int | None = None):
    """`for i in range(lower, upper): val = body_fun(i, val)`; returns `val`: JAX's
    `lax.fori_loop`.

    With concrete bounds (Python or NumPy integers) it is a `scan` of `upper - lower`
    iterations, differentiable in reverse mode everywhere; with traced bounds it is a
    `while_loop` (reverse mode records a tape; see `while_loop`). `i` is a scalar array of
    the bounds' integer dtype (int64 for Python ints), weakly typed when the bounds are
    concrete (as JAX's: `x + i` keeps a float32 `x` float32).

    Example:
        >>> fg.lax.fori_loop(0, 5, lambda i, x: x * 2.0, np.array(1.0))
        array(32.)
    """
    for name, b in (("lower", lower), ("upper", upper)):
        a = aval_of(b)
        if a.dtype.kind not in "iu" or a.shape != ():
            raise TypeError(f"fori_loop: {name} must be an integer scalar, got "
                            f"{a.str_short()}")
    # a Python int bound is weak (NEP 50): fori_loop(0, np.int32(n), ...) counts in int32
    dtype = dtypes.result_type(*(b if type(b) is int else aval_of(b).dtype
                                 for b in (lower, upper)))
    body_fun = _fori_body(body_fun, init_val)
    if isinstance(lower, Tracer) or isinstance(upper, Tracer):
        return _fori_while(lower, upper, body_fun, init_val, dtype)
    lo, hi = int(lower), int(upper)

    def step(carry, _):
        i, val = carry
        return (i + np.asarray(1, dtype), body_fun(i, val)), None
    # with concrete bounds `i` is weakly typed (JAX's is a Python int), so `x + i` keeps a
    # float32 or int16 carry's dtype instead of widening it to the counter's
    weak = [True] + [type(x) in (int, float, bool, complex) for x in _tree.tree_leaves(init_val)]
    (_, val), _ = _scan(step, (np.asarray(lo, dtype), init_val), None, max(hi - lo, 0), False,
                        1 if unroll is None else unroll, init_weak=weak)
    return val


def _fori_body(body_fun, init_val):
    """`body_fun` with fori_loop's own errors: the loop below carries (i, val), and its
    errors would name scan's `step` and `carry[1]`."""
    paths = _leaf_paths(init_val, whole="")

    def body(i, val):
        new = body_fun(i, val)
        in_leaves, in_tree = _tree.tree_flatten(val)
        out_leaves, out_tree = _tree.tree_flatten(new)
        if out_tree != in_tree:
            raise TypeError(f"fori_loop: body_fun must return a value with the same pytree "
                            f"structure as init_val, but init_val is {in_tree} and body_fun "
                            f"returns {out_tree}. Return the same containers.")
        ins = [aval_of(x) for x in in_leaves]
        outs = [aval_of(np.asarray(x, a.dtype) if type(x) in (int, float, bool, complex)
                        and _weak_fits(x, a.dtype) else _as_leaf(x))
                for x, a in zip(out_leaves, ins)]
        _check_carry("fori_loop: body_fun", paths, ins, outs, [a.weak_type for a in ins],
                     name="init_val")
        return new
    return body


def _fori_while(lower, upper, body_fun, init_val, dtype):
    """fori_loop with traced bounds: a while_loop over (i, val)."""
    from .elementwise import convert_element_type, lt
    i0 = (convert_element_type(lower, dtype) if isinstance(lower, Tracer)
          else np.asarray(lower, dtype))
    hi = (convert_element_type(upper, dtype) if isinstance(upper, Tracer)
          else np.asarray(upper, dtype))
    return while_loop(lambda c: lt(c[0], hi),
                      lambda c: (c[0] + np.asarray(1, dtype), body_fun(c[0], c[1])),
                      (i0, init_val))[1]


def map(f: Callable, xs: Any, batch_size: int | None = None):
    """`stack([f(x) for x in xs])` over the leading axis of (pytree) `xs`, as a `scan`: JAX's
    `lax.map`. With `batch_size`, `f` is `vmap`ped over chunks of that many (the remainder
    is one more vmapped call).

    Example:
        >>> fg.lax.map(lambda x: x @ x, np.ones((3, 4)))
        array([4., 4., 4.])
    """
    if not _tree.tree_leaves(xs):  # (scan's error would name its length=, which map lacks)
        raise ValueError("map: xs is None (or has no leaves), so the number of iterations is "
                         "unknown: pass arrays with a leading axis, or use fg.lax.scan with "
                         "length=")
    if batch_size is None:
        return scan(lambda c, x: (c, f(x)), None, xs)[1]
    from ..transforms.batching import vmap
    # (NumPy integers too, as JAX takes them; a bool is not a size)
    if (not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool)
            or batch_size < 1):
        raise ValueError(f"map: batch_size must be a positive int, got {batch_size!r}")
    batch_size = int(batch_size)
    leaves, tree = _tree.tree_flatten(xs)
    n = _scan_length([_as_leaf(x) for x in leaves], xs, None)
    full = n - n % batch_size
    parts = []
    if full:
        chunks = _tree.tree_unflatten(tree, [
            _as_leaf(x)[:full].reshape((full // batch_size, batch_size)
                                       + tuple(aval_of(x).shape[1:])) for x in leaves])
        ys = scan(lambda c, x: (c, vmap(f)(x)), None, chunks)[1]
        parts.append(_tree.tree_map(
            lambda y: reshape(y, (full,) + tuple(aval_of(y).shape[2:])), ys))
    if n - full:
        rest = _tree.tree_unflatten(tree, [_as_leaf(x)[full:] for x in leaves])
        parts.append(vmap(f)(rest))
    if not parts:  # no element: the plain loop of 0 iterations gives the ys' shapes
        return scan(lambda c, x: (c, f(x)), None, xs)[1]
    if len(parts) == 1:
        return parts[0]
    return _tree.tree_map(lambda a, b: concatenate([a, b], 0), parts[0], parts[1])


def _checkpoint_param(checkpoint) -> int:
    """while_loop's `checkpoint` as the primitive's parameter: 0 (every iteration's
    residuals), -1 (every k-th carry, k ~ sqrt(trip count)) or k."""
    if checkpoint is True:
        return -1
    if checkpoint is False or checkpoint is None:
        return 0
    if isinstance(checkpoint, (int, np.integer)) and checkpoint >= 1:
        return int(checkpoint)
    raise TypeError(f"while_loop: checkpoint must be False, True (store the carry every "
                    f"~sqrt(iterations) iterations) or a positive int k (every k-th), got "
                    f"{checkpoint!r}")


def _trace_fn(fn, where, in_tree, avals, carry=False):
    """(graph of fn's flat outputs, lifted values, output tree). With `carry`, a Python scalar
    output takes its input leaf's dtype where it fits (as in scan's body)."""
    trees = []

    def fun(*tracers):
        out = fn(_tree.tree_unflatten(in_tree, list(tracers)))
        leaves, tree = _tree.tree_flatten(out)
        trees.append(tree)
        if carry and tree == in_tree:
            leaves = [np.asarray(x, a.dtype) if type(x) in (int, float, bool, complex)
                      and _weak_fits(x, a.dtype) else x for x, a in zip(leaves, avals)]
        return [_as_leaf(x) for x in leaves]
    graph, lifted = _stage(fun, avals)
    return graph, lifted, trees[0]


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any, *,
               checkpoint: bool | int = False):
    """`val = init_val; while cond_fun(val): val = body_fun(val)`; returns `val`: JAX's
    `lax.while_loop`.

    `cond_fun` returns a bool scalar; `body_fun` returns a value of `init_val`'s structure,
    shapes and dtypes. Under `jit` it is a Python `while` around the compiled functions;
    under `vmap` with a per-example predicate it runs until every lane is done (finished
    lanes keep their value). Forward mode works everywhere; unlike JAX, reverse mode
    (`grad`, `vjp`, `jacrev`) works too, under `jit` as well as eagerly: the forward loop
    runs once and records its trip count and each iteration's residuals on a tape, and the
    backward pass runs the transposed body over them in reverse (memory O(iterations)).
    `vmap(grad(f))` records one tape for all examples (lanes that stop early keep their
    values), and second derivatives work eagerly and under `jit` (`jit(hessian(f))`).

    `checkpoint` (fungrad's own; JAX has no reverse mode here) trades time for that memory:
    `True` stores only the carry every k-th iteration with k ~ sqrt(iterations), chosen
    while the loop runs (memory O(sqrt(iterations)); the backward pass recomputes each
    segment's residuals from its checkpoint, one more forward evaluation of the body per
    iteration); an int k stores every k-th carry. Results are the same.

    Example:
        >>> fg.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))
        (array(5), array(32.))
        >>> fg.grad(lambda x: fg.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x,
        ...                                     checkpoint=True))(3.0)
        array(4.)
    """
    ckpt = _checkpoint_param(checkpoint)
    for name, fn in (("cond_fun", cond_fun), ("body_fun", body_fun)):
        if not callable(fn):
            raise TypeError(f"while_loop: {name} must be callable, got {type(fn).__name__}")
    leaves, in_tree = _tree.tree_flatten(init_val)
    weak = [type(x) in (int, float, bool, complex) for x in leaves]
    leaves = [_as_leaf(x) for x in leaves]
    paths = _leaf_paths(init_val)
    while True:  # again after casting Python-scalar init leaves to the body's dtypes
        avals = [ShapedArray(aval_of(x).shape, aval_of(x).dtype, w) for x, w in zip(leaves, weak)]
        body, b_lifted, out_tree = _trace_fn(body_fun, "body_fun", in_tree, avals, carry=True)
        if out_tree != in_tree:
            raise TypeError(f"while_loop: body_fun must return a value with the same pytree "
                            f"structure as init_val, but init_val is {in_tree} and body_fun "
                            f"returns {out_tree}. Return the same containers.")
        out_avals = [v.aval for v in body.outvars]
        cast = _check_carry("while_loop: body_fun", paths, [aval_of(x) for x in leaves],
                            out_avals, weak)
        if not cast:  # (each cast makes a weak leaf strong: this ends)
            break
        leaves, weak = _cast_weak_init(leaves, weak, out_avals, cast)
    avals = [ShapedArray(aval_of(x).shape, aval_of(x).dtype, w) for x, w in zip(leaves, weak)]
    cond, c_lifted, c_tree = _trace_fn(cond_fun, "cond_fun", in_tree, avals)
    pred = [v.aval for v in cond.outvars]
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
        raise TypeError(f"while_loop: cond_fun must return a bool scalar, got {c_tree} of "
                        f"{pred}. Compare to get a bool (e.g. i < n); for a per-element "
                        "condition reduce it (fnp.any / fnp.all).")
    nh = len(leaves)
    cond = _with_io(cond, cond.invars[nh:] + cond.invars[:nh])
    body = Body(_with_io(body, body.invars[nh:] + body.invars[:nh]), len(b_lifted), nh)
    outs = while_p.bind(*c_lifted, *b_lifted, *leaves, graphs=WhileGraphs(cond, body),
                        checkpoint=ckpt)
    return _tree.tree_unflatten(in_tree, outs)


__all__ = ["scan", "fori_loop", "map", "while_loop", "scan_p", "while_p", "Body",
           "LOOP_PRIMITIVES"]
