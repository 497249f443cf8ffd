"""Pytrees: flatten/unflatten round trips, node types, tree_map, treedefs, errors."""
import collections
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fungrad import tree as T

Point = collections.namedtuple("Point", "x y")


class Box:
    """A registered class with static aux data."""

    def __init__(self, tag, items):
        self.tag, self.items = tag, items

    def __eq__(self, other):
        return type(other) is Box and (self.tag, self.items) == (other.tag, other.items)


T.register_pytree_node(Box, lambda b: (b.items, b.tag), lambda tag, items: Box(tag, list(items)))


@T.register_dataclass
@dataclasses.dataclass
class Layer:
    w: object
    b: object


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: object
    name: str


T.register_dataclass(Frozen, data_fields=["w"], meta_fields=["name"])

leaf = st.one_of(st.integers(), st.floats(allow_nan=False), st.just(np.ones(2)),
                 st.text(max_size=2))
keys = st.text("abc", min_size=1, max_size=2)
trees = st.recursive(
    leaf | st.none(),
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.tuples(kids, kids), st.tuples(kids),
        st.dictionaries(keys, kids, max_size=3),
        st.dictionaries(keys, kids, max_size=3).map(
            lambda d: collections.OrderedDict(reversed(list(d.items())))),
        st.builds(Point, kids, kids), st.builds(Layer, kids, kids),
        st.builds(Frozen, kids, st.sampled_from(["a", "b"])),
        st.builds(Box, st.integers(0, 2), st.lists(kids, max_size=2))),
    max_leaves=10)


def count_leaves(t):
    """Reference leaf count, written independently of fungrad.tree."""
    if t is None:
        return 0
    if isinstance(t, (list, tuple)):
        return sum(map(count_leaves, t))
    if isinstance(t, dict):
        return sum(map(count_leaves, t.values()))
    if isinstance(t, Layer):
        return count_leaves(t.w) + count_leaves(t.b)
    if isinstance(t, Frozen):
        return count_leaves(t.w)
    if isinstance(t, Box):
        return count_leaves(t.items)
    return 1


