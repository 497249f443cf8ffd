"""Mixed-precision training on MNIST: float16 compute, float32 master weights and dynamic
loss scaling with `fg.optim.DynamicLossScale`.

    pip install -e ".[examples]" && python examples/mixed_precision.py [--dtype bfloat16]

The recipe (what GPUs use to train in half precision):
1. keep the parameters ("master weights") and the optimizer state in float32;
2. each step, cast a copy of the params and the inputs to float16 and run the model in it
   (half the memory and, on hardware made for it, much faster);
3. float16's largest number is 65504 and its smallest normal one 6e-5, so small gradients
   would flush to zero: multiply the loss by a large `scale` before differentiating, and
   divide the gradients by it afterwards (in float32);
4. if the scale was too large the float16 backward pass overflows to inf: then skip the
   step (params and optimizer state unchanged) and halve the scale; after `growth_interval`
   good steps in a row, try doubling it again.
The run prints every skipped step and every change of the scale.

NumPy has no fast float16 matrix multiply on a CPU, so this example is about correctness,
not speed. `--dtype bfloat16` (needs the `ml_dtypes` package) computes in bfloat16 instead:
it has float32's range, so it rarely overflows and loss scaling matters much less.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp

from datasets import load_mnist

init_fn, apply_fn = fg.nn.serial(fg.nn.Dense(64), fg.nn.Relu, fg.nn.Dense(10))


def compute_dtype(name: str = "float16", verbose: bool = True) -> np.dtype:
    """float16, or bfloat16 from ml_dtypes (float16 with a notice if it is not installed)."""
    if name == "bfloat16":
        try:
            import ml_dtypes
            return np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            if verbose:
                print("notice: bfloat16 needs the ml_dtypes package; using float16")
    return np.dtype(np.float16)


def cast(tree, dtype):
    return fg.tree.tree_map(lambda a: a.astype(dtype), tree)


def select(flag, if_true, if_false):
    """`if_true` where flag is True, else `if_false`, leaf by leaf (works under jit, where
    the flag is not a Python bool yet)."""
    return fg.tree.tree_map(lambda a, b: fnp.where(flag, a, b), if_true, if_false)


def make_train_step(optimizer, loss_scale, dtype):
    """A jitted step: (master params, opt state, loss-scale state, x, labels) ->
    (params, opt state, loss-scale state, loss, finite)."""
    def scaled_loss(master_params, x, labels, ls_state):
        logits = apply_fn(cast(master_params, dtype), x.astype(dtype))   # half precision
        # softmax and the loss in float32: exp and sums are where float16 goes wrong first
        loss = fnp.mean(fg.nn.softmax_cross_entropy_with_integer_labels(
            logits.astype(np.float32), labels))
        return loss_scale.scale(loss, ls_state), loss

    @fg.jit
    def train_step(params, opt_state, ls_state, x, labels):
        # Differentiating with respect to the float32 master params: the backward pass runs
        # in float16 through the model and the casts turn the gradients back into float32.
        grads, loss = fg.grad(scaled_loss, has_aux=True)(params, x, labels, ls_state)
        grads, finite, ls_state = loss_scale.unscale_and_adjust(grads, ls_state)
        updates, new_opt_state = optimizer.update(grads, opt_state, params)
        new_params = fg.optim.apply_updates(params, updates)
        # an overflowed step must change nothing: keep the old params and optimizer state
        return (select(finite, new_params, params), select(finite, new_opt_state, opt_state),
                ls_state, loss, finite)

    return train_step


def main(epochs: int = 5, batch_size: int = 128, lr: float = 1e-3,
         init_scale: float = 2.0 ** 20, growth_interval: int = 50, dtype: str = "float16",
         seed: int = 0, verbose: bool = True, n_train: int | None = None) -> float:
    """Train in mixed precision, print the loss-scale events; return the test accuracy.
    `init_scale` starts too large on purpose, to show the first steps being skipped."""
    dt = compute_dtype(dtype, verbose)
    x_train, y_train, x_test, y_test = load_mnist(verbose)
    x_train, y_train = x_train[:n_train], y_train[:n_train]
    mean, std = x_train.mean(), x_train.std()
    x_train, x_test = (x_train - mean) / std, (x_test - mean) / std

    key, init_key = fg.random.split(fg.random.key(seed))
    _, params = init_fn(init_key, (-1, x_train.shape[1]))
    params = cast(params, np.float32)            # the float32 master weights
    optimizer = fg.optim.adam(lr)
    opt_state = optimizer.init(params)
    loss_scale = fg.optim.DynamicLossScale(init_scale=init_scale,
                                           growth_interval=growth_interval)
    ls_state = loss_scale.init()
    train_step = make_train_step(optimizer, loss_scale, dt)

    start, step, skipped = time.perf_counter(), 0, 0
    for epoch in range(1, epochs + 1):
        key, perm_key = fg.random.split(key)
        order = np.asarray(fg.random.permutation(perm_key, len(x_train)))
        for i in range(len(x_train) // batch_size):
            idx = order[i * batch_size:(i + 1) * batch_size]
            old_scale = float(ls_state.scale)
            # the overflows are expected (that is how the scale is tuned): keep NumPy quiet
            with np.errstate(over="ignore", invalid="ignore"):
                params, opt_state, ls_state, loss, finite = train_step(
                    params, opt_state, ls_state, x_train[idx], y_train[idx])
            step += 1
            skipped += not bool(finite)
            if verbose and float(ls_state.scale) != old_scale:
                what = "skipped (gradients overflowed)" if not finite else "fine"
                print(f"step {step:4d}: {what:30s} loss scale {old_scale:9.0f} -> "
                      f"{float(ls_state.scale):9.0f}")
        if verbose:
            print(f"epoch {epoch}: loss {float(loss):.3f}, test accuracy "
                  f"{accuracy(params, x_test, y_test, dt):.3f}")
    acc = accuracy(params, x_test, y_test, dt)
    if verbose:
        print(f"{dt.name} compute, float32 master weights: test accuracy {acc:.3f}, "
              f"{skipped} of {step} steps skipped ({time.perf_counter() - start:.1f} s)")
    return acc


def accuracy(params, x, labels, dtype) -> float:
    logits = apply_fn(cast(params, dtype), x.astype(dtype))
    return float(np.mean(np.argmax(np.asarray(logits, np.float32), axis=1) == labels))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    args = parser.parse_args()
    main(epochs=args.epochs, dtype=args.dtype)
