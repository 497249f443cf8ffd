"""fg.tree against jax.tree_util (JAX 0.10.2): regressions from a differential sweep.

Every expected value here was produced by running the same input through jax.tree_util;
they are written out so that the tests do not need JAX.
"""
import collections
import dataclasses
import pathlib
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import fungrad as fg
from fungrad import tree as T

REPO = pathlib.Path(__file__).resolve().parent.parent


def test_registered_unflatten_gets_children_as_a_tuple():
    # JAX passes a tuple; fungrad passed a list, so an unflatten that stores its children
    # (or compares them with a tuple) silently built a different object.
    class Group:
        def __init__(self, members):
            self.members = members
    T.register_pytree_node(Group, lambda g: (g.members, None), lambda _, kids: Group(kids))
    out = T.tree_map(lambda x: x + 1, Group((1, 2)))
    assert type(out.members) is tuple and out.members == (2, 3)
    leaves, treedef = T.tree_flatten(Group([5]))
    assert T.tree_unflatten(treedef, leaves).members == (5,)
    assert T.tree_unflatten(T.tree_structure(Group(())), []).members == ()


def test_num_leaves_is_read_only():
    # JAX: "property of 'PyTreeDef' object has no setter". A treedef is a hashed cache key
    # (jit, vmap), so writing to it corrupted every cache holding it.
    treedef = T.tree_structure([1, (2, None)])
    with pytest.raises(AttributeError):
        treedef.num_leaves = 5
    assert treedef.num_leaves == 2 and treedef.unflatten([3, 4]) == [3, (4, None)]


def test_unpickled_treedef_hashes_like_one_built_in_the_loading_process():
    # The cached hash was pickled along; str/type hashes differ between processes, so an
    # unpickled treedef was == to a fresh one but hashed differently (dict lookups missed).
    # JAX treedefs pickle and compare/hash equal after loading.
    dump = ("import pickle, sys, fungrad.tree as T\n"
            "treedef = T.tree_structure({'a': (1, 2), 'b': [None]})\n"
            "hash(treedef)\n"
            "sys.stdout.buffer.write(pickle.dumps(treedef))\n")
    pickled = subprocess.run([sys.executable, "-c", dump], capture_output=True, check=True,
                             env={"PYTHONHASHSEED": "1", "PATH": ""}).stdout
    loaded = pickle.loads(pickled)
    fresh = T.tree_structure({"a": (0, 0), "b": [None]})
    assert loaded == fresh and hash(loaded) == hash(fresh)
    assert {fresh: "hit"}.get(loaded) == "hit"
    assert loaded.num_leaves == 2 and loaded.unflatten([7, 8]) == {"a": (7, 8), "b": [None]}


def test_array_aux_data_comparison_names_the_cause():
    # JAX: ValueError "Exception raised while checking equality of metadata fields ...
    # (Note: arrays cannot be passed as metadata fields!)"; fungrad raised NumPy's bare
    # "truth value of an array ... is ambiguous" from inside treedef ==.
    class Scaled:
        def __init__(self, x, scale):
            self.x, self.scale = x, scale
    T.register_pytree_node(Scaled, lambda s: ((s.x,), s.scale), lambda scale, c: Scaled(c[0], scale))
    a = T.tree_structure(Scaled(1.0, np.arange(3)))
    b = T.tree_structure(Scaled(2.0, np.arange(3)))
    with pytest.raises(ValueError, match=r"aux_data.*arrays cannot be aux_data"):
        a == b  # noqa: B015
    assert a == a  # (the same object: no element comparison, as in JAX)


def test_defaultdict_factory_mismatch_says_factory():
    # Both raise ValueError; fungrad's detail read "expected a defaultdict with keys ['a'],
    # got keys ['a']" (JAX: "different pytree metadata" showing the factories).
    with pytest.raises(ValueError, match=r"at the root: expected a defaultdict with "
                                         r"default_factory <class 'list'>, got <class 'int'>"):
        T.tree_map(lambda x, y: x, collections.defaultdict(list, a=1),
                   collections.defaultdict(int, a=1))


def test_flatten_without_children_aux_pair_is_also_a_value_error():
    # JAX raises ValueError ("should return a (children, aux_data) tuple, got 5"); fungrad's
    # TypeError is kept for its own callers, the error is now both.
    class Broken:
        pass
    T.register_pytree_node(Broken, lambda b: 5, lambda aux, c: Broken())
    for is_leaf in (None, lambda x: False):
        with pytest.raises(ValueError, match=r"must return \(children, aux_data\), got 5"):
            T.tree_flatten([Broken()], is_leaf=is_leaf)
        with pytest.raises(TypeError):
            T.tree_flatten([Broken()], is_leaf=is_leaf)


