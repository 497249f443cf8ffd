"""Bad and unusual inputs to fg.random, fg.lax (conv / reduce_window / dynamic slicing),
fg.nn and fg.optim: each gives the right value or a clear error naming the function and the
argument, eagerly and under jit; never a silent wrong answer or an internal error (the
sweep's root causes, one test each)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

K = fg.random.key(0)
X4 = np.ones((2, 3, 6, 6))
W4 = np.ones((4, 3, 3, 3))


def _both(f):
    """f eagerly and under jit (f takes no arguments)."""
    yield f
    yield fg.jit(f)


# ----------------------------------------------------------------------------- fg.random
@pytest.mark.parametrize("call", [
    lambda: fg.random.permutation(K, np.zeros((2, 3)), axis=2),
    lambda: fg.random.permutation(K, np.zeros((2, 3)), axis=-3),
    lambda: fg.random.choice(K, np.zeros((2, 3)), (2,), axis=2),
    lambda: fg.random.categorical(K, np.zeros((2, 3)), axis=2),
    lambda: fg.random.categorical(K, np.zeros(()))])
def test_random_axis_out_of_range_names_the_function(call):
    # before: a bare IndexError (tuple index out of range) from a shape lookup, or
    # fnp.moveaxis' error naming its own `source` argument
    for f in _both(call):
        with pytest.raises(np.exceptions.AxisError, match=r"fg\.random\.\w+: axis"):
            f()


@pytest.mark.parametrize("x", [2.5, 5.0, None, "3"])
def test_random_count_that_is_not_an_int_names_the_argument(x):
    # before: AttributeError: 'float' object has no attribute 'dtype'
    with pytest.raises(TypeError, match=r"fg\.random\.permutation: x must be an integer"):
        fg.random.permutation(K, x)
    with pytest.raises(TypeError, match=r"fg\.random\.choice: a must be an integer"):
        fg.random.choice(K, x, (2,))


def test_random_zero_dim_mean_or_alpha_is_an_error():
    # before: multivariate_normal raised IndexError; dirichlet of a 0-d alpha returned 1.0
    with pytest.raises(ValueError, match="multivariate_normal: mean must have at least 1"):
        fg.random.multivariate_normal(K, np.zeros(()), np.eye(2))
    with pytest.raises(ValueError, match="dirichlet: alpha must have at least 1"):
        fg.random.dirichlet(K, np.array(1.0))


@pytest.mark.parametrize("call, name", [
    (lambda: fg.random.gamma(K, np.ones(2), (3,)), "gamma: a"),
    (lambda: fg.random.beta(K, np.ones(2), 1.0, (3,)), "beta: a"),
    (lambda: fg.random.dirichlet(K, np.ones((2, 3)), (3,)), "dirichlet: alpha"),
    (lambda: fg.random.multivariate_normal(K, np.zeros((3, 2)), np.eye(2), (4,)),
     "multivariate_normal: mean")])
def test_random_parameter_that_does_not_fit_shape_names_it(call, name):
    # before: a NumPy broadcast error naming neither the function nor the parameter
    with pytest.raises(ValueError, match=name + ".* does not broadcast to shape"):
        call()


@pytest.mark.parametrize("n, error", [(-1, ValueError), (2.5, TypeError), (None, TypeError)])
def test_random_orthogonal_checks_n(n, error):
    with pytest.raises(error, match=r"orthogonal: n \(the matrix size\)"):
        fg.random.orthogonal(K, n)


@pytest.mark.parametrize("p, replace", [
    (np.zeros(5), True), (np.array([np.nan, 1, 1, 1, 1.0]), True),
    (np.array([-1, 1, 1, 0, 0.0]), True), (np.array([1, 0, 0, 0, 0.0]), False)])
def test_random_choice_with_an_impossible_p_is_an_error(p, replace):
    # before: all-zero / NaN p always picked the last entry; without replacement, entries of
    # probability 0 were drawn (jax.random is silent too)
    with pytest.raises(ValueError, match="fg.random.choice: .*p"):
        fg.random.choice(K, 5, (3,), replace=replace, p=p)
    assert fg.random.choice(K, 5, (3,), replace=replace, p=np.full(5, 0.2)).shape == (3,)


# ----------------------------------------------------------------------------- fg.lax
@pytest.mark.parametrize("kw, error", [
    (dict(window_strides=(0, 1), padding="VALID"), ValueError),        # ZeroDivisionError
    (dict(window_strides=(-1, 1), padding="VALID"), ValueError),       # empty output
    (dict(window_strides=(1.5, 1), padding="VALID"), TypeError),       # int(1.5) == 1
    (dict(window_strides=(1, 1), padding=[(1, 1)]), ValueError),       # IndexError
    (dict(window_strides=(1, 1), padding=[(1, 1)] * 3), ValueError),   # extra pair ignored
    (dict(window_strides=(1, 1), padding=[(1.5, 1), (1, 1)]), TypeError),
    (dict(window_strides=(1, 1), padding="SAME", lhs_dilation=(1,)), ValueError),
    (dict(window_strides=(1, 1), padding="SAME", lhs_dilation=(0, 1)), ValueError),
    (dict(window_strides=(1, 1), padding="VALID", rhs_dilation=(1.5, 1)), TypeError),
    (dict(window_strides=(1, 1), padding="VALID", feature_group_count=1.5), TypeError),
    (dict(window_strides=(1, 1), padding="VALID",
          dimension_numbers=((0, 1, 2, 4), (0, 1, 2, 3), (0, 1, 2, 3))), ValueError),
    (dict(window_strides=(1, 1), padding="VALID", dimension_numbers=("NCHW", "OIHW")),
     ValueError)])
def test_conv_general_dilated_checks_its_arguments(kw, error):
    for f in _both(lambda: fg.lax.conv_general_dilated(X4, W4, **kw)):
        with pytest.raises(error, match="conv_general_dilated: "):
            f()


def test_conv_with_an_empty_kernel_window_is_an_error():
    # before: a (2, 4, 7, 4) array of zeros (JAX refuses)
    with pytest.raises(ValueError, match="kernel's spatial dims"):
        fg.lax.conv_general_dilated(X4, np.ones((4, 3, 0, 3)), (1, 1), "VALID")


@pytest.mark.parametrize("kw, error", [
    (dict(strides=(0, 2), padding="SAME"), ValueError),
    (dict(strides=(1.5, 2), padding="SAME"), TypeError),
    (dict(strides=(2, 2), padding=[(1, 1)]), ValueError),
    (dict(strides=(2, 2), padding="SAME", rhs_dilation=(0, 1)), ValueError)])
def test_conv_transpose_checks_its_arguments(kw, error):
    x, w = np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 4))
    with pytest.raises(error, match="conv_transpose: "):
        fg.lax.conv_transpose(x, w, **kw)


@pytest.mark.parametrize("kw, error", [
    (dict(window_dimensions=(1, 0, 2)), ValueError),
    (dict(window_dimensions=(1, 1.5, 2)), TypeError),
    (dict(window_dimensions=(1, 2, 2), window_strides=(1, 0, 1)), ValueError),
    (dict(window_dimensions=(1, 2, 2), window_strides=(1, -1, 1)), ValueError),
    (dict(window_dimensions=(1, 2, 2), padding=[(1, 1), (1, 1)]), ValueError),
    (dict(window_dimensions=(1, 2, 2), padding=[(0, 0), (1.5, 1), (1, 1)]), TypeError),
    (dict(window_dimensions=(1, 2, 2), base_dilation=(1, 0, 1)), ValueError),
    (dict(window_dimensions=(1, 2, 2), window_dilation=(1, -1, 1)), ValueError)])
def test_reduce_window_checks_its_arguments(kw, error):
    # before: ZeroDivisionError, or silently a value (a float truncated, a short padding
    # applied to the wrong dims, a zero window, a negative stride)
    x = np.arange(72.0).reshape(2, 6, 6)
    for f in _both(lambda: fg.lax.reduce_window(x, 0.0, "add", **kw)):
        with pytest.raises(error, match="reduce_window: "):
            f()
    with pytest.raises(TypeError, match="reduce_window: init_value must be a scalar"):
        fg.lax.reduce_window(x, np.array([0.0]), "add", (1, 2, 2))


def test_dynamic_slice_in_dim_with_a_float_axis_names_it():
    # before: TypeError: list indices must be integers or slices, not float
    with pytest.raises(TypeError, match="dynamic_slice_in_dim: axis must be an integer"):
        fg.lax.dynamic_slice_in_dim(np.ones((4, 5)), 1, 2, axis=1.0)


# ----------------------------------------------------------------------------- fg.nn
@pytest.mark.parametrize("fn, want", [(fg.nn.relu, [0.0, np.inf, np.nan]),
                                      (fg.nn.relu6, [0.0, 6.0, np.nan]),
                                      (fg.nn.hard_sigmoid, [0.0, 1.0, np.nan])])
def test_relu_family_propagates_nan(fn, want):
    # before: relu(nan) == 0 (a NaN loss silently hidden); JAX gives nan
    x = np.array([-np.inf, np.inf, np.nan])
    for got in (fn(x), fg.jit(fn)(x), fg.vmap(fn)(x)):
        np.testing.assert_array_equal(got, want)
    g = fg.grad(lambda v: fnp.sum(fg.nn.relu(v)))(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])  # (slope 0 at 0 kept)


@pytest.mark.parametrize("n, error", [(2.5, TypeError), (-1, ValueError), ("3", TypeError)])
def test_one_hot_num_classes_must_be_an_int(n, error):
    # before: int(num_classes): 2.5 -> 2 classes, '3' -> 3, -1 -> an empty axis
    with pytest.raises(error, match="one_hot: num_classes"):
        fg.nn.one_hot(np.array([0, 1]), n)


def test_integer_label_cross_entropy_checks_labels():
    logits = np.random.default_rng(0).normal(size=(4, 3))
    loss = fg.nn.softmax_cross_entropy_with_integer_labels
    with pytest.raises(ValueError, match="labels of shape \\(3,\\) must have the shape"):
        loss(logits, np.array([0, 1, 2]))  # before: an IndexError from take_along_axis
    with pytest.raises(ValueError, match=r"labels must be class indices in \[0, 3\)"):
        loss(logits, np.array([0, -1, 2, 1]))  # before: -1 silently meant class 2
    with pytest.raises(np.exceptions.AxisError, match="axis 2 .*out of bounds"):
        loss(logits, np.array([0, 1, 2, 1]), axis=2)
    assert loss(logits, np.array([0, 1, 2, 1])).shape == (4,)


@pytest.mark.parametrize("fn", [fg.nn.squared_error, fg.nn.l2_loss, fg.nn.mse])
def test_squared_error_family_needs_equal_shapes(fn):
    # before: (4, 1) predictions and (4,) targets broadcast to a (4, 4) loss (optax raises)
    with pytest.raises(ValueError, match=fn.__name__ + r": predictions \(4, 1\) and targets"):
        fn(np.ones((4, 1)), np.ones(4))
    assert fn(np.ones((4, 3)), np.zeros((4, 3))).shape in ((4, 3), (4,))


def test_glu_axis_out_of_range_names_it():
    with pytest.raises(np.exceptions.AxisError, match="glu: axis 2"):
        fg.nn.glu(np.ones((2, 4)), axis=2)


def test_initializer_axes_out_of_range_and_empty_weights():
    init = fg.nn.initializers
    # before: in_axis 5 of a 3-d weight silently meant axis 2
    with pytest.raises(ValueError, match="out_axis .* out of bounds"):
        init.glorot_uniform(in_axis=0, out_axis=5)(K, (3, 4, 5))
    with pytest.raises(ValueError, match="orthogonal: column_axis"):
        init.orthogonal(column_axis=3)(K, (3, 4))
    # before: ZeroDivisionError for a weight with a 0-length axis
    for shape in ((0, 3), (3, 0)):
        assert init.he_normal()(K, shape).shape == shape
        assert init.orthogonal()(K, shape).shape == shape


@pytest.mark.parametrize("layer, match", [
    (lambda: fg.nn.BatchNorm(axis=4), "BatchNorm: axis 4"),
    (lambda: fg.nn.BatchNorm(axis=1.5), "BatchNorm: axis 1.5"),
    (lambda: fg.nn.LayerNorm(axis=-5), "LayerNorm: axis -5")])
def test_norm_layer_axis_out_of_range_is_an_error(layer, match):
    # before: axis 4 of a 4-d input silently normalized axis 0
    init_fn, apply_fn = layer()
    with pytest.raises(ValueError, match=match):
        params = init_fn(K, (2, 6, 6, 3))[1]
        apply_fn(params, np.ones((2, 6, 6, 3)))


@pytest.mark.parametrize("make, match", [
    (lambda: fg.nn.MaxPool((2.5, 2)), "MaxPool: window_shape"),
    (lambda: fg.nn.AvgPool((2, 2), strides=(1.5, 1)), "AvgPool: strides"),
    (lambda: fg.nn.SumPool((2, 2), strides=(2,)), "SumPool: strides"),
    (lambda: fg.nn.MaxPool((0, 2)), "MaxPool: every entry of window_shape"),
    (lambda: fg.nn.Conv(4.5, (3, 3)), "Conv: out_chan must be an integer"),
    (lambda: fg.nn.Conv(4, (3.0, 3)), "Conv: filter_shape"),
    (lambda: fg.nn.Dense(2.5), "Dense: out_dim"),
    (lambda: fg.nn.GroupNorm(0), "GroupNorm: num_groups"),
    (lambda: fg.nn.FanOut(0), "FanOut: num"),
    (lambda: fg.nn.Embedding(10, 2.5), "Embedding: features"),
    (lambda: fg.nn.Dropout("0.5"), "Dropout: rate")])
def test_layer_sizes_must_be_integers(make, match):
    # before: int() truncated 2.5-wide pooling windows and strides; others failed later
    # with StopIteration / ZeroDivisionError / an error naming fg.random
    with pytest.raises((TypeError, ValueError), match=match):
        make()


def test_dense_on_a_zero_dim_input_shape_names_it():
    with pytest.raises(ValueError, match="Dense: the input shape \\(\\) has no feature axis"):
        fg.nn.Dense(3)[0](K, ())


# ----------------------------------------------------------------------------- fg.optim
def test_scale_by_adadelta_has_optax_sign():
    # before: the opposite sign of optax.scale_by_adadelta (adadelta compensated)
    g, p = np.full(2, 0.1), np.ones(2)
    t = fg.optim.scale_by_adadelta()
    u = t.update(g, t.init(p), p)[0]
    np.testing.assert_allclose(u, np.full(2, 0.0031607), rtol=1e-4)
    for opt in (fg.optim.adadelta(0.5), fg.optim.adadelta()):  # both still descend
        assert (opt.update(g, opt.init(p), p)[0] < 0).all()
    lr = fg.optim.chain(fg.optim.scale_by_adadelta(), fg.optim.scale_by_learning_rate(0.5))
    np.testing.assert_allclose(lr.update(g, lr.init(p), p)[0], -0.5 * u)


@pytest.mark.parametrize("make, match", [
    (lambda: fg.optim.exponential_decay(1.0, 10, 0.0), "decay_rate must not be zero"),
    (lambda: fg.optim.exponential_decay(1.0, 10, 0.5, -5), "transition_begin=-5"),
    (lambda: fg.optim.linear_schedule(1.0, 0.0, 10, -5), "transition_begin=-5"),
    (lambda: fg.optim.cosine_onecycle_schedule(10, 1.0, 0.3, 0.0), "div_factor=0.0")])
def test_schedule_arguments_optax_would_silently_change(make, match):
    # before: values that differed from optax's (which clamps / returns a constant) or a
    # ZeroDivisionError
    with pytest.raises(ValueError, match=match):
        make()


def test_piecewise_interpolate_before_step_zero_is_init_value():
    # before: extrapolated past init_value (1.3 at step -3)
    s = fg.optim.piecewise_interpolate_schedule("linear", 1.0, {5: 0.5, 10: 0.1})
    assert float(s(-3)) == 1.0 and float(fg.jit(s)(np.int32(-3))) == 1.0
    assert float(s(3)) == pytest.approx(0.7)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_multisteps_every_k_must_be_a_positive_int(k):
    # before: k <= 0 applied the inner optimizer at every step, 2.5 was accepted
    with pytest.raises(ValueError, match="MultiSteps: every_k_schedule"):
        fg.optim.MultiSteps(fg.optim.sgd(0.1), k)
