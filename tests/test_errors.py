"""Issue 8: concrete conversions, ndarray methods and operators on traced values, and error
messages that name the fix (and only APIs that exist)."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError, NonScalarOutputError

X = np.array([0.5, -1.5, 2.0])


def test_var_method_under_jit():
    # StagingTracer's graph variable used to be called `var`, shadowing x.var()
    np.testing.assert_allclose(fg.jit(lambda a: a.var())(X), X.var())
    np.testing.assert_allclose(fg.jit(lambda a: a.var(ddof=1, keepdims=True))(X),
                               X.var(ddof=1, keepdims=True))
    np.testing.assert_allclose(fg.make_ir(lambda a: a.std())(X)(X), X.std())
