"""fg.debug (print, callback, breakpoint) under every transform, and debug_nans / debug_infs."""
import inspect
import pathlib
import re
import sys
import warnings

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.compiler.passes import optimize
from fungrad.core.ir import Eqn, Graph, Var, aval_of
from fungrad.lax.debug import debug_callback_p

HERE = pathlib.Path(__file__).name


def _line(marker: str) -> str:
    """`test_debug.py:N` of the line of this file holding `marker` (a unique comment)."""
    lines = pathlib.Path(__file__).read_text().splitlines()
    hits = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, marker
    return f"{HERE}:{hits[0]}"


@pytest.fixture(autouse=True)
def _flags_off():
    yield
    fg.config.update("debug_nans", False)
    fg.config.update("debug_infs", False)


def _printing(x):
    fg.debug.print("x = {}", x)
    y = fnp.sin(x)
    fg.debug.print("y = {y}", y=y)
    return y * 2.0


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def _fmt(v):
    return str(np.asarray(v))


# ----------------------------------------------------------------------------- print
def test_print_eager(capsys):
    x = np.array([0.0, 1.0])
    _printing(x)
    assert _lines(capsys) == [f"x = {_fmt(x)}", f"y = {_fmt(np.sin(x))}"]


def test_print_jit_runs_at_every_call_with_the_runtime_values(capsys):
    f = fg.jit(_printing)
    a, b = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    np.testing.assert_allclose(f(a), 2 * np.sin(a))
    np.testing.assert_allclose(f(b), 2 * np.sin(b))
    assert f.cache_info().misses == 1  # traced once, printed at both calls
    assert _lines(capsys) == [f"x = {_fmt(a)}", f"y = {_fmt(np.sin(a))}",
                              f"x = {_fmt(b)}", f"y = {_fmt(np.sin(b))}"]


def test_print_vmap_one_line_per_batch_element(capsys):
    xs = np.arange(4.0).reshape(2, 2)
    out = fg.vmap(_printing)(xs)
    np.testing.assert_allclose(out, 2 * np.sin(xs))
    # each print is applied to the whole batch: its element lines, then the next print's
    assert _lines(capsys) == [f"x = {_fmt(xs[0])}", f"x = {_fmt(xs[1])}",
                              f"y = {_fmt(np.sin(xs[0]))}", f"y = {_fmt(np.sin(xs[1]))}"]


def test_print_vmap_other_axis_and_unbatched_values(capsys):
    xs, w = np.arange(6.0).reshape(2, 3), np.array(7.0)
    fg.vmap(lambda x: fg.debug.print("{} {}", x, w), in_axes=1)(xs)
    assert _lines(capsys) == [f"{_fmt(xs[:, i])} {_fmt(w)}" for i in range(3)]


@pytest.mark.parametrize("wrap", ["grad", "jit_grad", "grad_jit"])
def test_print_under_grad_prints_primals_and_keeps_the_gradient(capsys, wrap):
    def loss(x):
        return fnp.sum(_printing(x))
    g = {"grad": fg.grad(loss), "jit_grad": fg.jit(fg.grad(loss)),
         "grad_jit": fg.grad(lambda x: fnp.sum(fg.jit(_printing)(x)))}[wrap]
    for x in (np.array([0.0, 1.0]), np.array([0.5, 2.0])):
        np.testing.assert_allclose(g(x), 2 * np.cos(x))
        assert _lines(capsys) == [f"x = {_fmt(x)}", f"y = {_fmt(np.sin(x))}"]


def test_print_under_jvp_and_vmap_of_jit(capsys):
    x = np.array([0.0, 1.0])
    y, t = fg.jvp(fg.jit(_printing), (x,), (np.ones(2),))
    np.testing.assert_allclose(t, 2 * np.cos(x))
    assert _lines(capsys) == [f"x = {_fmt(x)}", f"y = {_fmt(np.sin(x))}"]
    xs = np.arange(4.0).reshape(2, 2)
    np.testing.assert_allclose(fg.vmap(fg.jit(_printing))(xs), 2 * np.sin(xs))
    assert _lines(capsys) == [f"x = {_fmt(xs[0])}", f"x = {_fmt(xs[1])}",
                              f"y = {_fmt(np.sin(xs[0]))}", f"y = {_fmt(np.sin(xs[1]))}"]


