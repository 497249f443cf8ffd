"""Functions that apply a user's function over axes: `apply_along_axis`, `apply_over_axes`,
`vectorize`. On traced values they are `fg.vmap` over the looped axes (one call of the
function, batched), so they differentiate, jit and nest like the function itself."""
from __future__ import annotations

import functools
import re
from typing import Callable, Sequence

import numpy as np

from ..backend import asarray as _asarray
from ..transforms.batching import vmap
from ._base import has_tracer, lift, shape_of
from ._shape import broadcast_to, expand_dims, moveaxis, reshape


def _ndim(x) -> int:
    return len(shape_of(x))


def _normalize_axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of {ndim} "
                         f"dimension(s) (valid: {-ndim} to {ndim - 1})")
    return axis % ndim


def apply_along_axis(func1d: Callable, axis: int, arr, *args, **kwargs):
    """`numpy.apply_along_axis`: `func1d` on every 1-D slice of `arr` along `axis`; its
    output's axes take the place of `axis`. Traced `arr`: one vmapped call of `func1d`.

    Example:
        >>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
        >>> fnp.apply_along_axis(lambda v: v / fnp.sum(v), 1, x)   # rows summing to 1
        array([[0.25, 0.75],
               [0.5 , 0.5 ]])
        >>> fg.grad(lambda x: fnp.sum(fnp.apply_along_axis(lambda v: v[0] * v[1], 1, x)))(x)
        array([[3., 1.],
               [2., 2.]])
    """
    arr = lift(arr)
    if not has_tracer(arr) and not has_tracer(args) and not has_tracer(list(kwargs.values())):
        return np.apply_along_axis(func1d, axis, arr, *args, **kwargs)
    nd = _ndim(arr)
    axis = _normalize_axis("apply_along_axis", axis, nd)
    fn = functools.partial(lambda v: func1d(v, *args, **kwargs))
    for _ in range(nd - 1):
        fn = vmap(fn)
    out = lift(fn(moveaxis(arr, axis, -1)))
    n_out = _ndim(out) - (nd - 1)  # the axes func1d's output adds, now last
    if n_out == 0:
        return out
    return moveaxis(out, list(range(nd - 1, nd - 1 + n_out)),
                    list(range(axis, axis + n_out)))


def apply_over_axes(func: Callable, a, axes: int | Sequence[int]):
    """`numpy.apply_over_axes`: `a = func(a, axis)` for each axis in turn; a result with one
    dimension fewer gets it back (size 1), so the result keeps `a`'s number of dimensions.

    Example:
        >>> x = np.arange(8.0).reshape(2, 2, 2)
        >>> fnp.apply_over_axes(fnp.sum, x, [0, 2])   # like fnp.sum(x, (0, 2), keepdims=True)
        array([[[10.],
                [18.]]])
    """
    a = lift(a)
    nd = _ndim(a)
    for ax in ([axes] if isinstance(axes, (int, np.integer)) else axes):
        ax = int(ax) + nd if ax < 0 else int(ax)
        res = func(a, ax)
        if _ndim(res) == nd - 1:
            res = expand_dims(res, ax)
        elif _ndim(res) != nd:
            raise ValueError(f"apply_over_axes: func(a, {ax}) returned {_ndim(res)} dimensions "
                             f"for an input of {nd}; it must keep them or drop axis {ax}")
        a = res
    return a


_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def _parse_signature(signature: str) -> tuple:
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])"""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"vectorize: signature {signature!r} is not of the form "
                         "'(m,n),(n)->(m)'")
    ins, outs = signature.split("->")

    def groups(s):
        return [tuple(d.strip() for d in g.split(",") if d.strip())
                for g in re.findall(r"\(([^)]*)\)", s)]
    return groups(ins), groups(outs)


def vectorize(pyfunc: Callable, *, excluded=frozenset(), signature: str | None = None):
    """`numpy.vectorize` as JAX's `jnp.vectorize`: `pyfunc` written for single elements (or,
    with a gufunc `signature` such as '(n),(n)->()', for core arrays) applied over the
    broadcast leading ("loop") dimensions of its arguments by `fg.vmap` — one batched call,
    differentiable and jittable. `excluded`: positions or names of arguments passed as they
    are.

    Example:
        >>> dot = fnp.vectorize(lambda a, b: fnp.sum(a * b), signature="(n),(n)->()")
        >>> dot(np.ones((2, 3)), np.array([1.0, 2.0, 3.0]))   # one dot per row: shape (2,)
        array([6., 6.])
        >>> fg.grad(lambda a: fnp.sum(dot(a, np.array([1.0, 2.0, 3.0]))))(np.ones((2, 3)))
        array([[1., 2., 3.],
               [1., 2., 3.]])
    """
    core_in = _parse_signature(signature)[0] if signature else None

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        pos = [i for i in range(len(args)) if i not in excluded]
        names = [k for k in kwargs if k not in excluded]
        arrays = [lift(args[i]) for i in pos] + [lift(kwargs[k]) for k in names]
        arrays = [a if has_tracer(a) else _asarray(a) for a in arrays]  # (CuPy stays)
        cores = core_in if core_in is not None else [()] * len(arrays)
        if len(cores) != len(arrays):
            raise TypeError(f"vectorize: signature {signature!r} has {len(cores)} input(s), but "
                            f"{len(arrays)} array argument(s) were given")
        loop_shapes = []
        for k, (a, core) in enumerate(zip(arrays, cores)):
            if _ndim(a) < len(core):
                raise ValueError(f"vectorize: argument {k} has shape {shape_of(a)}, fewer "
                                 f"dimensions than its core dimensions {core}")
            loop_shapes.append(shape_of(a)[:_ndim(a) - len(core)])
        loop = np.broadcast_shapes(*loop_shapes)
        arrays = [broadcast_to(a, loop + shape_of(a)[len(s):]) if s != loop else a
                  for a, s in zip(arrays, loop_shapes)]

        def call(*arrs):
            full, kw = list(args), dict(kwargs)
            for i, v in zip(pos + names, arrs):
                if isinstance(i, str):
                    kw[i] = v
                else:
                    full[i] = v
            return pyfunc(*full, **kw)
        if not loop:
            return call(*arrays)
        size = int(np.prod(loop))  # the loop dimensions as one, mapped by one vmap
        flat = [reshape(a, (size,) + shape_of(a)[len(loop):]) for a in arrays]
        return _unflatten_loop(vmap(call)(*flat), loop)
    return wrapped


def _unflatten_loop(out, loop):
    if isinstance(out, tuple):
        return tuple(_unflatten_loop(o, loop) for o in out)
    return reshape(out, loop + shape_of(out)[1:])
