"""LeNet-style training step on CPU: fungrad (stax layers, `fg.jit`) against PyTorch eager
and JAX `jit`, when they are installed (issue 9's target: fungrad <= PyTorch eager).

The model: Conv 5x5x32, Relu, MaxPool 2x2, Conv 5x5x64, Relu, MaxPool 2x2, Flatten,
Dense 10; softmax cross-entropy; one SGD step; 28x28x1 inputs, batch 64, float32.
fungrad and JAX run NHWC (stax's layout), PyTorch NCHW (its own); the weights are the same
numbers, and the check below asserts equal losses and gradients before timing.

    python benchmarks/cnn.py              # both libraries use their default threads
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/cnn.py   # one core each
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/cnn.py --paired 100

`--paired N` times N rounds of one call each, interleaved call by call, and prints the
median of the per-round ratios fungrad / other (steadier than best-of loops on a loaded
machine, whose speed drifts within seconds).

Timings interleave the libraries round by round (see run.py's `best_times`), so that they
see the same machine load.
"""
from __future__ import annotations

import os
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run import best_times  # noqa: E402

import fungrad as fg  # noqa: E402
from fungrad import nn  # noqa: E402

BATCH, LR = 64, 0.01


def lenet():
    return nn.serial(nn.Conv(32, (5, 5)), nn.Relu, nn.MaxPool((2, 2), (2, 2)),
                     nn.Conv(64, (5, 5)), nn.Relu, nn.MaxPool((2, 2), (2, 2)),
                     nn.Flatten, nn.Dense(10))


def fungrad_step():
    init_fn, apply_fn = lenet()
    _, params = init_fn(fg.random.key(0), (-1, 28, 28, 1))
    params = fg.tree.tree_map(lambda p: p.astype(np.float32), params)

    def loss(params, x, y):
        logits = apply_fn(params, x)
        return nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    @fg.jit
    def step(params, x, y):
        value, grads = fg.value_and_grad(loss)(params, x, y)
        return fg.tree.tree_map(lambda p, g: p - LR * g, params, grads), value, grads
    return params, step


def torch_step(params):
    """The same network and weights in PyTorch (NCHW, OIHW kernels), eager."""
    import torch
    F = torch.nn.functional
    (w1, b1), _, _, (w2, b2), _, _, _, (w3, b3) = params
    # NHWC flatten order (h, w, c) -> NCHW flatten order (c, h, w) for the dense weights
    w3 = w3.reshape(4, 4, 64, 10).transpose(2, 0, 1, 3).reshape(1024, 10)
    tp = [torch.tensor(np.ascontiguousarray(a), requires_grad=True) for a in
          (w1.transpose(3, 2, 0, 1), b1.reshape(-1), w2.transpose(3, 2, 0, 1), b2.reshape(-1),
           w3, b3)]

    def step(x, y):
        w1, b1, w2, b2, w3, b3 = tp
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2)), 2)
        value = F.cross_entropy(h.reshape(h.shape[0], -1) @ w3 + b3, y)
        for p in tp:
            p.grad = None
        value.backward()
        with torch.no_grad():
            for p in tp:
                p -= LR * p.grad
        return value.detach()
    return tp, step


def jax_step(params):
    import jax
    jax.config.update("jax_platforms", "cpu")
    from jax.example_libraries import stax as jstax
    _, apply_fn = jstax.serial(jstax.Conv(32, (5, 5)), jstax.Relu,
                               jstax.MaxPool((2, 2), (2, 2)), jstax.Conv(64, (5, 5)),
                               jstax.Relu, jstax.MaxPool((2, 2), (2, 2)), jstax.Flatten,
                               jstax.Dense(10))

    def loss(params, x, y):
        logits = apply_fn(params, x)
        return -jax.numpy.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1).mean()

    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads), value
    return jax.tree_util.tree_map(jax.numpy.asarray, params), step


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    params, step = fungrad_step()
    _, value, grads = step(params, x, y)
    fns = {"fungrad jit (NHWC)": lambda: step(params, x, y)}
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch not installed: pip install torch")
    if torch is not None:
        tp, tstep = torch_step(params)
        tx, ty = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))), torch.from_numpy(y)
        np.testing.assert_allclose(float(tstep(tx, ty)), float(value), rtol=1e-4)
        torch_w1_grad = tp[0].grad.numpy().transpose(2, 3, 1, 0)
        np.testing.assert_allclose(torch_w1_grad, grads[0][0], rtol=1e-3, atol=1e-5)
        fns[f"torch eager (NCHW, {torch.get_num_threads()} threads)"] = lambda: tstep(tx, ty)
    try:
        import jax
    except ImportError:
        jax = None
        print("JAX not installed: pip install jax")
    if jax is not None:
        jparams, jstep = jax_step(params)
        np.testing.assert_allclose(float(jstep(jparams, x, y)[1]), float(value), rtol=1e-4)
        fns["jax jit (NHWC)"] = lambda: jax.block_until_ready(jstep(jparams, x, y))
    print(f"LeNet step, batch {BATCH}, float32, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}")
    if "--paired" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--paired") + 1])
        times = paired_times(list(fns.values()), rounds)
        for label, t in zip(fns, times):
            print(f"  {label:36s} {np.median(t) * 1e3:8.2f} ms (median)   fungrad / this = "
                  f"{np.median(times[0] / t):5.2f} (median of {rounds} paired rounds)")
        return
    times = best_times(list(fns.values()))
    base = times[0]
    for (label, _), t in zip(fns.items(), times):
        print(f"  {label:36s} {t * 1e3:8.2f} ms   fungrad / this = {base / t:5.2f}")


def paired_times(fns, rounds):
    """Seconds of each call: `rounds` rounds, each calling every function once in turn."""
    import time
    times = np.zeros((len(fns), rounds))
    for r in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i, r] = time.perf_counter() - t0
    return times


if __name__ == "__main__":
    main()
