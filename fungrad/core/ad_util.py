"""What every layer needs to talk about derivatives: the symbolic zero, `float0`, and
`add_any`, the primitive that sums cotangents (so transforms never import lax).

    >>> from fungrad.core.ad_util import ZERO, add_any
    >>> add_any(np.ones(2), np.ones(2))
    array([2., 2.])
"""
from __future__ import annotations

import numpy as np

from .primitive import Primitive


class Zero:
    """The symbolic zero tangent / cotangent: never materialized where it can be avoided."""
    __slots__ = ()

    def __repr__(self):
        return "ZERO"


ZERO = Zero()

# dtype of tangents and cotangents of integer/bool values, as in JAX: an empty structured
# dtype (they have no derivative)
float0 = np.dtype([("float0", np.void, 0)])


# ----------------------------------------------------------------------------- add_any
# Cotangent accumulation: x + y of two values of one shape and dtype. Its own primitive (not
# lax's `add`) so that the backward pass, which lives in transforms, needs nothing from lax.
add_any_p = Primitive("add_any")
add_any_p.impl = np.add
add_any_p.same_aval = True
add_any_p.fresh_output = True
add_any_p.accepts_out = "inplace"


# `add_any(x, y)`: x + y for cotangents (equal shapes and dtypes); the bound method itself,
# with no wrapper frame (the backward pass calls it for every cotangent sum)
add_any = add_any_p.bind


def _add_any_aval(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f"add_any: operands must have equal shapes and dtypes, got {x} and {y}")
    return x


def _add_any_jvp(primals, tangents):
    tx, ty = tangents
    out = add_any(*primals)
    if tx is ZERO or ty is ZERO:
        return out, ty if tx is ZERO else tx
    return out, add_any(tx, ty)


def _add_any_batch(vals, dims, axis_size):
    """Batched operands move their batch axis to the front; `+` broadcasts an unbatched one
    (NumPy's, or fungrad.numpy's on traced values)."""
    x, y = [v if d in (None, 0) else v.transpose((d,) + tuple(i for i in range(v.ndim) if i != d))
            for v, d in zip(vals, dims)]
    return x + y, 0


def _add_any_emit(ctx, ins, out):
    return f"{ctx.fn(np.add)}({ins[0]}, {ins[1]}{f', out={out}' if out else ''})"


_add_any_emit.ufunc = np.add  # (one ufunc call: compiler/chunks.py may run it in chunks)


add_any_p.abstract_eval = _add_any_aval
add_any_p.jvp = _add_any_jvp
add_any_p.transpose = lambda ct, x, y: [ct, ct]
add_any_p.batch = _add_any_batch
add_any_p.emit = _add_any_emit
