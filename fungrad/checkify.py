"""`fg.checkify`: opt-in run-time checks (JAX's `jax.experimental.checkify`, on the host).

    >>> def f(x, i):
    ...     fg.checkify.check(fnp.all(x > 0), "x must be positive, got {}", x)
    ...     return fnp.log(x)[i]
    >>> err, out = fg.jit(fg.checkify.checkify(f, errors=fg.checkify.all_checks))(x, 7)
    >>> err.get()      # None, or the first failure: its message, check and user's line
    >>> err.throw()    # raises fg.errors.CheckifyError if a check failed

`checkify(f, errors)(*args)` returns `(err, out)`. The error sets say what is checked:

- `user_checks`: the user's `check(pred, msg, *fmt_args)` calls;
- `index_checks`: integer index arrays of `getitem` (`x[i]`, `fnp.take`,
  `fnp.take_along_axis`, ...) and of its transpose `scatter_add`, outside NumPy's range
  `-n <= i < n` (a negative index counts from the end, as NumPy's does). Under checkify an
  out-of-range index is clamped into that range after it is reported, so the function runs
  on (NumPy would raise IndexError). `fg.lax.dynamic_slice` clamps by design: not checked;
- `div_checks`: a zero divisor of `div` (`/`, integer or float), `floor_divide` (`//`), `rem`
  (`%`) and `reciprocal` (NumPy gives inf / nan / 0 with at most a warning);
- `nan_checks`: a primitive whose output holds a NaN (the first one to make or pass it on);
- `float_checks = nan_checks | div_checks`, `all_checks`; sets combine with `|`.

How it works (nothing changes, and no code is generated, when checkify is not used):
- three effectful primitives: `checkify_begin` opens an error record on this thread's
  stack, `check(*values, check=...)` tests its operands' run-time values and keeps the first
  failure in the innermost open record, `checkify_end(key)` closes the record and returns an
  int64 code (0: no error; else the key of the kept message). Being effectful, they run in
  program order eagerly and in jit's generated code (the passes never drop, merge or move
  them), see the primal values under `jvp`/`grad` (reverse mode keeps them in the forward
  pass), and under `vmap` test the whole batch at once, naming the first failing element;
- a tracing transform (`CheckifyTrace`) runs `f` and, for each primitive it applies, binds
  the checks of the requested sets next to it (on the same values, so outer transforms
  apply to them as to the primitive); a nested `fg.jit` function is checked by a derived
  compiled graph (its staged graph re-traced under the transform, cached on the call);
- the error is a pytree (`Error`) holding the code, so it leaves `jit` and `vmap` like any
  array; `err.get()` reads the message kept for the code (the last 4096 messages are kept).

Graph-holding primitives (`cond` / `switch` branches, `scan` / `while_loop` bodies,
`checkpoint` bodies, `custom_jvp` / `custom_vjp` functions and their rules) are checked
inside: their graphs are re-traced with the checks (once, cached on the parameter). Under
`vmap` with a per-example branch index, each example runs only its own branch (a loop over
the batch), so a failure in a branch an example does not take is not reported; such a
failure is reported without its batch element.

Limits: a `check` in a jitted function that was traced under
checkify stays in its compiled code: called later outside checkify, a failure raises
`CheckifyError` at once.
"""
from __future__ import annotations

import copy
import functools
import itertools
import math
import threading
from typing import Any, Callable

import numpy as np

from .backend import asarray
from .core.ad_util import ZERO
from .core.dtypes import is_inexact
from .core.ir import Literal, ShapedArray, aval_of
from .core.nan_checks import user_frame
from .core.trace import Trace, Tracer, current_traces, new_trace
from .errors import CheckifyError, ConcretizationError
from .lax.debug import EffectfulPrimitive, is_runtime_value
from .lax.elementwise import (div_p, floor_divide_p, maximum_p, minimum_p, reciprocal_p,
                              rem_p)
from .lax.indexing import getitem_p, scatter_add_p
from .lax.shape import bdim_at_front
from .transforms.custom import CustomRule
from .transforms.jit import Call, jit_call_p, stage_flat
from . import tree as _tree

__all__ = ["check", "check_error", "debug_check", "checkify", "Error", "ErrorSet",
           "user_checks", "index_checks", "div_checks", "nan_checks", "float_checks",
           "automatic_checks", "all_checks"]


