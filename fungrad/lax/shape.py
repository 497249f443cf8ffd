"""Shape primitives: broadcast_in_dim, reshape, transpose, concatenate. All are linear."""
from __future__ import annotations

import numpy as np

from ..backend import asarray as _asarray
from ..core.ir import Eqn, ShapedArray, Var, aval_of as _aval
from ..core.primitive import Primitive
from ..compiler.passes import broadcast_sources, can_stand_for, simplify_rules
from ..core.ad_util import ZERO


def linear_jvp(prim):
    """The JVP of a primitive that is linear in its (single) array operand.

    Example:
        >>> half_p = fg.extend.Primitive("half_example")
        >>> half_p.impl = lambda x: 0.5 * x
        >>> half_p.abstract_eval = lambda x: x
        >>> half_p.jvp = fg.extend.linear_jvp(half_p)          # tangent out: half_p(tangent)
        >>> half_p.transpose = lambda ct, x: [half_p.bind(ct)]  # for reverse mode
        >>> fg.jvp(half_p.bind, (4.0,), (1.0,)), fg.grad(half_p.bind)(4.0)
        ((array(2.), array(0.5)), array(0.5))
    """
    bind = prim.bind

    def jvp(primals, tangents, **params):
        return bind(*primals, **params), bind(*tangents, **params)
    return jvp


def linear_in_first_jvp(prim):
    """The JVP of a primitive linear in its first operand whose other operands are indices
    (getitem, dynamic_slice): the tangent goes through with the same indices."""
    bind = prim.bind

    def jvp(primals, tangents, **params):
        x, *indices = primals
        out = bind(x, *indices, **params)
        if tangents[0] is ZERO:
            return out, ZERO
        return out, bind(tangents[0], *indices, **params)
    return jvp


# --------------------------------------------------------------------------- broadcast_in_dim
def _broadcast_impl(x, shape, broadcast_dimensions):
    if not hasattr(x, "reshape"):
        x = np.asarray(x)
    xp_shape = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        xp_shape[d] = x.shape[i]
    x = x.reshape(xp_shape)
    if x.shape == shape:
        return x
    if type(x) is np.ndarray and x.flags.c_contiguous:
        # the read-only stride-0 view np.broadcast_to makes, built directly (10x cheaper)
        strides = tuple(0 if n != d else st for n, d, st in zip(xp_shape, shape, x.strides))
        out = np.ndarray(shape, x.dtype, x, 0, strides)
        out.flags.writeable = False
        return out
    return np.broadcast_to(x, shape)


def _broadcast_aval(x, shape, broadcast_dimensions):
    for i, d in enumerate(broadcast_dimensions):
        if x.shape[i] not in (1, shape[d]):
            raise ValueError(f"broadcast_in_dim: operand shape {x.shape} is incompatible with "
                             f"shape {shape} at dimensions {broadcast_dimensions}")
    return ShapedArray(tuple(shape), x.dtype)


broadcast_in_dim_p = Primitive("broadcast_in_dim")
broadcast_in_dim_p.impl = _broadcast_impl
broadcast_in_dim_p.abstract_eval = _broadcast_aval
broadcast_in_dim_p.jvp = linear_jvp(broadcast_in_dim_p)


def broadcast_in_dim(x, shape, broadcast_dimensions):
    return broadcast_in_dim_p.bind(x, shape=tuple(shape),
                                   broadcast_dimensions=tuple(broadcast_dimensions))


def _broadcast_transpose(ct, x, shape, broadcast_dimensions):
    from .reduce import reduce_sum
    in_shape = x.aval.shape
    summed = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    summed += tuple(d for i, d in enumerate(broadcast_dimensions)
                    if in_shape[i] == 1 and shape[d] != 1)
    if summed:
        ct = reduce_sum(ct, axes=tuple(sorted(summed)))
    if _aval(ct).shape != in_shape:
        ct = reshape(ct, in_shape)
    return [ct]


broadcast_in_dim_p.transpose = _broadcast_transpose


# --------------------------------------------------------------------------- reshape
def _reshape_impl(x, new_sizes):
    # the array method where there is one (np.reshape adds a Python layer); scalars too
    return x.reshape(new_sizes) if hasattr(x, "reshape") else np.reshape(x, new_sizes)


