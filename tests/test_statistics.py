"""Edge cases of fnp's reductions and statistics against NumPy: keyword combinations
(where / initial / dtype / ddof / correction / keepdims), NaN inputs, empty where-masks,
result dtypes of integer inputs, and the errors."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads

X = np.array([[1.5, -0.5, 3.25, 0.75], [2.0, 4.5, -1.25, 0.25], [0.5, 1.75, 2.5, -3.0]])
XI = np.array([[3, -1, 4, 1], [5, 9, -2, 6], [5, 3, 5, 8]])
XN = X.copy()
XN[0, 1] = XN[2, 3] = np.nan
XN_ROW = XN.copy()
XN_ROW[1] = np.nan  # an all-NaN row
M = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])


def _compare(f, *args):
    """f on NumPy arrays vs f traced (jit), vmapped (a batch of 2) and under jvp: values,
    shapes and dtypes equal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(np, *args)
        got_jit = fg.jit(lambda *a: f(fnp, *a))(*args)
        got_vmap = fg.vmap(lambda *a: f(fnp, *a))(*[np.stack([a, a]) for a in args])
    for got in (got_jit, fg.tree.tree_map(lambda v: np.asarray(v)[1], got_vmap)):
        for w, g in zip(fg.tree.tree_leaves(want), fg.tree.tree_leaves(got)):
            w, g = np.asarray(w), np.asarray(g)
            assert (g.shape, g.dtype) == (w.shape, w.dtype)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


REDUCTION_KWARGS = [
    ("sum", dict(axis=1, where=M)), ("sum", dict(where=M, initial=10.0)),
    ("sum", dict(axis=0, keepdims=True, initial=1.0, dtype=np.float32)),
    ("prod", dict(axis=1, where=M, initial=2.0)), ("prod", dict(axis=(0, 1), where=M[0])),
    ("max", dict(axis=1, where=M, initial=-5.0)), ("min", dict(axis=0, where=M, initial=9.0)),
    ("amax", dict(initial=10.0)), ("amin", dict(axis=1, keepdims=True, initial=0.0)),
    ("mean", dict(axis=1, where=M)), ("mean", dict(where=M, keepdims=True)),
    ("mean", dict(axis=0, dtype=np.float32, where=M[2])),
    ("var", dict(axis=1, where=M)), ("var", dict(axis=0, ddof=1, where=M[0])),
    ("var", dict(axis=1, correction=1)), ("std", dict(axis=1, where=M, correction=1)),
    ("std", dict(axis=(0, 1), keepdims=True, ddof=2)),
    ("any", dict(axis=1, where=M)), ("all", dict(axis=0, where=M, keepdims=True)),
    ("argmax", dict(axis=1, keepdims=True)), ("argmin", dict(keepdims=True)),
]


@pytest.mark.parametrize("name,kw", REDUCTION_KWARGS, ids=lambda v: str(v))
def test_reduction_keywords_match_numpy(name, kw):
    _compare(lambda m, x: getattr(m, name)(x, **kw), X)
    _compare(lambda m, x: getattr(m, name)(x, **kw), XI)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min"])
def test_where_masked_elements_get_no_derivative(name):
    kw = {"initial": 0.0} if name in ("max", "min") else {}
    f = lambda x: fnp.sum(getattr(fnp, name)(x, axis=1, where=M[[0, 2]], **kw))  # noqa: E731
    g = fg.grad(f)(X[[0, 2]])
    assert np.all(g[~M[[0, 2]]] == 0)
    check_grads(f, (X[[0, 2]],), order=2)


def test_empty_where_masks():
    nothing = np.zeros_like(M)
    _compare(lambda m, x: m.sum(x, axis=1, where=nothing), X)
    _compare(lambda m, x: m.prod(x, where=nothing), X)
    _compare(lambda m, x: m.max(x, axis=0, where=nothing, initial=-1.0), X)
    _compare(lambda m, x: m.mean(x, axis=1, where=M), X)  # row 1 selects nothing: NaN
    _compare(lambda m, x: m.any(x, axis=1, where=nothing), X)
    _compare(lambda m, x: m.all(x, where=nothing), X)


