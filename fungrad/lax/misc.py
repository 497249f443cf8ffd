"""`stop_gradient`: identity forward, zero derivative."""
from __future__ import annotations

from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .. import tree as _tree

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.impl = lambda x: x
stop_gradient_p.abstract_eval = lambda x: x
stop_gradient_p.jvp = lambda primals, tangents: (stop_gradient_p.bind(primals[0]), ZERO)


def stop_gradient(x):
    """Identity on values (any pytree); derivatives do not flow through it.

    Example:
        >>> fg.grad(lambda x: x * fg.stop_gradient(x))(3.0)
        array(3.)
    """
    return _tree.tree_map(stop_gradient_p.bind, x)


MISC_PRIMITIVES = [stop_gradient_p]

stop_gradient_p.batch = lambda vals, dims, axis_size: (stop_gradient_p.bind(vals[0]), dims[0])
stop_gradient_p.emit = lambda ctx, ins, out: ins[0]
