"""fg.custom_jvp / fg.custom_vjp: custom rules under every transform, and their errors."""
import functools
import importlib.util
import pathlib

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.test_util import check_grads
from checker.cycles import assert_no_reference_cycles

ROOT = pathlib.Path(__file__).resolve().parents[1]
X = np.array([-1.7, -0.4, 0.3, 1.2, 2.6])


# ----------------------------------------------------------------------------- functions
@fg.custom_vjp
def ste_round(x):
    """Straight-through estimator: forward rounds, backward is the identity."""
    return fnp.round(x)


ste_round.defvjp(lambda x: (fnp.round(x), None), lambda res, g: (g,))


@fg.custom_vjp
def clamp(x, lo, hi):
    """Clamp whose gradient passes where x is inside [lo, hi] and is clipped (0) outside;
    lo and hi get no gradient (None)."""
    return fnp.clip(x, lo, hi)


def _clamp_fwd(x, lo, hi):
    return fnp.clip(x, lo, hi), (x >= lo) & (x <= hi)


def _clamp_bwd(inside, g):
    return fnp.where(inside, g, 0.0), None, None


clamp.defvjp(_clamp_fwd, _clamp_bwd)


@fg.custom_jvp
def log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ----------------------------------------------------------------------------- the seeds
def test_straight_through_estimator_rounds_forward_and_passes_gradient():
    x = X.copy()
    np.testing.assert_array_equal(ste_round(x), np.round(x))
    g = fg.grad(lambda x: fnp.sum(ste_round(x) * 3.0))(x)
    np.testing.assert_array_equal(g, np.full_like(x, 3.0))
    # without the custom rule the gradient of round is zero everywhere
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.sum(fnp.round(x)))(x), 0.0)


def test_custom_clamp_passes_gradient_inside_and_clips_outside():
    g = fg.grad(lambda x: fnp.sum(clamp(x, -1.0, 1.0) * 2.0))(X)
    np.testing.assert_array_equal(g, np.where(np.abs(X) <= 1.0, 2.0, 0.0))
    np.testing.assert_array_equal(clamp(X, -1.0, 1.0), np.clip(X, -1.0, 1.0))
    gx, glo, ghi = fg.grad(lambda x, lo, hi: fnp.sum(clamp(x, lo, hi)), argnums=(0, 1, 2))(
        X, -1.0, 1.0)
    assert glo == 0.0 and ghi == 0.0  # bwd's None: a zero cotangent


def test_log1pexp_custom_jvp_is_finite_where_the_naive_gradient_is_nan():
    x = np.float32(100.0)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = fg.grad(lambda x: fnp.log(1.0 + fnp.exp(x)))(x)
        assert np.isnan(naive)
        g = fg.grad(log1pexp)(x)
    assert g == 1.0 and g.dtype == np.float32
    xs = np.array([-3.0, 0.0, 2.5])
    np.testing.assert_allclose(fg.vmap(fg.grad(log1pexp))(xs), _sigmoid(xs), rtol=1e-12)


# ----------------------------------------------------------------------------- transforms
def test_under_jit_forward_and_both_orders_of_jit_and_grad():
    loss = lambda x: fnp.sum(ste_round(x) * x + clamp(x, -1.0, 1.0))  # noqa: E731
    want = np.round(X) + X + (np.abs(X) <= 1.0)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(X), want)
    np.testing.assert_allclose(fg.grad(fg.jit(loss))(X), want)
    np.testing.assert_allclose(fg.jit(loss)(X), loss(X))
    np.testing.assert_allclose(fg.jit(fg.grad(log1pexp))(np.float64(0.3)), _sigmoid(0.3))
    np.testing.assert_allclose(fg.grad(fg.jit(log1pexp))(np.float64(0.3)), _sigmoid(0.3))
    ir = fg.jit(loss).lower(X).ir_before
    assert "custom_vjp_call" in str(ir)  # one equation, not the inlined primal


def test_vmap_per_example_gradients_and_grad_of_vmap():
    f = lambda x: ste_round(x) * x  # noqa: E731
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(X), X + np.round(X))
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(fg.vmap(f)(x)))(X), X + np.round(X))
    # vmap over a batch of bounds (the clamp's other arguments batched too)
    lo = np.array([-1.0, -0.5, 0.0, 1.0, 3.0])
    got = fg.vmap(fg.grad(lambda x, lo: clamp(x, lo, 2.0)), in_axes=(0, 0))(X, lo)
    np.testing.assert_array_equal(got, ((X >= lo) & (X <= 2.0)).astype(float))
    # batched primal function, and batched rule in forward mode
    np.testing.assert_allclose(fg.vmap(log1pexp)(X), np.log1p(np.exp(X)))
    np.testing.assert_allclose(fg.jacfwd(fg.vmap(log1pexp))(X), np.diag(_sigmoid(X)),
                               atol=1e-15)