def test_traced_where_and_initial():
    def f(m, w, init):
        return fnp.max(X, axis=1, where=m > 0, initial=init) + fnp.sum(w, where=m[0] > 0)
    m = M.astype(float)
    got = fg.jit(f)(m, np.ones(4), 0.5)
    want = np.max(X, axis=1, where=M, initial=0.5) + np.sum(np.ones(4), where=M[0])
    np.testing.assert_allclose(got, want)


def test_max_with_where_needs_initial():
    f = fg.jit(lambda x: fnp.max(x, where=M))
    with pytest.raises(ValueError, match="initial"):
        f(X)
    with pytest.raises(ValueError, match="initial"):
        np.max(X, where=M)
    with pytest.raises(ValueError, match="zero-size"):
        fg.jit(lambda x: fnp.min(x, axis=0))(np.zeros((0, 2)))
    got = fg.jit(lambda x: fnp.min(x, axis=0, initial=3.0))(np.zeros((0, 2)))
    np.testing.assert_array_equal(got, np.min(np.zeros((0, 2)), axis=0, initial=3.0))


def test_errors_name_the_fix():
    with pytest.raises(ValueError, match="ddof and correction"):
        fg.jit(lambda x: fnp.var(x, ddof=1, correction=1))(X)
    with pytest.raises(TypeError, match="out="):
        fg.jit(lambda x: fnp.sum(x, out=np.zeros(())))(X)
    with pytest.raises(ValueError, match="where"):
        fg.jit(lambda x: fnp.sum(x, where=np.ones((2, 4), bool)))(X)
    with pytest.raises(ValueError, match="not a valid method"):
        fg.jit(lambda x: fnp.quantile(x, 0.5, method="foo"))(X)
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        fg.jit(lambda x: fnp.quantile(x, 1.5))(X)
    with pytest.raises(ValueError, match=r"range \[0, 100\]"):
        fg.jit(lambda x: fnp.percentile(x, -1))(X)
    with pytest.raises(ValueError, match="kth"):
        fg.jit(lambda x: fnp.partition(x, 4))(X)
    with pytest.raises(ValueError, match="too small"):
        fg.jit(lambda x: fnp.gradient(x, edge_order=2))(X[:2, :2])
    with pytest.raises(ValueError, match="non-negative"):
        fg.jit(lambda x: fnp.diff(x, n=-1))(X)
    with pytest.raises(ValueError, match="axis"):
        fg.jit(lambda x: fnp.cumulative_sum(x))(X)
    with pytest.raises(TypeError, match="same_kind"):
        fg.jit(lambda x: fnp.ediff1d(x, to_begin=0.5))(XI)
    with pytest.raises(TypeError, match="Axis must be specified"):
        fg.jit(lambda x: fnp.average(x, weights=np.ones(4)))(X)
    with pytest.raises(ValueError, match="consistent"):
        fg.jit(lambda x: fnp.average(x, axis=0, weights=np.ones(4)))(X)
    with pytest.raises(ZeroDivisionError):
        fg.jit(lambda x: fnp.average(x, axis=1, weights=np.zeros(4)))(X)
    with pytest.raises(ValueError, match="All-NaN"):
        fg.grad(lambda x: fnp.sum(fnp.nanargmax(x, axis=1) * x[:, 0]))(XN_ROW)
    with pytest.raises(NotImplementedError, match="weights"):
        fg.jit(lambda x: fnp.nanquantile(x, 0.5, weights=np.ones(4),
                                         method="inverted_cdf"))(X)


