"""Regressions found by a randomized differential sweep of fg.lax.conv_general_dilated,
reduce_window, conv_transpose and the stax conv / pool layers against JAX. Expected values
are written out or come from a naive NumPy reference (no JAX here)."""
import numpy as np

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import conv_general_dilated


def test_reduce_window_sum_init_is_added_once_not_per_padding_hole():
    """XLA reads no padding or base-dilation hole: a sum with init 10 over [pad, 1] is
    10 + 1, not 10 + 10 + 1 (the holes held the init)."""
    x = np.array([1.0, 2.0])
    got = fg.lax.reduce_window(x, 10.0, "add", (2,), (1,), ((1, 0),))
    np.testing.assert_array_equal(got, [11.0, 13.0])
    got = fg.lax.reduce_window(x, 10.0, "add", (2,), (1,), ((0, 0),), base_dilation=(2,))
    np.testing.assert_array_equal(got, [11.0, 12.0])
    y = np.arange(1.0, 7.0).reshape(2, 3)
    got = fg.jit(lambda a: fg.lax.reduce_window(a, -1.0, "add", (2, 2), (1, 1), "SAME"))(y)
    np.testing.assert_array_equal(got, [[11.0, 15.0, 8.0], [8.0, 10.0, 5.0]])
    g = fg.grad(lambda a: fnp.sum(fg.lax.reduce_window(a, -1.0, "add", (2, 2), (1, 1),
                                                       "SAME")))(y)
    np.testing.assert_array_equal(g, [[1, 2, 2], [2, 4, 4]])


def test_gradients_of_a_conv_with_an_empty_output():
    """A window longer than the (padded) input gives an empty output; its gradients are
    zeros of the operands' shapes (the transposes' pads assumed one output, so dx came out
    one element short and dw one too long)."""
    x, w = np.ones((1, 2, 2)), np.ones((2, 2, 4))
    for kw in [dict(padding="VALID"), dict(padding=[(1, 0)], window_strides=(2,)),
               dict(padding=[(-1, 1)], rhs_dilation=(2,), lhs_dilation=(2,))]:
        kw = dict(dict(window_strides=(1,)), **kw)
        f = lambda a, b: conv_general_dilated(a, b, **kw)  # noqa: E731
        out, vjp = fg.vjp(f, x, w)
        assert out.shape == (1, 2, 0)
        dx, dw = vjp(np.ones(out.shape))
        assert dx.shape == x.shape and dw.shape == w.shape and not dx.any() and not dw.any()
        dx2, dw2 = fg.jit(lambda a, b: fg.grad(lambda a, b: fnp.sum(f(a, b)),
                                               argnums=(0, 1))(a, b))(x, w)
        assert dx2.shape == x.shape and dw2.shape == w.shape
    # the same with one empty spatial dim of two, an NHWC layout and a dilated kernel
    x, w = np.ones((2, 1, 5, 3)), np.ones((2, 3, 3, 4))
    kw = dict(window_strides=(1, 1), padding="VALID", rhs_dilation=(1, 2),
              dimension_numbers=("NHWC", "HWIO", "NHWC"))
    out, vjp = fg.vjp(lambda a, b: conv_general_dilated(a, b, **kw), x, w)
    assert out.shape == (2, 0, 1, 4)
    dx, dw = vjp(np.ones(out.shape))
    assert dx.shape == x.shape and dw.shape == w.shape
