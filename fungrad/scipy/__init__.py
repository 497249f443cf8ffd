"""fungrad.scipy: differentiable pieces of SciPy (as jax.scipy): `special`, `stats`,
`signal`, `integrate`, `linalg`, `fft` (DCTs), `ndimage` (map_coordinates), `interpolate`
(RegularGridInterpolator).

SciPy is an optional dependency (`pip install 'fungrad[scipy]'`) and is imported only when a
function needs its values (the special functions, some factorizations): `import fungrad` and
`import fungrad.scipy` need only NumPy. `fg.scipy` is reachable after `import fungrad` (as
`jax.scipy` after `import jax`), loaded on first access.

Example:
    >>> import fungrad as fg
    >>> float(fg.grad(fg.scipy.special.gammaln)(1.0))
    -0.5772156649015329
"""
from . import special, stats, signal, integrate, linalg, fft, ndimage, interpolate

__all__ = ["special", "stats", "signal", "integrate", "linalg", "fft", "ndimage", "interpolate"]
