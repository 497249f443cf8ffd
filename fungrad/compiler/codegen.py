"""Codegen: an optimized `Graph` becomes one Python function of straight-line NumPy calls.

Each equation is one line, `out = <expression>`, written by its primitive's `emit` rule
(or a call of its `impl` where it has none), with the user's source line as a comment.
Constants (arrays, dtypes, functions) live in the function's globals under short names.
The source is registered with `linecache`, so a traceback inside generated code shows the
line that failed and, in its comment, the line of the user's function that produced it; the
entry is removed when the generated function is freed (its jit cache entry evicted or
cleared, or the jitted function deleted).
"""
from __future__ import annotations

import functools
import itertools
import keyword
import linecache
import math
import sys
import threading
import weakref

import numpy as np

from ..core.ir import Graph, Var, _var_name
from .buffers import plan_buffers, release_points, sink
from .chunks import chunk_size, cluster, regions
from .passes import scalar_key

_counter = itertools.count()
_SIMPLE = (int, bool, str, type(None))


class EmitContext:
    """What an `emit` rule may ask for: names for constants, dtypes and functions."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self._names: dict = {}
        self.in_avals: list = []  # of the equation being emitted
        self.out_avals: list = []

    @property
    def array_module(self):
        """NumPy, or CuPy for code generated for CuPy arrays (`np` in the generated code)."""
        return self.namespace["np"]

    def const(self, value, hint: str = "k") -> str:
        """A global name bound to `value` (one name per object)."""
        name = self._names.get(id(value))
        if name is None:
            name = f"{hint}{len(self._names)}"
            self._names[id(value)] = name
            self.namespace[name] = value
        return name

    def value(self, x) -> str:
        """Source for a parameter value: a literal where Python has one, else a constant."""
        if isinstance(x, _SIMPLE) or (type(x) is float and math.isfinite(x)):
            return repr(x)
        if isinstance(x, tuple) and all(
                isinstance(e, _SIMPLE) or (type(e) is float and math.isfinite(e)) for e in x):
            return repr(x)
        if isinstance(x, np.dtype):
            return self.dtype(x)
        return self.const(x)

    def dtype(self, dt) -> str:
        dt = np.dtype(dt)
        if getattr(np, dt.name, None) is dt.type:
            return f"np.{dt.name}"
        return self.const(dt, "dtype")

    def fn(self, f) -> str:
        """`np.<name>` for a NumPy function, else a constant bound to `f`."""
        name = getattr(f, "__name__", None)
        if name is not None and getattr(np, name, None) is f:
            return f"np.{name}"
        return self.const(f, "fn")


def _py_name(n: int) -> str:
    name = _var_name(n)
    return name + "_" if keyword.iskeyword(name) or name == "np" else name


class Compiled:
    """A generated function and what it was made from."""

    def __init__(self, fn, source: str, graph: Graph, filename: str):
        self.fn = fn
        self.source = source
        self.graph = graph
        self.filename = filename

    def __call__(self, *args):
        return self.fn(*args)


def _generic_call(ctx, prim, ins, params) -> str:
    impl = ctx.const(prim.impl, f"{prim.name}_impl")
    kw = [f"{k}={ctx.value(v)}" for k, v in params.items()]
    return f"{impl}({', '.join(list(ins) + kw)})"


_TYPED = (np.dtype(np.float32), np.dtype(np.float64))


def _typed_scalars(ctx, eqn, ins, typed) -> None:
    """A ufunc on float32/float64 arrays reads its weak Python-scalar operands as constants
    of that dtype: NumPy casts a Python scalar to the array's dtype anyway (the values are
    the same), but converting it on every call costs about as much as the arithmetic on a
    small array. The constants, and NumPy-scalar operands, are read-only 0-d arrays: a ufunc
    takes one ~0.3 us faster than a NumPy scalar (same dtype rules since NEP 50; CuPy takes
    NumPy scalars only). Rewrites `ins` in place."""
    as_array = ctx.array_module is np
    dt = eqn.outputs[0].aval.dtype
    weak_ok = dt in _TYPED and not any(
        type(v) is Var and v.aval.dtype != dt for v in eqn.inputs)
    for k, v in enumerate(eqn.inputs):
        if type(v) is Var:
            continue
        x = v.value
        if as_array and isinstance(x, np.generic) and x.dtype.kind in "biufc":
            key = scalar_key(x)
            if key not in typed:
                typed[key] = ctx.const(_frozen(x), "c")
            ins[k] = typed[key]
            continue
        if not weak_ok or type(x) not in (int, float) or not v.aval.weak_type:
            continue
        key = (dt,) + scalar_key(x)
        if key not in typed:
            try:
                with np.errstate(over="ignore"):
                    t = dt.type(x)
                exact = math.isfinite(t) == math.isfinite(x)
            except OverflowError:
                exact = False
            typed[key] = ctx.const(_frozen(t) if as_array else t, "c") if exact else None
        if typed[key] is not None:
            ins[k] = typed[key]


def _frozen(x) -> np.ndarray:
    a = np.array(x)
    a.flags.writeable = False
    return a


def _new_scratch(specs) -> tuple:
    return tuple(np.empty(shape, dtype) for shape, dtype in specs)


# Large outputs are computed into memory an earlier call returned and the caller has since
# dropped (see buffers.py: fresh memory page-faults on every call): each such output keeps
# the arrays of its last `_RECYCLE_KEEP` calls; one that nothing else references any more
# (no name, no view, no container holding it, no weak reference) is written again instead
# of a new array. Two, so that a loop `params = step(params)` finds the array of the call
# before last free.
_RECYCLE_MIN_BYTES = 1 << 16
_RECYCLE_KEEP = 2
_recycle_lock = threading.Lock()


def _alone_count() -> int:
    """What `sys.getrefcount(pool[k][0])` in `_recycled` reads for an array that only its
    pool entry references (measured, not assumed: interpreters count the argument
    differently)."""
    pool = [(np.empty(0), None)]
    return sys.getrefcount(pool[0][0])


_ALONE = _alone_count()


def _recycled(pool: list):
    """An array of `pool` that only the pool references (taken out of it), or None: the
    operation then allocates.

    An entry is `(array, (shape, strides, dtype) when it was returned)`. Besides its
    reference count, an array is written again only if it is still writable (a caller may
    have frozen it, or donated it to another jitted function, which consumes it), nobody
    holds a weak reference to it (a `weakref.WeakValueDictionary` cache would see the new
    values), and the caller did not change its shape, strides or dtype in place (`y.shape =
    ...`): the result must be what a fresh array would hold. An entry failing those is
    dropped from the pool (it is never reused; the caller's array is its own again)."""
    with _recycle_lock:
        k = 0
        while k < len(pool):
            if sys.getrefcount(pool[k][0]) == _ALONE:  # (no local name: see _alone_count)
                a, layout = pool.pop(k)
                if (a.flags.writeable and not weakref.getweakrefcount(a)
                        and (a.shape, a.strides, a.dtype) == layout):
                    return a
                continue
            k += 1
    return None


def _returned(pool: list, a):
    """`a`, remembered in `pool` for a later call to reuse once the caller drops it. Only an
    array that owns its memory: a view's own count misses views taken from it (their base
    is the owner)."""
    if a.base is None:
        entry = (a, (a.shape, a.strides, a.dtype))
        with _recycle_lock:
            pool.append(entry)
            if len(pool) > _RECYCLE_KEEP:
                del pool[0]
    return a


def _recycled_outputs(graph, plan, scratch) -> dict:
    """{output Var: index of the equation that allocates its memory} for the large outputs
    returned as they are whose memory an equation that accepts `out=` allocates (the plan
    may have written later values into it: `np.add(m, g, out=m)` returns m's memory)."""
    made_by = {eqn.outputs[0]: i for i, eqn in enumerate(graph.eqns) if eqn.outputs}
    root = {}
    for i, eqn in enumerate(graph.eqns):
        if i in plan.writes:
            root[eqn.outputs[0]] = root.get(plan.writes[i], plan.writes[i])
    found = {}
    for v, mode in zip(graph.outvars, plan.outputs):
        if type(v) is not Var or mode or v in found or v.aval.opaque or not v.aval.shape:
            continue
        r = root.get(v, v)
        i = made_by.get(r)
        if i is None or i in plan.writes or i in scratch or r.aval != v.aval:
            continue
        prim = graph.eqns[i].prim
        nbytes = math.prod(v.aval.shape) * np.dtype(v.aval.dtype).itemsize
        if prim.accepts_out and not prim.multiple_results and nbytes >= _RECYCLE_MIN_BYTES:
            found[v] = i
    return found


def generate(graph: Graph, name: str = "f", donated=frozenset(), array_module=np) -> Compiled:
    """Compile `graph` to a Python function `fn(*inputs) -> tuple of output arrays`."""
    namespace = {"np": array_module}
    ctx = EmitContext(namespace)
    names: dict = {}
    counter = itertools.count()

    def define(v):
        names[v] = _py_name(next(counter))
        return names[v]

    def atom(v) -> str:
        if type(v) is Var:
            return names[v]
        x = v.value
        if type(x) in (int, bool) or (type(x) is float and math.isfinite(x)):
            return repr(x)
        if array_module is not np and isinstance(x, np.ndarray):
            x = array_module.asarray(x)  # constants live on the inputs' device
        return ctx.const(x, "c")

    params = [define(v) for v in graph.invars]
    typed: dict = {}  # (dtype, Python scalar) -> the name of that NumPy scalar
    graph = sink(graph)  # each value is computed where it is first needed
    if array_module is np:  # (CuPy: no caches to block for)
        graph = cluster(graph)  # a region's elementwise equations side by side (chunks.py)
    plan = plan_buffers(graph, donated)
    writes = plan.writes
    dels = release_points(graph, writes)  # dead values are freed mid-call, not at return
    fname = "jit_" + "".join(c if c.isalnum() else "_" for c in name)
    lines = [f"def {fname}({', '.join(params)}):"]
    # scratch buffers (see buffers.py): a set per concurrent call, kept between calls (CuPy
    # has its own memory pool)
    scratch = {i: k for k, i in enumerate(plan.scratch)} if array_module is np else {}
    # the output of the equation that allocated each value's memory (for scratch memory)
    in_memory = {}
    for i, v in writes.items():
        in_memory[graph.eqns[i].outputs[0]] = in_memory.get(v, v)
    kept = {graph.eqns[i].outputs[0] for i in scratch}
    recycle = _recycled_outputs(graph, plan, scratch) if array_module is np else {}
    pool_of = {i: f"_out{k}" for k, i in enumerate(sorted(set(recycle.values())))}
    for pool in pool_of.values():
        namespace[pool] = []
    if pool_of:
        namespace["_recycled"], namespace["_returned"] = _recycled, _returned
    if scratch:
        avals = [graph.eqns[i].outputs[0].aval for i in plan.scratch]
        namespace["_free"] = []
        namespace["_new_scratch"] = functools.partial(_new_scratch, tuple(
            (a.shape, a.dtype) for a in avals))
        lines += ["    try:", "        _s = _free.pop()", "    except IndexError:",
                  "        _s = _new_scratch()"]
    def buffer(i):
        return names[writes[i]] if i in writes else (
            f"_s[{scratch[i]}]" if i in scratch else (
                f"_recycled({pool_of[i]})" if i in pool_of else None))

    def operands(i, eqn):
        ins = [atom(v) for v in eqn.inputs]
        ctx.in_avals = [v.aval for v in eqn.inputs]
        ctx.out_avals = [o.aval for o in eqn.outputs]
        if eqn.prim.accepts_out == "inplace":
            _typed_scalars(ctx, eqn, ins, typed)
        return ins

    def release(indices):
        dead = [v for i in indices for v in dels.get(i, ()) if in_memory.get(v, v) not in kept]
        if dead:  # (deleting a name in scratch memory would free nothing)
            lines.append(f"    del {', '.join(names[v] for v in dead)}")

    chunked = regions(graph) if array_module is np else {}
    i = 0
    while i < len(graph.eqns):
        if i in chunked and _emit_chunked(lines, ctx, graph, i, chunked[i], operands, buffer,
                                          define, next(counter)):
            release(range(i, chunked[i]))
            i = chunked[i]
            continue
        eqn = graph.eqns[i]
        prim = eqn.prim
        ins = operands(i, eqn)
        if prim.emit is not None:
            expr = prim.emit(ctx, ins, buffer(i), **eqn.params)
        else:
            expr = _generic_call(ctx, prim, ins, eqn.params)
        outs = [define(o) for o in eqn.outputs]
        lhs = ", ".join(outs) + ("," if prim.multiple_results and len(outs) == 1 else "")
        comment = f"  # {eqn.source}" if eqn.source else ""
        # (an equation without outputs, a host callback, is a statement)
        lines.append(f"    {lhs} = {expr}{comment}" if outs else f"    {expr}{comment}")
        release((i,))
        i += 1
    results = []
    for v, mode in zip(graph.outvars, plan.outputs):
        s = atom(v)
        if v.aval.opaque:  # a host object (a while_loop tape), not an array: as it is
            results.append(s)
            continue
        # the caller gets memory it shares with nothing it holds (see buffers.py): inputs,
        # constants, broadcasts and a second return of one buffer are copied
        if not v.aval.shape:
            # every output is an array (a 0-d result may be a NumPy or Python scalar), so
            # the caller need not convert them; a 0-d "view" (of a donated input, which may
            # be a NumPy scalar whose .view() is a scalar) is copied: 0-d is never written
            # in place, so no memory is saved by returning the donated one
            s = f"np.{'array' if mode else 'asarray'}({s})"
        elif mode and (type(v) is Var or hasattr(v.value, "copy")):
            s = f"{s}.{mode}()"
        elif v in recycle:
            s = f"_returned({pool_of[recycle[v]]}, {s})"
        results.append(s)
    if scratch:
        lines.append("    _free.append(_s)")
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    source = "\n".join(lines) + "\n"
    filename = f"<fungrad.jit {fname} #{next(_counter)}>"
    return Compiled(define_function(source, fname, namespace, filename), source, graph,
                    filename)


def _emit_chunked(lines, ctx, graph, start, end, operands, buffer, define, tag) -> bool:
    """Append equations start..end-1 (a region of chunks.py: elementwise ufuncs over one
    large shape) as a loop over chunks of their flattened arrays, with the plain sequence
    as the fallback when one of the arrays is not C-contiguous. False (nothing appended)
    when the arrays are too small for two chunks."""
    eqns = graph.eqns[start:end]
    shape = eqns[0].outputs[0].aval.shape
    size = math.prod(shape)
    parts, names, arrays, plain, pre = [], [], [], [], []
    memory: dict = {}  # array name -> the name of the array whose memory it is
    for i, eqn in zip(range(start, end), eqns):
        ins = operands(i, eqn)
        parts.append((eqn, ins))
        arrays += [a for v, a in zip(eqn.inputs, ins) if v.aval.shape == shape]
        buf, out = buffer(i), eqn.outputs[0]
        # the output is its buffer (a ufunc returns its `out=`): named before the loop
        names.append(define(out))
        memory[names[-1]] = memory.get(buf, buf) if buf in memory or buf in arrays \
            else names[-1]
        empty = f"np.empty({out.aval.shape!r}, {ctx.dtype(out.aval.dtype)})"
        pre.append(f"    {names[-1]} = {empty if buf is None else buf}")
        if buf is not None and buf.startswith("_recycled("):  # (None: nothing to recycle)
            pre.append(f"    if {names[-1]} is None:\n        {names[-1]} = {empty}")
    distinct = {memory.get(a, a) for a in arrays + names}
    step = chunk_size(len(distinct), max(e.outputs[0].aval.dtype.itemsize for e in eqns))
    if size < 2 * step:
        return False  # (the caller emits the equations one by one, naming them anew)
    lines.extend(pre)
    # one flat view per memory (names of one buffer share it)
    owners = list(dict.fromkeys(memory.get(a, a) for a in arrays + names))
    views = {a: f"_c{tag}_{k}" for k, a in enumerate(owners)}
    flat = {a: views[memory.get(a, a)] for a in arrays + names}
    contiguous = " and ".join(f"{a}.flags.c_contiguous" for a in owners)
    lines.append(f"    if {contiguous}:  # chunked: {size} elements in chunks of {step} "
                 "(compiler/chunks.py)")
    lines.append(f"        {', '.join(views.values())}, = "
                 f"{', '.join(f'{a}.reshape(-1)' for a in owners)},")
    lines.append(f"        for _a in range(0, {size}, {step}):")
    lines.append(f"            _b = _a + {step}")
    for (eqn, ins), name in zip(parts, names):
        sliced = [f"{flat[a]}[_a:_b]" if a in flat and v.aval.shape == shape else a
                  for v, a in zip(eqn.inputs, ins)]
        ctx.in_avals = [v.aval for v in eqn.inputs]
        ctx.out_avals = [o.aval for o in eqn.outputs]
        comment = f"  # {eqn.source}" if eqn.source else ""
        lines.append(f"            {eqn.prim.emit(ctx, sliced, f'{flat[name]}[_a:_b]', **eqn.params)}"
                     f"{comment}")
        plain.append(f"        {eqn.prim.emit(ctx, ins, name, **eqn.params)}{comment}")
    lines.append(f"        del {', '.join(views.values())}")  # (views would keep buffers alive)
    lines.append("    else:")
    lines.extend(plain)
    return True


def define_function(source: str, name: str, namespace: dict, filename: str):
    """Run `source` (generated code defining function `name`) in `namespace` and return
    the function. The source is registered with linecache under `filename`, so tracebacks
    show its lines; the function is taken out of its own globals (no cycle: it is freed as
    soon as its owner drops it), and its source leaves linecache with it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace.pop(name)
    weakref.finalize(fn, linecache.cache.pop, filename, None).atexit = False
    return fn
