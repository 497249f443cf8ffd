"""Writes the benchmarks page (docs/benchmarks.md and docs/benchmarks.png) from a run's JSON.

    OPENBLAS_NUM_THREADS=1 python benchmarks/run.py --quick --json benchmarks/results.json
    python docs/benchmarks_page.py                 # docs/benchmarks.md and docs/benchmarks.png
    python docs/benchmarks_page.py --out DIR --no-plot   # the Markdown only, into DIR

The page is made only from the JSON (no timing happens here), so it can be regenerated
and compared: tests/test_docs_site.py writes it into a temporary folder and fails if the
committed page differs.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
RESULTS = DOCS.parent / "benchmarks" / "results.json"
HEADER = ("<!-- generated from benchmarks/results.json by docs/benchmarks_page.py: "
          "edit that script, or rerun the benchmarks -->\n")


def seconds(t) -> str:
    """A duration in the unit that suits it (`-` when absent)."""
    if t is None:
        return "-"
    if t >= 1.0:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} µs"


def ratio(t, reference) -> str:
    return "-" if t is None or not reference else f"{t / reference:.2f}"


def machine_table(machine: dict) -> str:
    labels = [("date", "date"), ("cpu", "CPU"), ("cores", "cores"),
              ("platform", "platform"), ("python", "Python"), ("numpy", "NumPy"),
              ("fungrad", "fungrad"), ("jax", "JAX"), ("autograd", "autograd"),
              ("torch", "PyTorch"), ("OPENBLAS_NUM_THREADS", "OPENBLAS_NUM_THREADS"),
              ("quick", "`--quick`")]
    rows = "".join(f"| {label} | {machine[key] if machine.get(key) is not None else '-'} |\n"
                   for key, label in labels if key in machine)
    return "| | |\n|---|---|\n" + rows


def render(data: dict) -> str:
    """The Markdown of the page."""
    machine, rows = data["machine"], data["rows"]
    note = machine.get("note")
    out = [HEADER, "# Benchmarks\n\n",
           "Each row times one call of the same computation (a value and its gradient, "
           "or a training step) written four ways: with fungrad, by hand in NumPy (the "
           "gradient derived on paper: the speed limit for NumPy code), with JAX (on "
           "CPU, float64 enabled) and with HIPS autograd. Before timing, the runner "
           "checks that fungrad's values and gradients equal the hand-written ones. "
           "A time is the best of several rounds, and each round runs every version in "
           "turn, so all of them see the same machine load.\n\n",
           "**ratio** is that version's time divided by the hand-written NumPy time: "
           "1.00 is as fast as hand-written NumPy, 2.00 twice as slow. Rows marked jit "
           "use `fg.jit` and `jax.jit`; the others run eagerly (JAX's eager mode "
           "dispatches each operation separately and is slow on small arrays). Two rows "
           "compare fungrad with itself: in \"loop of grad / vmap(grad)\" the reference "
           "column is `vmap(grad)` and the fungrad column a Python loop of `grad`; the "
           "\"vs in-place Adam\" rows compare a jitted `fg.optim.adam` step with NumPy "
           "code that updates its arrays in place.\n\n"]
    if note:
        out.append(f"!!! note \"This run\"\n    {note}\n\n")
    out.append("![fungrad, JAX and autograd time over hand-written NumPy time, per case"
               "](benchmarks.png)\n\n")
    out.append("| case | NumPy by hand | fungrad | ratio | JAX | ratio | autograd | ratio |\n"
               "|---|---|---|---|---|---|---|---|\n")
    for row in rows:
        ref = row["numpy_s"]
        case = row["case"].replace("|", "\\|")
        out.append(f"| {case} | {seconds(ref)} | {seconds(row['fungrad_s'])} | "
                   f"**{ratio(row['fungrad_s'], ref)}** | {seconds(row.get('jax_s'))} | "
                   f"{ratio(row.get('jax_s'), ref)} | {seconds(row.get('autograd_s'))} | "
                   f"{ratio(row.get('autograd_s'), ref)} |\n")
    if data.get("compile"):
        out.append("\n## Compile time of jit\n\n"
                   "`jit` of `grad` of N unrolled layers `tanh(W @ x + b)` (32x32): the "
                   "first call (trace, optimize, generate code) minus a cached call, and "
                   "the cached call.\n\n"
                   "| layers | fungrad compile | fungrad call | JAX compile | JAX call |\n"
                   "|---|---|---|---|---|\n")
        for row in data["compile"]:
            out.append(f"| {row['layers']} | {seconds(row['fungrad_compile_s'])} | "
                       f"{seconds(row['fungrad_call_s'])} | "
                       f"{seconds(row.get('jax_compile_s'))} | "
                       f"{seconds(row.get('jax_call_s'))} |\n")
    out.append("\n## The machine\n\n" + machine_table(machine))
    out.append("\n## Running them\n\n"
               "```bash\n"
               "pip install -e \".[bench]\"     # autograd; JAX is used when installed\n"
               "OPENBLAS_NUM_THREADS=1 python benchmarks/run.py --quick "
               "--json benchmarks/results.json\n"
               "python docs/benchmarks_page.py  # this page and its plot\n"
               "```\n\n"
               "`benchmarks/README.md` explains the cases and has the figures of earlier "
               "runs; `benchmarks/cnn.py` (a LeNet training step against PyTorch and JAX), "
               "`conv.py`, `linalg.py`, `memory.py` and `scatter.py` time more.\n")
    return "".join(out)


def plot(data: dict, path: pathlib.Path) -> None:
    """Horizontal bars: each library's time over the hand-written NumPy time, per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = data["rows"]
    series = [("fungrad", "fungrad_s", "tab:blue"), ("JAX", "jax_s", "tab:orange"),
              ("autograd", "autograd_s", "tab:green")]
    y = np.arange(len(rows))
    height = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.5))
    for k, (label, key, color) in enumerate(series):
        values = [row[key] / row["numpy_s"] if row.get(key) else np.nan for row in rows]
        ax.barh(y + (k - 1) * height, values, height, label=label, color=color)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(y)
    ax.set_yticklabels([row["case"] if len(row["case"]) <= 75 else row["case"][:72] + "..."
                        for row in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time / hand-written NumPy time (log scale; 1 = as fast, lower is faster)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(RESULTS), help="the run's results")
    parser.add_argument("--out", default=str(DOCS), help="folder to write the page into")
    parser.add_argument("--no-plot", action="store_true", help="write the Markdown only")
    args = parser.parse_args(argv)
    data = json.loads(pathlib.Path(args.json).read_text())
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "benchmarks.md").write_text(render(data))
    if not args.no_plot:
        plot(data, out / "benchmarks.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
