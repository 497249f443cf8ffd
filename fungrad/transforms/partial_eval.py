"""Partial evaluation: split a graph into the part computable now and the part that must wait.

Given which inputs of a `Graph` are *unknown* (not available yet, e.g. tangents), an
equation is *known* iff all its `Var` inputs are known (Literals are always known); its
outputs are then known too. `partial_eval_graph` returns two graphs:

- `known`:   (known inputs) -> (known outputs, residuals)
- `unknown`: (residuals, unknown inputs) -> (unknown outputs)

where the residuals are the known values the unknown part reads. Running `known` now and
`unknown` later gives the outputs of the whole graph. Reverse mode splits a JVP graph this
way (primal inputs known, tangents unknown: the unknown part is the linear map to
transpose); remat, scan and while_loop can reuse it. It is a pure graph -> graphs function:
it compiles and evaluates nothing.
"""
from __future__ import annotations

from typing import Sequence

from ..config import config
from ..core.check import check_graph
from ..core.ir import Eqn, Graph, ShapedArray, Var
from ..compiler.passes import dce

# Primitive -> rule(eqn, in_unknown) splitting an equation with both known and unknown
# operands into ([known eqns], [unknown eqns]) (or None: all of it is unknown). Higher-order
# primitives (cond) fill it, so their JVP equations, which mix primal and tangent values,
# still split; lax fills it next to the primitive's other rules.
partial_eval_rules: dict = {}


class PartialEval:
    """The result of `partial_eval_graph`.

    Attributes:
        known: Graph (known inputs, in order) -> (known outputs, in order) + residuals.
        unknown: Graph residuals + (unknown inputs, in order) -> (unknown outputs, in order).
        out_unknown: per output of the original graph, whether `unknown` returns it (True)
            or `known` does (False).
        residual_avals: abstract values of the residuals, in the order `known` returns them
            and `unknown` takes them.
    """
    __slots__ = ("known", "unknown", "out_unknown", "residual_avals")

    def __init__(self, known: Graph, unknown: Graph, out_unknown: tuple,
                 residual_avals: list[ShapedArray]):
        self.known = known
        self.unknown = unknown
        self.out_unknown = out_unknown
        self.residual_avals = residual_avals

    @property
    def n_residuals(self) -> int:
        return len(self.residual_avals)

    def merge_outputs(self, known_outs: Sequence, unknown_outs: Sequence) -> list:
        """The original graph's outputs, in order, from `known`'s outputs (residuals may be
        included; they are ignored) and `unknown`'s outputs."""
        k, u = iter(known_outs), iter(unknown_outs)
        return [next(u) if unk else next(k) for unk in self.out_unknown]

    def __repr__(self):
        return (f"PartialEval(out_unknown={list(self.out_unknown)}, "
                f"residuals={self.residual_avals},\n known={self.known},\n "
                f"unknown={self.unknown})")


def _flags(value, n: int, name: str, kind: str) -> list:
    if isinstance(value, bool):
        return [value] * n
    flags = [bool(f) for f in value]
    if len(flags) != n:
        raise ValueError(f"partial_eval_graph: {name} has {len(flags)} entries but the graph "
                         f"has {n} {kind}s; pass one bool per {kind} (or one bool for all)")
    return flags


def _mixing_culprits(graph: Graph, known: set, missing: set) -> tuple:
    """(primitive names, unknown graph inputs) where unknown values enter the computation of
    the `missing` outputs: the unknown equations on their paths none of whose unknown inputs
    come from another such equation. (Only on the error path.)"""
    needed = set(missing)
    on_path: list = []
    for eqn in reversed(graph.eqns):
        if needed.intersection(eqn.outputs):  # (needed holds unknown Vars only)
            on_path.append(eqn)
            needed.update(v for v in eqn.inputs if type(v) is Var and v not in known)
    produced = {v for e in on_path for v in e.outputs}
    prims = sorted({e.prim.name for e in on_path
                    if not any(type(v) is Var and v in produced for v in e.inputs)})
    inputs = [i for i, v in enumerate(graph.invars) if v in needed and v not in known]
    return prims, inputs


def _check_required(graph, known, require_known, where, hint):
    missing = {v for v, req in zip(graph.outvars, require_known)
               if req and type(v) is Var and v not in known}
    if not missing:
        return
    outs = [i for i, v in enumerate(graph.outvars) if v in missing]
    prims, inputs = _mixing_culprits(graph, known, missing)
    if prims:
        why = (f"they are computed from unknown values by {', '.join(prims)}: partial "
               "evaluation splits a graph by whole equations, so an equation whose outputs "
               "mix values that must be known with unknown ones cannot be split")
    else:
        why = f"they are unknown graph input(s) {inputs}"
    raise NotImplementedError(
        f"{where}: output(s) {outs} must be known (computable from the known inputs alone), "
        f"but {why}. {hint}".rstrip())