def test_print_of_second_derivative(capsys):
    f = fg.grad(fg.grad(lambda x: (fg.debug.print("x={}", x), x ** 3)[1]))
    assert f(2.0) == 12.0
    assert _lines(capsys) == ["x=2.0"]


def test_print_whose_value_is_unused_survives_dce(capsys):
    def f(x):
        fg.debug.print("unused {}", fnp.exp(x))  # nothing else reads exp(x)
        return x * 2.0
    jf = fg.jit(f)
    assert "np.exp" in jf.lower(np.ones(2)).source
    jf(np.zeros(2))
    assert _lines(capsys) == [f"unused {_fmt(np.ones(2))}"]


def test_prints_keep_their_order_and_are_not_merged(capsys):
    def f(x):
        y = fnp.sin(x)
        fg.debug.print("a {}", y)
        fg.debug.print("b {}", x)  # reads only an input: must not move before "a"
        fg.debug.print("b {}", x)  # the same again: must not be merged
        return x
    fg.jit(f)(np.array(1.0))
    assert _lines(capsys) == [f"a {np.sin(1.0)}", "b 1.0", "b 1.0"]


def test_print_of_no_traced_value_inside_jit_runs_at_every_call(capsys):
    f = fg.jit(lambda x: (fg.debug.print("hello {}", 3), x + 1.0)[1])
    f(1.0)
    f(2.0)
    assert _lines(capsys) == ["hello 3", "hello 3"]
    g = fg.grad(fg.jit(lambda x: (fg.debug.print("hi"), x * x)[1]))  # derived (split) call
    g(1.0)
    g(2.0)
    assert _lines(capsys) == ["hi", "hi"]


def test_passes_never_drop_merge_or_fold_a_callback():
    seen = []
    cb = lambda *v: seen.append(v)  # noqa: E731
    x = Var(aval_of(np.ones(2)))
    from fungrad.core.ir import Literal
    eqns = [Eqn(debug_callback_p, [x], {"callback": cb}, []),
            Eqn(debug_callback_p, [x], {"callback": cb}, []),
            Eqn(debug_callback_p, [Literal(np.ones(2))], {"callback": cb}, [])]
    out = optimize(Graph([x], eqns, [x]))
    assert [e.prim for e in out.eqns] == [debug_callback_p] * 3


# ----------------------------------------------------------------------------- callback
def test_callback_gets_numpy_copies_with_pytrees():
    seen = []
    f = fg.jit(lambda p: (fg.debug.callback(lambda d, s=None: seen.append((d, s)), p,
                                            s="static"), p["a"] * 2.0)[1])
    for k in range(2):
        f({"a": np.full(3, float(k)), "b": np.arange(2)})
    assert [s for _, s in seen] == ["static", "static"]
    for k, (d, _) in enumerate(seen):
        assert type(d["a"]) is np.ndarray and (d["a"] == k).all()  # not overwritten later
        np.testing.assert_array_equal(d["b"], np.arange(2))


def test_callback_returns_none_under_every_transform():
    calls = []

    def f(x):
        assert fg.debug.callback(calls.append, x) is None
        return fnp.sum(x * x)
    x = np.ones(2)
    fg.grad(f)(x)
    fg.vmap(f)(np.ones((3, 2)))
    fg.jit(fg.vmap(fg.grad(f)))(np.ones((3, 2)))
    assert len(calls) == 1 + 3 + 3
    assert all(type(c) is np.ndarray and c.shape == (2,) for c in calls)


# ----------------------------------------------------------------------------- breakpoint
@pytest.fixture
def fake_pdb(monkeypatch):
    """pdb.set_trace replaced: records the local variables of the frame it was called in."""
    import pdb
    stops = []
    monkeypatch.setattr(pdb, "set_trace", lambda *a, **k: stops.append(
        dict(sys._getframe(1).f_locals)))
    return stops


