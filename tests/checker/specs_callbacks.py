"""Spec of the `pure_callback` primitive (fungrad/transforms/callbacks.py): a host NumPy
function behind fg.pure_callback, given a derivative by fg.custom_jvp (pure_callback itself
has none), so the checker's eager, jit, vmap and derivative comparisons all apply."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad as fg
import fungrad.numpy as fnp

from .registry import PRIM, Case, spec
from .strategies import SHAPES, arrays


def _host_sin(x):
    return np.sin(x)


@fg.custom_jvp
def _callback_sin(x):
    return fg.pure_callback(_host_sin, fg.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method=_METHOD[0])


@_callback_sin.defjvp
def _callback_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _callback_sin(x), fnp.cos(x) * t


_METHOD = ["sequential"]


@spec(PRIM, "pure_callback")
def _prim_pure_callback(draw, name):
    _METHOD[0] = draw(st.sampled_from(["sequential", "expand_dims", "broadcast_all",
                                       "legacy_vectorized"]))
    return Case(lambda x: _callback_sin(x) * 2.0, (draw(arrays(draw(SHAPES))),))
