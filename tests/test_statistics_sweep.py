"""Regressions from a differential sweep of the statistics and searching / set functions:
the traced paths (jit, vjp, vmap) against NumPy's results on the same concrete inputs,
for the edge cases where they used to disagree (empty reductions, 0-d partitions, NaN
bin edges, complex histogram weights, the set operations' assume_unique and NaN rules)."""
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


def _traced(f, *args):
    """f's value computed on the traced path, with the arguments' concrete values at hand
    (the primal of a vjp, as under grad)."""
    return fg.vjp(f, *args)[0]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- statistics
def test_cov_of_no_variables_traced_is_empty_like_numpy():
    # shape (0, 3): no variables, three observations; the weights' sum used to be read
    # from a first row that does not exist (IndexError)
    m = np.zeros((0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.cov(m)
        _same(fg.jit(fnp.cov)(m), want)
        _same(fg.jit(lambda m: fnp.cov(m, aweights=np.ones(3)))(m),
              np.cov(m, aweights=np.ones(3)))


def test_quantile_of_empty_reduction_raises_numpys_index_error():
    with pytest.raises(IndexError):
        np.quantile(np.zeros(0), 0.5)
    with pytest.raises(IndexError):
        fg.jit(lambda a: fnp.quantile(a, 0.5, axis=0))(np.zeros((0, 3)))
    with pytest.raises(IndexError):
        _traced(lambda a: fnp.percentile(a, 50), np.zeros(0))


def test_partition_of_0d_raises_axis_error_and_argpartition_reads_it_as_1d():
    with pytest.raises(np.exceptions.AxisError):
        np.partition(np.array(1.0), 0)
    with pytest.raises(np.exceptions.AxisError):
        fg.jit(lambda a: fnp.partition(a, 0))(np.array(1.0))
    _same(fg.jit(lambda a: fnp.argpartition(a, 0))(np.array(1.0)),
          np.argpartition(np.array(1.0), 0))
    with pytest.raises(ValueError, match="out of bounds"):
        fg.jit(lambda a: fnp.argpartition(a, 1))(np.array(1.0))


def test_partition_of_empty_array_does_not_check_kth():
    a = np.zeros((0, 3))
    _same(fg.jit(lambda a: fnp.partition(a, 5, axis=1))(a), np.partition(a, 5, axis=1))
    _same(fg.jit(lambda a: fnp.argpartition(a, 100, axis=0))(a),
          np.argpartition(a, 100, axis=0))


# ----------------------------------------------------------------------------- interp
XP = np.array([0.0, 1.0, 2.5, 4.0])
FP = np.array([1.0, -1.0, 0.5, 3.0])


def test_interp_negative_period_wraps_like_its_absolute_value():
    x = np.array([-2.3, 0.4, 1.0, 3.7, 5.2, 9.9])
    want = np.interp(x, XP, FP, period=-3.0)
    _same(fg.jit(lambda x: fnp.interp(x, XP, FP, period=-3.0))(x), want)
    _same(_traced(lambda x: fnp.interp(x, XP, FP, period=-3.0), x), want)


def test_interp_single_sample_gives_it_at_nan_x():
    x = np.array([np.nan, 0.5, 5.0])
    for kw in ({}, dict(left=-5.0, right=9.0)):
        want = np.interp(x, [1.0], [2.0], **kw)  # [2, 2, 2] and [2, -5, 9]: NaN x -> fp[0]
        _same(fg.jit(lambda x: fnp.interp(x, np.array([1.0]), np.array([2.0]), **kw))(x),
              want)


# ----------------------------------------------------------------------------- digitize
@pytest.mark.parametrize("bins", [[0.0, 1.0, 1.0, np.nan], [np.nan, 1.0, 0.0],
                                  [2.0, 2.0, 1.0, 0.0], [3.0, 3.0, 3.0]])
@pytest.mark.parametrize("right", [False, True])
def test_digitize_follows_numpys_monotonicity_rule_with_nan_edges(bins, right):
    # NumPy's check takes the direction from the first pair of edges that differ and
    # accepts NaN edges; the traced path used to reject them and pick the direction from
    # the end edges (NaN >= 0 is False: the decreasing branch for increasing edges)
    x = np.array([-1.0, 0.5, 1.0, 3.0, np.nan])
    bins = np.array(bins)
    want = np.digitize(x, bins, right)
    _same(fg.jit(lambda x: fnp.digitize(x, bins, right))(x), want)


def test_digitize_still_rejects_non_monotonic_edges():
    with pytest.raises(ValueError, match="monotonically"):
        fg.jit(lambda x: fnp.digitize(x, np.array([0.0, 2.0, 1.0])))(np.ones(2))


# ----------------------------------------------------------------------------- counting
def test_bincount_of_nothing_is_intp_zeros_even_with_weights():
    x = np.zeros(0, np.intp)
    for minlength in (0, 3):
        want = np.bincount(x, np.zeros(0), minlength)  # int64 zeros, NumPy's shortcut
        _same(_traced(lambda w: fnp.bincount(x, w, minlength), np.zeros(0)), want)


# ----------------------------------------------------------------------------- histograms
SAMPLE = np.array([0.1, 0.5, 0.9, 0.35, 0.7])


@pytest.mark.parametrize("density", [None, True])
def test_histogram_keeps_complex_weights_imaginary_part(density):
    w = np.array([1 + 1j, 2.0, 3j, -1j, 0.5])
    want = np.histogram(SAMPLE, 2, weights=w, density=density)
    got = fg.jit(lambda w: fnp.histogram(SAMPLE, 2, weights=w, density=density))(w)
    _same(got[0], want[0])
    _same(got[1], want[1])


def test_histogram_of_a_concrete_sample_raises_on_a_non_finite_range():
    a = np.array([0.0, np.nan, 1.0])
    w = np.ones(3)
    with pytest.raises(ValueError, match="autodetected range"):
        np.histogram(a, 3, weights=w)
    with pytest.raises(ValueError, match="autodetected range"):
        fg.jit(lambda w: fnp.histogram(a, 3, weights=w))(w)
    with pytest.raises(ValueError, match="supplied range"):
        fg.jit(lambda w: fnp.histogram(SAMPLE, 3, range=(0, np.inf), weights=w))(np.ones(5))


def test_histogramdd_reads_a_list_of_traced_arrays_as_coordinates():
    x = np.array([0.1, 0.4, 0.9, 0.6, 0.2])
    y = np.array([0.3, 0.8, 0.5, 0.1, 0.9])
    want_hist, want_edges = np.histogramdd([x, y], 3)
    hist, edges = _traced(lambda x, y: fnp.histogramdd([x, y], 3), x, y)
    _same(hist, want_hist)
    for e, w in zip(edges, want_edges):
        _same(e, w)


def test_histograms_take_a_range_with_traced_bounds():
    # a tracer inside the range tuple went unnoticed: NumPy's histogram got it and failed
    # on bool(tracer) under jit
    x = np.array([0.1, 0.5, 0.9, 0.35, 0.7, 1.0, 0.0])
    bounds = np.array([0.0, 0.8])
    want = np.histogram(x, 3, range=(0.0, 0.8))
    got = fg.jit(lambda r: fnp.histogram(x, 3, range=(r[0], r[1])))(bounds)
    _same(got[0], want[0])
    _same(got[1], want[1])
    _same(fg.jit(lambda r: fnp.histogram_bin_edges(x, 3, range=(r[0], r[1])))(bounds),
          want[1])
    got2 = fg.jit(lambda r: fnp.histogram2d(x, x[::-1], 2, range=[(r[0], r[1]), (0, 1)]))(
        bounds)
    _same(got2[0], np.histogram2d(x, x[::-1], 2, range=[(0.0, 0.8), (0, 1)])[0])


def test_histogram2d_takes_traced_edges_per_dimension():
    x, y = SAMPLE, SAMPLE[::-1]
    edges = np.array([0.0, 0.5, 1.0])
    want = np.histogram2d(x, y, [edges, edges])
    got = fg.jit(lambda e: fnp.histogram2d(x, y, [e, e]))(edges)
    for g, w in zip(got, want):
        _same(g, w)


def test_histogram_2d_bins_array_is_numpys_value_error():
    with pytest.raises(ValueError, match="1d"):
        np.histogram(SAMPLE, np.ones((2, 2)))
    with pytest.raises(ValueError, match="1d"):
        fg.jit(lambda a: fnp.histogram(a, np.ones((2, 2))))(SAMPLE)


# ----------------------------------------------------------------------------- unique, sets
XNAN = np.array([2.0, np.nan, 1.0, np.nan, 2.0])


@pytest.mark.parametrize("fname", ["unique_values", "unique_counts", "unique_inverse",
                                   "unique_all"])
def test_array_api_unique_functions_keep_each_nan(fname):
    # NumPy's unique_* use equal_nan=False: two NaN give two values
    want = getattr(np, fname)(XNAN)
    got = _traced(lambda x: getattr(fnp, fname)(x), XNAN)
    if fname == "unique_values":
        _same(got, want)
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)


def test_unique_values_sized_under_jit_keeps_each_nan():
    got = fg.jit(lambda x: fnp.unique_values(x, size=5, fill_value=-1.0))(XNAN)
    _same(got, np.array([1.0, 2.0, np.nan, np.nan, -1.0]))


def test_intersect1d_assume_unique_is_numpys_neighbour_rule():
    a, b = np.array([3.0, 1.0, 1.0]), np.array([1.0, 5.0])
    want = np.intersect1d(a, b, assume_unique=True)  # [1, 1]: repeats are not removed
    _same(_traced(lambda a: fnp.intersect1d(a, b, assume_unique=True), a), want)


def test_intersect1d_result_has_the_joined_dtype():
    a, b = np.array([1, 2, 3]), np.array([2.0, 3.0])
    want = np.intersect1d(a, b)  # float64
    _same(_traced(lambda b: fnp.intersect1d(a, b), b), want)
    got = _traced(lambda b: fnp.intersect1d(a, b, return_indices=True), b)
    for g, w in zip(got, np.intersect1d(a, b, return_indices=True)):
        _same(g, w)


def test_setdiff1d_assume_unique_keeps_ar1_order():
    a, b = np.array([[3.0, 1.0], [2.0, 4.0]]), np.array([2.0])
    want = np.setdiff1d(a, b, assume_unique=True)  # [3, 1, 4]: flattened, not sorted
    _same(_traced(lambda a: fnp.setdiff1d(a, b, assume_unique=True), a), want)
    got = fg.jit(lambda a: fnp.setdiff1d(a, b, assume_unique=True, size=4, fill_value=0.0))(a)
    _same(got, np.array([3.0, 1.0, 4.0, 0.0]))


@pytest.mark.parametrize("a, b", [
    (np.array([3.0, 1.0, 3.0]), np.array([0.0, np.nan, 1.0])),   # NaN in one array: kept
    (np.array([np.nan, 2.0, np.nan]), np.array([np.nan, 2.0])),  # in both: kept twice
    (np.array([1.0, 2.0]), np.array([3.0])),
])
@pytest.mark.parametrize("assume_unique", [False, True])
def test_setxor1d_matches_numpy_with_nan_and_assume_unique(a, b, assume_unique):
    want = np.setxor1d(a, b, assume_unique)
    _same(_traced(lambda a: fnp.setxor1d(a, b, assume_unique), a), want)
    size = want.size + 2
    got = fg.jit(lambda a: fnp.setxor1d(a, b, assume_unique, size=size, fill_value=-7.0))(a)
    _same(got, np.concatenate([want, [-7.0, -7.0]]))


def test_setxor1d_assume_unique_counts_repeats():
    a, b = np.array([3, 1, 1]), np.array([1, 5])
    want = np.setxor1d(a, b, assume_unique=True)  # [3, 5]
    _same(fg.jit(lambda a: fnp.setxor1d(a, b, assume_unique=True, size=2))(a), want)


def test_setxor1d_values_are_differentiable():
    a, b = np.array([3.0, 1.0, 2.0]), np.array([2.0, 5.0])
    # the kept values are gathered from the inputs: d/da sum(setxor1d(a, b)) is 1 where
    # a's values are kept (3 and 1), 0 at the shared 2
    g = fg.grad(lambda a: fnp.sum(fnp.setxor1d(a, b)))(a)
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0])


