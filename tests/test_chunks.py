"""Cache-blocked elementwise regions (fungrad/compiler/chunks.py): jit runs a run of
elementwise ufuncs over one large shape chunk by chunk; the results are bit for bit those of
the plain sequence, with donation, recycled outputs and non-contiguous arrays (which take
the plain path)."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.compiler import chunks

from test_jit_fuzz import _Program, _check_program


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Every float elementwise run of two or more elements is chunked, in 1-2 element chunks:
    the random programs of test_jit_fuzz then exercise the chunked code everywhere."""
    monkeypatch.setattr(chunks, "CHUNK_MIN_ELEMENTS", 2)
    monkeypatch.setattr(chunks, "CACHE_BYTES", 16)
    monkeypatch.setattr(chunks, "_MIN_CHUNK", 1)


def test_random_programs_match_eager_when_chunked(tiny_chunks):
    chunked = 0
    for seed in range(200):
        p = _Program(seed)
        try:
            chunked += "chunked" in fg.jit(p.f).lower(*p.args).source
        except Exception:
            pass  # (programs eager rejects: _check_program skips them too)
        try:
            _check_program(seed)
        except AssertionError as e:
            raise AssertionError(f"seed {seed}:\n{p.source}\n{e}") from None
    assert chunked >= 5, chunked  # the fixture's thresholds do make programs chunk


def _adam_problem(dtype=np.float32):
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((300, 500)).astype(dtype),
              "v": rng.standard_normal((200, 700)).astype(dtype),
              "b": rng.standard_normal(500).astype(dtype)}
    opt = fg.optim.adam(1e-3)

    def step(params, state, x):
        loss, g = fg.value_and_grad(
            lambda p: fnp.sum(fnp.tanh(x @ p["w"] + p["b"])) + fnp.sum(p["v"] ** 2))(params)
        updates, state = opt.update(g, state, params)
        return fg.optim.apply_updates(params, updates), state, loss
    x = rng.standard_normal((8, 300)).astype(dtype)
    return params, opt.init(params), x, step


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("donate", [(), (0, 1)])
def test_optimizer_step_chunked_equals_plain_bit_for_bit(monkeypatch, dtype, donate):
    params, state, x, step = _adam_problem(dtype)
    results = []
    for limit in (chunks.CHUNK_MIN_ELEMENTS, 1 << 60):
        monkeypatch.setattr(chunks, "CHUNK_MIN_ELEMENTS", limit)
        jitted = fg.jit(step, donate_argnums=donate)
        source = jitted.lower(*fg.tree.tree_map(np.copy, (params, state)), x).source
        # one region per large leaf (w: 150,000 elements, v: 140,000), its moments, update
        # and parameter add side by side although the trace interleaves the leaves
        assert source.count("# chunked") == (2 if limit < 1 << 60 else 0), source
        p, s = fg.tree.tree_map(np.copy, (params, state))
        outs = []
        for _ in range(3):  # (later calls recycle the arrays the first ones returned)
            p, s, loss = jitted(p, s, x)
            outs.append(fg.tree.tree_leaves((p, s, loss)))
        results.append(outs)
    for chunked, plain in zip(*results):
        for a, b in zip(chunked, plain):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    for leaf in results[0][-1]:
        assert leaf.flags.writeable and leaf.flags.c_contiguous


def test_non_contiguous_arrays_take_the_plain_path():
    params, state, x, step = _adam_problem()
    jitted = fg.jit(step)
    want = jitted(params, state, x)
    # Fortran-ordered parameters and moments: same shapes (the same compiled code), the
    # runtime check sends them down the plain sequence
    f_params, f_state = fg.tree.tree_map(np.asfortranarray, (params, state))
    got = jitted(f_params, f_state, x)
    assert "# chunked" in jitted.lower(f_params, f_state, x).source
    for a, b in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # user arrays are not written, outputs share no memory with them
    for a, b in zip(fg.tree.tree_leaves((f_params, f_state)),
                    fg.tree.tree_leaves(fg.tree.tree_map(np.asfortranarray, (params, state)))):
        assert np.array_equal(a, b)
    for o in fg.tree.tree_leaves(got):
        assert not any(np.shares_memory(o, a) for a in fg.tree.tree_leaves((f_params, f_state)))


def test_views_and_broadcasts_are_not_chunked():
    # a transposed operand or a broadcast one is not a whole allocation of the output's
    # shape: the run is left as it is (and computes what eager does)
    x = np.random.default_rng(1).standard_normal((600, 600))
    b = np.arange(600.0)

    def f(x, b):
        return fnp.tanh(x.T * 2.0 + 1.0) * 3.0, fnp.exp(x + b) - 1.0
    lowered = fg.jit(f).lower(x, b)
    assert "# chunked" not in lowered.source
    for got, want in zip(fg.jit(f)(x, b), f(x, b)):
        np.testing.assert_allclose(got, want, rtol=1e-15)
    # the same run over whole arrays is chunked
    g = lambda x: fnp.tanh(x * 2.0 + 1.0) * 3.0
    assert "# chunked" in fg.jit(g).lower(x).source
    assert fg.jit(g)(x).tobytes() == g(x).tobytes()


def test_regions_survive_the_narrow_float_kernels():
    # the first bfloat16 value wraps every elementwise impl (lax/elementwise.py,
    # _keep_narrow); regions are recognised by their emit rule, so they stay chunked
    ml_dtypes = pytest.importorskip("ml_dtypes")
    fnp.add(np.ones(2, ml_dtypes.bfloat16), 1.0)
    x = np.ones((600, 600))
    g = lambda x: fnp.tanh(x * 2.0 + 1.0) * 3.0
    assert "# chunked" in fg.jit(g).lower(x).source
