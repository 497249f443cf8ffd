"""fg.nn.dot_product_attention against a NumPy reference written head by head from the
formula softmax(scale q k^T + bias, masked) v (jax.nn.dot_product_attention's arguments and
conventions: GQA head grouping, causal / window masks aligned at position 0, padding by
sequence lengths, a row with nothing to attend to averaging all values), its derivatives
against finite differences, jit, vmap and the errors."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

RNG = np.random.default_rng(0)


def reference(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None,
              kv_len=None, window=None):
    """Loops over batch and heads; query head n reads key/value head n // (N // K)."""
    b_, t_, n, h = q.shape
    s_, kh = k.shape[1], k.shape[2]
    scale = 1 / np.sqrt(h) if scale is None else scale
    out = np.zeros(q.shape, np.result_type(q, np.float32))
    lse = np.zeros((b_, t_, n))
    for b in range(b_):
        for head in range(n):
            kv = head // (n // kh)
            logits = scale * q[b, :, head] @ k[b, :, kv].T            # (T, S)
            if bias is not None:
                logits = logits + np.broadcast_to(bias, (b_, n, t_, s_))[b, head]
            keep = np.ones((t_, s_), bool)
            if mask is not None:
                keep &= np.broadcast_to(mask, (b_, n, t_, s_))[b, head]
            ti, si = np.arange(t_)[:, None], np.arange(s_)[None, :]
            if is_causal:
                keep &= si <= ti
            if window is not None:
                keep &= (ti - window[0] <= si) & (si <= ti + window[1])
            if q_len is not None:
                keep &= ti < q_len[b]
            if kv_len is not None:
                keep &= si < kv_len[b]
            logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
            m = logits.max(-1, keepdims=True)
            e = np.exp(logits - m)
            out[b, :, head] = (e / e.sum(-1, keepdims=True)) @ v[b, :, kv]
            lse[b, :, head] = np.log(e.sum(-1)) + m[:, 0]
            if q_len is not None:
                out[b, q_len[b]:, head] = 0
    return out, lse


def qkv(b=2, t=4, s=5, n=4, kh=2, h=3, dtype=np.float64):
    return (RNG.standard_normal((b, t, n, h)).astype(dtype),
            RNG.standard_normal((b, s, kh, h)).astype(dtype),
            RNG.standard_normal((b, s, kh, h)).astype(dtype))


CASES = {
    "plain": {},
    "scale": {"scale": 0.3},
    "causal": {"is_causal": True},
    "window": {"local_window_size": (2, 0)},
    "window_int": {"local_window_size": 1},
    "bias_shared": {"bias": RNG.standard_normal((1, 1, 4, 5))},
    "bias_per_head": {"bias": RNG.standard_normal((2, 4, 4, 5))},
    "mask": {"mask": RNG.random((2, 1, 4, 5)) > 0.3},
    "mask_causal": {"mask": RNG.random((2, 4, 4, 5)) > 0.3, "is_causal": True},
    "lengths": {"query_seq_lengths": np.array([3, 4], np.int32),
                "key_value_seq_lengths": np.array([1, 4], np.int32)},
}


def _ref_kwargs(kw):
    w = kw.get("local_window_size")
    return dict(bias=kw.get("bias"), mask=kw.get("mask"), scale=kw.get("scale"),
                is_causal=kw.get("is_causal", False), q_len=kw.get("query_seq_lengths"),
                kv_len=kw.get("key_value_seq_lengths"),
                window=(w, w) if isinstance(w, int) else w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_residual_jit_against_the_reference(name):
    kw = CASES[name]
    q, k, v = qkv()
    want, want_lse = reference(q, k, v, **_ref_kwargs(kw))
    got = fg.nn.dot_product_attention(q, k, v, **kw)
    assert type(got) is np.ndarray and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    out, lse = fg.nn.dot_product_attention(q, k, v, **kw, return_residual=True)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-12)
    jitted = fg.jit(lambda q, k, v: fg.nn.dot_product_attention(q, k, v, **kw))
    np.testing.assert_allclose(jitted(q, k, v), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["plain", "causal", "bias_per_head", "lengths"])