@pytest.mark.parametrize("jit", [False, True])
def test_breakpoint_stops_with_the_runtime_values(fake_pdb, jit):
    def f(x, scale):
        y = fnp.log(x) * scale
        fg.debug.breakpoint(x + 1.0, note="here")
        return y
    g = fg.jit(f, static_argnums=1) if jit else f
    for v in (1.0, 2.0):
        g(np.full(2, v), 3)
    assert len(fake_pdb) == 2
    for env, v in zip(fake_pdb, (1.0, 2.0)):
        assert type(env["y"]) is np.ndarray
        np.testing.assert_allclose(env["y"], np.log(np.full(2, v)) * 3)
        np.testing.assert_allclose(env["args"][0], v + 1.0)
        assert env["scale"] == 3 and env["note"] == "here"


def test_breakpoint_under_vmap_stops_per_element(fake_pdb):
    fg.vmap(lambda x: (fg.debug.breakpoint(), x)[1])(np.arange(3.0))
    assert [float(env["x"]) for env in fake_pdb] == [0.0, 1.0, 2.0]


# ----------------------------------------------------------------------------- debug_nans
def _log_of(x):
    return fnp.sum(fnp.log(x))  # LOG


def _sqrt_times_zero(x):
    return fnp.sum(fnp.sqrt(x) * 0.0)  # SQRT


def _raises(flag, prim, line, fn, *args):
    fg.config.update(flag, True)
    with pytest.raises(FloatingPointError) as info:
        fn(*args)
    msg = str(info.value)
    assert isinstance(info.value, fg.errors.NonFiniteError)
    assert msg.startswith(f"{flag}:") and (f"'{prim}'" in msg or f"NumPy's {prim}" in msg), msg
    assert line in msg, msg
    assert f"fg.config.update('{flag}', False)" in msg
    return msg


def test_debug_nans_eager_forward():
    msg = _raises("debug_nans", "log", _line("LOG"), _log_of, np.array([1.0, -1.0]))
    assert "a NaN" in msg
    _raises("debug_nans", "log", _line("EAGER"), lambda: fnp.log(-1.0))  # EAGER


def test_debug_nans_forward_of_grad_names_the_primitive():
    msg = _raises("debug_nans", "log", _line("LOG"), fg.grad(_log_of), np.array([-1.0]))
    assert "the primitive 'log'" in msg


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_debug_nans_backward_names_the_forward_line():
    # sqrt'(0) = inf (no error: only NaNs are checked); 0 * inf = nan in the backward pass
    msg = _raises("debug_nans", "mul", _line("SQRT"), fg.grad(_sqrt_times_zero), np.zeros(2))
    assert "backward pass" in msg


def test_debug_infs_grad_of_sqrt_at_zero():
    msg = _raises("debug_infs", "div", _line("SQRT"), fg.grad(_sqrt_times_zero), 0.0)
    assert "an inf" in msg


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.parametrize("case", ["forward", "backward", "nan_input", "nested"])
def test_debug_nans_jit_reruns_to_pinpoint(case):
    if case == "forward":
        msg = _raises("debug_nans", "log", _line("LOG"), fg.jit(_log_of), np.array([-1.0]))
    elif case == "backward":
        msg = _raises("debug_nans", "mul", _line("SQRT"), fg.jit(fg.grad(_sqrt_times_zero)),
                      np.zeros(2))
        assert "[backward pass]" in msg
    elif case == "nan_input":  # no NumPy flag: found by the output check, then the re-run
        msg = _raises("debug_nans", "sin", _line("SIN"),
                      fg.jit(lambda x: fnp.sin(x) + 1.0), np.array([np.nan]))  # SIN
    else:
        inner = fg.jit(_log_of)
        msg = _raises("debug_nans", "log", _line("LOG"), fg.jit(lambda x: inner(x) * 2.0),
                      np.array([-1.0]))
    assert "re-running it un-jitted" in msg


def test_debug_infs_jit_and_vmap():
    _raises("debug_infs", "log", _line("LOG"), fg.jit(_log_of), np.zeros(1))
    _raises("debug_infs", "log", _line("LOG"), fg.vmap(_log_of), np.zeros((2, 1)))