def test_grad_of_grad_differentiates_the_custom_jvp_rule():
    for x in (-2.0, 0.5, 40.0):
        e = np.exp(-abs(x))  # sigmoid'(x), accurate for large |x|
        np.testing.assert_allclose(fg.grad(fg.grad(log1pexp))(x), e / (1 + e) ** 2,
                                   rtol=1e-10)
    np.testing.assert_allclose(fg.jit(fg.grad(fg.grad(log1pexp)))(0.5),
                               _sigmoid(0.5) * (1 - _sigmoid(0.5)))
    np.testing.assert_allclose(fg.hessian(lambda x: fnp.sum(log1pexp(x)))(X),
                               np.diag(_sigmoid(X) * (1 - _sigmoid(X))), atol=1e-15)
    check_grads(log1pexp, (X,), order=2)


def test_jacfwd_and_jacrev_agree_for_both_kinds():
    for f, want in ((log1pexp, np.diag(_sigmoid(X))), (ste_round, np.eye(5)),
                    (lambda x: clamp(x, -1.0, 1.0), np.diag((np.abs(X) <= 1.0) * 1.0))):
        np.testing.assert_allclose(fg.jacrev(f)(X), want, atol=1e-15)
        np.testing.assert_allclose(fg.jacfwd(f)(X), want, atol=1e-15)


def test_custom_vjp_forward_mode_is_the_transpose_of_bwd():
    @fg.custom_vjp
    def scale(x, y):
        return x * y

    scale.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1], g * r[0]))
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    _, t = fg.jvp(scale, (x, y), (np.array([1.0, 0.5]), np.array([2.0, 1.0])))
    np.testing.assert_allclose(t, np.array([1.0, 0.5]) * y + np.array([2.0, 1.0]) * x)
    check_grads(scale, (x, y), order=2)
    np.testing.assert_allclose(fg.jit(lambda a, b: fg.jvp(scale, (a, b), (b, a))[1])(x, y),
                               x * x + y * y)


def test_pytree_inputs_and_outputs():
    @fg.custom_vjp
    def f(params, x):
        return {"y": params["w"] * x, "s": fnp.sum(params["b"])}

    def f_fwd(params, x):
        return f(params, x), (params["w"], x)

    def f_bwd(res, ct):
        w, x = res
        # a None leaf inside the cotangent pytree is a zero
        return {"w": ct["y"] * x * 10.0, "b": None}, ct["y"] * w

    f.defvjp(f_fwd, f_bwd)
    params = {"w": np.array([1.0, 2.0]), "b": np.array([0.5, 0.5])}
    x = np.array([3.0, 4.0])
    g = fg.grad(lambda p, x: fnp.sum(f(p, x)["y"]) + f(p, x)["s"], argnums=(0, 1))(params, x)
    np.testing.assert_allclose(g[0]["w"], x * 10.0)
    np.testing.assert_array_equal(g[0]["b"], 0.0)  # (the "s" output has a rule-given zero)
    np.testing.assert_allclose(g[1], params["w"])

    @fg.custom_jvp
    def polar(p):
        return (p["r"] * fnp.cos(p["t"]), p["r"] * fnp.sin(p["t"]))

    @polar.defjvp
    def _polar_jvp(primals, tangents):
        (p,), (dp,) = primals, tangents
        c, s = fnp.cos(p["t"]), fnp.sin(p["t"])
        return polar(p), (dp["r"] * c - p["r"] * s * dp["t"], dp["r"] * s + p["r"] * c * dp["t"])

    p = {"r": np.array(2.0), "t": np.array(0.3)}
    jr = fg.jacrev(polar)(p)
    np.testing.assert_allclose(jr[0]["t"], -2.0 * np.sin(0.3))
    np.testing.assert_allclose(fg.jacfwd(polar)(p)[1]["r"], np.sin(0.3))


