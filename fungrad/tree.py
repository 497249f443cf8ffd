"""Pytrees: nested containers of arrays that every transform accepts and returns.

Built-in nodes: tuple, list, dict (children in sorted-key order), namedtuple,
collections.OrderedDict (insertion order), collections.defaultdict (sorted keys; its
default_factory is static), None (a node with no children), and any class given to
`register_pytree_node` / `register_dataclass`. Everything else is a leaf (as in JAX).

    >>> leaves, treedef = fg.tree.tree_flatten({"b": (1, 2), "a": None})
    >>> leaves, treedef
    ([1, 2], PyTreeDef({'a': None, 'b': (*, *)}))

A `PyTreeDef` stores its nodes as one flat tuple in post-order: `None` for a leaf and
`(type, aux_data, num_children)` for a node. Equality and hashing are those of that tuple,
so treedefs are cheap cache keys.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, Callable, Iterable, Sequence

__all__ = ["tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure",
           "tree_reduce", "register_pytree_node", "register_dataclass", "PyTreeDef"]

_NoneType = type(None)
_OrderedDict = collections.OrderedDict
_defaultdict = collections.defaultdict


class _Node:
    """How to take one node type apart (`flatten`) and put it back (`unflatten`)."""
    __slots__ = ("type", "flatten", "unflatten")

    def __init__(self, type_: type, flatten: Callable, unflatten: Callable):
        self.type, self.flatten, self.unflatten = type_, flatten, unflatten


_registry: dict[type, _Node] = {}            # explicitly registered types (incl. built-ins)
_dispatch: dict[type, _Node | None] = {}     # every type seen so far -> its node, None = leaf
_MISSING = object()
_NONE_ENTRY = (_NoneType, None, 0)


def _classify(t: type) -> _Node | None:
    """Node for a type not yet in `_dispatch` (a namedtuple or a leaf); cached."""
    node = _registry.get(t)
    if node is None and issubclass(t, tuple) and hasattr(t, "_fields"):
        node = _Node(t, lambda x: (x, None), lambda _, children: t(*children))
    _dispatch[t] = node
    return node


class PyTreeDef:
    """The structure of a pytree without its leaves: hashable, comparable, printable.

    Example:
        >>> td = fg.tree.tree_structure({"a": 1, "b": (2, 3)})
        >>> td, td.num_leaves, td.unflatten([4, 5, 6])
        (PyTreeDef({'a': *, 'b': (*, *)}), 3, {'a': 4, 'b': (5, 6)})
    """
    __slots__ = ("_nodes", "_num_leaves", "_hash")

    def __init__(self, nodes: tuple, num_leaves: int):
        self._nodes = nodes
        self._num_leaves = num_leaves
        self._hash = None

    @property
    def num_leaves(self) -> int:
        """Number of leaves (read-only: a treedef is a hashed cache key, as in JAX)."""
        return self._num_leaves

    def __reduce__(self):
        # Leave the cached hash behind: str and type hashes differ between processes, so an
        # unpickled copy must hash afresh to match the treedefs built where it is loaded.
        return PyTreeDef, (self._nodes, self._num_leaves)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not PyTreeDef:
            return NotImplemented
        try:
            return self._num_leaves == other._num_leaves and self._nodes == other._nodes
        except (ValueError, TypeError) as e:  # e.g. arrays as aux_data: `==` is elementwise
            raise ValueError(
                f"comparing treedefs {self} and {other}: the aux_data (metadata) of a pytree "
                f"node raised {type(e).__name__}: {e}; aux_data must be hashable with a "
                "plain `==` (arrays cannot be aux_data / meta_fields)") from None

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            try:
                h = hash(self._nodes)
            except TypeError:  # unhashable aux_data: hash the shape only (still eq-consistent)
                h = hash(tuple(e if e is None else (e[0], e[2]) for e in self._nodes))
            self._hash = h
        return h

    @property
    def num_nodes(self) -> int:
        """Number of nodes, leaves included."""
        return len(self._nodes)

    def unflatten(self, leaves: Iterable) -> Any:
        """Same as `tree_unflatten(self, leaves)`."""
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list:
        """The subtrees of `tree` at this treedef's leaves (JAX's `flatten_up_to`): `tree`
        must have this structure, with any subtrees in place of its leaves.

        Example:
            >>> fg.tree.tree_structure([1, 2]).flatten_up_to([(3, 4), 5])
            [(3, 4), 5]
        """
        out: list = []
        _up_to(_nested(self), tree, "", out)
        return out

    def __repr__(self) -> str:
        stack: list[str] = []
        for e in self._nodes:
            if e is None:
                stack.append("*")
                continue
            t, aux, n = e
            kids = stack[len(stack) - n:]
            del stack[len(stack) - n:]
            stack.append(_node_str(t, aux, kids))
        return f"PyTreeDef({stack[0]})"


def _node_str(t: type, aux: Any, kids: list[str]) -> str:
    if t is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if t is list:
        return "[" + ", ".join(kids) + "]"
    if t is dict:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(aux, kids)) + "}"
    if t is _NoneType:
        return "None"
    if t is _OrderedDict:
        return "OrderedDict({" + ", ".join(f"{k!r}: {v}" for k, v in zip(aux, kids)) + "})"
    if t is _defaultdict:
        return (f"defaultdict({getattr(aux[0], '__name__', aux[0])}, {{"
                + ", ".join(f"{k!r}: {v}" for k, v in zip(aux[1], kids)) + "})")
    fields = getattr(t, "_fields", None)
    if issubclass(t, tuple) and fields is not None and t not in _registry:  # namedtuple
        return f"{t.__name__}(" + ", ".join(f"{f}={v}" for f, v in zip(fields, kids)) + ")"
    meta = "" if aux is None or (type(aux) is tuple and not aux) else f"[{aux!r}]"
    return f"{t.__name__}{meta}(" + ", ".join(kids) + ")"


class _StructureMismatch(ValueError):
    def __init__(self, path: str, detail: str):
        super().__init__(path, detail)
        self.path, self.detail = path, detail

    def __str__(self) -> str:
        return f"at {self.path or 'the root'}: {self.detail}"


def _nested(treedef: PyTreeDef) -> Any:
    """The post-order node tuple as a nested `(entry, children)` tree (`None` for a leaf)."""
    stack: list = []
    for e in treedef._nodes:
        if e is None:
            stack.append(None)
            continue
        n = e[2]
        kids = stack[len(stack) - n:]
        del stack[len(stack) - n:]
        stack.append((e, kids))
    return stack[0]


def _type_str(t: type) -> str:
    return "None" if t is _NoneType else t.__qualname__


def _path_entry(t: type, aux: Any, k: int) -> str:
    if t is dict or t is _OrderedDict:
        return f"[{aux[k]!r}]"
    if t is _defaultdict:
        return f"[{aux[1][k]!r}]"
    fields = getattr(t, "_fields", None)
    if fields is not None and issubclass(t, tuple) and t not in _registry:
        return f".{fields[k]}"
    return f"[{k}]"


def _up_to(spec: Any, x: Any, path: str, out: list) -> None:
    if spec is None:
        out.append(x)
        return
    (t, aux, n), kids = spec
    if type(x) is not t:
        raise _StructureMismatch(path, f"expected {_type_str(t)}, got {type(x).__qualname__} "
                                       f"{x!r:.80}")
    if t is _NoneType:
        return
    if t is dict:
        x_aux = _sorted_keys(x)
        children = [x[k] for k in x_aux]
    else:
        node = _dispatch.get(t) or _classify(t)
        children, x_aux = node.flatten(x)
        children = list(children)
    if len(children) != n or x_aux != aux:
        if t is _defaultdict and aux[0] is not x_aux[0]:
            detail = (f"expected a defaultdict with default_factory {aux[0]!r}, got "
                      f"{x_aux[0]!r}")
        elif t is dict or t is _OrderedDict or t is _defaultdict:
            keys = (aux[1], x_aux[1]) if t is _defaultdict else (aux, x_aux)
            detail = (f"expected a {t.__name__} with keys {list(keys[0])!r}, got keys "
                      f"{list(keys[1])!r}")
        elif t is tuple or t is list:
            detail = f"expected a {t.__name__} of length {n}, got length {len(children)}"
        else:
            detail = (f"expected {_type_str(t)} with aux_data {aux!r} and {n} children, got "
                      f"aux_data {x_aux!r} and {len(children)} children")
        raise _StructureMismatch(path, detail)
    for k, (c, s) in enumerate(zip(children, kids)):
        _up_to(s, c, path + _path_entry(t, aux, k), out)


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Iterable, Any]],
                         unflatten_func: Callable[[Any, Sequence], Any]) -> None:
    """Make `nodetype` a pytree node (JAX semantics).

    `flatten_func(x) -> (children, aux_data)`: children are subtrees, aux_data is static,
    hashable data kept in the treedef. `unflatten_func(aux_data, children) -> x`.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b): self.a, self.b = a, b
        >>> fg.tree.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
        >>> fg.tree.tree_leaves(Pair(1, [2, 3]))
        [1, 2, 3]
    """
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node: expected a type, got {nodetype!r}")
    if nodetype in _registry:
        raise ValueError(f"register_pytree_node: {nodetype.__module__}.{nodetype.__qualname__} "
                         "is already registered as a pytree node")
    _registry[nodetype] = _dispatch[nodetype] = _Node(nodetype, flatten_func, unflatten_func)


def _dataclass_fields(cls: type, data_fields: Sequence[str] | None,
                      meta_fields: Sequence[str] | None) -> tuple[list, list]:
    """`(data, meta)` field names of dataclass `cls`; a list not given is the other fields
    (with neither given, fields marked `field(metadata={"static": True})` are meta, as in
    JAX)."""
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    if data_fields is None and meta_fields is None:
        meta = [f.name for f in fields if f.metadata.get("static", False)]
    else:
        meta = list(meta_fields or ())
    data = [n for n in names if n not in meta] if data_fields is None else list(data_fields)
    if meta_fields is None:
        meta = [n for n in names if n not in data]
    unknown = [n for n in data + meta if n not in names]
    if unknown:
        raise ValueError(f"register_dataclass: {cls.__name__} has no fields {unknown}")
    both = set(data) & set(meta)
    if both:
        raise ValueError(f"register_dataclass: fields {sorted(both)} of {cls.__name__} "
                         "are both data and meta fields")
    missing = [n for n in names if n not in data and n not in meta]
    if missing:  # (JAX lets init=False fields go unlisted: its unflatten runs __init__)
        raise ValueError(f"register_dataclass: fields {missing} of {cls.__name__} are "
                         "neither data nor meta fields; list every field, including "
                         "init=False ones (unflattening sets fields directly, without "
                         "__init__, so an unlisted field would be missing)")
    return data, meta


def register_dataclass(cls: type | None = None, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None) -> Any:
    """Register a dataclass as a pytree node; works as a call or as a class decorator.

    `data_fields` are children (leaves or subtrees); `meta_fields` are static and part of
    the treedef (they should be hashable). Given one list, the other is the remaining
    fields; given neither, fields marked `dataclasses.field(metadata={"static": True})` are
    meta fields and the rest data (as in JAX). A class that is not a dataclass works too,
    given both lists of attribute names. Unflattening sets the fields directly (neither
    `__init__` nor `__post_init__` runs, unlike JAX), so leaves may be any objects, e.g.
    tracers.

    Example:
        >>> import dataclasses
        >>> @fg.tree.register_dataclass
        ... @dataclasses.dataclass
        ... class Linear:
        ...     w: float
        ...     b: float
        >>> fg.tree.tree_map(lambda x: 2 * x, Linear(1.0, 2.0))
        Linear(w=2.0, b=4.0)
    """
    def register(cls: type) -> type:
        if not isinstance(cls, type):
            raise TypeError(f"register_dataclass: expected a class, got {cls!r}")
        if not dataclasses.is_dataclass(cls):  # any class, given both lists of attributes
            if data_fields is None or meta_fields is None:
                raise TypeError(f"register_dataclass: {cls!r} is not a dataclass type; give "
                                "both data_fields and meta_fields for other classes")
            data, meta = list(data_fields), list(meta_fields)
            both = set(data) & set(meta)
            if both:
                raise ValueError(f"register_dataclass: attributes {sorted(both)} of "
                                 f"{cls.__name__} are both data and meta fields")
        else:
            data, meta = _dataclass_fields(cls, data_fields, meta_fields)
        data_t, meta_t = tuple(data), tuple(meta)

        def flatten(x):
            return [getattr(x, n) for n in data_t], tuple([getattr(x, n) for n in meta_t])

        def unflatten(aux, children):
            obj = object.__new__(cls)
            for n, v in zip(data_t, children):
                object.__setattr__(obj, n, v)
            for n, v in zip(meta_t, aux):
                object.__setattr__(obj, n, v)
            return obj
        register_pytree_node(cls, flatten, unflatten)
        return cls
    return register if cls is None else register(cls)


register_pytree_node(tuple, lambda x: (x, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda x: (x, None), lambda _, c: list(c))
register_pytree_node(dict, lambda x: ([x[k] for k in _sorted_keys(x)], _sorted_keys(x)),
                     lambda keys, c: dict(zip(keys, c)))
register_pytree_node(_OrderedDict, lambda x: (list(x.values()), tuple(x)),
                     lambda keys, c: _OrderedDict(zip(keys, c)))
register_pytree_node(_NoneType, lambda _: ((), None), lambda _, c: None)


def _defaultdict_flatten(x):
    keys = _sorted_keys(x)
    return [x[k] for k in keys], (x.default_factory, keys)


register_pytree_node(_defaultdict, _defaultdict_flatten,
                     lambda aux, c: _defaultdict(aux[0], zip(aux[1], c)))


class _UnsortableKeysError(TypeError, ValueError):
    """Dict keys without an order (JAX raises ValueError; earlier fungrad TypeError)."""


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except TypeError:
        raise _UnsortableKeysError(
            f"tree_flatten: dict keys must be sortable (a dict's children are ordered by "
            f"sorted key), got {list(d)!r}; use keys of one type, an OrderedDict (insertion "
            "order), or a registered pytree node") from None


class _BadFlattenError(TypeError, ValueError):
    """A registered flatten function returned no (children, aux_data) pair (JAX raises
    ValueError; earlier fungrad TypeError)."""


def _bad_flatten(t: type, out: Any) -> TypeError:
    return _BadFlattenError(f"tree_flatten: the flatten function registered for {t.__qualname__} "
                     f"must return (children, aux_data), got {out!r:.200}")


def _flatten(x, leaves: list, nodes: list) -> None:
    t = type(x)
    node = _dispatch.get(t, _MISSING)
    if node is None:
        leaves.append(x)
        nodes.append(None)
        return
    if t is tuple or t is list:
        for c in x:
            _flatten(c, leaves, nodes)
        nodes.append((t, None, len(x)))
        return
    if t is dict:
        aux = _sorted_keys(x)
        for k in aux:
            _flatten(x[k], leaves, nodes)
        nodes.append((dict, aux, len(aux)))
        return
    if t is _NoneType:
        nodes.append(_NONE_ENTRY)
        return
    if node is _MISSING:
        node = _classify(t)
        if node is None:
            leaves.append(x)
            nodes.append(None)
            return
    out = node.flatten(x)
    try:
        children, aux = out
    except (TypeError, ValueError):
        raise _bad_flatten(t, out) from None
    n = 0
    for c in children:
        _flatten(c, leaves, nodes)
        n += 1
    nodes.append((t, aux, n))


def _flatten_is_leaf(x, is_leaf: Callable, leaves: list, nodes: list) -> None:
    t = type(x)
    node = _dispatch.get(t, _MISSING)
    if node is _MISSING:
        node = _classify(t)
    if node is None or is_leaf(x):
        leaves.append(x)
        nodes.append(None)
        return
    out = node.flatten(x)
    try:
        children, aux = out
    except (TypeError, ValueError):
        raise _bad_flatten(t, out) from None
    n = 0
    for c in children:
        _flatten_is_leaf(c, is_leaf, leaves, nodes)
        n += 1
    nodes.append((t, aux, n))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list, PyTreeDef]:
    """`(leaves, treedef)`, leaves in a fixed order (dict keys sorted).

    `is_leaf(x) -> True` makes `x` a leaf without looking inside it (even `None`).

    Example:
        >>> fg.tree.tree_flatten([1, (2, None)])
        ([1, 2], PyTreeDef([*, (*, None)]))
    """
    leaves: list = []
    nodes: list = []
    if is_leaf is None:
        _flatten(tree, leaves, nodes)
    else:
        _flatten_is_leaf(tree, is_leaf, leaves, nodes)
    return leaves, PyTreeDef(tuple(nodes), len(leaves))


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
    """Rebuild the tree described by `treedef` from `leaves`.

    Example:
        >>> leaves, td = fg.tree.tree_flatten({"a": (1, 2)})
        >>> fg.tree.tree_unflatten(td, [3, 4])
        {'a': (3, 4)}
    """
    if type(treedef) is not PyTreeDef:
        raise TypeError(f"tree_unflatten: expected a PyTreeDef, got {type(treedef).__name__}")
    if type(leaves) is not list and type(leaves) is not tuple:
        leaves = list(leaves)
    if len(leaves) != treedef._num_leaves:
        raise ValueError(f"tree_unflatten: {treedef} expects {treedef._num_leaves} leaves, "
                         f"got {len(leaves)}")
    stack: list = []
    push = stack.append
    i = 0
    for e in treedef._nodes:
        if e is None:
            push(leaves[i])
            i += 1
            continue
        t, aux, n = e
        if n:
            kids = stack[-n:]
            del stack[-n:]
        else:
            kids = []
        if t is tuple:
            push(tuple(kids))
        elif t is list:
            push(kids)
        elif t is dict:
            push(dict(zip(aux, kids)))
        elif t is _NoneType:
            push(None)
        else:  # registered unflatten functions get a tuple of children, as in JAX
            push(_dispatch[t].unflatten(aux, tuple(kids)))
    return stack[0]


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of `tree`, in flattening order.

    Example:
        >>> fg.tree.tree_leaves({"b": [2, 3], "a": 1, "c": None})
        [1, 2, 3]
    """
    leaves: list = []
    nodes: list = []
    if is_leaf is None:
        _flatten(tree, leaves, nodes)
    else:
        _flatten_is_leaf(tree, is_leaf, leaves, nodes)
    return leaves


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`.

    Example:
        >>> fg.tree.tree_structure((1, [2])) == fg.tree.tree_structure(("a", ["b"]))
        True
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` leaf-wise over `tree` and the trees in `rest`, returning a tree of `tree`'s
    structure. Each tree in `rest` must have that structure or have it as a prefix (JAX):
    `f` then gets the whole subtree of `rest` where `tree` has a leaf. `is_leaf` applies
    to `tree`.

    Example:
        >>> fg.tree.tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
        {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return tree_unflatten(treedef, [f(x) for x in leaves])
    all_leaves = [leaves]
    for i, r in enumerate(rest, 1):
        if is_leaf is None:  # fast path: `r` usually has exactly the first tree's structure
            r_leaves, r_def = tree_flatten(r)
            if r_def == treedef:
                all_leaves.append(r_leaves)
                continue
        # The first tree may be a prefix of `r` (JAX); is_leaf applies to the first tree
        # only, so `r` is cut at the first tree's leaves without calling it.
        try:
            all_leaves.append(treedef.flatten_up_to(r))
        except _StructureMismatch as e:
            raise ValueError(f"tree_map: argument {i} has structure {tree_structure(r)} but "
                             f"the first tree has {treedef}: {e}; every tree must have the "
                             "first tree's structure (or have it as a prefix)") from None
    return tree_unflatten(treedef, [f(*xs) for xs in zip(*all_leaves)])


_NO_INIT: Any = object()


def tree_reduce(f: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`functools.reduce(f, leaves[, initializer])` over the leaves of `tree`.

    Example:
        >>> fg.tree.tree_reduce(lambda a, b: a + b, {"a": 1, "b": (2, 3)})
        6
        >>> fg.tree.tree_reduce(lambda a, b: a + b, [], 0)
        0
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        if not leaves:
            raise TypeError("tree_reduce: a tree with no leaves needs an initializer")
        return functools.reduce(f, leaves)
    return functools.reduce(f, leaves, initializer)