STATISTICS_KWARGS = [
    lambda m, x: m.diff(x, n=2, axis=0, append=0.0),
    lambda m, x: m.diff(x > 1, axis=1),
    lambda m, x: m.ediff1d(x, to_end=[1, 2]),
    lambda m, x: m.gradient(x),
    lambda m, x: m.gradient(x, 2.0, np.array([0.0, 0.5, 2.0, 2.5]), edge_order=2),
    lambda m, x: m.gradient(x, axis=-1, edge_order=2),
    lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
    lambda m, x: m.cumulative_prod(x, axis=0, dtype=np.float64, include_initial=True),
    lambda m, x: m.cumulative_sum(x[0]),
    lambda m, x: m.median(x, axis=(0, 1), keepdims=True),
    lambda m, x: m.median(x, axis=0),
    lambda m, x: m.quantile(x, [0.2, 0.5], axis=1, method="nearest", keepdims=True),
    lambda m, x: m.quantile(x, 0.4, axis=0, method="lower"),
    lambda m, x: m.quantile(x, np.array([[0.1], [0.8]]), method="median_unbiased"),
    lambda m, x: m.percentile(x, [25, 75], axis=1, method="midpoint"),
    lambda m, x: m.average(x, axis=(0, 1), weights=np.arange(1.0, 13).reshape(3, 4)),
    lambda m, x: m.average(x, axis=1, weights=np.arange(1, 5), returned=True, keepdims=True),
    lambda m, x: m.average(x, returned=True),
    lambda m, x: m.ptp(x, axis=1, keepdims=True),
    lambda m, x: m.count_nonzero(x, axis=0),
    lambda m, x: m.count_nonzero(x),
    lambda m, x: m.cov(x, rowvar=False, ddof=0, fweights=np.array([1, 2, 3])),
    lambda m, x: m.cov(x, aweights=np.array([0.5, 1.0, 2.0, 1.5]), bias=True),
    lambda m, x: m.cov(x[0], x[1]),
    lambda m, x: m.cov(x, dtype=np.float32),
    lambda m, x: m.corrcoef(x, x[::-1] * 2, rowvar=True),
    lambda m, x: m.corrcoef(x[0]),
]


@pytest.mark.parametrize("i", range(len(STATISTICS_KWARGS)))
@pytest.mark.parametrize("x", [X, XI], ids=["float", "int"])
def test_statistics_keywords_match_numpy(i, x):
    f = STATISTICS_KWARGS[i]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            f(np, x)
    except (TypeError, ValueError):
        pytest.skip("NumPy rejects this input")
    _compare(f, x)


@pytest.mark.parametrize("method", ["inverted_cdf", "averaged_inverted_cdf",
                                    "closest_observation", "interpolated_inverted_cdf", "hazen",
                                    "weibull", "linear", "median_unbiased", "normal_unbiased",
                                    "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("x", [X, XI, XN], ids=["float", "int", "nan"])
def test_quantile_methods_match_numpy(method, x):
    q = np.array([0.0, 0.05, 0.3, 0.5, 0.62, 0.95, 1.0])
    for name in ("quantile", "nanquantile"):
        _compare(lambda m, x: getattr(m, name)(x, q, axis=1, method=method), x)
        _compare(lambda m, x: getattr(m, name)(x, 0.3, method=method), x)


def test_quantile_is_differentiable_in_q():
    f = lambda q: fnp.sum(fnp.quantile(X, q, axis=1))  # noqa: E731
    check_grads(f, (np.array([0.3, 0.55]),), order=1)


def test_median_splits_the_gradient_between_the_middle_pair():
    g = fg.grad(lambda x: fnp.median(x))(np.array([4.0, 1.0, 3.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.5, 0.5])


NAN_FUNCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                 "nanargmax", "nanargmin", "nancumsum", "nancumprod", "nanmedian"]


@pytest.mark.parametrize("name", NAN_FUNCTIONS)
@pytest.mark.parametrize("x", [X, XI, XN, XN_ROW], ids=["float", "int", "nan", "all-nan-row"])
def test_nan_functions_match_numpy(name, x):
    if name in ("nanargmax", "nanargmin") and x is XN_ROW:
        # NumPy raises; traced values give -1 (JAX's choice), checked below
        got = fg.jit(lambda x: getattr(fnp, name)(x, axis=1))(x)
        assert got[1] == -1
        return
    _compare(lambda m, x: getattr(m, name)(x, axis=1), x)
    if "cum" not in name and "arg" not in name:
        _compare(lambda m, x: getattr(m, name)(x, axis=0, keepdims=True), x)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax",
                                  "nanmin", "nancumsum", "nancumprod", "nanmedian"])
