"""Regressions from a differential sweep of `fg.vmap` against a Python loop over the batch:
empty batches, size-1 broadcasting the batch exposes, and the errors for bad axes / sizes.

The reference is always the loop: `np.stack` of the per-example results, moved to out_axes
(for an empty batch: an empty array of one example's shape and dtype)."""
import collections
import dataclasses

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad import checkify

rng = np.random.default_rng(0)


def loop(f, in_axes, args, out_axis=0, size=None):
    """The ground truth: f on each example, outputs stacked at `out_axis`."""
    size = size if size is not None else next(np.shape(a)[ax] for a, ax in zip(args, in_axes)
                                              if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, in_axes)])
            for b in range(size)]
    return [np.stack([np.asarray(fg.tree.tree_leaves(o)[j]) for o in outs], axis=out_axis)
            for j in range(len(fg.tree.tree_leaves(outs[0])))]


def assert_same(got, want):
    got = [np.asarray(g) for g in fg.tree.tree_leaves(got)]
    want = [np.asarray(w) for w in fg.tree.tree_leaves(want)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def empty_batch_of(f, *examples):
    """What vmap over zero examples must give: one example's outputs with a batch of 0."""
    return fg.tree.tree_map(lambda o: np.empty((0,) + np.shape(o), np.asarray(o).dtype),
                            f(*examples))


# ------------------------------------------------- einsum: size-1 axes broadcast (as NumPy's)
@pytest.mark.parametrize("wrap", [fg.vmap, lambda f, **kw: fg.jit(fg.vmap(f, **kw))])
def test_einsum_broadcasts_a_size_one_axis_of_an_unmapped_operand(wrap):
    # per example '...j,...j->...' of (3, 5) and (1, 5): NumPy broadcasts the 1. The traced
    # path (which vmap and jit take) used to reject it: "index 'Z' has size 3 ... size 1"
    f = lambda a, b: fnp.einsum("...j,...j->...", a, b)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 1, 5))
    assert_same(wrap(f, in_axes=(1, 0))(a, b), loop(f, (1, 0), (a, b)))
    g = lambda a, b: fnp.einsum("ij,ij->i", a, b)  # (a named index too, as NumPy allows)
    assert_same(wrap(g, in_axes=(None, 0))(a[:, 0], b), loop(g, (None, 0), (a[:, 0], b)))


def test_einsum_size_one_broadcast_gradients():
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((1, 5))
    ga, gb = fg.grad(lambda a, b: fnp.einsum("ij,ij->", a, b), (0, 1))(a, b)
    np.testing.assert_allclose(ga, np.broadcast_to(b, (3, 5)))
    np.testing.assert_allclose(gb, a.sum(0, keepdims=True))


# ------------------------------------------------------------ empty batches (size 0)
EMPTY_CASES = {
    # searchsorted's batched impl reshaped with -1 (ambiguous for size 0): also unique,
    # argwhere, set functions and interp, which sort/search through it
    "searchsorted": (lambda a, v: fnp.searchsorted(a, v), (0, None), [(4,), (3,)]),
    "searchsorted_both": (lambda a, v: fnp.searchsorted(a, v, side="right"), (1, 0),
                          [(4,), (2,)]),
    "unique_size": (lambda a: fnp.unique(a, size=2, fill_value=0.0), (0,), [(3,)]),
    "interp": (lambda x, xp: fnp.interp(x, xp, xp ** 2), (-1, 0), [(2, 3), (5,)]),
    # SciPy's lu_factor refuses an empty stack of matrices
    "lu_factor": (lambda a: fg.scipy.linalg.lu_factor(a), (0,), [(3, 3)]),
    "lu_solve": (lambda a, b: fg.scipy.linalg.lu_solve(fg.scipy.linalg.lu_factor(a), b),
                 (0, None), [(3, 3), (3,)]),
    # convolve1d's rule with both operands mapped groups the conv by the batch size (0)
    "convolve_both": (lambda a, v: fnp.convolve(a, v), (0, 1), [(5,), (3,)]),
    "poly": (lambda r: fnp.poly(r), (0,), [(3,)]),
    # conv_general_dilated's rule split its output by the batch size (a division by 0)
    "conv_lhs": (lambda x, w: fg.lax.conv(x, w, (1, 1), "SAME"), (0, None),
                 [(2, 3, 4, 4), (5, 3, 2, 2)]),
    "conv_both": (lambda x, w: fg.lax.conv(x, w, (1, 1), "VALID"), (1, 0),
                  [(2, 3, 4, 4), (5, 3, 2, 2)]),
    "convolve2d": (lambda a, v: fg.scipy.signal.convolve2d(a, v), (0, None), [(3, 3), (2, 2)]),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CASES))
def test_vmap_over_an_empty_batch(name):
    f, in_axes, shapes = EMPTY_CASES[name]
    examples = [np.sort(rng.standard_normal(s), axis=-1) + 3 * np.eye(*s[-2:])
                if len(s) == 2 and s[0] == s[1] else np.sort(rng.standard_normal(s), axis=-1)
                for s in shapes]
    batched = [e if ax is None else np.empty(np.insert(e.shape, ax % (e.ndim + 1), 0))
               for e, ax in zip(examples, in_axes)]
    want = empty_batch_of(f, *examples)
    assert_same(fg.vmap(f, in_axes=in_axes)(*batched), want)
    assert_same(fg.jit(fg.vmap(f, in_axes=in_axes))(*batched), want)
    # and a batch of 2 still matches the loop
    two = [e if ax is None else np.stack([e, e + 0.01], axis=ax)
           for e, ax in zip(examples, in_axes)]
    assert_same(fg.vmap(f, in_axes=in_axes)(*two), loop(f, in_axes, two))


