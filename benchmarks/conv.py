"""Convolution speed: fg.lax.conv_general_dilated (forward, gradient, jitted gradient) on the
LeNet shapes, against a straightforward NumPy conv (shift-and-add: one einsum per kernel
offset) and torch.nn.functional.conv2d / JAX when importable.

    python benchmarks/conv.py
"""
from __future__ import annotations

import timeit

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax import conv_general_dilated, reduce_window

SHAPES = {  # name: (input NCHW, kernel OIHW)
    "lenet conv1 64x1x28x28 * 32x1x5x5": ((64, 1, 28, 28), (32, 1, 5, 5)),
    "lenet conv2 64x32x12x12 * 64x32x5x5": ((64, 32, 12, 12), (64, 32, 5, 5)),
}


def numpy_conv(x, w):
    """VALID, stride 1: out[n, o] = sum over kernel offsets of w[:, :, i, j] . shifted x."""
    kh, kw = w.shape[2:]
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,oc->nohw", x[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return out


def numpy_max_pool(x):
    """2x2, stride 2 (even sizes): a reshape and a max."""
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def best(fn, number=None):
    fn()
    number = number or max(1, int(0.2 / max(timeit.timeit(fn, number=1), 1e-6)))
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def main():
    rng = np.random.default_rng(0)
    try:
        import torch
    except ImportError:
        torch = None
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
    except ImportError:
        jax = None
    for name, (xs, ws) in SHAPES.items():
        x, w = rng.normal(size=xs), rng.normal(size=ws)
        fwd = lambda x, w: conv_general_dilated(x, w, (1, 1), "VALID")  # noqa: E731
        loss = lambda x, w: fnp.sum(fwd(x, w) ** 2)  # noqa: E731
        g = fg.grad(loss, argnums=(0, 1))
        jg = fg.jit(g)
        assert np.allclose(fwd(x, w), numpy_conv(x, w))
        rows = {
            "fungrad forward": lambda: fwd(x, w),
            "numpy shift-and-add forward": lambda: numpy_conv(x, w),
            "fungrad grad (x, w)": lambda: g(x, w),
            "fungrad jit(grad) (x, w)": lambda: jg(x, w),
        }
        if torch is not None:
            tx, tw = torch.from_numpy(x), torch.from_numpy(w)
            rows["torch conv2d forward"] = lambda: torch.nn.functional.conv2d(tx, tw)
        if jax is not None:
            jfwd = jax.jit(lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "VALID"))
            jgrad = jax.jit(jax.grad(lambda x, w: (jfwd(x, w) ** 2).sum(), argnums=(0, 1)))
            jx, jw = jax.numpy.asarray(x), jax.numpy.asarray(w)
            rows["jax jit forward (CPU)"] = lambda: jfwd(jx, jw).block_until_ready()
            rows["jax jit grad (CPU)"] = lambda: jax.block_until_ready(jgrad(jx, jw))
        print(name, "(float64)")
        for label, fn in rows.items():
            print(f"  {label:32s} {best(fn) * 1e3:8.2f} ms")

    x = rng.normal(size=(64, 32, 24, 24))
    pool = lambda x: reduce_window(x, -np.inf, "max", (1, 1, 2, 2), (1, 1, 2, 2))  # noqa: E731
    assert np.array_equal(pool(x), numpy_max_pool(x))
    pool_grad = fg.grad(lambda x: fnp.sum(pool(x) ** 2))
    print("max pool 2x2 64x32x24x24 (float64)")
    for label, fn in {"fungrad forward": lambda: pool(x),
                      "numpy reshape-max forward": lambda: numpy_max_pool(x),
                      "fungrad grad": lambda: pool_grad(x),
                      "fungrad jit(grad)": lambda jg=fg.jit(pool_grad): jg(x)}.items():
        print(f"  {label:32s} {best(fn) * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