def test_nondiff_argnums():
    @functools.partial(fg.custom_vjp, nondiff_argnums=(0,))
    def apply(fn, x):
        return fn(x)

    apply.defvjp(lambda fn, x: (fn(x), x), lambda fn, x, g: (g * 7.0,))
    assert fg.grad(lambda x: apply(fnp.sin, x))(0.5) == 7.0
    np.testing.assert_allclose(fg.vmap(fg.grad(lambda x: apply(fnp.tanh, x)))(X), 7.0)
    np.testing.assert_allclose(fg.jit(fg.grad(lambda x: apply(fnp.sin, x)))(0.5), 7.0)

    @functools.partial(fg.custom_jvp, nondiff_argnums=(1,))
    def power(x, n):
        return x ** n

    @power.defjvp
    def _power_jvp(n, primals, tangents):
        (x,), (t,) = primals, tangents
        return power(x, n), n * x ** (n - 1) * t * 2.0  # (doubled: the rule is used)

    assert fg.grad(power)(3.0, 2) == 12.0
    assert fg.grad(fg.jit(power, static_argnums=1))(3.0, 2) == 12.0


def test_closed_over_values_are_constants():
    w = np.array([2.0, 3.0])

    def loss(w, x):
        @fg.custom_vjp
        def f(x):
            return x * w

        f.defvjp(lambda x: (x * w, None), lambda _, g: (g * w * 10.0,))
        return fnp.sum(f(x))

    x = np.array([1.0, 1.0])
    np.testing.assert_allclose(fg.grad(loss, 1)(w, x), w * 10.0)  # the rule, with w's value
    np.testing.assert_array_equal(fg.grad(loss, 0)(w, x), 0.0)  # w: a constant
    np.testing.assert_allclose(fg.jit(fg.grad(loss, 1))(w, x), w * 10.0)
    # a batched closed-over value is batched with the rule
    ws = np.stack([w, 2 * w])
    got = fg.vmap(fg.grad(loss, 1), in_axes=(0, None))(ws, x)
    np.testing.assert_allclose(got, ws * 10.0)


def test_none_and_zero_cotangents():
    @fg.custom_vjp
    def two(x):
        return x * 2.0, x * 3.0

    seen = []

    def bwd(_, cts):
        seen.append(cts)
        return (cts[0] * 2.0 + cts[1] * 3.0,)

    two.defvjp(lambda x: (two(x), None), bwd)
    # only the first output reaches the loss: the other's cotangent never arrives and bwd
    # gets zeros for it
    assert fg.grad(lambda x: two(x)[0])(1.5) == 2.0
    assert fg.grad(lambda x: two(x)[1])(1.5) == 3.0
    # a rule returning None for its only argument: no gradient
    @fg.custom_vjp
    def blocked(x):
        return x

    blocked.defvjp(lambda x: (x, None), lambda _, g: (None,))
    assert fg.grad(lambda x: blocked(x) + x)(2.0) == 1.0


def test_custom_jvp_with_defjvps_and_a_none_tangent():
    @fg.custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(lambda tx, out, x, y: tx * y * 2.0, None)
    assert fg.grad(f, argnums=(0, 1))(3.0, 4.0) == (8.0, 0.0)

    @fg.custom_jvp
    def g(x):
        return fnp.sin(x), x * 2.0

    g.defjvp(lambda p, t: (g(*p), (fnp.cos(p[0]) * t[0], None)))
    _, (t1, t2) = fg.jvp(g, (0.0,), (1.0,))
    assert t1 == 1.0 and t2 == 0.0


def test_check_grads_catches_a_wrong_custom_rule():
    @fg.custom_jvp
    def bad_sin(x):
        return fnp.sin(x)

    bad_sin.defjvp(lambda p, t: (bad_sin(*p), fnp.sin(p[0]) * t[0]))  # (should be cos)
    with pytest.raises(AssertionError, match="finite differences"):
        check_grads(bad_sin, (X,), order=1)

    @fg.custom_vjp
    def bad_exp(x):
        return fnp.exp(x)

    bad_exp.defvjp(lambda x: (fnp.exp(x), x), lambda x, g: (g * x,))  # (should be exp(x))
    with pytest.raises(AssertionError):
        check_grads(bad_exp, (X,), order=1, modes=("rev",))


# ----------------------------------------------------------------------------- errors
def _vjp_fn(bwd, fwd=None):
    @fg.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(fwd or (lambda x, y: (x * y, (x, y))), bwd)
    return f


