"""Which pixel pairs a kernel computation needs: the same-position pairs before a ``flatten()`` readout.

A ``flatten()`` readout averages the pairs p = p' only. Convolutions (both positions move by the same offset, for
any stride, dilation and padding), elementwise activations and normalization (layer norm, frozen batch norm)
compute their output's pairs p = p' from their input's pairs p = p' alone. So in a run of such layers that ends in
``flatten()`` a kernel needs only the (n1, n2, H, W) diagonal, not the (n1, n2, H, W, H, W) pair tensors. Each
layer says whether it ``keeps_same_position_pairs`` (and its ``transform`` then accepts such a kernel) and whether
it ``reads_same_position_pairs``; :func:`same_position_start` finds where the run begins, ``serial`` switches to
``Kernel.same_position`` there, and the evaluation (:mod:`.evaluation`: blocks from a memory budget, the choice
of backend) starts with same-position input pairs when the run begins at the first layer.
"""

from __future__ import annotations


def same_position_start(layers) -> int | None:
    """Index of the first layer of the run that ends in the first readout of same-position pairs
    (``flatten()``) and keeps them (the kernel switches to ``same_position`` before it), or None without one."""
    layers = list(layers)
    end = next((i for i, layer in enumerate(layers) if layer.reads_same_position_pairs), None)
    if end is None:
        return None
    start = end
    while start > 0 and layers[start - 1].keeps_same_position_pairs:
        start -= 1
    return start


__all__ = ["same_position_start"]
