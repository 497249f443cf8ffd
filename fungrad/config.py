"""Global options: `fg.config.update(name, value)`; read as attributes.

    >>> fg.config.update("jit_retrace_warning", 5)   # warn from the 6th trace of a function
"""
from __future__ import annotations


class Config:
    """The options and their defaults:

    - `jit_retrace_warning` (int or None, default 10): warn when a jitted function has been
      traced more than this many times, naming the argument whose signature changed.
    - `check_graphs` (bool, default False): type-check every graph that jit, make_ir and
      reverse mode stage, and every optimized graph (`fungrad.core.check`); the tests set it.
    """

    def __init__(self):
        self._values = {"jit_retrace_warning": 10, "check_graphs": False}

    def update(self, name: str, value) -> None:
        if name not in self._values:
            raise KeyError(f"fg.config: unknown option {name!r}; options are "
                           f"{sorted(self._values)}")
        self._values[name] = value

    def __getattr__(self, name):
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"fg.config has no option {name!r}") from None


config = Config()
