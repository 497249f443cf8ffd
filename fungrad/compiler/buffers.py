"""The buffer plan: which equations write their output into a dead temporary's memory.

NumPy allocates a fresh array for every result; for large arrays that allocation (and, on
many machines, the page faults of fresh memory) costs as much as the arithmetic. Equations
whose primitive `accepts_out` (NumPy ufuncs) can instead write into a buffer that is no
longer needed, with `out=`. Liveness decides which buffers are free:

- Vars that may share memory form a group: the output of a primitive that does not promise a
  `fresh_output` (a view: reshape, transpose, broadcast, getitem, ...) joins the group of its
  inputs. A group is *owned* if its root was allocated by this graph (a fresh output), or is
  an input the caller donated.
- An owned group is dead after the last equation that reads any member; a group holding a
  graph output never dies (the caller receives that memory).
- An equation whose primitive `accepts_out == "inplace"` (ufuncs) may write over an operand
  that dies at that very equation (exact overlap is safe for ufuncs); any equation that
  accepts `out=` may take a buffer of a group that died earlier, of the same shape and dtype.

User arrays and constants are never owned, so they are never written (unless donated).
When an equation has a choice of buffers, a graph output prefers a donated input's memory (it
is then returned without allocating) and a temporary prefers memory this graph allocated (so
the donated buffers stay free for outputs).

Scratch memory (`BufferPlan.scratch`): a buffer that only ever holds temporaries (no value
in its memory, nor a view of one, is a graph output) is allocated once and kept between calls
instead of being allocated by every call. Fresh memory is expensive beyond its `malloc`:
large blocks go back to the OS when freed (glibc trims its heap), so every call page-faults
them in again, which costs several times the arithmetic of an optimizer step. The generated
code takes a set of scratch buffers from a free list at entry and puts it back before it
returns (so concurrent calls from several threads each get their own set).

The plan also decides how each graph output is returned (`output_modes`): the caller gets
fresh, writable memory that it shares with nothing else it holds. An output is returned as
it is when it is (a writable view of) a buffer this graph allocated and no earlier output
uses; it is copied when it is an input, a constant, a view of one, a broadcast (stride-0,
read-only) view, or memory an earlier output already returns (`return y, y`). An output in
a donated input's memory is returned as a new view object (`.view()`), because the caller's
donated array itself is marked read-only after the call (see `fg.jit`).
"""
from __future__ import annotations

from collections import namedtuple

from ..core.ir import Graph, Var, has_effects

# Primitives whose output may be a view of their operand that is still writable and has no
# self-overlap (an output of one of these, in memory this graph owns, needs no copy). Any
# other primitive without `fresh_output` (broadcast_in_dim's stride-0 views, primitives
# added later) is treated as giving a view the caller must not receive.
WRITABLE_VIEWS = frozenset({"reshape", "transpose", "getitem", "stop_gradient"})

# `writes`: {equation index: Var whose buffer the equation writes its output into};
# `outputs`: per graph output, "" (return as is), "copy" or "view" (see the module doc);
# `scratch`: [equation index] of the equations that allocate scratch memory (one buffer each,
#   of their output's shape and dtype, kept between calls; see the module doc)
BufferPlan = namedtuple("BufferPlan", "writes outputs scratch")