def test_vmap_of_checkify_over_an_empty_batch():
    # which batch elements failed was reshaped with -1 (ambiguous for size 0)
    def f(x):
        checkify.check(fnp.all(x > 0), "negative: {x}", x=x)
        return x * 2
    err, out = fg.vmap(checkify.checkify(f))(np.empty((0, 3)))
    assert out.shape == (0, 3) and err.get() is None
    err, out = fg.vmap(checkify.checkify(f))(np.array([[1.0, 2.0, 3.0], [1.0, -1.0, 1.0]]))
    assert "batch element 1" in err.get()


def test_grad_of_vmap_over_an_empty_batch_of_convolutions():
    w = rng.standard_normal((5, 3, 2, 2))
    loss = lambda x: fnp.sum(fg.vmap(lambda x: fg.lax.conv(x, w, (1, 1), "SAME"))(x))
    assert_same(fg.grad(loss)(np.empty((0, 2, 3, 4, 4))), np.empty((0, 2, 3, 4, 4)))


# ------------------------------------------------------------------------- errors
def test_error_inconsistent_sizes_names_each_argument_axis_and_type():
    # (used to say only "size 2 for leaves [0] (shapes [(2,)])")
    with pytest.raises(ValueError) as e:
        fg.vmap(lambda a, d: a + d["w"])(np.ones(2), {"w": np.ones((4, 3))})
    msg = str(e.value)
    assert "size 2: axis 0 of argument 0 (a) (f64[2])" in msg
    assert "size 4: axis 0 of argument 1 (d)['w'] (f64[4,3])" in msg
    assert "in_axes=None" in msg  # (the fix)
    with pytest.raises(ValueError, match=r"size 2: axis 0 of keyword argument 'b'"):
        fg.vmap(lambda a, b: a + b)(np.ones(3), b=np.ones(2))
    with pytest.raises(ValueError, match=r"axis_size=4 but the mapped inputs have size 3:"
                                         r".*axis 1 of argument 0 \(x\)"):
        fg.vmap(lambda x: x, in_axes=1, axis_size=4)(np.ones((2, 3)))


def test_error_axis_out_of_range_names_the_pytree_path_and_the_valid_range():
    with pytest.raises(ValueError, match=r"in_axes=2 is out of range .*shape \(3,\).*in "
                                         r"argument 0 \(d\)\['b'\]: use an axis in \[-1, 1\)"):
        fg.vmap(lambda d: d, in_axes=({"a": 0, "b": 2},))({"a": np.ones((3, 2)),
                                                           "b": np.ones(3)})
    with pytest.raises(ValueError, match=r"0-d value has no axis to map"):
        fg.vmap(lambda s: s)(1.0)


@pytest.mark.parametrize("bad", [-1, 2.0, "3", True])
def test_error_axis_size_must_be_a_non_negative_int(bad):
    # (-1 used to fail inside NumPy: "all elements of broadcast shape must be non-negative")
    with pytest.raises(ValueError, match=r"axis_size must be None or an int >= 0"):
        fg.vmap(lambda: 1.0, axis_size=bad)()



def test_error_bool_axes_are_not_axis_1():
    # True is an int to Python: in_axes=True used to map axis 1, out_axes=True put it there
    with pytest.raises(ValueError, match=r"in_axes=True is a bool, not an axis"):
        fg.vmap(lambda a: a, in_axes=True)(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"out_axes\[1\]=True is a bool, not an axis"):
        fg.vmap(lambda a: (a, a), out_axes=(0, True))(np.ones((2, 3)))


# ------------------------------------------------------ pytree in_axes / out_axes order
def test_ordered_dict_axes_follow_insertion_order():
    # an OrderedDict flattens in insertion order, but its in_axes/out_axes entries were
    # matched by sorted key: 'b' got 'a''s axis and the reverse, a silently wrong answer
    b, a = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    d = collections.OrderedDict([("b", b), ("a", a)])
    f = lambda d: d["b"] * 10 + d["a"]
    for axes in (collections.OrderedDict([("b", 1), ("a", 0)]), {"a": 0, "b": 1}):
        assert_same(fg.vmap(f, in_axes=(axes,))(d),
                    loop(lambda bt, ar: bt * 10 + ar, (1, 0), (b, a)))
    g = lambda x: collections.OrderedDict([("z", x), ("y", x * 2)])
    out = fg.vmap(g, out_axes=collections.OrderedDict([("z", 1), ("y", 0)]))(b)
    assert list(out) == ["z", "y"]
    assert_same(out["z"], b.T)
    assert_same(out["y"], 2 * b)


@dataclasses.dataclass
class _Pair:
    a: object
    b: object


fg.tree.register_dataclass(_Pair)


def test_registered_pytree_node_as_in_axes_and_out_axes():
    # as JAX allows: a registered node (here a dataclass) of axes for an argument / output
    # of that type; it used to be rejected as "not a pytree prefix"
    a, b = rng.standard_normal((3, 2)), rng.standard_normal(4)
    f = lambda p: p.a * fnp.sum(p.b)
    assert_same(fg.vmap(f, in_axes=(_Pair(1, None),))(_Pair(a, b)),
                loop(lambda ai, bi: ai * np.sum(bi), (1, None), (a, b)))
    out = fg.vmap(lambda p: _Pair(p.a * 2, p.b), in_axes=(_Pair(0, None),),
                  out_axes=_Pair(1, None))(_Pair(a, b))
    assert_same(out.a, 2 * a.T)
    assert_same(out.b, b)
    with pytest.raises(ValueError, match="not a pytree prefix"):
        fg.vmap(f, in_axes=(_Pair(0, (0, 1)),))(_Pair(a, b))
