"""Reverse mode through `while_loop` (JAX refuses it): a known loop that records a tape, and a
linear loop that replays it, under `jit` as well as eagerly.

fungrad runs on the host, so the trip count need not be known when the program is traced:
the loop that computes the primal values can count its iterations and keep each one's
residuals. Partial evaluation of the loop's JVP (`partial_eval_rules[while_p]`, also used by
the eager JVP rule) splits a `while` equation into

- `while_fwd(*known operands, split=S) -> (*known carries, tape)`: runs the known half of the
  body (`S.scan.known`, the same split as `scan`'s reverse mode) until the predicate fails,
  returning the primal carries and one opaque `Tape` (abstract value `OpaqueAval`): the trip
  count, the residual consts and either every iteration's residuals (memory O(n)) or, with
  `checkpoint`, the known carry every k-th iteration (k ~ sqrt(n), chosen while the loop runs;
  memory O(sqrt(n)); each segment's residuals are recomputed from its checkpoint when needed).
- `while_lin(tape, *unknown operands, split=S, batch=()) -> unknown carries`: the linear
  half (`S.scan.unknown`) run forward over the recorded residuals (what `fg.linearize`'s
  function evaluates);
- `while_bwd(tape, *carry cotangents, split=S, batch=()) -> (cotangents of the linear
  consts, cotangents of the linear carries)`: `while_lin`'s transpose, the transposed body
  run over the residuals in reverse; its own transpose is `while_lin`.

The forward loop runs once per call. `batch` holds the vmap axis sizes of the linear
operands (outermost first): `jacrev` vmaps `while_bwd` over cotangents (the tape is shared).
vmapping `while_fwd` (vmap of grad) records one tape for all lanes (`Lanes`: a masked loop
with per-trip lane masks when lanes stop at different trips; the linear loops keep a
finished lane's (co)tangent). Second order under jit replays the loop instead of taping it
(`replay_jvp`, and `while`'s transpose rule `_replay_transpose`: plain loops, differentiable
again). Differentiating a tape (order 3+ under jit, `hessian(jit(f))`) raises, naming what
works. Eagerly, higher-order reverse mode keeps the older scheme in `loops._while_jvp`
(count the trips on concrete values, then differentiate a scan).
"""
from __future__ import annotations

from ..backend import array_module
from ..core.ad_util import ZERO
from ..core.ir import Eqn, Graph, OpaqueAval, ShapedArray, Var, aval_of
from ..compiler.passes import dce
from ..transforms.fresh import fresh_leaves
from ..transforms.partial_eval import partial_eval_rules
from ..core.primitive import Primitive
from .loops import (Body, _batch_body, _split_of, _strong, _transpose_body, while_loop, while_p)
from ..transforms.staging import eval_graph
from .control_flow import _stage_closed
from .shape import bdim_at_front, broadcast_in_dim, moveaxis

import numpy as np

# called with every tape a forward loop records (tests count the arrays a tape stores)
tape_observer = None

ADAPTIVE = -1  # `checkpoint` parameter: k ~ sqrt(trip count), chosen while the loop runs


class Tape:
    """What `while_fwd` records for `while_lin` / `while_bwd`: the trip count `n`, the
    residual consts, and the per-iteration residuals (`stacked`) or, checkpointed, the
    known carry at iterations 0, k, 2k, ... (`checkpoints`, with the known body consts
    needed to recompute a segment). Read-only once made: a `vjp_fn` may replay it often."""
    __slots__ = ("aval", "n", "consts", "stacked", "checkpoints", "k", "body_consts",
                 "masks", "array_module", "__weakref__")

    def __init__(self, aval, n, consts, stacked, checkpoints=None, k=0, body_consts=(),
                 masks=None, array_module=np):
        self.aval = aval
        self.array_module = array_module  # of the loop's arrays: NumPy, or CuPy
        self.masks = masks
        self.n = n
        self.consts = consts
        self.stacked = stacked
        self.checkpoints = checkpoints
        self.k = k
        self.body_consts = body_consts

    def stored_arrays(self) -> int:
        """How many per-iteration arrays the tape holds (residuals, or checkpointed carries)."""
        if self.stacked is not None:
            return sum(len(r) for r in self.stacked)
        return sum(len(h) for h in self.checkpoints)

    def __repr__(self):
        how = (f"{self.stored_arrays()} residual arrays" if self.stacked is not None else
               f"{len(self.checkpoints)} checkpoints every {self.k}")
        return f"<while_loop tape: {self.n} iterations, {how}>"


