"""Differentially private SGD (DP-SGD) on MNIST with per-example gradients from `fg.vmap`.

    pip install -e ".[examples]" && python examples/dp_sgd.py

DP-SGD (Abadi et al., 2016) limits how much any single training example can change the
model: every example's gradient is clipped to an L2 norm of at most `clip`, the clipped
gradients are summed, and Gaussian noise of standard deviation `noise_multiplier * clip` is
added before dividing by the batch size. That needs each example's own gradient, which is
where fungrad comes in: `fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))` maps the gradient of
ONE example's loss over the batch (params shared, `None`; inputs and labels batched, `0`).

The same small MLP is trained with plain SGD and with DP-SGD (same optimizer, same steps);
both test accuracies are printed. The noise costs accuracy: that is the price of privacy.

Not included: a privacy accountant (which turns noise_multiplier, the sampling rate and the
number of steps into an (epsilon, delta) guarantee). Use a real DP library for that; the
guarantee also assumes batches sampled at random, which the shuffled batches here only
approximate.
"""
from __future__ import annotations

import time

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

from datasets import load_mnist

init_fn, apply_fn = fg.nn.serial(fg.nn.Dense(64), fg.nn.Relu, fg.nn.Dense(10))


def example_loss(params, x, label):
    """Cross-entropy of ONE example: x of shape (784,), label a 0-d int."""
    return fg.nn.softmax_cross_entropy_with_integer_labels(apply_fn(params, x), label)


def batch_loss(params, x, labels):
    """Mean cross-entropy over a batch (what plain SGD differentiates)."""
    return fnp.mean(fg.nn.softmax_cross_entropy_with_integer_labels(apply_fn(params, x),
                                                                     labels))


# params: shared by every example (None); x and labels: one row per example (axis 0)
per_example_grads = fg.vmap(fg.grad(example_loss), in_axes=(None, 0, 0))


def clip_per_example(grads, clip: float):
    """Scale each example's gradient (all its leaves together) to an L2 norm <= clip.
    Every leaf of `grads` has the batch as its leading axis."""
    leaves = fg.tree.tree_leaves(grads)
    squared_norms = sum(fnp.sum(fnp.reshape(g, (g.shape[0], -1)) ** 2, axis=1)
                        for g in leaves)
    # factor = min(1, clip / norm), written so that a zero gradient does not divide by 0
    factor = 1.0 / fnp.maximum(1.0, fnp.sqrt(squared_norms) / clip)

    def scale(g):   # broadcast the (batch,) factor over the leaf's other axes
        return g * fnp.reshape(factor, (-1,) + (1,) * (g.ndim - 1)).astype(g.dtype)
    return fg.tree.tree_map(scale, grads)


def gaussian_noise(key, like, std: float):
    """Independent N(0, std^2) noise shaped like each leaf of `like` (one key per leaf, in
    `fg.tree.tree_leaves` order)."""
    leaves, treedef = fg.tree.tree_flatten(like)
    keys = fg.random.split(key, len(leaves))
    noise = [std * fg.random.normal(k, g.shape, dtype=g.dtype) for k, g in zip(keys, leaves)]
    return fg.tree.tree_unflatten(treedef, noise)


def private_gradient(params, x, labels, key, clip: float, noise_multiplier: float):
    """DP-SGD's gradient: (sum of clipped per-example gradients + noise) / batch size."""
    clipped = clip_per_example(per_example_grads(params, x, labels), clip)
    summed = fg.tree.tree_map(lambda g: fnp.sum(g, axis=0), clipped)
    noise = gaussian_noise(key, summed, noise_multiplier * clip)
    return fg.tree.tree_map(lambda g, n: (g + n) / x.shape[0], summed, noise)


def train(x_train, y_train, x_test, y_test, private: bool, epochs: int, batch_size: int,
          lr: float, clip: float, noise_multiplier: float, seed: int) -> float:
    """Train from the same initial params with plain SGD or DP-SGD; return test accuracy."""
    _, params = init_fn(fg.random.key(seed), (-1, x_train.shape[1]))
    params = fg.tree.tree_map(lambda p: p.astype(np.float32), params)
    optimizer = fg.optim.sgd(lr, momentum=0.9)
    opt_state = optimizer.init(params)

    @fg.jit   # per-example grads, clipping, noise and the update: one compiled function
    def private_step(params, opt_state, x, labels, key):
        grads = private_gradient(params, x, labels, key, clip, noise_multiplier)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return fg.optim.apply_updates(params, updates), opt_state

    @fg.jit
    def plain_step(params, opt_state, x, labels, key):   # key unused: same signature
        grads = fg.grad(batch_loss)(params, x, labels)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return fg.optim.apply_updates(params, updates), opt_state

    step = private_step if private else plain_step
    key = fg.random.key(seed + 1)
    for _ in range(epochs):
        key, perm_key = fg.random.split(key)
        order = np.asarray(fg.random.permutation(perm_key, len(x_train)))
        for i in range(len(x_train) // batch_size):
            idx = order[i * batch_size:(i + 1) * batch_size]
            key, noise_key = fg.random.split(key)
            params, opt_state = step(params, opt_state, x_train[idx], y_train[idx], noise_key)
    logits = fg.jit(apply_fn)(params, x_test)
    return float(np.mean(np.argmax(logits, axis=1) == y_test))


def main(epochs: int = 10, batch_size: int = 250, lr: float = 0.1, clip: float = 1.0,
         noise_multiplier: float = 1.0, seed: int = 0, verbose: bool = True,
         n_train: int | None = None) -> tuple:
    """Train plain SGD and DP-SGD side by side; return (plain accuracy, private accuracy).
    `n_train` uses only the first n training images (for quick tests)."""
    x_train, y_train, x_test, y_test = load_mnist(verbose)
    x_train, y_train = x_train[:n_train], y_train[:n_train]
    mean, std = x_train.mean(), x_train.std()   # standardize with training statistics
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std

    results = []
    for private in (False, True):
        start = time.perf_counter()
        acc = train(x_train, y_train, x_test, y_test, private, epochs, batch_size, lr, clip,
                    noise_multiplier, seed)
        results.append(acc)
        if verbose:
            name = (f"DP-SGD (clip {clip}, noise multiplier {noise_multiplier})" if private
                    else "plain SGD")
            print(f"{name:40s} test accuracy {acc:.3f}  ({time.perf_counter() - start:.1f} s)")
    return tuple(results)


if __name__ == "__main__":
    main()
