"""1-D convolution and correlation primitives: `convolve1d` and `correlate1d`, NumPy's
`np.convolve` run directly (fnp.convolve / fnp.correlate and 1-D fg.scipy.signal use them;
`conv_general_dilated`'s im2col is ~20x slower for a single 1-D signal).

Both take `(a, v, *, start, length)` with a 1-D `a` (length n), a 1-D `v` (length m) of the
same dtype, and return `length` entries of the full result starting at entry `start` (entries
outside the full result are zeros), so every NumPy mode is one window:
- `convolve1d`: full[j] = sum_i a[i] v[j - i], j = 0 .. n + m - 2 (np.convolve);
- `correlate1d`: full[j] = sum_i a[i + j - (m - 1)] v[i], the correlation WITHOUT conjugation
  (np.correlate conjugates v: fnp applies `conj` first, which keeps these rules bilinear).

Both are bilinear, so the JVP is two of the same primitive, and each transposes into the
other with the cotangent as one operand (index algebra in `_convolve_transpose` /
`_correlate_transpose`). vmap runs a loop-free `conv_general_dilated` (batch or
feature-group dimension).
"""
from __future__ import annotations

import numpy as np

from ..backend import array_module
from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .elementwise import add
from .indexing import getitem_p
from .shape import bdim_at_front, reshape

# dtypes np.convolve has a loop for; others (float16, bfloat16) compute in float32 / float64
_NATIVE = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128,
                                 np.int32, np.int64)}


def _window(full, start, length, xp=np):
    """full[start:start + length], zeros where the window leaves `full` (`xp`: its array
    module, NumPy or CuPy)."""
    if start >= 0 and start + length <= full.shape[0]:
        return full[start:start + length]
    out = xp.zeros(length, full.dtype)
    lo, hi = max(start, 0), min(start + length, full.shape[0])
    if hi > lo:
        out[lo - start:hi - start] = full[lo:hi]
    return out


def _numpy_window(kernel, a, v, start, length, xp=np):
    """`kernel(a, v, mode)` (np.convolve of a with v, or with v reversed) for the window;
    'valid' is computed directly when the window is exactly it (no full result)."""
    n, m = a.shape[0], v.shape[0]
    if start == min(n, m) - 1 and length == abs(n - m) + 1:
        return kernel(a, v, "valid")
    return _window(kernel(a, v, "full"), start, length, xp)


def _compute(kernel):
    def impl(a, v, *, start, length):
        # CuPy operands stay CuPy (np.convolve dispatches to cupy.convolve); a NumPy one
        # meeting a CuPy one moves to its GPU
        xp = array_module(a, v)
        a, v = xp.asarray(a), xp.asarray(v)
        dt = a.dtype
        if dt not in _NATIVE:  # (narrow floats, bools, small ints: NumPy's type, then back)
            wide = np.result_type(dt, np.float32) if dt.kind in "fcV" else np.int64
            a, v = a.astype(wide), v.astype(wide)
        out = _numpy_window(kernel, a, v, start, length, xp)
        return xp.ascontiguousarray(out, dtype=dt)
    return impl


def _np_convolve(a, v, mode):
    return np.convolve(a, v, mode)


def _np_correlate(a, v, mode):  # (np.convolve with v reversed: no conjugation)
    return np.convolve(a, v[::-1], mode)


def _aval(name):
    def abstract_eval(a, v, *, start, length):
        if a.ndim != 1 or v.ndim != 1 or a.dtype != v.dtype:
            raise TypeError(f"{name}: operands must be 1-D of one dtype, got {a.str_short()} "
                            f"and {v.str_short()}")
        return ShapedArray((length,), a.dtype)
    return abstract_eval


convolve1d_p = Primitive("convolve1d")
convolve1d_p.impl = _compute(_np_convolve)
convolve1d_p.abstract_eval = _aval("convolve1d")
correlate1d_p = Primitive("correlate1d")
correlate1d_p.impl = _compute(_np_correlate)
correlate1d_p.abstract_eval = _aval("correlate1d")


def convolve1d(a, v, start: int, length: int):
    """`length` entries of np.convolve(a, v, 'full') from `start` (zeros outside).

    Example: `convolve1d(a, v, 0, n + m - 1)` is `np.convolve(a, v)`
    """
    return convolve1d_p.bind(a, v, start=int(start), length=int(length))


