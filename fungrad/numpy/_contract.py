"""Contractions on `dot_general`: matmul, dot, tensordot, outer."""
from __future__ import annotations

import operator

import numpy as np

from ..backend import asarray
from ..core.ir import aval_of
from ..lax.dot import dot_general
from ._base import (broadcast_shapes, broadcast_to_shape, cast, dtype_of, is_traced, is_weak,
                    lift, result_type, shape_of, traced_or_narrow)
from ._shape import expand_dims, moveaxis, reshape, squeeze, transpose


def _as(x, dt):
    """An operand as `dt`: a traced one by a cast, a concrete one as an array on its device
    (a CuPy array stays one)."""
    if is_traced(x):
        return cast(x, dt)
    x = asarray(x)
    return x if x.dtype == dt else x.astype(dt)


def _strong(x):
    """`x` as NumPy's non-ufunc contractions see it for promotion: dot, inner, outer,
    tensordot, vdot and einsum convert a Python scalar with `asarray`, so it counts as an
    int64 / float64 / complex128 array, not weakly (`np.dot(2.0, float32 array)` is
    float64); a weak traced value (a Python scalar passed to jit) likewise."""
    if is_weak(x):
        return np.asarray(x)
    if is_traced(x) and aval_of(x).weak_type:
        return np.zeros((), dtype_of(x))
    return x


def _strong_type(*xs):
    return result_type(*[_strong(x) for x in xs])


def _prep(fname, a, b, strong=True):
    dt = _strong_type(a, b) if strong else result_type(a, b)
    return _as(a, dt), _as(b, dt)


def _axis_in(fname, axis, shape, name):
    """A tensordot axis of operand `name`, normalised; out of range: NumPy's AxisError
    (an IndexError, as NumPy's tensordot raises, and a ValueError)."""
    axis = operator.index(axis)
    if not -len(shape) <= axis < len(shape):
        raise np.exceptions.AxisError(
            f"{fname}: axis {axis} of axes is out of bounds for {name} of shape {shape} "
            f"({len(shape)} dimension{'s' * (len(shape) != 1)}); name axes in "
            f"[-{len(shape)}, {len(shape)})")
    return axis % len(shape)


def _check_aligned(fname, a_shape, ad, b_shape, bd):
    if a_shape[ad] != b_shape[bd]:
        raise ValueError(f"{fname}: shapes {a_shape} and {b_shape} are not aligned: dimension "
                         f"{ad} of x ({a_shape[ad]}) != dimension {bd} of y ({b_shape[bd]})")


def matmul(x1, x2):
    """`numpy.matmul` (`@`): batched matrix product with NumPy's broadcasting and 1-D rules.

    Example:
        >>> fnp.matmul(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
        array([3., 7.])
        >>> fnp.matmul(np.ones((5, 2, 3)), np.ones((3, 4))).shape
        (5, 2, 4)
    """
    x1, x2 = lift(x1), lift(x2)
    if not traced_or_narrow(x1, x2):  # (NumPy's bfloat16 matmul gives float32)
        return np.matmul(x1, x2)
    a, b = _prep("matmul", x1, x2, strong=False)  # (a ufunc: NEP 50's weak scalars)
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        raise ValueError(f"matmul: operands must be at least 1-D, got shapes {sa} and {sb} "
                         "(use multiply for scalars)")
    a_vec, b_vec = len(sa) == 1, len(sb) == 1
    ka, kb = len(sa) - 1, (0 if b_vec else len(sb) - 2)
    _check_aligned("matmul", sa, ka, sb, kb)
    if len(sb) <= 2:
        # no batch dims on the right: one contraction, a's leading dims pass through
        return dot_general(a, b, (((ka,), (kb,)), ((), ())))
    if len(sa) <= 2:
        out = dot_general(a, b, (((ka,), (kb,)), ((), ())))
        # layout: a_free, b_batch..., b_cols -> b_batch..., a_free, b_cols
        nbatch = len(sb) - 2
        nfa = 0 if a_vec else 1
        perm = list(range(nfa, nfa + nbatch)) + list(range(nfa)) + [nfa + nbatch]
        return transpose(out, perm)
    batch = broadcast_shapes("matmul", ("x batch", sa[:-2]), ("y batch", sb[:-2]))
    a = broadcast_to_shape(a, batch + sa[-2:])
    b = broadcast_to_shape(b, batch + sb[-2:])
    nb = len(batch)
    bd = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)))


