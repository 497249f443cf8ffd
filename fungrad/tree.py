"""Pytrees: nested containers of arrays that every transform accepts and returns.

Built-in nodes: tuple, list, dict (children in sorted-key order), namedtuple,
collections.OrderedDict (insertion order), None (a node with no children), and any class
given to `register_pytree_node` / `register_dataclass`. Everything else is a leaf.

    >>> leaves, treedef = tree_flatten({"b": (1, 2), "a": None})
    >>> leaves, treedef
    ([1, 2], PyTreeDef({'a': None, 'b': (*, *)}))
"""
from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Iterable

__all__ = ["tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure",
           "tree_reduce", "register_pytree_node", "register_dataclass", "PyTreeDef"]


class _NodeType:
    __slots__ = ("type", "flatten", "unflatten")

    def __init__(self, type_, flatten, unflatten):
        self.type = type_
        self.flatten = flatten
        self.unflatten = unflatten


_registry: dict = {}


class PyTreeDef:
    """The structure of a pytree (without its leaves); hashable, comparable."""
    __slots__ = ("node", "aux", "children", "num_leaves", "_hash")

    def __init__(self, node, aux, children: tuple):
        self.node = node  # a _NodeType, or None for a leaf
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if node is None else sum(c.num_leaves for c in children)
        self._hash = hash((None if node is None else node.type, _hashable(aux), children))

    def __eq__(self, other):
        return self is other or (
            type(other) is PyTreeDef and self._hash == other._hash and self.node is other.node
            and self.aux == other.aux and self.children == other.children)

    def __hash__(self):
        return self._hash

    def unflatten(self, leaves: Iterable) -> Any:
        return tree_unflatten(self, leaves)

    def __repr__(self):
        return f"PyTreeDef({self._str()})"

    def _str(self):
        if self.node is None:
            return "*"
        t = self.node.type
        kids = [c._str() for c in self.children]
        if t is tuple:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if t is list:
            return "[" + ", ".join(kids) + "]"
        if t is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.aux, kids)) + "}"
        if t is type(None):
            return "None"
        return f"{t.__name__}({', '.join(kids)})"


def _hashable(aux):
    try:
        hash(aux)
        return aux
    except TypeError:
        return repr(aux)


_LEAF = PyTreeDef(None, None, ())


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable):
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux_data)` and
    `unflatten_func(aux_data, children) -> x`.

    Example:
        >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    """
    if nodetype in _registry:
        raise ValueError(f"register_pytree_node: {nodetype.__name__} is already registered "
                         "as a pytree node")
    _registry[nodetype] = _NodeType(nodetype, flatten_func, unflatten_func)


def register_dataclass(cls=None, data_fields=None, meta_fields=None):
    """Register a dataclass as a pytree node; usable as a decorator.

    `data_fields` are children (leaves or subtrees); `meta_fields` are static and part of
    the structure. By default every field is a data field.

    Example:
        >>> @register_dataclass
        ... @dataclasses.dataclass
        ... class Linear:
        ...     w: np.ndarray
        ...     b: np.ndarray
    """
    def register(cls):
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"register_dataclass: {cls.__name__} is not a dataclass")
        names = [f.name for f in dataclasses.fields(cls)]
        data = list(names if data_fields is None else data_fields)
        meta = list([n for n in names if n not in data] if meta_fields is None else meta_fields)

        def flatten(x):
            return [getattr(x, n) for n in data], tuple(getattr(x, n) for n in meta)

        def unflatten(aux, children):
            obj = object.__new__(cls)
            for n, v in zip(data, children):
                object.__setattr__(obj, n, v)
            for n, v in zip(meta, aux):
                object.__setattr__(obj, n, v)
            return obj
        register_pytree_node(cls, flatten, unflatten)
        return cls
    return register if cls is None else register(cls)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda l: (l, None), lambda _, c: list(c))
register_pytree_node(dict, lambda d: ([d[k] for k in sorted(d)], tuple(sorted(d))),
                     lambda keys, c: dict(zip(keys, c)))
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), tuple(d)),
                     lambda keys, c: collections.OrderedDict(zip(keys, c)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, c: None)


def _node_of(x):
    node = _registry.get(type(x))
    if node is None and isinstance(x, tuple) and hasattr(type(x), "_fields"):
        t = type(x)  # a namedtuple: registered on first sight
        node = _registry[t] = _NodeType(t, lambda v: (tuple(v), None), lambda _, c: t(*c))
    return node


def tree_flatten(tree: Any, is_leaf: Callable | None = None) -> tuple[list, PyTreeDef]:
    """`(leaves, treedef)`, leaves in a fixed order (dict keys sorted).

    Example:
        >>> tree_flatten([1, (2, None)])
        ([1, 2], PyTreeDef([*, (*, None)]))
    """
    leaves: list = []
    append = leaves.append

    def rec(x):
        if is_leaf is not None and is_leaf(x):
            append(x)
            return _LEAF
        node = _registry.get(type(x)) or _node_of(x)
        if node is None:
            append(x)
            return _LEAF
        children, aux = node.flatten(x)
        return PyTreeDef(node, aux, tuple([rec(c) for c in children]))
    return leaves, rec(tree)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
    """Rebuild the tree described by `treedef` from `leaves`.

    Example:
        >>> leaves, td = tree_flatten((1, 2)); tree_unflatten(td, [3, 4])
        (3, 4)
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: {treedef} expects {treedef.num_leaves} leaves, got "
                         f"{len(leaves)}")
    it = iter(leaves)

    def rec(td):
        if td.node is None:
            return next(it)
        return td.node.unflatten(td.aux, [rec(c) for c in td.children])
    return rec(treedef)


def tree_leaves(tree: Any, is_leaf: Callable | None = None) -> list:
    """The leaves of `tree`, in flattening order. Example: `tree_leaves({'a': 1}) == [1]`"""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`. Example: `tree_structure((1, 2)) == tree_structure((3, 4))`"""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable | None = None) -> Any:
    """Apply `f` leaf-wise over `tree` and trees of the same structure in `rest`.

    Example:
        >>> tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
        {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return tree_unflatten(treedef, [f(x) for x in leaves])
    others = []
    for i, r in enumerate(rest, 1):
        r_leaves, r_def = tree_flatten(r, is_leaf)
        if r_def != treedef:
            raise ValueError(f"tree_map: argument {i} has structure {r_def} but the first tree "
                             f"has {treedef}")
        others.append(r_leaves)
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


_NO_INIT = object()


def tree_reduce(f: Callable, tree: Any, initializer: Any = _NO_INIT,
                is_leaf: Callable | None = None) -> Any:
    """`functools.reduce(f, leaves[, initializer])` over the leaves of `tree`.

    Example:
        >>> tree_reduce(lambda a, b: a + b, {"a": 1, "b": (2, 3)})
        6
    """
    import functools
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        if not leaves:
            raise TypeError("tree_reduce: a tree with no leaves needs an initializer")
        return functools.reduce(f, leaves)
    return functools.reduce(f, leaves, initializer)
