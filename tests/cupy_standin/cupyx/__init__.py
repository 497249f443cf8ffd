"""Stand-in for cupyx (tests only; see cupy/__init__.py): the scatter functions."""
import numpy as _np

from cupy import _unwrap, _unwrap_index


def scatter_add(a, slices, value):
    _np.add.at(a._a, _unwrap_index(slices), _unwrap(value))


def scatter_max(a, slices, value):
    _np.maximum.at(a._a, _unwrap_index(slices), _unwrap(value))


def scatter_min(a, slices, value):
    _np.minimum.at(a._a, _unwrap_index(slices), _unwrap(value))
