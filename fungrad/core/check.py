"""A type checker for the IR: every graph a transform stages or a pass rewrites must pass it.

`check_graph(graph)` verifies that the graph is well formed (each `Var` defined once, before
it is read; outputs defined) and well typed (each equation's output avals are what its
primitive's `abstract_eval` says). Optimized graphs may let an elementwise operation read an
operand that NumPy broadcasts (`relaxed=True` accepts that). Tests switch it on for every
staged and optimized graph with `fg.config.update("check_graphs", True)`.

    >>> import fungrad as fg, numpy as np
    >>> from fungrad.core.check import check_graph
    >>> check_graph(fg.make_ir(lambda x: x * 2.0)(np.ones(3)).graph)
"""
from __future__ import annotations

import numpy as np

from ..errors import IRTypeError
from .ir import Graph, Literal, Var


def _avals_agree(expected, actual) -> bool:
    # weak types are a tracing-time property of Python scalars: shapes and dtypes decide
    return tuple(expected.shape) == tuple(actual.shape) and expected.dtype == actual.dtype


def _broadcasts_to(in_avals, out_aval) -> bool:
    try:
        shape = np.broadcast_shapes(*[a.shape for a in in_avals])
    except ValueError:
        return False
    return shape == tuple(out_aval.shape)


def _expected_avals(eqn, in_avals):
    out = eqn.prim.abstract_eval(*in_avals, **eqn.params)
    return list(out) if eqn.prim.multiple_results else [out]


def _check_eqn(eqn, index: int, relaxed: bool, where: str):
    in_avals = [v.aval for v in eqn.inputs]
    if eqn.prim.abstract_eval is None:
        return
    try:
        expected = _expected_avals(eqn, in_avals)
    except Exception as e:  # a rule rejecting its operands is a type error of the graph
        if relaxed and _broadcasts_to(in_avals, eqn.outputs[0].aval):
            return
        raise IRTypeError(f"{where}: equation {index} ({eqn.prim.name}) has operands "
                          f"{in_avals} that its abstract_eval rejects: {e}") from None
    if len(expected) != len(eqn.outputs):
        raise IRTypeError(f"{where}: equation {index} ({eqn.prim.name}) has "
                          f"{len(eqn.outputs)} outputs, its abstract_eval gives {len(expected)}")
    for want, v in zip(expected, eqn.outputs):
        if not _avals_agree(want, v.aval):
            raise IRTypeError(f"{where}: equation {index} ({eqn.prim.name}) outputs "
                              f"{v.aval}, but its abstract_eval gives {want} for operands "
                              f"{in_avals}")


def check_graph(graph: Graph, relaxed: bool = False, where: str = "graph") -> None:
    """Raise `fg.errors.IRTypeError` if `graph` is ill formed or ill typed.

    `relaxed=True` (optimized graphs) accepts elementwise operands that broadcast.
    """
    defined: set = set()

    def define(v, what):
        if type(v) is not Var:
            raise IRTypeError(f"{where}: {what} is a {type(v).__name__}, not a Var")
        if id(v) in defined:
            raise IRTypeError(f"{where}: {what} defines a Var that is already defined")
        defined.add(id(v))

    def read(v, what):
        if type(v) is Literal:
            return
        if type(v) is not Var:
            raise IRTypeError(f"{where}: {what} is a {type(v).__name__}, not a Var or Literal")
        if id(v) not in defined:
            raise IRTypeError(f"{where}: {what} reads a Var before it is defined")

    for i, v in enumerate(graph.invars):
        define(v, f"input {i}")
    for i, eqn in enumerate(graph.eqns):
        for j, v in enumerate(eqn.inputs):
            read(v, f"operand {j} of equation {i} ({eqn.prim.name})")
        _check_eqn(eqn, i, relaxed, where)
        for j, v in enumerate(eqn.outputs):
            define(v, f"output {j} of equation {i} ({eqn.prim.name})")
    for i, v in enumerate(graph.outvars):
        if v is not None:  # linear graphs mark outputs without a tangent with None
            read(v, f"graph output {i}")