def test_flags_off_no_error_and_numpy_state_restored():
    before = np.geterr()
    fg.config.update("debug_nans", True)
    fg.config.update("debug_infs", True)
    fg.config.update("debug_nans", False)
    fg.config.update("debug_infs", False)
    assert np.geterr() == before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(_log_of(np.array([-1.0])))
        assert np.isnan(fg.jit(_log_of)(np.array([-1.0])))
        assert np.isnan(fg.grad(_sqrt_times_zero)(np.zeros(1))).all()


def test_only_the_flag_that_is_on_raises():
    fg.config.update("debug_infs", True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(fg.jit(_log_of)(np.array([-1.0])))  # a NaN, not an inf
    fg.config.update("debug_infs", False)
    fg.config.update("debug_nans", True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert fg.jit(_log_of)(np.zeros(1)) == -np.inf


def test_flag_is_in_the_jit_cache_key_and_off_code_is_unchanged():
    f = fg.jit(_log_of)
    x = np.array([-1.0])
    lowered_off = f.lower(x)
    assert lowered_off.call.fn is lowered_off.call.compiled.fn  # no checking wrapper
    fg.config.update("debug_nans", True)
    lowered_on = f.lower(x)
    assert lowered_on.call is not lowered_off.call and f.cache_info().misses == 2
    assert lowered_on.call.fn is not lowered_on.call.compiled.fn
    with pytest.raises(FloatingPointError):
        f(x)
    fg.config.update("debug_nans", False)
    assert f.lower(x).call is lowered_off.call  # the unchecked entry again, unchanged
    assert f.lower(x).source == lowered_off.source and f.cache_info().misses == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(f(x))


def test_flag_values_are_checked():
    with pytest.raises(ValueError, match="debug_nans must be True or False"):
        fg.config.update("debug_nans", 1)


def test_prints_run_once_when_a_nan_is_pinpointed(capsys):
    def f(x):
        fg.debug.print("before {}", x)
        return fnp.log(x)
    fg.config.update("debug_nans", True)
    with pytest.raises(FloatingPointError):
        fg.jit(f)(np.array(-1.0))
    assert _lines(capsys) == ["before -1.0"]


def test_messages_name_existing_apis():
    fg.config.update("debug_nans", True)
    with pytest.raises(FloatingPointError) as info:
        fnp.log(-1.0)
    for api in re.findall(r"(fnp\.\w+|fg\.config\.update)", str(info.value)):
        obj = {"fnp": fnp, "fg": fg}[api.split(".")[0]]
        for part in api.split(".")[1:]:
            obj = getattr(obj, part)
    assert inspect.isroutine(fnp.where)


def test_prints_inside_loops_branches_and_nested_jit_survive_dce(capsys):
    """A scan / while / cond / nested jit whose outputs are unused still runs when its body
    prints: the jit passes treat an equation holding an effectful graph as effectful."""
    def body(c, x):
        fg.debug.print("scan {x}", x=x)
        return c + x, x
    inner = fg.jit(lambda v: (fg.debug.print("inner {v}", v=v), v * 2)[1])

    def f(xs):
        fg.lax.scan(body, 0.0, xs)
        fg.lax.while_loop(lambda c: c < 1, lambda c: (fg.debug.print("while {c}", c=c), c + 1)[1],
                          0)
        fg.lax.cond(xs[0] > -1, lambda v: (fg.debug.print("cond {v}", v=v), v)[1],
                    lambda v: v, xs[0])
        inner(xs[1])
        return xs[0]
    jitted = fg.jit(f)
    for _ in range(2):   # at every call (a loop of constants is staged, not run at tracing)
        jitted(np.arange(2.0))
        out = capsys.readouterr().out.split("\n")
        assert out == ["scan 0.0", "scan 1.0", "while 0", "cond 0.0", "inner 1.0", ""]


def test_print_inside_an_unused_checkpoint_runs_at_every_call(capsys):
    f = fg.checkpoint(lambda x: (fg.debug.print("remat {x}", x=x), x * 2)[1])
    g = fg.jit(lambda x: (f(x), x + 1)[1])
    for v in (1.0, 2.0):
        g(v)
        assert capsys.readouterr().out == f"remat {v}\n"