class WhileSplit:
    """A `while` equation split into its known and unknown halves (see the module doc):
    `graphs` and `in_unknown` (per operand: cond consts, body consts, carries) it came from,
    the known cond graph, the scan split of the body (`scan`), and the compiled pieces."""
    __slots__ = ("graphs", "checkpoint", "in_unknown", "out_unknown", "scan", "cond",
                 "n_kq", "res_const_pos", "tape_aval", "_derived", "__weakref__")

    def derived(self, key, make):
        d = self._derived.get(key)
        if d is None:
            d = self._derived[key] = make()
        return d

    # sizes of the known body's operand groups (consts, carry, loop-invariant slots)
    @property
    def n_kb(self):
        return self.scan.known.n_consts

    @property
    def n_kh(self):
        return self.scan.known.n_carry - len(self.scan.inv_avals)

    @property
    def n_uc(self):
        return self.scan.unknown.n_consts - len(self.res_const_pos) - len(self.scan.inv_avals)

    @property
    def n_uh(self):
        return self.scan.unknown.n_carry

    def __repr__(self):
        return f"WhileSplit(unknown={list(map(int, self.in_unknown))}, ckpt={self.checkpoint})"


def _reads(graph: Graph) -> set:
    g = dce(graph)
    return ({v for e in g.eqns for v in e.inputs if type(v) is Var}
            | {v for v in g.outvars if type(v) is Var})


def _make_split(graphs, in_unknown, checkpoint):
    nq, nb, nh = graphs.n_cond_consts, graphs.body.n_consts, graphs.body.n_carry
    s = _split_of(graphs.body, list(in_unknown[nq:]), [])
    uk_q, uk_h = list(in_unknown[:nq]), list(s.in_unknown[nb:nb + nh])
    if any(s.out_unknown[j] and not uk_h[j] for j in range(nh)):
        return None  # (cannot happen: a carry unknown on exit is unknown on entry)
    cond = graphs.cond
    read = _reads(cond)
    if any(u and v in read for v, u in zip(cond.invars, uk_q + uk_h)):
        return None  # the predicate needs unknown values: the loop cannot run now
    ws = WhileSplit()
    ws.graphs, ws.checkpoint = graphs, checkpoint
    ws.in_unknown = uk_q + list(s.in_unknown)
    ws.out_unknown = list(s.out_unknown[:nh])
    ws.scan = s
    ws.cond = dce(Graph([v for v, u in zip(cond.invars, uk_q + uk_h) if not u], cond.eqns,
                        cond.outvars))
    ws.n_kq = sum(1 for u in uk_q if not u)
    uk_c = s.in_unknown[:nb]
    ws.res_const_pos = [sum(1 for u in uk_c[:i] if not u) for i in s.res_consts]
    ws.tape_aval = OpaqueAval("tape", ws)
    ws._derived = {}
    return ws


def split_of(graphs, in_unknown, checkpoint) -> WhileSplit | None:
    """The split of a `while` with these unknown operands (None: the predicate reads unknown
    values), made once per WhileGraphs."""
    key = ("tape_split", tuple(map(bool, in_unknown)), checkpoint)
    return graphs.derived(key, lambda: _make_split(graphs, in_unknown, checkpoint))


class Lanes:
    """`while_fwd` vmapped over `size` lanes (vmap of grad): which known operands are batched
    (at axis 0), which known carries / loop invariants / residuals that makes batched (a
    fixed point), and whether the predicate is per lane. With a per-lane predicate the
    known loop runs until every lane is done, finished lanes keep their carry, and the tape
    records each trip's lane mask; the linear loops select on it, so a finished lane's
    tangent (cotangent) passes through unchanged. The tape's aval carries this object."""
    __slots__ = ("split", "size", "b_in", "b_h", "b_inv", "b_res", "per_lane", "known",
                 "cond", "tape_aval", "__weakref__")

    @property
    def b_res_consts(self):
        nq = self.split.n_kq
        b_b = self.b_in[nq:nq + self.split.n_kb]
        return [b_b[i] for i in self.split.res_const_pos] + list(self.b_inv)

    def __repr__(self):
        return f"Lanes({self.size}, per_lane={self.per_lane})"


