"""Cache-blocked elementwise regions: a run of elementwise ufunc equations over the same large
shape is executed chunk by chunk, so that each chunk's temporaries are still in cache when
the next equation of the run reads them.

An optimizer step is a dozen passes over every parameter leaf (Adam: 3 for the first moment,
4 for the second, 5 for the update). Over a 784x512 float32 leaf each pass streams 1.6 MB per
operand from L3 or memory; run over 64K-element chunks the same dozen calls touch ~1.5 MB in
all, which stays in L2 (the Adam update of that leaf: 1.44 -> 1.07 ms). The extra cost is one
ufunc call per chunk and equation (~1 us), paid only for shapes of `CHUNK_MIN_ELEMENTS` or
more.

Why executing chunk by chunk computes what the plain sequence computes: every equation of a
region is an elementwise ufunc whose array operands all have the output's shape (others are
0-d) and are whole allocations (graph inputs, or fresh outputs; never views), as are the
buffers the plan writes into (buffers.py: the roots of dead groups). Element j of every
result then depends only on element j of the operands, and a write at j is seen by exactly
the reads at j that follow it in program order, in both schedules. Distinct whole allocations
never partly overlap (a donated argument overlapping another one is copied by `fg.jit`), and
the generated code checks at run time that every array is C-contiguous (their flat views
then index the same element by the same j), else it runs the plain sequence.

`cluster` moves the equations of one region next to each other before the buffer plan is
made (an optimizer's trace interleaves the leaves: every leaf's first moment, then every
leaf's second moment, ...); `regions` finds the runs that codegen emits as chunked loops.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.ir import Graph, Literal, Var, has_effects

CHUNK_MIN_ELEMENTS = 1 << 17  # smaller arrays fit in cache as they are
CACHE_BYTES = 2 << 20  # all of a region's arrays, one chunk each: about an L2 cache
_MIN_CHUNK = 1 << 14
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _fresh(eqn) -> bool:
    fresh = eqn.prim.fresh_output
    if callable(fresh):
        fresh = fresh(eqn)
    return bool(fresh) and not eqn.prim.multiple_results


def chunk_key(eqn, whole: set):
    """The output shape of `eqn` if it may run in a chunked region, else None: an
    elementwise ufunc with one float output of `CHUNK_MIN_ELEMENTS` or more whose operands
    are 0-d, or of the output's shape and whole allocations (`whole`: Vars that are graph
    inputs or fresh outputs; constants are whole arrays)."""
    prim = eqn.prim
    # (an emit rule that is one ufunc call says so: `emit.ufunc`; the impl may be a wrapper)
    if (prim.accepts_out != "inplace" or getattr(prim.emit, "ufunc", None) is None
            or prim.multiple_results or len(eqn.outputs) != 1 or has_effects(eqn)):
        return None
    aval = eqn.outputs[0].aval
    if aval.dtype not in _FLOATS or math.prod(aval.shape) < CHUNK_MIN_ELEMENTS:
        return None
    for v in eqn.inputs:
        shape = v.aval.shape
        if shape == ():
            continue
        if shape != aval.shape or (type(v) is Var and v not in whole) or (
                type(v) is Literal and type(v.value) is not np.ndarray):
            return None
    return aval.shape


def whole_vars(graph: Graph) -> set:
    """Vars that are whole allocations: graph inputs and outputs of fresh-output equations."""
    whole = set(graph.invars)
    whole.update(e.outputs[0] for e in graph.eqns if _fresh(e))
    return whole


def cluster(graph: Graph) -> Graph:
    """The same graph with the chunkable equations of each connected same-shape component
    made adjacent where that is legal: the component moves up to its first member, with the
    equations it needs that have not run yet moved before it (in their order). A component
    that something outside it both needs and feeds (a path out of it and back), or whose
    moved dependencies include an effectful equation, stays as it is."""
    eqns = graph.eqns
    whole = whole_vars(graph)
    keys = [chunk_key(e, whole) for e in eqns]
    if sum(k is not None for k in keys) < 2:
        return graph
    producer = {o: i for i, e in enumerate(eqns) for o in e.outputs}
    parent = list(range(len(eqns)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, e in enumerate(eqns):
        if keys[i] is None:
            continue
        for v in e.inputs:
            j = producer.get(v) if type(v) is Var else None
            if j is not None and keys[j] == keys[i]:
                parent[find(j)] = find(i)
    members: dict = {}
    for i, k in enumerate(keys):
        if k is not None:
            members.setdefault(find(i), []).append(i)

    def needs(component: set, done: set):
        """The equations not yet `done` that `component` needs, outside it; None if one of
        them needs the component (a cycle) or has effects."""
        out, stack = set(), []
        for i in component:
            stack.extend(producer[v] for v in eqns[i].inputs if type(v) is Var and v in producer
                         and producer[v] not in component)
        while stack:
            j = stack.pop()
            if j in done or j in out:
                continue
            if j in component or has_effects(eqns[j]):
                return None
            out.add(j)
            stack.extend(producer[v] for v in eqns[j].inputs if type(v) is Var and v in producer)
        return out

    order, done, moved = [], set(), False
    for i in range(len(eqns)):
        if i in done:
            continue
        # (members an earlier block needed have run already)
        group = [j for j in members[find(i)] if j not in done] if keys[i] is not None else []
        before = needs(set(group), done) if len(group) > 1 else None
        if before is None:
            order.append(i)
            done.add(i)
            continue
        block = sorted(before) + group
        moved = moved or block != list(range(i, i + len(block)))
        order.extend(block)
        done.update(block)
    if not moved:
        return graph
    return Graph(graph.invars, [eqns[i] for i in order], graph.outvars)


def regions(graph: Graph) -> dict:
    """{first index: last index + 1} of each run of two or more adjacent equations with the
    same chunk key."""
    whole = whole_vars(graph)
    keys = [chunk_key(e, whole) for e in graph.eqns]
    out, i = {}, 0
    while i < len(keys):
        j = i + 1
        if keys[i] is not None:
            while j < len(keys) and keys[j] == keys[i]:
                j += 1
            if j - i > 1:
                out[i] = j
        i = j
    return out


def chunk_size(n_arrays: int, itemsize: int) -> int:
    """Elements per chunk: a power of two such that one chunk of each of the region's
    arrays fits in `CACHE_BYTES`."""
    fit = CACHE_BYTES // max(n_arrays * itemsize, 1)
    return max(_MIN_CHUNK, 1 << max(fit.bit_length() - 1, 0))