def test_tree_map_is_leaf_applies_to_the_first_tree_only():
    # JAX calls is_leaf on the first tree only and cuts the other trees at its leaves.
    # fungrad also flattened the other trees with is_leaf: a predicate written for the first
    # tree crashed on their subtrees (here KeyError: 0 on the dict).
    def is_leaf(x):
        return x[0] == "w"
    out = T.tree_map(lambda x, y: (x, y), [1, 2], [{"k": 1}, 3], is_leaf=is_leaf)
    assert out == [(1, {"k": 1}), (2, 3)]  # JAX's result
    seen = []
    T.tree_map(lambda x, y: x, [1, (2,)], [3, (4,)], is_leaf=lambda x: seen.append(x) or False)
    assert [3, (4,)] not in seen and (4,) not in seen
    # a mismatch still names both structures
    with pytest.raises(ValueError, match=r"argument 1 has structure PyTreeDef\(\(\*, \*\)\) "
                                         r"but the first tree has PyTreeDef\(\[\*, \*\]\)"):
        T.tree_map(lambda x, y: x, [1, 2], (3, 4), is_leaf=lambda x: False)
    # is_leaf still shapes the first tree's structure, so rest trees follow it
    assert T.tree_map(lambda x, y: (x, y), [(1, 2), 3], [[4, 5], 6],
                      is_leaf=lambda x: isinstance(x, tuple)) == [((1, 2), [4, 5]), (3, 6)]


def test_dataclass_static_metadata_fields_are_meta_fields():
    # JAX: register_dataclass with neither list makes fields marked
    # field(metadata=dict(static=True)) meta fields; fungrad made them leaves, so
    # tree_map(lambda v: v * 2) silently turned op="mul" into "mulmul".
    @dataclasses.dataclass
    class Op:
        x: object
        op: str = dataclasses.field(default="add", metadata=dict(static=True))
    T.register_dataclass(Op)
    leaves, treedef = T.tree_flatten(Op(1, "mul"))
    assert leaves == [1]  # JAX: [1]
    assert T.tree_map(lambda v: v * 2, Op(1, "mul")) == Op(2, "mul")
    assert treedef == T.tree_structure(Op(5, "mul"))  # JAX: True
    assert treedef != T.tree_structure(Op(5, "add"))  # JAX: False for ==
    assert repr(treedef) == "PyTreeDef(Op[('mul',)](*))"


def test_register_dataclass_accepts_a_plain_class_given_both_lists():
    # JAX registers any class when data_fields and meta_fields are both given; fungrad
    # raised "not a dataclass type".
    class Dense:
        def __init__(self, w, act):
            self.w, self.act = w, act
    T.register_dataclass(Dense, data_fields=["w"], meta_fields=["act"])
    out = T.tree_map(lambda v: v + 1, Dense(1, "relu"))
    assert type(out) is Dense and (out.w, out.act) == (2, "relu")  # JAX: Dense(2, relu)
    assert T.tree_leaves([Dense(np.ones(2), "tanh")])[0].shape == (2,)

    class Other:
        pass
    with pytest.raises(TypeError, match="give both data_fields and meta_fields"):
        T.register_dataclass(Other, data_fields=["x"])
    with pytest.raises(ValueError, match="both data and meta"):
        T.register_dataclass(Other, data_fields=["x"], meta_fields=["x"])


def test_public_namespace_is_all_and_covers_what_the_repo_uses():
    public = {n for n, v in vars(T).items()
              if not n.startswith("_") and getattr(v, "__module__", None) == T.__name__}
    assert sorted(T.__all__) == sorted(public)  # stdlib/typing imports stay out of it
    # every name the repo reaches through fg.tree, _tree or `from ..tree import` stays public
    attribute = re.compile(r"\b(?:fg\.tree|fungrad\.tree|_tree)\.([A-Za-z]\w*)")
    imported = re.compile(r"from (?:fungrad|\.*)\.?tree import ([\w, ]+)")
    used = set()
    for folder in ("fungrad", "tests", "examples", "docs"):
        for path in [*(REPO / folder).rglob("*.py"), *(REPO / folder).rglob("*.md")]:
            text = path.read_text(encoding="utf-8")
            used.update(attribute.findall(text))
            for names in imported.findall(text):
                used.update(n.split(" as ")[0].strip() for n in names.split(",") if n.strip())
    assert used <= set(T.__all__), used - set(T.__all__)
    namespace: dict = {}
    exec("from fungrad.tree import *", namespace)
    assert sorted(n for n in namespace if n != "__builtins__") == sorted(T.__all__)
    assert fg.tree is T