def _make_lanes(ws, b_in, size):
    from .control_flow import _batched_graph
    nq, nb, n_kh = ws.n_kq, ws.n_kb, ws.n_kh
    b_q, b_b = list(b_in[:nq]), list(b_in[nq:nq + nb])
    b_h = list(b_in[nq + nb:]) + [False] * len(ws.scan.inv_avals)
    while True:
        bb, out_b = _batch_body(ws.scan.known, b_b, b_h, [], size)
        q_avals = [ShapedArray((size,) + v.aval.shape, v.aval.dtype) if f else v.aval
                   for v, f in zip(ws.cond.invars, b_q + b_h[:n_kh])]
        cg, pred_b = _batched_graph(ws.cond, q_avals, [0 if f else None for f in
                                                       b_q + b_h[:n_kh]], size)
        grown = [x or y for x, y in zip(b_h, out_b)]
        if pred_b[0]:  # lanes stop at different times: every known carry varies
            grown[:n_kh] = [True] * n_kh
        if grown == b_h:
            break
        b_h = grown
    ln = Lanes()
    ln.split, ln.size, ln.b_in = ws, size, list(b_q) + b_b + b_h[:n_kh]
    ln.b_h, ln.b_inv = b_h[:n_kh], b_h[n_kh:]
    ln.b_res = list(out_b[len(b_h):])
    ln.per_lane = bool(pred_b[0])
    ln.known, ln.cond = bb, cg
    ln.tape_aval = OpaqueAval("tape", ln)
    return ln


def lanes_of(ws, b_in, size) -> Lanes:
    key = ("lanes", tuple(map(bool, b_in)), size)
    return ws.derived(key, lambda: _make_lanes(ws, b_in, size))


# ----------------------------------------------------------------------------- compiled pieces
def _fn(ws, key, graph, name, xp):
    from ..transforms.jit import compiled_for
    return compiled_for(ws, key, graph, name, xp)


def _known_fns(ws, lanes, xp):
    if lanes is not None:
        return (_fn(ws, ("cond", lanes), lanes.cond, "while_cond_fwd_lanes", xp),
                _fn(ws, ("body", lanes), lanes.known.graph, "while_body_fwd_lanes", xp))
    return (_fn(ws, "cond", ws.cond, "while_cond_fwd", xp),
            _fn(ws, "body", ws.scan.known.graph, "while_body_fwd", xp))


def _lane_body(body, lanes, b_consts):
    """`body` (consts, carries, residuals -> carries) batched over the lanes (residuals and
    consts as the tape has them, carries batched); with a per-lane predicate it takes the
    trip's lane mask as one more x and keeps a finished lane's carries: the trip is the
    identity there, for the linear loop and for its transpose alike."""
    from .slicing import select_n
    bb = _batch_body(body, b_consts, [True] * body.n_carry, lanes.b_res, lanes.size)[0]
    if not lanes.per_lane:
        return bb
    nc, nh = bb.n_consts, bb.n_carry
    avals = [_strong(a) for a in bb.in_avals] + [ShapedArray((lanes.size,), np.dtype(bool))]

    def masked(*args):
        h, mask = args[nc:nc + nh], args[-1]
        new = eval_graph(bb.graph, list(args[:-1]))
        return [select_n(broadcast_in_dim(mask, aval_of(o).shape, (0,)), old, o)
                for old, o in zip(h, new)]
    return Body(_stage_closed(masked, avals), nc, nh)


