"""`fg.debug`: look at runtime values inside transformed and compiled code.

`print`, `callback` and `breakpoint` bind the `debug_callback` primitive (`lax/debug.py`), so
they run with the runtime values (NumPy arrays) at every call, wherever the code runs:

- eagerly, and inside `fg.jit` at every call of the compiled function (never only at trace
  time), in program order; jit's passes never drop, merge or move them, even though nothing
  reads a result;
- under `grad` / `vjp` / `jvp` / `linearize`: with the primal values, once per forward pass
  (they are not differentiated, and derivatives are unchanged);
- under `vmap`: once per batch element, with that element's values, in batch order (JAX's
  default). Values that do not depend on the batch are passed as they are.

`fg.config.update("debug_nans", True)` / `"debug_infs"` make the first operation that
produces a NaN / inf raise `FloatingPointError` (`fg.errors.NonFiniteError`), eagerly, in
the backward pass and in jitted code, naming the operation and the user's line (see
`fungrad.core.nan_checks`).
"""
from __future__ import annotations

import builtins
import sys
from typing import Any, Callable

from .lax.debug import debug_callback as _bind_callback, is_runtime_value
from . import tree as _tree

__all__ = ["print", "callback", "breakpoint"]


def callback(fn: Callable[..., Any], *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Call `fn(*args, **kwargs)` with the runtime values of `args`/`kwargs` (pytrees whose
    array leaves arrive as NumPy arrays; other leaves as given); returns None.

    Callbacks always run in program order (`ordered` is accepted for JAX compatibility).

    Example:
        >>> seen = []
        >>> f = fg.jit(lambda x: (fg.debug.callback(seen.append, x), x * 2)[1])
        >>> f(np.ones(2))
        array([2., 2.])
        >>> f(np.zeros(2))                    # compiled once; the callback runs on each call
        array([0., 0.])
        >>> seen
        [array([1., 1.]), array([0., 0.])]
    """
    del ordered
    if not callable(fn):  # (else the call fails later, at run time, in jitted code)
        raise TypeError(f"fg.debug.callback: fn must be callable, got {type(fn).__name__}")
    _bind_callback(fn, args, kwargs, getattr(fn, "__name__", "callback"))


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:  # noqa: A001
    """Print `fmt.format(*args, **kwargs)` with the runtime values of `args`/`kwargs`.

    Example:
        >>> f = fg.jit(lambda x: (fg.debug.print("x = {}", x), x * 2)[1])
        >>> _ = f(np.arange(3.0))
        x = [0. 1. 2.]
        >>> _ = fg.vmap(lambda x: fg.debug.print("x = {x}", x=x))(np.arange(2.0))
        x = 0.0
        x = 1.0
    """
    del ordered
    if not isinstance(fmt, str):  # (else the call fails later, at run time, in jitted code)
        raise TypeError(f"fg.debug.print: fmt must be a str, got {type(fmt).__name__}")

    def show(*a, **k):
        builtins.print(fmt.format(*a, **k))
    _bind_callback(show, args, kwargs, f"print({fmt!r})")


def breakpoint(*args: Any, **kwargs: Any) -> None:  # noqa: A001
    """Stop in `pdb` with the runtime values: the caller's local variables (arrays and
    traced values by their runtime value, other locals as they were), `args` (the values
    passed positionally) and the keyword arguments by name. Inside `fg.jit` it stops at
    every call of the compiled function; under `vmap` once per batch element.

    Example:
        >>> @fg.jit
        ... def f(x):
        ...     y = fnp.log(x)
        ...     fg.debug.breakpoint()     # (Pdb) p y  -> the runtime value of y
        ...     return y
    """
    caller = sys._getframe(1)
    env = dict(caller.f_locals)
    env.update(kwargs)
    env["args"] = args
    leaves, treedef = _tree.tree_flatten(env)
    dynamic = [k for k, x in enumerate(leaves) if is_runtime_value(x)]
    static = list(leaves)
    user_globals = caller.f_globals
    del caller

    def stop(*values):
        full = list(static)
        for k, v in zip(dynamic, values):
            full[k] = v
        _enter_debugger(_tree.tree_unflatten(treedef, full), user_globals)
    _bind_callback(stop, tuple(leaves[k] for k in dynamic), {}, "breakpoint")


_DEBUGGER_ENTRY = compile("__import__('pdb').set_trace()", "<fg.debug.breakpoint>", "exec")


def _enter_debugger(env: dict, user_globals: dict) -> None:
    """Run `pdb.set_trace()` in a frame whose local variables are `env` (so `p name` shows
    a runtime value) and whose globals are the caller's module's."""
    exec(_DEBUGGER_ENTRY, user_globals, env)
