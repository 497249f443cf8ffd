"""Writes docs/numpy-coverage.md: every public NumPy function (numpy, numpy.linalg,
numpy.fft) with its status in fungrad.numpy.

    python docs/numpy_coverage.py          # rewrite the page

Statuses:
- **differentiable**: fnp provides it, and its registry spec checks its derivatives;
- **value only**: fnp provides it (traceable, batchable, jittable) without a derivative,
  for the reason given in `VALUE_ONLY` (the registry checker fails a spec whose function has
  a zero derivative and is not listed here, or is listed and has one);
- **NumPy's own**: re-exported unchanged (printing, I/O, dtype queries: no array math);
- **not provided**: with the reason given in `NOT_PROVIDED`.

tests/test_numpy_coverage.py fails when the page is out of date, when a name lacks a reason,
or when "not provided" reaches 10% of NumPy's functions.
"""
from __future__ import annotations

import pathlib
import types

import numpy as np

PAGE = pathlib.Path(__file__).with_name("numpy-coverage.md")
NAMESPACES = {"": np, "linalg.": np.linalg, "fft.": np.fft}

_INT_OUT = "integer output (an index or a count)"
_BOOL_OUT = "boolean output"
_STEP = "piecewise constant: its derivative is zero wherever it exists"
_BITS = "integer-only (bitwise)"

# provided without a derivative, and why
VALUE_ONLY = {
    **{n: _BOOL_OUT for n in (
        "less", "less_equal", "equal", "not_equal", "greater", "greater_equal", "logical_and",
        "logical_or", "logical_xor", "logical_not", "isfinite", "isnan", "any", "all",
        "allclose", "array_equal", "array_equiv", "isclose", "iscomplex", "isreal", "isinf",
        "isneginf", "isposinf", "signbit")},
    **{n: _INT_OUT for n in (
        "argmax", "argmin", "argsort", "searchsorted", "argpartition", "argwhere", "flatnonzero",
        "lexsort", "nanargmax", "nanargmin", "digitize", "count_nonzero", "ravel_multi_index",
        "unravel_index")},
    "isin": _BOOL_OUT,
    **{n: "makes a constant array from shapes and scalars: nothing to differentiate" for n in (
        "arange", "empty", "eye", "identity", "ones", "zeros", "tri", "indices", "bartlett",
        "blackman", "hamming", "hanning", "kaiser")},
    "roots": "eigenvalues of the companion matrix, on concrete values (raises under grad)",
    **{n: _STEP for n in ("sign", "floor", "ceil", "round", "around", "floor_divide", "fix",
                          "rint", "trunc", "spacing")},
    **{n: "integer-only (number theory / bit counts)" for n in ("gcd", "lcm", "bitwise_count")},
    "linalg.matrix_rank": "integer output (a count of singular values above a tolerance)",
    **{n: _BITS for n in (
        "invert", "bitwise_not", "bitwise_invert", "bitwise_and", "bitwise_or", "bitwise_xor",
        "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift")},
}

# not provided, and why
NOT_PROVIDED: dict = {
    "asmatrix": "np.matrix is discouraged by NumPy itself; use 2-D arrays",
    "bmat": "np.matrix is discouraged by NumPy itself; use fnp.block",
    "frompyfunc": "makes a NumPy ufunc object from a Python function: use fg.vmap",
    "nested_iters": "NumPy's iterator objects work on memory, not on traced values",
    "packbits": "bit-level packing into uint8 storage; use np.packbits on concrete arrays",
    "unpackbits": "bit-level unpacking of uint8 storage; use np.unpackbits on concrete arrays",
}

# differentiable functions whose spec draws some cases without a derivative
PARTLY_DIFFERENTIABLE = {
    "imag": "zero for real input; its complex spec checks the derivative",
    "bincount": "differentiable in `weights`; counts alone have none",
    "heaviside": "a step in x1; differentiable in x2 (its value where x1 == 0)",
    "angle": "piecewise constant for real input; its complex spec checks the derivative",
    "linalg.matrix_power": "differentiable; for n = 0 the result is the constant identity",
    "histogram_bin_edges": "differentiable in the data's min/max when `range` is not given",
    **{n: "the values picked are differentiable; indices, counts and masks are not"
       for n in ("unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
                 "intersect1d", "union1d", "setdiff1d", "setxor1d")},
}


def numpy_functions() -> list:
    """Every public NumPy function (not types), as 'name' or 'linalg.name' / 'fft.name'."""
    out = []
    for prefix, mod in NAMESPACES.items():
        for n in dir(mod):
            v = getattr(mod, n)
            if n.startswith("_") or n == "test" or not callable(v) or isinstance(v, type):
                continue
            out.append(prefix + n)
    return sorted(out)


def fnp_function(name: str):
    import fungrad.numpy as fnp
    obj = fnp
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return None if isinstance(obj, types.ModuleType) else obj


def status(name: str) -> tuple:
    """(status, reason) of NumPy function `name` in fungrad."""
    from fungrad.numpy._host import HOST_FUNCTIONS
    if name in HOST_FUNCTIONS:
        return "NumPy's own", "no array math: re-exported unchanged"
    if fnp_function(name) is None:
        if name not in NOT_PROVIDED:
            raise KeyError(f"{name}: not provided by fungrad.numpy and has no reason in "
                           "docs/numpy_coverage.py NOT_PROVIDED")
        return "not provided", NOT_PROVIDED[name]
    if name in NOT_PROVIDED:
        raise KeyError(f"{name}: listed in NOT_PROVIDED but fungrad.numpy provides it")
    if name in VALUE_ONLY:
        return "value only", VALUE_ONLY[name]
    return "differentiable", ""


def page() -> str:
    names = numpy_functions()
    rows = [(n, *status(n)) for n in names]
    counts: dict = {}
    for _, s, _ in rows:
        counts[s] = counts.get(s, 0) + 1
    lines = [
        "# NumPy coverage",
        "",
        "Every public function of `numpy`, `numpy.linalg` and `numpy.fft` "
        f"(NumPy {np.__version__}), with its status in `fungrad.numpy`. Generated by "
        "`python docs/numpy_coverage.py`; a test fails when it is out of date.",
        "",
        "- **differentiable**: derivatives of every order, checked by the registry checker "
        "(JVP and VJP against finite differences, vmap, jit);",
        "- **value only**: traceable, batchable and jittable, with no derivative (the reason "
        "is given);",
        "- **NumPy's own**: re-exported unchanged (printing, I/O, dtype queries);",
        "- **not provided**: with the reason.",
        "",
        "| status | functions |",
        "|---|---|",
    ]
    lines += [f"| {s} | {counts.get(s, 0)} |" for s in
              ("differentiable", "value only", "NumPy's own", "not provided")]
    lines += [f"| total | {len(rows)} |", "", "| function | status | why |", "|---|---|---|"]
    lines += [f"| `{n}` | {s} | {r} |" for n, s, r in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    PAGE.write_text(page())
    print(f"wrote {PAGE}")