def _lin_body(ws, batch, lanes=None):
    """The unknown body (consts, linear carries, residuals -> carries), over the lanes
    (innermost) and vmapped over `batch` (the linear consts and carries batched at axis 0,
    residuals and masks not)."""
    if not batch:
        if lanes is None:
            return ws.scan.unknown
        return ws.derived(("lin_body", lanes), lambda: _lane_body(
            ws.scan.unknown, lanes, list(lanes.b_res_consts) + [True] * ws.n_uc))
    inner = _lin_body(ws, batch[1:], lanes)
    n_res = inner.n_consts - ws.n_uc

    def make():
        return _batch_body(inner, [False] * n_res + [True] * ws.n_uc, [True] * ws.n_uh,
                           [False] * inner.n_xs, batch[0])[0]
    return ws.derived(("lin_body", batch, lanes), make)


def _bwd_body(ws, batch, lanes=None):
    """The transposed body (residual consts; cotangent accumulators + carry cotangents;
    residuals -> accumulators, carry cotangents), vmapped over `batch`."""
    if not batch and lanes is not None:
        # (batched after transposing: batching adds equations on the residuals, which a
        # transposition would take for linear ones)
        return ws.derived(("bwd_body", lanes), lambda: _lane_body(
            _bwd_body(ws, ()), lanes, lanes.b_res_consts))
    if not batch:
        u = ws.scan.unknown
        n_res = u.n_consts - ws.n_uc
        return ws.derived("bwd_body", lambda: _transpose_body(
            u, [False] * n_res + [True] * ws.n_uc, [False] * u.n_xs, ()))
    inner = _bwd_body(ws, batch[1:], lanes)

    def make():
        return _batch_body(inner, [False] * inner.n_consts, [True] * inner.n_carry,
                           [False] * inner.n_xs, batch[0])[0]
    return ws.derived(("bwd_body", batch, lanes), make)


def _body_fn(ws, kind, batch, lanes, xp):
    body = (_lin_body if kind == "lin" else _bwd_body)(ws, batch, lanes)
    return _fn(ws, (kind + "_fn", batch, lanes), body.graph, f"while_{kind}_body", xp)


# ----------------------------------------------------------------------------- while_fwd
def _keep_finished(mask, old, new):
    """Each lane's new carry where its mask is set, else its old one (lanes at 0)."""
    xp = array_module(mask)
    return [xp.where(mask.reshape(mask.shape + (1,) * (n.ndim - 1)), n, o)
            for o, n in zip(old, new)]


def _run_known(ws, q, b, h, lanes=None):
    """Run the known loop: (final known carries, Tape). Over lanes with a per-lane
    predicate, it runs until every lane is done and records each trip's lane mask."""
    xp = array_module(*q, *b, *h)
    cond, body = _known_fns(ws, lanes, xp)
    n_kh = ws.n_kh
    per_lane = lanes is not None and lanes.per_lane
    inv = [xp.zeros(a.shape, a.dtype) for a in ws.scan.inv_avals]
    if lanes is not None:
        inv = [xp.zeros((lanes.size,) + z.shape, z.dtype) if f else z
               for z, f in zip(inv, lanes.b_inv)]
    nk = n_kh + len(inv)
    ckpt = ws.checkpoint
    k = 1 if ckpt == ADAPTIVE else ckpt
    stacked = [] if not ckpt else None
    checkpoints = [] if ckpt else None
    masks = [] if per_lane else None
    n = 0
    while True:
        pred = cond(*q, *h)[0]
        if not (pred.any() if per_lane else pred):
            break
        if ckpt and n % k == 0:
            checkpoints.append(h)
            if ckpt == ADAPTIVE and len(checkpoints) > k:
                # n > k*k: keep every other checkpoint, so k stays ~ sqrt(n)
                k *= 2
                checkpoints = checkpoints[::2]
        out = body(*b, *h, *inv)
        new_h, inv = out[:n_kh], out[n_kh:nk]
        if per_lane:
            masks.append(pred)
            h = _keep_finished(pred, h, new_h)
        else:
            h = new_h
        if stacked is not None:
            stacked.append(out[nk:])
        n += 1
    consts = [b[i] for i in ws.res_const_pos] + list(inv)
    tape = Tape(lanes.tape_aval if lanes is not None else ws.tape_aval, n, consts, stacked,
                checkpoints, k, b if ckpt else (), masks, xp)
    if tape_observer is not None:
        tape_observer(tape)
    return list(h), tape


