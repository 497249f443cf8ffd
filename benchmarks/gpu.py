"""GPU benchmark: the jitted MLP training step (value_and_grad + `fg.optim.adam`) on CuPy
arrays, against the same step written by hand in CuPy (forward/backward by hand, in-place
Adam) and, when installed, PyTorch eager on CUDA (torch.optim.Adam) and `jax.jit` + optax.

    python benchmarks/gpu.py            # needs CuPy and a GPU; --json PATH writes the rows,
                                        # --quick times fewer, shorter rounds

Every timed call ends with a device synchronize, so the times are wall time per step as a
training loop sees it. Before timing, fungrad's step on the GPU is checked against the
same step on NumPy.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fungrad as fg  # noqa: E402
import fungrad.numpy as fnp  # noqa: E402
from run import adam_inplace_numpy, mlp_loss, mlp_numpy, mlp_problem  # noqa: E402

SIZES = [((784, 512, 512, 10), 128), ((784, 2048, 2048, 10), 1024),
         ((4096, 4096, 4096, 10), 4096)]


def seconds_per_call(fn, sync, rounds=7, target=0.2):
    """Best over `rounds` of the mean time of a loop lasting about `target` seconds."""
    fn()
    sync()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        if time.perf_counter() - t0 > target / 4:
            break
        n *= 2
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def fungrad_steps(params, x, y):
    opt = fg.optim.adam(1e-3)

    def train_step(params, state, x, y):
        loss, g = fg.value_and_grad(lambda p: mlp_loss(fnp, p, x, y))(params)
        updates, state = opt.update(g, state, params)
        return fg.optim.apply_updates(params, updates), state, loss
    return opt, fg.jit(train_step), fg.jit(train_step, donate_argnums=(0, 1))


def torch_step(params, x, y, fused):
    import torch
    dev = "cuda"
    ps = [(torch.tensor(w, device=dev, requires_grad=True),
           torch.tensor(b, device=dev, requires_grad=True)) for w, b in params]
    flat = [t for pair in ps for t in pair]
    opt = torch.optim.Adam(flat, lr=1e-3, fused=fused)
    tx, ty = torch.tensor(x, device=dev), torch.tensor(y, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = mlp_loss(_TorchOps, ps, tx, ty)
        loss.backward()
        opt.step()
    return step, torch.cuda.synchronize


class _TorchOps:
    """The few array functions `mlp_loss` calls, spelled for torch."""
    @staticmethod
    def tanh(a):
        import torch
        return torch.tanh(a)

    @staticmethod
    def max(a, axis, keepdims):
        return a.amax(dim=axis, keepdim=keepdims)

    @staticmethod
    def log(a):
        import torch
        return torch.log(a)

    @staticmethod
    def exp(a):
        import torch
        return torch.exp(a)

    @staticmethod
    def sum(a, axis, keepdims=False):
        return a.sum(dim=axis, keepdim=keepdims)

    @staticmethod
    def mean(a):
        return a.mean()


def jax_step(params, x, y):
    import jax
    import jax.numpy as jnp
    import optax
    opt = optax.adam(1e-3)
    p = jax.device_put([(jnp.asarray(w), jnp.asarray(b)) for w, b in params])
    state = [opt.init(p)]
    jx, jy = jnp.asarray(x), jnp.asarray(y)

    @jax.jit
    def step(p, s, x, y):
        loss, g = jax.value_and_grad(lambda q: mlp_loss(jnp, q, x, y))(p)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, loss
    carry = [p, state[0]]

    def run():
        carry[0], carry[1], _ = step(carry[0], carry[1], jx, jy)
    return run, lambda: jax.block_until_ready(carry[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("--quick", action="store_true", help="fewer, shorter timing rounds")
    args = ap.parse_args(argv)
    timing = dict(rounds=3, target=0.1) if args.quick else {}
    import cupy as cp
    sync = cp.cuda.Device().synchronize
    rows = []
    print(f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, CuPy {cp.__version__}")
    print("| MLP step f32 | fungrad jit | fungrad donated | hand CuPy | fg/hand | torch eager "
          "(fused Adam) | fg/torch | jax.jit | fg/jax |")
    print("|---|---|---|---|---|---|---|---|---|")
    for sizes, batch in SIZES:
        params, x, y = mlp_problem(sizes, batch, np.float32)
        opt, step, donating = fungrad_steps(params, x, y)
        gp, gx, gy = fg.device_put((params, x, y), "gpu")
        state = opt.init(gp)
        # correctness: the GPU step equals the NumPy step
        want = step(params, opt.init(params), x, y)[0]
        got = step(gp, state, gx, gy)[0]
        for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
            assert isinstance(g, cp.ndarray)
            # Adam's first step is lr * g / (|g| + eps): where |g| is tiny, float32 rounding
            # of g (GPU vs CPU summation order) moves the step by a good part of lr (1e-3)
            np.testing.assert_allclose(cp.asnumpy(g), w, rtol=1e-3, atol=3e-4)
        carry = [fg.tree.tree_map(cp.copy, gp), fg.tree.tree_map(cp.copy, state)]

        def run_donating():
            carry[0], carry[1], _ = donating(carry[0], carry[1], gx, gy)
        hand = [fg.tree.tree_map(cp.copy, gp), fg.tree.tree_map(cp.zeros_like, gp),
                fg.tree.tree_map(cp.zeros_like, gp), fg.tree.tree_map(cp.empty_like, gp)]

        def by_hand():
            _, g = mlp_numpy(hand[0], gx, gy)
            adam_inplace_numpy(hand[0], hand[1], hand[2], g, hand[3], 1)
        t_fg = seconds_per_call(lambda: step(gp, state, gx, gy), sync, **timing)
        t_don = seconds_per_call(run_donating, sync, **timing)
        t_hand = seconds_per_call(by_hand, sync, **timing)
        row = {"sizes": sizes, "batch": batch, "fungrad": t_fg, "fungrad_donated": t_don,
               "hand_cupy": t_hand}
        try:
            ts, tsync = torch_step(params, x, y, fused=True)
            row["torch"] = seconds_per_call(ts, tsync, **timing)
        except ImportError:
            pass
        try:
            js, jsync = jax_step(params, x, y)
            row["jax"] = seconds_per_call(js, jsync, **timing)
        except ImportError:
            pass
        rows.append(row)

        def ms(key):
            return f"{row[key] * 1e3:.3f} ms" if key in row else "-"

        def ratio(key):
            return f"{min(t_fg, t_don) / row[key]:.2f}" if key in row else "-"
        print(f"| {'-'.join(map(str, sizes))} b{batch} | {ms('fungrad')} | "
              f"{ms('fungrad_donated')} | {ms('hand_cupy')} | {ratio('hand_cupy')} | "
              f"{ms('torch')} | {ratio('torch')} | {ms('jax')} | {ratio('jax')} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