def test_nan_entries_get_zero_derivative(name):
    g = fg.grad(lambda x: fnp.nansum(getattr(fnp, name)(x, axis=1)))(XN)
    assert np.all(g[np.isnan(XN)] == 0) and np.all(np.isfinite(g))
    assert np.any(g != 0)


def test_nan_keywords():
    _compare(lambda m, x: m.nansum(x, axis=1, where=M, initial=1.0), XN)
    _compare(lambda m, x: m.nanmean(x, axis=1, where=M), XN)
    _compare(lambda m, x: m.nanvar(x, axis=0, ddof=1, keepdims=True), XN)
    _compare(lambda m, x: m.nanmax(x, axis=1, where=M, initial=-9.0), XN)
    _compare(lambda m, x: m.nanpercentile(x, [10, 90], axis=0, method="hazen"), XN)
    _compare(lambda m, x: m.nanquantile(x, 0.5, axis=(0, 1), keepdims=True), XN_ROW)


def test_quantile_of_nan_rows_is_nan():
    _compare(lambda m, x: m.quantile(x, [0.1, 0.5], axis=1), XN)
    _compare(lambda m, x: m.median(x, axis=0), XN)


def test_partition_agrees_with_numpy_on_what_is_defined():
    x = np.array([[0.3, -1.2, 2.5, 0.1, 1.7], [4.0, -3.0, 0.5, 2.2, -0.7]])
    for k in (0, 2, -1, (1, 3)):
        p = fg.jit(lambda x: fnp.partition(x, k, axis=1))(x)
        ip = fg.jit(lambda x: fnp.argpartition(x, k, axis=1))(x)
        want = np.partition(x, k, axis=1)
        for kk in np.atleast_1d(k):
            np.testing.assert_array_equal(p[:, kk], want[:, kk])
            np.testing.assert_array_equal(np.take_along_axis(x, ip, 1)[:, kk], want[:, kk])
            np.testing.assert_array_equal(np.sort(p[:, :kk % 5], 1), np.sort(want[:, :kk % 5], 1))


def test_plain_arrays_take_numpy_fast_path():
    for f in (lambda m: m.quantile(X, 0.3, axis=1), lambda m: m.nanmean(XN, axis=0),
              lambda m: m.cov(X), lambda m: m.sum(X, where=M, initial=1.0)):
        out, want = f(fnp), f(np)
        assert type(out) is type(want)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_infinities_traced_as_numpy(name):
    """NumPy's median is the mean of the middle two values: [1, 3, inf, inf] has median inf
    (the linear quantile's lerp would give inf - inf = nan), under jit, vmap and grad too."""
    fn, ref = getattr(fnp, name), getattr(np, name)
    for x in (np.array([1.0, np.inf, 3.0, np.inf]), np.array([-np.inf, np.inf, 1.0, 2.0]),
              np.array([np.inf, 1.0, np.inf]), np.array([np.inf, -np.inf])):
        want = ref(x)
        np.testing.assert_array_equal(fg.jit(fn)(x), want)
        np.testing.assert_array_equal(fg.vmap(fn)(x[None]), [want])
        np.testing.assert_array_equal(fg.value_and_grad(fn)(x)[0], want)


def test_size_of_several_axes():
    x = np.ones((2, 3, 4))
    assert fnp.size(x, axis=(0, 2)) == np.size(x, axis=(0, 2)) == 8
    assert fg.jit(lambda x: fnp.ones(fnp.size(x, (0, -1))))(x).shape == (8,)


@pytest.mark.parametrize("name", ["var", "std"])
def test_complex_variance_in_a_real_dtype_as_numpy(name):
    """NumPy's mean in a real dtype drops the imaginary parts; the deviations keep them."""
    z = np.array([1 + 2j, 3 - 1j, 0.5 + 0j])
    fn = getattr(fnp, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        for dt in (np.float64, np.float32):
            want = getattr(np, name)(z, dtype=dt)
            got = fg.jit(lambda z: fn(z, dtype=dt))(z)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("fn", [lambda x: fnp.sort(x, axis=(0,)),
                                lambda x: fnp.argsort(x, axis=(1,)),
                                lambda x: fnp.cumsum(x, axis=(0,)),
                                lambda x: fnp.diff(x, axis=(0,)),
                                lambda x: fnp.partition(x, 1, axis=(1,))])
def test_one_axis_functions_reject_a_tuple_traced_as_eager(fn):
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError):
        fn(x)
    with pytest.raises(TypeError, match="axis must be an int"):
        fg.jit(fn)(x)