def _residuals(ws, tape, reverse: bool, lanes=None):
    """Each iteration's residuals (and lane mask, over lanes with a per-lane predicate), in
    order or reversed (recomputed segment by segment from the checkpoints when the tape has
    them)."""
    masks = tape.masks
    if tape.stacked is not None:
        trips = (tape.stacked if masks is None else
                 [list(r) + [m] for r, m in zip(tape.stacked, masks)])
        yield from (reversed(trips) if reverse else trips)
        return
    _, body = _known_fns(ws, lanes, tape.array_module)
    n_kh, k, n = ws.n_kh, tape.k, tape.n
    nk = n_kh + len(ws.scan.inv_avals)
    inv = tape.consts[len(ws.res_const_pos):]
    starts = list(enumerate(range(0, n, k)))
    for j, start in (reversed(starts) if reverse else starts):
        h, seg = tape.checkpoints[j], []
        for i in range(start, min(start + k, n)):
            out = body(*tape.body_consts, *h, *inv)
            if masks is None:
                h = out[:n_kh]
                seg.append(out[nk:])
            else:
                h = _keep_finished(masks[i], h, out[:n_kh])
                seg.append(list(out[nk:]) + [masks[i]])
        yield from (reversed(seg) if reverse else seg)
        seg = None


def _fwd_impl(*ops, split, lanes=None):
    ws = split
    nq, nb = ws.n_kq, ws.n_kb
    h, tape = _run_known(ws, ops[:nq], ops[nq:nq + nb], ops[nq + nb:], lanes)
    return fresh_leaves(h, list(ops)) + [tape]


def _fwd_aval(*avals, split, lanes=None):
    ws = split
    out = [_strong(a) for a in ws.scan.known.out_avals[:ws.n_kh]]
    if lanes is None:
        return out + [ws.tape_aval]
    return ([ShapedArray((lanes.size,) + a.shape, a.dtype) if f else a
             for a, f in zip(out, lanes.b_h)] + [lanes.tape_aval])


def _fwd_jvp(primals, tangents, split, lanes=None):
    raise NotImplementedError(
        "differentiating a while_loop's reverse-mode tape is not supported: its residuals "
        "have no derivative. This happens for a derivative of order 3 or more under fg.jit "
        "(order 2 works: fg.jit(fg.hessian(f)), fg.jit(fg.grad(fg.grad(f)))), and for an "
        "outer derivative of a function whose reverse mode ran inside fg.jit, e.g. "
        "fg.hessian(fg.jit(f)) or fg.jacfwd(fg.jit(fg.grad(f))), and for a second "
        "derivative of a while_loop staged inside fg.checkpoint or the body of a scan, cond "
        "or while_loop (even eagerly). Put fg.jit outermost "
        "(fg.jit(fg.hessian(f))), take higher orders eagerly (fg.grad(fg.grad(f)) "
        "differentiates the loop as a scan of its recorded trip count, to any order), or "
        "write the loop with fg.lax.scan / fg.lax.fori_loop with static bounds.")


def _fwd_batch(vals, dims, axis_size, split, lanes=None):
    """vmap of the known loop: one tape for all lanes (see `Lanes`)."""
    if lanes is not None:
        raise NotImplementedError(
            "vmap of vmap of reverse-mode differentiation through a while_loop (the tape is "
            "batched over one vmap only): vmap over the flattened batch instead (reshape "
            "the two batch axes into one), or use fg.lax.fori_loop / fg.lax.scan with a "
            "static trip count.")
    ln = lanes_of(split, [d is not None for d in dims], axis_size)
    ops = [v if d is None and not f else bdim_at_front(v, d, axis_size)
           for v, d, f in zip(vals, dims, ln.b_in)]
    outs = while_fwd_p.bind(*ops, split=split, lanes=ln)
    return outs, [0 if f else None for f in ln.b_h] + [0]