def test_bwd_with_the_wrong_number_of_cotangents_names_the_function():
    f = _vjp_fn(lambda r, g: (g * r[1],))
    with pytest.raises(TypeError, match=r"custom_vjp\(f\): bwd returned a tuple of 1 .*2 "
                                        r"differentiable argument"):
        fg.grad(f)(1.0, 2.0)
    f = _vjp_fn(lambda r, g: g * r[1])
    with pytest.raises(TypeError, match=r"not a tuple.*return \(g,\)"):
        fg.grad(f)(1.0, 2.0)


def test_bwd_with_the_wrong_structure_or_shape_names_the_argument():
    f = _vjp_fn(lambda r, g: (g * r[1], [g, g]))
    with pytest.raises(TypeError, match="differentiable argument 1 has structure"):
        fg.grad(f)(1.0, 2.0)
    f = _vjp_fn(lambda r, g: (g * r[1], fnp.ones(3)))
    with pytest.raises(ValueError, match=r"argument 1: leaf 0 has shape \(3,\).*f64\[\]"):
        fg.grad(f)(1.0, 2.0)


def test_fwd_returning_the_wrong_output_names_fwd():
    f = _vjp_fn(lambda r, g: (g, g), fwd=lambda x, y: (fnp.ones(2), None))
    with pytest.raises(TypeError, match=r"custom_vjp\(f\): fwd's out.*f64\[2\].*f64\[\]"):
        fg.grad(f)(1.0, 2.0)


def test_jvp_rule_with_mismatched_shapes_names_the_rule():
    @fg.custom_jvp
    def h(x):
        return fnp.sin(x)

    h.defjvp(lambda p, t: (h(*p), fnp.ones(4)))
    with pytest.raises(ValueError, match=r"custom_jvp\(h\): the JVP rule's tangent_out: leaf "
                                         r"0 has shape \(4,\).*f64\[3\].*defjvp"):
        fg.jvp(h, (np.ones(3),), (np.ones(3),))
    h.defjvp(lambda p, t: (fnp.ones(2), t[0]))
    with pytest.raises(TypeError, match=r"primal_out: output leaf 0 is f64\[2\]"):
        fg.grad(lambda x: fnp.sum(h(x)))(np.ones(3))


def test_a_missing_rule_is_named():
    @fg.custom_vjp
    def nothing(x):
        return x

    assert nothing(2.0) == 2.0  # no transform: the function runs
    with pytest.raises(TypeError, match=r"nothing\.defvjp\(fwd, bwd\)"):
        fg.grad(nothing)(2.0)


# ----------------------------------------------------------------------------- memory
CYCLE_CALLS = {
    "grad custom_vjp": lambda: fg.grad(lambda x: fnp.sum(clamp(x, -1.0, 1.0)))(X),
    "grad custom_jvp (rule calls f)": lambda: fg.grad(lambda x: fnp.sum(log1pexp(x)))(X),
    "vmap custom_jvp": lambda: fg.vmap(log1pexp)(X),
    "vmap(grad) custom_vjp": lambda: fg.vmap(fg.grad(lambda x: ste_round(x) * x))(X),
    "jvp custom_vjp": lambda: fg.jvp(ste_round, (X,), (X,)),
}


@pytest.mark.parametrize("name", sorted(CYCLE_CALLS))
def test_no_reference_cycles(name):
    """As tests/test_memory.py: intermediates die by reference counting (a rule that kept
    its call's tracers, or a batched rule cached on its parent, made cycles)."""
    assert_no_reference_cycles(name, CYCLE_CALLS[name])


# ----------------------------------------------------------------------------- example
def test_custom_gradients_example_runs_and_learns():
    spec = importlib.util.spec_from_file_location("custom_gradients",
                                                  ROOT / "examples" / "custom_gradients.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(verbose=False)
    assert result["ste_loss_end"] < 0.5 * result["ste_loss_start"]
    assert result["clamp_grad_outside"] == 0.0


def test_custom_rules_inside_scan():
    """A custom_vjp (gradient clipping) and a custom_jvp inside a scan body, under grad and
    jit(grad): the rules are used at every step."""
    @fg.custom_vjp
    def clip_gradient(x):
        return x
    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (fnp.clip(g, -0.1, 0.1),))

    @fg.custom_jvp
    def twice(x):
        return 2 * x
    twice.defjvp(lambda p, t: (twice(p[0]), 3 * t[0]))   # a deliberately different rule

    xs = np.linspace(0.5, 2.0, 5)
    f = lambda h: fnp.sum(fg.lax.scan(lambda c, x: (clip_gradient(c * x), None), h, xs)[0])  # noqa: E731
    ct = 1.0   # the backward pass by hand: clip the cotangent, then the chain rule
    for x in xs[::-1]:
        ct = np.clip(ct, -0.1, 0.1) * x
    for g in (fg.grad(f), fg.jit(fg.grad(f))):
        np.testing.assert_allclose(g(1.0), ct, rtol=1e-14)
    k = lambda h: fg.lax.scan(lambda c, x: (twice(c) * x, None), h, xs)[0]  # noqa: E731
    for g in (fg.grad(k), fg.jit(fg.grad(k))):
        np.testing.assert_allclose(g(1.0), 3.0 ** 5 * np.prod(xs))