# ----------------------------------------------------------------------------- error sets
class ErrorSet(frozenset):
    """A set of check kinds ("user", "index", "div", "nan"); combine with `|`."""

    def __or__(self, other):
        return ErrorSet(frozenset.__or__(self, other))

    __ror__ = __or__

    def __repr__(self):
        return " | ".join(f"{k}_checks" for k in sorted(self)) or "ErrorSet()"


user_checks = ErrorSet({"user"})
index_checks = ErrorSet({"index"})
div_checks = ErrorSet({"div"})
nan_checks = ErrorSet({"nan"})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks  # (JAX's name: every check but the user's)
all_checks = user_checks | index_checks | float_checks


# ----------------------------------------------------------------------------- run-time records
class _Record:
    """One open checkify call at run time: its enabled kinds and the first failure."""
    __slots__ = ("key", "errors", "message")

    def __init__(self, key, errors):
        self.key, self.errors, self.message = key, errors, None


_local = threading.local()  # .records: this thread's open records, innermost last
_keys = itertools.count(1)
_MESSAGES: dict = {}  # code -> message of a finished call that failed (the newest ones)
_MAX_MESSAGES = 4096


def _records() -> list:
    try:
        return _local.records
    except AttributeError:
        _local.records = []
        return _local.records


def _begin(errors):
    key = next(_keys)
    _records().append(_Record(key, errors))
    return np.array(key, np.int64)


def _end(key):
    """Close the record `key` (and any left open above it by an exception) -> its code."""
    key = int(key)
    records = _records()
    for i in range(len(records) - 1, -1, -1):
        if records[i].key == key:
            message = records[i].message
            del records[i:]
            if message is None:
                break
            _MESSAGES[key] = message
            if len(_MESSAGES) > _MAX_MESSAGES:  # (dicts keep insertion order: oldest first)
                del _MESSAGES[next(iter(_MESSAGES))]
            return np.array(key, np.int64)
    return np.array(0, np.int64)


checkify_begin_p = EffectfulPrimitive("checkify_begin", module=__name__)
checkify_begin_p.impl = _begin
checkify_begin_p.abstract_eval = lambda errors: ShapedArray((), np.dtype(np.int64))
checkify_begin_p.emit = lambda ctx, ins, out, errors: (
    f"{ctx.const(functools.partial(_begin, errors), 'checkify_begin')}()")

checkify_end_p = EffectfulPrimitive("checkify_end", module=__name__)
checkify_end_p.impl = _end
checkify_end_p.abstract_eval = lambda key: ShapedArray((), np.dtype(np.int64))
checkify_end_p.emit = lambda ctx, ins, out: f"{ctx.const(_end, 'checkify_end')}({ins[0]})"
# (the key comes from checkify_begin, which has no operands: never batched, no tangent)
checkify_end_p.jvp = lambda primals, tangents: (checkify_end_p.bind(*primals), ZERO)
checkify_end_p.batch = lambda vals, dims, axis_size: (checkify_end_p.bind(*vals), None)


# ----------------------------------------------------------------------------- checks
def _host(x):
    """A run-time value as a NumPy array (CuPy arrays are copied to the host)."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):
        return x.get()
    return np.asarray(x)


class _Check:
    """The `check` primitive's parameter: which operands it tests (the first `n_tested`),
    how (`bad`: a mask of failing elements) and how a failure reads. `nbatch` leading axes
    of every operand are vmap batch axes (the batch rule puts them there)."""
    kind = ""

    def __init__(self, source: str | None, n_tested: int):
        self.source, self.n_tested, self.nbatch = source, n_tested, 0

    def bad(self, j: int, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def detail(self, vals: list) -> str:
        """The failure on one batch element's values."""
        raise NotImplementedError

    def message(self, vals: list, element: tuple) -> str:
        at = f" at {self.source}" if self.source else ""
        which = ""
        if element:
            which = f", batch element {element[0] if len(element) == 1 else element}"
        return f"{self.kind}_checks: {self.detail(vals)}{at}{which}"

    def batched(self) -> "_Check":
        c = copy.copy(self)
        c.nbatch += 1
        return c

    def failing(self, vals: list) -> np.ndarray:
        """Which batch elements fail (a 0-d mask without batch axes)."""
        nb = self.nbatch
        out = np.zeros(vals[0].shape[:nb] if vals else (), bool)
        for j in range(self.n_tested):
            m = np.asarray(self.bad(j, vals[j]))
            # (the tested size spelled out, not -1: ambiguous for vmap over no examples)
            out |= m.reshape(m.shape[:nb] + (math.prod(m.shape[nb:]),)).any(-1) if nb \
                else m.any()
        return out

    def __call__(self, *vals):
        _check(*vals, check=self)
        return []

    def __repr__(self):
        return f"{self.kind}_check({self.source})"


