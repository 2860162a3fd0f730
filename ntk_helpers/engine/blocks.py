"""Blocked kernel evaluation: compute a large kernel a few inputs at a time, with bounded memory.

Image kernels carry pixel-pair tensors of n1 * n2 * (H W)^2 entries until the readout; evaluating
them on blocks of inputs and assembling the (n1, n2) result keeps memory bounded. For a Gram
matrix (x2 = x1) only the blocks on and above the diagonal are computed; the others are mirrored.
"""

from __future__ import annotations

import torch

from .kernel import Kernel


def blocked(transform, x1, x2, block: int, progress: bool) -> Kernel:
    """Evaluate ``transform`` on blocks of inputs and assemble the full kernel (Gram: upper blocks only)."""
    x2_rows = x1 if x2 is None else x2
    starts1, starts2 = range(0, x1.shape[0], block), range(0, x2_rows.shape[0], block)
    jobs = [(i, j) for i in starts1 for j in starts2 if x2 is not None or j >= i]
    if progress:
        from tqdm.auto import tqdm
        jobs = tqdm(jobs, desc="kernel blocks")
    parts, var1, var2 = {}, {}, {}
    for i, j in jobs:
        a = x1[i:i + block]
        gram_block = x2 is None and i == j
        k = transform(Kernel.from_inputs(a) if gram_block else Kernel.from_inputs(a, x2_rows[j:j + block]))
        parts[i, j] = k
        _release_freed_memory()
        var1.setdefault(i, k.var1)
        var2.setdefault(j, k.var2)
    if x2 is None:
        for (i, j), k in list(parts.items()):
            if i != j:
                parts[j, i] = Kernel(_swap(k.nngp), _swap(k.ntk), k.var2, k.var1)
        var2 = var1
    rows = lambda name: torch.cat([torch.cat([getattr(parts[i, j], name) for j in starts2], 1) for i in starts1], 0)
    return Kernel(nngp=rows("nngp"), ntk=rows("ntk"), var1=torch.cat([var1[i] for i in starts1]),
                  var2=torch.cat([var2[j] for j in starts2]), is_gram=x2 is None)


def _release_freed_memory() -> None:
    """Hand freed heap memory back to the OS (glibc only). Blocks of a few MB each are below glibc's
    adaptive mmap threshold, and without this the process footprint creeps up block after block."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _load_libc():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _load_libc()


def _swap(t: torch.Tensor) -> torch.Tensor:
    """Exchange the roles of x1 and x2 in a cross tensor (n1, n2, *space, *space)."""
    space = (t.ndim - 2) // 2
    return t.permute(1, 0, *range(2 + space, 2 + 2 * space), *range(2, 2 + space))
