"""Rematerialization: `fg.checkpoint` / `fg.remat`, one primitive `remat` holding the
function's graph, policies deciding what the backward pass may keep, and `checkpoint_name`.

`remat(*operands, body=RematBody, policy=, prevent_cse=)` evaluates `body.graph`. It only
differs from a plain call under reverse mode: the forward pass keeps, of all the values
computed inside, only those the policy calls saveable; the backward pass recomputes the rest
from the checkpoint's operands. Rules:

- impl: evaluates the graph, dropping each value after its last reader (a checkpointed
  function's intermediates die when it returns, which is the point);
- JVP: a `remat` of the graph's JVP graph (forward mode, or a JVP staged by jit, stays one
  checkpointed equation). Under reverse mode's forward pass (tangents staged above the
  primals) it splits the JVP graph with `_remat_split`: a known `remat` computes the primal
  outputs and the saveable residuals now; an unknown `remat` is recorded on the tangents, whose
  graph recomputes every other value it needs from the checkpoint's operands, then applies
  the linear map;
- partial evaluation (`partial_eval_rules[remat_p]`, for jit's reverse mode and nested
  control flow): the same split of a `remat` equation mixing known and unknown operands;
- transpose: a `remat` whose graph runs the recomputation, then the backward pass of the
  linear rest (`backward_pass`, staged), so the recomputation stays inside the boundary in
  every later transform (grad of grad, jit of grad);
- batching: a `remat` of the graph's vmap;
- jit: the body is inlined before the passes (`passes.inline_rules`), so one buffer plan
  covers the program; with `prevent_cse` (the default) the inlined body reads its operands
  through an `optimization_barrier`, so CSE cannot merge the recomputation in the backward
  pass with the forward computation (which would keep every intermediate alive again).
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Sequence

import numpy as np

from ..config import config
from ..compiler import passes
from ..compiler.passes import dce, scalar_key
from ..core.ad_util import ZERO
from ..core.check import check_graph
from ..core.ir import PY_SCALARS, Eqn, Graph, HeldGraph, Literal, Var, aval_of
from ..core.primitive import Primitive
from ..core.trace import Tracer, current_traces
from .debug import GraphHoldingPrimitive
from ..transforms.ad import backward_pass
from ..transforms.batching import BatchTracer, batch_flat
from ..transforms.fresh import fresh_leaves, graph_arrays
from ..transforms.jit import _eval_inlined, jvp_graph_fun, stage_flat
from ..transforms.partial_eval import partial_eval_graph, partial_eval_rules
from ..transforms.staging import StagingTracer, eval_graph
from .. import tree as _tree
from .convolution import conv_general_dilated_p
from .dot import dot_general_p


# ----------------------------------------------------------------------------- checkpoint_name
name_p = Primitive("checkpoint_name")
name_p.impl = lambda x, name: x
name_p.abstract_eval = lambda x, name: x
# the tangent passes through untouched: only primal values are named (what policies see)
name_p.jvp = lambda primals, tangents, name: (name_p.bind(primals[0], name=name), tangents[0])
name_p.batch = lambda vals, dims, axis_size, name: (name_p.bind(vals[0], name=name), dims[0])
name_p.emit = lambda ctx, ins, out, name: ins[0]
# (jit drops it: policies are applied to the graphs before the passes)
passes.simplify_rules[name_p] = lambda eqn, ins, producers: (
    ins[0] if passes.can_stand_for(ins[0], eqn.outputs[0]) else None)


def checkpoint_name(x: Any, name: str) -> Any:
    """Identity on `x` (any pytree) that tags its values with `name`, for the policies
    `save_only_these_names` / `save_any_names_but_these` of `fg.checkpoint`.

    Example:
        >>> def layer(w, x):
        ...     h = fg.checkpoint_name(x @ w, "proj")   # may be saved by name
        ...     return fnp.tanh(h)
        >>> policy = fg.checkpoint_policies.save_only_these_names("proj")
        >>> saving_proj = fg.checkpoint(layer, policy=policy)
        >>> fg.grad(lambda w: saving_proj(w, np.ones(2)).sum())(np.zeros((2, 2)))
        array([[1., 1.],
               [1., 1.]])
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {type(name).__name__} "
                        f"({name!r:.40}); e.g. fg.checkpoint_name(x, 'proj')")
    return _tree.tree_map(lambda v: name_p.bind(v, name=name), x)