def test_jit_inlines_custom_functions_and_transforms_of_it_keep_the_rule():
    # jit compiles a custom_jvp / custom_vjp function's own equations inline (one buffer
    # plan); grad / jvp / vmap of the jitted function start from the graph before the
    # passes, so they still use the custom rule (here a deliberately different slope, 3)
    @fg.custom_jvp
    def f(x):
        return fnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), 3.0 * tangents[0]

    @fg.custom_vjp
    def g(x):
        return fnp.sin(x)
    g.defvjp(lambda x: (fnp.sin(x), None), lambda res, ct: (3.0 * ct,))
    x = np.linspace(0.1, 1.0, 4)
    for h in (f, g):
        jh = fg.jit(h)
        source = jh.lower(x).source
        assert "custom0" not in source and "np.sin(a)" in source, source
        np.testing.assert_allclose(jh(x), np.sin(x))
        np.testing.assert_allclose(fg.grad(lambda v: fnp.sum(jh(v)))(x), 3.0)
        np.testing.assert_allclose(fg.jit(fg.grad(lambda v: fnp.sum(jh(v))))(x), 3.0)
        np.testing.assert_allclose(fg.vmap(fg.grad(jh))(x), 3.0)
    np.testing.assert_allclose(fg.jvp(fg.jit(f), (x,), (np.ones(4),))[1], 3.0)


# ---- stage_once_per_signature: fungrad's own closure-free functions reuse their graphs
def _counted_square():
    from fungrad.transforms.custom import stage_once_per_signature
    calls = []

    @stage_once_per_signature
    @fg.custom_jvp
    def square(x):
        calls.append(x.shape)
        return x * x

    @square.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        calls.append("rule")
        return square(x), 2.0 * x * t
    return square, calls


def test_a_marked_function_is_staged_once_per_signature():
    square, calls = _counted_square()
    g = fg.grad(lambda x: fnp.sum(square(x)))
    x = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_allclose(g(x), 2 * x)
    assert calls == [(3,), "rule"]  # staged on the first call only
    np.testing.assert_allclose(g(np.ones(4)), 2 * np.ones(4))  # a new shape: staged again
    assert calls == [(3,), "rule", (4,), "rule"]
    per_example = fg.vmap(fg.grad(lambda x: fnp.sum(square(x))))
    xs = np.arange(6.0).reshape(2, 3)
    for _ in range(2):
        np.testing.assert_allclose(per_example(xs), 2 * xs)
    np.testing.assert_allclose(fg.hessian(lambda x: fnp.sum(square(x)))(x), 2 * np.eye(3))


def test_a_marked_function_closing_over_a_traced_value_is_staged_per_call():
    from fungrad.transforms.custom import stage_once_per_signature
    held = {}

    @stage_once_per_signature
    @fg.custom_jvp
    def times_held(x):
        return x * held["c"]

    @times_held.defjvp
    def _(primals, tangents):
        return times_held(*primals), tangents[0] * held["c"]

    def grad_at(c):  # c is vmap's tracer: the function closes over a traced value
        held["c"] = c
        return fg.grad(lambda x: fnp.sum(times_held(x)))(np.ones(3))
    for cs in (np.array([1.0, 2.0]), np.array([5.0, -1.0])):
        np.testing.assert_allclose(fg.vmap(grad_at)(cs), cs[:, None] * np.ones(3))
    assert not times_held._rules_by_signature  # (nothing kept: each call read its own c)


def test_relu_eager_grad_reuses_its_rule():
    from fungrad.nn.activations import _relu
    g = fg.grad(lambda x: fnp.sum(fg.nn.relu(x) ** 2))
    x = np.array([-1.0, 0.0, 2.0, np.nan])
    for _ in range(2):
        np.testing.assert_array_equal(g(x), [0.0, 0.0, 4.0, 0.0])
    assert len(_relu._rules_by_signature) >= 1
