"""Fast NumPy kernels behind primitives: a large select (fnp.where) runs on the values' bits,
and pooling-shaped reductions as ufunc chains; the same results as NumPy, eager and jit."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import elementwise as E

N = E._BITWISE_SELECT_MIN_SIZE


def special_values(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=n) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).tiny / 2]
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32])
@pytest.mark.parametrize("b_kind", ["array", "zero", "scalar", "non-contiguous"])
def test_bitwise_select_equals_np_where_bit_for_bit(dtype, b_kind):
    a = special_values(dtype, 2 * N)
    pred = np.random.default_rng(1).random(2 * N) < 0.5
    b = {"array": special_values(dtype, 2 * N, seed=2), "zero": 0, "scalar": 3,
         "non-contiguous": special_values(dtype, 4 * N, seed=3)[::2]}[b_kind]
    want, got = np.where(pred, a, b), E._bitwise_select(pred, a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert want.tobytes() == got.tobytes()   # NaNs, -0.0 and subnormals exactly


def test_bitwise_select_with_scalar_first_operand_and_2d():
    pred = np.random.default_rng(0).random((N // 64, 128)) < 0.3
    b = special_values(np.float32, pred.size).reshape(pred.shape)
    for a in (0.0, -0.0, -2.5):
        want, got = np.where(pred, a, b), E._bitwise_select(pred, a, b)
        assert got.dtype == np.float32 and want.tobytes() == got.tobytes()
        out = np.empty_like(b)   # into a separate buffer, and into b itself
        got = E._bitwise_select(pred, a, b, out=out)
        assert got.tobytes() == want.tobytes() and np.shares_memory(got, out)
        assert E._bitwise_select(pred, a, b.copy(), out=None).tobytes() == want.tobytes()


def test_large_select_takes_the_bitwise_path_eager_and_jit_small_ones_np_where():
    x = special_values(np.float32, N)
    relu = lambda x: fnp.where(x > 0, x, 0.0)  # noqa: E731
    assert "_bitwise_select" in repr(fg.jit(relu).lower(x).call.compiled.fn.__globals__.values())
    assert "np.where" in fg.jit(relu).lower(x[:100]).source
    for f in (relu, fg.jit(relu)):
        want = np.where(x > 0, x, np.float32(0))
        assert f(x).dtype == np.float32 and f(x).tobytes() == want.tobytes()
    # the gradient through a large select (a select of the cotangent) is exact too
    g = fg.jit(fg.grad(lambda x: fnp.sum(relu(x) * 3.0)))(np.where(np.isfinite(x), x, 1))
    assert np.array_equal(g, np.where(np.where(np.isfinite(x), x, 1) > 0, 3.0, 0.0))


def test_select_with_a_weak_python_predicate_under_jit_still_works():
    x = np.arange(float(N))
    f = fg.jit(lambda x: fg.lax.elementwise.select(True, x, -x))
    assert np.array_equal(f(x), x)


# --------------------------------------------------------------------------- small-window reductions
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("reduce, ref", [(fnp.max, np.max), (fnp.min, np.min),
                                         (fnp.sum, np.sum)])
def test_pooling_shaped_reductions_equal_numpy_eager_and_jit(dtype, reduce, ref):
    """(N, H/2, 2, W/2, 2, C) reduced over the 2s (a 2x2 pooling window) runs as a chain of
    ufuncs over slices: the same values as NumPy's reduce, NaNs included."""
    x = special_values(dtype, 8 * 12 * 2 * 12 * 2 * 32).reshape(8, 12, 2, 12, 2, 32)
    from fungrad.lax import reduce as R
    assert R._unrolls(x.shape, x.dtype, (2, 4)) and not R._unrolls(x.shape, x.dtype, (5,))
    want = ref(x, axis=(2, 4))
    for f in (lambda x: reduce(x, axis=(2, 4)), fg.jit(lambda x: reduce(x, axis=(2, 4)))):
        got = f(x)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-13)
        assert np.array_equal(np.isnan(got), np.isnan(want))
    assert "_unrolled_reduce" in repr(fg.jit(lambda x: reduce(x, axis=(2, 4))).lower(x)
                                      .call.compiled.fn.__globals__.values())


