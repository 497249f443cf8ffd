"""Primitives: named operations that carry the rules every transform needs."""
from __future__ import annotations

import sys

import numpy as np

from ..backend import one_device
from .ir import PY_SCALARS
from .trace import Tracer, check_alive


# Every primitive, by name, registered when it is created: the registry checker walks it, so a
# primitive of fungrad's cannot escape the tests. Defining a name again replaces the entry
# (re-running a notebook cell that defines a primitive must work).
_REGISTRY: dict = {}


def registered_primitives(package: str = "fungrad") -> list:
    """The primitives defined by modules of `package` (importing fungrad creates its own)."""
    prefix = package + "."
    return [p for p in _REGISTRY.values() if p.module.startswith(prefix)]


class Primitive:
    """An operation with its rules in one place.

    - `impl(*arrays, **params)`: compute on concrete NumPy/CuPy arrays.
    - `abstract_eval(*avals, **params)`: output `ShapedArray` (list of them if
      `multiple_results`).
    - `jvp(primals, tangents, **params) -> (out, tangent_out)`: written with primitives, so it
      is itself differentiable. Zero tangents are the symbolic `ZERO`.
    - `transpose(ct, *args, **params)`: for linear primitives; `args` holds `Var`s for the
      linear inputs and concrete values for the others; returns one cotangent (or None) per arg.
    - `batch(vals, dims, axis_size, **params) -> (out, out_dim)`: the vmap rule.
    - `emit(ctx, ins, out, **params) -> str`: the Python expression jit generates for it
      (`ins`: source of the operands; `out`: a buffer to write into, only for primitives
      that `accepts_out`); without one, jit calls `impl`.
    - `fresh_output`: the output never shares memory with an operand (jit's buffer plan may
      reuse it once dead; a function of the equation where that depends on its params);
      `accepts_out`: `emit` can write into a given buffer that does not
      overlap the operands (True), or even over an operand (`"inplace"`: ufuncs).
    - `same_aval`: output shape/dtype equal those of the traced operands (elementwise).
    - `effectful`: it acts outside its outputs (a host callback: `fg.debug.print`), so the jit
      passes never drop, merge, fold or move it, even when nothing reads its outputs.

    Example:
        >>> double_p = fg.extend.Primitive("double_example")
        >>> double_p.impl = lambda x: 2.0 * x                 # on arrays
        >>> double_p.abstract_eval = lambda x: x              # same shape and dtype
        >>> double_p.jvp = fg.extend.linear_jvp(double_p)     # linear: tangents double too
        >>> fg.jvp(double_p.bind, (3.0,), (1.0,))
        (array(6.), array(2.))
        >>> print(fg.make_ir(double_p.bind)(np.ones(2)))
        { lambda a:f64[2] .
          let
            b:f64[2] = double_example a
          in ( b ) }
    """
    __slots__ = ("name", "impl", "abstract_eval", "jvp", "transpose", "batch", "emit",
                 "multiple_results", "same_aval", "linearize", "fresh_output", "accepts_out",
                 "module", "effectful", "__weakref__")

    def __init__(self, name: str, multiple_results: bool = False, module: str | None = None):
        self.name = name
        # the defining module (the caller's unless given): fungrad's own primitives need specs
        self.module = module if module is not None else sys._getframe(1).f_globals.get(
            "__name__", "")
        _REGISTRY[name] = self
        self.multiple_results = multiple_results
        # True when the output's shape and dtype are always those of its traced operands
        # (elementwise ops of equal-typed operands): staging then skips abstract_eval.
        self.same_aval = False
        # Reverse mode's shortcut (elementwise primitives): `linearize(eqns, primals, tvars,
        # **params) -> (out, out_tangent_var)` appends the tangent's linear equations itself,
        # without tracing the JVP rule (see ad.LinearizeTrace).
        self.linearize = None
        self.impl = self.abstract_eval = self.jvp = self.transpose = None
        self.batch = self.emit = None
        self.fresh_output = self.accepts_out = False
        self.effectful = False

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        """Apply the primitive through the innermost transform that owns one of `args`.

        Without traced arguments this is `impl(*args, **params)`. `fg.extend.add_any` (the
        sum of two cotangents) is the `bind` of the primitive `add_any`.

        Example:
            >>> fg.extend.add_any(np.ones(2), np.ones(2))        # concrete: the impl
            array([2., 2.])
            >>> print(fg.make_ir(lambda x: fg.extend.add_any(x, x))(np.ones(2)))   # traced
            { lambda a:f64[2] .
              let
                b:f64[2] = add_any a a
              in ( b ) }
        """
        top = None
        other = False  # an argument that is neither a tracer nor a NumPy array
        for a in args:
            if isinstance(a, Tracer):
                t = a._trace
                if top is None or t.level > top.level:
                    top = t
            elif type(a) is not np.ndarray and type(a) not in PY_SCALARS \
                    and not isinstance(a, np.generic):  # (NumPy scalars: reductions' results)
                other = True
        if top is None:
            if other:
                args = one_device(*args)  # (a NumPy constant meeting a CuPy value)
            return self.impl(*args, **params)
        if not top.alive:
            check_alive(top)
        if other:
            _reject_masked(self, args)
        return top.process_primitive(self, args, params)


def _reject_masked(prim, args):
    """A NumPy masked array meeting a traced value: the trace keeps its data only (every
    rule computes on plain arrays), so the mask would vanish from the result silently."""
    for a in args:
        if isinstance(a, np.ma.MaskedArray):
            raise TypeError(
                f"{prim.name}: a numpy.ma.MaskedArray (shape {a.shape}) meets a traced value "
                "under a transform; fungrad computes on plain arrays and would drop its mask. "
                "Pass a.filled(value) or a.compressed(), or the mask as a boolean array and "
                "use fnp.where")



def def_rules(prim: Primitive, impl=None, abstract_eval=None, jvp=None, transpose=None):
    """Set several rules at once; a rule left out keeps its value."""
    if impl is not None:
        prim.impl = impl
    if abstract_eval is not None:
        prim.abstract_eval = abstract_eval
    if jvp is not None:
        prim.jvp = jvp
    if transpose is not None:
        prim.transpose = transpose
    return prim
