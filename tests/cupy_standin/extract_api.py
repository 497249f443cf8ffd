"""Write cupy_api.json (the stand-in's copy of CuPy's API) from an installed CuPy.

    python tests/cupy_standin/extract_api.py      # with CuPy installed; no GPU needed

Records what the stand-in enforces: the public names of cupy, cupy.linalg and cupy.fft, the
parameters of their functions, the ufuncs whose `.at` CuPy implements, and the names of
cupyx.scipy.special / linalg / signal (read from their sources: importing some of them
needs CUDA libraries).
"""
import inspect
import json
import re
from pathlib import Path

import cupy

HERE = Path(__file__).parent


def _names(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _signatures(module):
    out = {}
    for name in _names(module):
        fn = getattr(module, name)
        if isinstance(fn, type) or not callable(fn) or type(fn).__name__ == "ufunc":
            continue
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            continue
        out[name] = [[p.name, int(p.kind), p.default is not p.empty] for p in params]
    return out


def _cupyx_names(sub):
    """Names a cupyx.scipy subpackage's __init__ imports (without importing it)."""
    source = Path(cupy.__file__).parent.parent / "cupyx" / "scipy" / sub / "__init__.py"
    text = re.sub(r"#.*", "", source.read_text())
    names = set()
    for block in re.findall(r"import\s+\(([^)]*)\)", text):
        names |= set(re.findall(r"\w+", block))
    for line in re.findall(r"^\s*from\s+\S+\s+import\s+([^(\n]+)$", text, re.M):
        for part in line.split(","):
            words = part.split()
            if words:
                names.add(words[-1])
    return sorted(n for n in names if re.fullmatch(r"[A-Za-z]\w*", n))


def main():
    api = {
        "version": cupy.__version__,
        "names": {"top": _names(cupy), "linalg": _names(cupy.linalg), "fft": _names(cupy.fft)},
        "signatures": {"top": _signatures(cupy), "linalg": _signatures(cupy.linalg),
                       "fft": _signatures(cupy.fft)},
        "scatter_ufuncs": sorted(n for n in _names(cupy) if type(getattr(cupy, n)).__name__
                                 == "ufunc" and getattr(getattr(cupy, n), "_scatter_op", None)),
        "cupyx_scipy": {sub: _cupyx_names(sub) for sub in ("special", "linalg", "signal")},
    }
    (HERE / "cupy_api.json").write_text(json.dumps(api, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