reshape_p = Primitive("reshape")
reshape_p.impl = _reshape_impl
reshape_p.jvp = linear_jvp(reshape_p)


def _reshape_aval(x, new_sizes):
    n = 1
    for d in new_sizes:
        n *= d
    if n != x.size:
        raise ValueError(f"reshape: cannot reshape {x.str_short()} into shape {new_sizes}")
    return ShapedArray(tuple(new_sizes), x.dtype)


reshape_p.abstract_eval = _reshape_aval
reshape_p.transpose = lambda ct, x, new_sizes: [reshape(ct, x.aval.shape)]


def reshape(x, new_sizes):
    return reshape_p.bind(x, new_sizes=tuple(new_sizes))


# --------------------------------------------------------------------------- transpose
transpose_p = Primitive("transpose")
transpose_p.impl = lambda x, permutation: (x.transpose(permutation) if hasattr(x, "transpose")
                                           else np.transpose(x, permutation))
transpose_p.abstract_eval = lambda x, permutation: ShapedArray(
    tuple(x.shape[p] for p in permutation), x.dtype)
transpose_p.jvp = linear_jvp(transpose_p)
transpose_p.transpose = lambda ct, x, permutation: [
    transpose(ct, tuple(np.argsort(permutation)))]


def transpose(x, permutation):
    return transpose_p.bind(x, permutation=tuple(int(p) for p in permutation))