class UserCheck(_Check):
    kind = "user"

    def __init__(self, msg, source, treedef, leaves, slots):
        super().__init__(source, 1)
        self.msg, self.treedef, self.leaves, self.slots = msg, treedef, leaves, slots

    def bad(self, j, x):
        return ~x.astype(bool)

    def detail(self, vals):
        leaves = list(self.leaves)
        for k, v in zip(self.slots, vals[1:]):
            leaves[k] = v
        args, kwargs = _tree.tree_unflatten(self.treedef, leaves)
        try:
            return self.msg.format(*args, **kwargs)
        except (IndexError, KeyError, ValueError):
            return f"{self.msg} {args} {kwargs}"

    def message(self, vals, element):
        which = f" in batch element {element[0] if len(element) == 1 else element}" \
            if element else ""
        at = f" at {self.source}" if self.source else ""
        return f"{self.detail(vals)} (fg.checkify.check failed{at}{which})"


class IndexCheck(_Check):
    """Integer index arrays of `getitem` / `scatter_add`: `axes[j]` and `sizes[j]` are the
    axis that operand j indexes and its length."""
    kind = "index"

    def __init__(self, prim, source, axes, sizes):
        super().__init__(source, len(axes))
        self.prim, self.axes, self.sizes = prim, axes, sizes

    def bad(self, j, x):
        n = self.sizes[j]
        return (x < -n) | (x >= n)

    def detail(self, vals):
        for j in range(self.n_tested):
            m = self.bad(j, vals[j])
            if m.any():
                n = self.sizes[j]
                return (f"index {vals[j][m].flat[0]} is out of bounds for axis {self.axes[j]} "
                        f"with size {n} (valid: {-n} to {n - 1}) in the primitive "
                        f"'{self.prim}'")
        return f"an index is out of bounds in the primitive '{self.prim}'"


class ErrorCheck(_Check):
    """`check_error(err)`: fails where the error's code is nonzero, with the message the
    failed check kept (whatever its kind: the error happened already, so it is reported
    under any error set)."""
    kind = "error"

    def __init__(self, source):
        super().__init__(source, 1)

    def bad(self, j, x):
        return x != 0

    def detail(self, vals):
        return _message_of(vals[0])

    def message(self, vals, element):
        which = f" (in batch element {element[0] if len(element) == 1 else element})" \
            if element else ""
        return f"{self.detail(vals)}{which}"


class DivCheck(_Check):
    kind = "div"

    def __init__(self, prim, source):
        super().__init__(source, 1)
        self.prim = prim

    def bad(self, j, x):
        return x == 0

    def detail(self, vals):
        return f"division by zero in the primitive '{self.prim}'"


class NanCheck(_Check):
    kind = "nan"

    def __init__(self, prim, source, n_outputs):
        super().__init__(source, n_outputs)
        self.prim = prim

    def bad(self, j, x):
        return np.isnan(x)

    def detail(self, vals):
        return f"the primitive '{self.prim}' produced a NaN"


def _check(*vals, check):
    """`check`'s impl: keep the first failure in the innermost open record (outside any,
    which only a jitted function traced under checkify and called later can reach: raise)."""
    records = _records()
    record = records[-1] if records else None
    if record is not None and (record.message is not None or (
            check.kind not in record.errors and check.kind != "error")):
        return []  # (the first error wins: nothing more to test)
    vals = [_host(v) for v in vals]
    if not check.nbatch:  # (the common case: one test per operand, no mask to build)
        for j in range(check.n_tested):
            if check.bad(j, vals[j]).any():
                break
        else:
            return []
    failing = check.failing(vals)
    if not failing.any():
        return []
    element = np.unravel_index(int(np.argmax(failing)), failing.shape) if check.nbatch else ()
    element = tuple(int(i) for i in element)
    message = check.message([v[element] for v in vals] if element else vals, element)
    if record is None:
        raise CheckifyError(message)
    record.message = message
    return []