@pytest.mark.parametrize("fname", ["unique", "setdiff1d", "setxor1d", "intersect1d"])
def test_sized_padding_keeps_a_bool_arrays_dtype(fname):
    # a Python-int fill_value stayed weakly typed and where(bool, ..., 0) gave int64;
    # the padded result is bool, as NumPy's unpadded one (and JAX's padded one)
    a, b = np.array([True, False, True]), np.array([True])
    args = (a,) if fname == "unique" else (a, b)
    want = getattr(np, fname)(*args)
    got = fg.jit(lambda *xs: getattr(fnp, fname)(*xs, size=want.size + 1, fill_value=0))(*args)
    _same(got, np.concatenate([want, [False]]))



# ----------------------------------------------------------------------------- weighted quantile
def test_quantile_with_only_the_weights_traced_raises_instead_of_recursing():
    # a and q concrete, weights traced: NumPy's quantile handed the traced weights back to
    # fnp.quantile through __array_function__, endlessly (RecursionError); traced weights
    # take the traced path
    a = np.array([[0.3, -1.2, 2.5, 1.1], [4.0, -0.5, 0.0, 2.0]])
    w = np.ones((2, 4))
    np.testing.assert_array_equal(
        fg.jit(lambda w: fnp.quantile(a, 0.5, axis=1, method="inverted_cdf", weights=w))(w),
        np.quantile(a, 0.5, axis=1, method="inverted_cdf", weights=w))


