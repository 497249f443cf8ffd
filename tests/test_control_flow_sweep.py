"""Regressions found by a differential sweep of the structured control flow (cond, switch,
scan, fori_loop, while_loop, map, checkpoint) against JAX. Expected values come from plain
Python loops, or are constants JAX 0.10.2 returned for the same program (said where so)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

lax = fg.lax
f32 = np.float32


# ----------------------------------------------------------------------------- fori_loop's counter
def _python_fori(lo, hi, body, val):
    for i in range(lo, hi):
        val = body(i, val)
    return val


@pytest.mark.parametrize("run", [lambda f: f(), lambda f: fg.jit(f)()], ids=["eager", "jit"])
def test_fori_loop_counter_with_concrete_bounds_keeps_a_narrow_carry_dtype(run):
    # with concrete bounds JAX's `i` is a Python int (weakly typed): `x + i` keeps a float32
    # or int16 carry; fungrad's was a strong int64, so these loops raised "changes the dtype"
    out = run(lambda: lax.fori_loop(0, 3, lambda i, x: x + i, f32(0)))
    assert out.dtype == np.float32 and out == 3.0
    out = run(lambda: lax.fori_loop(0, 3, lambda i, x: x + i, np.int16(0)))
    assert out.dtype == np.int16 and out == 3
    out = run(lambda: lax.fori_loop(np.int32(1), np.int32(4), lambda i, x: x * i, f32(1)))
    assert out.dtype == np.float32 and out == 6.0
    out = run(lambda: lax.fori_loop(0, 5, lambda i, x: x + i, f32(0), unroll=2))
    assert out.dtype == np.float32 and out == 10.0
    # a pytree carry mixing an int32 leaf with the counter
    out = run(lambda: lax.fori_loop(0, 3, lambda i, c: {"a": c["a"] + i, "b": c["b"] * 2},
                                    {"a": np.int32(0), "b": f32(1)}))
    assert out["a"].dtype == np.int32 and out["a"] == 3
    assert out["b"].dtype == np.float32 and out["b"] == 8.0


def test_fori_loop_weak_counter_under_transforms():
    def f(w):
        return lax.fori_loop(0, 3, lambda i, c: c * w + i, f32(1.0))
    want = _python_fori(0, 3, lambda i, c: c * 0.5 + i, 1.0)
    assert f(f32(0.5)).dtype == np.float32 and np.isclose(f(f32(0.5)), want)
    # d/dw of ((w + 0) w + 1) w + 2 = 3 w^2 + 2 w at 0.5
    for g in (fg.grad(f), fg.jit(fg.grad(f))):
        out = g(f32(0.5))
        assert out.dtype == np.float32 and np.isclose(out, 1.75)
    out = fg.vmap(f)(np.array([0.5, 2.0], f32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [_python_fori(0, 3, lambda i, c: c * w + i, 1.0)
                                     for w in (0.5, 2.0)])
    # the counter's dtype is still the bounds' one when it is the whole carry (pinned by
    # test_loops: int32 bounds give an int32 `i`)
    assert lax.fori_loop(0, np.int32(3), lambda i, c: i, np.int32(0)).dtype == np.int32


# ----------------------------------------------------------------------------- weak init leaves
def test_loop_init_python_scalars_stay_weak_when_another_leaf_is_cast():
    # leaf 0 (Python int) becomes float64 (the body adds 0.5), so the body is traced again;
    # leaf 1 (Python float) must stay weak there, or leaf 2 (float32 * leaf 1) turns float64
    # and the retrace raised. JAX 0.10.2 returns (1.0 f64, 1.0 f64, 1.0 f32) for each loop.
    def body(c):
        return c[0] + 0.5, c[1], c[2] * c[1]
    init = (0, 1.0, f32(1))
    outs = [lax.scan(lambda c, x: (body(c), None), init, None, length=2)[0],
            lax.while_loop(lambda c: c[0] < 1, body, init),
            lax.fori_loop(0, 2, lambda i, c: body(c), init),
            fg.jit(lambda: lax.scan(lambda c, x: (body(c), None), init, None, length=2)[0])()]
    for out in outs:
        assert [o.dtype for o in out] == [np.float64, np.float64, np.float32]
        np.testing.assert_array_equal([float(o) for o in out], [1.0, 1.0, 1.0])
    # the same with the counter: i (weak) times a float32 leaf after a cast of leaf 0
    c0, c1 = lax.fori_loop(0, 3, lambda i, c: (c[0] + 0.5, c[1] * i + 1), (0, f32(1)))
    assert c0.dtype == np.float64 and c0 == 1.5
    assert c1.dtype == np.float32 and c1 == _python_fori(0, 3, lambda i, v: v * i + 1, 1.0)


# ----------------------------------------------------------------------------- map
def test_map_with_batch_size_over_no_elements():
    # the batched path had no chunk and no remainder to concatenate (IndexError); JAX
    # returns the empty stack, as map without batch_size does
    for batch_size in (None, 2):
        out = lax.map(lambda x: x * 2, np.zeros((0, 2)), batch_size=batch_size)
        assert out.shape == (0, 2) and out.dtype == np.float64
        tree = lax.map(lambda x: {"s": x.sum(), "i": (x > 0)}, np.zeros((0, 3), f32),
                       batch_size=batch_size)
        assert tree["s"].shape == (0,) and tree["s"].dtype == np.float32
        assert tree["i"].shape == (0, 3) and tree["i"].dtype == np.bool_


def test_map_batch_size_takes_numpy_integers():
    out = lax.map(lambda x: x * 2, np.arange(5.0), batch_size=np.int64(2))
    np.testing.assert_array_equal(out, np.arange(5.0) * 2)
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="map: batch_size must be a positive int"):
            lax.map(lambda x: x, np.arange(3.0), batch_size=bad)


# ----------------------------------------------------------------------------- scan's unroll
def test_scan_unroll_is_validated_and_numpy_values_work():
    def step(c, x):
        return c + x, c

    xs = np.arange(5.0)
    want = (10.0, [0.0, 0.0, 1.0, 3.0, 6.0])
    for unroll in (np.int32(2), np.bool_(True), 0, False, True):
        c, ys = fg.jit(lambda xs: lax.scan(step, 0.0, xs, unroll=unroll))(xs)
        assert c == want[0]
        np.testing.assert_array_equal(ys, want[1])
    # a negative unroll was silently taken as 1 (JAX raises)
    for bad in (-2, 2.0):
        with pytest.raises(ValueError, match="scan: unroll must be a bool or a non-negative"):
            lax.scan(step, 0.0, xs, unroll=bad)


# ----------------------------------------------------------------------------- cond's operand=
def test_cond_takes_jax_operand_keyword():
    assert lax.cond(True, lambda x: x + 1, lambda x: x, operand=1.0) == 2.0
    f = fg.jit(lambda p, x: lax.cond(p, lambda x: x + 1, lambda x: x * 3, operand=x))
    assert f(False, 2.0) == 6.0
    g = fg.grad(lambda x: lax.cond(x > 0, fnp.sin, fnp.cos, operand=x))
    assert np.isclose(g(0.5), np.cos(0.5)) and np.isclose(g(-0.5), -np.sin(-0.5))
    with pytest.raises(TypeError, match="cond: pass the operands either positionally or as "
                                        "operand="):
        lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=1.0)


# ----------------------------------------------------------------------------- policies
def test_save_anything_except_these_names_policy():
    P = fg.checkpoint_policies
    policy = P.save_anything_except_these_names("act")
    name_p = lax.remat.name_p
    # untagged values are saved, tagged ones unless named (JAX's policy of that name)
    assert policy(lax.dot_general_p) is True
    assert policy(name_p, name="proj") is True
    assert policy(name_p, name="act") is False
    assert policy == P.save_anything_except_these_names("act")

    w, x = np.arange(6.0).reshape(3, 2) / 6, np.array([1.0, -2.0, 3.0])

    def layer(w, x):
        a = fg.checkpoint_name(fnp.tanh(fg.checkpoint_name(x @ w, "proj")), "act")
        return (a * fnp.sin(a)).sum()
    want = fg.grad(layer)(w, x)
    f = fg.checkpoint(layer, policy=policy)
    for g in (fg.grad(f), fg.jit(fg.grad(f))):
        np.testing.assert_allclose(g(w, x), want, rtol=1e-12)
    with pytest.raises(TypeError, match="names must be str"):
        P.save_anything_except_these_names(3)
