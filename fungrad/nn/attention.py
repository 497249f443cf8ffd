"""Scaled dot-product attention (`jax.nn.dot_product_attention`'s arguments and results),
written with fungrad.numpy, so grad, jit and vmap compose with it.

Shapes use JAX's letters: B batch, T query length, S key/value length, N query heads,
K key/value heads (N a multiple of K: K = N is multi-head attention, K < N grouped-query
attention, K = 1 multi-query attention), G = N // K, H the head size.
"""
from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from .. import numpy as fnp
from ..lax.misc import stop_gradient
from ..numpy._dtypes import result_type
from ._util import Array, ArrayLike
from .activations import logsumexp, softmax

__all__ = ["dot_product_attention"]


def _four_d(name: str, t, leading: bool) -> Array:
    """`t` as an array with 4 axes: 3-axis ones (no batch axis) get a leading 1."""
    t = fnp.asarray(t)
    if t.ndim == 3 and leading:
        return fnp.expand_dims(t, 0)
    if t.ndim != 4:
        raise ValueError(f"dot_product_attention: {name} must have 4 axes (or 3 without the "
                         f"batch axis); got shape {tuple(t.shape)}")
    return t


def _grouped(name: str, t: Array, n: int, k: int) -> Array:
    """A (B|1, N|1, T|1, S|1) bias or mask as (B|1, K|1, G|1, T|1, S|1), matching the logits'
    (B, K, G, T, S) layout."""
    tb, tn, tt, ts = t.shape
    if tn == 1:
        return fnp.reshape(t, (tb, 1, 1, tt, ts))
    if tn != n:
        raise ValueError(f"dot_product_attention: {name}'s head axis (axis 1 of shape "
                         f"{tuple(t.shape)}) must be 1 or the {n} query heads")
    return fnp.reshape(t, (tb, k, n // k, tt, ts))


def _positions_mask(t: int, s: int, is_causal: bool, window) -> Optional[np.ndarray]:
    """The (T, S) mask of key positions each query position may attend to, from the causal
    and local-window rules (both aligned at position 0, as JAX's), or None for all."""
    mask = None
    q, kv = np.arange(t)[:, None], np.arange(s)[None, :]
    if is_causal:
        mask = kv <= q
    if window is not None:
        left, right = window
        near = (q <= kv + left) & (q >= kv - right)
        mask = near if mask is None else mask & near
    return mask


def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: Optional[ArrayLike] = None, mask: Optional[ArrayLike] = None,
                          *, scale: Optional[float] = None, is_causal: bool = False,
                          query_seq_lengths: Optional[ArrayLike] = None,
                          key_value_seq_lengths: Optional[ArrayLike] = None,
                          local_window_size: Union[int, Tuple[int, int], None] = None,
                          implementation: Optional[str] = None,
                          return_residual: bool = False) -> Union[Array, Tuple[Array, Array]]:
    """`softmax(scale * Q K^T + bias, masked) V` per head, as `jax.nn.dot_product_attention`.

    `query` (B, T, N, H), `key` and `value` (B, S, K, H) (or without the B axis); `bias`
    (added to the logits) and boolean `mask` (True attends) broadcast to (B, N, T, S);
    `scale` defaults to 1/sqrt(H); `is_causal` lets query t see keys s <= t;
    `local_window_size` (left, right) (or one int for both) lets t see
    t - left <= s <= t + right; `query_seq_lengths` / `key_value_seq_lengths` (int32, (B,))
    mask padding (padded query rows come out 0). A query that may see no key attends to all
    its keys equally (JAX's large finite negative logits). The logits and softmax are
    computed in float32 or wider; `return_residual=True` also returns the logsumexp of
    the masked logits, (B, T, N), without a gradient.

    Example:
        >>> q = k = v = np.ones((1, 2, 1, 4))
        >>> fg.nn.dot_product_attention(q, k, v, is_causal=True).shape
        (1, 2, 1, 4)
    """
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation={implementation!r} is not "
                         "available in fungrad; pass implementation=None (or 'xla')")
    out_shape = tuple(fnp.shape(query))
    q = _four_d("query", query, True)
    k = _four_d("key", key, True)
    v = _four_d("value", value, True)
    b_, s_, kh, h = k.shape
    if tuple(v.shape) != tuple(k.shape) or v.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: value must have key's shape and dtype "
                         f"{tuple(k.shape)} {k.dtype}; got {tuple(v.shape)} {v.dtype}")
    if q.shape[0] != b_ or q.shape[3] != h or q.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: query (B, T, N, H) must share key's batch "
                         f"size {b_}, head size {h} and dtype {k.dtype}; got query "
                         f"{tuple(q.shape)} {q.dtype}, key {tuple(k.shape)}")
    _, t_, n, _ = q.shape
    if n % kh:
        raise ValueError(f"dot_product_attention: the {n} query heads must be a multiple of "
                         f"the {kh} key/value heads (query {tuple(q.shape)}, key "
                         f"{tuple(k.shape)})")
    g = n // kh
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    logits_dtype = result_type(q.dtype, np.float32)
    qg = fnp.reshape(q, (b_, t_, kh, g, h)).astype(logits_dtype)
    logits = fnp.einsum("btkgh,bskh->bkgts", qg, k.astype(logits_dtype))
    logits = logits * np.asarray(scale, logits_dtype)
    if bias is not None:
        logits = logits + _grouped("bias", _four_d("bias", bias, False), n, kh)

    keep = None
    if mask is not None:
        mask = _four_d("mask", mask, False)
        if mask.dtype != np.bool_:
            raise ValueError(f"dot_product_attention: mask must be boolean (True attends); got "
                             f"{mask.dtype}: pass an additive mask as bias=")
        keep = _grouped("mask", mask, n, kh)
    if isinstance(local_window_size, (int, np.integer)):
        local_window_size = (int(local_window_size), int(local_window_size))
    positions = _positions_mask(t_, s_, is_causal, local_window_size)
    if positions is not None:
        keep = positions if keep is None else fnp.logical_and(keep, positions)
    q_len = _lengths("query_seq_lengths", query_seq_lengths, b_)
    kv_len = _lengths("key_value_seq_lengths", key_value_seq_lengths, b_)
    if q_len is not None or kv_len is not None:
        pad = True
        if q_len is not None:
            pad = fnp.arange(t_)[None, :, None] < q_len[:, None, None]
        if kv_len is not None:
            pad = fnp.logical_and(pad, fnp.arange(s_)[None, None, :] < kv_len[:, None, None])
        pad = fnp.reshape(fnp.broadcast_to(pad, (b_, t_, s_)), (b_, 1, 1, t_, s_))
        keep = pad if keep is None else fnp.logical_and(keep, pad)
    if keep is not None:
        # a large finite negative (not -inf): a row with nothing to attend to averages all
        # its values, as JAX's, instead of 0/0 (JAX's number, rounded to float32 as there)
        big = float(-0.7 * min(np.finfo(logits_dtype).max, np.finfo(np.float32).max))
        logits = fnp.where(keep, logits, big)

    probs = softmax(logits, axis=-1).astype(k.dtype)
    encoded = fnp.einsum("bkgts,bskh->btkgh", probs, v)
    encoded = fnp.reshape(encoded, (b_, t_, n, h))
    if q_len is not None:
        rows = fnp.arange(t_)[None, :] < q_len[:, None]
        encoded = encoded * rows[:, :, None, None].astype(encoded.dtype)
    encoded = fnp.reshape(encoded, out_shape)
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(k.dtype)               # (B, K, G, T)
    lse = fnp.reshape(fnp.moveaxis(lse, 3, 1), (b_, t_, n))        # (B, T, N)
    return encoded, stop_gradient(fnp.reshape(lse, out_shape[:-1]))


def _lengths(name: str, lengths, batch: int) -> Optional[Array]:
    if lengths is None:
        return None
    lengths = fnp.asarray(lengths)
    if tuple(lengths.shape) != (batch,) or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"dot_product_attention: {name} must be integers of shape ({batch},) "
                         f"(one length per batch element); got {lengths.dtype} "
                         f"{tuple(lengths.shape)}")
    return lengths
