"""The exception types fungrad raises; every message names the fix.

Each type subclasses the built-in a user would already catch (`TypeError`,
`RuntimeError`, `ValueError`), so `except TypeError:` keeps working.

    >>> import fungrad as fg
    >>> try:
    ...     fg.grad(lambda x: x * float(x))(3.0)
    ... except fg.errors.ConcretizationError as e:
    ...     print(type(e).__name__)
    ConcretizationError
"""
from __future__ import annotations


class FungradError(Exception):
    """Base of fungrad's own errors (also catchable as the built-in each subclasses)."""


class ConcretizationError(FungradError, TypeError):
    """A traced value was converted to a concrete Python/NumPy value (`float(x)`,
    `int(x)`, `x.item()`, `math.sin(x)`, `np.float64(x)`, `bool(x)` under `jit`), which would
    cut it out of the transform."""


class LeakedTracerError(FungradError, RuntimeError):
    """An intermediate value of a transform was used after that transform returned."""


class NonScalarOutputError(FungradError, TypeError):
    """`grad` of a function whose output is not a real scalar."""


class IRTypeError(FungradError, ValueError):
    """A graph that is ill formed or ill typed (`fungrad.core.check.check_graph`): a bug in
    a transform, a pass or a primitive's rules, not in the user's code."""


class NonFiniteError(FungradError, FloatingPointError):
    """With `fg.config.update("debug_nans", True)` (or `"debug_infs"`): a primitive (or a
    NumPy operation it ran) produced a NaN (inf). Catchable as `FloatingPointError`, as in
    JAX. `kind` is "nan" or "inf"; `primitive` names the operation and `source` the user's
    line (None where unknown); `pinpointed` is True once it names the equation of a
    re-run un-jitted program (see `fg.jit`)."""

    def __init__(self, message: str, kind: str = "nan", primitive: str | None = None,
                 source: str | None = None, pinpointed: bool = False):
        super().__init__(message)
        self.kind, self.primitive, self.source, self.pinpointed = (kind, primitive, source,
                                                                    pinpointed)


class CheckifyError(FungradError, ValueError):
    """A check of `fg.checkify` failed: `err.throw()` on the error that
    `fg.checkify.checkify(f)` returned, or `fg.checkify.check(pred, msg)` with a concretely
    False `pred` outside checkify. The message names the check (or the primitive) and the
    user's line."""