def test_gradients_against_finite_differences(name):
    kw = CASES[name]
    q, k, v = qkv(b=2, t=4, s=5, n=4, kh=2, h=2)
    fg.test_util.check_grads(lambda q, k, v: fg.nn.dot_product_attention(q, k, v, **kw),
                             (q, k, v), order=2)
    if "bias" in kw:
        fg.test_util.check_grads(
            lambda bias: fg.nn.dot_product_attention(q, k, v, bias=bias), (kw["bias"],),
            order=1)


def test_residual_has_no_gradient():
    q, k, v = qkv()
    g = fg.grad(lambda q: fnp.sum(fg.nn.dot_product_attention(q, k, v,
                                                                return_residual=True)[1]))(q)
    assert np.all(g == 0)


def test_unbatched_inputs_grouped_and_multi_query_heads():
    q, k, v = qkv(b=1, n=6, kh=1)
    want, _ = reference(q, k, v, is_causal=True)
    got = fg.nn.dot_product_attention(q[0], k[0], v[0], is_causal=True)
    assert got.shape == q.shape[1:]
    np.testing.assert_allclose(got, want[0], rtol=1e-12)
    _, lse = fg.nn.dot_product_attention(q[0], k[0], v[0], return_residual=True)
    assert lse.shape == (4, 6)


def test_a_query_that_sees_no_key_averages_all_values():
    # JAX's convention (large finite negative logits, not -inf): no NaN, uniform weights
    q, k, v = qkv(b=1, n=2, kh=2)
    mask = np.ones((1, 2, 4, 5), bool)
    mask[0, :, 1] = False
    out = fg.nn.dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(out[0, 1], v[0].mean(0), rtol=1e-12)
    g = fg.grad(lambda q: fnp.sum(fg.nn.dot_product_attention(q, k, v, mask=mask)))(q)
    assert np.all(np.isfinite(g)) and np.all(g[0, 1] == 0)


def test_float32_stays_float32_and_vmap_matches_a_loop():
    q, k, v = qkv(dtype=np.float32)
    out = fg.nn.dot_product_attention(q, k, v, is_causal=True)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(q, k, v, is_causal=True)[0], rtol=1e-5,
                               atol=1e-6)
    f = lambda q, k, v: fg.nn.dot_product_attention(q, k, v, local_window_size=1)
    loop = np.stack([f(q[i], k[i], v[i]) for i in range(2)])
    np.testing.assert_allclose(fg.vmap(f)(q, k, v), loop, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    ({"k": np.zeros((2, 5, 3, 3)), "v": np.zeros((2, 5, 3, 3))},
     "multiple of the 3 key/value heads"),
    ({"v": np.zeros((2, 5, 2, 4))}, "value must have key's shape"),
    ({"q": np.zeros((2, 4, 4, 2))}, "head size 3"),
    ({"mask": np.ones((2, 4, 4, 5))}, "mask must be boolean.*bias="),
    ({"bias": np.zeros((2, 3, 4, 5))}, "bias's head axis.*1 or the 4 query heads"),
    ({"query_seq_lengths": np.array([1.0, 2.0])}, "query_seq_lengths must be integers"),
    ({"implementation": "cudnn"}, "implementation='cudnn' is not available"),
    ({"q": np.zeros((4, 4))}, "query must have 4 axes"),
])
def test_errors_name_the_argument(kwargs, match):
    q, k, v = qkv()
    args = {"q": q, "k": k, "v": v}
    for name in "qkv":
        args[name] = kwargs.pop(name, args[name])
    with pytest.raises(ValueError, match=match):
        fg.nn.dot_product_attention(args["q"], args["k"], args["v"], **kwargs)
