"""The intermediate representation: abstract values, variables, equations, graphs.

A `Graph` is a straight-line program: input vars, a list of `Eqn`s (primitive, params,
inputs, outputs) and output atoms. Inputs of an equation are `Var`s or `Literal`s
(constants captured while tracing). Every `Var` has an abstract value (`ShapedArray`).
"""
from __future__ import annotations

import numpy as np

from .trace import Tracer

_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
          "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
          "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool",
          "complex64": "c64", "complex128": "c128"}


class ShapedArray:
    """Shape and dtype of an array, without its values (what tracing sees).

    Example:
        >>> aval = fg.extend.ShapedArray((2, 3), np.dtype(np.float32))
        >>> aval, aval.ndim, aval.size
        (f32[2,3], 2, 6)
    """
    __slots__ = ("shape", "dtype", "weak_type")
    opaque = False  # (see OpaqueAval)

    def __init__(self, shape: tuple, dtype, weak_type: bool = False):
        self.shape = shape
        self.dtype = dtype
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def str_short(self) -> str:
        name = _SHORT.get(self.dtype.name, self.dtype.name)
        return f"{name}[{','.join(map(str, self.shape))}]"

    __repr__ = str_short


class OpaqueAval:
    """The abstract value of an opaque host object that one primitive hands to another (a
    `while_loop`'s reverse-mode tape: its trip count and residuals). It is not an array: it
    has no derivative (dtype object), and jit returns it as it is, never copying, allocating,
    sharing or donating it. `spec` is what the producing primitive says about its contents.
    Shape () and dtype object keep the IR's generic code (printing, type checks) working."""
    __slots__ = ("name", "spec")
    shape = ()
    ndim = 0
    size = 1
    dtype = np.dtype(object)
    weak_type = False
    opaque = True

    def __init__(self, name: str, spec=None):
        self.name = name
        self.spec = spec

    def str_short(self) -> str:
        return self.name

    __repr__ = str_short


_aval_cache: dict = {}
PY_SCALARS = (int, float, bool, complex)  # weak (NEP 50) operands
_PY_SCALAR_DTYPE = {float: np.dtype(np.float64), int: np.dtype(np.int64),
                    bool: np.dtype(np.bool_), complex: np.dtype(np.complex128)}


def aval_of(x) -> ShapedArray:
    """The abstract value of a concrete array, Python scalar or tracer (cached)."""
    t = type(x)
    if t is np.ndarray or t in _NP_SCALARS:
        key = (x.shape, x.dtype)
        a = _aval_cache.get(key)
        if a is None:
            a = _aval_cache[key] = ShapedArray(key[0], key[1], False)
        return a
    if isinstance(x, Tracer):
        return x.aval
    if t in _PY_SCALAR_DTYPE:
        a = _aval_cache.get(t)
        if a is None:
            a = _aval_cache[t] = ShapedArray((), _PY_SCALAR_DTYPE[t], True)
        return a
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        x = np.asarray(x)
    key = (x.shape, x.dtype)
    a = _aval_cache.get(key)
    if a is None:
        a = _aval_cache[key] = ShapedArray(tuple(key[0]), key[1], False)
    return a


_NP_SCALARS = {np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
               np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64,
               np.complex128}


class Var:
    """A value in a graph, defined once (by a graph input or an equation output)."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval


class Literal:
    """A constant captured in a graph (an array, a Python scalar, or an outer tracer)."""
    __slots__ = ("value", "_aval")

    def __init__(self, value, aval: ShapedArray | None = None):
        self.value = value
        self._aval = aval

    @property
    def aval(self) -> ShapedArray:
        if self._aval is None:
            self._aval = aval_of(self.value)
        return self._aval


class Eqn:
    """`outputs = prim(*inputs, **params)`; `source` names the user's line, if known."""
    __slots__ = ("prim", "inputs", "params", "outputs", "source")

    def __init__(self, prim, inputs, params, outputs, source=None):
        self.prim = prim
        self.inputs = inputs
        self.params = params
        self.outputs = outputs
        self.source = source


