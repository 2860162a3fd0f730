"""Blocked kernel evaluation: compute a large kernel a few inputs at a time, with bounded memory.

Image kernels carry pixel-pair tensors of n1 * n2 * (H W)^2 entries until the readout; evaluating
them on blocks of inputs and writing each block into the preallocated (n1, n2, ...) result keeps memory
bounded (``Layer.kernel`` picks the block size from a memory budget: :mod:`.planning`). For a Gram
matrix (x2 = x1) only the blocks on and above the diagonal are computed; the others are mirrored.

Freed blocks are not handed back to the operating system (no ``malloc_trim``): the next block reuses the
same heap memory, which spares the page faults of mapping it afresh (the peak stays one block's worth).
"""

from __future__ import annotations

import torch

from .kernel import Kernel


def blocked(transform, x1, x2, block: int, progress: bool, *, same_position: bool = False) -> Kernel:
    """Evaluate ``transform`` on blocks of inputs and assemble the full kernel (Gram: upper blocks only)."""
    x2_rows = x1 if x2 is None else x2
    n1, n2 = x1.shape[0], x2_rows.shape[0]
    starts1, starts2 = range(0, n1, block), range(0, n2, block)
    jobs = [(i, j) for i in starts1 for j in starts2 if x2 is not None or j >= i]
    if progress:
        from tqdm.auto import tqdm
        jobs = tqdm(jobs, desc="kernel blocks")
    out = {}
    var1, var2 = {}, {}
    for i, j in jobs:
        a = x1[i:i + block]
        gram_block = x2 is None and i == j
        inputs = (Kernel.from_inputs(a, same_position=same_position) if gram_block else
                  Kernel.from_inputs(a, x2_rows[j:j + block], same_position=same_position))
        k = transform(inputs)
        del inputs
        if not out:
            tail = tuple(k.nngp.shape[2:])
            out = {name: torch.empty((n1, n2, *tail), dtype=k.nngp.dtype, device=k.nngp.device)
                   for name in ("nngp", "ntk")}
            template = k
        for name in ("nngp", "ntk"):
            t = getattr(k, name)
            out[name][i:i + t.shape[0], j:j + t.shape[1]] = t
            if x2 is None and i != j:
                out[name][j:j + t.shape[1], i:i + t.shape[0]] = _swap(t)
        var1.setdefault(i, k.var1)
        var2.setdefault(j, k.var2)
        del k
    var1 = torch.cat([var1[i] for i in starts1])
    var2 = var1 if x2 is None else torch.cat([var2[j] for j in starts2])
    return Kernel(nngp=out["nngp"], ntk=out["ntk"], var1=var1, var2=var2, is_gram=x2 is None,
                  same_position=template.same_position)


def _swap(t: torch.Tensor) -> torch.Tensor:
    """Exchange the roles of x1 and x2 in a cross tensor (n1, n2, *space, *space)."""
    space = (t.ndim - 2) // 2
    return t.permute(1, 0, *range(2 + space, 2 + 2 * space), *range(2, 2 + space))