def test_traced_dtype_arguments_follow_numpy():
    """Under jit as in NumPy: cov and nanmean refuse an integer dtype for float data (NumPy
    raises; the traced paths used to cast silently); an integer dtype under jvp works."""
    x = np.array([1.0, 2.0, 4.0])
    for fn in (lambda a: fnp.cov(a, dtype=np.int64), lambda a: fnp.nanmean(a, dtype=np.int64)):
        with pytest.raises(TypeError):
            fn(x)
        with pytest.raises(TypeError, match="dtype"):
            fg.jit(fn)(x)
    for fn in (lambda a: fnp.var(a, dtype=np.int64),
               lambda a: fnp.cumulative_sum(a, dtype=np.int64)):
        np.testing.assert_array_equal(fg.jvp(fn, (x,), (x,))[0], fn(x))


def test_scans_of_a_0d_array_traced():
    for fn in (lambda a: fnp.cumsum(a, axis=0), lambda a: fnp.cumprod(a, axis=-1)):
        np.testing.assert_array_equal(fg.jit(fn)(np.array(2.0)), fn(np.array(2.0)))


def test_traced_cond_and_conj_follow_numpy():
    for a in (np.zeros((2, 2)), np.zeros((3, 2, 2))):
        for p in (None, -2):
            np.testing.assert_array_equal(fg.jit(lambda a: fnp.linalg.cond(a, p))(a),
                                          np.linalg.cond(a, p))
    b = np.array([True, False])
    got = fg.jit(fnp.conj)(b)
    assert got.dtype == np.conj(b).dtype and np.array_equal(got, np.conj(b))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_booleans_traced(name):
    for b in (np.array([True, False, True]), np.array([True, False]),
              np.array([[True, False], [True, True]])):
        want = getattr(np, name)(b)
        got = fg.jit(getattr(fnp, name))(b)
        assert got.dtype == np.asarray(want).dtype and got == want


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_complex_traced(name):
    # NumPy sorts complex values lexicographically and averages the middle pair; its
    # quantile refuses complex values, which the traced median once inherited
    for z in (np.array([3 + 1j, 1 - 2j, 2 + 0j]), np.array([3 + 1j, 1 - 2j, 2 + 0j, 2 - 1j]),
              np.array([3 + 1j, 1 - 2j, 2 + 0j, 2 - 1j, np.nan]),
              np.array([3 + 1j, 1 + np.nan * 1j, 2 + 0j]),
              np.array([[3 + 1j, 1 - 2j], [2 + 0j, 2 - 1j]], np.complex64)):
        for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}):
            want = np.asarray(getattr(np, name)(z, **kw))
            got = fg.jit(lambda z: getattr(fnp, name)(z, **kw))(z)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    z = np.array([3 + 1j, 1 - 2j, 2 + 0j, 2 - 1j])
    g = fg.grad(lambda z: fnp.real(getattr(fnp, name)(z)))(z)
    np.testing.assert_allclose(g, [0, 0, 0.5, 0.5])  # the middle pair, 2+0j and 2-1j