def _check_batch(vals, dims, axis_size, check):
    # every operand gets the batch as its first axis (unbatched ones by a broadcast view), so
    # the impl tests the whole batch at once and names the first failing element
    vals = [bdim_at_front(v, d, axis_size) for v, d in zip(vals, dims)]
    check_p.bind(*vals, check=check.batched())
    return [], []


def _check_jvp(primals, tangents, check):
    check_p.bind(*primals, check=check)  # (tests primal values; no outputs, no tangents)
    return [], []


check_p = EffectfulPrimitive("check", multiple_results=True, module=__name__)
check_p.impl = _check
check_p.abstract_eval = lambda *avals, check: []
check_p.jvp = _check_jvp
check_p.batch = _check_batch
check_p.emit = lambda ctx, ins, out, check: f"{ctx.const(check, 'check')}({', '.join(ins)})"

CHECKIFY_PRIMITIVES = [checkify_begin_p, checkify_end_p, check_p]


# ----------------------------------------------------------------------------- the transform
class CheckifyTracer(Tracer):
    __slots__ = ("val",)

    def __init__(self, trace, val):
        self._trace = trace
        self.val = val

    @property
    def aval(self):
        return aval_of(self.val)

    def to_concrete(self, what, cuts=False):
        v = self.val  # (checkify only watches: a concrete value stays usable, as without it)
        return v.to_concrete(what, cuts) if isinstance(v, Tracer) else v


class CheckifyTrace(Trace):
    """Applies each primitive to the unwrapped values and binds the checks of `errors` next
    to it. `source`: the user's line for the equations being replayed (a nested jitted
    graph's), else None (then the innermost user frame is asked, once per check)."""
    __slots__ = ("errors", "source")

    def __init__(self, errors):
        super().__init__()
        self.errors = errors
        self.source = None

    def unwrap(self, x):
        return x.val if type(x) is CheckifyTracer and x._trace is self else x

    def where(self):
        return self.source if self.source is not None else user_frame()

    def process_primitive(self, prim, args, params):
        vals = [self.unwrap(a) for a in args]
        if prim is jit_call_p:
            return self._jit_call(vals, params["call"])
        errors = self.errors
        held = {k: p for k, p in params.items() if hasattr(p, "subgraphs")}
        if held:  # branches, loop bodies, checkpointed and custom functions: checked inside
            params = {**params, **{k: self._checked_held(p) for k, p in held.items()}}
        if "index" in errors and prim in _INDEX_OPERANDS:
            vals = self._check_indices(prim, vals, params)
        if "div" in errors and prim in _DIVISOR:
            self._check_divisor(prim, vals[_DIVISOR[prim]])
        out = prim.bind(*vals, **params)
        outs = out if prim.multiple_results else [out]
        if "nan" in errors and not prim.effectful:
            floats = [o for o in outs if is_inexact(aval_of(o).dtype)]
            if floats:
                check_p.bind(*floats, check=NanCheck(prim.name, self.where(), len(floats)))
        wrapped = [CheckifyTracer(self, o) for o in outs]
        return wrapped if prim.multiple_results else wrapped[0]

    def _jit_call(self, vals, call):
        # a nested jitted function: run its graph re-traced with the checks (compiled once)
        checked = call.derived(("checkify", self.errors),
                               lambda: _checked_call(call, self.errors))
        return [CheckifyTracer(self, o) for o in jit_call_p.bind(*vals, call=checked)]

    def _checked_held(self, held):
        """A graph-holding parameter with its graphs re-traced with the checks (made once)."""
        errors = self.errors

        def checked(graph):
            return _checked_graph(graph, errors)
        if isinstance(held, CustomRule):
            return held.derived(("checkify", errors), lambda: held.map_graphs(checked))
        return held.derived(("checkify", errors),
                            lambda: held.with_graphs([checked(g) for g in held.subgraphs()]))

    def _check_indices(self, prim, vals, params):
        first = 1 if prim is getitem_p else 2  # getitem(x, *arrays) / scatter_add(op, upd, ..)
        shape = aval_of(vals[0]).shape
        axes = _indexed_axes(params["spec"], len(shape))
        tested = [(k, a) for k, a in axes.items() if _may_fail(vals[first + k], shape[a])]
        if not tested:
            return vals
        sizes = tuple(shape[a] for _, a in tested)
        check_p.bind(*[vals[first + k] for k, _ in tested],
                     check=IndexCheck(prim.name, self.where(), tuple(a for _, a in tested),
                                      sizes))
        vals = list(vals)
        for (k, _), n in zip(tested, sizes):
            vals[first + k] = _clamp(vals[first + k], n)
        return vals

    def _check_divisor(self, prim, y):
        if isinstance(y, Tracer) or (asarray(y) == 0).any():
            check_p.bind(y, check=DivCheck(prim.name, self.where()))