def test_weighted_inverted_cdf_quantile_traced_matches_numpy():
    # (was NotImplementedError under jit / grad)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5))
    w = rng.random((4, 5))
    w[0, 0] = 0.0  # a leading zero weight must not be picked for q = 0
    for axis in (None, 0, 1):
        for q in (0.0, 0.3, 1.0, np.array([0.1, 0.9])):
            want = np.quantile(a, q, axis=axis, weights=w, method="inverted_cdf")
            got = fg.jit(lambda a, w: fnp.quantile(a, q, axis=axis, weights=w,
                                                   method="inverted_cdf"))(a, w)
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        fg.jit(lambda a: fnp.percentile(a, 50, axis=1, weights=w, method="inverted_cdf"))(a),
        np.percentile(a, 50, axis=1, weights=w, method="inverted_cdf"))
    # the gradient goes to the picked element: sorted 1, 2, 3, 4 with weights 2, 1, 1, 3
    # reach half of the total 7 at 3
    g = fg.grad(lambda a: fnp.quantile(a, 0.5, weights=np.array([1.0, 2.0, 1.0, 3.0]),
                                       method="inverted_cdf"))(np.array([3.0, 1.0, 2.0, 4.0]))
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="inverted_cdf"):
        fg.jit(lambda a: fnp.quantile(a, 0.5, weights=w, method="linear"))(a)


def test_traced_searchsorted_takes_a_list_of_values():
    # (a list of bools reached result_type, which read it as a structured dtype spec)
    b = np.array([False, True])
    for v in ([True], [False, True], (0.5,)):
        np.testing.assert_array_equal(fg.jit(lambda b: fnp.searchsorted(b, v))(b),
                                      np.searchsorted(b, v))
