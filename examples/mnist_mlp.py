"""Train a small MLP on scikit-learn's digits with fungrad and plain gradient descent.

    pip install -e ".[examples]" && python examples/mnist_mlp.py

Params are a pytree (a list of (W, b) pairs); the training step (loss, gradient and the
update, a tree_map) is one `fg.jit`-compiled function. Prints the loss every few epochs and
the test accuracy at the end.
"""
from __future__ import annotations

import time

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp


def load_data(seed: int = 0):
    """Digits (8x8 images, 10 classes) scaled to [0, 1], split 80/20."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float64)
    y = digits.target
    perm = np.random.default_rng(seed).permutation(len(x))
    n_train = int(0.8 * len(x))
    train, test = perm[:n_train], perm[n_train:]
    return x[train], y[train], x[test], y[test]


def init_params(sizes, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((m, n)) * np.sqrt(2.0 / m), np.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    for w, b in params[:-1]:
        x = fnp.maximum(x @ w + b, 0.0)  # relu
    w, b = params[-1]
    return x @ w + b


def loss(params, x, labels_one_hot):
    """Mean softmax cross-entropy, with a stabilised log-sum-exp."""
    logits = predict(params, x)
    z = logits - fnp.max(logits, axis=1, keepdims=True)
    log_probs = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
    return -fnp.mean(fnp.sum(labels_one_hot * log_probs, axis=1))


def accuracy(params, x, y):
    return float(np.mean(np.argmax(predict(params, x), axis=1) == y))


def main(epochs: int = 30, batch_size: int = 64, lr: float = 0.1, seed: int = 0,
         verbose: bool = True) -> float:
    x_train, y_train, x_test, y_test = load_data(seed)
    one_hot = np.eye(10)[y_train]
    params = init_params([64, 128, 10], seed)

    @fg.jit  # traced once per batch shape, then straight-line NumPy code
    def step(params, x, y):
        value, grads = fg.value_and_grad(loss)(params, x, y)
        return value, fg.tree.tree_map(lambda p, g: p - lr * g, params, grads)

    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        perm = rng.permutation(len(x_train))
        losses = []
        for i in range(0, len(perm), batch_size):
            idx = perm[i:i + batch_size]
            value, params = step(params, x_train[idx], one_hot[idx])
            losses.append(float(value))
        if verbose and (epoch == 1 or epoch % 5 == 0 or epoch == epochs):
            print(f"epoch {epoch:3d}  loss {np.mean(losses):.4f}  "
                  f"test accuracy {accuracy(params, x_test, y_test):.3f}")
    acc = accuracy(params, x_test, y_test)
    if verbose:
        print(f"final test accuracy {acc:.3f}  ({time.perf_counter() - start:.1f} s)")
    return acc


if __name__ == "__main__":
    main()
