"""The IR type checker (fungrad.core.check) catches ill-formed and ill-typed graphs."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.core.check import check_graph
from fungrad.core.ir import Eqn, Graph, Literal, ShapedArray, Var
from fungrad.errors import IRTypeError
from fungrad.lax import elementwise as E, shape as S

F64_3 = ShapedArray((3,), np.dtype("float64"))


def test_tests_check_every_graph():
    assert fg.config.check_graphs  # set by tests/conftest.py


def test_a_staged_graph_passes():
    g = fg.make_ir(lambda x: fnp.sum(fnp.sin(x) * 2.0))(np.ones(3)).graph
    check_graph(g)
    check_graph(fg.make_ir(lambda x: fnp.sum(fnp.sin(x) * 2.0), optimize=True)(np.ones(3)).graph,
                relaxed=True)


def test_reading_an_undefined_var_is_caught():
    a, b, c = Var(F64_3), Var(F64_3), Var(F64_3)
    g = Graph([a], [Eqn(E.mul_p, [a, b], {}, [c])], [c])
    with pytest.raises(IRTypeError, match="before it is defined"):
        check_graph(g)


def test_defining_a_var_twice_is_caught():
    a, b = Var(F64_3), Var(F64_3)
    g = Graph([a], [Eqn(E.sin_p, [a], {}, [b]), Eqn(E.cos_p, [a], {}, [b])], [b])
    with pytest.raises(IRTypeError, match="already defined"):
        check_graph(g)


def test_an_undefined_output_is_caught():
    a, b = Var(F64_3), Var(F64_3)
    with pytest.raises(IRTypeError, match="graph output 0"):
        check_graph(Graph([a], [], [b]))


def test_a_wrong_output_aval_is_caught():
    a = Var(F64_3)
    out = Var(ShapedArray((3,), np.dtype("float32")))
    g = Graph([a], [Eqn(E.sin_p, [a], {}, [out])], [out])
    with pytest.raises(IRTypeError, match="abstract_eval gives f64"):
        check_graph(g)


def test_operands_a_rule_rejects_are_caught_unless_relaxed_and_broadcastable():
    a, b = Var(F64_3), Var(ShapedArray((1,), np.dtype("float64")))
    out = Var(F64_3)
    g = Graph([a, b], [Eqn(E.add_p, [a, b], {}, [out])], [out])
    with pytest.raises(IRTypeError, match="rejects"):
        check_graph(g)
    check_graph(g, relaxed=True)  # what jit's passes may leave for NumPy to broadcast
    bad = Var(ShapedArray((2,), np.dtype("float64")))
    with pytest.raises(IRTypeError):
        check_graph(Graph([a, bad], [Eqn(E.add_p, [a, bad], {}, [out])], [out]), relaxed=True)


def test_a_reshape_with_the_wrong_output_shape_is_caught():
    a = Var(F64_3)
    out = Var(ShapedArray((1, 3), np.dtype("float64")))
    g = Graph([a], [Eqn(S.reshape_p, [a], {"new_sizes": (3, 1)}, [out])], [out])
    with pytest.raises(IRTypeError, match="reshape"):
        check_graph(g)


def test_literals_need_no_definition():
    a, c = Var(F64_3), Var(F64_3)
    check_graph(Graph([a], [Eqn(E.mul_p, [a, Literal(2.0)], {}, [c])], [c]))