_DIVISOR = {div_p: 1, floor_divide_p: 1, rem_p: 1, reciprocal_p: 0}  # divisor's position
_INDEX_OPERANDS = {getitem_p, scatter_add_p}


def _indexed_axes(spec, ndim) -> dict:
    """{k: the axis of x that index array k indexes} for a getitem/scatter_add spec."""
    consumed = sum(1 for s in spec if s is not None and s is not Ellipsis)
    axes, dim = {}, 0
    for s in spec:
        if s is None:
            continue
        if s is Ellipsis:
            dim += ndim - consumed
            continue
        if s[0] == "array":
            axes[s[1]] = dim
        dim += 1
    return axes


def _may_fail(idx, n) -> bool:
    """Traced, or a concrete array holding an index outside [-n, n)."""
    if isinstance(idx, Tracer):
        return True
    a = asarray(idx)  # (a CuPy array stays one)
    return bool(a.size) and bool(((a < -n) | (a >= n)).any())


def _clamp(idx, n):
    """`idx` clamped into [-n, n - 1] (after the check reported it), so NumPy does not raise;
    bounds the dtype cannot exceed are left out (a Python int bound must fit the dtype)."""
    if n == 0:
        return idx
    info = np.iinfo(aval_of(idx).dtype)
    if info.max > n - 1:
        idx = minimum_p.bind(idx, n - 1)
    if info.min < -n:
        idx = maximum_p.bind(idx, -n)
    return idx


def _eval_sourced(graph, args, trace: CheckifyTrace) -> list:
    """`eval_graph`, telling `trace` each equation's recorded user line (for its checks)."""
    env = dict(zip(map(id, graph.invars), args))

    def read(v):
        return v.value if type(v) is Literal else env[id(v)]

    for eqn in graph.eqns:
        trace.source = eqn.source
        out = eqn.prim.bind(*[read(v) for v in eqn.inputs], **eqn.params)
        for v, o in zip(eqn.outputs, out if eqn.prim.multiple_results else [out]):
            env[id(v)] = o
    trace.source = None
    return [read(v) for v in graph.outvars]


def _checked_graph(graph, errors):
    """`graph` re-traced under `CheckifyTrace(errors)`: the same function, with the checks."""
    def fun(*xs):
        trace = CheckifyTrace(errors)
        with new_trace(trace):
            outs = _eval_sourced(graph, [CheckifyTracer(trace, x) for x in xs], trace)
            return [trace.unwrap(o) for o in outs]
    checked, lifted = stage_flat(fun, [v.aval for v in graph.invars])
    assert not lifted, "a checked graph closed over a traced value"
    return checked


def _checked_call(call: Call, errors) -> Call:
    """`call`'s staged graph re-traced under `CheckifyTrace(errors)`, compiled."""
    return Call(_checked_graph(call.graph_before, errors), f"checkify_{call.name}",
                array_module=call.array_module)


def _checkify_active() -> bool:
    return any(type(t) is CheckifyTrace for t in current_traces())


# ----------------------------------------------------------------------------- the error
class Error:
    """What `checkify(f)` returns beside `f`'s output: `get()` is None or the first failed
    check's message; `throw()` raises it as `fg.errors.CheckifyError`. A pytree (its leaf
    is an int64 code), so it can be returned from `fg.jit` and `fg.vmap` functions."""
    __slots__ = ("code", "_message")

    def __init__(self, code):
        self.code = code
        self._message = None if isinstance(code, Tracer) else _message_of(code)

    def get(self) -> str | None:
        """None, or the message of the first failed check.

        Example:
            >>> err, _ = fg.checkify.checkify(lambda x: fg.checkify.check(x > 0, "neg"))(-1.)
            >>> err.get()
            'neg (fg.checkify.check failed at <stdin>:1 (<lambda>))'
        """
        if isinstance(self.code, Tracer):
            raise ConcretizationError(
                "Error.get() needs the error's run-time value, but it is traced here (inside "
                "fg.jit / fg.vmap / fg.grad). Return the error from the transformed function "
                "and read it outside: err, out = fg.jit(fg.checkify.checkify(f))(x); "
                "err.get()")
        return self._message

    def get_exception(self) -> CheckifyError | None:
        """The failure as a `CheckifyError` (not raised), or None."""
        message = self.get()
        return None if message is None else CheckifyError(message)

    def throw(self) -> None:
        """Raise `fg.errors.CheckifyError` if a check failed.

        Example:
            >>> err, y = fg.checkify.checkify(f, errors=fg.checkify.nan_checks)(x)
            >>> err.throw()
        """
        e = self.get_exception()
        if e is not None:
            raise e

    def __repr__(self):
        if isinstance(self.code, Tracer):
            return f"Error(traced {self.code!r})"
        return f"Error({self._message!r})"


