"""Bad and unusual inputs: each gives NumPy's value or a clear error, eagerly and under
jit / vmap / vjp, never a silent wrong answer or an internal error (the sweep's root causes,
one test each)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

A = np.arange(6.0).reshape(2, 3)
V = np.array([0.3, 0.5, 0.7])
NOT_NUMBERS = [None, {"a": 1}, "abc", np.array([1.0, None, 2.0], dtype=object),
               np.array(["2020-01-01"] * 3, dtype="datetime64[D]"), np.array(["a", "b", "c"]),
               np.array([(1, 2.0)] * 3, dtype=[("a", int), ("b", float)])]


def _traced(f, *args):
    """f's results under jit, vmap (of a batch of one) and vjp."""
    yield fg.jit(f)(*args)
    yield fg.tree.tree_map(lambda r: r[0], fg.vmap(f)(*[a[None] for a in args]))
    yield fg.vjp(f, *args)[0]


@pytest.mark.parametrize("bad", NOT_NUMBERS, ids=lambda b: type(b).__name__ + str(
    getattr(b, "dtype", "")))
def test_elementwise_with_a_non_number_names_the_operand(bad):
    # before: str operands gave str arrays under jit (x + "abc" -> ['0.abc', ...]), None /
    # dicts / object arrays an AttributeError deep inside fnp
    for f in (lambda x: fnp.add(x, bad), lambda x: bad < x, lambda x: fnp.maximum(bad, x)):
        with pytest.raises(TypeError, match=r"(add|less|greater|maximum): [xy] is "):
            fg.jit(f)(V)


def test_promotion_with_an_object_array_under_transforms_names_the_function():
    # before: fnp.convolve of an object constant with a traced array gave zeros under jit
    ob = np.array([1.0, 2.0, 3.0], dtype=object)
    for f, name in ((lambda v: fnp.convolve(ob, v), "convolve"), (lambda v: fnp.dot(ob, v), "dot"),
                    (lambda v: fnp.concatenate([v, ob]), "concatenate")):
        with pytest.raises(TypeError, match=name + r": operand \d is an array of dtype object"):
            fg.jit(f)(V)
    # concrete object arrays stay NumPy's own
    np.testing.assert_array_equal(fnp.convolve(ob, V), np.convolve(ob, V))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "nansum", "nanmax"])
def test_initial_none_is_no_initial_value(name):
    # before: initial=None became a NaN under jit / vmap / vjp
    expect = getattr(np, name)(V, initial=None)
    for got in _traced(lambda v: getattr(fnp, name)(v, initial=None), V):
        np.testing.assert_allclose(got, expect)


@pytest.mark.parametrize("call", [
    lambda a: fnp.round(a, 1.5), lambda a: fnp.tile(a, 2.5), lambda a: fnp.diag(a[0], k=2.5),
    lambda a: fnp.roll(a, 1, axis=1.5), lambda a: fnp.resize(a, 2.5),
    lambda a: fnp.reshape(a, np.array([3.0, 2.0], dtype=object)),
    lambda a: fnp.transpose(a, (1.0, 0)), lambda a: fnp.partition(a, 1.5),
    lambda a: fnp.split(a, np.array([True, False]), 1)])
def test_a_float_or_bool_where_an_int_is_needed_raises_as_numpy(call):
    # before: int() truncated it under jit (round to 1.5 decimals scaled by 10 ** 1.5)
    with pytest.raises(TypeError):  # (NumPy's own message)
        call(A)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        fg.jit(call)(A)


@pytest.mark.parametrize("axis", [3, -4, (0, 3)])
def test_gradient_and_average_check_the_axis_before_wrapping(axis):
    # before: axis 3 of a 2-d array was axis 1 under jit
    for f in (lambda a: fnp.gradient(a, axis=axis), lambda a: fnp.average(a, axis=axis)):
        with pytest.raises(ValueError, match="out of bounds"):
            fg.jit(f)(A)


def test_gradient_keeps_the_order_of_its_axes():
    for got, expect in zip(fg.jit(lambda a: fnp.gradient(a ** 2, axis=(1, 0)))(A),
                           np.gradient(A ** 2, axis=(1, 0))):
        np.testing.assert_allclose(got, expect)


@pytest.mark.parametrize("call", [
    lambda x: fnp.histogram(x, weights=np.ones(2)),
    lambda x: fnp.histogram_bin_edges(x, weights=np.ones(2)),
    lambda x: fnp.histogramdd(x, weights=np.ones(2)),
    lambda x: fnp.histogram2d(x, x, weights=np.ones(2))])
def test_histogram_weights_of_the_wrong_shape(call):
    # before: histogramdd / histogram2d / histogram_bin_edges ignored the mismatch under jit
    with pytest.raises(ValueError, match=r"weights of shape \(2,\)"):
        fg.jit(call)(V)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda a: fnp.take(a, None), TypeError, "take: indices must be an integer array"),
    (lambda a: fnp.unwrap(a[0, 0]), ValueError, "unwrap: p must be at least one dimensional"),
    (lambda a: fnp.unwrap(a, axis=5), ValueError, "unwrap: axis 5 is out of bounds"),
    (lambda a: fnp.searchsorted(V, a, sorter=np.array([0, 1])), ValueError,
     r"searchsorted: sorter of shape \(2,\)"),
    (lambda a: fnp.searchsorted(a[0], None), TypeError, "searchsorted: v is a NoneType"),
    (lambda a: fnp.partition(a, 1, kind="bogus"), ValueError, "select kind"),
    (lambda a: fnp.argpartition(a, 1, kind="bogus"), ValueError, "select kind"),
    (lambda a: fnp.isin(a, V, kind="bogus"), ValueError, "isin: invalid kind"),
    (lambda a: fnp.expand_dims(a, np.ones((0, 3))), TypeError, "expand_dims: axis must be"),
    (lambda a: fnp.expand_dims(a, {1, 2}), TypeError, "expand_dims: axis must be"),
])
def test_traced_calls_check_their_arguments(call, error, pattern):
    # before: a value (take of None, a wrong sorter, an ignored kind, a set of axes), or an
    # internal error (unwrap of a 0-d array: ZeroDivisionError; isin: UnboundLocalError)
    with pytest.raises(error, match=pattern):
        fg.jit(call)(A)


