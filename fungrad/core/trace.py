"""The trace stack: nested transforms, each a `Trace` with a level.

`Primitive.bind` hands an operation to the highest-level trace among its arguments'
tracers (or computes it directly when there is none: the fast path). Tracers remember their
trace, so values of nested transforms never mix (no perturbation confusion).
"""
from __future__ import annotations

import threading

from ..errors import ConcretizationError, LeakedTracerError

# The stack of active transforms, one per thread (`_local.stack`, made on the thread's first
# transform): a trace's level is its depth in its own thread's stack. One module-level stack
# shared by all threads interleaved the transforms of concurrent threads (wrong levels:
# spurious leaked-tracer errors and wrong derivatives). A plain `threading.local`, read once
# per `new_trace` (a subclass, or a ContextVar's set, costs several times more).
_local = threading.local()


class Trace:
    """One active transform. Subclasses implement `process_primitive`. Its `level` (depth
    in this thread's stack) is set when it is entered with `new_trace`."""
    __slots__ = ("level", "alive", "__weakref__")

    def __init__(self):
        self.level = 0
        self.alive = True

    def process_primitive(self, prim, args, params):  # pragma: no cover - abstract
        raise NotImplementedError


class new_trace:
    """`with new_trace(trace):` pushes `trace` on the stack for the block (a plain class,
    not a generator context manager: this is on the hot path of every transform call)."""
    __slots__ = ("trace", "stack")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> Trace:
        try:
            self.stack = stack = _local.stack
        except AttributeError:  # this thread's first transform
            self.stack = stack = _local.stack = []
        trace = self.trace
        trace.level = len(stack)
        stack.append(trace)
        return trace

    def __exit__(self, *exc):
        self.stack.pop()
        self.trace.alive = False
        return False


def current_traces() -> list:
    """The active transforms of this thread, outermost first (a copy)."""
    return list(getattr(_local, "stack", ()))


def check_alive(trace: Trace):
    raise LeakedTracerError(
        f"An intermediate value of a finished transform ({type(trace).__name__}) was used "
        "after that transform returned (a leaked tracer). Return values from the function "
        "instead of storing them in globals or closures.")


class Tracer:
    """A stand-in for an array inside a transform. Operators come from fungrad.numpy."""
    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return len(self.aval.shape)

    @property
    def size(self):
        return self.aval.size

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of a 0-d array")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def to_concrete(self, what: str, cuts: bool = False):
        """The concrete value behind this tracer, for the Python conversion `what` (e.g.
        "float(x)"). Raises `ConcretizationError` where there is none, or where `cuts`: the
        conversion's result would drop a derivative (float(x) does, bool(x) does not)."""
        raise ConcretizationError(f"{what} needs a concrete value, but {self!r} is traced")

    def __array__(self, dtype=None, copy=None):
        self.to_concrete("np.asarray(x)", cuts=True)
        raise ConcretizationError(  # (every tracer raises above; this is a safety net)
            f"A traced value ({self.aval.str_short()}) cannot be converted to a NumPy array")

    def __hash__(self):
        raise TypeError(f"unhashable type: traced array {self.aval.str_short()}")

    def __repr__(self):
        return f"{type(self).__name__}<{self.aval.str_short()}>"
