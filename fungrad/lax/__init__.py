"""Primitives by family. `ALL_PRIMITIVES` lists every primitive (the checker walks it)."""
from .elementwise import ELEMENTWISE_PRIMITIVES
from .reduce import REDUCE_PRIMITIVES
from .shape import SHAPE_PRIMITIVES
from .shape import pad
from .indexing import INDEXING_PRIMITIVES
from .dot import dot_general_p
from .misc import MISC_PRIMITIVES
from .random import RANDOM_PRIMITIVES
from .debug import DEBUG_PRIMITIVES
from .convolution import (CONV_PRIMITIVES, conv, conv_general_dilated, conv_general_dilated_p,
                          conv_transpose, reduce_window)
from ..transforms.jit import jit_call_p
from .slicing import (SLICING_PRIMITIVES, dynamic_index_in_dim, dynamic_slice,
                      dynamic_slice_in_dim, dynamic_update_slice, select_n)
from .control_flow import CONTROL_FLOW_PRIMITIVES, cond, switch
from .associative import associative_scan
from .loops import LOOP_PRIMITIVES, fori_loop, map, scan, while_loop
from .while_tape import TAPE_PRIMITIVES
from .remat import REMAT_PRIMITIVES
from .scatter import SCATTER_PRIMITIVES
from .fft import FFT_PRIMITIVES
from .special import SPECIAL_PRIMITIVES
from .linalg import LINALG_PRIMITIVES
from .signal import SIGNAL_PRIMITIVES
from .search import SEARCH_PRIMITIVES

ALL_PRIMITIVES = (ELEMENTWISE_PRIMITIVES + REDUCE_PRIMITIVES + SHAPE_PRIMITIVES
                  + INDEXING_PRIMITIVES + [dot_general_p] + MISC_PRIMITIVES + RANDOM_PRIMITIVES
                  + CONV_PRIMITIVES + DEBUG_PRIMITIVES + [jit_call_p] + SLICING_PRIMITIVES
                  + CONTROL_FLOW_PRIMITIVES + LOOP_PRIMITIVES + TAPE_PRIMITIVES
                  + REMAT_PRIMITIVES + SCATTER_PRIMITIVES + FFT_PRIMITIVES
                  + SPECIAL_PRIMITIVES + LINALG_PRIMITIVES
                  + SIGNAL_PRIMITIVES + SEARCH_PRIMITIVES)

# the functions re-exported above as fg.lax.* (listed, so pyflakes counts them as used)
__all__ = ["ALL_PRIMITIVES", "conv", "conv_general_dilated", "conv_general_dilated_p",
           "conv_transpose", "reduce_window", "dynamic_index_in_dim", "dynamic_slice",
           "dynamic_slice_in_dim", "dynamic_update_slice", "select_n", "cond", "switch",
           "associative_scan", "scan", "fori_loop", "map", "while_loop"]
__all__ += ["pad"]

# jax.lax's array functions (checked front ends, lax/array_ops.py)
from .array_ops import (ARRAY_FUNCTIONS, RoundingMethod, argmax, argmin, broadcast,  # noqa: E402
                        broadcast_in_dim, broadcasted_iota, clamp, concatenate,
                        convert_element_type, cummax, cummin, cumprod, cumsum, div, dot_general,
                        expand_dims, index_in_dim, integer_pow, iota, reduce_max, reduce_min,
                        reduce_prod, reduce_sum, rem, reshape, rev, rsqrt, slice, slice_in_dim,
                        squeeze, stop_gradient, top_k, transpose)
from .array_ops import (neg, abs, sign, exp, exp2, log, log1p, expm1, sin, cos,  # noqa: E402
                        tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sqrt,
                        cbrt, square, reciprocal, floor, ceil, is_finite, logistic, erf, erfc,
                        erf_inv, lgamma, digamma, real, imag, conj, bitwise_not,
                        population_count, clz, add, sub, mul, max, min, pow, atan2, nextafter,
                        complex, eq, ne, lt, le, gt, ge, bitwise_and, bitwise_or, bitwise_xor,
                        shift_left, shift_right_logical, shift_right_arithmetic, round, select,
                        sort, sort_key_val, reduce_and, reduce_or, reduce_xor, cumlogsumexp,
                        full, full_like, tile, split, collapse, batch_matmul,
                        reduce_precision)
__all__ += ["RoundingMethod"]
__all__ += ["stop_gradient", "broadcast_in_dim", "broadcast", "reshape", "transpose",
            "concatenate", "squeeze", "expand_dims", "rev", "slice", "slice_in_dim",
            "index_in_dim", "iota", "broadcasted_iota", "convert_element_type", "reduce_sum",
            "reduce_prod", "reduce_max", "reduce_min", "argmax", "argmin", "cumsum", "cumprod",
            "cummax", "cummin", "clamp", "integer_pow", "rsqrt", "dot_general", "top_k", "div",
            "rem",
            "neg", "abs", "sign", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan",
            "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sqrt",
            "cbrt", "square", "reciprocal", "floor", "ceil", "is_finite", "logistic", "erf",
            "erfc", "erf_inv", "lgamma", "digamma", "real", "imag", "conj", "bitwise_not",
            "population_count", "clz",
            "add", "sub", "mul", "max", "min", "pow", "atan2", "nextafter", "complex", "eq",
            "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
            "shift_left", "shift_right_logical", "shift_right_arithmetic",
            "round", "select", "sort", "sort_key_val", "reduce_and", "reduce_or", "reduce_xor",
            "cumlogsumexp", "full", "full_like", "tile", "split", "collapse", "batch_matmul",
            "reduce_precision"]
assert __all__[-len(ARRAY_FUNCTIONS):] == ARRAY_FUNCTIONS
