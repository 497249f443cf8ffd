"""Custom gradients: a straight-through estimator and a clamp that clips its gradient.

    python examples/custom_gradients.py

`fg.custom_vjp` gives a function its own backward pass. Two classics:

1. **Straight-through estimator (STE)**: rounding has a zero gradient almost everywhere, so
   a model with rounded (quantized) weights cannot learn through it. The STE rounds in the
   forward pass and pretends the rounding was the identity in the backward pass.
2. **Custom clamp**: `clip(x, lo, hi)` whose gradient passes where `x` is inside the bounds
   and is 0 outside (and no gradient reaches the bounds themselves).

Both work under fg.jit, fg.vmap and fg.grad like any other fungrad function.
"""
from __future__ import annotations

import numpy as np

import fungrad as fg
import fungrad.numpy as fnp


# --- 1. the straight-through estimator --------------------------------------------------
@fg.custom_vjp
def round_ste(x):
    return fnp.round(x)


def _round_fwd(x):
    return fnp.round(x), None  # nothing to save for the backward pass


def _round_bwd(_residuals, g):
    return (g,)  # one cotangent per argument: the identity's


round_ste.defvjp(_round_fwd, _round_bwd)


# --- 2. a clamp with a clipped gradient --------------------------------------------------
@fg.custom_vjp
def clamp(x, lo, hi):
    return fnp.clip(x, lo, hi)


def _clamp_fwd(x, lo, hi):
    inside = (x >= lo) & (x <= hi)
    return fnp.clip(x, lo, hi), inside  # the mask is what the backward pass needs


def _clamp_bwd(inside, g):
    return fnp.where(inside, g, 0.0), None, None  # None: no gradient for lo and hi


clamp.defvjp(_clamp_fwd, _clamp_bwd)


def train_quantized_regression(steps: int = 200, lr: float = 0.05, seed: int = 0):
    """Fit y = X @ w_true with weights rounded to multiples of 0.5 in the forward pass.

    Without the STE the gradient of the rounded weights is zero and nothing learns; with it
    the full-precision weights move and their rounded version fits the data.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 3))
    w_true = np.array([1.5, -2.0, 0.5])
    y = x @ w_true

    def loss(w):
        w_q = round_ste(w * 2.0) / 2.0  # quantize to a 0.5 grid
        return fnp.mean((x @ w_q - y) ** 2)

    step = fg.jit(lambda w: w - lr * fg.grad(loss)(w))
    w = np.zeros(3)
    start = float(loss(w))
    for _ in range(steps):
        w = step(w)
    return start, float(loss(w)), np.round(w * 2.0) / 2.0


def main(verbose: bool = True) -> dict:
    xs = np.array([-2.0, -0.5, 0.3, 1.7])
    # clamp: the gradient of sum(clamp(x)) is 1 inside [-1, 1], 0 outside
    g = fg.grad(lambda x: fnp.sum(clamp(x, -1.0, 1.0)))(xs)
    # per-example gradients with vmap: the rule is batched too
    per_example = fg.vmap(fg.grad(lambda x: clamp(x, -1.0, 1.0) * x))(xs)
    start, end, w_q = train_quantized_regression()
    if verbose:
        print("clamp(x)            ", np.asarray(clamp(xs, -1.0, 1.0)))
        print("d/dx sum(clamp(x))  ", g)
        print("per-example grads   ", per_example)
        print(f"STE training: loss {start:.3f} -> {end:.3f}, quantized weights {w_q}")
    return {"ste_loss_start": start, "ste_loss_end": end, "clamp_grad": g,
            "clamp_grad_outside": float(g[0] + g[-1])}


if __name__ == "__main__":
    main()
