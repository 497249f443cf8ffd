"""Derivatives of reductions, sorts, statistics and the entropy / logsumexp family at special
points (ties, NaN, inf, zero weights), against JAX's values (written out here: the tests never
import JAX), and eager == jit == vmap there."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

INF, NAN = np.inf, np.nan


def _all_ways(g, x):
    """g(x) eagerly, under jit and under vmap (of a batch of one): all three must agree."""
    x = np.asarray(x)
    eager = np.asarray(g(x))
    np.testing.assert_array_equal(np.asarray(fg.jit(g)(x)), eager)
    np.testing.assert_array_equal(np.asarray(fg.vmap(g)(x[None]))[0], eager)
    return eager


@pytest.mark.parametrize("name", ["min", "max"])
def test_extremum_where_initial_tie_is_not_shared_with_masked_elements(name):
    # masked-out elements stood in as `initial`: a tie of initial with the extremum then
    # shared the tangent with them (0.25 instead of JAX's 0.5 = min(initial, reduce)'s split)
    sign = 1.0 if name == "min" else -1.0
    x = sign * np.array([0.33, 0.0, 0.5])
    w = np.array([True, True, False])
    f = lambda v: getattr(fnp, name)(v, where=w, initial=0.0)
    np.testing.assert_array_equal(_all_ways(fg.grad(f), x), [0.0, 0.5, 0.0])
    assert fg.jvp(f, (x,), (np.ones(3),))[1] == 0.5
    assert f(x) == getattr(np, name)(x, where=w, initial=0.0)
    # integer inputs and the no-tie case keep NumPy's values
    xi = np.array([3, -2, 7])
    assert fg.jit(lambda v: getattr(fnp, name)(v, where=w, initial=1))(xi) == \
        getattr(np, name)(xi, where=w, initial=1)
    np.testing.assert_array_equal(fg.grad(f)(sign * np.array([-1.0, 2.0, 5.0])), [1.0, 0, 0])


def test_sort_and_quantile_ties_follow_a_stable_sort():
    # JAX's sort is stable: of tied values, the one that came first gets the first slot's
    # cotangent. NumPy's default quicksort ordered ties arbitrarily (sort()[5] went to x[9])
    x = np.array([1.0, 3, 3, 0, 3, 2, 2, 2, 2, 2, -1, 5])
    onehot = lambda i: np.eye(12)[i]
    np.testing.assert_array_equal(_all_ways(fg.grad(lambda v: fnp.sort(v)[5]), x), onehot(7))
    np.testing.assert_array_equal(fg.grad(fnp.median)(x), 0.5 * (onehot(7) + onehot(8)))
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.quantile(v, 0.4, method="lower"))(x), onehot(6))
    np.testing.assert_allclose(fg.grad(lambda v: fnp.quantile(v, 0.45))(x),
                               0.05 * onehot(6) + 0.95 * onehot(7), rtol=1e-12)
    np.testing.assert_array_equal(fg.grad(fnp.nanmedian)(x), 0.5 * (onehot(7) + onehot(8)))
    # along an axis, under vmap, and the values stay NumPy's
    m = x.reshape(3, 4)
    g = fg.vmap(fg.grad(lambda r: fnp.sort(r)[1]))(m)
    np.testing.assert_array_equal(g, [[1, 0, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(fg.jit(lambda v: fnp.sort(v, axis=0))(m), np.sort(m, axis=0))
    with pytest.raises(ValueError, match="kind"):
        fg.jit(lambda v: fnp.sort(v, kind="bogus"))(x)


@pytest.mark.parametrize("fn", [lambda v: fnp.quantile(v, 0.3, axis=1),
                                lambda v: fnp.quantile(v, 0.5, axis=1, method="higher"),
                                lambda v: fnp.percentile(v, [10, 90], axis=1),
                                lambda v: fnp.median(v, axis=1)])
def test_quantile_of_a_row_with_nan_has_zero_slope(fn):
    # the NaN result took the tangent of the NaN that sorted last (JAX: a constant NaN)
    x = np.array([[0.2, NAN, -0.4, 1.8], [1.0, 2.0, 3.0, 4.0]])
    y = fn(x)
    assert np.isnan(y[..., 0]).all() and np.isfinite(y[..., 1]).all()
    g = _all_ways(fg.grad(lambda v: fnp.sum(fn(v))), x)
    np.testing.assert_array_equal(g[0], np.zeros(4))
    assert g[1].sum() == pytest.approx(np.size(y[..., 1]))
    t = fg.jvp(fn, (x,), (np.ones_like(x),))[1]
    np.testing.assert_array_equal(t[..., 0], 0.0)


def test_entr_slope_at_infinity():
    special = pytest.importorskip("fungrad.scipy.special")
    pytest.importorskip("scipy")
    # -log(x) - 1 is -inf at +inf (JAX's); the product rule gave inf * (1 / inf) = nan
    assert _all_ways(fg.grad(special.entr), INF) == -INF
    assert fg.jvp(special.entr, (INF,), (1.0,))[1] == -INF
    assert fg.grad(fg.grad(special.entr))(INF) == 0.0
    assert fg.grad(special.entr)(np.float32(INF)) == -INF
    np.testing.assert_allclose(fg.grad(special.entr)(2.0), -np.log(2.0) - 1, rtol=1e-15)
    np.testing.assert_allclose(fg.grad(fg.grad(special.entr))(2.0), -0.5, rtol=1e-15)
    assert fg.grad(special.entr)(0.0) == 0.0  # (the documented choice; JAX: +inf)


def test_rel_entr_and_kl_div_slopes_at_zero_and_infinity():
    special = pytest.importorskip("fungrad.scipy.special")
    sp = pytest.importorskip("scipy.special")
    grad = lambda f: fg.grad(f, argnums=(0, 1))
    # (x, y): (rel_entr's slopes, kl_div's), JAX's values. Were nan at x == inf (inf * 0 in
    # x * log x), nan in x at y == inf (0 * log(inf)), nan in y at a nan x (0 * nan), and
    # kl_div's slope in x at x == 0 was 0 (JAX: rel_entr's 0, minus 1)
    cases = {(0.0, 1.0): ((0, 0), (-1, 1)), (0.0, 0.0): ((0, 0), (-1, 1)),
             (0.0, INF): ((0, 0), (-1, 1)), (INF, 1.0): ((INF, -INF), (INF, -INF)),
             (INF, 2.0): ((INF, -INF), (INF, -INF)), (INF, 0.0): ((0, 0), (0, 0)),
             (NAN, 1.0): ((0, 0), (0, 0)), (1.0, INF): ((-INF, 0), (-INF, 1)),
             (2.0, 1.0): ((1 + np.log(2), -2), (np.log(2), -1))}
    for (x, y), (want_rel, want_kl) in cases.items():
        for f, want in ((special.rel_entr, want_rel), (special.kl_div, want_kl)):
            got = np.array(grad(f)(x, y), dtype=float)
            np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=str((f.__name__, x, y)))
            np.testing.assert_array_equal(np.array(fg.jit(grad(f))(x, y), dtype=float), got)
    # values stay SciPy's (JAX's rel_entr(inf, 1) is nan)
    xs = np.array([0.0, 0.0, INF, INF, INF, NAN, 1.0, 2.0, -1.0])
    ys = np.array([1.0, INF, 1.0, 0.0, INF, 1.0, INF, 1.0, 2.0])
    np.testing.assert_array_equal(special.rel_entr(xs, ys), sp.rel_entr(xs, ys))
    np.testing.assert_array_equal(fg.jit(special.kl_div)(xs, ys), sp.kl_div(xs, ys))
    # second derivatives inside: 1 / x, -1 / y, x / y**2 (forward over reverse)
    h = np.array(fg.hessian(special.rel_entr, argnums=(0, 1))(2.0, 4.0), dtype=float)
    np.testing.assert_allclose(h, [[0.5, -0.25], [-0.25, 0.125]], rtol=1e-14)
    v = fg.vmap(fg.grad(special.kl_div))(np.array([0.0, 1.0, INF]), np.array([1.0, 2.0, 1.0]))
    np.testing.assert_allclose(v, [-1.0, -np.log(2.0), INF])


@pytest.mark.parametrize("fn", ["relu", "relu6", "hard_sigmoid"])
def test_piecewise_linear_activations_slope_at_nan_is_zero(fn):
    # JAX: select(x > 0, g, 0) (relu6: 0 < x < 6): 0 at NaN; the NaN-passing masks gave 1
    f = getattr(fg.nn, fn)
    assert _all_ways(fg.grad(f), NAN) == 0.0
    assert fg.jvp(f, (NAN,), (1.0,))[1] == 0.0
    assert np.isnan(f(NAN)) and np.isnan(fg.jit(f)(NAN))
    xs = np.array([-1.0, 0.0, 1.0, 6.0, 7.0, NAN, -INF, INF])
    want = {"relu": [0, 0, 1, 1, 1, 0, 0, 1], "relu6": [0, 0, 1, 0, 0, 0, 0, 0],
            "hard_sigmoid": [1 / 6, 1 / 6, 1 / 6, 0, 0, 0, 0, 0]}[fn]
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(xs), want, rtol=1e-15)
    np.testing.assert_array_equal(fg.jit(f)(xs), f(xs))
    assert fg.grad(fg.nn.hard_silu)(NAN) != fg.grad(fg.nn.hard_silu)(NAN)  # (x * 0 at NaN)


@pytest.mark.parametrize("which", ["scipy", "nn"])
def test_logsumexp_leaves_out_zero_weights(which):
    if which == "scipy":
        special = pytest.importorskip("fungrad.scipy.special")
        pytest.importorskip("scipy")
        lse = special.logsumexp
    else:
        lse = fg.nn.logsumexp
    # SciPy (and JAX): an element of weight 0 does not enter the sum, whatever a is there;
    # an inf or nan there made the value (and every slope) nan
    b = np.array([0.0, 1.0, 1.0, 0.0])
    for a, want in [([INF, 1.0, 0.0, 2.0], 1.3132616875182228),
                    ([NAN, 1.0, 2.0, 3.0], 2.313261687518223),
                    ([1e300, 1.0, 0.0, 2.0], 1.3132616875182228)]:
        a = np.array(a)
        assert lse(a, b=b) == pytest.approx(want, rel=1e-15)
        assert fg.jit(lambda u: lse(u, b=b))(a) == pytest.approx(want, rel=1e-15)
        ga = fg.grad(lambda u: lse(u, b=b))(a)
        np.testing.assert_allclose(ga, [0.0, 0.7310585786300049, 0.2689414213699951, 0.0]
                                   if want < 2 else [0, 0.2689414213699951, 0.7310585786300049, 0],
                                   rtol=1e-14)
        gb = fg.grad(lambda w: lse(a, b=w))(b)
        assert gb[0] == 0.0  # exp(a) overflows there: JAX's 0
        value, sign = lse(a, b=b, return_sign=True)
        assert sign == 1.0 and value == pytest.approx(want, rel=1e-15)
    # a finite a of weight 0 keeps its true slope in b, exp(a) / sum (JAX: 0)
    a = np.array([1.0, 2.0, 3.0, 4.0])
    gb = fg.grad(lambda w: lse(a, b=w))(b)
    np.testing.assert_allclose(gb, np.exp(a) / (np.exp(2.0) + np.exp(3.0)), rtol=1e-14)


def test_adam_update_with_another_optimizers_state_names_the_fix():
    params = {"w": np.ones(3)}
    for make in (lambda: fg.optim.adam(0.1), lambda: fg.optim.nadam(0.1)):
        opt = make()
        with pytest.raises(TypeError, match=r"TraceState.*init\(params\)"):
            opt.update(params, fg.optim.sgd(0.1, momentum=0.9).init(params), params)
        with pytest.raises(TypeError, match="ScaleByAdamState"):
            opt.update(params, opt.init(params)[0], params)  # the inner state alone
        state = opt.init(params)
        out, state = opt.update(params, state, params)
        assert (out["w"] < 0).all()
        out, _ = fg.jit(opt.update)(params, state, params)
        assert np.isfinite(out["w"]).all()


def test_traced_max_min_cast_a_concrete_initial_to_the_dtype_first():
    # NumPy's reduce casts initial to the array's dtype: -5 on bools is True (a weak -5 made
    # min(False, -5) = -5, True once cast back)
    b = np.array([[True, False], [True, True]])
    for f in (lambda b: fnp.min(b, axis=1, initial=-5), lambda b: fnp.max(b, axis=1, initial=0)):
        np.testing.assert_array_equal(fg.jit(f)(b), f(b))
    x = np.array([1, 2])
    assert fg.jit(lambda x: fnp.min(x, initial=0.5))(x) == np.min(x, initial=0.5) == 0


def test_max_min_derivative_at_a_nan_slice_is_nan_as_jax():
    # (JAX: every position NaN; the select-based rule had given 0 there)
    x = np.array([[1.0, 3.0, 3.0], [np.nan, 0.0, 1.0]])
    for red in (fnp.max, fnp.min, fnp.ptp):
        with np.errstate(invalid="ignore", divide="ignore"):
            g = fg.grad(lambda x: fnp.sum(red(x, axis=1)))(x)
            gj = fg.jit(fg.grad(lambda x: fnp.sum(red(x, axis=1))))(x)
        assert np.isnan(g[1]).all() and np.isfinite(g[0]).all()
        np.testing.assert_array_equal(g, gj)