def has_effects(eqn: "Eqn") -> bool:
    """Whether `eqn` acts outside its outputs: its primitive is effectful (a host callback),
    or a graph it holds (a loop body, a branch, a jitted call; parameter objects list them
    with `subgraphs()`) has such an equation. The jit passes never drop, merge, fold or move
    these."""
    return eqn.prim.effectful or held_graphs_have_effects(eqn.params)


def held_graphs_have_effects(params: dict) -> bool:
    """Whether a graph among these equation parameters has an effectful equation."""
    return any(has_effects(e) for p in params.values() if hasattr(p, "subgraphs")
               for g in p.subgraphs() for e in g.eqns)


class HeldGraphs:
    """Base of an equation parameter that holds graphs (branches, a loop body, a
    checkpointed function): `subgraphs()` lists them (the jit passes' effect check reads
    it), and graphs derived from them (JVP, splits, batched, compiled) are made once by
    `derived(key, make)` and cached on it."""
    __slots__ = ("_derived",)

    def __init__(self):
        self._derived: dict = {}

    def subgraphs(self) -> tuple:
        raise NotImplementedError

    def with_graphs(self, graphs) -> "HeldGraphs":
        """A new parameter of the same kind holding `graphs` (one per `subgraphs()`, same
        avals) in place of these: how a transform rewrites a body (checkify adds checks)."""
        raise NotImplementedError

    def derived(self, key, make):
        d = self._derived.get(key)
        if d is None:
            d = self._derived[key] = make()
        return d


class HeldGraph(HeldGraphs):
    """A `HeldGraphs` with one graph, `graph`, whose avals are the equation's."""
    __slots__ = ("graph",)

    def __init__(self, graph: "Graph"):
        super().__init__()
        self.graph = graph

    def subgraphs(self) -> tuple:
        return (self.graph,)

    @property
    def in_avals(self):
        return [v.aval for v in self.graph.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.graph.outvars]


class Graph:
    """A traced program: `invars`, `eqns`, `outvars` (Vars or Literals)."""
    __slots__ = ("invars", "eqns", "outvars")

    def __init__(self, invars, eqns, outvars):
        self.invars = invars
        self.eqns = eqns
        self.outvars = outvars

    def __str__(self):
        return pretty_print(self)

    __repr__ = __str__


def _fmt_param(v):
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    return repr(v)


def _var_name(n: int) -> str:
    """a, b, ..., z, ba, bb, ... (base 26, like JAX's printer)."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def pretty_print(graph: Graph) -> str:
    """One equation a line: `c:f64[3] = mul a b`, with shapes and dtypes.

    Scalar constants print inline; array constants are named c0, c1, ... in the header.
    """
    names: dict = {}
    consts: list = []

    def name(v):
        if isinstance(v, Literal):
            val = v.value
            if type(val) in _PY_SCALAR_DTYPE or (getattr(val, "ndim", 1) == 0 and
                                                 not hasattr(val, "aval")):
                return repr(val.item() if hasattr(val, "item") else val)
            if id(v) not in names:
                names[id(v)] = f"c{len(consts)}"
                consts.append(v)
            return names[id(v)]
        if id(v) not in names:
            names[id(v)] = _var_name(len(names) - len(consts))
        return names[id(v)]

    def decl(v):
        return f"{name(v)}:{v.aval.str_short()}"

    ins = " ".join(decl(v) for v in graph.invars)
    lines = []
    for e in graph.eqns:
        args = " ".join(name(v) for v in e.inputs)
        outs = " ".join(decl(v) for v in e.outputs)
        params = " ".join(f"{k}={_fmt_param(p)}" for k, p in e.params.items())
        rhs = " ".join(s for s in (e.prim.name, params, args) if s)
        lines.append(f"    {outs} = {rhs}" if outs else f"    {rhs}")
    outs = " ".join(name(v) for v in graph.outvars)
    const_decl = " ".join(f"{names[id(c)]}:{c.aval.str_short()}" for c in consts)
    head = f"{{ lambda {const_decl + ' ; ' if consts else ''}{ins} ."
    return "\n".join([head, "  let"] + lines + [f"  in ( {outs} ) }}"])