def _eager_jit_vmap(fn, x):
    """fn on x eagerly, under jit and (a batch of two: x and x[::-1] along every axis) under
    vmap, against NumPy's values, dtypes and shapes (NaN where NumPy's is)."""
    xs = [x, np.flip(x)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(fn(np, x))
        want_batch = np.stack([np.asarray(fn(np, v)) for v in xs])
        got = [(fn(fnp, x), want), (fg.jit(lambda a: fn(fnp, a))(x), want),
               (fg.vmap(lambda a: fn(fnp, a))(np.stack(xs)), want_batch)]
    for g, w in got:
        g = np.asarray(g)
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ["cumprod", "nancumprod", "cumulative_prod"])
def test_traced_cumprod_multiplies_in_numpys_order(name):
    # an associative scan multiplies in a tree order: 0 * (1e200 * 1e200) is 0 * inf = nan
    # where NumPy's running product stays 0, and the running inf of 1e300 * 1e300 would meet
    # the last 0 as (1e300 * 0) = 0 instead of inf * 0 = nan
    for x in (np.array([0.0, 1e200, 1e200, 1e200]), np.array([2.0, 1e300, 1e300, 0.0]),
              np.float16([0, 300, 300, 300, 300]), np.array([[1e-200, 1e-200], [1e200, 0.5]])):
        _eager_jit_vmap(lambda m, a: getattr(m, name)(a, axis=-1) if a.ndim > 1
                        else getattr(m, name)(a), x)
    # the derivative stays right where the input has zeros (no division by x)
    x = np.array([2.0, 0.0, 3.0, 0.0, 1.5])
    check_grads(fnp.cumprod, (x,), order=2)
    check_grads(lambda a: fnp.cumprod(a, axis=0), (X,), order=2)
    np.testing.assert_allclose(fg.jit(fg.grad(lambda a: fnp.cumprod(a)[2]))(x), [0, 6, 0, 0, 0])


def test_mean_and_var_in_a_small_integer_dtype_wrap_as_numpy():
    # NumPy sums in the given dtype (wrapping), divides in float64 and truncates back
    u = np.uint8([0, 1, 2, 3, 127, 128, 254, 255])
    for fn in (lambda m, a: m.mean(a, dtype=np.uint8), lambda m, a: m.nanmean(a, dtype=np.uint8),
               lambda m, a: m.var(a, dtype=np.int8), lambda m, a: m.nanvar(a, dtype=np.int8),
               lambda m, a: m.mean(a.reshape(2, 4), axis=1, dtype=np.int8),
               lambda m, a: m.var(a.reshape(2, 4), axis=0, dtype=np.uint8, keepdims=True),
               lambda m, a: m.var(a, dtype=np.int16, ddof=1),
               lambda m, a: m.mean(a.astype(np.float64) / 3, dtype=np.int8),
               lambda m, a: m.var(a.astype(np.float64) / 3, dtype=np.int8)):
        _eager_jit_vmap(fn, u)


def test_std_and_var_keep_the_dtype_given_as_numpy():
    b = np.array([0, 1, 1, 0], bool)
    f32 = np.float32([1, 2, 3])
    for fn, x in ((lambda m, a: m.std(a, dtype=np.int8), b),
                  (lambda m, a: m.std(a, dtype=np.int8), np.uint8([0, 1, 2, 3, 127, 128])),
                  (lambda m, a: m.var(a, dtype=np.int8), b),
                  (lambda m, a: m.var(a, dtype=np.complex64), f32),
                  (lambda m, a: m.std(a, dtype=np.complex64), f32),
                  (lambda m, a: m.var(a, dtype=np.complex128), np.array([1 + 1j, 2, 3j])),
                  (lambda m, a: m.std(a, dtype=bool), np.array([1, 2, 2]))):
        _eager_jit_vmap(fn, x)
    # NumPy's bool - bool, and its float sqrt written into an integer array, are TypeErrors
    for fn, x in ((lambda m, a: m.std(a, dtype=bool), np.array([True, False])),
                  (lambda m, a: m.var(a, dtype=bool), np.array([True, False])),
                  (lambda m, a: m.std(a, axis=0, dtype=np.int8), np.ones((2, 3), np.uint8)),
                  (lambda m, a: m.nanvar(a, dtype=np.int8), np.array([1.0, np.nan]))):
        with pytest.raises(TypeError):
            fn(np, x)
        with pytest.raises(TypeError):
            fg.jit(lambda a: fn(fnp, a))(x)
    check_grads(lambda a: fnp.std(a, dtype=np.float32), (X.astype(np.float32),), order=1,
                atol=1e-2, rtol=1e-2)
    check_grads(lambda a: fnp.var(a, axis=1, dtype=np.complex128), (X,), order=2)