class _Groups:
    """Union-find over Vars."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, v):
        p = self.parent.get(v, v)
        if p is v:
            return v
        root = self.find(p)
        self.parent[v] = root
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def plan_buffers(graph: Graph, donated=frozenset()) -> BufferPlan:
    """Which equations write into which dead buffers, and how each output is returned."""
    eqns = graph.eqns
    n = len(eqns)
    last_use: dict = {}
    for i, eqn in enumerate(eqns):
        for v in eqn.inputs:
            if type(v) is Var:
                last_use[v] = i
    outs = {v for v in graph.outvars if type(v) is Var}

    groups = _Groups()
    owned_roots = set(v for v in graph.invars if v in donated)
    made_by: dict = {}  # Var -> the equation that made it
    for i, eqn in enumerate(eqns):
        for o in eqn.outputs:
            made_by[o] = i
        fresh = eqn.prim.fresh_output
        if callable(fresh):  # decided per equation (getitem: fresh with index arrays)
            fresh = fresh(eqn)
        if fresh and not eqn.prim.multiple_results:
            owned_roots.add(eqn.outputs[0])
        else:
            for o in eqn.outputs:
                for v in eqn.inputs:
                    if type(v) is Var and not (v.aval.opaque or o.aval.opaque):
                        groups.union(v, o)  # (an opaque host object holds no buffer)

    # the index after which a group is dead (n: never, e.g. it holds an output)
    group_end: dict = {}
    members = list(graph.invars) + [o for e in eqns for o in e.outputs]
    for v in members:
        g = groups.find(v)
        end = n if v in outs else last_use.get(v, -1)
        if end > group_end.get(g, -1):
            group_end[g] = end
    # a group whose root is not owned (user input, constant, alias of one) is never reused
    reusable = {g for g in group_end if g in owned_roots and group_end[g] < n}

    plan: dict = {}
    pool: dict = {}  # (shape, dtype) -> [root Vars of dead groups]
    released_at: dict = {}
    for g in reusable:
        released_at.setdefault(group_end[g], []).append(g)
    taken: set = set()
    memory: dict = {}  # group root -> the root whose memory it writes into (followed to its owner)

    def pick(candidates, order, want_donated):
        """The first index in `order` of a candidate whose memory is donated iff
        `want_donated` (else `order`'s first)."""
        return next((k for k in order
                     if (memory.get(candidates[k], candidates[k]) in donated) == want_donated),
                    order[0])

    for i, eqn in enumerate(eqns):
        prim = eqn.prim
        # (0-d results are NumPy scalars, not buffers)
        if prim.accepts_out and not prim.multiple_results and eqn.outputs[0].aval.shape:
            out = eqn.outputs[0]
            key = (out.aval.shape, out.aval.dtype)
            is_output = group_end.get(groups.find(out)) == n
            # in place over an operand that dies here (ufuncs only)
            dying = [v for v in eqn.inputs
                     if prim.accepts_out == "inplace" and type(v) is Var and v in reusable
                     and v not in taken and groups.find(v) is v and group_end[v] == i
                     and (v.aval.shape, v.aval.dtype) == key]
            choice = None
            if dying:
                choice = dying[pick(dying, range(len(dying)), is_output)]
            elif pool.get(key):  # the most recently freed buffer of the preferred kind
                free = pool[key]
                choice = free.pop(pick(free, range(len(free) - 1, -1, -1), is_output))
            if choice is not None:
                # the output now owns that memory (and returns it to the pool when it dies)
                taken.add(choice)
                plan[i] = choice
                memory[groups.find(out)] = memory.get(choice, choice)
        for g in released_at.get(i, ()):
            if g not in taken:
                pool.setdefault((g.aval.shape, g.aval.dtype), []).append(g)
    return BufferPlan(plan, _output_modes(graph, groups, owned_roots, made_by, plan, donated),
                      _scratch(graph, groups, group_end, plan, memory))


def _scratch(graph, groups, group_end, plan, memory) -> list:
    """The equations that allocate memory holding temporaries only: each allocates a buffer
    (an operation that accepts `out=`, not written into another buffer), its output is the
    root of its group, and no group living in that memory reaches a graph output."""
    n = len(graph.eqns)
    escapes = {memory.get(g, g) for g, end in group_end.items() if end == n}
    found = []
    for i, eqn in enumerate(graph.eqns):
        prim = eqn.prim
        if (not prim.accepts_out or prim.multiple_results or i in plan
                or not eqn.outputs[0].aval.shape):
            continue
        out = eqn.outputs[0]
        if groups.find(out) is out and out not in escapes:
            found.append(i)
    return found


def _output_modes(graph, groups, owned_roots, made_by, plan, donated) -> list:
    """Per output: "" (fresh memory no earlier output returns), "copy" or "view"."""
    eqns = graph.eqns

    def plain(v) -> bool:  # owned memory, reached through writable views only
        if v in owned_roots:
            return True
        i = made_by.get(v)
        if i is None or eqns[i].prim.name not in WRITABLE_VIEWS:
            return False
        return all(plain(u) for u in eqns[i].inputs if type(u) is Var)

    returned: set = set()
    modes = []
    for v in graph.outvars:
        if type(v) is not Var:
            modes.append("copy")  # a constant: the next call returns it again
            continue
        g = groups.find(v)
        if g not in owned_roots or g in returned or not plain(v):
            modes.append("copy")
            continue
        returned.add(g)
        # the memory behind the group: a buffer it was written into, followed to its owner
        mem = g
        while made_by.get(mem) in plan:
            mem = groups.find(plan[made_by[mem]])
        modes.append("view" if mem in donated else "")
    return modes


DEL_MIN_BYTES = 1 << 16  # smaller dead values keep their names until the function returns


def release_points(graph: Graph, writes: dict) -> dict:
    """{equation index: Vars whose names the generated code deletes after that equation}.

    A local name keeps its array alive until the generated function returns; deleting it
    once the value is dead (read for the last time, and no later equation writes into its
    buffer, `writes` being `plan_buffers`' result) lets NumPy free that memory mid-call, so
    a dead forward temporary no longer sits beside the backward pass. Inputs (the caller
    holds them anyway), outputs and values under `DEL_MIN_BYTES` keep their names (deleting
    those would gain nothing and clutter the generated source).
    """
    end: dict = {}
    for i, eqn in enumerate(graph.eqns):
        for v in eqn.inputs:
            if type(v) is Var:
                end[v] = i
        for o in eqn.outputs:
            end.setdefault(o, i)  # an output nothing reads dies where it is made
    for i, v in writes.items():
        if end[v] < i:
            end[v] = i
    keep = set(graph.invars).union(v for v in graph.outvars if type(v) is Var)
    points: dict = {}
    for v, i in end.items():
        a = v.aval
        # (an opaque object, a while_loop tape, may hold many arrays: freed when dead)
        if v not in keep and (a.size * a.dtype.itemsize >= DEL_MIN_BYTES or a.opaque):
            points.setdefault(i, []).append(v)
    return points


def sink(graph: Graph) -> Graph:
    """The same graph with equations moved down to just before their first reader, where
    that extends no operand's life: each of its Var operands is a graph input or output or
    is read again after the new place. No value lives longer; the moved one lives shorter.

    Tracing records a derivative coefficient where the forward pass meets it (`cos(x)` for
    `sin(x)`), but the backward pass reads it last: computed there, its buffer is not held
    through the rest of the forward pass (and may take a dead forward buffer).
    One pass from the last equation to the first; order keys tie-break by original index,
    so a producer always stays before its readers.
    """
    eqns = graph.eqns
    readers: dict = {}
    for i, eqn in enumerate(eqns):
        for v in eqn.inputs:
            if type(v) is Var:
                readers.setdefault(v, []).append(i)
    lasting = set(graph.invars).union(v for v in graph.outvars if type(v) is Var)
    key = list(range(len(eqns)))  # equation i runs at (key[i], i)
    moved = False
    for i in range(len(eqns) - 1, -1, -1):
        first = min((key[j] for o in eqns[i].outputs for j in readers.get(o, ())), default=None)
        if first is None or first <= key[i] + 1 or has_effects(eqns[i]):
            continue  # nothing reads it, its first reader comes right after it, or it is
            # effectful (a callback keeps its place in the program order)
        if all(type(v) is not Var or v in lasting
               or any(j != i and (key[j], j) > (first, i) for j in readers[v])
               for v in eqns[i].inputs):
            key[i] = first
            moved = True
    if not moved:
        return graph
    order = sorted(range(len(eqns)), key=lambda i: (key[i], i))
    return Graph(graph.invars, [eqns[i] for i in order], graph.outvars)
