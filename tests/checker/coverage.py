"""docs/numpy_coverage.py (the NumPy coverage page's generator and its reason tables),
loaded as a module for the tests."""
import importlib.util
import pathlib

_PATH = pathlib.Path(__file__).resolve().parents[2] / "docs" / "numpy_coverage.py"
_spec = importlib.util.spec_from_file_location("numpy_coverage", _PATH)
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)
