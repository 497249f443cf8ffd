"""`fg.custom_gradient` and `fg.closure_convert` (as `jax.custom_gradient` /
`jax.closure_convert`), on top of `custom_vjp` and staging.

`closure_convert(fun, *example_args)` stages `fun` on the examples' shapes and dtypes; the
values of enclosing transforms it closes over (tracers, which would leak if the graph were
run later) become extra arguments: it returns `(converted, consts)` with
`converted(*args, *consts) == fun(*args)`. `custom_gradient(fun)` is a `custom_vjp` whose
`fwd` calls `fun` and closure-converts the returned VJP function on the cotangent's shapes:
its consts are the residuals, and the converted function rides along in the residuals'
pytree structure (as JAX's), so `bwd` gets it back for the same call.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..core.ir import ShapedArray, aval_of
from ..core.trace import Tracer
from .ad import _as_array, _fun_name, tangent_dtype
from .custom import custom_vjp
from .jit import _lift_tracer_constants
from .staging import eval_graph, stage_pytree
from .. import tree as _tree

__all__ = ["custom_gradient", "closure_convert"]


def _example_aval(x, i) -> ShapedArray:
    if isinstance(x, Tracer):
        a = x.aval
    elif hasattr(x, "shape") and hasattr(x, "dtype"):
        a = ShapedArray(tuple(x.shape), np.dtype(x.dtype), bool(getattr(x, "weak_type",
                                                                         False)))
    elif type(x) in (bool, int, float, complex):
        a = aval_of(x)
    else:
        raise TypeError(f"closure_convert: example argument leaf {i} is {type(x).__name__} "
                        f"({x!r:.60}), not an array, a number or a fg.ShapeDtypeStruct")
    return a


def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list]:
    """`(converted, consts)`: `fun` specialized to the shapes and dtypes of `example_args`,
    with the values of enclosing transforms that it closes over (tracers) hoisted out as
    `consts`, so that `converted(*args, *consts)` computes `fun(*args)` (as
    `jax.closure_convert`). Needed to pass such a function to a `custom_vjp` with
    `nondiff_argnums`, whose rules must not close over traced values.

    Example:
        >>> def outer(x):
        ...     y = fnp.sin(x)
        ...     f, consts = fg.closure_convert(lambda z: z * y, x)
        ...     return f(x, *consts)               # consts == [y] (a traced value)
        >>> fg.grad(outer)(1.0)                    # sin(1) + cos(1)
        array(1.38177329)
    """
    leaves, in_tree = _tree.tree_flatten(example_args)
    in_avals = [_example_aval(x, i) for i, x in enumerate(leaves)]
    staged, out_tree = stage_pytree(fun, tuple(example_args), in_avals, _as_array)
    graph, consts = _lift_tracer_constants(staged)
    n_in = len(leaves)
    n_consts = len(consts)
    name = _fun_name(fun)

    def converted_fun(*args):
        if len(args) != len(example_args) + n_consts:
            raise TypeError(f"closure_convert({name}): the converted function takes "
                            f"{len(example_args)} argument(s) and then the {n_consts} "
                            f"const(s), but got {len(args)} argument(s)")
        arg_leaves, tree = _tree.tree_flatten(tuple(args[:len(example_args)]))
        if tree != in_tree:
            raise TypeError(f"closure_convert({name}): arguments have structure {tree}, but "
                            f"the example arguments had {in_tree}")
        ins = arg_leaves + list(args[len(example_args):])
        assert len(ins) == n_in + n_consts
        return _tree.tree_unflatten(out_tree, eval_graph(graph, ins))

    converted_fun.__name__ = f"closure_convert({name})"
    return converted_fun, list(consts)


class _Residuals:
    """custom_gradient's residuals: the closure-converted VJP function (pytree aux data,
    so it travels in the residuals' structure) and its consts (the leaves)."""
    __slots__ = ("fn", "consts", "single")

    def __init__(self, fn, consts, single):
        self.fn, self.consts, self.single = fn, consts, single


_tree.register_pytree_node(_Residuals, lambda r: (tuple(r.consts), (r.fn, r.single)),
                           lambda aux, consts: _Residuals(aux[0], list(consts), aux[1]))


def custom_gradient(fun: Callable) -> Callable:
    """Define a function's gradient together with it (as `jax.custom_gradient`): `fun(*args)`
    returns `(value, vjp_fn)`, and `vjp_fn(ct)` returns the cotangents of the arguments (a
    tuple, one per argument; a single value for a function of one argument may be returned
    bare). Built on `fg.custom_vjp`, so it works under every transform; `vjp_fn` may close
    over `fun`'s intermediates.

    Example:
        >>> @fg.custom_gradient
        ... def f(x):
        ...     return x ** 2, lambda g: g * x       # a deliberately "wrong" gradient
        >>> f(3.0), fg.grad(f)(3.0)
        (9.0, array(3.))
    """
    name = _fun_name(fun)

    def primal(*args, **kwargs):
        return fun(*args, **kwargs)[0]
    functools.update_wrapper(primal, fun)
    wrapped = custom_vjp(primal)

    def fwd(*args, **kwargs):
        got = fun(*args, **kwargs)
        if not (isinstance(got, (tuple, list)) and len(got) == 2 and callable(got[1])):
            raise TypeError(f"custom_gradient({name}): the function must return a pair "
                            f"(value, vjp_fn), but it returned {type(got).__name__}")
        ans, rule = got
        cts = _tree.tree_map(lambda a: _ct_example(a), ans)
        converted, consts = closure_convert(rule, cts)
        return ans, _Residuals(converted, consts, len(args) == 1)

    def bwd(res, ct):
        out = res.fn(ct, *res.consts)
        if not isinstance(out, tuple):
            out = (out,)
        return out

    wrapped.defvjp(fwd, bwd)
    return wrapped


class _Example:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def _ct_example(a):
    aval = aval_of(a if isinstance(a, Tracer) or hasattr(a, "dtype") else _as_array(a))
    return _Example(aval.shape, tangent_dtype(aval.dtype))
