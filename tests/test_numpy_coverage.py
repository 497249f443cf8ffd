"""docs/numpy-coverage.md is up to date, every NumPy function has a status (and a reason
where fungrad has no derivative or no function), and "not provided" stays under 10%."""
import pytest

import fungrad.numpy as fnp

from checker.coverage import coverage


def test_page_is_up_to_date():
    assert coverage.PAGE.read_text() == coverage.page(), (
        "docs/numpy-coverage.md is out of date: run `python docs/numpy_coverage.py`")


def test_not_provided_stays_under_ten_percent():
    names = coverage.numpy_functions()
    missing = [n for n in names if coverage.status(n)[0] == "not provided"]
    assert len(missing) < 0.1 * len(names), missing


def test_value_only_names_exist():
    assert [n for n in coverage.VALUE_ONLY if coverage.fnp_function(n) is None] == []


@pytest.mark.parametrize("name", ["sin", "linalg.solve", "fft.rfft"])
def test_submodule_names_resolve(name):
    fn = coverage.fnp_function(name)
    assert fn is None or callable(fn)
    if name == "sin":
        assert fn is fnp.sin


def test_constant_makers_are_value_only():
    """fnp functions checked only as constants (CREATION, no derivative spec) are listed
    "value only" (the registry checks the others' listing against their derivatives)."""
    from checker.registry import CREATION, FNP
    assert sorted(n for n in CREATION if n not in FNP and n not in coverage.VALUE_ONLY) == []
