"""jit against eager on random programs: regression tests for what a random-program fuzzer
found (each failed before its fix), and a small seeded version of that fuzzer."""
import warnings

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp


# ----------------------------------------------------------------------------- regressions
def test_donated_numpy_scalar_returned_is_an_array():
    # a donated 0-d leaf that is a NumPy scalar, returned as it is: `.view()` of a NumPy
    # scalar is a scalar (every jit output is an array)
    f = fg.jit(lambda a, b: (a, b * 2), donate_argnums=(0, 1))
    a, b = f(np.float32(3.0), np.float64(2.0))
    assert type(a) is np.ndarray and a.dtype == np.float32 and a == 3.0
    assert type(b) is np.ndarray and b == 4.0
    x = np.array(5.0)
    (y,) = fg.jit(lambda a: (a,), donate_argnums=0)(x)
    assert type(y) is np.ndarray and y == 5.0 and y.flags.writeable


def test_add_of_positive_zero_is_not_dropped():
    # -0.0 + 0.0 is 0.0: `x + 0.0 -> x` gave -0.0 where eager gives 0.0
    x = np.array([-0.0, 1.0, -2.0])
    for f in (lambda x: x + 0.0, lambda x: 0.0 + x, lambda x: x + 0,
              lambda x: x - (-0.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = f(x), fg.jit(f)(x)
        assert np.array_equal(np.signbit(want), np.signbit(got)), (want, got)
        assert not np.signbit(got[0])
    # a value_and_grad's value that starts from 0.0 + (a sum that is -0.0)
    loss = lambda x: 0.0 + fnp.sum(x * 0.0)
    v, g = fg.jit(fg.value_and_grad(loss))(np.array([-1.0, -2.0]))
    v0, _ = fg.value_and_grad(loss)(np.array([-1.0, -2.0]))
    assert not np.signbit(v) and not np.signbit(v0)
    z = np.array([-0.0 - 0.0j, 1.0 - 0.0j])
    for f in (lambda x: x + 0.0, lambda x: x + 0):
        got, want = fg.jit(f)(z), f(z)
        assert np.array_equal(np.signbit(got.real), np.signbit(want.real))
        assert np.array_equal(np.signbit(got.imag), np.signbit(want.imag))


def test_identities_that_keep_zero_signs_are_still_dropped():
    # x + (-0.0), x - 0.0, and integer x + 0 are x: no equation (no cost on the hot path)
    x = np.array([-0.0, 1.0])
    for f in (lambda x: x + (-0.0), lambda x: x - 0.0, lambda x: x * 1.0):
        lowered = fg.jit(f).lower(x)
        assert not lowered.ir.graph.eqns, lowered.source
        assert np.array_equal(np.signbit(fg.jit(f)(x)), np.signbit(f(x)))
    assert not fg.jit(lambda i: i + 0).lower(np.arange(3)).ir.graph.eqns


def test_at_min_with_python_int_update_under_jit_grad():
    # x.at[idx].min(2) on float64 x left the update an int64 array (np.dtype("float64") ==
    # None is True), and the JVP rule's staged comparison of it with x rejected the dtypes
    def loss(a):
        return fnp.sum(fnp.at(a)[np.array([0, 0])].min(2) * a)
    x = np.array([1.0, 3.0, 5.0])
    want = fg.grad(loss)(x)
    got = fg.jit(fg.grad(loss))(x)
    np.testing.assert_array_equal(want, got)
    np.testing.assert_array_equal(fg.jit(loss)(np.array([3.0, 1.0])), loss(np.array([3.0, 1.0])))


def test_clip_with_out_of_range_python_int_bound_under_jit():
    # np.clip(x_int32, 0, 2**31) works; traced, minimum(x_int32, 2**31) raised OverflowError
    x = np.array([-2, 5, 7], np.int32)
    for lo, hi in [(False, 2 ** 31), (-2 ** 40, 6), (-1, 300)]:
        f = lambda x: fnp.clip(x, lo, hi)
        want, got = f(x), fg.jit(f)(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    u = np.array([2, 5], np.uint8)
    f = lambda x: fnp.clip(x, -1, 300)
    np.testing.assert_array_equal(fg.jit(f)(u), f(u))


def test_grad_of_division_by_a_zero_python_scalar_keeps_float32():
    # d(x / 0)/dx: 1/0 as div(1.0, 0) is a strong np.float64 inf, which made the float32
    # gradient float64 (eagerly; under jit only sometimes)
    x = np.array([0.5, -1.5], np.float32)
    for f, want in ((lambda x: fnp.sum(x / 0), np.inf), (lambda x: fnp.sum(x / -0.0), -np.inf)):
        with np.errstate(all="ignore"):
            g, jg = fg.grad(f)(x), fg.jit(fg.grad(f))(x)
        assert g.dtype == jg.dtype == np.float32
        np.testing.assert_array_equal(g, [want, want])
        np.testing.assert_array_equal(jg, [want, want])


def test_round_of_bools_traced_is_float16():
    # NumPy rounds bools to float16; traced, fnp.round returned the bools (so a jitted or a
    # value_and_grad'ed function changed dtype where a value happened to be traced)
    b = np.array([True, False])
    assert fnp.round(b).dtype == np.float16
    got = fg.jit(fnp.round)(b)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, [1.0, 0.0])

    def loss(x):
        return fnp.sum(fnp.round(fnp.any(x > 0, keepdims=True)) * 0.5 + x)
    x = np.array([-1.0, 2.0])
    v, _ = fg.value_and_grad(loss)(x)
    jv, _ = fg.jit(fg.value_and_grad(loss))(x)
    assert v == jv == 2.0 and jv.dtype == v.dtype


# ----------------------------------------------------------------------------- the fuzzer
DTYPES = ["float32", "float64", "int32", "int64", "bool", "complex128", "float16"]
SCALARS = ["0", "1", "-1", "2", "0.5", "-0.0", "0.0", "-2.5", "float('nan')", "float('inf')",
           "2**31", "True", "1e300", "100", "-3"]
UNARY = ["negative", "abs", "exp", "log", "sqrt", "sin", "tanh", "square", "sign", "floor",
         "round", "isnan", "real", "imag", "conj", "logical_not", "reciprocal", "expm1",
         "cos", "signbit", "isinf"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
          "maximum", "minimum", "copysign", "power", "arctan2", "logical_and", "bitwise_or",
          "less", "equal", "fmax", "hypot"]
OPERATORS = ["+", "-", "*", "/", "**", "//", "&", "<", "=="]
REDUCTIONS = ["sum", "max", "min", "mean", "prod", "any", "argmax", "var"]


def _rand(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        x = rng.random(shape) < 0.5
    elif dt.kind == "i":
        x = rng.integers(-5, 6, size=shape).astype(dt)
    elif dt.kind == "c":
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    else:
        x = rng.standard_normal(shape) * 3
        if np.ndim(x) and rng.random() < 0.3:
            x.flat[0] = [0.0, -0.0, np.nan, np.inf][rng.integers(4)]
        x = np.asarray(x).astype(dt)
    return np.asarray(x) if rng.random() < 0.7 else x[()]  # 0-d: an array or a scalar


class _Program:
    """A random straight-line fnp program, each line checked eagerly as it is drawn."""

    def __init__(self, seed):
        rng = self.rng = np.random.default_rng(seed)
        nd = int(rng.integers(0, 3))
        base = [int(rng.integers(1, 4)) for _ in range(nd)]
        self.args, self.env, self.names, self.lines = [], {}, [], []
        for i in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, nd + 1))
            shape = tuple(1 if rng.random() < 0.2 else d for d in base[nd - k:])
            dt = (["float32", "float64"][rng.integers(2)] if rng.random() < 0.6
                  else DTYPES[rng.integers(len(DTYPES))])
            self.args.append(_rand(rng, shape, dt))
            self.env[f"a{i}"] = self.args[-1]
            self.names.append(f"a{i}")
        n = int(rng.integers(3, 14))
        for _ in range(6 * n):
            if len(self.lines) >= n:
                break
            try:
                self._try(self._expr())
            except Exception:
                pass
        outs = []
        for _ in range(int(rng.integers(1, 4))):
            r = rng.random()
            if r < 0.15:
                outs.append("a0")
            elif r < 0.25 and outs:
                outs.append(outs[-1])
            elif r < 0.3:
                outs.append("fnp.ones(2)")
            else:
                outs.append(self.names[-1 - int(rng.integers(min(3, len(self.names))))])
        params = [f"a{i}" for i in range(len(self.args))]
        self.source = (f"def f({', '.join(params)}):\n"
                       + "".join(f"    {ln}\n" for ln in self.lines)
                       + f"    return ({', '.join(outs)},)\n")
        ns = {"fnp": fnp, "np": np}
        exec(self.source, ns)
        self.f = ns["f"]

    def _pick(self, pred=None):
        c = [n for n in self.names if pred is None or pred(self.env[n])]
        if not c:
            return None
        if self.rng.random() < 0.5:
            c = c[-3:]  # recent values: chains the buffer plan can run in place
        return c[self.rng.integers(len(c))]

    def _scalar(self):
        return SCALARS[self.rng.integers(len(SCALARS))]

    def _try(self, expr):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            val = eval(expr, {"fnp": fnp, "np": np, **self.env})
        val = np.asarray(val)
        if val.dtype.name not in DTYPES or val.size > 200:
            return
        name = f"v{len(self.lines)}"
        self.env[name] = val
        self.names.append(name)
        self.lines.append(f"{name} = {expr}")

    def _expr(self):
        rng, X = self.rng, self._pick()
        x = self.env[X]
        r = rng.random()
        if r < 0.15:
            return f"fnp.{UNARY[rng.integers(len(UNARY))]}({X})"
        if r < 0.35:
            op = BINARY[rng.integers(len(BINARY))]
            k = rng.integers(3)
            return (f"fnp.{op}({X}, {self._scalar()})" if k == 0 else
                    f"fnp.{op}({self._scalar()}, {X})" if k == 1 else
                    f"fnp.{op}({X}, {self._pick()})")
        if r < 0.5:
            op = OPERATORS[rng.integers(len(OPERATORS))]
            return f"{X} {op} {self._scalar() if rng.random() < 0.5 else self._pick()}"
        if r < 0.55:
            return f"fnp.where({X} > 0, {X}, {self._scalar()})"
        if r < 0.58:
            return f"fnp.clip({X}, {self._scalar()}, {self._scalar()})"
        if r < 0.66:
            red = REDUCTIONS[rng.integers(len(REDUCTIONS))]
            ax = str(int(rng.integers(-x.ndim, x.ndim))) if x.ndim else "None"
            kd = ", keepdims=True" if rng.random() < 0.4 and red != "argmax" else ""
            return f"fnp.{red}({X}, axis={ax}{kd})"
        if r < 0.78:
            k = rng.integers(7)
            if k == 0:
                return f"fnp.reshape({X}, -1)"
            if k == 1 and x.ndim:
                return f"fnp.transpose({X}, {tuple(int(p) for p in rng.permutation(x.ndim))})"
            if k == 2:
                return f"fnp.broadcast_to({X}, (2,) + {x.shape})"
            if k == 3 and x.ndim:
                return f"{X}[1:]" if rng.random() < 0.5 else f"{X}[::-1]"
            if k == 4 and x.ndim:
                Y = self._pick(lambda v: v.ndim == x.ndim)
                return f"fnp.concatenate([{X}, {Y}], axis=0)"
            if k == 5:
                return f"fnp.stack([{X}, {X}])"
            return f"{X}.astype(np.{DTYPES[rng.integers(len(DTYPES))]})"
        if r < 0.84 and x.ndim:
            Y = self._pick(lambda v: v.ndim >= 1 and v.shape[0] == x.shape[-1])
            if Y is not None:
                return f"{X} @ {Y}"
        if r < 0.9 and x.ndim:
            meth = ["set", "add", "max"][rng.integers(3)]
            return f"fnp.at({X})[np.array([0, 0])].{meth}({self._scalar()})"
        if r < 0.94 and x.ndim:
            return f"fnp.{['cumsum', 'sort'][rng.integers(2)]}({X}, axis=-1)"
        X = self.names[-1]  # an in-place-able chain on the latest value
        return f"({X} + {self._scalar()}) * {X}"


def _leaves(x):
    return fg.tree.tree_leaves(x)


def _mismatch(a, b):
    """Eager `a` against jit's `b`: None if they agree (ints and bools bitwise, floats within
    a few ulps with NaN and inf positions equal; zero signs are not compared)."""
    a = np.asarray(a)
    if type(b) is not np.ndarray or a.dtype != b.dtype or a.shape != b.shape:
        return f"{type(b).__name__} {getattr(b, 'dtype', '')} {np.shape(b)} vs {a.dtype} {a.shape}"
    if a.dtype.kind == "c":
        return _mismatch(a.real, b.real) or _mismatch(a.imag, b.imag)
    if a.dtype.kind != "f":
        return None if np.array_equal(a, b) else "values"
    fin = np.isfinite(a)
    if not (np.array_equal(fin, np.isfinite(b)) and np.array_equal(a[~fin], b[~fin], equal_nan=True)):
        return "NaN / inf positions"
    fa, fb = a[fin].astype(np.float64), b[fin].astype(np.float64)
    eps = np.finfo(a.dtype).eps
    if np.any(np.abs(fa - fb) > 64 * eps * np.maximum(np.abs(fa), np.abs(fb)) + 1e-300):
        return "values"
    return None


def _check_outputs(eager, got, inputs):
    el, gl = _leaves(eager), _leaves(got)
    assert len(el) == len(gl)
    for k, (a, b) in enumerate(zip(el, gl)):
        m = _mismatch(a, b)
        assert m is None, f"output {k}: {m}\neager {a!r}\njit   {b!r}"
        assert b.flags.writeable, f"output {k} is read-only"
        for j, x in enumerate(inputs):
            assert not (isinstance(x, np.ndarray) and np.shares_memory(b, x)), (k, j)
        for j in range(k):
            assert not np.shares_memory(b, gl[j]), f"outputs {j} and {k} share memory"


def _quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def _check_program(seed):
    p = _Program(seed)
    f, args, rng = p.f, p.args, p.rng
    try:
        eager = _quiet(f, *args)
    except Exception:
        return
    saved = [np.array(a) for a in args]
    jf = fg.jit(f)
    out1 = _quiet(jf, *args)
    _check_outputs(eager, out1, args)
    assert all(np.array_equal(a, s, equal_nan=True) for a, s in zip(args, saved))
    kept = [np.array(o) for o in _leaves(out1)]
    args2 = [_rand(rng, np.shape(a), a.dtype) for a in args]
    try:
        eager2 = _quiet(f, *args2)
    except Exception:
        return
    for _ in range(2):  # (a cache hit, then one that may reuse the buffers it returned)
        _check_outputs(eager2, _quiet(jf, *args2), args2)
    for o, k in zip(_leaves(out1), kept):  # call 1's outputs survive the later calls
        assert np.array_equal(o, k, equal_nan=True), "a later call overwrote an output"
    # donation: the result is eager's, the arguments not donated are left as they were
    don = tuple(i for i in range(len(args)) if rng.random() < 0.5) or (0,)
    mine = [np.array(a) if np.ndim(a) else a for a in args2]
    out = _quiet(fg.jit(f, donate_argnums=don), *mine)
    _check_outputs(eager2, out, [a for i, a in enumerate(mine) if i not in don])
    for i, (a, s) in enumerate(zip(mine, args2)):
        if i not in don:
            assert np.array_equal(a, s, equal_nan=True), f"argument {i} was written"
    # reverse mode through the whole program, compiled and eager
    flt = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
    if flt:
        def loss(*a):
            total = 0.0
            for o in _leaves(f(*a)):
                if np.dtype(fnp.result_type(o)).kind in "fc":
                    total = total + fnp.sum(fnp.real(o)).astype(np.float64)
            return fnp.asarray(total, np.float64)
        vg = fg.value_and_grad(loss, argnums=flt)
        try:
            want = _quiet(vg, *args)
        except Exception:
            return
        _check_outputs(want, _quiet(fg.jit(vg), *args), args)


def test_jit_matches_eager_on_random_programs():
    for seed in range(200):
        try:
            _check_program(seed)
        except AssertionError as e:
            raise AssertionError(f"seed {seed}:\n{_Program(seed).source}\n{e}") from None
