"""fungrad.extend: define a new primitive with its rules, the way fungrad defines its own.

A primitive is a named operation that carries one rule per transform (docs/design.md):

| rule | set it as | needed for |
|---|---|---|
| `impl(*arrays, **params)` | `p.impl` | everything (plain evaluation) |
| `abstract_eval(*avals, **params)` | `p.abstract_eval` (`ShapedArray` out) | jit, make_ir |
| `jvp(primals, tangents, **params)` | `p.jvp` (tangents may be `ZERO`) | jvp, grad, ... |
| `transpose(ct, *args, **params)` | `p.transpose`, linear primitives only | grad of them |
| `batch(vals, dims, axis_size, **params)` | `p.batch` -> `(out, out_dim)` | vmap |
| `emit(ctx, ins, out, **params)` | `p.emit`, optional (else jit calls impl) | fast jit code |

Write `jvp` with primitives (`bind`s or fungrad.numpy), so it is itself differentiable and
higher orders come for free. Helpers for the common shapes of rules:

- `elementwise_primitive(name, impl, derivatives)`: every rule of an elementwise op from its
  partial derivatives (how fungrad's own sin, mul, ... are made).
- `linear_jvp(p)`: the JVP of a primitive linear in its operands (`p(t)`); add `p.transpose`.
- `elementwise_batch(p)`: the vmap rule of an elementwise primitive.

Example: a new elementwise function with its derivative, usable under every transform.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> from fungrad.extend import elementwise_primitive
    >>> from fungrad.lax.elementwise import mul
    >>> cube_p = elementwise_primitive("cube", lambda x: x ** 3,
    ...                                [lambda x, y: mul(mul(x, x), 3.0)])
    >>> fg.grad(lambda x: cube_p.bind(x))(2.0)
    array(12.)
"""
from __future__ import annotations

from .core.ad_util import ZERO, add_any, float0
from .core.ir import ShapedArray
from .core.primitive import Primitive
from .lax.elementwise import elementwise_primitive, elementwise_batch
from .lax.shape import linear_jvp

__all__ = ["Primitive", "ShapedArray", "ZERO", "add_any", "float0", "elementwise_primitive",
           "elementwise_batch", "linear_jvp"]