def same(a, b):
    """Deep equality that also checks container types and dict key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, (Layer, Frozen)):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, Box):
        return a.tag == b.tag and same(a.items, b.items)
    return a is b


def canonical(t):
    """`t` with plain dicts rebuilt in sorted-key order (what unflatten produces)."""
    if type(t) is dict:
        return {k: canonical(t[k]) for k in sorted(t)}
    if type(t) is collections.OrderedDict:
        return collections.OrderedDict((k, canonical(v)) for k, v in t.items())
    if type(t) in (list, tuple):
        return type(t)(map(canonical, t))
    if isinstance(t, Point):
        return Point(*map(canonical, t))
    if isinstance(t, Layer):
        return Layer(canonical(t.w), canonical(t.b))
    if isinstance(t, Frozen):
        return Frozen(canonical(t.w), t.name)
    if isinstance(t, Box):
        return Box(t.tag, canonical(t.items))
    return t


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(trees)
def test_round_trip(t):
    leaves, td = T.tree_flatten(t)
    assert td.num_leaves == len(leaves) == count_leaves(t)
    back = T.tree_unflatten(td, leaves)
    assert same(back, canonical(t))
    assert same(td.unflatten(iter(leaves)), canonical(t))  # any iterable of leaves
    td2 = T.tree_structure(back)
    assert td2 == td and hash(td2) == hash(td) and repr(td2) == repr(td)
    assert all(a is b for a, b in zip(T.tree_leaves(back), leaves))
    assert all(a is b for a, b in zip(T.tree_leaves(t), leaves))
    # tree_map with the identity rebuilds the same tree; every leaf marked by is_leaf stays.
    assert same(T.tree_map(lambda x: x, t), canonical(t))
    assert T.tree_leaves(t, is_leaf=lambda x: True) == [t]


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(trees, trees)
def test_structure_equality_matches_shape(a, b):
    ta, tb = T.tree_structure(a), T.tree_structure(b)
    relabel = lambda t: T.tree_map(lambda _: 0, t)  # noqa: E731
    assert (ta == tb) == same(canonical(relabel(a)), canonical(relabel(b)))
    if ta == tb:
        assert hash(ta) == hash(tb)


def test_node_kinds():
    t = {"b": [1, (2, None)], "a": Point(3, 4), "c": collections.OrderedDict(z=5, y=6)}
    leaves, td = T.tree_flatten(t)
    assert leaves == [3, 4, 1, 2, 5, 6]  # dict keys sorted; OrderedDict keeps its order
    back = td.unflatten([x * 10 for x in leaves])
    assert type(back["a"]) is Point and back["a"] == Point(30, 40)
    assert back["b"] == [10, (20, None)]
    assert type(back["c"]) is collections.OrderedDict and list(back["c"]) == ["z", "y"]
    assert list(back) == ["a", "b", "c"]


def test_dict_sorted_keys():
    leaves, td = T.tree_flatten({"z": 1, "a": 2, "m": 3})
    assert leaves == [2, 3, 1]
    assert list(td.unflatten([7, 8, 9])) == ["a", "m", "z"]
    assert td == T.tree_structure({"a": 0, "m": 0, "z": 0})
    assert td != T.tree_structure({"a": 0, "m": 0, "y": 0})
    assert T.tree_leaves({2: "b", 1: "a"}) == ["a", "b"]
    with pytest.raises(TypeError, match="sortable"):
        T.tree_flatten({1: 0, "a": 0})


def test_none_and_leaf_counts():
    assert T.tree_leaves(None) == [] and T.tree_structure(None).num_leaves == 0
    assert T.tree_unflatten(T.tree_structure(None), []) is None
    assert T.tree_structure([None, (), {}, []]).num_leaves == 0
    assert T.tree_structure((1, [2, {"a": 3, "b": None}], Point(4, (5, 6)))).num_leaves == 6
    arr = np.arange(6).reshape(2, 3)
    assert T.tree_structure(arr).num_leaves == 1  # arrays, scalars, objects are leaves
    assert T.tree_leaves([arr, 1.5, "s", object])[1:] == [1.5, "s", object]

    class TupleSub(tuple):  # a tuple subclass that is not a namedtuple is a leaf
        pass
    ts = TupleSub((1, 2))
    assert T.tree_leaves([ts])[0] is ts


def test_repr():
    assert repr(T.tree_structure({"a": (1, 2)})) == "PyTreeDef({'a': (*, *)})"
    assert repr(T.tree_structure([1, (2,), None, ()])) == "PyTreeDef([*, (*,), None, ()])"
    assert repr(T.tree_structure(7)) == "PyTreeDef(*)"
    assert repr(T.tree_structure(Point(1, 2))) == "PyTreeDef(Point(x=*, y=*))"
    assert (repr(T.tree_structure(collections.OrderedDict(b=1, a=2)))
            == "PyTreeDef(OrderedDict({'b': *, 'a': *}))")
    assert repr(T.tree_structure(Box("t", [1]))) == "PyTreeDef(Box['t'](*))"
    assert repr(T.tree_structure(Layer(1, (2, 3)))) == "PyTreeDef(Layer(*, (*, *)))"
    assert repr(T.tree_structure(Frozen(1, "x"))) == "PyTreeDef(Frozen[('x',)](*))"


def test_is_leaf():
    t = {"a": (1, 2), "b": 3, "c": None}
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    assert T.tree_leaves(t, is_leaf=is_tuple) == [(1, 2), 3]
    assert T.tree_map(lambda x: x, t, is_leaf=is_tuple) == t
    assert T.tree_map(lambda x: len(x) if isinstance(x, tuple) else x, t,
                      is_leaf=is_tuple) == {"a": 2, "b": 3, "c": None}
    # is_leaf can make None a leaf
    leaves, td = T.tree_flatten([None, 1], is_leaf=lambda x: x is None)
    assert leaves == [None, 1] and td.num_leaves == 2
    assert T.tree_map(lambda x: 0 if x is None else x, [None, 1],
                      is_leaf=lambda x: x is None) == [0, 1]
    # is_leaf sees the root and never looks inside an accepted node
    assert T.tree_leaves([1, [2]], is_leaf=lambda x: x == [1, [2]]) == [[1, [2]]]
    assert T.tree_structure((1, 2), is_leaf=lambda x: False) == T.tree_structure((3, 4))


def test_tree_map_many():
    t = {"a": (1, 2), "b": 3}
    assert T.tree_map(lambda x, y, z: x + y + z, t, t, t) == {"a": (3, 6), "b": 9}
    assert T.tree_map(lambda x, y: (x, y), [1, None], ["a", None]) == [(1, "a"), None]
    out = T.tree_map(lambda x, y: x * y, Layer(np.ones(2), 2.0), Layer(3.0, np.full(2, 4.0)))
    assert isinstance(out, Layer) and np.array_equal(out.w, [3.0, 3.0])
    assert np.array_equal(out.b, [8.0, 8.0])
    assert T.tree_map(lambda x: x + 1, Point(1, 2)) == Point(2, 3)


def test_tree_reduce():
    assert T.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert T.tree_reduce(lambda a, b: a + b, [1, (2, 3)], 10) == 16
    assert T.tree_reduce(lambda a, b: a + b, [], 7) == 7
    assert T.tree_reduce(lambda a, b: a + [b], {"b": 2, "a": 1}, []) == [1, 2]
    assert T.tree_reduce(lambda a, b: a + b, [(1, 2), (3,)],
                         is_leaf=lambda x: isinstance(x, tuple) and x != ()) == (1, 2, 3)
    with pytest.raises(TypeError, match="initializer"):
        T.tree_reduce(lambda a, b: a + b, [None, ()])


def test_treedef_equality_and_hash():
    s = T.tree_structure
    assert s((1, 2)) == s(("a", np.ones(3))) and hash(s((1, 2))) == hash(s((3, 4)))
    assert s((1, 2)) != s([1, 2])           # tuple vs list
    assert s((1, 2)) != s(Point(1, 2))      # tuple vs namedtuple
    assert s({"a": 1}) != s(collections.OrderedDict(a=1))
    assert s(collections.OrderedDict(a=1, b=2)) != s(collections.OrderedDict(b=1, a=2))
    assert s([1, None]) != s([1, 2]) and s(None) != s(1)
    assert s(((1, 2), 3)) != s((1, (2, 3)))
    assert s(Box("x", [1])) != s(Box("y", [1])) and s(Box("x", [1])) == s(Box("x", [5]))
    assert s(Frozen(1, "a")) != s(Frozen(1, "b"))
    assert s((1, 2)) != (1, 2) and s((1, 2)) != "PyTreeDef((*, *))"
    cache = {s({"x": (1, 2)}): "hit"}
    assert cache.get(s({"x": (np.ones(1), 3.0)})) == "hit"
    assert cache.get(s({"x": [1, 2]})) is None


def test_unhashable_aux_data_still_hashes():
    class Meta:
        def __init__(self, items, cfg):
            self.items, self.cfg = items, cfg
    T.register_pytree_node(Meta, lambda m: (m.items, m.cfg), lambda cfg, c: Meta(list(c), cfg))
    a, b = T.tree_structure(Meta([1], [1, 2])), T.tree_structure(Meta([3], [1, 2]))
    assert a == b and hash(a) == hash(b)
    assert a != T.tree_structure(Meta([3], [9]))


def test_register_pytree_node():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    assert T.tree_leaves(Pair(1, 2))[0].a == 1  # a leaf before registration
    T.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, c: Pair(*c))
    p = T.tree_map(lambda x: x + 1, Pair(1, [2]))
    assert type(p) is Pair and (p.a, p.b) == (2, [3])
    with pytest.raises(ValueError, match="Pair is already registered"):
        T.register_pytree_node(Pair, lambda p: ((), None), lambda aux, c: None)
    with pytest.raises(ValueError, match="tuple is already registered"):
        T.register_pytree_node(tuple, lambda p: ((), None), lambda aux, c: None)

    class Gen:
        def __init__(self, xs):
            self.xs = xs
    # flatten_func may return the children as any iterable, here a generator
    T.register_pytree_node(Gen, lambda g: ((x for x in g.xs), None), lambda _, c: Gen(list(c)))
    assert T.tree_map(lambda x: -x, Gen([1, 2])).xs == [-1, -2]


def test_register_namedtuple_explicitly_overrides_default():
    NT = collections.namedtuple("NT", "a b")
    assert T.tree_leaves(NT(1, 2)) == [1, 2]  # default namedtuple handling, cached
    T.register_pytree_node(NT, lambda t: ((t.b,), t.a), lambda a, c: NT(a, c[0]))
    assert T.tree_leaves(NT(1, 2)) == [2]
    assert T.tree_map(lambda x: x * 10, NT(1, 2)) == NT(1, 20)


def test_register_dataclass():
    assert T.tree_leaves(Layer(1.0, (2.0, None))) == [1.0, 2.0]
    f = T.tree_map(lambda x: x * 2, Frozen(1.5, "lin"))
    assert f == Frozen(3.0, "lin")

    @T.register_dataclass(meta_fields=["act"])
    @dataclasses.dataclass
    class Dense:
        w: object
        act: str = "relu"

        def __post_init__(self):  # not run by unflatten: leaves may be any object
            assert isinstance(self.w, np.ndarray)
    leaves, td = T.tree_flatten(Dense(np.ones(2)))
    assert len(leaves) == 1 and td == T.tree_structure(Dense(np.zeros(3)))
    assert td != T.tree_structure(Dense(np.ones(2), "tanh"))
    back = td.unflatten(["not an array"])
    assert type(back) is Dense and back.w == "not an array" and back.act == "relu"

    @dataclasses.dataclass
    class Plain:
        x: int
    with pytest.raises(ValueError, match="no fields"):
        T.register_dataclass(Plain, data_fields=["x", "y"])
    with pytest.raises(ValueError, match="both data and meta"):
        T.register_dataclass(Plain, data_fields=["x"], meta_fields=["x"])
    with pytest.raises(TypeError, match="not a dataclass"):
        T.register_dataclass(int)


def test_errors_name_structures():
    with pytest.raises(ValueError, match=r"argument 1 has structure PyTreeDef\(\(\*, \*\)\) "
                                         r"but the first tree has PyTreeDef\(\(\*, \*, \*\)\)"):
        T.tree_map(lambda a, b: a, (1, 2, 3), (1, 2))
    with pytest.raises(ValueError, match=r"argument 2 has structure PyTreeDef\(\{'a': \[\*\]\}\)"
                                         r" but the first tree has PyTreeDef\(\{'a': \(\*,\)\}\)"):
        T.tree_map(lambda a, b, c: a, {"a": (1,)}, {"a": (1,)}, {"a": [1]})
    with pytest.raises(ValueError, match=r"PyTreeDef\(\(\*, \*\)\) expects 2 leaves, got 3"):
        T.tree_unflatten(T.tree_structure((1, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="expects 1 leaves, got 0"):
        T.tree_structure([1]).unflatten([])
    with pytest.raises(TypeError, match="PyTreeDef"):
        T.tree_unflatten((1, 2), [1, 2])


# ----------------------------------------------------------------------------- regressions
def test_tree_map_rest_may_have_the_first_tree_as_prefix():
    # JAX: each tree in `rest` must have `tree`'s structure *or have it as a prefix*
    assert T.tree_map(lambda x, y: (x, y), [1, 2], [(3, 4), 5]) == [(1, (3, 4)), (2, 5)]
    assert T.tree_map(lambda x, y: (x, y), {"a": 1}, {"a": {"b": [2]}}) == {"a": (1, {"b": [2]})}
    assert T.tree_map(lambda x, y: (x, y), [(1, 2), 3], [[4, 5], 6],
                      is_leaf=lambda x: isinstance(x, tuple)) == [((1, 2), [4, 5]), (3, 6)]
    assert T.tree_map(lambda x, y: y, [1, 2], [None, 3]) == [None, 3]
    assert T.tree_structure([1, 2]).flatten_up_to([(3, 4), 5]) == [(3, 4), 5]


def test_tree_map_mismatch_names_the_path():
    with pytest.raises(ValueError, match=r"at \['b'\]: expected a dict with keys \['c'\], got "
                                         r"keys \['d'\]"):
        T.tree_map(lambda x, y: x, {"a": 1, "b": {"c": 1}}, {"a": 1, "b": {"d": 1}})
    with pytest.raises(ValueError, match=r"at \['b'\]\[1\]: expected a list of length 2, got "
                                         r"length 3"):
        T.tree_map(lambda x, y: x, {"b": (0, [1, 2])}, {"b": (0, [1, 2, 3])})
    with pytest.raises(ValueError, match=r"at \['a'\]: expected None, got int 3"):
        T.tree_map(lambda x, y: x, {"a": None, "b": 1}, {"a": 3, "b": 2})
    P = collections.namedtuple("P", "x y")
    with pytest.raises(ValueError, match=r"at \.y: expected tuple, got list"):
        T.tree_map(lambda x, y: x, P(1, (2, 3)), P(1, [2, 3]))
    with pytest.raises(ValueError, match="at the root: expected tuple, got list"):
        T.tree_map(lambda x, y: x, (1, 2), [1, 2])


def test_defaultdict_is_a_node():
    # JAX registers defaultdict (sorted keys, default_factory static); it used to be a leaf
    d = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, td = T.tree_flatten(d)
    assert leaves == [2, 1]
    out = T.tree_map(lambda x: 10 * x, d)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert out == {"a": 20, "b": 10}
    assert td != T.tree_structure(collections.defaultdict(int, {"b": 1, "a": 2}))
    assert td != T.tree_structure({"a": 1, "b": 2})
    assert repr(td) == "PyTreeDef(defaultdict(list, {'a': *, 'b': *}))"
    import fungrad as fg
    g = fg.grad(lambda d: (d["a"] * d["b"]).sum())(
        collections.defaultdict(int, {"a": np.ones(2), "b": np.full(2, 3.)}))
    assert type(g) is collections.defaultdict
    np.testing.assert_array_equal(g["a"], [3., 3.])


def test_unsortable_keys_and_bad_flatten_errors():
    with pytest.raises(ValueError, match="must be sortable"):  # (JAX's type; still TypeError)
        T.tree_flatten({1: "a", "b": 2})

    class Bad:
        pass
    T.register_pytree_node(Bad, lambda b: 5, lambda aux, c: Bad())
    with pytest.raises(TypeError, match="registered for .*Bad must return .children, aux_data"):
        T.tree_flatten([Bad()])
    with pytest.raises(TypeError, match="must return .children, aux_data"):
        T.tree_flatten([Bad()], is_leaf=lambda x: False)
