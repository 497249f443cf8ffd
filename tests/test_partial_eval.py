"""partial_eval_graph: known part now, unknown part later, equal to the whole graph."""
import ast
import pathlib

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.core.ir import Eqn, Graph, Literal, ShapedArray, Var
from fungrad.core.primitive import Primitive
from fungrad.lax.elementwise import add_p, cos_p, exp_p, mul_p, sin_p
from fungrad.transforms.partial_eval import partial_eval_graph
from fungrad.transforms.staging import eval_graph

F64 = ShapedArray((3,), np.dtype(np.float64))
X = np.array([0.3, -1.2, 2.0])
T = np.array([1.5, 0.25, -0.7])


def _eqn(prim, *inputs):
    out = Var(F64)
    return Eqn(prim, list(inputs), {}, [out]), out


def _split_and_run(graph, unknown_inputs, args, **kw):
    """(PartialEval, outputs of known-then-unknown, outputs of the whole graph)."""
    pe = partial_eval_graph(graph, unknown_inputs, **kw)
    known_args = [a for a, u in zip(args, unknown_inputs) if not u]
    unknown_args = [a for a, u in zip(args, unknown_inputs) if u]
    k = eval_graph(pe.known, known_args)
    n_known_out = len(k) - pe.n_residuals
    assert [np.shape(r) for r in k[n_known_out:]] == [a.shape for a in pe.residual_avals]
    u = eval_graph(pe.unknown, k[n_known_out:] + unknown_args)
    return pe, pe.merge_outputs(k[:n_known_out], u), eval_graph(graph, args)


def _assert_all_close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-14)


def _hand_built():
    """(x known, t unknown) -> (sin x, cos x * t + t, exp x, 2.0), with dead equations on
    both sides: sin x * sin x (known) and sin x * t (unknown)."""
    x, t = Var(F64), Var(F64)
    e_a, a = _eqn(sin_p, x)
    e_b, b = _eqn(cos_p, x)
    e_c, c = _eqn(mul_p, b, t)
    e_d, d = _eqn(exp_p, x)
    e_e, e = _eqn(add_p, c, t)
    e_dead_k, _ = _eqn(mul_p, a, a)
    e_dead_u, _ = _eqn(mul_p, a, t)
    eqns = [e_a, e_b, e_c, e_d, e_e, e_dead_k, e_dead_u]
    graph = Graph([x, t], eqns, [a, e, d, Literal(2.0)])
    return graph, dict(x=x, t=t, a=a, b=b, c=c, d=d, e=e), dict(a=e_a, b=e_b, c=e_c, d=e_d, e=e_e)


def test_hand_built_graph_splits_by_known_inputs():
    graph, v, eq = _hand_built()
    pe, got, want = _split_and_run(graph, [False, True], [X, T])
    _assert_all_close(got, want)
    assert pe.out_unknown == (False, True, False, False)
    assert pe.known.invars == [v["x"]]
    assert pe.known.eqns == [eq["a"], eq["b"], eq["d"]]  # the dead sin x * sin x is dropped
    assert pe.unknown.eqns == [eq["c"], eq["e"]]  # so is the dead sin x * t
    assert pe.unknown.invars == [v["b"], v["t"]]


def test_residuals_are_only_what_the_unknown_part_reads():
    graph, v, _ = _hand_built()
    pe = partial_eval_graph(graph, [False, True])
    # cos x is read by the unknown part; sin x only by a dead unknown equation, x and exp x
    # not at all
    assert pe.residual_avals == [F64]
    assert pe.known.outvars[-1] is v["b"]
    assert pe.known.outvars[:-1] == [v["a"], v["d"], graph.outvars[3]]


def test_instantiated_known_output_is_passed_through_a_residual():
    graph, v, _ = _hand_built()
    pe, got, want = _split_and_run(graph, [False, True], [X, T],
                                   instantiate=[False, False, True, True])
    _assert_all_close(got, want)
    assert pe.out_unknown == (False, True, True, True)
    assert pe.unknown.outvars[1] is v["d"] and pe.unknown.outvars[2] is graph.outvars[3]
    assert pe.residual_avals == [F64, F64]  # cos x, exp x; the Literal needs none