# ----------------------------------------------------------------------------- policies
class _Policy:
    """A policy: `policy(prim, *input_avals, **params) -> bool`, whether the outputs of one
    equation of a checkpointed function may be kept for the backward pass (JAX's protocol).
    Instances compare by value, so equal policies share derived graphs."""
    __slots__ = ()

    def _key(self):
        return ()

    def __eq__(self, other):
        return type(other) is type(self) and other._key() == self._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def __repr__(self):
        return f"{type(self).__name__}{self._key() or ''}"


class _Nothing(_Policy):
    """Nothing is saved (as with `policy=None`): the backward pass recomputes every value of
    the checkpointed function from its inputs.

    Example:
        >>> f = fg.checkpoint(lambda x: fnp.sin(fnp.sin(x)),
        ...                   policy=fg.checkpoint_policies.nothing_saveable)
        >>> fg.grad(f)(0.0)                   # cos(sin 0) cos 0
        array(1.)
        >>> print(fg.make_ir(fg.grad(f))(0.0))   # the second remat recomputes c = sin a
        { lambda a:f64[] .
          let
            b:f64[] = remat body={ checkpoint { lambda a:f64[] .
            let
              b:f64[] = sin a
              c:f64[] = sin b
            in ( c ) } } policy=_Nothing prevent_cse=True a
            c:f64[] = remat body={ checkpoint { lambda a:f64[] b:f64[] .
            let
              c:f64[] = sin a
              d:f64[] = cos a
              e:f64[] = cos c
              f:f64[] = mul b e
              g:f64[] = mul f d
            in ( g ) } } policy=_Nothing prevent_cse=True a 1.0
          in ( c ) }
    """
    __slots__ = ()

    def __call__(self, prim, *avals, **params):
        return False


class _Everything(_Policy):
    """Every value is saved: the backward pass recomputes nothing (as without checkpoint).

    Example:
        >>> f = fg.checkpoint(lambda x: fnp.sin(fnp.sin(x)),
        ...                   policy=fg.checkpoint_policies.everything_saveable)
        >>> print(fg.make_ir(fg.grad(f))(0.0))   # the first remat also returns cos a, cos b
        { lambda a:f64[] .
          let
            b:f64[] c:f64[] d:f64[] = remat body={ checkpoint { lambda a:f64[] .
            let
              b:f64[] = sin a
              c:f64[] = cos a
              d:f64[] = sin b
              e:f64[] = cos b
            in ( d c e ) } } policy=_Everything prevent_cse=True a
            e:f64[] = remat body={ checkpoint { lambda a:f64[] b:f64[] c:f64[] .
            let
              d:f64[] = mul c b
              e:f64[] = mul d a
            in ( e ) } } policy=_Everything prevent_cse=True c d 1.0
          in ( e ) }
    """
    __slots__ = ()

    def __call__(self, prim, *avals, **params):
        return True


class _Dots(_Policy):
    """Matrix products (and convolutions) are saved; with `no_batch_dims`, only dot_generals
    without batch dimensions.

    `dots_saveable` (alias `checkpoint_dots`) and `dots_with_no_batch_dims_saveable` (alias
    `checkpoint_dots_with_no_batch_dims`) are the two instances.

    Example:
        >>> w, x = np.zeros((2, 2)), np.ones(2)
        >>> layer = fg.checkpoint(lambda w, x: fnp.tanh(x @ w),
        ...                       policy=fg.checkpoint_policies.dots_saveable)
        >>> fg.grad(lambda w: layer(w, x).sum())(w)   # keeps x @ w; recomputes tanh
        array([[1., 1.],
               [1., 1.]])
        >>> fg.checkpoint_policies.checkpoint_dots is fg.checkpoint_policies.dots_saveable
        True
    """
    __slots__ = ("no_batch_dims",)

    def __init__(self, no_batch_dims: bool):
        self.no_batch_dims = no_batch_dims

    def _key(self):
        return (self.no_batch_dims,)

    def __call__(self, prim, *avals, **params):
        if prim is dot_general_p:
            return not self.no_batch_dims or params["dimension_numbers"][1] == ((), ())
        return prim is conv_general_dilated_p and not self.no_batch_dims