def correlate1d(a, v, start: int, length: int):
    """`length` entries of the full unconjugated correlation of a with v from `start`.

    Example: `correlate1d(a, v, m - 1, n - m + 1)` is `np.correlate(a, v, 'valid')` (real)
    """
    return correlate1d_p.bind(a, v, start=int(start), length=int(length))


# --------------------------------------------------------------------------- derivatives
def _bilinear_jvp(prim):
    def jvp(primals, tangents, start, length):
        a, v = primals
        ta, tv = tangents
        out = prim.bind(a, v, start=start, length=length)
        t = ZERO
        if ta is not ZERO:
            t = prim.bind(ta, v, start=start, length=length)
        if tv is not ZERO:
            tb = prim.bind(a, tv, start=start, length=length)
            t = tb if t is ZERO else add(t, tb)
        return out, t
    return jvp


def _sizes(a, v):
    return aval_of(a).shape[0], aval_of(v).shape[0]


def _convolve_transpose(ct, a, v, *, start, length):
    """z[k] = sum_i a[i] v[start + k - i]: da[i] = sum_k ct[k] v[k + start - i] and
    dv[j] = sum_k ct[k] a[k + start - j], both correlations with the cotangent."""
    n, m = _sizes(a, v)
    da = correlate1d_p.bind(ct, v, start=m - 1 - start, length=n) if type(a) is Var else None
    dv = correlate1d_p.bind(ct, a, start=n - 1 - start, length=m) if type(v) is Var else None
    return [da, dv]


def _correlate_transpose(ct, a, v, *, start, length):
    """z[k] = sum_i a[i + k + start - (m - 1)] v[i]: da is the convolution of ct with v, dv
    the correlation of a with ct."""
    n, m = _sizes(a, v)
    da = convolve1d_p.bind(ct, v, start=m - 1 - start, length=n) if type(a) is Var else None
    dv = (correlate1d_p.bind(a, ct, start=start + length - m, length=m) if type(v) is Var
          else None)
    return [da, dv]


convolve1d_p.jvp = _bilinear_jvp(convolve1d_p)
correlate1d_p.jvp = _bilinear_jvp(correlate1d_p)
convolve1d_p.transpose = _convolve_transpose
correlate1d_p.transpose = _correlate_transpose


# --------------------------------------------------------------------------- batching
def _batched(reversed_kernel):
    """vmap by one conv_general_dilated: the window is a correlation of `a` (padded by
    m - 1 - start before, length - n + start after; negative pads crop) with v (reversed
    for convolve1d). A batched `a` is the conv's batch; a batched `v` its output features,
    grouped per example when `a` is batched too."""
    from .convolution import conv_general_dilated

    def batch(vals, dims, axis_size, start, length):
        a, v = vals
        da, dv = dims
        B = axis_size
        a = a if da is None else bdim_at_front(a, da, B)  # (batch first, data last)
        v = v if dv is None else bdim_at_front(v, dv, B)
        n, m = aval_of(a).shape[-1], aval_of(v).shape[-1]
        if reversed_kernel:
            v = getitem_p.bind(v, spec=(("slice", None, None, None),) * (aval_of(v).ndim - 1)
                               + (("slice", None, None, -1),))
        pads = [(m - 1 - start, length - n + start)]
        if dv is None:  # a (B, 1, n) * v (1, 1, m) -> (B, 1, length)
            out = conv_general_dilated(reshape(a, (B, 1, n)), reshape(v, (1, 1, m)), (1,), pads)
        elif da is None:  # a (1, 1, n) * v (B, 1, m) -> (1, B, length)
            out = conv_general_dilated(reshape(a, (1, 1, n)), reshape(v, (B, 1, m)), (1,), pads)
        elif B == 0:  # no examples: no groups to split into; any kernel gives (0, 1, length)
            zero_v = np.zeros((1, 1, m), aval_of(v).dtype)
            out = conv_general_dilated(reshape(a, (0, 1, n)), zero_v, (1,), pads)
        else:  # a (1, B, n) in B groups of one channel, each with its own v
            out = conv_general_dilated(reshape(a, (1, B, n)), reshape(v, (B, 1, m)), (1,), pads,
                                       feature_group_count=B)
        return reshape(out, (B, length)), 0
    return batch


convolve1d_p.batch = _batched(True)
correlate1d_p.batch = _batched(False)
convolve1d_p.fresh_output = correlate1d_p.fresh_output = True

SIGNAL_PRIMITIVES = [convolve1d_p, correlate1d_p]
