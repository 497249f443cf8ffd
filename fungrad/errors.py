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
    """Base of fungrad's own errors (also catchable as the built-in each subclasses).

    Example:
        >>> try:
        ...     fg.grad(lambda x: x)(np.ones(2))
        ... except fg.errors.FungradError as e:
        ...     print(type(e).__name__, isinstance(e, TypeError))
        NonScalarOutputError True
    """


class ConcretizationError(FungradError, TypeError):
    """A traced value was converted to a concrete Python/NumPy value (`float(x)`,
    `int(x)`, `x.item()`, `math.sin(x)`, `np.float64(x)`, `bool(x)` under `jit`), which would
    cut it out of the transform.

    Example:
        >>> fg.grad(lambda x: x * float(x))(3.0)
        Traceback (most recent call last):
        ...
        fungrad.errors.ConcretizationError: float(x) ... applied to a value being differentiated ...
        >>> fg.grad(lambda x: x * fnp.sin(x))(0.0)   # the fix: fnp functions on arrays
        array(0.)
    """


class LeakedTracerError(FungradError, RuntimeError):
    """An intermediate value of a transform was used after that transform returned.

    Example:
        >>> leaked = []
        >>> fg.grad(lambda x: leaked.append(x) or x * x)(1.0)   # keeps a traced value
        array(2.)
        >>> leaked[0] + 1.0
        Traceback (most recent call last):
        ...
        fungrad.errors.LeakedTracerError: An intermediate value of a finished transform ...
    """


class NonScalarOutputError(FungradError, TypeError):
    """`grad` of a function whose output is not a real scalar.

    Example:
        >>> fg.grad(lambda x: x ** 2)(np.ones(2))
        Traceback (most recent call last):
        ...
        fungrad.errors.NonScalarOutputError: grad(<lambda>) needs ... returned f64[2]...
        >>> fg.grad(lambda x: (x ** 2).sum())(np.ones(2))   # reduce to a scalar
        array([2., 2.])
    """


class IRTypeError(FungradError, ValueError):
    """A graph that is ill formed or ill typed (`fungrad.core.check.check_graph`): a bug in
    a transform, a pass or a primitive's rules, not in the user's code.

    Example:
        >>> from fungrad.core.check import check_graph
        >>> graph = fg.make_ir(lambda x: fnp.sin(x) * 2.0)(np.ones(2)).graph
        >>> graph.eqns.reverse()              # mul now comes before the sin it reads
        >>> check_graph(graph)
        Traceback (most recent call last):
        ...
        fungrad.errors.IRTypeError: graph: operand 0 of equation 0 (mul) reads a Var before ...
    """


class NonFiniteError(FungradError, FloatingPointError):
    """With `fg.config.update("debug_nans", True)` (or `"debug_infs"`): a primitive (or a
    NumPy operation it ran) produced a NaN (inf). Catchable as `FloatingPointError`, as in
    JAX. `kind` is "nan" or "inf"; `primitive` names the operation and `source` the user's
    line (None where unknown); `pinpointed` is True once it names the equation of a
    re-run un-jitted program (see `fg.jit`).

    Example:
        >>> fg.config.update("debug_nans", True)
        >>> fnp.log(-np.ones(2))
        Traceback (most recent call last):
        ...
        fungrad.errors.NonFiniteError: debug_nans: NumPy's log produced a NaN (invalid value) at ...
        >>> fg.config.update("debug_nans", False)
    """

    def __init__(self, message: str, kind: str = "nan", primitive: str | None = None,
                 source: str | None = None, pinpointed: bool = False):
        super().__init__(message)
        self.kind, self.primitive, self.source, self.pinpointed = (kind, primitive, source,
                                                                    pinpointed)


class CheckifyError(FungradError, ValueError):
    """A check of `fg.checkify` failed: `err.throw()` on the error that
    `fg.checkify.checkify(f)` returned, or `fg.checkify.check(pred, msg)` with a concretely
    False `pred` outside checkify. The message names the check (or the primitive) and the
    user's line.

    Example:
        >>> def double_positive(x):
        ...     fg.checkify.check(x > 0, "x must be positive")
        ...     return 2.0 * x
        >>> err, y = fg.checkify.checkify(double_positive)(-1.0)
        >>> err.throw()
        Traceback (most recent call last):
        ...
        fungrad.errors.CheckifyError: x must be positive (fg.checkify.check failed at ...)
    """