@pytest.mark.parametrize("name", ["mean", "average", "std", "var", "median", "nanmedian",
                                  "quantile", "nanquantile"])
def test_axis_of_a_0d_array_is_an_axis_error_as_numpy(name):
    fn = getattr(fnp, name)
    call = (lambda f: lambda a: f(a, 0.5, axis=0)) if "quantile" in name else (
        lambda f: lambda a: f(a, axis=0))
    with pytest.raises(np.exceptions.AxisError):
        call(getattr(np, name))(np.array(1.0))
    for traced, x in ((fg.jit(call(fn)), np.array(1.0)), (fg.vmap(call(fn)), np.ones(2))):
        with pytest.raises(np.exceptions.AxisError):
            traced(x)
    # axis=() is no axis; NumPy's nan- moments of floats count with sums, which take axis 0
    _eager_jit_vmap(lambda m, a: getattr(m, name)(a, 0.5, axis=()) if "quantile" in name
                    else getattr(m, name)(a, axis=()), np.array(2.0))
    for nan_name in ("nanmean", "nanvar", "nanstd"):
        _eager_jit_vmap(lambda m, a: getattr(m, nan_name)(a, axis=0), np.array(2.0))
    with pytest.raises(np.exceptions.AxisError):
        fg.jit(lambda a: fnp.nanmean(a, axis=0))(np.array(2))  # (NumPy's mean of ints)


@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
def test_arg_extremum_of_a_0d_array_along_axis_0(name):
    for kw in (dict(axis=0), dict(axis=-1), dict(axis=0, keepdims=True)):
        _eager_jit_vmap(lambda m, a: getattr(m, name)(a, **kw), np.array(1.5))
    with pytest.raises(ValueError):
        fg.jit(lambda a: getattr(fnp, name)(a, axis=1))(np.array(1.5))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_nothing_is_nan_as_numpy(name):
    for x, kw in ((np.zeros(0), {}), (np.zeros(0, np.int64), {}), (np.zeros(0, np.float16), {}),
                  (np.zeros(0, complex), {}), (np.zeros((3, 0)), dict(axis=1)),
                  (np.zeros((0, 3)), dict(axis=0, keepdims=True)),
                  (np.zeros((0, 3)), dict(axis=1))):
        _eager_jit_vmap(lambda m, a: getattr(m, name)(a, **kw), x)
    # NumPy's nanquantile of an empty array is its nanmean (q's shape left out)
    _eager_jit_vmap(lambda m, a: m.nanquantile(a, [0.2, 0.5], axis=0), np.zeros((0, 3)))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_all_nan_slice_raises_eagerly_and_gives_minus_one_traced(name):
    # a traced value cannot raise on its values: -1 as in JAX (documented in the docstring)
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with pytest.raises(ValueError, match="All-NaN"):
        getattr(fnp, name)(x, axis=1)
    np.testing.assert_array_equal(fg.jit(lambda a: getattr(fnp, name)(a, axis=1))(x), [-1, 0])
    assert "-1" in getattr(fnp, name).__doc__ and "JAX" in getattr(fnp, name).__doc__


def test_nan_moments_without_degrees_of_freedom_are_nan_as_numpy():
    x = np.array([[1.0, 3.0, np.nan], [1.0, 2.0, 4.0]])
    for name in ("nanvar", "nanstd"):
        _eager_jit_vmap(lambda m, a: getattr(m, name)(a, axis=-1, ddof=2), x)


@pytest.mark.parametrize("name", ["prod", "nanprod", "mean", "average"])
def test_product_over_no_axes_of_a_complex_inf_as_numpy(name):
    # NumPy's 0-d product is 1 * x, and its mean divides by 1: (inf+0j) -> inf+nanj
    for x in (np.array(np.inf + 0j), np.array([np.inf + 0j, 1 + 1j])):
        _eager_jit_vmap(lambda m, a: getattr(m, name)(a), x)
    _eager_jit_vmap(lambda m, a: m.prod(a, axis=()), np.array([np.inf + 0j, 2j]))
    check_grads(lambda a: fnp.prod(a, axis=()), (X,), order=2)
