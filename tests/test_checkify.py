"""fg.checkify: each error set catches its error eagerly, under jit (both orders), vmap
(naming the batch element), grad; no error leaves outputs as f's; the first error wins."""
import re
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import CheckifyError, ConcretizationError

ck = fg.checkify


def f_index(x, i):
    return x[i] * 2.0


def f_take(x, i):
    return fnp.take(x, i, axis=0) * 2.0


def f_div(x, y):
    return x / y


def f_idiv(x, y):
    return x // y


def f_nan(x, y):
    return fnp.log(x * y)


def f_user(x, y):
    ck.check(y > 0, "y must be positive, got {}", y)
    return x * y


X4 = np.arange(4.0)
# name: (f, errors, x, bad y, good y, what the message says)
CASES = {
    "index": (f_index, ck.index_checks, X4, np.array(10), np.array(1),
              "index_checks: index 10 is out of bounds for axis 0 with size 4"),
    "index_negative": (f_index, ck.index_checks, X4, np.array(-5), np.array(-4),
                       "index_checks: index -5 is out of bounds for axis 0 with size 4"),
    "take": (f_take, ck.index_checks, X4, np.array([0, 7]), np.array([0, 3]),
             "index_checks: index 7 is out of bounds for axis 0 with size 4"),
    "div": (f_div, ck.div_checks, np.array(1.0), np.array(0.0), np.array(2.0),
            "div_checks: division by zero in the primitive 'div'"),
    "int_div": (f_idiv, ck.div_checks, np.array(7), np.array(0), np.array(2),
                "div_checks: division by zero in the primitive 'floor_divide'"),
    "nan": (f_nan, ck.nan_checks, np.array(1.0), np.array(-1.0), np.array(2.0),
            "nan_checks: the primitive 'log' produced a NaN"),
    "user": (f_user, ck.user_checks, np.array(1.0), np.array(-3.0), np.array(2.0),
             "y must be positive, got -3.0 (fg.checkify.check failed"),
}
LINE = {f: f.__code__.co_firstlineno + 1
        for f in (f_index, f_take, f_div, f_idiv, f_nan, f_user)}


def _line(f):
    return f"test_checkify.py:{LINE[f]} ({f.__name__})"