class _Names(_Policy):
    """Values tagged by `checkpoint_name` are saved: those among `names` (`only=True`), or
    those not among them (`only=False`). Untagged values are never saved."""
    __slots__ = ("names", "only")

    def __init__(self, names, only: bool):
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"checkpoint policy: names must be str, got "
                                f"{type(n).__name__} ({n!r:.40})")
        self.names, self.only = frozenset(names), only

    def _key(self):
        return (tuple(sorted(self.names)), self.only)

    def __call__(self, prim, *avals, **params):
        return prim is name_p and (params["name"] in self.names) == self.only


class _Both(_Policy):
    """Saved if either policy saves it."""
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def _key(self):
        return (self.a, self.b)

    def __call__(self, prim, *avals, **params):
        return bool(self.a(prim, *avals, **params) or self.b(prim, *avals, **params))


def save_only_these_names(*names: str) -> _Policy:
    """Save the values tagged by `checkpoint_name` with one of `names`; recompute the rest.

    Example:
        >>> def layer(w, x):
        ...     return fnp.tanh(fg.checkpoint_name(x @ w, "proj"))
        >>> policy = fg.checkpoint_policies.save_only_these_names("proj")
        >>> f = fg.checkpoint(layer, policy=policy)   # every residual but "act" saved
        >>> fg.grad(lambda w: f(w, np.ones(2)).sum())(np.zeros((2, 2)))
        array([[1., 1.],
               [1., 1.]])
    """
    return _Names(names, True)


def save_any_names_but_these(*names: str) -> _Policy:
    """Save every value tagged by `checkpoint_name` except those named in `names`.

    Example:
        >>> def layer(w, x):
        ...     h = fg.checkpoint_name(x @ w, "proj")
        ...     return fg.checkpoint_name(fnp.tanh(h), "act") * 2.0
        >>> policy = fg.checkpoint_policies.save_any_names_but_these("act")   # keeps "proj"
        >>> f = fg.checkpoint(layer, policy=policy)
        >>> fg.grad(lambda w: f(w, np.ones(2)).sum())(np.zeros((2, 2)))
        array([[2., 2.],
               [2., 2.]])
    """
    return _Names(names, False)


class _AnythingBut(_Policy):
    """Every value is saved except those tagged by `checkpoint_name` with one of `names`
    (untagged values are saved too, unlike `_Names`)."""
    __slots__ = ("names",)

    def __init__(self, names):
        self.names = _Names(names, True).names  # (same str check)

    def _key(self):
        return (tuple(sorted(self.names)),)

    def __call__(self, prim, *avals, **params):
        return prim is not name_p or params["name"] not in self.names


def save_anything_except_these_names(*names: str) -> _Policy:
    """Save every value, tagged or not, except those tagged by `checkpoint_name` with one of
    `names`: these are recomputed in the backward pass.

    Example:
        >>> def layer(w, x):
        ...     return fg.checkpoint_name(fnp.tanh(x @ w), "act") * 2.0
        >>> policy = fg.checkpoint_policies.save_anything_except_these_names("act")
        >>> f = fg.checkpoint(layer, policy=policy)   # every residual but "act" saved
        >>> fg.grad(lambda w: f(w, np.ones(2)).sum())(np.zeros((2, 2)))
        array([[2., 2.],
               [2., 2.]])
    """
    return _AnythingBut(names)


def save_from_both_policies(a: Callable, b: Callable) -> _Policy:
    """Save what either policy saves.

    Example:
        >>> def layer(w, x):
        ...     return fg.checkpoint_name(fnp.tanh(x @ w), "act")
        >>> cp = fg.checkpoint_policies
        >>> policy = cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("act"))
        >>> f = fg.checkpoint(layer, policy=policy)   # keeps x @ w and tanh(x @ w)
        >>> fg.grad(lambda w: f(w, np.ones(2)).sum())(np.zeros((2, 2)))
        array([[1., 1.],
               [1., 1.]])
    """
    return _Both(a, b)