def test_traced_calls_still_accept_good_arguments():
    np.testing.assert_array_equal(fg.jit(lambda a: fnp.expand_dims(a, [0, 3]))(A).shape,
                                  (1, 2, 3, 1))
    np.testing.assert_array_equal(fg.jit(lambda v: fnp.searchsorted(V, v, sorter=np.arange(3)))(V),
                                  np.searchsorted(V, V))
    np.testing.assert_array_equal(fg.jit(lambda a: fnp.isin(a, V, kind="sort"))(A),
                                  np.isin(A, V))
    np.testing.assert_array_equal(fg.jit(lambda v: fnp.full_like([1.0, 2.0], v))(3.0),
                                  [3.0, 3.0])  # before: AttributeError (a list has no shape)


def test_stack_of_a_set_raises_as_numpy():
    # before: fnp.stack({1, 2}) gave array([1, 2]) (NumPy refuses an unordered container)
    with pytest.raises(TypeError, match="stack: arrays must be passed as a sequence"):
        fnp.stack({1, 2})


def test_scipy_special_rejects_values_that_are_not_numbers():
    # before: erf(None) was nan, erf of a datetime64 array erf of its day count
    special = pytest.importorskip("fungrad.scipy.special")
    pytest.importorskip("scipy")
    for bad in (None, np.array([1.0, None], dtype=object),
                np.array(["2020-01-01"], dtype="datetime64[D]")):
        with pytest.raises(TypeError, match=r"special\.erf: arguments promote to dtype"):
            special.erf(bad)
    np.testing.assert_allclose(special.erf(np.array([1, 2])), [0.84270079, 0.99532227])


def test_linalg_norm_axis_checked_before_wrapping():
    # axis 3 of a matrix was read as axis 1 under jit; a list was taken as a tuple
    A = np.arange(1.0, 7.0).reshape(2, 3)
    norm = lambda ax: fg.jit(lambda a: fnp.linalg.norm(a, axis=ax))(A)
    for ax in (3, (0, 5), -3):
        with pytest.raises(ValueError, match="linalg.norm: axis .* out of bounds"):
            norm(ax)
    with pytest.raises(TypeError, match="linalg.norm: axis must be None, an integer or a tuple"):
        norm([0, 1])
    np.testing.assert_allclose(norm(1.5), np.linalg.norm(A, axis=1.5))  # (NumPy's int())
    np.testing.assert_allclose(norm((1, 0)), np.linalg.norm(A, axis=(1, 0)))
    with pytest.raises(ValueError, match="matrix_norm: x must have at least 2 dims"):
        fg.jit(fnp.linalg.matrix_norm)(np.float64(2.0))
    with pytest.raises(TypeError, match="multi_dot: arrays must be a sequence"):
        fnp.linalg.multi_dot({1, 2})


@pytest.mark.parametrize("kw", [{"axis": 1.5}, {"axis": "0"}, {"n": 2.5}, {"n": "3"}])
def test_fft_lengths_and_axes_must_be_integers(kw):
    # n=2.5 was truncated to 2, n='3' and axis='0' were read by int() under jit
    with pytest.raises(TypeError, match="fft.fft: .* integers are needed"):
        fg.jit(lambda a: fnp.fft.fft(a, **kw))(np.arange(4.0))


@pytest.mark.parametrize("out", [lambda x: fnp.result_type(x), lambda x: "abc",
                                 lambda x: object()])
def test_vmap_output_that_is_not_an_array_names_its_type(out):
    with pytest.raises(TypeError, match="vmap.*an output of type .* is not an array"):
        fg.vmap(out)(np.ones(2))
    assert fg.vmap(lambda x: 3)(np.ones(2)).tolist() == [3, 3]  # numbers broadcast


def test_masked_arrays_keep_their_mask_eagerly_and_are_refused_under_transforms():
    # fnp functions that compose eagerly (roll, tile, kron, ...) turned a masked array into
    # a plain one, and fnp.sum passed where= to MaskedArray.sum; under a transform the mask
    # was dropped silently
    m = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    for got, want in [(fnp.roll(m, 1), np.roll(m, 1)), (fnp.tile(m, 2), np.tile(m, 2)),
                      (fnp.kron(m, m), np.kron(m, m)), (fnp.atleast_2d(m), m)]:
        assert isinstance(got, np.ma.MaskedArray)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    assert fnp.sum(m) == 8.0 and fnp.mean(m) == pytest.approx(8.0 / 3)
    v = np.ones((2, 2))
    for f in (fg.jit(lambda x: x + m), fg.grad(lambda x: fnp.sum(x * m)),
              fg.vmap(lambda x: x * m)):
        with pytest.raises(TypeError, match="MaskedArray .* would drop its mask"):
            f(v)
