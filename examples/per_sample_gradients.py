"""Per-example gradients of an MLP on digits with `vmap(grad)`, clipped per example and
averaged (the DP-SGD recipe), checked against a Python loop of `grad`.

    pip install -e ".[examples]" && python examples/per_sample_gradients.py
"""
from __future__ import annotations

import time

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

from datasets import load_digits


def init_params(sizes, seed: int = 0):
    """A list of (W, b) pairs, He-initialized."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((m, n)) * np.sqrt(2.0 / m), np.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    for w, b in params[:-1]:
        x = fnp.maximum(x @ w + b, 0.0)  # relu
    w, b = params[-1]
    return x @ w + b


def example_loss(params, x, label_one_hot):
    """Cross-entropy of one example (x: (64,), label: (10,))."""
    logits = predict(params, x[None, :])[0]
    z = logits - fnp.max(logits)
    return -fnp.sum(label_one_hot * (z - fnp.log(fnp.sum(fnp.exp(z)))))


def clip_and_average(per_example_grads, max_norm):
    """Clip each example's whole gradient to `max_norm` (global norm), then average."""
    leaves = fg.tree.tree_leaves(per_example_grads)
    sq = sum(np.sum(g.reshape(len(g), -1) ** 2, axis=1) for g in leaves)
    scale = np.minimum(1.0, max_norm / (np.sqrt(sq) + 1e-12))
    return fg.tree.tree_map(lambda g: np.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)),
                                              axis=0), per_example_grads)


def main(batch: int = 128, steps: int = 100, lr: float = 0.5, max_norm: float = 1.0,
         verbose: bool = True) -> float:
    x_train, y_train, x_test, y_test = load_digits()
    one_hot = np.eye(10)[y_train]
    params = init_params([64, 128, 10])
    per_example = fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0))

    # the batched gradients equal a loop of single-example gradients
    xb, yb = x_train[:batch], one_hot[:batch]
    t0 = time.perf_counter()
    batched = per_example(params, xb, yb)
    t_vmap = time.perf_counter() - t0
    t0 = time.perf_counter()
    looped = [fg.grad(example_loss)(params, xb[i], yb[i]) for i in range(batch)]
    t_loop = time.perf_counter() - t0
    for j, g in enumerate(fg.tree.tree_leaves(batched)):
        want = np.stack([fg.tree.tree_leaves(l)[j] for l in looped])
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
    if verbose:
        print(f"per-example gradients of {batch} examples: vmap(grad) {t_vmap * 1e3:.1f} ms, "
              f"loop of grad {t_loop * 1e3:.1f} ms (same values)")

    rng = np.random.default_rng(0)
    for step in range(1, steps + 1):
        idx = rng.choice(len(x_train), batch, replace=False)
        grads = clip_and_average(per_example(params, x_train[idx], one_hot[idx]), max_norm)
        params = fg.tree.tree_map(lambda p, g: p - lr * g, params, grads)
        if verbose and step % 25 == 0:
            acc = np.mean(np.argmax(predict(params, x_test), axis=1) == y_test)
            print(f"step {step:4d}  test accuracy {acc:.3f}")
    acc = float(np.mean(np.argmax(predict(params, x_test), axis=1) == y_test))
    return acc


if __name__ == "__main__":
    main()
