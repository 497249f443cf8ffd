"""fungrad.scipy: SciPy's API on fungrad (differentiable, batchable, jittable).

SciPy itself is imported lazily, inside the functions that compute values with it, so
`import fungrad` stays NumPy-only.

Example: `fg.scipy.linalg.expm(a)`
"""
from . import linalg

__all__ = ["linalg"]