def _message_of(code) -> str | None:
    codes = _host(code).ravel()  # (several under vmap: the first failing call's)
    if codes.dtype.kind not in "iu":  # (an Error built from tangents, float0 under jvp)
        return None
    for c in codes[codes != 0]:
        message = _MESSAGES.get(int(c))
        if message is not None:
            return message
        return (f"a check failed (its message, code {int(c)}, is no longer kept: only the "
                f"last {_MAX_MESSAGES} are)")
    return None


_tree.register_pytree_node(Error, lambda e: ((e.code,), None), lambda _, c: Error(c[0]))


# ----------------------------------------------------------------------------- the API
def check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """Fail when `pred` (a boolean scalar or array: all must hold) is False, with
    `msg.format(*fmt_args, **fmt_kwargs)` formatted with run-time values.

    Under `checkify(f)` (with `user_checks`) the failure is recorded in the returned error,
    also inside `fg.jit`, `fg.vmap` (naming the batch element) and `fg.grad`. Outside checkify
    a concretely False `pred` raises `fg.errors.CheckifyError` at once; a traced one (under
    jit / vmap) cannot be tested there and raises `ConcretizationError`.

    Example:
        >>> def f(x):
        ...     fg.checkify.check(x > 0, "x must be positive, got {}", x)
        ...     return fnp.log(x)
        >>> err, y = fg.jit(fg.checkify.checkify(f))(-2.0)
        >>> err.get()
        'x must be positive, got -2.0 (fg.checkify.check failed at <stdin>:2 (f))'
    """
    source = user_frame()
    if not isinstance(msg, str):
        raise TypeError(f"fg.checkify.check: msg must be a str, got {type(msg).__name__}")
    leaves, treedef = _tree.tree_flatten((fmt_args, fmt_kwargs))
    slots = [k for k, x in enumerate(leaves) if is_runtime_value(x)]
    static = [None if k in slots else x for k, x in enumerate(leaves)]
    user = UserCheck(msg, source, treedef, static, slots)
    if _checkify_active():
        if not isinstance(pred, Tracer) and np.all(pred):
            return
        check_p.bind(pred, *[leaves[k] for k in slots], check=user)
        return
    values = [_concrete(x, "pred" if k == 0 else "a format argument")
              for k, x in enumerate([pred] + [leaves[k] for k in slots])]
    if not np.all(values[0]):
        raise CheckifyError(user.message([_host(v) for v in values], ()))


def debug_check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """`check` under `checkify` (with `user_checks`); anywhere else it does nothing (JAX's
    `checkify.debug_check`): a check to leave in code that also runs unchecked.

    Example:
        >>> f = lambda x: (fg.checkify.debug_check(x > 0, "neg {}", x), fnp.log(x))[1]
        >>> f(-1.0)                                  # no checkify: not checked
        array(nan)
        >>> fg.checkify.checkify(f)(-1.0)[0].get()   # 'neg -1.0 (fg.checkify.check failed ...'
    """
    if not isinstance(msg, str):
        raise TypeError(f"fg.checkify.debug_check: msg must be a str, got "
                        f"{type(msg).__name__}")
    if _checkify_active():
        check(pred, msg, *fmt_args, **fmt_kwargs)