while_fwd_p = Primitive("while_fwd", multiple_results=True)
while_fwd_p.impl = _fwd_impl
while_fwd_p.abstract_eval = _fwd_aval
while_fwd_p.jvp = _fwd_jvp
while_fwd_p.batch = _fwd_batch


# ----------------------------------------------------------------------------- while_lin / bwd
def _lead(batch, lanes):
    """The leading axes of the linear operands: the vmap axes of `batch`, then the lanes."""
    return tuple(batch) + ((lanes.size,) if lanes is not None else ())


def _lin_impl(tape, *ops, split, batch=(), lanes=None):
    ws = split
    fn = _body_fn(ws, "lin", batch, lanes, tape.array_module)
    n_uc = ws.n_uc
    consts = list(tape.consts) + list(ops[:n_uc])
    h = list(ops[n_uc:])
    for res in _residuals(ws, tape, False, lanes):
        h = list(fn(*consts, *h, *res))
    return fresh_leaves(h, list(ops))


def _lin_aval(tape, *avals, split, batch=(), lanes=None):
    return [_strong(a) for a in avals[split.n_uc:]]


def _bwd_impl(tape, *cts, split, batch=(), lanes=None):
    ws = split
    xp = tape.array_module
    fn = _body_fn(ws, "bwd", batch, lanes, xp)
    lead = _lead(batch, lanes)
    acc = [xp.zeros(lead + a.shape, a.dtype) for a in _uc_avals(ws)]
    ct = list(cts)
    for res in _residuals(ws, tape, True, lanes):
        out = fn(*tape.consts, *acc, *ct, *res)
        acc, ct = list(out[:len(acc)]), list(out[len(acc):])
    return fresh_leaves(acc + ct, list(cts))


def _uc_avals(ws):
    u = ws.scan.unknown
    return [_strong(a) for a in u.in_avals[u.n_consts - ws.n_uc:u.n_consts]]


def _bwd_aval(tape, *avals, split, batch=(), lanes=None):
    lead = _lead(batch, lanes)
    return ([ShapedArray(lead + a.shape, a.dtype) for a in _uc_avals(split)]
            + [_strong(a) for a in avals])


def _lin_transpose(cts, tape, *args, split, batch=(), lanes=None):
    ws = split
    ct_h = [c if c is not None else np.zeros(_aval(a).shape, _aval(a).dtype)
            for c, a in zip(cts, args[ws.n_uc:])]
    outs = while_bwd_p.bind(tape, *ct_h, split=ws, batch=batch, lanes=lanes)
    return [None] + [c if type(a) is Var else None for c, a in zip(outs, args)]


def _aval(a):
    return a.aval if type(a) is Var else aval_of(a)


def _bwd_transpose(cts, tape, *args, split, batch=(), lanes=None):
    ws = split
    avals = _bwd_aval(None, *[_aval(a) for a in args], split=ws, batch=batch, lanes=lanes)
    d = [c if c is not None else np.zeros(a.shape, a.dtype) for c, a in zip(cts, avals)]
    outs = while_lin_p.bind(tape, *d, split=ws, batch=batch, lanes=lanes)
    return [None] + [c if type(a) is Var else None for c, a in zip(outs, args)]


def _linear_jvp(prim):
    """JVP of a primitive linear in every operand but the tape (which has no tangent)."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(t is ZERO for t in tangents[1:]):
            return out, [ZERO] * len(out)
        avals = [aval_of(p) for p in primals[1:]]
        ts = [np.zeros(a.shape, a.dtype) if t is ZERO else t for t, a in zip(tangents[1:], avals)]
        return out, prim.bind(primals[0], *ts, **params)
    return jvp


def _lane_axis_at(v, d, axis_size, pos):
    """`v` with its batch axis at `pos` (broadcast there when unbatched)."""
    return moveaxis(bdim_at_front(v, d, axis_size), 0, pos) if pos else bdim_at_front(
        v, d, axis_size)


def _linear_batch(prim):
    """vmap of `while_lin` / `while_bwd`. Over their linear operands only (jacrev: the
    tape is shared), one more leading axis in `batch` and the bodies vmapped once more.
    Over a tape batched by vmap of the known loop (vmap of grad): the lanes' axis goes
    after the `batch` axes and the bodies take the tape's `Lanes`."""
    def batch_rule(vals, dims, axis_size, split, batch=(), lanes=None):
        if dims[0] is None:
            ops = [bdim_at_front(v, d, axis_size) for v, d in zip(vals[1:], dims[1:])]
            outs = prim.bind(vals[0], *ops, split=split, batch=(axis_size,) + tuple(batch),
                             lanes=lanes)
            return outs, [0] * len(outs)
        ln = aval_of(vals[0]).spec
        if lanes is not None or type(ln) is not Lanes:
            raise NotImplementedError(f"{prim.name}: a while_loop tape batched twice")
        pos = len(batch)
        ops = [_lane_axis_at(v, d, axis_size, pos) for v, d in zip(vals[1:], dims[1:])]
        outs = prim.bind(vals[0], *ops, split=split, batch=tuple(batch), lanes=ln)
        return outs, [pos] * len(outs)
    return batch_rule