def test_jvp_graph_of_a_real_function():
    f = lambda x: fnp.sum(fnp.tanh(x) * x) + fnp.exp(x[0]) * fnp.sin(x)
    graph = fg.make_ir(lambda x, t: fg.jvp(f, (x,), (t,)))(X, T).graph
    pe, got, want = _split_and_run(graph, [False, True], [X, T], require_known=[True, False])
    _assert_all_close(got, want)
    assert pe.out_unknown == (False, True)
    # the unknown part is the linear map: no transcendental function of the primal is left
    assert {e.prim.name for e in pe.unknown.eqns}.isdisjoint({"tanh", "exp", "sin", "cos"})
    assert pe.unknown.eqns and pe.n_residuals > 0
    _assert_all_close([got[1]], [fg.jvp(f, (X,), (T,))[1]])


def test_all_inputs_known():
    graph, _, _ = _hand_built()
    pe, got, want = _split_and_run(graph, [False, False], [X, T])
    _assert_all_close(got, want)
    assert pe.out_unknown == (False,) * 4
    assert pe.unknown.eqns == [] and pe.unknown.outvars == [] and pe.n_residuals == 0


def test_all_inputs_unknown():
    graph, _, _ = _hand_built()
    pe, got, want = _split_and_run(graph, [True, True], [X, T])
    _assert_all_close(got, want)
    assert pe.out_unknown == (True, True, True, False)  # the Literal output stays known
    assert pe.known.invars == [] and pe.known.eqns == [] and pe.n_residuals == 0
    assert len(pe.unknown.eqns) == 5


def test_equation_that_mixes_known_and_unknown_results_is_named():
    both_p = Primitive("sq_and_tangent", multiple_results=True)
    x, t = Var(F64), Var(F64)
    y, ty = Var(F64), Var(F64)
    e_sin, z = _eqn(sin_p, y)  # downstream of the culprit: not named
    graph = Graph([x, t], [Eqn(both_p, [x, t], {}, [y, ty]), e_sin], [z, ty])
    with pytest.raises(NotImplementedError,
                       match=r"^my where: output\(s\) \[0\] must be known.* by sq_and_tangent:"
                             r".*cannot be split\. my hint$"):
        partial_eval_graph(graph, [False, True], require_known=[True, False],
                           where="my where", hint="my hint")
    # not required: that output is simply unknown
    assert partial_eval_graph(graph, [False, True]).out_unknown == (True, True)


def test_required_output_that_is_an_unknown_input():
    x, t = Var(F64), Var(F64)
    graph = Graph([x, t], [], [x, t])
    with pytest.raises(NotImplementedError,
                       match=r"output\(s\) \[1\].*unknown graph input\(s\) \[1\]"):
        partial_eval_graph(graph, [False, True], require_known=True)


def test_flag_lengths_are_checked():
    graph, _, _ = _hand_built()
    with pytest.raises(ValueError, match="unknown_inputs has 1 entries but the graph has 2"):
        partial_eval_graph(graph, [True])
    with pytest.raises(ValueError, match="instantiate has 2 entries but the graph has 4"):
        partial_eval_graph(graph, [False, True], instantiate=[True, False])


def test_jit_reverse_mode_uses_partial_eval_and_matches_eager():
    f = lambda x: fnp.sum(fnp.tanh(x) * x) + fnp.exp(x[0]) * fnp.sum(fnp.sin(x))
    np.testing.assert_allclose(fg.grad(fg.jit(f))(X), fg.grad(f)(X), rtol=1e-13)


def test_transforms_import_neither_lax_nor_numpy():
    src = pathlib.Path(fg.__file__).parent / "transforms" / "partial_eval.py"
    for node in ast.walk(ast.parse(src.read_text())):
        if isinstance(node, ast.ImportFrom):
            mod = "." * node.level + (node.module or "")
            assert not any(m in mod.split(".") for m in ("lax", "numpy")), mod
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith(("fungrad.lax", "fungrad.numpy"))
                           for a in node.names)
