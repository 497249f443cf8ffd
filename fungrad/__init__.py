"""fungrad: functional, composable automatic differentiation for NumPy.

    >>> import fungrad as fg, fungrad.numpy as fnp
    >>> fg.grad(lambda x: (3 * x + 2) ** 2)(1.0)
    array(30.)
"""
from .transforms.ad import grad, value_and_grad, vjp, jvp, linearize, float0
from .transforms.staging import make_ir, eval_shape, ShapeDtypeStruct
from .transforms.batching import vmap
from .transforms.jacobians import jacfwd, jacrev, jacobian, hessian
from .transforms.jit import jit, disable_jit
from .transforms.custom import custom_jvp, custom_vjp
from .transforms.custom_gradient import custom_gradient, closure_convert
from .transforms.callbacks import pure_callback
from .transforms.linear_transpose import linear_transpose
from .config import config
from .lax.misc import stop_gradient
from .lax.remat import checkpoint, remat, checkpoint_name, checkpoint_policies
from .backend import device_put, device_get, block_until_ready
from . import tree, numpy, test_util, errors, extend, random, nn, optim, debug, checkify

__version__ = "0.1.0"


def __getattr__(name):
    # fg.scipy on first access (as jax.scipy after `import jax`), so `import fungrad`
    # does not pay for it; fungrad.scipy itself imports SciPy only when it computes
    if name == "scipy":
        import importlib
        return importlib.import_module(".scipy", __name__)
    raise AttributeError(f"module 'fungrad' has no attribute {name!r}")


__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "make_ir", "eval_shape",
           "ShapeDtypeStruct", "stop_gradient", "vmap", "jacfwd", "jacrev", "jacobian",
           "hessian", "jit", "custom_jvp", "custom_vjp", "config", "device_put", "device_get",
           "block_until_ready", "tree", "numpy", "test_util", "float0", "errors", "extend",
           "random", "nn", "optim", "debug", "checkify", "checkpoint", "remat",
           "checkpoint_name", "checkpoint_policies", "pure_callback", "disable_jit",
           "linear_transpose", "custom_gradient", "closure_convert"]
