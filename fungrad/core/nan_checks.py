"""`debug_nans` / `debug_infs`: find the first operation that produces a NaN or an inf.

Two mechanisms, both free while the flags are off:

- **NumPy's floating-point error hook.** Every fungrad computation ends in NumPy: eager fnp
  calls NumPy directly, primitives' impls and rules under transforms call NumPy, and jit's
  generated code is NumPy calls. NumPy notices when an operation *creates* a NaN ("invalid
  value") or an inf ("divide by zero", "overflow"), so while a flag is on its error mode is
  set to call `_Handler`, which raises `NonFiniteError` at that very operation, naming it (the
  primitive being bound, else NumPy's operation), the user's line (the innermost frame
  outside fungrad and NumPy; in generated code, the line its comment names), and, in the
  backward pass, the equation being transposed. NumPy's error state is per thread: the flag
  acts in the thread that set it, and on every NumPy operation there, fungrad's or not.
- **Output checks in jit** (`fungrad.transforms.jit`): a compiled function made while a flag
  is on checks its outputs; a NaN there (one NumPy's hook cannot see: a NaN passed in, a
  kernel that sets no flag) or an error of the hook re-runs the staged program un-jitted,
  one primitive at a time (`pinpoint`), to name the first equation whose output has one.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from ..config import config
from ..errors import NonFiniteError
from .dtypes import is_inexact
from .ir import Literal
from .primitive import Primitive

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
_GENERATED = "<fungrad.jit"  # jit's generated code (compiler/codegen.py names its files so)

# (check NaNs, check infs) while a flag is on, None while both are off: jit's cache key holds
# it (a compiled function checks its outputs only if it was made with a flag on)
mode = None
_saved = None  # NumPy's error settings and callback from before the flags went on

# NumPy's name for what happened -> (the kind of value it made, the flag that checks it)
_KINDS = {"invalid value": ("nan", "debug_nans"), "divide by zero": ("inf", "debug_infs"),
          "overflow": ("inf", "debug_infs")}


def _sync(_value=None) -> None:
    """Install or remove NumPy's error hook to match the flags (a config hook)."""
    global mode, _saved
    nans, infs = config.debug_nans, config.debug_infs
    if not (nans or infs):
        if _saved is not None:
            np.seterr(**_saved[0])
            np.seterrcall(_saved[1])
            _saved = None
        mode = None
        return
    if _saved is None:
        _saved = (np.geterr(), np.geterrcall())
    old = _saved[0]
    np.seterr(invalid="log" if nans else old["invalid"],
              divide="log" if infs else old["divide"], over="log" if infs else old["over"])
    np.seterrcall(_HANDLER)
    mode = (nans, infs)


config._hooks["debug_nans"] = config._hooks["debug_infs"] = _sync


def _is_internal(filename: str) -> bool:
    return (filename.startswith(_PACKAGE_DIR) or filename.startswith(_NUMPY_DIR)
            or filename.startswith(_GENERATED))


def _frame_str(f) -> str:
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno} ({f.f_code.co_name})"


def user_frame(depth: int = 1) -> str | None:
    """`file:line (function)` of the innermost frame outside fungrad, NumPy and generated code
    (from the caller of this function's caller, `depth` frames up)."""
    f = sys._getframe(depth + 1)
    while f is not None:
        if not _is_internal(f.f_code.co_filename):
            return _frame_str(f)
        f = f.f_back
    return None


def _generated_source(f) -> str | None:
    """The user's line that a line of jit's generated code came from (its comment)."""
    import linecache
    line = linecache.getline(f.f_code.co_filename, f.f_lineno)
    return line.partition("  # ")[2].strip() or None


def _context(frame):
    """(primitive being bound, user's line, transposed equation) for an error raised in
    `frame`: walks out to the user's code, noting the innermost `Primitive.bind`, a generated
    line of jit code and the equation `backward_pass` is transposing."""
    prim = source = transposing = None
    f = frame
    while f is not None:
        code = f.f_code
        if prim is None and code is Primitive.bind.__code__:
            prim = f.f_locals.get("self")
        elif code.co_name == "backward_pass" and transposing is None:
            transposing = f.f_locals.get("eqn")
        elif code.co_filename.startswith(_GENERATED) and source is None:
            source = _generated_source(f)
            break
        elif source is None and not _is_internal(code.co_filename):
            source = _frame_str(f)
            break
        f = f.f_back
    return prim, source, transposing


