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
    - `jit_cache_size` (int >= 1 or None, default 64): compiled signatures each jitted
      function keeps; beyond that the least recently used one is dropped (None: no limit).
    - `debug_nans` / `debug_infs` (bool, default False): raise `FloatingPointError`
      (`fg.errors.NonFiniteError`) at the first operation, forward or backward, eager or
      jitted, that produces a NaN / an inf, naming it and the user's line (`fungrad.debug`).

    Example:
        >>> fg.config.jit_retrace_warning
        10
        >>> old = fg.config.jit_cache_size
        >>> fg.config.update("jit_cache_size", 8)
        >>> fg.config.jit_cache_size
        8
        >>> fg.config.update("jit_cache_size", old)
        >>> fg.config.update("jit_cache", 8)
        Traceback (most recent call last):
        ...
        KeyError: "fg.config: unknown option 'jit_cache'; options are [...]"
    """

    def __init__(self):
        self._values = {"jit_retrace_warning": 10, "jit_cache_size": 64, "check_graphs": False,
                        "debug_nans": False, "debug_infs": False}
        # name -> function called with the new value after an update (modules that must act
        # on a change register here: the config imports nothing of fungrad)
        self._hooks: dict = {}

    def update(self, name: str, value) -> None:
        if name not in self._values:
            raise KeyError(f"fg.config: unknown option {name!r}; options are "
                           f"{sorted(self._values)}")
        if name == "jit_cache_size" and not (
                value is None or (type(value) is int and value >= 1)):
            raise ValueError(f"fg.config: jit_cache_size must be an int >= 1 or None (no "
                             f"limit), got {value!r}")
        if name in ("debug_nans", "debug_infs") and type(value) is not bool:
            raise ValueError(f"fg.config: {name} must be True or False, got {value!r}")
        self._values[name] = value
        hook = self._hooks.get(name)
        if hook is not None:
            hook(value)

    def __getattr__(self, name):
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"fg.config has no option {name!r}") from None


config = Config()