def partial_eval_graph(graph: Graph, unknown_inputs: bool | Sequence[bool], *,
                       instantiate: bool | Sequence[bool] = False,
                       require_known: bool | Sequence[bool] = False,
                       where: str = "partial_eval_graph", hint: str = "") -> PartialEval:
    """Split `graph` into a known part (needs only the known inputs) and an unknown part.

    Args:
        graph: the graph to split (left unchanged; the parts share its Vars and Eqns).
        unknown_inputs: one bool per input of `graph` (or one for all): True if it is not
            available now.
        instantiate: per output (or one bool for all): True to have `unknown` return it even
            if it is known (it is passed through as a residual), so that a caller gets all
            those outputs from one place, e.g. all tangent outputs from the linear part.
        require_known: per output (or one bool for all): True if it must be known; if it is
            not, NotImplementedError is raised, naming the primitive(s) whose equation
            mixes known and unknown values (or the unknown inputs it depends on), prefixed
            by `where` and followed by `hint`.

    Returns:
        a `PartialEval`: `known` (known inputs -> known outputs + residuals), `unknown`
        (residuals + unknown inputs -> unknown outputs), `out_unknown` and `residual_avals`.
        Residuals are exactly the known Vars that `unknown` reads (equation inputs and
        instantiated known outputs), each once, in order of first use. Both parts are
        dead-code eliminated.

    Example:
        >>> # a JVP graph (x, t) -> (sin x, cos x * t): x known, t unknown
        >>> pe = partial_eval_graph(graph, [False, True], require_known=[True, False])
        >>> k = eval_graph(pe.known, [x])              # [sin x, cos x]
        >>> u = eval_graph(pe.unknown, k[1:] + [t])    # [cos x * t]
        >>> pe.merge_outputs(k, u)                     # == eval_graph(graph, [x, t])
    """
    unknown_in = _flags(unknown_inputs, len(graph.invars), "unknown_inputs", "input")
    instantiate = _flags(instantiate, len(graph.outvars), "instantiate", "output")
    require_known = _flags(require_known, len(graph.outvars), "require_known", "output")
    known = {v for v, unk in zip(graph.invars, unknown_in) if not unk}
    known_eqns: list[Eqn] = []
    unknown_eqns: list[Eqn] = []
    for eqn in graph.eqns:
        if all(type(v) is not Var or v in known for v in eqn.inputs):
            known_eqns.append(eqn)
            known.update(eqn.outputs)
            continue
        rule = partial_eval_rules.get(eqn.prim)
        split = rule(eqn, [type(v) is Var and v not in known for v in eqn.inputs]) if rule \
            else None
        if split is None:
            unknown_eqns.append(eqn)
            continue
        for e in split[0]:
            known_eqns.append(e)
            known.update(e.outputs)
        unknown_eqns.extend(split[1])
    _check_required(graph, known, require_known, where, hint)

    # an output is unknown if computed from unknown values, or instantiated; a Literal is
    # known (an instantiated one stays a Literal of `unknown`, needing no residual)
    out_unknown = tuple((type(v) is Var and v not in known) or inst
                        for v, inst in zip(graph.outvars, instantiate))
    unknown_outs = [v for v, unk in zip(graph.outvars, out_unknown) if unk]
    unknown_invars = [v for v, unk in zip(graph.invars, unknown_in) if unk]
    unknown_eqns = dce(Graph(unknown_invars, unknown_eqns, unknown_outs)).eqns
    residuals: list[Var] = []
    seen: set = set()
    reads = [v for e in unknown_eqns for v in e.inputs] + unknown_outs
    for v in reads:
        if type(v) is Var and v in known and v not in seen:
            seen.add(v)
            residuals.append(v)

    known_invars = [v for v, unk in zip(graph.invars, unknown_in) if not unk]
    known_outs = [v for v, unk in zip(graph.outvars, out_unknown) if not unk]
    known_graph = dce(Graph(known_invars, known_eqns, known_outs + residuals))
    unknown_graph = Graph(residuals + unknown_invars, unknown_eqns, unknown_outs)
    if config.check_graphs:
        check_graph(known_graph, where=f"{where}: known part")
        check_graph(unknown_graph, where=f"{where}: unknown part")
    return PartialEval(known_graph, unknown_graph, out_unknown,
                       [v.aval for v in residuals])