class _Policies:
    """`fg.checkpoint_policies`: JAX's policy names. A policy is any callable
    `policy(prim, *input_avals, **params) -> bool`."""
    nothing_saveable = _Nothing()
    everything_saveable = _Everything()
    dots_saveable = checkpoint_dots = _Dots(False)
    dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = _Dots(True)
    save_only_these_names = staticmethod(save_only_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_anything_except_these_names = staticmethod(save_anything_except_these_names)
    save_from_both_policies = staticmethod(save_from_both_policies)

    def __repr__(self):
        return "fg.checkpoint_policies"


checkpoint_policies = _Policies()


def _saveable(policy, eqn) -> bool:
    if policy is None:
        return False
    return bool(policy(eqn.prim, *[v.aval for v in eqn.inputs], **eqn.params))


# ----------------------------------------------------------------------------- the body
class RematBody(HeldGraph):
    """The graph of one `remat` equation (its `body` parameter), plus graphs derived from it
    (JVP, splits, transposition, batching, compiled code), made once."""
    __slots__ = ("_drops",)

    def __init__(self, graph: Graph, where: str = "checkpoint body"):
        super().__init__(graph)
        self._drops = None
        if config.check_graphs:
            check_graph(graph, where=where)

    def with_graphs(self, graphs) -> "RematBody":
        return RematBody(graphs[0])

    def drops(self) -> list:
        """Per equation, the Vars whose last reader it is (freed right after it runs)."""
        if self._drops is None:
            g = self.graph
            last = {v: -1 for v in g.invars}
            for i, e in enumerate(g.eqns):
                for v in e.inputs:
                    if type(v) is Var:
                        last[v] = i
                for o in e.outputs:
                    last.setdefault(o, i)
            for v in g.outvars:
                last.pop(v, None)  # (returned: never freed)
            drops: list = [[] for _ in range(len(g.eqns) + 1)]
            for v, i in last.items():
                drops[i + 1].append(v)
            self._drops = drops
        return self._drops

    def __repr__(self):
        return "{ checkpoint " + str(self.graph).replace("\n", "\n  ") + " }"


def _stage_closed(fun: Callable, in_avals) -> Graph:
    graph, lifted = stage_flat(fun, in_avals)
    assert not lifted, "a derived checkpoint graph closed over a traced value"
    return graph


def _eval_body(body: RematBody, args) -> list:
    """`eval_graph` that drops every value after its last reader (so the peak is that of the
    function itself, not of all its intermediates at once)."""
    g = body.graph
    drops = body.drops()
    env = dict(zip(g.invars, args))
    for v in drops[0]:
        env.pop(v, None)
    for i, eqn in enumerate(g.eqns):
        ins = [v.value if type(v) is Literal else env[v] for v in eqn.inputs]
        out = eqn.prim.bind(*ins, **eqn.params)
        ins = None
        if eqn.prim.multiple_results:
            env.update(zip(eqn.outputs, out))
        else:
            env[eqn.outputs[0]] = out
        out = None
        for v in drops[i + 1]:
            del env[v]
    return [v.value if type(v) is Literal else env[v] for v in g.outvars]


# ----------------------------------------------------------------------------- the primitive
def _remat_aval(*avals, body, policy, prevent_cse):
    want = body.in_avals
    if len(avals) != len(want) or any(a.shape != w.shape or a.dtype != w.dtype
                                      for a, w in zip(avals, want)):
        raise TypeError(f"checkpoint: operands ({', '.join(a.str_short() for a in avals)}) do "
                        f"not match the function's inputs "
                        f"({', '.join(w.str_short() for w in want)})")
    return body.out_avals


def _remat_impl(*args, body, policy, prevent_cse):
    outs = [np.asarray(o) if type(o) in PY_SCALARS else o for o in _eval_body(body, args)]
    return fresh_leaves(outs, list(args) + graph_arrays(body.graph))


remat_p = GraphHoldingPrimitive("remat", multiple_results=True)
remat_p.impl = _remat_impl
remat_p.abstract_eval = _remat_aval


def _bind(args, body, policy, prevent_cse) -> list:
    return remat_p.bind(*args, body=body, policy=policy, prevent_cse=prevent_cse)


# ----------------------------------------------------------------------------- the split
class _Split:
    """A graph split for reverse mode under a policy.

    `known`: (known inputs) -> (known outputs, saved residuals);
    `unknown`: (known inputs at `passed`, saved residuals, unknown inputs) -> (unknown
    outputs); it recomputes every other known value it reads. `out_unknown` per output."""
    __slots__ = ("known", "unknown", "passed", "n_saved", "out_unknown")

    def __init__(self, known, unknown, passed, n_saved, out_unknown):
        self.known, self.unknown = known, unknown
        self.passed, self.n_saved, self.out_unknown = passed, n_saved, out_unknown


def _remat_split(graph: Graph, in_unknown, policy, instantiate=False, require_known=False,
                 where="reverse mode through fg.checkpoint") -> _Split:
    """Split `graph` as `partial_eval_graph` does, then move every residual the policy does
    not save (and the equations computing it, back to saved values or known inputs) into the
    unknown part, which recomputes it. Effectful equations (debug callbacks) run again in
    the recomputation, as they would in the function."""
    pe = partial_eval_graph(graph, in_unknown, instantiate=instantiate,
                            require_known=require_known, where=where)
    k = pe.known
    n_kout = len(k.outvars) - pe.n_residuals
    producer = {o: e for e in k.eqns for o in e.outputs}
    known_in = {v: i for i, v in enumerate(k.invars)}
    passed, saved, recompute = set(), set(), set()
    stack = list(k.outvars[n_kout:])
    for e in k.eqns:
        if e.prim.effectful:
            recompute.add(e)
            stack.extend(e.inputs)
    while stack:
        v = stack.pop()
        if type(v) is not Var or v in passed or v in saved:
            continue
        if v in known_in:
            passed.add(v)
            continue
        e = producer[v]
        if e in recompute:
            continue
        if _saveable(policy, e):
            saved.add(v)
        else:
            recompute.add(e)
            stack.extend(e.inputs)
    passed_vars = [v for v in k.invars if v in passed]
    saved_vars = [o for e in k.eqns for o in e.outputs if o in saved]
    known = dce(Graph(k.invars, k.eqns, list(k.outvars[:n_kout]) + saved_vars))
    unknown_in = list(pe.unknown.invars[pe.n_residuals:])
    unknown = dce(Graph(passed_vars + saved_vars + unknown_in,
                        [e for e in k.eqns if e in recompute] + pe.unknown.eqns,
                        pe.unknown.outvars))
    return _Split(RematBody(known, f"{where}: known part"),
                  RematBody(unknown, f"{where}: recomputing part"),
                  [known_in[v] for v in passed_vars], len(saved_vars), pe.out_unknown)


# ----------------------------------------------------------------------------- JVP
def _jvp_body(body: RematBody, nonzero) -> tuple:
    """(RematBody of (primals, nonzero tangents) -> (primal outs, nonzero tangent outs), which
    tangent outputs are nonzero). Nested jitted calls are inlined (their JVP would be one
    equation mixing primals and tangents, which reverse mode could not split)."""
    t_avals = [v.aval for v, nz in zip(body.graph.invars, nonzero) if nz]
    fun, out_nz = jvp_graph_fun(body.graph, nonzero, _eval_inlined)
    g = _stage_closed(fun, body.in_avals + t_avals)
    return RematBody(g, "checkpoint JVP"), list(out_nz)


def _level(x) -> int:
    return x._trace.level if isinstance(x, Tracer) else -1


def _remat_jvp(primals, tangents, body, policy, prevent_cse):
    nonzero = tuple(t is not ZERO for t in tangents)
    n_out = len(body.out_avals)
    if not any(nonzero):
        return _bind(primals, body, policy, prevent_cse), [ZERO] * n_out
    nz = [t for t in tangents if t is not ZERO]
    jb, out_nz = body.derived(("jvp", nonzero), lambda: _jvp_body(body, nonzero))
    primal_level = max([_level(p) for p in primals], default=-1)
    if any(type(t) is StagingTracer and t._trace.level > primal_level for t in nz):
        return _remat_linearize(primals, nz, jb, out_nz, n_out, policy, prevent_cse)
    outs = _bind(list(primals) + nz, jb, policy, prevent_cse)
    t_out = iter(outs[n_out:])
    return outs[:n_out], [next(t_out) if z else ZERO for z in out_nz]


def _remat_linearize(primals, nz, jb, out_nz, n_out, policy, prevent_cse):
    """Reverse mode's forward pass: the known remat runs now (primal outputs, saved
    residuals); the unknown one, recomputing the rest, is recorded on the staged tangents."""
    n_t = sum(out_nz)
    split = jb.derived(("linearize", policy), lambda: _remat_split(
        jb.graph, [False] * len(primals) + [True] * len(nz), policy,
        instantiate=[False] * n_out + [True] * n_t,
        require_known=[True] * n_out + [False] * n_t))
    outs = _bind(primals, split.known, policy, prevent_cse)
    res = [primals[i] for i in split.passed] + list(outs[n_out:])
    outs = outs[:n_out]
    if not n_t:  # (no output depends on the tangents: nothing to record)
        return outs, [ZERO] * n_out
    t_out = iter(_bind(res + nz, split.unknown, policy, prevent_cse))
    return outs, [next(t_out) if z else ZERO for z in out_nz]


remat_p.jvp = _remat_jvp


# ----------------------------------------------------------------------------- partial evaluation
def _remat_partial_eval(eqn, in_unknown):
    """`partial_eval_graph`'s rule: a remat with known and unknown operands splits into a
    known remat (known outputs, saved residuals) and an unknown one that recomputes."""
    body, policy = eqn.params["body"], eqn.params["policy"]
    split = body.derived(("partial_eval", tuple(in_unknown), policy),
                         lambda: _remat_split(body.graph, in_unknown, policy))
    known_ins = [v for v, u in zip(eqn.inputs, in_unknown) if not u]
    saved = [Var(a) for a in split.known.out_avals[len(split.known.out_avals) - split.n_saved:]]
    params = dict(eqn.params)
    k_eqn = Eqn(remat_p, known_ins, dict(params, body=split.known),
                [o for o, u in zip(eqn.outputs, split.out_unknown) if not u] + saved,
                eqn.source)
    u_outs = [o for o, u in zip(eqn.outputs, split.out_unknown) if u]
    if not u_outs:
        return [k_eqn], []
    u_eqn = Eqn(remat_p, [known_ins[i] for i in split.passed] + saved
                + [v for v, u in zip(eqn.inputs, in_unknown) if u],
                dict(params, body=split.unknown), u_outs, eqn.source)
    return [k_eqn], [u_eqn]


partial_eval_rules[remat_p] = _remat_partial_eval


# ----------------------------------------------------------------------------- transpose
def _transpose_body(body: RematBody, linear, ct_nz) -> tuple:
    """(RematBody of (non-linear operands, nonzero output cotangents) -> nonzero cotangents of
    the linear operands, which linear operands get one). Its graph first recomputes the
    values the linear part reads from the non-linear operands (residuals), then runs the
    backward pass of the linear part."""
    g = body.graph
    pe = partial_eval_graph(g, list(linear), where="transposing fg.checkpoint")
    n_res = sum(not lin for lin in linear)
    ct_avals = [v.aval for v, nz in zip(g.outvars, ct_nz) if nz]
    flags: list = []

    def fun(*args):
        recomputed = eval_graph(pe.known, args[:n_res])
        res = recomputed[len(recomputed) - pe.n_residuals:]
        # the recomputed values are constants of the linear part, as reverse mode's are
        sub = {v: Literal(r, v.aval) for v, r in zip(pe.unknown.invars, res)}

        def s(v):
            return sub.get(v, v) if type(v) is Var else v
        eqns = [Eqn(e.prim, [s(v) for v in e.inputs], e.params, e.outputs)
                for e in pe.unknown.eqns]
        lin = Graph(pe.unknown.invars[pe.n_residuals:], eqns, [s(v) for v in pe.unknown.outvars])
        cts = iter(args[n_res:])
        cts_out = [next(cts) if nz else None for nz in ct_nz]
        cts_in = backward_pass(lin, [c for c, unk in zip(cts_out, pe.out_unknown) if unk])
        flags[:] = [c is not None for c in cts_in]
        return [c for c in cts_in if c is not None]
    avals = [v.aval for v, lin in zip(g.invars, linear) if not lin] + ct_avals
    tg = _stage_closed(fun, avals)
    return RematBody(tg, "checkpoint transpose"), list(flags)


def _remat_transpose(cts, *args, body, policy, prevent_cse):
    linear = tuple(type(a) is Var for a in args)
    ct_nz = tuple(c is not None for c in cts)
    tb, got = body.derived(("transpose", linear, ct_nz),
                           lambda: _transpose_body(body, linear, ct_nz))
    res = [a for a, lin in zip(args, linear) if not lin]
    outs = iter(_bind(res + [c for c in cts if c is not None], tb, policy, prevent_cse))
    got = iter(got)
    return [(next(outs) if next(got) else None) if lin else None for lin in linear]


remat_p.transpose = _remat_transpose


# ----------------------------------------------------------------------------- batching
def _batch_body(body: RematBody, in_avals, dims, axis_size) -> tuple:
    """(RematBody of the batched operands -> outputs, batched ones at axis 0; their dims)."""
    flags: list = []

    def fun(*xs):
        def inner(ins):
            outs = eval_graph(body.graph, ins)
            flags[:] = [type(o) is BatchTracer for o in outs]
            return outs, [0 if f else None for f in flags]
        return batch_flat("checkpoint", inner, list(xs), list(dims), axis_size)[0]
    g = _stage_closed(fun, in_avals)
    return RematBody(g, "checkpoint batched"), [0 if f else None for f in flags]


def _remat_batch(vals, dims, axis_size, body, policy, prevent_cse):
    in_avals = [aval_of(x) for x in vals]
    bb, out_dims = body.derived(("batch", tuple(dims), axis_size, tuple(in_avals)),
                                lambda: _batch_body(body, in_avals, dims, axis_size))
    return _bind(vals, bb, policy, prevent_cse), out_dims


remat_p.batch = _remat_batch


# ----------------------------------------------------------------------------- jit
# jit inlines a remat's body before its passes (`passes.inline_rules`), so one buffer plan
# covers the whole program. With prevent_cse, the body reads its operands through an
# `optimization_barrier`, a tagged identity that CSE never merges with another, so the
# recomputation in the backward pass is never merged with the forward computation (which
# would keep every intermediate alive until the backward pass: no memory saved).
barrier_p = Primitive("optimization_barrier", multiple_results=True)
barrier_p.impl = lambda *xs, tag: list(xs)
barrier_p.abstract_eval = lambda *avals, tag: list(avals)
barrier_p.jvp = lambda primals, tangents, tag: (barrier_p.bind(*primals, tag=tag), tangents)
barrier_p.transpose = lambda cts, *xs, tag: list(cts)
barrier_p.batch = lambda vals, dims, axis_size, tag: (barrier_p.bind(*vals, tag=tag), dims)
barrier_p.emit = lambda ctx, ins, out, tag: "(" + "".join(f"{x}, " for x in ins) + ")"
_barrier_tags = itertools.count()


def _remat_inline(eqn, ins):
    body = eqn.params["body"].graph
    eqns = []
    if eqn.params["prevent_cse"]:
        # (one barrier operand per Var: an operand may be read twice)
        fresh = {v: Var(v.aval) for v in ins if type(v) is Var}
        if fresh:
            eqns.append(Eqn(barrier_p, list(fresh), {"tag": next(_barrier_tags)},
                            list(fresh.values()), eqn.source))
            ins = [fresh.get(v, v) if type(v) is Var else v for v in ins]
    more, atoms = passes.body_copy(body, ins)
    return eqns + more, atoms


passes.inline_rules[remat_p] = _remat_inline

REMAT_PRIMITIVES = [remat_p, name_p, barrier_p]


# ----------------------------------------------------------------------------- checkpoint
_BODY_CACHE_SIZE = 64


def _graph_key(graph: Graph):
    """A hashable key, equal for graphs that compute the same thing: the same equations with
    equal parameters on the same constants (arrays by identity: a cached graph holds them, so
    their ids are not reused while it lives); None if a parameter is not hashable."""
    index = {v: i for i, v in enumerate(graph.invars)}

    def atom(v):
        if type(v) is Var:
            return index[v]
        x = v.value
        if type(x) in PY_SCALARS:  # (-0.0 and 0.0 apart: see scalar_key)
            return scalar_key(x) + (v.aval.dtype, v.aval.weak_type)
        return ("id", id(x))
    parts = [tuple((v.aval.shape, v.aval.dtype, v.aval.weak_type) for v in graph.invars)]
    for e in graph.eqns:
        params = tuple((k,) + scalar_key(x) for k, x in sorted(e.params.items()))
        try:
            hash(params)
        except TypeError:
            return None
        parts.append((e.prim, params, tuple(atom(v) for v in e.inputs)))
        for o in e.outputs:
            index[o] = len(index)
    parts.append(tuple(atom(v) for v in graph.outvars))
    return tuple(parts)


def _cached_body(cache: dict, graph: Graph, name: str) -> RematBody:
    """One RematBody per distinct graph of a checkpointed function (the layers of a network
    share one), so the graphs derived from it (JVP, split, transpose) are made once."""
    key = _graph_key(graph)
    body = cache.get(key) if key is not None else None
    if body is None:
        body = RematBody(graph, f"checkpoint({name})")
        if key is not None:
            if len(cache) >= _BODY_CACHE_SIZE:
                cache.clear()
            cache[key] = body
    return body


def _transforming() -> bool:
    return bool(current_traces())


def _static_positions(name, static_argnums, nargs) -> set:
    out = set()
    for i in static_argnums:
        if not -nargs <= i < nargs:
            raise ValueError(f"checkpoint({name}): static_argnums contains {i}, but the call "
                             f"has {nargs} positional argument(s)")
        out.add(i % nargs)
    return out


def _operand(name, where, x):
    if isinstance(x, Tracer) or type(x) is np.ndarray:
        return x
    if type(x) in PY_SCALARS or isinstance(x, np.generic):
        return np.asarray(x)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return x
    raise TypeError(f"checkpoint({name}): {where} holds a {type(x).__name__} ({x!r:.40}), "
                    "which is not an array or a Python scalar; pass it through "
                    "static_argnums (checkpoint(f, static_argnums=(i,)))")


def checkpoint(fun: Callable, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
    """`fun`, whose intermediate values are recomputed in the backward pass instead of being
    kept from the forward pass (JAX's `jax.checkpoint`, alias `fg.remat`).

    Values are those of `fun`; derivatives are too. Under `grad` / `vjp` (eager or under
    `jit`) the forward pass keeps only the inputs of `fun` and the values `policy` calls
    saveable (`fg.checkpoint_policies`; None saves nothing), and the backward pass runs
    `fun` again to get the rest: less peak memory for about one more forward pass.
    `static_argnums` marks arguments that are not arrays (they are passed as they are).
    `prevent_cse=False` lets `jit` merge the recomputation with the forward computation
    (common-subexpression elimination), which undoes the saving (as in JAX, where it is
    meant for a checkpoint inside a loop body).

    Example:
        >>> w, x = np.zeros((2, 2)), np.ones(2)
        >>> layer = fg.checkpoint(lambda w, x: fnp.tanh(x @ w))
        >>> fg.grad(lambda w: layer(w, x).sum())(w)   # as without checkpoint: tanh'(0) = 1
        array([[1., 1.],
               [1., 1.]])
        >>> keep_dots = fg.checkpoint(layer, policy=fg.checkpoint_policies.dots_saveable)
        >>> fg.grad(lambda w: keep_dots(w, x).sum())(w)   # keeps x @ w, recomputes tanh
        array([[1., 1.],
               [1., 1.]])
    """
    if not callable(fun):
        raise TypeError(f"checkpoint: expected a function, got {type(fun).__name__}")
    if policy is not None and not callable(policy):
        raise TypeError(f"checkpoint: policy must be None or a callable policy(prim, *avals, "
                        f"**params) -> bool such as fg.checkpoint_policies.dots_saveable, got "
                        f"{type(policy).__name__}")
    try:
        hash(policy)  # (graphs derived under a policy are cached by it)
    except TypeError:
        raise TypeError(f"checkpoint: policy must be hashable, got an unhashable "
                        f"{type(policy).__name__}; use a function or a frozen dataclass")
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    static_argnums = tuple(static_argnums)
    if not all(isinstance(i, int) for i in static_argnums):
        raise TypeError(f"checkpoint: static_argnums must be ints, got {static_argnums!r}")
    name = getattr(fun, "__name__", type(fun).__name__)
    prevent_cse = bool(prevent_cse)
    bodies: dict = {}  # graph key -> RematBody (see _cached_body)

    @functools.wraps(fun)
    def checkpointed(*args, **kwargs):
        if not _transforming():  # no transform: nothing is kept for a backward pass
            return fun(*args, **kwargs)
        static = _static_positions(name, static_argnums, len(args))
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = _tree.tree_flatten((dyn, kwargs))
        operands = [_operand(name, "an argument", x) for x in leaves]
        # Python scalars are traced weak-typed, as jit does (x32 * 2.0 stays float32)
        in_avals = [x.aval if isinstance(x, Tracer) else aval_of(x) for x in leaves]
        box = []

        def flat(*xs):
            d, kw = _tree.tree_unflatten(in_tree, list(xs))
            d = iter(d)
            full = [a if i in static else next(d) for i, a in enumerate(args)]
            out_leaves, out_tree = _tree.tree_flatten(fun(*full, **kw))
            box.append(out_tree)
            return [_operand(name, "its output", o) for o in out_leaves]
        graph, lifted = stage_flat(flat, in_avals)
        body = _cached_body(bodies, graph, name)
        outs = _bind(operands + list(lifted), body, policy, prevent_cse)
        return _tree.tree_unflatten(box[0], outs)

    return checkpointed


remat = checkpoint

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies", "remat_p",
           "name_p", "RematBody"]
