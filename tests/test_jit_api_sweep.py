"""The `fg.jit` API (static and donated arguments, outputs, ahead-of-time lowering),
`fg.checkify` and `fg.debug`, from a differential sweep against JAX 0.10.2 (`jax.jit`,
`jax.experimental.checkify`, `jax.debug`). Each test failed before its fix; the expected
behaviour is JAX's unless a comment says why fungrad differs."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import CheckifyError, ConcretizationError

ck = fg.checkify
x3 = np.arange(3.0)


# ----------------------------------------------------------------------------- donation

def test_donate_argnames_donates_the_named_argument():
    # before: TypeError "jit() got an unexpected keyword argument 'donate_argnames'"
    f = fg.jit(lambda w, g: w - 0.5 * g, donate_argnames="w")
    w, g = np.ones(3), np.ones(3)
    np.testing.assert_array_equal(f(w, g), [0.5, 0.5, 0.5])
    assert not w.flags.writeable  # consumed (fungrad's stand-in for a deleted buffer)
    assert g.flags.writeable  # not donated: untouched
    np.testing.assert_array_equal(g, np.ones(3))


def test_donate_argnums_is_completed_from_the_signature_so_keywords_donate_too():
    # JAX infers donate_argnames from donate_argnums; before, a donated argument passed by
    # keyword was silently not donated (and donate_argnames=... passed by position likewise)
    def step(w, g):
        return w - g
    w = np.ones(2)
    np.testing.assert_array_equal(fg.jit(step, donate_argnums=0)(w=w, g=np.ones(2)), [0, 0])
    assert not w.flags.writeable
    w = np.ones(2)
    np.testing.assert_array_equal(fg.jit(step, donate_argnames="w")(w, np.ones(2)), [0, 0])
    assert not w.flags.writeable


@pytest.mark.parametrize("kw", [dict(static_argnums=1, donate_argnums=1),
                                dict(static_argnums=1, donate_argnames="n"),
                                dict(static_argnames="n", donate_argnums=1)])
def test_an_argument_cannot_be_both_static_and_donated(kw):
    # before: accepted silently (the donation was dropped); JAX raises ValueError
    with pytest.raises(ValueError, match=r"both static and donated.*\['n'\]"):
        fg.jit(lambda x, n: x * n, **kw)


def test_donated_positions_and_names_are_checked_against_the_signature():
    # before: an out-of-range donate_argnums was ignored (JAX: ValueError), as static_argnums
    # already are in fungrad
    with pytest.raises(ValueError, match=r"donate_argnums contains 3, but <lambda> takes 1"):
        fg.jit(lambda x: x * 2, donate_argnums=3)
    with pytest.raises(ValueError, match=r"donate_argnames contains 'y', which is not a "
                                         r"parameter"):
        fg.jit(lambda x: x * 2, donate_argnames="y")
    # *args takes any position; negative positions count from the call's end
    assert fg.jit(lambda *a: a[0] * 2, donate_argnums=3)(np.ones(1)) == 2
    x = np.ones(2)
    fg.jit(lambda a, b: a + b, donate_argnums=-1)(np.ones(2), x)
    assert not x.flags.writeable


def test_argnums_accept_numpy_integers():
    # before: TypeError "'numpy.int64' object is not iterable" (an index from np.argmax etc.)
    f = fg.jit(lambda x, n: x * n, static_argnums=np.int64(1))
    np.testing.assert_array_equal(f(x3, 2), x3 * 2)
    x = np.ones(2)
    fg.jit(lambda a: a * 2, donate_argnums=(np.int32(0),))(x)
    assert not x.flags.writeable
    with pytest.raises(TypeError, match="static_argnums must be an int or a sequence of ints"):
        fg.jit(lambda x, n: x, static_argnums=1.0)


# ----------------------------------------------------------------------------- outputs

@pytest.mark.parametrize("out, what", [(lambda x: "relu", r"output leaf 0 of 1 is a str"),
                                       (lambda x: (x, fnp.sin), r"output leaf 1 of 2 is a "
                                                                r"function"),
                                       (lambda x: {"a": x, "b": object()}, "leaf 1 of 2 is an? "
                                                                           "object")])
def test_a_jitted_function_returning_a_non_array_names_the_output(out, what):
    # before: wrapped in a 0-d str / object array and returned (JAX: TypeError "... is not a
    # valid JAX type")
    with pytest.raises(TypeError, match=what):
        fg.jit(out)(x3)


def test_outputs_that_are_numbers_or_numeric_arrays_still_work():
    # (a guard for the fix above, which passes before it too)
    import ml_dtypes  # (bfloat16's dtype kind is 'V', like a structured dtype's)
    out = fg.jit(lambda x: (x, 1, True, 2.5, np.float32(2), None,
                            x.astype(ml_dtypes.bfloat16)))(x3)
    assert [type(o).__name__ for o in out] == ["ndarray"] * 5 + ["NoneType", "ndarray"]
    assert out[6].dtype == ml_dtypes.bfloat16


# ----------------------------------------------------------------------------- AOT API

def test_lower_compile_and_as_text():
    # before: AttributeError 'Lowered' object has no attribute 'compile' / 'as_text'
    jf = fg.jit(lambda x, n: x * n, static_argnums=1)
    lowered = jf.lower(x3, 2)
    assert lowered.as_text() == lowered.source
    compiled = lowered.compile()
    np.testing.assert_array_equal(compiled(x3, 2), x3 * 2)
    assert compiled.as_text() == lowered.source
    info = jf.cache_info()
    # another signature (shape, dtype, static value) raises instead of compiling again
    for args, what in [((np.ones(4), 2), r"argument 0 \(leaf 0\) changed from f64\[3\] to "
                                         r"f64\[4\]"),
                       ((x3.astype(np.float32), 2), r"f64\[3\] to f32\[3\]"),
                       ((x3, 3), "static arguments changed")]:
        with pytest.raises(TypeError, match=what):
            compiled(*args)
    assert jf.cache_info().misses == info.misses


# ----------------------------------------------------------------------------- debug

def test_debug_print_and_callback_check_their_function_argument_at_the_call():
    # before: AttributeError "'int' object has no attribute 'format'" raised only when the
    # print ran (inside the compiled code, at every call); JAX: TypeError at the call
    f = fg.jit(lambda x: fg.debug.print(3, x))
    with pytest.raises(TypeError, match="fg.debug.print: fmt must be a str, got int"):
        f(1.0)
    with pytest.raises(TypeError, match="fg.debug.callback: fn must be callable, got int"):
        fg.jit(lambda x: fg.debug.callback(3, x))(1.0)


# ----------------------------------------------------------------------------- checkify

def _inner(x):
    return fnp.log(x)


_checked_inner = ck.checkify(_inner, errors=ck.nan_checks)


def _reraises(x):
    err, y = _checked_inner(x)
    ck.check_error(err)
    return y


def test_check_error_outside_checkify_raises_now():
    # before: AttributeError (no fg.checkify.check_error)
    with np.errstate(invalid="ignore"):
        with pytest.raises(CheckifyError, match=r"nan_checks: the primitive 'log' produced a "
                                                r"NaN"):
            _reraises(-1.0)
        assert _reraises(1.0) == 0.0
        with pytest.raises(TypeError, match="expected an fg.checkify.Error"):
            ck.check_error(None)


def test_check_error_under_checkify_becomes_its_error_under_jit_and_vmap():
    with np.errstate(invalid="ignore"):
        outer = ck.checkify(_reraises)
        for run in (outer, fg.jit(outer)):
            err, y = run(-1.0)
            assert err.get().startswith("nan_checks: the primitive 'log' produced a NaN at ")
            assert np.isnan(y)
            assert run(2.0)[0].get() is None
        err, _ = fg.vmap(outer)(np.array([1.0, -1.0, -2.0]))
        assert err.get().endswith("batch element 1")
        # the failure happened already: it is reported whatever the outer error set (JAX
        # drops a kind the outer checkify does not enable)
        assert ck.checkify(_reraises, errors=ck.div_checks)(-1.0)[0].get() is not None


def test_check_error_on_a_traced_error_without_checkify_names_the_fix():
    with pytest.raises(ConcretizationError, match=r"check_error.*fg.checkify.checkify"):
        fg.jit(_reraises)(-1.0)


def test_debug_check_is_a_check_under_checkify_and_nothing_elsewhere():
    # before: AttributeError (no fg.checkify.debug_check)
    def f(x):
        ck.debug_check(x > 0, "x must be positive, got {}", x)
        return x * 2.0
    assert f(-1.0) == -2.0  # no checkify: not checked (check would raise CheckifyError)
    assert fg.jit(f)(-1.0) == -2.0  # (check would raise ConcretizationError)
    for run in (ck.checkify(f), fg.jit(ck.checkify(f))):
        err, out = run(-1.0)
        assert err.get().startswith("x must be positive, got -1.0 (fg.checkify.check failed")
        assert out == -2.0


def test_automatic_checks_is_every_check_but_the_users():
    # JAX's name; before: AttributeError
    assert ck.automatic_checks == ck.nan_checks | ck.div_checks | ck.index_checks
    err, _ = ck.checkify(lambda x, i: x[i], errors=ck.automatic_checks)(x3, np.array(5))
    assert err.get().startswith("index_checks: index 5 is out of bounds")


def test_forward_mode_through_a_checkified_function():
    # before: TypeError "Cannot compare structured or void to non-void arrays" (the tangent
    # of the error's int64 code is float0, and the Error built from it read it as a code)
    f = ck.checkify(lambda x: (ck.check(x > 0, "neg {}", x), x * 2.0)[1])
    (err, y), (t_err, t_y) = fg.jvp(f, (-1.0,), (1.0,))
    assert err.get().startswith("neg -1.0") and y == -2.0
    assert t_err.get() is None and t_y == 2.0
    err, t_y = fg.jacfwd(f)(-1.0)
    assert err.get() is None and t_y == 2.0  # (the error's derivative: no error)
    (err, y), f_jvp = fg.linearize(f, -1.0)
    assert err.get().startswith("neg -1.0") and f_jvp(1.0)[1] == 2.0


def test_numpy_array_of_a_tracer_with_copy_names_the_fix():
    # np.array(x, copy=...) (as fnp.arange(n) of a traced n calls it) crashed with
    # "<lambda>() got an unexpected keyword argument 'copy'"
    with pytest.raises(fg.errors.ConcretizationError, match="static"):
        fg.jit(lambda n: fnp.arange(n))(3)
