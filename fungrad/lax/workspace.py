"""Reusable memory for the large temporaries inside primitive implementations.

A NumPy implementation that builds big intermediate arrays (a convolution's window copy, its
frequency-domain operands) would allocate them afresh on every call. Fresh memory costs more
than its `malloc`: glibc hands large blocks back to the operating system when they are freed
(it trims its heap, or unmaps them), so the next call page-faults every page in again and
the kernel zeroes it. On LeNet's training step that was ~5,000 page faults a step, about as
long as the arithmetic of the convolutions that caused them.

`workspace(tag, shape, dtype)` returns an uninitialized array that stays allocated: the next
call in the same thread with the same tag, shape and dtype gets the same memory back. The
contract is that a workspace never outlives the call that asked for it: it is not returned,
nor is any view of it, and the caller writes it fully before reading. One workspace per tag
is live at a time, so two temporaries of one function take two tags. Buffers are per
thread (concurrent calls never share one) and the least recently used are dropped past
`MAX_BYTES` per thread, so a program that cycles through many shapes stays bounded.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

MAX_BYTES = 256 << 20  # per thread: a few LeNet-sized models' worth of temporaries

_local = threading.local()


def _cache():
    cache = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = OrderedDict()
        _local.nbytes = 0
    return cache


def workspace(tag: str, shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous NumPy array of `shape` and `dtype`, the same memory as
    the last one this thread got for (`tag`, `shape`, `dtype`). Only for a temporary that
    dies before its caller returns (see the module doc).

    Example:
        >>> a = workspace("example", (2, 3), np.float32)
        >>> a is workspace("example", (2, 3), np.float32)
        True
    """
    key = (tag, tuple(shape), np.dtype(dtype))
    cache = _cache()
    buf = cache.get(key)
    if buf is not None:
        cache.move_to_end(key)
        return buf
    buf = np.empty(key[1], key[2])
    if buf.nbytes > MAX_BYTES:  # too big to keep: an ordinary temporary
        return buf
    cache[key] = buf
    _local.nbytes += buf.nbytes
    while _local.nbytes > MAX_BYTES:
        _, old = cache.popitem(last=False)
        _local.nbytes -= old.nbytes
    return buf


def clear() -> None:
    """Drop this thread's workspaces (their memory goes back to the allocator)."""
    _cache().clear()
    _local.nbytes = 0