def test_bool_sums_are_not_unrolled_as_logical_or():
    from fungrad.lax import reduce as R
    assert not R._unrolls((64, 12, 2, 12, 2, 32), np.bool_, (2, 4))



@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axes", [((64, 6, 6, 32), (0, 1, 2)), ((32, 128), (0,)),
                                         ((16, 3), (0,)), ((20, 4, 5), (0, 1))])
def test_leading_axis_sums_are_a_product_with_ones(dtype, shape, axes):
    """A sum over leading axes (a bias gradient) is ones @ x under transforms and jit: NumPy's
    values within its own rounding, NaN and infinities included, in x's dtype; a
    non-contiguous operand falls back to NumPy's reduce."""
    from fungrad.lax import reduce as R
    x = special_values(dtype, int(np.prod(shape))).reshape(shape)
    assert R._sums_by_product(shape, dtype, axes)
    assert not R._sums_by_product(shape, dtype, axes[1:] or (len(shape) - 1,))
    want = x.astype(np.float64).sum(axis=axes)
    sum_ = fg.jit(lambda x: fnp.sum(x, axis=axes))
    assert "_leading_sum" in repr(sum_.lower(x).call.compiled.fn.__globals__.values())
    for got in (sum_(x), R.reduce_sum_p.bind(x, axes=axes), sum_(np.asfortranarray(x))):
        assert got.dtype == dtype and got.shape == want.shape
        assert np.array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # the bias gradient of a dense layer takes this path and is the ones-column sum
    w = np.ones((shape[-1], 2), dtype)
    g = fg.jit(fg.grad(lambda b, x: fnp.sum(fnp.tanh(x @ w + b)), argnums=0))
    x = np.nan_to_num(x) / 100
    rows = x.reshape(-1, shape[-1]) @ w
    np.testing.assert_allclose(g(np.zeros(2, dtype), x.reshape(-1, shape[-1])),
                               (1 - np.tanh(rows) ** 2).sum(0), rtol=1e-5)


# ------------------------------------------------- gather by np.take, 1-D scatter-add by bincount
from fungrad.lax.indexing import getitem_p, scatter_add_p, take_axis  # noqa: E402

FULL = ("slice", None, None, None)


@pytest.mark.parametrize("spec, want", [
    ((("array", 0),), 0), ((FULL, ("array", 0)), 1), ((("array", 0), FULL), 0),
    ((("int", 0), ("array", 0)), None), ((("array", 0), ("array", 1)), None),
    ((None, ("array", 0)), None)])
def test_take_axis(spec, want):
    assert take_axis(spec) == want


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("spec", [(("array", 0),), (FULL, ("array", 0)), (("array", 0), FULL)])
def test_getitem_take_path_equals_fancy_indexing(dtype, spec):
    x = np.arange(60.0).reshape(6, 10)
    n = x.shape[take_axis(spec)]
    idx = np.array([[0, n - 1, 2], [1, 1, 0]]).astype(dtype)
    if dtype != np.uint8:
        idx[0, 0] = -1  # negative indices count from the end, as in NumPy
    want = x[tuple(idx if s == ("array", 0) else slice(None) for s in spec)]
    for got in (getitem_p.impl(x, idx, spec=spec),
                fg.jit(lambda x: getitem_p.bind(x, idx, spec=spec))(x)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("idx", [[3, 3, 0, 9, 3], [[1, 2], [2, 2]], [-1, 0, -1], [],
                                 np.array([4, 4, 1], np.uint64), np.array([5, 5], np.int32)])
def test_vector_scatter_add_accumulates_like_add_at(idx):
    x = np.linspace(-1.0, 1.0, 10)
    idx = np.asarray(idx, dtype=getattr(idx, "dtype", np.int64))
    v = np.arange(1.0, idx.size + 1).reshape(idx.shape)
    want = x.copy()
    np.add.at(want, idx, v)
    got = scatter_add_p.impl(x, v, idx, spec=(("array", 0),))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_vector_scatter_add_out_of_bounds_raises():
    with pytest.raises(IndexError):
        scatter_add_p.impl(np.zeros(3), np.ones(2), np.array([0, 3]), spec=(("array", 0),))
