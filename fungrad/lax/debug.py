"""`debug_callback`: the effectful primitive behind `fg.debug.print` / `callback` / `breakpoint`.

`debug_callback(*values, callback=HostCallback)` has no outputs; it calls `callback` on the
runtime values of its operands, as NumPy arrays, wherever the program runs:

- eagerly (impl), at every call of generated jit code (emit: a statement at its place in the
  program; the passes never drop, merge, fold or move it: `Primitive.effectful`);
- under forward and reverse mode (JVP): the callback sees the primal values, once per
  forward pass, and nothing is differentiated (reverse mode's partial evaluation keeps it in
  the known, forward part);
- under vmap: once per batch element, on that element's values (as JAX's default);
- a callback of no traced value inside `jit` is staged into the jitted program all the same
  (`EffectfulPrimitive.bind`), so it runs at every call, not once at trace time.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import held_graphs_have_effects
from ..core.primitive import Primitive
from ..core.trace import Tracer, current_traces
from ..transforms.jit import JitStagingTrace
from .. import tree as _tree


class EffectfulPrimitive(Primitive):
    """A primitive with an effect: bound with no traced operand inside `jit`, it is staged
    into the jitted program (a pure primitive would just compute its value now)."""
    __slots__ = ()

    def __init__(self, name: str, multiple_results: bool = False, module: str | None = None):
        super().__init__(name, multiple_results, module)
        self.effectful = True

    def bind(self, *args, **params):
        for a in args:
            if isinstance(a, Tracer):
                return Primitive.bind(self, *args, **params)
        for trace in reversed(current_traces()):
            if type(trace) is JitStagingTrace:
                return trace.process_primitive(self, args, params)
        return self.impl(*args, **params)


class GraphHoldingPrimitive(Primitive):
    """A primitive holding graphs (a loop body, branches). Bound with no traced operand
    inside `jit`, a pure one computes its value now, but one whose graphs have an effect (a
    print in a loop body) is staged, so the effect happens at every call, not once while
    tracing."""
    __slots__ = ()

    def bind(self, *args, **params):
        for a in args:
            if isinstance(a, Tracer):
                return Primitive.bind(self, *args, **params)
        if held_graphs_have_effects(params):
            for trace in reversed(current_traces()):
                if type(trace) is JitStagingTrace:
                    return trace.process_primitive(self, args, params)
        return Primitive.bind(self, *args, **params)


def _host(x):
    """A runtime value as a NumPy array the callback may keep (a copy: jit reuses buffers)."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):  # CuPy -> host
        return x.get()
    return np.array(x)


class HostCallback:
    """The `callback` parameter: calls `fn(*args, **kwargs)` with the caller's pytrees rebuilt
    from the traced leaves' runtime values (`slots` marks where they go among the leaves;
    the other leaves are static Python values kept as they were)."""
    __slots__ = ("fn", "treedef", "leaves", "slots", "name")

    def __init__(self, fn, treedef, leaves, slots, name):
        self.fn, self.treedef, self.leaves, self.slots, self.name = (fn, treedef, leaves,
                                                                      slots, name)

    def __call__(self, *values):
        leaves = list(self.leaves)
        for k, v in zip(self.slots, values):
            leaves[k] = _host(v)
        args, kwargs = _tree.tree_unflatten(self.treedef, leaves)
        self.fn(*args, **kwargs)

    def __repr__(self):
        return self.name


def is_runtime_value(x) -> bool:
    """A leaf passed to the callback as an operand (traced, or an array); other leaves
    (Python scalars, strings, objects) are static."""
    return isinstance(x, Tracer) or (isinstance(x, (np.ndarray, np.generic))) or (
        hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type))


def debug_callback(fn, args: tuple, kwargs: dict, name: str | None = None) -> None:
    """Bind `debug_callback` so that `fn(*args, **kwargs)` runs with runtime values."""
    leaves, treedef = _tree.tree_flatten((tuple(args), dict(kwargs)))
    slots = [k for k, x in enumerate(leaves) if is_runtime_value(x)]
    static = [None if k in slots else x for k, x in enumerate(leaves)]
    cb = HostCallback(fn, treedef, static, slots, name or getattr(fn, "__name__", "callback"))
    debug_callback_p.bind(*[leaves[k] for k in slots], callback=cb)


debug_callback_p = EffectfulPrimitive("debug_callback", multiple_results=True)


def _impl(*values, callback):
    callback(*values)
    return []


def _jvp(primals, tangents, callback):
    # the callback sees the primal values; it has no outputs, so no tangents
    debug_callback_p.bind(*primals, callback=callback)
    return [], []


def _take(x, dim, i):
    return x if dim is None else x[(slice(None),) * dim + (i,)]


def _batch(vals, dims, axis_size, callback):
    # one call per batch element, in order (JAX's default for debug callbacks)
    for i in range(axis_size):
        debug_callback_p.bind(*[_take(x, d, i) for x, d in zip(vals, dims)], callback=callback)
    return [], []


debug_callback_p.impl = _impl
debug_callback_p.abstract_eval = lambda *avals, callback: []
debug_callback_p.jvp = _jvp
debug_callback_p.batch = _batch
debug_callback_p.emit = lambda ctx, ins, out, callback: (
    f"{ctx.const(callback, 'callback')}({', '.join(ins)})")

DEBUG_PRIMITIVES = [debug_callback_p]