def describe(kind: str, what: str, source: str | None, detail: str = "",
             where: str = "") -> str:
    """The message: `{flag}: {what} produced a NaN{detail} at {source}{where}. {fix}`."""
    flag = "debug_nans" if kind == "nan" else "debug_infs"
    value = "a NaN" if kind == "nan" else "an inf"
    at = f" at {source}" if source else ""
    return (f"{flag}: {what} produced {value}{detail}{at}{where}. Fix the computation there "
            "(keep operands inside the operation's domain, or select a safe operand with "
            f"fnp.where before it), or turn the check off with "
            f"fg.config.update({flag!r}, False).")


class _Handler:
    """NumPy's error callback in "log" mode: NumPy calls `write("... encountered in op")`."""

    def write(self, message: str) -> None:
        text = message.strip()
        if text.startswith("Warning: "):
            text = text[len("Warning: "):]
        happened, _, op = text.partition(" encountered in ")
        kind, flag = _KINDS.get(happened, ("nan", "debug_nans"))
        prim, source, transposing = _context(sys._getframe(1))
        name = f"the primitive '{prim.name}' (NumPy's {op})" if prim is not None else (
            f"NumPy's {op}")
        where = ""
        if transposing is not None:
            where = (f", in the backward pass, transposing the '{transposing.prim.name}' "
                     f"{'recorded there' if transposing.source else 'of its forward pass'}")
            source = transposing.source or source
        raise NonFiniteError(describe(kind, name, source, f" ({happened})", where), kind,
                             prim.name if prim is not None else op, source)


_HANDLER = _Handler()


def nonfinite_kind(x, nans: bool, infs: bool) -> str | None:
    """"nan" or "inf" if the array `x` holds one that is checked for, else None."""
    if not hasattr(x, "dtype"):
        x = np.asarray(x)
    if not is_inexact(x.dtype):
        return None
    if nans and np.isnan(x).any():
        return "nan"
    if infs and np.isinf(x).any():
        return "inf"
    return None


# ----------------------------------------------------------------------------- jit
def checked(fn, graph, name: str, checks):
    """`fn` (jit's generated code for `graph`, the staged graph before the passes) checking
    its outputs; a NaN/inf there, or one NumPy's hook met inside, re-runs `graph` un-jitted to
    name the first primitive that makes it (JAX's approach). `checks`: (nans, infs)."""
    nans, infs = checks

    def run(*args):
        try:
            outs = fn(*args)
        except NonFiniteError as e:
            if not e.pinpointed:
                pinpoint(graph, args, name, checks)
            raise
        for i, o in enumerate(outs):
            kind = nonfinite_kind(o, nans, infs)
            if kind is not None:
                pinpoint(graph, args, name, checks)
                raise NonFiniteError(describe(
                    kind, f"jit({name}) (its output {i}, {graph.outvars[i].aval})", None,
                    where="; re-running it un-jitted, no primitive made one: an input holds "
                    "it"), kind, pinpointed=True)
        return outs
    run.__name__ = f"checked_{getattr(fn, '__name__', name)}"
    return run


def pinpoint(graph, args, name: str, checks) -> None:
    """Run `graph` on `args` one primitive at a time (their impls: un-jitted) and raise a
    `NonFiniteError` naming the first equation whose output holds a NaN/inf, with the user's
    line recorded for it when it was staged. Effectful equations are skipped: their callbacks
    already ran in the compiled call. Returns if no equation makes one."""
    nans, infs = checks
    env = dict(zip(graph.invars, args))
    for eqn in graph.eqns:
        prim = eqn.prim
        if prim.effectful:
            continue
        ins = [v.value if type(v) is Literal else env[v] for v in eqn.inputs]
        where = f" (in jit({name}), found by re-running it un-jitted)"
        try:
            out = prim.impl(*ins, **eqn.params)
        except NonFiniteError as e:
            if e.pinpointed:  # (a nested jitted call has named its own equation)
                raise
            raise NonFiniteError(describe(e.kind, f"the primitive '{prim.name}'", eqn.source,
                                          where=where), e.kind, prim.name, eqn.source,
                                 True) from None
        outs = out if prim.multiple_results else [out]
        for v, o in zip(eqn.outputs, outs):
            kind = nonfinite_kind(o, nans, infs)
            if kind is not None:
                raise NonFiniteError(describe(kind, f"the primitive '{prim.name}'", eqn.source,
                                              where=where), kind, prim.name, eqn.source, True)
            env[v] = o