while_lin_p = Primitive("while_lin", multiple_results=True)
while_lin_p.impl = _lin_impl
while_lin_p.abstract_eval = _lin_aval
while_lin_p.transpose = _lin_transpose
while_lin_p.jvp = _linear_jvp(while_lin_p)
while_lin_p.batch = _linear_batch(while_lin_p)

while_bwd_p = Primitive("while_bwd", multiple_results=True)
while_bwd_p.impl = _bwd_impl
while_bwd_p.abstract_eval = _bwd_aval
while_bwd_p.transpose = _bwd_transpose
while_bwd_p.jvp = _linear_jvp(while_bwd_p)
while_bwd_p.batch = _linear_batch(while_bwd_p)

TAPE_PRIMITIVES = [while_fwd_p, while_lin_p, while_bwd_p]


# ----------------------------------------------------------------------------- splitting
def split_and_bind(graphs, ops, unknown, checkpoint) -> list:
    """Bind the known loop (`while_fwd`) on the known operands now and the linear one
    (`while_lin`) on its tape and the unknown operands: the loop's outputs, in order."""
    ws = split_of(graphs, unknown, checkpoint)
    if ws is None:
        raise NotImplementedError(
            "reverse mode through while_loop: its predicate (cond_fun) depends on values "
            "being differentiated, so the loop cannot run before the backward pass. Compute "
            "the predicate from values without derivative (e.g. fg.stop_gradient(x)).")
    nq = len(graphs.cond.invars) - graphs.body.n_carry
    known = [x for x, u in zip(ops, ws.in_unknown) if not u]
    k_out = while_fwd_p.bind(*known, split=ws)
    uk = [x for x, u in zip(ops[nq:], ws.in_unknown[nq:]) if u]
    u_out = iter(while_lin_p.bind(k_out[-1], *uk, split=ws))
    k_iter = iter(k_out[:-1])
    return [next(u_out) if u else next(k_iter) for u in ws.out_unknown]


def _while_partial_eval(eqn, in_unknown):
    """`partial_eval_graph`'s rule: a `while` with known and unknown operands (its JVP inside
    jit, or nested in a scan body) becomes `while_fwd` (known) and `while_lin` (unknown)."""
    graphs, ckpt = eqn.params["graphs"], eqn.params.get("checkpoint", 0)
    ws = split_of(graphs, in_unknown, ckpt)
    if ws is None:
        return None
    nq = graphs.n_cond_consts
    ins = eqn.inputs
    tape = Var(ws.tape_aval)
    k_outs = [o for o, u in zip(eqn.outputs, ws.out_unknown) if not u]
    k_eqn = Eqn(while_fwd_p, [x for x, u in zip(ins, ws.in_unknown) if not u],
                {"split": ws}, k_outs + [tape], eqn.source)
    u_eqn = Eqn(while_lin_p, [tape] + [x for x, u in zip(ins[nq:], ws.in_unknown[nq:]) if u],
                {"split": ws}, [o for o, u in zip(eqn.outputs, ws.out_unknown) if u],
                eqn.source)
    return [k_eqn], [u_eqn]


partial_eval_rules[while_p] = _while_partial_eval


