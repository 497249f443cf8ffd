"""Peak memory of a gradient: fungrad (eager, jit) against hand-written NumPy (and JAX).

    python benchmarks/memory.py [--mb 200] [--only NAME]

Every measurement runs in a fresh subprocess: it builds the inputs (about `--mb` MB of
float64 data), calls the gradient once (compiling it, for jit), then measures a second call:

- `peak`: tracemalloc's peak of bytes allocated during the call (NumPy reports its data
  buffers to tracemalloc), so the inputs are not counted but the returned gradient is, and
  so are buffers kept from the first call (jit's scratch buffers, which it keeps between
  calls). For JAX, whose buffers tracemalloc does not see, it is XLA's own buffer plan
  (outputs plus temporaries, from `memory_analysis()`);
- `rss`: the peak resident set size during the call minus the RSS before it (Linux: the
  high-water mark is reset through /proc/self/clear_refs): a cross-check of `peak`;
- `ms`: the best of 5 more calls (rough: the processes do not interleave).

Ratios are against the plainly written hand NumPy forward + backward of the same function
("numpy"); "numpy out=" is the same gradient written with explicit buffer reuse.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(_HERE), _HERE]  # this checkout's fungrad, then run.py
import run as _run  # noqa: E402  (the MLP and its hand-written gradient)

import fungrad as fg  # noqa: E402
import fungrad.numpy as fnp  # noqa: E402

MB = 1 << 20


# ------------------------------------------------------------------ cases
def mlp_setup(mb):
    """MLP 100-100-10 with softmax cross-entropy; the data matrix x (rows x 100) is `mb` MB,
    so each hidden activation is as large as the input. Gradient w.r.t. the parameters."""
    rows = int(mb * MB) // (100 * 8)
    params, x, y = _run.mlp_problem((100, 100, 10), rows)
    args = (params, x, y)

    def grad_numpy(params, x, y):
        return _run.mlp_numpy(params, x, y)[1]
    return args, (lambda m: lambda p, x, y: _run.mlp_loss(m, p, x, y)), grad_numpy


def elementwise(m, x):
    """A chain of elementwise operations and one reduction over the whole input."""
    y = m.tanh(x) * x + m.sin(x)
    return m.sum(y * y)


def elementwise_grad_numpy(x):
    """d/dx sum(y^2) = 2y (x (1 - t^2) + t + cos x), written plainly (NumPy itself reuses
    the temporaries of an expression)."""
    t = np.tanh(x)
    y = t * x + np.sin(x)
    return 2 * y * (x * (1 - t * t) + t + np.cos(x))


def elementwise_grad_numpy_out(x):
    """The same, reusing buffers with `out=` and `del` as a memory-conscious user would."""
    t = np.tanh(x)
    y = t * x
    y += np.sin(x)
    t2 = t * t
    np.subtract(1.0, t2, out=t2)
    t2 *= x
    t2 += t
    del t
    c = np.cos(x)
    t2 += c
    del c
    y *= 2.0
    y *= t2
    return y


def elementwise_setup(mb):
    """sum((tanh(x) x + sin(x))^2) over x of `mb` MB. Gradient w.r.t. x."""
    x = np.random.default_rng(0).standard_normal(int(mb * MB) // 8)
    return (x,), (lambda m: lambda x: elementwise(m, x)), elementwise_grad_numpy


def rownorm(m, x):
    """Rows standardized (as in layer norm), then a tanh and a sum: reductions with keepdims
    and broadcasts back, whose transposes must not materialize large arrays."""
    d = x - m.mean(x, axis=1, keepdims=True)
    z = d / m.sqrt(m.mean(d * d, axis=1, keepdims=True) + 1e-5)
    return m.sum(m.tanh(z))


def rownorm_grad_numpy(x):
    d = x - x.mean(1, keepdims=True)
    s = np.sqrt((d * d).mean(1, keepdims=True) + 1e-5)
    z = d / s
    t = np.tanh(z)
    gz = 1 - t * t
    return (gz - gz.mean(1, keepdims=True) - z * (gz * z).mean(1, keepdims=True)) / s


def rownorm_setup(mb):
    """rownorm over x of `mb` MB (rows of 100). Gradient w.r.t. x."""
    x = np.random.default_rng(0).standard_normal((int(mb * MB) // 800, 100))
    return (x,), (lambda m: lambda x: rownorm(m, x)), rownorm_grad_numpy


DEEP_LAYERS, DEEP_WIDTH = 32, 512


def deep_mlp(m, params, x, block=0, last_plain=False):
    """sum(h^2) of a 32-layer tanh MLP; with `block` k > 0, every k consecutive layers are one
    checkpoint (`fg.checkpoint` / `jax.checkpoint`): the backward pass recomputes them.
    `last_plain`: the last block is not checkpointed (its backward pass starts right after
    its forward, so recomputing it would save no memory at the peak)."""
    def layers(ps, h):
        for w, b in ps:
            h = m.tanh(h @ w + b)
        return h
    if block:
        ck = fg.checkpoint if m is fnp else __import__("jax").checkpoint
        run = ck(layers)
        for i in range(0, len(params), block):
            plain = last_plain and i + block >= len(params)
            x = (layers if plain else run)(params[i:i + block], x)
    else:
        x = layers(params, x)
    return m.sum(x * x)


def deep_mlp_grad_numpy(params, x):
    hs = [x]
    for w, b in params:
        hs.append(np.tanh(hs[-1] @ w + b))
    g = 2 * hs[-1]
    grads = []
    for (w, b), h_in, h in zip(params[::-1], hs[-2::-1], hs[:0:-1]):
        g = g * (1 - h * h)
        grads.append((h_in.T @ g, g.sum(0)))
        g = g @ w.T
    return grads[::-1]


def deep_mlp_setup(block, last_plain=False):
    def setup(mb):
        """32 tanh layers of width 512; the batch makes the 32 hidden activations `mb` MB in
        all (200 MB: batch 1600; 32 MB: batch 256). Gradient w.r.t. the parameters."""
        rows = max(1, int(mb * MB) // (DEEP_LAYERS * DEEP_WIDTH * 8))
        rng = np.random.default_rng(0)
        params = [(rng.standard_normal((DEEP_WIDTH, DEEP_WIDTH)) / np.sqrt(DEEP_WIDTH),
                   0.1 * rng.standard_normal(DEEP_WIDTH)) for _ in range(DEEP_LAYERS)]
        x = rng.standard_normal((rows, DEEP_WIDTH))
        return (params, x), (lambda m: lambda p, x: deep_mlp(m, p, x, block, last_plain)), \
            deep_mlp_grad_numpy
    return setup


CASES = {"mlp": mlp_setup, "elementwise": elementwise_setup, "rownorm": rownorm_setup,
         # issue 10: checkpointing every layer / every 4 layers against none
         "mlp32": deep_mlp_setup(0), "mlp32 remat1": deep_mlp_setup(1),
         "mlp32 remat4": deep_mlp_setup(4), "mlp32 remat4 last plain": deep_mlp_setup(4, True)}
# hand-written variants with explicit buffer reuse (a floor, not the reference)
NUMPY_OUT = {"elementwise": elementwise_grad_numpy_out}
METHODS = ("numpy", "numpy out=", "eager grad", "jit(grad)", "jax.jit(jax.grad)")


def make_call(case, method, mb):
    """(zero-argument gradient call, the inputs it reads); JAX inputs live in JAX buffers."""
    args, loss_of, grad_numpy = CASES[case](mb)
    if method == "numpy":
        return (lambda: grad_numpy(*args)), args
    if method == "numpy out=":
        return (lambda: NUMPY_OUT[case](*args)), args
    if method == "eager grad":
        g = fg.grad(loss_of(fnp))
        return (lambda: g(*args)), args
    if method == "jit(grad)":
        g = fg.jit(fg.grad(loss_of(fnp)))
        return (lambda: g(*args)), args
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    jargs = jax.device_put(args)
    del args
    g = jax.jit(jax.grad(loss_of(jnp))).lower(*jargs).compile()
    return (lambda: jax.block_until_ready(g(*jargs))), g


# ------------------------------------------------------------------ one measurement (child)
def _rss(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _reset_peak_rss():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _xla_plan(compiled):
    """Bytes XLA allocates for one call: outputs and temporaries (its own buffer plan)."""
    m = compiled.memory_analysis()
    return m.output_size_in_bytes + m.temp_size_in_bytes - m.alias_size_in_bytes


def measure(case, method, mb):
    """{'peak': bytes, 'rss': bytes}: peaks of the second call above its start (for JAX,
    `peak` is XLA's buffer plan: tracemalloc does not see its buffers)."""
    call, keep = make_call(case, method, mb)
    tm = method != "jax.jit(jax.grad)"
    if tm:  # from the first call on: buffers jit keeps between calls (scratch) count too
        tracemalloc.start()
    out = call()  # compile (jit) and warm up
    del out
    _reset_peak_rss()
    rss0 = _rss("VmRSS")
    if tm:
        tracemalloc.reset_peak()
    out = call()
    peak_tm = tracemalloc.get_traced_memory()[1] if tm else None
    tracemalloc.stop()
    peak_rss = _rss("VmHWM") - rss0
    peak = peak_tm if tm else _xla_plan(keep)
    del out
    seconds = []
    for _ in range(5):  # (after the memory measurement: tracemalloc slows allocations)
        t0 = time.perf_counter()
        out = call()
        seconds.append(time.perf_counter() - t0)
        del out
    del keep
    return {"peak": peak, "rss": peak_rss, "time": min(seconds)}


# ------------------------------------------------------------------ driver
def check(case):
    """fungrad's gradients equal the hand-written ones (on a small input)."""
    args, loss_of, grad_numpy = CASES[case](1)
    want = fg.tree.tree_leaves(grad_numpy(*args))
    for g in (fg.grad(loss_of(fnp)), fg.jit(fg.grad(loss_of(fnp)))):
        got = fg.tree.tree_leaves(g(*args))
        assert all(np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(got, want)), case


def _have_jax():
    try:
        import jax  # noqa: F401
        return True
    except ImportError:
        return False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200, help="input size in MB (float64)")
    parser.add_argument("--only", default=None, help="cases or methods containing this")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "METHOD"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(*args.child, args.mb)))
        return 0
    methods = [m for m in METHODS if m != "jax.jit(jax.grad)" or _have_jax()]
    print(f"peak MB above the inputs, input {args.mb:g} MB float64; x = ratio to numpy")
    print(f"{'case':12s} {'method':18s} {'peak':>6s} {'x':>5s} {'rss':>6s} {'x':>5s} "
          f"{'ms':>7s} {'x':>5s}")
    for case in CASES:
        if args.only and args.only not in case and not any(args.only in m for m in methods):
            continue
        check(case)
        base = None
        for method in methods:
            if (args.only and args.only not in case and args.only not in method
                    and method != "numpy") or (method == "numpy out=" and case not in NUMPY_OUT):
                continue
            res = subprocess.run([sys.executable, __file__, "--mb", str(args.mb),
                                  "--child", case, method], capture_output=True, text=True)
            if res.returncode:
                print(res.stderr, file=sys.stderr)
                return 1
            r = json.loads(res.stdout)
            base = r if method == "numpy" else base
            row = f"{case:12s} {method:18s}"
            for k in ("peak", "rss"):
                row += f" {r[k] / MB:6.0f} {r[k] / base[k]:5.2f}"
            row += f" {r['time'] * 1e3:7.1f} {r['time'] / base['time']:5.2f}"
            print(row, flush=True)
    print("peak: tracemalloc (JAX: XLA's buffer plan, output + temporaries); rss: resident set "
          "growth (JAX's allocator may reuse pages kept from the first call); ms: best of 5 "
          "calls, each case in its own process (not interleaved: a rough figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
