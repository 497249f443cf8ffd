"""NumPy's own functions that do no array math: printing, file I/O, buffers, floating-point
error state, dtype and memory queries, business-day dates. fungrad.numpy re-exports them
unchanged, so NumPy code that calls them through `fnp` ports as it is.

They work on concrete arrays. Given a traced value they ask for its concrete value, as
`np.asarray` does: fine under `grad` of concrete inputs, a `ConcretizationError` naming the
fix inside `jit` / `vmap` (where values are abstract). To see values inside `jit`, use
`fg.debug.print`.

    >>> fnp.array2string(fnp.linspace(0.0, 1.0, 3))
    '[0.  0.5 1. ]'
"""
from numpy import (array2string, array_repr, array_str, base_repr, binary_repr, busday_count,
                   busday_offset, can_cast, common_type, datetime_as_string, datetime_data,
                   errstate, format_float_positional, format_float_scientific, from_dlpack,
                   frombuffer, fromfile, fromiter, fromregex, fromstring, genfromtxt,
                   get_include, get_printoptions, getbufsize, geterr, geterrcall, info,
                   is_busday, isdtype, isfortran, isnat, isscalar, iterable, load, loadtxt,
                   may_share_memory, min_scalar_type, mintypecode, printoptions, save, savetxt,
                   savez, savez_compressed, set_printoptions, setbufsize, seterr, seterrcall,
                   shares_memory, show_config, show_runtime, typename)

# every name above (fnp's __all__ and the registry's list of non-array functions read it)
HOST_FUNCTIONS = __all__ = (
    "array2string", "array_repr", "array_str", "base_repr", "binary_repr", "busday_count",
    "busday_offset", "can_cast", "common_type", "datetime_as_string", "datetime_data",
    "errstate", "format_float_positional", "format_float_scientific", "from_dlpack",
    "frombuffer", "fromfile", "fromiter", "fromregex", "fromstring", "genfromtxt",
    "get_include", "get_printoptions", "getbufsize", "geterr", "geterrcall", "info",
    "is_busday", "isdtype", "isfortran", "isnat", "isscalar", "iterable", "load", "loadtxt",
    "may_share_memory", "min_scalar_type", "mintypecode", "printoptions", "save", "savetxt",
    "savez", "savez_compressed", "set_printoptions", "setbufsize", "seterr", "seterrcall",
    "shares_memory", "show_config", "show_runtime", "typename")