# ----------------------------------------------------------------------------- replay
# Reverse mode when the loop's primals carry an outer derivative under jit (jit(grad(grad)),
# jit(hessian), jacfwd(grad) under jit): a tape's residuals have no derivative, so the JVP
# rule stages the plain JVP `while` (primal and tangent carries) into the linear graph, and
# `while`'s transpose rule below replays it: the transposed body runs from the last trip to
# the first, and each trip's known carry is recomputed from the initial one by an inner
# while_loop. Everything it binds is an ordinary `while`, so the outer derivative
# differentiates it like any loop (a tape at the next order). Cost: O(n^2) known-body
# evaluations for n trips, memory O(1) per trip.
def _replay_split(graphs, args):
    """The split of a linear `while` equation's graphs (operands that are Vars, and carries
    they reach, unknown), or NotImplementedError when its predicate reads linear values."""
    ws = split_of(graphs, [type(a) is Var for a in args], 0)
    if ws is None:
        raise NotImplementedError(
            "transposing a while_loop: its predicate (cond_fun) depends on values being "
            "differentiated. Compute the predicate from values without derivative (e.g. "
            "fg.stop_gradient(x)).")
    return ws


def _known_step(ws, kb, h):
    """One trip of the known body: (next known carries, loop invariants, residuals)."""
    inv0 = [np.zeros(a.shape, a.dtype) for a in ws.scan.inv_avals]
    out = eval_graph(ws.scan.known.graph, list(kb) + list(h) + inv0)
    n_kh, nk = ws.n_kh, ws.n_kh + len(inv0)
    return out[:n_kh], out[n_kh:nk], out[nk:]


def _replay_transpose(cts, *args, graphs, checkpoint=0):
    ws = _replay_split(graphs, args)
    nq, nb = graphs.n_cond_consts, graphs.body.n_consts
    uk = ws.in_unknown
    q = [a for a, u in zip(args[:nq], uk[:nq]) if not u]
    kb = [a for a, u in zip(args[nq:nq + nb], uk[nq:nq + nb]) if not u]
    h0 = tuple(a for a, u in zip(args[nq + nb:], uk[nq + nb:]) if not u)
    ct0 = tuple(c if c is not None else np.zeros(_aval(a).shape, _aval(a).dtype)
                for c, a, u in zip(cts, args[nq + nb:], uk[nq + nb:]) if u)
    acc0 = tuple(np.zeros(a.shape, a.dtype) for a in _uc_avals(ws))
    zero = np.asarray(0, np.int64)

    def step(c):
        return c[0] + 1, tuple(_known_step(ws, kb, c[1])[0])

    def pred(c):
        return eval_graph(ws.cond, q + list(c[1]))[0]
    n = while_loop(pred, step, (zero, h0))[0]
    bwd = _bwd_body(ws, ())
    res_consts = [kb[i] for i in ws.res_const_pos]

    def back(c):
        i, acc, ct = c[0] - 1, c[1], c[2]
        h = while_loop(lambda d: d[0] < i, step, (zero, h0))[1]
        _, inv, res = _known_step(ws, kb, h)
        out = eval_graph(bwd.graph, res_consts + list(inv) + list(acc) + list(ct) + list(res))
        return i, tuple(out[:len(acc)]), tuple(out[len(acc):])
    _, acc, ct = while_loop(lambda c: c[0] > 0, back, (n, acc0, ct0))
    acc, ct = iter(acc), iter(ct)
    return ([None] * nq
            + [next(acc) if u else None for u in uk[nq:nq + nb]]
            + [next(ct) if u else None for u in uk[nq + nb:]])


def replay_jvp(graphs, jg, primals, jops, checkpoint):
    """The JVP of a `while` in reverse mode whose primals have an outer derivative: the
    primal loop, and the JVP loop staged whole into the linear graph (transposed by
    `_while_transpose`). Returns (primal outputs, all outputs of the JVP loop)."""
    return (while_p.bind(*primals, graphs=graphs, checkpoint=checkpoint),
            while_p.bind(*jops, graphs=jg, checkpoint=checkpoint))


while_p.transpose = _replay_transpose