def dot(a, b):
    """`numpy.dot`: sum over the last axis of a and the second-to-last of b.

    Example:
        >>> fnp.dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        np.float64(11.0)
        >>> fg.grad(fnp.dot)(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        array([3., 4.])
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b):
        return np.dot(a, b)
    a, b = _prep("dot", a, b)
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        from ._elementwise import multiply
        return multiply(a, b)
    ka, kb = len(sa) - 1, max(len(sb) - 2, 0)
    _check_aligned("dot", sa, ka, sb, kb)
    return dot_general(a, b, (((ka,), (kb,)), ((), ())))


def tensordot(a, b, axes=2):
    """`numpy.tensordot`: contract `axes` (an int N, or a pair of axis lists).

    Example:
        >>> fnp.tensordot(np.ones((2, 3)), np.ones((3, 4)), axes=([1], [0]))
        array([[3., 3., 3., 3.],
               [3., 3., 3., 3.]])
        >>> fnp.tensordot(np.ones((2, 3)), np.ones((2, 3)))   # axes=2: the sum of the products
        array(6.)
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b):
        return np.tensordot(a, b, axes)
    a, b = _prep("tensordot", a, b)
    sa, sb = shape_of(a), shape_of(b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n > min(len(sa), len(sb)):
            raise np.exceptions.AxisError(  # (NumPy's IndexError, and a ValueError)
                f"tensordot: axes={n} exceeds the dimensions of shapes {sa} and {sb}: "
                f"contract at most {min(len(sa), len(sb))} trailing axes of x with leading "
                "axes of y, or pass axes as a pair of axis lists")
        la, lb = list(range(len(sa) - n, len(sa))), list(range(max(n, 0)))
    else:
        la, lb = axes
        la = [la] if isinstance(la, (int, np.integer)) else list(la)
        lb = [lb] if isinstance(lb, (int, np.integer)) else list(lb)
        if len(la) != len(lb):
            raise ValueError(f"tensordot: axes {axes} must name as many axes of x as of y")
        la = [_axis_in("tensordot", i, sa, "x") for i in la]
        lb = [_axis_in("tensordot", i, sb, "y") for i in lb]
    for i, j in zip(la, lb):
        _check_aligned("tensordot", sa, i, sb, j)
    return dot_general(a, b, ((tuple(la), tuple(lb)), ((), ())))


def outer(a, b):
    """`numpy.outer` of the flattened inputs.

    Example:
        >>> fnp.outer(np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0]))
        array([[  1.,  10., 100.],
               [  2.,  20., 200.]])
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b):
        return np.outer(a, b)
    from ._elementwise import multiply
    a, b = _prep("outer", a, b)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def inner(a, b):
    """`numpy.inner`: sum over the last axes.

    Example:
        >>> fnp.inner(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        np.float64(11.0)
        >>> fnp.inner(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
        array([3., 7.])
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b):
        return np.inner(a, b)
    a, b = _prep("inner", a, b)
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        from ._elementwise import multiply
        return multiply(a, b)
    return tensordot(a, b, ([len(sa) - 1], [len(sb) - 1]))


def vdot(a, b):
    """`numpy.vdot`: the dot of the flattened inputs, conjugating the first.

    Example:
        >>> fnp.vdot(np.array([1j, 2.0]), np.array([1j, 1.0]))   # conj(1j) * 1j + 2
        np.complex128(3+0j)
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b):
        return np.vdot(a, b)
    from ._elementwise import conj_if_complex
    return dot(conj_if_complex(reshape(a, (-1,))), reshape(b, (-1,)))


def _vecdot(fname, x1, x2, axis=-1):
    """The traced `vecdot` (fnp.vecdot, fnp.linalg.vecdot): sum(conj(x1) * x2) over each
    operand's own `axis`, the other axes broadcast. As NumPy's gufunc the sum stays in the
    operands' promoted dtype (int8 wraps, bools give an `or` of `and`s), not in sum's
    widened one."""
    from ._elementwise import conj_if_complex, multiply
    from ._reductions import sum as _sum
    x1, x2, axis = lift(x1), lift(x2), operator.index(axis)
    dt = result_type(x1, x2)
    s1, s2 = shape_of(x1), shape_of(x2)
    for name, s in (("x1", s1), ("x2", s2)):
        if not -len(s) <= axis < len(s):
            raise ValueError(f"{fname}: axis {axis} is out of bounds for {name} of shape {s} "
                             "(the vectors' axis is a core dimension of both operands)")
    # (the vector axis is a core dimension: it does not broadcast)
    if s1[axis] != s2[axis]:
        raise ValueError(f"{fname}: input operands have a mismatch in their core dimension "
                         f"(vectors of length {s1[axis]} and {s2[axis]} along axis {axis}; "
                         f"shapes {s1} and {s2})")
    # (NumPy's float16 loop multiplies and accumulates in float32 and rounds once)
    wide = np.dtype(np.float32) if dt == np.float16 else dt
    x1, x2 = moveaxis(_as(x1, wide), axis, -1), moveaxis(_as(x2, wide), axis, -1)
    return _as(_sum(multiply(conj_if_complex(x1), x2), axis=-1, dtype=wide), dt)


def _check_core_ndim(fname, x, name, k, signature):
    if len(shape_of(x)) < k:
        raise ValueError(f"{fname}: {name} needs at least {k} dimension{'s' * (k > 1)} "
                         f"(signature {signature}), got shape {shape_of(x)}")


def _matvec(x1, x2):
    """The traced `matvec`: matrix (..., m, n) times vector (..., n). NumPy's gufunc needs
    a matrix of at least 2 dims (matmul would take a 1-D x1 as a vector)."""
    x1, x2 = lift(x1), lift(x2)
    _check_core_ndim("matvec", x1, "x1 (the matrix)", 2, "(m,n),(n)->(m)")
    _check_core_ndim("matvec", x2, "x2 (the vector)", 1, "(m,n),(n)->(m)")
    return squeeze(matmul(x1, expand_dims(x2, -1)), -1)


def _vecmat(x1, x2):
    """The traced `vecmat`: conj(vector) (..., n) times matrix (..., n, m)."""
    from ._elementwise import conj_if_complex
    x1, x2 = lift(x1), lift(x2)
    _check_core_ndim("vecmat", x1, "x1 (the vector)", 1, "(n),(n,m)->(m)")
    _check_core_ndim("vecmat", x2, "x2 (the matrix)", 2, "(n),(n,m)->(m)")
    return squeeze(matmul(expand_dims(conj_if_complex(x1), -2), x2), -2)


def _parse_einsum(subscripts, operands, optimize=False):
    """Explicit per-operand letter lists and output letters ('...' expanded). An explicit
    output without '...' where the operands' '...' stands for axes is NumPy's error for
    optimize=False only (its optimizing path sums those axes)."""
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts in {subscripts!r} but "
                         f"{len(operands)} operands given")
    pool = iter(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subscripts)
    n_ell = max((len(shape_of(op)) - len(t.replace("...", "")) for t, op in
                 zip(terms, operands) if "..." in t), default=0)
    ell = [next(pool) for _ in range(n_ell)]
    letters = []
    for t, op in zip(terms, operands):
        nd = len(shape_of(op))
        if "..." in t:
            k = nd - len(t.replace("...", ""))
            t = t.replace("...", "".join(ell[n_ell - k:]) if k else "")
        if len(t) != nd:
            raise ValueError(f"einsum: subscripts {t!r} name {len(t)} axes but the operand has "
                             f"shape {shape_of(op)}")
        letters.append(list(t))
    if arrow:
        if ell and "..." not in out and optimize is False:
            raise ValueError(
                f"einsum {subscripts!r}: output has more dimensions than subscripts given in "
                f"einstein sum, but no '...' ellipsis provided to broadcast the extra "
                f"dimensions (the operands' '...' stands for {n_ell} axes; write '->...' "
                "and sum them afterwards, or name them with letters)")
        out = out.replace("...", "".join(ell))
    else:
        counts = {}
        for ls in letters:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(ell) + "".join(sorted(c for c, n in counts.items()
                                             if n == 1 and c not in ell))
    return letters, list(out)


def _take_diagonal(x, ls):
    """Resolve repeated letters in one operand by taking diagonals."""
    from ..lax.indexing import getitem_p
    while True:
        rep = next((c for c in ls if ls.count(c) > 1), None)
        if rep is None:
            return x, ls
        i = ls.index(rep)
        j = ls.index(rep, i + 1)
        n = shape_of(x)[i]
        x = moveaxis(x, (i, j), (0, 1))
        rest = [c for k, c in enumerate(ls) if k not in (i, j)]
        ar = np.arange(n)
        x = getitem_p.bind(x, ar, ar, spec=(("array", 0), ("array", 1)))
        ls = [rep] + rest


_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_letters(sub) -> str:
    """[0, 1, Ellipsis] -> 'ab...' (einsum's operand-list form)."""
    out = ""
    for k in sub:
        if k is Ellipsis:
            out += "..."
        elif isinstance(k, (int, np.integer)) and 0 <= k < len(_EINSUM_LETTERS):
            out += _EINSUM_LETTERS[k]
        else:
            raise ValueError(f"einsum: subscript {k!r} in the operand-list form must be an "
                             f"int in [0, {len(_EINSUM_LETTERS)}) or Ellipsis")
    return out


def _from_operand_list(args):
    """`einsum(x, [0, 1], y, [1, 2], [0, 2])` -> ('ab,bc->ac', [x, y])."""
    out = _sublist_letters(args[-1]) if len(args) % 2 else None
    pairs = args[:len(args) - len(args) % 2]
    subs = ",".join(_sublist_letters(s) for s in pairs[1::2])
    return subs + ("" if out is None else "->" + out), list(pairs[0::2])


def _shape_dummies(ops):
    """Zero-stride stand-ins with the operands' shapes (np.einsum_path needs arrays)."""
    return [np.broadcast_to(np.zeros((), np.float64), shape_of(o)) for o in ops]


def einsum_path(subscripts, *operands, optimize="greedy"):
    """`numpy.einsum_path`: NumPy's contraction order (and its report) for these shapes;
    traced operands count by their shapes.

    Example:
        >>> a, b, c = np.ones((2, 10)), np.ones((10, 10)), np.ones((10, 2))
        >>> path, report = fnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")
        >>> path
        ['einsum_path', (0, 1), (0, 1)]
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _from_operand_list((subscripts,) + operands)
    ops = [lift(o) for o in operands]
    # (CuPy has no einsum_path: its operands count by their shapes too)
    return np.einsum_path(subscripts, *[o if type(o) is np.ndarray else d for o, d in
                                        zip(ops, _shape_dummies(ops))], optimize=optimize)


def _pairwise_order(subscripts, ops, optimize):
    """The operand groups to contract in turn, from np.einsum_path (None: left to right)."""
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        path, left = [tuple(step) for step in optimize[1:]], len(ops)
        for step in path:  # (NumPy's errors, named)
            if any(not 0 <= i < left for i in step):
                raise IndexError(f"einsum: optimize path step {step} names an operand "
                                 f"beyond the {left} left at that step; each step lists "
                                 "positions in the current list (np.einsum_path's output)")
            left -= len(step) - 1
        if left != 1:
            raise RuntimeError(f"einsum: Invalid einsum_path is specified: {left - 1} more "
                               "operands has to be contracted (the optimize path must "
                               "contract every operand; see np.einsum_path)")
        return path
    if optimize is False or optimize is None or len(ops) < 3:
        return None
    else:
        how = "greedy" if optimize is True else optimize
        path = np.einsum_path(subscripts, *_shape_dummies(ops), optimize=how)[0][1:]
    return [tuple(step) for step in path]


def _contract_in_order(letters, out, items, path):
    """Contract (operand, letters) pairs in `path`'s order (einsum_path's convention: the
    chosen operands leave the list, their result goes to its end), each step an einsum."""
    items = list(items)
    for step in path:
        chosen = [items[i] for i in step]
        items = [it for i, it in enumerate(items) if i not in step]
        later = set(out).union(*[set(ls) for _, ls in items])
        seen = []
        for _, ls in chosen:
            for c in ls:  # (each letter once, though an operand repeats it: 'jii')
                if c not in seen:
                    seen.append(c)
        keep = "".join(c for c in seen if c in later)
        sub = ",".join("".join(ls) for _, ls in chosen) + "->" + keep
        items.append((einsum(sub, *[x for x, _ in chosen]), list(keep)))
    return items


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _einsum_dtype(dt, dtype, operands, casting, order):
    """einsum's computing dtype (`dtype=`, else the promoted `dt`): every operand must cast
    to it under `casting` (NumPy's rule and TypeError); `order` is only checked."""
    if casting not in _CASTINGS:
        raise ValueError(f"einsum: casting must be one of {', '.join(map(repr, _CASTINGS))} "
                         f"(got {casting!r})")
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"einsum: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if dtype is None and casting in ("safe", "same_kind", "unsafe"):
        return dt  # (every operand casts safely to the promoted dtype)
    dt = dt if dtype is None else np.dtype(dtype)
    for i, o in enumerate(operands):
        src = np.asarray(o).dtype if is_weak(o) else dtype_of(o)
        if not np.can_cast(src, dt, casting):
            raise TypeError(f"einsum: operand {i} of dtype {src} cannot be cast to "
                            f"dtype={dt} according to the rule {casting!r}; pass "
                            f"casting='unsafe' (or 'same_kind') to allow it")
    return dt


def einsum(subscripts, *operands, out=None, optimize=False, dtype=None, order="K",
           casting="safe"):
    """`numpy.einsum` (explicit or implicit output, '...', repeated indices, and the
    operand-list form `einsum(x, [0, 1], [1, 0])`), built from diagonals, sums and pairwise
    `dot_general` contractions. `optimize` (False, True, 'greedy', 'optimal' or an
    einsum_path list) picks the pairwise order as np.einsum_path does; False contracts
    left to right. `dtype` computes in that dtype (each operand cast under `casting`, as
    NumPy's); `out=` is taken on concrete operands only; `order` is a layout hint.

    Example:
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.einsum("ii", a)
        np.float64(5.0)
        >>> fnp.einsum("ij,j->i", a, np.array([1.0, 1.0]))
        array([3., 7.])
        >>> fg.grad(lambda a: fnp.einsum("ij,ij->", a, a))(a)
        array([[2., 4.],
               [6., 8.]])
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _from_operand_list((subscripts,) + operands)
    operands = [lift(o) for o in operands]
    if not traced_or_narrow(*operands):  # (np.einsum refuses bfloat16)
        kw = {} if dtype is None else {"dtype": dtype}
        if out is not None:
            kw["out"] = out
        return np.einsum(subscripts, *operands, optimize=optimize, order=order,
                         casting=casting, **kw)
    if out is not None:
        raise TypeError("einsum: out= is not supported on traced values (fungrad arrays "
                        "are immutable); write y = fnp.einsum(subscripts, *operands)")
    from ._reductions import sum as _sum
    # NumPy sums in the operands' dtype: int8 wraps, bools give an `or` of `and`s
    dt = _einsum_dtype(_strong_type(*operands), dtype, operands, casting, order)
    ops = [_as(o, dt) for o in operands]
    letters, out = _parse_einsum(subscripts, ops, optimize)
    path = _pairwise_order(subscripts, ops, optimize)
    if path is not None:
        items = _contract_in_order(letters, out, list(zip(ops, letters)), path)
        (x, ls), = items
        return einsum("".join(ls) + "->" + "".join(out), x)
    sizes = {}
    for k, (ls, o) in enumerate(zip(letters, ops)):
        for c, d in zip(ls, shape_of(o)):
            if sizes.setdefault(c, (d, k))[0] == 1 and d != 1:
                sizes[c] = (d, k)
            elif sizes[c][0] != d and d != 1:
                raise ValueError(f"einsum {subscripts!r}: index '{c}' has size {sizes[c][0]} in "
                                 f"operand {sizes[c][1]} but size {d} in operand {k} (shape "
                                 f"{shape_of(o)})")
    # as NumPy's: an index of size 1 in one operand broadcasts against the others (vmap
    # meets this with '...' over an in_axes=None operand of size 1 next to a batched one)
    ops = [broadcast_to_shape(o, tuple(sizes[c][0] for c in ls)) for o, ls in zip(ops, letters)]
    items = [_take_diagonal(o, ls) for o, ls in zip(ops, letters)]

    def needed_elsewhere(k, items_, c):
        return c in out or any(c in ls for j, (_, ls) in enumerate(items_) if j != k)

    # sum out letters private to one operand
    for k, (x, ls) in enumerate(items):
        private = [i for i, c in enumerate(ls) if not needed_elsewhere(k, items, c)]
        if private:
            items[k] = (_sum(x, axis=tuple(private), dtype=dt),
                        [c for i, c in enumerate(ls) if i not in private])
    x, ls = items[0]
    rest = items[1:]
    while rest:
        (y, ly), rest = rest[0], rest[1:]
        later = set(out).union(*[set(l) for _, l in rest])
        shared = [c for c in ls if c in ly]
        batch = [c for c in shared if c in later]
        contract = [c for c in shared if c not in later]
        dn = (((tuple(ls.index(c) for c in contract)), tuple(ly.index(c) for c in contract)),
              (tuple(ls.index(c) for c in batch), tuple(ly.index(c) for c in batch)))
        x = dot_general(x, y, dn)
        ls = batch + [c for c in ls if c not in shared] + [c for c in ly if c not in shared]
        private = [i for i, c in enumerate(ls) if c not in later]
        if private:
            x = _sum(x, axis=tuple(private), dtype=dt)
            ls = [c for i, c in enumerate(ls) if i not in private]
    extra = [i for i, c in enumerate(ls) if c not in out]
    if extra:
        x = _sum(x, axis=tuple(extra), dtype=dt)
        ls = [c for i, c in enumerate(ls) if i not in extra]
    return transpose(x, [ls.index(c) for c in out])
