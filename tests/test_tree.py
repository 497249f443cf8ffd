"""Pytrees: flatten/unflatten round trips, node types, tree_map, errors."""
import collections
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fungrad import tree as T

Point = collections.namedtuple("Point", "x y")

leaf = st.one_of(st.integers(), st.floats(allow_nan=False), st.just(np.ones(2)))
trees = st.recursive(
    leaf | st.none(),
    lambda kids: st.one_of(st.lists(kids, max_size=3), st.tuples(kids, kids),
                           st.dictionaries(st.text("abc", min_size=1, max_size=2), kids,
                                           max_size=3),
                           st.builds(Point, kids, kids)),
    max_leaves=8)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(trees)
def test_round_trip(t):
    leaves, td = T.tree_flatten(t)
    assert td.num_leaves == len(leaves)
    back = T.tree_unflatten(td, leaves)
    assert T.tree_structure(back) == td and hash(T.tree_structure(back)) == hash(td)
    assert all(a is b for a, b in zip(T.tree_leaves(back), leaves))


def test_node_kinds():
    t = {"b": [1, (2, None)], "a": Point(3, 4), "c": collections.OrderedDict(z=5, y=6)}
    leaves, td = T.tree_flatten(t)
    assert leaves == [3, 4, 1, 2, 5, 6]  # dict keys sorted; OrderedDict keeps its order
    back = td.unflatten([x * 10 for x in leaves])
    assert isinstance(back["a"], Point) and back["a"] == Point(30, 40)
    assert back["b"] == [10, (20, None)]
    assert list(back["c"]) == ["z", "y"]
    assert T.tree_leaves(None) == [] and T.tree_structure(None).num_leaves == 0
    assert repr(T.tree_structure({"a": (1, 2)})) == "PyTreeDef({'a': (*, *)})"


def test_is_leaf_and_tree_map_many():
    t = {"a": (1, 2), "b": 3}
    assert T.tree_map(lambda x: x, t, is_leaf=lambda x: isinstance(x, tuple)) == t
    assert T.tree_leaves(t, is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]
    assert T.tree_map(lambda x, y, z: x + y + z, t, t, t) == {"a": (3, 6), "b": 9}


def test_tree_reduce():
    assert T.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert T.tree_reduce(lambda a, b: a + b, [], 7) == 7
    with pytest.raises(TypeError, match="initializer"):
        T.tree_reduce(lambda a, b: a + b, [])


def test_register_pytree_node_and_dataclass():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    T.register_pytree_node(Pair, lambda p: ((p.a, p.b), "meta"), lambda aux, c: Pair(*c))
    p = T.tree_map(lambda x: x + 1, Pair(1, [2]))
    assert (p.a, p.b) == (2, [3])
    with pytest.raises(ValueError, match="Pair is already registered"):
        T.register_pytree_node(Pair, lambda p: ((), None), lambda aux, c: None)

    @T.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: float
        b: float

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        w: float
        name: str

    T.register_dataclass(Frozen, data_fields=["w"], meta_fields=["name"])
    assert T.tree_leaves(Layer(1.0, 2.0)) == [1.0, 2.0]
    f = T.tree_map(lambda x: x * 2, Frozen(1.5, "lin"))
    assert f == Frozen(3.0, "lin")
    assert T.tree_structure(Frozen(1, "a")) != T.tree_structure(Frozen(1, "b"))


def test_errors_name_structures():
    with pytest.raises(ValueError, match=r"argument 1 has structure PyTreeDef\(\(\*, \*\)\) "
                                         r"but the first tree has PyTreeDef\(\(\*, \*, \*\)\)"):
        T.tree_map(lambda a, b: a, (1, 2, 3), (1, 2))
    with pytest.raises(ValueError, match="expects 2 leaves, got 3"):
        T.tree_unflatten(T.tree_structure((1, 2)), [1, 2, 3])
