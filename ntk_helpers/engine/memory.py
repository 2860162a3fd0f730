"""Keep freed pair tensors in the process while a kernel is computed (glibc only; a no-op elsewhere).

Image kernels allocate and free tensors of a few MB many times per block. glibc serves them from its heap,
but by default it hands the top of the heap back to the OS as soon as more than a few MB are free, and maps
allocations above a moving threshold afresh with ``mmap``: the next tensor of the same size then page-faults
its memory in again (zero-filled by the kernel), which cost more than the arithmetic (MLP kernel, n = 2048:
254 k page faults and 1.3 s per call). :func:`heap_reuse` raises glibc's trim threshold for the duration of a
kernel computation and fixes the mmap threshold at its largest value (32 MiB), so freed tensors are reused,
and gives the free memory back once at the end (``malloc_trim``), not after every block.
"""

from __future__ import annotations

import contextlib

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 * 2 ** 20           # glibc's largest allowed value (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD      # what glibc's own dynamic rule settles on
_depth = 0


def _load_libc():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _load_libc()


@contextlib.contextmanager
def heap_reuse():
    """Inside the block freed heap memory stays in the process; on leaving, it is trimmed once."""
    global _depth
    if _LIBC is None:
        yield
        return
    if _depth == 0:
        _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, 2 ** 31 - 1)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _LIBC.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            _LIBC.malloc_trim(0)


__all__ = ["heap_reuse"]