def check_error(error: "Error") -> None:
    """Raise the failure `error` holds (an `Error` returned by a `checkify`-ed function):
    outside `checkify`, `CheckifyError` now, as `error.throw()`; inside an (outer)
    `checkify`, the failure becomes that checkify's error, also under `fg.jit` / `fg.vmap`
    where the error is traced (JAX's `checkify.check_error`).

    Example:
        >>> inner = fg.checkify.checkify(lambda x: fnp.log(x), errors=fg.checkify.nan_checks)
        >>> def f(x):
        ...     err, y = inner(x)
        ...     fg.checkify.check_error(err)
        ...     return y
        >>> err, y = fg.jit(fg.checkify.checkify(f))(-1.0)
        >>> err.get()     # "nan_checks: the primitive 'log' produced a NaN at ..."
    """
    if not isinstance(error, Error):
        raise TypeError(f"fg.checkify.check_error: expected an fg.checkify.Error (the first "
                        f"result of a checkify-ed function), got {type(error).__name__}")
    code = error.code
    if _checkify_active():
        if isinstance(code, Tracer) or (_host(code) != 0).any():
            check_p.bind(code, check=ErrorCheck(user_frame()))
        return
    if isinstance(code, Tracer):
        raise ConcretizationError(
            f"fg.checkify.check_error: the error is a traced value ({code.aval.str_short()}) "
            "under a transform (fg.jit, fg.vmap, ...) with no checkify around it, so it "
            "cannot be tested when the function is traced. Wrap the function in "
            "fg.checkify.checkify, or return the error and call error.throw() outside.")
    error.throw()


def _concrete(x, what):
    if not isinstance(x, Tracer):
        return x
    try:
        return x.to_concrete("fg.checkify.check(pred, msg)")
    except ConcretizationError:
        raise ConcretizationError(
            f"fg.checkify.check: {what} is a traced value ({x.aval.str_short()}) under a "
            "transform (fg.jit, fg.vmap, ...) with no checkify around it, so it cannot be "
            "tested when the function is traced. Wrap the function: err, out = "
            "fg.checkify.checkify(f)(x), then err.throw() (this works inside and outside "
            "fg.jit and fg.vmap).") from None


def checkify(f: Callable, errors: ErrorSet = user_checks) -> Callable:
    """`f` with run-time checks: `checkify(f, errors)(*args, **kwargs)` returns `(err, out)`,
    `out` being `f`'s output and `err` an `Error` (`err.get()`: None or the first failure's
    message naming the check or primitive and the user's line; `err.throw()`).

    `errors` picks the checks: `user_checks` (default: the `check` calls), `index_checks`,
    `div_checks`, `nan_checks`, `float_checks`, `all_checks`, combined with `|`. Works
    eagerly and with every transform around or inside it: `fg.jit(checkify(f))`,
    `checkify(fg.jit(f))`, `fg.vmap` (a failing batch element is named), `fg.grad` (checks
    the forward pass; `fg.grad(lambda x: checkify(f)(x)[1])` differentiates `f`).

    Example:
        >>> f = lambda x, i: fnp.log(x)[i]
        >>> err, y = fg.checkify.checkify(f, errors=fg.checkify.all_checks)(
        ...     np.array([1.0, -1.0]), np.array(5))
        >>> err.get()   # 'index_checks: index 5 is out of bounds for axis 0 with size 2 ...'
    """
    if not isinstance(errors, frozenset) or not errors <= all_checks:
        raise TypeError(f"checkify: errors must be a set of checks such as "
                        f"fg.checkify.user_checks | fg.checkify.nan_checks, got {errors!r}")
    errors = ErrorSet(errors)

    @functools.wraps(f)
    def checked(*args, **kwargs):
        key = checkify_begin_p.bind(errors=errors)
        try:
            out = _run(f, errors, args, kwargs)
        except BaseException:
            checkify_end_p.bind(key)  # (closes this call's record)
            raise
        return Error(checkify_end_p.bind(key)), out
    return checked


def _run(f, errors, args, kwargs):
    trace = CheckifyTrace(errors)
    with new_trace(trace):
        leaves, treedef = _tree.tree_flatten((args, kwargs))
        wrapped = [CheckifyTracer(trace, x) if _is_array(x) else x for x in leaves]
        a, k = _tree.tree_unflatten(treedef, wrapped)
        out_leaves, out_tree = _tree.tree_flatten(f(*a, **k))
        return _tree.tree_unflatten(out_tree, [trace.unwrap(o) for o in out_leaves])


def _is_array(x) -> bool:
    """Arguments the checks watch: arrays, traced values and Python floats / complex
    numbers (`log(-1.0)` is a NaN as much as `log(np.array(-1.0))`). Python ints and bools
    and other objects pass through unchanged: they often serve as shapes, counts or flags."""
    return isinstance(x, (Tracer, float, complex)) or (
        hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type))