# --------------------------------------------------------------------------- concatenate
def _concat_aval(*xs, dimension):
    base = xs[0]
    for x in xs[1:]:
        if (len(x.shape) != len(base.shape) or x.dtype != base.dtype or any(
                a != b for i, (a, b) in enumerate(zip(x.shape, base.shape)) if i != dimension)):
            raise ValueError("concatenate: all inputs must have the same dtype and shape except "
                             f"along axis {dimension}; got {', '.join(map(str, xs))}")
    shape = list(base.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(tuple(shape), base.dtype)


concatenate_p = Primitive("concatenate")
concatenate_p.impl = lambda *xs, dimension: np.concatenate(xs, axis=dimension)
concatenate_p.abstract_eval = _concat_aval


def _concat_jvp(primals, tangents, dimension):
    out = concatenate_p.bind(*primals, dimension=dimension)
    if all(t is ZERO for t in tangents):
        return out, ZERO
    ts = [np.zeros(_aval(p).shape, _aval(p).dtype) if t is ZERO else t
          for p, t in zip(primals, tangents)]
    return out, concatenate_p.bind(*ts, dimension=dimension)


def _concat_transpose(ct, *xs, dimension):
    from .indexing import slice_along
    out = []
    start = 0
    for x in xs:
        n = (x.aval if type(x) is Var else _aval(x)).shape[dimension]
        out.append(slice_along(ct, dimension, start, start + n) if type(x) is Var else None)
        start += n
    return out


concatenate_p.jvp = _concat_jvp
concatenate_p.transpose = _concat_transpose


def concatenate(xs, dimension):
    return concatenate_p.bind(*xs, dimension=int(dimension))


SHAPE_PRIMITIVES = [broadcast_in_dim_p, reshape_p, transpose_p, concatenate_p]


# --------------------------------------------------------------------------- batching
def moveaxis(x, src: int, dst: int):
    """Move axis `src` of `x` to `dst` with the transpose primitive (works on tracers)."""
    if src == dst and src >= 0:
        return x
    nd = _aval(x).ndim
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return transpose(x, perm)


def bdim_at_front(x, d, axis_size):
    """`x` with its batch axis first; an unbatched `x` gets one by broadcasting (a view)."""
    if d is None:
        shape = _aval(x).shape
        return broadcast_in_dim(x, (axis_size,) + shape, tuple(range(1, len(shape) + 1)))
    return moveaxis(x, d, 0)


def _front(x, d):
    return moveaxis(x, d, 0)


def _broadcast_batch(vals, dims, axis_size, shape, broadcast_dimensions):
    x = _front(vals[0], dims[0])
    return broadcast_in_dim(x, (axis_size,) + tuple(shape),
                            (0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


def _reshape_batch(vals, dims, axis_size, new_sizes):
    return reshape(_front(vals[0], dims[0]), (axis_size,) + tuple(new_sizes)), 0


def _transpose_batch(vals, dims, axis_size, permutation):
    d = dims[0]
    perm = (d,) + tuple(p if p < d else p + 1 for p in permutation)
    return transpose(vals[0], perm), 0


def _concat_batch(vals, dims, axis_size, dimension):
    xs = [bdim_at_front(v, d, axis_size) for v, d in zip(vals, dims)]
    return concatenate(xs, dimension + 1), 0


broadcast_in_dim_p.batch = _broadcast_batch
reshape_p.batch = _reshape_batch
transpose_p.batch = _transpose_batch
concatenate_p.batch = _concat_batch


# --------------------------------------------------------------------------- jit codegen
# (a weak Python-scalar operand has no methods: those equations call `impl`)
def _broadcast_emit(ctx, ins, out, shape, broadcast_dimensions):
    (a,), (x,) = ctx.in_avals, ins
    if a.weak_type:
        return f"{ctx.const(_broadcast_impl, 'broadcast_impl')}({x}, {shape!r}, {broadcast_dimensions!r})"
    xp_shape = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        xp_shape[d] = a.shape[i]
    if tuple(xp_shape) == tuple(shape):
        return f"{x}.reshape({tuple(shape)!r})"
    return f"np.broadcast_to({x}.reshape({tuple(xp_shape)!r}), {tuple(shape)!r})"


def _reshape_emit(ctx, ins, out, new_sizes):
    if ctx.in_avals[0].weak_type:
        return f"np.reshape({ins[0]}, {tuple(new_sizes)!r})"
    return f"{ins[0]}.reshape({tuple(new_sizes)!r})"  # (the method skips np.reshape's wrapper)


def _transpose_emit(ctx, ins, out, permutation):
    if ctx.in_avals[0].weak_type:
        return f"np.transpose({ins[0]}, {permutation!r})"
    return f"{ins[0]}.transpose({permutation!r})"


broadcast_in_dim_p.emit = _broadcast_emit
reshape_p.emit = _reshape_emit
transpose_p.emit = _transpose_emit
concatenate_p.emit = lambda ctx, ins, out, dimension: (
    f"np.concatenate(({''.join(x + ', ' for x in ins)}), axis={dimension})")
concatenate_p.fresh_output = True


# --------------------------------------------------------------------------- jit simplifications
def _simplify_transpose(eqn, ins, producers):
    """Identity permutations vanish; a transpose of a transpose is one (or none)."""
    perm = eqn.params["permutation"]
    if list(perm) == list(range(len(perm))):
        return ins[0]
    prev = producers.get(ins[0])
    if prev is None or prev.prim is not transpose_p:
        return None
    inner = prev.params["permutation"]
    composed = tuple(inner[i] for i in perm)
    if list(composed) == list(range(len(composed))):
        return prev.inputs[0]
    return Eqn(transpose_p, [prev.inputs[0]], {"permutation": composed}, eqn.outputs,
               eqn.source)


def _simplify_reshape(eqn, ins, producers):
    """No-op reshapes vanish; a reshape of a reshape reads the first one's operand."""
    out = eqn.outputs[0]
    if can_stand_for(ins[0], out):
        return ins[0]
    prev = producers.get(ins[0])
    if prev is None or prev.prim is not reshape_p:
        return None
    if can_stand_for(prev.inputs[0], out):
        return prev.inputs[0]
    return Eqn(reshape_p, [prev.inputs[0]], dict(eqn.params), eqn.outputs, eqn.source)


def _simplify_broadcast(eqn, ins, producers):
    dims = eqn.params["broadcast_dimensions"]
    out = eqn.outputs[0]
    if can_stand_for(ins[0], out) and list(dims) == list(range(len(out.aval.shape))):
        return ins[0]
    return None


def _broadcast_source(eqn):
    """The operand, which NumPy broadcasts itself onto trailing dims (bias vectors, 0-d
    values); onto other dims after a reshape that puts 1s where the broadcast adds dims (a
    view; chains of them fold away)."""
    src = eqn.inputs[0]
    shape, dims = eqn.params["shape"], eqn.params["broadcast_dimensions"]
    nd, n = len(src.aval.shape), len(shape)
    if src.aval.dtype != eqn.outputs[0].aval.dtype:
        return None
    if tuple(dims) == tuple(range(n - nd, n)):
        return [], src
    xp_shape = [1] * n
    for i, d in enumerate(dims):
        xp_shape[d] = src.aval.shape[i]
    xp_shape = tuple(xp_shape)
    r = Var(ShapedArray(xp_shape, src.aval.dtype))
    return [Eqn(reshape_p, [src], {"new_sizes": xp_shape}, [r])], r


simplify_rules[transpose_p] = _simplify_transpose
simplify_rules[reshape_p] = _simplify_reshape
simplify_rules[broadcast_in_dim_p] = _simplify_broadcast
broadcast_sources[broadcast_in_dim_p] = _broadcast_source


# --------------------------------------------------------------------------- pad
# `pad(x, value, config)`: XLA's pad. `config` holds one (lo, hi, interior) per dimension:
# `interior` copies of `value` between neighbours, then `lo` / `hi` of them at the ends (a
# negative `lo` / `hi` crops). Jointly linear in (x, value): its transpose crops and strides.
def _padded_size(n, lo, hi, interior):
    return lo + hi + n + max(n - 1, 0) * interior


def _pad_aval(x, value, padding_config):
    if value.shape != () or value.dtype != x.dtype:
        raise TypeError(f"pad: the padding value must be a scalar of the operand's dtype "
                        f"({x.dtype}), got {value.str_short()}; cast it, e.g. "
                        f"value.astype({str(x.dtype)!r}), or pass a Python scalar")
    if len(padding_config) != x.ndim or any(i < 0 for _, _, i in padding_config):
        raise ValueError(f"pad: padding_config needs one (lo, hi, interior) triple per dimension "
                         f"of {x.str_short()} with interior >= 0, got {padding_config}")
    shape = tuple(_padded_size(n, *c) for n, c in zip(x.shape, padding_config))
    if any(d < 0 for d in shape):
        raise ValueError(f"pad: padding_config {padding_config} crops {x.str_short()} to a "
                         f"negative size {shape}")
    return ShapedArray(shape, x.dtype)


def _pad_impl(x, value, padding_config):
    from ..backend import array_module
    xp = array_module(x)
    grown = [(max(lo, 0), max(hi, 0), i) for lo, hi, i in padding_config]
    out = xp.full(tuple(_padded_size(n, *c) for n, c in zip(x.shape, grown)), value, x.dtype)
    if x.size:
        out[tuple(slice(lo, lo + (n - 1) * (i + 1) + 1, i + 1)
                  for n, (lo, _, i) in zip(x.shape, grown))] = x
    crop = tuple(slice(-min(lo, 0), d + min(hi, 0))
                 for d, (lo, hi, _) in zip(out.shape, padding_config))
    return out[crop] if any(lo < 0 or hi < 0 for lo, hi, _ in padding_config) else out


pad_p = Primitive("pad")
pad_p.impl = _pad_impl
pad_p.abstract_eval = _pad_aval
pad_p.fresh_output = True


def _pad_jvp(primals, tangents, padding_config):
    x, v = primals
    out = pad_p.bind(x, v, padding_config=padding_config)
    tx, tv = tangents
    if tx is ZERO and tv is ZERO:
        return out, ZERO
    a = _aval(x)
    tx = np.zeros(a.shape, a.dtype) if tx is ZERO else tx
    tv = np.zeros((), a.dtype) if tv is ZERO else tv
    return out, pad_p.bind(tx, tv, padding_config=padding_config)


def _pad_transpose(ct, x, v, padding_config):
    from .indexing import getitem_p
    from .elementwise import sub
    from .reduce import reduce_sum
    dtype = _aval(ct).dtype
    # undo the ends (a crop becomes a zero pad), then keep every (interior + 1)-th element
    t = pad_p.bind(ct, np.zeros((), dtype),
                   padding_config=tuple((-lo, -hi, 0) for lo, hi, _ in padding_config))
    if any(i for _, _, i in padding_config):
        t = getitem_p.bind(t, spec=tuple(("slice", None, None, i + 1)
                                         for _, _, i in padding_config))
    ct_x = t if type(x) is Var else None
    ct_v = None
    if type(v) is Var:
        axes = tuple(range(len(padding_config)))
        ct_v = sub(reduce_sum(ct, axes=axes), reduce_sum(t, axes=axes))
    return [ct_x, ct_v]


def _pad_batch(vals, dims, axis_size, padding_config):
    x, v = vals
    dx, dv = dims
    x = bdim_at_front(x, dx, axis_size)
    config = ((0, 0, 0),) + tuple(padding_config)
    if dv is None:
        return pad_p.bind(x, v, padding_config=config), 0
    # a padding value per example: pad with zeros, then select each example's value where
    # the padding is (a constant mask)
    from .elementwise import select
    a = _aval(x)
    padded = pad_p.bind(x, np.zeros((), a.dtype), padding_config=config)
    inside = _pad_impl(np.ones(a.shape[1:], bool), np.zeros((), bool), tuple(padding_config))
    shape = _aval(padded).shape
    v = broadcast_in_dim(moveaxis(v, dv, 0), shape, (0,))
    return select(np.broadcast_to(inside, shape), padded, v), 0


pad_p.jvp = _pad_jvp
pad_p.transpose = _pad_transpose
pad_p.batch = _pad_batch
SHAPE_PRIMITIVES.append(pad_p)


def pad(operand, padding_value, padding_config):
    """JAX's `lax.pad`: `operand` with `padding_value` around and between its elements.

    `padding_config` holds one `(lo, hi, interior)` per dimension; a negative `lo` or `hi`
    crops. Differentiable in `operand` and in `padding_value`.

    Example:
        >>> fg.lax.pad(np.array([1., 2.]), 0., [(1, 2, 1)])
        array([0., 1., 0., 2., 0., 0.])
    """
    from ..core.trace import Tracer
    if not isinstance(operand, Tracer):
        operand = _asarray(operand)  # (a CuPy array stays one)
    a = _aval(operand)
    padding_value = _pad_value(padding_value, a.dtype, Tracer)
    config = _pad_config(padding_config, a)
    _pad_aval(a, _aval(padding_value), config)
    return pad_p.bind(operand, padding_value, padding_config=config)


# the dtype kinds a weak (Python-scalar) padding value of each kind may become: NEP 50 /
# JAX's weak-type promotion (a float never silently becomes an integer)
_WEAK_TO = {"b": "biufc", "i": "iufc", "u": "iufc", "f": "fc", "c": "c"}


def _pad_value(value, dtype, Tracer):
    """The padding value as a scalar of the operand's `dtype`. A weak one (a Python scalar,
    or a traced one under jit / grad) is converted when its kind allows; a strong one
    (a NumPy scalar or array) must already have `dtype`: `_pad_aval` says so otherwise,
    eagerly and under every transform alike."""
    if isinstance(value, Tracer):
        v = _aval(value)
        if v.dtype != dtype and v.weak_type and v.shape == () \
                and dtype.kind in _WEAK_TO.get(v.dtype.kind, ""):
            from .elementwise import convert_element_type
            value = convert_element_type(value, dtype)
        return value
    if type(value) in (bool, int, float, complex):
        kind = np.dtype(type(value)).kind
        if dtype.kind not in _WEAK_TO[kind]:
            raise TypeError(f"pad: padding_value {value!r} ({type(value).__name__}) cannot "
                            f"pad an operand of dtype {dtype} without changing its value; "
                            f"pass a padding value of dtype {dtype}")
        try:
            return np.asarray(value, dtype)
        except OverflowError:
            raise TypeError(f"pad: padding_value {value!r} is out of range for the operand's "
                            f"dtype {dtype}; pass a padding value of dtype {dtype}") from None
    return _asarray(value)  # (a CuPy array stays one)


def _pad_config(padding_config, a):
    import operator
    try:
        config = tuple(tuple(operator.index(n) for n in c) for c in padding_config)
    except TypeError:
        raise TypeError(f"pad: padding_config must hold one (lo, hi, interior) triple of ints "
                        f"per dimension of {a.str_short()}, got {padding_config!r}") from None
    if any(len(c) != 3 for c in config):
        raise ValueError(f"pad: padding_config must hold one (lo, hi, interior) triple of ints "
                         f"per dimension of {a.str_short()}, got {padding_config!r}")
    return config