WAYS = {
    "eager": lambda f, e: ck.checkify(f, e),
    "jit_outside": lambda f, e: fg.jit(ck.checkify(f, e)),
    "jit_inside": lambda f, e: ck.checkify(fg.jit(f), e),
    "jit_both": lambda f, e: fg.jit(ck.checkify(fg.jit(f), e)),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # (NumPy warns on x / 0 and log(-1))
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_error_is_caught_and_named(case, way):
    f, errors, x, bad, _, says = CASES[case]
    err, _ = WAYS[way](f, errors)(x, bad)
    msg = err.get()
    assert msg is not None and says in msg, msg
    assert _line(f) in msg, msg  # the user's line of the failing operation / check
    with pytest.raises(CheckifyError, match=re.escape(says)):
        err.throw()


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_no_error_same_outputs(case, way):
    f, errors, x, _, good, _ = CASES[case]
    err, out = WAYS[way](f, errors)(x, good)
    assert err.get() is None
    err.throw()  # (does nothing)
    want = f(x, good)
    np.testing.assert_array_equal(out, want)
    assert np.asarray(out).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_vmap_names_the_failing_element(case, jit):
    f, errors, x, bad, good, says = CASES[case]
    ys = np.stack([good, good, bad, bad])
    g = fg.vmap(ck.checkify(f, errors), in_axes=(None, 0))
    err, out = (fg.jit(g) if jit else g)(x, ys)
    msg = err.get()
    assert says in msg and re.search(r"batch element 2\b", msg), msg
    err, out = g(x, np.stack([good, good]))
    assert err.get() is None
    np.testing.assert_array_equal(out, np.stack([f(x, good)] * 2))


@pytest.mark.parametrize("case", sorted(CASES))
def test_checkify_of_vmap(case):
    f, errors, x, bad, good, says = CASES[case]
    g = ck.checkify(fg.vmap(f, in_axes=(None, 0)), errors)
    err, _ = g(x, np.stack([good, bad]))
    assert err.get() is not None and _line(f) in err.get()
    assert g(x, np.stack([good, good]))[0].get() is None


def test_nested_vmap_names_both_indices():
    g = fg.vmap(fg.vmap(ck.checkify(f_div, ck.div_checks), in_axes=(None, 0)),
                in_axes=(None, 0))
    ys = np.ones((2, 3))
    ys[1, 2] = 0.0
    assert g(np.array(1.0), ys)[0].get().endswith("batch element (1, 2)")


@pytest.mark.parametrize("jit", ["none", "outside", "inside"])
@pytest.mark.parametrize("case", [c for c in sorted(CASES) if CASES[c][2].dtype.kind == "f"])
def test_grad_checks_the_forward_pass(case, jit):
    f, errors, x, bad, good, says = CASES[case]
    inner = fg.jit(f) if jit == "inside" else f

    def loss(x, y):
        err, out = ck.checkify(inner, errors)(x, y)
        return fnp.sum(out), err
    g = fg.grad(loss, has_aux=True)
    if jit == "outside":
        g = fg.jit(g)
    dx, err = g(x, bad)
    assert says in err.get()
    dx, err = g(x, good)
    assert err.get() is None
    np.testing.assert_allclose(dx, fg.grad(lambda x: fnp.sum(f(x, good)))(x))


def test_grad_of_checked_output():
    f = lambda x: fnp.sum(fnp.log(x) / x)  # noqa: E731
    x = np.array([1.0, 2.0, 3.0])
    want = fg.grad(f)(x)
    for g in (fg.grad(lambda x: ck.checkify(f, ck.all_checks)(x)[1]),
              fg.jit(fg.grad(lambda x: ck.checkify(f, ck.all_checks)(x)[1])),
              fg.grad(lambda x: ck.checkify(fg.jit(f), ck.all_checks)(x)[1])):
        np.testing.assert_allclose(g(x), want)
    np.testing.assert_allclose(fg.jacfwd(lambda x: ck.checkify(f, ck.all_checks)(x)[1])(x),
                               want)


def test_backward_pass_is_checked_when_grad_is_inside():
    # checkify(grad(f)): the backward pass's operations are checked too (d log(x) = 1 / x)
    err, _ = ck.checkify(fg.grad(lambda x: fnp.log(x)), ck.div_checks)(0.0 + np.zeros(()))
    assert "division by zero" in err.get()


def test_first_error_wins():
    def f(x, i):
        ck.check(x[0] > 0, "first")
        y = fnp.log(x)          # NaN second
        ck.check(x[0] > 100, "third")
        return y[i]             # out of bounds fourth
    x = np.array([-1.0, 2.0])
    for g in (ck.checkify(f, ck.all_checks), fg.jit(ck.checkify(f, ck.all_checks))):
        assert g(x, np.array(5))[0].get().startswith("first (")
    assert ck.checkify(f, ck.nan_checks | ck.index_checks)(x, np.array(5))[0].get().startswith(
        "nan_checks: the primitive 'log'")
    assert ck.checkify(f, ck.index_checks)(x, np.array(5))[0].get().startswith("index_checks")
    assert ck.checkify(f, ck.user_checks)(np.array([5.0, 1.0]), np.array(0))[0].get() \
        .startswith("third (")


def test_sets_only_check_what_they_name():
    x, i = np.array([1.0, 0.0]), np.array(1)
    f = lambda x, i: fnp.log(1.0 / x)[i]  # noqa: E731
    assert ck.checkify(f, ck.user_checks | ck.index_checks)(x, i)[0].get() is None
    assert ck.checkify(f, ck.nan_checks)(x, i)[0].get() is None  # (1/0 = inf, log inf = inf)
    assert "division by zero" in ck.checkify(f, ck.float_checks)(x, i)[0].get()
    assert "division by zero" in ck.checkify(f, ck.all_checks)(x, np.array(3))[0].get()
    assert "index_checks" in ck.checkify(f, ck.index_checks)(x, np.array(3))[0].get()
    with pytest.raises(IndexError):  # (unchecked: NumPy's error)
        ck.checkify(f, ck.float_checks)(x, np.array(3))
    assert ck.float_checks == ck.nan_checks | ck.div_checks
    assert ck.all_checks == ck.user_checks | ck.index_checks | ck.float_checks
    assert repr(ck.float_checks) == "div_checks | nan_checks"
    with pytest.raises(TypeError, match="fg.checkify.user_checks"):
        ck.checkify(f, errors="nan")


def test_out_of_bounds_index_is_clamped_not_raised():
    # NumPy raises IndexError; under index_checks the run goes on and the error is returned
    with pytest.raises(IndexError):
        fg.jit(f_index)(X4, np.array(10))
    err, out = ck.checkify(f_index, ck.index_checks)(X4, np.array(10))
    assert err.get() is not None and out == 6.0
    err, out = ck.checkify(f_index, ck.index_checks)(X4, np.array(-2))  # NumPy's wraparound
    assert err.get() is None and out == 4.0
    small = np.array([1, 200], np.uint8)  # bounds a small dtype cannot hold are not applied
    err, out = ck.checkify(f_index, ck.index_checks)(np.arange(300.0), small)
    assert err.get() is None and list(out) == [2.0, 400.0]


def test_scatter_add_is_index_checked():
    # scatter_add is getitem's transpose: grad of x[i] scatters back through the same index
    err, _ = ck.checkify(fg.grad(lambda x, i: fnp.sum(x[i])), ck.index_checks)(
        X4, np.array([0, 9]))
    assert "out of bounds" in err.get()


def test_check_outside_checkify():
    with pytest.raises(CheckifyError, match=r"bad: 3 \(fg.checkify.check failed at "
                                            r"test_checkify.py:\d+"):
        ck.check(False, "bad: {}", 3)
    ck.check(np.array([True, True]), "fine")
    # a concrete value under grad can still be tested
    with pytest.raises(CheckifyError, match="neg"):
        fg.grad(lambda x: (ck.check(x > 0, "neg"), x * 2)[1])(-1.0)
    for transform in (fg.jit, fg.vmap):
        with pytest.raises(ConcretizationError, match=r"fg\.checkify\.checkify\(f\)"):
            transform(lambda x: (ck.check(x > 0, "neg"), x * 2)[1])(np.ones(2))


def test_format_arguments_are_runtime_values():
    def f(x):
        ck.check(fnp.all(x < 1), "x={} limit={limit} tag={tag}", x, limit=x.sum(), tag="t")
        return x
    err, _ = fg.jit(ck.checkify(f))(np.array([0.5, 1.5]))
    assert err.get().startswith("x=[0.5 1.5] limit=2.0 tag=t (")


def test_error_inside_a_transform_is_traced():
    def f(x):
        err, y = ck.checkify(lambda x: x)(x)
        with pytest.raises(ConcretizationError, match=r"fg\.jit\(fg\.checkify\.checkify\(f\)\)"):
            err.get()
        return y
    fg.jit(f)(np.ones(2))


def test_nested_checkify_keeps_errors_apart():
    inner = ck.checkify(lambda x: (ck.check(x > 0, "inner"), x)[1])

    def outer(x):
        ierr, y = inner(x)
        ck.check(x > -10, "outer")
        return ierr, y
    for g in (ck.checkify(outer), fg.jit(ck.checkify(outer))):
        oerr, (ierr, _) = g(np.array(-1.0))
        assert ierr.get().startswith("inner") and oerr.get() is None
        oerr, (ierr, _) = g(np.array(-20.0))
        assert ierr.get().startswith("inner") and oerr.get().startswith("outer")


def test_exception_closes_the_record():
    def f(x):
        ck.check(x > 0, "neg")
        raise KeyError("boom")
    with pytest.raises(KeyError):
        ck.checkify(f)(np.array(-1.0))
    err, _ = ck.checkify(lambda x: x)(np.array(1.0))  # (a stale record would not matter)
    assert err.get() is None
    from fungrad.checkify import _records
    assert _records() == []


def test_jit_code_unchanged_without_checkify():
    f = lambda x, y: fnp.log(x / y)[np.array([0])]  # noqa: E731
    before = fg.jit(f).lower(np.ones(2), np.ones(2)).source
    ck.checkify(fg.jit(f), ck.all_checks)(np.ones(2), np.ones(2))
    fg.jit(ck.checkify(f, ck.all_checks))(np.ones(2), np.ones(2))
    g = fg.jit(f)
    assert g.lower(np.ones(2), np.ones(2)).source.split("\n", 1)[1] == before.split("\n", 1)[1]
    code = "\n".join(line.partition("  # ")[0] for line in before.splitlines())
    assert "check" not in code


def test_jitted_check_traced_under_checkify_raises_outside():
    g = fg.jit(lambda x: (ck.check(x > 0, "positive"), x)[1])
    assert ck.checkify(g)(np.array(-1.0))[0].get().startswith("positive")
    g(np.array(1.0))
    with pytest.raises(CheckifyError, match="positive"):
        g(np.array(-1.0))


def test_python_scalars_and_static_args_pass_through():
    def f(x, n, name):
        assert isinstance(n, int) and name == "a"
        return x[n] / x[0]
    err, out = ck.checkify(f, ck.all_checks)(np.array([0.0, 1.0]), 1, "a")
    assert "division by zero" in err.get() and out == np.inf


# ----------------------------------------------------------------------------- inside bodies
def _cond_index_div(x, i):
    return fg.lax.cond(fnp.sum(x) > 0, lambda x, i: x[i] / (x[0] - 1.0),
                       lambda x, i: x[:1] * 0.0 + 1.0, x, fnp.reshape(fnp.asarray(i), (1,)))


def _scan_div(x):
    return fg.lax.scan(lambda c, xi: (c + 1.0 / xi, c), 0.0, x)[0]


def _while_index(x, i):
    def body(c):
        k, acc = c
        return k + 1, acc + x[i + k]
    return fg.lax.while_loop(lambda c: c[0] < 2, body, (0, 0.0))[1]


def _checkpointed_log(x):
    return fg.checkpoint(lambda x: fnp.sum(fnp.log(x)))(x)


@fg.custom_jvp
def _custom_log(x):
    return fnp.log(x)


_custom_log.defjvp(lambda p, t: (_custom_log(p[0]), t[0] / p[0]))


@fg.custom_vjp
def _custom_vjp_log(x):
    return fnp.log(x)


_custom_vjp_log.defvjp(lambda x: (fnp.log(x), x), lambda x, g: (g / x,))

BODY_CASES = {
    "cond index": (_cond_index_div, (np.array([2.0, 3.0]), 5), ck.index_checks, "getitem"),
    "cond div": (_cond_index_div, (np.array([1.0, 3.0]), 1), ck.div_checks, "div"),
    "scan div": (_scan_div, (np.array([1.0, 0.0]),), ck.div_checks, "div"),
    "while index": (_while_index, (np.arange(3.0), 2), ck.index_checks, "getitem"),
    "checkpoint nan": (_checkpointed_log, (np.array([1.0, -1.0]),), ck.nan_checks, "log"),
    "custom_jvp nan": (_custom_log, (np.array(-1.0),), ck.nan_checks, "log"),
    "custom_vjp nan": (_custom_vjp_log, (np.array(-1.0),), ck.nan_checks, "log"),
}


@pytest.mark.parametrize("name", sorted(BODY_CASES))
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_checks_run_inside_branches_loops_and_custom_functions(name, jit):
    fn, args, errors, prim = BODY_CASES[name]
    checked = ck.checkify(fn, errors=errors)
    err, _ = (fg.jit(checked) if jit else checked)(*args)
    assert err.get() is not None and f"'{prim}'" in err.get(), err.get()


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_backward_pass_of_a_custom_rule_is_checked(jit):
    checked = ck.checkify(fg.grad(lambda x: _custom_vjp_log(x)), errors=ck.div_checks)
    err, _ = (fg.jit(checked) if jit else checked)(np.array(0.0))
    assert "'div'" in err.get()


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_batched_cond_checks_only_the_branch_each_example_takes(jit):
    """vmap with a per-example predicate: log is taken only where x > 0, so no NaN is
    reported for the other examples (running both branches on the whole batch would)."""
    def f(x):
        return fg.lax.cond(x > 0, fnp.log, lambda x: x * 2.0, x)
    x = np.array([1.0, -2.0, 3.0])
    run = fg.vmap(ck.checkify(f, errors=ck.nan_checks))
    err, out = (fg.jit(run) if jit else run)(x)
    assert err.get() is None
    np.testing.assert_allclose(out, [0.0, -4.0, np.log(3.0)])
    err, _ = (fg.jit(run) if jit else run)(np.array([1.0, np.nan]))
    assert "'mul' produced a NaN" in err.get()  # (the loop over examples runs it unbatched)


def test_batched_cond_prints_only_the_taken_branch(capsys):
    def f(x):
        return fg.lax.cond(x > 0, lambda x: fg.debug.print("pos {}", x) or x, lambda x: -x, x)
    for run in (fg.vmap(f), fg.jit(fg.vmap(f))):
        np.testing.assert_allclose(run(np.array([1.0, -2.0, 3.0])), [1.0, 2.0, 3.0])
        assert capsys.readouterr().out.split("\n")[:-1] == ["pos 1.0", "pos 3.0"]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_batched_while_checks_only_the_trips_each_example_makes(jit):
    """vmap with a per-example predicate: each lane divides by its own counter and stops
    before it reaches zero. The lane-masked loop would run the body again for finished lanes
    (dividing by zero there) and report it."""
    def f(n):
        return fg.lax.while_loop(lambda c: c[0] > 0,
                                 lambda c: (c[0] - 1.0, c[1] + 1.0 / c[0]), (n, 0.0))
    run = fg.vmap(ck.checkify(f, errors=ck.div_checks))
    err, (_, total) = (fg.jit(run) if jit else run)(np.array([1.0, 3.0]))
    assert err.get() is None
    np.testing.assert_allclose(total, [1.0, 1.0 + 1 / 2 + 1 / 3])


def test_batched_while_prints_only_the_trips_each_example_makes(capsys):
    def f(n):
        def body(c):
            fg.debug.print("trip {}", c)
            return c - 1.0
        return fg.lax.while_loop(lambda c: c > 0, body, n)
    for run in (fg.vmap(f), fg.jit(fg.vmap(f))):
        np.testing.assert_allclose(run(np.array([1.0, 2.0])), [0.0, 0.0])
        assert capsys.readouterr().out.split("\n")[:-1] == ["trip 1.0", "trip 2.0", "trip 1.0"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_python_float_arguments_are_checked_eagerly():
    """A Python float argument is watched like an array (under jit it always was)."""
    err, out = ck.checkify(fnp.log, errors=ck.nan_checks)(-1.0)
    assert "'log' produced a NaN" in err.get() and np.isnan(out)
    err, out = ck.checkify(lambda x: fnp.log(x) if x > 0 else x, errors=ck.nan_checks)(-1.0)
    assert err.get() is None and out == -1.0  # (its value still works in Python control flow)
